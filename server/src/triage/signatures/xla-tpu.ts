/**
 * XLA runtimes (JAX, torch_xla, TensorFlow/XLA) on TPUs and GPUs: RESOURCE_EXHAUSTED at run time
 * ("Out of memory while trying to allocate N bytes", "Failed to allocate request for X (NB) on
 * device ordinal N") and at compile time ("Ran out of memory in memory space hbm. Used X of Y hbm.").
 * XLA prints sizes with bare binary suffixes (G = GiB). TensorFlow 1.x and the XRT-era torch_xla
 * spell the status "Resource exhausted:" rather than "RESOURCE_EXHAUSTED:"; that spelling holds no
 * anchor, so those messages are found by their own words (the request, the HBM attempt).
 */
import { formatBytes } from '../../format';
import { findTheRootRank, shrinkPeak } from '../fixes';
import { SIZE, toBytes } from '../sizes';
import { platformNear } from './otherOom';
import type { Finding, LineView, Signature } from './types';

/**
 * The runtime's allocation failure: "Out of memory while trying to allocate 5520758552 bytes." (an exact
 * count), or in newer PJRT GPU/TPU clients a formatted size ("Out of memory while trying to allocate 1.00GiB.").
 */
const RUNTIME = new RegExp(String.raw`Out of memory (?:while trying to allocate|allocating) ${SIZE}`);
/**
 * The TPU runtime's HBM allocator, at run time ("Error allocating device buffer: Attempting to
 * allocate 129.50M. That was not possible. There are 78.17M free.; (0x0x0_HBM0)") and when it
 * loads a program ("Attempting to reserve 7.04G at the bottom of memory. That was not possible.
 * There are 6.90G free, 0B reserved, and 6.90G reservable.").
 */
const HBM_ATTEMPT = new RegExp(String.raw`Attempting to (allocate|reserve) ${SIZE}(?: at the bottom of memory)?\. That was not possible\.(?: There are ${SIZE} free)?`);
/**
 * The error was fatal rather than raised: a glog FATAL line ("2023-04-08 11:22:09.148143: F
 * tensorflow/tsl/platform/statusor.cc:33]", "F0408 11:22:09.148143 ...") or StatusOr::value() on an
 * error ("Attempting to fetch value instead of handling error"), which aborts the process.
 */
const FATAL = /^(?:\S+ \S+: F |F\d{4} )|Attempting to fetch value instead of handling error/;
/**
 * The HBM report the TPU runtime prints under a failed reservation (XRT-era torch_xla): "HBM
 * capacity 8.00G:" then "Currently allocated:    6.08G (   6,532,939,776 bytes)"; the headline
 * sizes are taken, like every other XLA size.
 */
const HBM_CAPACITY = new RegExp(String.raw`^\s*HBM capacity ${SIZE}:`);
const HBM_ALLOCATED = new RegExp(String.raw`^\s*Currently allocated:\s+${SIZE}`);
/**
 * StreamExecutor's scratch allocators on a GPU (ScratchAllocator and RedzoneAllocator, the workspace cuDNN autotuning,
 * cuBLAS and cuFFT plans ask for: "Allocating %d bytes exceeds the memory limit of %d bytes.", a RESOURCE_EXHAUSTED
 * status; TensorFlow and XLA print it under "Profiling failure on CUDNN engine …" or "No algorithm worked!"): a request
 * over the workspace limit, its bytes and the limit exact. GPU-only: TPUs have no such allocator.
 */
const SCRATCH_LIMIT = /\bAllocating (\d+) bytes exceeds the memory limit of (\d+) bytes/;
/**
 * A cloud API's quota refusal with gRPC's RESOURCE_EXHAUSTED status (Google Cloud's "Quota exceeded for quota metric …",
 * "The following quota metrics exceed quota limits: …"): a quota on requests or resources, not memory.
 */
export const CLOUD_QUOTA = /\b(?:Quota exceeded for quota metric|quota metrics? exceeds? quota limits?|Quota '[^']+' exceeded)/i;
/** The status, in either spelling. */
const STATUS = /RESOURCE_EXHAUSTED|Resource exhausted/;
/** The request's size, then its exact bytes in brackets when printed ("… for 74.50GiB (79993765888B) on device ordinal 0"). */
const REQUEST = new RegExp(String.raw`Failed to allocate request for (?:${SIZE})?\s*(?:\((\d+)B\))?(?: on device ordinal (\d+))?`);
/**
 * The device an XLA status names: torch_xla's xmp.spawn prints "Exception in device=TPU:6: <status>",
 * TensorFlow-style device names end in "device:TPU:0".
 */
const DEVICE = /\bdevice[=:](?:TPU|GPU):(\d+)/;
const ALLOCATION_EXCEEDS_MEMORY = /\bAllocation \(size=(\d+)\) would exceed memory \(size=(\d+)\)/;
/** XLA statuses that wrap others list them below: "2 root error(s) found." then "(0) RESOURCE_EXHAUSTED: ...". */
const ROOT_ERRORS = /^\s*\d+ root error\(s\) found/;
/** "Used X of Y" is left out when the space should never overflow ("It should not be possible to run out of vmem"). */
const COMPILE = new RegExp(String.raw`Ran out of memory in memory space (\w+)\.(?: Used ${SIZE} of ${SIZE})?`);
/**
 * The TPU compiler's early exit (jax#7822; --xla_tpu_impure_oom_fast_exit_threshold): "Aborting compilation
 * early because it's unlikely to have enough memory. Requires 3.47E, has 14.49G available." XLA's bare
 * binary suffixes, up to E (an absurd requirement is a shape bug, not a big model).
 */
const EARLY_EXIT = /unlikely to have enough memory\. Requires (\d+(?:\.\d+)?)([KMGTPE]|B)\b, has (\d+(?:\.\d+)?)([KMGTPE]|B)\b available/;
/**
 * A status a terminal or a paste broke inside its message ("…failed: Resource exhausted: Out " / "of memory
 * while trying to allocate 5520758552 bytes."): the status line holds no needle, its continuation does.
 */
const CUT_STATUS = /(?:RESOURCE_EXHAUSTED|Resource exhausted): (\S.*)?$/;
/**
 * The platform convention: an XLA message is read as a TPU's unless the log names a GPU or CUDA (the
 * message's "device:GPU:0", JAX's "found GPU …", CUDA library paths): XLA prints the same words on both.
 */
const NAMES_GPU = /\bGPU\b(?!\s*\/\s*TPU found)|\bgpu:\d|\bCUDA\b|\bcuda\b|\bGPU_\d+_bfc\b|\bCUDNN\b|\bcuDNN\b/;
/** TensorFlow/XLA's BFC allocator of one GPU ("Allocator (GPU_0_bfc) ran out of memory …", bfc_allocator.cc). */
const GPU_BFC = /\bGPU_(\d+)_bfc\b/;

/** BFC's "Stats:" block within the 40 lines above (bfc_allocator.cc DumpMemoryLog: "Limit:  N", "InUse:  N"). */
function bfcStatsAbove(line: LineView): { limit?: number; inUse?: number } | undefined {
  let limit: number | undefined;
  let inUse: number | undefined;
  for (let k = 1; k <= 40; k++) {
    const above = line.previous(k);
    if (above === undefined) break;
    const l = /^\s*Limit:\s+(\d+)\s*$/.exec(above);
    const u = /^\s*InUse:\s+(\d+)\s*$/.exec(above);
    if (l && limit === undefined) limit = Number(l[1]);
    if (u && inUse === undefined) inUse = Number(u[1]);
    if (/\bStats:\s*$/.test(above)) return limit !== undefined && inUse !== undefined ? { limit, inUse } : undefined;
  }
  return undefined;
}

/** The device of the GPU BFC allocator the lines above (or just below) name, if one is named. */
function bfcDevice(line: LineView): number | undefined {
  for (let k = 0; k <= PLATFORM_LOOKBACK_LINES; k++) {
    const above = k === 0 ? line.content : line.previous(k);
    if (above === undefined) break;
    const m = GPU_BFC.exec(above);
    if (m) return Number(m[1]);
  }
  for (let k = 1; k <= 12; k++) {
    const m = GPU_BFC.exec(line.next(k) ?? '');
    if (m) return Number(m[1]);
  }
  return undefined;
}
const HBM_COULD_NOT_ALLOCATE = /\bCould not allocate (\d+) bytes in memory \S+; (\d+) bytes allocatable, (\d+) bytes available\b/;
const NAMES_TPU = /\bTPU\b|\btpu_worker\b|\bHBM\d?\b/;
const PLATFORM_LOOKBACK_LINES = 400;

function namesGpu(line: LineView, text: string): boolean {
  if (NAMES_TPU.test(text)) return false;
  if (NAMES_GPU.test(text)) return true;
  for (let k = 1; k <= PLATFORM_LOOKBACK_LINES; k++) {
    const above = line.previous(k);
    if (above === undefined) break;
    if (NAMES_TPU.test(above)) return false;
    if (NAMES_GPU.test(above) && !/No GPU\/TPU found/.test(above)) return true;
  }
  for (let k = 1; k <= 12; k++) {
    const below = line.next(k);
    if (below === undefined) break;
    if (NAMES_TPU.test(below)) return false;
    if (NAMES_GPU.test(below) && !/No GPU\/TPU found/.test(below)) return true;
  }
  return false;
}

const remat = {
  id: 'xla-remat',
  title: 'Rematerialize: wrap the largest blocks in jax.checkpoint (torch_xla: gradient checkpointing), or lower the per-device batch',
  rationale: 'XLA keeps every activation of the compiled step live unless told to recompute it.',
};
const shard = {
  id: 'xla-shard',
  title: 'Shard parameters and optimizer state across devices (FSDP-style sharding over the mesh)',
  rationale: 'Replicated state costs its full size on every device.',
};
const gpuPool = {
  id: 'xla-gpu-pool',
  title: 'On GPU: XLA_PYTHON_CLIENT_PREALLOCATE=false or a larger XLA_PYTHON_CLIENT_MEM_FRACTION',
  rationale: 'JAX preallocates 75% of the GPU by default; other processes, or a second JAX process, get what is left.',
  snippet: 'export XLA_PYTHON_CLIENT_PREALLOCATE=false',
};

const resourceExhausted: Signature = {
  id: 'xla-resource-exhausted',
  platform: 'xla-tpu',
  needles: ['RESOURCE_EXHAUSTED', 'Resource exhausted: Out of memory', 'Ran out of memory in memory space', 'Failed to allocate request for', 'Attempting to allocate', 'at the bottom of memory', 'unlikely to have enough memory', 'of memory while trying to allocate'],
  match(line) {
    if (line.content.includes('OM when allocating tensor') || CLOUD_QUOTA.test(line.content)) return undefined;
    // The continuation of a status cut inside its message: read it joined to the status line.
    const cut = STATUS.test(line.content) || !line.content.includes('of memory while trying to allocate') ? null : CUT_STATUS.exec(line.previous(1) ?? '');
    if (cut && 'Out of memory while trying to allocate'.startsWith((cut[1] ?? '').trim())) {
      return resourceExhausted.match(joinedView(line, `${line.previous(1)!.trimEnd()} ${line.content.trimStart()}`));
    }
    // A message under its status line ("RuntimeError: Resource exhausted: From /job:tpu_worker/...:",
    // then "Attempting to reserve ..."): a RESOURCE_EXHAUSTED line above reads it as its next line;
    // the old spelling has no needle, so the message line stands for it, and is fatal if it was.
    const statusLine = STATUS.test(line.content) ? undefined : line.previous(1);
    if (statusLine?.includes('RESOURCE_EXHAUSTED')) return undefined;
    // A wrapping status ("From /job:localservice/replica:0/task:0:") says what ran out in its first root error.
    const wraps = ROOT_ERRORS.test(line.next(1) ?? '');
    const c = wraps ? `${line.content}\n${line.next(2) ?? ''}` : line.content;
    const numbers: Finding['numbers'] = {};
    const named = DEVICE.exec(line.content);
    let device = named ? Number(named[1]) : undefined;
    let summary: string;
    let explanation: string;
    const fixes = [remat, shard];
    const compile = COMPILE.exec(c);
    const runtime = RUNTIME.exec(c);
    const request = REQUEST.exec(c);
    // "Error loading program 'jit_train_step':" can end the line, with the sizes on the next one.
    const hbm = HBM_ATTEMPT.exec(c) ?? HBM_ATTEMPT.exec(line.next(1) ?? '');
    const early = EARLY_EXIT.exec(c);
    if (!STATUS.test(c) && !hbm && !request && !compile && !early) return undefined;
    const fatal = FATAL.test(line.content) || (statusLine !== undefined && STATUS.test(statusLine) && FATAL.test(statusLine));
    if (early) {
      const required = toBytes(early[1]!, early[2]!);
      const available = toBytes(early[3]!, early[4]!);
      if (required !== undefined) numbers.requestedBytes = required;
      if (available !== undefined) numbers.freeBytes = available;
      summary = `XLA compile-time OOM: the program needs ${formatBytes(required ?? 0)}, ${formatBytes(available ?? 0)} available`;
      explanation =
        'The compiler estimated the program\'s memory before finishing and gave up: it cannot fit in what the device has free. ' +
        (required !== undefined && required > 2 ** 50 ? 'A requirement this size comes from a shape (an accidental broadcast or outer product), not from the model\'s parameters.' : 'Parameters, optimizer state and live activations of the step together do not fit.');
    } else if (compile) {
      const used = compile[2] !== undefined ? toBytes(compile[2], compile[3]!) : undefined;
      const capacity = compile[4] !== undefined ? toBytes(compile[4], compile[5]!) : undefined;
      if (used !== undefined) numbers.requestedBytes = used;
      if (capacity !== undefined) numbers.deviceTotalBytes = capacity;
      summary = used !== undefined ? `XLA compile-time OOM in ${compile[1]}: the program needs ${formatBytes(used)} of ${formatBytes(capacity ?? 0)}` : `XLA compile-time OOM in ${compile[1]}`;
      explanation =
        `The compiler's buffer assignment for the whole step exceeds the device's ${compile[1]} before anything runs. ` +
        (compile[1] === 'vmem'
          ? 'VMEM is the TPU core\'s on-chip scratch memory: one fused op (often a large matmul or attention tile) is too big, not the model as a whole.'
          : 'Parameters, optimizer state and live activations of the step together do not fit.');
      if (compile[1] === 'vmem') fixes.splice(0, 2, { id: 'xla-smaller-tiles', title: 'Shrink the fused op: smaller block sizes in custom kernels, or split the op (e.g. chunked attention)', rationale: 'VMEM holds the tiles of one kernel, so only the op\'s own size matters.' });
    } else if (hbm) {
      const requested = toBytes(hbm[2]!, hbm[3]!);
      // The free space is on the same line, unless the line was cut after "That was not possible.".
      const free = hbm[4] !== undefined ? toBytes(hbm[4], hbm[5]!) : undefined;
      if (requested !== undefined) numbers.requestedBytes = requested;
      if (free !== undefined) numbers.freeBytes = free;
      readHbmReport(line, numbers);
      const loading = hbm[1] === 'reserve';
      summary = `XLA out of device memory${loading ? ' loading the program' : ''}: ${formatBytes(requested ?? 0)} requested` + (free !== undefined ? `, ${formatBytes(free)} free` : '');
      explanation = loading
        ? 'The runtime could not reserve room for the compiled program (its code and temporaries) at the bottom of HBM: the buffers already live on the device leave too little.'
        : 'The runtime could not allocate a device buffer: the live arrays already on the device leave too little HBM.';
    } else if (runtime || request) {
      // A request may name what it was for and no size ("Failed to allocate request for the program scratch space").
      const bytes = runtime ? toBytes(runtime[1]!, runtime[2]!) : request![3] !== undefined ? Number(request![3]) : request![1] !== undefined ? toBytes(request![1], request![2]!) : undefined;
      if (bytes !== undefined) numbers.requestedBytes = bytes;
      if (request?.[4] !== undefined) device = Number(request[4]);
      summary = 'XLA out of memory' + (bytes !== undefined ? `: ${formatBytes(bytes)} requested` : '') + (device !== undefined ? ` on device ${device}` : '');
      explanation =
        'The XLA runtime could not allocate a buffer on the device while running a compiled step. XlaRuntimeError can be caught; ' +
        'the step\'s live buffers do not fit in what the device (or the preallocated pool) has left.';
      fixes.push(gpuPool);
    } else {
      if (!STATUS.test(c) || !/memory|allocat/i.test(c)) return undefined;
      // The TPU runtime's per-memory form ("RESOURCE_EXHAUSTED: Could not allocate 10485760 bytes in memory 0x0x0_HBM0;
      // 4374528 bytes allocatable, 14942208 bytes available"; trax#431, jax#14304): the request, and the HBM's free bytes in
      // all (available), of which the largest block is the allocatable part.
      const perMemory = HBM_COULD_NOT_ALLOCATE.exec(c);
      // A buffer larger than the memory itself ("RESOURCE_EXHAUSTED: Allocation (size=107374182400) would exceed memory (size=17179869184)").
      const exceeds = ALLOCATION_EXCEEDS_MEMORY.exec(c);
      const scratch = SCRATCH_LIMIT.exec(c);
      if (scratch) {
        numbers.requestedBytes = Number(scratch[1]);
        numbers.allowedBytes = Number(scratch[2]);
        summary = `Out of memory: a GPU scratch workspace of ${formatBytes(Number(scratch[1]))} is over its limit of ${formatBytes(Number(scratch[2]))}`;
        explanation = 'StreamExecutor\'s scratch allocator refused a workspace (cuDNN autotuning, a cuBLAS or cuFFT plan) larger than the memory it may use; the status is raised as RESOURCE_EXHAUSTED, which the program can catch.';
      } else if (perMemory) {
        numbers.requestedBytes = Number(perMemory[1]);
        numbers.freeBytes = Number(perMemory[3]);
        summary = `XLA out of device memory: ${formatBytes(Number(perMemory[1]))} requested, ${formatBytes(Number(perMemory[3]))} free (${formatBytes(Number(perMemory[2]))} in one block)`;
        explanation = 'The runtime could not allocate a device buffer in HBM: the live arrays already on the device leave too little free, and the largest free block is smaller still.';
      } else if (exceeds) {
        numbers.requestedBytes = Number(exceeds[1]);
        numbers.deviceTotalBytes = Number(exceeds[2]);
        summary = `XLA out of device memory: an allocation of ${formatBytes(Number(exceeds[1]))} exceeds the device's ${formatBytes(Number(exceeds[2]))}`;
        explanation = 'The TPU runtime refused a buffer larger than the whole memory it has: no amount of freeing fits it; the array must be smaller or sharded.';
      } else {
        summary = 'XLA out of memory (RESOURCE_EXHAUSTED)';
        explanation = 'An XLA runtime reported RESOURCE_EXHAUSTED for memory.';
      }
    }
    if (fatal) {
      summary = `Process aborted: ${summary}`;
      explanation += ' The runtime treated the error as fatal (a failed check) and aborted the process, so no exception reached the program.';
    }
    // BFC's DumpMemoryLog "Stats:" block (Limit:/InUse: one per line) printed just above the status is the
    // stream-executor GPU client's allocator: TPUs do not use BFC. Its numbers are the limit and the bytes in use.
    const stats = bfcStatsAbove(line);
    const gpu = stats !== undefined || SCRATCH_LIMIT.test(c) || namesGpu(line, c);
    if (gpu && device === undefined) device = bfcDevice(line);
    if (stats?.limit !== undefined && numbers.allowedBytes === undefined) numbers.allowedBytes = stats.limit;
    if (stats?.inUse !== undefined && numbers.allocatedBytes === undefined) numbers.allocatedBytes = stats.inUse;
    return {
      signature: 'xla-resource-exhausted',
      role: 'failure',
      kind: fatal ? 'runtime-abort' : 'catchable-oom',
      platform: gpu ? 'cuda' : 'xla-tpu',
      catchable: !fatal,
      summary,
      explanation,
      ...(device !== undefined && { device }),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers,
      fixes: [...fixes, shrinkPeak()],
      extraLines: wraps ? [1, 2] : [1, 2].filter((k) => /Exceeded \w+ capacity|BufferAssignment OOM|That was not possible/.test(line.next(k) ?? '')),
    };
  },
};

/** The line seen with other content (a cut status joined to its continuation); neighbours stay the line's. */
function joinedView(line: LineView, content: string): LineView {
  return {
    content,
    text: line.text,
    lineNumber: line.lineNumber,
    ...(line.rank !== undefined && { rank: line.rank }),
    next: (k) => line.next(k),
    previous: (k) => line.previous(k + 1),
    previousRank: (k) => line.previousRank(k + 1),
    nextRank: (k) => line.nextRank(k),
    frames: (above) => line.frames(above),
    chainedTraceback: () => line.chainedTraceback(),
    followingTraceback: () => line.followingTraceback(),
    framesListedBelow: () => line.framesListedBelow(),
    atFrames: () => line.atFrames(),
  };
}

/** The capacity and the allocated total of the HBM report in the lines after a failed reservation, when printed. */
function readHbmReport(line: LineView, numbers: Finding['numbers']): void {
  for (let k = 1; k <= 6; k++) {
    const text = line.next(k);
    if (text === undefined) return;
    const capacity = HBM_CAPACITY.exec(text);
    const allocated = HBM_ALLOCATED.exec(text);
    const total = capacity ? toBytes(capacity[1]!, capacity[2]!) : undefined;
    const held = allocated ? toBytes(allocated[1]!, allocated[2]!) : undefined;
    if (total !== undefined) numbers.deviceTotalBytes ??= total;
    if (held !== undefined) numbers.allocatedBytes ??= held;
  }
}

/**
 * JAX's multi-process stalls, read by the tail pass:
 * - the coordination service marking a task dead when its heartbeats stop (tsl coordination_service.cc: "/job:jax_worker/
 *   replica:0/task:3 has been set to ERROR in coordination service: UNAVAILABLE: Task … heartbeat timeout. This indicates that
 *   the remote task has failed, got preempted, or crashed unexpectedly."): the job stops; the task named is the one to read;
 * - jax's own warning when the TPU backend does not come up ("TPU backend initialization is taking more than 60.0 seconds. Did
 *   you run your code on all TPU hosts?", xla_bridge.py) as the last thing the log says: the run is waiting for hosts that were
 *   never started.
 */
const COORDINATION_TIMEOUT = /\bhas been set to ERROR in coordination service: UNAVAILABLE: Task (\S+) heartbeat timeout\b/;
const TPU_INIT_SLOW = /\bTPU backend initialization is taking more than [\d.]+ seconds\b/;

export const tailJaxStall: Signature = {
  id: 'jax-stall',
  platform: 'xla-tpu',
  needles: ['heartbeat timeout', 'initialization is taking more than'],
  match(line) {
    const coordination = COORDINATION_TIMEOUT.exec(line.content);
    const tpuInit = !coordination && TPU_INIT_SLOW.test(line.content);
    if (!coordination && !tpuInit) return undefined;
    // The warning is a stall only where the log ends on it (its "warnings.warn(" echo aside).
    if (tpuInit) for (let k = 1; k <= 6; k++) {
      const next = line.next(k);
      if (next === undefined) break;
      if (next.trim() !== '' && !/^\s*warnings\.warn\(\s*$/.test(next)) return undefined;
    }
    const task = coordination ? /\/task:(\d+)/.exec(coordination[1]!) : null;
    return {
      signature: 'jax-stall',
      role: 'timeout',
      kind: 'hang',
      platform: tpuInit ? 'xla-tpu' : platformNear(line),
      catchable: false,
      summary: coordination
        ? `JAX's coordination service lost task ${task ? task[1] : coordination[1]}: its heartbeats stopped`
        : 'The TPU backend did not come up: JAX is still waiting for the other TPU hosts',
      explanation: coordination
        ? 'Each JAX process sends heartbeats to the coordination service; this one stopped (it failed, was preempted or was killed), and the service set the job to an error state. The failure itself is in that task\'s own log.'
        : 'On a multi-host TPU slice every host must run the program; the backend waits for all of them. The log ends while it waits.',
      ...(task && { rank: Number(task[1]) }),
      numbers: {},
      fixes: coordination
        ? [findTheRootRank]
        : [{ id: 'run-on-all-hosts', title: 'Start the program on every host of the TPU slice (gcloud … tpu-vm ssh --worker=all)', rationale: 'The TPU backend initializes only when all hosts join.' }],
      facts: { tier: 2 },
    };
  },
};

export const signatures: readonly Signature[] = [resourceExhausted];
