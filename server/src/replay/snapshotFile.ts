import { readFile } from 'node:fs/promises';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';

const gunzipAsync = promisify(gunzip);

/** gzip's magic number: `.pickle.gz` snapshots are accepted as they are saved. */
function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Reads a memory snapshot file, decompressing it when it is gzip (by content, not by name). */
export async function readSnapshotBytes(path: string): Promise<Uint8Array> {
  const raw = await readFile(path);
  return isGzip(raw) ? gunzipAsync(raw) : raw;
}
