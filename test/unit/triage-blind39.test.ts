// The message classes blind batch 39 showed the engine did not read: Tenstorrent's cards (read as xla-tpu), onnxruntime's
// device in a failure that is not an OOM, CNTK's "CUDA failure N", NumPy's message printed alone, Metal's NSError for an
// out-of-memory command buffer under Swift's trap, Lightning's banner of accelerators it did not find, the VAE decoders'
// tiled retry, TensorFlow's pinned host allocator, and an OOM message in a rich logging record. Each test is a variant
// written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];
const GiB = 2 ** 30;

describe('platforms', () => {
  it("reads Tenstorrent's bank allocator as xla-tpu, the class tt-xla plugs into", () => {
    const line = 'RuntimeError: TT_FATAL @ /src/tt-metal/allocator/bank_manager.cpp:141: Out of Memory: Not enough space to allocate 1073741824 B DRAM buffer across 8 banks, where each bank needs to store 134217728 B';
    expect(root(line)).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', requestedBytes: GiB });
  });

  it("does not take Lightning's banner of accelerators it did not find for the platform", () => {
    const log = ['GPU available: True (cuda), used: True', 'TPU available: False, using: 0 TPU cores', 'HPU available: False, using: 0 HPUs', 'OutOfMemoryError                          Traceback (most recent call last)'];
    expect(root(log.join('\n'))?.platform).toBe('cuda');
  });
});

describe('onnxruntime and CNTK checks', () => {
  it('names the device of a failure that is not an OOM', () => {
    const line = '2024-05-06 07:08:09.1 [E:onnxruntime:Default, cuda_call.cc:118 CudaCall] CUDA failure 700: an illegal memory access was encountered ; GPU=3 ; hostname=n1 ; expr=cudaStreamSynchronize(stream);';
    expect(root(line)).toMatchObject({ kind: 'not-oom', device: 3 });
  });

  it("reads CNTK's 'CUDA failure 30: unknown error' at the end of its call stack as a not-oom", () => {
    const log = ['[CALL STACK]', '    > Microsoft::MSR::CNTK::GPUMatrix<float>::  Resize', 'EXCEPTION occurred: CUDA failure 30: unknown error ; GPU=1 ; hostname=box ; expr=cudaMalloc((void**) &buf, sizeof(AllocatedElemType) * n)'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'cuda', device: 1 });
  });
});

describe('host memory', () => {
  it("reads NumPy's message printed alone by the application that caught it", () => {
    expect(root('Failed: unable to allocate 1.50 GiB for an array with shape (20000, 10000) and data type float64')).toMatchObject({
      kind: 'catchable-oom', platform: 'cpu', requestedBytes: 1.5 * GiB,
    });
  });

  it("reads TensorFlow's pinned host allocator failing, when nothing else failed", () => {
    const log = ['2025-01-01 10:00:00.000001: W tensorflow/core/common_runtime/device/device_host_allocator.h:46] could not allocate pinned host memory of size: 4294967296', '2025-01-01 10:00:01.000001: I tensorflow/core/kernels/data/shuffle_dataset_op.cc:450] Filling up shuffle buffer'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 4 * GiB });
  });
});

describe('Metal', () => {
  it("reads the command buffer's out-of-memory NSError under Swift's trap as an abort on MPS", () => {
    const line = 'Fatal error: MetalExecutionError: Error Domain=MTLCommandBufferErrorDomain Code=8 "Insufficient Memory (IOAF code 8)" UserInfo={NSLocalizedDescription=Insufficient Memory (IOAF code 8)}: file /Users/me/app/Upscale.swift, line 88';
    expect(root(`${line}\nIllegal instruction: 4`)).toMatchObject({ kind: 'runtime-abort', platform: 'mps', catchable: false });
  });
});

describe('applications that caught an OOM', () => {
  it("reads the VAE decoders' tiled retry as a caught OOM, over a traceback the log cut before its exception", () => {
    const log = ['Warning: Ran out of memory when regular VAE decoding, retrying with tiled VAE decoding.', 'Traceback (most recent call last):', '  File "/srv/ui/nodes.py", line 287, in decode', '    images = vae.decode(samples)', '  File "/srv/ui/comfy/sd.py", line 612, in decode'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });
});

describe("rich's logging handler", () => {
  it('joins an OOM message wrapped in its message column, leaving the source column out', () => {
    const log = [
      'ERROR    2025-02-03 04:05:06,789 embed_server ERROR: CUDA    worker.py:311',
      '         out of memory. Tried to allocate 2.00 GiB. GPU 1       ',
      '         has a total capacity of 23.57 GiB of which 512.00      ',
      '         MiB is free. Including non-PyTorch memory, this        ',
      '         process has 23.06 GiB memory in use. Of the           ',
      '         allocated memory 20.10 GiB is allocated by PyTorch,    ',
      '         and 2.50 GiB is reserved by PyTorch but unallocated.   ',
      '         Traceback (most recent call last):                     ',
    ];
    expect(root(log.join('\n'))).toMatchObject({
      kind: 'fragmentation', device: 1, requestedBytes: 2 * GiB, freeBytes: 512 * 2 ** 20, processInUseBytes: Math.round(23.06 * GiB), reservedUnallocatedBytes: 2.5 * GiB,
    });
  });
});

// A review of the session's classes found these on inputs of its own; each is held here.
describe('noted OOMs give way to a failure the log states after them', () => {
  it('a caught OOM report, then another error or a crash: the error is the verdict', () => {
    const retry = 'Warning: Ran out of memory when regular VAE decoding, retrying with tiled VAE decoding.';
    expect(root([retry, 'Prompt executed in 41.2 seconds', 'RuntimeError: mat1 and mat2 shapes cannot be multiplied (77x2048 and 768x320)'].join('\n'))?.kind).toBe('not-oom');
    expect(root([retry, 'Segmentation fault (core dumped)'].join('\n'))?.kind).toBe('not-oom');
    const pinned = '2025-01-01 10:00:00.000001: W tensorflow/core/common_runtime/device/device_host_allocator.h:46] could not allocate pinned host memory of size: 1073741824';
    expect(root([pinned, "ValueError: Input 0 of layer 'dense' is incompatible with the layer"].join('\n'))?.kind).toBe('not-oom');
  });

  it("NumPy's message in a warning the run went on from is none", () => {
    expect(root('Warning: unable to allocate 12.5 GiB for an array with shape (40000, 42000) and data type float64; using a memory-mapped file')).toBeUndefined();
  });
});

describe('platform words that name no device of the run', () => {
  it("an AMD CPU's built-in Radeon graphics beside an NVIDIA card is cuda", () => {
    const log = ['GPU 0: NVIDIA GeForce RTX 3070 Laptop GPU', 'Model name: AMD Ryzen 7 5800H with Radeon Graphics', 'RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!'];
    expect(root(log.join('\n'))?.platform).toBe('cuda');
  });

  it("a library's check of the device type is not MPS", () => {
    const log = ['  File "/venv/lib/python3.11/site-packages/diffusers/utils/torch_utils.py", line 81, in randn_tensor', '    if device.type == "mps":', 'RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!'];
    expect(root(log.join('\n'))?.platform).toBe('cuda');
  });
});

describe('prints of one OOM', () => {
  it('a whole message, its short print, and the whole message again are one verdict', () => {
    const whole = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.50 GiB is free.';
    const verdicts = triageFailures([whole, 'caught OOM, skipping batch: CUDA out of memory. Tried to allocate 2.00 GiB', whole].join('\n'), 'log').verdicts;
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]!.evidence.map((e) => e.line)).toEqual([1, 2, 3]);
  });
});

describe('stacks that are not failures, and requests with no size', () => {
  it("logging's stack_info and traceback.print_stack at the end of a log are none", () => {
    const frames = ['  File "/srv/app/train.py", line 40, in <module>', '    main()', '  File "/srv/app/train.py", line 31, in main'];
    expect(root(['WARNING:root:checkpoint slow', 'Stack (most recent call last):', ...frames, '    log.warning("checkpoint slow", stack_info=True)'].join('\n'))).toBeUndefined();
    expect(root(['step 3 loss 0.2', ...frames, '    traceback.print_stack()'].join('\n'))).toBeUndefined();
  });

  it("XLA's request for a named space prints no size, and none is made up", () => {
    const v = root('jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for the program scratch space on device ordinal 0');
    expect(v).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu' });
    expect(v!.requestedBytes).toBeUndefined();
  });

  it("ggml's 'current device' names the device of an illegal memory access", () => {
    expect(root('CUDA error: an illegal memory access was encountered\n  current device: 1, in function ggml_backend_cuda_synchronize at ggml-cuda.cu:2300')).toMatchObject({ kind: 'not-oom', device: 1 });
  });
});
