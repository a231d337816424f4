/**
 * Triage: log text -> verdicts. The per-platform message shapes live in signatures/ (one file per
 * platform); engine.ts streams the text past them; verdicts.ts merges repeats and orders cascades.
 * Entry points: {@link triageText} for text in memory (editor selections, run output) and
 * {@link triageFile}/{@link triageStream} for logs of any size, read without loading them whole.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { TriageReport } from '../protocol';
import { LogDecoder, TriageInputError } from './decode';
import { TriageEngine } from './engine';

export { TriageInputError } from './decode';

/** Triages text already in memory. */
export function triageText(text: string, source: string): TriageReport {
  const engine = new TriageEngine();
  engine.pushText(text);
  return { source, verdicts: engine.finish() };
}

/** Triages a stream of byte (or string) chunks, holding only a bounded window of it. */
export async function triageStream(chunks: AsyncIterable<Uint8Array | string>, source: string): Promise<TriageReport> {
  const engine = new TriageEngine();
  const decoder = new LogDecoder();
  for await (const chunk of chunks) {
    if (typeof chunk === 'string') engine.pushText(chunk);
    else engine.push(decoder.decode(chunk));
  }
  engine.push(decoder.end());
  return { source, verdicts: engine.finish() };
}

/** Bytes per read from disk: few round trips to the I/O threads; the engine cuts them into pieces. */
const READ_CHUNK_BYTES = 1024 * 1024;

/** Triages a log file by streaming it. Errors carry a `code` (ENOENT, EISDIR, BINARY_INPUT, ...). */
export async function triageFile(path: string, source = path): Promise<TriageReport> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    throw withCode(err, path);
  }
  try {
    return await triageHandle(handle, source);
  } catch (err) {
    if (err instanceof TriageInputError) throw err;
    throw withCode(err, path);
  } finally {
    await handle.close();
  }
}

/**
 * Reads the file into a few recycled buffers: a buffer is reused once the engine no longer holds
 * any of its bytes (it keeps recent input as history), so a long log allocates almost nothing.
 */
async function triageHandle(handle: FileHandle, source: string): Promise<TriageReport> {
  const engine = new TriageEngine();
  const decoder = new LogDecoder();
  const spare: Buffer[] = [];
  const held: Array<{ buffer: Buffer; end: number }> = [];
  for (;;) {
    while (held.length > 0 && held[0]!.end <= engine.releasedBefore) spare.push(held.shift()!.buffer);
    const buffer = spare.pop() ?? Buffer.allocUnsafe(READ_CHUNK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    const bytes = decoder.decode(buffer.subarray(0, bytesRead));
    engine.push(bytes);
    // UTF-16 input is transcoded into new buffers; only pass-through bytes point into `buffer`.
    if (bytes.buffer === buffer.buffer) held.push({ buffer, end: engine.inputLength });
    else spare.push(buffer);
  }
  engine.push(decoder.end());
  return { source, verdicts: engine.finish() };
}

function withCode(err: unknown, path: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code) return Object.assign(new Error(`Cannot read ${path}: ${(err as Error).message}`), { code });
  return new TriageInputError(`Cannot read ${path}: ${String(err)}`, 'READ_FAILED');
}
