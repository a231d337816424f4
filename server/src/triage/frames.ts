import type { SourceFrame } from '../protocol';

/**
 * `File "/path/to/train.py", line 42, in main` — a Python traceback frame. Found anywhere in the
 * line, because launchers and loggers put things in front (`[rank7]:`, `| `, `│ `).
 */
const PYTHON_FRAME = /File "([^"]+)", line (\d+)(?:, in ([^\s,]+))?/;

/** `│ /home/me/project/train.py:187 in step` — a frame of a `rich` traceback. */
const RICH_FRAME = /^[\s│|]*((?:[A-Za-z]:)?[^\s:│|]+\.py):(\d+) in (\S+)/;

/**
 * Paths that belong to Python, the framework or an installed package rather than to the user:
 * site-packages and dist-packages (any OS), the standard library, frozen and synthetic modules.
 */
const LIBRARY_PATH = /(?:site-packages|dist-packages|[\\/]lib(?:64)?[\\/]python\d[\d.]*[\\/]|[\\/]Lib[\\/](?!site)|^<|[\\/]bin[\\/]torchrun$)/;

/** The frame printed on one line, if the line is a frame line. */
export function parseFrameLine(line: string): SourceFrame | undefined {
  const python = PYTHON_FRAME.exec(line);
  if (python) return { file: python[1]!, line: Number(python[2]), function: python[3] ?? '' };
  const rich = RICH_FRAME.exec(line);
  if (rich) return { file: rich[1]!, line: Number(rich[2]), function: rich[3]! };
  return undefined;
}

/** True for frames in the standard library, the framework or an installed package. */
export function isLibraryFrame(frame: SourceFrame): boolean {
  return LIBRARY_PATH.test(frame.file);
}

/** The user's frames, innermost first: frames outside site-packages, the stdlib and the framework. */
export function userFrames(frames: readonly SourceFrame[]): SourceFrame[] {
  return frames.filter((f) => !isLibraryFrame(f)).reverse();
}
