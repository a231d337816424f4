import { parseArgs } from 'node:util';
import { formatBytes } from '../format';
import type { TriageReport, Verdict } from '../protocol';
import { triageFile } from './index';

/** `headroom triage FILE... [--json]`: one report per file (a JSON array when several are given). */
export async function triageCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { json: { type: 'boolean' } }, allowPositionals: true });
  if (positionals.length === 0) {
    process.stderr.write('headroom triage: expected at least one log file.\n');
    return 2;
  }
  const reports: TriageReport[] = [];
  let failed = 0;
  for (const file of positionals) {
    try {
      reports.push(await triageFile(file));
    } catch (err) {
      // One unreadable file does not stop the others; the exit code says something failed.
      failed++;
      const code = (err as { code?: string }).code;
      process.stderr.write(`headroom triage: ${file}: ${err instanceof Error ? err.message : String(err)}${code ? ` (${code})` : ''}\n`);
    }
  }
  if (values.json) {
    process.stdout.write(JSON.stringify(positionals.length === 1 ? reports[0] ?? null : reports, null, 2) + '\n');
  } else {
    process.stdout.write(reports.map(renderReport).join('\n'));
  }
  return failed > 0 ? 1 : 0;
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
  report.verdicts.forEach((v, i) => {
    out.push(`  [${i + 1}] ${v.kind} (${v.platform}${v.catchable ? ', catchable' : ''}): ${v.summary}`);
    if (v.causedBy !== undefined) out.push(`      consequence of [${v.causedBy + 1}]`);
    if (v.rank !== undefined || v.device !== undefined) {
      out.push(`      ${[v.rank !== undefined ? `rank ${v.rank}` : '', v.device !== undefined ? `device ${v.device}` : ''].filter(Boolean).join(', ')}`);
    }
    for (const [key, label] of NUMBER_LABELS) {
      const value = v[key];
      if (typeof value === 'number') out.push(`      ${label.padEnd(26)} ${formatBytes(value)}`);
    }
    out.push(`      ${v.explanation}`);
    for (const f of v.userFrames) out.push(`      at ${f.file}:${f.line} in ${f.function}`);
    v.fixes.forEach((fix, k) => {
      out.push(`      fix ${k + 1}: ${fix.title}`);
      for (const snippetLine of fix.snippet?.split('\n') ?? []) out.push(`             ${snippetLine}`);
    });
    for (const e of v.evidence) out.push(`      evidence line ${e.line}: ${e.text.length > 160 ? e.text.slice(0, 157) + '...' : e.text}`);
  });
  return out.join('\n') + '\n';
}
