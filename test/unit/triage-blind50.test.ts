// The message classes blind batch 50 showed the engine did not read: Ascend's device report of an HCCL task timeout
// (fftsplus), a status raised from hsa_init() itself, TensorFlow's BFC chunk map kept without its OOM line, its allocator's
// "not a failure" warning (a noted not-oom on its device), and IPython's header glued to its exception's name by a copy
// from an old notebook. Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log. TensorFlow's cuDNN initialization failure is in triage-engine.test.ts.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];
const all = (text: string) => triageFailures(text, 'log').verdicts;

describe("Ascend's HCCL task timeout", () => {
  const ffts = (chip: number) =>
    `EI9999: 2025-03-02-08:15:11.120.331  The error from device(chipId:${chip}, dieId:0), serial number is 4, hccl fftsplus task timeout occurred during task execution, stream_id:9, sq_id:9, task_id:120, stuck notify num:2, timeout:1836.[FUNC:ProcessStarsHcclFftsPlusTimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1500]`;

  it('reads the device report as a hang on that chip, with the frames of the exception raised for it', () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/work/serve/worker.py", line 88, in step',
      '    dist.all_reduce(t)',
      '  File "/usr/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 2050, in all_reduce',
      '    work.wait()',
      'RuntimeError: ACL stream synchronize failed.',
      'EI9999: Inner Error!',
      ffts(6),
      '        TraceBack (most recent call last):',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'hang', platform: 'npu', catchable: false, device: 6, userFrames: [{ file: '/work/serve/worker.py', line: 88 }] });
    expect(root(ffts(1))).toMatchObject({ kind: 'hang', platform: 'npu', device: 1 });
  });

  it('leaves the report to the timeout code line above it, as its detail', () => {
    const log = ['RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:363 NPU error, error code is 107020', '[ERROR] 2025-03-02-08:15:11 (PID:77, Device:0, RankID:5) ERR00100 PTA call acl api failed.', 'EI9999: Inner Error!', ffts(0)];
    const verdicts = all(log.join('\n'));
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ kind: 'hang', platform: 'npu', rank: 5 });
    expect(verdicts[0]!.evidence[0]!.line).toBe(1);
  });
});

describe('HSA status raised from hsa_init()', () => {
  it('reads OUT_OF_RESOURCES from hsa_init() as a failed start, not memory', () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/home/u/proj/runtime/amd.py", line 40, in __init__',
      '    check(hsa.hsa_init())',
      '  File "/home/u/proj/runtime/amd.py", line 9, in check',
      '    raise RuntimeError(f"HSA Error {status}")',
      'RuntimeError: HSA Error 4104: HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: true });
  });

  it('still reads the queue callback abort as running out of device memory', () => {
    const log = [':0:rocdevice.cpp            :2875: 4519853123 us: [pid:81 tid:0x7f] Callback: Queue 0x7f00 aborting with error : HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. code: 0x1008', 'Aborted (core dumped)'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'rocm' });
  });
});

describe("TensorFlow's BFC chunk map alone", () => {
  const chunk = (n: number) => `2022-05-01 10:00:0${n}.100: I tensorflow/core/common_runtime/bfc_allocator.cc:1033] InUse at 7f3a0${n}000 of size 512 next ${40 + n}`;

  it('reads a run of chunk lines as the dump of a failed allocation, once', () => {
    const verdicts = all(['Epoch 1/10', chunk(1), chunk(2), chunk(3), '2022-05-01 10:00:04.100: I tensorflow/core/common_runtime/bfc_allocator.cc:1033] Free  at 7f3a04000 of size 768 next 44'].join('\n'));
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    expect(verdicts[0]!.evidence[0]!.line).toBe(2);
    expect(root('I tensorflow/core/common_runtime/bfc_allocator.cc:1024] Bin (1024): \tTotal Chunks: 3, Chunks in use: 3. 3.0KiB allocated for chunks.')?.kind).toBe('catchable-oom');
  });

  it('gives way to the OOM line itself, and reads no other allocator line', () => {
    const oom = 'W tensorflow/core/common_runtime/bfc_allocator.cc:456] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.00GiB (rounded to 1073741824)requested by op MatMul';
    expect(root([oom, chunk(1), chunk(2)].join('\n'))).toMatchObject({ kind: 'catchable-oom', requestedBytes: 1073741824 });
    expect(all('I tensorflow/core/common_runtime/bfc_allocator.cc:1010] Creating new BFCAllocator named: GPU_0_bfc')).toEqual([]);
  });
});

describe("TensorFlow's allocator warning that is not a failure", () => {
  const warning = (device: number) =>
    `2023-02-11 09:12:40.101: W tensorflow/core/common_runtime/bfc_allocator.cc:290] Allocator (GPU_${device}_bfc) ran out of memory trying to allocate 3.27GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.`;

  it('reads the warning alone as not-oom on its device, never as an OOM', () => {
    expect(all(['Epoch 1/5', warning(1), warning(1), '120/120 [==============================] - 31s 210ms/step - loss: 0.41'].join('\n'))).toMatchObject([{ kind: 'not-oom', platform: 'cuda', device: 1, catchable: false }]);
    expect(root('W tensorflow/core/common_runtime/bfc_allocator.cc:219] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.19GiB. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.')).toMatchObject({ kind: 'not-oom', device: 0 });
  });

  it('gives way to any failure the log shows', () => {
    expect(root([warning(0), 'Traceback (most recent call last):', '  File "/srv/a/train.py", line 7, in <module>', '    fit()', 'ValueError: bad shape'].join('\n'))).toMatchObject({ kind: 'not-oom', catchable: true, userFrames: [{ file: '/srv/a/train.py', line: 7 }] });
    expect(root([warning(0), 'W tensorflow/core/common_runtime/bfc_allocator.cc:456] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.00GiB (rounded to 1073741824)requested by op MatMul'].join('\n'))).toMatchObject({ kind: 'catchable-oom', requestedBytes: 1073741824 });
    expect(root([warning(0), 'Killed'].join('\n'))?.kind).toBe('host-oom');
  });
});

describe("IPython's header glued to the exception's name", () => {
  const body = ['/srv/exp/train.py in <module>()', '---> 31 model.fit(x, y, batch_size=64)'];

  it('reads an out-of-memory exception type as its OOM, with the frames under it', () => {
    expect(root(['ResourceExhaustedErrorTraceback (most recent call last)', ...body].join('\n'))).toMatchObject({ kind: 'catchable-oom', catchable: true, userFrames: [{ file: '/srv/exp/train.py', line: 31 }] });
    expect(root(['OutOfMemoryErrorTraceback (most recent call last)', ...body].join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });

  it('reads any other exception type as not-oom', () => {
    expect(root(['KeyErrorTraceback (most recent call last)', ...body].join('\n'))).toMatchObject({ kind: 'not-oom', catchable: true, userFrames: [{ file: '/srv/exp/train.py', line: 31 }] });
  });
});
