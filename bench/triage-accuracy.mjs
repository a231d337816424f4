// Prints triage accuracy on the labelled corpus (test/fixtures/logs) as the markdown tables of
// docs/TRIAGE.md. Usage: node bench/triage-accuracy.mjs [train|holdout|blind|blind2|blind3|blind4|blind5|blind6|blind7|all] [--misses]
// holdout: set aside when the corpus was built; blind: collected after the engine was frozen;
// blind2: a second batch collected after the fixes the first blind run prompted; blind3: a third
// batch (files 200-264) collected after those; blind4: a fourth (files 300-339) after blind3's fixes;
// blind5: a fifth (files 400-439), collected while blind4's gaps were being fixed and scored after;
// blind6: a sixth (files 500-520), scored after blind5's fixes; blind7: a seventh (files 600-621), scored
// after the pass over leftover message classes and left untuned.
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
  const { loadCorpus, scoreCorpus, ratio } = await import(pathToFileURL(outfile).href);
  const corpus = loadCorpus();
  const pct = (t) => `${(100 * ratio(t)).toFixed(1)}% (${t.right}/${t.total})`;
  const splits = split === 'all' ? ['train', 'holdout', 'blind', 'blind2', 'blind3', 'blind4', 'blind5', 'blind6', 'blind7', 'blind8', 'blind9', 'blind10', 'blind11', 'blind12', 'blind13', 'blind14', 'blind15', 'blind16', 'blind17', 'blind18', 'blind19', 'blind20', 'blind21', 'blind22', 'blind23', 'blind24', 'blind25', 'blind26', 'blind27', 'blind28', 'blind29'] : [split];
  const batches = { blind: 'after-engine-freeze', blind2: 'batch-2-after-blind-fixes', blind3: 'batch-3', blind4: 'batch-4', blind5: 'batch-5', blind6: 'batch-6', blind7: 'batch-7', blind8: 'batch-8', blind9: 'batch-9', blind10: 'batch-10', blind11: 'batch-11', blind12: 'batch-12', blind13: 'batch-13', blind14: 'batch-14', blind15: 'batch-15', blind16: 'batch-16', blind17: 'batch-17', blind18: 'batch-18', blind19: 'batch-19', blind20: 'batch-20', blind21: 'batch-21', blind22: 'batch-22', blind23: 'batch-23', blind24: 'batch-24', blind25: 'batch-25', blind26: 'batch-26', blind27: 'batch-27', blind28: 'batch-28', blind29: 'batch-29' };
  const inSplit = (e, s) => (s in batches ? e.collected === batches[s] : e.split === s && e.collected === undefined);
  for (const s of splits) {
    const score = await scoreCorpus(corpus.filter((e) => inSplit(e, s)));
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
