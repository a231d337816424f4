/**
 * PyTorch's device caching allocators (CUDA, hipified ROCm, XPU, torch_npu) all print the same
 * out-of-memory message shape, in two eras (texts in FACTS.md, c10/cuda/CUDACachingAllocator.cpp):
 *
 * 2.1+:  "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.14 GiB
 *         of which 1.23 GiB is free. [Including non-PyTorch memory, this process has X memory in
 *         use. | Process N has X memory in use. ...] [X allowed; ]Of the allocated memory X is
 *         allocated by PyTorch, [with X allocated in private pools (e.g., CUDA Graphs), ]and X is
 *         reserved by PyTorch but unallocated."  (2.1 spells "capacty"; XPU may omit "of which".)
 * <2.1:  "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity;
 *         14.56 GiB already allocated; 5.00 MiB free; 14.70 GiB reserved in total by PyTorch)";
 *         before 1.4 the last field was "X cached", the cached-but-unallocated part; torch_npu
 *         adds "X current active".
 *
 * This module reads both into numbers; each platform's signature file decides what they mean.
 */
import { formatBytes } from '../../format';
import type { Fix, Platform } from '../../protocol';
import {
  expandableSegments,
  maxSplitSize,
  memoryFraction,
  nonFrameworkMemory,
  otherProcesses,
  shrinkPeak,
  singleAllocationTooLarge,
} from '../fixes';
import { SIZE, toBytes } from '../sizes';
import { richRecordMessage, softWrapped, unwrapped } from './lineContext';
import type { Finding, LineView, Numbers } from './types';

export interface AllocatorMessage {
  /** The word before "out of memory": CUDA, HIP, XPU, NPU; empty when the line starts at "Tried to allocate". */
  api: string;
  /** How the message names the device: GPU, NPU, XPU or Device. */
  deviceWord?: string;
  device?: number;
  numbers: Numbers;
  /** Other processes the message lists with memory on the device. */
  otherProcesses: number;
  /** Bytes in CUDA-graph private pools, when printed. */
  privatePoolBytes?: number;
}

/** The platform whose allocator prints each API word ("HIP" is the hipified CUDA allocator). */
const PLATFORM_OF_API: Readonly<Record<string, Platform>> = { CUDA: 'cuda', HIP: 'rocm', XPU: 'xpu', NPU: 'npu' };

/** The platform an allocator message's API word names, if it is one of the PyTorch device allocators. */
export function platformOfApi(api: string): Platform | undefined {
  return PLATFORM_OF_API[api];
}

const HEAD = new RegExp(String.raw`(?:\b([A-Z]{2,5}) out of memory\.\s*|\bout of memory\.\s*|^|[^A-Za-z])Tried to allocate ${SIZE}`);
/**
 * A sentence of the new era's message. A terminal's fixed-width wrap that broke the line at a space dropped that space
 * when the lines are put back together ("… of which 1.83 GiB is" / "free." reads "isfree."), so each space between
 * its words may be missing.
 */
const sentence = (body: string): RegExp => new RegExp(body.replace(/ /g, ' ?').replace(/SIZE/g, SIZE));

const NEW_DEVICE = sentence(String.raw`(GPU|NPU|XPU|Device)\s*(\d*) has a total capac(?:i)?ty of SIZE`);
/**
 * A compact form of the same numbers in one sentence, in logs of recent PyTorch builds ("GPU has 79.19 GiB total, 6.68 GiB
 * free, 72.48 GiB in use by this process."; from the corpus log, not checked against a release's source), on the head's
 * line or the line under it: the device's total, its free memory and this process's use.
 */
const COMPACT_DEVICE = sentence(String.raw`(GPU|NPU|XPU|Device)\s*(\d*) has SIZE total, SIZE free, SIZE in use by this process`);
const NEW_FREE = sentence(String.raw`of which SIZE is free`);
const NEW_PROCESS = sentence(String.raw`this process has SIZE memory in use`);
const OTHER_PROCESS = new RegExp(String.raw`Process \d+ has ${SIZE} memory in use`, 'g');
const NEW_ALLOWED = sentence(String.raw`SIZE allowed;`);
const NEW_ALLOCATED = sentence(String.raw`Of the allocated memory SIZE is allocated by PyTorch`);
const NEW_PRIVATE = sentence(String.raw`with SIZE allocated in private pools`);
const NEW_UNALLOCATED = sentence(String.raw`and SIZE is reserved by PyTorch but unallocated`);
/** The same sentence cut where a paste or an excerpt ended, after its number and at least "is res" ("… and 2.51 GiB is reserv"). */
const NEW_UNALLOCATED_CUT = new RegExp(sentence(String.raw`and SIZE is res`).source + String.raw`[\w ]*$`);

const OLD_FIELD = new RegExp(String.raw`^\s*${SIZE}\s+(.*?)\s*$`);
const OLD_DEVICE = /^\s*(GPU|NPU|XPU)\s*(\d+)\s*$/;

function bytesOf(match: RegExpExecArray | null, at = 1): number | undefined {
  return match ? toBytes(match[at]!, match[at + 1]!) : undefined;
}

/**
 * The message as PyTorch cased it, from a copy that lowered every letter (an issue title or a quote typed in lower case:
 * "cuda out of memory. tried to allocate 30.00 mib (gpu 0; 8.00 gib total capacity; …)"): the words the parser anchors on
 * and the units get their case back. Only a line with no capital letter at all is read so.
 */
function recased(line: string): string {
  return line
    .replace(/\b(cuda|hip|xpu|npu) out of memory/g, (_, api: string) => `${api.toUpperCase()} out of memory`)
    .replace(/\btried to allocate\b/g, 'Tried to allocate')
    .replace(/\b(\d[\d.,]*)\s?([kmgtp])(i?)b\b/g, (_, n: string, unit: string, i: string) => `${n} ${unit.toUpperCase()}${i}B`)
    .replace(/\b(gpu|npu|xpu)(\s*\d*)(;| has)/g, (_, word: string, n: string, after: string) => `${word.toUpperCase()}${n}${after}`)
    .replace(/\bprocess (\d+) has\b/g, 'Process $1 has')
    .replace(/\bpytorch\b/g, 'PyTorch')
    .replace(/\bof the allocated memory\b/g, 'Of the allocated memory');
}

/** Reads an allocator OOM message from one line; undefined when the line is not one. */
export function parseAllocatorMessage(raw: string): AllocatorMessage | undefined {
  const line = /[A-Z]/.test(raw) || !raw.includes('tried to allocate') ? raw : recased(raw);
  const head = HEAD.exec(line);
  if (!head) return undefined;
  const requestedBytes = toBytes(head[2]!, head[3]!);
  if (requestedBytes === undefined) return undefined;
  const result: AllocatorMessage = { api: head[1] ?? '', numbers: { requestedBytes }, otherProcesses: 0 };
  const rest = line.slice(head.index + head[0].length);
  return rest.trimStart().startsWith('(') ? readOldFormat(rest, result) : readNewFormat(rest, result);
}

/**
 * The new era's message without its head: a paste or a quote that starts at "GPU 0 has a total capacity of …" (its first
 * sentence, with the request, cut off or left in the thread's prose). The device and the sentences after it are read; the
 * request is unknown, so it is never fragmentation.
 */
export function parseHeadlessAllocatorMessage(raw: string): AllocatorMessage | undefined {
  if (HEAD.test(raw)) return undefined;
  const at = NEW_DEVICE.exec(raw);
  if (!at) return undefined;
  const result = readNewFormat(raw.slice(at.index), { api: '', numbers: {}, otherProcesses: 0 });
  return result?.numbers.deviceTotalBytes !== undefined ? result : undefined;
}

/**
 * The new era's message cut right after its request (a paste or a quote that stopped at "… Tried to allocate 18.00 GiB. GPU ",
 * a log line cut at its width), or inside its first sentence before the total's unit ("… GPU 0 has a total capacity of 22.17"):
 * the head is whole, so the request is read, and the device when it was printed; the sentences that were cut give nothing.
 */
const CUT_AFTER_REQUEST = /^\.?\s*(?:(GPU|NPU|XPU|Device)\s*(\d*)(?:\s*has(?: a(?: total(?: capac\w*(?: of(?: [\d.]*)?)?)?)?)?)?\s*)?$/;

function readNewFormat(rest: string, result: AllocatorMessage): AllocatorMessage | undefined {
  const device = NEW_DEVICE.exec(rest);
  const compact = device ? null : COMPACT_DEVICE.exec(rest);
  if (compact) {
    result.deviceWord = compact[1]!;
    if (compact[2] !== '') result.device = Number(compact[2]);
    const total = bytesOf(compact, 3);
    const free = bytesOf(compact, 5);
    const inUse = bytesOf(compact, 7);
    if (total !== undefined) result.numbers.deviceTotalBytes = total;
    if (free !== undefined) result.numbers.freeBytes = free;
    if (inUse !== undefined) result.numbers.processInUseBytes = inUse;
    return result;
  }
  if (!device) {
    const cut = CUT_AFTER_REQUEST.exec(rest);
    if (!cut || result.api === '') return undefined;
    if (cut[1] !== undefined) result.deviceWord = cut[1];
    if (cut[2]) result.device = Number(cut[2]);
    return result;
  }
  result.deviceWord = device[1]!;
  if (device[2] !== '') result.device = Number(device[2]);
  const n = result.numbers;
  n.deviceTotalBytes = bytesOf(device, 3);
  const set = (field: keyof Numbers, value: number | undefined): void => {
    if (value !== undefined) n[field] = value;
  };
  set('freeBytes', bytesOf(NEW_FREE.exec(rest)));
  set('processInUseBytes', bytesOf(NEW_PROCESS.exec(rest)));
  set('allowedBytes', bytesOf(NEW_ALLOWED.exec(rest)));
  set('allocatedBytes', bytesOf(NEW_ALLOCATED.exec(rest)));
  set('reservedUnallocatedBytes', bytesOf(NEW_UNALLOCATED.exec(rest) ?? NEW_UNALLOCATED_CUT.exec(rest)));
  const listed = [...rest.matchAll(OTHER_PROCESS)];
  result.otherProcesses = listed.length;
  // PyTorch names the process by the pid NVML reports; inside a container (Colab, Docker) that is not
  // getpid(), so this process is listed as "Process N has X memory in use". With no "this process has"
  // sentence, one listed process that holds all the device's used memory (total - free, within 1% or
  // 256 MiB) and at least all PyTorch reserved (allocated + reserved but unallocated) is this process:
  // no other process could hold PyTorch's memory.
  if (listed.length === 1 && n.processInUseBytes === undefined && n.allocatedBytes !== undefined && n.deviceTotalBytes !== undefined && n.freeBytes !== undefined) {
    const inUse = bytesOf(listed[0]!);
    const used = n.deviceTotalBytes - n.freeBytes;
    if (inUse !== undefined && inUse >= n.allocatedBytes + (n.reservedUnallocatedBytes ?? 0) && used - inUse <= Math.max(256 * 1024 ** 2, 0.01 * n.deviceTotalBytes)) {
      n.processInUseBytes = inUse;
      result.otherProcesses = 0;
    }
  }
  const privatePool = bytesOf(NEW_PRIVATE.exec(rest));
  if (privatePool !== undefined) result.privatePoolBytes = privatePool;
  return result;
}

/**
 * Whether the text holds an allocator message to its end (so a console's soft wrap cut nothing off):
 * the old era's closing ")", the new era's "reserved by PyTorch but unallocated". Text with no message
 * head counts as complete: there is nothing to continue.
 */
export function allocatorMessageComplete(text: string): boolean {
  const head = HEAD.exec(text);
  if (!head) return true;
  const rest = text.slice(head.index + head[0].length);
  return rest.trimStart().startsWith('(') ? rest.includes(')') : /but unallocated|in use by this process/.test(rest);
}

/**
 * The text of the allocator message that starts on this line: the line itself, or with the lines a
 * terminal hard-wrapped it into (equal widths) or a console soft-wrapped it into (word boundaries,
 * rich's exception panel) put back.
 */
export function allocatorMessageText(line: LineView): string {
  // A record of rich's logging handler, its message wrapped in a column ("… ERROR: CUDA   batch_handler.py:574" / "out of memory. …").
  const rich = richRecordMessage(line);
  if (rich !== undefined && /out of memory/.test(rich)) return rich;
  // The message broken at its sentences ("HIP out of memory. " / "Tried to allocate …" / "Of the allocated
  // memory …", as ComfyUI prints it): the head is alone on its line, so the lines after it are joined.
  // The compact sentence on the line under a head that ends after its request.
  if (/\bTried to allocate [\d.,]+ ?[A-Za-z]+\.\s*$/.test(line.content) && COMPACT_DEVICE.test(line.next(1) ?? '')) return `${line.content.trimEnd()} ${line.next(1)!.trim()}`;
  if (/\bout of memory\.\s*$/.test(line.content) && /^\s*Tried to allocate/.test(line.next(1) ?? '')) {
    let text = line.content.trimEnd();
    for (let k = 1; k <= 4; k++) {
      const next = line.next(k);
      if (next === undefined || next.trim() === '') break;
      text += ` ${next.trim()}`;
      if (allocatorMessageComplete(text)) break;
    }
    return text;
  }
  // 2.x's message is some 420 characters: wrapped at 80 columns it takes six lines. A paste wrapped at a width that varies
  // from line to line breaks inside words ("this proce" / "ss has"); the reading that gives more of the message's numbers wins.
  const hard = unwrapped(line);
  if (hard !== undefined) return hard;
  const spaced = softWrapped(line, allocatorMessageComplete, /Tried to allocate/, 6);
  const glued = softWrapped(line, allocatorMessageComplete, /Tried to allocate/, 6, true);
  if (spaced === undefined || glued === undefined || glued === spaced) return spaced ?? line.content;
  return numbersRead(glued) > numbersRead(spaced) ? glued : spaced;
}

/** How many of its numbers an allocator message gives. */
function numbersRead(text: string): number {
  return Object.keys(parseAllocatorMessage(text)?.numbers ?? {}).length;
}

/** The parenthesised, semicolon-separated era; a message cut off before ")" still yields its fields. */
function readOldFormat(rest: string, result: AllocatorMessage): AllocatorMessage {
  const open = rest.indexOf('(');
  const close = rest.indexOf(')', open);
  const body = rest.slice(open + 1, close < 0 ? undefined : close);
  const n = result.numbers;
  const parts = body.split(';');
  // The last field of a message cut where a paste or an excerpt ended names itself by its first letters ("6.83 GiB rese").
  const cutLabel = (label: string, part: string, whole: string): boolean => close < 0 && part === parts[parts.length - 1] && label.length >= 3 && whole.startsWith(label);
  for (const part of parts) {
    const device = OLD_DEVICE.exec(part);
    if (device) {
      result.deviceWord = device[1]!;
      result.device = Number(device[2]);
      continue;
    }
    const field = OLD_FIELD.exec(part);
    if (!field) continue;
    const bytes = toBytes(field[1]!, field[2]!);
    if (bytes === undefined) continue;
    const label = field[3]!;
    // A message hard-wrapped at a word's end and joined back without a space reads "alreadyallocated".
    const words = label.replace(/\s+/g, '');
    if (words === 'totalcapacity') n.deviceTotalBytes = bytes;
    else if (words === 'alreadyallocated') n.allocatedBytes = bytes;
    else if (label === 'free') n.freeBytes = bytes;
    else if (label.startsWith('reserved in total') || cutLabel(label, part, 'reserved in total by PyTorch')) n.reservedBytes = bytes;
    // 1.x-2.0 print the memory-fraction limit as "X allowed;" when one is set.
    else if (label === 'allowed') n.allowedBytes = bytes;
    else if (label === 'cached' || cutLabel(label, part, 'cached')) n.reservedUnallocatedBytes = bytes;
  }
  return result;
}

/**
 * Memory the cache held but could not hand out. Printed directly since 2.1 ("reserved by PyTorch
 * but unallocated") and before 1.4 ("cached"); in between it is reserved minus allocated.
 */
export function strandedBytes(n: Numbers): number | undefined {
  if (n.reservedUnallocatedBytes !== undefined) return n.reservedUnallocatedBytes;
  if (n.reservedBytes !== undefined && n.allocatedBytes !== undefined) return Math.max(0, n.reservedBytes - n.allocatedBytes);
  return undefined;
}

/**
 * Share of the device that stranded cache must reach to call the failure fragmentation: below it,
 * the cache is doing its job and the request simply does not fit.
 */
export const FRAGMENTATION_SHARE_OF_TOTAL = 0.02;

/**
 * Fragmentation: the cache already held, reserved but unallocated, at least the requested size
 * (and a noticeable share of the device), yet had no block large enough. The allocator frees its
 * unsplit cached blocks and retries before it reports OOM, so what is left is split blocks.
 */
export function isFragmentation(n: Numbers): boolean {
  const stranded = strandedBytes(n);
  if (stranded === undefined || n.requestedBytes === undefined) return false;
  const total = n.deviceTotalBytes ?? 0;
  return stranded >= n.requestedBytes && stranded >= total * FRAGMENTATION_SHARE_OF_TOTAL;
}

export interface AllocatorPlatform {
  signature: string;
  platform: Platform;
  /** How the platform is named in prose: "CUDA", "HIP", "XPU", "NPU". */
  label: string;
  /** The allocator-config variable the platform reads (PYTORCH_CUDA_ALLOC_CONF, PYTORCH_NPU_ALLOC_CONF, ...). */
  allocConfVar: string;
  /** Whether the platform's allocator offers expandable segments, and any caveat to print with it. */
  expandableSegments: { supported: boolean; note?: string };
}

/** The verdict-ready finding for one allocator OOM message on a given platform. */
export function allocatorFinding(msg: AllocatorMessage, p: AllocatorPlatform, rank: number | undefined): Finding {
  const n = msg.numbers;
  const fragmented = isFragmentation(n);
  const stranded = strandedBytes(n);
  const requested = n.requestedBytes ?? 0;
  const where = msg.device !== undefined ? ` on ${msg.deviceWord ?? 'device'} ${msg.device}` : '';
  const said = [
    n.requestedBytes !== undefined ? `${formatBytes(requested)} requested` : undefined,
    n.freeBytes !== undefined ? `${formatBytes(n.freeBytes)} free` : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
  const total = n.deviceTotalBytes !== undefined ? formatBytes(n.deviceTotalBytes) : undefined;
  const summary = `${p.label} out of memory${where}` + (said !== '' ? `: ${said}${total !== undefined ? ` of ${total}` : ''}` : total !== undefined ? ` (${total} device)` : '');
  const parts: string[] = [];
  if (fragmented) {
    parts.push(
      `The cache held ${formatBytes(stranded ?? 0)} reserved but unallocated, at least the ${formatBytes(requested)} requested, ` +
        `yet no cached block was large enough: the memory is split into pieces (fragmentation).`,
    );
  } else if (n.requestedBytes !== undefined) {
    parts.push(`The request for ${formatBytes(requested)} did not fit in what the device had left.`);
  } else {
    parts.push("A request did not fit in what the device had left (the message's first sentence, with its size, is not in the text).");
  }
  if (n.allocatedBytes !== undefined) parts.push(`Live tensors held ${formatBytes(n.allocatedBytes)}.`);
  if (n.processInUseBytes !== undefined && n.allocatedBytes !== undefined) {
    const outside = n.processInUseBytes - n.allocatedBytes - (stranded ?? 0);
    if (outside > 0) parts.push(`${formatBytes(outside)} of this process's memory is outside the allocator (context, libraries, NCCL).`);
  }
  if (msg.privatePoolBytes) parts.push(`${formatBytes(msg.privatePoolBytes)} sits in CUDA-graph private pools, which other allocations cannot reuse.`);
  if (n.allowedBytes !== undefined) parts.push(`A per-process limit of ${formatBytes(n.allowedBytes)} applied.`);
  parts.push('The program could have caught torch.OutOfMemoryError and recovered (smaller batch, retry).');

  const fixes: Fix[] = [];
  const expandable = p.expandableSegments.supported ? expandableSegments(p.allocConfVar, stranded, p.expandableSegments.note ?? '') : undefined;
  if (fragmented) {
    if (expandable) fixes.push(expandable);
    fixes.push(maxSplitSize(p.allocConfVar));
  }
  if (n.allowedBytes !== undefined && n.deviceTotalBytes !== undefined && n.allowedBytes < n.deviceTotalBytes) fixes.push(memoryFraction(n.allowedBytes));
  if (n.deviceTotalBytes !== undefined && requested > n.deviceTotalBytes) fixes.push(singleAllocationTooLarge(requested, n.deviceTotalBytes));
  if (msg.otherProcesses > 0) fixes.push(otherProcesses(msg.otherProcesses));
  fixes.push(shrinkPeak());
  if (n.processInUseBytes !== undefined && n.allocatedBytes !== undefined) {
    const framework = n.allocatedBytes + (stranded ?? 0);
    if (n.processInUseBytes - framework > Math.max(1024 ** 3, 0.1 * n.processInUseBytes)) fixes.push(nonFrameworkMemory(n.processInUseBytes, framework));
  }
  if (!fragmented && expandable && stranded !== undefined && stranded > 0) fixes.push(expandable);
  return {
    signature: p.signature,
    role: 'failure',
    kind: fragmented ? 'fragmentation' : 'catchable-oom',
    platform: p.platform,
    catchable: true,
    summary,
    explanation: parts.join(' '),
    ...(msg.device !== undefined && { device: msg.device }),
    ...(rank !== undefined && { rank }),
    numbers: n,
    fixes,
  };
}
