/**
 * Intel XPU (torch.xpu and the older intel-extension-for-pytorch): the caching-allocator message
 * ("XPU out of memory. Tried to allocate ... GPU 0 has a total capacity of ...", sometimes without
 * "of which ... is free") and the Level Zero single-allocation limit ("Current platform can NOT
 * allocate memory block with size larger than 4GB!"); TensorFlow on XPU (ITEX); and two errors that
 * are not OOMs: mem_get_info failing on drivers that do not report free memory, and a lost device.
 */
import { formatBytes } from '../../format';
import type { Fix } from '../../protocol';
import { shrinkPeak } from '../fixes';
import { allocatorFinding, allocatorMessageText, parseAllocatorMessage, type AllocatorPlatform } from './allocatorMessage';
import { thrownByTerminate, thrownUncaught } from './lineContext';
import { parseTensorflowOom, tensorflowFinding } from './tensorflowMessage';
import type { Finding, LineView, Signature } from './types';

const XPU: AllocatorPlatform = {
  signature: 'xpu-caching-allocator',
  platform: 'xpu',
  label: 'XPU',
  allocConfVar: 'PYTORCH_XPU_ALLOC_CONF',
  expandableSegments: { supported: false },
};

const FOUR_GIB = 4 * 1024 ** 3;

const relaxedLimit = (requested?: number): Fix => ({
  id: 'xpu-4gb-limit',
  title: 'Keep single tensors under 4 GiB on this driver, or allow larger blocks where supported (UR_L0_USE_RELAXED_ALLOCATION_LIMITS=1)',
  rationale: `Level Zero caps one allocation at 4 GiB by default; ${requested !== undefined ? formatBytes(requested) : 'more'} was asked for in one block.`,
  snippet: 'export UR_L0_USE_RELAXED_ALLOCATION_LIMITS=1',
});

/** The 4 GiB limit's sentence without the allocator's message after it (a paste or a title that kept only the first sentence). */
function blockLimitAlone(line: LineView): Finding {
  return {
    signature: XPU.signature,
    role: 'failure',
    kind: 'catchable-oom',
    platform: 'xpu',
    catchable: true,
    summary: 'XPU cannot allocate a single block over 4 GiB',
    explanation: 'The driver refuses any one allocation above 4 GiB, whatever is free; PyTorch raises it as an error the program could catch. One tensor (an attention matrix, an upscaled image) is that large.',
    ...(line.rank !== undefined && { rank: line.rank }),
    numbers: {},
    fixes: [relaxedLimit(), shrinkPeak('the largest single tensor (tile the upscale, chunk the attention)')],
  };
}

const cachingAllocator: Signature = {
  id: XPU.signature,
  platform: 'xpu',
  needles: ['XPU out of memory', 'Current platform can NOT allocate'],
  match(line) {
    const msg = parseAllocatorMessage(allocatorMessageText(line));
    const limit = line.content.includes('Current platform can NOT allocate');
    if (!msg && limit) return blockLimitAlone(line);
    if (!msg || (msg.api !== 'XPU' && !limit)) return undefined;
    const finding = allocatorFinding(msg, XPU, line.rank);
    const requested = msg.numbers.requestedBytes ?? 0;
    if (limit) {
      finding.summary = `XPU cannot allocate a single block of ${formatBytes(requested)} (over the 4 GiB limit)`;
      finding.explanation = `The driver refuses any one allocation above 4 GiB, whatever is free. ${finding.explanation}`;
    }
    if (limit || requested > FOUR_GIB) finding.fixes.unshift(relaxedLimit(requested));
    finding.fixes.push({ id: 'xpu-empty-cache', title: 'Release unused cached blocks: torch.xpu.empty_cache()', rationale: 'The XPU allocator has no expandable segments; releasing the cache is its only defragmentation.', snippet: 'torch.xpu.empty_cache()' });
    return finding;
  },
};

/**
 * torch.xpu.mem_get_info() on a driver that does not report free memory (c10/xpu: "The device
 * (Intel(R) Arc(TM) Graphics) doesn't support querying the available free memory."). Libraries that
 * size their caches from free memory (ComfyUI, transformers' allocator warm-up) fail on it.
 */
const memGetInfoUnsupported: Signature = {
  id: 'xpu-mem-get-info-unsupported',
  platform: 'xpu',
  needles: ["doesn't support querying the available free memory"],
  match(line) {
    const device = /The device \((.*?)\) doesn't support/.exec(line.content)?.[1];
    return {
      signature: 'xpu-mem-get-info-unsupported',
      role: 'failure',
      kind: 'not-oom',
      platform: 'xpu',
      catchable: true,
      summary: `Not an OOM: ${device ?? 'the XPU'} cannot report its free memory (torch.xpu.mem_get_info)`,
      explanation:
        'The Level Zero driver only reports free device memory when its system-management interface is enabled; without it PyTorch raises instead of guessing. ' +
        'Nothing ran out of memory.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [
        { id: 'xpu-sysman', title: 'Enable the driver\'s memory reporting: ZES_ENABLE_SYSMAN=1 before starting Python', rationale: 'Level Zero answers free-memory queries only with Sysman enabled.', snippet: 'export ZES_ENABLE_SYSMAN=1' },
        { id: 'xpu-mem-get-info-fallback', title: 'Or catch the RuntimeError and estimate free memory from the device total minus torch.xpu.memory_reserved()', rationale: 'The total is always known; only the driver\'s free figure is missing.', snippet: 'total = torch.xpu.get_device_properties(device).total_memory\nfree = total - torch.xpu.memory_reserved(device)' },
      ],
    };
  },
};

/** TensorFlow on an Intel GPU through intel-extension-for-tensorflow, which names the device XPU. */
const tensorflowXpu: Signature = {
  id: 'tensorflow-oom-xpu',
  platform: 'xpu',
  needles: ['OM when allocating tensor'],
  match(line) {
    const msg = parseTensorflowOom(line);
    if (msg?.deviceType !== 'XPU') return undefined;
    return tensorflowFinding(msg, 'xpu', 'XPU', line, []);
  },
};

/**
 * The GPU was lost (a hang the driver reset, a page fault, a firmware crash): "RuntimeError:
 * level_zero backend failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)" from the Unified Runtime,
 * PI_ERROR_DEVICE_LOST from the older SYCL plugin interface, ZE_RESULT_ERROR_DEVICE_LOST from Level
 * Zero itself. Raised as a RuntimeError, but the device stays lost, so every later call fails too.
 */
const deviceLost: Signature = {
  id: 'xpu-device-lost',
  platform: 'xpu',
  needles: ['ERROR_DEVICE_LOST'],
  match(line) {
    const status = /\b(?:UR_RESULT|PI|ZE_RESULT)_ERROR_DEVICE_LOST\b/.exec(line.content);
    if (!status) return undefined;
    return {
      signature: 'xpu-device-lost',
      role: 'failure',
      kind: 'not-oom',
      platform: 'xpu',
      catchable: false,
      summary: `Not an OOM: the Intel GPU was lost (${status[0]})`,
      explanation:
        'The driver reset or lost the device: a kernel that hung or faulted, a firmware or driver problem. Device memory is not what ran out, ' +
        'and the process cannot use the device again.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [
        { id: 'xpu-device-lost-debug', title: 'Check the kernel log (dmesg) for the GPU reset, update the GPU driver, and rerun the failing op alone to find it', rationale: 'A lost device is a driver-level event; the reset message names the engine that hung.' },
      ],
    };
  },
};

/**
 * The SYCL runtime's out-of-memory statuses: the Unified Runtime's UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
 * (39) and ..._OUT_OF_HOST_MEMORY (38), the older plugin interface's PI_ERROR_OUT_OF_HOST_MEMORY (-6)
 * and PI_ERROR_OUT_OF_RESOURCES (-5), Level Zero's ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY. Behind
 * "Native API failed. Native API returns: 39 (...)" or "level_zero backend failed with error: 39 (...)".
 */
const SYCL_OOM_STATUS = /\b(?:UR_RESULT|PI|ZE_RESULT)_ERROR_OUT_OF_(?:DEVICE_MEMORY|HOST_MEMORY|RESOURCES)\b/;
/** Other evidence of memory running out that ggml's SYCL backend prints next to its error. */
const SYCL_OOM_TEXT = /Failed to allocate physical memory|cannot allocate memory|out of memory/i;
/** How many lines around ggml's "SYCL error" line are searched for the status that caused it. */
const SYCL_CONTEXT_LINES = 4;

const ggmlSyclFewerLayers: Fix = {
  id: 'ggml-sycl-fewer-layers',
  title: 'Offload fewer layers (-ngl), use a smaller context (-c) or batch (-b/-ub), or a smaller quantization',
  rationale: 'The weights, the KV cache and the compute buffers all live in device memory; the context size alone can take gigabytes.',
};

/**
 * A SYCL runtime status that says memory ran out, on its own line. Where ggml's "SYCL error" line
 * follows (within a few lines), that line reports the failure and this one joins it as evidence.
 */
const syclOomStatus: Signature = {
  id: 'sycl-out-of-memory-status',
  platform: 'xpu',
  needles: ['ERROR_OUT_OF_'],
  match(line) {
    const status = SYCL_OOM_STATUS.exec(line.content);
    if (!status) return undefined;
    for (let k = 1; k <= SYCL_CONTEXT_LINES; k++) if (line.next(k)?.includes('SYCL error')) return undefined;
    // The status as the message of a sycl::exception nothing caught ("terminate called after throwing an instance of
    // 'sycl::_V1::exception'", "what():  Enqueue process failed.", then the backend's "level_zero backend failed with error:
    // 39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)"): thrown from a runtime thread or a destructor, it aborted the process.
    const aborted = thrownUncaught(line);
    return {
      signature: 'sycl-out-of-memory-status',
      role: 'failure',
      kind: aborted ? 'runtime-abort' : 'catchable-oom',
      platform: 'xpu',
      catchable: !aborted,
      summary: `${aborted ? 'Process aborted: ' : ''}XPU out of memory: the SYCL runtime returned ${status[0]}`,
      explanation:
        'An allocation or a copy needing memory failed in the SYCL runtime (Level Zero). ' +
        (aborted
          ? 'It was thrown as a sycl::exception that nothing caught, so std::terminate aborted the process: no exception reached the program.'
          : 'The status is returned to the caller, which raises it (PyTorch raises a RuntimeError).'),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [shrinkPeak()],
    };
  },
};

/**
 * llama.cpp/ggml's SYCL backend checks its calls and aborts on a failed one: "SYCL error:
 * CHECK_TRY_ERROR(...): Meet error in this line code!" (newer: "Exception caught in this line of
 * code."), then "in function ... at ggml-sycl.cpp:N" and GGML_ASSERT / "common.hpp:N: SYCL error"
 * with a backtrace. What failed is printed just before it (the runtime's status, "Failed to allocate
 * physical memory." from the VMM pool, oneMKL's "cannot allocate memory on host"): an out-of-memory
 * cause makes it a runtime abort, anything else (a lost device, an unsupported sub-group size) is not
 * an OOM.
 */
const ggmlSyclError: Signature = {
  id: 'ggml-sycl-error',
  platform: 'xpu',
  needles: ['SYCL error'],
  match(line) {
    if (!/SYCL error: /.test(line.content)) return undefined;
    const around: string[] = [];
    for (let k = 1; k <= SYCL_CONTEXT_LINES; k++) {
      const before = line.previous(k);
      if (before !== undefined) around.push(before);
    }
    const after = line.next(1);
    if (after !== undefined) around.push(after);
    // A lost device has its own signature and verdict; this line would only repeat it.
    if (around.some((l) => /_ERROR_DEVICE_LOST\b/.test(l))) return undefined;
    const status = around.map((l) => SYCL_OOM_STATUS.exec(l)?.[0] ?? SYCL_OOM_TEXT.exec(l)?.[0]).find((s) => s !== undefined);
    const call = /CHECK_TRY_ERROR\(\s*(.{0,60})/.exec(line.content)?.[1]?.replace(/\s+/g, ' ');
    const common = {
      signature: 'ggml-sycl-error',
      role: 'failure' as const,
      platform: 'xpu' as const,
      catchable: false,
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
    };
    if (status) {
      return {
        ...common,
        kind: 'runtime-abort',
        summary: `llama.cpp/ggml aborted: SYCL out of memory (${status})`,
        explanation:
          `A SYCL call failed with ${status} and ggml's SYCL backend aborts the process on any failed call, so nothing reaches the caller. ` +
          'Running out of device memory in the middle of a run (the KV cache filling up, a pool growing) ends here.',
        fixes: [ggmlSyclFewerLayers],
      };
    }
    return {
      ...common,
      kind: 'not-oom',
      summary: 'Not an OOM: llama.cpp/ggml aborted on a SYCL error' + (call ? ` in ${call}` : ''),
      explanation:
        'ggml\'s SYCL backend aborts on any failed SYCL call. Nothing printed near it says memory ran out: look at the runtime status just above ' +
        '(a Native API error code) for the cause, often a driver or oneAPI version problem or an unsupported device feature.',
      fixes: [{ id: 'ggml-sycl-runtime', title: 'Check the oneAPI runtime and the GPU driver match the ones llama.cpp was built with, and rerun with GGML_SYCL_DEBUG=1 to see the failing op', rationale: 'The error is in the runtime call, not in a memory limit.' }],
    };
  },
};

/**
 * ggml's SYCL buffer type failing to allocate a backend buffer: "ggml_backend_sycl_buffer_type_alloc_buffer:
 * can't allocate 3503030272 Bytes of memory on device" (older: "can't malloc N Bytes memory on
 * device"). Returned to the caller like its CUDA counterpart.
 */
const ggmlSyclBuffer: Signature = {
  id: 'ggml-sycl-buffer-alloc',
  platform: 'xpu',
  needles: ['sycl_buffer_type_alloc_buffer'],
  match(line) {
    const m = /sycl_buffer_type_alloc_buffer: can't (?:allocate|malloc) (\d+) Bytes/.exec(line.content);
    if (!m) return undefined;
    const requested = Number(m[1]);
    return {
      signature: 'ggml-sycl-buffer-alloc',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'xpu',
      catchable: true,
      summary: `llama.cpp/ggml could not allocate a SYCL buffer of ${formatBytes(requested)}`,
      explanation:
        'ggml allocates the weights, the KV cache and the compute buffers as a few large device buffers; this one did not fit in what the device had left. ' +
        'The failure goes back to the caller, which reports a model or context it cannot create.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: { requestedBytes: requested },
      fixes: [ggmlSyclFewerLayers, ...(requested > FOUR_GIB ? [relaxedLimit(requested)] : [])],
    };
  },
};


/**
 * Other SYCL statuses torch/IPEX raise from the runtime ("Native API failed. Native API returns: -50
 * (PI_ERROR_INVALID_ARG_VALUE)", the Unified Runtime's "UR_RESULT_ERROR_INVALID_ARGUMENT"): a kernel
 * got arguments or a launch configuration the driver refused (an unsupported op or dtype, too large a
 * work-group). Out-of-memory statuses and a lost device have their own signatures, listed first.
 */
const SYCL_STATUS = /\b((?:PI|UR_RESULT|ZE_RESULT)_ERROR_[A-Z_]+)\b/;

const syclStatus: Signature = {
  id: 'sycl-status',
  platform: 'xpu',
  needles: ['PI_ERROR_', 'UR_RESULT_ERROR_', 'ZE_RESULT_ERROR_'],
  match(line) {
    const m = SYCL_STATUS.exec(line.content);
    if (!m || /_ERROR_(?:OUT_OF_|DEVICE_LOST)/.test(m[1]!)) return undefined;
    // Only the error PyTorch/IPEX raises, not a status in a debug trace.
    if (!/Native API (?:failed|returns)|\b(?:RuntimeError|Error|exception)\b/i.test(line.content)) return undefined;
    return {
      signature: 'sycl-status',
      role: 'failure',
      kind: 'not-oom',
      platform: 'xpu',
      catchable: !thrownByTerminate(line),
      summary: `Not an OOM: the SYCL runtime returned ${m[1]}`,
      explanation:
        `The Intel GPU runtime refused a call with ${m[1]}: an argument or launch configuration it does not accept (often an operator or dtype the driver and oneAPI versions do not support together). ` +
        'It is not an out-of-memory status.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [{ id: 'xpu-versions', title: 'Check that the GPU driver, oneAPI runtime and intel-extension-for-pytorch / torch XPU build are a supported combination; try the op on CPU to isolate it', rationale: 'Argument errors from the runtime usually come from a kernel built for another driver or an unsupported dtype.' }],
    };
  },
};

export const signatures: readonly Signature[] = [cachingAllocator, memGetInfoUnsupported, tensorflowXpu, deviceLost, ggmlSyclBuffer, syclOomStatus, ggmlSyclError, syclStatus];
