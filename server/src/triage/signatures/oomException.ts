/**
 * The exception type PyTorch and CuPy raise for a device out-of-memory, read on its own when the
 * message after it is one no signature knows: cut off ("torch.OutOfMemoryError: Allocation on
 * device "), or from an allocator Headroom has not seen. The type names the platform:
 * torch.OutOfMemoryError and torch.cuda.OutOfMemoryError are the CUDA allocator's (ROCm builds
 * raise them too, with a "HIP out of memory" message the ROCm signatures read first),
 * torch.xpu/torch.mps/torch.npu (torch_npu) name theirs, cupy.cuda.memory.OutOfMemoryError is CUDA.
 * Listed after every platform's signatures, so it only sees lines none of them claimed.
 */
import { formatBytes } from '../../format';
import type { Platform } from '../../protocol';
import { shrinkPeak } from '../fixes';
import { SIZE, toBytes } from '../sizes';
import type { Signature } from './types';

/** `torch.cuda.OutOfMemoryError: <message>` as an exception line prints it (a message follows the colon). */
const OOM_EXCEPTION = /\b((?:torch|torch_npu|cupy)(?:\.\w+)*)\.OutOfMemoryError: (?=\S)/;
/** Code that names the type (`except torch.cuda.OutOfMemoryError: pass`) is not the exception. */
const CODE = /\b(?:except|raise)\b/;
const REQUESTED = new RegExp(String.raw`Tried to allocate ${SIZE}`);
/**
 * ComfyUI's error report (ComfyUI_frontend's errorReportUtil): "- **Exception Type:** torch.cuda.OutOfMemoryError",
 * then "- **Exception Message:** <message>", "## Stack Trace" and the frames.
 */
const REPORTED_TYPE = /\*\*Exception Type:\*\*\s*((?:torch|torch_npu|cupy)(?:\.\w+)*)\.OutOfMemoryError\s*$/;
const REPORTED_MESSAGE = /\*\*Exception Message:\*\*\s*(.*)$/;
/**
 * torch.nn.DataParallel re-raising a replica's exception in the parent (torch/_utils.py ExceptionWrapper.reraise:
 * "Caught OutOfMemoryError in replica 1 on device 1.", then "Original Traceback (most recent call last):"), the type
 * kept: the device is the one the replica ran on.
 */
const REPLICA = /\bCaught \w*OutOfMemoryError in replica \d+ on device (\d+)\./;

function platformOfModule(module: string): Platform {
  if (/\bxpu\b/.test(module)) return 'xpu';
  if (/\bmps\b/.test(module)) return 'mps';
  if (/\bnpu\b|^torch_npu\b/.test(module)) return 'npu';
  return 'cuda';
}

function platformOfWord(word: string): Platform {
  if (word === 'NPU') return 'npu';
  if (word === 'XPU') return 'xpu';
  if (word === 'HIP') return 'rocm';
  if (word.startsWith('MPS')) return 'mps';
  return 'cuda';
}

export const oomException: Signature = {
  id: 'oom-exception',
  platform: 'cuda',
  // Not ".OutOfMemoryError": a needle that starts with a character as common as "." slows the needle check of every candidate line.
  needles: ['OutOfMemoryError'],
  match(line) {
    const reported = REPORTED_TYPE.exec(line.content);
    const m = reported ?? OOM_EXCEPTION.exec(line.content);
    if (!m || (!reported && CODE.test(line.content.slice(0, m.index)))) return undefined;
    // A report's message line that a message signature reads is the verdict, not its type line.
    const message = reported ? REPORTED_MESSAGE.exec(line.next(1) ?? '')?.[1] : undefined;
    if (message !== undefined && /out of memory|Tried to allocate/i.test(message)) return undefined;
    // The message may go on on the next line ("torch.OutOfMemoryError: NPU out of memory." / "Tried to allocate 14.90 GiB.").
    const next = line.next(1) ?? '';
    const requested = REQUESTED.exec(message ?? line.content) ?? (message === undefined && /^\s*Tried to allocate /.test(next) ? REQUESTED.exec(next) : null);
    // torch.OutOfMemoryError is every backend's type since PyTorch 2.5; the word before "out of memory" in its
    // message names the backend (torch_npu's "NPU out of memory.", "XPU out of memory.", "HIP out of memory.").
    // A message cut inside those words ("torch.OutOfMemoryError: HIP out o") still has the backend's word in front.
    const named = /\b(NPU|XPU|HIP|MPS(?: backend)?|CUDA) out(?: of memory|(?: o(?:f(?: \w*)?)?)?\s*$)/.exec(message ?? line.content)?.[1];
    const bytes = requested ? toBytes(requested[1]!, requested[2]!) : undefined;
    const type = `${m[1]}.OutOfMemoryError`;
    const replica = REPLICA.exec(message ?? line.content);
    return {
      signature: 'oom-exception',
      role: 'failure',
      kind: 'catchable-oom',
      platform: named !== undefined ? platformOfWord(named) : platformOfModule(m[1]!),
      catchable: true,
      summary: `${type}` + (bytes !== undefined ? `: ${formatBytes(bytes)} requested` : '') + ' (the message is cut off or not one Headroom reads)',
      explanation:
        `The program received ${type}, the exception its device allocator raises when a request does not fit; it could have caught it. ` +
        'The message that would give the sizes is missing or unknown, so only the type is read.',
      ...(line.rank !== undefined && { rank: line.rank }),
      ...(replica && { device: Number(replica[1]) }),
      numbers: bytes !== undefined ? { requestedBytes: bytes } : {},
      fixes: [shrinkPeak()],
      // A message wrapped after its first sentence ("torch.cuda.OutOfMemoryError: CUDA out of memory." over "Tried to allocate
      // 23.04 GiB (GPU 0; 23.52 GiB total; 0 bytes free)", the pre-1.4 layout): what a signature reads on the next line is the
      // rest of this exception, its device and sizes.
      ...(message === undefined && /^\s*Tried to allocate /.test(next) && { absorbsLines: [1] }),
    };
  },
};
