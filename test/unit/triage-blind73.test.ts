// The message classes blind batch 73 showed the engine did not read. Each test is a variant written for its class (other
// names, paths and numbers), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe("DALI's allocation failures", () => {
  it("reads an operator's 'CUDA allocation failed' under the pipeline's error as an OOM", () => {
    const log = ['RuntimeError: Critical error in pipeline:', 'Error when executing Mixed operator decoders__Image, instance name: "decode", encountered:', 'CUDA allocation failed'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });

  it("reads nvJPEG's allocator status as an OOM", () => {
    const log = ['RuntimeError: Critical error in pipeline: Error in thread 2: [/opt/dali/dali/operators/decoder/nvjpeg/nvjpeg_decoder.h:300] NVJPEG error "5" : NVJPEG_STATUS_ALLOCATOR_FAILURE img_0042.jpg'];
    expect(root(log)?.kind).toBe('catchable-oom');
  });
});

describe("c10's CPU allocator refused by posix_memalign", () => {
  it('reads errno 12 in the enforce as host memory', () => {
    const log = ['RuntimeError: [enforce fail at CPUAllocator.cpp:56] posix_memalign(&data, gAlignment, nbytes) == 0. 12 vs 0'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });

  it('does not read another errno in the same check as memory', () => {
    const log = ['RuntimeError: [enforce fail at CPUAllocator.cpp:56] posix_memalign(&data, gAlignment, nbytes) == 0. 22 vs 0'];
    expect(root(log)?.kind).not.toBe('catchable-oom');
  });
});

describe("ggml's buffers and pools", () => {
  it("reads a CUDA_Host buffer ggml could not allocate at load as an OOM", () => {
    const log = ['Error: llama runner process has terminated: error loading model: unable to allocate CUDA_Host buffer'];
    expect(root(log)?.kind).toBe('catchable-oom');
  });

  it("reads the HIP virtual-memory pool's failure as ggml's abort on ROCm", () => {
    const log = ['/src/ggml/src/ggml-cuda/ggml-cuda.cu:440: HipVMM Failure: out of memory', '  current device: 0, in function alloc at /src/ggml/src/ggml-cuda/ggml-cuda.cu:440'];
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'rocm', device: 0 });
  });
});
