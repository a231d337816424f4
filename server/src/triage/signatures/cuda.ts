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
  hostMemory,
  ncclHeadroom,
  shrinkPeak,
} from '../fixes';
import { inlineRank } from '../ranks';
import { SIZE, isExact, toBytes } from '../sizes';
import { allocatorFinding, allocatorMessageText, parseAllocatorMessage, parseHeadlessAllocatorMessage, platformOfApi, type AllocatorPlatform } from './allocatorMessage';
import type { Fix, Platform, SourceFrame } from '../../protocol';
import { caffe2Device, endsProcessAfter, glogAbortBelow, joinNext, mpiAbortRank, ORT_DEVICE, previousFrame, SYSLOG_PREFIX, thrownByTerminate, trailingDevice } from './lineContext';
import { devicePlatformNear, platformNear, WENT_ON_INSTEAD } from './otherOom';
import { parseTensorflowOom, tensorflowFinding } from './tensorflowMessage';
import type { Finding, LineView, Numbers, Signature } from './types';

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
  // 'ried to allocate' also finds a copy typed or titled in lower case (allocatorMessage.ts recased).
  needles: ['ried to allocate'],
  match(line) {
    if (line.content.includes('Current platform can NOT allocate')) return undefined;
    const msg = parseAllocatorMessage(allocatorMessageText(line));
    if (!msg || (msg.api !== 'CUDA' && msg.api !== '') || (msg.deviceWord !== undefined && msg.deviceWord !== 'GPU')) return undefined;
    return allocatorFinding(msg, CUDA, line.rank);
  },
};

/**
 * PyTorch's 2.2+ message without its first sentence ("GPU 0 has a total capacity of 23.64 GiB of which 1.61 GiB is free. …"),
 * as a blog or an issue quotes it. When the head is on a line above, the message is the head's to read.
 */
const HEAD_ABOVE_LINES = 40;

const headlessAllocatorMessage: Signature = {
  id: CUDA.signature,
  platform: 'cuda',
  // The sentences after the first name memory ("… memory in use", "Of the allocated memory …"), which the scan's anchors find.
  needles: ['memory in use', 'Of the allocated memory'],
  match(line) {
    if (!/GPU\s*\d* has a total capac/.test(line.content)) return undefined;
    // A head above (with a traceback between) has read the message; HIP's and XPU's builds print the same sentences.
    for (let k = 1; k <= HEAD_ABOVE_LINES; k++) if (/ried to allocate|out of memory/i.test(line.previous(k) ?? '')) return undefined;
    if (devicePlatformNear(line) !== 'cuda') return undefined;
    const msg = parseHeadlessAllocatorMessage(line.content);
    if (msg?.deviceWord !== 'GPU') return undefined;
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

/**
 * The message's head cut where a logger's column ended ("!!! Exception during processing !!! Allocation on device",
 * then rich's "execution.py:430" location column): the line ends right after the words (or the device), with no
 * numbers. Only cudaMallocAsync's message starts so.
 */
/** Why cudaMallocAsync's OOM is not fragmentation, for both readings of its message. */
const MALLOC_ASYNC_NOT_FRAGMENTATION =
  'Its pool returns memory to the driver on its own, so fragmentation settings (max_split_size_mb) do not apply; the working set is too large.';

function cutMallocAsync(line: LineView): Finding | undefined {
  // A copy may keep the device after the exception's type ("torch.cuda.OutOfMemoryError: Allocation on device 0") and cut the rest.
  const cut = /(?:^|[!:>\]]\s*)Allocation on device\s*(?:[\w.-]+\.py:\d+\s*)?$|\bOutOfMemoryError: Allocation on device (\d+)\s*$/.exec(line.content);
  if (!cut) return undefined;
  return {
    ...(cut[1] !== undefined && { device: Number(cut[1]) }),
    signature: 'cuda-malloc-async',
    role: 'failure',
    kind: 'catchable-oom',
    platform: 'cuda',
    catchable: true,
    summary: 'CUDA out of memory (cudaMallocAsync; its message was cut after "Allocation on device")',
    explanation: 'The cudaMallocAsync backend could not get an allocation ("Allocation on device N would exceed allowed memory"); the log cut the message before its device and sizes. ' + MALLOC_ASYNC_NOT_FRAGMENTATION,
    ...(line.rank !== undefined && { rank: line.rank }),
    numbers: {},
    fixes: [shrinkPeak()],
  };
}

/** backend:cudaMallocAsync (CUDAMallocAsyncAllocator.cpp) prints its numbers one per line. */
const mallocAsync: Signature = {
  id: 'cuda-malloc-async',
  platform: 'cuda',
  needles: ['would exceed allowed memory', 'Allocation on device'],
  match(line) {
    const device = /Allocation on device (\d+) would exceed allowed memory/.exec(line.content);
    if (!device) return cutMallocAsync(line);
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
        '. ' + MALLOC_ASYNC_NOT_FRAGMENTATION,
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
 * memory /path/memory_utils.cu:32", "[TM][ERROR] ..."; TensorRT-LLM's own check (cudaUtils.h: "[TensorRT-LLM][ERROR] CUDA
 * runtime error in <call>: out of memory (<file>:<line>)"); onnxruntime's ("CUDA failure 2: out of memory ; GPU=0 ; …",
 * ORT_DEVICE). All raise an exception the caller can catch.
 */
const OTHER_RUNTIMES_OOM = /\bCUDA (?:[Rr]untime [Ee]rror|Error):? out of memory|\bCUDA failed with error:? out of memory|\bCUDA runtime error in \S.*?: out of memory|\bCUDA failure \d+: out of memory/;

/** An out-of-memory status returned by a CUDA runtime call rather than by the caching allocator. */
const runtimeError: Signature = {
  id: 'cuda-runtime-oom',
  platform: 'cuda',
  needles: ['CUDA error: out of memory', 'out of memory', 'CUDA_ERROR_OUT_OF_ME', 'cudaErrorMemoryAllocation'],
  match(line) {
    // The runtime API's words, the driver API's status (JAX/XLA, Triton, CuPy print it; also cut inside its name where a paste
    // ends: taichi's "CUDA Error CUDA_ERROR_OUT_OF_ME") and its enum name.
    if (!/CUDA error: out of memory|cuda runtime error ?\(2\) ?: ?out of memory|CUDA_ERROR_OUT_OF_MEMORY|CUDA_ERROR_OUT_OF_ME\w*\s*$|cudaErrorMemoryAllocation|Error \[CUDA\]: out of memory/.test(line.content) && !OTHER_RUNTIMES_OOM.test(line.content)) return undefined;
    // A status a library logs as a maybe before its own retry ("cuMemCreate CUDA_ERROR_OUT_OF_MEMORY (may not be an issue
    // e.g. torch allocator will free cache and retry)", torch_memory_saver) is not yet a failure.
    if (/\bmay not be an issue\b/.test(line.content)) return undefined;
    const size = /\((\d+) bytes\)|alloc(?:ate)? (\d+) bytes/.exec(line.content);
    // The device as onnxruntime's check names it, or as miners do ("Can't find nonce with device [ID=11, GPU #11], cuda
    // exception: CUDA_ERROR_OUT_OF_MEMORY", T-Rex).
    let device = ORT_DEVICE.exec(line.content)?.[1] ?? /\bGPU ?#(\d+)\b/.exec(line.content)?.[1];
    // A check that ends the process on the status (an uncaught exception, MPI_Abort on every rank: mpi4jax's) makes it an abort;
    // so does a Rust panic that carries it (cudarc's "thread 'main' panicked at …" over "called `Result::unwrap()` on an `Err`
    // value: DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\")").
    const panicked = /\bcalled `(?:Result|Option)::(?:unwrap|expect)\(\)` on an `Err` value\b/.test(line.content) &&
      [0, 1].some((k) => /\bthread 'main'(?: \(\d+\))? panicked at\b/.test(k === 0 ? line.content : (line.previous(k) ?? '')));
    // The NVIDIA HPC compilers' OpenACC runtime ends the program on a failed call ("Accelerator Fatal Error: call to cuMemAlloc
    // returned error 2 (CUDA_ERROR_OUT_OF_MEMORY): Out of memory").
    const aborts = panicked || /\bAccelerator Fatal Error\b/.test(line.content) || endsProcessAfter(line, 3);
    const rank = line.rank ?? mpiAbortRank(line, 3);
    // TensorFlow's StreamExecutor ("cuda_driver.cc:739] failed to allocate 2.12G (2282521344 bytes) from device:
    // CUDA_ERROR_OUT_OF_MEMORY") names no device; the BFC allocator that asked for it does, in the warnings
    // logged around it ("Allocator (GPU_0_bfc) ran out of memory trying to allocate …"), the nearest after it first.
    if (device === undefined && /\bcuda_driver\.cc:\d+\] failed to allocate /.test(line.content)) {
      for (let k = 1; k <= 6 && device === undefined; k++) device = /\bAllocator \(GPU_(\d+)_bfc\)/.exec(line.next(k) ?? '')?.[1];
      for (let k = 1; k <= 6 && device === undefined; k++) device = /\bAllocator \(GPU_(\d+)_bfc\)/.exec(line.previous(k) ?? '')?.[1];
    }
    return {
      signature: 'cuda-runtime-oom',
      ...(device !== undefined && { device: Number(device) }),
      role: 'failure',
      kind: aborts ? 'runtime-abort' : 'catchable-oom',
      platform: 'cuda',
      catchable: !aborts,
      summary: `${aborts ? 'Process aborted: ' : ''}CUDA error: out of memory (from a CUDA runtime call)`,
      explanation:
        'A CUDA runtime call outside the caching allocator ran out of device memory: context creation, a library workspace, a kernel launch or a peer copy. ' +
        'The caching allocator did not print its numbers, so the cache may have been holding the memory that was missing.',
      ...(rank !== undefined && { rank }),
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
 * "ROCm error:" needs no such line: it is ggml's own wording (GGML_CUDA_NAME is "ROCm" in HIP builds, and
 * ggml_cuda_error aborts after it), where PyTorch and HIP say "HIP error", so a log cut right after it is the abort.
 */
const GGML_ERROR = /\b(CUDA|ROCm) error(?: \d+ at \S+:\d+)?: (.*)|ggml-cuda\.cu:\d+: (HipVMM|CU) Failure: (.*)/;
const GGML_DEVICE = /^\s*current device: (-?\d+)/;
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
  // Both formats end in "out of memory", already a needle: each needle costs on every candidate line. A cuBLAS call's
  // status is printed with cuBLAS's own string: CUBLAS_STATUS_ALLOC_FAILED is "the resource allocation failed".
  needles: ['out of memory', 'the resource allocation failed'],
  match(line) {
    const match = GGML_ERROR.exec(line.content);
    // A paste with a blank line after every line (a console copied through a renderer) has the device line two down.
    const device = GGML_DEVICE.exec(unlogged(line.next(1))) ?? (unlogged(line.next(1)).trim() === '' ? GGML_DEVICE.exec(unlogged(line.next(2))) : null);
    // The API's name and the error's words; the virtual-memory pool's check names the driver API ("CU Failure") or, in HIP
    // builds, "HipVMM Failure".
    const error = match && { api: match[1] ?? (match[3] === 'HipVMM' ? 'ROCm' : 'CUDA'), message: match[2] ?? match[4]! };
    if (!error || !/out of memory|^the resource allocation failed/.test(error.message)) return undefined;
    const cublas = /^the resource allocation failed/.test(error.message);
    if (cublas && !device) return undefined;
    // Without the "current device" line (a log cut right after the error), ggml's own source in the old format ("CUDA error 2 at
    // /path/ggml-cuda.cu:4856: out of memory", CUDA_CHECK then exit(1)) or its backend's names in the load log above ("CUDA0 KV
    // buffer size", "CUDA_Host compute buffer") say the process was ggml's.
    // A host app's report that names ggml before the error ("GGML backend encountered an error … CUDA error: out of memory", Jan) says so too.
    if (!device && error.api !== 'ROCm' && !/ggml-cuda(?:\.cu|\/\S*\.cuh?):\d+:|\bGGML backend\b/.test(line.content) && ggmlBackendAbove(line) === undefined) return undefined;
    const extraLines: number[] = [];
    for (let k = 1; k <= 4 && GGML_ERROR_TAIL.test(unlogged(line.next(k))); k++) extraLines.push(k);
    const index = device ? Number(device[1]) : -1;
    // A hipified build that still says "CUDA error" names HIP's call under it ("  hipMalloc((void **) &ptr, look_ahead_size)").
    const hipCall = extraLines.some((k) => /^\s*hip[A-Z]\w*\(/.test(unlogged(line.next(k))));
    const platform = error.api === 'ROCm' || hipCall ? 'rocm' : (ggmlBackendAbove(line) ?? 'cuda');
    return {
      signature: 'ggml-cuda-abort',
      role: 'failure',
      kind: 'runtime-abort',
      platform,
      catchable: false,
      summary: `llama.cpp/ggml aborted: ${cublas ? 'cuBLAS could not allocate its handle or workspace (CUBLAS_STATUS_ALLOC_FAILED)' : `${error.api} out of memory`}` + (index >= 0 ? ` on device ${index}` : ''),
      explanation:
        `ggml checks every ${error.api} call and aborts the process when one fails, so running out of device memory in the middle of a run (a pool or ` +
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
    // A caller that asserts the buffer ("ggml-backend.cpp:179: GGML_ASSERT(buffer) failed", stderr may print it first) aborts.
    const asserted = [-3, -2, -1, 1, 2, 3].some((k) => /\bGGML_ASSERT\(buffer\) failed\b/.test((k < 0 ? line.previous(-k) : line.next(k)) ?? ''));
    return {
      signature: 'ggml-buffer-alloc',
      role: 'failure',
      kind: asserted ? 'runtime-abort' : 'catchable-oom',
      platform: backend === 'ROCm' ? 'rocm' : backend === 'SYCL' ? 'xpu' : 'cuda',
      catchable: !asserted,
      summary: `${asserted ? 'Process aborted: ' : ''}llama.cpp/ggml could not allocate a ${backend}${device} buffer` + (requested !== undefined ? ` of ${formatBytes(requested)}` : ''),
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
 * The load step's own words for a ggml buffer that did not fit, read by the tail pass when ggml's line above them is not in
 * the log (a title, a paste of the last line):
 * - llama.cpp's loader, which throws "unable to allocate backend buffer" (later "unable to allocate <backend> buffer") when
 *   ggml returns no buffer for the weights and prints it as "llama_model_load: error loading model: …": the caller gets
 *   the error, a catchable-oom;
 * - ollama 0.1's "llama runner exited, you may not have enough available memory to run this model": its runner process
 *   died while loading the model, and ollama names memory as the likely cause; the process is gone, a runtime-abort.
 * ggml names the backend in the load log above ("CUDA0 buffer size"); with none, the lines around decide.
 */
const GGML_LOAD_BUFFER = /\bunable to allocate (?:(CUDA|ROCm|SYCL|Vulkan|Metal|CPU)(?:\d+|_Host)? )?(?:backend )?buffer\b/;
const OLLAMA_RUNNER_EXITED = /\bllama runner exited, you may not have enough (?:available )?memory\b/;

export const tailGgmlLoadFailure: Signature = {
  id: 'ggml-load-failure',
  platform: 'cuda',
  needles: ['unable to allocate', 'llama runner exited'],
  match(line) {
    const buffer = GGML_LOAD_BUFFER.exec(line.content);
    const exited = !buffer && OLLAMA_RUNNER_EXITED.test(line.content);
    if (!buffer && !exited) return undefined;
    const named = buffer?.[1];
    const platform: Platform = named === 'ROCm' ? 'rocm' : named === 'SYCL' ? 'xpu' : named === 'Metal' ? 'mps' : named === 'CPU' ? 'cpu'
      : (ggmlBackendAbove(line) ?? platformNear(line));
    return {
      signature: 'ggml-load-failure',
      role: 'failure',
      kind: exited ? 'runtime-abort' : 'catchable-oom',
      platform,
      catchable: !exited,
      summary: exited ? 'ollama\'s llama runner exited while loading the model (likely out of memory)' : 'llama.cpp could not allocate a backend buffer for the model',
      explanation: exited
        ? 'The runner process that loads the model ended before it answered, and ollama names memory as the likely cause: the weights, KV cache and compute buffers did not fit in the GPU (or host) memory left. ' +
          'The lines above it in the server\'s log show how it ended.'
        : 'ggml could not allocate the buffer that holds the model\'s weights on the backend, so the model failed to load; the loader returned the error to its caller.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [ggmlFewerLayers],
      facts: { tier: 2 },
    };
  },
};

/**
 * accelerate's find_executable_batch_size (also behind the Trainer's auto_find_batch_size and the DreamBooth extension)
 * halving the batch after each OOM until none is left: "RuntimeError: No executable batch size found, reached zero." Every
 * batch size ran out of memory; the error reaches the caller. Read by the tail pass (the line holds no hot anchor).
 */
export const tailBatchSizeExhausted: Signature = {
  id: 'batch-size-exhausted',
  platform: 'cuda',
  needles: ['No executable batch size found'],
  match(line) {
    if (!/\bNo executable batch size found, reached zero\b/.test(line.content)) return undefined;
    return {
      signature: 'batch-size-exhausted',
      role: 'failure',
      kind: 'catchable-oom',
      platform: devicePlatformNear(line, 60),
      catchable: true,
      summary: 'Out of memory at every batch size: the batch-size search reached zero',
      explanation:
        'The trainer caught an out-of-memory error, halved the batch and tried again, until no batch was left: even a batch of one does not fit with the ' +
        'model, optimizer and sequence length as set. The error went back to the caller.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [shrinkPeak('what one sample needs (sequence length, resolution), or the model\'s and optimizer\'s share (8-bit optimizer, gradient checkpointing, sharding)')],
      facts: { tier: 2 },
    };
  },
};

/**
 * TensorFlow's "Failed to get convolution algorithm. This is probably because cuDNN failed to
 * initialize, so try looking to see if a warning log message was printed above." (an UnknownError,
 * catchable). The warning above it is usually "Could not create cudnn handle:
 * CUDNN_STATUS_INTERNAL_ERROR": cuDNN could not create its handle, most often because TensorFlow had
 * already reserved nearly all of the GPU for its own allocator (tensorflow#24828, #25160, #36025,
 * matterport/Mask_RCNN#1620 are fixed by allow_growth). No line says memory ran out, though, and the
 * labels of eleven public logs by as many collectors call it not-oom (TRIAGE.md lists cuDNN statuses
 * other than allocation failures as look-alikes), so it is read as not-oom with allow_growth as the
 * first fix. When the handle warning above says CUDNN_STATUS_ALLOC_FAILED, memory is named and it is an
 * OOM; when TensorFlow printed that the cuDNN it loaded is not the one it was built with ("Loaded
 * runtime CuDNN library: X but source was compiled with: Y"), that mismatch is the cause and the fix.
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
    let allocFailed = false;
    for (let k = 1; k <= 12; k++) {
      const prev = line.previous(k);
      if (prev === undefined) break;
      mismatch ??= /Loaded runtime CuDNN library: .*? but source was compiled with: [\d.]+/.exec(prev)?.[0];
      if (/Could not create cudnn handle/.test(prev)) {
        handleLines.push(k);
        allocFailed ||= /CUDNN_STATUS_ALLOC_FAILED/.test(prev);
      }
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
      kind: allocFailed ? 'catchable-oom' : 'not-oom',
      summary: allocFailed ? 'TensorFlow: cuDNN failed to initialize (no GPU memory left for its handle)' : 'TensorFlow: cuDNN failed to initialize (most often no GPU memory left for its handle)',
      explanation:
        (allocFailed ? 'cuDNN could not allocate its handle (CUDNN_STATUS_ALLOC_FAILED above). ' : 'The log does not say memory ran out, so this is not read as an OOM, but memory is the usual cause. ') +
        'TensorFlow reserves nearly all of the GPU for its own allocator when it starts, and cuDNN then cannot allocate its handle or workspace; ' +
        'allow_growth fixes that in the public reports. A cuDNN that does not match the TensorFlow build is the other cause.',
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
      // onnxruntime's CUDA provider names the device: "CUBLAS failure 3: CUBLAS_STATUS_ALLOC_FAILED ; GPU=1 ; …".
      ...(ORT_DEVICE.test(line.content) && { device: Number(ORT_DEVICE.exec(line.content)![1]) }),
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
  needles: ['OM when allocating tensor'],
  match(line) {
    const msg = parseTensorflowOom(line);
    if (!msg || (msg.deviceType !== undefined && msg.deviceType !== 'GPU')) return undefined;
    return tensorflowFinding(msg, 'cuda', 'GPU', line, [tfMemoryGrowth]);
  },
};

/** `host:pid:tid [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'` — NCCL's device index. */
const NCCL_DEVICE = /\s\[(\d+)\]\s/;
/** The same index in front of a WARN line's source location only, where it is NCCL's prefix. */
const NCCL_WARN_DEVICE = /:\d+:\d+ \[(\d+)\] \S+ NCCL WARN\b/;

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
      // RCCL keeps NCCL's words ("Cuda failure") in its hipified sources: its path names it.
      platform: failure?.[1] === 'Hip' || /\brccl\b|\/hipify\//.test(line.content) ? 'rocm' : 'cuda',
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
  // 'NCCL error(code:N) on ncclX': OpenPPL's nccl_utils.h check. "NCCL WARN Cuda failure '<reason>'": NCCL's
  // CUDACHECK on a CUDA call (any reason but 'out of memory', which ncclOom reads).
  needles: ['NCCL error in:', 'NCCL error: ', 'NCCL error(code:', 'ncclUnhandledCudaError', 'NCCL Error ', 'DistBackendError:', 'Some NCCL operations have failed or timed out', 'NCCL WARN NET/', 'NCCL WARN Net : ', 'NCCL WARN Cuda failure '],
  match(line) {
    if (/Watchdog caught/.test(line.content)) return undefined;
    if (/NCCL WARN Cuda failure /.test(line.content) && /out of memory/.test(line.content)) return undefined;
    // The network transports' own warnings ("NCCL WARN NET/IB : Got completion from peer ... with error 4",
    // "NET/Socket : Connection closed by remote peer"); NET/Plugin's are about loading a plugin, not failures.
    // NCCL 2.12+'s socket layer (misc/socket.cc) says "Net : Connection closed by remote peer …" and
    // "Net : Call to recv from <addr> failed : Broken pipe".
    const transport = /NCCL WARN NET\/(?:IB|Socket)\b|NCCL WARN Net : /.test(line.content);
    if (line.content.includes('NCCL WARN NET/') && !transport) return undefined;
    const network = transport || NCCL_NETWORK.test(joinNext(line, 6));
    // ProcessGroupNCCL's teardown line with no failed call or lost peer named is the watchdog's: a collective
    // that did not finish (a hang). A failed call elsewhere in the log is its own finding, which outranks a hang.
    if (!network && /Some NCCL operations have failed or timed out/.test(line.content)) {
      const rank = line.rank ?? inlineRank(line.content);
      return {
        signature: 'nccl-error',
        role: 'timeout',
        kind: 'hang',
        platform: 'cuda',
        catchable: false,
        summary: 'ProcessGroupNCCL took the process down: some NCCL operations failed or timed out',
        explanation: 'ProcessGroupNCCL\'s watchdog found a collective that did not complete and tore the process down. The log names no failed call or lost peer, so a collective that never finished (a rank that did not arrive) is the likely cause.',
        ...(rank !== undefined && { rank }),
        numbers: {},
        fixes: [findTheRootRank, NCCL_DEBUG_FIX],
      };
    }
    // NCCL's own WARN line names the local device it ran on ("host:pid:tid [4] transport/net_ib.cc:154 NCCL WARN …").
    const device = NCCL_WARN_DEVICE.exec(line.content);
    return {
      signature: 'nccl-error',
      role: 'nccl-error',
      kind: 'not-oom',
      platform: 'cuda',
      catchable: false,
      ...(device && { device: Number(device[1]) }),
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

/**
 * The Python stack of the collective that timed out, which PyTorch 2.6+ prints a few lines under the timeout from its flight
 * recorder ("Stack trace of the failed collective:", then "#0 all_reduce from /…/distributed_c10d.py:3068", "#2 <module> from
 * /home/u/train.py:24", innermost first): where the program issued the collective the other ranks never joined. Outermost
 * first, as tracebacks are read.
 */
const FAILED_COLLECTIVE_STACK = /\bStack trace of the failed collective:\s*$/;
const FLIGHT_RECORDER_FRAME = /^\s*#\d+ (\S+) from (.+):(\d+)\s*$/;
/** As far as the engine lets a signature read ahead; a desync report between the two can push the stack past it. */
const STACK_LOOKAHEAD_LINES = 12;

function failedCollectiveStack(line: LineView): SourceFrame[] {
  for (let k = 1; k <= STACK_LOOKAHEAD_LINES; k++) {
    if (!FAILED_COLLECTIVE_STACK.test(line.next(k) ?? '')) continue;
    const frames: SourceFrame[] = [];
    for (let j = k + 1; ; j++) {
      const frame = FLIGHT_RECORDER_FRAME.exec(line.next(j) ?? '');
      if (!frame) break;
      frames.unshift({ file: frame[2]!, line: Number(frame[3]), function: frame[1]! });
    }
    return frames;
  }
  return [];
}

/** ProcessGroupNCCL's (or HCCL's, XCCL's) watchdog found a collective that did not finish in time. */
const watchdogTimeout: Signature = {
  id: 'nccl-watchdog-timeout',
  platform: 'cuda',
  // The stack alone also tells it, when an excerpt kept only the C++ frames: the watchdog's handler right
  // under WorkNCCL::checkTimeout (the timeout check threw; other watchdog errors come from elsewhere).
  needles: ['Watchdog caught collective operation timeout', 'failure detected by watchdog', 'detected by watchdog at work', 'ProcessGroupNCCL::watchdogHandler'],
  match(line) {
    if (line.content.includes('ProcessGroupNCCL::watchdogHandler') && !/Watchdog caught|detected by watchdog/.test(line.content)) {
      if (!/^\s*frame #\d+: /.test(line.content) || !/WorkNCCL::checkTimeout/.test(previousFrame(line) ?? '')) return undefined;
    }
    const rank = line.rank ?? inlineRank(line.content);
    const work = WORK.exec(line.content);
    const facts: Record<string, string | number> = {};
    if (work) {
      facts.seq = Number(work[1]);
      facts.opType = work[2]!;
      facts.timeoutMs = Number(work[5]);
    }
    const op = work ? `${work[2]} #${work[1]}` : 'a collective';
    const frames = failedCollectiveStack(line);
    return {
      ...(frames.length > 0 && { frames }),
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

/**
 * The watchdog's stack in PyTorch 2.8+, which moved its loop into a Watchdog class ("frame #2:
 * c10d::ProcessGroupNCCL::Watchdog::runLoop() + 0x…", ProcessGroupNCCL.cpp), right under WorkNCCL::checkTimeout:
 * a collective timed out, as with the older watchdogHandler frame. Read by the tail pass (no streaming needle),
 * for an excerpt that kept only the C++ frames; a prefix before "frame #N:" (Ray's "(Worker pid=N)") is allowed.
 */
const WATCHDOG_LOOP_FRAME = /\bframe #\d+: c10d::ProcessGroupNCCL::Watchdog::run(?:Loop)?\(/;
/**
 * The watchdog thread's own last words when its timeout check threw ("Process group watchdog thread terminated with exception:
 * [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(…) ran for N milliseconds before timing out.",
 * ProcessGroupNCCL.cpp's watchdog catch), read by the tail pass when the timeout's own sentence was not read: a paste that
 * re-wrapped the line at a fixed width ("Watch dog caught", "ti ming out") keeps these words whole often enough.
 */
const WATCHDOG_TERMINATED_TIMEOUT = /\bwatchdog thread terminated with exception: .*\bcollective operation timeout\b/;
export const tailWatchdogFrames: Signature = {
  id: 'nccl-watchdog-frames',
  platform: 'cuda',
  // PyTorch 1.x raised the timeout from the work's wait instead ("RuntimeError: [Rank 0] Caught collective operation timeout:
  // WorkNCCL(…) ran for N milliseconds before timing out.", ProcessGroupNCCL.cpp), with no anchor of the hot scan on it.
  needles: ['::Watchdog::run', 'watchdog thread terminated with exception', 'Caught collective operation timeout'],
  match(line) {
    // The watchdog died while building the desync report of a timed-out collective (TORCH_NCCL_DESYNC_DEBUG: "… watchdog
    // thread terminated with exception: traceMap[…] INTERNAL ASSERT FAILED … Timeout rank [0] …", then "Exception raised from
    // retrieveDesyncReport"): the timeout came first.
    const desync = /\bwatchdog thread terminated with exception: /.test(line.content) && (/\bTimeout rank\b/.test(line.content) || /\bretrieveDesyncReport\b/.test(line.next(1) ?? ''));
    if (WATCHDOG_TERMINATED_TIMEOUT.test(line.content) || desync || /\bCaught collective operation timeout: WorkNCCL\(/.test(line.content)) {
      const f = watchdogTimeout.match(line);
      return f && { ...f, facts: { ...f.facts, tier: 2 } };
    }
    if (!WATCHDOG_LOOP_FRAME.test(line.content) || !/WorkNCCL::checkTimeout\(/.test(previousFrame(line) ?? '')) return undefined;
    const f = watchdogTimeout.match(line);
    return f && { ...f, facts: { ...f.facts, tier: 2 } };
  },
};

/**
 * PyTorch 2.4+'s flight-recorder dump signal (ProcessGroupNCCL.cpp): when a collective times out, every rank is told to dump
 * its debug info, and each prints "Received a dump signal due to a collective timeout from this local rank and we will try our
 * best to dump the debug info. Last enqueued NCCL work: 23, last completed NCCL work: 23." ("from rank N" on the ranks that
 * were told). A log may hold these lines and not the watchdog's own timeout line: a collective timed out, a hang.
 */
const DUMP_SIGNAL = /\bReceived a dump signal due to a collective timeout from (this local rank|\s*rank (\d+))\b(?:.*?Last enqueued \w+ work: (-?\d+), last completed \w+ work: (-?\d+))?/;

const dumpSignal: Signature = {
  id: 'nccl-dump-signal',
  platform: 'cuda',
  needles: ['Received a dump signal due to a collective timeout'],
  match(line) {
    const m = DUMP_SIGNAL.exec(line.content);
    if (!m) return undefined;
    const rank = line.rank ?? inlineRank(line.content);
    const facts: Record<string, string | number> = {};
    if (m[3] !== undefined) {
      facts.lastEnqueued = Number(m[3]);
      facts.lastCompleted = Number(m[4]);
    }
    // The counts are the printing rank's own, whichever rank's timeout it was told of.
    const stalled = m[3] !== undefined && m[3] === m[4] && rank !== undefined ? ` (rank ${rank} had completed every collective it enqueued: it was waiting for others)` : '';
    return {
      signature: 'nccl-dump-signal',
      role: 'timeout',
      kind: 'hang',
      platform: collectivePlatform(line.content),
      catchable: false,
      summary: `Collective timeout: ${m[2] !== undefined ? `rank ${m[2]}'s` : rank !== undefined ? `rank ${rank}'s` : 'a'} collective timed out and the ranks were told to dump their debug info` + stalled,
      explanation:
        'A collective did not finish within the process group\'s timeout, and the watchdog signalled every rank to dump its flight recorder. ' +
        'Collectives wait for every rank, so the rank that never arrived (it failed earlier, often an OOM, took another code path, or is still busy) is the cause; ' +
        'a rank whose last enqueued and last completed work are equal was waiting for the others.',
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

/**
 * SGLang's scheduler watchdog (managers/scheduler.py watchdog_thread: "Watchdog timeout (self.watchdog_timeout=300)", each
 * tensor-parallel scheduler behind its "[time TP4]" prefix, then it kills the server's process tree): a forward batch did not
 * finish in time, a hang. The first TP index that reports it is the rank. Read by the tail pass, below any failure of its
 * own a rank printed (an OOM, an exception, a crash): the watchdog fires after it.
 */
const SGLANG_WATCHDOG = /\bWatchdog timeout \(self\.watchdog_timeout=(\d+)\)/;

export const tailSglangWatchdog: Signature = {
  id: 'sglang-watchdog',
  platform: 'cuda',
  needles: ['Watchdog timeout (self.watchdog_timeout='],
  match(line) {
    const m = SGLANG_WATCHDOG.exec(line.content);
    if (!m) return undefined;
    const tp = /^\[[^\]]*\bTP(\d+)\]/.exec(line.content);
    return {
      signature: 'sglang-watchdog',
      role: 'timeout',
      kind: 'hang',
      platform: platformNear(line),
      catchable: false,
      summary: `SGLang's scheduler watchdog fired: a batch did not finish in ${m[1]} s`,
      explanation:
        'The scheduler checks that its forward passes make progress; this one did not for the watchdog\'s timeout (a collective waiting for a rank that failed or stalled, or a kernel that never returns), and SGLang kills the server.',
      ...(tp && { rank: Number(tp[1]) }),
      numbers: {},
      fixes: [findTheRootRank, { id: 'sglang-watchdog-timeout', title: 'Only if the batch is really that slow (a first compile, a huge prefill): raise --watchdog-timeout', rationale: 'The watchdog cannot tell a slow batch from a stuck one.' }],
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

/** Device allocators' own exception types, which say what failed when the what() line is cut off: Paddle's and thrust's. */
const DEVICE_BAD_ALLOC = /instance of '(?:paddle::memory::allocation::BadAlloc|thrust::system::detail::bad_alloc)'/;
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
    // std::bad_alloc is operator new failing on the host (cpu.ts); device allocators throw their own types. tt-metal's TT_THROW
    // carries its own allocator's message, read whole by the tail pass (tailAllocFailure.ts).
    if (/Watchdog caught/.test(text) || /instance of 'std::bad_alloc'/.test(line.content) || /\bTT_THROW\b|\btt::exception\b/.test(text)) return undefined;
    let takesOverLines: number[] | undefined;
    if (!/out of memory/i.test(text) && !DEVICE_BAD_ALLOC.test(line.content)) {
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
      // A HIP call named in the what() (a HIP error-check macro: "campHipErrchk(hipStreamCreate(&s)) out of memory").
      platform: /\bhip[A-Z]\w*\(|\bHIP error\b/.test(text) ? 'rocm' : 'cuda',
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
    // onnxruntime's "GPU=N", or ggml's "current device: N" under its error.
    const named = ORT_DEVICE.exec(line.content)?.[1] ?? GGML_DEVICE.exec(unlogged(line.next(1)))?.[1];
    const device = named !== undefined ? Number(named) : trailingDevice(line.content);
    return {
      ...(device !== undefined && { device }),
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

/** A device allocation that failed: the driver's or runtime's status, or an exception for it; not a warning, a hint or a retry. */
const CUDA_DEVICE_OOM_NEAR = /\bCUDA_ERROR_OUT_OF_MEMORY\b|\bcudaErrorMemoryAllocation\b|(?:Error|error): CUDA out of memory\b/;
const cudaDeviceOomNear = (text: string): boolean => CUDA_DEVICE_OOM_NEAR.test(text) && !/\bwarn|\bif you\b|\bnote:|\btip:|\bhalving\b/i.test(text) && !WENT_ON_INSTEAD.test(text);
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
    // A handle that could not be created beside the device's allocations failing ("failed to create cublas handle:
    // CUBLAS_STATUS_NOT_INITIALIZED" among TensorFlow's "failed to allocate 32.00M (33554432 bytes) from device:
    // CUDA_ERROR_OUT_OF_MEMORY" lines): the library found no memory for it; the out-of-memory line is the failure.
    if (/^(?:NOT_INITIALIZED|INTERNAL_ERROR)$/.test(m[2]!) && [-8, -7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8].some((k) => cudaDeviceOomNear((k < 0 ? line.previous(-k) : line.next(k)) ?? ''))) return undefined;
    const advice = libraryStatusAdvice(m[2]!);
    // onnxruntime's "GPU=N"; an application's check that prints the device ("…(CUBLAS_STATUS_NOT_INITIALIZED), device index: 7").
    const named = ORT_DEVICE.exec(line.content) ?? /\bdevice(?: index| id)?\s*[:=]\s*(\d+)\b/i.exec(line.content);
    const device = named ? Number(named[1]) : undefined;
    // Logged at glog's FATAL severity ("F0719 …", TensorFlow 1.x's untimed "F tensorflow/stream_executor/cuda/cuda_dnn.cc:383] …")
    // or a failed CHECK, or followed by the shell's "Aborted": the process aborted on it.
    let fatal = /^\s*F\d{4} |^\s*F [\w.\/-]+\.(?:cc|cpp|h|hpp|cu):\d+\] |\bCheck failed\b/.test(line.content);
    for (let k = 1; k <= 3 && !fatal; k++) fatal = /^\s*Aborted\b|\(core dumped\)|^\s*SIGABRT\b/.test(line.next(k) ?? '');
    // XLA's and TensorFlow's handle creation logs the device's memory under its failure (stream_executor cuda_dnn.cc: "Memory
    // usage: 382402560 bytes free, 4221566976 bytes total."), which tells whether a full device was the likely cause.
    const usage = /^(?:NOT_INITIALIZED|INTERNAL_ERROR)$/.test(m[2]!) ? handleMemoryUsageBelow(line) : undefined;
    return {
      signature: 'cuda-library-status',
      role: 'failure',
      kind: 'not-oom',
      platform: 'cuda',
      catchable: !thrownByTerminate(line) && !fatal,
      ...(device !== undefined && { device }),
      summary: `Not an OOM: ${library} failed with ${m[0]}`,
      explanation:
        `${library} returned ${m[0]}: ${advice.meaning}. Its out-of-memory status is ${m[1]}_STATUS_ALLOC_FAILED, which this is not.` +
        (usage ? ` The device had ${formatBytes(usage.numbers.freeBytes!)} free of ${formatBytes(usage.numbers.deviceTotalBytes!)} when it failed.` : ''),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: usage?.numbers ?? {},
      fixes: advice.fixes,
      ...(usage && { extraLines: [usage.at] }),
    };
  },
};

const HANDLE_MEMORY_USAGE = /\bMemory usage: (\d+) bytes free, (\d+) bytes total\b/;

/** The "Memory usage: N bytes free, M bytes total." line within two lines under a handle's failure, and its offset. */
function handleMemoryUsageBelow(line: LineView): { numbers: Numbers; at: number } | undefined {
  for (let k = 1; k <= 2; k++) {
    const m = HANDLE_MEMORY_USAGE.exec(line.next(k) ?? '');
    if (m) return { numbers: { freeBytes: Number(m[1]), deviceTotalBytes: Number(m[2]) }, at: k };
  }
  return undefined;
}

/**
 * Any other CUDA/HIP runtime error PyTorch raises ("CUDA error: no kernel image is available...",
 * "misaligned address", "unspecified launch failure"): not a memory failure. Listed after the
 * out-of-memory, illegal-address and assertion signatures, which claim their lines first.
 */
const ROCM_LIBRARY_ABOVE = /\bHIPBLAS(?:LT)?_STATUS_[A-Z_]+|\bhipblasLt\w*|\brocBLAS error: |\bMIOpen(?:\(HIP\))?:? Error\b|\bmiopenStatus[A-Z]\w*/;
/** The allocation statuses of ROCm's math libraries, as their names appear in a ROCm build's "CUDA error: …". */
const ROCM_ALLOC_STATUS = /\bHIPBLAS(?:LT)?_STATUS_ALLOC_FAILED\b|\brocblas_status_memory_error\b|\bmiopenStatusAllocFailed\b/;
const JIT_ALLOCATION_FAILURE = /^\s*fatal\s*: Memory allocation failure\s*$/;
const otherRuntimeError: Signature = {
  id: 'cuda-runtime-error',
  platform: 'cuda',
  needles: ['CUDA error: ', 'HIP error: '],
  match(line) {
    const m = /\b(CUDA|HIP) error: ([^.\n]+)/.exec(line.content);
    // The rest of the line, not only up to its first dot: a check macro names a file first ("CUDA error:
    // build/xgboost/…/device_helpers.cuh(386): out of memory").
    if (!m || /out of memory/i.test(line.content.slice(m.index))) return undefined;
    // The driver's JIT compiler out of memory beside it ("fatal   : Memory allocation failure", then "CUDA error: unknown
    // error" or "no error"): the compile of a kernel could not get memory; the other-OOM reading takes that line.
    if ([-3, -2, -1, 1, 2, 3].some((k) => JIT_ALLOCATION_FAILURE.test((k < 0 ? line.previous(-k) : line.next(k)) ?? ''))) return undefined;
    // PyTorch's ROCm build names a ROCm library's allocation status inside its "CUDA error: …" ("CUDA error:
    // HIPBLAS_STATUS_ALLOC_FAILED when calling `hipblasCreate(handle)`", hipblas.h; rocblas_status_memory_error,
    // rocblas-types.h; miopenStatusAllocFailed, miopen.h): the library could not allocate its handle or workspace on a full
    // device, raised to the caller as a RuntimeError.
    const rocmAlloc = ROCM_ALLOC_STATUS.exec(m[2]!);
    if (rocmAlloc) {
      return {
        signature: 'cuda-library-alloc',
        role: 'failure',
        kind: 'catchable-oom',
        platform: 'rocm',
        catchable: /Error\b/.test(line.content.slice(0, m.index)),
        summary: `Out of memory on the GPU: a ROCm library could not allocate its handle or workspace (${rocmAlloc[0]})`,
        explanation:
          'PyTorch\'s ROCm build raises HIP\'s and its libraries\' statuses as "CUDA error: …". This one is the library\'s allocation failure: hipBLAS/rocBLAS/MIOpen ' +
          'allocate their handle and workspace outside PyTorch\'s cache, and when the cache and the tensors fill the device the first call fails this way.',
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: {},
        fixes: [shrinkPeak()],
      };
    }
    // ggml's abort on any failed CUDA call prints the device and the call under the error ("  current device: 0, in function
    // ggml_backend_cuda_synchronize at …", "  cudaStreamSynchronize(…)") and then aborts: nothing could catch it.
    const ggml = GGML_DEVICE.exec(unlogged(line.next(1)));
    const device = ggml ? Number(ggml[1]) : m[1] === 'CUDA' ? caffe2Device(line) : undefined;
    const hipCall = ggml !== null && /^\s*hip[A-Z]\w*\(/.test(unlogged(line.next(2)));
    // PyTorch's ROCm build raises HIP's errors as "CUDA error: …" (hipified sources); a ROCm math library's status on the
    // lines just above ("bgemm_internal_cublaslt error: HIPBLAS_STATUS_INTERNAL_ERROR when calling hipblasLtMatmul", an
    // MIOpen or rocBLAS error) says the build is ROCm's.
    let rocmBuild = false;
    for (let k = 1; k <= 5 && m[1] === 'CUDA' && !rocmBuild; k++) rocmBuild = ROCM_LIBRARY_ABOVE.test(line.previous(k) ?? '');
    return {
      ...(device !== undefined && { device }),
      signature: 'cuda-runtime-error',
      role: 'failure',
      kind: 'not-oom',
      platform: m[1] === 'HIP' || rocmBuild || hipCall ? 'rocm' : 'cuda',
      catchable: !ggml && /Error\b/.test(line.content.slice(0, m.index)),
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


/**
 * TensorRT's own allocator (nvinfer1 defaultAllocator, the builder and the runtime): "[TRT] [E] 1:
 * [defaultAllocator.cpp::allocate::19] Error Code 1: Cuda Runtime (out of memory)", TensorRT 8.6+'s
 * "Error Code 2: OutOfMemory (no further information)", and the warning with the size, "[TRT] [W]
 * Requested amount of GPU memory (13476831488 bytes) could not be allocated. There may not be enough
 * free memory for allocation to succeed." The warning and the error are one failure.
 */
const TRT_ERROR = /Error Code \d+: (?:Cuda Runtime \(out of memory\)|OutOfMemory\b)|\(\d+\) - OutOfMemory Error in \w+/i;
/**
 * TensorRT 7 and earlier print the request without "GPU" ("[TensorRT] ERROR: Requested amount of memory (150994944 bytes) could
 * not be allocated. There may not be enough free memory for allocation to succeed.") and their errors as "<file> (<line>) -
 * <Type> Error in <function>: <code>" ("../rtSafe/WeightsPtr.cpp (92) - OutOfMemory Error in allocate: 0"); the builder's
 * autotuner reports the buffer it could not get ("autotuning: user allocator error allocating 86114305024-byte buffer").
 * The lower-case "Error code 1: cuda Runtime (out of memory)" is TensorRT 10's; its virtual-memory buffers put the request in
 * the error ("[virtualMemoryBuffer.cpp::resizePhysical::151] Error Code 2: OutOfMemory (Requested size was 16654532608 bytes.)").
 */
const TRT_REQUEST = /Requested amount of (?:GPU )?memory \((\d+) bytes\) could not be allocated|\ballocator error allocating (\d+)-byte buffer\b|\bOutOfMemory \(Requested size was (\d+) bytes\.?\)/;
const TRT_CONTEXT = /TensorRT|\bTRT\b|GPU memory|There may not be enough free memory for allocation to succeed/;

const tensorrtOom: Signature = {
  id: 'tensorrt-out-of-memory',
  platform: 'cuda',
  needles: ['Cuda Runtime (out of memory)', 'cuda Runtime (out of memory)', 'OutOfMemory', 'Requested amount of GPU memory', 'Requested amount of memory'],
  match(line) {
    const error = TRT_ERROR.test(line.content);
    let request = TRT_REQUEST.exec(line.content);
    if (request && !error && !TRT_CONTEXT.test(line.content)) request = null;
    if (!error && !request) return undefined;
    for (let k = 1; k <= 3 && !request; k++) request = TRT_REQUEST.exec(line.next(k) ?? '');
    const bytes = request ? Number(request[1] ?? request[2] ?? request[3]) : undefined;
    return {
      signature: 'tensorrt-out-of-memory',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'cuda',
      catchable: true,
      summary: 'TensorRT ran out of GPU memory' + (bytes !== undefined ? ` allocating ${formatBytes(bytes)}` : ''),
      explanation:
        'TensorRT\'s allocator could not get device memory (building an engine, creating an execution context or loading weights). ' +
        'Engine builds try tactics with large workspaces; what other frameworks in the process (PyTorch\'s cache) hold is not available to TensorRT.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: bytes !== undefined ? { requestedBytes: bytes } : {},
      fixes: [
        { id: 'trt-workspace', title: 'Cap the builder workspace (config.set_memory_pool_limit(MemoryPoolType.WORKSPACE, …), trtexec --memPoolSize) or build with a smaller max batch/sequence', rationale: 'The builder sizes tactics and activations for the largest profile shape.' },
        { id: 'empty-cache', title: 'Release other frameworks\' caches before building or loading: torch.cuda.empty_cache()', rationale: 'Memory PyTorch caches is not available to TensorRT.', snippet: 'torch.cuda.empty_cache()' },
        shrinkPeak('the engine\'s profile shapes (max batch, max sequence length)'),
      ],
      facts: { group: 'tensorrt-oom' },
    };
  },
};

/**
 * CuPy's memory pool (cupy/cuda/memory.pyx OutOfMemoryError): "Out of memory allocating 25,600,000 bytes
 * (allocated so far: 3,635,267,072 bytes)." (v6+; ", limit set to: N bytes" when a pool limit is set),
 * and CuPy ≤ 5's "out of memory to allocate 163840000 bytes (total 1673061376 bytes)". "Allocated so
 * far" is what the pool has allocated from the device (memory.pyx: the pool's total_bytes(), its blocks in use and the free
 * pieces split off them that free_all_blocks cannot return; older releases add the request), so reserved in PyTorch's
 * words, not the live arrays. Chainer prints it as "Exception in main training loop: …".
 */
const CUPY_NEW = /Out of memory allocating ([\d,]+) bytes(?: \(allocated so far: ([\d,]+) bytes(?:, limit set to: ([\d,]+) bytes)?\))?/;
const CUPY_OLD = /out of memory to allocate (\d+) bytes \(total (\d+) bytes\)/;
const num = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s.replace(/,/g, '')));

const cupyOom: Signature = {
  id: 'cupy-out-of-memory',
  platform: 'cuda',
  needles: ['Out of memory allocating', 'out of memory to allocate'],
  match(line) {
    const c = line.content;
    // XLA spells its runtime failure the same way, after its status.
    if (/RESOURCE_EXHAUSTED|Resource exhausted/.test(c)) return undefined;
    const m = CUPY_NEW.exec(c);
    const old = m ? null : CUPY_OLD.exec(c);
    if (!old && !(m && (m[2] !== undefined || /cupy/.test(c)))) return undefined;
    const requested = num(m ? m[1] : old![1])!;
    const pool = num(m ? m[2] : old![2]);
    const limit = num(m?.[3]);
    const numbers: Finding['numbers'] = { requestedBytes: requested };
    if (pool !== undefined) numbers.reservedBytes = pool;
    if (limit !== undefined) numbers.allowedBytes = limit;
    return {
      signature: 'cupy-out-of-memory',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'cuda',
      catchable: true,
      summary: `CuPy out of memory: ${formatBytes(requested)} requested` + (pool !== undefined ? `, ${formatBytes(pool)} held by its memory pool` : ''),
      explanation:
        'CuPy\'s memory pool could not get a block for the request: the pool had already freed its unused blocks and retried. ' +
        (limit !== undefined ? `The pool has a limit of ${formatBytes(limit)} (set_limit / CUPY_GPU_MEMORY_LIMIT). ` : '') +
        'The arrays alive at this point (and anything else on the GPU) leave too little.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers,
      fixes: [shrinkPeak('the arrays alive at the failing allocation (batch size, chunks)'), { id: 'cupy-free-pool', title: 'Free cached blocks between phases: cupy.get_default_memory_pool().free_all_blocks()', rationale: 'Blocks the pool caches are not available to other libraries on the same GPU.', snippet: 'cupy.get_default_memory_pool().free_all_blocks()' }],
    };
  },
};

/**
 * RAPIDS Memory Manager (rmm/detail/error.hpp: RMM_FAIL/RMM_EXPECTS throw "RMM failure at: <file>:<line>:
 * <reason>"; rmm::bad_alloc's what() adds "std::bad_alloc: ", rmm::out_of_memory "out_of_memory: "):
 * "MemoryError: std::bad_alloc: RMM failure at:…/pool_memory_resource.hpp:179: Maximum pool size exceeded",
 * "std::bad_alloc: out_of_memory: CUDA error at: …/cuda_memory_resource.hpp:…: cudaErrorMemoryAllocation out of memory" (older
 * releases without "out_of_memory: ").
 * Python wrappers (cuDF, cupoch, cuML) raise it as MemoryError, which is why this comes before the host one. A paste may cut
 * the line after the file ("… CUDA error at: /…/rmm/mr/device/cuda_memory_resource.hpp"). Uncaught in C++ code it ends the
 * process: "terminate called after throwing an instance of 'rmm::bad_alloc'" (or 'rmm::out_of_memory').
 */
const RMM = /(?:std::bad_alloc|out_of_memory): (?:out_of_memory: )?(?:RMM failure|CUDA error) at:\s*(\S*?)(?::(\d+): (.*))?$/;
const RMM_TERMINATE = /terminate called after throwing an instance of 'rmm::(?:bad_alloc|out_of_memory)'/;

const rmmOom: Signature = {
  id: 'rmm-out-of-memory',
  platform: 'cuda',
  needles: ['bad_alloc: RMM failure', 'bad_alloc: out_of_memory', 'bad_alloc: CUDA error at', 'out_of_memory: RMM failure', 'out_of_memory: CUDA error', "terminate called after throwing an instance of 'rmm::"],
  match(line) {
    const m = RMM.exec(line.content);
    const terminated = RMM_TERMINATE.test(line.content);
    if (!m && !terminated) return undefined;
    const reason = m?.[3]?.trim() ?? '';
    // Older releases throw bad_alloc for any failed cudaMalloc: a status other than out of memory (a sticky
    // cudaErrorIllegalAddress left by an earlier kernel) is that error's, which other readers name.
    if (/\bcuda(?:Error(?!MemoryAllocation)\w+|_ERROR_(?!OUT_OF_MEMORY)\w+)/.test(reason) && !/out of memory/i.test(reason)) return undefined;
    const pool = /Maximum pool size exceeded/.test(reason);
    return {
      signature: 'rmm-out-of-memory',
      role: 'failure',
      kind: terminated ? 'runtime-abort' : 'catchable-oom',
      platform: 'cuda',
      catchable: !terminated,
      summary: `RMM could not allocate device memory${reason ? `: ${reason}` : ''}${terminated ? ' (uncaught: the process aborted)' : ''}`,
      explanation: pool
        ? 'RMM\'s pool memory resource reached its maximum size: the pool was created with a limit (maximum_pool_size, or the initial size in wrappers that fix it) that the live allocations now exceed.'
        : 'RMM\'s device memory resource could not get memory from CUDA: the GPU is full.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: pool
        ? [{ id: 'rmm-pool-size', title: 'Give the RMM pool a larger maximum size (rmm.reinitialize(pool_allocator=True, initial_pool_size=…, maximum_pool_size=…)) or no fixed limit', rationale: 'The pool refuses requests beyond its configured maximum even when the GPU has memory left.' }, shrinkPeak()]
        : [shrinkPeak(), { id: 'rmm-managed', title: 'Use managed memory (rmm.reinitialize(managed_memory=True)) to spill to host', rationale: 'Unified memory lets the working set exceed the device at a speed cost.' }],
    };
  },
};

/**
 * onnxruntime's BFC arena (core/framework/bfc_arena.cc): "Failed to allocate memory for requested buffer
 * of size N" and "Available memory of N is smaller than requested bytes of M" (an arena with a memory
 * limit). The arena serves the CUDA execution provider and the CPU one alike: the platform is CUDA when
 * the message or the lines around it name the CUDA provider or a GPU.
 */
const ORT_ARENA = /Failed to allocate memory for requested buffer of size (\d+)|Available memory of (\d+) is smaller than requested bytes of (\d+)/;
const ORT_CUDA = /CUDAExecutionProvider|CUDA_PINNED|\bCuda\b|\bcuda\b|\bCUDA\b|\bGPU\b/;

const ortArena: Signature = {
  id: 'onnxruntime-arena',
  platform: 'cuda',
  needles: ['Failed to allocate memory for requested buffer', 'Available memory of'],
  match(line) {
    const m = ORT_ARENA.exec(line.content);
    if (!m) return undefined;
    let cuda = ORT_CUDA.test(line.content);
    for (let k = 1; k <= 40 && !cuda; k++) cuda = ORT_CUDA.test(line.previous(k) ?? '');
    for (let k = 1; k <= 6 && !cuda; k++) cuda = ORT_CUDA.test(line.next(k) ?? '');
    const requested = Number(m[1] ?? m[3]);
    const numbers: Finding['numbers'] = {};
    if (Number.isFinite(requested)) numbers.requestedBytes = requested;
    if (m[2] !== undefined) numbers.freeBytes = Number(m[2]);
    const absurd = requested > 2 ** 50;
    return {
      signature: 'onnxruntime-arena',
      role: 'failure',
      kind: 'catchable-oom',
      platform: cuda ? 'cuda' : 'cpu',
      catchable: true,
      summary: `onnxruntime's memory arena could not allocate ${formatBytes(requested)}`,
      explanation:
        'onnxruntime\'s BFC arena could not serve a buffer for a node\'s output or workspace. ' +
        (absurd
          ? 'The size is far beyond any device: a shape computed from garbage (an uninitialised or overflowed dimension, a wrong dynamic input shape), not a model that is too big.'
          : 'The arena grows in chunks and does not give memory back; the model\'s activations at this input size do not fit in what is left.'),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers,
      fixes: absurd
        ? [{ id: 'ort-check-shapes', title: 'Check the input shapes and the model\'s dynamic dimensions (the requested size is not a real allocation)', rationale: 'A size in the exabytes comes from a bad shape computation.' }]
        : [shrinkPeak('the input batch or resolution'), { id: 'ort-arena', title: 'Limit or reshape the arena: gpu_mem_limit and arena_extend_strategy="kSameAsRequested" in the CUDA provider options', rationale: 'The default strategy doubles the arena, overshooting the device.' }],
    };
  },
};

/**
 * Numba's CUDA driver binding (numba/cuda/cudadrv/driver.py CudaAPIError: "[719] Call to cuMemAlloc results
 * in CUDA_ERROR_LAUNCH_FAILED"): the call names what failed, the status why. CUDA_ERROR_OUT_OF_MEMORY is
 * read by the runtime signature; any other status is not a memory failure, even from an allocation call
 * (a sticky error from an earlier kernel surfaces at the next driver call).
 */
const NUMBA_STATUS = /Call to (\w+) results in (CUDA_ERROR_[A-Z_]+)/;
const STICKY = /^CUDA_ERROR_(?:LAUNCH_FAILED|ILLEGAL_ADDRESS|ILLEGAL_INSTRUCTION|MISALIGNED_ADDRESS|HARDWARE_STACK_ERROR|ASSERT|INVALID_PC|LAUNCH_TIMEOUT|ECC_UNCORRECTABLE)$/;

const driverStatus: Signature = {
  id: 'cuda-driver-status',
  platform: 'cuda',
  needles: ['results in CUDA_ERROR_'],
  match(line) {
    const m = NUMBA_STATUS.exec(line.content);
    if (!m || m[2] === 'CUDA_ERROR_OUT_OF_MEMORY') return undefined;
    const sticky = STICKY.test(m[2]!);
    return {
      signature: 'cuda-driver-status',
      role: 'failure',
      kind: 'not-oom',
      platform: 'cuda',
      catchable: !sticky,
      summary: `Not an OOM: ${m[1]} failed with ${m[2]}`,
      explanation:
        `The CUDA driver call ${m[1]} returned ${m[2]}. ` +
        (sticky
          ? 'That status is sticky: an earlier kernel faulted or timed out and the context is unusable; the call that reports it (even an allocation) is not the cause.'
          : 'It is not the out-of-memory status (CUDA_ERROR_OUT_OF_MEMORY).'),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [debugAsync],
    };
  },
};

/**
 * An application's own report that it caught a device OOM and went on, when its log keeps nothing else of it. These are
 * noted OOMs (fallback 'noted-oom'): they speak only for a log where nothing else failed, in any way (the OOM's own message,
 * when present, is read with its numbers instead; a later error or crash is the verdict).
 * - detectron2's retry_if_cuda_oom (detectron2/utils/memory.py), after an OOM that empty_cache did not clear: "Attempting to
 *   copy inputs of <function …> to CPU due to CUDA OOM", then the function runs again on the CPU;
 * - ComfyUI's prompt executor (execution.py), after the memory summary: "Got an OOM, unloading all loaded models.", then
 *   the prompt fails and the next one starts with the models unloaded;
 * - the VAE decoders of ComfyUI ("Warning: Ran out of memory when regular VAE decoding, retrying with tiled VAE decoding.")
 *   and of Forge ("Warning: Encountered Out of Memory during VAE decoding; Retrying with Tiled VAE Decoding..."), which
 *   decode again in tiles;
 * - the DreamBooth extension's batch-size search ("OOM Detected, reducing batch/grad size to 10/1."), after
 *   accelerate's find_executable_batch_size, which tries again with a smaller batch;
 * - a trainer or predictor that drops the batch that ran out ("| WARNING: ran out of memory on GPU #2, skipping batch",
 *   fairseq's trainer; "WARNING: ran out of memory, skipping batch", Boltz's predictor), then goes on with the next one.
 */
const CAUGHT_OOM_REPORTS: readonly { needles: readonly string[]; re: RegExp; summary: (m: RegExpExecArray) => string; explanation: string; fix: string }[] = [
  {
    needles: ['CPU due to CUDA OOM'],
    re: /\bAttempting to copy inputs(?: of (.+?))? to CPU due to CUDA OOM\b/,
    summary: (m) => `CUDA out of memory, caught by detectron2: ${m[1] ?? 'the function'} ran again on the CPU`,
    explanation:
      'detectron2 caught a CUDA OOM in this function, emptied the cache and retried, ran out again, and then copied the inputs to the CPU to finish there. ' +
      'Nothing failed, but this step now runs on the CPU: the inputs (often a large image or many masks at inference) need more GPU memory than is left.',
    fix: 'the input size at inference (image size, number of proposals or masks post-processed at once)',
  },
  {
    needles: ['Got an OOM, unloading'],
    re: /\bGot an OOM, unloading all loaded models\b/,
    summary: () => 'Out of memory, caught by ComfyUI: the prompt failed and every loaded model was unloaded',
    explanation:
      'ComfyUI caught the device\'s out-of-memory error while running a node, printed the allocator\'s memory summary, and unloaded all models so the next prompt ' +
      'starts clean. The node\'s inputs (resolution, batch, frames) and the models it keeps loaded together did not fit.',
    fix: 'the node\'s resolution, batch or frame count, or ComfyUI\'s --lowvram / --novram',
  },
  {
    needles: ['memory when regular VAE', 'Out of Memory during VAE'],
    re: /\bRan out of memory when regular VAE decoding\b|\bEncountered Out of Memory during VAE decoding\b/,
    summary: () => 'Out of memory in the VAE decode, caught: decoding again in tiles',
    explanation:
      'Decoding the latents to pixels in one piece ran out of device memory; the UI caught it and decodes again in tiles, which needs less memory. ' +
      'If the tiled decode fails too, the log shows that failure after this line; the image (or the video\'s frames) is large for the memory left.',
    fix: 'the image or video size, or decode tiled from the start (a tiled VAE decode node)',
  },
  {
    needles: ['OOM Detected, reducing batch'],
    re: /\bOOM Detected, reducing batch\/grad size to (\d+)\/(\d+)/,
    summary: (m) => `Out of memory, caught by the batch-size search: trying again with batch ${m[1]}, gradient accumulation ${m[2]}`,
    explanation:
      'The training step ran out of device memory; the trainer caught it and retries with a smaller batch. When the batch reaches zero the search gives up ' +
      '("No executable batch size found, reached zero"): then even one sample does not fit with these settings.',
    fix: 'the resolution, the models trained at once (the text encoder), or memory-saving options (8-bit Adam, gradient checkpointing, xformers)',
  },
  {
    needles: ['ran out of memory'],
    re: /\bran out of memory(?: on GPU #(\d+))?, skipping batch\b/,
    summary: (m) => `Out of memory${m[1] !== undefined ? ` on GPU ${m[1]}` : ''}, caught: the batch was skipped`,
    explanation:
      'A step ran out of device memory; the program caught it, dropped that batch and went on with the next. The run continues, but that batch is lost ' +
      '(a prediction missing from the output, a training step not taken): the largest inputs do not fit in the memory left.',
    fix: 'the batch size or the longest inputs (crop or bucket them)',
  },
];

const caughtOomReport: Signature = {
  id: 'caught-oom-report',
  platform: 'cuda',
  needles: CAUGHT_OOM_REPORTS.flatMap((report) => report.needles),
  match(line) {
    for (const report of CAUGHT_OOM_REPORTS) {
      const m = report.re.exec(line.content);
      if (!m) continue;
      return {
        signature: 'caught-oom-report',
        role: 'failure',
        kind: 'catchable-oom',
        platform: devicePlatformNear(line, 60),
        catchable: true,
        fallback: 'noted-oom',
        summary: report.summary(m),
        explanation: report.explanation,
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: {},
        fixes: [shrinkPeak(report.fix)],
      };
    }
    return undefined;
  },
};

/**
 * TensorFlow's (and JAX's XLA's) pinned host allocator for GPU transfers (device_host_allocator.h: "could not allocate pinned
 * host memory of size: 34359738368", logged as a warning when cudaHostAlloc fails): the host memory a GPU run stages its
 * copies in could not be pinned. The caller gets no buffer; the error that follows, when the log has it, is read instead
 * (a noted OOM, fallback 'noted-oom').
 */
const TF_PINNED_HOST = /\b[Cc]ould not allocate pinned host memory of size: (\d+)/;

const tfPinnedHost: Signature = {
  id: 'tf-pinned-host-alloc',
  platform: 'cuda',
  needles: ['allocate pinned host memory of size'],
  match(line) {
    const m = TF_PINNED_HOST.exec(line.content);
    if (!m) return undefined;
    const requested = Number(m[1]);
    return {
      signature: 'tf-pinned-host-alloc',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'cuda',
      catchable: true,
      fallback: 'noted-oom',
      summary: `Out of pinned host memory: TensorFlow/XLA could not pin ${formatBytes(requested)} of host memory for GPU transfers`,
      explanation:
        'The GPU runtime stages host-device copies in page-locked (pinned) host memory; pinning this much failed, because the host had too little free RAM or ' +
        'the driver\'s limit on locked memory was reached. The transfer\'s caller gets no buffer.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: { requestedBytes: requested },
      fixes: [hostMemory, shrinkPeak('the host-side batches staged for the GPU (prefetch depth, batch size)')],
    };
  },
};

/**
 * PaddlePaddle's allocator (paddle/fluid/memory/allocation/cuda_allocator.cc, raised as
 * ResourceExhaustedError): "Out of memory error on GPU 0. Cannot allocate 2.812744MB memory on GPU 0,
 * available memory is only 1.000000MB." and 2.x's "…on GPU 0, 10.35GB memory has been allocated and
 * available memory is only 80.50MB."; 1.x's system allocator said "Cannot allocate 145.468994MB GPU memory, available
 * memory is 72.312500MB.". Sizes are binary (B, KB, MB, GB).
 */
/** Paddle's allocator error; a paste cut inside the request's size ("… Cannot allocate 106.14") still names the device. */
const PADDLE = new RegExp(String.raw`Out of memory error on (GPU|NPU|XPU|MLU|\w+) (\d+)\. Cannot allocate (?:${SIZE} (?:GPU )?memory(?: on \w+ \d+)?(?:,(?: ${SIZE} memory has been allocated and)? available memory is(?: only)?\s+${SIZE})?|[\d.]*[ \t]*(?:\n|$))`);

/** Paddle 1.x's GPU allocator check ("paddle.fluid.core.EnforceNotMet: enforce allocating <= available failed, 10513462067 > 1369702144"). */
const PADDLE_ENFORCE = /\benforce allocating <= available failed, (\d+) > (\d+)/;
/**
 * Paddle's host allocator (memory/detail/system_allocator.cc, CPUAllocator: posix_memalign's error): "ResourceExhaustedError: Fail
 * to alloc memory of 564023296 size, error code is 12." (12 is ENOMEM): host memory, with the request.
 */
const PADDLE_HOST_ALLOC = /\bFail to alloc memory of (\d+) size\b/;

const paddleOom: Signature = {
  id: 'paddle-out-of-memory',
  platform: 'cuda',
  needles: ['Out of memory error on ', 'allocating <= available', 'Fail to alloc memory of '],
  match(line) {
    const host = PADDLE_HOST_ALLOC.exec(line.content);
    if (host) {
      const requested = Number(host[1]);
      return {
        signature: 'paddle-out-of-memory',
        role: 'failure',
        kind: 'catchable-oom',
        platform: 'cpu',
        catchable: true,
        summary: `PaddlePaddle out of host memory: ${formatBytes(requested)} requested`,
        explanation: 'Paddle\'s host allocator could not get memory for the request (the system refused it) and raised ResourceExhaustedError, which the program could have caught.',
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: { requestedBytes: requested },
        fixes: [hostMemory],
      };
    }
    const enforce = PADDLE_ENFORCE.exec(line.content);
    if (enforce) {
      const requested = Number(enforce[1]);
      const free = Number(enforce[2]);
      return {
        signature: 'paddle-out-of-memory',
        role: 'failure',
        kind: 'catchable-oom',
        platform: 'cuda',
        catchable: true,
        summary: `PaddlePaddle out of GPU memory: ${formatBytes(requested)} requested, ${formatBytes(free)} available`,
        explanation: 'Paddle 1.x\'s GPU allocator checked the request against the memory left on the device and raised EnforceNotMet, which the program could have caught.',
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: { requestedBytes: requested, freeBytes: free },
        fixes: [shrinkPeak()],
      };
    }
    const m = PADDLE.exec(joinNext(line, 1));
    if (!m || (m[1] !== 'GPU' && m[1] !== 'NPU')) return undefined;
    // Under a fatal log (glog's "*** Check failure stack trace: ***" after the message's lines, no other fatal line between)
    // the process aborted on it.
    const aborted = glogAbortBelow(line, 12);
    const numbers: Finding['numbers'] = {};
    const requested = m[3] !== undefined ? toBytes(m[3], m[4]!) : undefined;
    const allocated = m[5] !== undefined ? toBytes(m[5], m[6]!) : undefined;
    const free = m[7] !== undefined ? toBytes(m[7], m[8]!) : undefined;
    if (requested !== undefined) numbers.requestedBytes = requested;
    if (allocated !== undefined) numbers.allocatedBytes = allocated;
    if (free !== undefined) numbers.freeBytes = free;
    const device = Number(m[2]);
    return {
      signature: 'paddle-out-of-memory',
      role: 'failure',
      kind: aborted ? 'runtime-abort' : 'catchable-oom',
      platform: m[1] === 'NPU' ? 'npu' : 'cuda',
      catchable: !aborted,
      summary: `${aborted ? 'Process aborted: ' : ''}PaddlePaddle out of memory on ${m[1]} ${device}` + (requested !== undefined ? `: ${formatBytes(requested)} requested` : '') + (free !== undefined ? `, ${formatBytes(free)} available` : ''),
      explanation:
        (aborted ? 'Paddle\'s allocator could not get device memory for the request, and the process aborted on the error (a fatal log). ' : 'Paddle\'s allocator could not get device memory for the request (raised as ResourceExhaustedError). ') +
        (free !== undefined && requested !== undefined && free < requested / 2 ? 'Almost nothing was left on the device: check for other processes on it, then the batch size.' : 'The live tensors at this point do not fit.'),
      device,
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers,
      fixes: [shrinkPeak(), { id: 'paddle-fraction', title: 'Check that no other process holds the device (nvidia-smi); FLAGS_fraction_of_gpu_memory_to_use / FLAGS_allocator_strategy=auto_growth', rationale: 'Paddle reserves a share of the device up front; a second process gets what is left.', snippet: 'export FLAGS_allocator_strategy=auto_growth' }],
    };
  },
};

/**
 * DeePMD-kit's custom TensorFlow ops (source/lib/include/errors.h deepmd_exception_oom, thrown by
 * DPErrcheck when a CUDA/HIP call returns an allocation failure): "DeePMD-kit OOM: CUDA Assert",
 * raised by TensorFlow as "Resource exhausted: Operation received an exception: DeePMD-kit OOM: …".
 */
const deepmdOom: Signature = {
  id: 'deepmd-out-of-memory',
  platform: 'cuda',
  needles: ['DeePMD-kit OOM'],
  match(line) {
    // deepmd_exception_oom: "DeePMD-kit OOM!" without a message, "DeePMD-kit OOM: <msg>" with one.
    const m = /DeePMD-kit OOM(?:!|:\s*(\w+)?)/.exec(line.content);
    if (!m) return undefined;
    return {
      signature: 'deepmd-out-of-memory',
      role: 'failure',
      kind: 'catchable-oom',
      platform: m[1] === 'HIP' ? 'rocm' : 'cuda',
      catchable: true,
      summary: 'DeePMD-kit out of device memory in a custom op',
      explanation:
        'A DeePMD-kit operator (descriptor or neighbour list) could not allocate device memory; TensorFlow raised it as ResourceExhaustedError. ' +
        'Its buffers grow with the number of atoms per frame and the neighbour count.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [shrinkPeak('the atoms per batch (batch_size, or DP_INFER_BATCH_SIZE for dp test)'), { id: 'tf-memory-growth', title: 'Let TensorFlow grow its pool instead of reserving the GPU (TF_FORCE_GPU_ALLOW_GROWTH=true)', rationale: 'Custom ops allocate outside TensorFlow\'s BFC pool, which otherwise holds most of the device.', snippet: 'export TF_FORCE_GPU_ALLOW_GROWTH=true' }],
      facts: { group: 'deepmd-oom' },
    };
  },
};

/**
 * NCCL's shared-memory transport (src/misc/shmutils.cc: "Error while creating shared memory segment %s
 * (size %zu)", "Error while attaching to shared memory segment %s (size %zu), error: …"; older
 * include/shm.h: "Call to posix_fallocate failed : No space left on device"): /dev/shm is too small
 * (Docker's 64 MB) or was cleaned up under the job. Not device memory.
 */
const ncclShm: Signature = {
  id: 'nccl-shared-memory',
  platform: 'cuda',
  needles: ['shared memory segment', 'Call to posix_fallocate failed'],
  match(line) {
    if (!/NCCL WARN (?:Error while (?:creating|attaching to) shared memory segment|Call to posix_fallocate failed)/.test(line.content)) return undefined;
    const full = /No space left on device|posix_fallocate/.test(joinNext(line, 2));
    return {
      signature: 'nccl-shared-memory',
      role: 'failure',
      kind: 'not-oom',
      platform: 'cuda',
      catchable: false,
      summary: full ? 'Not an OOM: NCCL could not create a shared-memory segment (/dev/shm is full)' : 'Not an OOM: NCCL could not open a shared-memory segment in /dev/shm',
      explanation:
        'NCCL passes data between processes on one node through segments in /dev/shm. ' +
        (full ? 'The tmpfs is too small for them (Docker gives containers 64 MB by default).' : 'The segment a peer created was missing (a peer exited, or something cleaned /dev/shm, or the processes do not share it).') +
        ' Device memory is not involved.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [
        { id: 'shm-size', title: 'Give the container a larger /dev/shm: docker run --shm-size=16g (or --ipc=host); Kubernetes: an emptyDir with medium: Memory on /dev/shm', rationale: 'NCCL sizes its segments by buffer size and peers; 64 MB is not enough for a multi-GPU node.' },
        { id: 'nccl-shm-disable', title: 'Or bypass the SHM transport: NCCL_SHM_DISABLE=1 (P2P or the network is used instead)', rationale: 'Removes the dependency on /dev/shm at some bandwidth cost.', snippet: 'export NCCL_SHM_DISABLE=1' },
      ],
      facts: { group: 'nccl-shm' },
    };
  },
};

/**
 * NCCL's check that each rank of a communicator has its own GPU (src/init.cc: WARN "Duplicate GPU detected : rank %d and rank %d
 * both on CUDA device %lx", the printing rank first, then ncclInvalidUsage): two ranks were placed on one GPU (a launcher's
 * CUDA_VISIBLE_DEVICES or a local rank that set no device). Not memory.
 */
const NCCL_DUPLICATE_GPU = /\bDuplicate GPU detected : rank (\d+) and rank \d+ both on CUDA device\b/;

const ncclDuplicateGpu: Signature = {
  id: 'nccl-duplicate-gpu',
  platform: 'cuda',
  needles: ['NCCL WARN Duplicate GPU detected'],
  match(line) {
    const m = NCCL_DUPLICATE_GPU.exec(line.content);
    if (!m) return undefined;
    return {
      signature: 'nccl-duplicate-gpu',
      role: 'failure',
      kind: 'not-oom',
      platform: 'cuda',
      catchable: false,
      summary: 'Not an OOM: NCCL found two ranks on one GPU (ncclInvalidUsage)',
      explanation:
        'NCCL needs every rank of a communicator on its own GPU; two ranks were placed on the same one, so creating the communicator failed. ' +
        'Each process usually selects its GPU from its local rank (torch.cuda.set_device(local_rank)) or gets one GPU in CUDA_VISIBLE_DEVICES.',
      rank: line.rank ?? Number(m[1]),
      numbers: {},
      fixes: [{ id: 'one-gpu-per-rank', title: 'Give each rank its own GPU: torch.cuda.set_device(local_rank) before the process group, or one device per process in CUDA_VISIBLE_DEVICES', rationale: 'NCCL refuses a communicator with two ranks on one device.' }],
      facts: { group: 'nccl-duplicate-gpu' },
    };
  },
};

/**
 * An InfiniBand verbs call failing inside NCCL (src/misc/ibvwrap.cc: "Call to ibv_create_cq failed with
 * error Cannot allocate memory", ibv_reg_mr, ibv_create_qp): ENOMEM here is the HCA's or the locked-memory
 * limit, not device memory.
 */
const ncclVerbs: Signature = {
  id: 'nccl-ib-verbs',
  platform: 'cuda',
  needles: ['failed with error Cannot allocate memory'],
  match(line) {
    const m = /NCCL WARN Call to (ibv_\w+) failed with error Cannot allocate memory/.exec(line.content);
    if (!m) return undefined;
    return {
      signature: 'nccl-ib-verbs',
      role: 'failure',
      kind: 'not-oom',
      platform: 'cuda',
      catchable: false,
      summary: `Not a device OOM: NCCL's ${m[1]} failed with ENOMEM`,
      explanation:
        `The InfiniBand verbs call ${m[1]} returned ENOMEM: the process hit its locked-memory limit (ulimit -l) or the adapter ran out of queue/completion resources ` +
        '(too many queue pairs: many channels, many peers, or several communicators). GPU memory is not involved.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [
        { id: 'memlock', title: 'Raise the locked-memory limit: ulimit -l unlimited (docker run --ulimit memlock=-1, Slurm PropagateResourceLimits)', rationale: 'Verbs pin their queues and buffers; the default memlock limit is small.' },
        { id: 'nccl-fewer-qps', title: 'Use fewer IB resources: fewer communicators, NCCL_IB_QPS_PER_CONNECTION=1, a lower NCCL_MAX_NCHANNELS', rationale: 'Each channel and peer costs queue pairs and completion queues.' },
      ],
      facts: { group: 'nccl-verbs' },
    };
  },
};

/**
 * nccl-tests' (and rccl-tests') check (src/common.h NCCLCHECK: "Test NCCL failure %s:%d '%s'" with
 * ncclGetErrorString): out of memory is a collective OOM; other statuses (internal error, unhandled
 * system error) are not. The test binary exits. rccl-tests print the same words: the devices listed above
 * ("AMD Instinct", "Radeon", gfx targets) say ROCm.
 */
const AMD_DEVICE = /AMD Instinct|Radeon|\bgfx\d{3,4}\b|\bRCCL\b|\brccl\b/;

const ncclTestFailure: Signature = {
  id: 'nccl-test-failure',
  platform: 'cuda',
  needles: ['Test NCCL failure'],
  match(line) {
    const m = /Test NCCL failure (\S+) '([^']*)'/.exec(line.content);
    if (!m) return undefined;
    if (/out of memory/.test(m[2]!)) return undefined;
    let amd = AMD_DEVICE.test(line.content);
    for (let k = 1; k <= 60 && !amd; k++) amd = AMD_DEVICE.test(line.previous(k) ?? '');
    const lib = amd ? 'RCCL' : 'NCCL';
    // 'unhandled cuda error' is ncclGetErrorString's ncclUnhandledCudaError: a CUDA call inside NCCL failed, and NCCL's own
    // 'Cuda failure N '<reason>'' warning (on this rank or another) says which. Like the Python side's ncclUnhandledCudaError
    // (ncclError), it joins the collective OOM that warning reports; alone it stays a not-oom.
    const unhandledCuda = /^unhandled cuda error\b/.test(m[2]!);
    return {
      signature: 'nccl-test-failure',
      role: unhandledCuda ? 'nccl-error' : 'failure',
      kind: 'not-oom',
      platform: amd ? 'rocm' : 'cuda',
      catchable: false,
      summary: `Not an OOM: ${lib} returned '${m[2]}' (${m[1]})`,
      explanation: `The collective test called ${lib} and got '${m[2]}', not an out-of-memory status. An internal error usually means the library and the driver or topology disagree (a version mismatch, P2P/IOMMU settings, a transport that cannot start).`,
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [NCCL_DEBUG_FIX],
    };
  },
};

export const signatures: readonly Signature[] = [
  tfConvAlgorithm,
  rmmOom,
  cupyOom,
  paddleOom,
  caughtOomReport,
  tfPinnedHost,
  deepmdOom,
  tensorrtOom,
  ortArena,
  mallocAsync,
  absurdRequest,
  cachingAllocator,
  headlessAllocatorMessage,
  ggmlAbort,
  ggmlBuffer,
  runtimeError,
  libraryAlloc,
  tensorflowGpu,
  ncclOom,
  ncclShm,
  ncclVerbs,
  ncclDuplicateGpu,
  ncclTestFailure,
  driverStatus,
  watchdogTimeout,
  dumpSignal,
  watchdogStuck,
  desyncReport,
  ncclError,
  terminateOom,
  illegalAccess,
  deviceAssert,
  libraryStatus,
  otherRuntimeError,
];
