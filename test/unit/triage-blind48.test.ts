// The message classes blind batch 48 showed the engine did not read: Slurm's accounting killing a job over its memory limit
// (sizes in KiB), TensorFlow's StreamExecutor refusing an allocation over its limit, the shell's "Killed" through journald's
// prefix, and DataLoader's worker kill with a placeholder pid or no space. Each test is a variant written for the class
// (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageText } from '../../server/src/triage/index';

const root = (text: string) => triageText(text, 'log').verdicts[0];

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
