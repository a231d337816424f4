/** Python frames out of the stacks a cell carries (faulthandler dumps and tracebacks). */
import type { SourceFrame } from '../protocol';

/** `  File "/x.py", line 42 in fn` (faulthandler) or `  File "/x.py", line 42, in fn` (traceback). */
const STACK_FRAME = /^\s*File "([^"]+)", line (\d+),? in (\S+)/;

/**
 * The frames of the thread that runs the program, innermost first: in a faulthandler dump the
 * block whose outermost frame is `<module>` (the main thread, wherever the signal landed), in a
 * traceback its frames reversed (a traceback prints the innermost last).
 */
export function stackFrames(stack: string): SourceFrame[] {
  const lines = stack.split('\n');
  const isDump = lines.some((l) => /^(Current thread|Thread) 0x/.test(l));
  if (!isDump) {
    return lines
      .map((l) => STACK_FRAME.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ file: m[1]!, line: Number(m[2]), function: m[3]! }))
      .reverse();
  }
  const blocks: SourceFrame[][] = [];
  for (const line of lines) {
    if (/^(Current thread|Thread) 0x/.test(line)) blocks.push([]);
    else if (line.startsWith('--- ')) break; // what py-spy added after the dump
    const m = STACK_FRAME.exec(line);
    if (m && blocks.length > 0) blocks[blocks.length - 1]!.push({ file: m[1]!, line: Number(m[2]), function: m[3]! });
  }
  return blocks.find((b) => b.at(-1)?.function === '<module>') ?? blocks[0] ?? [];
}
