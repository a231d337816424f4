// The device and host allocation classes blind batches 25-28 showed the engine did not know (engineer B's side: out-of-memory
// statuses, their numbers and platforms, and the HSA start-up failure). Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe("an HSA API call's status at start-up (rocminfo's check)", () => {
  it('reads OUT_OF_RESOURCES under "hsa api call failure at" as a failed start, not the queue abort', () => {
    const log = [
      '$ /opt/rocm-5.7.1/bin/rocminfo',
      'ROCk module version 6.3.6 is loaded',
      'Unable to open /dev/kfd read-write: Permission denied',
      'hsa api call failure at: /usr/src/rocminfo-5.7.1/rocminfo.cc:1219',
      'Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific events.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: true });
    // Another status the same check prints is the same failed start.
    expect(root(['hsa api call failure at: ./rocminfo.cc:1324', 'Call returned HSA_STATUS_ERROR: A generic error has occurred.'].join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: true });
  });

  it('keeps the queue callback aborting with the same status a runtime-abort', () => {
    const log = ':0:rocdevice.cpp            :2875: 1203391852 us: [pid:4410  tid:0x7f21a9dff640] Callback: Queue 0x7f2000a00000 Aborting with error : HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific events. Code: 0x1008 Available Free mem : 12 MB';
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'rocm', catchable: false });
  });
});

describe('DirectML out of video memory', () => {
  it("reads torch-directml's refused tensor as a catchable OOM with its request", () => {
    const log = [
      '  File "C:\\sd\\venv\\lib\\site-packages\\torch\\nn\\modules\\conv.py", line 456, in _conv_forward',
      '    return F.conv2d(input, weight, bias, self.stride,',
      'RuntimeError: Could not allocate tensor with 268435456 bytes. There is not enough GPU video memory available!',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', catchable: true, requestedBytes: 268435456 });
    // A vendor named around it gives the platform.
    expect(root(['Using ROCm HIP SDK device: gfx1030', 'Could not allocate tensor with 1048576 bytes. There is not enough GPU video memory available!'].join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'rocm', requestedBytes: 1048576 });
  });

  it("reads TensorFlow-DirectML's OOM on its DML device with the device index", () => {
    const log = '2022-03-14 10:02:11.551203: W tensorflow/core/framework/op_kernel.cc:1651] OP_REQUIRES failed at dml_kernel_context.cc:170 : Resource exhausted: OOM when allocating tensor with shape[32,256,56,56] and type half on /job:localhost/replica:0/task:0/device:DML:1 by allocator DmlAllocator';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true, device: 1 });
  });
});

describe("OpenCL's CL_OUT_OF_RESOURCES", () => {
  it('reads the status returned to the program as a catchable OOM on the platform around it', () => {
    const log = [
      'Platform: NVIDIA CUDA, device 0: NVIDIA GeForce RTX 3060',
      'clEnqueueNDRangeKernel(queue, hashKernel, 1, NULL, &global, &local, 0, NULL, NULL) returned CL_OUT_OF_RESOURCES (-5)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
  });

  it('reads it thrown into terminate as a runtime-abort, one failure with the status printed above', () => {
    const log = [
      'OpenCL program build log: imgproc/warp_affine',
      'Status -5: CL_OUT_OF_RESOURCES',
      '',
      "terminate called after throwing an instance of 'cv::Exception'",
      '  what():  OpenCV(4.8.0) /opt/opencv/modules/core/src/ocl.cpp:6012: error: (-220:Unknown error code -220) OpenCL error CL_OUT_OF_RESOURCES (-5) during call: clEnqueueWriteBuffer(q, handle=0x55d1, CL_TRUE, 0, sz=921600, data=0x7f3a)',
      'Aborted (core dumped)',
    ].join('\n');
    const verdicts = all(log);
    expect(verdicts[0]).toMatchObject({ kind: 'runtime-abort', catchable: false });
    expect(verdicts.filter((v) => v.kind === 'catchable-oom')).toHaveLength(0);
  });

  it("reads a check's text form under an OpenCL call that failed with -5, and not Triton's out of resource", () => {
    const log = ['ERROR: opencl call failed with rc(-5), line 112, file kernels.cpp', 'Error: Out of resources'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', catchable: true });
    expect(root('triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: 101376.')?.kind).toBe('not-oom');
  });
});

describe("Vulkan's vkAllocateMemory failing with a numbered result", () => {
  it('reads -2 as device memory and -1 as host memory, and leaves other results', () => {
    expect(root('[ERROR] vkAllocateMemory failed with -2 (size 402653184, type 7)')).toMatchObject({ kind: 'catchable-oom', catchable: true });
    expect(root('Failure in vkAllocateMemory at 88 /src/render/vk_buffer.cpp  ErrCode=-1')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
    expect(root('vkAllocateMemory failed: -1000072003')).toBeUndefined();
  });
});

describe("CUDA by Example's HandleError", () => {
  it('reads "out of memory in <file>.cu at line N" as an abort on cuda (the check exits)', () => {
    const log = ['iteration 4096: residual 1.2e-05', 'out of memory in src/kernels/stencil_3d.cu at line 211'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
  });
});

describe("vLLM's KV-cache budget checks", () => {
  it('reads "No available memory for the cache blocks" as a catchable OOM, also as the raise a cut traceback ends on', () => {
    expect(root('ERROR 11-02 09:14:55 [engine.py:412] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    const cut = [
      '  File "/venv/lib/python3.11/site-packages/vllm/v1/core/kv_cache_utils.py", line 612, in check_enough_kv_cache_memory',
      '    raise ValueError("No available memory for the cache blocks. "',
      '                     "Try increasing `gpu_memory_utilization` when "',
    ].join('\n');
    expect(root(cut)).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });

  it("reads v1's KV cache needed over the memory left with both numbers", () => {
    const log = "ValueError: To serve at least one request with the models's max seq len (131072), 8.00 GiB KV cache is needed, which is larger than the available KV cache memory (5.50 GiB). Based on the available memory, the estimated maximum model length is 90112.";
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', catchable: true, requestedBytes: 8 * 1024 ** 3, freeBytes: 5.5 * 1024 ** 3 });
  });
});

describe("TensorRT's out-of-memory errors of every release", () => {
  it("reads TensorRT 7's request without 'GPU' and its '(line) - OutOfMemory Error in' form", () => {
    const log = [
      '[TensorRT] ERROR: Requested amount of memory (268435456 bytes) could not be allocated. There may not be enough free memory for allocation to succeed.',
      '[TensorRT] ERROR: ../builder/tacticOptimizer.cpp (1715) - OutOfMemory Error in computeCosts: 0',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true, requestedBytes: 268435456 });
  });

  it("reads TensorRT 10's lower-case cuda Runtime error with the autotuner's buffer as the request", () => {
    const log = '[11/02/2025-08:12:40] [TRT] [E] [defaultAllocator.cpp::allocate::31] Error code 1: cuda Runtime (out of memory); autotuning: user allocator error allocating 34359738368-byte buffer';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 34359738368 });
  });
});

describe("TensorFlow 1.x's EigenAllocator", () => {
  it('reads the bytes it printed without a unit as the request of the fatal OOM', () => {
    const log = 'F0301 12:04:51.218344   4410 gpu_device.cc:104] EigenAllocator for GPU ran out of memory when allocating 67108864. See error logs for more detailed info.';
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false, requestedBytes: 67108864 });
  });
});

describe("llama.cpp/ggml's CUDA abort cut before its device line", () => {
  it("reads the old format naming ggml's source as the abort", () => {
    expect(root('CUDA error 2 at /build/llama.cpp/ggml-cuda.cu:6331: out of memory')).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
  });

  it("reads 'CUDA error: out of memory' under ggml's backend load log as the abort, and leaves PyTorch's alone", () => {
    const log = [
      'llama_kv_cache_init:      CUDA0 KV buffer size =  4096.00 MiB',
      'llama_new_context_with_model:  CUDA_Host  output buffer size =     0.98 MiB',
      'llama_new_context_with_model:      CUDA0 compute buffer size =   560.00 MiB',
      'CUDA error: out of memory',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
    expect(root(['  File "train.py", line 40, in <module>', '    x = x.cuda()', 'RuntimeError: CUDA error: out of memory'].join('\n'))).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });
});

describe('an OutOfMemoryError whose message wrapped after its first sentence', () => {
  it("takes the device and sizes the next line's allocator message gives", () => {
    const log = ['torch.cuda.OutOfMemoryError: CUDA out of memory.', 'Tried to allocate 1.50 GiB (GPU 2; 10.76 GiB total capacity; 8.91 GiB already allocated; 1.12 GiB free; 9.01 GiB reserved in total by PyTorch)'].join('\n');
    const verdicts = all(log);
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 2, requestedBytes: 1.5 * 1024 ** 3, freeBytes: Math.round(1.12 * 1024 ** 3) });
  });
});

describe("out-of-memory messages the other-OOM fallback reads from their remains", () => {
  it("reads the caching allocator's hint alone (the message cut to its end) as a catchable OOM on cuda", () => {
    const log = 'y is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    // With the full message in the log, the full reading stands.
    const full = 'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 7.79 GiB total capacity; 6.01 GiB already allocated; 311.44 MiB free; 6.40 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF';
    expect(root(full)).toMatchObject({ kind: 'catchable-oom', requestedBytes: 512 * 1024 ** 2 });
  });

  it('reads "out of memory <call>" under a "CUDA Runtime Error at: file:line" header as a catchable OOM', () => {
    const log = ['CUDA Runtime Error at: /src/solver/grid.cu:214', 'out of memory cudaMallocManaged(&cells, n * sizeof(Cell))'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
  });
});

describe("TensorFlow's op failure status logged at warning level", () => {
  it('reads "op_kernel.cc] Resource exhausted: failed to allocate memory" as the OOM the program receives', () => {
    const log = [
      '2022-05-03 14:20:11.410233: W tensorflow/core/common_runtime/bfc_allocator.cc:479] ****************************************x***',
      '2022-05-03 14:20:11.410391: W tensorflow/core/framework/op_kernel.cc:1745] OP_REQUIRES failed at conv_ops.cc:684 : Resource exhausted: failed to allocate memory',
      'Traceback (most recent call last):',
      '  File "fit.py", line 31, in <module>',
      '    model.fit(ds, epochs=10)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
  });
});

describe("llama.cpp/ggml's CANN backend aborting on EL0004", () => {
  it("reads EL0004 beside GGML_ABORT's ggml-cann.cpp line as a runtime-abort on the NPU, and torch_npu's as catchable", () => {
    const log = [
      '/build/llama.cpp/ggml/src/ggml-cann/ggml-cann.cpp:71: CANN error',
      'E CANN error: EL0004: 2025-06-02-08:11:40.102.331 Failed to allocate memory.',
      '        Possible Cause: Available memory is insufficient.',
      '        Solution: Close applications not in use.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'npu', catchable: false });
    const torchNpu = ['RuntimeError: NPU function error: aclrtMalloc, error code is 207001', 'EL0004: [PID: 2231] 2025-06-02-08:11:40.102.331 Failed to allocate memory.', '        Possible Cause: Available memory is insufficient.'].join('\n');
    expect(root(torchNpu)).toMatchObject({ kind: 'catchable-oom', platform: 'npu', catchable: true });
  });
});

describe("ggml's Vulkan backend failing a device allocation", () => {
  it('reads the logged request as a catchable OOM, over a crash on the error path after it', () => {
    const log = [
      'ggml_vulkan: Device memory allocation of size 2147483648 failed.',
      'ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory',
      'free(): double free detected in tcache 2',
      'Aborted (core dumped)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', catchable: true, requestedBytes: 2147483648 });
  });
});

describe("TensorFlow's OOM hint behind a glog prefix", () => {
  it("reads torch_xla's XRT client logging the hint line by line as a catchable OOM on the TPU", () => {
    const log = [
      '2021-02-17 18:44:02.331207: E    4410 tensorflow/compiler/xla/xla_client/xla_util.cc:76] \t [[{{node XRTExecute}}]]',
      '2021-02-17 18:44:02.331219: E    4410 tensorflow/compiler/xla/xla_client/xla_util.cc:76] Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation info.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', catchable: true });
  });
});

describe("Haskell Accelerate's remote memory exhausted", () => {
  it('reads the LRU manager running out of remote (device) memory as a catchable OOM on cuda', () => {
    const log = [
      '*** Internal error in package accelerate ***',
      'src/Data/Array/Accelerate/Array/Remote/LRU.hs:241:40: (malloc): Remote memory exhausted',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
  });
});

describe('platform words for device allocation failures', () => {
  it("reads the driver API's CUresult as CUDA's", () => {
    expect(root('[memory_saver.cpp] CUresult error: 2 (out of memory)  file=csrc/core.cpp func=cu_mem_map line=77')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });

  it("reads TensorFlow's ResourceExhaustedError with no device named as the GPU's, and a CPU one as the host's", () => {
    expect(root('ResourceExhaustedError: failed to allocate memory')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    expect(root('ResourceExhaustedError: failed to allocate memory for the CPU tensor')?.platform).toBe('cpu');
  });
});

describe("ggml failing to pin host memory for a reason that is not memory", () => {
  it('reads a CUDA runtime status that is not out of memory as a not-oom on cuda, and out of memory still as an OOM', () => {
    expect(root('ggml_cuda_host_malloc: failed to allocate 512.00 MiB of pinned memory: no CUDA-capable device is detected')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root('ggml_cuda_host_malloc: failed to allocate 512.00 MiB of pinned memory: out of memory')?.kind).toBe('catchable-oom');
  });
});

describe("SGLang's KV-cache pools running out", () => {
  it("reads the scheduler's pool errors as a catchable OOM on the accelerator (cuda when none is named)", () => {
    expect(root('RuntimeError: Prefill out of memory. Try to lower your batch size.')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    expect(root('RuntimeError: alloc_req_slots runs out of memory. Please set a smaller number for `--max-running-requests`.')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(root(['[2025-03-02] HIP devices: 8 x gfx942', 'RuntimeError: Decode out of memory. Try to lower your batch size.'].join('\n'))?.platform).toBe('rocm');
  });
});
