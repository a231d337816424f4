/**
 * The fixes triage can recommend. Each builder takes the numbers that make it fit, so the
 * rationale the user reads names their own sizes; signature files pick and rank them.
 */
import { formatBytes } from '../format';
import type { Fix } from '../protocol';

export const shrinkPeak = (what = 'the live tensors at the failing allocation'): Fix => ({
  id: 'shrink-peak',
  title: 'Lower the peak: smaller micro-batch with gradient accumulation, activation checkpointing, bf16 or 8-bit optimizer state',
  rationale: `The working set (${what}) is larger than what the device had left; the allocator cannot fix that.`,
});

/** Expandable segments, spelled for the platform's allocator-config variable. */
export const expandableSegments = (envVar: string, strandedBytes: number | undefined, note = ''): Fix => ({
  id: 'expandable-segments',
  title: `Set ${envVar}=expandable_segments:True`,
  rationale:
    (strandedBytes !== undefined
      ? `${formatBytes(strandedBytes)} sat reserved but unallocated in cached segments too fragmented to serve the request; `
      : '') + `expandable segments grow one mapping instead of stranding memory in fixed-size segments.${note}`,
  snippet: `export ${envVar}=expandable_segments:True`,
});

export const maxSplitSize = (envVar: string): Fix => ({
  id: 'max-split-size',
  title: `Or stop large cached blocks from being split: ${envVar}=max_split_size_mb:512`,
  rationale: 'Small requests then no longer carve up the large blocks that big requests need, at the cost of more reserved memory.',
  snippet: `export ${envVar}=max_split_size_mb:512`,
});

export const singleAllocationTooLarge = (requested: number, total: number): Fix => ({
  id: 'split-the-op',
  title: 'Split the operation: chunk the batch or sequence, or shard the tensor across devices',
  rationale: `One request of ${formatBytes(requested)} is larger than the whole device (${formatBytes(total)}); no setting makes a single allocation that size fit.`,
});

export const nonFrameworkMemory = (inUse: number, framework: number): Fix => ({
  id: 'non-framework-memory',
  title: 'Account for memory outside the framework: CUDA context, cuBLAS/cuDNN workspaces, NCCL buffers, other libraries',
  rationale: `This process held ${formatBytes(inUse)} on the device but the framework's allocator only ${formatBytes(framework)}; the rest is invisible to its cache.`,
});

export const otherProcesses = (processes: number): Fix => ({
  id: 'other-processes',
  title: 'Free the device: another process holds memory on it (check nvidia-smi / rocm-smi)',
  rationale: `The message lists ${processes} process${processes === 1 ? '' : 'es'} with memory on this device.`,
});

export const memoryFraction = (allowed: number): Fix => ({
  id: 'memory-fraction',
  title: 'Raise or remove the per-process memory fraction (torch.cuda.set_per_process_memory_fraction)',
  rationale: `The process was capped at ${formatBytes(allowed)}, below what the device has.`,
  snippet: 'torch.cuda.set_per_process_memory_fraction(0.95)',
});

export const emptyCacheBeforeCollectives: Fix = {
  id: 'empty-cache-before-collectives',
  title: 'Call torch.cuda.empty_cache() before the first collectives (and after large frees)',
  rationale:
    'Communication libraries allocate device memory outside PyTorch\'s cache; memory the cache holds but does not use is invisible to them, and on ROCm their failure aborts the process instead of raising.',
  snippet: 'torch.cuda.empty_cache()\ntorch.distributed.barrier()',
};

export const ncclHeadroom: Fix = {
  id: 'nccl-headroom',
  title: 'Leave device memory for NCCL: empty the cache before a new collective type, or shrink NCCL buffers (NCCL_BUFFSIZE, NCCL_MAX_NCHANNELS)',
  rationale:
    'NCCL allocates its buffers lazily, outside PyTorch\'s allocator, often at the first collective of a new kind (all_to_all, a new process group); a full cache leaves it nothing.',
  snippet: 'export NCCL_BUFFSIZE=2097152',
};

export const agreeOnFailure: Fix = {
  id: 'agree-on-failure',
  title: 'Make every rank take the same path after a local failure: all-reduce an ok flag before the next collective',
  rationale:
    'A rank that fails (OOM, exception) and skips a collective leaves the healthy ranks waiting in it until the watchdog fires.',
  snippet:
    'ok = torch.tensor([1 if succeeded else 0], device=device)\ntorch.distributed.all_reduce(ok, op=torch.distributed.ReduceOp.MIN)\nif ok.item() == 0:\n    ...  # every rank falls back or stops together',
};

export const flightRecorder: Fix = {
  id: 'flight-recorder',
  title: 'Record what every rank was doing: TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1',
  rationale:
    'The watchdog only says which collective timed out; the flight recorder dump names the ranks that never joined it and their stacks.',
  snippet: 'export TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1',
};

export const findTheRootRank: Fix = {
  id: 'find-root-rank',
  title: 'Look in the other ranks\' logs for the first failure (an OOM or exception) before the timeout',
  rationale:
    'A collective times out when at least one rank never reaches it; the ranks that report the timeout are usually the healthy ones.',
};

export const processWideLock: Fix = {
  id: 'process-wide-lock',
  title: 'Serialize device allocations with graph calls behind one process-wide lock',
  rationale:
    'The runtime keeps the memory type in a process-global flag that graph calls switch; a worker thread allocating at that moment lands in a pool with no capacity.',
  snippet: 'DEVICE_ALLOC_LOCK = threading.Lock()\nwith DEVICE_ALLOC_LOCK:\n    out = compiled_graph(*args)',
};

export const hostMemory: Fix = {
  id: 'host-memory',
  title: 'Lower host memory: fewer DataLoader workers and prefetch, memory-mapped datasets and checkpoints (torch.load(mmap=True)), smaller replay buffers',
  rationale: 'The kernel or the job scheduler killed the process for using too much host RAM; no Python exception is raised.',
  snippet: 'torch.load(path, mmap=True, weights_only=True)',
};

export const debugAsync: Fix = {
  id: 'debug-async-error',
  title: 'Rerun with CUDA_LAUNCH_BLOCKING=1 (or compute-sanitizer) to find the kernel that failed',
  rationale: 'Kernel errors are reported at a later API call, so the printed stack is usually not where the fault happened.',
  snippet: 'CUDA_LAUNCH_BLOCKING=1 python train.py',
};
