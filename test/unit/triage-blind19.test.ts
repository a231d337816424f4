// The message classes blind batch 19 showed the engine did not know: Triton's OutOfResources (a kernel's per-block
// limit, not the device's memory), c10d's store socket timing out, NCCL's failed verbs calls, the amdgpu driver's
// GPU reset and ROCm's debug agent, a failed Synapse call on Gaudi, and a reworded "no kernel image" and the driver
// API's description of an illegal address; ranks from Open MPI's --tag-output prefix and from ProcessGroupNCCL's
// failed ncclUniqueId fetch. Each test is a variant written for the class (other numbers, names and
// prefixes), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe('kernel and launch limits the tail pass reads', () => {
  it("reads Triton's OutOfResources as a catchable not-oom on the GPU, not an out-of-memory error", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/work/bench_attn.py", line 88, in <module>',
      '    out = flash_fwd[grid](q, k, v, o, BLOCK_M=256, num_stages=4)',
      '  File "/opt/venv/lib/python3.11/site-packages/triton/compiler/compiler.py", line 401, in _init_handles',
      '    raise OutOfResources(self.metadata.shared, max_shared, "shared memory")',
      'triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 196608, Hardware limit: 232448. Reducing block sizes or `num_stages` may help.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: true });
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: '/work/bench_attn.py', line: 88 });
    // The lines around it may name ROCm, where Triton runs on HIP.
    expect(root(['PyTorch version: 2.5.1+rocm6.2', 'OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536.'].join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
    // A log cut at the raise line is the same failure.
    const cut = [
      '  File "/home/u/proj/kernels.py", line 40, in run',
      '    return fn.run(*args, grid=grid)',
      '  File "/usr/lib/python3/site-packages/triton/compiler/compiler.py", line 377, in _init_handles',
      '    raise OutOfResources(self.shared, max_shared, "shared memory")',
    ].join('\n');
    expect(root(cut)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: true });
    expect(root(cut)?.userFrames?.[0]).toMatchObject({ file: '/home/u/proj/kernels.py', line: 40 });
  });

  it('reads a CUDA error string a program reworded, and the driver API description of an illegal address', () => {
    expect(root('[miner] GPU #2: no kernel image is available for execution this device')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: true });
    const log = [
      'Device 1 (RTX 2060): Critical error in worker loop: ErrorIllegalAddress: While executing a kernel, the device encountered a load or store instruction on an invalid memory address.',
      'This leaves the process in an inconsistent state and any further CUDA work will return the same error.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });
});

describe('distributed setup failures the tail pass reads', () => {
  it("reads c10d's client socket timing out or failing to connect as a catchable not-oom", () => {
    expect(root('[E0301 09:12:45.118204512 socket.cpp:1003] [c10d] The client socket has timed out after 600000ms while trying to connect to (10.0.0.5, 29400).')).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: true });
    expect(root('[W socket.cpp:663] [c10d] The client socket has failed to connect to any network address of (node-3, 29500).')).toMatchObject({ kind: 'not-oom', catchable: true });
  });

  it("reads NCCL's failed verbs calls (ibvwrap.cc, old and new wordings) as a not-oom on CUDA", () => {
    const old = ['gpu7:1201:1300 [3] misc/ibvwrap.cc:212 NCCL WARN Call to ibv_reg_mr failed', 'gpu7:1201:1300 [3] NCCL INFO transport/net_ib.cc:401 -> 2'].join('\n');
    expect(root(old)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root('n2:88:91 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_create_cq failed with error Invalid argument')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    // RCCL prints NCCL's words; the lines around it say ROCm.
    expect(root(['RCCL version 2.18.3+hip6.1 (ROCm 6.1.0)', 'h1:9:12 [0] misc/ibvwrap.cc:122 NCCL WARN Call to ibv_open_device failed'].join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
    // A warning that only mentions the call is not one.
    expect(all('NCCL INFO NET/IB : ibv_create_qp supports 64 QPs')).toEqual([]);
  });

  it('reads a failed Synapse call as a catchable not-oom on Gaudi', () => {
    expect(root('hccl_test error: In function main(): synDeviceAcquireByModuleId(&handle, 3) failed with synapse error: 26')).toMatchObject({ kind: 'not-oom', platform: 'gaudi', catchable: true });
  });
});

describe('ROCm driver and tool reports the tail pass reads', () => {
  it("reads the amdgpu driver's GPU reset lines as a not-oom on ROCm", () => {
    const log = [
      '[ 902.118204] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring comp_1.2.0 timeout, signaled seq=5311, emitted seq=5312',
      '[ 902.118901] amdgpu 0000:c3:00.0: amdgpu: GPU reset begin!',
      '[ 903.402211] amdgpu 0000:c3:00.0: amdgpu: GPU reset(3) succeeded!',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: false });
    expect(root('[  77.1] amdgpu 0000:03:00.0: amdgpu: GPU mode1 reset')).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
  });

  it("reads ROCm's debug agent reporting a memory access fault as a not-oom on ROCm", () => {
    const log = ['[rocr debug agent]: ', 'Memory access fault at GPU Node: 2', 'Address: 0x7F10xxxxx000 (page not present;read access;)', '', '64 wavefront(s) found in @PC: 0x00007F11A0C0D118'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: false });
  });
});

describe('ranks', () => {
  it("takes the rank from Open MPI's --tag-output prefix ('[jobid,rank]<stderr>:')", () => {
    const log = [
      '[1,0]<stdout>:Epoch 1/3',
      '[1,3]<stderr>:2021-03-02 10:11:12.000001: E tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate 1.50G (1610612736 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', rank: 3, requestedBytes: 1610612736 });
  });

  it("takes the rank from ProcessGroupNCCL's failed ncclUniqueId fetch", () => {
    const log = [
      "RuntimeError: [5] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '1:2', but store->get('1:2') got error: Connection reset by peer",
      'Exception raised from recvBytes at ../torch/csrc/distributed/c10d/Utils.hpp:670 (most recent call first):',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', rank: 5 });
  });
});

describe('out-of-memory classes', () => {
  it("reads Ray's pre-2.0 memory monitor (RayOutOfMemoryError over the node threshold) as a host OOM, its message wrapped or not", () => {
    const log = [
      '  File "/opt/ray/python/ray/memory_monitor.py", line 141, in raise_if_low_memory',
      '    self.error_threshold))',
      'ray.memory_monitor.RayOutOfMemoryError: More than 92% of the memory on node',
      'worker-17 is used (58.9 / 62.8 GB). The top 10 memory consumers are:',
      '',
      'PID\tMEM\tCOMMAND',
      '3012\t21.4GB\tray::Trainer.train()',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
  });

  it("takes the device of a DataParallel replica's re-raised OutOfMemoryError", () => {
    const log = 'torch.OutOfMemoryError: Caught OutOfMemoryError in replica 2 on device 2.\nOriginal Traceback (most recent call last):';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 2 });
  });
});

describe('frames', () => {
  it("takes the frames of luajit's stack traceback under a Torch7 CUDA check", () => {
    const log = [
      'THCudaCheck FAIL file=/tmp/luarocks_cutorch-scm-1/cutorch/init.c line=261 error=38 : no CUDA-capable device is detected',
      "/opt/torch/bin/luajit: /opt/torch/share/lua/5.1/cutorch/init.lua:2: cuda runtime error (38) : no CUDA-capable device is detected",
      'stack traceback:',
      "\t[C]: in function 'require'",
      "\ttrain.lua:7: in main chunk",
      "\t[C]: in function 'dofile'",
      '\t/opt/torch/lib/luarocks/rocks/trepl/scm-1/bin/th:145: in main chunk',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: 'train.lua', line: 7 });
  });
});

describe("tt-metal's bank state", () => {
  it("reads the allocated and free bytes newer tt-metal builds print after the request", () => {
    const log = '2026-01-02 10:00:00.000 | critical | TT_FATAL: Out of Memory: Not enough space to allocate 2147483648 B DRAM buffer across 8 banks, where each bank needs to store 268435456 B, but bank size is 1073741824 B (allocated: 900000000 B, free: 173741824 B, largest free block: 100000000 B) (assert.hpp:104)';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', requestedBytes: 2147483648, allocatedBytes: 900000000, freeBytes: 173741824 });
    // Older builds stop after the bank size.
    expect(root('Out of Memory: Not enough space to allocate 1048576 B L1 buffer across 64 banks, where each bank needs to store 16384 B')?.allocatedBytes).toBeUndefined();
  });
});

describe("ggml's ROCm abort", () => {
  it("reads ggml's 'ROCm error: out of memory' as its abort even when the log ends on it, and PyTorch's HIP error not", () => {
    const log = ['llama_new_context_with_model: ROCm0 compute buffer size = 1204.00 MiB', 'Mar 03 08:11:02 box llama-server[812]: ROCm error: out of memory'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'rocm', catchable: false });
    expect(root('RuntimeError: HIP error: out of memory\nCompile with `TORCH_USE_HIP_DSA` to enable device-side assertions.')).toMatchObject({ kind: 'catchable-oom', platform: 'rocm' });
  });
});

describe('native aborts, compiler and driver errors the tail pass reads', () => {
  it("reads gdb's backtrace stopped in abort() as a native abort (old and new glibc frames)", () => {
    const old = ['Thread 1 "python3" received signal SIGABRT, Aborted.', '#0  __GI_raise (sig=sig@entry=6) at ../sysdeps/unix/sysv/linux/raise.c:51', '#1  0x00007ffff7a24801 in __GI_abort () at abort.c:79', '#2  0x00007fffe8f1e957 in ?? () from /usr/lib/x86_64-linux-gnu/libstdc++.so.6'].join('\n');
    expect(root(old)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    const recent = ['#0  __pthread_kill_implementation (no_tid=0, signo=signo@entry=6, threadid=<optimized out>) at ./nptl/pthread_kill.c:44', '#1  0x00007ffff7c4527e in __GI_raise (sig=sig@entry=6) at ../sysdeps/posix/raise.c:26', '#2  0x00007ffff7c288ff in __GI_abort () at ./stdlib/abort.c:79', '#3  0x00007fffd3a8e1a4 in grpc_core::Crash(std::basic_string_view<char> const&) () from /opt/lib/libgrpc.so'].join('\n');
    expect(root(recent)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
  });

  it("reads Intel's GPU compiler failing a kernel build as a catchable not-oom on xpu", () => {
    const log = ['error: Double type is not supported on this platform.', "in kernel: 'typeinfo name for reduce_kernel<double>'", 'error: backend compiler failed build.'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'xpu', catchable: true });
  });

  it('reads an ODBC or Db2 CLI diagnostic under an error as a catchable not-oom on the host', () => {
    expect(root('Error: [Microsoft][ODBC Driver 18 for SQL Server]Login timeout expired (0) (SQLDriverConnect)')).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: true });
    expect(root('[Error: [IBM][CLI Driver][DB2/NT64] SQL0204N  "ADMIN.ORDERS" is an undefined name.  SQLSTATE=42704')).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: true });
  });

  it("does not take a platform from Google's failure signal handler, which TensorFlow and XLA builds print on any host", () => {
    const log = [
      'https://symbolize.stripped_domain/r/?trace=7f0a1b2c3d4e,7f0a1b2c3d00&map=',
      '*** SIGABRT received by PID 5120 (TID 5188) on cpu 12 from PID 5120; stack trace: ***',
      'PC: @     0x7f0a1b2c3d4e  (unknown)  raise',
      'E0602 11:20:31.000100    5188 coredump_hook.cc:447] RAW: Remote crash data gathering hook invoked.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
  });
});

describe('reports that lost their first line or come from outside ML', () => {
  it("reads PyTorch's shared-memory hint alone as a DataLoader worker's bus error, not an OOM", () => {
    expect(root("  It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.")).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
  });

  it("reads GameMaker's runner error report as a catchable not-oom", () => {
    const log = [
      '############################################################################################',
      'ERROR in',
      'action number 2',
      'of Step Event0',
      'for object obj_enemy:',
      '',
      'Variable obj_enemy.target_x(100012, -2147483648) not set before reading it.',
      ' at gml_Object_obj_enemy_Step_0 (line 17) - move_towards_point(target_x, target_y, 2);',
      '############################################################################################',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: true });
    expect(root(log)?.summary).toContain('Variable obj_enemy.target_x');
  });
});
