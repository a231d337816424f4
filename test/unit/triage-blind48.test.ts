// The message classes blind batch 48 showed the engine did not read: Slurm's accounting killing a job over its memory limit
// (sizes in KiB), TensorFlow's StreamExecutor refusing an allocation over its limit, the shell's "Killed" through journald's
// prefix, and DataLoader's worker kill with a placeholder pid or no space. Each test is a variant written for the class
// (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('host kills', () => {
  it("reads Slurm's kill over the job's memory limit with its use and limit (KiB)", () => {
    const log = ['Epoch 3 | loss 0.41', 'slurmstepd: error: Job 4242 exceeded memory limit (1048576 > 524288), being killed', 'slurmstepd: error: *** JOB 4242 ON node7 CANCELLED AT 2024-01-01T10:00:00 ***'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'host-oom', platform: 'cpu', processInUseBytes: 1048576 * 1024, allowedBytes: 524288 * 1024 });
  });

  it("reads the shell's Killed through journald's prefix", () => {
    expect(root('Jan  2 10:00:00 host trainer[812]: Epoch 1 done\nJan  2 10:00:01 host trainer[812]: Killed')?.kind).toBe('host-oom');
  });

  it("reads DataLoader's worker kill with a placeholder pid or no space before 'is'", () => {
    expect(root('RuntimeError: DataLoader worker (pid ...) is killed by signal: Killed')?.kind).toBe('host-oom');
    expect(root('RuntimeError: DataLoader worker (pid 4242)is killed by signal: Killed')?.kind).toBe('host-oom');
  });
});

describe("TensorFlow's StreamExecutor", () => {
  it('reads an allocation refused over its limit with the request, device and limit', () => {
    const line = 'W tensorflow/stream_executor/stream_executor_pimpl.cc:490] Not enough memory to allocate 2147483648 on device 1 within provided limit. [used=0, limit=1073741824]';
    expect(root(line)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 1, requestedBytes: 2147483648, allowedBytes: 1073741824 });
  });
});

describe("a review of blind48's classes", () => {
  const verdicts = (text: string) => triageFailures(text, 'log').verdicts;

  it("does not read another program's Killed in a shared journal as the run's", () => {
    const log = ['Oct 19 20:40:01 gpu01 python[4242]: epoch 1/3 loss=0.51', 'Oct 19 20:42:29 gpu01 CRON[8578]: Killed', 'Oct 19 20:45:01 gpu01 python[4242]: epoch 3/3 loss=0.31', 'Oct 19 20:45:02 gpu01 python[4242]: Training finished.'];
    expect(verdicts(log.join('\n'))).toEqual([]);
  });

  it("does not read systemd's stop-timeout kill as a host OOM", () => {
    const log = ["Oct 19 20:42:28 gpu01 systemd[1]: train.service: State 'stop-sigterm' timed out. Killing.", 'Oct 19 20:42:28 gpu01 systemd[1]: train.service: Killing process 4242 (python) with signal SIGKILL.', 'Oct 19 20:42:29 gpu01 run.sh[4200]: Killed'];
    expect(root(log.join('\n'))?.kind).not.toBe('host-oom');
  });

  it("lets a real failure outrank TensorFlow's provided-limit warning", () => {
    const log = ['W tensorflow/stream_executor/stream_executor_pimpl.cc:490] Not enough memory to allocate 4294967296 on device 0 within provided limit. [used=0, limit=2147483648]', 'Traceback (most recent call last):', '  File "fit.py", line 3, in <module>', '    np.dot(a, b)', 'ValueError: shapes (3,) and (4,) not aligned'];
    expect(root(log.join('\n'))?.kind).toBe('not-oom');
  });

  it("reads Slurm's StepId form of the memory-limit kill", () => {
    expect(root('slurmstepd: error: StepId=4242.0 exceeded memory limit (2097152 > 1048576), being killed')).toMatchObject({ kind: 'host-oom', processInUseBytes: 2097152 * 1024 });
  });
});
