import { gunzipSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { loadNative } from '../../../native/index';
import type { SnapshotSummary } from '../protocol';

/** gzip's magic number: `.pickle.gz` snapshots are accepted as they are saved. */
function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Reads a snapshot file (gzip or not) and returns the native decoder's summary. */
export async function summarizeSnapshotFile(path: string): Promise<SnapshotSummary> {
  const raw = await readFile(path);
  const bytes = isGzip(raw) ? gunzipSync(raw) : raw;
  return loadNative().decodeSnapshotSummary(bytes);
}
