/**
 * NVIDIA CUDA: PyTorch's caching allocator (all eras), cudaMallocAsync, raw CUDA runtime errors,
 * cuBLAS/cuDNN workspace failures, TensorFlow's BFC allocator on a GPU, NCCL's own allocation
 * failures, the ProcessGroupNCCL watchdog (timeouts, heartbeat, desync report), and the crashes
 * that look like an OOM but are not one (illegal address, device-side assert, cuDNN not supported);
 * and llama.cpp/ggml's CUDA backend (its aborts and its buffer allocations).
 */
import { formatBytes } from '../../format';
import {
  agreeOnFailure,
  debugAsync,
  findTheRootRank,
  flightRecorder,
  ncclHeadroom,
  shrinkPeak,
} from '../fixes';
import { inlineRank } from '../ranks';
import { SIZE, isExact, toBytes } from '../sizes';
import { allocatorFinding, allocatorMessageText, parseAllocatorMessage, platformOfApi, type AllocatorPlatform } from './allocatorMessage';
import type { Fix, Platform } from '../../protocol';
import { joinNext, thrownByTerminate } from './lineContext';
import { parseTensorflowOom, tensorflowFinding } from './tensorflowMessage';
import type { Finding, Signature } from './types';

const CUDA: AllocatorPlatform = {
  signature: 'cuda-caching-allocator',
  platform: 'cuda',
  label: 'CUDA',
  allocConfVar: 'PYTORCH_CUDA_ALLOC_CONF',
  expandableSegments: { supported: true },
};

const cachingAllocator: Signature = {
  id: CUDA.signature,
  platform: 'cuda',
  needles: ['Tried to allocate'],
  match(line) {
    if (line.content.includes('Current platform can NOT allocate')) return undefined;
    const msg = parseAllocatorMessage(allocatorMessageText(line));
    if (!msg || (msg.api !== 'CUDA' && msg.api !== '') || (msg.deviceWord !== undefined && msg.deviceWord !== 'GPU')) return undefined;
    return allocatorFinding(msg, CUDA, line.rank);
  },
};

const MALLOC_ASYNC_FIELDS = {
  allocatedBytes: new RegExp(String.raw`Currently allocated\s*:\s*${SIZE}`),
  requestedBytes: new RegExp(String.raw`Requested\s*:\s*${SIZE}`),
  deviceTotalBytes: new RegExp(String.raw`Device limit\s*:\s*${SIZE}`),
  freeBytes: new RegExp(String.raw`Free \(according to CUDA\)\s*:\s*${SIZE}`),
  allowedBytes: new RegExp(String.raw`memory fraction\)\s*:\s*${SIZE}`),
} as const;

/** backend:cudaMallocAsync (CUDAMallocAsyncAllocator.cpp) prints its numbers one per line. */
const mallocAsync: Signature = {
  id: 'cuda-malloc-async',
  platform: 'cuda',
  needles: ['would exceed allowed memory'],
  match(line) {
    const device = /Allocation on device (\d+) would exceed allowed memory/.exec(line.content);
    if (!device) return undefined;
    // Embedded in another program's string (a Rust panic's Debug of the Python error, a JSON field), the
    // message's line breaks are printed as "\\n" escapes on one line.
    const text = joinNext(line, 8).replace(/\\n/g, '\n');
    const numbers: Finding['numbers'] = {};
    const extraLines: number[] = [];
    for (const [field, re] of Object.entries(MALLOC_ASYNC_FIELDS)) {
      const m = re.exec(text);
      const bytes = m ? toBytes(m[1]!, m[2]!) : undefined;
      // "PyTorch limit" prints SIZE_MAX when no fraction is set: that is no limit, not a number.
      if (bytes !== undefined && isExact(bytes)) numbers[field as keyof typeof MALLOC_ASYNC_FIELDS] = bytes;
    }
    for (let k = 1; k <= 8; k++) if (/^\s*(?:Currently|Requested|Device limit|Free \(|PyTorch limit|:\s)/.test(line.next(k) ?? '')) extraLines.push(k);
    const requested = numbers.requestedBytes ?? 0;
    return {
      signature: 'cuda-malloc-async',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'cuda',
      catchable: true,
      summary: `CUDA out of memory on device ${device[1]} (cudaMallocAsync): ${formatBytes(requested)} requested` +
        (numbers.freeBytes !== undefined ? `, ${formatBytes(numbers.freeBytes)} free` : ''),
      explanation:
        `The cudaMallocAsync backend could not get ${formatBytes(requested)}` +
        (numbers.allocatedBytes !== undefined ? ` with ${formatBytes(numbers.allocatedBytes)} already allocated` : '') +
        (numbers.deviceTotalBytes !== undefined ? ` on a ${formatBytes(numbers.deviceTotalBytes)} device` : '') +
        '. Its pool returns memory to the driver on its own, so fragmentation settings (max_split_size_mb) do not apply; the working set is too large.',
      device: Number(device[1]),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers,
      fixes: [shrinkPeak()],
      extraLines,
    };
  },
};

/**
 * Other runtimes' checks of a CUDA call, each with cudaGetErrorString's (or cuGetErrorString's) "out of
 * memory": CTranslate2's "CUDA failed with error out of memory" (faster-whisper), vLLM's cumem allocator
 * "CUDA Error: out of memory at csrc/cumem_allocator.cpp:62" (sleep/wake_up), FasterTransformer and
 * its forks (lmdeploy's TurboMind, TensorRT-LLM's plugins) "[FT][ERROR] CUDA runtime error: out of
 * memory /path/memory_utils.cu:32", "[TM][ERROR] ...". All raise an exception the caller can catch.
 */
const OTHER_RUNTIMES_OOM = /\bCUDA (?:[Rr]untime [Ee]rror|Error):? out of memory|\bCUDA failed with error:? out of memory/;

/** An out-of-memory status returned by a CUDA runtime call rather than by the caching allocator. */
const runtimeError: Signature = {
  id: 'cuda-runtime-oom',
  platform: 'cuda',
  needles: ['CUDA error: out of memory', 'out of memory', 'CUDA_ERROR_OUT_OF_MEMORY', 'cudaErrorMemoryAllocation'],
  match(line) {
    // The runtime API's words, the driver API's status (JAX/XLA, Triton, CuPy print it) and its enum name.
    if (!/CUDA error: out of memory|cuda runtime error ?\(2\) ?: ?out of memory|CUDA_ERROR_OUT_OF_MEMORY|cudaErrorMemoryAllocation|Error \[CUDA\]: out of memory/.test(line.content) && !OTHER_RUNTIMES_OOM.test(line.content)) return undefined;
    const size = /\((\d+) bytes\)|alloc(?:ate)? (\d+) bytes/.exec(line.content);
    return {
      signature: 'cuda-runtime-oom',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'cuda',
      catchable: true,
      summary: 'CUDA error: out of memory (from a CUDA runtime call)',
      explanation:
        'A CUDA runtime call outside the caching allocator ran out of device memory: context creation, a library workspace, a kernel launch or a peer copy. ' +
        'The caching allocator did not print its numbers, so the cache may have been holding the memory that was missing.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: size ? { requestedBytes: Number(size[1] ?? size[2]) } : {},
      fixes: [shrinkPeak(), { id: 'empty-cache', title: 'Release the cache before the failing call: torch.cuda.empty_cache()', rationale: 'Memory cached by PyTorch is not available to CUDA libraries and the driver.', snippet: 'torch.cuda.empty_cache()' }],
    };
  },
};

const ggmlFewerLayers: Fix = {
  id: 'ggml-fewer-layers',
  title: 'Offload fewer layers (-ngl), shrink the context (-c) or the micro-batch (-ub), or quantize the KV cache (--cache-type-k q8_0)',
  rationale: 'The weights, the KV cache for the whole context and the compute buffers all live on the device; each of these shrinks one of them.',
};

/**
 * llama.cpp/ggml's CUDA backend (hipified for ROCm) aborts on a failed CUDA call. Before 2024 it
 * printed "CUDA error 2 at /path/ggml-cuda.cu:5509: out of memory" then "current device: 0"; since,
 * "CUDA error: out of memory" (ROCm builds: "ROCm error:") then "  current device: 0, in function
 * ggml_cuda_pool_malloc_vmm at /path/ggml-cuda.cu:8583", the failing call, and GGML_ASSERT or
 * GGML_ABORT. The "current device" line is what tells ggml's abort from PyTorch's catchable error.
 */
const GGML_ERROR = /\b(CUDA|ROCm) error(?: \d+ at \S+:\d+)?: (.*)/;
const GGML_DEVICE = /^\s*current device: (-?\d+)/;
/**
 * The prefix journald/syslog puts before each line of a service's output ("Jul 24 16:07:58 vega
 * ollama[114917]: "): ollama and llama.cpp servers run as systemd units, so their aborts come so.
 */
const SYSLOG_PREFIX = /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ [\w.@\/-]+(?:\[\d+\])?: /;
const unlogged = (text: string | undefined): string => (text ?? '').replace(SYSLOG_PREFIX, '');
/** Lines searched above a ggml abort for the backend's own names, which tell a ROCm build from a CUDA one. */
const GGML_BACKEND_LOOKBACK = 200;
/**
 * Builds of ggml's CUDA backend for ROCm printed "CUDA error" before mid-2024; the load log above
 * names the backend ("ROCm0", "ROCm_Host compute buffer", "found 1 ROCm devices").
 */
function ggmlBackendAbove(line: { previous(k: number): string | undefined }): 'rocm' | 'cuda' | undefined {
  for (let k = 1; k <= GGML_BACKEND_LOOKBACK; k++) {
    const prev = line.previous(k);
    if (prev === undefined) return undefined;
    if (/\bROCm(?:\d+|_Host)\b|found \d+ ROCm devices/.test(prev)) return 'rocm';
    if (/\bCUDA(?:\d+|_Host)\b|found \d+ CUDA devices/.test(prev)) return 'cuda';
  }
  return undefined;
}
/** The lines ggml prints under the error: the device, the failing call, its assertion or abort. */
const GGML_ERROR_TAIL = /^\s*current device:|^\s+\S|GGML_ASSERT|ggml-cuda\.cu:\d+: (?:CUDA|ROCm) error/;

const ggmlAbort: Signature = {
  id: 'ggml-cuda-abort',
  platform: 'cuda',
  // Both formats end in "out of memory", already a needle: each needle costs on every candidate line.
  needles: ['out of memory'],
  match(line) {
    const error = GGML_ERROR.exec(line.content);
    const device = GGML_DEVICE.exec(unlogged(line.next(1)));
    if (!error || !device || !/out of memory/.test(error[2]!)) return undefined;
    const extraLines: number[] = [];
    for (let k = 1; k <= 4 && GGML_ERROR_TAIL.test(unlogged(line.next(k))); k++) extraLines.push(k);
    const index = Number(device[1]);
    const platform = error[1] === 'ROCm' ? 'rocm' : (ggmlBackendAbove(line) ?? 'cuda');
    return {
      signature: 'ggml-cuda-abort',
      role: 'failure',
      kind: 'runtime-abort',
      platform,
      catchable: false,
      summary: `llama.cpp/ggml aborted: ${error[1]} out of memory` + (index >= 0 ? ` on device ${index}` : ''),
      explanation:
        `ggml checks every ${error[1]} call and aborts the process when one fails, so running out of device memory in the middle of a run (a pool or ` +
        'compute buffer growing with the context or the batch) ends it without an error the caller could handle.',
      ...(index >= 0 && { device: index }),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [ggmlFewerLayers],
      extraLines,
    };
  },
};

/**
 * ggml failing to allocate a backend buffer: "ggml_backend_cuda_buffer_type_alloc_buffer: allocating
 * 144817.04 MiB on device 0: cudaMalloc failed: out of memory", then "alloc_tensor_range: failed to
 * allocate CUDA0 buffer of size 151851674624" (ROCm builds: "ROCm0 buffer"). The failure is returned
 * to the caller: llama.cpp reports a model it cannot load or retries without pipeline parallelism.
 * The SYCL backend prints the same line with "SYCL0 buffer" (an Intel GPU, platform xpu).
 */
const GGML_ALLOC = new RegExp(String.raw`allocating ${SIZE} on device (\d+): cudaMalloc failed: out of memory`);
const GGML_BUFFER = /failed to allocate (CUDA|ROCm|SYCL)(\d+) buffer of size (\d+)/;

const ggmlBuffer: Signature = {
  id: 'ggml-buffer-alloc',
  platform: 'cuda',
  needles: ['out of memory', 'failed to allocate'],
  match(line) {
    const alloc = GGML_ALLOC.exec(line.content);
    // The exact size and the backend's name come on the line after the cudaMalloc failure, or alone.
    const buffer = GGML_BUFFER.exec(alloc ? (line.next(1) ?? '') : line.content);
    if (!alloc && !buffer) return undefined;
    const requested = buffer ? Number(buffer[3]) : toBytes(alloc![1]!, alloc![2]!);
    const device = Number(alloc ? alloc[3] : buffer![2]);
    const backend = buffer?.[1] ?? 'CUDA';
    return {
      signature: 'ggml-buffer-alloc',
      role: 'failure',
      kind: 'catchable-oom',
      platform: backend === 'ROCm' ? 'rocm' : backend === 'SYCL' ? 'xpu' : 'cuda',
      catchable: true,
      summary: `llama.cpp/ggml could not allocate a ${backend}${device} buffer` + (requested !== undefined ? ` of ${formatBytes(requested)}` : ''),
      explanation:
        'ggml allocates the weights, the KV cache and the compute buffers as a few large device buffers; this one did not fit in what the device had left. ' +
        'The failure goes back to the caller, which reports it (a model or context it cannot create) or retries with less.',
      device,
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: requested !== undefined ? { requestedBytes: requested } : {},
      fixes: [ggmlFewerLayers],
      ...(alloc && buffer && { extraLines: [1] }),
    };
  },
};

/**
 * TensorFlow's "Failed to get convolution algorithm. This is probably because cuDNN failed to
 * initialize, so try looking to see if a warning log message was printed above." (an UnknownError,
 * catchable). The warning above it is usually "Could not create cudnn handle:
 * CUDNN_STATUS_INTERNAL_ERROR": cuDNN could not get the memory for its handle because TensorFlow had
 * already reserved nearly all of the GPU for its own allocator. The public threads (tensorflow#24828,
 * #25160, #36025, matterport/Mask_RCNN#1620) are fixed by allow_growth or a memory fraction, so it is
 * read as an out-of-memory error. When TensorFlow printed that the cuDNN it loaded is not the one it
 * was built with ("Loaded runtime CuDNN library: X but source was compiled with: Y"), that mismatch
 * is the cause instead, and the verdict is not-oom.
 */
const tfConvAlgorithm: Signature = {
  id: 'tensorflow-cudnn-init',
  platform: 'cuda',
  needles: ['Failed to get convolution'],
  match(line) {
    if (!/Failed to get convolution algorithm\. This is probably because cuDNN failed to initialize/.test(line.content)) return undefined;
    let mismatch: string | undefined;
    // The "Could not create cudnn handle" warning above is this failure's cause, not one of its own.
    const handleLines: number[] = [];
    for (let k = 1; k <= 12; k++) {
      const prev = line.previous(k);
      if (prev === undefined) break;
      mismatch ??= /Loaded runtime CuDNN library: .*? but source was compiled with: [\d.]+/.exec(prev)?.[0];
      if (/Could not create cudnn handle/.test(prev)) handleLines.push(k);
    }
    const common = {
      signature: 'tensorflow-cudnn-init', role: 'failure' as const, platform: 'cuda' as const, catchable: true,
      ...(line.rank !== undefined && { rank: line.rank }), numbers: {}, ...(handleLines.length > 0 && { takesOverLines: handleLines }),
    };
    if (mismatch) {
      return {
        ...common,
        kind: 'not-oom',
        summary: 'Not an OOM: TensorFlow loaded a cuDNN other than the one it was built with',
        explanation: `cuDNN failed to initialize because of a version mismatch (${mismatch}); memory is not what is missing.`,
        fixes: [{ id: 'tf-cudnn-version', title: 'Install the cuDNN version this TensorFlow build was compiled against (see TensorFlow\'s tested build configurations)', rationale: 'The loaded cuDNN library does not match the one TensorFlow was compiled with.' }],
      };
    }
    return {
      ...common,
      kind: 'catchable-oom',
      summary: 'TensorFlow: cuDNN failed to initialize (no GPU memory left for its handle)',
      explanation:
        'TensorFlow reserves nearly all of the GPU for its own allocator when it starts, and cuDNN then cannot allocate its handle or workspace. ' +
        'That is the usual cause in the public reports, which allow_growth fixes; a cuDNN that does not match the TensorFlow build is the other one.',
      fixes: [
        { id: 'tf-allow-growth', title: 'Let TensorFlow grow its GPU memory instead of reserving it all: tf.config.experimental.set_memory_growth (or TF_FORCE_GPU_ALLOW_GROWTH=true)', rationale: 'cuDNN allocates outside TensorFlow\'s allocator and needs memory left on the device.', snippet: "for gpu in tf.config.list_physical_devices('GPU'):\n    tf.config.experimental.set_memory_growth(gpu, True)" },
        shrinkPeak(),
        { id: 'tf-cudnn-version', title: 'If it persists with memory growth, check that the installed cuDNN matches the TensorFlow build', rationale: 'A mismatched cuDNN fails to initialize the same way.' },
      ],
    };
  },
};

/** cuBLAS/cuDNN could not allocate their handle or workspace: the device was already full. */
const libraryAlloc: Signature = {
  id: 'cuda-library-alloc',
  platform: 'cuda',
  // cuDNN 9 splits its allocation failures into _INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED and _HOST_ALLOCATION_FAILED.
  needles: ['CUBLAS_STATUS_ALLOC_FAILED', 'CUDNN_STATUS_ALLOC_FAILED', 'CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED', 'CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED'],
  match(line) {
    const lib = /(CUBLAS|CUDNN)_STATUS_(?:ALLOC_FAILED|INTERNAL_ERROR_(?:DEVICE|HOST)_ALLOCATION_FAILED)/.exec(line.content);
    if (!lib) return undefined;
    const name = lib[1] === 'CUBLAS' ? 'cuBLAS' : 'cuDNN';
    return {
      signature: 'cuda-library-alloc',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'cuda',
      catchable: true,
      summary: `${name} could not allocate its handle or workspace (${lib[0]})`,
      explanation:
        `${name} allocates its workspace with the CUDA runtime, outside PyTorch's cache. When the cache and the tensors fill the device, the first ` +
        `${name} call on a new stream or device fails this way; it is an out-of-memory condition, not a library bug.`,
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [
        shrinkPeak(),
        { id: 'warm-up-libraries', title: `Create the ${name} handle early: run one small matmul/conv per device and stream before the large allocations`, rationale: 'The handle and workspace are then allocated while memory is still free.' },
        ...(name === 'cuBLAS' ? [{ id: 'cublas-workspace', title: 'Shrink the cuBLAS workspace: CUBLAS_WORKSPACE_CONFIG=:4096:8', rationale: 'The default workspace per handle and stream is several MiB; many streams multiply it.', snippet: 'export CUBLAS_WORKSPACE_CONFIG=:4096:8' }] : []),
      ],
    };
  },
};

const tfMemoryGrowth: Fix = {
  id: 'tf-memory-growth',
  title: 'Let TensorFlow grow its region instead of reserving it: tf.config.experimental.set_memory_growth(gpu, True)',
  rationale: 'Other processes and libraries on the GPU then keep their share.',
  snippet: "for gpu in tf.config.list_physical_devices('GPU'):\n    tf.config.experimental.set_memory_growth(gpu, True)",
};

/** TensorFlow's OOM on a GPU, or with no device named at all (TensorFlow's OOMs are GPU OOMs unless it says otherwise). */
const tensorflowGpu: Signature = {
  id: 'tensorflow-oom-cuda',
  platform: 'cuda',
  needles: ['OOM when allocating tensor'],
  match(line) {
    const msg = parseTensorflowOom(line);
    if (!msg || (msg.deviceType !== undefined && msg.deviceType !== 'GPU')) return undefined;
    return tensorflowFinding(msg, 'cuda', 'GPU', line, [tfMemoryGrowth]);
  },
};

/** `host:pid:tid [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'` — NCCL's device index. */
const NCCL_DEVICE = /\s\[(\d+)\]\s/;

/** NCCL's own device allocations failing: they live outside PyTorch's cache. */
const ncclOom: Signature = {
  id: 'nccl-out-of-memory',
  platform: 'cuda',
  needles: ["failure 'out of memory'", 'Failed to CUDA calloc', 'Failed to CUDA host alloc', "failure 2 'out of memory'"],
  match(line) {
    const failure = /(Cuda|Hip) failure(?: \d+)? 'out of memory'/.exec(line.content);
    // NCCL's allocation helpers (alloc.h): "calloc", "calloc async" (stream-ordered) and "host alloc" (pinned host memory).
    const calloc = /Failed to CUDA (?:calloc(?: async)?|host alloc) (\d+) bytes/.exec(line.content);
    if (!failure && !calloc) return undefined;
    const device = NCCL_DEVICE.exec(line.content);
    const numbers: Finding['numbers'] = calloc ? { requestedBytes: Number(calloc[1]) } : {};
    return {
      signature: 'nccl-out-of-memory',
      role: 'failure',
      kind: 'collective-oom',
      platform: failure?.[1] === 'Hip' ? 'rocm' : 'cuda',
      catchable: false,
      summary: `NCCL ran out of device memory${device ? ` on device ${device[1]}` : ''}` + (calloc ? ` allocating ${formatBytes(Number(calloc[1]))}` : ''),
      explanation:
        'NCCL allocates its channel buffers and proxies with the CUDA runtime, outside PyTorch\'s cache, often lazily at the first collective of a new kind. ' +
        'With the cache holding the device, NCCL gets nothing; the communicator then fails (ncclUnhandledCudaError) and other ranks wait for this one.',
      ...(device && { device: Number(device[1]) }),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers,
      fixes: [ncclHeadroom, agreeOnFailure, shrinkPeak()],
      facts: { group: 'nccl-oom' },
    };
  },
};

const NCCL_DEBUG_FIX = { id: 'nccl-debug', title: 'Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ALLOC,NET to see the call NCCL failed on', rationale: 'The NCCL warning line names the failing CUDA or network call and its size.', snippet: 'export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ALLOC,NET' };

/** NCCL's words for a peer or the network failing: ncclRemoteError, ncclSystemError, and the transports' own lines. */
const NCCL_NETWORK = /ncclRemoteError|remote process exited|network error|ncclSystemError|unhandled system error|NET\/(?:IB|Socket)/;

/**
 * The error side of a failed NCCL call: the Python/C++ exception ("NCCL error in: ...", "NCCL error:
 * remote process exited or there was a network error", ncclUnhandledCudaError) and ProcessGroupNCCL
 * taking the process down ("Some NCCL operations have failed or timed out"). It joins the collective
 * OOM it reports, or the hang it belongs to; alone it is not an OOM.
 */
const ncclError: Signature = {
  id: 'nccl-error',
  platform: 'cuda',
  needles: ['NCCL error in:', 'NCCL error: ', 'ncclUnhandledCudaError', 'NCCL Error 1', 'DistBackendError:', 'Some NCCL operations have failed or timed out', 'NCCL WARN NET/'],
  match(line) {
    if (/Watchdog caught/.test(line.content)) return undefined;
    // The network transports' own warnings ("NCCL WARN NET/IB : Got completion from peer ... with error 4",
    // "NET/Socket : Connection closed by remote peer"); NET/Plugin's are about loading a plugin, not failures.
    const transport = /NCCL WARN NET\/(?:IB|Socket)\b/.test(line.content);
    if (line.content.includes('NCCL WARN NET/') && !transport) return undefined;
    const network = transport || NCCL_NETWORK.test(joinNext(line, 6));
    return {
      signature: 'nccl-error',
      role: 'nccl-error',
      kind: 'not-oom',
      platform: 'cuda',
      catchable: false,
      summary: network ? 'NCCL call failed: a peer process exited or the network failed' : 'NCCL call failed',
      explanation: network
        ? 'NCCL lost a peer: another rank\'s process ended (its own log shows why: an OOM, a host kill, an exception) or the network between the nodes failed. ' +
          'This rank is a bystander; the communicator cannot continue.'
        : 'A NCCL call returned an error. On its own this line does not say why; NCCL_DEBUG=INFO prints the failing CUDA call ' +
          "(\"Cuda failure 'out of memory'\" is an out-of-memory failure).",
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: network ? [findTheRootRank, NCCL_DEBUG_FIX] : [NCCL_DEBUG_FIX],
    };
  },
};

const WORK = /Work[NHX]CCL\(SeqNum=(\d+), OpType=(\w+)(?:, NumelIn=(\d+), NumelOut=(\d+))?, Timeout\(ms\)=(\d+)\)(?: ran for (\d+) milliseconds)?/;

/** The process group names the hardware: HCCL is Ascend's, XCCL Intel's; NCCL is also what ROCm builds print. */
function collectivePlatform(content: string): Platform {
  if (/HCCL/.test(content)) return 'npu';
  if (/XCCL/.test(content)) return 'xpu';
  return 'cuda';
}

/** ProcessGroupNCCL's (or HCCL's, XCCL's) watchdog found a collective that did not finish in time. */
const watchdogTimeout: Signature = {
  id: 'nccl-watchdog-timeout',
  platform: 'cuda',
  needles: ['Watchdog caught collective operation timeout', 'failure detected by watchdog', 'detected by watchdog at work'],
  match(line) {
    const rank = line.rank ?? inlineRank(line.content);
    const work = WORK.exec(line.content);
    const facts: Record<string, string | number> = {};
    if (work) {
      facts.seq = Number(work[1]);
      facts.opType = work[2]!;
      facts.timeoutMs = Number(work[5]);
    }
    const op = work ? `${work[2]} #${work[1]}` : 'a collective';
    return {
      signature: 'nccl-watchdog-timeout',
      role: 'timeout',
      kind: 'hang',
      platform: collectivePlatform(line.content),
      catchable: false,
      summary: `Collective timeout: ${op} did not finish` + (work ? ` within ${Number(work[5]) / 1000} s` : ''),
      explanation:
        'The NCCL watchdog aborted a collective that never completed. Collectives wait for every rank, so this is what the healthy ranks print when ' +
        'some rank never arrived: it failed earlier (often an OOM), took a different code path, or is still busy. The process is then torn down.',
      ...(rank !== undefined && { rank }),
      numbers: {},
      fixes: [findTheRootRank, flightRecorder, agreeOnFailure],
      facts,
    };
  },
};

/** The heartbeat monitor: the watchdog thread itself made no progress (often stuck in a CUDA call). */
const watchdogStuck: Signature = {
  id: 'nccl-watchdog-stuck',
  platform: 'cuda',
  needles: ['watchdog got stuck', 'Heartbeat monitor timed out'],
  match(line) {
    const seconds = /got stuck for (\d+) seconds/.exec(line.content);
    const rank = line.rank ?? inlineRank(line.content) ?? inlineRank(line.previous(1) ?? '') ?? line.previousRank(1);
    return {
      signature: 'nccl-watchdog-stuck',
      role: 'stuck',
      kind: 'hang',
      platform: collectivePlatform(line.content),
      catchable: false,
      summary: 'NCCL watchdog stuck' + (seconds ? ` for ${seconds[1]} s` : '') + '; the heartbeat monitor ends the process',
      explanation:
        'The watchdog thread did not make progress for TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC, typically because a CUDA/NCCL call blocked (a hung collective, ' +
        'a GIL-holding thread inside a CUDA API). It follows a hang; look for what stopped the collectives.',
      ...(rank !== undefined && { rank }),
      numbers: {},
      fixes: [findTheRootRank, flightRecorder, { id: 'heartbeat-timeout', title: 'Only if the job is really making progress: raise TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC', rationale: 'The monitor cannot tell a slow watchdog from a deadlock.', snippet: 'export TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC=1800' }],
    };
  },
};

/** TORCH_NCCL_DESYNC_DEBUG's report names the ranks that never joined or did not finish. */
const desyncReport: Signature = {
  id: 'nccl-desync-report',
  platform: 'cuda',
  needles: ['are the lagging ranks', "joined but didn't finish collective", "but didn't join collective"],
  match(line) {
    const ranks = /\[([\d, ]+)\]/.exec(line.content);
    return {
      signature: 'nccl-desync-report',
      role: 'timeout',
      kind: 'hang',
      platform: 'cuda',
      catchable: false,
      summary: `Desync report: rank${ranks && ranks[1]!.includes(',') ? 's' : ''} ${ranks ? ranks[1] : '?'} caused the timeout`,
      explanation: `The desync debugger compared every rank's last collective: ${line.content.trim()}`,
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [{ id: 'inspect-lagging-ranks', title: `Inspect the log of the lagging rank${ranks ? ` (${ranks[1]})` : ''} for its first failure`, rationale: 'Those ranks never reached, or never finished, the collective the others waited in.' }, agreeOnFailure],
      ...(ranks && { facts: { laggingRanks: ranks[1]! } }),
    };
  },
};

/** "Tried to allocate more than 1EB memory": a garbage size, seen after collective timeouts (NVIDIA/nccl#1284). */
const absurdRequest: Signature = {
  id: 'cuda-absurd-request',
  platform: 'cuda',
  needles: ['more than 1EB memory'],
  match(line) {
    // Every PyTorch device allocator has this check; the word before "out of memory" names the device.
    const api = /\b([A-Z]{2,5}) out of memory\. Tried to allocate more than/.exec(line.content)?.[1] ?? 'CUDA';
    return {
      signature: 'cuda-absurd-request',
      role: 'after-timeout',
      kind: 'catchable-oom',
      platform: platformOfApi(api) ?? 'cuda',
      catchable: true,
      summary: `${api} out of memory: a request of more than 1 EiB`,
      explanation:
        'No program asks for an exabyte: the size was computed from corrupted state, e.g. a tensor received from a collective that was aborted. Fix what broke first.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [findTheRootRank],
    };
  },
};

/** The error TorchScript raises around any error inside a scripted module; the original follows its TorchScript traceback. */
const TORCHSCRIPT_WRAPPER = 'The following operation failed in the TorchScript interpreter';
/** How far back an out-of-memory message may be printed before the terminate of its uncaught repeat. */
const EARLIER_OOM_LINES = 6;

/**
 * `terminate called after throwing an instance of ...` with an out-of-memory reason: the process
 * aborted. Under TorchScript the `what():` is the interpreter's wrapper, with the original error at
 * the end of its TorchScript traceback; when that end is cut off, an out-of-memory message printed
 * just before (libtorch programs such as dorado log the OOM, empty the cache and retry) is the
 * error that escaped, and that message's verdict becomes this abort.
 */
const terminateOom: Signature = {
  id: 'cuda-terminate-oom',
  platform: 'cuda',
  needles: ['terminate called after throwing'],
  match(line) {
    const text = joinNext(line, 3);
    // std::bad_alloc is operator new failing on the host (cpu.ts); device allocators throw their own types.
    if (/Watchdog caught/.test(text) || /instance of 'std::bad_alloc'/.test(line.content)) return undefined;
    let takesOverLines: number[] | undefined;
    if (!/out of memory/i.test(text)) {
      if (!text.includes(TORCHSCRIPT_WRAPPER)) return undefined;
      if (!/out of memory/i.test(joinNext(line, 12))) {
        const k = [...Array(EARLIER_OOM_LINES).keys()].map((i) => i + 1).find((i) => /out of memory/i.test(line.previous(i) ?? ''));
        if (k === undefined) return undefined;
        takesOverLines = [k];
      }
    }
    return {
      signature: 'cuda-terminate-oom',
      role: 'failure',
      kind: 'runtime-abort',
      platform: 'cuda',
      catchable: false,
      summary: 'Process aborted: an out-of-memory error was thrown where nothing could catch it',
      explanation:
        'A C++ exception reporting out-of-memory escaped a native thread (engine worker, destructor), so the runtime called std::terminate and the process aborted without a Python exception.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [shrinkPeak()],
      extraLines: [1, 2].filter((k) => line.next(k) !== undefined),
      // The allocator's own message follows as "what(): CUDA out of memory. Tried to allocate ...".
      absorbsLines: [1],
      ...(takesOverLines && { takesOverLines }),
    };
  },
};

const illegalAccess: Signature = {
  id: 'cuda-illegal-address',
  platform: 'cuda',
  needles: ['an illegal memory access was encountered'],
  match(line) {
    const hip = /HIP error/.test(line.content);
    return {
      signature: 'cuda-illegal-address',
      role: 'failure',
      kind: 'not-oom',
      platform: hip ? 'rocm' : 'cuda',
      catchable: false,
      summary: 'Not an OOM: a kernel accessed an illegal address',
      explanation:
        'A kernel read or wrote memory it does not own (out-of-bounds index, use after free, a bad custom kernel). The CUDA context is now unusable; ' +
        'the process must restart. Running out of memory does not cause this error.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [debugAsync, { id: 'compute-sanitizer', title: 'Run under compute-sanitizer with PYTORCH_NO_CUDA_MEMORY_CACHING=1', rationale: 'The caching allocator hides out-of-bounds accesses inside its segments; without it the sanitizer sees them.', snippet: 'PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer python train.py' }],
    };
  },
};

const deviceAssert: Signature = {
  id: 'cuda-device-assert',
  platform: 'cuda',
  needles: ['device-side assert triggered', 'Assertion `'],
  match(line) {
    const kernelAssert = /thread: \[\d+,\d+,\d+\] Assertion `(.*)` failed/.exec(line.content);
    if (!kernelAssert && !line.content.includes('device-side assert triggered')) return undefined;
    const labels = kernelAssert && /n_classes|t >= 0|index out of bounds|srcIndex|idx_dim/.test(kernelAssert[1]!);
    return {
      signature: 'cuda-device-assert',
      role: 'failure',
      kind: 'not-oom',
      platform: 'cuda',
      catchable: false,
      summary: `Not an OOM: a device-side assertion failed${kernelAssert ? ` (${kernelAssert[1]})` : ''}`,
      explanation:
        'A kernel checked its input and stopped. Most often an index or class label is out of range (e.g. a target >= the number of classes). ' +
        'The context is poisoned afterwards; later errors in the log are consequences.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [
        ...(labels ? [{ id: 'check-labels', title: 'Check that labels/indices are within [0, num_classes)', rationale: 'The failing assertion compares a target index against the number of classes.', snippet: 'assert int(target.min()) >= 0 and int(target.max()) < num_classes' }] : []),
        debugAsync,
      ],
      facts: { group: 'device-assert' },
    };
  },
};

const smallerBatchCheck: Fix = { id: 'smaller-batch-check', title: 'Retry with a smaller batch to rule out a workspace/indexing limit', rationale: 'If a smaller batch works, the failure is size-related rather than a layout or setup problem.' };
const libraryVersions: Fix = {
  id: 'library-versions',
  title: 'Check that the driver, the CUDA runtime and the cuDNN/cuBLAS that PyTorch loads belong together (python -m torch.utils.collect_env)',
  rationale: 'Mismatched or foreign library builds on the library path fail at handle creation or in their kernels with generic statuses.',
};

/** What each non-allocation library status usually means, and the fixes that fit it. */
function libraryStatusAdvice(status: string): { meaning: string; fixes: Fix[] } {
  if (status.startsWith('NOT_SUPPORTED')) {
    return {
      meaning: 'the library does not support this call: a non-contiguous input, an unsupported shape/dtype combination, or a batch too large for its 32-bit indexing',
      fixes: [
        { id: 'contiguous-input', title: 'Make the input contiguous before the op: x = x.contiguous()', rationale: 'The error text names non-contiguous input as the common cause.', snippet: 'x = x.contiguous()' },
        smallerBatchCheck,
      ],
    };
  }
  if (/^(?:NOT_INITIALIZED|INTERNAL_ERROR|ARCH_MISMATCH|VERSION_MISMATCH|RUNTIME_PREREQUISITE_MISSING|LICENSE_ERROR)/.test(status)) {
    return {
      meaning:
        'the library could not start or run on this setup: a driver, CUDA and cuDNN/cuBLAS build that do not match, a GPU the build does not support, ' +
        'or, when it first creates its handle, a device that was already full',
      fixes: [libraryVersions, smallerBatchCheck, debugAsync],
    };
  }
  return { meaning: 'a kernel failed or got bad arguments (often an earlier asynchronous fault, or an out-of-range index or shape)', fixes: [debugAsync, libraryVersions] };
}

/**
 * cuDNN/cuBLAS/cuSOLVER/cuSPARSE statuses other than an allocation failure (which libraryAlloc
 * claims): CUDNN_STATUS_NOT_SUPPORTED, _INTERNAL_ERROR, _EXECUTION_FAILED, _BAD_PARAM,
 * CUBLAS_STATUS_NOT_INITIALIZED, ... Not memory failures as reported, though a handle created on a
 * full device can fail with a generic status, so the advice says how to rule that out.
 */
const libraryStatus: Signature = {
  id: 'cuda-library-status',
  platform: 'cuda',
  needles: ['CUDNN_STATUS_', 'CUBLAS_STATUS_', 'CUSOLVER_STATUS_', 'CUSPARSE_STATUS_'],
  match(line) {
    const m = /\b(CUDNN|CUBLAS|CUSOLVER|CUSPARSE)_STATUS_([A-Z0-9_]+)/.exec(line.content);
    if (!m || m[2] === 'SUCCESS') return undefined;
    const library = { CUDNN: 'cuDNN', CUBLAS: 'cuBLAS', CUSOLVER: 'cuSOLVER', CUSPARSE: 'cuSPARSE' }[m[1] as 'CUDNN' | 'CUBLAS' | 'CUSOLVER' | 'CUSPARSE'];
    const advice = libraryStatusAdvice(m[2]!);
    return {
      signature: 'cuda-library-status',
      role: 'failure',
      kind: 'not-oom',
      platform: 'cuda',
      catchable: !thrownByTerminate(line),
      summary: `Not an OOM: ${library} failed with ${m[0]}`,
      explanation: `${library} returned ${m[0]}: ${advice.meaning}. Its out-of-memory status is ${m[1]}_STATUS_ALLOC_FAILED, which this is not.`,
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: advice.fixes,
    };
  },
};

/**
 * Any other CUDA/HIP runtime error PyTorch raises ("CUDA error: no kernel image is available...",
 * "misaligned address", "unspecified launch failure"): not a memory failure. Listed after the
 * out-of-memory, illegal-address and assertion signatures, which claim their lines first.
 */
const otherRuntimeError: Signature = {
  id: 'cuda-runtime-error',
  platform: 'cuda',
  needles: ['CUDA error: ', 'HIP error: '],
  match(line) {
    const m = /\b(CUDA|HIP) error: ([^.\n]+)/.exec(line.content);
    if (!m || /out of memory/i.test(m[2]!)) return undefined;
    return {
      signature: 'cuda-runtime-error',
      role: 'failure',
      kind: 'not-oom',
      platform: m[1] === 'HIP' ? 'rocm' : 'cuda',
      catchable: /Error\b/.test(line.content.slice(0, m.index)),
      summary: `Not an OOM: ${m[1]} error: ${m[2]!.trim()}`,
      explanation:
        `The ${m[1]} runtime reported an error that is not about memory capacity. "no kernel image is available" means the build has no code for this GPU's ` +
        'architecture; launch failures and misaligned addresses are kernel bugs. Freeing memory does not help.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [debugAsync],
    };
  },
};

export const signatures: readonly Signature[] = [
  tfConvAlgorithm,
  mallocAsync,
  absurdRequest,
  cachingAllocator,
  ggmlAbort,
  ggmlBuffer,
  runtimeError,
  libraryAlloc,
  tensorflowGpu,
  ncclOom,
  watchdogTimeout,
  watchdogStuck,
  desyncReport,
  ncclError,
  terminateOom,
  illegalAccess,
  deviceAssert,
  libraryStatus,
  otherRuntimeError,
];
