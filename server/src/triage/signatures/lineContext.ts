/**
 * Reading a failure line together with the lines around it: messages printed over several lines,
 * and C++ exceptions that nothing caught ("terminate called after throwing an instance of ...",
 * then "  what():  <message>"), which abort the process however catchable the message sounds.
 */
import type { LineView } from './types';

/** The message plus the next `count` lines, for messages that runtimes print over several lines. */
export function joinNext(line: LineView, count: number): string {
  const parts = [line.content];
  for (let k = 1; k <= count; k++) {
    const next = line.next(k);
    if (next === undefined) break;
    parts.push(next);
  }
  return parts.join('\n');
}

const TERMINATE = 'terminate called after throwing';

/**
 * True when the line is the `what():` of an exception that reached std::terminate (or holds both
 * on one line): the process aborted, so nothing could catch the error it describes.
 */
export function thrownByTerminate(line: LineView): boolean {
  if (line.content.includes(TERMINATE)) return true;
  return /^\s*what\(\):/.test(line.content) && (line.previous(1) ?? '').includes(TERMINATE);
}

/**
 * True when the line, or one of the three above it, is libstdc++'s ("terminate called after throwing") or libc++'s
 * ("libc++abi: terminating due to uncaught exception", before LLVM 15 and on Android "terminating with uncaught exception")
 * report of an exception nothing caught, or an application's own last-chance handler saying so ("Unhandled exception of type
 * 'St13runtime_error' with message '…', terminating", PIConGPU's), for messages a runtime throws on the terminate line itself
 * or a few lines under it. Further up only over the exception's own continuation lines ruled with "|" (paddle-mobile's enforce
 * block puts its "| [detail]  : …" four lines under the report); never over another rank's lines.
 */
export function thrownUncaught(line: LineView): boolean {
  for (let k = 0; k <= UNCAUGHT_BLOCK_LINES; k++) {
    if (k > 0 && line.previousRank(k) !== line.rank) return false;
    const text = k === 0 ? line.content : (line.previous(k) ?? '');
    if (UNCAUGHT.test(text)) return true;
    if (k >= 3 && !/^\s*\|/.test(text)) return false;
  }
  return false;
}

/** How far above a message the uncaught exception's report may be, over the message's continuation lines. */
const UNCAUGHT_BLOCK_LINES = 8;
const UNCAUGHT = /terminating (?:due to|with) uncaught exception|terminate called after throwing|\bUnhandled exception of type '[^']+' with message\b.*, terminating\s*$/;

/**
 * What a process prints as it ends on an error nothing handled: an uncaught exception's report (UNCAUGHT), Open MPI's
 * banner for MPI_Abort (a check that aborts every rank on a failed call: mpi4jax's) and MPICH's ("Abort(1) on node 3 (rank 3
 * in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1)"), roslaunch's report of a node that exited ("[node-2] process has
 * died [pid 1669, exit code 255, …]"; not exit code 1, Python's exit on an exception nothing caught), MXNet's threaded engine's LOG(FATAL) on an operation's error ("An fatal error occurred in
 * asynchronous engine operation"), Windows' fail-fast status (0xC0000409, "exited with code -1073740791": abort() and
 * std::terminate end a process so), a crash handler catching a crash signal (Unreal Engine's "Signal 11 caught."), the shell's (bash's "Aborted", zsh's
 * "zsh: abort") or the C library's abort report.
 */
const ENDS_PROCESS = new RegExp(String.raw`${UNCAUGHT.source}|\bMPI_ABORT was invoked\b|\bapplication called MPI_Abort\(|^\s*(?:Signal (?:4|6|7|8|11) caught\b|Caught signal (?:4|6|7|8|11)\b)|\bexit(?:ed)? with code -1073740791\b|\bprocess has died \[pid \d+, exit code (?!1,)-?[1-9]|\bAn fatal error occurred in asynchronous engine operation\b|(?<![\w/.-])Aborted(?![\w/.-])|\bSIGABRT\b|\bcore dumped\b|terminate called|\bzsh: abort\b`);
/**
 * A failed C assert() in a function that checks an error, which aborts (glibc: "darknet: ./src/cuda.c:36: check_error: Assertion
 * `0' failed."): right under an error it is the check of that error (darknet checks every CUDA call so); further down, or in
 * another function (a mutex's assert at exit), it checks something else. A CUDA kernel's device-side assert closes its
 * expression with a backtick instead.
 */
const C_ASSERT = /\b\w*(?:check|error|cuda|hip|status)\w*: Assertion `[^`]*?'\s*failed\b/i;
/**
 * glog's FATAL line ("F0611 19:40:24.593505 …", TensorFlow's "… F tensorflow/…/cuda_gpu_executor.cc:881] Check failed:
 * module != nullptr"), after which glog aborts: it ends the process on the failure right above it only (a fatal check a
 * few lines on may have another cause).
 */
const GLOG_FATAL = /^\s*F\d{4} \d\d:\d\d:|(?:^|\s)F [\w./-]+\.(?:cc|cpp|h):\d+\] /;

/** The rank Open MPI's MPI_Abort banner names ("MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD") within `after` lines under the line. */
export function mpiAbortRank(line: LineView, after: number): number | undefined {
  for (let k = 1; k <= after; k++) {
    const m = /\bMPI_ABORT was invoked on rank (\d+)\b/.exec(line.next(k) ?? '');
    if (m) return Number(m[1]);
  }
  return undefined;
}

/**
 * True when the line or one of the `after` lines under it says the process ended on it (ENDS_PROCESS); a line another
 * rank printed says nothing about this one.
 */
export function endsProcessAfter(line: LineView, after: number): boolean {
  if (ENDS_PROCESS.test(line.content)) return true;
  for (let k = 1; k <= after; k++) {
    const rank = line.nextRank(k);
    if (rank !== undefined && line.rank !== undefined && rank !== line.rank) continue;
    const next = line.next(k) ?? '';
    if (ENDS_PROCESS.test(next) || (k === 1 && (GLOG_FATAL.test(next) || C_ASSERT.test(next)))) return true;
  }
  return false;
}

/**
 * True when glog's banner before it aborts ("*** Check failure stack trace: ***") is within `after` lines under the line with
 * no fatal line of its own between (a later fatal check is another failure): a message logged at FATAL over several lines,
 * Paddle's error summary, ended the process.
 */
export function glogAbortBelow(line: LineView, after: number): boolean {
  for (let k = 1; k <= after; k++) {
    const next = line.next(k);
    if (next === undefined || GLOG_FATAL.test(next) || /\bCheck failed\b/.test(next)) return false;
    if (/^\s*\*\*\* Check failure stack trace: \*\*\*\s*$/.test(next)) return true;
  }
  return false;
}

/** Shortest line taken for a terminal's width when lines are cut at it. */
const MIN_WRAP_WIDTH = 80;

/**
 * The line with the lines a terminal cut it into put back together, when output copied from a
 * terminal screen was hard-wrapped at its width ("61.32 GiB reserved in tot" / "al by PyTorch"):
 * such lines all have the terminal's width, so a following line of the same length, and the one
 * after the last full-width line, continue it. Undefined when the next line is not of the same width.
 */
export function unwrapped(line: LineView, maxLines = 3): string | undefined {
  // The terminal cut the line as printed, rank prefix included ("[rank1]: torch.cuda.OutOfMemoryError: ...
  // has a to" / "tal capacity"); the lines it cut off carry no prefix of their own.
  const next = line.next(1)?.length;
  let width = [line.content.length, line.text.length].find((w) => w >= MIN_WRAP_WIDTH && next === w);
  // A terminal capture that padded its lines with spaces to the width shows the width on the line above: a line that
  // fills it and does not end in a space was cut there (inside a word too: "… has 27.45 GiB m" / "emory in use."), even when
  // the line that carries on is not itself cut at that width.
  const above = line.previous(1);
  if (width === undefined && above !== undefined && /\s$/.test(above) && above.length === line.content.length && line.content.length >= MIN_WRAP_WIDTH && !/\s$/.test(line.content) && /^\S/.test(line.next(1) ?? '')) {
    return line.content + line.next(1)!;
  }
  if (width === undefined) return undefined;
  let text = line.content;
  for (let k = 1; k <= maxLines; k++) {
    const next = line.next(k);
    if (next === undefined || next.trim() === '') break;
    text += next;
    if (next.length !== width) break;
  }
  return text;
}

/**
 * The device in onnxruntime's CUDA execution provider's check (core/providers/cuda/cuda_call.cc, after CNTK's: "<lib> failure
 * <code>: <message> ; GPU=<id> ; hostname=… ; file=… ; line=… ; expr=<call>;"), which TensorRT-LLM's and others' errors quote.
 */
export const ORT_DEVICE = /; GPU=(\d+) ;/;
/**
 * The device a CUDA check ends its message with ("CUDA error in memcpy: an illegal memory access was encountered:
 * …/GpuCompute-Cuda.cpp: 376 (device 0)", Omniverse's gpucompute plugin).
 */
export function trailingDevice(text: string): number | undefined {
  const m = /\(device (\d+)\)\s*$/.exec(text);
  return m && /\bCUDA error\b/.test(text) ? Number(m[1]) : undefined;
}

/**
 * The C++ stack frame printed just above this one ("frame #1: c10d::…"), skipping the pieces of a frame that a
 * terminal or a paste hard-wrapped onto lines of their own ("…(0x7f6a… in /home/u/.cache/pypoetry/v" / "irtualenvs/…/libtorch_cuda.so)").
 */
export function previousFrame(line: LineView, maxWrapped = 2): string | undefined {
  for (let k = 1; k <= maxWrapped + 1; k++) {
    const prev = line.previous(k);
    if (prev === undefined || prev.trim() === '') return undefined;
    // A launcher's prefix may come first (Ray's "(Worker pid=N) frame #1: …").
    if (/\bframe #\d+: /.test(prev)) return prev;
  }
  return undefined;
}

const RICH_CONTINUATION = /^\s{4,}\S/;
const RICH_SOURCE = /^[\w.-]+\.py:\d+$/;
const RICH_RECORD_LINES = 40;

/** The message part of a record's first line, without its source column; undefined for a line that is no record's head. */
function richRecordHead(text: string): string | undefined {
  // By hand, not by one regex: a lazy prefix before a run of spaces is quadratic on a line of many spaces.
  const line = text.trimEnd();
  const cut = line.lastIndexOf(' ');
  if (cut < 2 || line[cut - 1] !== ' ' || !RICH_SOURCE.test(line.slice(cut + 1)) || /^\s/.test(line)) return undefined;
  const head = line.slice(0, cut).trimEnd();
  return head === '' ? undefined : head;
}

/**
 * rich's logging handler (RichHandler) lays a record out in columns: its first line ends in the source column ("ERROR    2024-11-28
 * 13:24:44,248 app ERROR: CUDA   batch_handler.py:574"), and the message goes on in lines indented to the message column and
 * padded to the console's width ("         out of memory. Tried to allocate 3.88 GiB. GPU 0      "). The record's message, its
 * lines joined and the source column left out, for a line inside it; undefined when the line is in no such record.
 */
export function richRecordMessage(line: LineView): string | undefined {
  if (!RICH_CONTINUATION.test(line.content)) return undefined;
  let head: string | undefined;
  let up = 1;
  for (; up <= RICH_RECORD_LINES; up++) {
    const above = line.previous(up);
    if (above === undefined) return undefined;
    head = richRecordHead(above);
    if (head !== undefined) break;
    if (!RICH_CONTINUATION.test(above)) return undefined;
  }
  if (head === undefined) return undefined;
  const parts = [head];
  for (let k = -up + 1; k <= RICH_RECORD_LINES - up; k++) {
    const text = k < 0 ? line.previous(-k) : k === 0 ? line.content : line.next(k);
    // The traceback the handler prints under the message is not part of it.
    if (text === undefined || !RICH_CONTINUATION.test(text) || /^\s*Traceback \(most recent call last\)/.test(text)) break;
    parts.push(text.trim());
  }
  return parts.join(' ');
}

/**
 * A message that a console wrapped at word boundaries (rich's exception panel, a narrow terminal with
 * soft wrap, an issue pasted from either): the line stops before the message does, and the next lines
 * carry on without a prefix ("10.97 GiB" / "reserved in total by PyTorch)"). `complete` says whether
 * the text read so far holds the whole message; up to `maxLines` following lines are joined with a
 * space until it does. Stops at a blank line, a traceback or frame line, or a line that starts another
 * message of the same kind (`restarts`). Undefined when the line is already complete or nothing joins.
 */
export function softWrapped(line: LineView, complete: (text: string) => boolean, restarts: RegExp, maxLines = 3, insideWords = false): string | undefined {
  if (complete(line.content)) return undefined;
  let text = line.content;
  for (let k = 1; k <= maxLines; k++) {
    const next = line.next(k);
    if (next === undefined || next.trim() === '' || restarts.test(next) || /Traceback \(most recent call last\)|^\s*File "/.test(next)) break;
    // A number broken by a fixed-width wrap ("… 16.9" / "4 GiB reserved …") is one number: the messages
    // these read never end a line on a bare number (a size always has its unit after it). With `insideWords`, a break
    // between two letters is read as inside a word ("this proce" / "ss has"), as a paste wrapped at a width that varies.
    const glued = (/[\d.]$/.test(text) && /^[\d.]/.test(next)) || (insideWords && /[A-Za-z]$/.test(text) && /^[a-z]/.test(next));
    text = glued ? `${text}${next.trim()}` : `${text.trimEnd()} ${next.trim()}`;
    if (complete(text)) return text;
  }
  return text === line.content ? undefined : text;
}

/**
 * The CUDA device of the Caffe2 operator whose error this line reports: Caffe2 prints the failed operator's
 * OperatorDef under its error ("… device_option { device_type: 1 cuda_gpu_id: 3 }"; caffe2.proto, type 1 is
 * CUDA, the field later named device_id). A log cut after the error line has the one of the operator just above
 * (the same net's device).
 */
export function caffe2Device(line: LineView): number | undefined {
  // The async executor puts "Error from operator: " on a line of its own between the error and the OperatorDef
  // (net_async_base.cc: "[E net_async_base.cc:N] [enforce fail at …] …" / "Error from operator: " / "input: … device_option {…}").
  const below = /^\s*Error from operator:\s*$/.test(line.next(1) ?? '') ? line.next(2) : line.next(1);
  for (const near of [below, line.previous(1)]) {
    const op = /\bdevice_option \{ device_type: 1 (?:cuda_gpu_id|device_id): (\d+)/.exec(near ?? '');
    if (op) return Number(op[1]);
  }
  return undefined;
}

/**
 * The prefix journald/syslog puts before each line of a service's output ("Jul 24 16:07:58 vega
 * ollama[114917]: "): ollama and llama.cpp servers run as systemd units, so their aborts come so.
 */
export const SYSLOG_PREFIX = /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ [\w.@\/-]+(?:\[\d+\])?: /;
