/**
 * Log text -> verdicts. Each platform's message shapes live in signatures/; this module finds the
 * failure lines, attaches the traceback that leads to them, and decides the kind and the fixes.
 */
import { formatBytes } from '../format';
import type { Evidence, Fix, TriageReport, Verdict } from '../protocol';
import { parseTracebackFrames, userFrames } from './frames';
import { matchCudaOom, type CudaOomNumbers } from './signatures/cuda';

/**
 * The cache holds this share of the card (or the whole request) as free-but-split memory: the
 * request would have fit in memory PyTorch already owns, so the layout, not the total, failed it.
 */
const FRAGMENTATION_SHARE_OF_TOTAL = 0.02;

/** Splits text into lines, dropping ANSI colour codes and CR of CRLF endings. */
export function splitLines(text: string): string[] {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').split(/\r?\n/);
}

export function triageText(text: string, source: string): TriageReport {
  const lines = splitLines(text);
  const verdicts: Verdict[] = [];
  let tracebackStart = 0;
  lines.forEach((line, index) => {
    if (line.startsWith('Traceback (most recent call last):')) tracebackStart = index;
    const numbers = matchCudaOom(line);
    if (!numbers) return;
    const frames = parseTracebackFrames(lines.slice(tracebackStart, index));
    verdicts.push(cudaOomVerdict(numbers, { line: index + 1, text: line.trim() }, userFrames(frames)));
  });
  return { source, verdicts };
}

function isFragmentation(n: CudaOomNumbers): boolean {
  const unallocated = n.reservedUnallocatedBytes ?? 0;
  return unallocated >= n.requestedBytes && unallocated >= n.deviceTotalBytes * FRAGMENTATION_SHARE_OF_TOTAL;
}

function cudaOomVerdict(n: CudaOomNumbers, evidence: Evidence, frames: Verdict['userFrames']): Verdict {
  const fragmented = isFragmentation(n);
  const api = n.platform === 'rocm' ? 'HIP' : 'CUDA';
  const summary =
    `${api} out of memory on device ${n.device}: ${formatBytes(n.requestedBytes)} requested, ` +
    `${formatBytes(n.freeBytes)} free of ${formatBytes(n.deviceTotalBytes)}`;
  const explanation = fragmented
    ? `PyTorch's cache held ${formatBytes(n.reservedUnallocatedBytes ?? 0)} reserved but unallocated, more than the ` +
      `${formatBytes(n.requestedBytes)} requested, yet no free block was large enough: the cached memory is split into ` +
      `pieces. The device itself had only ${formatBytes(n.freeBytes)} left to grow the cache.`
    : `The request for ${formatBytes(n.requestedBytes)} did not fit: the device had ${formatBytes(n.freeBytes)} free` +
      (n.allocatedBytes !== undefined ? ` and PyTorch's live tensors held ${formatBytes(n.allocatedBytes)}` : '') +
      `. The program can catch torch.OutOfMemoryError, but the working set is larger than the card.`;
  return {
    kind: fragmented ? 'fragmentation' : 'catchable-oom',
    platform: n.platform,
    catchable: true,
    summary,
    explanation,
    device: n.device,
    requestedBytes: n.requestedBytes,
    deviceTotalBytes: n.deviceTotalBytes,
    freeBytes: n.freeBytes,
    ...(n.processInUseBytes !== undefined && { processInUseBytes: n.processInUseBytes }),
    ...(n.allocatedBytes !== undefined && { allocatedBytes: n.allocatedBytes }),
    ...(n.reservedUnallocatedBytes !== undefined && { reservedUnallocatedBytes: n.reservedUnallocatedBytes }),
    ...(n.allocatedBytes !== undefined &&
      n.reservedUnallocatedBytes !== undefined && { reservedBytes: n.allocatedBytes + n.reservedUnallocatedBytes }),
    userFrames: frames,
    fixes: fragmented ? fragmentationFixes(n) : capacityFixes(n),
    evidence: [evidence],
  };
}

const expandableSegments = (n: CudaOomNumbers): Fix => ({
  id: 'expandable-segments',
  title: 'Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True',
  rationale:
    `${formatBytes(n.reservedUnallocatedBytes ?? 0)} sat reserved but unallocated; expandable segments grow one mapping ` +
    `instead of stranding memory in fixed-size segments.`,
  snippet: 'export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True',
});

const shrinkPeak: Fix = {
  id: 'shrink-peak',
  title: 'Lower the peak: smaller micro-batch with gradient accumulation, activation checkpointing, or bf16',
  rationale: 'The live tensors at the failing allocation are larger than what the card has left.',
};

function fragmentationFixes(n: CudaOomNumbers): Fix[] {
  return [
    expandableSegments(n),
    {
      id: 'max-split-size',
      title: 'Or cap block splitting: PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512',
      rationale: 'Large cached blocks are then not carved up by small requests, at the cost of more reserved memory.',
      snippet: 'export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512',
    },
    shrinkPeak,
  ];
}

function capacityFixes(n: CudaOomNumbers): Fix[] {
  const fixes: Fix[] = [shrinkPeak];
  if ((n.reservedUnallocatedBytes ?? 0) > 0) fixes.push(expandableSegments(n));
  return fixes;
}
