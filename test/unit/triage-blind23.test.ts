// The message classes blind batch 23 (queries on training-failure wordings) showed the engine did not know. Each test is a
// variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe("earlyoom's low-memory actions", () => {
  it('reads the pre-1.0 "Low memory! mem avail" and "Invoking oom killer" lines as a host OOM', () => {
    const log = [
      'Epoch 3:  41%|████      | 1210/2950 [12:04<17:21,  1.67it/s]',
      'Low memory! mem avail: 412 of 15934 MiB (2) % <= min 5 %, swap free: 0 of 2047 MiB (0 %) <= min 10 %',
      'Invoking oom killer: done',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
  });

  it("reads 1.x's SIGTERM/SIGKILL to the victim as a host OOM", () => {
    const log = [
      'mem avail:   611 of 31862 MiB ( 1.92%), swap free:    0 of    0 MiB ( 0.00%)',
      'low memory! at or below SIGTERM limits: mem  2.00%, swap 10.00%',
      'sending SIGTERM to process 90211 uid 1001 "python3": badness 902, VmRSS 28114 MiB',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root('sending SIGKILL to process 4410 uid 0 "torchrun": badness 1000, VmRSS 60211 MiB')?.kind).toBe('host-oom');
  });
});

describe('native and tool failures the not-oom fallback did not read', () => {
  it("reads WinDbg's failure bucket as a native crash in the module it names", () => {
    const log = [
      '0:017> !analyze -v',
      'KEY_VALUES_STRING: 1',
      '    Key  : Failure.Bucket',
      '    Value: NULL_CLASS_PTR_READ_c0000005_ze_intel_gpu64.dll!Unknown',
      '',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root('FAILURE_BUCKET_ID:  APPLICATION_FAULT_c0000005_nvcuda64.dll!cuMemcpyDtoH')?.kind).toBe('not-oom');
  });

  it("reads getopt's option errors (glibc and BSD) as a tool that rejected its arguments", () => {
    expect(root(["$ rsync -avz --info=progress2 ./ckpt host:/data", "rsync: unrecognized option '--info=progress2'", 'rsync error: syntax or usage error (code 1)'].join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root("timeout: invalid option -- 'k'")).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root('nc: illegal option -- N')).toMatchObject({ kind: 'not-oom', catchable: false });
  });

  it("reads aws-ofi-nccl's NET/OFI warnings of a failed call as a not-oom on cuda", () => {
    const log = 'ip-10-1-2-3:4411:4470 [5] NCCL WARN NET/OFI Couldn\'t open a fabric provider. RC: -61, ERROR: No data available';
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    // An info line of the plugin is not a failure.
    expect(root('ip-10-1-2-3:4411:4470 [5] NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)')).toBeUndefined();
  });
});

describe("the caching allocator's failed expandable-segment map", () => {
  it('reads the warning, when nothing else says how the run ended, as a catchable OOM with its numbers', () => {
    const log = [
      '  File "/srv/app/generate.py", line 77, in <module>',
      '    images = pipe(prompt, num_inference_steps=30).images',
      '[W1203 18:40:02.114201553 CUDACachingAllocator.cpp:511] expandable_segments: memory mapping failed with OOM on device 1 while trying to map 2097152 bytes (free: 1048576, total: 25386352640).',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true, device: 1, requestedBytes: 2097152, freeBytes: 1048576, deviceTotalBytes: 25386352640 });
  });

  it('leaves it to the OutOfMemoryError the allocator raises after it', () => {
    const log = [
      '[W1203 18:40:02.114201553 CUDACachingAllocator.cpp:511] expandable_segments: memory mapping failed with OOM on device 0 while trying to map 2097152 bytes (free: 1048576, total: 25386352640).',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 23.64 GiB of which 1.00 MiB is free. Including non-PyTorch memory, this process has 23.62 GiB memory in use. Of the allocated memory 22.90 GiB is allocated by PyTorch, and 301.22 MiB is reserved by PyTorch but unallocated.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', requestedBytes: 2097152 });
    expect(root(log)?.processInUseBytes).toBeGreaterThan(23 * 1024 ** 3);
  });
});

describe('a process killed while it dumped the stack of a failed glog CHECK', () => {
  it('reads the failed check, not the kill, as how the run ended', () => {
    const log = [
      'I1102 08:14:55.120331  4411 net.cpp:408] conv3_2 -> conv3_2',
      'F1102 08:14:55.301842  4411 cudnn_conv_layer.cpp:53] Check failed: status == CUDNN_STATUS_SUCCESS (4 vs. 0)  CUDNN_STATUS_INTERNAL_ERROR',
      '*** Check failure stack trace: ***',
      'Killed',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    // A plain kill stays a host kill.
    expect(root(['I1102 08:14:55.120331  4411 solver.cpp:239] Iteration 4200, loss = 0.113', 'Killed'].join('\n'))?.kind).toBe('host-oom');
  });
});

describe("TensorFlow 1.x's OOM numbers and device in other layouts", () => {
  it("takes the BFC allocator's capitalised request and the single device banner's total and free memory", () => {
    const log = [
      'I tensorflow/core/common_runtime/gpu/gpu_device.cc:885] Found device 0 with properties:',
      'name: GeForce GTX 1070',
      'major: 6 minor: 1 memoryClockRate (GHz) 1.7845',
      'pciBusID 0000:01:00.0',
      'Total memory: 7.92GiB',
      'Free memory: 7.60GiB',
      'I tensorflow/core/common_runtime/gpu/gpu_device.cc:906] DMA: 0',
      'W tensorflow/core/common_runtime/bfc_allocator.cc:274] Ran out of memory trying to allocate 1.53GiB.  See logs for memory state.',
      'W tensorflow/core/framework/op_kernel.cc:993] Resource exhausted: OOM when allocating tensor with shape[64,256,160,160]',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 1642824991, deviceTotalBytes: 8504035246, freeBytes: 8160437862 });
  });

  it('reads the device from a node line whose brackets a markdown paste escaped', () => {
    const log = [
      'ResourceExhaustedError (see above for traceback): OOM when allocating tensor of shape [4096,4096] and type float',
      '\t \\[\\[Node: fc7/weights/Adam = Const\\[dtype=DT_FLOAT, _device="/job:localhost/replica:0/task:0/gpu:1"\\]()\\]\\]',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 1 });
  });
});

describe("Caffe2's async executor error with the operator on the line after 'Error from operator:'", () => {
  it("takes the operator's CUDA device", () => {
    const log = [
      '[E net_async_base.cc:377] [enforce fail at context_gpu.cu:415] error == cudaSuccess. 2 vs 0. Error at: /opt/caffe2/caffe2/core/context_gpu.cu:415: out of memory',
      'Error from operator: ',
      'input: "gpu_2/conv5_3" output: "gpu_2/conv5_3_relu" name: "" type: "Relu" device_option { device_type: 1 device_id: 2 }',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 2 });
  });
});

describe('a frame line a console hard-wrapped inside its path', () => {
  it('joins the path back and finds the user frame in it', () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "run.py", line 40, in <module>',
      '    fit(cfg)',
      '  File "D:\\projects\\seg-experiments\\segmentation_toolkit\\engine\\trainer_loop',
      '.py", line 212, in fit',
      '    loss.backward()',
      '  File "C:\\Python38\\lib\\site-packages\\torch\\_tensor.py", line 307, in backward',
      '    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)',
      'RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED',
    ].join('\n');
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: 'D:\\projects\\seg-experiments\\segmentation_toolkit\\engine\\trainer_loop.py', line: 212 });
  });
});

describe('CUDA-only words for a not-oom platform', () => {
  it("reads ptxas (NVIDIA's PTX assembler) and the NCCL backend's lower-case name as cuda", () => {
    expect(root(['  File "/opt/conda/lib/python3.11/site-packages/triton/backends/nvidia/compiler.py", line 310, in make_cubin', "RuntimeError: ptxas failed with error code 255: ptxas fatal   : Unresolved extern function 'fooImpl'"].join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root(['ERROR: test_allreduce_coalesced_nccl (__main__.ProcessGroupTest)', 'RuntimeError: Process 1 exited with error code 10'].join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    // Not inside another word.
    expect(root('RuntimeError: pynccl_helper failed to start')?.platform).toBe('cpu');
  });
});

describe("two processes' tracebacks printed at once", () => {
  it('reads on past the twin header so the innermost user frame is found', () => {
    const log = [
      "RuntimeError: CUDA error: invalid device ordinal",
      'For debugging consider passing CUDA_LAUNCH_BLOCKING=1.',
      '',
      'Traceback (most recent call last):',
      '  File "/srv/finetune/run_lora.py", line 402, in <module>',
      'Traceback (most recent call last):',
      '  File "/srv/finetune/run_lora.py", line 402, in <module>',
      '    train(cfg)',
      '  File "/srv/finetune/run_lora.py", line 77, in train',
      '    torch.cuda.set_device(cfg.local_rank)',
      '  File "/usr/lib/python3/dist-packages/torch/cuda/__init__.py", line 404, in set_device',
      '    train(cfg)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: '/srv/finetune/run_lora.py', line: 77 });
  });
});

describe('a cuDNN/cuBLAS status logged at FATAL severity', () => {
  it("reads TensorFlow 1.x's untimed 'F tensorflow/…' line, or an Aborted after the status, as not catchable", () => {
    expect(root('F tensorflow/stream_executor/cuda/cuda_blas.cc:1931] Internal: failed BLAS call, see log for details: CUBLAS_STATUS_EXECUTION_FAILED')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root(['E0412 09:30:01.4412 cuda_dnn.cc:2204] could not run cudnn convolution: CUDNN_STATUS_NOT_SUPPORTED', 'Aborted (core dumped)'].join('\n'))).toMatchObject({ kind: 'not-oom', catchable: false });
    // Raised to Python, the status stays catchable.
    expect(root('RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous input.')).toMatchObject({ kind: 'not-oom', catchable: true });
  });
});

describe("IPython's header with the bare OutOfMemoryError type", () => {
  it("reads it as the device allocator's exception (CUDA's unless the lines around name another)", () => {
    const log = [
      '---------------------------------------------------------------------------',
      'OutOfMemoryError                          Traceback (most recent call last)',
      'Cell In[7], line 3',
      '      1 batch = tok(prompts, return_tensors="pt", padding=True)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    // Python's own MemoryError is the host's.
    expect(root(['MemoryError                               Traceback (most recent call last)', 'Cell In[2], line 1', '----> 1 arr = np.zeros((200000, 200000))'].join('\n'))?.platform).toBe('cpu');
  });
});
