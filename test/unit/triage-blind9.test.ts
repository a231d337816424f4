// The message classes blind batch 9 showed the engine did not know. Each test is a variant written
// for the class (other numbers, paths, prefixes, sometimes the other spelling the source prints), not
// a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

describe('other CUDA runtimes and libraries', () => {
  it("reads TensorRT-LLM's CUDA check and onnxruntime's CUDA execution provider failure", () => {
    const trtllm = [
      'Traceback (most recent call last):',
      '  File "/srv/llm/serve.py", line 88, in <module>',
      '    engine = Engine.from_dir(path)',
      'RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mMemPool->getPool(), stream): out of memory (/src/tensorrt_llm/runtime/bufferManager.cpp:201)',
    ].join('\n');
    expect(root(trtllm)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true, userFrames: [{ file: '/srv/llm/serve.py', line: 88 }] });
    const ort = '2025-01-02 10:00:00.1 [E:onnxruntime:sess, cuda_call.cc:123 onnxruntime::CudaCall] CUDA failure 2: out of memory ; GPU=3 ; hostname=box7 ; file=/ort/core/providers/cuda/cuda_allocator.cc ; line=47 ; expr=cudaMalloc((void**)&p, size);';
    expect(root(ort)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 3 });
    // The same provider's non-memory statuses keep their device and stay not-oom.
    const cudnn = '[E:onnxruntime:, sequential_executor.cc:514 ExecuteKernel] Non-zero status code returned while running Conv node. Status Message: CUDNN failure 5003: CUDNN_STATUS_EXECUTION_FAILED ; GPU=1 ; hostname=h ; file=conv.cc ; line=9 ; expr=cudnnConvolutionForward(...);';
    expect(root(cudnn)).toMatchObject({ kind: 'not-oom', device: 1 });
    expect(root('onnxruntime::CudaCall CUBLAS failure 3: CUBLAS_STATUS_ALLOC_FAILED ; GPU=2 ; hostname=h ; file=cublas_handle.cc ; line=30 ; expr=cublasCreate(&handle);')).toMatchObject({ kind: 'catchable-oom', device: 2 });
  });

  it("reads TensorRT's allocator error with the size from its warning, as one failure", () => {
    const log = [
      '[11/02/2025-08:15:01] [TRT] [E] 1: [defaultAllocator.cpp::allocate::31] Error Code 1: Cuda Runtime (out of memory)',
      '[11/02/2025-08:15:01] [TRT] [W] Requested amount of GPU memory (2147483648 bytes) could not be allocated. There may not be enough free memory for allocation to succeed.',
      '[11/02/2025-08:15:01] [TRT] [E] 2: [virtualMemoryBuffer.cpp::resizePhysical::140] Error Code 2: OutOfMemory (no further information)',
    ].join('\n');
    expect(all(log)).toHaveLength(1);
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 2 * GiB });
  });

  it("reads CuPy's pool message in both formats, and its limit", () => {
    expect(root('cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 1,048,576 bytes (allocated so far: 7,516,192,768 bytes, limit set to: 7,516,192,768 bytes).')).toMatchObject({
      kind: 'catchable-oom',
      platform: 'cuda',
      requestedBytes: 1048576,
      reservedBytes: 7516192768,
      allowedBytes: 7516192768,
    });
    expect(root('cupy.cuda.memory.OutOfMemoryError: out of memory to allocate 4096 bytes (total 123456 bytes)')).toMatchObject({ kind: 'catchable-oom', requestedBytes: 4096, reservedBytes: 123456 });
    // XLA spells its runtime failure alike after its status: that stays XLA's.
    expect(root('jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 8589934592 bytes.')?.summary).toMatch(/^XLA/);
  });

  it("reads RMM's failures ahead of Python's host MemoryError", () => {
    expect(root('MemoryError: std::bad_alloc: RMM failure at:/opt/rmm/include/rmm/mr/device/pool_memory_resource.hpp:212: Maximum pool size exceeded')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(root('MemoryError: std::bad_alloc: out_of_memory: CUDA error at: /conda/include/rmm/mr/device/cuda_memory_resource.hpp:60: cudaErrorMemoryAllocation out of memory')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });

  it("reads onnxruntime's arena: CUDA when the log names it, and flags an impossible size", () => {
    const cuda = [
      "Applied providers: ['CUDAExecutionProvider', 'CPUExecutionProvider']",
      '/ort/core/framework/bfc_arena.cc:359 void* onnxruntime::BFCArena::AllocateRawInternal(size_t, bool) Failed to allocate memory for requested buffer of size 268435456',
    ].join('\n');
    expect(root(cuda)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 268435456 });
    const cpu = 'bfc_arena.cc:329 AllocateRawInternal Available memory of 1048576 is smaller than requested bytes of 8388608';
    expect(root(cpu)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', requestedBytes: 8388608, freeBytes: 1048576 });
  });

  it("reads Numba's driver statuses: not an OOM unless the status says so", () => {
    const launch = 'numba.cuda.cudadrv.driver.CudaAPIError: [700] Call to cuMemcpyDtoH results in CUDA_ERROR_ILLEGAL_ADDRESS';
    expect(root(launch)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root('numba.cuda.cudadrv.driver.CudaAPIError: [1] Call to cuLaunchKernel results in CUDA_ERROR_INVALID_VALUE')).toMatchObject({ kind: 'not-oom', catchable: true });
    expect(root('numba.cuda.cudadrv.driver.CudaAPIError: [2] Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY')).toMatchObject({ kind: 'catchable-oom' });
  });

  it("reads Paddle's out-of-memory message under its exception line, with the traceback above it", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/work/ocr/run.py", line 41, in <module>',
      '    res = predictor.run(batch)',
      'RuntimeError: ResourceExhaustedError: ',
      '',
      'Out of memory error on GPU 2. Cannot allocate 512.000244MB memory on GPU 2, 10.750000GB memory has been allocated and available memory is only 300.000000MB.',
      '',
      'Please check whether there is any other process using GPU 2.',
    ].join('\n');
    expect(root(log)).toMatchObject({
      kind: 'catchable-oom',
      platform: 'cuda',
      device: 2,
      requestedBytes: Math.round(512.000244 * MiB),
      allocatedBytes: Math.round(10.75 * GiB),
      freeBytes: 300 * MiB,
      userFrames: [{ file: '/work/ocr/run.py', line: 41 }],
    });
    // Paddle's HumanReadableSize goes from B to TB.
    expect(root('Out of memory error on GPU 7. Cannot allocate 39.250000kB memory on GPU 7, 1.500000TB memory has been allocated and available memory is only 0.000000B.')).toMatchObject({
      device: 7,
      requestedBytes: Math.round(39.25 * 1024),
      allocatedBytes: Math.round(1.5 * 1024 ** 4),
      freeBytes: 0,
    });
  });

  it("reads DeePMD-kit's OOM from its custom ops (HIP builds name ROCm)", () => {
    const log = '  (0) Resource exhausted: Operation received an exception: DeePMD-kit OOM: HIP Assert, in file /build/source/op/prod_force.cc:88';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'rocm' });
    expect(root(log.replace('HIP', 'CUDA'))).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    // errors.h also throws it without a message.
    expect(root('RuntimeError: DeePMD-kit OOM!')).toMatchObject({ kind: 'catchable-oom' });
  });
});

describe('NCCL and RCCL errors that are not device OOMs', () => {
  it('reads /dev/shm failures in both NCCL eras as one not-oom verdict', () => {
    const old = [
      'node3:501:540 [2] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device',
      'node3:501:540 [2] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-aa-2-0-1 (size 4194304)',
    ].join('\n');
    expect(all(old)).toHaveLength(1);
    expect(root(old)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root(old)!.summary).toMatch(/full/);
    const attach = 'gpu7:9:9 [1] misc/shmutils.cc:111 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-Ab12Cd (size 9437184), error: No such file or directory (2)';
    expect(root(attach)).toMatchObject({ kind: 'not-oom' });
  });

  it('reads ENOMEM from an InfiniBand verbs call, the socket layer, and nccl-tests (RCCL on AMD)', () => {
    expect(root('ib-node:77:90 [5] misc/ibvwrap.cc:203 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root('n2:1:2 [0] misc/socket.cc:540 NCCL WARN Net : Connection closed by remote peer n9.cluster<40000>')?.summary).toMatch(/peer process exited or the network failed/);
    const rccl = ['#   Rank  0 Pid 4000 on box device  0 [0000:c1:00.0] AMD Instinct MI300X', "box: Test NCCL failure all_reduce.cu:90 'unhandled system error (run with NCCL_DEBUG=INFO for details)'"].join('\n');
    expect(root(rccl)).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
    expect(root(rccl.split('\n')[1]!)).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    // RCCL's hipified allocator still says "Cuda failure": the path names ROCm.
    expect(root("/build/rccl/hipify/src/transport/p2p.cc:310 NCCL WARN Cuda failure 'out of memory'")).toMatchObject({ kind: 'collective-oom', platform: 'rocm' });
  });
});

describe('host kills reported by containers, Ray and wrappers', () => {
  it('reads Kubernetes/Docker exit code 137 and OOMKilled, but not OOMKilled: false', () => {
    expect(root('  task-3 terminated with exit code (137). Reason [OOMKilled].')).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
    expect(root('    Last State:  Terminated\n      Reason:    OOMKilled\n      Exit Code: 137')).toMatchObject({ kind: 'host-oom' });
    expect(all('            "OOMKilled": false,')).toEqual([]);
    expect(root('            "OOMKilled": true,')).toMatchObject({ kind: 'host-oom' });
    expect(root('Fine-tuning failed with exit code -9')).toMatchObject({ kind: 'host-oom' });
    expect(root("Mar 03 03:03:03 gpu4 systemd[1]: finetune.service: Failed with result 'oom-kill'.")).toMatchObject({ kind: 'host-oom' });
    expect(root('Mar 03 03:03:03 gpu4 systemd[1]: finetune.service: A process of this unit has been killed by the OOM killer.')).toMatchObject({ kind: 'host-oom' });
    expect(root('a1b2c3d4e5f6   trainer:latest   "python fit.py"   3 hours ago   Exited (137) 2 minutes ago')).toMatchObject({ kind: 'host-oom' });
  });

  it("reads Ray's memory monitor with the killed worker's memory", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/home/u/proj/rollout.py", line 77, in collect',
      '    batch = ray.get(refs)',
      'ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.',
      'Memory on the node (IP: 10.1.2.3, ID: abc) where the task (task ID: ff, name=Env.step, pid=812, memory used=11.50GB) was running was 30.10GB / 31.40GB (0.958599), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: 99) because it was the most recently scheduled task.',
    ].join('\n');
    expect(all(log)).toHaveLength(1);
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', processInUseBytes: Math.round(11.5 * GiB), userFrames: [{ file: '/home/u/proj/rollout.py', line: 77 }] });
    const summary = '(raylet) [2025-02-02 12:00:00,000 E 99 99] (raylet) node_manager.cc:3100: 2 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: ab, IP: 10.0.0.9) over the last time period.';
    expect(root(summary)).toMatchObject({ kind: 'host-oom' });
    expect(all(summary.replace('2 Workers', '0 Workers').replace('0 Workers crashed', '3 Workers crashed'))).toEqual([]);
  });

  it('takes the largest resident size among the kernel kills of one log', () => {
    const log = [
      '[Mon Jan  6 04:00:01 2025] Killed process 1201 (python3) total-vm:9000kB, anon-rss:12kB, file-rss:0kB, shmem-rss:0kB',
      '[Mon Jan  6 04:00:02 2025] Killed process 1200 (python3) total-vm:90000000kB, anon-rss:52428800kB, file-rss:0kB, shmem-rss:0kB',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', processInUseBytes: 52428800 * 1024 });
  });

  it("reads Rust's allocation failure, skipping a line two threads interleaved", () => {
    const log = ['memory allocation of memory allocation of 409640968192 bytes failed', ' bytes failed', 'memory allocation of 8192 bytes failed', 'Aborted (core dumped)'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', requestedBytes: 8192 });
  });

  it("reads the DataLoader's bus error report as a full /dev/shm, not an OOM", () => {
    expect(root('ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).')).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
  });
});

describe('Ascend, MindSpore, MIOpen, SYCL', () => {
  it("reads CANN's synchronize-with-timeout failure as a hang", () => {
    const log = [
      '[ERROR] 2025-03-01-10:00:00 (PID:77, Device:3, RankID:-1) ERR00100 PTA call acl api failed',
      'EH9999: Inner Error!',
      '        rtStreamSynchronizeWithTimeout execute failed, reason=[stream sync timeout][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'hang', platform: 'npu' });
  });

  it("reads EL0004's request and device from CANN's rtMalloc trace", () => {
    const log = [
      'E89999: [PID: 5] 2025-05-05-05:05:05.000.000 Memory_Allocation_Failure(EL0004): Failed to allocate memory.',
      '        Possible Cause: Available memory is insufficient.',
      '        TraceBack (most recent call last):',
      '        Call rtMalloc fail, purpose: feature map, type = 2, size:1073741824, device_id:5[FUNC:Alloc][FILE:device_allocator.cc][LINE:72]',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'npu', requestedBytes: GiB, device: 5 });
  });

  it("reads torch_npu's HCCL setup error as not-oom with its rank", () => {
    const log = '[rank3]: RuntimeError: create_config:torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:220 HCCL function error: hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is 7';
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'npu', rank: 3 });
  });

  it("reads MindSpore's pool and device messages", () => {
    const pool = '[ERROR] PRE_ACT(1,ff,python):2025-01-01-00:00:00.000.000 [mindspore/ccsrc/backend/common/mem_reuse/mem_dynamic_allocator.cc:401] AddMemBlock] TotalUsedMemStatistics : 60000000000 plus TotalUsedByEventMemStatistics : 0 and plus alloc size : 2147483648 is more than total mem size : 61000000000.';
    expect(root(pool)).toMatchObject({ kind: 'catchable-oom', platform: 'npu', requestedBytes: 2147483648, allocatedBytes: 60000000000, deviceTotalBytes: 61000000000 });
    expect(root("[EXCEPTION] DEVICE(1,ff,python): Device(id:1) memory isn't enough and alloc failed, kernel name: Default/MatMul-op12, alloc size: 67108864B.")).toMatchObject({ kind: 'catchable-oom', device: 1, requestedBytes: 64 * MiB });
  });

  it("reads MIOpen's buffer failure: an abort under TensorFlow's check, raised otherwise", () => {
    const alone = 'MIOpen Error: /src/MIOpen/src/hip/handlehip.cpp:293: Memory not available to allocate buffer: 1073741824';
    expect(root(alone)).toMatchObject({ kind: 'catchable-oom', platform: 'rocm', requestedBytes: GiB });
    const tf = `${alone}\n2020-01-01 00:00:00.000000: F tensorflow/stream_executor/rocm/rocm_dnn.cc:2412] Check failed: status == miopenStatusSuccess (7 vs. 0)`;
    expect(root(tf)).toMatchObject({ kind: 'runtime-abort', catchable: false });
  });

  it('reads other SYCL statuses as not-oom, and leaves out-of-memory ones to their signature', () => {
    expect(root('RuntimeError: Native API failed. Native API returns: -30 (PI_ERROR_INVALID_VALUE) -30 (PI_ERROR_INVALID_VALUE)')).toMatchObject({ kind: 'not-oom', platform: 'xpu', catchable: true });
    expect(root('RuntimeError: level_zero backend failed with error: 40 (UR_RESULT_ERROR_OUT_OF_RESOURCES)')).toMatchObject({ kind: 'catchable-oom' });
  });
});

describe('XLA: compile-time exits, cut statuses, and the platform the log names', () => {
  it("reads the TPU compiler's early exit (sizes up to E) and a vmem overflow without sizes", () => {
    expect(root("XlaRuntimeError: RESOURCE_EXHAUSTED: Aborting compilation early because it's unlikely to have enough memory. Requires 1.25T, has 30.75G available.")).toMatchObject({
      kind: 'catchable-oom',
      platform: 'xla-tpu',
      requestedBytes: Math.round(1.25 * 1024 ** 4),
      freeBytes: Math.round(30.75 * GiB),
    });
    expect(root('Compilation failure: Ran out of memory in memory space vmem. It should not be possible to run out of vmem - please file a bug against XLA.')).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu' });
  });

  it('reads a status a paste cut inside its message', () => {
    const log = ['E0101 local_client.cc:600] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of mem', 'ory while trying to allocate 1073741824 bytes.'].join('\n');
    // Cut mid-word the continuation holds no needle; cut between words it does.
    const between = ['E0101 local_client.cc:600] Execution of replica 0 failed: Resource exhausted: Out', 'of memory while trying to allocate 1073741824 bytes.'].join('\n');
    expect(root(between)).toMatchObject({ kind: 'catchable-oom', requestedBytes: GiB });
    expect(root(log)?.requestedBytes).toBeUndefined();
  });

  it('is cuda when the log names a GPU or CUDA, xla-tpu otherwise', () => {
    const msg = 'jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2147483648 bytes.';
    expect(root(msg)).toMatchObject({ platform: 'xla-tpu' });
    expect(root(`2025-01-01 00:00:00 INFO Using GPU NVIDIA A10G\n${msg}`)).toMatchObject({ platform: 'cuda' });
    expect(root(`W external/xla/xla/stream_executor/cuda/cuda_driver.cc:1200] could not reserve\n${msg}`)).toMatchObject({ platform: 'cuda' });
    expect(root(`WARNING: No GPU/TPU found, falling back to CPU.\n${msg}`)).toMatchObject({ platform: 'xla-tpu' });
    expect(root(`Exception in device=TPU:3: ${msg.replace('jaxlib.xla_extension.XlaRuntimeError: ', '')}`)).toMatchObject({ platform: 'xla-tpu', device: 3 });
  });

  it("reads Colab's markdown-linked notebook frames", () => {
    const log = [
      'RuntimeError                              Traceback (most recent call last)',
      '[<ipython-input-4-0a1b2c3d4e5f>](https://localhost:8080/#) in <module>()',
      '     11 x = jnp.ones((n, n))',
      '---> 12 y = model.apply(params, x)',
      '[/usr/local/lib/python3.10/dist-packages/jax/_src/dispatch.py](https://localhost:8080/#) in apply_primitive(prim, *args)',
      '--> 101   return compiled_fun(*args)',
      'RuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4194304 bytes.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', requestedBytes: 4 * MiB, userFrames: [{ file: '<ipython-input-4-0a1b2c3d4e5f>', line: 12 }] });
  });
});
