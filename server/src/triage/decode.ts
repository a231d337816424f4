/**
 * Input bytes -> the UTF-8 bytes the scanner reads (see engine.ts). Logs arrive as UTF-8 (with or
 * without BOM), as UTF-16 from Windows shells (`> log.txt` in PowerShell 5), or as something that
 * is not a log at all. UTF-8 passes through untouched and is decoded line by line later, where
 * invalid sequences become U+FFFD, never an error: a stray Latin-1 byte must not hide the OOM line
 * after it. UTF-16 is transcoded to UTF-8. Binary input is refused with a clear error instead of
 * being scanned for a minute and reported as "nothing found".
 */
import { TextDecoder } from 'node:util';

/** An input triage cannot read, with a stable `code` for the CLI and the LSP client. */
export class TriageInputError extends Error {
  constructor(
    message: string,
    readonly code: 'BINARY_INPUT' | 'READ_FAILED',
  ) {
    super(message);
    this.name = 'TriageInputError';
  }
}

/** Share of control bytes in the first block above which the input is taken for binary. */
const BINARY_CONTROL_SHARE = 0.1;
const SNIFF_BYTES = 64 * 1024;

const MAGIC: ReadonlyArray<[number[], string]> = [
  [[0x1f, 0x8b], 'a gzip file (a compressed memory snapshot? try "headroom snapshot")'],
  [[0x50, 0x4b, 0x03, 0x04], 'a zip archive'],
  [[0x7f, 0x45, 0x4c, 0x46], 'an ELF binary'],
  [[0x80, 0x04], 'a Python pickle (a memory snapshot? try "headroom snapshot")'],
  [[0x80, 0x05], 'a Python pickle (a memory snapshot? try "headroom snapshot")'],
  [[0x80, 0x02], 'a Python pickle'],
];

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

function binaryReason(bytes: Uint8Array): string | undefined {
  for (const [magic, what] of MAGIC) if (startsWith(bytes, magic)) return what;
  const n = Math.min(bytes.length, SNIFF_BYTES);
  if (n === 0) return undefined;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    // Tab, LF, VT, FF, CR and ESC (colour codes) are text.
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0b && b !== 0x0c && b !== 0x0d && b !== 0x1b) control++;
  }
  return control / n > BINARY_CONTROL_SHARE ? `binary data (${Math.round((100 * control) / n)}% control bytes)` : undefined;
}

/** Streaming reader: picks the encoding from the first bytes, then converts chunk by chunk. */
export class LogDecoder {
  private mode: 'utf8' | TextDecoder | undefined;

  /** The next chunk as UTF-8 bytes; throws {@link TriageInputError} when the first chunk is binary. */
  decode(chunk: Uint8Array): Uint8Array {
    if (this.mode === undefined) {
      if (chunk.length === 0) return chunk;
      if (chunk.length >= 2 && chunk[0] === 0xff && chunk[1] === 0xfe) this.mode = new TextDecoder('utf-16le');
      else if (chunk.length >= 2 && chunk[0] === 0xfe && chunk[1] === 0xff) this.mode = new TextDecoder('utf-16be');
      else {
        const reason = binaryReason(chunk);
        if (reason) throw new TriageInputError(`This is not a text log: it looks like ${reason}.`, 'BINARY_INPUT');
        this.mode = 'utf8';
        // A UTF-8 byte-order mark is not part of the first line.
        if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
      }
    }
    if (this.mode === 'utf8') return chunk;
    return Buffer.from(this.mode.decode(chunk, { stream: true }), 'utf8');
  }

  /** Flushes a UTF-16 code unit cut by the last chunk. */
  end(): Uint8Array {
    return this.mode instanceof TextDecoder ? Buffer.from(this.mode.decode(), 'utf8') : new Uint8Array(0);
  }
}
