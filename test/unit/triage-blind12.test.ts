// The message classes blind batch 12 showed the engine did not know: launcher-only failures, NCCL's
// error trace (socket, bootstrap, topology XML), and CUDA-only words that give a not-oom verdict its
// platform. Each test is a variant written for the class (other numbers, names and prefixes), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe('launcher-only failures', () => {
  it("reads DeepSpeed's 'exits with return code = N' alone as not-oom", () => {
    const log = "[2024-07-01 10:00:00,001] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 4410\n[2024-07-01 10:00:02,500] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'finetune.py', '--local_rank=3'] exits with return code = 2";
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: false });
    // A zero return code is no failure.
    expect(all("[INFO] [launch.py:347:main] Process 12 exits successfully.\n['python', 'x.py'] exits with return code = 0")).toEqual([]);
  });
});

describe("NCCL's error trace", () => {
  it("reads a tail of 'NCCL INFO file.cc:N -> R' lines as a failed NCCL call (not-oom, cuda)", () => {
    const log = [
      'node7:5521:5600 [2] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.1.2.3<40121> failed : Connection refused',
      'node7:5521:5600 [2] NCCL INFO misc/socket.cc:567 -> 2',
      'node7:5521:5600 [2] NCCL INFO bootstrap.cc:285 -> 2',
      'node7:5521:5600 [2] NCCL INFO init.cc:1402 -> 2',
    ].join('\n');
    const v = root(log)!;
    expect(v).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(v.summary).toMatch(/ncclSystemError/);
    expect(root('host:1:2 [0] NCCL INFO graph/xml.cc:710 -> 3\nhost:1:2 [0] NCCL INFO graph/topo.cc:601 -> 3')!.summary).toMatch(/ncclInternalError/);
    // ncclInProgress (7) is not an error.
    expect(all('host:1:2 [0] NCCL INFO init.cc:99 -> 7')).toEqual([]);
  });
});

describe('the platform of a not-oom verdict from CUDA-only words', () => {
  it('takes cuda from ProcessGroupNCCL, THCudaCheck and accelerate\'s multi_gpu_launcher', () => {
    expect(root('[W111 02:00:00.1 ProcessGroupNCCL.cpp:1200] [PG 0 Rank 1] heartbeat\nE1111 torch/distributed/elastic/multiprocessing/api.py:900] failed (exitcode: 1) local_rank: 1 (pid: 88) of binary: /usr/bin/python')).toMatchObject({ kind: 'not-oom', platform: 'cuda', rank: 1 });
    expect(root('THCudaCheck FAIL file=/pytorch/aten/src/THC/generic/THCTensorMath.cu line=19 error=8 : invalid device function\nTraceback (most recent call last):\n  File "run.py", line 3, in <module>\n    go()\nRuntimeError: boom')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root('  File "/opt/venv/lib/python3.11/site-packages/accelerate/commands/launch.py", line 700, in multi_gpu_launcher\n    distrib_run.run(args)\nsubprocess.CalledProcessError: Command \'[\'python\', \'t.py\']\' returned non-zero exit status 1.')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });

  it("reads DataParallel's 'Caught X in replica N on device D.' as cuda device D", () => {
    const log = 'Traceback (most recent call last):\n  File "train.py", line 40, in <module>\n    out = model(x)\n  File "/usr/lib/python3/site-packages/torch/_utils.py", line 700, in reraise\n    raise exception\nValueError: Caught ValueError in replica 2 on device 3.';
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', device: 3 });
  });
});

describe('GPU driver faults in the kernel log', () => {
  it("reads amdgpu's VM page fault report and ring timeout as not-oom on rocm", () => {
    const log = [
      'Jan 02 09:10:11 box kernel: amdgpu 0000:03:00.0: amdgpu: [mmhub] page fault (src_id:0 ring:24 vmid:3 pasid:32770)',
      'Jan 02 09:10:11 box kernel: amdgpu 0000:03:00.0: amdgpu:   in process python3 pid 4242 thread python3 pid 4242)',
      'Jan 02 09:10:11 box kernel: amdgpu 0000:03:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00301031',
      'Jan 02 09:10:11 box kernel: amdgpu 0000:03:00.0: amdgpu:          MORE_FAULTS: 0x1',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: false });
    expect(root('[ 900.1] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* amdgpu 0000:0c:00.0: ring comp_1.2.0 timeout, signaled seq=77, emitted seq=79')).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
  });

  it("reads NVIDIA's 'NVRM: Xid' report as not-oom on cuda", () => {
    expect(root('[ 5120.33] NVRM: Xid (PCI:0000:b1:00): 31, pid=9981, name=python, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f1c_00000000')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });
});

describe('a DataLoader worker signal wrapped by a terminal', () => {
  it('joins the signal name on the next line', () => {
    const log = 'RuntimeError: DataLoader worker (pid 90112) is killed by signal: \nBus error. It is possible that dataloader\'s workers are out of shared memory. \nPlease try to raise your shared memory limit.';
    const v = root(log)!;
    expect(v).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
    expect(v.summary).toMatch(/Bus error/);
  });
});

describe("cudaMallocAsync's message cut after its first words", () => {
  it("reads a line ending in 'Allocation on device' as a catchable CUDA OOM", () => {
    const log = '2025-01-01 12:00:00 ERROR    !!! Exception during processing !!! Allocation on device            execution.py:412\n                    ERROR    Traceback (most recent call last):                          execution.py:413';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    // Prose that goes on after the words is not the message.
    expect(all('INFO Allocation on device memory is handled by the pool')).toEqual([]);
  });
});

describe("XLA's out-of-memory status with TensorFlow's BFC allocator on a GPU", () => {
  it('takes cuda and the device from a named GPU_N_bfc allocator', () => {
    const log = [
      "2024-03-03 10:00:00.1: W external/xla/xla/tsl/framework/bfc_allocator.cc:291] Allocator (GPU_2_bfc) ran out of memory trying to allocate 2.10GiB with freed_by_count=0.",
      'jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2254857830 bytes.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 2 });
  });

  it("takes cuda, the limit and the bytes in use from BFC's Stats block above the status", () => {
    const log = [
      '[info] Stats: ', 'Limit:                      7000000000', 'InUse:                      6500000000', 'MaxInUse:                   6600000000', '',
      '[error] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 104857600 bytes.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', allowedBytes: 7000000000, allocatedBytes: 6500000000 });
    // Without the block (and no GPU named) XLA's words stay a TPU's.
    expect(root('[error] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 104857600 bytes.')).toMatchObject({ platform: 'xla-tpu' });
  });
});

describe("ProcessGroupNCCL's 'Some NCCL operations have failed or timed out' alone", () => {
  it('is a hang with its rank when no failed call or lost peer is named', () => {
    const line = '[rank5]:[E301 12:00:00.123 ProcessGroupNCCL.cpp:700] [Rank 5] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.';
    expect(root(line)).toMatchObject({ kind: 'hang', platform: 'cuda', rank: 5, catchable: false });
    // With a lost peer named after it, it stays the NCCL error it reports.
    expect(root(`${line}\nNCCL error: remote process exited or there was a network error`)).toMatchObject({ kind: 'not-oom' });
  });
});

describe("PyTorch's allocator message listing this process by a container's pid", () => {
  it("reads the one 'Process N has X memory in use' holding all PyTorch reserved as this process", () => {
    const msg = (inUse: string) => `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 96.00 MiB. GPU 0 has a total capacity of 22.05 GiB of which 11.12 MiB is free. Process 4711 has ${inUse} memory in use. Of the allocated memory 21.50 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.`;
    expect(root(msg('22.03 GiB'))).toMatchObject({ kind: 'catchable-oom', processInUseBytes: Math.round(22.03 * 1024 ** 3) });
    // A process holding less than PyTorch reserved, or less than the device's used memory, is another process.
    expect(root(msg('2.00 GiB'))!.processInUseBytes).toBeUndefined();
    // One that holds PyTorch's reserved but well short of the device's used memory is not taken either.
    expect(root(msg('22.00 GiB').replace('GPU 0 has a total capacity of 22.05 GiB', 'GPU 0 has a total capacity of 40.00 GiB'))!.processInUseBytes).toBeUndefined();
    expect(root(msg('24.00 GiB'))).toMatchObject({ processInUseBytes: 24 * 1024 ** 3 });
  });
});

describe("a cuBLAS/cuDNN status check that prints its device", () => {
  it("takes the device from 'device index: N' / 'device: N'", () => {
    expect(root('Error: CUBLAS error at /src/bench/gemm.cpp:88: error code = 14 (CUBLAS_STATUS_INTERNAL_ERROR), device index: 5')).toMatchObject({ kind: 'not-oom', platform: 'cuda', device: 5 });
    expect(root('[fatal] cudnnConvolutionForward returned CUDNN_STATUS_EXECUTION_FAILED on device: 3')).toMatchObject({ kind: 'not-oom', device: 3 });
  });
});

describe('a number broken by a fixed-width wrap', () => {
  it('joins the digits of a size split at the line end', () => {
    const log = 'RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 1; 11.17 GiB total capacity; 10.51 GiB already allocated; 1.81 MiB free; 10.5\n2 GiB reserved in total by PyTorch)';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', device: 1, reservedBytes: Math.round(10.52 * 1024 ** 3) });
  });
});

describe("torchrun's SIGTERM to the other workers after one rank's output", () => {
  it('takes the rank when the lines above were printed by one rank only', () => {
    const above = ['[rank3]: tensor at position 12:', "[rank3]: saved metadata: {'shape': torch.Size([64])}", "[rank3]: recomputed metadata: {'shape': torch.Size([0])}"];
    const sigterm = 'W0101 00:00:01.000000 77 site-packages/torch/distributed/elastic/multiprocessing/api.py:897] Sending process 81 closing signal SIGTERM';
    expect(root([...above, '', sigterm].join('\n'))).toMatchObject({ kind: 'not-oom', rank: 3 });
    // Two ranks printing above it name no single one.
    expect(root(['[rank1]: x', '[rank2]: y', sigterm].join('\n'))!.rank).toBeUndefined();
  });
});
