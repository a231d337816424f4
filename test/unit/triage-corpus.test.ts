import { describe, expect, it } from 'vitest';
import { loadCorpus, ratio, scoreCorpus } from './triage-corpus-score';

/**
 * Accuracy on the labelled corpus of real logs (test/fixtures/logs). The floors are the measured
 * scores (docs/TRIAGE.md); a change that lowers either kind or exact-number accuracy fails here.
 * The holdout split was not used to tune the signatures.
 */
const FLOORS = {
  train: { kind: 1, exact: 1 },
  holdout: { kind: 40 / 41, exact: 1 },
};

describe('triage accuracy on the labelled corpus', () => {
  const corpus = loadCorpus();

  it('has at least 60 logs across every platform and kind', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(60);
    expect(new Set(corpus.map((e) => e.platform))).toEqual(new Set(['cuda', 'rocm', 'xla-tpu', 'mps', 'xpu', 'gaudi', 'npu', 'cpu']));
    expect(new Set(corpus.map((e) => e.kind))).toEqual(
      new Set(['catchable-oom', 'fragmentation', 'runtime-abort', 'collective-oom', 'hang', 'host-oom', 'not-oom']),
    );
    for (const entry of corpus) expect(entry.sourceUrl).toMatch(/^https:\/\//);
  });

  for (const split of ['train', 'holdout'] as const) {
    it(`keeps kind and exact-number accuracy on the ${split} split`, async () => {
      const score = await scoreCorpus(corpus.filter((e) => e.split === split));
      const report = score.misses.join('\n');
      expect(ratio(score.kind), report).toBeGreaterThanOrEqual(FLOORS[split].kind);
      expect(ratio(score.exact), report).toBeGreaterThanOrEqual(FLOORS[split].exact);
    });
  }
});
