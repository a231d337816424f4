import { parseArgs } from 'node:util';
import { formatBytes } from '../format';
import { defaultSettings } from '../settings';
import { analyzeFile, resolveDevice, type AnalysisResult } from './analyze';

/** One file's report, exactly the JSON contract of `headroom analyze --json` (issue 4); lines are 1-based. */
export interface AnalyzeReport {
  file: string;
  plan: null | {
    device: string;
    capacityBytes: number;
    perCardBytes: number;
    breakdown: Record<string, number>;
    line: number;
  };
  findings: Array<{ rule: string; class: string; line: number; message: string; fix: string | null }>;
}

export function toReport(file: string, result: AnalysisResult): AnalyzeReport {
  const plan = result.plan;
  return {
    file,
    plan: plan
      ? {
          device: plan.device.name,
          capacityBytes: plan.device.capacityBytes,
          perCardBytes: plan.perCardBytes,
          breakdown: Object.fromEntries(plan.breakdown.map((it) => [it.key, it.bytes])),
          line: plan.line + 1,
        }
      : null,
    findings: result.findings.map((f) => ({ rule: f.rule, class: f.class, line: f.loc.line + 1, message: f.message, fix: f.fix })),
  };
}

function render(file: string, result: AnalysisResult): string {
  const out = [`${file}:`];
  const plan = result.plan;
  if (plan) {
    const pct = Math.round((plan.perCardBytes / plan.device.capacityBytes) * 100);
    out.push(`  plan (line ${plan.line + 1}): ~${formatBytes(plan.perCardBytes)}/card of ${formatBytes(plan.device.capacityBytes)} (${plan.device.name}), ${pct}%, peak at the ${plan.peakPhase}`);
    for (const it of plan.breakdown) out.push(`    ${it.label.padEnd(28)} ${formatBytes(it.bytes).padStart(12)}  ${it.note}`);
    if (plan.assumptions.length > 0) out.push(`    assumed: ${plan.assumptions.join('; ')}`);
  } else {
    out.push('  plan: none (no model with a known size)');
  }
  if (result.findings.length === 0) out.push('  no findings');
  for (const f of result.findings) {
    out.push(`  ${f.loc.line + 1}:${f.loc.character + 1} ${f.severity} ${f.rule} (${f.class}): ${f.message}`);
    if (f.fix) out.push(`      fix: ${f.fix}`);
  }
  return out.join('\n') + '\n';
}

/** `headroom analyze FILE... [--device NAME] [--json] [-- SCRIPT-ARGS...]` */
export async function analyzeCommand(args: string[]): Promise<number> {
  // After `--`: the arguments the script is run with (`-- --model_name_or_path X --per_device_train_batch_size 4`).
  const dashes = args.indexOf('--');
  const scriptArgs = dashes >= 0 ? args.slice(dashes + 1) : [];
  const { values, positionals } = parseArgs({
    args: dashes >= 0 ? args.slice(0, dashes) : args,
    options: { json: { type: 'boolean' }, device: { type: 'string' } },
    allowPositionals: true,
  });
  if (positionals.length === 0) {
    process.stderr.write('headroom analyze: expected at least one .py, .cpp, .cu or .cuh file.\n');
    return 2;
  }
  const device = resolveDevice(values.device ?? defaultSettings.device);
  const reports: AnalyzeReport[] = [];
  const texts: string[] = [];
  for (const file of positionals) {
    const result = await analyzeFile(file, device, scriptArgs);
    reports.push(toReport(file, result));
    texts.push(render(file, result));
  }
  process.stdout.write(values.json ? JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2) + '\n' : texts.join('\n'));
  return 0;
}
