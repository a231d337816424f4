import { parseArgs } from 'node:util';
import { summarizeSnapshotFile } from './summary';

/** `headroom snapshot FILE [--json]`: the native decoder's summary of a memory snapshot. */
export async function snapshotCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { json: { type: 'boolean' } }, allowPositionals: true });
  if (positionals.length !== 1) {
    process.stderr.write('headroom snapshot: expected one snapshot file (.pickle or .pickle.gz).\n');
    return 2;
  }
  const summary = await summarizeSnapshotFile(positionals[0]!);
  if (values.json) {
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    return 0;
  }
  const lines = [
    `${positionals[0]}:`,
    `  trace events ${summary.traceEvents} on ${summary.deviceCount} device(s), ${summary.segmentCount} segments at the end`,
    ...Object.entries(summary.actionCounts)
      .sort((a, b) => b[1] - a[1])
      .map(([action, count]) => `    ${action.padEnd(18)} ${count}`),
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}
