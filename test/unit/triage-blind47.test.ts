// The message classes blind batch 47 showed the engine did not read: ggml's backend buffers and its 2023 graph allocator,
// a Rust panic carrying CUDA's out-of-memory status, vLLM's negative KV-cache budget, a server's own "requires X memory but
// only Y available" check, a program naming what it failed to allocate and its size, IREE's HIP buffer length, and a miner's
// "Error on GPU0". Each test is a variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('ggml', () => {
  it("reads a backend's failed buffer with its size, on the backend's memory", () => {
    const log = ['ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 68719476736', 'llama_kv_cache_init: failed to allocate buffer for kv cache', 'llama_new_context_with_model: llama_kv_cache_init() failed for self-attention cache'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', requestedBytes: 68719476736 });
    expect(root('ggml_gallocr_reserve_n: failed to allocate CPU buffer of size 104857600\nllama_new_context_with_model: failed to allocate compute buffers')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', requestedBytes: 104857600 });
  });

  it("reads its 2023 graph allocator's overflow as a host abort with the need", () => {
    const log = ['ggml_allocr_alloc: not enough space in the buffer (needed 524288, largest block available 131072)', 'GGML_ASSERT: ggml-alloc.c:173: !"not enough space in the buffer"'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', requestedBytes: 524288 });
  });
});

describe('serving stacks', () => {
  it("reads a Rust panic carrying CUDA's out-of-memory status as an abort", () => {
    const log = ["thread 'main' panicked at src/driver/safe/core.rs:293:26:", 'called `Result::unwrap()` on an `Err` value: DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
  });

  it("reads vLLM's negative KV-cache budget as the OOM under the engine's failure to start", () => {
    const log = ['(EngineCore_0 pid=77) INFO 01-02 10:00:00 [gpu_worker.py:276] Available KV cache memory: -0.52 GiB', '(EngineCore_0 pid=77) ERROR 01-02 10:00:00 [core.py:700] EngineCore failed to start.', '(EngineCore_0 pid=77) ERROR 01-02 10:00:00 [core.py:700] ValueError: No available memory for the cache blocks.'];
    expect(root(log.join('\n'))?.kind).toBe('catchable-oom');
  });

  it("reads a server's own memory check with the request and what was free", () => {
    expect(root('Error: 400: {"message":"Prompt (9000 tokens) requires ~2048MB GPU memory but only ~1024MB available."}')).toMatchObject({ kind: 'catchable-oom', requestedBytes: 2048 * 2 ** 20, freeBytes: 1024 * 2 ** 20 });
  });
});

describe('sizes and devices in other words', () => {
  it('reads the size a program names for what it failed to allocate', () => {
    expect(root('ds4: CUDA model range alloc failed for blk.3.ffn (512.00 MiB): out of memory')).toMatchObject({ kind: 'catchable-oom', requestedBytes: 512 * 2 ** 20 });
    expect(root('ds4: ROCm model arena alloc failed for tensor-span:7 (256.00 MiB chunk): out of memory')).toMatchObject({ requestedBytes: 256 * 2 ** 20 });
  });

  it("reads IREE's HIP buffer length as the request", () => {
    const line = "iree/runtime/src/iree/hal/drivers/hip/hip_allocator.c:407: RESOURCE_EXHAUSTED; HIP driver error 'hipErrorOutOfMemory' (2): out of memory; failed to allocate buffer of length 1073741824; while invoking native function hal.allocator.allocate";
    expect(root(line)).toMatchObject({ kind: 'catchable-oom', platform: 'rocm', requestedBytes: 1073741824 });
  });

  it("takes the device from a miner's error line", () => {
    expect(root('10:52:47 Started Mining on GPU1: NVIDIA GeForce RTX 3060\n10:52:50 Error on GPU1: out of memory')).toMatchObject({ kind: 'catchable-oom', device: 1 });
  });
});

describe("a review of blind46's and blind47's classes", () => {
  const verdicts = (text: string) => triageFailures(text, 'log').verdicts;

  it("reads Jupyter's restart after a failure the log names as that failure's death, not a host OOM", () => {
    const log = ['2023-10-10 10:00:00 [error] Kernel died with exit code 134. Aborted', '[I 10:00:00 NotebookApp] KernelRestarter: restarting kernel (1/5), keep random ports'];
    expect(root(log.join('\n'))?.kind).toBe('not-oom');
  });

  it('keeps a named NVIDIA card over Core ML and OpenVINO words', () => {
    expect(root('Using NVIDIA A100 via CUDA\ncoremltools 7.0 installed\nRuntimeError: out of memory')?.platform).toBe('cuda');
    expect(root('Device: NVIDIA GeForce RTX 4090\nOpenVINO: openvino/src/plugins/intel_gpu loaded\nRuntimeError: out of memory')?.platform).toBe('cuda');
  });

  it('keeps a type-only ResourceExhaustedError on a CPU-only run on the host', () => {
    expect(root('Num GPUs Available:  0\nResourceExhaustedError                    Traceback (most recent call last)')?.platform).toBe('cpu');
  });

  it('reads a warning that a model needs more memory than is available as no failure', () => {
    expect(verdicts('WARNING: model requires 8.0 GiB memory but only 6.0 GiB available; offloading layers to CPU\nstep 1 loss 2.1\nTraining complete.')).toEqual([]);
  });

  it("lets a later crash outrank vLLM's negative KV-cache line", () => {
    expect(root('INFO [gpu_worker.py:276] Available KV cache memory: -2.14 GiB\nFatal Python error: Segmentation fault')?.kind).toBe('not-oom');
  });

  it("leaves a CUDA OOM catchable under a panic that does not carry it", () => {
    const log = ["thread 'main' panicked at src/config.rs:3:5:", 'missing field `foo`', 'ERROR cuda: CUDA_ERROR_OUT_OF_MEMORY while allocating'];
    expect(root(log.join('\n'))?.kind).toBe('catchable-oom');
  });

  it("reads the RAPIDS Accelerator's retries as no failure", () => {
    expect(verdicts('24/01/01 10:00:00 INFO RmmRapidsRetryIterator: retrying after com.nvidia.spark.rapids.jni.GpuRetryOOM: GPU OutOfMemory\n24/01/01 10:00:05 INFO Job 3 finished')).toEqual([]);
  });

  it("reads OpenVINO's warning that it falls back to the CPU as no failure", () => {
    expect(verdicts('[ WARNING ] [GPU] clEnqueueNDRangeKernel, error code: -5, retrying on CPU\nInference done on CPU')).toEqual([]);
  });

  it('reads a pinned-memory pool that is not there, with a fallback, as no failure', () => {
    expect(verdicts('E0101 10:00:00.000 1 pinned_memory_manager.cc:192] failed to allocate pinned system memory: no pinned memory pool, falling back to non-pinned system memory\nI0101 10:00:01.000 1 server.cc:100] Started GRPCInferenceService')).toEqual([]);
  });

  it("reads ggml's pinned CUDA_Host buffer as host memory", () => {
    expect(root('ggml_backend_cuda_host_buffer_type_alloc_buffer: failed to allocate buffer of size 1073741824\nllama_new_context_with_model: failed to allocate compute buffers')?.platform).toBe('cpu');
  });
});
