// The classes that blind batch 29 showed the engine did not know. Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe("the cryptonight miners' CUDA check", () => {
  it('reads the status under a GPU prefix, with the source line under it, as an abort on that device', () => {
    const log = ['[2019-03-02 10:14:09] GPU #2: GeForce GTX 1070, using 40 blocks of 8 threads', '***', 'GPU 2: out of memory', '/home/miner/src/cryptonight/cuda_cryptonight_extra.cu line 301', '***'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false, device: 2 });
  });

  it("reads the assert form with the device after '#' and no file", () => {
    expect(root('worker 3 stopped\nthe GPU #1 assert: out of memory')).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false, device: 1 });
  });

  it('leaves a per-GPU line with no file under it as it was', () => {
    expect(root('GPU 4: out of memory')?.kind).not.toBe('runtime-abort');
  });
});

describe("nccl-tests' unhandled cuda error", () => {
  it("joins NCCL's own out-of-memory warning, printed by another rank after it", () => {
    const log = [
      'node-b: Test NCCL failure reduce_scatter.cu:48 \'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / \'',
      ' .. node-b pid 7712: Test failure common.cu:402',
      'node-b:7705:7705 [2] include/alloc.h:103 NCCL WARN Cuda failure 2 \'out of memory\'',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'collective-oom', platform: 'cuda', catchable: false, device: 2 });
    expect(all(log)).toHaveLength(1);
  });

  it('alone is a not-oom', () => {
    expect(root("node-b: Test NCCL failure all_reduce.cu:51 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '")).toMatchObject({ kind: 'not-oom', catchable: false });
  });
});

describe("libstdc++'s terminate with no exception in flight", () => {
  it('reads "terminate called without an active exception" as a not-oom abort', () => {
    const log = ['[loader] spawning 4 prefetch threads', 'terminate called without an active exception', 'Aborted (core dumped)'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root(log)?.summary).toMatch(/without an active exception/);
  });

  it('leaves the recursion to the first terminate report above it', () => {
    const log = ["terminate called after throwing an instance of 'std::logic_error'", '  what():  basic_string::_M_construct null not valid', 'terminate called recursively'].join('\n');
    expect(root(log)?.summary).toMatch(/logic_error/);
    expect(root('step 9\nterminate called recursively')).toMatchObject({ kind: 'not-oom', catchable: false });
  });
});

describe("nccl-tests' wrong results", () => {
  it('reads a non-zero count of out-of-bounds values as a not-oom on cuda', () => {
    const log = [
      '#       size         count      type   redop    root     time   algbw   busbw #wrong',
      '   536870912     134217728     float     sum      -1   5012.1  107.11  187.44     31',
      '# Out of bounds values : 31 FAILED',
      '# Avg bus bandwidth    : 187.44',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root(' Out of bounds values : 0 OK\n Avg bus bandwidth    : 90.1')).toBeUndefined();
  });
});

describe("rdma-core's mlx5 error completion", () => {
  it('reads it as a not-oom that is not catchable', () => {
    const log = ['step 812 synced', 'mlx5: gpu-node-07: got completion with error:', '00000000 00000000 00000000 00000000', '00000000 00008813 08001c3e 0041a8d2'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root(log)?.summary).toMatch(/mlx5/);
  });
});

describe("Bodo's buffer pool refusal", () => {
  it('gives the request, what the rank holds, what is left and the rank', () => {
    // Arrow's Status::OutOfMemory carries it, so Status::ToString puts "Out of memory: " in front.
    const log = 'RuntimeError: Error in Parquet Reader: Out of memory: Bodo detected an out-of-memory error. Rank 3/16 requires 2.0GiB of memory (1.5GiB in use + 512.0MiB requested) but only has 256.0MiB available. To address the issue:';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true, rank: 3, requestedBytes: 512 * 2 ** 20, processInUseBytes: 1.5 * 2 ** 30, freeBytes: 256 * 2 ** 20 });
  });
});

describe("a miner's buffer check with both sides in bytes", () => {
  it('gives the requirement as the request and the total as the device total', () => {
    const log = 'Error: Exceeding GPU memory! | Failed to create buffer (out of memory) | Requirements (4294967296) | Total memory (3221225472)';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 4294967296, deviceTotalBytes: 3221225472 });
  });
});

describe("DataLoader's pin-memory thread re-raising an error", () => {
  it("takes the device it pins for, on cuda when nothing else is named", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/srv/app/fit.py", line 88, in <module>',
      '    for images, masks in loader:',
      'ValueError: Caught ValueError in pin memory thread for device 1.',
      'Original Traceback (most recent call last):',
      '  File "/opt/py/lib/python3.11/site-packages/torch/utils/data/_utils/pin_memory.py", line 37, in do_one_step',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', device: 1 });
  });
});

describe('platform words: CUDA as a token in an identifier, accelerators by model', () => {
  it("reads a pytest id ending in '_cuda' as cuda", () => {
    const log = ['tests/test_ops.py::OpsTest::test_conv2d_fp16_cuda Fatal Python error: Segmentation fault', '', 'Current thread 0x00007f2a1c3e4740 (most recent call first):'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
  });

  it("reads an NVIDIA data-centre GPU's model, in a host name too, as cuda", () => {
    expect(root('[a100-node-12:90411:0:90411] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x18)')?.platform).toBe('cuda');
    expect(root('running on 8x H200\nSegmentation fault (core dumped)')?.platform).toBe('cuda');
  });

  it("reads an AMD Instinct model, as a directory name too, as rocm even beside NCCL's lines", () => {
    const log = [
      'n07:55120:55131 [0] NCCL INFO Channel 00/16 : 0 1 2 3',
      'Fatal Python error: Segmentation fault',
      '',
      'Thread 0x00001495d2a1f740 (most recent call first):',
      '  File "/scratch/envs/mi300x/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py", line 4124 in all_reduce',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
  });

  it('does not read the letters inside other words', () => {
    expect(root('Segmentation fault (core dumped) in libmi2500x.so at 0xA1000')?.platform).toBe('cpu');
  });
});

describe("faulthandler's frames under 'Fatal Python error'", () => {
  it("gives the crashed thread's innermost user frame", () => {
    const log = [
      'Fatal Python error: Segmentation fault',
      '',
      'Thread 0x00007f1c2b7fe640 (most recent call first):',
      '  File "/usr/lib/python3.10/threading.py", line 324 in wait',
      '',
      'Current thread 0x00007f1c3a9e1740 (most recent call first):',
      '  File "/opt/venv/lib/python3.10/site-packages/torch/nn/functional.py", line 2549 in layer_norm',
      '  File "/work/proj/model/blocks.py", line 77 in forward',
      '  File "/work/proj/run.py", line 12 in <module>',
      '',
      'Extension modules: numpy.core._multiarray_umath, torch._C (total: 2)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root(log)?.userFrames[0]).toMatchObject({ file: '/work/proj/model/blocks.py', line: 77 });
  });

  it("reads a launcher's label prefix, a lone thread block and a path behind a placeholder", () => {
    const log = [
      '3: Fatal Python error: Aborted',
      '3: ',
      '3: Thread 0x0000150a2c1f9740 (most recent call first):',
      '3:   File "<path>/env/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py", line 2501 in all_reduce',
      '3:   File "<path>/bench/ddp_check.py", line 40 in step',
      '3: ',
    ].join('\n');
    expect(root(log)?.userFrames[0]).toMatchObject({ file: '<path>/bench/ddp_check.py', line: 40 });
  });
});

describe("a JVM stack flattened onto the exception's line", () => {
  it("reads the ' at ' pieces as the frames, the JDK's as library frames", () => {
    const log = 'Exception in thread "worker-2" java.lang.OutOfMemoryError: GC overhead limit exceeded at java.base/java.util.HashMap.resize(HashMap.java:700) at java.base/java.util.HashMap.putVal(HashMap.java:661) at org.acme.index.TermTable.add(TermTable.java:212) at org.acme.index.Builder.run(Builder.java:88)';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
    expect(root(log)?.userFrames[0]).toMatchObject({ file: 'org/acme/index/TermTable.java', line: 212 });
  });
});

describe("the cryptonight miners' CUDA check with another status", () => {
  it('reads it as a not-oom on that device that ends the process', () => {
    const log = ['[2018-01-20 22:41:07] GPU 1: 4 blocks of 896 threads', 'GPU 1: unspecified launch failure', 'C:/src/xmr-stak/nvcc_code/cuda_core.cu line 312'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false, device: 1 });
  });
});
