import { loadNative } from '../../../native/index';
import type { SnapshotSummary } from '../protocol';
import { readSnapshotBytes } from './snapshotFile';

/** Reads a snapshot file (gzip or not) and returns the native decoder's summary. */
export async function summarizeSnapshotFile(path: string): Promise<SnapshotSummary> {
  return loadNative().decodeSnapshotSummary(await readSnapshotBytes(path));
}
