import type { SourceFrame } from '../protocol';

/**
 * Python tracebacks as logs show them: the interpreter's own (`File "/path/train.py", line 42, in
 * main`), `rich`'s, and IPython's (Jupyter, Colab), which names a frame on one line and marks its
 * line number on a later one (`<ipython-input-6-63b342388236> in <module>()` ... `---> 70 ...`).
 */

/**
 * `File "/path/to/train.py", line 42, in main` — a Python traceback frame. Found anywhere in the
 * line, because launchers and loggers put things in front (`[rank7]:`, `| `, `│ `). Code compiled with an
 * empty file name (compile(src, '', 'exec'), a paste that lost the path) prints `File "", line 739, in getCrop`.
 */
const PYTHON_FRAME = /File "([^"]*)", line (\d+)(?:, in ([^\s,]+))?/;
/**
 * The same frame line with its start cut off, as a paste that began mid-line leaves it (`gaussian_model.py",
 * line 190, in create_from_pcd`, ` Project-main/train/utils.py", line 206, in latest_checkpoint_path`):
 * a .py path with its closing quote at the start of the line.
 */
const CUT_PYTHON_FRAME = /^\s*([^\s"]+\.py)", line (\d+), in ([^\s,]+)/;

/** `│ /home/me/project/train.py:187 in step` — a frame of a `rich` traceback. */
const RICH_FRAME = /^[\s│|]*((?:[A-Za-z]:)?[^\s:│|]+\.py):(\d+) in (\S+)/;

/**
 * IPython 8: `Cell In[6], line 70` (a notebook cell) and `File /usr/lib/python3/dist-packages/jax/api.py:413, in cache_miss(...)`
 * (a script's module-level frame ends at the line number: `File /home/u/run.py:2`).
 */
const IPYTHON_CELL = /^\s*(Cell In ?\[\d+\]), line (\d+)/;
const IPYTHON_FILE = /^\s*File ((?:[A-Za-z]:)?[^\s:"]+):(\d+)(?:, in ([^\s(]+)|(?<=\.py:\d+)\s*$)/;

/**
 * A frame whose line number comes on a later marker line: IPython 7's `<ipython-input-6-63b3…> in
 * <module>()` and `/path/api.py in cache_miss(*args)` (from 7.x on, a frame of module level code without the
 * parentheses: `<ipython-input-24-859d…> in <module>`), IPython 8.0-8.4's `Input In [3], in <cell line: 1>()`;
 * Colab's copy of the rendered traceback wraps the file in a markdown link: `[<ipython-input-17-d55b…>](https://localhost:8080/#) in <module>()`;
 * a Databricks notebook names its cell `<command-1357939202606131> in <module>`.
 */
const IPYTHON_HEAD = /^\s*\[?(<ipython-input-[\w-]+>|<command-\d+>|(?:[A-Za-z]:)?[^\s<>"[\]]+\.pyx?)(?:\]\([^)\s]*\))? in ([^\s(]+|<cell line: \d+>)(?:\(|\s*$)|^\s*(Input In \[\d+\]), in (.+?)\(\)\s*$/;
/** `---> 70 outs = run(...)`: the line the frame above it was executing. */
const IPYTHON_MARKER = /^\s*-+> (\d+)/;
/** Colab folds library frames into one line: `18 frames`. */
const FOLDED_FRAMES = /^\s*\d+ frames?\s*$/;

/**
 * The first line of a traceback: Python's `Traceback (most recent call last):`, or IPython's `XxxError   Traceback (most
 * recent call last)`, whose column of spaces a copy from an old notebook loses (`ResourceExhaustedErrorTraceback (most …`).
 */
const TRACEBACK_HEADER = /(?:^|\s|Error|Exception)Traceback \(most recent call last\)/;

/** Timestamps CI systems put before every line (Jenkins' `08:28:40 `, GitHub Actions' `2024-05-01T10:00:00.1234567Z `). */
const CI_TIMESTAMP = /^(?:\d{4}-\d\d-\d\dT)?\d\d:\d\d:\d\d(?:\.\d+)?Z? /;

/**
 * Paths that belong to Python, the framework or an installed package rather than to the user:
 * site-packages and dist-packages (any OS), the standard library (also a Windows install's
 * `…\Python36\lib\`), frozen and synthetic modules (`<frozen …>`, `<string>`: the whole name in angle brackets; a path
 * behind a placeholder a paste put for its prefix, `<redacted>/proj/train.py`, is not one of them; a notebook cell,
 * `<ipython-input-…>`, and code typed or piped in, `<stdin>`, are the user's code), and the
 * console scripts pip writes into a bin folder (`/usr/bin/torchrun`, `venv/bin/accelerate`; see BIN_SCRIPT).
 */
// Julia's own sources and installed packages (share/julia/base and stdlib, ~/.julia/packages, juliaup's installs) are
// library frames; a package checked out with Pkg.develop (~/.julia/dev) is the user's.
// Node's own modules in a V8 stack ("node:events", "internal/child_process.js", and before Node 16 a bare "events.js": a
// script's own files print with their full path) and packages under node_modules are library frames.
// A conda install on Windows keeps the standard library in a lower-case lib next to python.exe
// ("C:\ProgramData\Anaconda3\lib\os.py", "…\miniconda3\envs\x\lib\shutil.py"), no python3.x folder under it.
// The JVM's runtime packages as jvmFrames gives their files ("java/util/ArrayList.java", "android/os/Handler.java").
const LIBRARY_PATH = /(?:^(?:java|javax|jdk|sun|com\/sun|kotlin|kotlinx|scala|android|androidx|dalvik|com\/android|libcore)\/[\w/$]+\.(?:java|kt|scala)$|site-packages|dist-packages|[\\/]share[\\/]julia[\\/]|[\\/]\.julia[\\/](?:packages|juliaup|artifacts)[\\/]|^\.[\\/]boot\.jl$|[\\/]lib(?:64)?[\\/]python\d[\d.]*[\\/]|[\\/]Lib[\\/](?!site)|[\\/][Pp]ython\d+[\\/]lib[\\/](?!site)|[\\/](?:[Aa]naconda|[Mm]iniconda|[Mm]iniforge|[Mm]ambaforge)\d*[\\/](?:envs[\\/][^\\/]+[\\/])?lib[\\/](?!site)|^<(?!ipython-input-|stdin>|command-\d+>)[^<>]*>$|[\\/]node_modules[\\/]|^node:|^internal[\\/]|^[\w.-]+\.js$)/;

/**
 * The host prefix pdsh and clush put before every line they relay (`10.0.0.5: `, `node01: `): an
 * IPv4 address, or a host name with a digit in it, then a colon and a space. Requiring the digit
 * keeps exception lines (`RuntimeError: `) out of it.
 */
const HOST_PREFIX = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z][\w-]*\d[\w.-]*): /;

/**
 * A line without the CI timestamp or the pdsh/clush host prefix in front of it, so that indentation
 * means what it meant.
 */
export function withoutCiTimestamp(line: string): string {
  return line.replace(HOST_PREFIX, '').replace(CI_TIMESTAMP, '');
}

/**
 * A Markdown link as a notebook front end's copy keeps it around a frame's line number: VS Code's Jupyter renders "Cell In[6],
 * [line 107](vscode-notebook-cell:?execution_count=6&line=107)" and "File /srv/run.py:[2](https://…/run.py:2)"; the link's text is
 * what IPython printed.
 */
const MARKDOWN_LINK = /\[([^\][]*)\]\((?:[^()\s]|\([^()\s]*\))*\)/g;

/** The frame printed on one line, if the line is a frame line that carries its line number. */
export function parseFrameLine(raw: string): SourceFrame | undefined {
  const line = raw.includes('](') ? raw.replace(MARKDOWN_LINK, '$1') : raw;
  const python = PYTHON_FRAME.exec(line);
  if (python) return { file: python[1]!, line: Number(python[2]), function: python[3] ?? '' };
  const cut = CUT_PYTHON_FRAME.exec(line);
  if (cut) return { file: cut[1]!, line: Number(cut[2]), function: cut[3]! };
  const rich = RICH_FRAME.exec(line);
  if (rich) return { file: rich[1]!, line: Number(rich[2]), function: rich[3]! };
  const cell = IPYTHON_CELL.exec(line);
  if (cell) return { file: cell[1]!, line: Number(cell[2]), function: '<module>' };
  const file = IPYTHON_FILE.exec(line);
  if (file) return { file: file[1]!, line: Number(file[2]), function: file[3] ?? '<module>' };
  return undefined;
}

/**
 * pybind11's (and nanobind's) error text for a Python exception that crossed C++ (error_string():
 * the message, a blank line, "At:", then one frame per line from the innermost outwards:
 * `  /path/model.py(130): forward`). PyTorch prints it when an error raised in Python code that C++
 * called (autograd's backward re-running a checkpointed forward, a hook) comes back as a RuntimeError.
 */
const AT_HEADER = /^\s*At:\s*$/;
const AT_FRAME = /^\s*(\S.*?)\((\d+)\): ([\w<>.$-]+)\s*$/;

export function isAtHeader(line: string): boolean {
  return AT_HEADER.test(line);
}

/** One frame of an `At:` list, if the line is one. */
export function parseAtFrame(line: string): SourceFrame | undefined {
  const m = AT_FRAME.exec(line);
  return m ? { file: m[1]!, line: Number(m[2]), function: m[3]! } : undefined;
}

/** What CPython prints between an exception's traceback and the one of the exception it led to. */
const CHAIN_MARKER = /The above exception was the direct cause of the following exception:|During handling of the above exception, another exception occurred:/;

export function isChainMarker(line: string): boolean {
  return CHAIN_MARKER.test(line);
}

export function isTracebackHeader(line: string): boolean {
  return TRACEBACK_HEADER.test(line);
}

/**
 * Lines only notebook tracebacks have: IPython frame heads and markers, folded frames, numbered
 * code lines. IPython separates frames with blank lines, so a blank line next to one of these is
 * still inside the traceback.
 */
export function isNotebookLine(line: string): boolean {
  return IPYTHON_HEAD.test(line) || IPYTHON_MARKER.test(line) || FOLDED_FRAMES.test(line) || IPYTHON_CELL.test(line) || IPYTHON_FILE.test(line) || /^\s+\d+\s/.test(line);
}

/**
 * Whether a non-blank line (without its rank prefix and CI timestamp) can sit between a
 * traceback's header and its exception line: a frame, an indented code or caret line,
 * "[Previous line repeated]", a notebook line.
 */
export function isTracebackBody(line: string): boolean {
  // An ellipsis alone on its line is where a paste left frames out ("  File …" / "..." / "RuntimeError: …").
  return parseFrameLine(line) !== undefined || (/^\s/.test(line) && line.trim() !== '') || /^\[Previous line repeated/.test(line.trim()) || isNotebookLine(line) || /^(?:\.{3,}|…)\s*$/.test(line);
}

/**
 * A frame line a console hard-wrapped inside its path (Windows' console at 80 columns: '  File "H:\\work\\lib\\core\\function.p'
 * over 'y", line 56, in train'): the path's quote is still open at the end of the line, and the next line carries on
 * from the very next character. A paste wrapped at a word boundary breaks it after "line" instead ('  File
 * "/home/u/pkg/commandline.py", line' over '1003, in main'): the number and function start the next line.
 */
export const CUT_FRAME_HEAD = /^\s*File "[^"]+$|^\s*File "[^"]+", line\s*$/;

/** A frame line and the line it was wrapped onto, as one (a space goes back where a wrap after "line" took it). */
function joinCutFrame(head: string, rest: string): string {
  return /, line\s*$/.test(head) ? `${head.trimEnd()} ${rest.trim()}` : head + rest;
}

/** The frames of a traceback's body lines in print order (outermost first), every format above. */
export function framesOf(lines: readonly string[]): SourceFrame[] {
  const frames: SourceFrame[] = [];
  let awaitingLine: { file: string; function: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (CUT_FRAME_HEAD.test(line) && i + 1 < lines.length && parseFrameLine(joinCutFrame(line, lines[i + 1]!)) !== undefined) line = joinCutFrame(line, lines[++i]!);
    const frame = parseFrameLine(line);
    if (frame) {
      frames.push(frame);
      awaitingLine = undefined;
      continue;
    }
    const head = IPYTHON_HEAD.exec(line);
    if (head) {
      awaitingLine = { file: (head[1] ?? head[3])!, function: (head[2] ?? head[4])! };
      continue;
    }
    const marker = IPYTHON_MARKER.exec(line);
    if (marker && awaitingLine) {
      frames.push({ ...awaitingLine, line: Number(marker[1]) });
      awaitingLine = undefined;
    }
  }
  return frames;
}

/**
 * A frame of a compiled Cython module in an installed package: Cython's traceback (__Pyx_AddTraceback) names the
 * .pyx file by its path relative to the package root and the function by its qualified name, which starts with
 * that path as a module ("cuda/core/_utils/cuda_utils.pyx", "cuda.core._utils.cuda_utils._check_error"), or the file by its
 * name alone under the package's full name ("ie_api.pyx in openvino.inference_engine.ie_api.IECore.load_network()").
 */
function cythonPackageFrame(frame: SourceFrame): boolean {
  const m = /^([A-Za-z_]\w*(?:\/[A-Za-z_]\w*)*)\.pyx$/.exec(frame.file);
  if (m === null) return false;
  const module = m[1]!.replace(/\//g, '.');
  if (frame.function.startsWith(`${module}.`)) return true;
  // Under its full name the package has two levels at least ("openvino.inference_engine.ie_api"); a module of the user's own
  // project built in place is named under one ("utils.cython_bbox").
  const at = frame.function.indexOf(`.${module}.`);
  return at > 0 && frame.function.slice(0, at).includes('.');
}

/**
 * A script in a bin folder. The console scripts pip and setuptools write there are a few lines that import the package and
 * call its entry point, so their one frame is at module level; a program installed there whole (`/usr/bin/pyrit`) has
 * functions of its own, and a frame inside one is the program's code.
 */
const BIN_SCRIPT = /[\\/]bin[\\/][\w-]+$/;

/**
 * A native source file named in a Python-style traceback: MXNet's and TVM's FFI print their C++ stack that way ("MXNetError:
 * Traceback (most recent call last):" / '  File "src/storage/./pooled_storage_manager.h", line 161'), and that is the library.
 */
const NATIVE_SOURCE = /\.(?:h|hh|hpp|c|cc|cpp|cxx|cu|cuh)$/;

/**
 * The frames of a traceback whose newlines a paste lost, all on the exception's line ("Traceback (most recent call last): File
 * "main.py", line 118, in <module> train(opt) File "…", line 48, in train … RuntimeError: …"), outermost first.
 */
export function framesOnLine(text: string): SourceFrame[] {
  const header = text.search(/T ?raceback \(most recent call last\):/);
  if (header < 0) return [];
  return [...text.slice(header).matchAll(/File "([^"]+)", line (\d+), in ([^\s,]+)/g)].map((m) => ({ file: m[1]!, line: Number(m[2]), function: m[3]! }));
}

/** True for frames in the standard library, the framework or an installed package. */
export function isLibraryFrame(frame: SourceFrame): boolean {
  // \`python -c "…"\` runs the command line's code as the module of \`<string>\` (CPython's pymain_run_command,
  // PyRun_SimpleString): the user's. A \`<string>\` frame inside a function is generated code (dataclasses'
  // \`__init__\`, namedtuple), not the user's.
  if (frame.file === '<string>' && frame.function === '<module>') return false;
  if (cythonPackageFrame(frame) || LIBRARY_PATH.test(frame.file) || NATIVE_SOURCE.test(frame.file)) return true;
  return BIN_SCRIPT.test(frame.file) && (frame.function === '<module>' || frame.function === '');
}

/** The user's frames, innermost first: frames outside site-packages, the stdlib and the framework. */
export function userFrames(frames: readonly SourceFrame[]): SourceFrame[] {
  return frames.filter((f) => !isLibraryFrame(f)).reverse();
}

/**
 * The frames of an IPython traceback whose header ("OutOfMemoryError   Traceback (most recent call last)") is
 * this line: the lines under it, up to the exception's line, outermost first.
 */
export function ipythonFrames(line: { next(k: number): string | undefined }): SourceFrame[] {
  const body: string[] = [];
  for (let k = 1; k <= 40; k++) {
    const next = line.next(k);
    if (next === undefined || /^[A-Za-z_][\w.]*(?:Error|Exception)\b/.test(next)) break;
    body.push(next);
  }
  return framesOf(body);
}

const SRUN_LABEL = /^(\d+): /;
const FAULTHANDLER_THREAD = new RegExp(String.raw`^(?:\d+: )?\s*(Current thread|Thread) 0x[0-9a-fA-F]+ \(most recent call first\):\s*$`);
const FAULTHANDLER_FRAME = new RegExp(String.raw`^(?:\d+: )?\s+File "(.+)", line (\d+) in (\S+)\s*$`);

/**
 * The Python frames faulthandler dumps under "Fatal Python error: …" (Python/traceback.c dump_traceback: "Current thread 0x… (most
 * recent call first):" for the thread that crashed, "Thread 0x… (most recent call first):" for the others, then
 * '  File "…", line N in func' per frame, innermost first), outermost first: the crashed thread's block, or the only block
 * when the dump has one (a thread that crashed outside the interpreter is not marked current). The dump starts within three lines
 * of `line`. Each line may carry srun --label's rank prefix ("0: ").
 */
export function faulthandlerFrames(line: { content: string; next(k: number): string | undefined }): SourceFrame[] {
  const blocks: { current: boolean; frames: SourceFrame[] }[] = [];
  // srun --label's prefix names the task: another task's dump is not this line's.
  const task = SRUN_LABEL.exec(line.content)?.[1];
  for (let k = 1; k <= 200; k++) {
    const next = line.next(k);
    if (next === undefined) break;
    if (next.trim() !== '' && SRUN_LABEL.exec(next)?.[1] !== task) break;
    const head = FAULTHANDLER_THREAD.exec(next);
    if (head) {
      blocks.push({ current: head[1] === 'Current thread', frames: [] });
      continue;
    }
    const frame = FAULTHANDLER_FRAME.exec(next);
    if (frame && blocks.length > 0) {
      blocks[blocks.length - 1]!.frames.unshift({ file: frame[1]!, line: Number(frame[2]), function: frame[3]! });
      continue;
    }
    // Blank lines part the blocks; anything else after a block ends the dump ("Extension modules: …").
    if (next.replace(/^\d+: /, '').trim() !== '' && blocks.length > 0) break;
    if (blocks.length === 0 && k > 3) break;
  }
  const current = blocks.find((b) => b.current);
  return current?.frames ?? (blocks.length === 1 ? blocks[0]!.frames : []);
}
