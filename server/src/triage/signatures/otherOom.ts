/**
 * Fallback 1 of 2: any other out-of-memory error. The issue this engine serves says it must triage
 * ANY OOM log, and most runtimes print their own words for it (Java's java.lang.OutOfMemoryError,
 * Lua/Torch7's "not enough memory", Theano's "Error allocating N bytes of device memory (out of
 * memory)", Caffe's glog "Check failed: error == cudaSuccess (2 vs. 0)  out of memory", spconv's
 * TensorView "cuda failed with error 2 out of memory", OpenSHMEM's "Cannot allocate memory", libc's
 * strerror(ENOMEM)). No specific signature can know them all, so an error, exception or fatal line
 * that says memory ran out, in words no other signature read, is a catchable-oom (a runtime-abort
 * when it is a glog FATAL/CHECK or the process aborts right after), on the platform the lines
 * around it name (cpu when they name no accelerator), with the size the line prints as the request.
 *
 * Listed after every specific signature, and marked `fallback`: the sink drops it whenever the log
 * has a specific finding, so it can never add a second root verdict or displace a known OOM.
 * Its needles all contain the engine's existing 'emory' anchor: the scan costs nothing more.
 */
import { formatBytes } from '../../format';
import type { Platform, SourceFrame } from '../../protocol';
import { hostMemory, shrinkPeak } from '../fixes';
import { ipythonFrames } from '../frames';
import { SIZE, toBytes } from '../sizes';
import { caffe2Device, endsProcessAfter, joinNext, thrownUncaught } from './lineContext';
import { GPU_ASSERT, TRITON_RESOURCE_LIMIT } from './nativeFailure';
import type { Finding, LineView, Signature } from './types';

/** "failed to allocate memory", "Failed to allocate device memory", "Failed to allocate 16.00 GB GPU memory" (the size may come first). */
// ND4J's CUDA backend names the device in brackets: "Failed to allocate 289657824 bytes from DEVICE [0] memory"; PhysX's GPU
// allocator says "PxgCudaDeviceMemoryAllocator fail to allocate memory 2147483648 bytes!! Result = 2".
const FAILED_TO_ALLOCATE = String.raw`failed to allocate (?:[\d.]+ ?(?:[KMGT]i?B|bytes) )?(?:\w+ ){0,2}(?:\[\d+\] )?memory|\bfail to allocate memory \d+ bytes`;
/**
 * PyTorch's caching allocator warning that a map for expandable segments failed ("[W… CUDACachingAllocator.cpp:N]
 * expandable_segments: memory mapping failed with OOM on device 0 while trying to map 20971520 bytes (free: F, total: T)",
 * c10/cuda/CUDACachingAllocator.cpp ExpandableSegment::map; later builds print it without the "expandable_segments: " prefix,
 * "memory allocation failed with OOM on device 1 …"): the allocator frees its cache and retries, and raises OutOfMemoryError
 * if that fails too. Near the end of a log it is the allocation the run failed on, with the device's free and total bytes:
 * read by the tail pass, and for its numbers by the other-OOM fallback when that found the line first.
 */
export const EXPANDABLE_MAP_OOM = /\b(?:expandable_segments: )?memory (?:mapping|allocation) failed with OOM on device (\d+) while trying to (?:map|allocate) (\d+) bytes(?: \(free: (\d+), total: (\d+)\))?/;
/** The JDK's direct-buffer limit (java.nio.Bits.reserveMemory: "Cannot reserve 4194304 bytes of direct buffer memory (allocated: A, limit: L)"). */
const JVM_DIRECT_BUFFER = /\bCannot reserve (\d+) bytes of direct buffer memory \(allocated: (\d+), limit: (\d+)\)/;
/** Also an allocation of memory said to have failed in other words ("Alloc Device Memory Failed!", Sophgo's stream check), and an
 * error that ends in std::bad_alloc (operator new failing, reported back: onnxruntime's "Load model from … failed:std::bad_alloc",
 * torchelastic's error file's "message": "MemoryError: std::bad_alloc"), MSVC's wording of its what(), "bad allocation", as a message of
 * its own, and a message cut inside its last word ("cudaMalloc failed: out of mem", MXNet's storage manager in an excerpt); DALI's
 * operators' "CUDA allocation failed" and nvJPEG's allocator status; c10's CPU allocator check on posix_memalign's ENOMEM
 * ("[enforce fail at CPUAllocator.cpp:56] posix_memalign(&data, gAlignment, nbytes) == 0. 12 vs 0"). */
const OOM_WORDS = new RegExp(String.raw`malloc \w+ device memory failed|memory is overflow|cannot reserve [\d.]+ ?\w+ as there is only|out of (?:GPU |device )?memory|OutOfMemory|not (?:have )?enough (?:GPU |device |system |host )?memory|(?:cannot|can not|could not|unable to) allocate (?:\w+ ){0,2}memory|^\s*Failed to allocate again\.?\s*$|insufficient (?:GPU |device )?memory|(?:device )?memory allocation of size \d+ failed|storage allocation failure|failed to allocate \d+ bytes for new constant|memory exhausted|memory allocation fail(?:ure|ed)|${FAILED_TO_ALLOCATE}|\balloc(?:ate)? (?:\w+ )?memory failed\b|std::bad_alloc(?=["',]*\s*$)|(?:^|\]\s|:\s)bad allocation\s*$|\bCUDA allocation failed\b|\bNVJPEG_STATUS_ALLOCATOR_FAILURE\b|\bposix_memalign\b.*\b12 vs 0(?!\d)|lloc failed: out of mem(?:o|or)?\s*$|\bmemory isn't enough\b|[iu]nsufficient VRAM|not enough VRAM|out of VRAM`, 'i');
/** The line states the allocation failed before it guesses why ("GPU memory allocation failed (might be due to insufficient memory)"). */
const STATED_FAILURE = new RegExp(String.raw`memory allocation fail(?:ure|ed)|${FAILED_TO_ALLOCATE}`, 'i');
/** The line reports a failure (not advice, a setting or a warning). */
const FAILURE_WORDS = /error|exception|fatal|fail|abort|\bF\d{4} |Check failed|^\s*\S+:\d+: /i;
const TF_OP_EXHAUSTED = /\bop_kernel\.cc:\d+\] (?:OP_REQUIRES failed at \S+ : )?Resource exhausted: /;
/** TensorFlow's exception for the status ("ResourceExhaustedError: failed to allocate memory", errors_impl.ResourceExhaustedError). */
const TF_EXHAUSTED_ERROR = /\bResourceExhaustedError: /;
const GGML_PINNED = /\b(?:ggml_cuda_host_malloc: failed to allocate [\d.]+ MiB of pinned memory|failed to allocate pinned (?:system |host )?memory): (.+)$/;
const SGLANG_POOL = /\b(?:(?:Decode|Prefill) out of memory\. Try to lower your batch size|alloc_req_slots runs out of memory)\b/;
const NOT_A_FAILURE = /warn|\bW\d{4} |: W \S|(?:^|\] )\[W\] |\bSkipping tactic\b|\bnot a failure|\b(?:if|avoid|prevent|may|might|could|to reduce|when|whether|without|reasons for)\b[^.]{0,60}(?:out of|not (?:have )?enough|n't have enough|insufficient)|\b(?:except|raise|catch|import|handlers?)\b/i;
/**
 * A glog FATAL or CHECK, a program's own termination notice, torch_memory_saver's check (csrc's CURESULT_CHECK and its
 * cudaError twin print "[torch_memory_saver.cpp] … error …" and exit(1); from memory of that source).
 */
/**
 * A program saying what it did instead of failing ("could not allocate pinned memory, falling back to pageable memory", DPDK's
 * "using regular pages", "retrying on CPU", "offloading layers to CPU", a batch skipped): the allocation it names did not end
 * the run. One list for the readings whose words alone would otherwise make a failure of such a line.
 */
export const WENT_ON_INSTEAD = /\b(?:falling back|fall back|retrying|using regular|skipping|offload\w*)\b/i;
const ABORTS_HERE = /^\s*F\d{4} |Check failed|\bProgram [Tt]erminated\b|^\s*\[torch_memory_saver\.cpp\] \w+ error\b/;
/**
 * A failed check the framework raised into Python instead of aborting: the line starts with the exception ("mxnet.base.
 * MXNetError: [17:13:00] src/operator/…: Check failed: err == cudaSuccess (2 vs. 0) … ErrStr:out of memory", dmlc's CHECK throws
 * dmlc::Error; TVM's "…/cuda_device_api.cc:129: InternalError: Check failed: …", behind its source location).
 */
const RAISED_CHECK = /^\s*(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): .*\bCheck failed\b|\bInternalError: Check failed\b/;
/** A request the line prints: "tried to reallocate 11GB", "Error allocating 33554432 bytes", "Cannot allocate 1.5GB". */
/** ggml's Vulkan backend ("ggml_vulkan: Device memory allocation of size 638668800 failed."): the bytes it asked for. */
const SIZED_ALLOCATION_FAILED = /\b[Mm]emory allocation of size (\d+) failed\b/;
/**
 * TVM's Relax VM memory manager (src/runtime/relax_vm/memory_manager.cc, an ICHECK that throws InternalError: "storage allocation
 * failure, attempted to allocate 16785408 at offset 0 in region that is 16777216bytes"): a request over the planned region.
 */
const TVM_STORAGE = /\bstorage allocation failure, attempted to allocate (\d+) at offset \d+ in region that is (\d+) ?bytes/;
/**
 * MuJoCo's arena ("mj_stackAlloc: out of memory, stack overflow", then "  max = 16777216, available = 16777192, requested =
 * 19288260"): the request and what the arena had left; the arena's size is set by the model (<size memory=…>).
 */
const MUJOCO_ARENA = /^\s*max = (\d+), available = (\d+), requested = (\d+)/;
/** A program naming what it failed to allocate and its size ("ds4: CUDA model range alloc failed for token_embd (1010.00 MiB): out of memory", "… (1792.00 MiB chunk)"). */
const ALLOC_FAILED_FOR = new RegExp(String.raw`\balloc(?:ation)? failed for [\w:.\/-]+ \(${SIZE}(?: chunk)?\)`);
const EIGEN_ALLOCATOR = /\bEigenAllocator for GPU ran out of memory when allocating (\d+)\./;
const REQUEST = new RegExp(String.raw`(?:(?:allocat\w*|request\w*|reallocate)(?: of)?|\ballocate memory) ${SIZE}`, 'i');
/** Theano's driver report: "Driver report 21364736 bytes free and 11715084288 bytes total". */
const DRIVER_REPORT = new RegExp(String.raw`${SIZE} free and ${SIZE} total`);
/** The free memory a failed request is compared with: "Failed to allocate 16.00 GB GPU memory (0.00 GB available)". */
/** ROCm CLR's summary of a failed device allocation (hipamd hip_memory.cpp, AMD_LOG_LEVEL): "Allocation failed : Device memory : required :4 | free :2314338304 | total :17163091968". */
const CLR_ALLOC_FAILED = /Allocation failed : Device memory : required :(\d+) \| free :(\d+) \| total :(\d+)/;
const ART_HEAP = /\bFailed to allocate a (\d+) byte allocation with (\d+) free bytes and \S+ until OOM(?:, (?:target|max allowed) footprint \d+, growth limit (\d+))?/;
const MMAP_FAILED = new RegExp(String.raw`\bunable to mmap ${SIZE}`);
/** The free memory a message prints beside its request: "(512 MiB available)", or after a separator, "requested 1795MB; free 595 MB". */
const AVAILABLE = new RegExp(String.raw`\(${SIZE} (?:available|free)\)|[;,]\s*free:? ${SIZE}`, 'i');
/**
 * The Go runtime refused heap by the OS (runtime/mheap.go, malloc.go: "runtime: out of memory: cannot allocate
 * N-byte block (M in use)", then throw("out of memory"), printed as "fatal error: out of memory"): no recover()
 * catches a throw, and the program's own heap (M) filled the host or its limit, so it is a host OOM.
 */
const GO_OOM = /\bruntime: out of memory: cannot allocate (\d+)-byte block \((\d+) in use\)/;
/**
 * Ray's memory monitor before Ray 2 (python/ray/memory_monitor.py raise_if_low_memory, RayOutOfMemoryError.get_message:
 * "More than 95% of the memory on node host is used (11.8 / 12.3 GB). The top 5 memory consumers are:"): the worker
 * refuses to run a task because the whole node is over the threshold (RAY_MEMORY_MONITOR_ERROR_THRESHOLD), as Ray 2's
 * raylet kills a worker for it (cpu.ts's Ray signature): the host's memory, not one allocation, so a host OOM.
 */
const RAY_MEMORY_MONITOR = /\bRayOutOfMemoryError: More than [\d.]+% of the memory on node\b|\bRayTaskError\(RayOutOfMemoryError\)/;
/** fairseq's warning after it caught a CUDA out-of-memory error (multiprocessing_trainer.py: '| WARNING: ran out of memory on GPU #{}, skipping batch'). */
const FAIRSEQ_SKIP = /\bran out of memory on GPU #(\d+), skipping batch\b/;
/** A per-GPU line prefix ("GPU-0: Failed to allocate …", "GPU 3: …"): the device the line is about. */
const GPU_PREFIX = /^\s*GPU[- ]?(\d+): /;
/**
 * The CUDA check of the cryptonight miners (ccminer-cryptonight's and xmr-stak-nvidia's cuda_extra.cu exit_if_cudaerror:
 * printf("GPU %d: %s\n%s line %d\n", thr_id, cudaGetErrorString(err), file, line), then exit(1)): the status under a
 * "GPU N: " prefix, the source file and line on the next line.
 */
export const MINER_CHECK_FILE = /^\s*\S.*\.(?:cu|cuh|cpp|cc|c)\s+line\s+\d+\s*$/;
/** The same idiom with the device after a '#' and no file ("the GPU #0 assert: out of memory"). */
const GPU_N_ASSERT = /\bGPU ?#?(\d+) assert: /i;
/**
 * Bodo's buffer pool refusing an allocation (bodo/libs/_memory.cpp, its OOM error: "Bodo detected an out-of-memory error. Rank 3/8
 * requires 5.3GiB of memory (5.2GiB in use + 8.0MiB requested) but only has 1.27GiB available."): the rank, what it already holds,
 * the request and what its share of the host still has.
 */
const BODO_BUFFER_POOL = new RegExp(String.raw`\bRank (\d+)\/\d+ requires ${SIZE} of memory \(${SIZE} in use \+ ${SIZE} requested\) but only has ${SIZE} available`);
/** A miner's buffer check printing both sides in bytes ("Failed to create buffer (out of memory) | Requirements (1073741824) | Total memory (2147483648)"). */
const BUFFER_REQUIREMENTS = /\bRequirements \((\d+)\) \| Total memory \((\d+)\)/;
/** Jittor's totals under its overflow report ("Total: 79.33GB Used:  78.4GB", src/mem/mem_info.cc). */
const JITTOR_TOTAL = new RegExp(String.raw`^\s*Total:\s*${SIZE}\s+Used:`);
/**
 * PIConGPU's device-memory reservation at start-up ("Cannot reserve 1024 MiB as there is only 7 MiB free device memory
 * left", thrown as a std::runtime_error; wording from the corpus log and memory of its source): the reservation and what
 * was free.
 */
const CANNOT_RESERVE = new RegExp(String.raw`\bCannot reserve ${SIZE} as there is only ${SIZE} free (?:device )?memory left`);
/**
 * A CUDA check macro's line: the status string and the source location it failed at, nothing after it, in CUDA by
 * Example's HandleError order ("out of memory in ./src/solver.cu at line 88") or with the line first ("Got bad cuda
 * status: out of memory at line: 27/src/data.cu"). Such macros exit the process; a Python exception's line is not one.
 */
const HANDLE_ERROR = /^(?!.*\b[A-Z]\w*(?:Error|Exception): ).*?(?:[Oo]ut of memory|[Mm]emory allocation[\w ]*) (?:in \S+\.(?:cu|cuh|cpp|cc|c|h|hpp) at line:? ?\d+|at line:? ?\d+ ?(?:in |of )?\S*\.(?:cu|cuh|cpp|cc|c|h|hpp))\s*$/;

/** Accelerators a log names, most specific first; `cpu` when it names none. */
const PLATFORM_WORDS: readonly [Platform, RegExp][] = [
  // ROCm's math libraries by name (rocBLAS, hipBLAS/hipBLASLt and their statuses, MIOpen, MIGraphX, HIPRTC, Tensile's kernel
  // library, PyTorch's ATen/hip sources: a ROCm build's "CUDA error" names HIP's libraries around it; MIGraphX's Python module and source tree).
  // AMD Instinct accelerators by model (MI100, MI210, MI250X, MI300X, MI325X, MI355X; as a directory name too, "torch.mi250/").
  // ROCm CLR's AMD_LOG_LEVEL lines (":1:rocdevice.cpp            :1897: 9616777836 us: 4277 : [tid:0x…] …", ClPrint's format) name the runtime by their form.
  // AMD's GPUs by brand ("Radeon RX 6600", "my AMD 8GB GPU"), as DirectML's and Vulkan's users name the card; not AMD's CPUs
  // ("AMD EPYC 7763") nor the graphics built into them ("AMD Ryzen 7 5800H with Radeon Graphics", often beside an NVIDIA card).
  // HIP's API by its names (hipMalloc, hipErrorOutOfMemory: a capital then lower case) and its libraries (hipBLAS, hipFFT,
  // hipSPARSE, hipCUB, …), not a word such as "hipAB"; its C++ namespace (MIGraphX's "hip::hip_allocate_memory").
  ['rocm', /(?<![A-Za-z0-9])(?:MI|mi)(?:100|210|250[Xx]?|300[AXax]?|325[Xx]|355[Xx])(?![A-Za-z0-9])|\bHIP\b|\bhip(?:[A-Z][a-z]\w*|BLAS\w*|FFT|SPARSE\w*|SOLVER|RAND|CUB|DNN)\b|\bhip::|ROCm|rocm|\bgfx\d{3,4}|\bHSA_|\brocBLAS\b|\brocblas|\bHIPBLAS|\bhipBLAS|\bhipblas|\bMIOpen\b|\bmiopen[A-Z:]|\blibMIOpen\b|\bMIGraphX\b|AMDMIGraphX|\bmigraphx[.:]|\bHIPRTC|\bTensileLibrary|\bATen\/hip\b|^:\d:\w+\.cpp\s+:\s*\d+\s*: \d+ us: |\bRadeon(?:\(TM\))? (?:RX|Pro|VII|R[579]|HD)\b|\bAMD\b(?=[^\n]{0,12}\b(?:GPU|graphics card|video card)s?\b)(?![^\n]{0,12}\b(?:NVIDIA|RTX|GTX|GeForce)\b)/m],
  // The Ascend device's exception dump ("DEVICE[0] PID[358]:", "EXCEPTION STREAM:", "RTS_HWTS: aicore exception") and
  // torch_npu's "The Inner error is reported as above." name the NPU without saying so.
  ['npu', /\bNPU\b|Ascend|\bCANN\b|torch_npu|\bRTS_HWTS: |^\s*EXCEPTION STREAM:|The Inner error is reported as above/m],
  // SYCL's device-side assert (intel/llvm libdevice __devicelib_assert_fail: "file:line: func: global id: [x,y,z], local id: [x,y,z] Assertion `…` failed.").
  // Level Zero's own names (the oneAPI Level Zero spec, ze_api.h): its status type ze_result_t, a ZE_RESULT_ code, a ze*/zes* API call.
  // PyTorch's own names for the device in code (torch.xpu, .to("xpu"), device="xpu:0"), as a pasted script shows them.
  // OpenVINO's GPU plugin (Intel's GPUs over OpenCL) by its "[GPU] clFinish, error code: …" / "[GPU] CL_OUT_OF_RESOURCES
  // exception" / "[GPU] force exit." lines.
  // Intel's compute runtime (NEO) by its package and sources, and its report of a GPU page fault ("Segmentation fault from GPU
  // at 0x…, ctx_id: 9 (CCS) type: 0 (NotPresent), …, aborting.", drm_neo.cpp).
  // PyTorch's XPU wheels' version suffix ("2.6.0+xpu", collect_env's "PyTorch version:"), Intel's discrete GPUs by name (sycl-ls, clinfo: "Intel(R) Arc(TM) A770 Graphics", "Intel(R) Data Center GPU Max 1550").
  ['xpu', /\bXPU\b|\[GPU\] (?:cl[A-Z]\w*,|CL_[A-Z_]+|out of GPU resources|force exit)|\bintel-compute-runtime\b|\bdrm_neo\.cpp\b|\bSegmentation fault from GPU at 0x|\btorch\.xpu\b|\.to\(["']xpu(?::\d+)?["']\)|\bdevice=["']xpu(?::\d+)?["']|\d\+xpu\b|\bIntel\(R\) (?:Arc\(TM\)|Data Center GPU)|Level.?Zero|\bSYCL\b|oneAPI|\bglobal id: \[\d+,\d+,\d+\], local id: \[|\bze_result_t\b|\bZE_RESULT_[A-Z_]+|\bzes?(?:Init|Driver|Device|Context|CommandList|CommandQueue|Mem|Module|Kernel|Event|Fence)\w*\(/],
  // TPU inside the identifiers of the stacks that drive it: TensorFlow's and StreamExecutor's TpuPlatform, TPU_SYSTEM
  // device and TPUClusterResolver/TPUStrategy, vLLM's TPUExecutor, JAX's tpu_version and COLAB_TPU_ADDR, PJRT's
  // "device type tpu", libtpu's library, XRT's sources (xrt_computation_client.cc); not inside a word ("output").
  // Tenstorrent's stacks by name (tt-metal, tt-xla, ttnn): Headroom reads its cards as this class (tailAllocFailure.ts).
  ['xla-tpu', /\bTPU\b|\bTenstorrent\b|\btt-(?:metal|xla|mlir|torch|forge)\b|\bttnn\b|torch_xla|\bXRT\w*|(?<![A-Za-z])(?:TPU|Tpu|tpu)(?![a-z])|\blibtpu\b|\bxrt_\w+/],
  // Habana's Gaudi by its PyTorch device and op namespace ("device=hpu:0", "hpu::_copy_from", torch.hpu), its bridge
  // (habana_frameworks) and SynapseAI; the bridge's fatal-signal handler (habana_helpers/signal_handler.cpp:
  // "Internal Error: Received signal - " << strsignal(signum)).
  ['gaudi', /\bHPU\b|\bhpu\b|\bhabana_frameworks\b|\bHabana\b|\bGaudi\d?\b|\bSynapseAI\b|\bInternal Error: Received signal - [A-Z]/],
  // MPSGraph's op locations ("loc(\"mps_subtract\"…MPSGraphUtilities.mm"), PyTorch's aten/src/ATen/native/mps sources;
  // PyTorch's own names for the device in code that puts work there (torch.mps, .to("mps"), torch.device("mps"),
  // device_types={'mps'}), as the xpu line reads them; not a library's check of the type (`if device.type == "mps":`);
  // PyTorch MPS's Placeholder check ("Placeholder buffer size (N) is not large enough to contain the Tensor storage of size M",
  // native/mps/OperationUtils.mm; pytorch#77886, #78042) and MPSCore's "[MPSNDArray, initWithBuffer:…] Error: buffer is not large enough".
  ['mps', /\bMPS\b|\btorch\.mps\b|\.to\(["']mps(?::\d+)?["']\)|\btorch\.device\(["']mps|\bdevice(?:_types?)?\s*=\s*[{(]?["']mps(?::\d+)?["']|\bMetal\b|\bmetal::|\bmlx\.|MetalPerformanceShaders|\bMPSGraph|"mps_[a-z]\w*"|\bcopy_to_mps\b|\/native\/mps\/|\bPlaceholder buffer size \(\d+\) is not large enough to contain the Tensor storage\b|\bMPSNDArray\b|\bMPSCore\b/],
  // NCCL's own functions in a backtrace ("ncclShmOpen", "ncclProxyService"; RCCL keeps the names, and ROCm's words come first).
  // NVIDIA's GeForce GTX cards are often named without "GeForce" ("Using device: GTX 770 (type: DiscreteGpu)").
  // NVIDIA's PTX assembler (ptxas, which Triton and NVRTC run) is CUDA's toolchain; the NCCL backend by its lower-case name
  // in code and test names (backend="nccl", "test_…_nccl"), not inside another word ("pynccl"). The driver API's status type
  // (CUresult, as torch_memory_saver's "CUresult error: 2 (out of memory)" prints it) is CUDA's. CUDA's lower-case name as a token
  // inside an identifier ("test_module_alexnet_torch_dynamic_cuda", a pytest id), and NVIDIA's data-centre GPUs by model (A100,
  // H100, H200, V100, B200, GB200; also inside host names such as "h100-3" or "presubmit-a100", which clusters name after them).
  // MXNet's GPU memory pool by its source (src/storage/pooled_storage_manager.h: GPUPooledStorageManager; host memory has no pool).
  // DeepSpeed's launcher (deepspeed/launcher/launch.py, its sigkill_handler's lines), which starts one process per GPU it finds.
  // The GPU libraries of RAPIDS (rmm::, cuDF, cuML, cuGraph), CuPy and Faiss's GPU namespace: CUDA's unless ROCm's words say otherwise.
  // NVIDIA's compute capabilities as flash-attention's checks name them ("is_sm80"; not "sm_80", which a host compiler's flags carry too).
  ['cuda', /CUDA|\bcuda|(?<![A-Za-z])cuda(?![a-z])|(?<![A-Za-z0-9])(?:[AaHhVv]100|[HhBb]200|[AaHh]800|GB200|GH200)(?![0-9])|\bCUresult\b|\bCuda\b|\w\.cu:\d+\]|of device memory|cuDNN|CUDNN|cudnn|cuBLAS|CUBLAS|\bNCCL\b|\bnccl[A-Z][a-z]\w*|\bptxas\b|(?<![A-Za-z])nccl(?![a-z])|ProcessGroupNCCL|THCuda|invalid device function|multi_gpu_launcher|\bGPU\b|\bgpu\b|nvidia|NVIDIA|GeForce|Tesla|Quadro|\bRTX\b|\bGTX ?\d{3,4}\b|\bNvAPI_|\bNVML\b|\bNVRM: |\bnvrtc\b|\blibcuda\.so\b|\bpooled_storage_manager\.h:|\bdeepspeed[./]launcher\b|\blaunch\.py:\d+:sigkill_handler\]|\brmm::|\bcudf\b|\bcuml\b|\bcugraph\b|\bcupy(?:_backends)?\b|\bfaiss::gpu::|\bis_sm\d{2,3}\b/],
  // The kernel's amdgpu driver ("amdgpu: sq_intr: error", dmesg) after every CUDA word: a laptop's AMD integrated GPU loads it
  // beside an NVIDIA card, which is then the one the run used.
  ['rocm', /\bamdgpu/],
  // Weaker words, after every CUDA word (a log that names an NVIDIA card may load these too): Apple's Neural Engine under Core
  // ML ("ANECCompile() FAILED", "ANECF error", coremltools), Apple's accelerators being one class here; OpenVINO's GPU plugin
  // and oneDNN's Intel GPU sources (src/plugins/intel_gpu, src/gpu/intel/ocl).
  ['mps', /\bANEC\w+|\bANECF\b|\bCore ?ML\b|\bcoremltools\b/],
  ['xpu', /\bintel_gpu\b|\bgpu\/intel\/ocl\b/],
];

/** The accelerator a text names (the first of PLATFORM_WORDS that matches), or undefined. */
export function platformNamedIn(text: string): Platform | undefined {
  for (const [platform, re] of PLATFORM_WORDS) if (re.test(text)) return platform;
  return undefined;
}

/**
 * Lines that name platforms without saying this host has them: a dump of every setting's name a server knows (ollama's
 * 'msg="server config" env="map[CUDA_VISIBLE_DEVICES: HIP_VISIBLE_DEVICES: …]"'), PyTorch Lightning's banner of the
 * accelerators it did not find ("TPU available: False, using: 0 TPU cores", "HPU available: False, using: 0 HPUs"), and pip
 * installing packages with a platform in their names ("Collecting nvidia-cuda-runtime-cu12").
 */
export const NAMES_NO_PLATFORM = /\bmsg="server config" env="map\[|\b[A-Z]PU available: False\b|^\s*(?:Collecting|Downloading|Using cached|Requirement already satisfied:|Installing collected packages:|Successfully installed)\s/;

/** The platform the line and the lines around it (`back` above, `ahead` below) name. */
export function platformNear(line: LineView, back = 30, ahead = 5): Platform {
  const texts = [line.content];
  for (let k = 1; k <= ahead; k++) texts.push(line.next(k) ?? '');
  for (let k = 1; k <= back; k++) {
    const t = line.previous(k);
    if (t === undefined) break;
    texts.push(t);
  }
  const text = texts.filter((t) => !NAMES_NO_PLATFORM.test(t)).join('\n');
  for (const [platform, re] of PLATFORM_WORDS) if (re.test(text)) return platform;
  return 'cpu';
}

/**
 * The platform of a failure that happened on an accelerator: the one the lines around name, else cuda, the engine's reading
 * of a GPU no vendor is named for (the host is never where a device's memory ran out).
 */
export function devicePlatformNear(line: LineView, back = 30): Platform {
  const near = platformNear(line, back);
  return near === 'cpu' ? 'cuda' : near;
}

/**
 * Tenstorrent tt-metal's bank allocator's message ("Out of Memory: Not enough space to allocate N B DRAM buffer across 12
 * banks, …"), with up to three lines it was wrapped onto joined: the match and the joined text, or undefined.
 */
const TT_METAL_OOM_HEAD = /\bOut of Memory: Not enough space to allocate (?:\d+|\{\}) B (?:\w+|\{\}) buffer\b/;
const TT_METAL_OOM = /\bOut of Memory: Not enough space to allocate (\d+) B (\w+) buffer\s+across (\d+) banks/;

/**
 * Older builds printed the format string and then its arguments, one a line ("… allocate {} B {} buffer across {} banks,
 * where each bank needs to store {} B" over "148897792", "DRAM", "8", "18612224"): the arguments go back into their places.
 */
function withTtArguments(line: LineView): string {
  let k = 1;
  return line.content.replace(/\{\}/g, (hole) => {
    const arg = line.next(k)?.trim();
    if (arg === undefined || !/^\w+$/.test(arg)) return hole;
    k++;
    return arg;
  });
}

export function ttMetalOom(line: LineView): { match: RegExpExecArray; text: string } | undefined {
  if (!TT_METAL_OOM_HEAD.test(line.content)) return undefined;
  const head = line.content.includes('{}') ? withTtArguments(line) : line.content;
  const text = [head, line.next(1) ?? '', line.next(2) ?? '', line.next(3) ?? ''].join(' ');
  const match = TT_METAL_OOM.exec(text);
  return match ? { match, text } : undefined;
}

export const otherOom: Signature = {
  id: 'other-out-of-memory',
  platform: 'cpu',
  needles: ['out of memory', 'Out of memory', 'OutOfMemory', 'std::bad_alloc', "emory isn't enough", 'not enough memory', 'Not enough memory', 'annot allocate memory', 'an not allocate memory', 'bad allocation', 'lloc failed: out of mem', 'CUDA allocation failed', 'NVJPEG_STATUS_ALLOCATOR_FAILURE', 'CPUAllocator', 'nsufficient memory', 'emory exhausted', 'emory allocation fail', 'ailed to allocate', 'device memory', 'emory is overflow',
    'ut of GPU memory', 'enough GPU memory', 'enough system memory', 'enough host memory', 'nsufficient GPU memory', 'ould not allocate', 'emory allocation of size', 'storage allocation failure'],
  match: (line) => readOtherOom(line, false),
};

/** Whether a line says memory ran out in words the other-OOM fallback reads. */
export const statesOom = (content: string): boolean => OOM_WORDS.test(content);

/**
 * The other-OOM fallback's reading of a line among a log's last lines (the tail pass's last resort, statedFailure.ts): a
 * line there that says memory ran out is the log's failure even with no word of failure on it ("CudaCustomAllocator out
 * of memory", MATLAB's "Out of memory. Type HELP MEMORY for your options.", Theano's "device memory (out of memory)").
 */
export const oomStatedAtEnd = (line: LineView): Finding | undefined => readOtherOom(line, true);

/** Sets each field to the size a match printed, two groups (number, unit) a field, starting at group `from`. */
function setSizes(numbers: Finding['numbers'], match: RegExpExecArray | null, fields: readonly (keyof Finding['numbers'])[], from = 1): void {
  if (!match) return;
  fields.forEach((field, i) => {
    const bytes = toBytes(match[from + 2 * i]!, match[from + 2 * i + 1]!);
    if (bytes !== undefined) numbers[field] = bytes;
  });
}

function readOtherOom(line: LineView, atEnd: boolean): Finding | undefined {
  const text = line.content;
  const m = OOM_WORDS.exec(text);
  if (!m) return undefined;
  // glibc's dynamic loader when a dlopen'ed library's TLS does not fit the static TLS surplus (elf/dl-tls.c: "cannot
  // allocate memory in static TLS block", often libgomp on aarch64): a loader limit, fixed by LD_PRELOAD or
  // GLIBC_TUNABLES=glibc.rtld.optional_static_tls, not memory running out. The tail pass reads the ImportError.
  if (/cannot allocate memory in static TLS block/i.test(text)) return undefined;
  // An application's guess before the error it caught ("Could not predict X. Not Enough GPU memory? <the error>", ColabFold's
  // report of any exception): the error after the question says what failed.
  const guessed = /\b(?:GPU )?memory\? (.*)$/.exec(text);
  if (guessed && !OOM_WORDS.test(guessed[1]!)) return undefined;
  // Triton's per-block limit (shared memory), whatever exception names it: a kernel's configuration (nativeFailure.ts).
  if (TRITON_RESOURCE_LIMIT.test(text)) return undefined;
  // VRAM too small in a debug record is a loader weighing its options (Ollama's 'level=DEBUG … msg="insufficient VRAM to load any
  // model layers"', then it runs on the CPU), not a failure.
  // Nor a status line that goes on (llama.cpp's "not enough VRAM for all 33 layers: offloading 21", a UI "enabling --lowvram"), advice
  // ("Out of VRAM errors are fixed by --medvram"), or a line with no failure in it.
  if (/VRAM/i.test(m[0]) && (/\blevel=(?:DEBUG|INFO)\b|\bDEBUG\b/.test(text) || WENT_ON_INSTEAD.test(text) || /\b(?:using|enabling|switching|offloading|fix(?:ed|es)?|avoid|try)\b|--\w*vram/i.test(text) || !FAILURE_WORDS.test(text))) return undefined;
  // std::bad_alloc as the error a call reported ("…: std::bad_alloc", TensorRT's "Unexpected exception std::bad_alloc"), not named in a note or a test's expected refusal
  // ("allocation … refused as expected: std::bad_alloc", "std::length_error is not std::bad_alloc").
  if (/std::bad_alloc/.test(m[0]) && (!/(?::|\bUnexpected exception)\s*std::bad_alloc/.test(text) || /\bexpected\b|\bNote:|\bcaught\b|\bthrows?\b/i.test(text))) return undefined;
  // A device node the driver would not open ("Unable to open /dev/kfd read-write: Cannot allocate memory", rocminfo; ENOMEM
  // from the driver's open): the driver or the GPU is not set up, not memory running out.
  if (/\bopen \/dev\/\S+/.test(text) && /Cannot allocate memory/.test(m[0])) return undefined;
  // A program that could not get a kind of memory and went on with another ("could not allocate pinned memory, falling back to
  // pageable memory", DPDK's "could not allocate hugepage memory, using regular pages"): nothing failed.
  if (/could not allocate/i.test(m[0]) && WENT_ON_INSTEAD.test(text)) return undefined;
  // tt-metal's bank allocator, which the tail pass reads whole, its state included, even wrapped over lines (tailAllocFailure.ts).
  if (ttMetalOom(line) !== undefined) return undefined;
  // ggml's CUDA backend (or Triton Inference Server's pinned_memory_manager.cc: "failed to allocate pinned system memory: …")
  // failing to pin host memory for a reason that is not memory (ggml-cuda.cu ggml_cuda_host_malloc: "failed
  // to allocate 1012.00 MiB of pinned memory: " + cudaGetErrorString, e.g. cudaErrorSystemDriverMismatch's "system has
  // unsupported display driver / cuda driver combination", cudaErrorNoDevice's "no CUDA-capable device is detected"): the
  // CUDA runtime did not start, and ggml goes on with pageable memory. Not an OOM.
  const pinned = GGML_PINNED.exec(text);
  // A pool that is not there and a fallback to pageable memory ("no pinned memory pool, falling back to non-pinned system memory") is no failure.
  if (pinned && WENT_ON_INSTEAD.test(text)) return undefined;
  if (pinned && !/out of memory|memory allocation/i.test(pinned[1]!)) {
    return {
      signature: 'other-out-of-memory',
      role: 'failure',
      fallback: 'oom',
      kind: 'not-oom',
      platform: 'cuda',
      catchable: true,
      summary: `Not an OOM: pinned host memory could not be allocated because the CUDA runtime failed (${pinned[1]!.trim()})`,
      explanation: 'The program (ggml, Triton Inference Server\'s pinned-memory pool) asked the CUDA runtime for pinned host memory and the call failed with a status that is not out of memory: the runtime or driver is not usable (a driver/runtime mismatch, no device). Memory did not run out.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [{ id: 'cuda-driver', title: 'Check the NVIDIA driver against the CUDA runtime the build uses (nvidia-smi; reinstall a matching driver, or a build for the installed CUDA)', rationale: 'The CUDA runtime reported a driver problem, not a lack of memory.' }],
    };
  }
  if (RAY_MEMORY_MONITOR.test(text)) return rayMemoryMonitor(line);
  const perl = PERL_NO_MEMORY.exec(text);
  if (perl) return perlOutOfMemory(line, perl[1] !== undefined ? Number(perl[1]) : undefined);
  const go = GO_OOM.exec(text);
  if (go) return goOutOfMemory(line, Number(go[1]), Number(go[2]));
  // Go's throw under that line is the same failure, read there.
  if (/^\s*fatal error: out of memory\s*$/.test(text)) for (let k = 1; k <= 3; k++) if (GO_OOM.test(line.previous(k) ?? '')) return undefined;
  // Alone (the runtime's line not kept, or grep's "file:" before it), the throw is still the Go runtime refusing the heap.
  if (/(?:^|\.log:)\s*fatal error: out of memory\s*$/.test(text)) {
    return hostOom(line, 'Host out of memory: the Go runtime stopped the process (fatal error: out of memory)',
      'The Go runtime could not get more heap from the operating system and stopped the process with "fatal error: out of memory", which no recover() catches. ' +
        'The heap in use filled the host (or the process\'s limit).', {});
  }
  // Lua's error() has no "error" in it: "file.lua:109: $ Torch: not enough memory", then "stack traceback:".
  const luaError = /^\s*stack traceback:/.test(line.next(1) ?? '');
  // A message printed on the line under its error's header ("…State.hs:86 (unhandled): CUDA Exception:" then
  // "out of memory", Haskell's cuda package showing a CUDAException): the header says it is a failure.
  // Also the CUDA check that prints its header first ("CUDA Runtime Error at: src/data.cu:83", then the status string and the
  // call: "out of memory cudaMalloc(&buf, n * sizeof(float))"; the check(err, #val, __FILE__, __LINE__) helper of Lei Mao's
  // "Proper CUDA Error Checking", copied into many projects): the header says it is a failure.
  // Jittor's fatal log ("Failed reason:[f … mem_info.cc:272]", then "GPU memory is overflow, please reduce your batch_size or
  // data size!" and "Total: 79.33GB Used: 78.4GB", src/mem/mem_info.cc; wording from the corpus log): the header says it failed.
  const continued =
    (/\bGPU memory is overflow\b/.test(text) && /\bFailed reason:/.test(line.previous(1) ?? '')) ||
    (/^\s*(?:out of memory|not enough memory|insufficient memory)\W*$/i.test(text) && /(?:Error|Exception|error|exception):\s*$/.test(line.previous(1) ?? '')) ||
    (/^\s*out of memory\b/.test(text) && /\bCUDA (?:Runtime|Driver) Error at: \S+:\d+\s*$/.test(line.previous(1) ?? ''));
  const stated = STATED_FAILURE.exec(text);
  // TensorFlow logs an op's failed status at warning level before raising it ("W tensorflow/core/framework/op_kernel.cc:1680]
  // Resource exhausted: failed to allocate memory", OP_REQUIRES's log): the status the program receives as ResourceExhaustedError.
  const tfOpStatus = TF_OP_EXHAUSTED.test(text);
  const hedge = tfOpStatus ? null : NOT_A_FAILURE.exec(text);
  // The gpuAssert idiom ("GPUassert: out of memory file.cu 103", then exit(code)), and CUDA by Example's HandleError (book.h,
  // copied into many CUDA programs as HANDLE_ERROR: printf("%s in %s at line %d\n", cudaGetErrorString(err), file, line), then
  // exit(EXIT_FAILURE); "out of memory in ./src/solver.cu at line 88"): a failure that ends the process.
  // The miners' check (MINER_CHECK_FILE, GPU_N_ASSERT) is the same idiom with the device in front: it exits on the status.
  const minerCheck = (GPU_PREFIX.test(text) && MINER_CHECK_FILE.test(line.next(1) ?? '')) || GPU_N_ASSERT.test(text);
  const gpuAssert = GPU_ASSERT.test(text) || HANDLE_ERROR.test(text) || minerCheck;
  if ((!FAILURE_WORDS.test(text) && !luaError && !continued && !gpuAssert && !atEnd) || (hedge && !(stated && stated.index < hedge.index && !/warn|\bW\d{4} |: W \S/i.test(text)))) return undefined;
  let aborts = (ABORTS_HERE.test(text) && !RAISED_CHECK.test(text)) || gpuAssert;
  if (!aborts && (endsProcessAfter(line, 4) || thrownUncaught(line))) aborts = true;
  // MuJoCo's default error handler (mju_error without a user handler: "ERROR: mj_…", then "Press Enter to exit ...", then
  // exit(1)); not a script's own input("Press Enter to exit") after an exception it caught.
  for (let k = 1; k <= 4 && !aborts && /^\s*ERROR: mj\w*: /.test(text); k++) aborts = /^\s*Press Enter to exit\b/.test(line.next(k) ?? '');
  const numbers: Finding['numbers'] = {};
  const req = REQUEST.exec(text);
  // TensorFlow 1.x's Eigen allocator (common_runtime/gpu/gpu_device.cc: LOG(FATAL) << "EigenAllocator for GPU ran out of memory
  // when allocating " << num_bytes << ". See error logs …") prints the bytes without a unit.
  const eigen = EIGEN_ALLOCATOR.exec(text);
  const sized = SIZED_ALLOCATION_FAILED.exec(text);
  const named = ALLOC_FAILED_FOR.exec(text);
  const requested = sized ? Number(sized[1]) : named ? toBytes(named[1]!, named[2]!) : req ? toBytes(req[1]!, req[2]!) : eigen ? Number(eigen[1]) : undefined;
  if (requested !== undefined) numbers.requestedBytes = requested;
  const tvm = TVM_STORAGE.exec(text);
  if (tvm) Object.assign(numbers, { requestedBytes: Number(tvm[1]), allowedBytes: Number(tvm[2]) });
  const arena = MUJOCO_ARENA.exec(line.next(1) ?? '');
  if (arena && /\bmj_stackAlloc\b/.test(text)) Object.assign(numbers, { requestedBytes: Number(arena[3]), freeBytes: Number(arena[2]) });
  setSizes(numbers, DRIVER_REPORT.exec(text), ['freeBytes', 'deviceTotalBytes']);
  // Android ART's heap (art/runtime/gc/heap.cc ThrowOutOfMemoryError: "Failed to allocate a 176 byte allocation with 504760
  // free bytes and 476KB until OOM, target footprint 268435456, growth limit 268435456"; older releases "max allowed
  // footprint N"): the request, the heap's free bytes, and the growth limit the heap may not pass (the app's heap cap).
  // Crash reporters (Bugsnag, Crashlytics, Sentry) print the exception's class on one line and its message on the next.
  const art = ART_HEAP.exec(text) ?? ART_HEAP.exec(line.next(1) ?? '');
  if (art) Object.assign(numbers, { requestedBytes: Number(art[1]), freeBytes: Number(art[2]), ...(art[3] !== undefined && { allowedBytes: Number(art[3]) }) });
  // A failed mmap of a file or anonymous region ("unable to mmap 136 bytes from file <filename not specified>: Cannot
  // allocate memory (12)", PyTorch's MapAllocator; ENOMEM): the mapping's size is the request.
  const mmap = MMAP_FAILED.exec(text);
  const mapped = mmap ? toBytes(mmap[1]!, mmap[2]!) : undefined;
  if (mapped !== undefined && numbers.requestedBytes === undefined) numbers.requestedBytes = mapped;
  const available = AVAILABLE.exec(text);
  const free = available ? toBytes(available[1] ?? available[3]!, available[2] ?? available[4]!) : undefined;
  if (free !== undefined && numbers.freeBytes === undefined) numbers.freeBytes = free;
  let rank = line.rank;
  const bodo = BODO_BUFFER_POOL.exec(text);
  setSizes(numbers, bodo, ['processInUseBytes', 'requestedBytes', 'freeBytes'], 4);
  if (bodo) rank ??= Number(bodo[1]);
  if (/\bGPU memory is overflow\b/.test(text)) setSizes(numbers, JITTOR_TOTAL.exec(line.next(1) ?? ''), ['deviceTotalBytes']);
  const direct = JVM_DIRECT_BUFFER.exec(text);
  if (direct) Object.assign(numbers, { requestedBytes: Number(direct[1]), allocatedBytes: Number(direct[2]), allowedBytes: Number(direct[3]) });
  const mapOom = EXPANDABLE_MAP_OOM.exec(text);
  if (mapOom) Object.assign(numbers, { requestedBytes: Number(mapOom[2]), ...(mapOom[3] !== undefined && { freeBytes: Number(mapOom[3]), deviceTotalBytes: Number(mapOom[4]) }) });
  setSizes(numbers, CANNOT_RESERVE.exec(text), ['requestedBytes', 'freeBytes']);
  const buffer = BUFFER_REQUIREMENTS.exec(text);
  if (buffer) Object.assign(numbers, { requestedBytes: Number(buffer[1]), deviceTotalBytes: Number(buffer[2]) });
  // ptxas is a host program: its own allocation failure ("ptxas fatal   : Memory allocation failure") is host memory,
  // though its name is a CUDA word for other failures.
  let platform = /\bptxas\b/.test(text) ? 'cpu' : platformNear(line);
  // Memory the words say is the GPU's ("Out of GPU memory", "not enough GPU memory") is not the host's, whatever card it is.
  if (platform === 'cpu' && (/GPU memory|VRAM/i.test(m[0]) || /\w*Cuda\w*(?:Allocator|Memory)\b/.test(text))) platform = 'cuda';
  // Cambricon's MLU runtime ("[cnrtError] [50200] [Card: 0] cnrtMalloc: Malloc MLU device memory failed.", CNRT), the NPU
  // class of accelerator among Headroom's platforms.
  const mlu = /\bcnrt\w*|\bMLU\b/.test(text);
  if (mlu && platform === 'cpu') platform = 'npu';
  // Haskell Accelerate's remote-memory manager (Data.Array.Accelerate.Array.Remote.LRU, "(malloc): Remote memory exhausted"):
  // remote memory is the device's, and accelerate-llvm-ptx (NVIDIA's PTX) is the backend that uses it.
  if (platform === 'cpu' && /\bRemote memory exhausted\b/.test(text) && /Data[./]Array[./]Accelerate[./]Array[./]Remote\b/.test(text)) platform = 'cuda';
  // SGLang's scheduler running out of its KV-cache pools ("RuntimeError: Decode out of memory. Try to lower your batch size." /
  // "Prefill out of memory…", and "alloc_req_slots runs out of memory. Please set a smaller number for `--max-running-requests`",
  // sglang/srt/managers/schedule_batch.py): the pools live in the accelerator's memory, cuda when none is named, as vLLM's.
  if (platform === 'cpu' && SGLANG_POOL.test(text)) platform = 'cuda';
  // TensorFlow's OOMs (its op's status logged, or the ResourceExhaustedError raised) are the GPU's unless the lines around
  // name a device (cuda.ts's reading of "OOM when allocating tensor").
  if ((tfOpStatus || TF_EXHAUSTED_ERROR.test(text)) && platform === 'cpu' && !/\bdevice:CPU:\d|\bcpu_allocator|\bCPU\b/.test(text)) platform = 'cuda';
  // gpuAssert prints cudaGetErrorString's words: CUDA's, unless the lines around it name another platform (a HIP port).
  if (gpuAssert && platform === 'cpu') platform = 'cuda';
  // IPython's header names the type without its module ("OutOfMemoryError      Traceback (most recent call last)"): in a
  // Python notebook that is torch's (or CuPy's) device allocator exception, whose default is CUDA's (oomException.ts); a
  // host allocation failure raises MemoryError or RuntimeError instead.
  if (platform === 'cpu' && /^\s*(?:torch\.(?:cuda\.)?)?OutOfMemoryError\s*Traceback \(most recent call last\)/.test(text)) platform = 'cuda';
  // ROCm CLR logs the failed steps of one allocation (memory.cpp "Video memory allocation failed!", rocdevice.cpp) before hip_memory.cpp's summary with the sizes.
  for (let k = 0; k <= 12 && platform === 'rocm' && numbers.requestedBytes === undefined; k++) {
    const clr = CLR_ALLOC_FAILED.exec(k === 0 ? text : (line.next(k) ?? ''));
    if (clr) Object.assign(numbers, { requestedBytes: Number(clr[1]), freeBytes: Number(clr[2]), deviceTotalBytes: Number(clr[3]) });
  }
  // Miners name the device in their error ("Error on GPU0: out of memory", gminer).
  let gpu = platform !== 'cpu' ? (GPU_PREFIX.exec(text) ?? GPU_N_ASSERT.exec(text) ?? /\bError on GPU ?(\d+): /.exec(text) ?? (mlu ? /\[Card: (\d+)\]/.exec(text) : null)) : null;
  // fairseq's trainer catches the error and names the device on the next line ("| WARNING: ran out of memory on GPU #2,
  // skipping batch", multiprocessing_trainer.py, device_id).
  for (let k = 1; k <= 2 && platform === 'cuda' && !gpu; k++) gpu = FAIRSEQ_SKIP.exec(line.next(k) ?? '');
  // Caffe2's enforce on a CUDA call ("[enforce fail at context_gpu.cu:N] error == cudaSuccess. 2 vs 0. … out of memory")
  // prints the failed operator's OperatorDef under it, with its CUDA device.
  const device = gpu ? Number(gpu[1]) : mapOom ? Number(mapOom[1]) : platform === 'cuda' ? caffe2Device(line) : undefined;
  const quoted = text.trim().slice(0, 160);
  // UCX (the transport under UCC, MPI and Dask/cuDF's UCX-Py) logging its own allocation failure ("UCX  ERROR   failed to
  // allocate 536870912 bytes using md cuda_cpy for ucp_rndv_frags: Out of memory", uct_mem.c): the communication library's
  // staging buffers did not fit beside the model, the collective-OOM of NCCL's "Cuda failure 'out of memory'".
  if (/\bUCX\s+ERROR\b/.test(text)) {
    return {
      signature: 'other-out-of-memory',
      role: 'failure',
      fallback: 'oom',
      kind: 'collective-oom',
      platform,
      catchable: false,
      summary: `Collective OOM: UCX could not allocate its transfer buffers` + (requested !== undefined ? ` (${formatBytes(requested)})` : '') + ` on ${platform}`,
      explanation: `UCX, the communication library under this job's transfers, could not allocate memory for its buffers ("${quoted}"). ` +
        'Like NCCL\'s own allocations, these come from the memory the application left free; the transfer failed inside the library, not at an allocation the program made.',
      ...(rank !== undefined && { rank }),
      numbers,
      fixes: [shrinkPeak()],
    };
  }
  const frames = luaError ? luaFrames(line) : IPYTHON_OOM_HEADER.test(text) ? ipythonFrames(line) : /\bjava\.lang\.OutOfMemoryError\b/.test(text) ? jvmFrames(line) : undefined;
  return {
    signature: 'other-out-of-memory',
    role: 'failure',
    fallback: 'oom',
    kind: aborts ? 'runtime-abort' : 'catchable-oom',
    platform,
    catchable: !aborts,
    summary: `Out of memory (${m[0]})` + (requested !== undefined ? `: ${formatBytes(requested)} requested` : '') + (platform === 'cpu' ? ' in host memory' : ` on ${platform}`),
    explanation:
      `The log reports that an allocation failed for lack of memory ("${quoted}"), in a message Headroom has no specific signature for. ` +
      (aborts ? 'The process aborted on it, so nothing could catch it. ' : 'The error went back to the program, which could have caught it. ') +
      (platform === 'cpu' ? 'No accelerator is named around it, so it is taken as host memory.' : `The lines around it name ${platform}, so it is taken as that device's memory.`),
    ...(rank !== undefined && { rank }),
    ...(device !== undefined && { device }),
    numbers,
    fixes: [shrinkPeak()],
    ...(frames && frames.length > 0 && { frames }),
  };
}

/**
 * Perl's fatal out-of-memory messages (perldiag: "Out of memory!", "Out of memory during request for %s", "Out of memory
 * during "large" request for %s", "Out of memory in perl:%s"; Perl_croak_no_mem and perl's malloc.c print them and exit,
 * and only the request form can be trapped, with $^M set aside): the interpreter exits on them.
 */
const PERL_NO_MEMORY = /^\s*Out of memory(?:!|\s+during (?:"large" )?request for (\d+) bytes(?:, total sbrk\(\) is \d+ bytes!?)?|\s+in perl:\S+)\s*$/;

function perlOutOfMemory(line: LineView, requested: number | undefined): Finding {
  return {
    signature: 'other-out-of-memory',
    role: 'failure',
    fallback: 'oom',
    kind: 'runtime-abort',
    platform: 'cpu',
    catchable: false,
    summary: 'Process exited: Perl ran out of memory' + (requested !== undefined ? ` (${formatBytes(requested)} requested)` : ''),
    explanation: 'Perl could not get memory from the system and stopped the interpreter with its fatal "Out of memory" message; eval cannot catch it.',
    ...(line.rank !== undefined && { rank: line.rank }),
    numbers: requested !== undefined ? { requestedBytes: requested } : {},
    fixes: [shrinkPeak('the data the script holds in memory (read it in a stream, or in smaller pieces)')],
  };
}

/**
 * The JVM's stack trace under an exception (Throwable.printStackTrace: "\tat io.github.x.Buffer.get(Buffer.java:69)", innermost
 * first, Java 9+ with the module before a slash, "at java.base/java.util.Arrays.copyOf(Arrays.java:3537)"; "(Native Method)" and "(Unknown Source)" frames carry no line), outermost first, each file given as its package's
 * path ("io/github/x/Buffer.java") so that the JDK's and Android's own packages read as library frames.
 */
const JVM_FRAME = /^\s*at (?:[\w.-]+(?:@[\w.-]+)?\/)?((?:[\w$]+\.)+)([\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)\s*$/;

function jvmFrames(line: LineView): SourceFrame[] {
  const frames: SourceFrame[] = [];
  // A stack flattened onto the exception's own line (a paste that lost its newlines: "…OutOfMemoryError: Java heap space at
  // java.base/java.util.Arrays.copyOf(Arrays.java:3537) at org.x.Reader.read(Reader.java:41)"): its " at " pieces, in order.
  const flat = line.content.split(/\s+(?=at (?:[\w.-]+(?:@[\w.-]+)?\/)?(?:[\w$]+\.)+[\w$<>]+\()/).slice(1);
  const lines = flat.length > 0 ? flat : Array.from({ length: 60 }, (_, i) => line.next(i + 1) ?? '');
  for (const next of lines) {
    const m = JVM_FRAME.exec(next);
    if (!m) {
      if (/^\s*at \S+\((?:Native Method|Unknown Source)\)\s*$/.test(next)) continue;
      break;
    }
    const pkg = m[1]!.split('.').slice(0, -2).join('/');
    const cls = m[1]!.slice(0, -1);
    frames.unshift({ file: (pkg ? `${pkg}/` : '') + m[3], line: Number(m[4]), function: `${cls}.${m[2]}` });
  }
  return frames;
}

/** A host-memory failure the process could not catch, on the line's rank; the fix is the host's memory. */
function hostOom(line: LineView, summary: string, explanation: string, numbers: Finding['numbers']): Finding {
  return {
    signature: 'other-out-of-memory',
    role: 'failure',
    fallback: 'oom',
    kind: 'host-oom',
    platform: 'cpu',
    catchable: false,
    summary,
    explanation,
    ...(line.rank !== undefined && { rank: line.rank }),
    numbers,
    fixes: [hostMemory],
  };
}

function rayMemoryMonitor(line: LineView): Finding {
  return hostOom(
    line,
    'Host out of memory: Ray\'s memory monitor stopped a task because the node\'s memory was over its threshold (RayOutOfMemoryError)',
    'Ray\'s memory monitor checks the whole node\'s memory before each task and raises RayOutOfMemoryError when usage is over its ' +
      'threshold (95% by default), so the task fails instead of the kernel OOM killer taking a process. What filled the node is in the ' +
      'list of top memory consumers under the message: all workers, the object store and other programs together.',
    {},
  );
}

function goOutOfMemory(line: LineView, requested: number, inUse: number): Finding {
  return hostOom(
    line,
    `Host out of memory: the Go runtime could not get ${formatBytes(requested)} from the OS (${formatBytes(inUse)} of heap in use)`,
    'The Go runtime asked the operating system for more heap and was refused. It does not return that failure to the program: ' +
      'it stops the process with "fatal error: out of memory", which no recover() catches. The heap in use filled the host (or the process\'s limit).',
    { requestedBytes: requested, processInUseBytes: inUse },
  );
}

/** `\ttrain.lua:208: in function 'opfunc'`, `\tmain.lua:12: in main chunk`: one frame of Lua's stack traceback. */
const LUA_FRAME = /^\s*(\S+\.lua):(\d+): in (?:function '([^']*)'|(main chunk)|function <[^>]*>)/;
/** Lua's own libraries and rocks (Torch7's nn, optim, trepl), C functions, and paths Lua shortened with "...". */
const LUA_LIBRARY = /\/share\/lua\/|\/lib\/luarocks\/|^\.\.\./;

/** IPython's header of an out-of-memory exception ("OutOfMemoryError   Traceback (most recent call last)"), its frames printed under it. */
const IPYTHON_OOM_HEADER = /^\s*(?:[A-Za-z_]\w*\.)*\w*(?:OutOfMemory|ResourceExhausted)\w*?\s*Traceback \(most recent call last\)/;


/** The frames of Lua's "stack traceback:" list, `header` lines below the line (innermost last, as Python's). */
export function luaFrames(line: LineView, header = 1): SourceFrame[] {
  const frames: SourceFrame[] = [];
  for (let k = header + 1; k <= header + 40; k++) {
    const next = line.next(k);
    if (next === undefined || !/^\s/.test(next)) break;
    const m = LUA_FRAME.exec(next);
    if (m && !LUA_LIBRARY.test(m[1]!)) frames.push({ file: m[1]!, line: Number(m[2]), function: m[3] ?? m[4] ?? '' });
  }
  return frames.reverse();
}

/**
 * What an allocator prints only after a failed allocation, when the log kept that and lost the
 * out-of-memory line itself (an excerpt cut at it): TensorFlow's BFC allocator's "Stats:" block
 * (BFCAllocator::DumpMemoryLog, bfc_allocator.cc: "Limit:" = the allocator's limit, "InUse:" = bytes
 * in use) and XLA/TensorFlow's cudaMallocAsync allocator's histogram (GpuCudaMallocAsyncAllocator::
 * PrintAllocatorStatisticsNoLock logs "size, count" lines at ERROR after cuMemAllocFromPoolAsync
 * fails). The BFC dump's chunk map alone counts too, when an excerpt kept only part of it ("Bin (256): Total Chunks: …",
 * "InUse at 70c416200 of size 256 next 1440", TensorFlow 1.x's "Chunk at 0x705ba0000 of size 1280", "Free  at … of size …", "Summary of in-use Chunks by size"): DumpMemoryLog runs
 * only on a failure that dumps, never on the "not a failure" warning. A catchable-oom fallback: the OOM message, where the
 * log has it, is the verdict instead.
 */
const BFC_CHUNK_MAP = /bfc_allocator\.cc:\d+\] (?:(?:InUse|Free|Chunk) +at [0-9a-fA-Fx]+ (?:next -?\d+ )?of size \d+|Bin \(\d+\):\s+Total Chunks: \d+|Summary of in-use Chunks by size:|Sum Total of in-use chunks: )/;
export const allocatorDump: Signature = {
  id: 'allocator-failure-dump',
  platform: 'cuda',
  needles: ['bfc_allocator.cc', 'cudamallocasync_allocator.cc'],
  match(line) {
    const text = line.content;
    const bfc = /bfc_allocator\.cc:\d+\] Stats:\s*$/.test(text);
    // The line DumpMemoryLog prints before "Stats:" ("total_region_allocated_bytes_: 140181504 memory_limit_: 140181504 available
    // bytes: 0 curr_region_allocation_bytes_: 280363008"): the regions the allocator took from the device and its limit.
    const regions = bfc ? null : /bfc_allocator\.cc:\d+\] total_region_allocated_bytes_: (\d+) memory_limit_: (\d+)\b/.exec(text);
    const async = !bfc && !regions && /^\s*E\d{4} [\d:.]+\s+\d+ gpu_cudamallocasync_allocator\.cc:\d+\] (?:\d+, \d+\s*$|Histogram of current allocation)/.test(text);
    // One finding for a run of chunk-map lines: its first line.
    const chunks = !bfc && !regions && !async && BFC_CHUNK_MAP.test(text) && !BFC_CHUNK_MAP.test(line.previous(1) ?? '');
    if (!bfc && !regions && !async && !chunks) return undefined;
    // With the "Stats:" block under it, that block is the dump's reading.
    if (regions && [1, 2, 3].some((k) => /bfc_allocator\.cc:\d+\] Stats:\s*$/.test(line.next(k) ?? ''))) return undefined;
    const numbers: Finding['numbers'] = regions ? { reservedBytes: Number(regions[1]), allowedBytes: Number(regions[2]) } : {};
    if (bfc) {
      for (let k = 1; k <= 6; k++) {
        const next = line.next(k) ?? '';
        const limit = /^\s*Limit:\s+(\d+)\s*$/.exec(next);
        const inUse = /^\s*InUse:\s+(\d+)\s*$/.exec(next);
        if (limit) numbers.allowedBytes = Number(limit[1]);
        if (inUse) numbers.allocatedBytes = Number(inUse[1]);
      }
    }
    const platform = /\bXPU\b/.test(text) ? 'xpu' : 'cuda';
    return {
      signature: 'allocator-failure-dump',
      role: 'failure',
      fallback: 'oom',
      kind: 'catchable-oom',
      platform,
      catchable: true,
      summary: bfc || regions || chunks ? "TensorFlow's BFC allocator dumped its state after a failed allocation" : "The cudaMallocAsync allocator dumped its allocations after a failed allocation",
      explanation:
        (bfc || regions || chunks
          ? 'TensorFlow\'s BFC allocator prints its chunk map and "Stats:" only when an allocation fails' +
            (numbers.allowedBytes !== undefined ? ` (limit ${formatBytes(numbers.allowedBytes)}, in use ${formatBytes(numbers.allocatedBytes ?? 0)})` : '') +
            '; '
          : 'XLA\'s cudaMallocAsync allocator logs its allocation histogram only when cuMemAllocFromPoolAsync fails; ') +
        'the out-of-memory message itself is not in this log, so the request size is unknown. The framework raised it as an exception the program could catch.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers,
      fixes: [shrinkPeak()],
    };
  },
};

/**
 * TensorFlow appends this hint to the ResourceExhausted statuses of an out-of-memory error (the
 * session's and XRT's, torch_xla's XRT era): "Hint: If you want to see a list of allocated tensors
 * when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation
 * info." When an excerpt kept the hint and lost the status line above it, the hint still says the
 * run ran out of memory. `[[{{node XRTCompile}}]]` or a TPU named nearby = xla-tpu (XRT is the TPU
 * runtime); else the platform around it. A fallback: a status line a signature reads wins.
 */
export const tfOomHint: Signature = {
  id: 'tensorflow-oom-hint',
  platform: 'cuda',
  needles: ['allocated tensors when OOM happens'],
  match(line) {
    // Also behind the glog prefix torch_xla's XRT client logs the status with, one line per line of it ("2020-11-06
    // 09:05:12.060282: E    1335 tensorflow/compiler/xla/xla_client/xla_util.cc:76] Hint: …", xla_util.cc ReportComputationError).
    if (!/^(?:\s*|.*\.cc:\d+\]\s*)Hint: If you want to see a list of allocated tensors when OOM happens/.test(line.content)) return undefined;
    let platform = platformNear(line, 12, 2);
    for (let k = 1; k <= 4; k++) if (/\bXRT\w*|\bTPU\b/.test(line.previous(k) ?? '')) platform = 'xla-tpu';
    return {
      signature: 'tensorflow-oom-hint',
      role: 'failure',
      fallback: 'oom',
      kind: 'catchable-oom',
      platform,
      catchable: true,
      summary: `Out of memory (TensorFlow's ResourceExhausted hint; the status line with the sizes is not in the log)`,
      explanation:
        'TensorFlow adds the report_tensor_allocations_upon_oom hint only to an out-of-memory ResourceExhausted error; the error itself was cut from this log, so its sizes are unknown. ' +
        'It is raised as an exception the program could catch.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [shrinkPeak()],
    };
  },
};

/**
 * Out-of-memory messages of libraries no platform file covers, each read from its producer's wording
 * (a catchable-oom fallback, or runtime-abort where the producer aborts):
 * - GNU MP's allocation failure (gmp memory.c, then abort()): "GNU MP: Cannot allocate memory (size=N)";
 * - MLX's Metal allocator (mlx/backend/metal/allocator.cpp, std::runtime_error): "[malloc_or_wait] Unable
 *   to allocate N bytes." (later "[metal::malloc] Unable to allocate N bytes"), an abort when libc++ says
 *   the exception was uncaught;
 * - NPP's NPP_MEMORY_ALLOCATION_ERR, as managedCuda's NPPException words it ("Device allocation error");
 * - TensorFlow's BFC allocator failing an allocation (bfc_allocator.cc: "Allocator (GPU_0_bfc) ran out of
 *   memory trying to allocate 765.00MiB (rounded to 802160640)requested by op …"), not its "The caller
 *   indicates that this is not a failure" variant; the request is the rounded size, the device GPU_N; TensorFlow 1.x's
 *   "… trying to allocate 2.43MiB.  Current allocation summary follows." without the rounded size;
 * - vLLM's startup check (vllm/v1/worker/gpu_worker.py, a ValueError): "Free memory on device (8.0/64.0
 *   GiB) on startup is less than desired GPU memory utilization (0.9, 57.6 GiB)".
 */
/**
 * The BFC allocator's warning that a request it could retry smaller did not fit ("Allocator (GPU_0_bfc) ran out of memory
 * trying to allocate 2.10GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there
 * could be performance gains if more memory were available."): no failure, said of one device. Noted as not-oom on that
 * device, for a log with nothing else in it; any failure the log shows, and the tail pass's reading, speak instead.
 */
const BFC_NOT_A_FAILURE = /Allocator \((GPU|gpu|XPU|xpu)_(\d+)_bfc\) ran out of memory trying to allocate [^.]*(?:\.\d+[^.]*)?\. The caller indicates that this is not a failure\b/;
function bfcShortWarning(line: LineView, kind: string, device: number): Finding {
  return {
    signature: 'tensorflow-bfc-warning',
    role: 'failure',
    fallback: 'noted-oom',
    kind: 'not-oom',
    platform: /xpu/i.test(kind) ? 'xpu' : 'cuda',
    catchable: false,
    summary: `Not a failure: TensorFlow's allocator (${kind}_${device}_bfc) warned that a request did not fit, and went on`,
    explanation:
      'TensorFlow says so itself ("The caller indicates that this is not a failure"): the operation that asked can work with less memory and did. ' +
      'Only speed may suffer. If the run did fail, the failure is elsewhere in its output.',
    device,
    ...(line.rank !== undefined && { rank: line.rank }),
    numbers: {},
    fixes: [{ id: 'tf-allow-growth', title: 'If speed matters, leave TensorFlow more of the device: no other process on it, or a larger card', rationale: 'The warning means a faster algorithm needed more memory than was free.' }],
  };
}
const GMP = /GNU MP: Cannot allocate memory \(size=(\d+)\)/;
const MLX = /\[(?:malloc_or_wait|metal::malloc)\] Unable to allocate (\d+) bytes/;
/** MLX's allocator over Metal's limit on the number of live buffers ("[metal::malloc] Resource limit (499000) exceeded."): a refused allocation with no size. */
const MLX_RESOURCE_LIMIT = /\[metal::malloc\] Resource limit \(\d+\) exceeded/;
const NPP = /\bNPP_MEMORY_ALLOCATION_ERR\b|\bDevice allocation error\b/;
const BFC = /Allocator \((GPU|gpu|XPU|xpu)_(\d+)_bfc\) ran out of memory trying to allocate (?:[\d.]+\s?\w+ \(rounded to (\d+)\)|([\d.]+)\s?(B|KiB|MiB|GiB|TiB)\.\s+Current allocation summary follows)/;
/**
 * vLLM's KV-cache budget checks, raised as ValueError when the engine starts: no memory left for the cache blocks after the
 * weights and the profiled activations ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when
 * initializing the engine.", vllm/worker/worker.py raise_if_cache_size_invalid and v1/core/kv_cache_utils.py
 * check_enough_kv_cache_memory; the CPU backend names VLLM_CPU_KVCACHE_SPACE), and v1's "To serve at least one request with the
 * model's max seq len (N), 3.05 GiB KV cache is needed, which is larger than the available KV cache memory (2.17 GiB)" (the need
 * as the request, the budget left as the free bytes). Also as the raise statement a traceback cut before its exception line
 * ends on.
 */
const ALLOCATOR_HINT_TAIL = /max_split_size_mb to avoid fragmentation\.\s+See documentation for Memory Management\b/;
const VLLM_NO_CACHE_BLOCKS = /\bNo available memory for the cache blocks\b/;
/** SGLang's check of the same budget (model_runner.py): "Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.88." */
const SGLANG_NO_KV_MEMORY = /\bleave no GPU memory for the KV cache\b/;
/**
 * The same check before v1 (worker.py's raise_if_cache_size_invalid): "The model's max seq len (4096) is larger than the maximum
 * number of tokens that can be stored in KV cache (3664). Try increasing gpu_memory_utilization or decreasing max_model_len …".
 * Its numbers are tokens, not bytes; its needle is the setting it names, the message's only prefilter anchor ("emory").
 */
const VLLM_KV_TOKENS = /\bmax seq len \(\d+\) is larger than the maximum number of tokens that can be stored in KV cache\b/;
const VLLM_KV_NEEDED = /\b([\d.]+) GiB KV cache is needed, which is larger than the available KV cache memory \(([\d.]+) GiB\)/;
const VLLM_FREE = /Free memory on device (?:(cuda|xpu|npu|hpu):(\d+) )?\(([\d.]+)\/([\d.]+) GiB\) on startup is less than desired\s+GPU memory utilization \(([\d.]+), ([\d.]+) GiB\)/;
/**
 * Faiss's GPU allocations (faiss/gpu/StandardGpuResources.cpp, utils/MemorySpace.cpp, utils/StackDeviceMemory.cpp). A failed
 * cudaMalloc under FAISS_THROW_FMT comes back to Python as RuntimeError ("Error in … faiss::gpu::StandardGpuResourcesImpl::
 * allocMemory(…) at …: Error: 'err == cudaSuccess' failed: Failed to cudaMalloc 536870912 bytes on device 1 (error 2 out of
 * memory", or "StandardGpuResources: alloc fail type IVFLists dev 0 space Device stream 0x… size 606208 bytes (cudaMalloc error
 * out of memory [2])"); under FAISS_ASSERT it aborts ("Faiss assertion 'cudaMalloc(p, size) == cudaSuccess' failed in …
 * allocMemorySpace …; details: Failed to cudaMalloc 16000000000 bytes", "Faiss assertion 'err == cudaSuccess' failed in …
 * StackDeviceMemory::Stack::Stack(int, size_t)", older builds without the quotes). The asserts are read as memory failures only in the allocating functions.
 */
const FAISS_ALLOC = /\bfaiss::gpu::(?:\w+::)*(?:allocMemory\w*|getAlloc)\b|\bStackDeviceMemory::Stack::(?:Stack|getAlloc)\b|\b[Ff]ailed to cudaMalloc \d+ bytes|\balloc fail type \w+ dev \d+/;
const FAISS_FAILED_CUDA = /'?(?:err == cudaSuccess|cudaMalloc\([^')]{0,80}\) == cudaSuccess)'? failed|\b[Ff]ailed to cudaMalloc \d+ bytes|\(cudaMalloc error out of memory/;
const FAISS_SIZE = /\b[Ff]ailed to cudaMalloc (\d+) bytes(?: on device (\d+))?|\balloc fail type \w+ dev (\d+) space \w+ stream \S+ size (\d+) bytes/;
/**
 * ggml's fixed memory pools (llama.cpp and its 2023 forks: privateGPT, gpt4all, localGPT): "ggml_new_tensor_impl: not enough
 * space in the context's memory pool (needed 18682928, available 10485760)" (or "the scratch memory pool"). ggml printed it and
 * returned NULL where its assert was compiled out, so the process crashes right after (a segfault); and "GGML_ASSERT: ggml.c:4411:
 * ctx->mem_buffer != NULL", the context's buffer that malloc did not give. Both pools are host memory.
 */
/**
 * The RAPIDS Accelerator for Spark's retry framework (spark-rapids-jni: com.nvidia.spark.rapids.jni.SplitAndRetryOOM,
 * RetryOOM, GpuRetryOOM, GpuSplitAndRetryOOM): "SplitAndRetryOOM: GPU OutOfMemory: could not split inputs and retry" when the
 * GPU task could not shrink its input any further; the task fails with it and Spark may retry the task. Its other messages ("RetryOOM:
 * task should retry operation", "SplitAndRetryOOM: Attempted to handle a split, but was not initial…") name no memory: the
 * class's full name says what ran out (Cpu… for host memory, else the GPU's).
 */
const SPARK_RAPIDS_OOM = /\b(?:Gpu|Cpu)?(?:SplitAndRetry|Retry)OOM: (GPU|CPU) OutOfMemory\b|\bcom\.nvidia\.spark\.rapids\.jni\.(Cpu)?(?:Gpu)?(?:SplitAndRetry|Retry)OOM: /;
/**
 * ggml's backend buffers (ggml-backend.c, ggml-alloc.c): "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of
 * size 137438953504" (the backend's allocator returned NULL) and "ggml_gallocr_reserve_n: failed to allocate CPU buffer of size
 * 84940800"; llama.cpp then fails to create the context and returns the error to its caller. The backend names the memory.
 */
/** Whether a server says it is up within the next 40 lines (llama.cpp's "HTTP server is listening", "server listening at"). */
function serverWentOn(line: LineView): boolean {
  for (let k = 1; k <= 40; k++) {
    const next = line.next(k);
    if (next === undefined) return false;
    if (/\b(?:server|HTTP server) (?:is )?listening\b|\blistening (?:at|on) https?:/i.test(next)) return true;
  }
  return false;
}
const GGML_BUFFER = /\bggml_backend_(\w+?)_buffer_type_alloc_buffer: failed to allocate buffer of size (\d+)|\bggml_gallocr_reserve_n: failed to allocate (\w+) buffer of size (\d+)/;
/** ggml's graph allocator of 2023 ("ggml_allocr_alloc: not enough space in the buffer (needed 442368, largest block available 290848)"), then its assert. */
const GGML_ALLOCR = /\bggml_allocr_alloc: not enough space in the buffer \(needed (\d+), largest block available \d+\)/;
/**
 * vLLM's profile leaving less than nothing for the KV cache ("Available KV cache memory: -2.14 GiB", gpu_worker.py): the weights
 * and the profiled activations already exceed gpu_memory_utilization; the engine then fails to start.
 */
const VLLM_NEGATIVE_KV = /\bAvailable KV cache memory: -[\d.]+ GiB/;
/** Whether the engine fails to start within the next 20 lines, with no other failure (a crash, another exception) first. */
function vllmFailsToStartAfter(line: LineView): boolean {
  for (let k = 1; k <= 20; k++) {
    const next = line.next(k);
    if (next === undefined) return false;
    if (/Segmentation fault|Fatal Python error|\b(?!Value)[A-Z]\w*(?:Error|Exception): /.test(next)) return false;
    if (/EngineCore failed to start|Engine core initialization failed|No available memory for the cache blocks/.test(next)) return true;
  }
  return false;
}
/**
 * A server's own check before it runs a request ("Prompt (138254 tokens) requires ~28903MB GPU memory but only ~28745MB
 * available", mlx-serve): the request and what was free.
 */
const REQUIRES_BUT_AVAILABLE = new RegExp(String.raw`\brequires ~?${SIZE} (?:of )?(GPU |device )?memory,? but only ~?${SIZE} (?:is )?available`);
/**
 * TensorFlow's StreamExecutor refusing an allocation over its memory limit (stream_executor_pimpl.cc, logged at warning level
 * as it returns null: "Not enough memory to allocate 31614597888 on device 0 within provided limit. [used=0, limit=1073741824]"):
 * the request, the device and the limit.
 */
const TF_PROVIDED_LIMIT = /\bNot enough memory to allocate (\d+) on device (\d+) within provided limit\. \[used=(\d+), limit=(\d+)\]/;
const GGML_POOL = /\bnot enough space in the (?:context's|scratch) memory pool \(needed (\d+), available (\d+)\)/;
/**
 * PHP's fatal errors for its memory manager (Zend/zend_alloc.c: "Allowed memory size of 134217728 bytes exhausted (tried to
 * allocate 20480 bytes)" at memory_limit, "Out of memory (allocated 2097152) (tried to allocate 110592 bytes)" when the OS
 * refused): a fatal error ends the script, nothing catches it.
 */
const PHP_MEMORY = /\bFatal error: +(?:Allowed memory size of (\d+) bytes exhausted(?: \(allocated (\d+)\))?|Out of memory \(allocated (\d+)\)) \(tried to allocate (\d+) bytes\)/;
const GGML_NO_BUFFER = /\bGGML_ASSERT: \S+: ctx->mem_buffer != NULL\b/;
/** ggml's backend buffer asserted after its allocator returned NULL (ggml-backend.c: 'GGML_ASSERT: …: data != NULL && "failed to allocate buffer"'): abort. */
const GGML_BUFFER_ASSERT = /\bGGML_ASSERT: \S+: .*"failed to allocate buffer"/;
/** Rockchip's media buffer allocator (ModelBox's rockchip_memory.cc: "Malloc mpp buffer fail, size = 67108864"). */
const ROCKCHIP_MPP = /\bMalloc mpp buffer fail, size = (\d+)/;
/**
 * torch_memory_saver's check of a CUDA or HIP driver call (its CURESULT_CHECK prints "[torch_memory_saver.cpp] CUresult error
 * result=2 file=… func=cu_mem_create line=…" and exits): status 2 is out of memory in both APIs (CUDA_ERROR_OUT_OF_MEMORY,
 * hipErrorOutOfMemory).
 */
const MEMORY_SAVER_OOM = /\[torch_memory_saver\.cpp\] (CUresult|hipError_t) error\s+result=2\b/;
/**
 * PyTorch's memory_summary() table, which programs print after catching an OOM (fairseq): its "CUDA OOMs: N" counts the
 * allocator's OutOfMemoryErrors in this process. N > 0 says one happened; the program may have recovered.
 */
const SUMMARY_OOMS = /\bCUDA OOMs: ([1-9]\d*)\b/;
/** cuML's check before a kernel that needs a workspace (raft): "Not enough free memory on device 0 to run kneighbors. needed=8589934592, free=7744913408". */
const NOT_ENOUGH_FREE_ON_DEVICE = /\bNot enough free memory on device (\d+) to run [\w.]+\. needed=(\d+), free=(\d+)/;
/**
 * CatBoost's GPU memory pool (catboost/cuda/cuda_lib/memory_pool/stack_like_memory_pool.h, NCudaLib::TOutOfMemoryError):
 * "Error: Out of memory. Requested 8880 MB; Free 5902.061425 MB" (older releases print the numbers, in MB, without the unit).
 * It escapes CatBoost's training loop: Yandex's util prints "uncaught exception:" with its "what() ->" and "type ->" lines
 * and aborts, or the CLI says "Application terminated with error:"; a Python caller gets a CatBoostError instead.
 */
const CATBOOST_OOM = /\bError: Out of memory\. Requested ([\d.]+)(?: ?MB)?; Free ([\d.]+)(?: ?MB)?/;
/**
 * Rockchip's NPU runtime (librknnrt, RKLLM): "E RKNN: failed to malloc npu memory!, size: 59187712, flags: 0x2" when the
 * NPU's memory (carved from the board's DRAM by its driver) has no room, and the Python toolkit's "RKNN init failed. error
 * code: RKNN_ERR_MALLOC_FAIL". rknn_init returns the error; a program that goes on with the handle crashes.
 */
const RKNN_MALLOC = /\bfailed to malloc npu memory!?,? size: (\d+)|\bRKNN_ERR_MALLOC_FAIL\b/;
/**
 * AWS Neuron's runtime driver (Trainium, Inferentia) failing to allocate: "[TDRV:dmem_alloc] Failed to alloc DEVICE memory:
 * 4194304" (HOST memory likewise), under NRTD's NERR_RESOURCE when a model is loaded, and "TDRV:dma_ring_allocate No more pages
 * for ring type: 1" (the DMA rings' memory). The load fails with the error returned to the framework. Newer runtimes log it in
 * columns ("ERROR  TDRV:dmem_alloc_internal      Failed to alloc DEVICE memory: 180355072").
 */
const NEURON_DMEM = /\[?TDRV:dmem_alloc\w*\]?\s+Failed to alloc (DEVICE|HOST) memory: (\d+)/;
const NEURON_DMA_RING = /\bTDRV:dma_ring_allocate\b.*\bNo more pages\b/;
/** Theano's old GPU backend (cuda_ndarray.cu): "CudaNdarray_ZEROS: allocation failed." when device_malloc returned NULL, raised as RuntimeError/MemoryError. */
const THEANO_CUDANDARRAY = /\bCudaNdarray_\w+: allocation failed\b/;

export const namedOom: Signature = {
  id: 'named-out-of-memory',
  platform: 'cpu',
  needles: ['GNU MP: Cannot allocate memory', 'Unable to allocate', 'NPP_MEMORY_ALLOCATION_ERR', 'Device allocation error', 'ran out of memory trying to allocate', 'Free memory on device ', 'memory for the cache blocks', 'no GPU memory for the KV cache', 'available KV cache memory', 'gpu_memory_utilization', 'documentation for Memory Management',
    'allocMemory', 'DeviceMemory::Stack', 'ailed to cudaMalloc', 'alloc fail type', 'memory pool (needed', 'GGML_ASSERT', 'Allowed memory size of', 'Out of memory (allocated', 'RetryOOM: ', 'failed to allocate buffer of size', 'ggml_gallocr_reserve_n: failed', 'ggml_allocr_alloc: not enough', 'Available KV cache memory: -', 'memory but only', 'memory, but only', 'Not enough memory to allocate', 'allocation failed.', 'Error: Out of memory. Requested', 'malloc npu memory', 'RKNN_ERR_MALLOC_FAIL', 'Failed to alloc DEVICE memory', 'Failed to alloc HOST memory', 'dma_ring_allocate', 'Not enough free memory on device', 'Malloc mpp buffer fail', '[torch_memory_saver.cpp]', 'CUDA OOMs: ', '[metal::malloc] Resource limit'],
  match(line) {
    const text = line.content;
    const finding = (what: string, platform: Platform, aborts: boolean, numbers: Finding['numbers']): Finding => ({
      signature: 'other-out-of-memory',
      role: 'failure',
      fallback: 'oom',
      kind: aborts ? 'runtime-abort' : 'catchable-oom',
      platform,
      catchable: !aborts,
      summary: `Out of memory: ${what}` + (numbers.requestedBytes !== undefined ? ` (${formatBytes(numbers.requestedBytes)} requested)` : ''),
      explanation:
        `The log reports that ${what}. ` +
        (aborts ? 'The process aborted on it, so nothing could catch it.' : 'The error went back to the program, which could have caught it.'),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers,
      fixes: [shrinkPeak()],
    });
    // Only CUDA's out-of-memory status (2): "(error 100 no CUDA-capable device is detected" is another failure, read as such.
    if (FAISS_ALLOC.test(text) && FAISS_FAILED_CUDA.test(text) && !/\(error (?!2\b)\d+\b/.test(text)) {
      const size = FAISS_SIZE.exec(text);
      const requested = size?.[1] ?? size?.[4];
      const device = size?.[2] ?? size?.[3];
      const aborts = /\bFaiss assertion\b/.test(text);
      const f = finding("Faiss's GPU resources could not cudaMalloc device memory", 'cuda', aborts, requested !== undefined ? { requestedBytes: Number(requested) } : {});
      return device !== undefined ? { ...f, device: Number(device) } : f;
    }
    const buffer = GGML_BUFFER.exec(text);
    if (buffer && !serverWentOn(line)) {
      const backend = (buffer[1] ?? buffer[3]!).toLowerCase();
      // CUDA_Host is pinned host memory.
      const platform: Platform = backend === 'cpu' || backend === 'cuda_host' ? 'cpu' : backend.startsWith('cuda') ? 'cuda' : backend === 'metal' ? 'mps' : devicePlatformNear(line);
      return finding(`ggml could not allocate a ${backend.toUpperCase()} buffer`, platform, false, { requestedBytes: Number(buffer[2] ?? buffer[4]) });
    }
    const allocr = GGML_ALLOCR.exec(text);
    if (allocr) return finding("ggml's graph allocator had no block large enough in its buffer", 'cpu', true, { requestedBytes: Number(allocr[1]) });
    if (VLLM_NEGATIVE_KV.test(text) && vllmFailsToStartAfter(line)) return finding("vLLM's weights and profiled activations left less than nothing for the KV cache", devicePlatformNear(line), false, {});
    const requires = REQUIRES_BUT_AVAILABLE.exec(text);
    // A warning, advice or a note of what the program did instead ("…; offloading layers to CPU") is no failure.
    if (requires && !NOT_A_FAILURE.test(text) && !WENT_ON_INSTEAD.test(text) && !/\b(?:INFO|Tip|Consider)\b/i.test(text)) {
      const requested = toBytes(requires[1]!, requires[2]!);
      const free = toBytes(requires[4]!, requires[5]!);
      return finding('the request needs more memory than is available', requires[3] !== undefined ? devicePlatformNear(line) : platformNear(line), false, {
        ...(requested !== undefined && { requestedBytes: requested }),
        ...(free !== undefined && { freeBytes: free }),
      });
    }
    const limited = TF_PROVIDED_LIMIT.exec(text);
    // A warning TensorFlow logs as it refuses the allocation, which its allocator may retry smaller: a noted OOM, the verdict
    // only where nothing else in the log failed.
    if (limited) return { ...finding("TensorFlow's StreamExecutor refused an allocation over its memory limit", devicePlatformNear(line), false, { requestedBytes: Number(limited[1]), allowedBytes: Number(limited[4]) }), device: Number(limited[2]), fallback: 'noted-oom' };
    const spark = SPARK_RAPIDS_OOM.exec(text);
    // The retry framework catches these and retries (logged at INFO/DEBUG while it splits the input); only when one reaches
    // Spark as the task's failure ("Lost task … : com.nvidia.spark.rapids.jni.SplitAndRetryOOM: …", an ERROR, the exception's
    // own line) did the task fail.
    if (spark && !/\b(?:INFO|DEBUG)\b|\bretrying\b|\bsplitting input\b/.test(text) && /\bLost task\b|\bERROR\b|(?:^\s*|\bCaused by: )(?:[a-z]\w*\.)+\w*OOM: /.test(text)) {
      const memory = spark[1] ?? (spark[2] ? 'CPU' : 'GPU');
      return finding(`the RAPIDS Accelerator for Spark could not fit a task in ${memory} memory even after splitting its input`, memory === 'GPU' ? 'cuda' : 'cpu', false, {});
    }
    const php = PHP_MEMORY.exec(text);
    if (php) {
      const allocated = php[2] ?? php[3];
      return finding(php[1] !== undefined ? "PHP's script reached its memory_limit" : 'PHP could not get memory from the system', 'cpu', true, {
        requestedBytes: Number(php[4]),
        ...(php[1] !== undefined && { allowedBytes: Number(php[1]) }),
        ...(allocated !== undefined && { allocatedBytes: Number(allocated) }),
      });
    }
    const pool = GGML_POOL.exec(text);
    if (pool) return finding(`ggml's ${/scratch/.test(text) ? 'scratch' : 'context'} memory pool was too small for a tensor`, 'cpu', true, { requestedBytes: Number(pool[1]), freeBytes: Number(pool[2]) });
    const catboost = CATBOOST_OOM.exec(text);
    if (catboost && /\bTOutOfMemoryError\b|catboost\/cuda\//.test(text)) {
      // One report: the first of its lines (the what() line repeats the message).
      if (/^\s*what\(\) -> /.test(text) && /\bTOutOfMemoryError\b|stack_like_memory_pool/.test([1, 2, 3, 4].map((k) => line.previous(k) ?? '').join('\n'))) return undefined;
      const around = [-4, -3, -2, -1, 1, 2, 3, 4, 5].map((k) => (k < 0 ? line.previous(-k) : line.next(k)) ?? '').join('\n') + '\n' + text;
      const aborts = /\buncaught exception:|^\s*what\(\) -> |\bApplication terminated with error\b/m.test(around);
      const withUnit = /Requested [\d.]+ ?MB; Free [\d.]+ ?MB/.test(text);
      return finding("CatBoost's GPU memory pool could not fit the request", 'cuda', aborts, withUnit ? { requestedBytes: toBytes(catboost[1]!, 'MB'), freeBytes: toBytes(catboost[2]!, 'MB') } : {});
    }
    const neuron = NEURON_DMEM.exec(text);
    if (neuron) return finding(`AWS Neuron's runtime could not allocate ${neuron[1] === 'HOST' ? 'host' : 'device'} memory`, neuron[1] === 'HOST' ? 'cpu' : 'npu', false, { requestedBytes: Number(neuron[2]) });
    if (NEURON_DMA_RING.test(text)) return finding("AWS Neuron's runtime had no memory left for a DMA ring", 'npu', false, {});
    const rknn = RKNN_MALLOC.exec(text);
    if (rknn) {
      const crashed = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].some((k) => /Segmentation fault|\bSIGSEGV\b|Aborted \(core dumped\)/.test(line.next(k) ?? ''));
      return finding("Rockchip's NPU runtime could not allocate NPU memory", 'npu', crashed, rknn[1] !== undefined ? { requestedBytes: Number(rknn[1]) } : {});
    }
    if (THEANO_CUDANDARRAY.test(text)) return finding("Theano's GPU backend could not allocate a CudaNdarray", 'cuda', false, {});
    if (GGML_NO_BUFFER.test(text)) return finding("ggml could not allocate its context's buffer (malloc returned NULL)", 'cpu', true, {});
    if (GGML_BUFFER_ASSERT.test(text)) return finding('ggml could not allocate a backend buffer and asserted', platformNear(line), true, {});
    const mpp = ROCKCHIP_MPP.exec(text);
    if (mpp) return finding('Rockchip\'s media buffer allocator could not allocate a buffer', 'cpu', false, { requestedBytes: Number(mpp[1]) });
    const saver = MEMORY_SAVER_OOM.exec(text);
    if (saver) return finding('torch_memory_saver: the driver could not allocate device memory (status 2) and the check exited', saver[1] === 'hipError_t' ? 'rocm' : 'cuda', true, {});
    if (SUMMARY_OOMS.test(text)) return { ...finding('PyTorch\'s memory summary counts an out-of-memory error in this process (CUDA OOMs)', devicePlatformNear(line), false, {}), fallback: 'noted-oom' };
    const notEnoughFree = NOT_ENOUGH_FREE_ON_DEVICE.exec(text);
    if (notEnoughFree) {
      return { ...finding('Not enough free device memory for the operation\'s workspace', devicePlatformNear(line), false, { requestedBytes: Number(notEnoughFree[2]), freeBytes: Number(notEnoughFree[3]) }), device: Number(notEnoughFree[1]) };
    }
    const gmp = GMP.exec(text);
    if (gmp) return finding('GNU MP could not allocate memory for a number and aborted', 'cpu', true, { requestedBytes: Number(gmp[1]) });
    const mlx = MLX.exec(text);
    if (mlx) return finding('MLX could not allocate Metal memory', 'mps', /terminating due to uncaught exception|terminate called/.test(text), { requestedBytes: Number(mlx[1]) });
    if (MLX_RESOURCE_LIMIT.test(text)) return finding("MLX could not allocate a Metal buffer: Metal's limit on live buffers was reached", 'mps', /terminating due to uncaught exception|terminate called/.test(text), {});
    if (NPP.test(text)) {
      if (!/NPP_MEMORY_ALLOCATION_ERR/.test(text) && !/\bNPP\b|NPPException/.test(joinNext(line, 3) + (line.previous(1) ?? '') + (line.previous(2) ?? ''))) return undefined;
      return finding('NPP could not allocate device memory (NPP_MEMORY_ALLOCATION_ERR)', 'cuda', false, {});
    }
    const short = BFC_NOT_A_FAILURE.exec(text);
    if (short) return bfcShortWarning(line, short[1]!, Number(short[2]));
    const bfc = BFC.exec(text);
    if (bfc) {
      if (/not a failure/.test(text)) return undefined;
      // TensorFlow 1.x printed the size without the rounded bytes: "… trying to allocate 2.43MiB.  Current allocation summary
      // follows." (bfc_allocator.cc, HumanReadableNumBytes), then the bins; the request is the printed size.
      const requested = bfc[3] !== undefined ? Number(bfc[3]) : toBytes(bfc[4]!, bfc[5]!);
      const f = finding(`TensorFlow's BFC allocator (${bfc[1]}_${bfc[2]}_bfc) ran out of device memory`, /xpu/i.test(bfc[1]!) ? 'xpu' : 'cuda', false, requested !== undefined ? { requestedBytes: requested } : {});
      return { ...f, device: Number(bfc[2]) };
    }
    // Only the end of PyTorch's caching-allocator message left ("…llocated memory try setting max_split_size_mb to avoid
    // fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF", c10/cuda/CUDACachingAllocator.cpp's
    // hint, printed only in its OutOfMemoryError): the exception it ends, with no numbers; any fuller reading of the log wins.
    if (ALLOCATOR_HINT_TAIL.test(text)) {
      const hip = /PYTORCH_HIP_ALLOC_CONF/.test(text);
      return finding("PyTorch's caching allocator raised OutOfMemoryError (only the end of its message is in the log)", hip ? 'rocm' : devicePlatformNear(line), false, {});
    }
    const kvNeeded = VLLM_KV_NEEDED.exec(text);
    if (kvNeeded || VLLM_NO_CACHE_BLOCKS.test(text) || VLLM_KV_TOKENS.test(text)) {
      // The CPU backend's budget is host memory; the others' is the accelerator's, cuda unless the lines around name another.
      const cpuBackend = /VLLM_CPU_KVCACHE_SPACE/.test(joinNext(line, 2));
      const GiB = 1024 ** 3;
      return finding(
        kvNeeded
          ? `vLLM's KV cache for one request at the max sequence length (${kvNeeded[1]} GiB) is larger than the memory left for it (${kvNeeded[2]} GiB)`
          : VLLM_KV_TOKENS.test(text)
            ? "vLLM's KV cache, in the memory left after the weights and activations, holds fewer tokens than one request at the max sequence length"
            : 'vLLM had no memory left for the KV cache blocks after the weights and activations',
        cpuBackend ? 'cpu' : devicePlatformNear(line),
        false,
        kvNeeded ? { requestedBytes: Math.round(Number(kvNeeded[1]) * GiB), freeBytes: Math.round(Number(kvNeeded[2]) * GiB) } : {},
      );
    }
    if (SGLANG_NO_KV_MEMORY.test(text)) return finding('SGLang had no GPU memory left for the KV cache after loading the weights (--mem-fraction-static)', devicePlatformNear(line), false, {});
    // Newer releases name the device ("Free memory on device cuda:1 (19.77/22.05 GiB) on startup …").
    if (/Free memory on device (?:\w+:\d+ )?\(/.test(text)) {
      const m = VLLM_FREE.exec(joinNext(line, 1).replace(/\n/g, ' '));
      if (!m) return undefined;
      const GiB = 1024 ** 3;
      // vLLM names ROCm's devices "cuda:N" too: that name says a GPU, the lines around say whose.
      const named = m[1] === 'xpu' ? 'xpu' : m[1] === 'npu' ? 'npu' : m[1] === 'hpu' ? 'gaudi' : m[1] === 'cuda' ? devicePlatformNear(line) : platformNear(line);
      const f = finding(`vLLM found too little free device memory at startup for its gpu_memory_utilization (${m[5]})`, named, false, {
        freeBytes: Math.round(Number(m[3]) * GiB),
        deviceTotalBytes: Math.round(Number(m[4]) * GiB),
        requestedBytes: Math.round(Number(m[6]) * GiB),
      });
      return m[2] !== undefined ? { ...f, device: Number(m[2]) } : f;
    }
    return undefined;
  },
};
