// The device and rank read from a runtime's standard line formats when the failure's reader gave none (evidencePlace.ts):
// NCCL's debug prefix, torch_npu's error-code suffix (on the failure's line or just above CANN's block) and TensorFlow's
// device names. Each input is written for the rule, not copied from the corpus.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe("a failure's place from its lines", () => {
  it("takes the device from NCCL's debug prefix on the failure's line", () => {
    const v = root(['gpu-node-7:41122:41301 [5] misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/nccl-aB12 to 4194304 bytes']);
    expect(v).toMatchObject({ device: 5 });
  });

  it("takes device and rank from torch_npu's suffix just above CANN's error block", () => {
    const v = root([
      'RuntimeError: NPU function error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout(stream), error code is 507035',
      '[ERROR] 2026-02-03-11:22:33 (PID:7001, Device:3, RankID:11) ERR00100 PTA call acl api failed',
      '[Error]: The vector core execution is abnormal.',
      'EZ9999: Inner Error!',
      'EZ9999[PID: 7001] 2026-02-03-11:22:33.100.200 (EZ9999):  The error from device(chipId:3, dieId:0), there is an exception of aivec error',
    ]);
    expect(v).toMatchObject({ device: 3, rank: 11 });
  });

  it('gives no rank for a suffix outside a distributed job, and no device when the lines disagree', () => {
    const v = root(['[ERROR] 2026-02-03-11:22:33 (PID:7001, Device:2, RankID:-1) ERR00100 PTA call acl api failed', '[Error]: The aicore execution times out.']);
    expect(v?.device).toBe(2);
    expect(v?.rank).toBeUndefined();
    const tf = root(['tensorflow.python.framework.errors_impl.InternalError: Failed to copy from /job:localhost/replica:0/task:0/device:GPU:0 to /job:localhost/replica:0/task:0/device:GPU:1 [Op:Identity]']);
    expect(tf?.device).toBeUndefined();
  });

  it("names no device for a kill printed under another process's suffix", () => {
    const v = root(['[ERROR] 2026-02-03-11:22:33 (PID:7001, Device:2, RankID:-1) ERR00100 PTA call acl api failed', 'Killed']);
    expect(v?.kind).toBe('host-oom');
    expect(v?.device).toBeUndefined();
  });
});

describe('devices named around the failure', () => {
  it("takes the device from XLA's 'device ordinal N', ggml's 'current device: N' under its error, and DataParallel's replica line", () => {
    expect(root(['F tensorflow/stream_executor/lib/statusor.cc:34] Attempting to fetch value instead of handling error Internal: failed initializing StreamExecutor for CUDA device ordinal 2: Internal: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE'])?.device).toBe(2);
    expect(root(['1.02.003.004 E CUDA error: no kernel image is available for execution on the device', '1.02.003.005 E   current device: 1, in function ggml_cuda_compute_forward at /src/ggml-cuda.cu:2313'])?.device).toBe(1);
    // The replica's own traceback cut off by a paste, under DataParallel's line.
    expect(root(['StopIteration: Caught StopIteration in replica 1 on device 1.', 'Original Traceback (most recent call last):', '  File "/usr/lib/python3/site-packages/torch/nn/parallel/parallel_apply.py", line 64, in _worker', '    output = module(*input, **kwargs)'])?.device).toBe(1);
  });

  it('names no device when a line lists several ordinals', () => {
    expect(root(['XlaRuntimeError: INTERNAL: device ordinal 0 and device ordinal 1 disagree on the program: CUDA_ERROR_INVALID_VALUE'])?.device).toBeUndefined();
  });
});
