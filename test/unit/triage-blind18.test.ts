// The message classes blind batch 18 showed the engine did not know: the shell's report of a SIGBUS as a
// line of its own. Each test is a variant written for the class (other numbers, names and prefixes), not
// a corpus log.
import { describe, expect, it } from 'vitest';
import { triageText } from '../../server/src/triage/index';

const all = (text: string) => triageText(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe('native crashes the tail pass reads', () => {
  it("reads the shell's 'Bus error' line (SIGBUS) as a native crash, not an OOM", () => {
    const log = ['loading shards 3/8', 'Bus error (core dumped)'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root('epoch 0 step 12\nBus error')).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
    // Some shells and pastes write it in lower case, as a line of its own.
    expect(root('writing cache\nbus error (core dumped)')).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
    // Prose that mentions a bus error is not a crash report.
    expect(all('the PCIe bus error counter stays at zero')).toEqual([]);
  });
});
