/**
 * Plan vs GPU truth: analyzes each measured configuration's script (with that run's arguments as
 * the argparse defaults), and prints the planned allocated peak next to the measured peak and to
 * DeepSpeed's and accelerate's model-state estimators (formulas in FACTS.md section 4).
 *
 *   npx esbuild bench/analysis-truth/compare.ts --bundle --platform=node --outfile=/tmp/compare.cjs && node /tmp/compare.cjs
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { analyzeDocument, resolveDevice } from '../../server/src/analysis/analyze';
import { transformerParams } from '../../server/src/analysis/models';
import { ParsedDocument } from '../../server/src/analysis/parser';

interface Config {
  name: string;
  script: string;
  args: Record<string, string | number>;
}

const root = process.cwd();
const configs = JSON.parse(readFileSync(path.join(root, 'bench/analysis-truth/configs.json'), 'utf8')) as Config[];
const measured = JSON.parse(readFileSync(path.join(root, 'bench/analysis-truth/measured-h200-2026-11-30.json'), 'utf8')) as Record<string, { max_allocated: number; params: number }>;

/** The script with `--key` defaults replaced by the run's values (what the run passed on its command line). */
function withDefaults(text: string, args: Config['args']): string {
  let out = text;
  for (const [key, value] of Object.entries(args)) {
    const marker = `"--${key}",`;
    const at = out.indexOf(marker);
    if (at < 0) throw new Error(`no --${key} argument in the script`);
    const defAt = out.indexOf('default=', at);
    const end = out.indexOf(')', defAt);
    out = out.slice(0, defAt) + `default=${typeof value === 'string' ? JSON.stringify(value) : value}` + out.slice(end);
  }
  return out;
}

const GB = 1e9;
const pct = (x: number, truth: number): string => `${x >= truth ? '+' : ''}${(((x - truth) / truth) * 100).toFixed(1)}%`;

async function main(): Promise<void> {
  const device = resolveDevice('H200');
  const rows: string[] = [
    '| run | measured peak allocated | Headroom plan | error | DeepSpeed ZeRO-2 est. (1 GPU) | error | DeepSpeed ZeRO-3 est. | error | accelerate (bf16 row) | error | accelerate (fp32 row) | error |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const json: Record<string, unknown> = {};
  for (const cfg of configs) {
    const truth = measured[cfg.name]?.max_allocated;
    if (truth === undefined) continue;
    const file = path.join(root, 'test/fixtures/scripts', cfg.script);
    const doc = await ParsedDocument.create('python', withDefaults(readFileSync(file, 'utf8'), cfg.args));
    const result = analyzeDocument(doc, file, device);
    doc.dispose();
    const plan = result.plan;
    const shape = result.facts?.model?.value.shape;
    if (!plan || shape?.kind !== 'transformer') throw new Error(`${cfg.name}: no plan`);
    const P = plan.params;
    const split = transformerParams(shape);
    const largestLayer = Math.max(split.perLayer, split.embedding);
    const ds2 = 4 * P + 16 * P; // estimate_zero2_model_states_mem_needs, 1 GPU, no offload
    const ds3 = 4 * largestLayer + 18 * P; // estimate_zero3_model_states_mem_needs, 1 GPU, no offload
    const accBf16 = 8 * P;
    const accFp32 = 16 * P;
    rows.push(`| ${cfg.name} | ${(truth / GB).toFixed(2)} GB | ${(plan.allocatedPeakBytes / GB).toFixed(2)} GB | ${pct(plan.allocatedPeakBytes, truth)} | ${(ds2 / GB).toFixed(2)} GB | ${pct(ds2, truth)} | ${(ds3 / GB).toFixed(2)} GB | ${pct(ds3, truth)} | ${(accBf16 / GB).toFixed(2)} GB | ${pct(accBf16, truth)} | ${(accFp32 / GB).toFixed(2)} GB | ${pct(accFp32, truth)} |`);
    json[cfg.name] = {
      measured: truth, plan: plan.allocatedPeakBytes, perCard: plan.perCardBytes, phase: plan.peakPhase, params: P, measuredParams: measured[cfg.name]?.params,
      breakdown: Object.fromEntries(plan.breakdown.map((b) => [b.key, b.bytes])), deepspeedZero2: ds2, deepspeedZero3: ds3, accelerateBf16: accBf16, accelerateFp32: accFp32,
    };
  }
  process.stdout.write(rows.join('\n') + '\n\n' + JSON.stringify(json, null, 1) + '\n');
}

void main();
