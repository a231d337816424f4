// The message classes blind batch 61 showed the engine did not read. Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe('hangs without a watchdog', () => {
  it("reads gloo's transfer timeout as a hang", () => {
    const log = ['  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3300, in broadcast', '    work.wait()', 'RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 600000ms for recv operation to complete'];
    expect(root(log)).toMatchObject({ kind: 'hang', catchable: false });
  });

  it('reads a debugger stack waiting inside a collective as a hang, and a crashing one as not', () => {
    const stuck = ['Thread 1 (Thread 0x7f00 (LWP 4242)):', '#0  0x00007f0011223344 in pthread_cond_wait@@GLIBC_2.3.2 () from /lib64/libpthread.so.0', '#1  0x00007f0055667788 in ?? () from /opt/rccl/lib/librccl.so.1', '#2  0x00007f0055667799 in ncclBroadcast () from /opt/rccl/lib/librccl.so.1', '#3  0x00000000004f1e2a in _PyEval_EvalFrameDefault ()'];
    expect(root(stuck)).toMatchObject({ kind: 'hang' });
    const crashed = ['Thread 1 "python" received signal SIGSEGV, Segmentation fault.', '#0  0x00007f0011223344 in ncclProxyProgress () from /opt/nccl/lib/libnccl.so.2', '#1  0x00007f0011225555 in start_thread () from /lib64/libpthread.so.0'];
    expect(root(crashed)?.kind).toBe('not-oom');
  });
});

describe('memory budgets and refusals', () => {
  it("reads SGLang's KV-cache budget check as an OOM the program received", () => {
    expect(root(['ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.9.'])).toMatchObject({ kind: 'catchable-oom' });
  });

  it('does not read a device node the driver would not open as memory running out', () => {
    expect(root(['Unable to open /dev/kfd read-write: Cannot allocate memory', 'Failed to get user name to check for render group membership'])?.kind).toBe('not-oom');
  });

  it("reads Windows' commit limit in PyTorch's shared file mapping and in Rust's error", () => {
    expect(root(["RuntimeError: Couldn't open shared file mapping: <torch_4012_88123>, error code: <1455>"])?.kind).toBe('catchable-oom');
    expect(root(['RuntimeError: failed to map the model file into memory (os error 1455)'])?.kind).toBe('catchable-oom');
  });

  it("reads std::bad_alloc at the end of a JSON error record (torchelastic's error file)", () => {
    expect(root(['[ERROR] 2024-03-01 10:00:00,000 error_handler: {', '  "message": {', '    "message": "MemoryError: std::bad_alloc",'])?.kind).toBe('catchable-oom');
  });

  it("reads Metal's out-of-memory status with zsh's abort right after it as an abort", () => {
    expect(root(['libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)'])?.kind).toBe('runtime-abort');
    expect(root(['    (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory) zsh: abort      python gen.py'])?.kind).toBe('runtime-abort');
  });
});

describe('review', () => {
  it("leaves RMM's bad_alloc over a CUDA error that is not out of memory to that error", () => {
    expect(root(['MemoryError: std::bad_alloc: CUDA error at: /opt/conda/include/rmm/mr/device/cuda_memory_resource.hpp:70: cudaErrorIllegalAddress an illegal memory access was encountered'])?.kind).toBe('not-oom');
  });

  it("does not give a later run's failure the spawn index of an earlier traceback", () => {
    const log = ['-- Process 1 terminated with the following error:', 'Traceback (most recent call last):', '  File "/w/main.py", line 10, in run', '    open(path)', "FileNotFoundError: [Errno 2] No such file or directory: 'x'", '$ python main.py', 'epoch 0 step 10', 'RuntimeError: CUDA error: an illegal memory access was encountered'];
    expect(root(log)?.rank).toBeUndefined();
  });

  it('names no device for a failure NCCL printed on several devices', () => {
    const log = ['node1:4009:4658 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_create_cq failed with error Cannot allocate memory', 'node1:4016:4653 [7] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_create_cq failed with error Cannot allocate memory'];
    expect(root(log)?.device).toBeUndefined();
  });

  it("does not take torch_npu's suffix across another rank's lines or onto a message naming another device", () => {
    const otherRank = ['[rank3]: RuntimeError: NPU function error: aclrtMemcpy, error code is 507899', '[rank3]: [ERROR] 2025-01-01-00:00:00 (PID:3333, Device:3, RankID:3) ERR00100 PTA call acl api failed', '[rank0]: x', '[rank0]: y', '[rank0]: ValueError: bad shape'];
    expect(root(otherRank)?.device).not.toBe(3);
    const otherDevice = ['[ERROR] 2025-01-01-00:00:00 (PID:3333, Device:3, RankID:3) ERR00100 PTA call acl api failed', 'RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 29.50 GiB total capacity; 27.00 GiB already allocated; 1.00 GiB free; 28.00 GiB reserved in total by PyTorch)'];
    expect(root(otherDevice)).toMatchObject({ device: 0 });
    expect(root(otherDevice)?.rank).toBeUndefined();
  });

  it("does not read mpirun's kill of a cancelled or interrupted job as a host OOM", () => {
    expect(root(['slurmstepd: error: *** STEP 123.0 ON gpu-7 CANCELLED AT 2025-01-01T00:00:00 DUE TO TIME LIMIT ***', 'mpirun noticed that process rank 0 with PID 0 on node gpu-7 exited on signal 9 (Killed).'])?.kind).not.toBe('host-oom');
    expect(root(['mpirun: abort is already in progress...hit ctrl-c again to forcibly terminate', 'mpirun noticed that process rank 1 with PID 77 on node n1 exited on signal 9 (Killed).'])?.kind).not.toBe('host-oom');
  });

  it("leaves the headless message to the head above it and to the platform the lines around name", () => {
    const withHead = ['ERROR:root:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB.', 'Traceback (most recent call last):', '  File "/w/train.py", line 5, in <module>', '    step()', 'GPU 0 has a total capacity of 23.64 GiB of which 1.50 GiB is free. Of the allocated memory 20.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated.'];
    expect(triageFailures(withHead.join('\n'), 'log').verdicts.filter((v) => v.kind === 'catchable-oom' || v.kind === 'fragmentation')).toHaveLength(1);
    const rocm = ['Using ROCm 6.2 with torch 2.5.1+rocm6.2', 'GPU 0 has a total capacity of 63.98 GiB of which 0 bytes is free. Of the allocated memory 60.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated.'];
    expect(root(rocm)?.platform).not.toBe('cuda');
  });

  it('does not take an assert at exit for the abort of an OOM the program raised', () => {
    const log = ['RuntimeError: CUDA error: out of memory', "python3: ../nptl/pthread_mutex_lock.c:81: __pthread_mutex_lock: Assertion `mutex->__data.__owner == 0' failed."];
    expect(root(log)?.kind).toBe('catchable-oom');
  });

  it("does not read std::bad_alloc named in a note or as a test's expected refusal", () => {
    expect(root(['arena.cc:88: allocation of 1099511627776 bytes refused as expected: std::bad_alloc', '[  FAILED  ] Arena.Threads (12 ms)'])?.kind).not.toBe('catchable-oom');
  });

  it("takes no device from TensorFlow's placement error, and no sizes from a PBS virtual-memory limit", () => {
    expect(root(["tensorflow.python.framework.errors_impl.InvalidArgumentError: Cannot assign a device for operation MatMul: Could not satisfy explicit device specification '/device:GPU:1' because no supported kernel for GPU devices is available."])?.device).toBeUndefined();
    const v = root(['=>> PBS: job killed: vmem 52428800kb exceeded limit 41943040kb']);
    expect(v?.kind).toBe('host-oom');
    expect(v?.processInUseBytes).toBeUndefined();
  });
});
