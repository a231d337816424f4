/**
 * PyTorch's CUDA (and hipified ROCm) caching-allocator OOM message, 2.2+ format:
 * "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.14 GiB of which
 * 1.23 GiB is free. [Including non-PyTorch memory, this process has 77.90 GiB memory in use.] Of the
 * allocated memory 70.12 GiB is allocated by PyTorch, and 6.31 GiB is reserved by PyTorch but
 * unallocated." (c10/cuda/CUDACachingAllocator.cpp; exact text in FACTS.md).
 */
import { parseSize } from '../../format';
import type { Platform } from '../../protocol';

export interface CudaOomNumbers {
  platform: Platform;
  device: number;
  requestedBytes: number;
  deviceTotalBytes: number;
  freeBytes: number;
  processInUseBytes?: number;
  allocatedBytes?: number;
  reservedUnallocatedBytes?: number;
}

const SIZE = String.raw`([\d.,]+) ([KMGT]?i?B)`;
const HEAD = new RegExp(String.raw`\b(CUDA|HIP) out of memory\. Tried to allocate ${SIZE}\. GPU (\d+) has a total capacity of ${SIZE} of which ${SIZE} is free\.`);
const PROCESS = new RegExp(String.raw`this process has ${SIZE} memory in use`);
const SPLIT = new RegExp(String.raw`Of the allocated memory ${SIZE} is allocated by PyTorch, (?:.*?)and ${SIZE} is reserved by PyTorch but unallocated`);

/** Parses the numbers out of one OOM message line; undefined when the line is not one. */
export function matchCudaOom(line: string): CudaOomNumbers | undefined {
  const head = HEAD.exec(line);
  if (!head) return undefined;
  const requestedBytes = parseSize(head[2]!, head[3]!);
  const deviceTotalBytes = parseSize(head[5]!, head[6]!);
  const freeBytes = parseSize(head[7]!, head[8]!);
  if (requestedBytes === undefined || deviceTotalBytes === undefined || freeBytes === undefined) return undefined;
  const numbers: CudaOomNumbers = {
    platform: head[1] === 'HIP' ? 'rocm' : 'cuda',
    device: Number(head[4]),
    requestedBytes,
    deviceTotalBytes,
    freeBytes,
  };
  const process = PROCESS.exec(line);
  if (process) numbers.processInUseBytes = parseSize(process[1]!, process[2]!);
  const split = SPLIT.exec(line);
  if (split) {
    numbers.allocatedBytes = parseSize(split[1]!, split[2]!);
    numbers.reservedUnallocatedBytes = parseSize(split[3]!, split[4]!);
  }
  return numbers;
}
