import { parseArgs } from 'node:util';
import { loadNative } from '../../../native/index';
import { formatBytes, parseSize } from '../format';
import { replaySnapshotFile, toReplayJson, type ReplayVariantJson } from './replay';
import { summarizeSnapshotFile } from './summary';

/**
 * `headroom snapshot FILE [--json]`: the native decoder's summary of a memory snapshot.
 * `headroom snapshot FILE --export-memory-viz OUT [--last N]`: the snapshot rewritten as a
 * protocol-4 pickle that pytorch.org/memory_viz opens, optionally with only the last N trace entries.
 */
export async function snapshotCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { json: { type: 'boolean' }, 'export-memory-viz': { type: 'string' }, last: { type: 'string' } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) {
    process.stderr.write('headroom snapshot: expected one snapshot file (.pickle or .pickle.gz).\n');
    return 2;
  }
  const exportTo = values['export-memory-viz'];
  if (values.last !== undefined && exportTo === undefined) {
    process.stderr.write('headroom snapshot: --last applies to --export-memory-viz.\n');
    return 2;
  }
  if (exportTo !== undefined) {
    const last = values.last === undefined ? 0 : Number(values.last);
    if (!Number.isSafeInteger(last) || last < 0) {
      process.stderr.write(`headroom snapshot: --last expects a number of trace entries, got "${values.last}".\n`);
      return 2;
    }
    const written = await loadNative().exportSnapshot(positionals[0]!, exportTo, { maxEvents: last });
    process.stdout.write(
      values.json
        ? JSON.stringify({ path: exportTo, bytes: written.bytes, events: written.events }) + '\n'
        : `${exportTo}: ${written.events} trace entries, ${formatBytes(written.bytes)}; open it at https://pytorch.org/memory_viz\n`,
    );
    return 0;
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

/** Reads `--capacity`: a byte count, or a size with a unit ("6GiB", "80 GB" = 1024-based). */
export function parseCapacity(text: string): number | undefined {
  const plain = text.trim();
  if (/^\d+$/.test(plain)) {
    const n = Number(plain);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  }
  const m = /^(\d+(?:\.\d+)?)\s*([A-Za-z]+)$/.exec(plain);
  if (!m) return undefined;
  const n = parseSize(m[1]!, m[2]!);
  return n !== undefined && n > 0 ? n : undefined;
}

function describeVariant(v: ReplayVariantJson, fit: boolean): string[] {
  const name = v.settings === '' ? '(PyTorch defaults)' : v.settings;
  const lines = [
    fit
      ? `${name}: fits in ${formatBytes(v.capacityBytes ?? 0)} (smallest multiple of ${formatBytes(v.fitGranularityBytes ?? 0)} without an OOM)`
      : `${name}${v.capacityBytes !== null ? `, capacity ${formatBytes(v.capacityBytes)}` : ''}:`,
    `  reserved peak  ${formatBytes(v.reservedPeakBytes)}`,
    `  allocated peak ${formatBytes(v.allocatedPeakBytes)}  (${formatBytes(v.fragmentationBytes)} more was reserved at that moment)`,
    `  device calls   ${v.segmentAllocs} allocs, ${v.segmentFrees} frees, ${v.allocRetries} retries after freeing the cache`,
  ];
  if (v.firstOom) {
    const site = v.firstOom.frames.find((f) => !f.filename.includes('/site-packages/')) ?? v.firstOom.frames[0];
    lines.push(
      `  ${v.ooms} OOM(s); first at request #${v.firstOom.allocIndex} (trace entry ${v.firstOom.eventIndex}), ${formatBytes(v.firstOom.sizeBytes)}` +
        (site ? ` at ${site.filename}:${site.line} in ${site.name}` : ''),
    );
  } else {
    lines.push('  no OOM');
  }
  return lines;
}

/**
 * `headroom replay SNAPSHOT [--settings S]... [--capacity BYTES] [--json]` and
 * `headroom replay --fit SNAPSHOT [--settings S]... [--json]`.
 */
export async function replayCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      settings: { type: 'string', multiple: true },
      capacity: { type: 'string' },
      fit: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (positionals.length !== 1) {
    process.stderr.write('headroom replay: expected one snapshot file (.pickle or .pickle.gz).\n');
    return 2;
  }
  let capacityBytes: number | undefined;
  if (values.capacity !== undefined) {
    capacityBytes = parseCapacity(values.capacity);
    if (capacityBytes === undefined) {
      process.stderr.write(`headroom replay: --capacity expects a byte count such as 6004395212 or 6GiB, got "${values.capacity}".\n`);
      return 2;
    }
    if (values.fit) {
      process.stderr.write('headroom replay: --fit searches for the capacity; leave out --capacity.\n');
      return 2;
    }
  }
  const fit = values.fit ?? false;
  const report = await replaySnapshotFile(positionals[0]!, { settings: values.settings ?? [], capacityBytes, fit });
  const json = toReplayJson(report, fit);
  if (values.json) {
    process.stdout.write(JSON.stringify(json, null, 2) + '\n');
    return 0;
  }
  const ownSettings = json.source.settings === '' ? 'PyTorch defaults' : json.source.settings;
  const lines = [
    `${positionals[0]}: ${json.source.events} trace entries on ${json.source.devices} device(s), recorded with ${ownSettings}`,
    ...json.source.notes.map((n) => `  note: ${n}`),
    ...json.variants.flatMap((v) => describeVariant(v, fit)),
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}
