/**
 * The contract between the triage engine and the per-platform signature files. A signature reads
 * one log line (plus the few lines after it and the traceback before it) and, when the line is a
 * failure it knows, returns a {@link Finding}: what happened, on which platform, with the numbers
 * exactly as printed (in bytes) and the fixes that fit those numbers.
 */
import type { Fix, Platform, SourceFrame, Verdict, VerdictKind } from '../../protocol';

export type NumberField =
  | 'requestedBytes'
  | 'deviceTotalBytes'
  | 'freeBytes'
  | 'allocatedBytes'
  | 'reservedBytes'
  | 'reservedUnallocatedBytes'
  | 'processInUseBytes'
  | 'allowedBytes';

export const NUMBER_FIELDS: readonly NumberField[] = [
  'requestedBytes',
  'deviceTotalBytes',
  'freeBytes',
  'allocatedBytes',
  'reservedBytes',
  'reservedUnallocatedBytes',
  'processInUseBytes',
  'allowedBytes',
];

export type Numbers = Partial<Pick<Verdict, NumberField>>;

/**
 * How a finding takes part in grouping and cascades:
 * - `failure`: a failure of its own (an OOM, an abort, a crash); identical repeats merge.
 * - `timeout`: a collective that timed out (watchdog); all of a log's timeouts are one hang.
 * - `stuck`: the watchdog itself stuck or the heartbeat monitor firing; a consequence of a timeout.
 * - `host-kill`: the kernel or the launcher killing a process; all of them are one host OOM.
 * - `nccl-error`: the Python-side error NCCL raises; joins the collective OOM it reports, if any.
 * - `after-timeout`: a failure that is known to follow a timeout (the bogus "more than 1EB" OOM).
 */
export type Role = 'failure' | 'timeout' | 'stuck' | 'host-kill' | 'nccl-error' | 'after-timeout';

export interface Finding {
  /** Signature id, e.g. `cuda-caching-allocator`. */
  signature: string;
  role: Role;
  kind: VerdictKind;
  platform: Platform;
  catchable: boolean;
  summary: string;
  explanation: string;
  device?: number;
  rank?: number;
  numbers: Numbers;
  fixes: Fix[];
  /** Offsets of further lines that belong to the evidence (1 = the next line). */
  extraLines?: number[];
  /**
   * Offsets of following lines that print the rest of this failure (the `what():` under
   * "terminate called after throwing"): a finding on one of them adds its numbers, device and
   * platform to this one instead of standing as a failure of its own.
   */
  absorbsLines?: number[];
  /**
   * Offsets of earlier lines (1 = the line before) whose failure this one turns out to be: an OOM
   * message printed first, then the same exception reaching std::terminate. The earlier failure's
   * numbers, device and traceback move into this finding, and it stops standing on its own.
   */
  takesOverLines?: number[];
  /**
   * The traceback is the one printed above the line this many lines up (an exception line whose
   * runtime error block this line belongs to, e.g. Ascend's `EI0006:` under `RuntimeError: ...`), not
   * the one right above this line.
   */
  framesAbove?: number;
  /**
   * A timeout raised as an exception in the thread that waited (Ascend's synchronize and HCCL
   * errors), so its traceback is where the program was; a watchdog's timeout has none of its own.
   */
  raised?: boolean;
  /**
   * Set by the fallback signatures (otherOom.ts, otherFailure.ts): a verdict for a log no specific
   * signature gave one. A fallback finding never stands beside a specific one (the sink drops it
   * when the log has any other finding), and a log keeps one fallback verdict: the first other
   * out-of-memory error, else the failure the log ended with (chosen by the engine's tail pass), else an OOM the program
   * noted and went on from ('noted-oom': an application's report of an OOM it caught, an allocator's warning), which
   * speaks only for a log with no failure of any other kind; the tail pass still runs after one.
   */
  fallback?: 'oom' | 'failure' | 'noted-oom';
  /**
   * Frames the signature read itself, outermost first, for tracebacks that are not Python's (Lua's
   * "stack traceback:"); when set, they replace the Python traceback the engine would look for.
   */
  frames?: SourceFrame[];
  /** Signature facts the engine reads for grouping (e.g. `seq` of a timed-out collective). */
  facts?: Readonly<Record<string, string | number>>;
}

/** One line of the log as a signature sees it, with access to its neighbours. */
export interface LineView {
  /** The line without rank prefix, colour codes and CR. */
  readonly content: string;
  /** The whole line without colour codes and CR (rank prefix kept), as evidence shows it. */
  readonly text: string;
  /** 1-based line number in the input. */
  readonly lineNumber: number;
  /** The rank named by the line's prefix, when it has one. */
  readonly rank?: number;
  /** Content of the k-th following line (1-based, up to the engine's look-ahead), or undefined. */
  next(k: number): string | undefined;
  /** Content of the k-th preceding line (1-based, within the engine's history), or undefined. */
  previous(k: number): string | undefined;
  /** The rank prefix of the k-th preceding line, if it has one. */
  previousRank(k: number): number | undefined;
  /** Rank prefix of the k-th following line, or undefined. */
  nextRank(k: number): number | undefined;
  /**
   * The Python frames of the traceback printed just before this line (or before the line `above`
   * lines up), outermost first.
   */
  frames(above?: number): SourceFrame[];
  /**
   * The frames of the traceback chained after this exception line ("The above exception was the
   * direct cause of the following exception:"), outermost first; empty when none follows.
   */
  chainedTraceback(): SourceFrame[];
  /** The traceback that starts in the lines after this one, for messages printed before their traceback. */
  followingTraceback(): FollowingTraceback | undefined;
  /** The frames listed right under this line with no traceback header of their own, outermost first; empty when none. */
  framesListedBelow(): SourceFrame[];
  /**
   * The frames of pybind11's `At:` list under this exception's message (the Python frames where the
   * error was raised before it crossed C++), outermost first; empty when none follows.
   */
  atFrames(): SourceFrame[];
}

export interface FollowingTraceback {
  /** Outermost first. */
  frames: SourceFrame[];
  /** The rank whose traceback it is, when its lines carry a rank prefix. */
  rank?: number;
}

export interface Signature {
  /** Stable id; also the rule id shown with diagnostics. */
  id: string;
  platform: Platform;
  /**
   * Literal substrings, at least one of which every line this signature matches contains. The
   * engine scans the log for the union of all needles and calls `match` only on those lines.
   */
  needles: readonly string[];
  match(line: LineView): Finding | undefined;
}
