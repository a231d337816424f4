// The message classes blind batch 15 showed the engine did not know: parents reporting a child's end in
// forms no anchor read (Node's child_process 'exit' event, launchd's stop timeout, a wrapper's capitalized
// exit code), DataLoader's worker signal handler. Each test is a variant written for the class (other
// numbers, names and prefixes), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageText } from '../../server/src/triage/index';

const all = (text: string) => triageText(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe("a parent reporting a child's end", () => {
  it("reads Node's child_process 'exit' event and 'exited with code' as a launcher report (not-oom)", () => {
    expect(root('[lint] spawn flake8\n[lint] exit with code 2, signal null')).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root('2024-05-01 10:00:00 worker-3 exited with code: 17')).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
    // Exit code 0 is no failure.
    expect(all('[fmt] exit with code 0, signal null')).toEqual([]);
  });

  it("reads launchd's SIGKILL after a stop timeout as not-oom, not a memory kill", () => {
    const log = [
      '09:14:02.100 signaled service: Terminated: 15',
      '09:14:02.100 scheduling cleanup in 20 sec after sending Terminated: 15',
      '09:14:22.104 Service did not exit 20 seconds after SIGTERM. Sending SIGKILL.',
      '09:14:22.390 exited due to SIGKILL | ran for 4410ms',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
  });

  it("reads a wrapper's capitalized 'Exit code -9' as a host kill", () => {
    expect(root('assembler step "kmer_count" failed\n(Exit code -9)')).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
  });
});

describe("DataLoader's worker signal handler", () => {
  it("reads 'Unexpected segmentation fault / floating-point exception encountered in worker' as a native crash", () => {
    expect(root('epoch 3:  12%|#2        | 48/400\nERROR: Unexpected segmentation fault encountered in worker.')).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root('ERROR: Unexpected floating-point exception encountered in worker.')).toMatchObject({ kind: 'not-oom', catchable: false });
  });
});
