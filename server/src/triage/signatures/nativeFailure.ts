/**
 * Native failures that print no Python exception: the runtime, driver and tool messages the tail pass
 * (otherFailure.ts) reads as the failure a log ended with, each with the platform it implies.
 */
import type { Platform } from '../../protocol';

/** A log line as a finding names it: trimmed, and cut to 140 characters. */
export function quote(text: string): string {
  const t = text.trim();
  return t.length > 140 ? `${t.slice(0, 137)}...` : t;
}

/**
 * Native failures that print no Python exception, each with the platform it implies (undefined: the
 * lines around it decide):
 * - a CUDA/HIP runtime status by name other than an allocation failure (compute-sanitizer's "Program hit
 *   cudaErrorLaunchFailure (error 719) due to …", HIP's "Returned hipErrorNoBinaryForGpu", the driver
 *   API's CUDA_ERROR_LAUNCH_TIMEOUT);
 * - an application's own CUDA error check on a .cu file or naming CUDA ("ERROR: unknown error in
 *   …/projector.cu at line 126 (error-code 30)", "[X CUDA ERROR] invalid argument(CUDA error no.=1)");
 * - Ascend: torch_npu's "NPU function error: …, error code is 5070NN" and ACL/runtime codes 5070NN,
 *   the device's "aivec error"/"aicore error" exception reports;
 * - glibc's heap-corruption aborts (malloc.c malloc_printerr: "*** Error in `prog': free(): corrupted
 *   unsorted chunks", "double free or corruption (out)", "malloc(): corrupted top size");
 * - Windows crash statuses (0xC0000005 access violation, 0xC0000409 fail-fast, 0xC000001D illegal
 *   instruction, 0xC00000FD stack overflow, 0xC0000374 heap corruption; not 0xC0000017, no memory);
 * - Chromium's LOG(FATAL) ("[pid:tid:date:FATAL:gpu_init.cc(497)] …").
 */
const RUNTIME_STATUS = /\b(cuda|hip)Error(?!MemoryAllocation|OutOfMemory|NotReady|PeerAccess(?:AlreadyEnabled|NotEnabled)|HostMemoryAlreadyRegistered)([A-Z]\w+)|\bCUDA_ERROR_(?!OUT_OF_MEMORY)[A-Z_]{4,}/;
const APP_CUDA_CHECK = /\b(?:CUDA (?:error|ERROR)|cuda error)\b|\berror\b.*\.cu\b|\.cu\b.*\berror\b/i;
const NPU_CODE = /NPU function error:|error ?code(?: is|:|=)?\s*5070\d\d\b|\berror:5070\d\d\b|\bthere is an? (?:aivec|aicore|aic) error exception/;
const GLIBC_HEAP = /\*\*\* Error in `[^']*': |\b(?:free|malloc|realloc|munmap_chunk|malloc_consolidate)\(\): (?:invalid|corrupted)|double free or corruption|corrupted size vs\. prev_size|corrupted double-linked list/;
/** glibc 2.37+'s internal assertion (__libc_assert_fail: "Fatal glibc error: malloc.c:2601 (sysmalloc): assertion failed: …"), then abort(). */
const GLIBC_ASSERT = /\bFatal glibc error: \S+:\d+ \(\w+\): assertion failed: /;
/**
 * cuda-gdb stopping on a GPU exception (its docs' "CUDA Exception Codes": "CUDA Exception: Warp Illegal Address", then
 * "Thread 1 "x" received signal CUDA_EXCEPTION_14, Warp Illegal Address." and "[Switching focus to CUDA kernel 0, grid 1,
 * block (0,0,0), thread (0,0,0), device 0, sm 0, warp 0, lane 0]"): a kernel fault, not memory running out.
 */
export const CUDA_GDB_EXCEPTION = /\bCUDA Exception: [A-Z][\w ]+$|\breceived signal CUDA_EXCEPTION_\d+\b/;
/**
 * A CANN runtime error code as a caller logs it ("acl Error, code: 107002 at x.cpp:63", "ACL ERROR: api=aclrtMallocHost,
 * code=107002, …"): rt_error_codes.h's 1xxxxx are usage errors (107002 ACL_ERROR_RT_CONTEXT_NULL), 5xxxxx internal ones;
 * 207001 (ACL_ERROR_RT_MEMORY_ALLOCATION) is the allocation failure tailAllocFailure reads.
 */
export const ACL_CODE = /\bacl(?:rt)?\s*error\b[,:]?[^\n]*?\bcode\s*[:=]\s*([1-5]\d{5})\b/i;
const WINDOWS_CRASH = /\b(?:0x)?[cC]0000(?:005|409|01[dD]|0[fF][dD]|374|096|602)\b/;
// The same statuses as a decimal exit code, unsigned (a launcher's "exitCode=3221225477") or signed (PyCharm's "Process finished
// with exit code -1073741819 (0xC0000005)"): only where the number is an exit or return code.
const WINDOWS_CRASH_EXIT = /\b(?:exit|return) ?code\s*[=:]?\s*(?:3221225477|3221226505|3221225501|3221225725|3221226356|-1073741819|-1073740791|-1073741795|-1073741571|-1073740940)\b/i;
const CHROMIUM_FATAL = /:FATAL:[\w.]+\(\d+\)\]/;

/**
 * NCCL's error trace: NCCLCHECK and friends (src/include/checks.h) log "NCCL INFO <file>.cc:<line> -> <ncclResult_t>"
 * at each level a failed call returns through, so a log whose tail is that chain ended in a failed NCCL call
 * (socket/bootstrap errors, a topology XML it could not read: ncclSystemError 2, ncclInternalError 3, …).
 * 7 (ncclInProgress) is not an error.
 */
const NCCL_TRACE = /\bNCCL INFO [\w/.-]+\.cc:\d+ -> ([1-6])\b/;
/**
 * GPU driver faults in the kernel log: amdgpu's VM fault report (gmc_v9_0.c/gmc_v10_0.c/gmc_v11_0.c:
 * "amdgpu: [gfxhub] page fault (src_id:0 ring:40 vmid:8 pasid:N)", "(GC)VM_L2_PROTECTION_FAULT_STATUS:0x…")
 * and a ring timeout ("ring gfx_0.0.0 timeout"), rocm; NVIDIA's driver error report ("NVRM: Xid (PCI:…): 79, …"), cuda.
 */
const AMDGPU_FAULT = /\bamdgpu\b.*(?:\[\w+hub\] (?:\w+ )?page fault|\bG?C?VM_L2_PROTECTION_FAULT_STATUS|\bring \S+ timeout)/;
/**
 * The amdgpu driver resetting a hung GPU (amdgpu_device.c amdgpu_device_gpu_recover/amdgpu_do_asic_reset: "amdgpu
 * 0000:67:00.0: GPU reset begin!", "GPU reset succeeded, trying to resume", "GPU reset(2) succeeded!", "GPU reset(2)
 * failed", "GPU BACO reset", "GPU mode1 reset"): the GPU stopped responding (a job timeout or fault came first), rocm.
 */
const AMDGPU_RESET = /\bamdgpu\b.*\bGPU (?:reset begin!|reset(?:\(\d+\))? (?:succeeded|failed)|(?:BACO|mode1|mode2|PCI config) reset\b)/;
/**
 * ROCm's debug agent (rocr_debug_agent, loaded with HSA_TOOLS_LIB) reporting a GPU memory fault: "[rocr debug agent]:"
 * then "Memory access fault at GPU Node: 1" and "Address: 0x… (page not present;…)", with the wavefronts' registers;
 * an out-of-bounds or freed-memory access on the GPU, not memory running out.
 */
const ROCR_DEBUG_AGENT = /\bMemory access fault at GPU Node: \d+|^\s*\[rocr debug agent\]/;
/**
 * Triton's launcher refusing a compiled kernel over the GPU's per-block limits (triton/runtime/errors.py OutOfResources:
 * "out of resource: shared memory, Required: 167936, Hardware limit: 101376. Reducing block sizes or `num_stages` may
 * help."; compiler.py _init_handles raises it for shared memory, older builds for registers too): a kernel's
 * configuration, not the device's memory filling up; a log cut at the raise line ("raise OutOfResources(…)") is the same.
 * Inductor's autotuner logs the check as "Exception No valid triton configs. OutOfMemoryError: out of resource: triton_mm
 * Required: 294912 Hardware limit:232448".
 */
const TRITON_OUT_OF_RESOURCES = /\b(?:OutOfResources|OutOfMemoryError): out of resource: ([\w ]+)|^\s*raise OutOfResources\(/;
/** Triton's limit check in its own words, under whichever exception carries it (Inductor's autotuner logs it as "OutOfMemoryError"). */
export const TRITON_RESOURCE_LIMIT = /\bout of resource: [\w ]+,? Required: ?\d+,? Hardware limit: ?\d+/;
/**
 * PyTorch's c10d TCP socket failing to reach the store (torch/csrc/distributed/c10d/socket.cpp: "The client socket has
 * timed out after 300000ms while trying to connect to (127.0.0.1, 29500).", "The client socket has failed to connect to
 * any network address of (host, port)."; raised as DistNetworkError/DistStoreError): rendezvous, not memory. A store
 * request that got no answer in time ("[c10d] waitForInput: socket SocketImpl(fd=80, addr=…, remote=…) timed out after
 * 1800000ms", the same file's wait on the store's reply) is raised the same way.
 */
const C10D_SOCKET = /\bThe client socket has (?:timed out after \S+ while trying to connect to|failed to connect to any network address of) |\[c10d\] waitForInput: socket \S+(?: \S+)* timed out after \d+ms\b/;
/**
 * NCCL's verbs wrapper failing a call (misc/ibvwrap.cc: "NCCL WARN Call to ibv_create_qp failed", "Call to ibv_create_cq
 * failed", newer builds "… failed with error Cannot allocate memory"): the InfiniBand/RoCE setup (the memlock limit, the
 * device's queue limits, GID), returned to the caller as ncclSystemError. NCCL is CUDA's unless RCCL is named.
 */
const NCCL_IBV = /\bNCCL WARN Call to (ibv_\w+) failed\b/;
/**
 * Habana's Synapse API returning a failed synStatus (synapse_api_types.h; hccl_demo and the HCL print "synDeviceAcquire(…)
 * failed with synapse error: 20", the PyTorch bridge "synStatus=26 [Device not found]"): gaudi; an allocation failure is
 * read by gaudi.ts.
 */
const SYNAPSE_ERROR = /\bsyn[A-Z]\w+\(.*\bfailed with synapse (?:error|status):? ?\d+|\bsynStatus ?[=:] ?\d+ \[/;
/**
 * gdb's backtrace of a process stopped in abort(): glibc's frames "#0  __GI_raise (sig=sig@entry=6) at
 * ../sysdeps/unix/sysv/linux/raise.c:50", "#1  0x… in __GI_abort () at abort.c:79" (glibc 2.35+: "#0
 * __pthread_kill_implementation (no_tid=0, signo=signo@entry=6, …) at ./nptl/pthread_kill.c:44"): a native abort.
 */
const GDB_ABORT_FRAME = /^\s*#\d+\s+(?:0x[0-9a-f]+ in )?(?:(?:__GI_)?raise \(sig=(?:sig@entry=)?6\)|(?:__GI_)?abort \(\)|__pthread_kill_implementation \(.*\bsigno=(?:signo@entry=)?6\b)/;
/**
 * Intel's GPU compiler (IGC) failing to build a kernel for the device, as the SYCL/OpenCL runtime prints its build log
 * ("error: Double type is not supported on this platform.", then "error: backend compiler failed build."; SYCL raises
 * PI_ERROR_BUILD_PROGRAM_FAILURE / UR_RESULT_ERROR_PROGRAM_BUILD_FAILURE as an exception): an Intel GPU, xpu.
 */
const IGC_BUILD_FAILURE = /\berror: backend compiler failed build\b|\berror: Double type is not supported on this platform\b/;
/**
 * An ODBC or Db2 CLI diagnostic under an error (SQLGetDiagRec's message text, "[vendor][component][data source] text":
 * "[IBM][CLI Driver][DB2/LINUXX8664] SQL0437W …", "[Microsoft][ODBC Driver 18 for SQL Server]Login timeout expired",
 * "[unixODBC][Driver Manager]Data source name not found"): the database driver's error, returned to the caller.
 */
const ODBC_DIAGNOSTIC = /\berror\b.*\[(?:IBM|Microsoft|unixODBC|Oracle|MySQL|PostgreSQL|Simba|Cloudera|Snowflake|Teradata)\]\[(?:CLI Driver|ODBC[^\]]*|Driver Manager|[^\]]*ODBC[^\]]*)\]/i;
/**
 * PyTorch's hint after a DataLoader worker died of SIGBUS (torch/csrc/DataLoader.cpp _error_if_any_worker_fails appends it
 * to "DataLoader worker (pid N) is killed by signal: Bus error." only for that signal): alone, when the line before it was
 * lost, it still says a worker died of a bus error in shared memory (cpu.ts reads the whole message); the main process got
 * a RuntimeError.
 */
const DATALOADER_SHM_HINT = /\bIt is possible that dataloader's workers are out of shared memory\b/;
/**
 * The kernel's undefined-behaviour sanitizer report (lib/ubsan.c ubsan_prologue: "UBSAN: shift-out-of-bounds in
 * drivers/gpu/drm/amd/amdgpu/gfx_v9_0.c:2514:23", then the detail and a call trace): a bug in the kernel code at that
 * file, a driver's when the path names one (amdgpu is ROCm's GPU driver, nvidia's modules CUDA's); no process got an error.
 */
const KERNEL_UBSAN = /\bUBSAN: [\w-]+ in (\S+):\d+:\d+/;
/**
 * TorchScript not finding an operator for a graph node (torch/csrc/jit/ir/ir.cpp Node::getOperator: "Schema not found for
 * node. File a bug report.", then "Node: …", "Input types: …" and "candidates were: …"): a custom or backend op library not
 * loaded, or a graph pass that produced a call no registered schema matches; thrown as an ErrorReport (RuntimeError in Python).
 */
const JIT_NO_SCHEMA = /\bSchema not found for node\. File a bug report\./;
/**
 * ROCm's math and compiler libraries failing a call for a reason other than memory, each in its own words:
 * - rocBLAS's Tensile layer (library/src/tensile_host.cpp): "rocBLAS error: Cannot read <dir>/TensileLibrary.dat: No such
 *   file or directory" (often "for GPU arch : gfx1103", no kernels shipped for the GPU; rocblas_abort() follows, so the
 *   process dies), "rocBLAS error: Could not initialize Tensile host: …", "rocBLAS error: Tensile solution found, but
 *   exception thrown for { … }" (print_once, the call returns an error status); the same messages from rocblaslt,
 *   rocSPARSELt and hipSPARSELt ("hipsparselt_error: …"); rocBLAS's hipBLASLt path ("rocBLAS error: No hipBLASLt solution
 *   found", then a fall-back to Tensile);
 * - a status returned by name: rocblas_status_* (rocblas-types.h), HIPBLAS_STATUS_* (hipblas.h, hipBLASLt's too), miopenStatus*
 *   (miopen.h), HIPRTC_ERROR_* (hiprtc.h), MIGraphX's "rocblas_invoke: rocBLAS call failed with status 4" (gemm_impl.cpp;
 *   4 is rocblas_status_invalid_size); the allocation statuses (rocblas_status_memory_error, HIPBLAS_STATUS_ALLOC_FAILED,
 *   miopenStatusAllocFailed) are left to the out-of-memory signatures;
 * - MIOpen's errors: MIOPEN_THROW's "MIOpen Error: <file>:<line>: <message>" ("Code object build failed. Source: …", "No
 *   invoker was registered …"), its logger's "MIOpen(HIP): Error [<function>] …" (comgr and HIPRTC build failures, "Unable
 *   to load file: gfx908_metadata.tn.model"), a miopen::Exception; its "Memory not available to allocate buffer" is
 *   rocm.ts's.
 * The library returns the status or throws; frameworks raise it (PyTorch's RuntimeError) unless it aborts.
 */
const ROCM_LIBRARY = /\b(?:rocBLAS|rocblaslt|rocsparselt|hipBLASLt|hipblaslt|Tensile) error: |\bhipsparselt_error: |\brocBLAS call failed with status \d+|\brocblas_status_(?!success\b|memory_error\b|continue\b)[a-z_]+|\bHIPBLAS(?:LT)?_STATUS_(?!SUCCESS\b|ALLOC_FAILED\b)[A-Z_]+|\bmiopenStatus(?!Success\b|AllocFailed\b)[A-Z]\w*|\bMIOpen(?:\(HIP\))?: Error \[|\bMIOpen Error: |\bmiopen::(?:Exception|exec::)|\bHIPRTC_ERROR_[A-Z_]+/;
/**
 * The dynamic loader not finding a library the program links ("./prog: error while loading shared libraries: libMIOpen.so.1:
 * cannot open shared object file: No such file or directory", glibc's elf/dl-load.c _dl_signal_error): the program never
 * started; the library's name says whose install is missing.
 */
const LOADER_MISSING = /\berror while loading shared libraries: (\S+): cannot open shared object file/;
const ROCM_LIBRARY_NAME = /^lib(?:MIOpen|miopen|rocblas|hipblas|hipblaslt|rocsolver|rocfft|hipfft|rocrand|hiprand|rccl|amdhip64|hsa-runtime64|migraphx|rocsparse|hipsparse|roctracer|rocprofiler)/i;
const CUDA_LIBRARY_NAME = /^lib(?:cuda|cudart|cublas|cublasLt|cudnn|cufft|curand|cusolver|cusparse|nvrtc|nccl|nvinfer|nvidia-ml)\b/i;
/**
 * The Docker client printing an error the daemon's API returned ("docker: Error response from daemon: …", "Error response
 * from daemon: 500 Internal Server Error: SHM size must be greater then 0"; the CLI exits 125): the container was not created
 * or started; its out-of-memory and GPU-driver messages are read by their own words.
 */
/**
 * aws-ofi-nccl (the libfabric network plugin NCCL uses on EFA) logs its errors through NCCL's logger at WARN level with its
 * own prefix (nccl_ofi_log.h NCCL_OFI_WARN: "NET/OFI " fmt): "NCCL WARN NET/OFI Creating new endpoint for domain 0x… failed:
 * Invalid argument", "NET/OFI Couldn't open a fabric provider. RC: -61, ERROR: No data available". A failure of the network
 * plugin NCCL then reports as a failed communicator; not memory.
 */
const NCCL_OFI_FAILURE = /\bNCCL WARN NET\/OFI (.*\b(?:failed|[Cc]ouldn't|[Uu]nable to|[Ee]rror|[Ii]nvalid)\b.*)$/;
/**
 * A command-line tool refusing its arguments, as getopt prints it (glibc posix/getopt.c: "%s: invalid option -- '%c'",
 * "%s: unrecognized option '%s%s'"; BSD getopt: "%s: illegal option -- %c"), then the tool's usage and a non-zero exit.
 */
const GETOPT_ERROR = /^\s*(?:\S+: )?([\w.\/+-]+): (?:(?:invalid|illegal) option -- '?\S'?|unrecognized option '?-)/;
/**
 * WinDbg's crash analysis (!analyze -v): the failure bucket it files the crash under, "<class>_<NTSTATUS>_<module>!<function>"
 * ("FAILURE_BUCKET_ID:  NULL_CLASS_PTR_READ_c0000005_foo.dll!Bar", newer releases' "Key  : Failure.Bucket" over "Value:
 * INVALID_POINTER_READ_c0000005_…"): a native crash in the module it names.
 */
const WINDBG_BUCKET = /(?:\bFAILURE_BUCKET_ID:\s+|^\s*Value:\s+)([A-Z][A-Z0-9_]*_(?:[cC]0000[0-9a-fA-F]{3}|80000003)_\S+)/;
/**
 * A cloud API's quota refusal (Google Cloud's 429 RESOURCE_EXHAUSTED: "The following quota metrics exceed quota limits:
 * aiplatform.googleapis.com/custom_model_training_nvidia_l4_gpus", "Quota exceeded for quota metric '…' and limit '…'",
 * Compute Engine's "Quota 'NVIDIA_T4_GPUS' exceeded. Limit: 0.0 in region …"): the project may not have the accelerator
 * or the requests it asked for; nothing ran out of memory. The quota's name says which accelerator was asked for.
 */
const CLOUD_QUOTA_ERROR = /\b(?:The following quota metrics? exceeds? quota limits?: ?(\S*)|Quota exceeded for quota metric '([^']*)'|Quota '([^']*)' exceeded\b)/i;

const DOCKER_DAEMON_ERROR = /\bError response from daemon: (.*)$/;
const NVIDIA_XID = /\bNVRM: Xid \(PCI:[\w:.]+\): \d+/;
/**
 * nccl-tests' NCCLCHECK (src/common.h: printf("%s: Test NCCL failure %s:%d '%s / %s'\n", hostname, __FILE__, __LINE__,
 * ncclGetErrorString(res), ncclGetLastError(NULL)), then it returns testNcclError and the test exits; older releases and the
 * RCCL examples print "Test NCCL failure %s:%d '%s'", the first releases "NCCL failure %s:%d '%s'"): an NCCL call failed
 * with the result ncclGetErrorString names ("unhandled cuda error", "unhandled system error", "invalid usage").
 */
const NCCL_TEST_FAILURE = /\bNCCL failure \S+:\d+ '([^'\/]+?)(?: \/ [^']*)?'/;
/**
 * ProcessGroupNCCL's watchdog finding an error on a rank's communicator (WorkNCCL::checkAndSetException: LOG(INFO) <<
 * "[Rank N] found async exception when checking for NCCL errors: " << the message, since 2.2 with its logPrefix; Paddle's
 * NCCLCommTask logs "Rank N, found async exception when checking for nccl errors: "): the watchdog then tears the process
 * down (TORCH_NCCL_ASYNC_ERROR_HANDLING), so nothing in the program catches it.
 */
const PG_ASYNC_EXCEPTION = /\[?Rank (\d+)\]?,? found async exception when checking for (?:NCCL|nccl) errors: (.*)$/;
/**
 * oneDNN's errors as PyTorch raises them (dnnl::error's messages, dnnl.hpp: "could not create an engine", "could not create a
 * primitive descriptor for a convolution forward propagation primitive", "could not create a primitive"): the library had no
 * engine for the device (a GPU runtime or driver it cannot use, on XPU) or no implementation for the op's shapes and types.
 * Raised to the caller as a RuntimeError.
 */
const ONEDNN_CREATE = /\bcould not create an? (?:engine|primitive(?: descriptor)?)\b/;
/**
 * CTest's summary of a test run with failures (cmCTestTestHandler.cxx: "<P>% tests passed, <F> tests failed out of <N>", then
 * "The following tests FAILED:" over one "\t<n> - <name> (Failed)" per test): the run ended with failed tests, whose own output
 * (ctest --output-on-failure) says why; ctest exits non-zero.
 */
const CTEST_FAILED = /^\s*\d+% tests passed, ([1-9]\d*) tests? failed out of (\d+)\b|^\s*The following tests FAILED:\s*$/;
/**
 * nccl-tests' (and rccl-tests') check of a run's results (src/common.cu: PRINT("%s Out of bounds values : %d %s\n", …, errors,
 * errors ? "FAILED" : "OK"), printed with a leading '#' since 2.11): the collective finished but some received values were wrong
 * (a data-corruption or transport bug, a P2P/IOMMU setting, a faulty link or GPU), not memory running out.
 */
const NCCL_TESTS_WRONG = /^\s*#?\s*Out of bounds values\s*:\s*([1-9]\d*)\s+FAILED\b/;
/**
 * rdma-core's mlx5 provider reporting an error completion (providers/mlx5/cq.c: mlx5_err(…, PFX "%s: got completion with
 * error:\n", hostname) with PFX "mlx5: ", then the CQE dumped as hex words): a work request on the RDMA NIC failed (a
 * remote access or transport error, a peer that went away), so NCCL's or the RDMA library's connection is broken.
 */
const MLX5_ERROR_CQE = /\bmlx5: \S+: got completion with error\b/;
const NCCL_RESULTS = ['', 'ncclUnhandledCudaError', 'ncclSystemError', 'ncclInternalError', 'ncclInvalidArgument', 'ncclInvalidUsage', 'ncclRemoteError'];

/**
 * The CUDA runtime's and driver's error strings (cudaGetErrorString/cuGetErrorString, driver_types.h) for
 * failures other than memory, printed by a program without the status name: "Failed to initialize miner on
 * GPU0: … no kernel image is available for execution on the device", Kaldi's 'cudaError_t 4 : "unspecified
 * launch failure" returned from …', hashcat's "cuLinkAddData(): the provided PTX was compiled with an
 * unsupported toolchain." The call returned the error to its caller. A program may reword the string ("no kernel image
 * is available for execution this device", or print it as a sentence, "No kernel image is available for execution on the
 * device."), and bindings of the driver API print its documented description of
 * CUDA_ERROR_ILLEGAL_ADDRESS instead (ManagedCuda's CUResult.ErrorIllegalAddress: "While executing a kernel, the
 * device encountered a load or store instruction on an invalid memory address.").
 */
const CUDA_ERROR_STRING = /[Nn]o kernel image is available for execution (?:on )?(?:the|this) device|the device encountered a load or store instruction on an invalid memory address|unspecified launch failure|the provided PTX was compiled with an unsupported toolchain|all CUDA-capable devices are busy or unavailable|CUDA driver version is insufficient for CUDA runtime version|no CUDA-capable device is detected|an illegal instruction was encountered|the launch timed out and was terminated|too many resources requested for launch|device kernel image is invalid|forward compatibility was attempted on non supported HW/;
/**
 * A program's own CUDA check printing the runtime's or driver's status string for a failure other than memory
 * (cudaGetErrorString/cuGetErrorString: cudaErrorInvalidValue and CUDA_ERROR_INVALID_VALUE are "invalid argument",
 * cudaErrorNotSupported/CUDA_ERROR_NOT_SUPPORTED "operation not supported", cudaErrorInvalidConfiguration "invalid
 * configuration argument", cudaErrorUnknown "unknown error", …) after its own words for a CUDA error: FasterTransformer's check ("[FT][ERROR] CUDA runtime
 * error: operation not supported …/allocator.h:160"), TensorRT's samples' CHECK ("Cuda failure: invalid argument", then
 * abort()), a driver call's wrapper ("cuMemAddressReserve failed: operation not supported"), a lower-case "cuda error:
 * invalid argument". A virtual-memory or pool API the device or vGPU does not support fails this way inside an
 * allocator: not memory running out.
 */
const CUDA_STATUS_STRING = String.raw`(operation not supported|invalid argument|invalid configuration argument|invalid device ordinal|invalid resource handle|invalid device pointer|invalid device context|misaligned address|initialization error|operation not permitted when stream is capturing|peer access is not supported between these two devices|unknown error)`;
const CUDA_STATUS_ERROR = new RegExp(String.raw`(?:\b(?:CUDA|Cuda|cuda)(?: runtime| driver)? (?:error|failure)|\bcu(?:da)?[A-Z]\w*(?:\(\))? failed)\b[^\n]*?\b` + CUDA_STATUS_STRING + String.raw`\b`);
/**
 * The gpuAssert idiom of CUDA code (the gpuErrchk macro widely copied from a Stack Overflow answer, in many projects'
 * CUDA extensions: fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line); then exit(code)):
 * the process exits on any error; an out-of-memory status is read by otherOom.ts as its runtime-abort.
 */
export const GPU_ASSERT = /\bGPU ?assert: (.+?) (\S+) (\d+)\s*$/i;

/**
 * NVIDIA's tools and driver saying the GPU or a GPU tool failed: nvidia-smi/NVML ("Unable to determine the
 * device handle for GPU0000:62:00.0: Unknown Error", "Failed to initialize NVML: Driver/library version
 * mismatch", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver"), NVRTC's
 * compile log ("nvrtc: error: invalid value for --gpu-architecture (-arch)") and its nvrtcResult names
 * (NVRTC_ERROR_COMPILATION), and the kernel driver's NVRM lines reporting a failed call or a failed
 * assertion (GSP-RM's "NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f",
 * "NVRM: nvAssertFailedNoLog: Assertion failed: …", "RmInitAdapter failed").
 */
const NVIDIA_TOOL = /Unable to determine the device handle for GPU|Failed to initialize NVML: |NVIDIA-SMI has failed because|\bnvrtc: error: |\bNVRTC_ERROR_[A-Z_]+|\bNVRM: .*(?:\bfailed\b|Assertion failed|fallen off the bus)/;
/** cuDNN's frontend API failing ("[cudnn_frontend] Error: No execution plans built successfully.") and a program's cuDNN check ("[CUDNN ERROR] at file cudnn_att.cpp:141"). */
const CUDNN_CHECK = /\[cudnn_frontend\] Error: |\bCUDNN ERROR\b/;
/**
 * Ascend: CANN's error codes ("EZ9999: Inner Error!", "EE9999: …", "EI0004: …"; a letter pair and four
 * digits, E = error) and torch_npu's own ("ERR01005 OPS internal error", "ERR00100 PTA call acl api
 * failed": ERR, the submodule, the code). torch_npu raises them as a RuntimeError.
 */
export const CANN_CODE = /(?:^|[\s:\]])E[A-Z]\d{4}: \S|\bERR\d{5} [A-Z]{2,}\b/;
/** LLVM's report_fatal_error (the MPS graph compiler, Triton, XLA's and Numba's code generators): "LLVM ERROR: …", then abort(). */
const LLVM_FATAL = /\bLLVM ERROR: /;
/** A Rust panic: "thread 'main' panicked at 'msg', src/main.rs:84:30" (before Rust 1.73) or "thread 'main' panicked at src/main.rs:84:30:" with the message on the next line. */
const RUST_PANIC = /\bthread '([^']*)' panicked at /;
/** The JVM launcher failing to start a program (java.c): "Error: Could not create the Java Virtual Machine.", "Error: A fatal exception has occurred. Program will exit." */
const JVM_LAUNCH = /Could not create the Java Virtual Machine|A fatal exception has occurred\. Program will exit/;
/** pip failing to install ("ERROR: No matching distribution found for torch", "error: subprocess-exited-with-error", "ERROR: Failed building wheel for flash-attn", "ResolutionImpossible"). */
const PIP_FAILURE = /\bERROR: (?:No matching distribution found for|Could not find a version that satisfies the requirement|Failed building wheel for|Could not build wheels for|ResolutionImpossible|Cannot install .* because these package versions have conflicting dependencies)|\berror: subprocess-exited-with-error\b|\bFailed building wheel for\b/;
/** PyTorch's warning that its build has no kernels for this GPU (torch/cuda/__init__.py _check_capability): every kernel launch fails with "no kernel image is available". */
const ARCH_UNSUPPORTED = /with CUDA capability sm_\d+ is not compatible with the current PyTorch installation/;
/** HIP's hipGetErrorString for hipErrorNoDevice (100): "no ROCm-capable device is detected" (hipinfo's checkHipErrors, ZLUDA's "Hip error"). */
const HIP_NO_DEVICE = /no ROCm-capable device is detected|\bhipErrorNoDevice\b/;
/** systemd-coredump's journal line (coredump.c): "Process 4242 (python3) of user 1000 terminated abnormally with signal 11/SEGV, processing...", since v256 "PID 4242 (python3) crashed with signal 11/SEGV, processing coredump." (systemd#30229). SIGKILL dumps no core. */
const COREDUMP = /\b(?:Process|PID) \d+ \(([^)]*)\) (?:of user \d+ terminated abnormally|crashed) with signal (\d+)\/([A-Z]+)/;
/** The macOS (xnu) kernel's panic report: "panic(cpu 3 caller 0xfffffe…): "message" @File.cpp:550"; IOGPU/AGX name Apple's GPU driver. */
const XNU_PANIC = /^\s*panic\(cpu \d+ caller 0x[0-9a-f]+\): /;
/**
 * The panic string of that report alone, as users quote it from the panic log or the crash dialog: the message in quotes and
 * the kernel extension's source file ('"completeMemory() prepare count underflow" @IOGPUMemory.cpp:550', IOGPUFamily's and
 * the AGX driver's panics being Apple's GPU driver).
 */
const XNU_GPU_PANIC_STRING = /^\s*"[^"]+"\s*@(?:IOGPU|AGX)\w*\.(?:cpp|c|mm?):\d+\s*$/;
/**
 * JclDebug's exception report in a Delphi program (JCL's ExceptDlg: "Exception class: EAccessViolation", "Exception message:
 * …", "Exception address: …", then the stack), for an exception the application's handler caught and reported; VCL's
 * EOutOfResources is a failed GDI or window-handle call, not memory. EOutOfMemory is left to the out-of-memory signatures.
 */
const JCL_EXCEPTION = /^\s*Exception class: (E[A-Z]\w*)\s*$/;
/**
 * GHC's compile error ("src/Data/Foo.hs:106:23: error:" over its bullet points; a Template Haskell splice that threw reports
 * "• Exception when trying to run compile-time code:" under it): the build failed. A path under LLVM/PTX or a word for
 * NVIDIA's libdevice/NVVM names CUDA (accelerate-llvm-ptx compiling its kernels).
 */
const GHC_ERROR = /^\s*(\S+\.l?hs):(\d+):(\d+): error:/;
/**
 * Slurm's PMIx plugin handing on an error the PMIx server reported for the job's processes (src/plugins/mpi/pmix
 * pmixp_client_v2.c/_v1.c _errhandler: "mpi/pmix_v4: _errhandler: <node> [<nodeid>]: pmixp_client_v2.c:211: Error handler
 * invoked: status = -61, source = [slurm.pmix.<job>.<step>:<rank>]"): a process of the step aborted or lost its connection.
 */
const SLURM_PMIX_ERROR = /\bmpi\/pmix\w*: _errhandler: .*\bError handler invoked: status = (-?\d+)/;
/** A backtrace frame Open MPI's signal handler prints (opal_backtrace_print, after "*** Process received signal ***"): "[host:10610] [ 2] /lib/libpmix.so.2(fn+0x8f3)[0x78ed…]". */
const OPAL_BACKTRACE = /^\s*\[[^\]\s]+:\d+\] \[ ?\d+\] \S+\([^)]*\+0x[0-9a-f]+\)\[0x[0-9a-f]+\]/;
/** compute-sanitizer's (cuda-memcheck's) memcheck report: "========= Invalid __global__ write of size 4 bytes", "Misaligned Shared or Local Address". */
const SANITIZER = /^=+ +(?:Invalid __(?:global|shared|local)__ (?:read|write|atomic)|Misaligned (?:Shared or Local )?Address|Out-of-range Shared or Local Address)/;
/** The Linux driver core failing to bind a device (dd.c: "uvesafb: probe of uvesafb.0 failed with error -22", "probe with driver X failed with error -12"). */
/**
 * torchelastic's signal handler (torch/distributed/elastic/multiprocessing/api.py _terminate_process_handler:
 * raise SignalException(f"Process {os.getpid()} got signal: {sigval}")), read anywhere on the line, so a
 * prefix before the exception's module (a script's name, a logger's) does not hide it.
 */
/**
 * SQLite's SQLITE_CANTOPEN (14): its message "unable to open database file" (sqlite3ErrStr), which drivers print
 * with the code ("… (14)"); with no database handle yet, sqlite3_errmsg says "out of memory" beside code 14
 * (SQLITE_NOMEM is 7), so the words are not a memory failure.
 */
const SQLITE_CANTOPEN = /\bunable to open database file\b/;
const ELASTIC_SIGNAL = /\bSignalException: Process \d+ got signal: (?:Signals\.)?(\w+)/;
const DRIVER_PROBE = /\bprobe (?:of \S+|with driver \S+) failed with error -\d+/;

/** A native failure: its name, the platform it implies, and whether the process could catch it (abortsAfter: unless an abort follows it). */
/**
 * A CUDA kernel's own architecture guard in PyTorch's and xformers' memory-efficient attention (CUTLASS fMHA,
 * kernel_forward.h/kernel_backward.h: printf("FATAL: kernel `%s` is for sm%d-sm%d, but was built for sm%d\n", …), run on the
 * device when the build has no code for the GPU's architecture): the kernel returns without computing anything.
 */
const FMHA_ARCH_GUARD = /\bFATAL: kernel `[^`]+` is for sm\d+(?:-sm\d+)?, but was built for sm\d+/;
/**
 * DeepSpeed's cuBLAS wrappers (csrc/includes/cublas_wrappers.h, cublas_wrappers.cu: fprintf(stderr, "!!!! kernel execution
 * error. (m: %d, n: %d, k: %d, error: %d) \n", …), the batched form with "batch: %d" first) returning a failed GEMM's
 * cublasStatus_t (rocblas_status on ROCm): 13 CUBLAS_STATUS_EXECUTION_FAILED, 14 CUBLAS_STATUS_INTERNAL_ERROR, 7
 * CUBLAS_STATUS_INVALID_VALUE, 8 CUBLAS_STATUS_ARCH_MISMATCH. 3 (CUBLAS_STATUS_ALLOC_FAILED) is an allocation failure, left
 * to the out-of-memory signatures.
 */
const DEEPSPEED_GEMM = /^\s*!!!! kernel execution error\. \((?:batch: \d+, )?m: \d+, n: \d+, k: \d+, error: (\d+)\)/;
/**
 * PyTorch's check that an op's tensors share a device (TensorIterator's compute_types and the common-device check:
 * "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"), raised as a
 * RuntimeError, here without its type (pasted alone, or quoted): not memory; the device it names is the platform.
 */
const SAME_DEVICE = /\bExpected all tensors to be on the same device, but found at least two devices, (\w+)(?::\d+)? and (\w+)(?::\d+)?/;
const TORCH_DEVICE_PLATFORM: Record<string, Platform> = { cuda: 'cuda', mps: 'mps', xpu: 'xpu', npu: 'npu', hpu: 'gaudi', xla: 'xla-tpu' };
/**
 * ggml's CUDA back end failing to start (ggml-cuda.cu ggml_cuda_init: GGML_LOG_ERROR("%s: failed to initialize " GGML_CUDA_NAME
 * ": %s\n", __func__, cudaGetErrorString(err)), GGML_CUDA_NAME being CUDA, ROCm or MUSA): the back end reports no devices and
 * the program goes on without them (llama.cpp falls back to the CPU).
 */
const GGML_GPU_INIT = /\bggml_cuda_init: failed to initialize (CUDA|ROCm|MUSA): (.+)$/;
/**
 * Ray's error for a task whose node died under it (python/ray/exceptions.py NodeDiedError, the core worker's message: "Task
 * failed because the node it was running on is dead or unavailable. Node IP: …, node ID: …. This can happen if the node was
 * preempted, had a hardware failure, or its raylet crashed unexpectedly."), raised in the caller's ray.get.
 */
const RAY_NODE_DIED = /\bTask failed because the node it was running on is dead or unavailable\b/;
/**
 * slurmstepd's notice that Slurm stopped the job or step (src/slurmd/slurmstepd/req.c, logged with error() so it is shown:
 * "*** JOB 4412 ON gpu017 CANCELLED AT 2024-03-02T11:40:09 DUE TO TIME LIMIT ***", "*** STEP 4412.0 ON … DUE TO
 * PREEMPTION ***", "… DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***", "… DUE to SIGNAL Terminated ***", and
 * scancel's plain "*** JOB 4412 ON gpu017 CANCELLED AT … ***"; releases before 15.08 put the node last, "*** JOB 4412
 * CANCELLED AT … DUE TO TIME LIMIT on gpu017 ***"): the scheduler signalled the tasks, the program did not fail on its own.
 */
const SLURM_CANCELLED = /\*\*\* (?:JOB|STEP) \S+ (?:ON \S+ )?CANCELLED AT \S+(?: DUE (?:TO|to) (TIME LIMIT|PREEMPTION|NODE FAILURE|JOB REQUEUE|SIGNAL \w+))?/;

export function nativeFailure(text: string): { name: string; platform?: Platform; fallbackPlatform?: Platform; what: string; catchable?: boolean; abortsAfter?: boolean; device?: number; rank?: number } | undefined {
  // Before the out-of-memory words are set aside: SQLite may print them beside code 14.
  if (SQLITE_CANTOPEN.test(text)) return { name: `SQLite could not open the database file (SQLITE_CANTOPEN; ${quote(text)})`, what: 'the database path: its directory must exist and be writable (a missing or wrong path, permissions); the words "out of memory" SQLite may print with code 14 are not memory', catchable: true };
  // Before the warnings are set aside: NCCL logs its failed calls at WARN level (and errno's "Cannot allocate memory" is ibv's, not the process's).
  const ibv = NCCL_IBV.exec(text);
  if (ibv) return { name: `NCCL's InfiniBand setup failed: ${ibv[1]} (${quote(text)})`, fallbackPlatform: 'cuda', what: 'the RDMA setup: ulimit -l (locked memory), the HCA\'s queue limits, NCCL_IB_HCA/NCCL_IB_GID_INDEX; NCCL_IB_DISABLE=1 tells whether the IB path is the cause' };
  const ofi = NCCL_OFI_FAILURE.exec(text);
  if (ofi && !/out of memory/i.test(text)) return { name: `NCCL's libfabric network plugin (aws-ofi-nccl) failed: ${quote(ofi[1]!)}`, fallbackPlatform: 'cuda', what: 'the libfabric provider and the plugin\'s setup (FI_PROVIDER, the EFA device and driver, the plugin and libfabric versions; NCCL_DEBUG=INFO shows the provider it chose); not memory', catchable: false };
  const quota = CLOUD_QUOTA_ERROR.exec(text);
  if (quota) {
    const metric = quota[1] ?? quota[2] ?? quota[3] ?? '';
    const platform: Platform | undefined = /nvidia|_gpus?\b|\bgpus?\b/i.test(metric) ? 'cuda' : /(?:^|[_\W])tpus?(?:$|[_\W])/i.test(metric) ? 'xla-tpu' : undefined;
    return { name: `a cloud quota was exceeded (${quote(text.replace(/^\s*"message":\s*"?/, '').replace(/",?\s*$/, ''))})`, ...(platform && { platform }), what: 'the project\'s quota for the resource it names (request an increase, or use another region or machine type); a quota, not memory running out', catchable: true };
  }
  if (/out of memory|OutOfMemory|OUT_OF_MEMORY|MemoryAllocation|error[- ]?code[ :=]*2\b|failed with error 2\b(?![.\d])|warn/i.test(text)) return undefined;
  if (FMHA_ARCH_GUARD.test(text)) return { name: `a memory-efficient attention kernel has no code for this GPU (${quote(text)})`, platform: 'cuda', what: 'the build of PyTorch or xformers: it was not compiled for this GPU\'s architecture (the sm the message names); install one built for it, or use another attention backend; not memory', catchable: false };
  const gemm = DEEPSPEED_GEMM.exec(text);
  if (gemm && gemm[1] !== '3') return { name: `DeepSpeed's cuBLAS GEMM failed with status ${gemm[1]} (${quote(text)})`, fallbackPlatform: 'cuda', what: 'the cuBLAS status the wrapper prints (13 execution failed, 14 internal error: often a kernel that does not support this GPU, or an earlier kernel\'s error; run with CUDA_LAUNCH_BLOCKING=1); not memory', catchable: false };
  const sameDevice = SAME_DEVICE.exec(text);
  if (sameDevice) {
    const platform = TORCH_DEVICE_PLATFORM[sameDevice[1]!] ?? TORCH_DEVICE_PLATFORM[sameDevice[2]!];
    return { name: `an op got tensors on two devices (${quote(text.replace(/^\W+/, '').replace(/\W+$/, ''))})`, ...(platform && { platform }), what: 'the op in the traceback and where its inputs were made: move them (and the model) to one device; not memory', catchable: true };
  }
  const ggmlInit = GGML_GPU_INIT.exec(text);
  if (ggmlInit) return { name: `ggml's ${ggmlInit[1]} back end could not start: ${quote(ggmlInit[2]!)}`, platform: ggmlInit[1] === 'ROCm' ? 'rocm' : 'cuda', what: 'the GPU driver and runtime the build needs (nvidia-smi works? the container sees the GPU? the driver is new enough for the build\'s CUDA?); the program goes on without the GPU', catchable: true };
  if (RAY_NODE_DIED.test(text)) return { name: `Ray's node died under a task (${quote(text)})`, what: 'the node\'s own logs (raylet.out, the kernel log): it was preempted, lost, or its raylet crashed; ray.get raised NodeDiedError', catchable: true };
  const slurm = SLURM_CANCELLED.exec(text);
  if (slurm) {
    const why = slurm[1];
    return {
      name: why === 'TIME LIMIT' ? 'Slurm cancelled the job at its time limit' : `Slurm cancelled the job${why ? ` (${why.toLowerCase()})` : ' (scancel or an administrator)'}`,
      what: why === 'TIME LIMIT'
        ? 'the job\'s time limit (sbatch/srun --time, the partition\'s MaxTime): ask for more time, or checkpoint and resume (--signal to be warned before the limit); the run was stopped, it did not run out of memory'
        : 'why the job was stopped (sacct -j <id> shows its state; preemption and node failures are the cluster\'s, not the program\'s); not memory',
      catchable: false,
    };
  }
  const getopt = GETOPT_ERROR.exec(text);
  if (getopt) return { name: `${getopt[1]} rejected its command-line options (${quote(text)})`, platform: 'cpu', what: `the command that ran ${getopt[1]}: an option this build or version of it does not have (its usage lists the ones it does); not memory`, catchable: false };
  const bucket = WINDBG_BUCKET.exec(text);
  if (bucket) return { name: `a native crash, as WinDbg's analysis files it (${quote(bucket[1]!)})`, platform: 'cpu', what: 'the module and function the failure bucket names (c0000005 is an access violation: a bad pointer read or write in that module); not memory running out', catchable: false };
  if (ONEDNN_CREATE.test(text)) return { name: `oneDNN could not create ${/engine/.test(text) ? 'an engine for the device' : 'a primitive for the op'} (${quote(text.replace(/^.*?(?=\b(?:\w*Error: )?could not create)/, ''))})`, what: /engine/.test(text) ? 'the device runtime oneDNN uses (on XPU: the GPU driver, Level Zero/OpenCL runtime and oneAPI versions the PyTorch build expects); not memory' : 'the op\'s shapes, types and layout: oneDNN has no implementation for them on this device (ONEDNN_VERBOSE=1 shows the call); not memory', catchable: true };
  const ctest = CTEST_FAILED.exec(text);
  if (ctest) return { name: ctest[1] !== undefined ? `CTest: ${ctest[1]} of ${ctest[2]} tests failed` : 'CTest: tests failed (its list of failed tests)', what: 'the output of the first failed test (ctest --output-on-failure -R <name>); a test run\'s failures, not memory running out', catchable: false };
  const wrong = NCCL_TESTS_WRONG.exec(text);
  if (wrong) return { name: `nccl-tests found ${wrong[1]} wrong values in a collective's results (${quote(text)})`, fallbackPlatform: 'cuda', what: 'the size and collective the failing row names: wrong results are a transport, topology or hardware fault (NCCL_P2P_DISABLE=1, NCCL_PROTO, the IOMMU/ACS settings, each GPU and link alone); not memory', catchable: false };
  if (MLX5_ERROR_CQE.test(text)) return { name: `the mlx5 RDMA NIC returned a completion with error (${quote(text)})`, what: 'the RDMA transport: the CQE\'s syndrome in the hex dump under the line, the peer on the other side (a process that exited, a link down), NCCL_IB_* settings; not memory', catchable: false };
  const ncclTest = NCCL_TEST_FAILURE.exec(text);
  if (ncclTest) return { name: `an NCCL call failed: ${ncclTest[1]!.trim()} (nccl-tests: ${quote(text)})`, fallbackPlatform: 'cuda', what: 'the NCCL call at the file and line the test names; rerun with NCCL_DEBUG=WARN (or INFO) to see NCCL\'s own reason ("unhandled cuda error" is a CUDA call inside NCCL that failed: driver, peer access, a GPU already in use)', catchable: false };
  const pgAsync = PG_ASYNC_EXCEPTION.exec(text);
  if (pgAsync) return { name: `ProcessGroupNCCL's watchdog found an error on rank ${pgAsync[1]}'s communicator: ${quote(pgAsync[2]!)}`, fallbackPlatform: 'cuda', what: 'the first rank whose communicator failed (a shutdown or abort on one rank is often the echo of another rank\'s failure; its own log says why)', catchable: false, rank: Number(pgAsync[1]) };
  const status = RUNTIME_STATUS.exec(text);
  if (status) return { name: quote(text), platform: status[1] === 'hip' ? 'rocm' : 'cuda', what: 'the failed CUDA/HIP call (a launch failure or fault is usually an earlier kernel\'s error; run with CUDA_LAUNCH_BLOCKING=1 or compute-sanitizer)' };
  const rocmLibrary = ROCM_LIBRARY.exec(text);
  if (rocmLibrary && !/Memory not available to allocate/.test(text)) {
    // rocBLAS aborts when it cannot read its Tensile library (rocblas_abort after the message).
    const aborts = /\bCannot read \S*Tensile|Could not initialize Tensile host/.test(text);
    return {
      name: `a ROCm library call failed (${quote(text.replace(/^.*?(?=\b(?:rocBLAS|rocblaslt|rocsparselt|hipBLASLt|hipblaslt|MIOpen)\b)/, ''))})`,
      platform: 'rocm',
      what: /Tensile|TensileLibrary/.test(text)
        ? 'the rocBLAS install: its Tensile kernels for this GPU\'s gfx target (a missing TensileLibrary file is an architecture the build does not ship; HSA_OVERRIDE_GFX_VERSION or a build for the target); not memory'
        : /MIOpen|miopen|HIPRTC|comgr/.test(text)
          ? 'the MIOpen message: a kernel it could not build (comgr/HIPRTC), a missing database or model file, or no solver for this convolution; MIOPEN_LOG_LEVEL=6 shows the call; not memory'
          : 'the library status and the call that returned it (an invalid size or value is the arguments, not memory)',
      catchable: !aborts,
      abortsAfter: true,
    };
  }
  const daemon = DOCKER_DAEMON_ERROR.exec(text);
  if (daemon) return { name: `Docker's daemon refused the request: ${quote(daemon[1]!)}`, what: 'the docker command\'s options and the daemon\'s message (the container was not created or started; the CLI exits 125)', catchable: false };
  const loader = LOADER_MISSING.exec(text);
  if (loader) {
    const lib = loader[1]!;
    const platform: Platform | undefined = ROCM_LIBRARY_NAME.test(lib) ? 'rocm' : CUDA_LIBRARY_NAME.test(lib) ? 'cuda' : undefined;
    return { name: `the program could not start: the loader did not find ${lib}`, ...(platform && { platform }), what: `the install that provides ${lib} (LD_LIBRARY_PATH, the package, the version the program was linked against); not memory`, catchable: false };
  }
  const cudaString = CUDA_ERROR_STRING.exec(text);
  if (cudaString) {
    // "… on GPU0: …" names the device the call failed on.
    const device = /\bon GPU ?#?(\d+)\b/.exec(text);
    return {
      name: `a CUDA call failed: ${cudaString[0]} (${quote(text)})`,
      platform: 'cuda',
      what: /kernel image|PTX|toolchain|capability|compatibility/.test(cudaString[0]) ? 'the build: the program or its libraries have no kernels for this GPU\'s architecture, or need a newer driver' : 'the failed CUDA call (a launch failure is usually an earlier kernel\'s error; run with CUDA_LAUNCH_BLOCKING=1 or compute-sanitizer)',
      // The call returned the error to its caller, unless the line is a glog FATAL or CHECK that aborts on it.
      catchable: !/^\s*F\d{4} |\bFATAL\b|Check failed/.test(text),
      ...(device && { device: Number(device[1]) }),
    };
  }
  const cudaStatus = CUDA_STATUS_ERROR.exec(text);
  if (cudaStatus) {
    return {
      name: `a CUDA call failed: ${cudaStatus[1]} (${quote(text)})`,
      platform: 'cuda',
      what: /not supported/.test(cudaStatus[1]!) ? 'the CUDA call the check names: the device, driver or vGPU profile does not support it (virtual memory management and memory pools are not available on every GPU); not memory running out' : 'the CUDA call the check names and the arguments it was given (a launch configuration or value out of range); not memory running out',
      // The call returned the error, unless it was thrown out of a C++ function into std::terminate (what()), a glog FATAL/CHECK,
      // or the CUDA_CHECK macro of the CUDA samples and ggml ("CUDA error 1 at ggml-cuda.cu:8949: invalid argument"), which exits.
      // cudaErrorUnknown ("unknown error", 999; 30 in CUDA before 10.1) leaves the context unusable, as the corpus reads it.
      catchable: cudaStatus[1] !== 'unknown error' && !/^\s*what\(\):|^\s*F\d{4} |\bFATAL\b|Check failed|\berror \d+ at \S+:\d+: /.test(text),
      abortsAfter: true,
    };
  }
  const gpuAssert = GPU_ASSERT.exec(text);
  if (gpuAssert) return { name: `a CUDA call failed: ${gpuAssert[1]} (gpuAssert in ${gpuAssert[2]}:${gpuAssert[3]})`, platform: 'cuda', what: 'the CUDA call at the file and line gpuAssert names (the process exits on it)', catchable: false };
  if (NVIDIA_TOOL.test(text)) {
    const nvrtc = /\bnvrtc\b|NVRTC_/i.test(text);
    return { name: quote(text), platform: 'cuda', what: nvrtc ? 'the NVRTC compile error (an architecture or option the installed CUDA toolkit does not support)' : 'the NVIDIA driver (nvidia-smi, dmesg): the GPU or the driver failed, not the program', catchable: nvrtc };
  }
  if (CUDNN_CHECK.test(text)) return { name: quote(text), platform: 'cuda', what: 'the cuDNN call that failed (no engine or plan for these shapes and types is a support problem, not memory)' };
  if (ARCH_UNSUPPORTED.test(text)) return { name: quote(text), platform: 'cuda', what: 'the PyTorch build: install one built for this GPU\'s compute capability (kernels will fail with "no kernel image is available")', catchable: true };
  if (NPU_CODE.test(text) && /error/i.test(text)) return { name: quote(text), platform: 'npu', what: 'the Ascend error code and the plog (ascend log) of the device' };
  if (AMDGPU_FAULT.test(text)) return { name: `the amdgpu driver reported a GPU fault (${quote(text.replace(/^.*?\bamdgpu \S+ /, ''))})`, platform: 'rocm', what: 'the faulting kernel (a page fault is an out-of-bounds or freed-memory access on the GPU; run with AMD_SERIALIZE_KERNEL=3 and HIP_LAUNCH_BLOCKING=1)' };
  if (DATALOADER_SHM_HINT.test(text)) return { name: 'a DataLoader worker died of a bus error (PyTorch\'s hint: its workers are out of shared memory)', platform: 'cpu', what: 'the size of /dev/shm (Docker\'s 64 MB default: --shm-size or --ipc=host) or fewer DataLoader workers; a full tmpfs, not the process\'s memory', catchable: true };
  if (GDB_ABORT_FRAME.test(text)) return { name: `a native abort: gdb's backtrace stops in abort() (${quote(text)})`, what: 'the frames under abort() in the backtrace: the first one of the program or a library it loaded is where the abort was called (an uncaught C++ exception, a failed assertion)' };
  if (IGC_BUILD_FAILURE.test(text)) return { name: `Intel's GPU compiler could not build a kernel for the device (${quote(text)})`, platform: 'xpu', what: 'the build log\'s first error (an op or type the GPU does not support, such as fp64 on Arc; set the extension\'s fp64 emulation or use another dtype)', catchable: true };
  if (ODBC_DIAGNOSTIC.test(text)) return { name: `a database driver call failed (${quote(text)})`, platform: 'cpu', what: 'the driver\'s SQL code and state (a W code is a warning the driver or binding raised as an error)', catchable: true };
  if (AMDGPU_RESET.test(text)) return { name: `the amdgpu driver reset the GPU (${quote(text.replace(/^.*?\bamdgpu \S+ /, ''))})`, platform: 'rocm', what: 'why the GPU hung: the job timeout or page fault the kernel log shows before the reset (dmesg)' };
  if (ROCR_DEBUG_AGENT.test(text)) return { name: `ROCm's debug agent reported a GPU memory access fault (${quote(text)})`, platform: 'rocm', what: 'the faulting kernel and address the debug agent prints (an out-of-bounds or freed-memory access on the GPU, not memory running out)' };
  const triton = TRITON_OUT_OF_RESOURCES.exec(text);
  if (triton) return { name: `Triton could not launch a kernel: out of ${triton[1]?.trim() ?? 'a per-block resource'} (${quote(text)})`, fallbackPlatform: 'cuda', what: 'the kernel\'s configuration: smaller block sizes or fewer num_stages (the limit is per block on this GPU; free device memory does not help)', catchable: true };
  if (C10D_SOCKET.test(text)) return { name: `c10d could not reach the rendezvous store (${quote(text.replace(/^.*?\[c10d\] /, ''))})`, what: 'the store\'s address and port (MASTER_ADDR/MASTER_PORT), whether rank 0 is up and listening, and firewalls; not memory', catchable: true };
  if (SYNAPSE_ERROR.test(text)) return { name: `a Synapse call failed on Gaudi (${quote(text)})`, platform: 'gaudi', what: 'the synStatus code (synapse_api_types.h) and the call that returned it: acquiring a device that is busy or absent, or a server type the HCL does not support', catchable: true };
  if (JIT_NO_SCHEMA.test(text)) return { name: 'TorchScript found no operator schema for a graph node (Schema not found for node)', what: 'the op in the "Node:" line under it: its library (a custom op, a backend\'s op namespace) is not loaded, or no overload takes the "Input types" listed', catchable: true };
  const ubsan = KERNEL_UBSAN.exec(text);
  if (ubsan) {
    const platform: Platform | undefined = /\bamdgpu\b|\/amd\/(?:amdgpu|amdkfd|display)\//.test(ubsan[1]!) ? 'rocm' : /\bnvidia\b/i.test(ubsan[1]!) ? 'cuda' : undefined;
    return { name: `the kernel's UBSAN reported undefined behaviour (${quote(text.replace(/^.*?\bUBSAN: /, 'UBSAN: '))})`, ...(platform && { platform }), what: 'the kernel source line the report names (a driver bug: update the driver or kernel); not the program, not memory', catchable: false };
  }
  if (NVIDIA_XID.test(text)) return { name: `the NVIDIA driver reported an Xid error (${quote(text)})`, platform: 'cuda', what: 'the Xid code (NVIDIA\'s Xid table: 13/31/43 are application faults, 48/63/64/79/94/95 hardware or driver)' };
  const nccl = NCCL_TRACE.exec(text);
  if (nccl) return { name: `an NCCL call failed with ${NCCL_RESULTS[Number(nccl[1])]} (${quote(text)})`, what: 'the first NCCL WARN line above the "-> N" trace (a socket, bootstrap or topology error names its cause; rerun with NCCL_DEBUG=INFO on every rank)' };
  if (GLIBC_ASSERT.test(text)) return { name: `glibc aborted on an internal assertion: ${quote(text)}`, what: 'the assertion glibc names (in malloc it means the heap was corrupted earlier: run under valgrind or AddressSanitizer)' };
  if (CUDA_GDB_EXCEPTION.test(text)) return { name: `cuda-gdb stopped on a GPU exception (${quote(text)})`, platform: 'cuda', what: 'the kernel and thread cuda-gdb switched focus to (an illegal address is an out-of-bounds or freed-memory access on the GPU, not memory running out)' };
  const acl = ACL_CODE.exec(text);
  if (acl && acl[1] !== '207001') return { name: `a CANN runtime call failed with code ${acl[1]} (${quote(text)})`, platform: 'npu', what: 'the ACL error code in the CANN error-code table (1xxxxx: a usage error such as no current context; 5xxxxx: internal) and the plog of the device', catchable: true };
  if (GLIBC_HEAP.test(text)) return { name: `glibc detected heap corruption: ${quote(text)}`, what: 'the heap corruption (run under valgrind or AddressSanitizer to find the bad write or free)' };
  if ((WINDOWS_CRASH.test(text) && /code|status|exception|error|fault/i.test(text)) || WINDOWS_CRASH_EXIT.test(text)) return { name: `a native crash (${quote(text)})`, what: 'the native crash (0xC0000005 is an access violation; the faulting module is named in the report)' };
  // Metal's command buffer failing for something other than memory (IOAF code 8 and "Insufficient Memory" are the OOM ones).
  if (/command buffer exited with error status|\(IOAF code \d+\)/.test(text) && !/IOAF code 8\b|Insufficient Memory|OutOfMemory/.test(text)) return { name: quote(text), platform: 'mps', what: 'the Metal command buffer error (the IOAF code says why the GPU rejected it)' };
  if (CHROMIUM_FATAL.test(text)) return { name: quote(text.replace(/^.*?:FATAL:/, 'FATAL:')), what: 'the fatal check and the component that made it' };
  if (CANN_CODE.test(text) && /error|fail/i.test(text)) return { name: quote(text), platform: 'npu', what: 'the CANN/torch_npu error code and the plog (ascend log) of the device', catchable: true };
  if (LLVM_FATAL.test(text)) return { name: quote(text), what: 'the code generator\'s fatal error (LLVM aborted the process: an unsupported op, shape or type for this backend)' };
  const panic = RUST_PANIC.exec(text);
  if (panic) return { name: `a Rust panic in thread '${panic[1]}': ${quote(text.slice(panic.index + panic[0].length))}`, what: 'the panic message and the source location it names (rerun with RUST_BACKTRACE=1)' };
  if (JVM_LAUNCH.test(text)) return { name: `the Java VM did not start (${quote(text)})`, platform: 'cpu', what: 'the JVM\'s options: the line above this one names the option or setting it rejected' };
  if (PIP_FAILURE.test(text)) return { name: `pip could not install a package (${quote(text)})`, what: 'the package index and the versions it offers for this Python and platform (an install failure, not a run)' };
  if (HIP_NO_DEVICE.test(text)) return { name: `a HIP call failed: no ROCm-capable device is detected (${quote(text)})`, platform: 'rocm', what: 'the ROCm install: the runtime sees no supported AMD GPU (driver, /dev/kfd permissions, HIP_VISIBLE_DEVICES, an unsupported gfx target)', catchable: true };
  const core = COREDUMP.exec(text);
  if (core && core[3] !== 'KILL') return { name: `${core[1]} crashed with signal ${core[2]}/${core[3]} (systemd-coredump)`, what: 'the core dump (coredumpctl info / coredumpctl gdb) of the crashed process' };
  if (XNU_GPU_PANIC_STRING.test(text)) return { name: `the macOS kernel panicked in the GPU driver (${quote(text)})`, platform: 'mps', what: 'the panic report: the GPU driver (IOGPU/AGX) panicked, which takes the whole machine down; an OS or driver bug, or the workload that drove it there, not the program\'s memory', catchable: false };
  const jcl = JCL_EXCEPTION.exec(text);
  if (jcl && jcl[1] !== 'EOutOfMemory') {
    return { name: `a Delphi exception, ${jcl[1]} (JclDebug's report)`, platform: 'cpu', what: `the ${jcl[1]} and the first frame of the program's own units in the stack under the report${jcl[1] === 'EOutOfResources' ? ' (EOutOfResources is a failed GDI or window-handle call: a bitmap too large, handles leaked)' : ''}`, catchable: true };
  }
  const ghc = GHC_ERROR.exec(text);
  if (ghc) return { name: `GHC failed to compile ${ghc[1]} (line ${ghc[2]})`, ...(/[\\/]PTX[\\/]|\blibdevice\b|\bNVVM\b/i.test(text) && { platform: 'cuda' as const }), what: 'the compile error under the file and line GHC names (a Template Haskell splice that threw at compile time says why below it); a build failure, not memory', catchable: false };
  const pmix = SLURM_PMIX_ERROR.exec(text);
  if (pmix) return { name: `Slurm's PMIx plugin reported an error in the job step (status ${pmix[1]})`, what: 'the processes of the step that ended first (their own output, sacct\'s exit codes): the PMIx error is Slurm seeing them abort or drop their connection; not memory', catchable: false };
  if (XNU_PANIC.test(text)) return { name: `the macOS kernel panicked (${quote(text)})`, ...(/\bIOGPU|\bAGX/.test(text) && { platform: 'mps' as const }), what: 'the panic report: the kernel extension it names (IOGPU/AGX is the GPU driver), not the program' };
  if (OPAL_BACKTRACE.test(text)) return { name: 'a native crash: the process\'s signal handler printed its backtrace (Open MPI)', what: 'the innermost frames of the backtrace and the signal line above them (run under gdb to see where)' };
  if (SANITIZER.test(text)) return { name: `compute-sanitizer found a memory access error in a kernel (${quote(text.replace(/^=+\s*/, ''))})`, platform: 'cuda', what: 'the kernel and source line the sanitizer report names (an out-of-bounds or misaligned access, not memory running out)' };
  const elastic = ELASTIC_SIGNAL.exec(text);
  if (elastic) return { name: `torchelastic's agent was stopped by signal ${elastic[1]} (SignalException)`, what: 'who sent the signal: 1 is SIGHUP (the terminal or nohup session closed), 15 SIGTERM (the scheduler or a user); not memory' };
  if (DRIVER_PROBE.test(text)) return { name: `a kernel driver failed to bind its device (${quote(text)})`, what: 'the driver named in the kernel log and the errno it returned' };
  // A failure, not a setting that mentions errors ("CUDA error checking enabled"): "ERROR:", "error-code N", "CUDA ERROR]", "failed".
  // The CUDA_CHECK macro of the CUDA samples and early llama.cpp prints "CUDA error %d at %s:%d: %s" (the code, the file and line, cudaGetErrorString).
  const failed = /\berror\s*[:\]]|error[- ]?(?:code|no)\b|\bfailed\b|\berror \d+ at \S+:\d+: /i.test(text) || /\bERROR\b/.test(text);
  if (failed && APP_CUDA_CHECK.test(text) && /\berror\b/i.test(text) && /\b(?:CUDA|cuda|Cuda)\b|\.cu\b/.test(text)) return { name: quote(text), platform: 'cuda', what: 'the CUDA call the check names (a non-memory CUDA error)' };
  return undefined;
}
