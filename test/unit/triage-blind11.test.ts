// The message classes blind batch 11 showed the engine did not know: parents and cgroups reporting a
// kill for memory outside ML (gunicorn, celery, the memory cgroup, Kubernetes, docker events), the
// platform and rank of a not-oom fallback verdict, and more failure and out-of-memory wordings. Each
// test is a variant written for the class (other numbers, names and prefixes), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe('host kills reported by a parent or a cgroup', () => {
  it('reads gunicorn and celery reporting a worker killed with SIGKILL as host-oom', () => {
    expect(root('[2024-01-02 10:00:00 +0000] [7] [INFO] Booting worker with pid: 812\n[2024-01-02 10:05:13 +0000] [7] [ERROR] Worker (pid:812) was sent SIGKILL! Perhaps out of memory?')).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root("[2023-06-01 08:00:01,002: ERROR/MainProcess] Process 'ForkPoolWorker-3' pid:4411 exited with 'signal 9 (SIGKILL)'")).toMatchObject({ kind: 'host-oom' });
    expect(all('[ERROR] Worker (pid:9) was sent SIGKILL! Perhaps out of memory?')).toHaveLength(1);
  });

  it('reads a gunicorn worker killed after its WORKER TIMEOUT as not-oom', () => {
    const log = '[2024-05-05 01:00:00 +0000] [1] [CRITICAL] WORKER TIMEOUT (pid:77)\n[2024-05-05 01:00:01 +0000] [1] [ERROR] Worker (pid:77) was sent SIGKILL! Perhaps out of memory?';
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: false });
    // Another worker's timeout does not excuse this one.
    expect(root('[1] [CRITICAL] WORKER TIMEOUT (pid:78)\n[1] [ERROR] Worker (pid:77) was sent SIGKILL! Perhaps out of memory?')).toMatchObject({ kind: 'host-oom' });
  });

  it('reads the memory cgroup OOM report and the Kubernetes OOMKilling event as host-oom', () => {
    expect(root('[812.4] Memory cgroup out of memory: Killed process 3301 (java) total-vm:9000000kB, anon-rss:4000000kB')).toMatchObject({ kind: 'host-oom' });
    expect(root('[812.4] Memory cgroup out of memory: Kill process 3301 (node) score 990 or sacrifice child')!.summary).toMatch(/node \(pid 3301\)/);
    expect(root('Normal  OOMKilling  node/n1  Memory cgroup out of memory: Kill process 77 (worker) score 1500 or sacrifice child')).toMatchObject({ kind: 'host-oom' });
    expect(root('host kernel: memory: usage 2097152kB, limit 2097152kB, failcnt 9')).toMatchObject({ kind: 'host-oom' });
    // Usage below the limit is not a kill.
    expect(all('host kernel: memory: usage 1000kB, limit 2097152kB, failcnt 0')).toEqual([]);
    expect(root('[99.1] Memory cgroup stats for /kubepods/burstable/pod42: cache:12KB rss:2048000KB')).toMatchObject({ kind: 'host-oom' });
  });

  it('reads the kernel task table and docker\'s container oom event from the tail', () => {
    const rows = ['[  101]     0   101    52000    30100   409600        0             0 python3', '[  102]     0   102     2227     1354    57344        5          -999 containerd-shim', '[  103]  1000   103   812345   700001  6000000        0             0 java'];
    expect(root(rows.map((r) => `Mar 3 10:00:00 box kernel: [5.0] ${r}`).join('\n'))).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
    // One row alone is not a table.
    expect(all(`kernel: ${rows[0]}`)).toEqual([]);
    expect(root('2024-02-02T10:00:00.000000000Z container oom 3f9a0c1d2e4b5a6978cdef0123456789abcdef0123456789abcdef0123456789 (image=myapp:1, name=web)')).toMatchObject({ kind: 'host-oom' });
  });
});

describe('the not-oom fallback: platform and rank from the log', () => {
  it('takes the accelerator the rest of the tail names', () => {
    const log = ['Using device cuda:0', ...Array.from({ length: 60 }, (_, i) => `batch ${i}`), 'Traceback (most recent call last):', '  File "/srv/app/run.py", line 3, in <module>', '    go()', 'ValueError: bad shape'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    // Not when the log says it ran without an accelerator.
    expect(root(['No GPU found, running on the CPU', ...Array.from({ length: 60 }, (_, i) => `batch ${i}`), 'Traceback (most recent call last):', '  File "/srv/app/run.py", line 3, in <module>', '    go()', 'ValueError: bad shape'].join('\n'))).toMatchObject({ platform: 'cpu' });
    expect(root('F0101 10:00:00.1 99 kern.cu:88] Check failed: status Cuda kernel failed')).toMatchObject({ platform: 'cuda' });
    expect(root('Traceback (most recent call last):\n  File "/u/x/eval.py", line 9, in <module>\n    f()\nRuntimeError: [metal::malloc] Attempting to allocate 1 bytes which is greater than the maximum allowed buffer size')).toMatchObject({ platform: 'mps' });
  });

  it('gives the rank of torchrun\'s root cause and of its "failed (exitcode) local_rank" line', () => {
    expect(root('ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 3 (pid: 1200) of binary: /usr/bin/python')).toMatchObject({ kind: 'not-oom', rank: 3 });
    const table = ['torch.distributed.elastic.multiprocessing.errors.ChildFailedError:', '====', 'run.py FAILED', '----', 'Failures:', '[1]:', '  rank      : 5 (local_rank: 1)', '  exitcode  : 1 (pid: 2)', '----', 'Root Cause (first observed failure):', '[0]:', '  rank      : 4 (local_rank: 0)', '  exitcode  : 1 (pid: 1)', '===='];
    expect(root(table.join('\n'))).toMatchObject({ kind: 'not-oom', rank: 4 });
  });
});

describe('the not-oom fallback: more native failures', () => {
  it('reads CUDA/HIP statuses by name and applications\' CUDA error checks as not-oom on their platform', () => {
    expect(root('========= Program hit cudaErrorIllegalAddress (error 700) due to "an illegal memory access was encountered" on CUDA API call to cudaMemcpy.')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root(':3:hip_module.cpp :80 : 12 us: [pid:9 tid:0x1] init: Returned hipErrorInvalidImage : stop')).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
    expect(root('kernel.cc:40 launch returned CUDA_ERROR_LAUNCH_TIMEOUT')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root('ERROR: unknown error in /opt/app/src/gpu/render.cu at line 77 (error-code 4)')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root('[MYLIB CUDA ERROR] an illegal memory access was encountered(CUDA error no.=700). Line no. 12 in file kern.cpp')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    // A setting that mentions CUDA errors is not a failure.
    expect(all('info: CUDA error checking enabled for kernels in render.cu')).toEqual([]);
    // A status that is an allocation failure is not this class.
    expect(root('========= Program hit cudaErrorMemoryAllocation (error 2) due to "out of memory" on CUDA API call to cudaMalloc.')?.kind).not.toBe('not-oom');
  });

  it('reads Ascend error codes as not-oom on the NPU, with the device', () => {
    expect(root('[ERROR]  Execute model(models/det.om) error:507015')).toMatchObject({ kind: 'not-oom', platform: 'npu' });
    expect(root('RuntimeError: x.cpp:1 NPU function error: c10_npu::SetDevice(d), error code is 507033 [ERROR] (PID:12, Device:3, RankID:-1) ERR00100 PTA call acl api failed')).toMatchObject({ kind: 'not-oom', platform: 'npu' });
    expect(root('[ERROR] Failed: error code is 507033 (PID:12, Device:3, RankID:-1)')).toMatchObject({ kind: 'not-oom', platform: 'npu', device: 3 });
  });

  it('reads glibc heap corruption, SIGSEGV reports, Windows crash statuses and Chromium FATAL lines as not catchable', () => {
    expect(root("*** Error in `./asm': double free or corruption (fasttop): 0x0000000001a2b010 ***")).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root('malloc(): corrupted top size')).toMatchObject({ kind: 'not-oom' });
    expect(root("fish: Job 2, './viewer' terminated by signal SIGSEGV (Address boundary error)")).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root('Faulting application name: game.exe\nException code: 0xc0000005\nFault offset: 0x1234')).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root('helper crashed: process exited with status 0xC0000409')).toMatchObject({ kind: 'not-oom' });
    expect(root('[12:12:0101/000000.1:FATAL:gpu_init.cc(200)] GPU process isn\'t usable. Goodbye.')).toMatchObject({ kind: 'not-oom' });
    // STATUS_NO_MEMORY (0xC0000017) is not one of these crashes.
    expect(all('worker exited with status 0xC0000017')).toEqual([]);
  });

  it('reads a log that ends inside a Python traceback (its exception line cut) as not-oom with the frames', () => {
    const log = ['epoch 3 loss 0.1', 'Traceback (most recent call last):', '  File "/srv/job/fit.py", line 88, in <module>', '    main()', '  File "/srv/job/fit.py", line 80, in main', '    loss.backward()', '  File "/usr/lib/python3/site-packages/torch/_tensor.py", line 521, in backward', '    torch.autograd.backward('];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'not-oom', catchable: false, userFrames: [{ file: '/srv/job/fit.py', line: 80 }, { file: '/srv/job/fit.py', line: 88 }] });
    // With a logger's prefix whose time changes from line to line.
    const prefixed = ['E 10:00:01 [w.py:9] Traceback (most recent call last):', 'E 10:00:02 [w.py:9]   File "/srv/a.py", line 5, in <module>', 'E 10:00:02 [w.py:9]     go()'];
    expect(root(prefixed.join('\n'))).toMatchObject({ kind: 'not-oom', userFrames: [{ file: '/srv/a.py', line: 5 }] });
    // A traceback followed by ordinary output is not cut: no verdict from it.
    expect(all([...log, 'resuming from checkpoint', 'epoch 4 loss 0.09'].join('\n'))).toEqual([]);
  });
});

describe('out-of-memory texts of other libraries', () => {
  const GiB = 1024 ** 3;
  it('reads GNU MP\'s allocation failure as a host runtime-abort with its size', () => {
    expect(root('12%|##   | 40/300 [00:03<00:20]GNU MP: Cannot allocate memory (size=123456789012)')).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', catchable: false, requestedBytes: 123456789012 });
  });

  it('reads MLX\'s Metal allocator failure: an abort when uncaught, else catchable', () => {
    expect(root('libc++abi: terminating due to uncaught exception of type std::runtime_error: [malloc_or_wait] Unable to allocate 4096 bytes.')).toMatchObject({ kind: 'runtime-abort', platform: 'mps', requestedBytes: 4096 });
    expect(root('RuntimeError: [metal::malloc] Unable to allocate 2147483648 bytes.')).toMatchObject({ kind: 'catchable-oom', platform: 'mps', requestedBytes: 2 * GiB });
  });

  it('reads NPP\'s allocation error (managedCuda\'s wording only with NPP named)', () => {
    expect(root('Unhandled exception: ManagedCuda.NPP.NPPException\n  Message=Device allocation error\n  Source=NPP')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(root('npp call returned NPP_MEMORY_ALLOCATION_ERR')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(all('render: Device allocation error')).toEqual([]);
  });

  it("reads the BFC allocator's failed allocation with the rounded request and device, not its 'not a failure' warning", () => {
    const line = '2023-01-01 00:00:00.1: W tensorflow/core/common_runtime/bfc_allocator.cc:479] Allocator (GPU_1_bfc) ran out of memory trying to allocate 1.50GiB (rounded to 1610612736)requested by op conv2d/Conv2D';
    expect(root(line)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 1, requestedBytes: 1610612736 });
    // The warning is a noted not-oom on its device since the tenth session (triage-blind50.test.ts).
    expect(all('W bfc_allocator.cc:275] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.00GiB (rounded to 2147483648) with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there could be performance gains')).toMatchObject([{ kind: 'not-oom', device: 0 }]);
  });

  it("reads vLLM's startup free-memory check, wrapped, with free, total and requested", () => {
    const log = 'ValueError: Free memory on device (10.0/80.0 GiB) on startup is less than desired\nGPU memory utilization (0.9, 72.0 GiB). Decrease GPU memory utilization or\nreduce GPU memory used by other processes.';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', catchable: true, freeBytes: 10 * GiB, deviceTotalBytes: 80 * GiB, requestedBytes: 72 * GiB });
  });
});

describe('more out-of-memory wordings and details', () => {
  it('reads a stated allocation failure even when it guesses the cause, and "Failed to allocate X memory"', () => {
    expect(root('src/Alloc.h:40] GPU memory allocation failed (could be due to insufficient memory)')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(root('ERROR: Failed to allocate host memory! Try a smaller tile size.')).toMatchObject({ kind: 'catchable-oom' });
    // A hedge alone (advice) is still not a failure.
    expect(all('error handling: might fail when there is insufficient memory')).toEqual([]);
  });

  it("reads Twisted's Failure carrying a MemoryError as Python's MemoryError", () => {
    expect(root("Unhandled error in Deferred:\nRuntimeError: [Failure instance: Traceback: <class 'MemoryError'>: ")).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });

  it("gives a not-oom Ascend failure the device of torch_npu's suffix on the line after it", () => {
    const log = 'Traceback (most recent call last):\n  File "/w/run.py", line 4, in <module>\n    y = x.npu()\nRuntimeError: f.cpp:1 NPU function error: c10_npu::acl::AclrtMemcpy(s), error code is 507011\n[ERROR] 2025-01-01-00:00:00 (PID:77, Device:2, RankID:-1) ERR00100 PTA call acl api failed';
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'npu', device: 2 });
  });
});

describe('mistral.rs device mapping and a cut rank prefix', () => {
  it("reads mistral.rs's 'does not fit on the devices' as a catchable OOM with the devices' free memory", () => {
    const log = 'Error: This model does not fit on the devices ["metal[0] (avail: 512MB)", "cpu (avail: 1024MB)"], and exceeds total\ncapacity by 900MB. Auto device mapping params: text[max_seq_len: 4096]';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'mps', catchable: true, freeBytes: 1536 * 1024 * 1024 });
  });

  it('takes the rank of a first line whose "[rankN]:" prefix lost its bracket', () => {
    expect(root('rank6]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 6 has a total capacity of 79.15 GiB of which 1.00 GiB is free.')).toMatchObject({ rank: 6 });
  });
});

describe('a rich traceback box the log ends inside', () => {
  it('is a not-oom verdict with the frames in the box', () => {
    const log = ['╭──────────── Traceback (most recent call last) ────────────╮', '│ /home/u/app/fit.py:212 in             │', '│ run_epoch                              │', '│   211 │   loss = step(b)              │', '│ ❱ 212 │   loss.backward()             │'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', userFrames: [{ file: '/home/u/app/fit.py', line: 212 }] });
    // A box that closes and is followed by its exception line is read as usual, not as cut.
    expect(root(log + '\n╰──────────────────────────────────────╯\nValueError: nope')!.summary).toMatch(/ValueError/);
  });
});

describe('tail-pass classes: a lowercase sigkill report, XLA\'s HBM report, Metal command buffer errors', () => {
  it('reads "worker died with signal sigkill" as host-oom', () => {
    expect(root('2021-03-03 10:00:00 UTC [Info] Prover worker died with signal sigkill. Restarting')).toMatchObject({ kind: 'host-oom', catchable: false });
  });

  it("reads XLA's HBM usage report without its status line as a catchable OOM on the TPU", () => {
    const log = ['Total hbm usage >= 31.20G:', '    reserved        530.00M', '    program          30.10G', '    arguments        600.00M', '', 'Program hbm requirement 30.10G:'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', catchable: true });
  });

  it('reads a Metal command buffer error other than out-of-memory as not-oom on mps', () => {
    expect(root('Error: command buffer exited with error status.\n\tThe Metal Performance Shaders operations encoded on it may not have completed.\n\t(IOAF code 2)')).toMatchObject({ kind: 'not-oom', platform: 'mps' });
  });
});

describe("a fragment of torchrun's failure table", () => {
  it('reads its traceback row alone as a launcher report (not-oom), with the rank of its entry', () => {
    expect(root('  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html')).toMatchObject({ kind: 'not-oom', catchable: false });
    const entry = ['[0]:', '  time      : 2024-01-01_00:00:00', '  host      : node7', '  rank      : 6 (local_rank: 2)', '  exitcode  : 1 (pid: 99)', '  error_file: <N/A>', '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html'];
    expect(root(entry.join('\n'))).toMatchObject({ kind: 'not-oom', rank: 6 });
  });
});

describe('user frames', () => {
  it("skips a Windows Python install's standard library and keeps code typed at the prompt (<stdin>)", () => {
    const win = 'Traceback (most recent call last):\n  File "app\\run.py", line 30, in main\n  File "c:\\tools\\python39\\lib\\json\\decoder.py", line 337, in decode\nMemoryError';
    expect(root(win)).toMatchObject({ userFrames: [{ file: 'app\\run.py', line: 30 }] });
    expect(root('Traceback (most recent call last):\n  File "<stdin>", line 3, in <module>\nMemoryError: memory allocation failed, allocating 4096 bytes')).toMatchObject({ userFrames: [{ file: '<stdin>', line: 3 }] });
  });
});

describe("IPython's MemoryError header", () => {
  it('takes the frames printed below the header when the exception line was cut', () => {
    const log = ['MemoryError                               Traceback (most recent call last)', '<ipython-input-4-0a1b2c3d4e5f> in <module>()', '----> 3 out = build(n)', '', '<ipython-input-2-f0e1d2c3b4a5> in build(n)', '      1 def build(n):', '----> 2     return [0] * n * n'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', userFrames: [{ file: '<ipython-input-2-f0e1d2c3b4a5>', line: 2 }, { file: '<ipython-input-4-0a1b2c3d4e5f>', line: 3 }] });
  });
});
