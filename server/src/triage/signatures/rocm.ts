/**
 * AMD ROCm: PyTorch's hipified caching allocator ("HIP out of memory"), HIP runtime OOM statuses,
 * and the HSA runtime aborting the process from its queue callback (seed 000: an RCCL collective on
 * a device full of PyTorch cache dies with HSA_STATUS_ERROR_OUT_OF_RESOURCES instead of raising).
 */
import { formatBytes } from '../../format';
import { emptyCacheBeforeCollectives, shrinkPeak } from '../fixes';
import { SIZE, toBytes } from '../sizes';
import { allocatorFinding, allocatorMessageText, parseAllocatorMessage, type AllocatorPlatform } from './allocatorMessage';
import { endsProcessAfter, joinNext, thrownByTerminate, thrownUncaught } from './lineContext';
import type { Finding, LineView, Signature } from './types';

/** The variable name the message itself suggests: builds differ (PYTORCH_HIP_ALLOC_CONF or PYTORCH_CUDA_ALLOC_CONF). */
const SUGGESTED_VAR = /(PYTORCH_(?:HIP|CUDA)_ALLOC_CONF)=expandable_segments/;

const cachingAllocator: Signature = {
  id: 'hip-caching-allocator',
  platform: 'rocm',
  needles: ['HIP out of memory'],
  match(line) {
    const text = allocatorMessageText(line);
    const msg = parseAllocatorMessage(text);
    if (!msg || msg.api !== 'HIP') return undefined;
    const platform: AllocatorPlatform = {
      signature: 'hip-caching-allocator',
      platform: 'rocm',
      label: 'HIP',
      allocConfVar: SUGGESTED_VAR.exec(text)?.[1] ?? 'PYTORCH_HIP_ALLOC_CONF',
      expandableSegments: {
        supported: true,
        note: ' On ROCm this needs PyTorch 2.11+ with ROCm 7.0+; older builds ignore it ("expandable_segments not supported on this platform"), so use max_split_size_mb there.',
      },
    };
    return allocatorFinding(msg, platform, line.rank);
  },
};

/** An out-of-memory status from the HIP runtime (any language binding). */
const runtimeOom: Signature = {
  id: 'hip-runtime-oom',
  platform: 'rocm',
  // hipError_t(1002) is hipErrorMemoryAllocation, the old name and number of hipErrorOutOfMemory.
  needles: ['hipErrorOutOfMemory', 'HIP error: out of memory', 'HIP_ERROR_OutOfMemory', 'hipErrorMemoryAllocation', 'hipError_t(1002)'],
  match(line) {
    if (!/hipErrorOutOfMemory|HIP error: out of memory|HIP_ERROR_OutOfMemory|hipErrorMemoryAllocation|hipError_t\(1002\)/.test(line.content)) return undefined;
    // TensorFlow's "failed to allocate 2.00G (2147483648 bytes)"; IREE's HIP allocator "failed to allocate buffer of length N".
    const size = /failed to allocate .*?\((\d+) bytes\)|\bfailed to allocate buffer of length (\d+)/.exec(line.content);
    // An application's error check that aborts on it (AMReX's "amrex::Abort::N::HIP error in file … hipErrorOutOfMemory !!!",
    // then SIGABRT): no exception reaches a caller.
    // Also an uncaught exception's report on the line or an abort under it (lineContext's ENDS_PROCESS).
    const aborts = /\bAbort\b|abort\(\)/.test(line.content) || thrownUncaught(line) || endsProcessAfter(line, 3);
    return {
      signature: 'hip-runtime-oom',
      role: 'failure',
      kind: aborts ? 'runtime-abort' : 'catchable-oom',
      platform: 'rocm',
      catchable: !aborts,
      summary: 'HIP runtime out of memory (hipErrorOutOfMemory)' + (size ? `: ${formatBytes(Number(size[1] ?? size[2]))} requested` : ''),
      explanation:
        'A HIP runtime call returned hipErrorOutOfMemory outside the caching allocator (a kernel launch, a library workspace, host-pinned memory). ' +
        (aborts
          ? 'The program\'s error check aborted the process on it, so nothing could catch it; memory cached by the framework is not available to the runtime.'
          : 'It is reported as an exception, so the program could catch it; memory cached by the framework is not available to the runtime.'),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: size ? { requestedBytes: Number(size[1] ?? size[2]) } : {},
      fixes: [shrinkPeak(), { id: 'empty-cache', title: 'Release the cache before the failing call: torch.cuda.empty_cache()', rationale: 'Memory cached by PyTorch is not available to the HIP runtime and libraries.', snippet: 'torch.cuda.empty_cache()' }],
    };
  },
};

const FREE_MEM = new RegExp(String.raw`Available Free mem\s*:\s*${SIZE}`);

/**
 * The HSA runtime aborting the process from a queue callback (rocdevice.cpp): no exception reaches
 * Python. With HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008) the device ran out of memory, typically
 * inside a collective while PyTorch's cache held the memory (ROCm/hip#3253, seed 000). With another
 * status named (ROCR-Runtime hsa.h's faults: a memory aperture violation, an illegal instruction, a memory
 * fault) the kernel faulted: the same abort, but not-oom.
 */
/**
 * A program's check on an HSA API call's returned status at startup: rocminfo's RET_IF_HSA_ERR (rocminfo.cc, "hsa api call
 * failure at: <path>/rocminfo.cc:1102" over "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate
 * the necessary resources. …"; the first releases' one line "hsa api call failure at line 900, file: …/rocminfo.cc. Call
 * returned 4104", 0x1008) and ROCR's rocrtst samples with the same macro. hsa_init() returns OUT_OF_RESOURCES when the
 * runtime cannot open /dev/kfd or finds no GPU it supports (permissions, the video/render group, an unsupported card,
 * WSL without ROCm's KFD), so the status is returned to the tool, which exits: a failed start, not device memory running
 * out. The seed-000 abort is the same status from a running kernel's queue callback.
 */
const HSA_API_CHECK = /(?<![A-Za-z])hsa api call failure at\b/;
/** A status raised from hsa_init() itself, its call in the traceback above (tinygrad's `check(hsa.hsa_init())`): the same failed start. */
const HSA_INIT_CALL = /\bhsa_init\(\)/;

function hsaStartupFailure(line: LineView): Finding | undefined {
  // hsa_init() counts in the traceback of an exception this line raises, not in a line of the log that names it.
  const raised = /^\s*(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): /.test(line.content);
  let check = HSA_API_CHECK.test(line.content);
  for (let k = 1; k <= 3 && !check; k++) check = HSA_API_CHECK.test(line.previous(k) ?? '') || (raised && HSA_INIT_CALL.test(line.previous(k) ?? ''));
  if (!check) return undefined;
  const status = /HSA_STATUS_ERROR\w*/.exec(line.content)?.[0] ?? 'an HSA error';
  return {
    signature: 'hsa-startup-failure',
    role: 'failure',
    kind: 'not-oom',
    platform: 'rocm',
    catchable: true,
    summary: `Not an OOM: an HSA API call failed at startup (${status}), so the ROCm runtime did not initialize`,
    explanation:
      'The tool\'s check on an HSA call (rocminfo\'s "hsa api call failure") printed the status the call returned. At startup hsa_init() ' +
      'returns HSA_STATUS_ERROR_OUT_OF_RESOURCES when the runtime cannot open /dev/kfd or finds no GPU it supports: no device memory was in use yet. ' +
      'The status went back to the program, which exited.',
    ...(line.rank !== undefined && { rank: line.rank }),
    numbers: {},
    fixes: [{ id: 'rocm-kfd-access', title: 'Check the ROCm install and device access: the amdgpu/KFD driver loaded (ls -l /dev/kfd /dev/dri), your user in the video and render groups, and the GPU on ROCm\'s support list', rationale: 'hsa_init() fails this way when /dev/kfd cannot be opened or no supported GPU is found.', snippet: 'sudo usermod -aG video,render $USER' }],
  };
}

const hsaAbort: Signature = {
  id: 'hsa-runtime-abort',
  platform: 'rocm',
  needles: ['HSA_STATUS_ERROR_OUT_OF_RESOURCES', 'callbackQueue aborting', 'Aborting with error'],
  match(line) {
    const startup = hsaStartupFailure(line);
    if (startup) return startup;
    const text = joinNext(line, 3);
    const outOfResources = /HSA_STATUS_ERROR_OUT_OF_RESOURCES|0x1008/.test(text);
    // Any other status it names (hsa.h: HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION 0x29, _ILLEGAL_INSTRUCTION 0x2a,
    // _MEMORY_FAULT 0x2b, _EXCEPTION 0x1016) is a fault of the kernel, not memory running out: the abort is not-oom.
    const fault = outOfResources ? undefined : /HSA_STATUS_ERROR_(?!OUT_OF_RESOURCES)[A-Z_]+/.exec(text)?.[0];
    const status = /status: (0x[0-9a-f]+)/i.exec(line.content)?.[1];
    const free = FREE_MEM.exec(text);
    const freeBytes = free ? toBytes(free[1]!, free[2]!) : undefined;
    const numbers: Finding['numbers'] = freeBytes !== undefined ? { freeBytes } : {};
    return {
      signature: 'hsa-runtime-abort',
      role: 'failure',
      kind: fault ? 'not-oom' : 'runtime-abort',
      platform: 'rocm',
      catchable: false,
      summary: fault
        ? `ROCm runtime aborted the process from its queue callback: ${fault} (not an out-of-memory error)`
        : outOfResources
        ? 'ROCm runtime aborted the process: device out of resources (HSA_STATUS_ERROR_OUT_OF_RESOURCES)' + (freeBytes !== undefined ? `, ${formatBytes(freeBytes)} free` : '')
        : `ROCm runtime aborted the process from its queue callback${status ? ` (status ${status})` : ''}`,
      explanation: outOfResources
        ? 'The HSA runtime hit out-of-memory on one of its own threads (a queue callback, often during an RCCL collective) and called abort(): ' +
          'no Python exception, no chance for PyTorch to free its cache and retry. Memory PyTorch had cached but not used was reclaimable the whole time. ' +
          'HIP_SKIP_ABORT_ON_GPU_ERROR does not prevent it.'
        : 'The HSA runtime reported a fatal queue error and aborted the process; no exception reaches the program.' +
          (fault ? ' The status names a fault of the kernel (an access outside its memory, an illegal instruction), not memory running out.' : ''),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers,
      fixes: outOfResources ? [emptyCacheBeforeCollectives, shrinkPeak()] : [{ id: 'hsa-debug', title: 'Rerun with AMD_LOG_LEVEL=4 and AMD_SERIALIZE_KERNEL=3 to see the failing kernel', rationale: 'Queue errors are asynchronous; serialized kernels point at the culprit.', snippet: 'export AMD_LOG_LEVEL=4 AMD_SERIALIZE_KERNEL=3' }],
      extraLines: [1, 2, 3].filter((k) => /HSA_STATUS|Code: 0x|Available Free mem/.test(line.next(k) ?? '')),
      facts: { group: 'hsa-abort' },
    };
  },
};

/** Any other HSA status surfacing as an exception ("HSA_STATUS_ERROR: A generic error has occurred"). */
const hsaError: Signature = {
  id: 'hsa-runtime-error',
  platform: 'rocm',
  needles: ['HSA_STATUS_ERROR'],
  match(line) {
    const status = /(HSA_STATUS_ERROR\w*)(?::\s*([^.]*))?/.exec(line.content);
    if (!status) return undefined;
    const startup = hsaStartupFailure(line);
    if (startup) return startup;
    // HCC's STATUS_CHECK ("### HCC STATUS_CHECK Error: HSA_STATUS_ERROR_EXCEPTION (0x1016) at file:mcwamp_hsa.cpp
    // line:1193") prints the status and calls abort(); so does anything followed by the shell's "Aborted".
    const aborted = /STATUS_CHECK/.test(line.content) || [1, 2].some((k) => /^\s*Aborted\b/.test(line.next(k) ?? ''));
    const raised = /Error|Failed in file/.test(line.content) && !aborted;
    return {
      signature: 'hsa-runtime-error',
      role: 'failure',
      kind: 'not-oom',
      platform: 'rocm',
      catchable: raised,
      summary: `Not an OOM: the ROCm runtime failed (${status[1]}${status[2] ? `: ${status[2]}` : ''})`,
      explanation:
        'The HSA runtime reported an error that is not an out-of-resources condition: a failed copy or kernel, a driver or firmware problem, ' +
        'or memory corruption from an earlier fault. Freeing memory does not help.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [{ id: 'hsa-debug', title: 'Rerun with AMD_SERIALIZE_KERNEL=3 and AMD_LOG_LEVEL=4 to see the failing operation', rationale: 'Runtime errors are reported asynchronously; serialized kernels point at the culprit.', snippet: 'export AMD_SERIALIZE_KERNEL=3 AMD_LOG_LEVEL=4' }],
    };
  },
};

/**
 * The HSA runtime's GPU page fault, printed before it aborts the process: "Memory access fault by
 * GPU node-2 (Agent handle: 0x55fea5592860) on address 0x7fc133800000. Reason: Page not present or
 * supervisor privilege." (other reasons: "Write access to a read-only page.", "Unknown."). A kernel
 * touched an address it does not own, ROCm's illegal memory access: not an OOM. The node is the
 * KFD topology node (node-0 is usually the CPU), not the device index, so no device is reported.
 */
const memoryAccessFault: Signature = {
  id: 'hsa-memory-access-fault',
  platform: 'rocm',
  needles: ['Memory access fault by GPU'],
  match(line) {
    const reason = /Memory access fault by GPU node-\d+(?:.*?Reason: ([^.]*))?/.exec(line.content);
    if (!reason) return undefined;
    return {
      signature: 'hsa-memory-access-fault',
      role: 'failure',
      kind: 'not-oom',
      platform: 'rocm',
      catchable: false,
      summary: `Not an OOM: a GPU memory access fault (${reason[1]?.trim() || 'page fault'}); the process aborted`,
      explanation:
        'A kernel read or wrote an address outside its allocations (an out-of-range index, a freed or unmapped buffer, a miscompiled kernel, ' +
        'or an unsupported GPU target such as an overridden gfx version), and the HSA runtime aborted the process. Memory did not run out.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [{ id: 'hsa-debug', title: 'Rerun with AMD_SERIALIZE_KERNEL=3 and AMD_LOG_LEVEL=4 to see the failing kernel', rationale: 'The fault is reported asynchronously; serialized kernels point at the culprit.', snippet: 'export AMD_SERIALIZE_KERNEL=3 AMD_LOG_LEVEL=4' }],
    };
  },
};

/**
 * Any other HIP runtime status printed by name: "hipErrorNoBinaryForGpu: Unable to find code object for
 * all current devices!" (the HIP runtime's hip_code_object.cpp, then abort: the build has no kernels for
 * this GPU's gfx target), hipErrorInvalidDeviceFunction, hipErrorIllegalAddress, ... Not a memory
 * failure (the out-of-memory statuses are runtimeOom's). Lines with PyTorch's "HIP error: " are
 * cuda.ts's runtime-error signature's, and a status a warning quotes is not a failure; catchable only
 * when an exception carries it.
 */
const HIP_STATUS = /\bhipError(?!OutOfMemory|MemoryAllocation|_t\b)([A-Z]\w+)/;
/** Statuses that report a state, not a failure (a query polled before work finished, peer access set twice). */
const HIP_BENIGN = /^(?:NotReady|PeerAccessAlreadyEnabled|PeerAccessNotEnabled|HostMemoryAlreadyRegistered)\b/;
/** AMD_LOG_LEVEL's trace lines (":3:hip_event.cpp :310 : ... Returned hipErrorNotReady"); level 1 is the error level. */
const AMD_TRACE_LINE = /^\s*:[2-9]:\S/;

const hipStatus: Signature = {
  id: 'hip-runtime-status',
  platform: 'rocm',
  needles: ['hipError'],
  match(line) {
    const m = HIP_STATUS.exec(line.content);
    // A status quoted in a warning ("UserWarning: HIP initialization: ... hipErrorInvalidDevice") is not the failure.
    if (!m || line.content.includes('HIP error: ') || /warn/i.test(line.content) || HIP_BENIGN.test(m[1]!) || AMD_TRACE_LINE.test(line.content)) return undefined;
    const noBinary = /^NoBinaryForGpu/i.test(m[1]!);
    return {
      signature: 'hip-runtime-status',
      role: 'failure',
      kind: 'not-oom',
      platform: 'rocm',
      catchable: /Error\b/.test(line.content.slice(0, m.index)) && !thrownByTerminate(line),
      summary: `Not an OOM: the HIP runtime failed with hipError${m[1]}`,
      explanation: noBinary
        ? 'The HIP runtime found no code object for this GPU\'s architecture (gfx target) in the binary or library it loaded, and aborted. The build does not support this GPU; memory is not involved.'
        : `The HIP runtime returned hipError${m[1]}, which is not an out-of-memory status. Freeing memory does not help.`,
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: noBinary
        ? [{ id: 'rocm-gfx-target', title: 'Install a build for this GPU\'s gfx target (rocminfo | grep gfx), or for consumer RDNA cards set HSA_OVERRIDE_GFX_VERSION to the nearest supported target (e.g. 10.3.0)', rationale: 'The runtime looks for kernels compiled for the exact gfx target of the device.', snippet: 'export HSA_OVERRIDE_GFX_VERSION=10.3.0' }]
        : [{ id: 'hsa-debug', title: 'Rerun with AMD_SERIALIZE_KERNEL=3 and AMD_LOG_LEVEL=4 to see the failing call', rationale: 'HIP errors are often reported asynchronously; serialized kernels point at the culprit.', snippet: 'export AMD_SERIALIZE_KERNEL=3 AMD_LOG_LEVEL=4' }],
    };
  },
};


/**
 * MIOpen's allocation check (src/hip/handlehip.cpp: "MIOpen Error: <file>:<line>: Memory not available to
 * allocate buffer: <bytes>"): a convolution workspace or buffer did not fit. MIOpen returns an error status;
 * TensorFlow's ROCm DNN wrapper then fails a CHECK ("F … rocm_dnn.cc] Check failed: status ==
 * miopenStatusSuccess"), which aborts, while PyTorch raises it.
 */
const MIOPEN_ALLOC = /Memory not available to allocate buffer: (\d+)/;
const GLOG_FATAL = /^(?:\S+ \S+: F |F\d{4} )|Check failed: status == miopenStatusSuccess/;

const miopenAlloc: Signature = {
  id: 'miopen-alloc',
  platform: 'rocm',
  needles: ['Memory not available to allocate buffer'],
  match(line) {
    const m = MIOPEN_ALLOC.exec(line.content);
    if (!m) return undefined;
    let fatal = thrownByTerminate(line);
    for (let k = 1; k <= 3 && !fatal; k++) fatal = GLOG_FATAL.test(line.next(k) ?? '');
    const bytes = Number(m[1]);
    return {
      signature: 'miopen-alloc',
      role: 'failure',
      kind: fatal ? 'runtime-abort' : 'catchable-oom',
      platform: 'rocm',
      catchable: !fatal,
      summary: `${fatal ? 'Process aborted: ' : ''}MIOpen could not allocate a ${formatBytes(bytes)} buffer`,
      explanation:
        'MIOpen could not get device memory for a convolution buffer or workspace (often while searching algorithms, which tries large workspaces). ' +
        (fatal ? 'The framework treated the failed MIOpen call as a fatal check and aborted the process.' : ''),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: { requestedBytes: bytes },
      fixes: [shrinkPeak(), { id: 'miopen-find-mode', title: 'Use a cheaper algorithm search: MIOPEN_FIND_MODE=FAST (or a smaller batch during tuning)', rationale: 'Exhaustive search allocates the largest workspaces.', snippet: 'export MIOPEN_FIND_MODE=FAST' }],
    };
  },
};

/**
 * Mesa's AMD kernel-driver layer refusing a buffer (src/gallium/winsys/amdgpu/drm/amdgpu_bo.c, radv's winsys likewise):
 * "amdgpu: Failed to allocate a buffer:", then its size, alignment, domains and flags one per line ("amdgpu:    size      :
 * 2141958144 bytes"), behind "MESA: error: " in newer releases or "radv/" for Vulkan. The layer retries once after freeing
 * its buffer caches, so one block is a refusal it recovered from; a second block within a few lines is the retry failing too,
 * and the failure goes back to the API call (OpenCL, Vulkan, OpenGL): an OOM of the AMD GPU's memory the program could handle.
 * A fallback reading: a framework's own report of the same failure (ggml's, PyTorch's) says more.
 */
const MESA_AMDGPU_ALLOC = /\bamdgpu: Failed to allocate a buffer:?\s*$/;
const MESA_AMDGPU_SIZE = /\bamdgpu:\s+size\s*:\s*(\d+) bytes\b/;

const mesaAmdgpuAlloc: Signature = {
  id: 'mesa-amdgpu-alloc',
  platform: 'rocm',
  needles: ['Failed to allocate a buffer'],
  match(line) {
    if (!MESA_AMDGPU_ALLOC.test(line.content)) return undefined;
    // The first of two blocks: the one before it has no block above it within its own lines.
    if (![2, 3, 4, 5, 6, 7].some((k) => MESA_AMDGPU_ALLOC.test(line.next(k) ?? ''))) return undefined;
    const size = MESA_AMDGPU_SIZE.exec(line.next(1) ?? '');
    const bytes = size ? Number(size[1]) : undefined;
    return {
      signature: 'mesa-amdgpu-alloc',
      role: 'failure',
      fallback: 'oom',
      kind: 'catchable-oom',
      platform: 'rocm',
      catchable: true,
      summary: `Out of memory: the AMD GPU driver (Mesa's amdgpu layer) could not allocate a ${bytes !== undefined ? `${formatBytes(bytes)} ` : ''}buffer`,
      explanation:
        "Mesa's amdgpu layer asked the kernel driver for a buffer in the GPU's memory and was refused; the API call that needed it " +
        '(OpenCL, Vulkan or OpenGL) returned the failure to the program.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: bytes !== undefined ? { requestedBytes: bytes } : {},
      fixes: [shrinkPeak('the buffers the program allocates (batch, resolution, model size)')],
      ...(size && { extraLines: [1] }),
    };
  },
};

export const signatures: readonly Signature[] = [mesaAmdgpuAlloc, miopenAlloc, cachingAllocator, hsaAbort, runtimeOom, hsaError, memoryAccessFault, hipStatus];
