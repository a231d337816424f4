/**
 * Every signature set, one file per platform. Order matters only where two sets could claim the
 * same line: the more specific set comes first (NPU/XPU/ROCm before the generic CUDA wording,
 * TensorFlow's GPU and CPU variants before XLA's RESOURCE_EXHAUSTED). The OutOfMemoryError type
 * alone comes last: it reads only what no platform's message signature claimed; after it, the
 * fallback for any other out-of-memory wording (otherOom.ts), which yields to every other finding.
 */
import { signatures as cpu, tailHostKill } from './cpu';
import { signatures as cuda, tailBatchSizeExhausted, tailGgmlLoadFailure, tailSglangWatchdog, tailWatchdogFrames } from './cuda';
import { signatures as directml } from './directml';
import { signatures as gaudi } from './gaudi';
import { signatures as mps, tailMetalAssertion } from './mps';
import { signatures as npu, tailAscendTaskTimeout } from './npu';
import { signatures as opencl } from './opencl';
import { oomException } from './oomException';
import { otherFailure, tailGlooTimeout, tailHbmReport, tailModelDoesNotFit, tailStoreBarrier, tailStuckInCollective, tailWindowsCommitLimit } from './otherFailure';
import { allocatorDump, namedOom, otherOom, tfOomHint } from './otherOom';
import { signatures as rocm } from './rocm';
import { signatures as vulkan } from './vulkan';
import { tailAllocFailure } from './tailAllocFailure';
import type { Signature } from './types';
import { signatures as xla, tailJaxStall } from './xla-tpu';
import { signatures as xpu } from './xpu';

export const ALL_SIGNATURES: readonly Signature[] = [...npu, ...xpu, ...rocm, ...gaudi, ...mps, ...directml, ...opencl, ...vulkan, ...cuda, ...cpu, ...xla, oomException, namedOom, otherOom, allocatorDump, tfOomHint];

/**
 * Run once at the end over the retained tail, only when no signature above found anything (see
 * otherFailure.ts): the failure a log ended with, when it is not one Headroom knows.
 */
export const TAIL_SIGNATURES: readonly Signature[] = [tailHostKill, tailWatchdogFrames, tailGgmlLoadFailure, tailBatchSizeExhausted, tailModelDoesNotFit, tailHbmReport, tailAllocFailure, tailWindowsCommitLimit, tailMetalAssertion, tailAscendTaskTimeout, tailStoreBarrier, tailGlooTimeout, tailStuckInCollective, tailJaxStall, tailSglangWatchdog, otherFailure];
