// The message classes blind batch 52 showed the engine did not read: torch.distributed's store-based barrier when not every
// rank arrives, Windows' commit limit (WinError 1455) and E_OUTOFMEMORY in an exception, a child killed by SIGKILL as Go
// reports it ("signal: killed"), a container's exitCode 137 in a pod's YAML, the shell's Killed after mmcv's progress
// bar, and Paddle 1.x's allocator check. Each test is a variant written for the class (other numbers, names and paths),
// not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe("torch.distributed's store-based barrier", () => {
  it('reads the timeout as a hang of the rank that reported it first', () => {
    const timeout = (rank: number) => `RuntimeError: Timed out initializing process group in store based barrier on rank: ${rank}, for key: store_based_barrier_key:1 (world_size=16, worker_count=12, timeout=0:30:00)`;
    const log = [timeout(9), 'Traceback (most recent call last):', '  File "/opt/job/pretrain.py", line 40, in <module>', '    dist.init_process_group("nccl")', timeout(3)];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'hang', catchable: false, rank: 9 });
  });

  it('reads the waiting lines of a barrier that never completed as a hang', () => {
    const waiting = 'INFO:torch.distributed.distributed_c10d:Waiting in store based barrier to initialize process group for rank: 2, key: store_based_barrier_key:1 (world_size=4, worker_count=3, timeout=0:30:00)';
    expect(root([waiting, waiting, waiting].join('\n'))).toMatchObject({ kind: 'hang', rank: 2 });
  });

  it('gives way to a failure the hot scan reads', () => {
    const log = ['Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 (world_size=2, worker_count=1, timeout=0:30:00)', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'];
    expect(root(log.join('\n'))?.kind).toBe('catchable-oom');
  });
});

describe("Windows' memory statuses", () => {
  it('reads WinError 1455 in any language as the host running out of commit, on the host', () => {
    const dll = 'Error loading "C:\\\\venv\\\\lib\\\\site-packages\\\\torch\\\\lib\\\\cudnn_ops_infer64_8.dll" or one of its dependencies.';
    expect(root(`OSError: [WinError 1455] The paging file is too small for this operation to complete. ${dll}`)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true });
    expect(root(`Using device cuda:0 (NVIDIA GeForce RTX 3060)\nOSError: [WinError 1455] 页面文件太小，无法完成操作。 ${dll}`)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });

  it('reads E_OUTOFMEMORY in an exception as an OOM, and no other HRESULT', () => {
    const log = ['[W dml_heap_allocator.cc:97] DML allocator out of memory!', 'Traceback (most recent call last):', '  File "/home/u/dml/run.py", line 12, in <module>', '    x = x.to(dml)', 'RuntimeError: Unknown error -2147024882'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', catchable: true, userFrames: [{ file: '/home/u/dml/run.py', line: 12 }] });
    expect(root(log.join('\n').replace('-2147024882', '-2147024809'))?.kind).toBe('not-oom');
  });
});

describe('kills told by a parent', () => {
  it('reads Go\'s "signal: killed" as a host kill', () => {
    expect(root('time=2025-01-01T10:00:00Z level=ERROR source=sched.go:456 msg="error loading llama server" error="llama runner process has terminated: signal: killed"')?.kind).toBe('host-oom');
    expect(root('Error: llama runner process has terminated: signal: killed')?.kind).toBe('host-oom');
  });

  it("reads a pod's exitCode 137 in its YAML", () => {
    expect(root('    lastState:\n      terminated:\n        exitCode: 137\n        reason: Error')?.kind).toBe('host-oom');
  });

  it("reads the shell's Killed right after mmcv's progress bar", () => {
    expect(root('[>>>>>>>>>>>>>>                 ] 2044/5000, 3.1 task/s, elapsed: 660s, ETA:   954sKilled')?.kind).toBe('host-oom');
  });
});

describe("Paddle 1.x's allocator check", () => {
  it('reads the request and what was available', () => {
    expect(root('paddle.fluid.core.EnforceNotMet: enforce allocating <= available failed, 2147483648 > 536870912')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 2147483648, freeBytes: 536870912 });
  });
});
