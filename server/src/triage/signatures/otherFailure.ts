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
import { CUT_FRAME_HEAD, faulthandlerFrames, framesOf, ipythonFrames, isTracebackBody } from '../frames';
import { SIZE, toBytes } from '../sizes';
import { ascendSuffixDevice, spawnRank, tracebackRankAbove } from '../ranks';
import { REPLICA_DEVICE } from '../evidencePlace';
import { agreeOnFailure, debugAsync, findTheRootRank, hostMemory, shrinkPeak } from '../fixes';
import { caffe2Device, ORT_DEVICE, trailingDevice } from './lineContext';
import { CANN_CODE, CUDA_GDB_EXCEPTION, nativeFailure, quote } from './nativeFailure';
import { devicePlatformNear, luaFrames, MINER_CHECK_FILE, platformNear } from './otherOom';
import type { Finding, LineView, Signature } from './types';

/** A row of the kernel OOM killer's task table (dump_tasks), as the tail pass's prefilter sees it. */
const TASK_ROW_ANCHOR = String.raw`\[ *\d+\] +\d+ +\d+ +\d+ +\d+ +\d+`;

/** The tail pass's prefilter (over the ASCII view of the retained tail). */
export const TAIL_ANCHORS: readonly string[] = ['Error', 'Exception', 'terminate called', 'Abort', 'SIGABRT', 'Segmentation fault', 'Check failed', 'Fatal Python', 'exit code', 'exitcode', 'exitCode', 'return code', 'SIGTERM', 'death signal', 'BAD TERMINATION', TASK_ROW_ANCHOR, 'container oom ',
  'Traceback \\(most', 'SIGSEGV', 'SIGILL', 'SIGBUS', 'SIGFPE', 'signal 11', 'CUDA_ERROR_', 'double free', 'corrupt', 'c0000', 'C0000', ':FATAL:', '5070', 'CUDA ERROR', 'CUDA error', 'CUDA failure', '\\.cu\\b', 'does not fit on the devices', 'Total hbm usage', 'signal sigkill', 'IOAF code', 'To enable traceback see', '\\.cc:\\d+ -> [1-6]\\b', 'page fault', 'PROTECTION_FAULT', 'NVRM: ', 'ring \\S+ timeout',
  // Crash reports of shells and runtimes, CUDA/NVIDIA tooling, CANN and torch_npu codes, the JVM launcher, pip.
  'Floating point exception', 'Illegal instruction', 'zsh: (?:abort|segmentation|floating|illegal|bus)', 'LLVM ERROR', 'panicked at',
  '[Nn]o kernel image is', 'launch failure', 'unsupported toolchain', 'busy or unavailable', 'version is insufficient', 'CUDA-capable device',
  'illegal instruction was', 'launch timed out', 'too many resources requested', 'kernel image is invalid', 'forward compatibility was attempted',
  'Unable to determine the device handle', 'Failed to initialize NVML', 'NVIDIA-SMI has failed', 'nvrtc', 'NVRTC_ERROR', 'CUDNN ERROR', 'cudnn_frontend\\] Error',
  'E[A-Z]\\d{4}: ', 'ERR\\d{5} ', 'Java Virtual Machine', 'Program will exit', 'matching distribution', 'satisfies the requirement', 'ailed building wheel',
  'subprocess-exited-with-error', 'ResolutionImpossible', 'is not compatible with the current PyTorch', 'failed with error -\\d', 'failed with error 2\\b',
  // Host kills and allocation failures no hot anchor reads (cpu.ts tailHostKill, tailAllocFailure below; cuda.ts tailGgmlLoadFailure).
  'Tasks state \\(memory', 'low on resource', 'Signals\\.SIGKILL', 'unable to allocate (?:\\w+ )?buffer', 'llama runner exited', 'gmem\\.c:\\d+: failed to allocate', 'CL_MEM_OBJECT_ALLOCATION_FAILURE', 'CL_OUT_OF_HOST_MEMORY', 'VK_ERROR_OUT_OF_(?:DEVICE|HOST)_MEMORY', 'ErrorOutOf(?:Device|Host)Memory', 'Not enough space to allocate (?:\\d+|\\{\\}) B ', 'allocated circular buffers', 'store based barrier', 'dispatched on the CPU or the disk', 'offloaded to the disk', 'larger than buffer maximum',
  // Parents reporting a child's end (Node's child_process 'exit' event, launchd's stop timeout), DataLoader's worker signal handler.
  'xit(?:ed)? with code', 'seconds after SIGTERM', 'encountered in (?:DataLoader )?worker',
  // Host kills told by a compiler driver, a parent's exit status 137, Slurm's cgroup plugin, the OOM killer's stack (cpu.ts tailHostKill).
  // Native crashes told by the C++ runtime, the OS and tools outside ML frameworks; a Go program's child exit status; HIP's no-device string.
  'terminating (?:due to|with) uncaught exception', 'terminated abnormally with signal', 'crashed with signal \\d+/', 'panic\\(cpu \\d+ caller', '\\] \\[ ?\\d+\\] \\S+\\(', '={5,} +(?:Invalid __|Misaligned|Out-of-range)', 'ROCm-capable device', 'exit status [1-9]', 'Command buffer execution failed: Insufficient Memory', 'maximum allowed buffer size',
  'Killed signal terminated program', 'exit(?:ed)?\\b[\\w ]{0,24}[:(]?\\s*137\\b', 'oom[-_]kill event', 'out_of_memory\\+0x', 'oom_kill_process\\+0x',
  // Colab's RAM crash notice (cpu.ts tailHostKill); redis's and mimalloc's allocation failures (tailAllocFailure below).
  'all available RAM', 'more memory than is available', 'memory budget', 'aborting for OUT OF MEMORY', 'mimalloc: error: unable to allocate',
  // Windows' commit limit in its own words (tailWindowsCommitLimit); OpenVINO's GPU plugin over its largest allocation (tailAllocFailure).
  'paging file is too? small', 'Exceeded max size of memory object',
  // CUDA_CHECK's 'CUDA error N at' is read through 'CUDA error' above; vLLM's client seeing its engine process die; Ollama's host-memory refusal (tailModelDoesNotFit).
  'Engine core proc \\S+ died unexpectedly', 'requires more system memory',
  // nccl-tests' count of wrong results; rdma-core's mlx5 error completion (nativeFailure).
  'Out of bounds values', 'got completion with error',
  // OpenVINO's GPU plugin naming CL_OUT_OF_RESOURCES (tailAllocFailure).
  '\\[GPU\\] (?:cl[A-Z]|out of GPU)',
  // c10's TORCH_CHECK without a message of its own; Windows' crash statuses as decimal exit codes (nativeFailure.ts).
  'to be true, but got false', '32212\\d{5}\\b', '-10737\\d{5}\\b',
  // The collective watchdog's loop frame under WorkNCCL::checkTimeout in PyTorch 2.8+ (cuda.ts tailWatchdogFrames).
  '::Watchdog::run', 'watchdog thread terminated with exception', 'Caught collective operation timeout',
  // WebAssembly's linear memory running out (tailAllocFailure; a wasm trap's 'RuntimeError: ' is read through 'Error').
  'Aborted\\(OOM\\)', 'Cannot enlarge memory arrays', 'could not allocate memory',
  // gloo's timeout of a collective's send or receive; a debugger's stack of a process stuck in a collective (tailGlooTimeout,
  // tailStuckInCollective below).
  'Timed out waiting \\d+ ?ms for', '#0 ',
  // A launcher's 'exit with status code N' (Horovod's gloo runner).
  'exit with status code',
  // SQLite's SQLITE_CANTOPEN message.
  'unable to open database file',
  // A container's state as kubectl describe and docker inspect print it ('Exit Code: 137', '"ExitCode": 137'; cpu.ts EXIT_137).
  'Exit ?Code"?:\\s*137\\b',
  // torch_memory_saver's driver-API check (tailAllocFailure).
  'CUresult error',
  // The JVM failing to start for its heap (tailAllocFailure).
  'Could not reserve enough space', 'insufficient memory for the Java Runtime',
  // TSL's FATAL log line (otherFailure TSL_FATAL).
  '\\d\\d:\\d\\d:\\d\\d\\.\\d+: F ',
  // The shell's report of a SIGBUS ('Bus error (core dumped)', bash's strsignal; zsh's own 'zsh: bus error' is above).
  '[Bb]us error',
  // fish's report of a job killed by a signal (cpu.ts tailHostKill reads SIGKILL).
  'by signal SIGKILL',
  // The sanitizers' allocator reports and macOS's malloc mmap failure (tailAllocFailure).
  'Sanitizer(?: failed to allocate|: requested allocation)', 'mmap\\(size=',
  // glibc's internal assertion; cuda-gdb's GPU exception signal; a CANN runtime code in a caller's 'ACL ERROR' line.
  'Fatal glibc error', 'CUDA_EXCEPTION_\\d', 'ACL ERROR',
  // vulkano's out-of-memory error values (tailAllocFailure's Vulkan class).
  'Error\\(OutOf(?:Device|Host)Memory\\)',
  // ProcessGroupGloo's monitoredBarrier naming the faulty rank.
  'monitoredBarrier',
  // amdgpu's GPU reset and ROCm's debug agent; Triton's OutOfResources; c10d's store socket; NCCL's verbs calls; Synapse's status (nativeFailure).
  'GPU (?:reset|BACO|mode\\d)', 'Memory access fault at GPU', 'rocr debug agent', 'OutOfResources', 'client socket has', 'waitForInput: socket', 'NCCL WARN Call to ibv_', 'synapse (?:error|status)', 'synStatus',
  // The driver API's description of CUDA_ERROR_ILLEGAL_ADDRESS (ManagedCuda).
  'load or store instruction on an invalid',
  // gdb's frames of abort(); Intel's GPU compiler's build log (an ODBC diagnostic is read through 'Error'/'error' lines: see nativeFailure).
  'abort \\(\\)', 'raise \\(sig=', 'signo=(?:signo@entry=)?6', 'backend compiler failed build', 'Double type is not supported', '\\]\\[(?:CLI Driver|ODBC|Driver Manager)',
  // PyTorch's shared-memory hint after a DataLoader worker's bus error; GameMaker's runner error report.
  'workers are out of shared memory', 'ERROR in\\s*\\n\\s*action number',
  // Userspace OOM killers and cgroup OOM reports: systemd-oomd, oomd's kill plugins, isolate's meta file, the oomkill tracers (cpu.ts tailHostKill).
  // A program's CUDA check with the runtime's status string ('cuda error: …', 'Cuda failure: …', 'cuXxx failed: …'); the gpuAssert idiom (nativeFailure).
  '[Cc]uda (?:error|failure)', '(?:CUDA|cuda) runtime error', '\\bcu(?:da)?[A-Z]\\w*(?:\\(\\))? failed', 'GPU ?assert: ',
  // Metal's failed assertion pasted with a quote for its opening backtick (mps.ts tailMetalAssertion).
  "failed assertion '",
  // The kernel's UBSAN report (nativeFailure).
  'UBSAN: ',
  // TorchScript's missing operator schema (nativeFailure).
  'Schema not found for node',
  // React's overlay for an unhandled rejection; java.util.logging's SEVERE record; a subprocess's negative returncode; SPVM's exception stack.
  'Unhandled Rejection \\(', '(?<![^\\n])[ \\t]*SEVERE: ', '\\breturncode\\b', '\\.spvm line \\d',
  // ROCm's math and compiler libraries (nativeFailure's ROCM_LIBRARY), the loader's missing library, zsh's name for SIGABRT.
  '(?:rocBLAS|rocblaslt|rocsparselt|hipBLASLt|hipblaslt|Tensile) error: ', 'hipsparselt_error', 'rocBLAS call failed', 'rocblas_status_', 'HIPBLAS', 'miopenStatus', 'MIOpen', 'miopen::', 'HIPRTC_ERROR',
  'error while loading shared libraries', 'IOT instruction',
  // srun's report of a task killed for memory (cpu.ts tailHostKill); the Docker client's API error.
  'Out Of Memory', 'Error response from daemon',
  // Julia's uncaught error ("ERROR: …" over "Stacktrace:").
  '(?<![^\\n])[ \\t]*ERROR: ',
  // nccl-tests' NCCLCHECK; ProcessGroupNCCL's watchdog finding an error on a communicator (nativeFailure).
  'NCCL failure ', 'found async exception',
  // runc's container init killed in its memory cgroup (cpu.ts tailHostKill).
  'init was OOM-killed',
  // tcmalloc's failed large allocation; ptxas out of host memory (tailAllocFailure).
  'tcmalloc: large alloc \\d+ bytes == (?:\\(nil\\)|0x0)', 'ptxas fatal',
  // TensorFlow's StreamExecutor failing a device allocation, its status cut off (tailAllocFailure).
  'failed to allocate [\\d.]+[KMGTP]\\b',
  // oneDNN's errors (nativeFailure).
  'could not create an? (?:engine|primitive)',
  // CTest's summary of failed tests (nativeFailure).
  'tests? failed out of', 'tests FAILED:',
  // OpenCL's out-of-memory statuses as the wrappers' error strings print them (boost::compute, clErrorString; tailAllocFailure).
  '[Mm]emory [Oo]bject [Aa]llocation [Ff]ailure', '[Oo]ut of [Hh]ost [Mm]emory',
  'cgroups for killing', 'due to (?:memory|swap) (?:pressure|used)', 'process\\(es\\) in this unit', '/plugins/\\w*Kill', 'cg-oom-killed', 'OOM kill of PID',
  // earlyoom's low-memory actions, the kernel's memory cgroup report, a log that ends on a bare SIGKILL (cpu.ts tailHostKill).
  // aws-ofi-nccl's errors, getopt's option errors, a cloud API's quota refusal (nativeFailure).
  'NCCL WARN NET/OFI ', '(?:invalid|illegal) option -- ', 'unrecognized option ', '[Qq]uota (?:metrics? exceed|exceeded|\'[^\']*\' exceeded)',
  // Kunlun XPU's out-of-memory statuses; the caching allocator's failed expandable-segment map (tailAllocFailure).
  'Device memory not enough', 'xpu api no enough workspace', 'failed with OOM on device \\d',
  // Docker's JSON event stream and Backend.AI's kernel runner reporting a container's OOM event (cpu.ts tailHostKill).
  '"(?:status|Action)"\\s*:\\s*"oom"', 'Out-of-memory detected!', 'potentially oom-killed process',
  // slurmstepd's notice of a job or step Slurm stopped (nativeFailure).
  'CANCELLED AT ',
  // nativeFailure's fMHA architecture guard, DeepSpeed's GEMM status, PyTorch's device check, ggml's GPU start, Ray's dead node.
  'FATAL: kernel `', '!!!! kernel execution error', 'Expected all tensors to be on the same device', 'ggml_cuda_init: failed', 'node it was running on is dead',
  // A macOS GPU driver's panic string, JclDebug's exception report, Slurm's PMIx plugin error (nativeFailure).
  '\\.l?hs:\\d+:\\d+: error:', ' - CRITICAL - ', 'CRITICAL:', '@(?:IOGPU|AGX)\\w*\\.(?:cpp|c|mm?):\\d', 'Error handler invoked: status',
  // Horovod's stall inspector (otherFailure's HOROVOD_STALL), also with its message cut after the first words.
  'waiting for remainder of ranks', 'One or more tensors were submitted',
  // JAX's coordination service and TPU backend stalls (xla-tpu.ts).
  'heartbeat timeout', 'initialization is taking more than',
  // SGLang's scheduler watchdog (cuda.ts tailSglangWatchdog).
  'Watchdog timeout \\(self',
  // Ascend's kernel timeouts (npu.ts tailAscendTaskTimeout).
  'core timeout\\]', 'aicore execution times out', 'failed: 5070[13]4',
  // A Node package manager's script killed by SIGKILL (cpu.ts tailHostKill).
  'Command failed with signal "SIGKILL"', 'npm (?:ERR!|error) signal SIGKILL',
  // A notebook front end or server reporting that the kernel died (otherFailure's KERNEL_DIED).
  'appears to have died', 'KernelRestarter: restarting', '[Kk]ernel [0-9a-f-]{36} restarted', 'kernel process died', 'The Kernel crashed',
  '[Ll]ow memory! ', 'Out of memory! avail', 'Invoking oom killer', 'sending SIG(?:TERM|KILL) to process \\d+ uid', ': usage \\d+kB, limit \\d+kB', '(?<![^\\n])[ \\t]*SIGKILL[ \\t\\r]*(?![^\\n])'];

/** How strongly a finding says "this is how the log failed": 2 = the error itself, 1 = a launcher or the shell reporting it. */
export type Tier = 1 | 2;

export const lookAtFailure = (what: string): Fix => ({
  id: 'look-at-failure',
  title: `Not a memory problem: start from ${what}`,
  rationale: 'Nothing in the log says memory ran out; lowering memory use will not help. The failing line and the frames above it are where to look.',
});

const findTheFirstFailure: Fix = {
  id: 'find-first-failure',
  title: 'Find the first rank or process that failed (its own log or traceback), not the launcher that reported it',
  rationale: 'The launcher only reports that a worker exited or was stopped; the reason is in that worker\'s output, which this log does not show.',
};

/**
 * A Python exception line: an optional dotted module, a type ending in Error/Exception/Interrupt/Exit, and its message.
 * TensorFlow 1.x's session re-raised a failed op's error at the end of the run with "(see above for traceback)" after the
 * type ("InternalError (see above for traceback): Blas SGEMM launch failed"), the op's own traceback printed above.
 */
const EXCEPTION_LINE = /^\s*((?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Exception|Interrupt|Exit))(?:\([A-Z]\w*\))?)(?: \(see above for traceback\))?(?::(?:\s+(.*))?)?\s*$/;
/** IPython's header line: "ResourceExhaustedError     Traceback (most recent call last)". */
const IPYTHON_HEADER = /^\s*((?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Exception)))\s*Traceback \(most recent call last\)/;
/**
 * Exceptions a launcher raises about a worker that is already dead; subprocess's CalledProcessError ("Command '[…]' returned
 * non-zero exit status 1.") is the parent's report of a child that exited, as torch.distributed.launch before torchrun raised it.
 */
const TORCH_SHM_WRITE = /^unable to write to file <\/torch_\w+>(?::\s*No space left on device \(28\)|\s+at \S|\s*$)/;
const VRAM_OUT = /\b(?:[iu]nsufficient|not enough|out of) VRAM\b/i;
/** Advice or a denial around those words ("If you are out of VRAM, try --medvram", "this is not an out of VRAM error"). */
const VRAM_HEDGE = /\b(?:if|when|whether|may|might|could|tip|try|not an?)\b[^.]{0,40}\b(?:[iu]nsufficient|not enough|out of|run out of) VRAM\b/i;
const E_OUTOFMEMORY = /(?<![\w-])(?:-2147024882|0x8007000[Ee])\b/;
// A copy retyped by hand may misspell it ("The paging file is to small …"); Rust's io::Error shows the code as "(os error 1455)",
// and PyTorch's shared-memory mapping on Windows as "Couldn't open shared file mapping: <torch_…>, error code: <1455>"; a
// Chinese Windows words it "页面文件太小，无法完成操作", a German one "Die Auslagerungsdatei ist zu klein, um diesen Vorgang durchzuführen".
const WINDOWS_COMMIT_LIMIT = /\[WinError 1455\]|\bThe paging file is too? small for this operation to complete\b|\(os error 1455\)|\berror code: <1455>|页面文件太小，无法完成操作|\bDie Auslagerungsdatei ist zu klein\b/;
const windowsPagingFile: Fix = {
  id: 'windows-paging-file',
  title: 'Let Windows grow the paging file (System properties > Advanced > Virtual memory), or start fewer DataLoader workers',
  rationale: 'Each worker process maps torch\'s CUDA libraries and commits memory for them.',
};
/** The first words of "CUDA out of memory" / "HIP out of memory", cut anywhere after "ou". */
const cutOomMessage = (message: string): boolean => {
  const words = message.trim();
  return /^(?:CUDA|HIP) ou/.test(words) && (`CUDA out of memory`.startsWith(words) || `HIP out of memory`.startsWith(words));
};
const LAUNCHER_EXCEPTION = /^(?:ChildFailedError|SignalException|ProcessRaisedException|ProcessExitedException|CalledProcessError)$/;
/**
 * vLLM's logger prefix on an error line (vllm/logger.py _FORMAT "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] ",
 * datefmt "%m-%d %H:%M:%S": "ERROR 08-01 03:39:06 [core.py:667] "), which it puts before each line of a logged traceback
 * and of the exception under it; only ERROR and CRITICAL lines are taken off, so a warning stays a warning.
 */
const LOGGER_ERROR_PREFIX = /^(?:ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[\w.-]+:\d+\] (?=(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): )/;
/**
 * React's development error overlay (react-error-overlay's RuntimeError: 'Unhandled Rejection (' + error.name + ')' before the
 * message, for a promise rejected with nothing to catch it), its stack frames listed as the function's name over
 * "src/file.ts:9".
 */
const UNHANDLED_REJECTION = /^\s*Unhandled Rejection \(([A-Z]\w*)\): \S/;
const OVERLAY_FRAME = /^\s*((?:[\w.@~-]+\/)*[\w.@-]+\.(?:[jt]sx?|mjs|cjs|vue|svelte)):(\d+)(?::\d+)?\s*$/;
/** java.util.logging's error level as its SimpleFormatter prints a record ("<date> <class> <method>" over "SEVERE: message"). */
const JUL_SEVERE = /^\s*SEVERE: \S/;
/**
 * Python logging's highest level, CRITICAL, in the two formats most programs use: the logging cookbook's "%(asctime)s -
 * %(name)s - %(levelname)s - %(message)s" ("2019-09-27 14:12:07,314 - root - CRITICAL - Error in …") and basicConfig's default
 * "%(levelname)s:%(name)s:%(message)s" ("CRITICAL:root:…"): the program's own word that it failed.
 */
const PY_LOG_CRITICAL = /^\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - [\w.]+ - CRITICAL - \S|^\s*CRITICAL:[\w.]+:\S/;
/**
 * A child's result as Python's subprocess reports it, in a repr or a JSON dump ("returncode": -11, CompletedProcess(…,
 * returncode=-6)): a negative returncode -N means the child was killed by signal N (POSIX). SIGKILL (9) is left to the
 * host-kill signatures.
 */
const SUBPROCESS_SIGNAL = /\breturncode["']?\s*[:=]\s*-(\d{1,2})\b/;
const SIGNAL_NAMES: Record<string, string> = { '4': 'SIGILL', '6': 'SIGABRT', '7': 'SIGBUS', '8': 'SIGFPE', '11': 'SIGSEGV', '15': 'SIGTERM' };
/**
 * SPVM's exception: the message, then its stack, one "  Class->method at path/Class.spvm line N" per call (older
 * releases "  from Class::method() at … line N"; SPVM::Document::Language::ExceptionHandling); eval catches it.
 */
const SPVM_FRAME = /^\s+(?:from )?([\w:]+(?:->|::)\w+)(?:\(\))? at (\S+\.spvm) line (\d+)\s*$/;
/**
 * Julia's report of an error nothing caught (the REPL's and julia's own: "ERROR: ArgumentError: msg", "ERROR: LoadError:
 * …", "ERROR: DimensionMismatch: …", error()'s bare message, then "Stacktrace:"), its frames innermost first: " [1] fn(args)" over "   @ Module path/file.jl:41" (Julia 1.6+), or
 * " [1] fn(args) at path/file.jl:41" before; try/catch catches it.
 */
const JULIA_ERROR = /^\s*ERROR: (?:LoadError: )?(?:((?:[A-Za-z_]\w*\.)*[A-Z]\w*)(?:: |\(|$))?(.*)$/;
const JULIA_FRAME = /^\s*\[(\d+)\] (.+?)(?: at (\S+):(\d+))?\s*$/;
const JULIA_AT = /^\s*@ \S+ (\S+):(\d+)\s*$/;

/** The frames of the Julia stacktrace under an ERROR line, outermost first. */
function juliaFrames(line: LineView): SourceFrame[] {
  const frames: SourceFrame[] = [];
  for (let k = 2; k <= 80; k++) {
    const m = JULIA_FRAME.exec(line.next(k) ?? '');
    if (!m) break;
    const fn = m[2]!.replace(/\(.*$/, '');
    if (m[3] !== undefined) {
      frames.unshift({ file: m[3], line: Number(m[4]), function: fn });
      continue;
    }
    const at = JULIA_AT.exec(line.next(k + 1) ?? '');
    if (!at) break;
    frames.unshift({ file: at[1]!, line: Number(at[2]), function: fn });
    k++;
  }
  return frames;
}
/**
 * A timestamp a CI runner puts before every line: bracketed ("[2024-05-01 10:00:00] ", with a job's "name ||" after it), or
 * moreutils' ts default ("%b %d %H:%M:%S ": "Nov 06 05:00:37 "), which PyTorch's CircleCI jobs piped their test output through.
 */
/**
 * ProcessGroupGloo's monitoredBarrier (used by TORCH_DISTRIBUTED_DEBUG=DETAIL's process-group wrapper) naming the rank
 * that failed it: "Rank 3 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0.
 * Please check rank 0 logs for faulty rank.", "Rank 1 failed to pass monitoredBarrier in 600000 ms"
 * (torch/csrc/distributed/c10d/ProcessGroupGloo.cpp). The other ranks print it after the faulty rank's own error.
 */
const MONITORED_BARRIER = /\bfrom rank (\d+)\. Please check rank \1 logs for faulty rank\b|\bRank (\d+) failed to pass monitoredBarrier\b/;
/**
 * A notebook front end or server reporting that the kernel process died, in the words each prints (none says why):
 * the classic Notebook's dialog "The kernel appears to have died. It will restart automatically." (JupyterLab's "The
 * kernel for x.ipynb appears to have died. It will restart automatically."), jupyter_client's restarter "KernelRestarter:
 * restarting kernel (1/5), keep random ports" (restarter.py; AsyncIOLoopKernelRestarter and the Notebook's
 * _KernelRestarter print the same), the Notebook's and jupyter_server's "kernel <uuid> restarted", and VS Code's Jupyter
 * extension "Disposing session as kernel process died ExitCode: 3, Reason: …" and its cell message "The Kernel crashed
 * while executing code in the current cell or a previous cell.". A launcher's report of a dead process (tier 1): the
 * cause, a native crash or a kill for memory, is in the kernel's own output or the system log, when the log has it.
 */
/** Whether one of the `lines` lines above names a failure (a crash, an error, the front end's report of the death). */
function failureAbove(line: LineView, lines: number): boolean {
  for (let k = 1; k <= lines; k++) {
    const above = line.previous(k);
    if (above === undefined) return false;
    if (KERNEL_RESTARTED.test(above)) continue;
    if (CRASH.test(above) || KERNEL_DIED.test(above) || /\b(?:[Ee]rror|ERROR|FATAL|[Aa]ssertion|[Aa]bort(?:ed)?|terminated|exit code [1-9]\d*|stack smashing)\b/.test(above)) return true;
  }
  return false;
}
/** Whether the 60 lines above say the run has no GPU (TensorFlow's device list, "Num GPUs Available: 0", XLA on the host platform). */
function cpuOnlyAbove(line: LineView): boolean {
  for (let k = 1; k <= 60; k++) {
    const above = line.previous(k);
    if (above === undefined) return false;
    if (/Num GPUs Available:\s*0\b|device_type='CPU'\)\]|\bon platform Host\b/.test(above)) return true;
  }
  return false;
}
const KERNEL_RESTARTED = /KernelRestarter: restarting kernel \(\d+\/\d+\)|(?:^|\]\s*|:)\s*[Kk]ernel [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} restarted\s*$/;
const KERNEL_DIED = /\bkernel(?: for \S.*?)? appears to have died\b|KernelRestarter: restarting kernel \(\d+\/\d+\)|(?:^|\]\s*|:)\s*[Kk]ernel [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} restarted\s*$|\bDisposing session as kernel process died\b|\bThe Kernel crashed while executing code\b/;
/**
 * Horovod's stall inspector (horovod/common/stall_inspector.cc; operations.cc before 0.16): "One or more tensors were
 * submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60
 * seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of ranks is
 * submitting tensors, which will cause deadlock.", then the stalled tensors with the ranks missing or ready. A collective
 * some ranks never joined: a hang, and its cause is on the ranks that did not submit.
 */
const HOROVOD_STALL = /\bOne or more tensors were submitted to be (?:reduced, gathered or broadcast(?:ed)?|[\w ,]+) by(?:\s+subset of ranks and are waiting for remainder of ranks for more than (\d+) seconds)?/;
/**
 * A JavaScript error with its V8 stack (Node's uncaught exception report and console.error(err): "TypeError: x is not a
 * function" or "Error [ERR_X]: message", then one "    at fn (/path/file.js:56:45)" or "    at /path/file.js:132:5" per call,
 * innermost first; Node's own modules print as "internal/child_process.js:392:11", "events.js:86:13" or "node:events:517:28").
 */
const COMFY_NODE_ERROR = /^\s*Error occurred when executing ([\w.-]+):\s+(\S.*)$/;
const TORCH_CHECK_DEFAULT = /^\s*Expected \S.* to be true, but got false\./;
const JS_ERROR = /^\s*(?:Uncaught )?((?:[A-Z]\w*)?Error|[A-Z]\w*Exception)(?: \[[A-Z_\d]+\])?: (\S.*)$/;
const JS_FRAME = /^\s+at (?:(?:async )?(.+?) \((.+?):(\d+):\d+\)|(?:async )?(\S+?):(\d+):\d+)\s*$/;

/** The frames of the V8 stack under a JavaScript error line, outermost first. */
function jsFrames(line: LineView): SourceFrame[] {
  const frames: SourceFrame[] = [];
  for (let k = 1; k <= 60; k++) {
    const m = JS_FRAME.exec(line.next(k) ?? '');
    if (!m) break;
    frames.unshift(m[2] !== undefined ? { file: m[2], line: Number(m[3]), function: m[1]! } : { file: m[4]!, line: Number(m[5]), function: '' });
  }
  return frames;
}
const CI_PREFIX = /^(?:\[[^\]]*\d{2}:\d{2}:\d{2}[^\]]*\]\s*(?:\S+\s*\|\|\s*)?|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d\s+(?=\S))/;

/**
 * A native crash as the process, its shell or its parent reports it: bash's job status pads the signal's
 * name to a column ("line 16: 37055 Aborted                 (core dumped) python …", "Floating point
 * exception (core dumped)", "Illegal instruction"), zsh prints it in lower case ("zsh: abort      python
 * train.py", "zsh: segmentation fault", "zsh: illegal hardware instruction"). A DataLoader worker's own SIGSEGV/SIGFPE
 * handler (torch/csrc/DataLoader.cpp) prints "ERROR: Unexpected segmentation fault encountered in worker." before it
 * re-raises; its bus-error sibling is the shared-memory host signature in cpu.ts. PaddlePaddle's worker signal handler
 * (paddle/fluid/imperative/data_loader.cc) says "ERROR: Unexpected segmentation fault encountered in DataLoader workers.".
 * zsh's notice can follow a program's last output on the same line when that output had no newline ("Total =
 * 11439.875000zsh: segmentation fault"). The shell names SIGSEGV in the system's language (glibc's translations of
 * strsignal: "段错误 (核心已转储)", "Violación de segmento", "Speicherzugriffsfehler", "Ошибка сегментирования", "Erreur de
 * segmentation", "Falha de segmentação", "セグメンテーション違反です", "세그멘테이션 오류"). Open MPI's mpirun names the signal a rank
 * died of ("process rank 0 with PID 0 on node n1 exited on signal 4 (Illegal instruction).").
 */
export const LOCALIZED_SEGFAULT: readonly string[] = ['段错误', 'Violación de segmento', 'Speicherzugriffsfehler', 'Ошибка сегментирования', 'Erreur de segmentation', 'Falha de segmentação', 'セグメンテーション違反', '세그멘테이션 오류'];
const CRASH = new RegExp(String.raw`Segmentation fault|\bSIG(?:SEGV|ILL|BUS|FPE)\b|\bsignal 11\b|Aborted\s+\(core dumped\)|^\s*Aborted\s*$|\bline \d+: +\d+ Aborted\b|interrupted by signal 6|SIGABRT|Fatal Python error|Bus error|^\s*bus error(?: \(core dumped\))?\s*$|Floating point exception|\bIOT instruction(?: \(core dumped\))?|Illegal instruction(?: \(core dumped\)|\s*$)|(?<![A-Za-z])zsh: (?:abort|segmentation fault|floating point exception|illegal hardware instruction|bus error)\s|${LOCALIZED_SEGFAULT.join('|')}|\bUnexpected (?:segmentation fault|floating-point exception) encountered in (?:DataLoader )?workers?\b|\bexited on signal \d+ \((?:Segmentation fault|Illegal instruction|Aborted|Bus error|Floating point exception)\)`);
/** A DataLoader worker's signal handler reporting the worker's crash (PyTorch's and PaddlePaddle's wording). */
const WORKER_CRASH = /\bUnexpected (?:segmentation fault|floating-point exception) encountered in (?:DataLoader )?workers?\b/;
const CHECK_FAILED = /Check failed:|^\s*F\d{4} /;
/**
 * A FATAL log line in TSL's format (TensorFlow, XLA and torch_xla: "2024-02-27 09:52:24.990707: F
 * ./torch_xla/csrc/runtime/debug_macros.h:20] Non-OK-status: …"): the logger aborts the process after printing it.
 */
const TSL_FATAL = /^\s*(?:\S+ )?\d\d:\d\d:\d\d\.\d+: F (\S+:\d+)\] (.*)$/;
/** A launcher or parent reporting a child's end: torchrun, DeepSpeed, MPI, Node's child_process "exit with code N, signal null", launchd's "Service did not exit 5 seconds after SIGTERM. Sending SIGKILL." (a stop timeout, not memory). */
const LAUNCHER = /(?:exit|exited|exits|failed) with (?:a )?(?:non-zero )?(?:exit )?(?:status code|code|status|return code)\s*[=:]?\s*-?[1-9]\d*|\bexit(?:code| code)\s*[:=]?\s*-?[1-9]\d*|closing signal SIGTERM|via signal SIGTERM|\bdid not exit \d+ seconds after SIGTERM|Received \d+ death signal|BAD TERMINATION|\bexit status [1-9]\d*\b(?! \()|\bEngine core proc \S+ died unexpectedly|^\s*traceback\s*: To enable traceback see: https:\/\/pytorch\.org\/docs\/stable\/elastic\/errors/;

/**
 * DataLoader's pin-memory thread re-raising a batch's exception in the main process (torch/utils/data/_utils/pin_memory.py
 * do_one_step: ExceptionWrapper(where=f"in pin memory thread for device {device_id}"), reraised as "Caught RuntimeError in pin
 * memory thread for device 0."): the thread copies batches to the accelerator's device N, CUDA's unless the lines around name another.
 */
const PIN_MEMORY_THREAD = /\bCaught \w+ in pin memory thread for device (\d+)\b/;

/** The not-oom finding of a failure line a fallback read, with the platform and device the lines around it name. */
/** An exception the program received whose message says, in words no allocator signature reads, that memory ran out. */
function raisedOom(line: LineView, text: string, fixes: Fix[], said: { platform?: Platform; summary: string; explanation: string }): Finding {
  return { ...notOomFinding(line, 2, quote(text), true, fixes), kind: 'catchable-oom', ...said };
}

export function notOomFinding(line: LineView, tier: Tier, name: string, catchable: boolean, fixes: Fix[]): Finding {
  let platform = platformNear(line);
  const pinned = PIN_MEMORY_THREAD.exec(line.content);
  if (pinned && platform === 'cpu') platform = 'cuda';
  // torch_npu's suffix "(PID:…, Device:N, RankID:…)" on the line or the two after it names the local device.
  let device: number | undefined;
  for (let k = 0; k <= 2 && platform === 'npu' && device === undefined; k++) device = ascendSuffixDevice(k === 0 ? line.content : (line.next(k) ?? ''));
  // Else the Ascend device's exception dump above it: "DEVICE[0] PID[358]:", then "EXCEPTION STREAM:".
  for (let k = 1; k <= 30 && platform === 'npu' && device === undefined; k++) {
    const m = /^\s*DEVICE\[(\d+)\] PID\[\d+\]:/.exec(line.previous(k) ?? '');
    if (m && /^\s*EXCEPTION STREAM:/.test(line.previous(k - 1) ?? '')) device = Number(m[1]);
  }
  if (pinned && device === undefined) device = Number(pinned[1]);
  // onnxruntime's (and CNTK's) CUDA check names the device: "CUDA failure 716: misaligned address ; GPU=0 ; hostname=… ; expr=…".
  const ortDevice = ORT_DEVICE.exec(line.content);
  if (ortDevice && device === undefined) device = Number(ortDevice[1]);
  if (platform === 'cuda' && device === undefined) device = trailingDevice(line.content);
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
    // The rest of a frame line wrapped onto this one ('File "…", line' over '1003, in main') is body too.
    if (!isTracebackBody(l) && !(body.length > 0 && CUT_FRAME_HEAD.test(body[body.length - 1]!))) return undefined;
    body.push(l);
    if (k > 2000) return undefined;
  }
  const frames = framesOf(body);
  return frames.length > 0 ? frames : undefined;
}

/**
 * A log that ends inside a Python traceback, its exception line cut off (under its header, or a paste that kept only the
 * frames): an exception ended the run, and what it was is not in the log. `line` is where the traceback starts.
 */
export function cutTracebackFinding(line: LineView, frames: SourceFrame[]): Finding {
  const f = notOomFinding(line, 2, 'the log ends inside a Python traceback (its exception line was cut off)', false, [lookAtFailure('the innermost frame of your code in the traceback (the exception itself is not in the log)')]);
  f.frames = frames;
  const spawned = f.rank === undefined ? spawnRank(line, 0) : undefined;
  if (spawned !== undefined) f.rank = spawned;
  return { ...f, facts: { tier: 2, cutTraceback: 1 } };
}

export const otherFailure: Signature = {
  id: 'other-failure',
  platform: 'cpu',
  needles: ['Error', 'Exception', 'terminate called', 'Abort', 'SIGABRT', 'Segmentation fault', 'Check failed', ': F ', 'Fatal Python', 'exit code', 'exitcode', 'return code', 'SIGTERM', 'death signal', 'BAD TERMINATION',
    'Traceback (most', 'SIGSEGV', 'SIGILL', 'SIGBUS', 'SIGFPE', 'signal 11', 'CUDA_ERROR_', 'double free', 'corrupt', 'c0000', 'C0000', ':FATAL:', '5070', 'CUDA ERROR', 'CUDA error', 'CUDA failure', '.cu', 'To enable traceback see', ' -> ', 'page fault', 'PROTECTION_FAULT', 'NVRM: ', ' timeout',
    'Floating point exception', 'Illegal instruction', 'zsh: ', 'LLVM ERROR', 'panicked at', 'no kernel image is', 'No kernel image is', 'launch failure', 'unsupported toolchain',
    'busy or unavailable', 'version is insufficient', 'CUDA-capable device', 'illegal instruction was', 'launch timed out', 'too many resources requested',
    'kernel image is invalid', 'forward compatibility was attempted', 'Unable to determine the device handle', 'Failed to initialize NVML', 'NVIDIA-SMI has failed',
    'nvrtc', 'NVRTC_ERROR', 'CUDNN ERROR', 'cudnn_frontend', ': ', 'ERR', 'Java Virtual Machine', 'Program will exit', 'matching distribution',
    'satisfies the requirement', 'ailed building wheel', 'subprocess-exited-with-error', 'ResolutionImpossible', 'is not compatible with the current PyTorch', 'failed with error -',
    'xit with code', 'xited with code', 'seconds after SIGTERM', 'encountered in worker', 'encountered in DataLoader worker', 'terminating due to uncaught', 'terminated abnormally', 'crashed with signal', 'panic(cpu', '] [', '=====', 'ROCm-capable', 'exit status', 'exit with status code', 'died unexpectedly', 'us error', 'Fatal glibc', 'CUDA_EXCEPTION_',
    'GPU reset', 'GPU BACO', 'GPU mode', 'Memory access fault at GPU', 'rocr debug agent', 'OutOfResources', 'client socket has', 'waitForInput: socket', 'NCCL WARN Call to ibv_', 'synapse error', 'synapse status', 'synStatus', 'load or store instruction on an invalid',
    'abort ()', 'raise (sig=', 'signo=', 'backend compiler failed build', 'Double type is not supported', '][CLI Driver]', '][ODBC', '][Driver Manager]', 'workers are out of shared memory', 'ERROR in', 'Schema not found for node', 'Unhandled Rejection (', 'SEVERE: ', 'returncode', '.spvm line ',
    ' error: ', ': error:', 'CRITICAL', 'CANCELLED AT ', '@IOGPU', '@AGX', 'Error handler invoked', 'FATAL: kernel `', '!!!! kernel execution error', 'Expected all tensors', 'ggml_cuda_init: failed', 'node it was running on is dead', 'waiting for remainder of ranks', 'appears to have died', 'KernelRestarter: restarting', ' restarted', 'kernel process died', 'The Kernel crashed', 'hipsparselt_error', 'rocBLAS call failed', 'rocblas_status_', 'HIPBLAS', 'miopen', 'MIOpen', 'HIPRTC_ERROR', 'error while loading shared libraries', 'IOT instruction', 'failed out of', 'tests FAILED:', 'NET/OFI', 'monitoredBarrier', 'option -- ', 'unrecognized option ', 'uota', 'to be true, but got false', '32212', '-10737', ...LOCALIZED_SEGFAULT],
  match(line) {
    const text = line.content.replace(CI_PREFIX, '').replace(LOGGER_ERROR_PREFIX, '');
    // libc++'s form (libc++abi's default terminate handler): "libc++abi: terminating due to uncaught exception of type std::runtime_error: msg".
    if (text.includes('terminate called after throwing') || /\bterminating due to uncaught exception of type /.test(text)) {
      const what = /^\s*what\(\):\s*(.*)$/.exec(line.next(1) ?? '')?.[1];
      const f = notOomFinding(line, 2, quote(what ? `${text.trim()}: ${what}` : text), false, [lookAtFailure('the C++ exception that nothing caught (its what() message)')]);
      // The exception's message may name the platform (libc++abi prints it on the same line).
      const named = nativeFailure(what ? `${text} ${what}` : text)?.platform;
      if (named) f.platform = named;
      return { ...f, extraLines: what !== undefined ? [1] : [] };
    }
    // libstdc++'s verbose terminate handler (libsupc++/vterminate.cc) when std::terminate runs with no exception in flight
    // ("terminate called without an active exception": a joinable std::thread destroyed, a throw; with nothing to rethrow) or
    // while it is already running ("terminate called recursively"): the process aborts. The recursion follows a first terminate
    // report, which is the failure.
    const terminated = /\bterminate called (without an active exception|recursively)\b/.exec(text);
    if (terminated) {
      if (terminated[1] === 'recursively') for (let k = 1; k <= 3; k++) if (/\bterminate called\b|^\s*what\(\):/.test(line.previous(k) ?? '')) return undefined;
      return notOomFinding(line, 2, quote(text), false, [lookAtFailure(terminated[1] === 'recursively' ? 'the first failure: std::terminate ran again while it was handling one (a destructor or handler that threw)' : 'the code that ended with no exception in flight: a std::thread destroyed while still joinable (join or detach it), or a bare throw; with nothing to rethrow')]);
    }
    // The cryptonight miners' CUDA check (otherOom.ts MINER_CHECK_FILE: "GPU N: <status>" over "<file>.cu line N", then exit(1))
    // with a status other than out of memory: the process exits on it, on device N (read here, before the status string
    // alone reads as a call that returned its error).
    const minerGpu = /^\s*GPU ?(\d+): (.+?)\s*$/.exec(text);
    if (minerGpu && MINER_CHECK_FILE.test(line.next(1) ?? '')) {
      const f = notOomFinding(line, 2, `a CUDA call failed on GPU ${minerGpu[1]}: ${quote(minerGpu[2]!)} (the miner's check at ${quote((line.next(1) ?? '').trim())}; the process exits on it)`, false, [lookAtFailure('the CUDA call at the file and line the check names (a launch failure is usually an earlier kernel\'s error: the clock, intensity or threads settings for this GPU)'), debugAsync]);
      if (f.platform === 'cpu') f.platform = 'cuda';
      return { ...f, device: Number(minerGpu[1]), extraLines: [1] };
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
            ...notOomFinding(line, 2, quote(text), false, []),
            kind: 'runtime-abort',
            platform: /gpu_bfc_allocator|GPU_\d+_bfc/.test(text) ? 'cuda' : platformNear(line),
            summary: 'Process aborted: TensorFlow\'s BFC allocator ran out of memory and failed a CHECK',
            explanation: 'The BFC allocator printed its out-of-memory report (the map of used \'*\' and free \'_\' chunks), then a CHECK on the failed allocation\'s status aborted the process (glog FATAL): no exception reached the program.',
            fixes: [shrinkPeak('the tensors live at the failing allocation (batch size, model size)')],
          };
        }
      }
      const cudnn = /CUDNN|cudnn|cuda/.test(text);
      // A check that throws instead of aborting (torch_xla's XLA_CHECK: "RuntimeError: …/xrt_computation_client.cc:1403 :
      // Check failed: …", xla_client/debug_macros.h throwing std::runtime_error) reached Python as the exception's message.
      const raised = /^\s*(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): /.test(text);
      return notOomFinding(line, 2, quote(text.replace(/^.*?\] /, '')), raised, cudnn ? [lookAtFailure('the failed check (a cuDNN/CUDA status other than an allocation failure)'), debugAsync] : [lookAtFailure('the failed check and the call that made it')]);
    }
    const fatal = TSL_FATAL.exec(text);
    if (fatal) {
      const f = notOomFinding(line, 2, `a fatal check at ${fatal[1]}: ${quote(fatal[2]!)}`, false, [lookAtFailure('the fatal check (its status and message)')]);
      return { ...f, platform: f.platform === 'cpu' && /\bxla\b|tpu/i.test(text) ? 'xla-tpu' : f.platform };
    }
    // torch_xla's XRT client logging a failed computation's status and stack (xla_util.cc ReportComputationError);
    // torch_xla raises it as a RuntimeError. The status text itself, when kept, is read by the XLA signatures.
    if (/xla_util\.cc:\d+\] .*\bReportComputationError\(/.test(text)) {
      const f = notOomFinding(line, 2, "torch_xla's XLA computation failed (xla::util::ReportComputationError)", true, [lookAtFailure('the status printed above the stack trace (its code and message)')]);
      return { ...f, platform: /CUDA|\bGPU\b/.test(text) ? 'cuda' : 'xla-tpu' };
    }
    // GameMaker's runner reporting an unhandled error in an event (its error box and console: "ERROR in", "action number 1",
    // "of Create Event", "for object obj_player:", then the message and "at gml_Object_… (line N)"); GML's try/catch can catch it.
    if (/^\s*ERROR in\s*$/.test(text) && /^\s*action number \d+\s*$/.test(line.next(1) ?? '')) {
      let message: string | undefined;
      for (let k = 2; k <= 8 && message === undefined; k++) {
        const next = (line.next(k) ?? '').trim();
        if (next !== '' && !/^(?:of .+ Event\d*|for object \S+:)$/.test(next)) message = next;
      }
      const f = notOomFinding(line, 2, `GameMaker's runner stopped on an error in an event${message ? ` (${quote(message)})` : ''}`, true, [lookAtFailure('the GML line the report names ("at gml_Object_… (line N)")')]);
      return { ...f, platform: 'cpu' };
    }
    const rejection = UNHANDLED_REJECTION.exec(text);
    if (rejection) {
      const f = notOomFinding(line, 2, quote(text), true, [lookAtFailure(`the ${rejection[1]} and the first frame of your code under it (a promise rejected with no catch)`)]);
      // The overlay's frames, innermost first: a function's name over its "file:line"; the frames keep Python's order, outermost first.
      const frames: SourceFrame[] = [];
      for (let k = 1; k <= 40; k++) {
        const at = OVERLAY_FRAME.exec(line.next(k) ?? '');
        if (!at || at[1]!.includes('node_modules/')) continue;
        const fn = (line.next(k - 1) ?? '').trim();
        frames.unshift({ file: at[1]!, line: Number(at[2]), function: /^[\w$.<>]+$/.test(fn) ? fn : '' });
      }
      if (frames.length > 0) f.frames = frames;
      return f;
    }
    if (PY_LOG_CRITICAL.test(text)) return notOomFinding(line, 2, quote(text), true, [lookAtFailure('the CRITICAL record and what the program logged just before it')]);
    if (JUL_SEVERE.test(text)) return notOomFinding(line, 2, quote(text), true, [lookAtFailure('the SEVERE record and the lines under it (java.util.logging\'s error level)')]);
    const spvm = SPVM_FRAME.exec(text);
    if (spvm) {
      // The message is the line above the first frame.
      if (SPVM_FRAME.test(line.previous(1) ?? '')) return undefined;
      const message = (line.previous(1) ?? '').trim();
      const f = notOomFinding(line, 2, `an SPVM exception${message ? ` (${quote(message)})` : ''}`, true, [lookAtFailure('the SPVM method and line the exception\'s stack names first')]);
      const frames: SourceFrame[] = [];
      for (let k = 0; k <= 40; k++) {
        const at = SPVM_FRAME.exec(k === 0 ? text : (line.next(k) ?? ''));
        if (!at) break;
        frames.unshift({ file: at[2]!, line: Number(at[3]), function: at[1]! });
      }
      f.frames = frames;
      return f;
    }
    const barrier = MONITORED_BARRIER.exec(text);
    if (barrier) {
      const faulty = Number(barrier[1] ?? barrier[2]);
      const f = notOomFinding(line, 1, `rank ${faulty} failed ProcessGroupGloo's monitoredBarrier (${quote(text)})`, false, [findTheFirstFailure]);
      return { ...f, rank: faulty, facts: { tier: 1, faultyRank: faulty } };
    }
    const killedBy = SUBPROCESS_SIGNAL.exec(text);
    if (killedBy && killedBy[1] !== '9') {
      const signal = SIGNAL_NAMES[killedBy[1]!];
      return notOomFinding(line, 1, `a child process was killed by signal ${killedBy[1]}${signal ? ` (${signal})` : ''}: ${quote(text)}`, false, [lookAtFailure('the child\'s own output and core dump (a negative returncode is the signal that killed it)')]);
    }
    const julia = JULIA_ERROR.exec(text);
    if (julia && /^\s*Stacktrace:\s*$/.test(line.next(1) ?? '')) {
      // error("msg") prints its ErrorException as the bare message.
      const type = julia[1] ?? 'ErrorException';
      const f = notOomFinding(line, 2, `a Julia ${type}${julia[2] ? `: ${quote(julia[2])}` : ''}`, true, [lookAtFailure(`the ${type} and the first frame of your code in the stacktrace under it`)]);
      const frames = juliaFrames(line);
      if (frames.length > 0) f.frames = frames;
      return f;
    }
    if (/Fatal Python error/.test(text)) {
      const f = notOomFinding(line, 2, quote(text), false, [lookAtFailure('the fatal error and the thread stacks printed under it')]);
      const frames = faulthandlerFrames(line);
      if (frames.length > 0) f.frames = frames;
      return f;
    }
    const js = JS_FRAME.test(line.next(1) ?? '') ? JS_ERROR.exec(text) : null;
    if (js) {
      const f = notOomFinding(line, 2, quote(text), true, [lookAtFailure(`the ${js[1]} and the innermost frame of your code in the stack under it`)]);
      f.frames = jsFrames(line);
      return f;
    }
    // ComfyUI's report of a node's exception ("Error occurred when executing DepthAnything_V2:" then the message; execution.py
    // before its 2024 report format) with the message kept on the same line: the node's exception, which the app caught to
    // fail that prompt. On a line of its own the message is read for what it says.
    const comfy = COMFY_NODE_ERROR.exec(text);
    if (comfy) return notOomFinding(line, 2, `ComfyUI's node ${comfy[1]} failed: ${quote(comfy[2]!.trimEnd())}`, true, [lookAtFailure(`the exception of the node ${comfy[1]} (its traceback follows the report)`)]);
    // c10's TORCH_CHECK without a message ("Expected is_sm80 to be true, but got false.  (Could this error message be improved?
    // …)"), the RuntimeError's text when a paste kept it without its type.
    if (TORCH_CHECK_DEFAULT.test(text)) return notOomFinding(line, 2, quote(text), true, [lookAtFailure('the condition the check names (here a property of the device or of the inputs the kernel requires)')]);
    const ex = EXCEPTION_LINE.exec(text) ?? IPYTHON_HEADER.exec(text);
    if (ex) {
      const type = ex[2]!;
      const header = IPYTHON_HEADER.test(text);
      // A bare line without a traceback above it is only taken when it has a message or is IPython's header.
      // A traceback cut to its last code line keeps the statement that raised it: a bare exception line right under an
      // assert or raise statement ("assert self.tmem_total <= CAPACITY" over "AssertionError") is that statement's exception.
      const raisedAbove = /^\s*(?:assert\b|raise\b)/.test(line.previous(1) ?? '');
      if (!header && ex[3] === undefined && type !== 'ChildFailedError' && !raisedAbove && line.frames().length === 0) return undefined;
      if (/Warning$/.test(type)) return undefined;
      // Windows refusing to commit memory (ERROR_COMMITMENT_LIMIT, 1455: "[WinError 1455] The paging file is too small for this
      // operation to complete", in the system's language), raised as OSError, typically while torch maps its CUDA DLLs in each
      // DataLoader worker: the host's RAM plus paging file ran out.
      // ENOMEM as an OSError ("OSError: [Errno 12] Cannot allocate memory", fork or mmap refused): host memory, also when a
      // paste cut the words after the code.
      if (/^\[Errno 12\]/.test(ex[3]?.trim() ?? '')) {
        return raisedOom(line, text, [hostMemory], {
          platform: 'cpu',
          summary: 'Host out of memory: the system refused memory (ENOMEM, errno 12)',
          explanation: `The program received ${ex[1]} with errno 12 (ENOMEM): the kernel would not give the process memory (a fork, an mmap, an allocation), for lack of RAM, swap or commit. It could have caught it.`,
        });
      }
      // NumPy's size check ("ValueError: array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible
      // size."): an array over the largest allocation NumPy can ask for, a request refused before the allocator.
      if (type === 'ValueError' && /^array is too big\b/.test(ex[3]?.trim() ?? '')) {
        return raisedOom(line, text, [shrinkPeak('the array (a smaller dtype such as float32, chunks, or np.memmap)')], {
          platform: 'cpu',
          summary: 'Out of memory: NumPy refused an array larger than the largest it can allocate ("array is too big")',
          explanation: `The program received ${ex[1]}: the array's size in bytes is over NumPy's limit for one allocation (the address space of the build), so no memory was asked for. It could have caught it.`,
        });
      }
      if (WINDOWS_COMMIT_LIMIT.test(text)) {
        return raisedOom(line, text, [hostMemory, windowsPagingFile], {
          platform: 'cpu',
          summary: 'Host out of memory: Windows could not commit memory (WinError 1455, the paging file is too small)',
          explanation: `The program received ${ex[1]}: Windows had no commit left (RAM plus the paging file) for what it asked, often the CUDA libraries torch maps into every worker process. It could have caught it.`,
        });
      }
      // TensorFlow's copy into a destination tensor it could not allocate (a host-to-device or device-to-device copy when the
      // GPU is full: "InternalError: Dst tensor is not initialized."), raised where the copy was requested.
      if (ex[3] !== undefined && /^Dst tensor is not initialized\b/.test(ex[3].trim())) {
        return raisedOom(line, text, [shrinkPeak(), { id: 'tf-memory-growth', title: 'Let TensorFlow allocate GPU memory as it needs it (tf.config.experimental.set_memory_growth) and lower the batch', rationale: 'The copy\'s destination could not be allocated on the device: the memory TensorFlow holds is full.' }], {
          platform: devicePlatformNear(line),
          summary: 'Out of memory: TensorFlow could not allocate the destination of a copy ("Dst tensor is not initialized")',
          explanation: `The program received ${ex[1]}: TensorFlow could not allocate the tensor a copy writes into, which happens when the device's memory is full; it could have caught it.`,
        });
      }
      // Windows' E_OUTOFMEMORY HRESULT (0x8007000E, -2147024882 as a signed int) in the message of an exception, as torch-directml
      // raises it ("RuntimeError: Unknown error -2147024882" under "DML allocator out of memory!") and Windows ML and ONNX
      // Runtime's DirectML provider return it.
      if (ex[3] !== undefined && E_OUTOFMEMORY.test(ex[3])) {
        return raisedOom(line, text, [shrinkPeak()], {
          summary: 'Out of memory: Windows returned E_OUTOFMEMORY (0x8007000E)' + (/\bDML\b|directml/i.test([1, 2, 3, 4, 5, 6].map((k) => line.previous(k) ?? '').join('\n')) ? ' from DirectML' : ''),
          explanation: `The program received ${ex[1]} carrying E_OUTOFMEMORY, Windows' status for an allocation that did not fit (DirectML's device heap, or the host's memory); it could have caught it.`,
        });
      }
      // PyTorch's DataLoader moving a batch through shared memory that is full ("RuntimeError: unable to write to file
      // </torch_15769_1517813162>", with ": No space left on device (28)" where the OS said why): /dev/shm, host memory a
      // container caps (Docker's 64 MB), ran out.
      if (ex[3] !== undefined && TORCH_SHM_WRITE.test(ex[3])) {
        return raisedOom(line, text, [{ id: 'shm-size', title: 'Give /dev/shm more room (docker run --shm-size=16g, or --ipc=host), or use fewer DataLoader workers or smaller batches', rationale: 'Each worker\'s batches pass through shared memory.', snippet: 'docker run --shm-size=16g …' }, hostMemory], {
          platform: 'cpu',
          summary: 'Host shared memory full: PyTorch could not write a tensor to /dev/shm',
          explanation: `The program received ${ex[1]}: a DataLoader worker hands each batch to the main process through a file in /dev/shm, and there was no room for it (a container's small /dev/shm, or many workers with large batches).`,
        });
      }
      // An application's own words for the device's memory running out ("… it is likely that you have unsufficient VRAM …").
      if (ex[3] !== undefined && VRAM_OUT.test(ex[3]) && !VRAM_HEDGE.test(ex[3])) {
        return raisedOom(line, text, [shrinkPeak()], {
          platform: devicePlatformNear(line),
          summary: `Out of GPU memory: ${quote(ex[3])}`,
          explanation: `The program received ${ex[1]}, whose message says the GPU's memory (VRAM) was not enough; it could have caught it.`,
        });
      }
      // PyTorch's out-of-memory message cut inside its first words where the paste or the excerpt ends ("RuntimeError: CUDA
      // ou", "… CUDA out o"): nothing else it could say starts so.
      if (ex[3] !== undefined && cutOomMessage(ex[3]) && [1, 2, 3].every((k) => (line.next(k) ?? '').trim() === '')) {
        const hip = ex[3].startsWith('HIP');
        return raisedOom(line, text, [shrinkPeak()], {
          platform: hip ? 'rocm' : 'cuda',
          summary: `${hip ? 'HIP' : 'CUDA'} out of memory (the message is cut off after "${ex[3].trim()}")`,
          explanation: `The log ends inside the first words of PyTorch's out-of-memory message, raised as ${ex[1]}: the program could have caught it. The sizes were cut off with the rest.`,
        });
      }
      // IPython's header starts the traceback; its frames are the lines below it.
      const headerFrames = header ? ipythonFrames(line) : undefined;
      if (type === 'ResourceExhaustedError') {
        // TensorFlow's out-of-memory exception whose message (if any) no signature read: the GPU's unless a CPU is named (as
        // otherOom.ts reads TensorFlow's other OOM texts).
        const f = notOomFinding(line, 2, quote(text), true, []);
        return {
          ...f,
          platform: f.platform === 'cpu' && !/\bdevice:CPU:\d|\bcpu_allocator|\bCPU\b/.test(text) && !cpuOnlyAbove(line) ? 'cuda' : f.platform,
          kind: 'catchable-oom',
          summary: `${ex[1]} (TensorFlow's out-of-memory error; its message is cut off or not one Headroom reads)`,
          explanation: `The program received ${ex[1]}, the exception TensorFlow raises when an allocation does not fit; it could have caught it. The message with the sizes is missing.`,
          fixes: [{ id: 'shrink-peak', title: 'Lower the peak: smaller batch, smaller model or sequence length, mixed precision', rationale: 'TensorFlow could not allocate a tensor on the device.' }],
          facts: { tier: 2 },
          ...(headerFrames && headerFrames.length > 0 && { frames: headerFrames }),
        };
      }
      const launcher = LAUNCHER_EXCEPTION.test(type);
      const f = notOomFinding(line, 2, quote(text), !launcher, launcher ? [findTheFirstFailure] : [lookAtFailure(`the ${type} and the innermost frame of your code above it`)]);
      if (launcher) f.facts = { ...f.facts, launcher: 1 };
      if (headerFrames && headerFrames.length > 0) f.frames = headerFrames;
      // PyTorch's device check naming one accelerator beside the CPU ("Expected all tensors to be on the same device, but
      // found at least two devices, cuda:0 and cpu!"): that accelerator is the device; two accelerators name none.
      const mixed = /\bExpected all tensors to be on the same device, but found at least two devices, (\w+)(?::(\d+))? and (\w+)(?::(\d+))?/.exec(text);
      if (mixed && (mixed[1] === 'cpu') !== (mixed[3] === 'cpu')) {
        const index = mixed[2] ?? mixed[4];
        if (index !== undefined) f.device = Number(index);
      }
      // torch.nn.DataParallel re-raises a replica's exception as "Caught X in replica N on device D."
      // (parallel_apply.py's ExceptionWrapper); DataParallel replicates onto CUDA devices.
      const replica = REPLICA_DEVICE.exec(text);
      if (replica) {
        f.device = Number(replica[1]);
        if (f.platform === 'cpu') f.platform = 'cuda';
      }
      if (type === 'ChildFailedError') {
        const rank = rootCauseRank(line);
        if (rank !== undefined) f.rank = rank;
      }
      // An exception inside a logging handler (logging.Handler.handleError: "--- Logging error ---", the traceback, then
      // "Call stack:" with the frames of the program's logging call, then "Message: …" and "Arguments: …"): the call stack
      // is where the program was, outside the handler's own frames.
      if (/^\s*Call stack:\s*$/.test(line.next(1) ?? '')) {
        const stack: string[] = [];
        for (let k = 2; k <= 200; k++) {
          const next = line.next(k);
          if (next === undefined || /^\s*Message: /.test(next) || !isTracebackBody(next)) break;
          stack.push(next);
        }
        const callStack = framesOf(stack);
        if (callStack.length > 0) f.frames = [...callStack, ...line.frames()];
      }
      if (f.rank === undefined) {
        const spawned = tracebackRankAbove(line);
        if (spawned !== undefined) f.rank = spawned;
      }
      return f;
    }
    const cut = /Traceback \(most/.test(text) ? cutTraceback(line, text) : undefined;
    if (cut) {
      // A launcher's traceback cut at its raise of the child's failure (accelerate's simple_launcher "raise
      // subprocess.CalledProcessError(…)", torchrun's ChildFailedError) is the launcher's report, not the failure.
      let last: string | undefined;
      for (let k = 1; k <= 2000 && line.next(k) !== undefined; k++) if ((line.next(k) ?? '').trim() !== '') last = line.next(k);
      if (last !== undefined && /^\s*raise (?:subprocess\.)?(?:CalledProcessError|ChildFailedError)\(/.test(last)) {
        const f = notOomFinding(line, 1, 'a launcher reported that its worker process failed (its traceback is cut off at the raise)', false, [findTheFirstFailure]);
        f.frames = cut;
        return f;
      }
      return cutTracebackFinding(line, cut);
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
      const f = notOomFinding(line, 2, native.name, native.catchable ?? false, [lookAtFailure(native.what)]);
      // A check that returned the error may still abort the process on the next lines ("Aborted", "core dumped").
      if (native.abortsAfter && f.catchable) {
        for (let k = 1; k <= 3; k++) if (/\bAborted\b|core dumped|terminate called|SIGABRT/.test(line.next(k) ?? '')) f.catchable = false;
      }
      if (native.platform) f.platform = native.platform;
      // NCCL's messages name no platform; the lines around them may say RCCL/ROCm, else it is CUDA's.
      else if (native.fallbackPlatform && f.platform === 'cpu') f.platform = native.fallbackPlatform;
      if (native.device !== undefined) f.device = native.device;
      if (native.rank !== undefined) f.rank = native.rank;
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
      // Torch7's C checks (THCudaCheck FAIL, THError) raise a Lua error: luajit prints it and its "stack traceback:" just below.
      for (let k = 1; k <= 3; k++) {
        if (!/^\s*stack traceback:\s*$/.test(line.next(k) ?? '')) continue;
        const frames = luaFrames(line, k);
        if (frames.length > 0) f.frames = frames;
        break;
      }
      // A native error's message printed under the bare Python exception it became ("RuntimeError" over "CUDA Runtime Error:
      // an illegal memory access was encountered at scene.cpp:1523", an extension's error printed after its type): the
      // traceback above that exception line is this failure's.
      if (f.frames === undefined && /^\s*(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\s*$/.test(line.previous(1) ?? '')) {
        const frames = line.frames(1);
        if (frames.length > 0) f.frames = frames;
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
    const stall = HOROVOD_STALL.exec(text);
    if (stall) {
      return {
        ...notOomFinding(line, 1, 'Horovod\'s stall inspector', false, [findTheFirstFailure]),
        signature: 'horovod-stall',
        role: 'timeout',
        kind: 'hang',
        summary: `Collective stall: Horovod saw tensors submitted by only some ranks, the rest missing` + (stall[1] !== undefined ? ` for more than ${stall[1]} s` : ''),
        explanation:
          'Horovod\'s stall inspector reports collectives (allreduce, allgather, broadcast) that some ranks submitted and the others have not for longer than its warning time. ' +
          'Every rank waits for the missing ones: they failed, took another code path (different tensors, a different number of steps), or are still busy. The job hangs until they come or it is stopped.',
        fixes: [
          { id: 'find-missing-rank', title: 'Look at the ranks the message lists as missing (not the ready ones): their own logs say why they did not submit', rationale: 'A collective completes only when every rank submits the same tensors.' },
          findTheFirstFailure,
        ],
      };
    }
    // Jupyter's server restarting a kernel whose process died (KernelRestarter, "kernel <uuid> restarted"): with no failure in
    // the 30 lines above it, a kill for host memory is the usual cause, and the collectors' labels read it so; the notebook's own
    // dialogs ("appears to have died", "The Kernel crashed") and a restart after a named failure stay a failure of unknown cause.
    if (KERNEL_RESTARTED.test(text) && !failureAbove(line, 30)) {
      return {
        ...notOomFinding(line, 1, `the notebook's kernel process died and Jupyter restarted it (${quote(text)})`, false, [hostMemory]),
        kind: 'host-oom',
        platform: 'cpu',
        summary: 'Host OOM (likely): the kernel process died and Jupyter restarted it',
        explanation: 'Jupyter\'s server restarted the kernel because its process died without an error it could report. With no exception or crash in the log, the usual cause is the kernel OOM killer (or a container\'s memory limit) ending it for host memory; the system log (dmesg) says for certain.',
      };
    }
    if (KERNEL_DIED.test(text)) {
      return notOomFinding(line, 1, `the notebook's kernel process died (${quote(text)})`, false, [
        lookAtFailure('the kernel\'s own output before it died (the server\'s console or the extension\'s Jupyter log: a native crash, an abort) and the system log (dmesg: was it killed for memory?)'),
      ]);
    }
    if (CRASH.test(text)) {
      const f = notOomFinding(line, 1, quote(text), false, [lookAtFailure('the native crash (run under gdb or with faulthandler enabled to see where)')]);
      // A DataLoader worker's own signal handler reports its crash: the worker is a host process, whatever device the run uses.
      if (WORKER_CRASH.test(text)) return { ...f, platform: 'cpu', facts: { tier: 1, hostProcess: 1 } };
      return f;
    }
    if (LAUNCHER.test(text)) {
      if (/BAD TERMINATION/.test(text)) {
        for (let k = 1; k <= 4; k++) {
          const code = /EXIT CODE:\s*(\d+)/.exec(line.next(k) ?? '')?.[1];
          if (code === '9') {
            return {
              ...notOomFinding(line, 1, 'an MPI process was killed (EXIT CODE: 9, SIGKILL)', false, []),
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
      const f = notOomFinding(line, 1, quote(text), false, [findTheFirstFailure]);
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

/**
 * transformers refusing a device map that spills a model out of the GPU (modeling_utils.py and the quantizers'
 * validate_environment): "Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the
 * quantized model." (bitsandbytes cannot run those modules there), and "The current `device_map` had weights offloaded to
 * the disk. Please provide an `offload_folder` for them." (the model did not fit in the GPUs and the RAM). Raised as a
 * ValueError when the model is loaded: the model does not fit where it should run. The first is the GPU's memory, the
 * second the host's as well.
 */
const DISPATCHED_OFF_GPU = /\bSome modules are dispatched on the CPU or the disk\b/;
const OFFLOADED_TO_DISK = /\bhad weights offloaded to the disk\b/;

export const tailModelDoesNotFit: Signature = {
  id: 'model-does-not-fit',
  platform: 'cpu',
  needles: ['does not fit on the devices', 'requires more system memory', 'dispatched on the CPU or the disk', 'offloaded to the disk'],
  match(line) {
    const offGpu = DISPATCHED_OFF_GPU.test(line.content);
    if (offGpu || OFFLOADED_TO_DISK.test(line.content)) {
      return {
        signature: 'other-out-of-memory',
        role: 'failure',
        kind: 'catchable-oom',
        platform: offGpu ? devicePlatformNear(line) : 'cpu',
        catchable: true,
        summary: offGpu
          ? 'The model does not fit in GPU memory: transformers put some of its modules on the CPU or the disk, which the quantized model cannot run there'
          : 'The model does not fit in GPU and host memory: transformers planned to offload weights to disk and has no offload_folder for them',
        explanation: 'When the model was loaded with a device_map, accelerate placed what did not fit in the GPUs\' memory elsewhere, and transformers refused that placement with a ValueError the program could catch. Nothing was allocated on the device yet.',
        numbers: {},
        fixes: [
          { id: 'shrink-model', title: 'Make the model fit: a smaller or more quantized model, more or larger GPUs, or max_memory per device', rationale: 'The device map put part of the model off the GPUs because it did not fit on them.' },
          offGpu
            ? { id: 'cpu-offload', title: 'Or let the modules that do not fit stay on the CPU in 32 bits (llm_int8_enable_fp32_cpu_offload=True with a custom device_map)', rationale: 'Slower, but the model loads.' }
            : { id: 'offload-folder', title: 'Or give the offloaded weights a folder (offload_folder=...) and accept disk-speed layers', rationale: 'Slower, but the model loads.' },
        ],
        facts: { tier: 2 },
      };
    }
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

/** How far above a launcher's report of a failed child the SIGKILL that ended the child may be read. */
const LAUNCHER_KILL_LINES = 5;

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

/**
 * torch.distributed's store-based barrier when a process group is created (distributed_c10d.py _store_based_barrier): each
 * rank adds itself to a counter in the store and waits for all of them, logging "Waiting in store based barrier to initialize
 * process group for rank: 0, key: store_based_barrier_key:1 (world_size=4, worker_count=2, timeout=0:30:00)" and then raising
 * "Timed out initializing process group in store based barrier on rank: 7, for key: …". A hang at start-up: some rank never
 * reached init_process_group (it did not start, crashed, or is stuck before it). Read by the tail pass.
 */
const STORE_BARRIER = /\b(?:[Tt]imed out initializing process group in|Waiting in) store based barrier\b(?:.*?\b(?:on|for) rank:? (\d+))?/;

export const tailStoreBarrier: Signature = {
  id: 'store-barrier-timeout',
  platform: 'cpu',
  needles: ['store based barrier'],
  match(line) {
    const m = STORE_BARRIER.exec(line.content);
    if (!m) return undefined;
    const timedOut = /imed out/.test(m[0]);
    const counts = /\(world_size=(\d+), worker_count=(\d+)/.exec(line.content);
    return {
      signature: 'store-barrier-timeout',
      role: 'timeout',
      kind: 'hang',
      platform: platformNear(line),
      catchable: false,
      summary: `${timedOut ? 'Timed out' : 'Stuck'} creating the process group: the store-based barrier did not see every rank arrive` + (counts ? ` (world_size=${counts[1]}, worker_count=${counts[2]})` : ''),
      explanation:
        'init_process_group waits in the store for every rank to arrive. Some never did: they were not started, crashed before it, or are stuck before ' +
        'it (loading data or a model, another barrier). This rank gives up after the timeout; the cause is in the other ranks\' output.',
      ...(m[1] !== undefined && { rank: Number(m[1]) }),
      numbers: {},
      fixes: [findTheRootRank, { id: 'launch-all-ranks', title: 'Check that every rank was launched with the same world size, master address and port, and reaches init_process_group', rationale: 'The barrier counts arrivals in the store; a rank that never connects leaves the rest waiting.' }],
      facts: { tier: 2 },
      ...(timedOut && { raised: true }),
    };
  },
};

/**
 * gloo's timeout of one transfer of a collective (gloo/transport/tcp/unbound_buffer.cc: "Timed out waiting 1800000ms for recv
 * operation to complete", raised as a RuntimeError): the gloo backend's counterpart of NCCL's watchdog timeout, a peer that
 * never sent or received its part. Read by the tail pass.
 */
const GLOO_TIMEOUT = /\bTimed out waiting (\d+) ?ms for (send|recv) operation to complete\b/;

/**
 * Windows' message for its commit limit (ERROR_COMMITMENT_LIMIT, 1455) printed on its own, without an exception's type in front:
 * a program that prints the system's text for the error it got (Zig's and .NET's process creation, a paste that kept the message
 * and lost "OSError: [WinError 1455]"). The call failed and returned the error: host memory refused, catchable. Exception lines
 * are read with their type by otherFailure. Read by the tail pass (the words hold no hot anchor).
 */
const BARE_WINDOWS_COMMIT_LIMIT = /^\s*(?:(?!(?:warn\w*|hint|tip|note|info):)\S+: )?(?:The paging file is too? small for this operation to complete|页面文件太小，无法完成操作)[.。]?\s*(?:Error loading .*)?$/i;

export const tailWindowsCommitLimit: Signature = {
  id: 'windows-commit-limit',
  platform: 'cpu',
  needles: ['paging file is to', '页面文件太小'],
  match(line) {
    const text = line.content;
    if (!BARE_WINDOWS_COMMIT_LIMIT.test(text) || EXCEPTION_LINE.test(text)) return undefined;
    return raisedOom(line, text, [hostMemory, windowsPagingFile], {
      platform: 'cpu',
      summary: 'Host out of memory: Windows could not commit memory (error 1455, the paging file is too small)',
      explanation: 'Windows had no commit left (RAM plus the paging file) for what the program asked and returned error 1455 to the call.',
    });
  },
};

export const tailGlooTimeout: Signature = {
  id: 'gloo-timeout',
  platform: 'cpu',
  needles: ['for send operation to complete', 'for recv operation to complete'],
  match(line) {
    const m = GLOO_TIMEOUT.exec(line.content);
    if (!m) return undefined;
    return {
      signature: 'gloo-timeout',
      role: 'timeout',
      kind: 'hang',
      platform: platformNear(line),
      catchable: false,
      summary: `gloo collective timed out: a ${m[2]} waited ${Number(m[1]) / 1000} s for a peer`,
      explanation:
        'A gloo collective (or barrier) waited for another rank\'s data past the process group\'s timeout. The peer crashed, took another code ' +
        'path, or is still busy elsewhere; the cause is in the other ranks\' output.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [findTheRootRank, agreeOnFailure],
      facts: { tier: 2 },
      raised: true,
    };
  },
};

/**
 * A debugger's backtrace (gdb's "#0  0x… in pthread_cond_wait … from …", py-spy --native) of a process that waits inside a
 * collective library: NCCL, RCCL, oneCCL, gloo, HCCL, MPI, Horovod or a process group's collective. Posted for a run that hung
 * without a timeout message; a stack that received a signal or is aborting is a crash's, not a hang's. Read by the tail pass.
 */
const DEBUGGER_FRAME = /^\s*#(\d+)\s+(?:0x[0-9a-fA-F]+ in )?(.*)$/;
const WAITING_FRAME = /pthread_cond_(?:timed)?wait|pthread_(?:timed)?join|pthread_timedjoin|futex|sem_(?:timed)?wait|epoll_wait|\bpoll\b|nanosleep|sched_yield|__lll_lock_wait|::wait\b|::Wait\b|[Ss]ynchronize|\bwait\w*\(/;
const COLLECTIVE_FRAME = /nccl|rccl|\bccl[_:]|gloo|hccl|\bMPI_|ompi_|horovod|ProcessGroup|all_?reduce|all_?gather|reduce_?scatter|broadcast|barrier/i;
const CRASHING_FRAME = /received signal|SIGSEGV|SIGABRT|SIGBUS|Segmentation fault|__GI_raise|__GI_abort|\babort \(|\braise \(|__pthread_kill/;
/** A debugger frame's function, or its library when the function has no symbol ("?? () from /opt/nccl/lib/libnccl.so.2"). */
function frameName(frame: string): string {
  const name = frame.replace(/\s*\(.*$/, '').trim();
  return name === '??' ? (/\bfrom (?:\S*\/)?([^\s/]+)\s*$/.exec(frame)?.[1] ?? name) : name;
}

/** Frames of the innermost block read for the wait and the collective. */
const STUCK_FRAMES = 12;

export const tailStuckInCollective: Signature = {
  id: 'stuck-in-collective',
  platform: 'cpu',
  needles: ['#0 '],
  match(line) {
    const first = DEBUGGER_FRAME.exec(line.content);
    if (!first || first[1] !== '0') return undefined;
    for (let k = 1; k <= 6; k++) if (CRASHING_FRAME.test(line.previous(k) ?? '')) return undefined;
    const frames = [first[2]!];
    for (let k = 1; k <= 3 * STUCK_FRAMES && frames.length < STUCK_FRAMES; k++) {
      const next = line.next(k);
      if (next === undefined) break;
      const frame = DEBUGGER_FRAME.exec(next);
      if (frame) {
        if (frame[1] === '0') break;
        frames.push(frame[2]!);
      }
    }
    if (frames.some((f) => CRASHING_FRAME.test(f)) || !frames.slice(0, 3).some((f) => WAITING_FRAME.test(f))) return undefined;
    const collective = frames.find((f) => COLLECTIVE_FRAME.test(f));
    if (collective === undefined) return undefined;
    return {
      signature: 'stuck-in-collective',
      role: 'timeout',
      kind: 'hang',
      platform: platformNear(line),
      catchable: false,
      summary: `Stuck in a collective: the stack waits in ${frameName(collective)}`,
      explanation:
        'The backtrace shows the process waiting inside a collective (or its communicator\'s teardown) with no crash on the stack: a hang. ' +
        'Some other rank never reached the same collective, or is stuck elsewhere; its own stack says where.',
      numbers: {},
      fixes: [findTheRootRank, agreeOnFailure],
      facts: { tier: 2 },
    };
  },
};

/** How far above a traceback cut at the end a kill may be to be its cause (the client's frames are a dozen lines or so). */
const KILL_ABOVE_CUT_TRACEBACK_LINES = 8;

export function chooseFailure<T extends { finding: Finding; line: number }>(found: readonly T[]): T | undefined {
  if (found.length === 0) return undefined;
  const tier = (f: Finding): number => Number(f.facts?.tier ?? 1);
  let chosen: T | undefined;
  for (const f of found) if (tier(f.finding) === 2) chosen = f;
  const lastCrash = [...found].reverse().find((f) => tier(f.finding) === 1 && CRASH.test(f.finding.summary));
  if (!chosen || (lastCrash && lastCrash.line > chosen.line + 20)) chosen = lastCrash ?? found[found.length - 1]!;
  // A timeout every rank reports (the store-based barrier's): the first report stands for all, as the hot scan's merged
  // timeouts keep their first rank.
  if (chosen.finding.role === 'timeout') chosen = found.find((f) => f.finding.signature === chosen!.finding.signature) ?? chosen;
  // The main process's traceback, cut off right after a DataLoader worker's crash report (its _try_get_data waiting on the
  // dead worker), is that crash's report: the crash is the failure.
  if (chosen.finding.facts?.cutTraceback !== undefined) {
    const worker = found.find((f) => f.finding.facts?.hostProcess !== undefined && chosen!.line - f.line >= 1 && chosen!.line - f.line <= 3);
    if (worker) chosen = worker;
  }
  // A traceback cut off right under an error its rank logged (c10d's store warning, then the exception that raised it) is
  // that error's traceback: the error is the failure, as it says.
  if (chosen.finding.facts?.cutTraceback !== undefined) {
    const logged = found.find((f) => tier(f.finding) === 2 && f.finding.facts?.cutTraceback === undefined && chosen!.line - f.line >= 1 && chosen!.line - f.line <= 2 && f.finding.rank === chosen!.finding.rank);
    if (logged) chosen = logged;
  }
  // A traceback cut off a few lines under a kill reported above it (Dask's nanny restarting a worker, then the client's gather
  // failing): the cut traceback says no cause of its own, and the kill is one. A kill further up is another episode's.
  if (chosen.finding.facts?.cutTraceback !== undefined) {
    const kill = found.find((f) => f.finding.role === 'host-kill' && chosen!.line - f.line >= 1 && chosen!.line - f.line <= KILL_ABOVE_CUT_TRACEBACK_LINES);
    if (kill) chosen = kill;
  }
  // A rank the others name as the faulty one (monitoredBarrier's report): its own error is the failure, not theirs after it.
  const faulty = found.find((f) => f.finding.facts?.faultyRank !== undefined)?.finding.facts?.faultyRank;
  if (faulty !== undefined) {
    const own = [...found].reverse().find((f) => tier(f.finding) === 2 && f.finding.rank === faulty);
    if (own) chosen = own;
  }
  // An allocation failure of the same rank printed right above the not-oom report of the process ending (an uncaught
  // exception's terminate, an abort) is that report's cause: the failure is the OOM.
  if (chosen.finding.kind === 'not-oom') {
    const oomKinds: readonly string[] = ['catchable-oom', 'fragmentation', 'runtime-abort', 'collective-oom'];
    const cause = [...found].reverse().find((f) => oomKinds.includes(f.finding.kind) && f.finding.rank === chosen!.finding.rank && chosen!.line - f.line >= 1 && chosen!.line - f.line <= 3);
    if (cause) chosen = cause;
  }
  // A launcher's report that its child failed (CalledProcessError, ChildFailedError) says only that; a SIGKILL read just
  // above it ("… died with <Signals.SIGKILL: 9>", a title line over the pasted exception) says how, unless the report
  // itself gives an exit status that is no kill ("returned non-zero exit status 1").
  if (chosen.finding.facts?.launcher !== undefined && !/\b(?:exit status|exitcode:?|exit code|return code =?)\s*[1-9]\d*\b/.test(chosen.finding.summary)) {
    const launcherLine = chosen.line;
    const kill = [...found].reverse().find((f) => f.finding.kind === 'host-oom' && launcherLine - f.line >= 0 && launcherLine - f.line <= LAUNCHER_KILL_LINES);
    if (kill) chosen = kill;
  }
  if (chosen.finding.rank === undefined) {
    const ranked = found.find((f) => f.finding.rank !== undefined && f.finding.kind === chosen!.finding.kind);
    if (ranked) chosen.finding.rank = ranked.finding.rank;
  }
  return chosen;
}
