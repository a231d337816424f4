// The message classes blind batch 65 showed the engine did not read. Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe('device memory', () => {
  it("reads ggml's buffer failure as an abort when its caller asserts the buffer, printed before or after it", () => {
    const failure = ['ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2048.00 MiB on device 1: cudaMalloc failed: out of memory', 'alloc_tensor_range: failed to allocate CUDA1 buffer of size 2147483648'];
    expect(root(failure)).toMatchObject({ kind: 'catchable-oom', device: 1 });
    expect(root(['/src/ggml/src/ggml-backend.cpp:179: GGML_ASSERT(buffer) failed', ...failure])).toMatchObject({ kind: 'runtime-abort', device: 1, requestedBytes: 2147483648 });
  });

  it("reads MLX's Metal buffer-count limit, MindSpore's 'Memory isn't enough' and XLA's allocation larger than the memory", () => {
    expect(root(['[metal::malloc] Resource limit (499000) exceeded.'])).toMatchObject({ kind: 'catchable-oom', platform: 'mps' });
    expect(root(["RuntimeError: Malloc for kernel output failed, Memory isn't enough, node:Default/MatMul-op12"])?.kind).toBe('catchable-oom');
    expect(root(['jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Allocation (size=34359738368) would exceed memory (size=17179869184) :: #allocation3'])).toMatchObject({ kind: 'catchable-oom', requestedBytes: 34359738368, deviceTotalBytes: 17179869184 });
  });
});
