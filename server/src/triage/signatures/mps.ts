/**
 * Apple MPS: "MPS backend out of memory (MPS allocated: X, other allocations: Y, max allowed: Z).
 * Tried to allocate W on private pool." (buffers shared with the CPU say "on shared pool"; small ones
 * print "256 bytes"; some consoles break the line before "Tried"). The allocator caps itself at a high watermark of the
 * unified memory (PYTORCH_MPS_HIGH_WATERMARK_RATIO); sizes are binary even when labelled GB. Metal's
 * own assertions abort the process instead (a buffer Metal cannot allocate, an array over MPS's limits).
 */
import { formatBytes } from '../../format';
import { shrinkPeak } from '../fixes';
import { SIZE, toBytes } from '../sizes';
import { endsProcessAfter, thrownUncaught } from './lineContext';
import type { Signature } from './types';

const MESSAGE = new RegExp(
  String.raw`MPS backend out of memory \(MPS allocated: ${SIZE}, other allocations: ${SIZE}, max allowed: ${SIZE}\)\. Tried to allocate ${SIZE}`,
);

const backendOom: Signature = {
  id: 'mps-out-of-memory',
  platform: 'mps',
  needles: ['MPS backend out of memory'],
  match(line) {
    // The message is one line in PyTorch; wrapped output puts "Tried to allocate" on the next.
    const m = MESSAGE.exec(line.content) ?? MESSAGE.exec(`${line.content} ${line.next(1) ?? ''}`);
    if (!m) return undefined;
    const wrapped = !MESSAGE.test(line.content);
    const allocated = toBytes(m[1]!, m[2]!);
    const other = toBytes(m[3]!, m[4]!) ?? 0;
    const allowed = toBytes(m[5]!, m[6]!);
    const requested = toBytes(m[7]!, m[8]!);
    const othersDominate = allocated !== undefined && other > allocated;
    return {
      signature: 'mps-out-of-memory',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'mps',
      catchable: true,
      summary: `MPS out of memory: ${formatBytes(requested ?? 0)} requested, ${formatBytes(allocated ?? 0)} allocated of ${formatBytes(allowed ?? 0)} allowed`,
      explanation:
        `PyTorch's MPS allocator held ${formatBytes(allocated ?? 0)} and other allocations (the Metal heap, other processes' share of unified memory) ` +
        `${formatBytes(other)}, against a cap of ${formatBytes(allowed ?? 0)}. The cap protects the system from swapping to a halt.`,
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {
        ...(requested !== undefined && { requestedBytes: requested }),
        ...(allocated !== undefined && { allocatedBytes: allocated }),
        ...(allowed !== undefined && { allowedBytes: allowed }),
      },
      fixes: [
        ...(othersDominate ? [{ id: 'mps-other-allocations', title: 'Close other GPU-heavy apps, or call torch.mps.empty_cache() between stages', rationale: `Other allocations (${formatBytes(other)}) exceed PyTorch's own (${formatBytes(allocated ?? 0)}).`, snippet: 'torch.mps.empty_cache()' }] : []),
        shrinkPeak(),
        { id: 'mps-watermark', title: 'Last resort: raise PYTORCH_MPS_HIGH_WATERMARK_RATIO (0.0 removes the cap and can freeze the machine)', rationale: 'The cap is a share of unified memory; above it macOS starts swapping.', snippet: 'export PYTORCH_MPS_HIGH_WATERMARK_RATIO=1.0' },
      ],
      ...(wrapped && { extraLines: [1] }),
    };
  },
};

/**
 * Metal and MPS check their arguments with assertions that abort the process ("...MPSNDArray.mm:850:
 * failed assertion `[MPSNDArray initWithDevice:descriptor:isTextureBacked:] Error: total bytes of
 * NDArray > 2**32'"), so nothing reaches Python. "Failed to allocate private MTLBuffer for size N"
 * is Metal running out of memory; the others (a single array over 4 GiB, a dimension over INT_MAX)
 * are MPS's limits on one array, which a smaller or split op avoids whatever memory is free.
 */
const metalAssertion: Signature = {
  id: 'mps-metal-assertion',
  platform: 'mps',
  needles: ['failed assertion `'],
  match(line) {
    const assertion = /failed assertion [`'\u2018](.*?)\s*['\u2019]?\s*$/.exec(line.content);
    if (!assertion || !/MPS|MTL|Metal/.test(line.content)) return undefined;
    const allocation = /Failed to allocate private MTLBuffer for size (\d+)/.exec(assertion[1]!);
    const requested = allocation ? Number(allocation[1]) : undefined;
    const common = {
      signature: 'mps-metal-assertion',
      role: 'failure' as const,
      platform: 'mps' as const,
      catchable: false,
      ...(line.rank !== undefined && { rank: line.rank }),
    };
    if (allocation) {
      return {
        ...common,
        kind: 'runtime-abort',
        summary: `Process aborted: Metal could not allocate a ${formatBytes(requested!)} buffer`,
        explanation:
          'Metal failed to allocate a private buffer and asserted, which aborts the process: unlike the MPS allocator\'s own limit, this does not raise a catchable error. ' +
          'One buffer of this size does not fit in the unified memory left to the GPU.',
        numbers: { requestedBytes: requested! },
        fixes: [shrinkPeak('the buffer of the failing op'), splitMpsOp],
      };
    }
    const what = assertion[1]!.replace(/^\[[^\]]*\]\s*/, '').trim();
    if (/NDArray|INT_MAX|2\*\*3[12]/.test(what)) {
      return {
        ...common,
        kind: 'not-oom',
        summary: `Not an OOM: an MPS limit on a single array (${what})`,
        explanation:
          'MPS refuses arrays past its own limits (more than 2**32 bytes in one NDArray, a dimension over INT_MAX) with an assertion that aborts the process. ' +
          'Free memory does not matter: the op must work on smaller pieces.',
        numbers: {},
        fixes: [splitMpsOp],
      };
    }
    return {
      ...common,
      kind: 'not-oom',
      summary: `Not an OOM: a Metal assertion failed (${what})`,
      explanation: 'Metal stopped the process on a call it considers invalid (an MPS kernel bug or an unsupported op); memory is not what ran out.',
      numbers: {},
      fixes: [{ id: 'mps-cpu-op', title: 'Run the failing op on the CPU (move its inputs with .cpu()) and report the op to PyTorch', rationale: 'The assertion is in Metal\'s validation of one call, so avoiding that call on MPS is the workaround.' }],
    };
  },
};

const splitMpsOp = {
  id: 'mps-split-op',
  title: 'Split the op into pieces under 4 GiB: chunk the batch or the sequence (attention slicing, tiled VAE decode), or run that op on the CPU',
  rationale: 'MPS limits the size of one array, whatever memory is free.',
};

/**
 * "RuntimeError: Invalid buffer size: 19.45 GB" (newer builds: "GiB"): the MPS allocator refusing one
 * buffer larger than the device's largest Metal buffer (MTLDevice.maxBufferLength, a fixed share of
 * unified memory), before looking at what is free (pytorch#141909: one bmm output of 72250x72250
 * floats). The allocator refused the request, so it is a catchable OOM like any other (as XPU's 4 GB
 * block limit is), but the pool is not full and freeing memory does not help: the op has to produce
 * smaller pieces. Raised as a RuntimeError, so it can be caught.
 */
const invalidBufferSize: Signature = {
  id: 'mps-invalid-buffer-size',
  platform: 'mps',
  needles: ['Invalid buffer size'],
  match(line) {
    const m = new RegExp(String.raw`Invalid buffer size: ${SIZE}`).exec(line.content);
    if (!m) return undefined;
    const requested = toBytes(m[1]!, m[2]!);
    return {
      signature: 'mps-invalid-buffer-size',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'mps',
      catchable: true,
      summary: `MPS refused one buffer of ${formatBytes(requested ?? 0)}: over Metal's largest buffer size`,
      explanation:
        'Metal caps the size of a single buffer (maxBufferLength) below the unified memory, and PyTorch refuses a larger request before allocating. ' +
        'The memory pool is not full and freeing memory does not help; the op asks for one tensor too large for any buffer.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: requested !== undefined ? { requestedBytes: requested } : {},
      fixes: [splitMpsOp],
    };
  },
};

/**
 * A Metal command buffer that failed because the GPU could not get memory for its resources: Metal's
 * error "Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)" (the error code
 * MTLCommandBufferErrorOutOfMemory). llama.cpp/ggml prints it as "error: Insufficient Memory (...)"
 * with "ggml_metal_graph_compute: command buffer 3 failed with status 5" and returns a failed status
 * to the caller; MLX throws it ("[METAL] Command buffer execution failed: Insufficient Memory"), which
 * aborts the process when nothing catches it (libc++abi: terminating ...).
 */
/** The error by its name, or as its NSError's description prints it ("Error Domain=MTLCommandBufferErrorDomain Code=8 \"Insufficient Memory (IOAF code 8)\""). */
const COMMAND_BUFFER_OOM = /CommandBufferCallbackErrorOutOfMemory|MTLCommandBufferErrorOutOfMemory|Insufficient Memory \(IOAF code 8\)/;
const SWIFT_FATAL = /(?:^|[^\w])Fatal error: /;

const commandBufferOom: Signature = {
  id: 'metal-command-buffer-oom',
  platform: 'mps',
  needles: ['CommandBufferCallbackErrorOutOfMemory', 'MTLCommandBufferErrorOutOfMemory', 'Insufficient Memory (IOAF code 8)'],
  match(line) {
    if (!COMMAND_BUFFER_OOM.test(line.content)) return undefined;
    // Swift's runtime trap ("Fatal error: <error>: file main.swift, line 261", then the process dies of SIGILL) aborts too, and
    // so does what the shell reports right after it ("… (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory) zsh: abort").
    const aborted = thrownUncaught(line) || SWIFT_FATAL.test(line.content) || endsProcessAfter(line, 1);
    const ggml = /command buffer \d+ failed with status/.test(`${line.next(1) ?? ''}\n${line.previous(1) ?? ''}`);
    return {
      signature: 'metal-command-buffer-oom',
      role: 'failure',
      kind: aborted ? 'runtime-abort' : 'catchable-oom',
      platform: 'mps',
      catchable: !aborted,
      summary: `${aborted ? 'Process aborted: ' : ''}Metal command buffer failed: the GPU ran out of memory (kIOGPUCommandBufferCallbackErrorOutOfMemory)`,
      explanation:
        'Metal could not make the resources of a command buffer resident: the buffers the GPU work needs (weights, KV cache, compute buffers) exceed the unified memory macOS lets the GPU use. ' +
        (aborted ? 'The error was thrown where nothing caught it, so the process aborted.' : 'The failure is returned to the caller.'),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [
        ...(ggml ? [{ id: 'ggml-fewer-layers', title: 'Offload fewer layers (-ngl), shrink the context (-c) or the micro-batch (-ub), or quantize the KV cache', rationale: 'The weights, the KV cache and the compute buffers all have to be resident for the command buffer.' }] : []),
        shrinkPeak(),
        { id: 'metal-wired-limit', title: 'Close other GPU-heavy apps; on macOS 14+ the GPU\'s share can be raised with sudo sysctl iogpu.wired_limit_mb=<MiB>', rationale: 'The GPU may only wire a fixed share of unified memory by default.' },
      ],
      ...(ggml && /command buffer \d+ failed/.test(line.next(1) ?? '') && { extraLines: [1] }),
    };
  },
};

export const signatures: readonly Signature[] = [backendOom, metalAssertion, invalidBufferSize, commandBufferOom];

/**
 * The same assertion pasted through Markdown, where a backtick opens a code span, so the reporter turned the opening
 * backtick into a straight quote ("…MPSNDArray.mm:705: failed assertion '[MPSNDArray initWithDevice:descriptor:]
 * Error: product of dimension sizes > 2**31 '"). Read by the tail pass, so the hot scan's needle stays the backtick form.
 */
export const tailMetalAssertion: Signature = { ...metalAssertion, needles: ["failed assertion '"] };
