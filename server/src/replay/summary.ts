import { loadNative } from '../../../native/index';
import type { SnapshotSummary } from '../protocol';

/** Returns the native decoder's summary of a snapshot file (`.pickle` or `.pickle.gz`). */
export async function summarizeSnapshotFile(path: string): Promise<SnapshotSummary> {
  return loadNative().decodeSnapshotSummary(path);
}
