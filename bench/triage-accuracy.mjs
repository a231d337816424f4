// Prints triage accuracy on the labelled corpus (test/fixtures/logs) as the markdown tables of
// docs/TRIAGE.md. Usage: node bench/triage-accuracy.mjs [all|train|holdout|blind|blind2|blindN] [--misses]
// The sets are named in test/unit/triage-corpus-score.ts (splitOf); docs/TRIAGE.md says how each was collected.
import * as esbuild from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const split = process.argv[2] ?? 'all';
const showMisses = process.argv.includes('--misses');
const dir = mkdtempSync(path.join(tmpdir(), 'headroom-accuracy-'));
const outfile = path.join(dir, 'score.cjs');
try {
  await esbuild.build({
    entryPoints: ['test/unit/triage-corpus-score.ts'],
    bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, logLevel: 'warning',
    define: { __dirname: JSON.stringify(path.resolve('test/unit')) },
  });
  const { loadCorpus, scoreCorpus, ratio, splitOf, splitsOf } = await import(pathToFileURL(outfile).href);
  const corpus = loadCorpus();
  const pct = (t) => `${(100 * ratio(t)).toFixed(1)}% (${t.right}/${t.total})`;
  const splits = split === 'all' ? splitsOf(corpus) : [split];
  for (const s of splits) {
    const score = await scoreCorpus(corpus.filter((e) => splitOf(e) === s));
    console.log(`\n### ${s} (${score.logs} logs)\n`);
    console.log('| measure | accuracy |\n| --- | --- |');
    console.log(`| kind (root verdict) | ${pct(score.kind)} |`);
    console.log(`| platform | ${pct(score.platform)} |`);
    console.log(`| catchable | ${pct(score.catchable)} |`);
    console.log(`| exact numbers, device, rank, user frame | ${pct(score.exact)} |`);
    console.log('\n| kind | accuracy |\n| --- | --- |');
    for (const [kind, t] of Object.entries(score.perKind).sort()) console.log(`| ${kind} | ${pct(t)} |`);
    if (showMisses) for (const m of score.misses) console.log(`- ${m}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
