/**
 * The streaming scanner. Text arrives in chunks of any size; the engine keeps only a bounded window
 * of it (the history a traceback needs behind a failure line, and a few lines of look-ahead for
 * messages printed over several lines), so a 1 GB log costs a few hundred KiB of memory.
 *
 * Finding candidate lines is the hot path: one regular expression made of every signature's
 * literal needles runs over each chunk, and only the lines it hits are split out, cleaned
 * (ANSI colours, CR, rank prefixes) and shown to the signatures.
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

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One regex that hits every line any signature could match. */
export function needlePattern(signatures: readonly Signature[] = ALL_SIGNATURES): RegExp {
  const needles = [...new Set(signatures.flatMap((s) => s.needles))].sort((a, b) => b.length - a.length);
  return new RegExp(needles.map(escapeRegExp).join('|'), 'g');
}

/** Cleans one raw line for matching: colour codes and a trailing CR go. */
export function cleanLine(raw: string): string {
  let line = raw.length > MAX_LINE_CHARS ? raw.slice(0, MAX_LINE_CHARS) : raw;
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
  private readonly sink = new FindingSink();

  constructor(private readonly signatures: readonly Signature[] = ALL_SIGNATURES) {
    this.pattern = needlePattern(signatures);
  }

  /** Feeds the next piece of text (any size, any split point). */
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

  private scanUntil(end: number): void {
    const re = this.pattern;
    re.lastIndex = this.scanPos;
    for (;;) {
      const hit = re.exec(this.buf);
      if (!hit || hit.index >= end) break;
      const start = this.buf.lastIndexOf('\n', hit.index - 1) + 1;
      let stop = this.buf.indexOf('\n', hit.index);
      if (stop < 0) stop = this.buf.length;
      this.evaluate(start, stop);
      re.lastIndex = stop + 1;
      if (stop + 1 >= end) break;
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

  /** Forgets text far behind the scan position, keeping line numbering exact. */
  private dropHistory(): void {
    const keepFrom = this.scanPos - HISTORY_CHARS;
    if (keepFrom <= 0) return;
    const cutAt = this.buf.indexOf('\n', keepFrom) + 1;
    if (cutAt <= 0 || cutAt > this.scanPos) return;
    this.lineNumberAt(cutAt);
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
