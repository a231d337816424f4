/**
 * Scores triage against the labelled corpus in test/fixtures/logs (index.json). Used by the
 * accuracy test and by bench/triage-accuracy.mjs, which prints the table in docs/TRIAGE.md.
 * A log counts as right for kind when the first (root) verdict has the labelled kind; every
 * labelled number, device, rank and user frame is checked against that same verdict.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Verdict } from '../../server/src/protocol';
import { triageFile } from '../../server/src/triage/index';
import { NUMBER_FIELDS } from '../../server/src/triage/signatures/types';

export interface CorpusEntry {
  file: string;
  sourceUrl: string;
  kind: Verdict['kind'];
  platform: Verdict['platform'];
  catchable: boolean;
  split: 'train' | 'holdout';
  /** Set on logs collected after the engine was frozen (the blind set). */
  collected?: string;
  device?: number;
  rank?: number;
  userFrame?: { file: string; line: number };
  [field: string]: unknown;
}

export interface Tally {
  right: number;
  total: number;
}

export interface CorpusScore {
  logs: number;
  kind: Tally;
  platform: Tally;
  catchable: Tally;
  /** Every labelled number, device, rank and user frame. */
  exact: Tally;
  perKind: Record<string, Tally>;
  misses: string[];
}

export const CORPUS_DIR = path.join(__dirname, '..', 'fixtures', 'logs');

export function loadCorpus(): CorpusEntry[] {
  return JSON.parse(readFileSync(path.join(CORPUS_DIR, 'index.json'), 'utf8')) as CorpusEntry[];
}

/**
 * The set a log belongs to: `train` and `holdout` for the first 125 logs, `blind` and `blind2` for the two
 * batches collected after the engine was first frozen, and `blindN` for each later rank-order sample
 * (`collected: "batch-N"`).
 */
export function splitOf(entry: CorpusEntry): string {
  if (entry.collected === undefined) return entry.split;
  if (entry.collected === 'after-engine-freeze') return 'blind';
  if (entry.collected === 'batch-2-after-blind-fixes') return 'blind2';
  const batch = /^batch-(\d+)$/.exec(entry.collected);
  if (batch === null) throw new Error(`${entry.file}: unknown "collected" value ${JSON.stringify(entry.collected)}`);
  return `blind${batch[1]}`;
}

/** Every set in the corpus, in the order the sets were collected. */
export function splitsOf(corpus: readonly CorpusEntry[]): string[] {
  const order = (split: string): number => (split === 'train' ? -2 : split === 'holdout' ? -1 : Number(split.slice(5) || 1));
  return [...new Set(corpus.map(splitOf))].sort((a, b) => order(a) - order(b));
}

const tally = (): Tally => ({ right: 0, total: 0 });
const count = (t: Tally, ok: boolean): void => {
  t.total++;
  if (ok) t.right++;
};

export async function scoreCorpus(entries: readonly CorpusEntry[]): Promise<CorpusScore> {
  const score: CorpusScore = { logs: entries.length, kind: tally(), platform: tally(), catchable: tally(), exact: tally(), perKind: {}, misses: [] };
  for (const entry of entries) {
    const report = await triageFile(path.join(CORPUS_DIR, entry.file), entry.file);
    const v = report.verdicts[0];
    const perKind = (score.perKind[entry.kind] ??= tally());
    const kindOk = v?.kind === entry.kind;
    count(score.kind, kindOk);
    count(perKind, kindOk);
    count(score.platform, v?.platform === entry.platform);
    count(score.catchable, v?.catchable === entry.catchable);
    const wrong: string[] = [];
    if (!kindOk) wrong.push(`kind ${v?.kind ?? 'none'}`);
    if (v?.platform !== entry.platform) wrong.push(`platform ${v?.platform ?? 'none'}`);
    for (const field of [...NUMBER_FIELDS, 'device', 'rank'] as const) {
      if (entry[field] === undefined) continue;
      const ok = v?.[field] === entry[field];
      count(score.exact, ok);
      if (!ok) wrong.push(`${field} ${String(v?.[field])} != ${String(entry[field])}`);
    }
    if (entry.userFrame) {
      const frame = v?.userFrames[0];
      const ok = frame !== undefined && sameFile(frame.file, entry.userFrame.file) && frame.line === entry.userFrame.line;
      count(score.exact, ok);
      if (!ok) wrong.push(`userFrame ${frame ? `${frame.file}:${frame.line}` : 'none'}`);
    }
    if (wrong.length > 0) score.misses.push(`${entry.file}: ${wrong.join('; ')}`);
  }
  return score;
}

/**
 * A labelled frame file is the printed path or its trailing components, with either separator:
 * "main.py" labels `D:\\Project\\main.py` and `/mnt/x/main.py` (the editor maps frames to workspace
 * files by the same suffix rule, see workspaceFrames.ts).
 */
function sameFile(printed: string, labelled: string): boolean {
  const path = printed.replace(/\\/g, '/');
  const label = labelled.replace(/\\/g, '/');
  return path === label || path.endsWith(`/${label}`);
}

export const ratio = (t: Tally): number => (t.total === 0 ? 1 : t.right / t.total);
