/**
 * The streaming scanner. Text arrives in chunks of any size; the engine keeps only a bounded window
 * of it (the history a traceback needs behind a failure line, and a few lines of look-ahead for
 * messages printed over several lines), so a 1 GB log costs a few hundred KiB of memory.
 *
 * Finding candidate lines is the hot path, so the engine never decodes the whole log. Each chunk
 * of bytes gets an ASCII view (Node builds it without transcoding; bytes above 0x7f lose their
 * high bit, which can only add candidates, never hide one, because every anchor is ASCII). One
 * regular expression of short anchors runs over that view, and only the lines it hits (and their
 * neighbours) are decoded as UTF-8 from the original bytes, cleaned (ANSI colours, CR, rank
 * prefixes) and shown to the signatures. Chunks are kept side by side, never concatenated:
 * joining a megabyte chunk to the history makes V8 copy both on every chunk.
 */
import type { Platform, SourceFrame, Verdict } from '../protocol';
import { CUT_FRAME_HEAD, framesOf, isAtHeader, isChainMarker, isNotebookLine, isTracebackBody, isTracebackHeader, parseAtFrame, parseFrameLine, withoutCiTimestamp } from './frames';
import { inlineRank, splitRank, type RankedLine } from './ranks';
import { ALL_SIGNATURES, TAIL_SIGNATURES } from './signatures';
import { chooseFailure, cutTracebackFinding, LOCALIZED_SEGFAULT, TAIL_ANCHORS } from './signatures/otherFailure';
import { mentionsFailure, OOM_BEFORE_FAILURE_LINES, runWentOn, STATED_FAILURE_LINES, statedFailure, statesFailure, statesOomAtEnd } from './signatures/statedFailure';
import { NAMES_NO_PLATFORM, oomStatedAtEnd, platformNamedIn } from './signatures/otherOom';
import type { Finding, FollowingTraceback, LineView, Signature } from './signatures/types';
import { FindingSink, noFailureVerdict } from './verdicts';

/** How many lines of a headless traceback at the log's end are read back (a deep stack of frames and their code lines). */
const HEADLESS_TRACEBACK_LINES = 2000;
/** Lines after a failure line that signatures may read (multi-line messages); a traceback after it must start within them. */
const LOOKAHEAD_LINES = 12;
/**
 * How far the body of a traceback that starts within the look-ahead is read (a chained one, one
 * printed after its message, pybind11's `At:` list, a ComfyUI report's stack trace with a blank
 * line between frames). The engine waits for these lines only after a line that holds a needle.
 */
const FOLLOWING_BODY_LINES = 40;
/** How far back (in characters) the engine keeps text for tracebacks and preceding context. */
const HISTORY_CHARS = 256 * 1024;
/** Frames further back than this many lines are not part of the failure's traceback. */
const FRAME_LOOKBACK_LINES = 400;
/** Longest line shown to the signatures; longer lines (minified JSON, binary) are cut around the hit. */
const MAX_LINE_CHARS = 64 * 1024;
/** Shortest line taken for a terminal's width when a message continues a line cut at that width. */
const MIN_WRAP_WIDTH = 80;
/** A hit waits for its look-ahead lines at most this many characters of further input. */
const MAX_PENDING_CHARS = 8 * 1024 * 1024;
/**
 * Input is scanned in pieces of this size: small chunks are gathered up to it (a trickle of tiny
 * chunks stays cheap) and large ones cut down to it (a piece's ASCII view then stays a small heap
 * string; megabyte strings cost 10-40x more to create, see docs/BENCHMARKS.md).
 */
const PIECE_CHARS = 64 * 1024;
/**
 * The tail pass (signatures/otherFailure.ts) does not take a caught exception as the log's failure when
 * more than this many lines follow it: the program went on (launcher summaries and other ranks'
 * tracebacks after a real crash fit well within it).
 */
const RECOVERED_AFTER_LINES = 150;
/** Characters on each side of a chunk boundary scanned again, for anchors cut by the boundary. */
const SEAM_CHARS = 64;

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g;

/**
 * The prefilter: every signature needle contains a match of one of these regex fragments (a unit
 * test checks it), so any line a signature could match is hit. Few, short alternatives keep the
 * scan fast (V8 slows down with each alternative); a hit line is then checked against the full
 * needles. `[A-Z]{2,}_[A-Z]` stands for the status constants (CUDNN_STATUS_..., RESOURCE_EXHAUSTED,
 * HSA_STATUS_ERROR_OUT_OF_RESOURCES, DRAM_SHARED, PT_DEVMEM, OUT_OF_MEMORY). An alternative that
 * starts with a digit (Ascend's 507046) costs more than all the others together, because digits
 * are everywhere in logs, so codes hang off a word ("code is 507046") or a letter prefix ("EI0002"),
 * and new codes extend an existing alternative rather than adding one; a character class first
 * (`[Kk]illed`) doubles the scan time where two plain alternatives cost nothing measurable.
 */
export const ANCHORS: readonly string[] = [
  'emory', 'lloc', 'atchdog', '[A-Z]{2,}_[A-Z]', 'E(?:L0004|I000[26])', 'borting', 'Heartbeat', 'lagging ranks', "didn't",
  'NCCL (?:[eE]rror|operations|WARN (?:N[Ee][Tt]|Cuda f|Duplicate GPU)|failure)', 'HCCL (?:function )?error', 'ncclUnhandled', 'DistBackendError', 'terminate called', 'assert triggered', '[Aa]ssertion `',
  'Killed', 'kill(?:ed|ing largest|_by_)', 'oom[-_]kill', 'OOM', 'Exited \\(137\\)', 'exitcode', 'SIGKILL', 'code(?::? 137| \\(137\\)|:? -9| = -9| is (?:50704[678]|107020))', 'synStatus', 'hipError', '(?:CUDA|HIP|SYCL) error',
  'ync(?:hronize)?(?: t|WithT)imeout', 'Invalid buffer size', 'Failed to get convolution', 'Received a dump signal',
];

/**
 * Non-ASCII needles. The scan sees them as their UTF-8 bytes with the high bit cleared (that is
 * what the ASCII view holds), so they join the regex as plain ASCII; raw bytes above 0x7f in the
 * regex would slow every position of the scan down threefold.
 */
export const NON_ASCII_ANCHORS: readonly string[] = ['已杀死', 'Getötet', 'Processus arrêté'];

/** A literal as the ASCII view shows its UTF-8 bytes, escaped for a regex. */
function maskedLiteral(literal: string): string {
  let out = '';
  for (const byte of Buffer.from(literal, 'utf8')) {
    const c = byte & 0x7f;
    out += c < 0x20 || c === 0x7f ? `\\x${c.toString(16).padStart(2, '0')}` : String.fromCharCode(c).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return out;
}

/** One regex, over the ASCII view, that hits every line an anchor is on. */
function anchorPattern(): RegExp {
  return new RegExp([...ANCHORS, ...NON_ASCII_ANCHORS.map(maskedLiteral)].join('|'), 'g');
}

/**
 * The accelerator a tail of a log names (a CUDA device banner, frames under torch/cuda or torch_npu, a launcher's GPU
 * list), if any; none when it says the run had none ("No GPU/TPU found", "CUDA is not available", Lightning's "GPU available:
 * True (cuda), used: False", TensorFlow's "Skipping registering GPU devices", JAX's "Falling back to cpu"). Lines that name
 * platforms this host does not have (a server's dump of setting names, Lightning's banner) are left out.
 */
const RAN_WITHOUT_GPU = /\bno (?:GPU|CUDA|TPU|NPU)\b[\w\/ ]{0,20}(?:found|available|detected)|\b(?:CUDA|GPU) (?:is )?not available|cuda\.is_available\(\) (?:is|returned) False|\bGPU available: True \(\w+\), used: False\b|\bSkipping registering GPU devices\b|\bFalling back to cpu\b/i;
function namedPlatform(ascii: string): Platform | undefined {
  if (RAN_WITHOUT_GPU.test(ascii)) return undefined;
  return platformNamedIn(ascii.split('\n').filter((l) => !NAMES_NO_PLATFORM.test(l)).join('\n'));
}

const PYTEST_ERROR_MARK = /^E {3,}(?=\S)/;
const ACTIONS_ANCHOR = /^\[\d+\]\(https:\/\/github\.com\/[^)\s]*#step:\d+:\d+\)/;

/** Cleans one decoded line for matching: colour codes, a trailing CR and a paste's Markdown quote marker or stray backtick go. */
function cleanLine(decoded: string): string {
  let line = decoded;
  if (line.endsWith('\r')) line = line.slice(0, -1);
  if (line.includes('\x1b')) line = line.replace(ANSI, '');
  // A Markdown quote's marker on a log pasted into an issue or a chat ("> RuntimeError: …", ">   File …"); not Python's
  // prompt (">>> ").
  if (line.charCodeAt(0) === 62 && line.charCodeAt(1) !== 62) line = line.slice(line.charCodeAt(1) === 32 ? 2 : 1);
  // A GitHub Actions log copied from its web view keeps each line's anchor as a Markdown link ("[977](https://github.com/o/r/
  // actions/runs/1/job/2#step:11:978)"), on a line of its own or before the line's text.
  if (line.charCodeAt(0) === 91 && line.includes('#step:')) line = line.replace(ACTIONS_ANCHOR, '');
  // pytest's report marks the exception's lines with "E" and at least three spaces ("E   OSError: [WinError 1455] …").
  if (line.charCodeAt(0) === 69 && line.startsWith('E   ')) line = line.replace(PYTEST_ERROR_MARK, '');
  // An inline code span's backticks around a pasted log, left on its first and last lines ("`Load model", "Killed`"): a
  // backtick with no partner on the line (a balanced span, "calling `cublasCreate(handle)`", stays).
  if ((line.charCodeAt(0) === 96 || line.charCodeAt(line.length - 1) === 96) && (line.split('`').length - 1) % 2 === 1) {
    if (line.charCodeAt(0) === 96 && line.charCodeAt(1) !== 96) line = line.slice(1);
    else if (line.charCodeAt(line.length - 1) === 96 && line.charCodeAt(line.length - 2) !== 96) line = line.slice(0, -1);
  }
  return line;
}

/** A chunk of the log: its bytes, their ASCII view (same offsets), and its place in the input. */
interface Piece {
  bytes: Buffer;
  text: string;
  /** Offset of the piece's first char in the input. */
  start: number;
  /** 1-based line number of the piece's first char. */
  line: number;
}

/**
 * The retained tail of the input: pieces in order, never concatenated (joining a megabyte chunk to
 * the history makes V8 copy both on every chunk); lines are stitched across pieces on demand.
 */
class PieceText {
  readonly pieces: Piece[] = [];
  /** Offset just past the last char received. */
  end = 0;
  /** 1-based line number at `end`. */
  endLine = 1;

  add(bytes: Buffer): Piece {
    const text = bytes.toString('ascii');
    const piece = { bytes, text, start: this.end, line: this.endLine };
    this.pieces.push(piece);
    this.end += text.length;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.endLine++;
    return piece;
  }

  get retainedStart(): number {
    return this.pieces[0]?.start ?? this.end;
  }

  private pieceIndexAt(pos: number): number {
    let lo = 0;
    let hi = this.pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.pieces[mid]!.start <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Offset of the first line break at or after `pos`, or -1. */
  nextBreak(pos: number): number {
    for (let i = this.pieceIndexAt(pos); i < this.pieces.length; i++) {
      const p = this.pieces[i]!;
      const at = p.text.indexOf('\n', Math.max(0, pos - p.start));
      if (at >= 0) return p.start + at;
    }
    return -1;
  }

  /** Offset of the last line break before `pos`, or retainedStart - 1 when none is retained. */
  previousBreak(pos: number): number {
    if (pos <= this.retainedStart) return this.retainedStart - 1;
    for (let i = this.pieceIndexAt(pos - 1); i >= 0; i--) {
      const p = this.pieces[i]!;
      const at = p.text.lastIndexOf('\n', pos - 1 - p.start);
      if (at >= 0) return p.start + at;
    }
    return this.retainedStart - 1;
  }

  private bytesOf(from: number, to: number): Buffer[] {
    const parts: Buffer[] = [];
    for (let i = this.pieceIndexAt(Math.max(from, this.retainedStart)); i < this.pieces.length; i++) {
      const p = this.pieces[i]!;
      if (p.start >= to) break;
      parts.push(p.bytes.subarray(Math.max(0, from - p.start), Math.max(0, to - p.start)));
    }
    return parts;
  }

  /** The input in [from, to) decoded as UTF-8, clipped to what is retained. */
  decode(from: number, to: number): string {
    const parts = this.bytesOf(from, to);
    return (parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString('utf8');
  }

  /** The ASCII view of [from, to), clipped to what is retained. */
  ascii(from: number, to: number): string {
    return this.bytesOf(from, to).map((b) => b.toString('ascii')).join('');
  }

  /** Where the last line-number query ended; queries mostly move forward, so counting resumes here. */
  private cursor = { pos: 0, line: 1 };

  /** 1-based line number of `pos`. */
  lineAt(pos: number): number {
    let { pos: from, line } = this.cursor;
    if (from > pos || from < this.retainedStart) {
      const p = this.pieces[this.pieceIndexAt(pos)]!;
      from = p.start;
      line = p.line;
    }
    for (let i = this.nextBreak(from); i >= 0 && i < pos; i = this.nextBreak(i + 1)) line++;
    this.cursor = { pos, line };
    return line;
  }

  /** Forgets pieces that end before `pos`. */
  dropBefore(pos: number): void {
    let n = 0;
    while (n < this.pieces.length - 1 && this.pieces[n]!.start + this.pieces[n]!.text.length <= pos) n++;
    if (n > 0) this.pieces.splice(0, n);
  }
}

export class TriageEngine {
  private readonly text = new PieceText();
  /** Small chunks waiting to be scanned together. */
  private staged: Buffer[] = [];
  private stagedBytes = 0;
  /** Bytes received so far (scanned or staged). */
  private received = 0;
  /** Offsets of anchor hits whose look-ahead has not fully arrived, in order. */
  private pending: number[] = [];
  /** Start of the last line evaluated, so a line with several hits is evaluated once. */
  private lastLineStart = -1;
  private readonly pattern: RegExp;
  /** Every signature needle in one regex over the ASCII view: the second, exact stage of the prefilter. */
  private readonly needles: RegExp;
  private readonly sink = new FindingSink();

  /** The tail pass's prefilter (TAIL_ANCHORS). */
  private readonly tailPattern: RegExp;

  constructor(
    private readonly signatures: readonly Signature[] = ALL_SIGNATURES,
    private readonly tailSignatures: readonly Signature[] = TAIL_SIGNATURES,
  ) {
    this.pattern = anchorPattern();
    this.tailPattern = new RegExp([...TAIL_ANCHORS, ...LOCALIZED_SEGFAULT.map(maskedLiteral)].join('|'), 'g');
    this.needles = new RegExp([...new Set(signatures.flatMap((s) => s.needles))].map(maskedLiteral).join('|'));
  }

  /** Feeds the next chunk of the log as UTF-8 bytes (any size, any split point, even inside a character). */
  push(bytes: Uint8Array): void {
    this.received += bytes.length;
    let rest = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    while (rest.length > 0) {
      const take = Math.min(rest.length, PIECE_CHARS - this.stagedBytes);
      this.staged.push(rest.subarray(0, take));
      this.stagedBytes += take;
      rest = rest.subarray(take);
      if (this.stagedBytes === PIECE_CHARS) this.flushStaged();
    }
    this.evaluateReady(false);
  }

  /** Offset (in pushed bytes) before which the engine keeps no reference to the input. */
  get releasedBefore(): number {
    return Math.min(this.text.retainedStart, this.received - this.stagedBytes);
  }

  /** Bytes pushed so far. */
  get inputLength(): number {
    return this.received;
  }

  /** Feeds text (for logs already in memory). */
  pushText(text: string): void {
    this.push(Buffer.from(text, 'utf8'));
  }

  /**
   * Scans what is left and returns the verdicts: the failures found, root first, or else the one verdict that says no
   * failure was recognized, on the platform the retained tail names.
   */
  finish(): Verdict[] {
    this.flushStaged();
    this.evaluateReady(true);
    if (this.sink.empty && this.tailSignatures.length > 0) this.tailPass();
    const verdicts = this.sink.verdicts();
    return verdicts.length > 0 ? verdicts : [noFailureVerdict(namedPlatform(this.text.ascii(this.tailStart(), this.text.end)) ?? 'cpu')];
  }

  /** Where the tail pass reads from: the retained tail, less a line cut by what was dropped. */
  private tailStart(): number {
    const from = this.text.retainedStart;
    return from > 0 ? this.text.nextBreak(from) + 1 : from;
  }

  /**
   * The fallback for a log no signature found anything in (signatures/otherFailure.ts): its failure
   * lines are read once, here, over the tail still retained (the last HISTORY_CHARS of the input),
   * never in the hot scan, where "Error" would hit every warning and recovered traceback of a long
   * log. One finding is kept: the failure the log ended with (chooseFailure).
   */
  private tailPass(): void {
    const from = this.tailStart();
    if (from <= 0 && this.text.retainedStart > 0) return;
    const ascii = this.text.ascii(from, this.text.end);
    const re = this.tailPattern;
    const found: { finding: Finding; line: number; view: PieceLineView }[] = [];
    re.lastIndex = 0;
    for (let hit = re.exec(ascii); hit; hit = re.exec(ascii)) {
      const view = this.tailLineView(from, ascii, from + hit.index);
      const { content } = view;
      for (const signature of this.tailSignatures) {
        if (!signature.needles.some((n) => content.includes(n))) continue;
        const finding = signature.match(view);
        if (!finding) continue;
        found.push({ ...this.withImpliedRank(finding, view), line: view.lineNumber });
        break;
      }
      const next = ascii.indexOf('\n', hit.index);
      if (next < 0) break;
      re.lastIndex = next + 1;
    }
    // A Python exception the program printed and then went on from (a logged, recovered traceback
    // followed by ordinary output to the end) is not how the run ended.
    const chosen = chooseFailure(found.filter((f) => !f.finding.catchable || this.text.endLine - f.line <= RECOVERED_AFTER_LINES)) ?? this.lastResort(from, ascii);
    if (!chosen) return;
    // A not-oom failure whose nearby lines name no accelerator takes the one the rest of the retained
    // tail names (a CUDA device banner, frames under torch/cuda or torch_npu, the launcher's GPU list).
    // Not for a host process's own crash (a DataLoader worker's), which is on the host whatever device the run uses.
    // Nor for the host's own memory running out (Windows' commit limit), which is on the host too.
    if ((chosen.finding.signature === 'other-failure' || chosen.finding.signature === 'stated-failure') && chosen.finding.kind === 'not-oom' && chosen.finding.platform === 'cpu' && chosen.finding.facts?.hostProcess === undefined) {
      const named = namedPlatform(ascii);
      if (named !== undefined) chosen.finding.platform = named;
    }
    this.sink.add(chosen.finding, chosen.view);
  }

  /**
   * The last resort (signatures/statedFailure.ts), over the final STATED_FAILURE_LINES non-empty lines after the last one
   * that shows the run going on or finishing: the last line there that says memory ran out, unless a stated failure
   * comes more than OOM_BEFORE_FAILURE_LINES after it; else the last line that states a failure, when not about memory.
   */
  private lastResort(from: number, ascii: string): { finding: Finding; view: PieceLineView } | undefined {
    let failure: { view: PieceLineView; at: number } | undefined;
    let end = ascii.length;
    for (let lines = 0; end > 0 && lines < STATED_FAILURE_LINES; ) {
      const start = ascii.lastIndexOf('\n', end - 1) + 1;
      const text = ascii.slice(start, end);
      end = start - 1;
      if (text.trim() === '') continue;
      lines++;
      if (failure !== undefined && lines - failure.at > OOM_BEFORE_FAILURE_LINES) break;
      if (!mentionsFailure(text) && !runWentOn(text)) continue;
      const view = this.tailLineView(from, ascii, from + start);
      const oom = statesOomAtEnd(view.content) ? oomStatedAtEnd(view) : undefined;
      if (oom) return this.withImpliedRank(oom, view);
      if (failure === undefined && statesFailure(view.content)) failure = { view, at: lines };
      else if (runWentOn(view.content)) break;
    }
    const finding = failure && statedFailure.match(failure.view);
    return finding && failure ? this.withImpliedRank(finding, failure.view) : this.headlessTraceback(from, ascii);
  }

  /**
   * A log whose last lines are the frames of a Python traceback with neither its header nor its exception line (a paste
   * that kept only the middle): an exception ended the run there. At least two of Python's frame lines, so that an
   * indented line or a lone path is no traceback; not a stack the program printed (traceback.print_stack, logging's
   * stack_info).
   */
  private headlessTraceback(from: number, ascii: string): { finding: Finding; view: PieceLineView } | undefined {
    const body: { text: string; start: number }[] = [];
    let end = ascii.length;
    while (end > 0 && body.length < HEADLESS_TRACEBACK_LINES) {
      const start = ascii.lastIndexOf('\n', end - 1) + 1;
      const raw = ascii.slice(start, end);
      end = start - 1;
      if (raw.trim() === '') continue;
      const text = this.tailLineView(from, ascii, from + start).content;
      const wrappedHead = body.length > 0 && CUT_FRAME_HEAD.test(text);
      if (!isTracebackBody(text) && !wrappedHead) {
        // A headed traceback is the tail pass's; logging's stack_info ("Stack (most recent call last):") is no failure.
        if (isTracebackHeader(text) || /^\s*Stack \(most recent call last\):?\s*$/.test(text)) return undefined;
        break;
      }
      body.push({ text, start });
    }
    body.reverse();
    const frames = framesOf(body.map((b) => b.text));
    // Python's own frame lines ('File "…", line N', IPython's "~/lib/x.py in f(a, b)"), two at least; a stack the program
    // printed on purpose is none.
    if (frames.length < 2 || body.filter((b) => /^\s*File "|^\S+\.py in [\w<>]+\(/.test(b.text)).length < 2) return undefined;
    if (/\b(?:print_stack|format_stack|extract_stack|print_tb)\(/.test(body[body.length - 1]!.text)) return undefined;
    const first = body.find((b) => parseFrameLine(b.text) !== undefined || CUT_FRAME_HEAD.test(b.text)) ?? body[0]!;
    const view = this.tailLineView(from, ascii, from + first.start);
    return this.withImpliedRank(cutTracebackFinding(view, frames), view);
  }

  /** A finding with the rank its line implies (a "[rank N]:" block above it) when it names none. */
  private withImpliedRank(finding: Finding, view: PieceLineView): { finding: Finding; view: PieceLineView } {
    if (finding.rank === undefined) {
      const implied = view.impliedRank();
      if (implied !== undefined) finding.rank = implied;
    }
    return { finding, view };
  }

  /** The view of the retained tail's line that holds position `at` (`ascii` is the tail's ASCII view from `from`). */
  private tailLineView(from: number, ascii: string, at: number): PieceLineView {
    const lineStart = from + ascii.lastIndexOf('\n', at - from) + 1;
    let stop = this.text.nextBreak(at);
    if (stop < 0) stop = this.text.end;
    const start = this.clippedStart(lineStart, stop, at);
    const raw = cleanLine(this.text.decode(start, Math.min(stop, start + MAX_LINE_CHARS)));
    const { rank, content } = splitRank(raw);
    return new PieceLineView(this.text, lineStart, stop, this.text.lineAt(lineStart), raw, content, rank);
  }

  private flushStaged(): void {
    if (this.stagedBytes === 0) return;
    const bytes = this.staged.length === 1 ? this.staged[0]! : Buffer.concat(this.staged);
    this.staged = [];
    this.stagedBytes = 0;
    this.scanPiece(this.text.add(bytes));
  }

  private scanPiece(piece: Piece): void {
    const hits: number[] = [];
    const re = this.pattern;
    // Anchors cut by the boundary with the previous piece.
    if (piece.start > this.text.retainedStart) {
      const seamStart = Math.max(this.text.retainedStart, piece.start - SEAM_CHARS);
      const seam = this.text.ascii(seamStart, piece.start + SEAM_CHARS);
      re.lastIndex = 0;
      for (let hit = re.exec(seam); hit; hit = re.exec(seam)) {
        if (seamStart + hit.index < piece.start && seamStart + hit.index + hit[0].length > piece.start) hits.push(seamStart + hit.index);
      }
    }
    const t = piece.text;
    re.lastIndex = 0;
    for (let hit = re.exec(t); hit; hit = re.exec(t)) {
      hits.push(piece.start + hit.index);
      const stop = t.indexOf('\n', hit.index);
      if (stop < 0) break;
      re.lastIndex = stop + 1;
    }
    if (hits.length > 1) hits.sort((a, b) => a - b);
    for (const h of hits) this.pending.push(h);
  }

  /** Evaluates the pending hits whose look-ahead lines have arrived (all of them at the end). */
  private evaluateReady(final: boolean): void {
    let done = 0;
    for (const hit of this.pending) {
      const lineStart = this.text.previousBreak(hit) + 1;
      if (lineStart === this.lastLineStart) {
        done++;
        continue;
      }
      // Most hit lines hold no needle; they are dropped as soon as they are complete, without
      // waiting for (and walking) the look-ahead that only a needle line's signatures read.
      const stop = this.text.nextBreak(hit);
      if (stop >= 0 && !this.mayMatch(lineStart, stop, hit)) {
        this.lastLineStart = lineStart;
        done++;
        continue;
      }
      if (!final && !this.lookaheadArrived(hit)) break;
      this.lastLineStart = lineStart;
      this.evaluate(lineStart, hit);
      done++;
    }
    if (done > 0) this.pending = this.pending.slice(done);
    const keepFrom = (this.pending[0] ?? this.text.end) - HISTORY_CHARS;
    if (keepFrom > this.text.retainedStart) this.text.dropBefore(keepFrom);
  }

  private lookaheadArrived(hit: number): boolean {
    if (this.text.end - hit > MAX_PENDING_CHARS) return true;
    let pos = hit;
    for (let k = 0; k <= FOLLOWING_BODY_LINES; k++) {
      pos = this.text.nextBreak(pos);
      if (pos < 0) return false;
      pos++;
    }
    return true;
  }

  /** The part of a long line kept around its hit (minified JSON, a progress bar without breaks). */
  private clippedStart(lineStart: number, stop: number, hit: number): number {
    return stop - lineStart > MAX_LINE_CHARS ? Math.max(lineStart, hit - MAX_LINE_CHARS / 2) : lineStart;
  }

  /**
   * Anchors are short; most lines they hit hold no needle ("memory" in a progress report), and are
   * dropped without decoding. Colour codes could split a needle, so such lines go through.
   */
  private mayMatch(lineStart: number, stop: number, hit: number): boolean {
    const start = this.clippedStart(lineStart, stop, hit);
    const ascii = this.text.ascii(start, Math.min(stop, start + MAX_LINE_CHARS));
    return this.needles.test(ascii) || ascii.includes('\x1b');
  }

  private evaluate(lineStart: number, hit: number): void {
    let stop = this.text.nextBreak(hit);
    if (stop < 0) stop = this.text.end;
    if (!this.mayMatch(lineStart, stop, hit)) return;
    const start = this.clippedStart(lineStart, stop, hit);
    const raw = cleanLine(this.text.decode(start, Math.min(stop, start + MAX_LINE_CHARS)));
    const { rank, content } = splitRank(raw);
    const view = new PieceLineView(this.text, lineStart, stop, this.text.lineAt(lineStart), raw, content, rank);
    for (const signature of this.signatures) {
      if (!signature.needles.some((n) => content.includes(n))) continue;
      const finding = signature.match(view);
      if (finding) {
        if (finding.rank === undefined) {
          const rank = view.impliedRank();
          if (rank !== undefined) finding.rank = rank;
        }
        this.sink.add(finding, view);
        return;
      }
    }
  }
}

/**
 * The body lines of a traceback, walking from line `first` to `last` of `lineAt` (`upward` when it
 * counts towards the start of the log): frames and the lines between them, without CI timestamps,
 * skipping other ranks' lines, up to the traceback's header or its exception line. A blank line
 * belongs to the body only next to a notebook line (IPython spaces its frames). The line printed
 * right after a frame is its code line even without its indentation, which pasting into an issue
 * often strips.
 */
/** An exception whose message is a native stack printed as a traceback (MXNet's and TVM's FFI errors). */
const FFI_TRACEBACK_HEADER = /^\s*(?:[A-Za-z_]\w*\.)*(?:[A-Za-z_]\w*)?(?:Error|Exception): ?Traceback \(most recent call last\):?\s*$/;

function tracebackBody(lineAt: (k: number) => RankedLine | undefined, first: number, last: number, rank: number | undefined, upward: boolean): string[] {
  const body: string[] = [];
  const sameRank = (line: RankedLine): boolean => line.rank === undefined || rank === undefined || line.rank === rank;
  // A code line follows its frame line (in a paste that put a blank line after every line, one line further); the rest of a
  // frame line a console hard-wrapped inside its path follows its head.
  const printedAfterFrame = (k: number): boolean => {
    const step = upward ? 1 : -1;
    let before = lineAt(k + step);
    if (before !== undefined && before.content.trim() === '' && upward) before = lineAt(k + 2 * step);
    if (before === undefined) return false;
    const content = withoutCiTimestamp(before.content);
    return parseFrameLine(content) !== undefined || CUT_FRAME_HEAD.test(content);
  };
  for (let k = first; k <= last; k++) {
    const line = lineAt(k);
    if (line === undefined) break;
    if (!sameRank(line)) continue;
    const content = withoutCiTimestamp(line.content);
    if (isTracebackHeader(content)) {
      // An FFI's exception carries the native stack as its message ("mxnet.base.MXNetError: Traceback (most recent call
      // last):", TVM's likewise): the Python traceback that raised it is printed right above, and holds the user's frames.
      if (upward && FFI_TRACEBACK_HEADER.test(content)) continue;
      // Two processes printing the same traceback at once interleave their lines: a second header right after the first
      // frame line, with that same frame line under it, is the twin's, and the body goes on (its frames listed twice).
      const first = body.find((l) => parseFrameLine(l) !== undefined);
      const after = lineAt(k + 1);
      if (!upward && first !== undefined && body.length <= 2 && after !== undefined && withoutCiTimestamp(after.content).trim() === first.trim()) continue;
      break;
    }
    if (content.trim() === '') {
      let neighbour: RankedLine | undefined;
      for (let j = k + 1; j <= last && (neighbour = lineAt(j)) !== undefined; j++) if (sameRank(neighbour) && neighbour.content.trim() !== '') break;
      // IPython spaces its frames; so does a traceback.format_tb list joined with "\n" (ComfyUI's report).
      if (neighbour !== undefined && (isNotebookLine(withoutCiTimestamp(neighbour.content)) || parseFrameLine(withoutCiTimestamp(neighbour.content)) !== undefined)) continue;
      // Walking up a traceback pasted with a blank line after each frame's code line (an issue form's paste, a frame list
      // joined with "\n\n"), the nearest line above the blank is a code line whose frame is the line above it.
      if (upward && neighbour !== undefined && k + 1 < last) {
        let j = k + 1;
        while (j < last && lineAt(j)?.content.trim() === '') j++;
        // The code line's frame is right above it, or above one more blank line.
        const frame = lineAt(j + 1)?.content.trim() === '' ? lineAt(j + 2) : lineAt(j + 1);
        if (frame !== undefined && parseFrameLine(withoutCiTimestamp(frame.content)) !== undefined && !isTracebackHeader(withoutCiTimestamp(neighbour.content))) continue;
      }
      break;
    }
    if (!isTracebackBody(content) && !printedAfterFrame(k)) break;
    body.push(content);
  }
  return body;
}

/**
 * Lines that may stand between a message and the frames listed under it without a traceback header:
 * blank lines and markdown, torch_npu's error-code suffix ("[ERROR] … (PID:N, Device:N, RankID:N) ERR02200
 * DIST call hccl api failed.", behind Ray's process prefix too), and Ray's header of a remote task's traceback (RayTaskError: "ray::
 * WorkerDict.ref_init_model() (pid=N, ip=…)", also after "Unhandled error (suppress with …): "), which
 * stands where "Traceback (most recent call last):" would; ComfyUI's tip under an out-of-memory exception in its
 * error report ("This error means you ran out of memory on your GPU.", "TIPS: If the workflow worked before …",
 * execution.py), above the report's "## Stack Trace"; the detail lines of cudaMallocAsync's message ("Currently allocated
 * : 20.69 GiB", "Device limit : 23.99 GiB", …), which ComfyUI prints before format_tb's frames; Python 3.11+'s caret lines
 * under a header's code ("    ^^^^^^"); the sentences of PyTorch's allocator message a paste broke onto lines of their own
 * ("GPU 3 has a total capacity of …", "Including non-PyTorch memory, …").
 */
const BEFORE_HEADERLESS_FRAMES = /^\s*$|^\s*[~^]*\^[~^]*\s*$|^\s*(?:(?:GPU|NPU|XPU) \d+ has a total capac|Including non-PyTorch memory|Of the allocated memory|If reserved but unallocated)|^\s*#|^\s*```|^\s*- \*\*|^This error means you ran out of memory on your GPU\.|^TIPS: If the workflow worked before|^(?:Currently allocated|Requested|Device limit|Free \(according to CUDA\)|PyTorch limit \(set by user-supplied memory fraction\))\s*(?::|$)|^\s*: [\d.]+ ?[KMGTP]?i?B\s*$|^(?:\([\w.-]+ pid=\d+[^)]*\)\s?)?\s*\[ERROR\] .*\(PID:\d+, Device:\d+, RankID:-?\d+\) ERR\d{5}\b|\bray::[\w.]+\(\) \(pid=\d+/;

/**
 * Where a frame list printed under a message without a "Traceback" header starts (its first frame
 * within the next 10 lines, with only blank lines, markdown headings, code fences and `- **Key:**` lines
 * of a report before it), or undefined.
 */
function headerlessFrames(below: (k: number) => RankedLine | undefined): number | undefined {
  for (let k = 1; k <= 10; k++) {
    const line = below(k);
    if (line === undefined) return undefined;
    const content = withoutCiTimestamp(line.content);
    if (parseFrameLine(content) !== undefined) return k;
    if (!BEFORE_HEADERLESS_FRAMES.test(content)) return undefined;
  }
  return undefined;
}

/** A candidate line with lazy access to its neighbours in the retained text. */
class PieceLineView implements LineView {
  constructor(
    private readonly source: PieceText,
    private readonly start: number,
    private readonly stop: number,
    readonly lineNumber: number,
    readonly text: string,
    readonly content: string,
    readonly rank: number | undefined,
  ) {}

  private lineFrom(begin: number): string | undefined {
    if (begin > this.source.end) return undefined;
    let end = this.source.nextBreak(begin);
    if (end < 0) end = this.source.end;
    if (end === begin && begin === this.source.end) return undefined;
    return cleanLine(this.source.decode(begin, Math.min(end, begin + MAX_LINE_CHARS)));
  }

  private nextRaw(k: number): string | undefined {
    let pos = this.stop;
    for (let i = 1; i < k; i++) {
      pos = this.source.nextBreak(pos + 1);
      if (pos < 0) return undefined;
    }
    if (pos >= this.source.end) return undefined;
    return this.lineFrom(pos + 1);
  }

  /** The line `k` below this one with its rank prefix taken off (the traceback readers' view of the lines that follow). */
  private readonly rankedBelow = (k: number): RankedLine | undefined => {
    const raw = this.nextRaw(k);
    return raw === undefined ? undefined : splitRank(raw);
  };

  next(k: number): string | undefined {
    const line = this.nextRaw(k);
    return line === undefined ? undefined : splitRank(line).content;
  }

  private previousRaw(k: number): string | undefined {
    let end = this.start - 1;
    for (let i = 1; i < k; i++) {
      if (end < this.source.retainedStart) return undefined;
      end = this.source.previousBreak(end);
    }
    if (end < this.source.retainedStart) return undefined;
    const begin = this.source.previousBreak(end) + 1;
    return cleanLine(this.source.decode(begin, Math.min(end, begin + MAX_LINE_CHARS)));
  }

  previous(k: number): string | undefined {
    const raw = this.previousRaw(k);
    return raw === undefined ? undefined : splitRank(raw).content;
  }

  /**
   * The rank of a line whose signature found none in its prefix: one the message names (`[Rank 1]`,
   * `[RANK:1]`), or, when the line continues one a terminal hard-wrapped (the line above has the same
   * width), the rank of the line the message started on: its prefix, or a `[Rank 1]` the wrap cut in two.
   */
  impliedRank(): number | undefined {
    const own = inlineRank(this.content);
    if (own !== undefined) return own;
    const above = this.previousRaw(1);
    if (above === undefined || above.length < MIN_WRAP_WIDTH || above.length !== this.text.length) return undefined;
    const head = splitRank(above);
    return head.rank ?? inlineRank(head.content + this.content);
  }

  previousRank(k: number): number | undefined {
    const raw = this.previousRaw(k);
    return raw === undefined ? undefined : splitRank(raw).rank;
  }

  nextRank(k: number): number | undefined {
    const raw = this.nextRaw(k);
    return raw === undefined ? undefined : splitRank(raw).rank;
  }

  /**
   * The traceback printed just before this line: frame lines (and the code lines under them)
   * back to "Traceback (most recent call last):", skipping lines of other ranks.
   */
  frames(from = 0): SourceFrame[] {
    const above = (k: number): RankedLine | undefined => {
      const raw = this.previousRaw(k);
      return raw === undefined ? undefined : splitRank(raw);
    };
    const frames = framesOf(tracebackBody(above, 1 + from, FRAME_LOOKBACK_LINES, this.rank, true).reverse());
    if (frames.length > 0) return frames;
    // A logger's prefix in front of every line of the traceback and of this exception line ("(Worker_TP1 pid=N)
    // ERROR 11-29 12:12:24 [multiproc_executor.py:815] RuntimeError: …", Ray's and vLLM's), its digits free to
    // change, comes off the lines above, as it does for a traceback that follows a message: behind it a Python 3.11
    // caret line ("    ^^^^^^") is no body line and ended the frames.
    const head = /^(.*?\S\s+)(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception):/.exec(this.content)?.[1];
    if (head === undefined || /\b(?:File|line \d+)\b/.test(head)) return frames;
    const prefix = new RegExp('^' + head.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\d+/g, '\\d+'));
    const unprefixed = (k: number): RankedLine | undefined => {
      const line = above(k);
      return line === undefined ? undefined : { ...line, content: line.content.replace(prefix, '') };
    };
    return framesOf(tracebackBody(unprefixed, 1 + from, FRAME_LOOKBACK_LINES, this.rank, true).reverse());
  }

  chainedTraceback(): SourceFrame[] {
    const below = this.rankedBelow;
    // The exception's message can go on for a few lines first (NCCL's "Last error:" block); a
    // frame or a new traceback before the marker means the chain is not this exception's.
    let k = 1;
    for (; k <= LOOKAHEAD_LINES; k++) {
      const content = below(k)?.content;
      if (content === undefined || isChainMarker(content) || isTracebackHeader(content) || parseFrameLine(content) !== undefined) break;
    }
    if (!isChainMarker(below(k)?.content ?? '')) return [];
    k++;
    const skipBlank = (): void => {
      while (k <= LOOKAHEAD_LINES && below(k)?.content.trim() === '') k++;
    };
    skipBlank();
    if (!isTracebackHeader(below(k)?.content ?? '')) return [];
    return framesOf(tracebackBody(below, k + 1, FOLLOWING_BODY_LINES, this.rank, false));
  }

  /**
   * The traceback that starts within the look-ahead, for messages printed before their traceback
   * (loggers that print the error and then format_exc(), TensorFlow's "(see above for traceback)",
   * a parent process reporting a child's crash). This rank's traceback if there is one, else the
   * first one of any rank.
   */
  followingTraceback(): FollowingTraceback | undefined {
    const below = this.rankedBelow;
    let header: { k: number; rank: number | undefined } | undefined;
    for (let k = 1; k <= LOOKAHEAD_LINES; k++) {
      const line = below(k);
      if (line === undefined) break;
      if (!isTracebackHeader(line.content)) continue;
      if (line.rank === undefined || this.rank === undefined || line.rank === this.rank) {
        header = { k, rank: line.rank };
        break;
      }
      header ??= { k, rank: line.rank };
    }
    // No header: frames listed right under the message (ComfyUI prints the message, then
    // traceback.format_tb's frames; its error report puts "## Stack Trace" and a code fence between).
    const body = header ? header.k + 1 : headerlessFrames(below);
    if (body === undefined) return undefined;
    const rank = header?.rank;
    // A logger's prefix in front of every line of it ("ERROR 03-27 08:02:54 [worker.py:452] Traceback …", vLLM's
    // logger), its digits free to change, comes off each body line so that indentation means what it meant.
    const headerContent = header ? below(header.k)!.content : '';
    const head = headerContent.slice(0, Math.max(0, headerContent.indexOf('Traceback (most recent call last)')));
    const prefix = head.trim() === '' ? undefined : new RegExp('^' + head.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\d+/g, '\\d+'));
    const unprefixed = prefix === undefined ? below : (k: number): RankedLine | undefined => {
      const line = below(k);
      return line === undefined ? undefined : { ...line, content: line.content.replace(prefix, '') };
    };
    const frames = framesOf(tracebackBody(unprefixed, body, FOLLOWING_BODY_LINES, rank, false));
    return frames.length > 0 ? { frames, ...(rank !== undefined && { rank }) } : undefined;
  }

  framesListedBelow(): SourceFrame[] {
    const below = this.rankedBelow;
    const body = headerlessFrames(below);
    return body === undefined ? [] : framesOf(tracebackBody(below, body, FOLLOWING_BODY_LINES, this.rank, false));
  }

  atFrames(): SourceFrame[] {
    // The message may run over a few lines before the blank line and "At:".
    let k = 1;
    for (; k <= 4; k++) {
      const content = this.next(k);
      if (content === undefined || isAtHeader(content)) break;
      if (isTracebackHeader(content) || parseFrameLine(content) !== undefined) return [];
    }
    if (!isAtHeader(this.next(k) ?? '')) return [];
    const frames: SourceFrame[] = [];
    for (k++; k <= FOLLOWING_BODY_LINES; k++) {
      const frame = parseAtFrame(this.next(k) ?? '');
      if (!frame) break;
      frames.push(frame);
    }
    return frames.reverse();
  }
}
