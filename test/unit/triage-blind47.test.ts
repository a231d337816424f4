// The message classes blind batch 47 showed the engine did not read: ggml's backend buffers and its 2023 graph allocator,
// a Rust panic carrying CUDA's out-of-memory status, vLLM's negative KV-cache budget, a server's own "requires X memory but
// only Y available" check, a program naming what it failed to allocate and its size, IREE's HIP buffer length, and a miner's
// "Error on GPU0". Each test is a variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageText } from '../../server/src/triage/index';

const root = (text: string) => triageText(text, 'log').verdicts[0];

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
