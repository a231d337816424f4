import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { formatBytes } from '../format';
import type { TriageReport, Verdict } from '../protocol';
import { triageText } from './index';

/** `headroom triage FILE... [--json]`: one report per file (a JSON array when several are given). */
export async function triageCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { json: { type: 'boolean' } }, allowPositionals: true });
  if (positionals.length === 0) {
    process.stderr.write('headroom triage: expected at least one log file.\n');
    return 2;
  }
  const reports: TriageReport[] = [];
  for (const file of positionals) reports.push(triageText(await readFile(file, 'utf8'), file));
  if (values.json) {
    process.stdout.write(JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2) + '\n');
  } else {
    process.stdout.write(reports.map(renderReport).join('\n'));
  }
  return 0;
}

const NUMBER_LABELS: ReadonlyArray<[keyof Verdict, string]> = [
  ['requestedBytes', 'requested'],
  ['deviceTotalBytes', 'device total'],
  ['freeBytes', 'free'],
  ['allocatedBytes', 'allocated by PyTorch'],
  ['reservedBytes', 'reserved by PyTorch'],
  ['reservedUnallocatedBytes', 'reserved but unallocated'],
  ['processInUseBytes', 'in use by this process'],
  ['allowedBytes', 'allowed'],
];

/** Renders a report for a terminal. */
export function renderReport(report: TriageReport): string {
  const out = [`${report.source}:`];
  if (report.verdicts.length === 0) out.push('  no out-of-memory failure or crash recognized');
  report.verdicts.forEach((v, i) => {
    out.push(`  [${i + 1}] ${v.kind} (${v.platform}${v.catchable ? ', catchable' : ''}): ${v.summary}`);
    if (v.causedBy !== undefined) out.push(`      consequence of [${v.causedBy + 1}]`);
    for (const [key, label] of NUMBER_LABELS) {
      const value = v[key];
      if (typeof value === 'number') out.push(`      ${label.padEnd(26)} ${formatBytes(value)}`);
    }
    out.push(`      ${v.explanation}`);
    for (const f of v.userFrames) out.push(`      at ${f.file}:${f.line} in ${f.function}`);
    v.fixes.forEach((fix, k) => out.push(`      fix ${k + 1}: ${fix.title}${fix.snippet ? `\n             ${fix.snippet}` : ''}`));
    for (const e of v.evidence) out.push(`      evidence line ${e.line}: ${e.text.length > 160 ? e.text.slice(0, 157) + '...' : e.text}`);
  });
  return out.join('\n') + '\n';
}
