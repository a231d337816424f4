// The message classes blind batch 24 (queries on training-failure wordings) showed the engine did not know. Each test is a
// variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageText } from '../../server/src/triage/index';

const all = (text: string) => triageText(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe('host kills in words no signature read', () => {
  it("reads the kernel's memory cgroup usage-against-limit lines (printed only in its OOM report) as a host OOM", () => {
    const log = [
      '[812334.120551] memory: usage 33554432kB, limit 33554432kB, failcnt 40918',
      '[812334.120553] memory+swap: usage 33554432kB, limit 9007199254740988kB, failcnt 0',
      '[812334.120554] kmem: usage 210344kB, limit 9007199254740988kB, failcnt 0',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root('swap: usage 0kB, limit 0kB, failcnt 0')?.kind).toBe('host-oom');
  });

  it('reads a log that ends on a bare SIGKILL line as a host kill, and not one that goes on after it', () => {
    const log = ['epoch 2 step 800 rss 41.2 GB', 'epoch 2 step 900 rss 47.9 GB', '  SIGKILL  ', ''].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root(['worker 3: SIGKILL', 'SIGKILL', 'restarting worker 3', 'worker 3 ready'].join('\n'))?.kind).not.toBe('host-oom');
  });
});
