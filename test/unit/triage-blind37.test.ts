// The message classes blind batch 37 showed the engine did not read: watchdog frames a paste wrapped, a hipified ggml
// naming HIP's call, Paddle 1.x's and a cut Paddle message, XLA's request with no exact bytes, MXNet's GPU pool, the
// 4 GiB XPU limit on its own, llama.cpp's and ollama's load failures, detectron2's CPU retry, zsh's job notice after a
// progress bar, c10 frames under an exception, and AMD GPUs by brand. Each test is a variant written for the class
// (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('collective timeouts', () => {
  it('reads the watchdog frames under checkTimeout when a paste wrapped each frame onto two lines', () => {
    const log = [
      'frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x9c (0x7f11aa000446 in /opt/envs/train-Xy12-py3.11/lib/python3.11/sit',
      'e-packages/torch/lib/libc10.so)',
      'frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f11ab',
      'c00672 in /opt/envs/train-Xy12-py3.11/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)',
      'frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x213 (0x7f11abc08ab3 in /opt/envs/train-Xy12-py3.11/lib/python3.11/site-packages/',
      'torch/lib/libtorch_cuda.so)',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'hang', platform: 'cuda' });
  });
});

describe('llama.cpp and ollama', () => {
  it("reads a hipified ggml's 'CUDA error' as ROCm when the failing call under it is HIP's", () => {
    const log = [
      'CUDA error: out of memory',
      '  current device: 1, in function ggml_cuda_pool_malloc at /src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:412',
      '  hipMalloc((void **) &ptr, size)',
      '/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:88: CUDA error',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'rocm', device: 1 });
  });

  it("reads the loader's 'unable to allocate backend buffer' as a catchable OOM, on the backend the load log names", () => {
    const log = ['llm_load_tensors: offloaded 33/33 layers to GPU', 'llm_load_tensors:      CUDA0 buffer size = 20480.00 MiB', 'llama_model_load: error loading model: unable to allocate backend buffer', 'llama_load_model_from_file: failed to load model'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    expect(root('llama_model_load: error loading model: unable to allocate ROCm0 buffer')).toMatchObject({ kind: 'catchable-oom', platform: 'rocm' });
  });

  it("reads ollama's 'llama runner exited, you may not have enough available memory' as an abort", () => {
    expect(root('Error: llama runner exited, you may not have enough available memory to run this model')).toMatchObject({ kind: 'runtime-abort', catchable: false });
  });
});

describe('allocator messages', () => {
  it("reads Paddle 1.x's system-allocator message and a message cut after the request, with the device", () => {
    expect(root('Out of memory error on GPU 2. Cannot allocate 512.250000MB GPU memory, available memory is 100.500000MB.')).toMatchObject({
      kind: 'catchable-oom', platform: 'cuda', device: 2, requestedBytes: Math.round(512.25 * 2 ** 20), freeBytes: Math.round(100.5 * 2 ** 20),
    });
    expect(root('Out of memory error on GPU 3. Cannot allocate 2.500000GB memory on GPU 3')).toMatchObject({ kind: 'catchable-oom', device: 3, requestedBytes: 2.5 * 2 ** 30 });
  });

  it("reads XLA's request printed with its size only", () => {
    expect(root('jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 12.25GiB.')).toMatchObject({
      kind: 'catchable-oom', platform: 'xla-tpu', requestedBytes: 12.25 * 2 ** 30,
    });
  });

  it("places MXNet's pooled storage manager on the GPU", () => {
    expect(root('[10:11:12] src/storage/./pooled_storage_manager.h:108: cudaMalloc failed: out of memory')?.platform).toBe('cuda');
  });

  it("reads the XPU's 4 GiB block limit without the allocator's message after it", () => {
    expect(root('I keep getting "RuntimeError: Current platform can NOT allocate memory block with size larger than 4GB!" on upscale')).toMatchObject({
      kind: 'catchable-oom', platform: 'xpu', catchable: true,
    });
  });

  it("names an AMD GPU's platform from its brand, not from an AMD CPU", () => {
    expect(root('My Radeon RX 6600 fails: RuntimeError: Could not allocate tensor with 9437184 bytes. There is not enough GPU video memory available!')?.platform).toBe('rocm');
    expect(root('Running on my AMD 16GB GPU: RuntimeError: Could not allocate tensor with 9437184 bytes. There is not enough GPU video memory available!')?.platform).toBe('rocm');
    expect(root('Host: AMD EPYC 7543 with one RTX GPU\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB')?.platform).toBe('cuda');
  });
});

describe("detectron2's CPU retry", () => {
  it('reads the retry as a caught CUDA OOM when nothing else failed', () => {
    const log = ['[12/01 10:00:00 d2.engine]: Starting inference', 'WARNING [12/01 10:00:09 d2.utils.memory]: Attempting to copy inputs of <function paste_masks_in_image at 0x7f00c0ffee00> to CPU due to CUDA OOM'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
  });

  it('gives way to a failure read by a specific signature', () => {
    const log = ['Attempting to copy inputs of <function f at 0x1> to CPU due to CUDA OOM', 'RuntimeError: CUDA error: an illegal memory access was encountered'];
    expect(root(log.join('\n'))?.kind).toBe('not-oom');
  });
});

describe('host kills and stated failures', () => {
  it("reads zsh's job notice of a kill right after a progress bar's last frame", () => {
    expect(root('Loading weights:  40%|████      | 2/5 [00:07<00:10,  3.4s/it][2]    81234 killed     python serve.py --port 8000')).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
  });

  it('takes the exception over the C++ frames under it, whose types name an allocator', () => {
    const log = [
      'Exception raised from getDevice at /src/pytorch/aten/src/ATen/hip/impl/HIPGuardImplMasqueradingAsCUDA.h:57 (most recent call first):',
      'frame #0: c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >) + 0x57 (0x7f00 in /venv/lib/python3.10/site-packages/torch/lib/libc10.so)',
      'frame #1: <unknown function> + 0x1234 (0x7f01 in /venv/lib/python3.10/site-packages/torch/lib/libtorch_hip.so)',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
  });
});
