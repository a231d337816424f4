/**
 * Triage: log text -> verdicts. The per-platform message shapes live in signatures/ (one file per
 * platform); engine.ts streams the text past them; verdicts.ts merges repeats and orders cascades.
 * Entry points: {@link triageText} for text in memory (editor selections, run output) and
 * {@link triageFile}/{@link triageStream} for logs of any size, read without loading them whole.
 */
import { createReadStream } from 'node:fs';
import type { TriageReport } from '../protocol';
import { LogDecoder, TriageInputError } from './decode';
import { TriageEngine, toByteString } from './engine';

export { TriageInputError } from './decode';

/** Triages text already in memory. */
export function triageText(text: string, source: string): TriageReport {
  const engine = new TriageEngine();
  engine.push(toByteString(text));
  return { source, verdicts: engine.finish().verdicts() };
}

/** Triages a stream of byte (or string) chunks, holding only a bounded window of it. */
export async function triageStream(chunks: AsyncIterable<Uint8Array | string>, source: string): Promise<TriageReport> {
  const engine = new TriageEngine();
  const decoder = new LogDecoder();
  for await (const chunk of chunks) engine.push(typeof chunk === 'string' ? toByteString(chunk) : decoder.decode(chunk));
  engine.push(decoder.end());
  return { source, verdicts: engine.finish().verdicts() };
}

/** Chunk size for reading logs from disk: large enough that per-chunk costs vanish. */
const READ_CHUNK_BYTES = 1024 * 1024;

/** Triages a log file by streaming it. Errors carry a `code` (ENOENT, EISDIR, BINARY_INPUT, ...). */
export async function triageFile(path: string, source = path): Promise<TriageReport> {
  const stream = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
  try {
    return await triageStream(stream, source);
  } catch (err) {
    if (err instanceof TriageInputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code) throw Object.assign(new Error(`Cannot read ${path}: ${(err as Error).message}`), { code });
    throw new TriageInputError(`Cannot read ${path}: ${String(err)}`, 'READ_FAILED');
  } finally {
    stream.destroy();
  }
}
