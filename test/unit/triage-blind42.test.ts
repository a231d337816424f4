// The one class of blind batch 42 filled after its first run (which stands as the session's untuned figure): the shell's
// kill report pasted with a full stop. A variant written for the class, not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

describe('host kills', () => {
  it('reads "Killed." alone on its line as the shell\'s kill report, and not a sentence that ends in the word', () => {
    expect(triageFailures('loading shards 3/8\nKilled.', 'log').verdicts[0]).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
    expect(triageFailures('I think the process was Killed.', 'log').verdicts).toEqual([]);
  });
});
