/**
 * The streaming scanner. Text arrives in chunks of any size; the engine keeps only a bounded window
 * of it (the history a traceback needs behind a failure line, and a few lines of look-ahead for
 * messages printed over several lines), so a 1 GB log costs a few hundred KiB of memory.
 *
 * Finding candidate lines is the hot path, so the engine never decodes the whole log: it holds
 * the raw bytes as a "byte string" (latin1, one char per byte, which Node creates with a memcpy),
 * runs one regular expression of short ASCII anchors over it, and decodes only the lines it hits
 * (and their neighbours) as UTF-8 before cleaning them (ANSI colours, CR, rank prefixes) and
 * showing them to the signatures.
 */
import type { SourceFrame } from '../protocol';
import { parseFrameLine } from './frames';
import { splitRank } from './ranks';
import { ALL_SIGNATURES } from './signatures';
import type { LineView, Signature } from './signatures/types';
import { FindingSink } from './verdicts';

/** Lines after a failure line that signatures may read (multi-line messages). */
export const LOOKAHEAD_LINES = 12;
/** How far back (in characters) the engine keeps text for tracebacks and preceding context. */
const HISTORY_CHARS = 256 * 1024;
/** Frames further back than this many lines are not part of the failure's traceback. */
const FRAME_LOOKBACK_LINES = 400;
/** Longest line shown to the signatures; longer lines (minified JSON, binary) are cut. */
const MAX_LINE_CHARS = 64 * 1024;
/** Unscanned text that has no line break after this many characters is scanned as it is. */
const MAX_PENDING_CHARS = 8 * 1024 * 1024;

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g;
const TRACEBACK_HEADER = /^\s*Traceback \(most recent call last\):/;

/**
 * The prefilter: every signature needle contains a match of one of these regex fragments (a unit
 * test checks it), so any line a signature could match is hit. Few, short alternatives keep the
 * scan fast (V8 slows down with each alternative); a hit line is then checked against the full
 * needles. `[A-Z]{2,}_[A-Z]` stands for the status constants (CUDNN_STATUS_..., RESOURCE_EXHAUSTED,
 * HSA_STATUS_ERROR_OUT_OF_RESOURCES, DRAM_SHARED, PT_DEVMEM, OUT_OF_MEMORY).
 */
export const ANCHORS: readonly string[] = [
  'emory', 'lloc', 'atchdog', '[A-Z]{2,}_[A-Z]', 'EL0004', 'borting', 'Heartbeat', 'lagging ranks', "didn't",
  'NCCL [eE]rror', 'ncclUnhandled', 'DistBackendError', 'terminate called', 'assert triggered', 'Assertion `',
  'Killed', 'oom[-_]kill', 'exitcode', 'SIGKILL', 'code:? 137', 'code = -9', 'synStatus',
];

/**
 * Non-ASCII needles, found with indexOf on their UTF-8 bytes: in the regex they would slow every
 * position of the scan down threefold.
 */
export const NON_ASCII_ANCHORS: readonly string[] = ['已杀死', 'Getötet'];

/** UTF-8 text -> the byte string the scanner works on. */
export function toByteString(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** One regex, over byte strings, that hits every line an ASCII anchor is on. */
export function anchorPattern(anchors: readonly string[] = ANCHORS): RegExp {
  return new RegExp(anchors.join('|'), 'g');
}

/** Decodes one raw line (a byte string) as UTF-8 for matching: colour codes and a trailing CR go. */
export function cleanLine(rawBytes: string): string {
  const cut = rawBytes.length > MAX_LINE_CHARS ? rawBytes.slice(0, MAX_LINE_CHARS) : rawBytes;
  let line = Buffer.from(cut, 'latin1').toString('utf8');
  if (line.endsWith('\r')) line = line.slice(0, -1);
  if (line.includes('\x1b')) line = line.replace(ANSI, '');
  return line;
}

export class TriageEngine {
  private buf = '';
  /** Index in `buf` where text not yet scanned begins (always at a line start). */
  private scanPos = 0;
  /** Line counting cursor: `countPos` is a line start in `buf`, `countLine` its 1-based number. */
  private countPos = 0;
  private countLine = 1;
  private readonly pattern: RegExp;
  /** Non-ASCII anchors as byte strings, searched with indexOf. */
  private readonly extraAnchors = NON_ASCII_ANCHORS.map(toByteString);
  private readonly sink = new FindingSink();

  constructor(private readonly signatures: readonly Signature[] = ALL_SIGNATURES) {
    this.pattern = anchorPattern();
  }

  /**
   * Feeds the next piece of the log as a byte string (latin1: one char per byte, any split point,
   * even inside a UTF-8 sequence). Use {@link toByteString} for ordinary text.
   */
  push(text: string): void {
    if (text.length === 0) return;
    this.buf += text;
    const lastBreak = this.buf.lastIndexOf('\n');
    if (lastBreak < this.scanPos) {
      if (this.buf.length - this.scanPos > MAX_PENDING_CHARS) this.scanUntil(this.buf.length);
      return;
    }
    // Keep LOOKAHEAD_LINES complete lines unscanned, so every scanned line can see them.
    let cut = lastBreak;
    for (let k = 0; k < LOOKAHEAD_LINES; k++) {
      const prev = this.buf.lastIndexOf('\n', cut - 1);
      if (prev < this.scanPos) {
        cut = -1;
        break;
      }
      cut = prev;
    }
    if (cut >= this.scanPos) this.scanUntil(cut + 1);
    else if (this.buf.length - this.scanPos > MAX_PENDING_CHARS) this.scanUntil(this.buf.length);
    this.dropHistory();
  }

  /** Scans what is left and returns the findings, grouped into verdicts. */
  finish(): FindingSink {
    this.scanUntil(this.buf.length);
    return this.sink;
  }

  private lineStart(pos: number): number {
    return this.buf.lastIndexOf('\n', pos - 1) + 1;
  }

  private lineStop(pos: number): number {
    const stop = this.buf.indexOf('\n', pos);
    return stop < 0 ? this.buf.length : stop;
  }

  /** Evaluates every line in [scanPos, end) that holds an anchor, in order, once each. */
  private scanUntil(end: number): void {
    const starts: Array<[number, number]> = [];
    const re = this.pattern;
    re.lastIndex = this.scanPos;
    for (;;) {
      const hit = re.exec(this.buf);
      if (!hit || hit.index >= end) break;
      starts.push([this.lineStart(hit.index), hit.index]);
      re.lastIndex = this.lineStop(hit.index) + 1;
    }
    let extra = false;
    for (const anchor of this.extraAnchors) {
      for (let i = this.buf.indexOf(anchor, this.scanPos); i >= 0 && i < end; i = this.buf.indexOf(anchor, this.lineStop(i) + 1)) {
        starts.push([this.lineStart(i), i]);
        extra = true;
      }
    }
    if (extra) starts.sort((a, b) => a[0] - b[0]);
    let previous = -1;
    for (const [start, hit] of starts) {
      if (start === previous) continue;
      previous = start;
      const stop = this.lineStop(start);
      // In an overlong line (minified JSON, a progress bar without breaks) keep the part around the hit.
      this.evaluate(stop - start > MAX_LINE_CHARS ? Math.max(start, hit - MAX_LINE_CHARS / 2) : start, stop);
    }
    this.scanPos = Math.min(end, this.buf.length);
  }

  /** 1-based line number of the line starting at `pos` (positions are visited in increasing order). */
  private lineNumberAt(pos: number): number {
    let i = this.buf.indexOf('\n', this.countPos);
    while (i >= 0 && i < pos) {
      this.countLine++;
      this.countPos = i + 1;
      i = this.buf.indexOf('\n', this.countPos);
    }
    return this.countLine;
  }

  private evaluate(start: number, stop: number): void {
    const raw = cleanLine(this.buf.slice(start, stop));
    const { rank, content } = splitRank(raw);
    const view = new BufferLineView(this.buf, start, stop, this.lineNumberAt(start), raw, content, rank);
    for (const signature of this.signatures) {
      if (!signature.needles.some((n) => content.includes(n))) continue;
      const finding = signature.match(view);
      if (finding) {
        this.sink.add(finding, view);
        return;
      }
    }
  }

  /**
   * Forgets text far behind the scan position, keeping line numbering exact. A line longer than
   * the history is cut in the middle (its start is no longer needed).
   */
  private dropHistory(): void {
    const keepFrom = this.scanPos - HISTORY_CHARS;
    if (keepFrom <= 0) return;
    let cutAt = this.buf.indexOf('\n', keepFrom) + 1;
    if (cutAt <= 0 || cutAt > this.scanPos) cutAt = keepFrom;
    this.lineNumberAt(cutAt);
    if (this.countPos < cutAt) this.countPos = cutAt;
    this.buf = this.buf.slice(cutAt);
    this.scanPos -= cutAt;
    this.countPos -= cutAt;
  }
}

/** A candidate line with lazy access to its neighbours in the engine's buffer. */
class BufferLineView implements LineView {
  constructor(
    private readonly buf: string,
    private readonly start: number,
    private readonly stop: number,
    readonly lineNumber: number,
    readonly text: string,
    readonly content: string,
    readonly rank: number | undefined,
  ) {}

  next(k: number): string | undefined {
    let pos = this.stop;
    for (let i = 1; i < k; i++) {
      pos = this.buf.indexOf('\n', pos + 1);
      if (pos < 0) return undefined;
    }
    if (pos >= this.buf.length) return undefined;
    let end = this.buf.indexOf('\n', pos + 1);
    if (end < 0) end = this.buf.length;
    return splitRank(cleanLine(this.buf.slice(pos + 1, end))).content;
  }

  private previousRaw(k: number): string | undefined {
    let end = this.start - 1;
    for (let i = 1; i < k; i++) {
      if (end <= 0) return undefined;
      end = this.buf.lastIndexOf('\n', end - 1);
      if (end < 0) return undefined;
    }
    if (end < 0) return undefined;
    const begin = this.buf.lastIndexOf('\n', end - 1) + 1;
    return cleanLine(this.buf.slice(begin, end));
  }

  previous(k: number): string | undefined {
    const raw = this.previousRaw(k);
    return raw === undefined ? undefined : splitRank(raw).content;
  }

  previousRank(k: number): number | undefined {
    const raw = this.previousRaw(k);
    return raw === undefined ? undefined : splitRank(raw).rank;
  }

  /**
   * The traceback printed just before this line: frame lines (and the code lines under them)
   * back to "Traceback (most recent call last):", skipping lines of other ranks.
   */
  frames(): SourceFrame[] {
    const frames: SourceFrame[] = [];
    for (let k = 1; k <= FRAME_LOOKBACK_LINES; k++) {
      const raw = this.previousRaw(k);
      if (raw === undefined) break;
      const { rank, content } = splitRank(raw);
      if (rank !== undefined && this.rank !== undefined && rank !== this.rank) continue;
      if (TRACEBACK_HEADER.test(content)) break;
      const frame = parseFrameLine(content);
      if (frame) {
        frames.push(frame);
        continue;
      }
      // Code lines, caret markers and "[Previous line repeated]" sit between frames, indented.
      if ((/^\s/.test(content) && content.trim() !== '') || /^\[Previous line repeated/.test(content.trim())) continue;
      break;
    }
    return frames.reverse();
  }
}
