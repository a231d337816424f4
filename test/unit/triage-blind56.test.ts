// The message classes blind batch 56 showed the engine did not read: vLLM's startup check naming the device
// ("Free memory on device cuda:1 (…)"), and SGLang's scheduler watchdog (with the Killed of the process tree it then kills).
// Each test is a variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];
const GiB = 1024 ** 3;

describe("vLLM's startup check", () => {
  it('reads the device it names with free, total and the budget asked for', () => {
    const line = '(EngineCore_DP0 pid=42) ValueError: Free memory on device cuda:2 (10.50/79.19 GiB) on startup is less than desired GPU memory utilization (0.9, 71.27 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.';
    expect(root(line)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 2, freeBytes: Math.round(10.5 * GiB), deviceTotalBytes: Math.round(79.19 * GiB), requestedBytes: Math.round(71.27 * GiB) });
  });
});

describe("SGLang's scheduler watchdog", () => {
  it('reads the watchdog as a hang of the first TP rank, and the Killed after it as its own kill', () => {
    const log = ['[2025-05-01 10:00:00 TP3] Watchdog timeout (self.watchdog_timeout=300)', '[2025-05-01 10:00:00 TP0] Watchdog timeout (self.watchdog_timeout=300)', 'Killed'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'hang', rank: 3 });
    expect(root(['[2025-05-01 10:00:00 DP1 TP5] Watchdog timeout (self.watchdog_timeout=600)'].join('\n'))).toMatchObject({ kind: 'hang', rank: 5 });
  });

  it('leaves a Killed far from any watchdog to the host', () => {
    expect(root('Loading weights...\nKilled')?.kind).toBe('host-oom');
  });
});
