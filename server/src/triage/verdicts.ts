/**
 * Findings -> verdicts. Repeats of one failure merge (the same OOM printed by a logger twice, a
 * collective timeout reported by 64 ranks, dmesg and the shell both reporting a kill), and the
 * cascade is ordered: the root failure first, its consequences after it with `causedBy`.
 *
 * Cascade rules, from how distributed jobs fail:
 * - a collective timeout (hang) is a consequence of a failure on some rank, preferring a memory
 *   failure: the failed rank never reached the collective the others wait in;
 * - the watchdog getting stuck follows the timeout (or, without one, the failure);
 * - an absurd request ("more than 1EB") follows the timeout that corrupted its size;
 * - NCCL's Python-side error joins the collective OOM it reports (or the hang it belongs to).
 */
import type { Evidence, Fix, Platform, SourceFrame, Verdict, VerdictKind } from '../protocol';
import { faulthandlerFrames, framesOnLine, userFrames } from './frames';
import { placeAround } from './evidencePlace';
import { agreeOnFailure } from './fixes';
import { NUMBER_FIELDS, type Finding, type LineView, type Numbers } from './signatures/types';

/** Evidence lines kept per verdict; the rest are counted. */
const MAX_EVIDENCE = 12;
/** Distinct failures kept per log; a log with more is summarized by its first ones. */
const MAX_GROUPS = 200;
const MAX_EVIDENCE_TEXT = 2000;

const MEMORY_KINDS: ReadonlySet<VerdictKind> = new Set(['catchable-oom', 'fragmentation', 'collective-oom', 'runtime-abort', 'host-oom']);

interface Group {
  key: string;
  finding: Finding;
  numbers: Numbers;
  device?: number;
  rank?: number;
  ranks: Set<number>;
  frames: SourceFrame[];
  /** Set when `frames` are those of a traceback printed after the failure (of `rank`, if ranked). */
  framesFollowing?: { rank?: number };
  evidence: Evidence[];
  occurrences: number;
  /**
   * The devices and ranks the failure's lines name in a runtime's standard format, when its reader gave none: one of each
   * is the failure's; a failure printed for several (every rank's NCCL warning) names none.
   */
  placeDevices: Set<number>;
  placeRanks: Set<number>;
}

/**
 * The failure's own traceback, printed before it, with the traceback chained after it ("The above
 * exception was the direct cause of…", "During handling of the above exception…") in front: the
 * chained one holds the frames that were running when the first exception arrived, often the only
 * user code there is (a DataLoader worker's death surfacing in the training loop). When the failure
 * has no traceback before it, the one printed right after it.
 */
/** How far above a message its exception's type line may be (blank lines between, as Paddle prints them). */
const MESSAGE_BELOW_TYPE_LINES = 4;
/**
 * An exception line whose message goes on below it: the type, a colon, and at most a short lead-in ending the line, or
 * OpenVINO's lead-in naming its source ("RuntimeError: Exception from src/inference/src/cpp/infer_request.cpp:245:", the
 * plugin's error two lines under it).
 */
const EXCEPTION_TYPE_LINE = /^\s*(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)\b:(?:\s*[\w. ]*(?:Error|error)?:?|\s+Exception from \S+:\d+:)?\s*$/;

/** Ray's error for a remote task ("ray.exceptions.RayTaskError(ActorDiedError): ray::main_task() (pid=…, ip=…)"). */
const RAY_TASK_ERROR = /\bRayTaskError\(\w+\): ray::/;

function tracebackOf(line: LineView, finding: Finding): Pick<Group, 'frames' | 'framesFollowing'> {
  const own = line.frames(finding.framesAbove);
  // Ray lists the remote task's frames right under its error, with no header: that is where the task failed, inside the
  // driver's call (the frames above, which only reach ray.get), so they go innermost. A traceback with a header further down
  // is another exception's.
  if (RAY_TASK_ERROR.test(line.content)) {
    const remote = line.framesListedBelow();
    if (remote.length > 0) return { frames: [...line.chainedTraceback(), ...own, ...remote] };
  }
  // pybind11's "At:" list under the message holds the frames the error was raised in: the innermost ones.
  const raisedIn = line.atFrames();
  if (own.length > 0 || raisedIn.length > 0) return { frames: [...line.chainedTraceback(), ...own, ...raisedIn] };
  // The message starts on a line of its own under the exception's type ("RuntimeError: ResourceExhaustedError: ",
  // then blank lines; TensorFlow 2's "ResourceExhaustedError: Graph execution error:"): the traceback ends above that line.
  for (let k = 1; k <= MESSAGE_BELOW_TYPE_LINES && finding.framesAbove === undefined; k++) {
    const above = line.previous(k);
    if (above === undefined) break;
    if (!EXCEPTION_TYPE_LINE.test(above)) continue;
    const frames = line.frames(k);
    if (frames.length > 0) return { frames: [...line.chainedTraceback(), ...frames] };
    break;
  }
  const flattened = framesOnLine(line.content);
  if (flattened.length > 0) return { frames: flattened };
  const following = line.followingTraceback();
  // A failure that aborted the interpreter (a runtime's abort() inside a call from Python) is followed by faulthandler's dump
  // of the Python stacks ("Fatal Python error: Aborted", then the threads' frames): the frames of the call it aborted in.
  if (!following) return { frames: faulthandlerFrames(line) };
  return { frames: following.frames, framesFollowing: following.rank !== undefined ? { rank: following.rank } : {} };
}

function evidenceLine(line: number, text: string): Evidence {
  const trimmed = text.trim();
  return { line, text: trimmed.length > MAX_EVIDENCE_TEXT ? `${trimmed.slice(0, MAX_EVIDENCE_TEXT - 3)}...` : trimmed };
}

/** A failure's key without its device, for repeats of one message that name the device only sometimes. */
function devicelessKey(f: Finding): string | undefined {
  return f.role === 'failure' && typeof f.facts?.group !== 'string' ? JSON.stringify([f.signature, f.rank, f.numbers]) : undefined;
}

function groupKey(f: Finding): string {
  switch (f.role) {
    case 'timeout':
    case 'stuck':
    case 'host-kill':
    case 'nccl-error':
    case 'after-timeout':
      return f.role;
    case 'failure': {
      // A log keeps one fallback verdict at most, so a fallback's repeats (other sizes, other lines) are one
      // group: they can never fill MAX_GROUPS and crowd out a specific failure printed later.
      if (f.fallback) return `fallback:${f.signature}`;
      const group = f.facts?.group;
      if (typeof group === 'string') return group;
      return JSON.stringify([f.signature, f.rank, f.device, f.numbers]);
    }
  }
}

/** Collects findings while the engine scans; memory stays bounded by distinct failures. */
export class FindingSink {
  private readonly groups = new Map<string, Group>();
  /** The first group of each deviceless key (see devicelessKey). */
  private readonly byDevicelessKey = new Map<string, Group>();
  private dropped = 0;
  /** Groups a whole print of their failure took over (shorterPrint), by that print's key. */
  private readonly renamed = new Map<string, Group>();
  /** Lines that an earlier finding said print the rest of it, by line number. */
  private readonly claimedLines = new Map<number, Group>();

  add(finding: Finding, line: LineView): void {
    for (const claimed of this.claimedLines.keys()) if (claimed < line.lineNumber) this.claimedLines.delete(claimed);
    const owner = this.claimedLines.get(line.lineNumber);
    if (owner) {
      joinContinuation(owner, finding, line);
      return;
    }
    const earlier = this.takeOver(finding, line);
    const key = groupKey(finding);
    const evidence = [...(earlier?.evidence ?? []), evidenceLine(line.lineNumber, line.text)];
    for (const k of finding.extraLines ?? []) {
      const text = line.next(k);
      if (text !== undefined) evidence.push(evidenceLine(line.lineNumber + k, text));
    }
    const exact = this.groups.get(key) ?? this.renamed.get(key);
    const shortPrint = exact ? undefined : this.shorterPrint(finding, 'earlier');
    if (shortPrint) {
      // The same failure printed whole after a short form of it (an issue's title line, then the full message): the whole
      // message's reading (its kind may depend on the numbers the short form lacks) speaks for both.
      // The group keeps its place (the root comes first), and is found again under the whole message's key.
      this.renamed.set(key, shortPrint);
      shortPrint.finding = finding;
      shortPrint.numbers = { ...shortPrint.numbers, ...finding.numbers };
      if (finding.device !== undefined) shortPrint.device = finding.device;
      shortPrint.occurrences++;
      for (const e of evidence) if (shortPrint.evidence.length < MAX_EVIDENCE && !shortPrint.evidence.some((x) => x.line === e.line)) shortPrint.evidence.push(e);
      if (shortPrint.frames.length === 0) Object.assign(shortPrint, finding.frames ? { frames: finding.frames } : tracebackOf(line, finding));
      return;
    }
    const existing = exact ?? this.shorterPrint(finding, 'this') ?? this.sameFailureOtherwiseNamed(finding);
    if (existing) {
      existing.occurrences++;
      for (const field of NUMBER_FIELDS) if (existing.numbers[field] === undefined && finding.numbers[field] !== undefined) existing.numbers[field] = finding.numbers[field];
      // A log's kills are one host OOM; its resident size is the largest killed process's (the kernel
      // often kills a small child first: "Killed process … anon-rss:0kB", then the process that held the memory).
      const rss = finding.numbers.processInUseBytes;
      if (finding.role === 'host-kill' && rss !== undefined && rss > (existing.numbers.processInUseBytes ?? 0)) existing.numbers.processInUseBytes = rss;
      existing.device ??= finding.device;
      existing.rank ??= finding.rank;
      if (finding.rank !== undefined) existing.ranks.add(finding.rank);
      notePlace(existing, finding, line);
      for (const e of evidence) if (existing.evidence.length < MAX_EVIDENCE && !existing.evidence.some((x) => x.line === e.line)) existing.evidence.push(e);
      // A repeat printed under its own traceback wins over a borrowed one (logging.exception
      // prints the message, then the traceback, then the message again).
      if ((existing.frames.length === 0 || existing.framesFollowing) && (finding.role !== 'timeout' || finding.raised)) {
        const traceback = tracebackOf(line, finding);
        if (traceback.frames.length > 0 && (!traceback.framesFollowing || existing.frames.length === 0)) {
          existing.frames = traceback.frames;
          if (traceback.framesFollowing) existing.framesFollowing = traceback.framesFollowing;
          else delete existing.framesFollowing;
        }
      }
      return;
    }
    if (this.groups.size >= MAX_GROUPS) {
      this.dropped++;
      return;
    }
    const group: Group = {
      key,
      finding,
      numbers: { ...finding.numbers },
      ...(finding.device !== undefined && { device: finding.device }),
      ...(finding.rank !== undefined && { rank: finding.rank }),
      ranks: new Set(finding.rank !== undefined ? [finding.rank] : []),
      // A timeout's traceback above it is some other failure's, unless the timeout was raised there; the stack it names itself is its own.
      ...(finding.frames ? { frames: finding.frames } : (finding.role === 'timeout' || finding.role === 'stuck') && !finding.raised ? { frames: [] } : earlier && earlier.frames.length > 0 ? { frames: earlier.frames } : tracebackOf(line, finding)),
      evidence: evidence.slice(0, MAX_EVIDENCE),
      occurrences: 1,
      placeDevices: new Set(),
      placeRanks: new Set(),
    };
    notePlace(group, finding, line);
    this.groups.set(key, group);
    const deviceless = devicelessKey(finding);
    if (deviceless !== undefined && !this.byDevicelessKey.has(deviceless)) this.byDevicelessKey.set(deviceless, group);
    for (const k of finding.absorbsLines ?? []) this.claimedLines.set(line.lineNumber + k, group);
  }

  /**
   * Removes the group of an earlier line this finding says it is (see `takesOverLines`) and fills
   * the finding's missing numbers, device and rank from it; returns the removed group.
   */
  private takeOver(finding: Finding, line: LineView): Group | undefined {
    for (const k of finding.takesOverLines ?? []) {
      const at = line.lineNumber - k;
      const group = [...this.groups.values()].find((g) => g.finding.role === 'failure' && g.evidence.some((e) => e.line === at));
      if (!group) continue;
      this.groups.delete(group.key);
      for (const [key, g] of this.byDevicelessKey) if (g === group) this.byDevicelessKey.delete(key);
      for (const [key, g] of this.renamed) if (g === group) this.renamed.delete(key);
      const numbers = { ...finding.numbers };
      for (const field of NUMBER_FIELDS) if (numbers[field] === undefined && group.numbers[field] !== undefined) numbers[field] = group.numbers[field];
      finding.numbers = numbers;
      if (finding.device === undefined && group.device !== undefined) finding.device = group.device;
      if (finding.rank === undefined && group.rank !== undefined) finding.rank = group.rank;
      return group;
    }
    return undefined;
  }

  /**
   * The group of a shorter and a whole print of one failure (an issue's title line and the full message, in either order):
   * the same signature and rank, on no other device, every number of the shorter print equal to the whole one's, and the
   * whole one with more. `shorter` says which is this finding's: 'earlier' finds an earlier shorter print this finding
   * completes, 'this' an earlier whole print this finding repeats in short.
   */
  private shorterPrint(finding: Finding, shorter: 'earlier' | 'this'): Group | undefined {
    if (finding.role !== 'failure' || finding.fallback || typeof finding.facts?.group === 'string') return undefined;
    const fields = (n: Numbers) => NUMBER_FIELDS.filter((f) => n[f] !== undefined);
    const contains = (whole: Numbers, part: Numbers) => {
      const have = fields(part);
      return have.length > 0 && have.length < fields(whole).length && have.every((f) => part[f] === whole[f]);
    };
    return [...this.groups.values()].find((g) => {
      if (g.finding.signature !== finding.signature || g.finding.role !== 'failure' || g.rank !== finding.rank) return false;
      if (g.device !== undefined && finding.device !== undefined && g.device !== finding.device) return false;
      return shorter === 'earlier' ? contains(finding.numbers, g.numbers) : contains(g.numbers, finding.numbers);
    });
  }

  /**
   * The group of the same failure printed once with its device and once without (torch_xla's
   * glog lines name no device, its "Exception in device=TPU:6:" line does), if there is one.
   */
  private sameFailureOtherwiseNamed(finding: Finding): Group | undefined {
    const deviceless = devicelessKey(finding);
    const group = deviceless !== undefined ? this.byDevicelessKey.get(deviceless) : undefined;
    return group && (group.device === undefined || finding.device === undefined) ? group : undefined;
  }

  /** Failures that were not kept because the log had more than MAX_GROUPS distinct ones. */
  get droppedFailures(): number {
    return this.dropped;
  }

  /** True when no finding but noted OOMs has been added (the engine's tail pass runs only then). */
  get empty(): boolean {
    return this.dropped === 0 && [...this.groups.values()].every((g) => g.finding.fallback === 'noted-oom');
  }

  verdicts(): Verdict[] {
    // Fallback findings only speak for a log no specific signature read, and then only one of them:
    // the first other out-of-memory error, else the failure the engine's tail pass chose, else a noted OOM.
    const all = [...this.groups.values()];
    const specific = all.filter((g) => !g.finding.fallback);
    const failure = all.find((g) => g.finding.fallback === 'failure');
    const noted = all.find((g) => g.finding.fallback === 'noted-oom');
    // A traceback cut before its exception says nothing of what failed: an OOM the log noted just as much is the likelier cause.
    // (A noted warning that no failure happened, TensorFlow's "not a failure", is no such cause.)
    const fallback = all.find((g) => g.finding.fallback === 'oom') ?? (noted && noted.finding.kind !== 'not-oom' && failure?.finding.facts?.cutTraceback !== undefined ? noted : failure ?? noted);
    const groups = specific.length > 0 ? specific : fallback ? [fallback] : [];
    const byRole = (role: Finding['role']): Group | undefined => groups.find((g) => g.finding.role === role);
    const timeout = byRole('timeout');
    const stuck = byRole('stuck');
    const afterTimeout = byRole('after-timeout');
    const ncclError = byRole('nccl-error');
    const failures = groups.filter((g) => g.finding.role === 'failure' || g.finding.role === 'host-kill');
    const memoryRoot = failures.find((g) => MEMORY_KINDS.has(g.finding.kind)) ?? failures[0];

    const live = groups.filter((g) => g !== ncclError);
    if (ncclError) {
      const host = failures.find((g) => g.finding.kind === 'collective-oom') ?? timeout;
      if (host) absorb(host, ncclError);
      else live.push(ncclError);
    }

    const cause = new Map<Group, Group>();
    if (timeout && memoryRoot) cause.set(timeout, memoryRoot);
    const stuckCause = timeout ?? memoryRoot;
    if (stuck && stuckCause) cause.set(stuck, stuckCause);
    if (afterTimeout && timeout) cause.set(afterTimeout, timeout);

    const roots = live.filter((g) => !cause.has(g));
    const consequences = live.filter((g) => cause.has(g));
    const ordered = [...roots, ...consequences];
    const index = new Map(ordered.map((g, i) => [g, i]));
    return ordered.map((g) => {
      const root = cause.get(g);
      return toVerdict(g, root, root !== undefined ? index.get(root) : undefined);
    });
  }
}

/**
 * A finding on a line that continues an earlier failure (the `what():` message of an uncaught
 * exception) completes it: its numbers, device and platform fill what the first line could not say.
 */
function joinContinuation(into: Group, finding: Finding, line: LineView): void {
  for (const field of NUMBER_FIELDS) if (into.numbers[field] === undefined && finding.numbers[field] !== undefined) into.numbers[field] = finding.numbers[field];
  into.device ??= finding.device;
  into.rank ??= finding.rank;
  if (finding.platform !== into.finding.platform) into.finding = { ...into.finding, platform: finding.platform };
  if (into.evidence.length < MAX_EVIDENCE && !into.evidence.some((e) => e.line === line.lineNumber)) into.evidence.push(evidenceLine(line.lineNumber, line.text));
}

function absorb(into: Group, from: Group): void {
  for (const e of from.evidence) if (into.evidence.length < MAX_EVIDENCE) into.evidence.push(e);
  into.evidence.sort((a, b) => a.line - b.line);
  // The error's own traceback beats one borrowed from the lines after the failure.
  if (into.frames.length === 0 || (into.framesFollowing && !from.framesFollowing && from.frames.length > 0)) {
    into.frames = from.frames;
    if (from.framesFollowing) into.framesFollowing = from.framesFollowing;
    else delete into.framesFollowing;
  }
  into.rank ??= from.rank;
}

/** Records the device and rank this occurrence's lines name (evidencePlace.ts); a kill names none, the lines around it are another process's. */
function notePlace(g: Group, finding: Finding, line: LineView): void {
  if (finding.role === 'host-kill' || (finding.device !== undefined && finding.rank !== undefined)) return;
  const place = placeAround(line, finding.extraLines ?? [], finding.device);
  if (place.device !== undefined) g.placeDevices.add(place.device);
  if (place.rank !== undefined) g.placeRanks.add(place.rank);
}

const onlyOne = (values: ReadonlySet<number>): number | undefined => (values.size === 1 ? [...values][0] : undefined);

/** The group's rank; a message without a rank prefix, followed by a rank's traceback, is that rank's. */
function rankOf(g: Group): number | undefined {
  return g.rank ?? g.framesFollowing?.rank;
}

function toVerdict(g: Group, root: Group | undefined, causedBy: number | undefined): Verdict {
  const f = g.finding;
  let platform: Platform = f.platform;
  // A hang's own lines come from ProcessGroupNCCL on every platform; the root names the hardware.
  if (root && f.platform === 'cuda' && root.finding.platform !== 'cpu' && root.finding.platform !== 'cuda') platform = root.finding.platform;
  let summary = f.summary;
  let explanation = f.explanation;
  let fixes: Fix[] = f.fixes;
  if (f.role === 'timeout' && g.ranks.size > 1) {
    const ranks = [...g.ranks].sort((a, b) => a - b);
    summary += ` (reported by ${ranks.length} ranks)`;
    explanation += ` Ranks reporting it: ${ranks.join(', ')}.`;
  }
  if (root) {
    const rootRank = rankOf(root);
    const where = rootRank !== undefined ? ` on rank ${rootRank}` : '';
    explanation += ` Here it follows the ${root.finding.kind} failure${where} (line ${root.evidence[0]?.line ?? '?'}): ${root.finding.summary}.`;
    if (MEMORY_KINDS.has(root.finding.kind) && f.kind === 'hang') fixes = [agreeOnFailure, ...fixes.filter((x) => x.id !== agreeOnFailure.id)];
  }
  if (g.occurrences > 1 && f.role === 'failure') explanation += ` Printed ${g.occurrences} times.`;
  const ownFrames = userFrames(g.frames);
  if (g.framesFollowing && ownFrames.length > 0) {
    const whose = g.framesFollowing.rank;
    explanation +=
      whose === undefined || whose === g.rank
        ? ' The frames are from the traceback printed right after this message.'
        : g.rank === undefined
          ? ` The frames and the rank are from rank ${whose}'s traceback, printed right after this message.`
          : ` The frames are from rank ${whose}'s traceback, printed right after this message; this rank's own traceback is not in the log.`;
  }
  const verdict: Verdict = {
    kind: f.kind,
    platform,
    catchable: f.catchable,
    summary,
    explanation,
    userFrames: ownFrames,
    fixes: dedupeFixes(fixes),
    evidence: g.evidence,
  };
  const device = g.device ?? onlyOne(g.placeDevices);
  if (device !== undefined) verdict.device = device;
  const rank = rankOf(g) ?? onlyOne(g.placeRanks);
  if (rank !== undefined) verdict.rank = rank;
  for (const field of NUMBER_FIELDS) {
    const value = g.numbers[field];
    if (value !== undefined) verdict[field] = value;
  }
  if (causedBy !== undefined) verdict.causedBy = causedBy;
  return verdict;
}

/**
 * The verdict of a text in which nothing was recognized: not an OOM, on the platform the text names (the host when it
 * names none). It says so rather than leaving the report empty, so every triage answers what kind of failure it read.
 */
export function noFailureVerdict(platform: Platform): Verdict {
  return {
    kind: 'not-oom',
    platform,
    catchable: false,
    summary: 'No out-of-memory failure or crash recognized',
    explanation:
      'No out-of-memory message, kill, abort, hang or other failure Headroom knows is in this text. If the run did fail, ' +
      'its failure is worded in a way Headroom does not read: the last error the program printed is the place to start.',
    userFrames: [],
    fixes: [],
    evidence: [],
    noFailureFound: true,
  };
}

function dedupeFixes(fixes: readonly Fix[]): Fix[] {
  const seen = new Set<string>();
  return fixes.filter((fix) => !seen.has(fix.id) && seen.add(fix.id));
}
