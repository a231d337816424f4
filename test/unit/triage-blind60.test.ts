// The message classes blind batch 60 showed the engine did not read. Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe("batch schedulers' memory-limit kills", () => {
  it("reads LSF's TERM_MEMLIMIT, PBS's kill with its sizes and Torque's abort as host kills", () => {
    expect(root(['Job <81234> was submitted from host <login2>', 'TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.', 'Exited with exit code 130.'])?.kind).toBe('host-oom');
    expect(root(['=>> PBS: job killed: mem 10485760kb exceeded limit 8388608kb'])).toMatchObject({ kind: 'host-oom', processInUseBytes: 10737418240, allowedBytes: 8589934592 });
    expect(root(['Job exceeded a memory resource limit (vmem, pvmem, etc.). Job was aborted', 'Exit_status=-10'])?.kind).toBe('host-oom');
  });

  it("reads a kill after Keras' progress bar", () => {
    expect(root(['Epoch 3/20', '  8192/120000 [>.............................] - ETA: 912s - loss: 0.6931 - acc: 0.5012Killed'])?.kind).toBe('host-oom');
  });
});

describe('allocation failures reported back', () => {
  it('reads an error that ends in std::bad_alloc as a host OOM the program received', () => {
    expect(root(['[ONNXRuntimeError] : 1 : FAIL : Load model from /models/swap_256.onnx failed:std::bad_alloc'])).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
    expect(root(["terminate called after throwing an instance of 'std::bad_alloc'", '  what():  std::bad_alloc'])?.kind).toBe('runtime-abort');
  });

  it("reads RMM's older device failure, 'std::bad_alloc: CUDA error at: …'", () => {
    expect(root(['Failed on 8192 rows: std::bad_alloc: CUDA error at: /opt/conda/include/rmm/mr/device/cuda_memory_resource.hpp:70: cudaErrorMemoryAllocation out of memory'])).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });
});

describe('aborts and frames', () => {
  it("reads a C assert right under a CUDA error as the abort of that error, and one further on as another check's", () => {
    expect(root(['   12 CUDA Error: out of memory', 'darknet: ./src/cuda.c:36: check_error: Assertion `0\' failed.'])?.kind).toBe('runtime-abort');
    const later = ['[E] [TRT] ../rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)', 'build engine done', 'trt_app: /src/model.cpp:46: void Model::Build(): Assertion `engine\' failed.'];
    expect(root(later)?.kind).toBe('catchable-oom');
  });

  it("does not take MXNet's C++ frames for the user's code", () => {
    const log = ['Traceback (most recent call last):', '  File "infer.py", line 9, in <module>', '    out = net(x).asnumpy()', 'mxnet.base.MXNetError: Traceback (most recent call last):', '  File "src/storage/./pooled_storage_manager.h", line 157', 'MXNetError: cudaMalloc retry failed: out of memory'];
    expect(root(log)?.userFrames.some((f) => f.file.endsWith('.h'))).toBe(false);
  });
});
