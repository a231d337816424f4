import type { SourceFrame } from '../protocol';

/** `  File "/path/to/train.py", line 42, in main` — the frame line of a Python traceback. */
const FRAME_LINE = /^\s*File "([^"]+)", line (\d+), in (\S+)/;

/** Paths that belong to Python, the framework or an installed package rather than to the user. */
const LIBRARY_PATH = /(?:site-packages|dist-packages|\/lib\/python\d[\d.]*\/|<frozen |^<)/;

/** Reads every Python frame printed in `lines`, in printed order (outermost first). */
export function parseTracebackFrames(lines: readonly string[]): SourceFrame[] {
  const frames: SourceFrame[] = [];
  for (const line of lines) {
    const match = FRAME_LINE.exec(line);
    if (match) frames.push({ file: match[1]!, line: Number(match[2]), function: match[3]! });
  }
  return frames;
}

/** The user's frames, innermost first: frames outside site-packages, the stdlib and the framework. */
export function userFrames(frames: readonly SourceFrame[]): SourceFrame[] {
  return frames.filter((f) => !LIBRARY_PATH.test(f.file)).reverse();
}
