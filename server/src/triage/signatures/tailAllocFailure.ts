/**
 * Allocation failures whose lines carry no word the hot scan anchors on, read by the tail pass:
 * - GLib's g_malloc/g_realloc failing (glib/gmem.c: g_error ("%s: failed to allocate %"G_GSIZE_FORMAT" bytes",
 *   G_STRLOC, n_bytes), "gmem.c:103: failed to allocate 4915200 bytes"): g_error aborts the process, so
 *   a runtime-abort in host memory, with the request;
 * - OpenCL's out-of-memory statuses: CL_MEM_OBJECT_ALLOCATION_FAILURE (-4, the device could not back a
 *   buffer; the platform the lines around it name) and CL_OUT_OF_HOST_MEMORY (-6, the host), returned to
 *   the caller: catchable-oom;
 * - Vulkan's out-of-memory results (the Vulkan spec's VkResult: VK_ERROR_OUT_OF_DEVICE_MEMORY -2, "A device
 *   memory allocation has failed", and VK_ERROR_OUT_OF_HOST_MEMORY -1), also as Vulkan-Hpp's exception text
 *   ("vk::CommandBuffer::end: ErrorOutOfDeviceMemory", the call and vk::to_string of the result): returned
 *   to the caller or thrown as vk::OutOfDeviceMemoryError, catchable-oom (the device's platform from the
 *   lines around it; Vulkan itself names no vendor);
 * - Tenstorrent tt-metal's bank allocator ("Out of Memory: Not enough space to allocate N B DRAM buffer across
 *   12 banks, where each bank needs to store M B", bank_manager.cpp's TT_THROW/TT_FATAL, raised to Python as a
 *   RuntimeError): catchable-oom with the exact request (the platform the lines around it name; none of
 *   Headroom's platforms is Tenstorrent's); newer builds add the banks' state after it ("(allocated: N B, free: M B,
 *   largest free block: L B)", per bank), read as allocatedBytes and freeBytes.
 */
import { formatBytes } from '../../format';
import { hostMemory, shrinkPeak } from '../fixes';
import { toBytes } from '../sizes';
import { endsProcessAfter, thrownUncaught } from './lineContext';
import { ACL_CODE } from './nativeFailure';
import { EXPANDABLE_MAP_OOM, platformNear, ttMetalOom, WENT_ON_INSTEAD } from './otherOom';
import type { Fix, Platform } from '../../protocol';
import type { Finding, LineView, Signature } from './types';

/**
 * A program's CUDA check printing the status by number, 2: cudaErrorMemoryAllocation in the runtime API (driver_types.h)
 * and CUDA_ERROR_OUT_OF_MEMORY in the driver API (cuda.h) are both 2. spconv's TV_CHECK_CUDA_ERR ("RuntimeError
 * indice_cuda.cu 124 cuda execution failed with error 2", tensorview.h: "cuda execution failed with error " << err) and
 * its kin throw it to the caller: a catchable out-of-memory on CUDA with no sizes. TensorRT's samples' CHECK ("runtime.cpp (16) - Cuda
 * Error in allocate: 2", then a thrown nvinfer1::CudaError) prints the call and the number; uncaught, it aborts. The CUDA samples'
 * checkCudaErrors (helper_cuda.h: "CUDA error at <file>:<line> code=2 \"<call>\"" in builds that print no status name) too.
 */
const CUDA_NUMBERED_OOM = /(?:\b(?:CUDA|cuda|Cuda)\b|\.cu\b)[^\n]*\bfailed with error 2\b(?![.\d])|\bCuda Error in \w+: 2\s*$|\bCUDA error at \S+:\d+ code=2 "/;
/**
 * gperftools' tcmalloc reporting a large allocation (src/tcmalloc.cc ReportLargeAlloc: "tcmalloc: large alloc %lu bytes == %p
 * @ <frames>", printed for requests over TCMALLOC_LARGE_ALLOC_REPORT_THRESHOLD): "== (nil)" (glibc's %p of NULL) or "== 0x0" is
 * the allocation that failed; any other pointer is only a report. Out of host memory with the request; a runtime-abort when an
 * uncaught exception or an abort follows (std::bad_alloc, a fatal-signal handler's "Unhandled exception:"), else returned.
 */
const TCMALLOC_FAILED = /\btcmalloc: large alloc (\d+) bytes == (?:\(nil\)|0x0+|0)(?![\w])/;
/**
 * NVIDIA's PTX assembler running out of host memory ("ptxas fatal   : Memory allocation failure", its fatal-message format;
 * pasted with the spaces collapsed, "ptxas fatal: memory allocation error"): the compile of one kernel failed and ptxas exited
 * non-zero to the nvcc driver or the JIT (cuModuleLoad/NVRTC) that ran it, which returns the error.
 */
const PTXAS_ALLOC = /\bptxas fatal\s*: (?:[Mm]emory allocation (?:failure|error)|[Oo]ut of memory)/;
/**
 * TensorFlow's StreamExecutor failing a device allocation ("cuda_driver.cc:739] failed to allocate 2.12G (2282521344 bytes)
 * from device: CUDA_ERROR_OUT_OF_MEMORY", HumanReadableNumBytes then the bytes; hiptensorflow's rocm_driver.cc the same) when an
 * excerpt kept the line without the status or the bytes ("failed to allocate 7.36G"): the BFC allocator gets no memory and
 * TensorFlow goes on with less or raises ResourceExhaustedError, catchable. TensorFlow 1.x's device banner above it ("Total
 * memory: 8.00GiB" over "Free memory: 7.75GiB", gpu_device.cc) gives the device's total and free memory.
 */
const TF_SE_ALLOC = /^(?:.*\.cc:\d+\] )?\s*failed to allocate ([\d.]+)([KMGTP])(?: \((\d+) bytes\))?(?: from device\b|\s*$)/;
const TF_BANNER_MEMORY = /^\s*(Total|Free) memory: ([\d.]+)([KMGTP]iB)\s*$/;
const GLIB_ALLOC = /\bgmem\.c:\d+: failed to allocate (\d+) bytes/;
const OPENCL_OOM = /\bCL_(MEM_OBJECT_ALLOCATION_FAILURE|OUT_OF_HOST_MEMORY)\b/;
/**
 * The same two statuses as the OpenCL wrappers' error strings print them: boost::compute's opencl_error::to_string
 * ("Memory Object Allocation Failure", "Out of Host Memory"; LightGBM's GPU learner throws it as
 * boost::wrapexcept<boost::compute::opencl_error>, which its Python package raises as LightGBMError or, uncaught in a
 * native thread, ends in terminate) and the clErrorString idiom of the SDK samples ("Memory object allocation failure",
 * "Out of host memory").
 */
// Not before a lower-case letter (a longer word), but before the next word a paste glued on ("Out of host memoryError: …").
const OPENCL_OOM_TEXT = /\b([Mm]emory [Oo]bject [Aa]llocation [Ff]ailure|[Oo]ut of [Hh]ost [Mm]emory)(?![a-z])/;
/**
 * CL_OUT_OF_RESOURCES (-5) as the same wrappers' strings print it ("Out of resources", clErrorString; "ERROR: opencl call failed
 * with rc(-5), line 39, file ocl_tests.cpp" over "Error: Out of resources", cuda_memtest's ocl_memtest), read only where the
 * line or the two above it name OpenCL or the -5 (Triton's "out of resource: shared memory" is another failure): opencl.ts's
 * status, returned to the caller.
 */
const OPENCL_OUT_OF_RESOURCES_TEXT = /\bOut of resources\b/i;
const OPENCL_CONTEXT = /\bOpenCL\b|\bCL_[A-Z]|\(-5\)/i;
/**
 * OpenVINO's GPU plugin (src/plugins/intel_gpu, over OpenCL) naming the status by its number or in its own words: "[GPU]
 * clEnqueueNDRangeKernel, error code: -5" and "[GPU] out of GPU resources" are CL_OUT_OF_RESOURCES.
 */
const OPENVINO_OUT_OF_RESOURCES = /\[GPU\] (?:cl[A-Z]\w*, error code: -5\b|out of GPU resources\b)/;
/**
 * The same plugin refusing one memory object over the device's largest allocation (ocl_engine.cpp's check
 * "!exceed_allocatable_mem_size": "[GPU] Exceeded max size of memory object allocation: requested 11271610368 bytes, but max alloc
 * size supported by device is 4294959104 bytes."): a request over a per-allocation limit, raised as RuntimeError.
 */
const OPENVINO_MAX_ALLOC = /\[GPU\] Exceeded max size of memory object allocation: requested (\d+) bytes, but max alloc size supported by device is (\d+) bytes/;
const TT_METAL_BANK_STATE = /\(allocated: (\d+) B, free: (\d+) B, largest free block: \d+ B\)/;
/**
 * tt-metal's check that a program's static circular buffers fit a core's L1 (program.cpp validate_circular_buffer_region,
 * TT_THROW, a RuntimeError in Python): "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] grow to
 * 1741152 B which is beyond max L1 size of 1499136 B" (the buffers' size as the request, L1 as the limit), or "… in program
 * 2282 clash with L1 buffers on core range […]. L1 buffer allocated at 1563072 and static circular buffer region ends at
 * 1601536" (the L1 buffers already placed leave the circular buffers no room; addresses, not sizes). L1 ran out either way.
 */
/**
 * The platform of a Tenstorrent failure: the one the lines around name, else xla-tpu. Headroom has no platform of
 * Tenstorrent's own: its cards are read as xla-tpu, the class of the XLA/PJRT accelerators that tt-xla plugs into, as the
 * corpus's collectors labelled 22 of 23 Tenstorrent logs.
 */
function tenstorrentPlatform(line: LineView): Platform {
  const near = platformNear(line);
  return near === 'cpu' ? 'xla-tpu' : near;
}
const TT_CB_BEYOND_L1 = /\bStatically allocated circular buffers on core range .*? grow to (\d+) B which is beyond max L1 size of (\d+) B/;
const TT_CB_CLASH = /\bStatically allocated circular buffers in program (?:\d+|\{\}) clash with L1 buffers\b/;
/**
 * MLX's Metal allocator refusing one buffer over the device's largest (MTLDevice.maxBufferLength): "[metal::malloc]
 * Attempting to allocate N bytes which is greater than the maximum allowed buffer size of M bytes." (older builds
 * without the prefix). Like MPS's "Invalid buffer size" and XPU's 4 GB block limit, a request the allocator refused:
 * an OOM, with the limit as the allowed bytes, though the pool is not full and freeing memory does not help.
 */
const MLX_BUFFER_LIMIT = /Attempting to allocate (\d+) bytes which is greater than the maximum allowed buffer size of (\d+) bytes/;
/**
 * ggml's Metal backend refusing a buffer over the device's largest (ggml-metal.m ggml_metal_add_buffer: "buffer 'data' size
 * 18300780544 is larger than buffer maximum of 17179869184", MTLDevice.maxBufferLength); llama.cpp then fails to load the
 * model and returns the error to its caller.
 */
const GGML_METAL_BUFFER_MAX = /\bbuffer '[^']*' size (\d+) is larger than buffer maximum of (\d+)/;
/** MLX's Metal backend throwing a failed command buffer (mlx/backend/metal: "[METAL] Command buffer execution failed: Insufficient Memory"), the kIOGPUCommandBufferCallbackErrorOutOfMemory of mps.ts without its code. */
const MLX_COMMAND_BUFFER_OOM = /\[METAL\] Command buffer execution failed: Insufficient Memory/;
/**
 * Redis's OOM handler for zmalloc (server.c redisOutOfMemoryHandler: serverLog "Out Of Memory allocating N
 * bytes!", then serverPanic "Redis aborting for OUT OF MEMORY. Allocating N bytes!", older builds without the
 * size; the bug report's "Guru Meditation: … #server.c:L"), and zmalloc's own default handler's line.
 */
const REDIS_OOM = /\bRedis aborting for OUT OF MEMORY\b/;
const REDIS_OOM_SIZE = /\b(?:Allocating|Out Of Memory allocating|zmalloc: Out of memory trying to allocate) (\d+) bytes/i;
/** mimalloc's error when an allocation returns NULL (page.c / alloc.c: _mi_error_message(ENOMEM, "unable to allocate memory (%zu bytes)")). */
const MIMALLOC_OOM = /\bmimalloc: error: unable to allocate memory \((\d+) bytes\)/;
/**
 * WebAssembly running out of its linear memory: Emscripten's runtime when memory cannot grow
 * (abortOnCannotGrowMemory: "Cannot enlarge memory arrays to size N bytes (OOM)", newer builds abort('OOM'),
 * "Aborted(OOM)"), V8 refusing a Memory ("WebAssembly.Memory(): could not allocate memory", wasm-js.cc), and
 * a wasm trap (JS's WebAssembly.RuntimeError, "RuntimeError: unreachable" when Rust's alloc error handler
 * aborts) that the line reports as out of memory, with wasm frames under it. The host page catches it: catchable.
 */
const WASM_OOM = /\bAborted\(OOM\)|\bCannot enlarge memory arrays to size (\d+) bytes|\bWebAssembly\.Memory(?:\.grow)?\(\): could not allocate memory/;
const WASM_TRAP_OOM = /\bout[- ]of[- ]memory\b.*\bRuntimeError: |\bRuntimeError: .*\bout[- ]of[- ]memory\b/i;
/**
 * (Also vulkano's Rust error value, "OomError(OutOfDeviceMemory)", "VulkanError(OutOfHostMemory)", as a panic on unwrap()
 * prints it.) ggml's Vulkan backend logs the request on the line before ("ggml_vulkan: Device memory allocation of size N
 * failed.", ggml-vulkan.cpp).
 */
const VULKAN_OOM = /\bVK_ERROR_OUT_OF_(DEVICE|HOST)_MEMORY\b|\bErrorOutOf(Device|Host)Memory\b|\b(?:OomError|VulkanError)\(OutOf(Device|Host)Memory\)/;
const GGML_VULKAN_REQUEST = /\bggml_vulkan: Device memory allocation of size (\d+) failed\b/;
/**
 * The sanitizers' allocator failing (compiler-rt sanitizer_common): ReportMmapFailureAndDie's "ERROR: AddressSanitizer
 * failed to allocate 0x… (N) bytes of LargeMmapAllocator (error code: 12)" (older builds "(errno: 12)"), and the
 * allocator's report "requested allocation size 0x… (…) exceeds maximum supported size of 0x…" (allocation-size-too-big;
 * its "allocator is out of memory" report carries words the streaming scan's other-OOM fallback reads first). With the default
 * allocator_may_return_null=0 the runtime dies after the report: a runtime-abort in host memory, with the request.
 */
const SANITIZER_ALLOC = /\b(?:Address|Memory|Thread|HWAddress|Leak)Sanitizer(?: failed to allocate (0x[0-9a-fA-F]+)(?: \(\d+\))? bytes|: requested allocation size (0x[0-9a-fA-F]+))/;
/**
 * macOS's libmalloc when the VM refuses a region ("malloc: *** mmap(size=N) failed (error code=12)", then "*** error:
 * can't allocate region" and "*** set a breakpoint in malloc_error_break to debug"): malloc returns NULL to the
 * caller, a catchable OOM in host memory with the request. A markdown paste may escape the asterisks ("**\\*").
 */
const MACOS_MMAP_FAILED = /\bmalloc: [*\\ ]*mmap\(size=(0x[0-9a-fA-F]+|\d+)\) failed \(error code=12\)/;

/**
 * Baidu Kunlun's XPU runtime and XDNN library running out of device memory, as PaddlePaddle's XPU checks print them
 * (paddle/phi/backends/xpu/enforce_xpu.h: xpuGetErrorString's "Device memory not enough" for XPUERR_NOMEM, the runtime's
 * "ioctl() fail, (705) Device memory not enough"; XPUAPIErrorMsg's "xpu api no enough workspace" for XDNN's
 * NO_ENOUGH_WORKSPACE, inside "XPU API return wrong value[3 xpu api no enough workspace]"): Paddle raises them as
 * ExternalError/ResourceExhaustedError, which the program can catch. Not Intel's XPU, but the platform Headroom calls xpu.
 */
const KUNLUN_OOM = /\bDevice memory not enough\b|\bxpu api no enough workspace\b/;
/**
 * The detail messages of the JVM's OutOfMemoryError (HotSpot: "Java heap space", "GC overhead limit exceeded", "Metaspace",
 * "Compressed class space", "Requested array size exceeds VM limit", "Direct buffer memory" from java.nio's Bits) carried
 * as the message of another exception that wrapped it, without the OutOfMemoryError's name ("NetLogoException(Compressed
 * class space)", "ExecutionException: Java heap space"): a Java allocation the heap or class space could not hold, caught
 * and rethrown by the program, so catchable.
 */
const JVM_WRAPPED_OOM = /\b[A-Z]\w*(?:Exception|Error)(?:\(|: )(Java heap space|GC overhead limit exceeded|Metaspace|Compressed class space|Requested array size exceeds VM limit|Direct buffer memory)\b/;
/**
 * torch_memory_saver's driver-API check (csrc's CURESULT_CHECK: "[torch_memory_saver.cpp] CUresult error  result=N file=…
 * func=… line=…", then exit(1)), from memory of that source: result 2 is CUDA_ERROR_OUT_OF_MEMORY, here from cuMemCreate
 * backing a paused tensor's pages again; the process exits on it.
 */
const MEMORY_SAVER_OOM = /\bCUresult error\s+result=2\b/;
/**
 * The JVM failing to start for memory (HotSpot: "Could not reserve enough space for object heap" / "… for 2097152KB object
 * heap" after "Error occurred during initialization of VM", and the hs_err banner "There is insufficient memory for the Java
 * Runtime Environment to continue."): the VM exits on it.
 */
const JVM_CANNOT_START = /\bCould not reserve enough space for (?:\d+KB )?object heap\b|\bThere is insufficient memory for the Java Runtime Environment to continue\b/;

/**
 * The finding of an allocation that failed: returned to the caller (catchable-oom) or ending the process
 * (runtime-abort), on the line's rank; the tail pass's failures are tier 2 (the error itself).
 */
function allocFailure(
  line: LineView,
  f: { kind: 'catchable-oom' | 'runtime-abort'; platform: Platform; summary: string; explanation: string; numbers: Finding['numbers']; fixes: Fix[] },
): Finding {
  return {
    signature: 'other-out-of-memory',
    role: 'failure',
    kind: f.kind,
    platform: f.platform,
    catchable: f.kind === 'catchable-oom',
    summary: f.summary,
    explanation: f.explanation,
    ...(line.rank !== undefined && { rank: line.rank }),
    numbers: f.numbers,
    fixes: f.fixes,
    facts: { tier: 2 },
  };
}

export const tailAllocFailure: Signature = {
  id: 'other-alloc-failure',
  platform: 'cpu',
  needles: ['Could not reserve enough space', 'insufficient memory for the Java Runtime', 'CUresult error', 'Cuda Error in ', 'code=2 "', 'Java heap space', 'GC overhead limit', 'Metaspace', 'Compressed class space', 'exceeds VM limit', 'Direct buffer memory', 'Command buffer execution failed', 'maximum allowed buffer size', 'larger than buffer maximum', 'gmem.c:', 'aborting for OUT OF MEMORY', 'Aborted(OOM)', 'Cannot enlarge memory arrays', 'could not allocate memory', 'RuntimeError: ', 'mimalloc: error: unable to allocate', 'CL_MEM_OBJECT_ALLOCATION_FAILURE', 'CL_OUT_OF_HOST_MEMORY', 'OUT_OF_DEVICE_MEMORY', 'OUT_OF_HOST_MEMORY', 'ErrorOutOfDeviceMemory', 'ErrorOutOfHostMemory', 'Error(OutOfDeviceMemory)', 'Error(OutOfHostMemory)', 'Not enough space to allocate', 'allocated circular buffers', 'Sanitizer', 'emory object allocation failure', 'emory Object Allocation Failure', 'ut of host memory', 'ut of Host Memory', 'mmap(size=', '207001', 'failed with error 2', 'tcmalloc: large alloc', 'ptxas fatal', 'failed to allocate ', 'Device memory not enough', 'no enough workspace', 'failed with OOM on device', 'ut of resources', '[GPU] cl', '[GPU] out of GPU resources', 'memory object allocation: requested'],
  match(line) {
    if (JVM_CANNOT_START.test(line.content)) {
      return allocFailure(line, {
        kind: 'runtime-abort',
        platform: 'cpu',
        summary: 'The Java VM could not start: the host would not give it the heap it asks for',
        explanation: 'The JVM reserves its whole maximum heap (-Xmx) when it starts; the operating system refused the reservation (too little memory, swap or ' +
          'address space, or a ulimit), so the VM exited before running any code. Nothing could catch it.',
        numbers: {},
        fixes: [hostMemory],
      });
    }
    if (MEMORY_SAVER_OOM.test(line.content)) {
      return allocFailure(line, {
        kind: 'runtime-abort',
        platform: 'cuda',
        summary: 'Process exited: torch_memory_saver could not get device memory (CUresult 2, CUDA_ERROR_OUT_OF_MEMORY)',
        explanation: 'torch_memory_saver checks each CUDA driver call and exits the process when one fails; result 2 is CUDA_ERROR_OUT_OF_MEMORY, ' +
          'typically cuMemCreate re-backing memory it had released (resuming after a pause) while something else now holds the device\'s memory.',
        numbers: {},
        fixes: [shrinkPeak()],
      });
    }
    const jvm = JVM_WRAPPED_OOM.exec(line.content);
    if (jvm && !/OutOfMemory/.test(line.content)) {
      return allocFailure(line, {
        kind: 'catchable-oom',
        platform: 'cpu',
        summary: `Java out of memory (${jvm[1]}), wrapped in another exception`,
        explanation: `"${jvm[1]}" is the message of the JVM's OutOfMemoryError: the ${/heap|array|GC/.test(jvm[1]!) ? 'Java heap' : jvm[1] === 'Direct buffer memory' ? 'direct (off-heap) buffer pool' : 'class metadata space'} could not hold an allocation. ` +
          'Here another exception carries it as its message, so the program caught the error and rethrew it.',
        numbers: {},
        fixes: [hostMemory],
      });
    }
    if (KUNLUN_OOM.test(line.content)) {
      return allocFailure(line, {
        kind: 'catchable-oom',
        platform: 'xpu',
        summary: `Out of memory on the XPU (Kunlun): ${/workspace/.test(line.content) ? 'an XDNN kernel could not get its workspace' : 'the XPU runtime had no device memory for an allocation'}`,
        explanation: 'Baidu Kunlun\'s XPU runtime (XPUERR_NOMEM, "Device memory not enough") or its XDNN library (NO_ENOUGH_WORKSPACE) could not get the device memory it asked for; PaddlePaddle raises it as an error the program can catch.',
        numbers: {},
        fixes: [shrinkPeak()],
      });
    }
    const mapOom = EXPANDABLE_MAP_OOM.exec(line.content);
    if (mapOom) {
      const requested = Number(mapOom[2]);
      return {
        ...allocFailure(line, {
          kind: 'catchable-oom',
          platform: /\bHIP\b|HIPCachingAllocator/.test(line.content) ? 'rocm' : 'cuda',
          summary: `Out of memory on GPU ${mapOom[1]}: the caching allocator could not map ${formatBytes(requested)} for expandable segments` + (mapOom[3] !== undefined ? ` (${formatBytes(Number(mapOom[3]))} free)` : ''),
          explanation: 'With expandable_segments the caching allocator grows a segment by mapping physical memory into it; the map failed for lack of device memory. The allocator frees its cache and retries, and raises OutOfMemoryError when that fails too; nothing else in the log says how the run ended.',
          numbers: { requestedBytes: requested, ...(mapOom[3] !== undefined && { freeBytes: Number(mapOom[3]), deviceTotalBytes: Number(mapOom[4]) }) },
          fixes: [shrinkPeak()],
        }),
        device: Number(mapOom[1]),
      };
    }
    // Not a program that could not start another ("CreateProcess(…\\CUDA\\v11.8\\bin\\nvcc.exe) failed with error 2", ENOENT).
    if (CUDA_NUMBERED_OOM.test(line.content) && !/out of memory/i.test(line.content) && !/\b(?:CreateProcess\w*|execv?p?e?|spawn\w*|open)\(|No such file/.test(line.content)) {
      return allocFailure(line, {
        kind: thrownUncaught(line) || endsProcessAfter(line, 3) ? 'runtime-abort' : 'catchable-oom',
        platform: 'cuda',
        summary: 'Out of memory on the GPU: a CUDA call failed with error 2 (cudaErrorMemoryAllocation)',
        explanation: 'The program\'s CUDA check printed the status by number: 2 is cudaErrorMemoryAllocation (the runtime API) and CUDA_ERROR_OUT_OF_MEMORY (the driver API), a device allocation that did not fit. The check threw it to the caller.',
        numbers: {},
        fixes: [shrinkPeak()],
      });
    }
    const acl = ACL_CODE.exec(line.content);
    if (acl?.[1] === '207001') {
      return allocFailure(line, {
        kind: 'catchable-oom',
        platform: 'npu',
        summary: 'Out of memory on the NPU: a CANN runtime allocation failed (ACL_ERROR_RT_MEMORY_ALLOCATION, 207001)',
        explanation: 'The CANN runtime returned 207001, ACL_ERROR_RT_MEMORY_ALLOCATION (rt_error_codes.h), to the caller: the device memory it asked for was not available. The code is returned, so the caller could have handled it.',
        numbers: {},
        fixes: [shrinkPeak('what the program keeps on the NPU (batch, cache size, gpu_memory_utilization)')],
      });
    }
    const sanitizer = SANITIZER_ALLOC.exec(line.content);
    if (sanitizer) {
      // A size-too-big request is often a negative size read as unsigned, beyond what a number holds exactly.
      const requested = Number(sanitizer[1] ?? sanitizer[2]);
      const exact = Number.isSafeInteger(requested);
      return allocFailure(line, {
        kind: 'runtime-abort',
        platform: 'cpu',
        summary: `Process aborted: the sanitizer's allocator could not allocate ${exact ? formatBytes(requested) : sanitizer[0].split(' ').pop()} of host memory`,
        explanation: 'A sanitizer (AddressSanitizer and its kin) replaces malloc with its own allocator; when a request is larger than it supports or the mmap behind it fails, it prints this report and, with the default allocator_may_return_null=0, ends the process instead of returning NULL. Sanitized builds also use more memory than plain ones (shadow memory, redzones, quarantine).',
        numbers: exact ? { requestedBytes: requested } : {},
        fixes: [hostMemory],
      });
    }
    const mmap = MACOS_MMAP_FAILED.exec(line.content);
    if (mmap) {
      const requested = Number(mmap[1]);
      return allocFailure(line, {
        kind: 'catchable-oom',
        platform: 'cpu',
        summary: `Host out of memory: macOS's malloc could not map ${formatBytes(requested)} (mmap failed with ENOMEM)`,
        explanation: 'macOS\'s malloc asked the kernel for a new region and mmap failed with error code 12 (ENOMEM): the process\'s address space or the system\'s memory had no room. malloc returned NULL to the caller, which could have handled it.',
        numbers: { requestedBytes: requested },
        fixes: [hostMemory],
      });
    }
    const tcmalloc = TCMALLOC_FAILED.exec(line.content);
    if (tcmalloc) {
      const requested = Number(tcmalloc[1]);
      let aborted = false;
      for (let k = 1; k <= 4 && !aborted; k++) aborted = /Unhandled exception|terminate called|std::bad_alloc|\bAborted\b|SIGABRT|core dumped/.test(line.next(k) ?? '');
      return allocFailure(line, {
        kind: aborted ? 'runtime-abort' : 'catchable-oom',
        platform: 'cpu',
        summary: `${aborted ? 'Process aborted: ' : ''}tcmalloc could not allocate ${formatBytes(requested)} of host memory`,
        explanation:
          'tcmalloc reports large allocations; "== (nil)" means this one returned no memory: the host (or the process\'s address space, or its cgroup) had no room for it. A request far beyond any host\'s memory is usually a size computed wrong (a shape or a negative number read as unsigned). ' +
          (aborted ? 'The failure was not caught and the process aborted.' : 'The allocation failed back to its caller.'),
        numbers: { requestedBytes: requested },
        fixes: [hostMemory],
      });
    }
    if (PTXAS_ALLOC.test(line.content)) {
      return allocFailure(line, {
        kind: 'catchable-oom',
        platform: 'cpu',
        summary: 'Out of host memory: ptxas (the PTX assembler) could not allocate memory while compiling a kernel',
        explanation: 'NVIDIA\'s PTX assembler ran out of host memory compiling a kernel (a very large kernel, heavy unrolling, or a small build host) and exited with an error to the nvcc or JIT call that ran it; the GPU\'s memory is not involved.',
        numbers: {},
        fixes: [hostMemory, { id: 'smaller-kernel', title: 'Compile with fewer jobs at once, or make the kernel smaller (less unrolling or inlining, split it)', rationale: 'ptxas holds the whole kernel in memory while it assembles it.' }],
      });
    }
    const tfAlloc = TF_SE_ALLOC.exec(line.content);
    if (tfAlloc) {
      const requested = tfAlloc[3] !== undefined ? Number(tfAlloc[3]) : toBytes(tfAlloc[1]!, tfAlloc[2]!);
      const banner: { Total?: number; Free?: number } = {};
      for (let k = 1; k <= 12; k++) {
        const m = TF_BANNER_MEMORY.exec(line.previous(k) ?? '');
        if (m && banner[m[1] as 'Total' | 'Free'] === undefined) banner[m[1] as 'Total' | 'Free'] = toBytes(m[2]!, m[3]!);
      }
      const platform = platformNear(line);
      return allocFailure(line, {
        kind: 'catchable-oom',
        platform: platform,
        summary: `Out of memory${platform === 'cpu' ? '' : ` on ${platform}`}: TensorFlow's StreamExecutor failed to allocate ${tfAlloc[1]}${tfAlloc[2]} on the device`,
        explanation: 'TensorFlow asked the device for a region for its BFC allocator and the driver refused it: the device had less free memory than asked (another process, or TensorFlow reserving most of the device up front). TensorFlow then works with less or raises ResourceExhaustedError, which the program can catch.',
        numbers: {
          ...(requested !== undefined && { requestedBytes: requested }),
          ...(banner.Total !== undefined && { deviceTotalBytes: banner.Total }),
          ...(banner.Free !== undefined && { freeBytes: banner.Free }),
        },
        fixes: [shrinkPeak(), { id: 'tf-memory-growth', title: 'Let TensorFlow grow its memory instead of reserving it: tf.config.experimental.set_memory_growth (TF 1.x: allow_growth, per_process_gpu_memory_fraction)', rationale: 'TensorFlow reserves most of the device at start unless told to grow.' }],
      });
    }
    const glib = GLIB_ALLOC.exec(line.content);
    if (glib) {
      const requested = Number(glib[1]);
      return allocFailure(line, {
        kind: 'runtime-abort',
        platform: 'cpu',
        summary: `Process aborted: GLib could not allocate ${formatBytes(requested)} of host memory (g_malloc)`,
        explanation: 'GLib\'s g_malloc does not return NULL: when malloc fails it reports the request with g_error, which aborts the process. The host (or the process\'s address space or cgroup) had no room for it.',
        numbers: { requestedBytes: requested },
        fixes: [hostMemory],
      });
    }
    const wasm = WASM_OOM.exec(line.content);
    let trap = false;
    if (!wasm && WASM_TRAP_OOM.test(line.content)) for (let k = 1; k <= 2 && !trap; k++) trap = /\bwasm:\/\/wasm\/|\bwasm-function\[\d+\]/.test(line.next(k) ?? '');
    if (wasm || trap) {
      const requested = wasm?.[1] !== undefined ? Number(wasm[1]) : undefined;
      return allocFailure(line, {
        kind: 'catchable-oom',
        platform: 'cpu',
        summary: `Out of memory in WebAssembly: its linear memory could not grow${requested !== undefined ? ` to ${formatBytes(requested)}` : ''}`,
        explanation: 'A WebAssembly module\'s heap is one linear memory that grows in pages up to its maximum (and the browser\'s or the host\'s limit); when it cannot grow, the allocator fails and the module traps or aborts, which reaches JavaScript as an exception the page can catch.',
        numbers: requested !== undefined ? { requestedBytes: requested } : {},
        fixes: [shrinkPeak('the data the module holds at once (smaller inputs, streaming), or a larger maximum memory')],
      });
    }
    if (REDIS_OOM.test(line.content)) {
      // The size is on the panic's line in newer builds, else on the handler's log line above (the bug
      // report's header, three lines, may stand between the two).
      let size = REDIS_OOM_SIZE.exec(line.content);
      for (let k = 1; k <= 6 && !size; k++) size = REDIS_OOM_SIZE.exec(line.previous(k) ?? '');
      const requested = size ? Number(size[1]) : undefined;
      return allocFailure(line, {
        kind: 'runtime-abort',
        platform: 'cpu',
        summary: `Process aborted: Redis could not allocate${requested !== undefined ? ` ${formatBytes(requested)} of` : ''} host memory (zmalloc)`,
        explanation: 'Redis\'s zmalloc does not return NULL: when malloc fails, its OOM handler logs the request and panics ("Redis aborting for OUT OF MEMORY"), which aborts the server. The host (or its cgroup, or a 32-bit build\'s address space) had no room for it; maxmemory bounds the dataset, not this.',
        numbers: requested !== undefined ? { requestedBytes: requested } : {},
        fixes: [hostMemory],
      });
    }
    const mi = MIMALLOC_OOM.exec(line.content);
    if (mi) {
      const requested = Number(mi[1]);
      return allocFailure(line, {
        kind: 'catchable-oom',
        platform: 'cpu',
        summary: `Out of host memory: mimalloc could not allocate ${formatBytes(requested)}`,
        explanation: 'mimalloc reports an allocation the OS would not back (ENOMEM) and returns NULL to the caller, which can handle it; the process (or its address space, commit limit or cgroup) had no room left.',
        numbers: { requestedBytes: requested },
        fixes: [hostMemory],
      });
    }
    const metalMax = GGML_METAL_BUFFER_MAX.exec(line.content);
    if (metalMax) {
      const requested = Number(metalMax[1]);
      const limit = Number(metalMax[2]);
      return allocFailure(line, {
        kind: 'catchable-oom',
        platform: 'mps',
        summary: `ggml's Metal backend refused a buffer of ${formatBytes(requested)}: over the GPU's largest (${formatBytes(limit)})`,
        explanation: 'Metal caps the size of a single buffer (maxBufferLength) below the unified memory; ggml could not map the model\'s weights in one buffer that large and returned the failure to its caller.',
        numbers: { requestedBytes: requested, allowedBytes: limit },
        fixes: [{ id: 'ggml-metal-split', title: 'Load a smaller or more quantized model, or keep some layers off the GPU (fewer --n-gpu-layers)', rationale: `One Metal buffer may not exceed ${formatBytes(limit)} on this Mac.` }],
      });
    }
    const mlxLimit = MLX_BUFFER_LIMIT.exec(line.content);
    if (mlxLimit) {
      const requested = Number(mlxLimit[1]);
      const limit = Number(mlxLimit[2]);
      const aborted = thrownUncaught(line);
      return allocFailure(line, {
        kind: aborted ? 'runtime-abort' : 'catchable-oom',
        platform: 'mps',
        summary: `${aborted ? 'Process aborted: ' : ''}MLX refused one array of ${formatBytes(requested)}: over Metal's largest buffer (${formatBytes(limit)})`,
        explanation:
          'Metal caps the size of a single buffer (maxBufferLength) below the unified memory, and MLX refuses a larger array before allocating: the memory pool is not full and freeing memory does not help. ' +
          (aborted ? 'MLX threw it where nothing caught it, so the process aborted.' : 'MLX threw it as an exception the program could have caught.'),
        numbers: { requestedBytes: requested, allowedBytes: limit },
        fixes: [{ id: 'mlx-split-op', title: 'Split the op that builds this array: a smaller batch, chunked attention or a shorter sequence', rationale: `One array may not exceed ${formatBytes(limit)} on this Mac, whatever memory is free.` }],
      });
    }
    if (MLX_COMMAND_BUFFER_OOM.test(line.content)) {
      const aborted = thrownUncaught(line);
      return allocFailure(line, {
        kind: aborted ? 'runtime-abort' : 'catchable-oom',
        platform: 'mps',
        summary: `${aborted ? 'Process aborted: ' : ''}Metal command buffer failed: the GPU ran out of memory (MLX, Insufficient Memory)`,
        explanation:
          'Metal could not make the resources of a command buffer resident (MTLCommandBufferErrorOutOfMemory): the buffers the GPU work needs exceed the unified memory macOS lets the GPU use. ' +
          (aborted ? 'MLX threw it where nothing caught it, so the process aborted.' : 'MLX threw it as an exception the program could have caught.'),
        numbers: {},
        fixes: [shrinkPeak('the arrays the model keeps on the GPU (batch, context length, quantization)')],
      });
    }
    // The message may be wrapped over the next lines ("… DRAM buffer" / "across 12 banks, …" / "… (allocated: …").
    const ttRead = ttMetalOom(line);
    if (ttRead) {
      const { match: tt, text: ttText } = ttRead;
      const requested = Number(tt[1]);
      const state = TT_METAL_BANK_STATE.exec(ttText.slice(tt.index));
      // Thrown where nothing caught it: libstdc++'s terminate prints the exception as "what():  TT_THROW @ …" above it.
      const aborted = thrownUncaught(line) || [1, 2, 3].some((k) => /^\s*what\(\):\s+TT_THROW\b/.test(line.previous(k) ?? ''));
      return allocFailure(line, {
        kind: aborted ? 'runtime-abort' : 'catchable-oom',
        platform: tenstorrentPlatform(line),
        summary: `Out of memory: tt-metal could not allocate a ${formatBytes(requested)} ${tt[2]} buffer across ${tt[3]} banks`,
        explanation: aborted
          ? 'Tenstorrent\'s tt-metal allocator found no free range in the device\'s banks for the buffer and threw an exception nothing caught, so the process aborted.'
          : 'Tenstorrent\'s tt-metal allocator found no free range in the device\'s banks for the buffer and threw an exception (a RuntimeError in Python) the program could have caught.',
        numbers: { requestedBytes: requested, ...(state && { allocatedBytes: Number(state[1]), freeBytes: Number(state[2]) }) },
        fixes: [shrinkPeak('the tensors placed in device DRAM/L1 (batch, sequence length, sharding)')],
      });
    }
    const cbBeyond = TT_CB_BEYOND_L1.exec(line.content);
    if (cbBeyond || TT_CB_CLASH.test(line.content)) {
      return allocFailure(line, {
        kind: 'catchable-oom',
        platform: tenstorrentPlatform(line),
        summary: cbBeyond
          ? `Out of memory: a tt-metal program's circular buffers need ${formatBytes(Number(cbBeyond[1]))} of L1, over the ${formatBytes(Number(cbBeyond[2]))} a core has`
          : "Out of memory: a tt-metal program's circular buffers clash with buffers already in L1",
        explanation: cbBeyond
          ? 'The circular buffers a program allocates statically on each core did not fit in the core\'s L1 SRAM; tt-metal checked it when the program was set up and threw an exception (a RuntimeError in Python) the program could have caught.'
          : 'The L1 buffers already allocated (tensors placed in L1) leave too little room for the program\'s static circular buffers; tt-metal threw an exception (a RuntimeError in Python) the program could have caught.',
        numbers: cbBeyond ? { requestedBytes: Number(cbBeyond[1]), allowedBytes: Number(cbBeyond[2]) } : {},
        fixes: [shrinkPeak('what the op keeps in L1: smaller blocks or tiles per core, fewer buffers per core, or tensors in DRAM instead of L1')],
      });
    }
    const vk = VULKAN_OOM.exec(line.content);
    if (vk && !/warn/i.test(line.content)) {
      const host = (vk[1] ?? vk[2] ?? vk[3])!.toUpperCase() === 'HOST';
      const platform = host ? 'cpu' : platformNear(line);
      let request = GGML_VULKAN_REQUEST.exec(line.content);
      for (let k = 1; k <= 2 && !request; k++) request = GGML_VULKAN_REQUEST.exec(line.previous(k) ?? '');
      // The program treated the failed call as fatal: an uncaught exception, or the process ending right under it (a crash
      // handler's "Signal 11 caught.").
      const crashed = thrownUncaught(line) || endsProcessAfter(line, 3);
      return allocFailure(line, {
        kind: crashed ? 'runtime-abort' : 'catchable-oom',
        platform: platform,
        summary: (crashed ? 'Process crashed: ' : '') + (host ? 'Host out of memory: Vulkan returned VK_ERROR_OUT_OF_HOST_MEMORY' : `Out of memory: a Vulkan device memory allocation failed (VK_ERROR_OUT_OF_DEVICE_MEMORY)${platform === 'cpu' ? '' : ` on ${platform}`}`),
        explanation:  host
          ? 'The Vulkan driver could not allocate the host memory it needed and returned VK_ERROR_OUT_OF_HOST_MEMORY to the program.'
          : crashed
            ? 'The Vulkan driver could not allocate device memory and returned VK_ERROR_OUT_OF_DEVICE_MEMORY; the program treated it as fatal and the process died on it (the signal under it).'
            : 'The Vulkan driver could not allocate device memory and returned VK_ERROR_OUT_OF_DEVICE_MEMORY (Vulkan-Hpp throws it as vk::OutOfDeviceMemoryError) to the program, which could have handled it.',
        numbers: request ? { requestedBytes: Number(request[1]) } : {},
        fixes: host ? [hostMemory] : [shrinkPeak('the buffers and images the program allocates (resolution, batch)')],
      });
    }
    const maxAlloc = OPENVINO_MAX_ALLOC.exec(line.content);
    if (maxAlloc) {
      return allocFailure(line, {
        kind: 'catchable-oom',
        platform: 'xpu',
        summary: `Out of memory: OpenVINO's GPU plugin refused a ${formatBytes(Number(maxAlloc[1]))} allocation over the device's largest (${formatBytes(Number(maxAlloc[2]))})`,
        explanation: 'The Intel GPU has a limit on the size of one memory object (CL_DEVICE_MAX_MEM_ALLOC_SIZE, often 4 GB); the plugin checked the request against it and raised the error to the program.',
        numbers: { requestedBytes: Number(maxAlloc[1]), allowedBytes: Number(maxAlloc[2]) },
        fixes: [shrinkPeak('the tensor over the limit (fewer frames or a smaller batch per call, lower precision)')],
      });
    }
    if ((OPENVINO_OUT_OF_RESOURCES.test(line.content) && !/warn/i.test(line.content) && !WENT_ON_INSTEAD.test(line.content)) || (OPENCL_OUT_OF_RESOURCES_TEXT.test(line.content) && !/warn/i.test(line.content) && [0, 1, 2].some((k) => OPENCL_CONTEXT.test(k === 0 ? line.content : (line.previous(k) ?? ''))))) {
      const aborted = thrownUncaught(line);
      const platform = platformNear(line);
      return allocFailure(line, {
        kind: aborted ? 'runtime-abort' : 'catchable-oom',
        platform,
        summary: `${aborted ? 'Process aborted: ' : ''}OpenCL ran out of device resources (CL_OUT_OF_RESOURCES, "Out of resources")${platform === 'cpu' ? '' : ` on ${platform}`}`,
        explanation:
          'The OpenCL runtime returned CL_OUT_OF_RESOURCES (-5): it could not allocate what the call needed on the device (buffers, or the registers and local memory of a kernel launch); the program\'s check printed the status as text. ' +
          (aborted ? 'It was thrown as a C++ exception nothing caught, so the process aborted.' : 'It reached the program as an error it could have handled.'),
        numbers: {},
        fixes: [shrinkPeak('the buffers and work sizes the kernels use')],
      });
    }
    const clText = OPENCL_OOM.exec(line.content) ? undefined : OPENCL_OOM_TEXT.exec(line.content);
    if (clText && !/warn/i.test(line.content)) {
      const host = /host/i.test(clText[1]!);
      const aborted = thrownUncaught(line);
      const platform = host ? 'cpu' : platformNear(line);
      return allocFailure(line, {
        kind: aborted ? 'runtime-abort' : 'catchable-oom',
        platform: platform,
        summary: `${aborted ? 'Process aborted: ' : ''}${host ? 'Host out of memory: OpenCL returned CL_OUT_OF_HOST_MEMORY' : 'Out of memory: OpenCL could not allocate a buffer on the device (CL_MEM_OBJECT_ALLOCATION_FAILURE)'} ("${clText[1]}")`,
        explanation:
          `The OpenCL runtime returned ${host ? 'CL_OUT_OF_HOST_MEMORY: it could not allocate the host memory it needed' : 'CL_MEM_OBJECT_ALLOCATION_FAILURE: it could not back a memory object with device memory'}, and the wrapper printed the status as text. ` +
          (aborted ? 'It was thrown as a C++ exception nothing caught, so the process aborted.' : 'It reached the program as an error it could have handled.'),
        numbers: {},
        fixes: host ? [hostMemory] : [shrinkPeak('the buffers the kernels allocate (work size, bins, batch)')],
      });
    }
    const cl = OPENCL_OOM.exec(line.content);
    if (!cl || /warn/i.test(line.content)) return undefined;
    const host = cl[1] === 'OUT_OF_HOST_MEMORY';
    const platform = host ? 'cpu' : platformNear(line);
    return allocFailure(line, {
      kind: 'catchable-oom',
      platform: platform,
      summary: host ? 'Host out of memory: OpenCL returned CL_OUT_OF_HOST_MEMORY' : `Out of memory: OpenCL could not allocate a buffer on the device (CL_MEM_OBJECT_ALLOCATION_FAILURE)${platform === 'cpu' ? '' : ` on ${platform}`}`,
      explanation:  host
        ? 'The OpenCL runtime could not allocate the host memory it needed and returned CL_OUT_OF_HOST_MEMORY to the program.'
        : 'The OpenCL runtime could not back a memory object with device memory and returned CL_MEM_OBJECT_ALLOCATION_FAILURE to the program, which could have handled it.',
      numbers: {},
      fixes: host ? [hostMemory] : [shrinkPeak('the buffers the kernels allocate (work size, batch)')],
    });
  },
};
