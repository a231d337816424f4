/**
 * TensorFlow's out-of-memory error, whatever device it ran on: "OOM when allocating tensor with
 * shape[8,64,224,224] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator
 * GPU_0_bfc". Versions before 1.4 stop after the shape and name the device only in the op's node
 * line below it (`_device="/job:localhost/replica:0/task:0/gpu:0"`); Intel's extension (ITEX)
 * names `device:XPU:0`. The allocator prints what it was asked for and its stats just before.
 *
 * This module reads the message into numbers; each platform's signature file claims its devices.
 */
import { formatBytes } from '../../format';
import type { Fix, Platform } from '../../protocol';
import { shrinkPeak } from '../fixes';
import { toBytes } from '../sizes';
import type { Finding, LineView, Numbers } from './types';

export interface TensorflowOom {
  shape: string;
  /** The device type the message or its node line names (GPU, CPU, XPU, ...); undefined when neither does. */
  deviceType?: string;
  device?: number;
  numbers: Numbers;
}

// A paste may lose the message's first letter at the start of a line ("OM when allocating tensor with shape[…]").
const OOM = /(?:OOM|^\s*OM) when allocating tensor (?:with shape|of shape)\s*\[?([^\]]*)\]?/;
const DEVICE = /device:([A-Z]+):(\d+)/;
/** The pre-1.4 device spelling, "/job:localhost/replica:0/task:0/gpu:0". */
const OLD_DEVICE = /\/(gpu|cpu):(\d+)/;
/**
 * The op that failed, printed under the message: "[[Node: ... _device=...]]" or "[[{{node ...}}]]"; a markdown paste may
 * escape its brackets ("\[\[Node: …").
 */
const NODE_LINE = /^\s*\\?\[\\?\[/;
const BFC_LIMIT = /^\s*Limit:\s+(\d+)\s*$/;
const BFC_IN_USE = /^\s*InUse:\s+(\d+)\s*$/;
/** "Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.2KiB (rounded to 1280)", ITEX's "... 117964800 Bytes". */
const REQUESTED = /[Rr]an out of memory trying to allocate ([\d.]+)\s?(Bytes|B|KiB|MiB|GiB|TiB)\b/;
/**
 * TensorFlow 1.x's device banner (gpu_init.cc / gpu_device.cc: "Found device 0 with properties:", the name, clocks and bus id,
 * then "Total memory: 12.00GiB" over "Free memory: 11.62GiB"), printed once at start-up: the device's total, and what was free
 * when the session began.
 */
const BANNER_MEMORY = /^\s*(Total|Free) memory: ([\d.]+)\s?(KiB|MiB|GiB|TiB)\s*$/;
/** Lines searched for the banner: above the message (start-up comes first), then below it, for a paste that put the error first. */
const BANNER_LOOKBACK_LINES = 400;
const BANNER_LOOKAHEAD_LINES = 30;
/** Lines before the message searched for the allocator's report. */
const LOOKBACK_LINES = 12;
/** Lines after the message searched for the allocator's request when none was printed before it. */
const FOLLOWING_REPORT_LINES = 2;

function deviceIn(text: string): { deviceType: string; device: number } | undefined {
  const m = DEVICE.exec(text) ?? OLD_DEVICE.exec(text);
  return m ? { deviceType: m[1]!.toUpperCase(), device: Number(m[2]) } : undefined;
}

/** Reads TensorFlow's OOM message on this line; undefined when the line is not one. */
export function parseTensorflowOom(line: LineView): TensorflowOom | undefined {
  const m = OOM.exec(line.content);
  if (!m) return undefined;
  let where = deviceIn(line.content.slice(m.index));
  for (let k = 1; k <= 3 && !where; k++) {
    const next = line.next(k);
    if (next === undefined || !NODE_LINE.test(next)) break;
    // A terminal that hard-wrapped the node's line at a fixed width continues it on the lines under it, up to its "]]": every
    // piece but the last as wide as the first. The wrap may cut a token ("_device" / "=\"/job:…"), so the pieces join without a space.
    let node = next;
    let piece = next;
    for (let j = k + 1; j <= k + 4 && !node.includes(']]') && piece.length === next.length && next.length >= 80; j++) {
      piece = line.next(j) ?? '';
      node += piece;
    }
    where = deviceIn(node);
  }
  where ??= deviceIn(line.content);
  // A terminal or paste that wrapped the message after "… and type float on " puts the device on the next line
  // ("/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc").
  if (!where && /\bon\s*$/.test(line.content)) where = deviceIn(line.next(1) ?? '');
  const numbers: Numbers = {};
  for (let k = 1; k <= LOOKBACK_LINES; k++) {
    const prev = line.previous(k);
    if (prev === undefined) break;
    const limit = BFC_LIMIT.exec(prev);
    if (limit) numbers.allowedBytes ??= Number(limit[1]);
    const inUse = BFC_IN_USE.exec(prev);
    if (inUse) numbers.allocatedBytes ??= Number(inUse[1]);
    const requested = REQUESTED.exec(prev);
    if (requested) numbers.requestedBytes ??= toBytes(requested[1]!, requested[2]!);
  }
  // TensorFlow 1.x logs the op's error and the allocator's warning in the same microsecond, in either
  // order: "ran out of memory trying to allocate 256.00MiB" can come right after the message.
  for (let k = 1; k <= FOLLOWING_REPORT_LINES && numbers.requestedBytes === undefined; k++) {
    const next = line.next(k);
    if (next === undefined || OOM.test(next)) break;
    const requested = REQUESTED.exec(next);
    if (requested) numbers.requestedBytes = toBytes(requested[1]!, requested[2]!);
  }
  // The banner only when a single GPU was found (one banner), so its sizes are the failing device's.
  const banners: { total?: number; free?: number; found: number }[] = [];
  const readBanner = (text: string | undefined): void => {
    if (text === undefined) return;
    if (/\bFound device \d+ with properties:/.test(text)) banners.push({ found: 1 });
    const b = BANNER_MEMORY.exec(text);
    const last = banners[banners.length - 1];
    if (b && last) {
      const bytes = toBytes(b[2]!, b[3]!);
      if (b[1] === 'Total') last.total ??= bytes;
      else last.free ??= bytes;
    }
  };
  for (let k = BANNER_LOOKBACK_LINES; k >= 1; k--) readBanner(line.previous(k));
  if (banners.length === 0) for (let k = 1; k <= BANNER_LOOKAHEAD_LINES; k++) readBanner(line.next(k));
  if (banners.length === 1) {
    if (banners[0]!.total !== undefined) numbers.deviceTotalBytes ??= banners[0]!.total;
    if (banners[0]!.free !== undefined) numbers.freeBytes ??= banners[0]!.free;
  }
  return { shape: m[1]!, ...where, numbers };
}

/** The verdict-ready finding for a TensorFlow OOM on a platform; `extraFixes` follow the generic one. */
export function tensorflowFinding(msg: TensorflowOom, platform: Platform, deviceLabel: string, line: LineView, extraFixes: readonly Fix[]): Finding {
  const n = msg.numbers;
  const where = msg.device !== undefined ? ` on ${deviceLabel} ${msg.device}` : '';
  return {
    signature: `tensorflow-oom-${platform}`,
    role: 'failure',
    kind: 'catchable-oom',
    platform,
    catchable: true,
    summary: `TensorFlow out of memory${where} allocating a tensor of shape [${msg.shape}]` + (n.requestedBytes !== undefined ? ` (${formatBytes(n.requestedBytes)})` : ''),
    explanation:
      `TensorFlow's allocator could not place the tensor in its ${deviceLabel} memory` +
      (n.allowedBytes !== undefined ? ` (limit ${formatBytes(n.allowedBytes)}, in use ${formatBytes(n.allocatedBytes ?? 0)})` : '') +
      '. ResourceExhaustedError can be caught; the batch or the model is too large for the device.',
    ...(msg.device !== undefined && { device: msg.device }),
    ...(line.rank !== undefined && { rank: line.rank }),
    numbers: n,
    fixes: [shrinkPeak(`the tensor of shape [${msg.shape}]`), ...extraFixes],
  };
}
