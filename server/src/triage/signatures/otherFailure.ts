/**
 * Fallback 2 of 2: any other failure is not-oom. The issue this engine serves says it must triage
 * ANY crash output, "not an OOM" included; a log that failed in a way no specific signature knows
 * still says how it failed in its last lines. These signatures read those lines:
 *
 * - the exception line that ends a Python traceback (`SomeError: message`, or the bare type), with
 *   that traceback's frames; catchable (launcher exceptions about a dead worker, ChildFailedError and
 *   SignalException, are not: the worker is gone), torchrun's ChildFailedError table giving the rank;
 * - `terminate called after throwing …`, glog's `Check failed:`, `Fatal Python error`, `Segmentation
 *   fault`, `Aborted (core dumped)` / SIGABRT (not catchable);
 * - a launcher saying a rank or process exited with a non-zero code or was sent SIGTERM
 *   (torch.distributed.elastic), MPI's `BAD TERMINATION` banner (MPICH/Hydra; `EXIT CODE: 9` is a
 *   SIGKILL, the host-kill family).
 *
 * They are NOT in the hot scan: `Error` is on every other line of a training log (warnings, a
 * program's own recovered tracebacks), and running them there would cost every log. The engine
 * runs them once, at the end, over the tail it still holds (the last HISTORY_CHARS), and only when
 * no specific signature found anything (`TAIL_ANCHORS` is their own prefilter; every needle here
 * contains one). Of what they find, the engine keeps one verdict: the last exception/abort line
 * (the failure the log ended with, not a traceback the program printed and went on from), unless a
 * crash (segfault, abort) came well after it; else the last launcher line.
 */
import type { Fix, Platform, SourceFrame } from '../../protocol';
import { framesOf, isTracebackBody } from '../frames';
import { formatBytes } from '../../format';
import { SIZE, toBytes } from '../sizes';
import { debugAsync, hostMemory, shrinkPeak } from '../fixes';
import { caffe2Device } from './lineContext';
import { platformNear } from './otherOom';
import type { Finding, LineView, Signature } from './types';

/** A row of the kernel OOM killer's task table (dump_tasks), as the tail pass's prefilter sees it. */
const TASK_ROW_ANCHOR = String.raw`\[ *\d+\] +\d+ +\d+ +\d+ +\d+ +\d+`;

/** The tail pass's prefilter (over the ASCII view of the retained tail). */
export const TAIL_ANCHORS: readonly string[] = ['Error', 'Exception', 'terminate called', 'Abort', 'SIGABRT', 'Segmentation fault', 'Check failed', 'Fatal Python', 'exit code', 'exitcode', 'return code', 'SIGTERM', 'death signal', 'BAD TERMINATION', TASK_ROW_ANCHOR, 'container oom ',
  'Traceback \\(most', 'SIGSEGV', 'SIGILL', 'SIGBUS', 'SIGFPE', 'signal 11', 'CUDA_ERROR_', 'double free', 'corrupt', 'c0000', 'C0000', ':FATAL:', '5070', 'CUDA ERROR', 'CUDA error', '\\.cu\\b', 'does not fit on the devices', 'Total hbm usage', 'signal sigkill', 'IOAF code', 'To enable traceback see', '\\.cc:\\d+ -> [1-6]\\b', 'page fault', 'PROTECTION_FAULT', 'NVRM: ', 'ring \\S+ timeout',
  // Crash reports of shells and runtimes, CUDA/NVIDIA tooling, CANN and torch_npu codes, the JVM launcher, pip.
  'Floating point exception', 'Illegal instruction', 'zsh: (?:abort|segmentation|floating|illegal|bus)', 'LLVM ERROR', 'panicked at',
  'no kernel image is', 'launch failure', 'unsupported toolchain', 'busy or unavailable', 'version is insufficient', 'CUDA-capable device',
  'illegal instruction was', 'launch timed out', 'too many resources requested', 'kernel image is invalid', 'forward compatibility was attempted',
  'Unable to determine the device handle', 'Failed to initialize NVML', 'NVIDIA-SMI has failed', 'nvrtc', 'NVRTC_ERROR', 'CUDNN ERROR', 'cudnn_frontend\\] Error',
  'E[A-Z]\\d{4}: ', 'ERR\\d{5} ', 'Java Virtual Machine', 'Program will exit', 'matching distribution', 'satisfies the requirement', 'ailed building wheel',
  'subprocess-exited-with-error', 'ResolutionImpossible', 'is not compatible with the current PyTorch', 'failed with error -\\d',
  // Host kills and allocation failures no hot anchor reads (cpu.ts tailHostKill, tailAllocFailure below).
  'Tasks state \\(memory', 'low on resource', 'gmem\\.c:\\d+: failed to allocate', 'CL_MEM_OBJECT_ALLOCATION_FAILURE', 'CL_OUT_OF_HOST_MEMORY', 'VK_ERROR_OUT_OF_(?:DEVICE|HOST)_MEMORY', 'ErrorOutOf(?:Device|Host)Memory', 'Not enough space to allocate \\d+ B ',
  // Parents reporting a child's end (Node's child_process 'exit' event, launchd's stop timeout), DataLoader's worker signal handler.
  'xit(?:ed)? with code', 'seconds after SIGTERM', 'encountered in worker',
  // Host kills told by a compiler driver, a parent's exit status 137, Slurm's cgroup plugin, the OOM killer's stack (cpu.ts tailHostKill).
  // Native crashes told by the C++ runtime, the OS and tools outside ML frameworks; a Go program's child exit status; HIP's no-device string.
  'terminating due to uncaught exception', 'terminated abnormally with signal', 'crashed with signal \\d+/', 'panic\\(cpu \\d+ caller', '\\] \\[ ?\\d+\\] \\S+\\(', '={5,} +(?:Invalid __|Misaligned|Out-of-range)', 'ROCm-capable device', 'exit status [1-9]', 'Command buffer execution failed: Insufficient Memory', 'maximum allowed buffer size',
  'Killed signal terminated program', 'exit(?:ed)?\\b[\\w ]{0,24}[:(]?\\s*137\\b', 'oom[-_]kill event', 'out_of_memory\\+0x', 'oom_kill_process\\+0x',
  // Colab's RAM crash notice (cpu.ts tailHostKill); redis's and mimalloc's allocation failures (tailAllocFailure below).
  'all available RAM', 'aborting for OUT OF MEMORY', 'mimalloc: error: unable to allocate',
  // CUDA_CHECK's 'CUDA error N at' is read through 'CUDA error' above; vLLM's client seeing its engine process die; Ollama's host-memory refusal (tailModelDoesNotFit).
  'Engine core proc \\S+ died unexpectedly', 'requires more system memory',
  // The collective watchdog's loop frame under WorkNCCL::checkTimeout in PyTorch 2.8+ (cuda.ts tailWatchdogFrames).
  '::Watchdog::run',
  // WebAssembly's linear memory running out (tailAllocFailure; a wasm trap's 'RuntimeError: ' is read through 'Error').
  'Aborted\\(OOM\\)', 'Cannot enlarge memory arrays', 'could not allocate memory',
  // A launcher's 'exit with status code N' (Horovod's gloo runner).
  'exit with status code',
  // SQLite's SQLITE_CANTOPEN message.
  'unable to open database file',
  // The shell's report of a SIGBUS ('Bus error (core dumped)', bash's strsignal; zsh's own 'zsh: bus error' is above).
  '[Bb]us error',
  // fish's report of a job killed by a signal (cpu.ts tailHostKill reads SIGKILL).
  'by signal SIGKILL',
  // The sanitizers' allocator reports and macOS's malloc mmap failure (tailAllocFailure).
  'Sanitizer(?: failed to allocate|: requested allocation)', 'mmap\\(size=',
  // glibc's internal assertion; cuda-gdb's GPU exception signal; a CANN runtime code in a caller's 'ACL ERROR' line.
  'Fatal glibc error', 'CUDA_EXCEPTION_\\d', 'ACL ERROR',
  // vulkano's out-of-memory error values (tailAllocFailure's Vulkan class).
  'Error\\(OutOf(?:Device|Host)Memory\\)'];

/** How strongly a finding says "this is how the log failed": 2 = the error itself, 1 = a launcher or the shell reporting it. */
export type Tier = 1 | 2;

const lookAtFailure = (what: string): Fix => ({
  id: 'look-at-failure',
  title: `Not a memory problem: start from ${what}`,
  rationale: 'Nothing in the log says memory ran out; lowering memory use will not help. The failing line and the frames above it are where to look.',
});

const findTheFirstFailure: Fix = {
  id: 'find-first-failure',
  title: 'Find the first rank or process that failed (its own log or traceback), not the launcher that reported it',
  rationale: 'The launcher only reports that a worker exited or was stopped; the reason is in that worker\'s output, which this log does not show.',
};

/** A Python exception line: an optional dotted module, a type ending in Error/Exception/Interrupt/Exit, and its message. */
const EXCEPTION_LINE = /^\s*((?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Exception|Interrupt|Exit)))(?::(?:\s+(.*))?)?\s*$/;
/** IPython's header line: "ResourceExhaustedError     Traceback (most recent call last)". */
const IPYTHON_HEADER = /^\s*((?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Exception)))\s+Traceback \(most recent call last\)/;
/** Exceptions a launcher raises about a worker that is already dead. */
const LAUNCHER_EXCEPTION = /^(?:ChildFailedError|SignalException|ProcessRaisedException|ProcessExitedException)$/;
/**
 * vLLM's logger prefix on an error line (vllm/logger.py _FORMAT "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] ",
 * datefmt "%m-%d %H:%M:%S": "ERROR 08-01 03:39:06 [core.py:667] "), which it puts before each line of a logged traceback
 * and of the exception under it; only ERROR and CRITICAL lines are taken off, so a warning stays a warning.
 */
const LOGGER_ERROR_PREFIX = /^(?:ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[\w.-]+:\d+\] (?=(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): )/;
const CI_PREFIX = /^\[[^\]]*\d{2}:\d{2}:\d{2}[^\]]*\]\s*(?:\S+\s*\|\|\s*)?/;

/**
 * A native crash as the process, its shell or its parent reports it: bash's job status pads the signal's
 * name to a column ("line 16: 37055 Aborted                 (core dumped) python …", "Floating point
 * exception (core dumped)", "Illegal instruction"), zsh prints it in lower case ("zsh: abort      python
 * train.py", "zsh: segmentation fault", "zsh: illegal hardware instruction"). A DataLoader worker's own SIGSEGV/SIGFPE
 * handler (torch/csrc/DataLoader.cpp) prints "ERROR: Unexpected segmentation fault encountered in worker." before it
 * re-raises; its bus-error sibling is the shared-memory host signature in cpu.ts.
 */
const CRASH = /Segmentation fault|\bSIG(?:SEGV|ILL|BUS|FPE)\b|\bsignal 11\b|Aborted\s+\(core dumped\)|^\s*Aborted\s*$|\bline \d+: +\d+ Aborted\b|interrupted by signal 6|SIGABRT|Fatal Python error|Bus error|^\s*bus error(?: \(core dumped\))?\s*$|Floating point exception|Illegal instruction(?: \(core dumped\)|\s*$)|\bzsh: (?:abort|segmentation fault|floating point exception|illegal hardware instruction|bus error)\s|\bUnexpected (?:segmentation fault|floating-point exception) encountered in worker\b/;
const CHECK_FAILED = /Check failed:|^\s*F\d{4} /;
/** A launcher or parent reporting a child's end: torchrun, DeepSpeed, MPI, Node's child_process "exit with code N, signal null", launchd's "Service did not exit 5 seconds after SIGTERM. Sending SIGKILL." (a stop timeout, not memory). */
const LAUNCHER = /(?:exit|exited|exits|failed) with (?:a )?(?:non-zero )?(?:exit )?(?:status code|code|status|return code)\s*[=:]?\s*-?[1-9]\d*|\bexit(?:code| code)\s*[:=]?\s*-?[1-9]\d*|closing signal SIGTERM|via signal SIGTERM|\bdid not exit \d+ seconds after SIGTERM|Received \d+ death signal|BAD TERMINATION|\bexit status [1-9]\d*\b(?! \()|\bEngine core proc \S+ died unexpectedly|^\s*traceback\s*: To enable traceback see: https:\/\/pytorch\.org\/docs\/stable\/elastic\/errors/;

function base(line: LineView, tier: Tier, name: string, catchable: boolean, fixes: Fix[]): Finding {
  const platform = platformNear(line);
  // torch_npu's suffix "(PID:…, Device:N, RankID:…)" on the line or the two after it names the local device.
  let device: number | undefined;
  for (let k = 0; k <= 2 && platform === 'npu' && device === undefined; k++) {
    const m = /\(PID:\d+, Device:(\d+), RankID:-?\d+\)/.exec(k === 0 ? line.content : (line.next(k) ?? ''));
    if (m) device = Number(m[1]);
  }
  // Else the Ascend device's exception dump above it: "DEVICE[0] PID[358]:", then "EXCEPTION STREAM:".
  for (let k = 1; k <= 30 && platform === 'npu' && device === undefined; k++) {
    const m = /^\s*DEVICE\[(\d+)\] PID\[\d+\]:/.exec(line.previous(k) ?? '');
    if (m && /^\s*EXCEPTION STREAM:/.test(line.previous(k - 1) ?? '')) device = Number(m[1]);
  }
  return {
    ...(device !== undefined && { device }),
    signature: 'other-failure',
    role: 'failure',
    fallback: 'failure',
    kind: 'not-oom',
    platform,
    catchable,
    summary: `${name} (not an out-of-memory error)`,
    explanation:
      `The log shows a failure that is not an out-of-memory error: ${name}. Nothing in it says memory ran out, ` +
      'and no signature Headroom has for a known runtime error matched it; it is read from the failure line the log ended with. ' +
      (catchable ? 'It was raised as an exception the program could have caught.' : 'The process did not get an exception it could catch.'),
    ...(line.rank !== undefined && { rank: line.rank }),
    numbers: {},
    fixes,
    facts: { tier },
  };
}

function quote(text: string): string {
  const t = text.trim();
  return t.length > 140 ? `${t.slice(0, 137)}...` : t;
}

/** The frames of an IPython traceback whose header is this line, up to its exception line (outermost first). */
export function ipythonFrames(line: LineView): SourceFrame[] {
  const body: string[] = [];
  for (let k = 1; k <= 40; k++) {
    const next = line.next(k);
    if (next === undefined || /^[A-Za-z_][\w.]*(?:Error|Exception)\b/.test(next)) break;
    body.push(next);
  }
  return framesOf(body);
}

/** The rank of torchrun's "Root Cause (first observed failure)" table under a ChildFailedError. */
function rootCauseRank(line: LineView): number | undefined {
  // With several failures listed, "Failures:" comes first and "Root Cause (first observed failure):" last;
  // the root cause's rank is the one to report.
  let from = 1;
  for (let k = 1; k <= 60; k++) {
    const next = line.next(k);
    if (next === undefined) break;
    if (/Root Cause \(first observed failure\)/.test(next)) {
      from = k + 1;
      break;
    }
  }
  for (let k = from; k <= from + 11; k++) {
    const m = /^\s*rank\s*:\s*(\d+)/.exec(line.next(k) ?? '');
    if (m) return Number(m[1]);
  }
  return undefined;
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
const CUDA_GDB_EXCEPTION = /\bCUDA Exception: [A-Z][\w ]+$|\breceived signal CUDA_EXCEPTION_\d+\b/;
/**
 * A CANN runtime error code as a caller logs it ("acl Error, code: 107002 at x.cpp:63", "ACL ERROR: api=aclrtMallocHost,
 * code=107002, …"): rt_error_codes.h's 1xxxxx are usage errors (107002 ACL_ERROR_RT_CONTEXT_NULL), 5xxxxx internal ones;
 * 207001 (ACL_ERROR_RT_MEMORY_ALLOCATION) is the allocation failure tailAllocFailure reads.
 */
const ACL_CODE = /\bacl(?:rt)?\s*error\b[,:]?[^\n]*?\bcode\s*[:=]\s*([1-5]\d{5})\b/i;
const WINDOWS_CRASH = /\b(?:0x)?[cC]0000(?:005|409|01[dD]|0[fF][dD]|374|096|602)\b/;
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
const NVIDIA_XID = /\bNVRM: Xid \(PCI:[\w:.]+\): \d+/;
const NCCL_RESULTS = ['', 'ncclUnhandledCudaError', 'ncclSystemError', 'ncclInternalError', 'ncclInvalidArgument', 'ncclInvalidUsage', 'ncclRemoteError'];

/**
 * The CUDA runtime's and driver's error strings (cudaGetErrorString/cuGetErrorString, driver_types.h) for
 * failures other than memory, printed by a program without the status name: "Failed to initialize miner on
 * GPU0: … no kernel image is available for execution on the device", Kaldi's 'cudaError_t 4 : "unspecified
 * launch failure" returned from …', hashcat's "cuLinkAddData(): the provided PTX was compiled with an
 * unsupported toolchain." The call returned the error to its caller.
 */
const CUDA_ERROR_STRING = /no kernel image is available for execution on the device|unspecified launch failure|the provided PTX was compiled with an unsupported toolchain|all CUDA-capable devices are busy or unavailable|CUDA driver version is insufficient for CUDA runtime version|no CUDA-capable device is detected|an illegal instruction was encountered|the launch timed out and was terminated|too many resources requested for launch|device kernel image is invalid|forward compatibility was attempted on non supported HW/;
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
const CANN_CODE = /(?:^|[\s:\]])E[A-Z]\d{4}: \S|\bERR\d{5} [A-Z]{2,}\b/;
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
/**
 * MLX's Metal allocator refusing one buffer over the device's largest (MTLDevice.maxBufferLength): "[metal::malloc]
 * Attempting to allocate N bytes which is greater than the maximum allowed buffer size of M bytes." (older builds
 * without the prefix). Like MPS's "Invalid buffer size", not an OOM: the pool is not full, the array is too large
 * for any buffer.
 */
const MLX_BUFFER_LIMIT = /Attempting to allocate (\d+) bytes which is greater than the maximum allowed buffer size of (\d+) bytes/;
/** HIP's hipGetErrorString for hipErrorNoDevice (100): "no ROCm-capable device is detected" (hipinfo's checkHipErrors, ZLUDA's "Hip error"). */
const HIP_NO_DEVICE = /no ROCm-capable device is detected|\bhipErrorNoDevice\b/;
/** systemd-coredump's journal line (coredump.c): "Process 4242 (python3) of user 1000 terminated abnormally with signal 11/SEGV, processing...", since v256 "PID 4242 (python3) crashed with signal 11/SEGV, processing coredump." (systemd#30229). SIGKILL dumps no core. */
const COREDUMP = /\b(?:Process|PID) \d+ \(([^)]*)\) (?:of user \d+ terminated abnormally|crashed) with signal (\d+)\/([A-Z]+)/;
/** The macOS (xnu) kernel's panic report: "panic(cpu 3 caller 0xfffffe…): "message" @File.cpp:550"; IOGPU/AGX name Apple's GPU driver. */
const XNU_PANIC = /^\s*panic\(cpu \d+ caller 0x[0-9a-f]+\): /;
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

function nativeFailure(text: string): { name: string; platform?: Platform; what: string; catchable?: boolean; device?: number } | undefined {
  // Before the out-of-memory words are set aside: SQLite may print them beside code 14.
  if (SQLITE_CANTOPEN.test(text)) return { name: `SQLite could not open the database file (SQLITE_CANTOPEN; ${quote(text)})`, what: 'the database path: its directory must exist and be writable (a missing or wrong path, permissions); the words "out of memory" SQLite may print with code 14 are not memory', catchable: true };
  if (/out of memory|OutOfMemory|OUT_OF_MEMORY|MemoryAllocation|error[- ]?code[ :=]*2\b|warn/i.test(text)) return undefined;
  const status = RUNTIME_STATUS.exec(text);
  if (status) return { name: quote(text), platform: status[1] === 'hip' ? 'rocm' : 'cuda', what: 'the failed CUDA/HIP call (a launch failure or fault is usually an earlier kernel\'s error; run with CUDA_LAUNCH_BLOCKING=1 or compute-sanitizer)' };
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
  if (NVIDIA_TOOL.test(text)) {
    const nvrtc = /\bnvrtc\b|NVRTC_/i.test(text);
    return { name: quote(text), platform: 'cuda', what: nvrtc ? 'the NVRTC compile error (an architecture or option the installed CUDA toolkit does not support)' : 'the NVIDIA driver (nvidia-smi, dmesg): the GPU or the driver failed, not the program', catchable: nvrtc };
  }
  if (CUDNN_CHECK.test(text)) return { name: quote(text), platform: 'cuda', what: 'the cuDNN call that failed (no engine or plan for these shapes and types is a support problem, not memory)' };
  if (ARCH_UNSUPPORTED.test(text)) return { name: quote(text), platform: 'cuda', what: 'the PyTorch build: install one built for this GPU\'s compute capability (kernels will fail with "no kernel image is available")', catchable: true };
  if (NPU_CODE.test(text) && /error/i.test(text)) return { name: quote(text), platform: 'npu', what: 'the Ascend error code and the plog (ascend log) of the device' };
  if (AMDGPU_FAULT.test(text)) return { name: `the amdgpu driver reported a GPU fault (${quote(text.replace(/^.*?\bamdgpu \S+ /, ''))})`, platform: 'rocm', what: 'the faulting kernel (a page fault is an out-of-bounds or freed-memory access on the GPU; run with AMD_SERIALIZE_KERNEL=3 and HIP_LAUNCH_BLOCKING=1)' };
  if (NVIDIA_XID.test(text)) return { name: `the NVIDIA driver reported an Xid error (${quote(text)})`, platform: 'cuda', what: 'the Xid code (NVIDIA\'s Xid table: 13/31/43 are application faults, 48/63/64/79/94/95 hardware or driver)' };
  const nccl = NCCL_TRACE.exec(text);
  if (nccl) return { name: `an NCCL call failed with ${NCCL_RESULTS[Number(nccl[1])]} (${quote(text)})`, what: 'the first NCCL WARN line above the "-> N" trace (a socket, bootstrap or topology error names its cause; rerun with NCCL_DEBUG=INFO on every rank)' };
  if (GLIBC_ASSERT.test(text)) return { name: `glibc aborted on an internal assertion: ${quote(text)}`, what: 'the assertion glibc names (in malloc it means the heap was corrupted earlier: run under valgrind or AddressSanitizer)' };
  if (CUDA_GDB_EXCEPTION.test(text)) return { name: `cuda-gdb stopped on a GPU exception (${quote(text)})`, platform: 'cuda', what: 'the kernel and thread cuda-gdb switched focus to (an illegal address is an out-of-bounds or freed-memory access on the GPU, not memory running out)' };
  const acl = ACL_CODE.exec(text);
  if (acl && acl[1] !== '207001') return { name: `a CANN runtime call failed with code ${acl[1]} (${quote(text)})`, platform: 'npu', what: 'the ACL error code in the CANN error-code table (1xxxxx: a usage error such as no current context; 5xxxxx: internal) and the plog of the device', catchable: true };
  if (GLIBC_HEAP.test(text)) return { name: `glibc detected heap corruption: ${quote(text)}`, what: 'the heap corruption (run under valgrind or AddressSanitizer to find the bad write or free)' };
  if (WINDOWS_CRASH.test(text) && /code|status|exception|error|fault/i.test(text)) return { name: `a native crash (${quote(text)})`, what: 'the native crash (0xC0000005 is an access violation; the faulting module is named in the report)' };
  // Metal's command buffer failing for something other than memory (IOAF code 8 and "Insufficient Memory" are the OOM ones).
  if (/command buffer exited with error status|\(IOAF code \d+\)/.test(text) && !/IOAF code 8\b|Insufficient Memory|OutOfMemory/.test(text)) return { name: quote(text), platform: 'mps', what: 'the Metal command buffer error (the IOAF code says why the GPU rejected it)' };
  if (CHROMIUM_FATAL.test(text)) return { name: quote(text.replace(/^.*?:FATAL:/, 'FATAL:')), what: 'the fatal check and the component that made it' };
  if (CANN_CODE.test(text) && /error|fail/i.test(text)) return { name: quote(text), platform: 'npu', what: 'the CANN/torch_npu error code and the plog (ascend log) of the device', catchable: true };
  if (LLVM_FATAL.test(text)) return { name: quote(text), what: 'the code generator\'s fatal error (LLVM aborted the process: an unsupported op, shape or type for this backend)' };
  const panic = RUST_PANIC.exec(text);
  if (panic) return { name: `a Rust panic in thread '${panic[1]}': ${quote(text.slice(panic.index + panic[0].length))}`, what: 'the panic message and the source location it names (rerun with RUST_BACKTRACE=1)' };
  if (JVM_LAUNCH.test(text)) return { name: `the Java VM did not start (${quote(text)})`, platform: 'cpu', what: 'the JVM\'s options: the line above this one names the option or setting it rejected' };
  if (PIP_FAILURE.test(text)) return { name: `pip could not install a package (${quote(text)})`, what: 'the package index and the versions it offers for this Python and platform (an install failure, not a run)' };
  const mlx = MLX_BUFFER_LIMIT.exec(text);
  if (mlx) return { name: `one MLX array of ${formatBytes(Number(mlx[1]))} is over Metal's largest buffer (${formatBytes(Number(mlx[2]))})`, platform: 'mps', what: 'the op that builds one array this large: split it (smaller batch, chunked attention or sequence); free memory does not help', catchable: true };
  if (HIP_NO_DEVICE.test(text)) return { name: `a HIP call failed: no ROCm-capable device is detected (${quote(text)})`, platform: 'rocm', what: 'the ROCm install: the runtime sees no supported AMD GPU (driver, /dev/kfd permissions, HIP_VISIBLE_DEVICES, an unsupported gfx target)', catchable: true };
  const core = COREDUMP.exec(text);
  if (core && core[3] !== 'KILL') return { name: `${core[1]} crashed with signal ${core[2]}/${core[3]} (systemd-coredump)`, what: 'the core dump (coredumpctl info / coredumpctl gdb) of the crashed process' };
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

/** The frames of a rich traceback box the log ends inside ("│ /path/x.py:450 in fn │"; the function may wrap to the next line). */
function richCutFrames(line: LineView): SourceFrame[] | undefined {
  const frames: SourceFrame[] = [];
  for (let k = 1; ; k++) {
    const next = line.next(k);
    if (next === undefined) break;
    const l = next.trim();
    if (l === '') continue;
    if (!/^[│╰]/.test(l) || k > 2000) return undefined;
    const m = /^│\s*((?:[A-Za-z]:)?[^\s:│]+\.py):(\d+) in\b\s*([^\s│]*)/.exec(l);
    if (m) frames.push({ file: m[1]!, line: Number(m[2]), function: m[3] || (line.next(k + 1) ?? '').replace(/[│\s]/g, '') });
  }
  return frames.length > 0 ? frames : undefined;
}

/**
 * A Python traceback the log ends inside: the header and frame lines run to the last line, so the
 * exception line was cut (a paste, a crash report cut short, a process killed while printing). The
 * frames still say where the run failed; what failed is unknown, and nothing in it says memory.
 */
function cutTraceback(line: LineView, text: string): SourceFrame[] | undefined {
  const at = text.indexOf('Traceback (most recent call last)');
  if (at < 0) return undefined;
  // rich's traceback box: "╭──── Traceback (most recent call last) ────╮", then "│ …" lines.
  const rich = /╭[─\s]*$/.test(text.slice(0, at));
  if (text.slice(at).replace(/^Traceback \(most recent call last\):?/, '').replace(rich ? /[─╮\uFFFD]/g : /$^/, '').trim() !== '') return undefined;
  if (rich) return richCutFrames(line);
  // A logger's prefix in front of every line ("ERROR 04-29 13:23:34 [core.py:396] "), its digits free to change.
  const head = line.content.slice(0, line.content.indexOf('Traceback (most recent call last)'));
  const prefix = new RegExp('^' + head.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\d+/g, '\\d+'));
  const body: string[] = [];
  for (let k = 1; ; k++) {
    const next = line.next(k);
    if (next === undefined) break;
    const l = head !== '' ? next.replace(prefix, '') : next;
    if (l.trim() === '') continue;
    if (!isTracebackBody(l)) return undefined;
    body.push(l);
    if (k > 2000) return undefined;
  }
  const frames = framesOf(body);
  return frames.length > 0 ? frames : undefined;
}

export const otherFailure: Signature = {
  id: 'other-failure',
  platform: 'cpu',
  needles: ['Error', 'Exception', 'terminate called', 'Abort', 'SIGABRT', 'Segmentation fault', 'Check failed', 'Fatal Python', 'exit code', 'exitcode', 'return code', 'SIGTERM', 'death signal', 'BAD TERMINATION',
    'Traceback (most', 'SIGSEGV', 'SIGILL', 'SIGBUS', 'SIGFPE', 'signal 11', 'CUDA_ERROR_', 'double free', 'corrupt', 'c0000', 'C0000', ':FATAL:', '5070', 'CUDA ERROR', 'CUDA error', '.cu', 'To enable traceback see', ' -> ', 'page fault', 'PROTECTION_FAULT', 'NVRM: ', ' timeout',
    'Floating point exception', 'Illegal instruction', 'zsh: ', 'LLVM ERROR', 'panicked at', 'no kernel image is', 'launch failure', 'unsupported toolchain',
    'busy or unavailable', 'version is insufficient', 'CUDA-capable device', 'illegal instruction was', 'launch timed out', 'too many resources requested',
    'kernel image is invalid', 'forward compatibility was attempted', 'Unable to determine the device handle', 'Failed to initialize NVML', 'NVIDIA-SMI has failed',
    'nvrtc', 'NVRTC_ERROR', 'CUDNN ERROR', 'cudnn_frontend', ': ', 'ERR', 'Java Virtual Machine', 'Program will exit', 'matching distribution',
    'satisfies the requirement', 'ailed building wheel', 'subprocess-exited-with-error', 'ResolutionImpossible', 'is not compatible with the current PyTorch', 'failed with error -',
    'xit with code', 'xited with code', 'seconds after SIGTERM', 'encountered in worker', 'terminating due to uncaught', 'terminated abnormally', 'crashed with signal', 'panic(cpu', '] [', '=====', 'ROCm-capable', 'exit status', 'maximum allowed buffer size', 'exit with status code', 'died unexpectedly', 'us error', 'Fatal glibc', 'CUDA_EXCEPTION_'],
  match(line) {
    const text = line.content.replace(CI_PREFIX, '').replace(LOGGER_ERROR_PREFIX, '');
    // libc++'s form (libc++abi's default terminate handler): "libc++abi: terminating due to uncaught exception of type std::runtime_error: msg".
    if (text.includes('terminate called after throwing') || /\bterminating due to uncaught exception of type /.test(text)) {
      const what = /^\s*what\(\):\s*(.*)$/.exec(line.next(1) ?? '')?.[1];
      const f = base(line, 2, quote(what ? `${text.trim()}: ${what}` : text), false, [lookAtFailure('the C++ exception that nothing caught (its what() message)')]);
      // The exception's message may name the platform (libc++abi prints it on the same line).
      const named = nativeFailure(what ? `${text} ${what}` : text)?.platform;
      if (named) f.platform = named;
      return { ...f, extraLines: what !== undefined ? [1] : [] };
    }
    if (CHECK_FAILED.test(text) && /Check failed:/.test(text)) {
      // TensorFlow's BFC allocator aborting on a CHECK right after its out-of-memory report (the occupancy
      // map of '*' and '_' that BFCAllocator logs after "ran out of memory", IBM LMS's "Enabling Large Model
      // Support may avoid this failure"): the allocation failure escaped as a glog FATAL.
      if (/bfc_allocator\.cc:\d+\]/.test(text)) {
        let report = false;
        for (let k = 1; k <= 6 && !report; k++) report = /bfc_allocator\.cc:\d+\].*(?:ran out of memory|\*{16}|Large Model Support may avoid)|^[*_]{16,}\s*$/.test(line.previous(k) ?? '');
        if (report) {
          return {
            ...base(line, 2, quote(text), false, []),
            kind: 'runtime-abort',
            platform: /gpu_bfc_allocator|GPU_\d+_bfc/.test(text) ? 'cuda' : platformNear(line),
            summary: 'Process aborted: TensorFlow\'s BFC allocator ran out of memory and failed a CHECK',
            explanation: 'The BFC allocator printed its out-of-memory report (the map of used \'*\' and free \'_\' chunks), then a CHECK on the failed allocation\'s status aborted the process (glog FATAL): no exception reached the program.',
            fixes: [shrinkPeak('the tensors live at the failing allocation (batch size, model size)')],
          };
        }
      }
      const cudnn = /CUDNN|cudnn|cuda/.test(text);
      return base(line, 2, quote(text.replace(/^.*?\] /, '')), false, cudnn ? [lookAtFailure('the failed check (a cuDNN/CUDA status other than an allocation failure)'), debugAsync] : [lookAtFailure('the failed check and the call that made it')]);
    }
    // torch_xla's XRT client logging a failed computation's status and stack (xla_util.cc ReportComputationError);
    // torch_xla raises it as a RuntimeError. The status text itself, when kept, is read by the XLA signatures.
    if (/xla_util\.cc:\d+\] .*\bReportComputationError\(/.test(text)) {
      const f = base(line, 2, "torch_xla's XLA computation failed (xla::util::ReportComputationError)", true, [lookAtFailure('the status printed above the stack trace (its code and message)')]);
      return { ...f, platform: /CUDA|\bGPU\b/.test(text) ? 'cuda' : 'xla-tpu' };
    }
    if (/Fatal Python error/.test(text)) return base(line, 2, quote(text), false, [lookAtFailure('the fatal error and the thread stacks printed under it')]);
    const ex = EXCEPTION_LINE.exec(text) ?? IPYTHON_HEADER.exec(text);
    if (ex) {
      const type = ex[2]!;
      const header = IPYTHON_HEADER.test(text);
      // A bare line without a traceback above it is only taken when it has a message or is IPython's header.
      if (!header && ex[3] === undefined && type !== 'ChildFailedError' && line.frames().length === 0) return undefined;
      if (/Warning$/.test(type)) return undefined;
      // IPython's header starts the traceback; its frames are the lines below it.
      const headerFrames = header ? ipythonFrames(line) : undefined;
      if (type === 'ResourceExhaustedError') {
        // TensorFlow's out-of-memory exception whose message (if any) no signature read.
        return {
          ...base(line, 2, quote(text), true, []),
          kind: 'catchable-oom',
          summary: `${ex[1]} (TensorFlow's out-of-memory error; its message is cut off or not one Headroom reads)`,
          explanation: `The program received ${ex[1]}, the exception TensorFlow raises when an allocation does not fit; it could have caught it. The message with the sizes is missing.`,
          fixes: [{ id: 'shrink-peak', title: 'Lower the peak: smaller batch, smaller model or sequence length, mixed precision', rationale: 'TensorFlow could not allocate a tensor on the device.' }],
          facts: { tier: 2 },
          ...(headerFrames && headerFrames.length > 0 && { frames: headerFrames }),
        };
      }
      const launcher = LAUNCHER_EXCEPTION.test(type);
      const f = base(line, 2, quote(text), !launcher, launcher ? [findTheFirstFailure] : [lookAtFailure(`the ${type} and the innermost frame of your code above it`)]);
      if (headerFrames && headerFrames.length > 0) f.frames = headerFrames;
      // torch.nn.DataParallel re-raises a replica's exception as "Caught X in replica N on device D."
      // (parallel_apply.py's ExceptionWrapper); DataParallel replicates onto CUDA devices.
      const replica = /\bCaught \w+ in replica \d+ on device (\d+)\./.exec(text);
      if (replica) {
        f.device = Number(replica[1]);
        if (f.platform === 'cpu') f.platform = 'cuda';
      }
      if (type === 'ChildFailedError') {
        const rank = rootCauseRank(line);
        if (rank !== undefined) f.rank = rank;
      }
      return f;
    }
    const cut = /Traceback \(most/.test(text) ? cutTraceback(line, text) : undefined;
    if (cut) {
      const f = base(line, 2, 'the log ends inside a Python traceback (its exception line was cut off)', false, [lookAtFailure('the innermost frame of your code in the traceback (the exception itself is not in the log)')]);
      f.frames = cut;
      return f;
    }
    // The what() line under "terminate called after throwing …" belongs to that abort (read with it above).
    if (/^\s*what\(\):/.test(text) && /terminate called after throwing/.test(line.previous(1) ?? '')) return undefined;
    const native = nativeFailure(line.content);
    // torch_npu appends its codes under the exception's message ("RuntimeError: … error code is 507035" then
    // "[ERROR] … ERR00100 PTA call acl api failed"): there the exception line above is the failure.
    if (native && CANN_CODE.test(line.content)) {
      for (let k = 1; k <= 6; k++) if (EXCEPTION_LINE.test(line.previous(k) ?? '')) return undefined;
    }
    if (native) {
      const f = base(line, 2, native.name, native.catchable ?? false, [lookAtFailure(native.what)]);
      if (native.platform) f.platform = native.platform;
      if (native.device !== undefined) f.device = native.device;
      if (f.platform === 'cuda' && f.device === undefined) {
        const device = caffe2Device(line);
        if (device !== undefined) f.device = device;
      }
      if (native.platform === 'npu') {
        const device = /\bDevice:(\d+)/.exec(line.content);
        if (device) f.device = Number(device[1]);
      }
      // cuda-gdb names the device of the thread it switched focus to on the line under the signal.
      if (CUDA_GDB_EXCEPTION.test(line.content)) {
        for (let k = 1; k <= 3 && f.device === undefined; k++) {
          const focus = /^\[Switching focus to CUDA kernel \d+,.*\bdevice (\d+),/.exec(line.next(k) ?? '');
          if (focus) f.device = Number(focus[1]);
        }
      }
      // NVRM numbers the GPUs it reports on ("NVRM: GPU0 _issueRpcAndWait: …"); a line without the number takes the one of the NVRM lines just above.
      if (/\bNVRM: /.test(line.content)) {
        for (let k = 0; k <= 8 && f.device === undefined; k++) {
          const gpu = /\bNVRM: GPU(\d+) /.exec(k === 0 ? line.content : (line.previous(k) ?? ''));
          if (gpu) f.device = Number(gpu[1]);
        }
      }
      return f;
    }
    if (CRASH.test(text)) return base(line, 1, quote(text), false, [lookAtFailure('the native crash (run under gdb or with faulthandler enabled to see where)')]);
    if (LAUNCHER.test(text)) {
      if (/BAD TERMINATION/.test(text)) {
        for (let k = 1; k <= 4; k++) {
          const code = /EXIT CODE:\s*(\d+)/.exec(line.next(k) ?? '')?.[1];
          if (code === '9') {
            return {
              ...base(line, 1, 'an MPI process was killed (EXIT CODE: 9, SIGKILL)', false, []),
              kind: 'host-oom',
              platform: 'cpu',
              summary: 'An MPI process was killed with SIGKILL (EXIT CODE: 9), as the kernel OOM killer does',
              explanation: 'MPICH\'s launcher reports that one of the application processes ended with exit code 9: it was killed with SIGKILL, which is what the kernel OOM killer (or a job scheduler enforcing a memory limit) sends. No exception was raised.',
              fixes: [{ id: 'host-memory', title: 'Lower host memory per process: fewer ranks per node, smaller domains or batches', rationale: 'The kernel killed a process for using too much host RAM.' }],
              extraLines: [k],
            };
          }
        }
      }
      const f = base(line, 1, quote(text), false, [findTheFirstFailure]);
      // torchrun stopping the other workers ("Sending process N closing signal SIGTERM") after one failed: when
      // the output just above it was printed by one rank only ("[rank0]: …" lines, torchrun --tee/log prefix),
      // that rank is the one that failed.
      if (/closing signal SIGTERM/.test(text)) {
        const ranks = new Set<string>();
        for (let k = 1; k <= 40; k++) {
          if (line.previous(k) === undefined) break;
          const r = line.previousRank(k);
          if (r !== undefined) ranks.add(String(r));
        }
        if (ranks.size === 1) f.rank = Number([...ranks][0]);
      }
      // torch.distributed.elastic's "failed (exitcode: 1) local_rank: 0 (pid: N) of binary: …" names the failed worker.
      const localRank = /\bexitcode: -?\d+\) local_rank: (\d+)/.exec(text);
      if (localRank) f.rank = Number(localRank[1]);
      // torchrun's failure table: "  rank      : 0 (local_rank: 0)" a line or two above "  exitcode  : 1 (pid: …)".
      // Its "traceback : To enable traceback see: …" row comes two lines further down.
      if (/^\s*(?:exitcode|traceback)\s*:/.test(text)) {
        for (let k = 1; k <= 5; k++) {
          const rank = /^\s*rank\s*:\s*(\d+)/.exec(line.previous(k) ?? '');
          if (rank) {
            f.rank = Number(rank[1]);
            break;
          }
        }
      }
      return f;
    }
    return undefined;
  },
};

/**
 * The one failure the log ended with, among the tail pass's findings (in line order): the last
 * tier-2 finding (the error itself), unless a crash line came more than 20 lines after it; else the
 * last finding. A rank the launcher's lines named fills a chosen finding that has none.
 */
/**
 * mistral.rs's automatic device mapping refusing a model (mistralrs-core device_map, anyhow::bail!, an
 * error the caller gets): "This model does not fit on the devices [\"cuda[0] (avail: 812MB)\", \"cpu
 * (avail: 0MB)\"], and exceeds total capacity by 5706MB." Read by the tail pass (no hot anchor in it):
 * a catchable-oom whose free memory is the sum of the devices' avail, on the accelerator the list names.
 */
const DOES_NOT_FIT = /This model does not fit on the devices/;
/**
 * Ollama refusing to load a model whose estimate is over the host memory it sees (llm/server.go: "model
 * requires more system memory (%s) than is available (%s)", format.HumanBytes2, binary units), returned to
 * the client as an error before anything is allocated.
 */
const OLLAMA_SYSTEM_MEMORY = new RegExp(String.raw`\bmodel requires more system memory \(${SIZE}\) than is available \(${SIZE}\)`);

export const tailModelDoesNotFit: Signature = {
  id: 'model-does-not-fit',
  platform: 'cpu',
  needles: ['does not fit on the devices', 'requires more system memory'],
  match(line) {
    const ollama = OLLAMA_SYSTEM_MEMORY.exec(line.content);
    if (ollama) {
      const requested = toBytes(ollama[1]!, ollama[2]!);
      const available = toBytes(ollama[3]!, ollama[4]!);
      return {
        signature: 'other-out-of-memory',
        role: 'failure',
        kind: 'catchable-oom',
        platform: 'cpu',
        catchable: true,
        summary: `Out of host memory: Ollama's estimate for the model (${ollama[1]} ${ollama[2]}) is over the system memory available (${ollama[3]} ${ollama[4]})`,
        explanation: 'Ollama estimated the memory the model needs in system RAM (the layers it does not place on a GPU, and its context) and refused to load it, returning an error to the client; nothing was allocated.',
        numbers: { ...(requested !== undefined && { requestedBytes: requested }), ...(available !== undefined && { freeBytes: available }) },
        fixes: [{ id: 'shrink-model', title: 'Load a smaller or more quantized model, a shorter context (num_ctx), or free host memory', rationale: 'The model\'s estimate does not fit in the host memory Ollama sees as available.' }],
        facts: { tier: 2 },
      };
    }
    if (!DOES_NOT_FIT.test(line.content)) return undefined;
    const text = [line.content, line.next(1) ?? '', line.next(2) ?? ''].join(' ');
    const avail = [...text.matchAll(/([\w:\[\]]+) \(avail: (\d+)MB\)/g)];
    const over = /exceeds total capacity by (\d+)MB/.exec(text);
    const devices = avail.map((a) => a[1]!).join(' ');
    const platform = /metal/i.test(devices) ? 'mps' : /cuda/i.test(devices) ? 'cuda' : platformNear(line);
    return {
      signature: 'other-out-of-memory',
      role: 'failure',
      kind: 'catchable-oom',
      platform,
      catchable: true,
      summary: 'Out of memory: the model does not fit on the devices (mistral.rs device mapping)' + (over ? `, ${over[1]} MB short` : ''),
      explanation: 'mistral.rs added up the memory the model\'s layers need and the memory free on each device, and the model did not fit; it returned an error before loading.',
      numbers: avail.length > 0 ? { freeBytes: avail.reduce((sum, a) => sum + Number(a[2]) * 1024 * 1024, 0) } : {},
      fixes: [{ id: 'shrink-model', title: 'Load a smaller or more quantized model (ISQ, GGUF Q4), or give it more devices', rationale: 'The weights alone do not fit in the free memory of the devices listed.' }],
      facts: { tier: 2 },
    };
  },
};

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
 *   Headroom's platforms is Tenstorrent's).
 */
const GLIB_ALLOC = /\bgmem\.c:\d+: failed to allocate (\d+) bytes/;
const OPENCL_OOM = /\bCL_(MEM_OBJECT_ALLOCATION_FAILURE|OUT_OF_HOST_MEMORY)\b/;
const TT_METAL_OOM = /\bOut of Memory: Not enough space to allocate (\d+) B (\w+) buffer across (\d+) banks/;
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

export const tailAllocFailure: Signature = {
  id: 'other-alloc-failure',
  platform: 'cpu',
  needles: ['Command buffer execution failed', 'gmem.c:', 'aborting for OUT OF MEMORY', 'Aborted(OOM)', 'Cannot enlarge memory arrays', 'could not allocate memory', 'RuntimeError: ', 'mimalloc: error: unable to allocate', 'CL_MEM_OBJECT_ALLOCATION_FAILURE', 'CL_OUT_OF_HOST_MEMORY', 'OUT_OF_DEVICE_MEMORY', 'OUT_OF_HOST_MEMORY', 'ErrorOutOfDeviceMemory', 'ErrorOutOfHostMemory', 'Error(OutOfDeviceMemory)', 'Error(OutOfHostMemory)', 'Not enough space to allocate', 'Sanitizer', 'mmap(size=', '207001'],
  match(line) {
    const acl = ACL_CODE.exec(line.content);
    if (acl?.[1] === '207001') {
      return {
        signature: 'other-out-of-memory',
        role: 'failure',
        kind: 'catchable-oom',
        platform: 'npu',
        catchable: true,
        summary: 'Out of memory on the NPU: a CANN runtime allocation failed (ACL_ERROR_RT_MEMORY_ALLOCATION, 207001)',
        explanation: 'The CANN runtime returned 207001, ACL_ERROR_RT_MEMORY_ALLOCATION (rt_error_codes.h), to the caller: the device memory it asked for was not available. The code is returned, so the caller could have handled it.',
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: {},
        fixes: [shrinkPeak('what the program keeps on the NPU (batch, cache size, gpu_memory_utilization)')],
        facts: { tier: 2 },
      };
    }
    const sanitizer = SANITIZER_ALLOC.exec(line.content);
    if (sanitizer) {
      // A size-too-big request is often a negative size read as unsigned, beyond what a number holds exactly.
      const requested = Number(sanitizer[1] ?? sanitizer[2]);
      const exact = Number.isSafeInteger(requested);
      return {
        signature: 'other-out-of-memory',
        role: 'failure',
        kind: 'runtime-abort',
        platform: 'cpu',
        catchable: false,
        summary: `Process aborted: the sanitizer's allocator could not allocate ${exact ? formatBytes(requested) : sanitizer[0].split(' ').pop()} of host memory`,
        explanation: 'A sanitizer (AddressSanitizer and its kin) replaces malloc with its own allocator; when a request is larger than it supports or the mmap behind it fails, it prints this report and, with the default allocator_may_return_null=0, ends the process instead of returning NULL. Sanitized builds also use more memory than plain ones (shadow memory, redzones, quarantine).',
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: exact ? { requestedBytes: requested } : {},
        fixes: [hostMemory],
        facts: { tier: 2 },
      };
    }
    const mmap = MACOS_MMAP_FAILED.exec(line.content);
    if (mmap) {
      const requested = Number(mmap[1]);
      return {
        signature: 'other-out-of-memory',
        role: 'failure',
        kind: 'catchable-oom',
        platform: 'cpu',
        catchable: true,
        summary: `Host out of memory: macOS's malloc could not map ${formatBytes(requested)} (mmap failed with ENOMEM)`,
        explanation: 'macOS\'s malloc asked the kernel for a new region and mmap failed with error code 12 (ENOMEM): the process\'s address space or the system\'s memory had no room. malloc returned NULL to the caller, which could have handled it.',
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: { requestedBytes: requested },
        fixes: [hostMemory],
        facts: { tier: 2 },
      };
    }
    const glib = GLIB_ALLOC.exec(line.content);
    if (glib) {
      const requested = Number(glib[1]);
      return {
        signature: 'other-out-of-memory',
        role: 'failure',
        kind: 'runtime-abort',
        platform: 'cpu',
        catchable: false,
        summary: `Process aborted: GLib could not allocate ${formatBytes(requested)} of host memory (g_malloc)`,
        explanation: 'GLib\'s g_malloc does not return NULL: when malloc fails it reports the request with g_error, which aborts the process. The host (or the process\'s address space or cgroup) had no room for it.',
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: { requestedBytes: requested },
        fixes: [hostMemory],
        facts: { tier: 2 },
      };
    }
    const wasm = WASM_OOM.exec(line.content);
    let trap = false;
    if (!wasm && WASM_TRAP_OOM.test(line.content)) for (let k = 1; k <= 2 && !trap; k++) trap = /\bwasm:\/\/wasm\/|\bwasm-function\[\d+\]/.test(line.next(k) ?? '');
    if (wasm || trap) {
      const requested = wasm?.[1] !== undefined ? Number(wasm[1]) : undefined;
      return {
        signature: 'other-out-of-memory',
        role: 'failure',
        kind: 'catchable-oom',
        platform: 'cpu',
        catchable: true,
        summary: `Out of memory in WebAssembly: its linear memory could not grow${requested !== undefined ? ` to ${formatBytes(requested)}` : ''}`,
        explanation: 'A WebAssembly module\'s heap is one linear memory that grows in pages up to its maximum (and the browser\'s or the host\'s limit); when it cannot grow, the allocator fails and the module traps or aborts, which reaches JavaScript as an exception the page can catch.',
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: requested !== undefined ? { requestedBytes: requested } : {},
        fixes: [shrinkPeak('the data the module holds at once (smaller inputs, streaming), or a larger maximum memory')],
        facts: { tier: 2 },
      };
    }
    if (REDIS_OOM.test(line.content)) {
      // The size is on the panic's line in newer builds, else on the handler's log line above (the bug
      // report's header, three lines, may stand between the two).
      let size = REDIS_OOM_SIZE.exec(line.content);
      for (let k = 1; k <= 6 && !size; k++) size = REDIS_OOM_SIZE.exec(line.previous(k) ?? '');
      const requested = size ? Number(size[1]) : undefined;
      return {
        signature: 'other-out-of-memory',
        role: 'failure',
        kind: 'runtime-abort',
        platform: 'cpu',
        catchable: false,
        summary: `Process aborted: Redis could not allocate${requested !== undefined ? ` ${formatBytes(requested)} of` : ''} host memory (zmalloc)`,
        explanation: 'Redis\'s zmalloc does not return NULL: when malloc fails, its OOM handler logs the request and panics ("Redis aborting for OUT OF MEMORY"), which aborts the server. The host (or its cgroup, or a 32-bit build\'s address space) had no room for it; maxmemory bounds the dataset, not this.',
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: requested !== undefined ? { requestedBytes: requested } : {},
        fixes: [hostMemory],
        facts: { tier: 2 },
      };
    }
    const mi = MIMALLOC_OOM.exec(line.content);
    if (mi) {
      const requested = Number(mi[1]);
      return {
        signature: 'other-out-of-memory',
        role: 'failure',
        kind: 'catchable-oom',
        platform: 'cpu',
        catchable: true,
        summary: `Out of host memory: mimalloc could not allocate ${formatBytes(requested)}`,
        explanation: 'mimalloc reports an allocation the OS would not back (ENOMEM) and returns NULL to the caller, which can handle it; the process (or its address space, commit limit or cgroup) had no room left.',
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: { requestedBytes: requested },
        fixes: [hostMemory],
        facts: { tier: 2 },
      };
    }
    if (MLX_COMMAND_BUFFER_OOM.test(line.content)) {
      let aborted = false;
      for (let k = 0; k <= 3 && !aborted; k++) aborted = /terminating due to uncaught exception|terminate called after throwing/.test(k === 0 ? line.content : (line.previous(k) ?? ''));
      return {
        signature: 'other-out-of-memory',
        role: 'failure',
        kind: aborted ? 'runtime-abort' : 'catchable-oom',
        platform: 'mps',
        catchable: !aborted,
        summary: `${aborted ? 'Process aborted: ' : ''}Metal command buffer failed: the GPU ran out of memory (MLX, Insufficient Memory)`,
        explanation:
          'Metal could not make the resources of a command buffer resident (MTLCommandBufferErrorOutOfMemory): the buffers the GPU work needs exceed the unified memory macOS lets the GPU use. ' +
          (aborted ? 'MLX threw it where nothing caught it, so the process aborted.' : 'MLX threw it as an exception the program could have caught.'),
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: {},
        fixes: [shrinkPeak('the arrays the model keeps on the GPU (batch, context length, quantization)')],
        facts: { tier: 2 },
      };
    }
    const tt = TT_METAL_OOM.exec(line.content);
    if (tt) {
      const requested = Number(tt[1]);
      const platform = platformNear(line);
      return {
        signature: 'other-out-of-memory',
        role: 'failure',
        kind: 'catchable-oom',
        platform,
        catchable: true,
        summary: `Out of memory: tt-metal could not allocate a ${formatBytes(requested)} ${tt[2]} buffer across ${tt[3]} banks`,
        explanation: 'Tenstorrent\'s tt-metal allocator found no free range in the device\'s banks for the buffer and threw an exception (a RuntimeError in Python) the program could have caught.',
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: { requestedBytes: requested },
        fixes: [shrinkPeak('the tensors placed in device DRAM/L1 (batch, sequence length, sharding)')],
        facts: { tier: 2 },
      };
    }
    const vk = VULKAN_OOM.exec(line.content);
    if (vk && !/warn/i.test(line.content)) {
      const host = (vk[1] ?? vk[2] ?? vk[3])!.toUpperCase() === 'HOST';
      const platform = host ? 'cpu' : platformNear(line);
      let request = GGML_VULKAN_REQUEST.exec(line.content);
      for (let k = 1; k <= 2 && !request; k++) request = GGML_VULKAN_REQUEST.exec(line.previous(k) ?? '');
      return {
        signature: 'other-out-of-memory',
        role: 'failure',
        kind: 'catchable-oom',
        platform,
        catchable: true,
        summary: host ? 'Host out of memory: Vulkan returned VK_ERROR_OUT_OF_HOST_MEMORY' : `Out of memory: a Vulkan device memory allocation failed (VK_ERROR_OUT_OF_DEVICE_MEMORY)${platform === 'cpu' ? '' : ` on ${platform}`}`,
        explanation: host
          ? 'The Vulkan driver could not allocate the host memory it needed and returned VK_ERROR_OUT_OF_HOST_MEMORY to the program.'
          : 'The Vulkan driver could not allocate device memory and returned VK_ERROR_OUT_OF_DEVICE_MEMORY (Vulkan-Hpp throws it as vk::OutOfDeviceMemoryError) to the program, which could have handled it.',
        ...(line.rank !== undefined && { rank: line.rank }),
        numbers: request ? { requestedBytes: Number(request[1]) } : {},
        fixes: host ? [hostMemory] : [shrinkPeak('the buffers and images the program allocates (resolution, batch)')],
        facts: { tier: 2 },
      };
    }
    const cl = OPENCL_OOM.exec(line.content);
    if (!cl || /warn/i.test(line.content)) return undefined;
    const host = cl[1] === 'OUT_OF_HOST_MEMORY';
    const platform = host ? 'cpu' : platformNear(line);
    return {
      signature: 'other-out-of-memory',
      role: 'failure',
      kind: 'catchable-oom',
      platform,
      catchable: true,
      summary: host ? 'Host out of memory: OpenCL returned CL_OUT_OF_HOST_MEMORY' : `Out of memory: OpenCL could not allocate a buffer on the device (CL_MEM_OBJECT_ALLOCATION_FAILURE)${platform === 'cpu' ? '' : ` on ${platform}`}`,
      explanation: host
        ? 'The OpenCL runtime could not allocate the host memory it needed and returned CL_OUT_OF_HOST_MEMORY to the program.'
        : 'The OpenCL runtime could not back a memory object with device memory and returned CL_MEM_OBJECT_ALLOCATION_FAILURE to the program, which could have handled it.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: host ? [hostMemory] : [shrinkPeak('the buffers the kernels allocate (work size, batch)')],
      facts: { tier: 2 },
    };
  },
};

/**
 * XLA's TPU memory report, printed only inside a RESOURCE_EXHAUSTED status when a program does not fit
 * in HBM (xla/service memory_space_assignment / TPU compiler: "Total hbm usage >= 9.50G:", "Program hbm
 * requirement 8.98G:", "Largest program allocations in hbm:"), when an excerpt kept the report and lost
 * the status line. A catchable-oom on xla-tpu, read by the tail pass.
 */
export const tailHbmReport: Signature = {
  id: 'xla-hbm-report',
  platform: 'xla-tpu',
  needles: ['Total hbm usage'],
  match(line) {
    if (!/^\s*Total hbm usage >= [\d.]+\s?[KMGTP]?i?B?:?\s*$/.test(line.content)) return undefined;
    return {
      signature: 'other-out-of-memory',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'xla-tpu',
      catchable: true,
      summary: 'Out of memory on the TPU: XLA\'s HBM usage report (the RESOURCE_EXHAUSTED line itself is not in the log)',
      explanation: 'XLA prints this breakdown of HBM use (reserved, program, arguments, largest allocations) only when a compiled program does not fit in the TPU\'s HBM; JAX raises it as a RESOURCE_EXHAUSTED error the program could catch.',
      numbers: {},
      fixes: [{ id: 'shrink-peak', title: 'Lower the peak: smaller batch or sequence length, sharding, rematerialization (jax.checkpoint)', rationale: 'The program\'s HBM requirement exceeds what the TPU has.' }],
      facts: { tier: 2 },
    };
  },
};

export function chooseFailure<T extends { finding: Finding; line: number }>(found: readonly T[]): T | undefined {
  if (found.length === 0) return undefined;
  const tier = (f: Finding): number => Number(f.facts?.tier ?? 1);
  let chosen: T | undefined;
  for (const f of found) if (tier(f.finding) === 2) chosen = f;
  const lastCrash = [...found].reverse().find((f) => tier(f.finding) === 1 && CRASH.test(f.finding.summary));
  if (!chosen || (lastCrash && lastCrash.line > chosen.line + 20)) chosen = lastCrash ?? found[found.length - 1]!;
  if (chosen.finding.rank === undefined) {
    const ranked = found.find((f) => f.finding.rank !== undefined && f.finding.kind === chosen!.finding.kind);
    if (ranked) chosen.finding.rank = ranked.finding.rank;
  }
  return chosen;
}
