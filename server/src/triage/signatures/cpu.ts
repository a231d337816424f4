/**
 * Host memory: PyTorch's CPU allocator failing (a catchable RuntimeError), Python's MemoryError,
 * TensorFlow on the CPU, and the process being killed for it — the kernel OOM killer in dmesg, a
 * bare "Killed" from the shell, torchrun's exit code -9 / SIGKILL, exit code 137, Slurm and cgroup
 * OOM events. A killed process cannot catch anything.
 */
import { formatBytes } from '../../format';
import { hostMemory, shrinkPeak } from '../fixes';
import { toBytes } from '../sizes';
import { joinNext, SYSLOG_PREFIX, thrownByTerminate } from './lineContext';
import { notOomFinding } from './otherFailure';
import { ipythonFrames } from '../frames';
import { parseTensorflowOom, tensorflowFinding } from './tensorflowMessage';
import type { Finding, LineView, Signature } from './types';

const cpuAllocator: Signature = {
  id: 'cpu-allocator',
  platform: 'cpu',
  needles: ['DefaultCPUAllocator', 'CPUAllocator.cpp'],
  match(line) {
    // Older builds' check on posix_memalign ("enforce fail at CPUAllocator.cpp:56] posix_memalign(&data, gAlignment, nbytes) ==
    // 0. 12 vs 0"): 12 is ENOMEM; any other status is not memory running out.
    if (!/DefaultCPUAllocator/.test(line.content) && !/\bposix_memalign\([^)]*\) == 0\. 12 vs 0\b/.test(line.content)) return undefined;
    const size = /you tried to allocate (\d+) bytes/.exec(line.content);
    const requested = size ? Number(size[1]) : undefined;
    return {
      signature: 'cpu-allocator',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'cpu',
      catchable: true,
      summary: `Host out of memory: the CPU allocator could not allocate${requested !== undefined ? ` ${formatBytes(requested)}` : ''}`,
      explanation:
        'PyTorch asked the OS for host memory and was refused (ENOMEM, or the Windows commit limit). It is a RuntimeError the program can catch; ' +
        'typical causes are whole checkpoints or datasets materialized in RAM, or a CPU-side tensor far larger than intended.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: requested !== undefined ? { requestedBytes: requested } : {},
      fixes: [hostMemory, shrinkPeak('the host-side tensors')],
    };
  },
};

/**
 * Python's MemoryError, also under a module path, NumPy's subclass and Arrow's (pyarrow.lib.ArrowMemoryError): "MemoryError", "numpy.core._exceptions.MemoryError",
 * "numpy.core._exceptions._ArrayMemoryError" (NumPy 1.20+), "numpy._core._exceptions._ArrayMemoryError" (NumPy 2). NumPy's
 * message gives the request: "Unable to allocate 7.91 GiB for an array with shape (1396913, 190, 4) and data type float64"
 * (numpy/core/_exceptions.py: binary units from bytes to EiB, three significant figures, "1234. GiB" past 1000).
 */
/**
 * The exception's line, also behind a logger's timestamp and bracketed field (Twisted's "2018-07-26 20:54:41+0000 [-] MemoryError")
 * or as Chaquopy hands it to Java ("com.chaquo.python.PyException: MemoryError: "), and as VS Code's Python debugger stops on
 * it ("Exception has occurred: MemoryError").
 */
const MEMORY_ERROR = /^\s*(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? (?:\[[^\]]*\] )?)?(?:[\w.]+\.PyException: |Exception has occurred: )?(?:[A-Za-z_]\w*\.)*_?(?:Array|Arrow)?MemoryError\b/;
/** Arrow's allocator's own message (pyarrow.lib.ArrowMemoryError: "realloc of size 2172846080 failed", "malloc of size 64 failed"). */
const ARROW_REQUEST = /\b(?:realloc|malloc|allocate|alloc) of size (\d+) failed\b/;
/** NumPy's message, also alone: an application that caught the error and printed its message ("Error Occured: unable to allocate …"). */
const NUMPY_REQUEST = /[Uu]nable to allocate (\d[\d,]*(?:\.\d*)?)\s?(bytes|[KMGTPE]i?B) for (?:an )?array with (?:shape|form)/;

/**
 * RAPIDS' libraries raise MemoryError for a failed device allocation (rmm::bad_alloc translated by Cython): when the innermost
 * frame of the traceback is in cuDF, cuML, cuGraph or RMM (an installed package's file, or its Cython module as IPython names
 * it: "cudf/_lib/csv.pyx in cudf._lib.csv.write_csv()"), the GPU's memory ran out. The traceback is under an IPython header
 * (its body, up to 40 lines below) or above the exception (its nearest frame line, up to 30 lines up).
 */
const RAPIDS_FILE = /(?:(?:site|dist)-packages[\\/]|^\s*)(?:cudf|dask_cudf|cuml|cugraph|rmm)[\\/]/;
const PYTHON_FRAME_FILE = /^\s*File "([^"]+)"/;
const IPYTHON_FRAME_FILE = /^(\S+\.pyx?) in \S/;
function raisedByRapids(line: LineView, ipython: boolean): boolean {
  let innermost: string | undefined;
  for (let k = 1; k <= (ipython ? 40 : 30); k++) {
    const near = ipython ? line.next(k) : line.previous(k);
    if (near === undefined || (ipython && /^[A-Za-z_][\w.]*(?:Error|Exception)\b/.test(near))) break;
    const file = (ipython ? IPYTHON_FRAME_FILE : PYTHON_FRAME_FILE).exec(near)?.[1];
    if (file === undefined) continue;
    innermost = file;
    if (!ipython) break;
  }
  return innermost !== undefined && RAPIDS_FILE.test(innermost);
}

/** Paddle's device OOM message within the block under its bare MemoryError (C++ traceback, summary: about a dozen lines). */
function paddleDeviceOomBelow(line: LineView): boolean {
  for (let k = 1; k <= 20; k++) {
    const next = line.next(k);
    if (next === undefined) return false;
    if (/\bOut of memory error on (?:GPU|NPU|XPU|MLU) \d+\./.test(next)) return true;
  }
  return false;
}

const pythonMemoryError: Signature = {
  id: 'python-memory-error',
  platform: 'cpu',
  needles: ['MemoryError', 'nable to allocate'],
  match(line) {
    // Twisted's Failure and Python 2's repr name the type inside the line: "[Failure instance: Traceback: <type 'exceptions.MemoryError'>: ".
    const typed = MEMORY_ERROR.test(line.content) || /<(?:type|class) '(?:exceptions\.)?MemoryError'>/.test(line.content);
    // NumPy's message alone is the error an application caught and printed, unless it is a warning the run went on from.
    if (!typed && (!NUMPY_REQUEST.test(line.content) || /\bwarn/i.test(line.content))) return undefined;
    // Theano/pygpu raise MemoryError for a GPU allocation ("Error allocating N bytes of device memory
    // (out of memory). Driver report …"): that is device memory, read by the other-OOM fallback.
    if (/of device memory/.test(line.content)) return undefined;
    // PaddlePaddle 2.x raises its ResourceExhaustedError as a bare "MemoryError:" over its C++ traceback and "Error Message
    // Summary", whose "Out of memory error on GPU 0. Cannot allocate …" is the device's OOM (read by cuda.ts's paddleOom).
    if (/MemoryError:\s*$/.test(line.content) && paddleDeviceOomBelow(line)) return undefined;
    const numpy = NUMPY_REQUEST.exec(line.content);
    const arrow = numpy ? null : ARROW_REQUEST.exec(line.content);
    const requested = numpy ? toBytes(numpy[1]!, numpy[2]!) : arrow ? Number(arrow[1]) : undefined;
    // IPython's header ("MemoryError      Traceback (most recent call last)") starts the traceback: its frames are below it.
    const below = /^\s*(?:[A-Za-z_]\w*\.)*_?(?:Array)?MemoryError\s*Traceback \(most recent call last\)/.test(line.content) ? ipythonFrames(line) : [];
    const rapids = !numpy && raisedByRapids(line, below.length > 0);
    return {
      ...(below.length > 0 && { frames: below }),
      signature: 'python-memory-error',
      role: 'failure',
      kind: 'catchable-oom',
      platform: rapids ? 'cuda' : 'cpu',
      catchable: true,
      summary: (rapids ? 'GPU out of memory: RAPIDS raised MemoryError' : 'Host out of memory: Python raised MemoryError') + (requested !== undefined ? ` (${numpy ? 'NumPy could not allocate an array' : "Arrow's allocator could not allocate a buffer"} of ${formatBytes(requested)})` : ''),
      explanation: numpy
        ? 'NumPy asked the OS for the memory of one whole array and was refused: the array does not fit in the host memory (or the address-space or commit limit) left to the process.'
        : rapids
          ? "RAPIDS (cuDF, cuML, RMM) raises MemoryError when its device memory resource cannot allocate: the GPU's memory, not the host's, ran out."
          : 'The Python allocator could not get host memory for an object.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: requested !== undefined ? { requestedBytes: requested } : {},
      fixes: numpy ? [hostMemory, shrinkPeak('the array (a smaller dtype such as float32, chunks, or np.memmap)')] : [hostMemory],
    };
  },
};

/**
 * An uncaught std::bad_alloc: "terminate called after throwing an instance of 'std::bad_alloc'" then
 * "  what():  std::bad_alloc" (libstdc++), or libc++'s "libc++abi: terminating due to uncaught
 * exception of type std::bad_alloc: std::bad_alloc". operator new could not get host memory on a
 * native thread (TensorFlow's executor, a data pipeline), so the process aborted: a host
 * allocation failure nothing could catch. (thrust's device-side bad_alloc names its own type.)
 */
const BAD_ALLOC = /terminate called after throwing an instance of 'std::bad_alloc'|terminating due to uncaught exception of type std::bad_alloc/;

const badAllocAbort: Signature = {
  id: 'host-bad-alloc-abort',
  platform: 'cpu',
  needles: ['terminate called after throwing', 'uncaught exception of type std::bad_alloc'],
  match(line) {
    if (!BAD_ALLOC.test(line.content)) return undefined;
    return {
      signature: 'host-bad-alloc-abort',
      role: 'failure',
      kind: 'runtime-abort',
      platform: 'cpu',
      catchable: false,
      summary: 'Process aborted: a host allocation failed (uncaught std::bad_alloc)',
      explanation:
        'C++ code could not get host memory (operator new threw std::bad_alloc) where nothing caught it, so the runtime called std::terminate and the process aborted. ' +
        'The host ran out of memory (or the process hit its address-space or cgroup limit): look at what holds host RAM, such as datasets, input pipelines and checkpoints.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [hostMemory, shrinkPeak('the host-side data (input pipeline buffers, batch size)')],
      extraLines: [1].filter((k) => /^\s*what\(\):/.test(line.next(k) ?? '')),
      absorbsLines: [1],
    };
  },
};

const tensorflowCpu: Signature = {
  id: 'tensorflow-oom-cpu',
  platform: 'cpu',
  needles: ['OM when allocating tensor'],
  match(line) {
    const msg = parseTensorflowOom(line);
    if (msg?.deviceType !== 'CPU') return undefined;
    return tensorflowFinding(msg, 'cpu', 'CPU', line, [hostMemory]);
  },
};

/** A kill for memory: one verdict per log, whichever of its traces (dmesg, shell, launcher) were captured. */
function hostKill(line: LineView, summary: string, numbers: Finding['numbers'], rank: number | undefined, explanation?: string): Finding {
  return {
    signature: 'host-oom-kill',
    role: 'host-kill',
    kind: 'host-oom',
    platform: 'cpu',
    catchable: false,
    summary,
    explanation:
      explanation ??
      'The process was killed with SIGKILL for using too much host memory (the kernel OOM killer or the job\'s cgroup limit). ' +
        'Nothing in the program runs after that: no exception, no traceback, no cleanup. The last lines of the log show where it was, not why.',
    ...(rank !== undefined ? { rank } : line.rank !== undefined ? { rank: line.rank } : {}),
    numbers,
    fixes: [hostMemory],
  };
}

/**
 * A worker or child a program reports dead of SIGKILL in words no hot anchor reads ("Snark worker died with signal sigkill"),
 * and fish's job report ("fish: Job 2, 'python run.py' terminated by signal SIGKILL (Forced quit)", proc.cpp: "%ls: %ls'%ls'
 * terminated by signal %ls (%ls)", the "Job N, " part only when several jobs run).
 */
const DIED_SIGKILL = /\b(?:died|exited|terminated|killed) (?:with|by) signal sigkill\b/i;
const TASK_ROW = /^(?:.*\]\s*)?\[\s*\d+\]\s+\d+\s+\d+(?:\s+\d+){4,9}\s+-?\d+\s+\S+\s*$/;
const CONTAINER_OOM = /\bcontainer oom [0-9a-f]{12,64}\b/;
/** The header dump_tasks prints above the task table (mm/oom_kill.c), only from the OOM killer's report. */
const TASKS_STATE = /\bTasks state \(memory values in pages\):/;
/** The kubelet evicting pods for node memory pressure (pkg/kubelet/eviction/helpers.go nodeLowMessageFmt: "The node was low on resource: memory. "). */
const NODE_LOW_MEMORY = /\bThe node was low on resource: \[?memory\]?/;
/** GCC's driver when a compiler pass it ran died of a signal (gcc/gcc.cc execute(): "%s signal terminated program %s", strsignal's "Killed" for SIGKILL). */
const GCC_KILLED = /\bfatal error: Killed signal terminated program (\S+)/;
/**
 * A parent reporting a child's exit status 137 (128 + SIGKILL) in words the hot scan's "exit code 137" does
 * not cover: the kubelet's exec hook ("command 'x' exited with 137: "), Nextflow's task report ("terminated
 * with an error exit status (137)"), a job runner's "command exit value(137)", and a container's state as
 * `kubectl describe pod` prints it ("Last State: Terminated / Reason: Error / Exit Code: 137") and `docker
 * inspect` does ("ExitCode": 137, beside "OOMKilled": false when the cgroup's OOM killer was not the sender), and a wrapper's
 * "execution failed with code 137".
 */
const EXIT_137 = /\bexit(?:ed)?(?: with)?(?: an error)?(?: exit)?(?: status code| status| value| ?code)?"?\s*[:(]?\s*137\b(?!\.\d)|\bfailed with (?:exit )?(?:code|status):? ?137\b(?!\.\d)/i;
/**
 * Docker's exec error as the Kubernetes exec path returns it (dockershim's dockerExitError: "Error executing in Docker
 * Container: %d"; kubectl exec prints "command terminated with non-zero exit code: " before it).
 */
const DOCKER_EXEC_137 = /\bError executing in Docker Container: 137\b/;
/** Horovod's gloo launcher names the rank it started ("Process {idx} exit with status code {ec}.", runner/gloo_run.py, idx = slot_info.rank). */
const HOROVOD_EXIT = /\bProcess (\d+) exit with status code -?\d+\b/;
/** Google Colab's notice when the runtime's VM ran out of memory and was restarted (its dialog and console: "Your session crashed after using all available RAM."). */
const COLAB_RAM = /\bYour session crashed after using all available RAM\b/;
/** Kaggle's notice when a notebook's kernel ran out of memory and was restarted ("Your notebook tried to allocate more memory than is available. It has restarted."), on a line of its own (not quoted in prose). */
const KAGGLE_RAM = /^\W*Your notebook tried to allocate more memory than is available\b/;
/**
 * Dask's nanny restarting a worker over its memory limit (distributed/nanny.py: "Worker exceeded 95% memory budget. Restarting",
 * newer "Worker tcp://127.0.0.1:40001 (pid=123) exceeded 95% memory budget. Restarting..."): the nanny kills the worker process.
 */
const DASK_MEMORY_BUDGET = /\bWorker\b.*\bexceeded \d+% memory budget\b/;
/** Slurm's cgroup task plugin after a step's memory cgroup ran out (task_cgroup_memory.c: "Detected 2 oom-kill event(s) in step 42.batch cgroup"). */
const SLURM_OOM_EVENTS = /\bDetected [1-9]\d* oom[-_]kill event/;
/**
 * srun reporting a task that its step's memory cgroup killed (Slurm's launch plugin when the task's exit carries the OOM
 * flag: "srun: error: gpu001: task 0: Out Of Memory", FoNDUE-HTR/Documentation#5; with the node and task list left out,
 * "srun: error: Out Of Memory"): the job's memory limit, a host kill.
 */
const SRUN_OOM = /\bsrun: error: (?:\S+: tasks? [\d,\-\[\]]+: )?Out Of Memory\b/;
/** The kernel OOM killer's own stack frames (mm/oom_kill.c: dump_header's dump_stack, printed only when it runs). */
const KERNEL_OOM_FRAME = /\b(?:oom_kill_process|out_of_memory|pagefault_out_of_memory|mem_cgroup_out_of_memory)\+0x[0-9a-f]+\/0x[0-9a-f]+/;
/**
 * The userspace OOM killers and the tools that report a cgroup OOM kill, each in its own words:
 * - systemd-oomd (src/oom/oomd-util.c oomd_cgroup_kill / oomd_dump_*): "Considered N cgroups for killing, top
 *   candidates were:" above the candidates it weighed, "Killed <cgroup> due to memory pressure for <cgroup> being
 *   P% > L% for > 20s with reclaim activity", "… due to memory used (N) / total (M) and swap used …", newer releases'
 *   "Marked <cgroup> for killing due to …", and systemd's unit note "<unit>: systemd-oomd killed N process(es) in this unit.";
 * - oomd (facebookincubator/oomd, its kill plugins' logs "[…/plugins/KillMemoryGrowth-inl.h:168] Picked "<cgroup>"
 *   (2040MB) based on …", "[…/plugins/BaseKillPlugin.cpp:141] Killed N: pid(comm) …", "… Trying to kill <cgroup>");
 * - isolate (the IOI sandbox) in its meta file, "cg-oom-killed:1" (isolate(1): the program was killed by the OOM
 *   killer inside its control group);
 * - bcc's and bpftrace's oomkill tools (tools/oomkill.py, oomkill.bt): "<time> Triggered by PID N ("comm"), [CGROUP N
 *   ("path"), ]OOM kill of PID N ("comm"), P pages, loadavg: …", printed from a probe on oom_kill_process().
 * The sizes they print are a cgroup's or a page count, not the killed process's request: no numbers are taken.
 */
const USERSPACE_OOM_KILL = /\bConsidered \d+ cgroups for killing, top candidates were:|\b(?:Killed|Marked) \S+ (?:for killing )?due to (?:memory pressure for|memory used \(|swap used \()|\bsystemd-oomd killed \d+ process\(es\) in this unit\b|\/plugins\/(?:BaseKillPlugin|Kill\w+)[\w.-]*:\d+\] (?:Picked "|Killed \d+: |Trying to kill \S)|^\s*cg-oom-killed:[1-9]\s*$|\bTriggered by PID \d+ \(.*\bOOM kill of PID \d+ \(/;

/**
 * earlyoom (rfjakob/earlyoom, the userspace OOM daemon) acting on low memory, in its releases' words: before 1.0, "Low
 * memory! mem avail: 300 of 5875 MiB (5) % <= min 10 %, swap free: …" (or "Out of memory! avail: …") then "Invoking oom
 * killer: done" (it triggered the kernel OOM killer through sysrq); since, kill.c's "low memory! at or below SIGTERM
 * limits: mem 9.84%, swap 0.00%" and "sending SIGTERM to process 4321 uid 1000 \"python\": badness 890, VmRSS 5123 MiB"
 * (SIGKILL when it escalates). The sizes are the host's free memory and the victim's RSS, not a request: no numbers taken.
 */
const EARLYOOM = /\b(?:[Ll]ow|Out of) memory! (?:mem )?avail: \d+ (?:of \d+ )?MiB|\blow memory! at or below SIG(?:TERM|KILL) limits\b|\bsending SIG(?:TERM|KILL) to process \d+ uid \d+ "|^\s*Invoking oom killer: /;
/**
 * The kernel's report of a memory cgroup at its limit, printed only inside an OOM killer report for that cgroup
 * (mm/memcontrol.c mem_cgroup_print_oom_meminfo, earlier mem_cgroup_print_oom_info: "memory: usage %llukB, limit %llukB,
 * failcnt %lu", then the same for "memory+swap", "kmem" or, on cgroup v2, "swap"), when an excerpt kept these lines and lost
 * the "Killed process" one.
 */
const MEMCG_OOM_INFO = /(?:^|\]\s*)(?:memory|memory\+swap|swap|kmem): usage \d+kB, limit \d+kB\b/;
/**
 * A line that is only "SIGKILL", the last the log printed: the name of the signal the process ended with, as a runner or a
 * process supervisor prints it (Python's signal.Signals name, Node's child_process 'exit' signal, Go's os.ProcessState),
 * with nothing after it. The signal the kernel OOM killer and cgroup limits send.
 */
const BARE_SIGKILL = /^\s*SIGKILL\s*$/;
/**
 * A Node package manager reporting the script it ran was killed by SIGKILL: yarn 1's 'error Command failed with signal
 * "SIGKILL".' (src/reporters/lang/en.js commandFailedWithSignal), pnpm's 'Command failed with signal "SIGKILL"', npm's
 * "npm ERR! signal SIGKILL" (npm 7+ "npm error signal SIGKILL") under the failed lifecycle script.
 */
const NODE_PM_SIGKILL = /\bCommand failed with signal "SIGKILL"|^\s*npm (?:ERR!|error) signal SIGKILL\s*$/;

/**
 * runc failing to start a container because the kernel killed its init process in the container's memory cgroup
 * (libcontainer/process_linux.go: "container init was OOM-killed (memory limit too low?)"), which the kubelet reports as the
 * container's CreateContainerError/RunContainerError/StartError and containerd as "OCI runtime create failed: runc create
 * failed: unable to start container process: …": the memory limit is below what even the runtime's init needs.
 */
const RUNC_INIT_OOM = /\bcontainer init was OOM-killed\b/;
/**
 * The Docker daemon's event stream as JSON (`docker events --format '{{json .}}'`, the Engine API's /events): an event of
 * action "oom" for a container ({"status":"oom","id":"…","from":"image",…} before API 1.22 added "Type" and "Action", and
 * {"Type":"container","Action":"oom",…} since; moby daemon/monitor.go LogContainerEvent(c, "oom") when the kernel's OOM
 * killer acted in the container's memory cgroup).
 */
const DOCKER_EVENT_OOM = /"(?:status|Action)"\s*:\s*"oom"/;
/**
 * Backend.AI's kernel runner told by its agent that the container hit an OOM event (lablup/backend.ai
 * src/ai/backend/kernel/base.py log_oom: "Out-of-memory detected!", then "detected potentially oom-killed process:" over the
 * tree of processes that vanished, "<pid> (running for Ns, vm: Vm, rss: Rm): <cmdline>").
 */
const BACKEND_AI_OOM = /\bOut-of-memory detected!|\bdetected potentially oom-killed process:/;
/**
 * Heroku's runtime error R15, "Memory quota vastly exceeded": a dyno over its memory quota by the platform's factor (2x,
 * or 5x on the larger dynos) is killed with SIGKILL (Heroku's error-codes article). R14, "Memory quota exceeded", is the
 * warning before it: the dyno is over its quota and swapping, and is not killed (HEROKU_QUOTA_SWAPPING, a not-oom).
 */
const HEROKU_R15 = /\bError R15 \(Memory quota vastly exceeded\)/;
const HEROKU_QUOTA_SWAPPING = /\bError R14 \(Memory quota exceeded\)/;
/** The dyno's memory as Heroku's runtime metrics print it on the line above ("Process running mem=1071M(209.2%)", megabytes). */
function herokuMemory(line: LineView): Finding['numbers'] {
  for (let k = 1; k <= 3; k++) {
    const m = /\bProcess running mem=(\d+(?:\.\d+)?)M\b/.exec(line.previous(k) ?? '');
    if (m) return { processInUseBytes: Math.round(Number(m[1]) * 1024 ** 2) };
  }
  return {};
}

/**
 * Host kills one line names outright, each told by the program that watched it happen: the finding's
 * summary and its explanation (what that program reports, then what the killed process saw).
 */
const NAMED_HOST_KILLS: ReadonlyArray<{ pattern: RegExp; summary: string; explanation: string; numbers?: (line: LineView) => Finding['numbers'] }> = [
  {
    pattern: HEROKU_R15,
    summary: 'Host OOM: Heroku killed the dyno for using far more memory than its quota (R15)',
    explanation: 'Heroku reports R15 when a dyno uses a multiple of its memory quota (RAM plus swap) and kills it with SIGKILL. ' +
      'The killed process got no exception and no traceback.',
    numbers: herokuMemory,
  },
  {
    pattern: EARLYOOM,
    summary: 'Host OOM: earlyoom (the userspace OOM daemon) acted on low host memory',
    explanation: 'earlyoom watches the host\'s available memory and swap; below its limits it invokes the kernel OOM killer or sends SIGTERM, then SIGKILL, to the process with the highest oom_score. ' +
      'The killed process got no exception and no traceback.',
  },
  {
    pattern: MEMCG_OOM_INFO,
    summary: 'Host OOM: the kernel\'s memory cgroup report (a cgroup at its memory limit; the OOM killer ran in it)',
    explanation: 'The kernel prints a memory cgroup\'s usage against its limit (memory, memory+swap, kmem, swap) only in the OOM killer\'s report for that cgroup; the lines naming the killed process are not in this excerpt. ' +
      'The killed process got SIGKILL: no exception, no traceback.',
  },
  {
    pattern: NODE_PM_SIGKILL,
    summary: 'The package manager\'s script was killed (SIGKILL), most likely for host memory',
    explanation: 'yarn, pnpm or npm reports that the script it ran ended by SIGKILL, the signal the kernel OOM killer and container memory limits send (a Node process over a container\'s limit ends this way). ' +
      'Nothing runs after it: no exception, no traceback.',
  },
  {
    pattern: RUNC_INIT_OOM,
    summary: 'Container OOM: the container\'s init was killed for memory before it started (runc: memory limit too low)',
    explanation: 'runc starts a container\'s init process inside the container\'s memory cgroup; the kernel OOM killer killed it there, so the container never started (Kubernetes reports CreateContainerError, RunContainerError or StartError). The memory limit is too low for even the start-up. ' +
      'No exception or traceback: raise the container\'s memory limit.',
  },
  {
    pattern: DOCKER_EVENT_OOM,
    summary: 'Container OOM: docker\'s event stream reported an out-of-memory event for a container (its memory limit was hit)',
    explanation: 'Docker emits an "oom" event when the kernel OOM killer acts inside a container\'s memory cgroup (docker run -m / --memory, a compose or Kubernetes limit). ' +
      'The killed process got SIGKILL: no exception, no traceback.',
  },
  {
    pattern: BACKEND_AI_OOM,
    summary: 'Container OOM: Backend.AI\'s kernel runner detected an out-of-memory kill in the session\'s container',
    explanation: 'Backend.AI\'s agent tells the kernel runner when the container hits an OOM event; the runner logs it and the processes that vanished (the kernel OOM killer\'s victims inside the session\'s memory limit). ' +
      'The killed process got SIGKILL: no exception, no traceback.',
  },
  {
    pattern: COLAB_RAM,
    summary: 'Host OOM: the Colab runtime crashed after using all available RAM',
    explanation: 'Google Colab restarts the runtime when its VM runs out of memory and tells the notebook "Your session crashed after using all available RAM"; the kernel was killed, so no exception or traceback was printed. ' +
      'Look at what the notebook holds in host memory (datasets, model weights loaded on the CPU).',
  },
  {
    pattern: KAGGLE_RAM,
    summary: 'Host OOM: the Kaggle notebook ran out of memory and was restarted',
    explanation: 'Kaggle restarts a notebook\'s kernel when it uses more memory than the session has and says so in the notebook; the kernel was killed, so no exception or traceback was printed. ' +
      'Look at what the notebook holds in host memory (datasets, model weights loaded on the CPU).',
  },
  {
    pattern: DASK_MEMORY_BUDGET,
    summary: 'Host OOM: Dask\'s nanny restarted a worker over its memory limit',
    explanation: 'Each Dask worker has a memory limit; its nanny kills and restarts the worker process when it passes the terminate fraction (95% by default), and the tasks it ran are lost or retried (KilledWorker after too many). ' +
      'Give the workers more memory (memory_limit), fewer threads each, or smaller partitions.',
  },
  {
    pattern: NODE_LOW_MEMORY,
    summary: 'Host OOM: the kubelet evicted the pod because the node was low on memory',
    explanation: 'Kubernetes\' kubelet evicts pods when the node\'s available memory falls below its eviction threshold, starting with the pods that use the most above their requests; their containers are killed. ' +
      'The killed process got no exception and no traceback.',
  },
];

/**
 * Host kills with no word the hot scan anchors on, read by the tail pass: the kernel OOM killer's task
 * table (mm/oom_kill.c dump_tasks: "[  pid  ]   uid  tgid total_vm      rss … oom_score_adj name", one
 * row per task; printed only when the OOM killer runs) when an excerpt kept only its rows, or its
 * "Tasks state (memory values in pages):" header with any number of rows; docker's event stream
 * reporting a container's OOM ("<time> container oom <id> (image=…, name=…)", moby
 * daemon/monitor.go, event action "oom"); the kubelet evicting a pod because the node ran low on
 * memory ("The node was low on resource: memory.", the eviction manager kills the pod's containers).
 */
export const tailHostKill: Signature = {
  id: 'tail-host-kill',
  platform: 'cpu',
  needles: [']', 'failed with -9', 'container oom ', 'cgroups for killing', 'due to memory', 'due to swap', 'process(es) in this unit', 'cg-oom-killed', 'OOM kill of PID', 'signal sigkill', 'signal SIGKILL', 'Tasks state (memory values in pages)', 'low on resource', 'Killed signal terminated', '137', 'kill event', '+0x', 'all available RAM', 'more memory than is available', 'memory budget', 'Out Of Memory', 'init was OOM-killed', 'ow memory! ', 'Out of memory! ', 'Invoking oom killer', ' to process ', 'kB, limit ', 'SIGKILL', '"oom"', 'Out-of-memory detected!', 'oom-killed process:', 'Error R1'],
  match(line) {
    const gcc = GCC_KILLED.exec(line.content);
    // Python's CalledProcessError for a child that died of SIGKILL ("Command '[…]' died with <Signals.SIGKILL: 9>.", subprocess.py's
    // __str__ for returncode -9), as accelerate's launcher raises it: the exit-137 family, told by the parent.
    // A compiler a framework ran, reported dead of SIGKILL by its exit status ("RuntimeError: neuronx-cc failed with -9").
    const exit137 = !gcc && (EXIT_137.test(line.content) || DOCKER_EXEC_137.test(line.content) || /<Signals\.SIGKILL: 9>/.test(line.content) || /\b[\w.-]+ failed with -9\b/.test(line.content));
    const slurm = !gcc && !exit137 && (SLURM_OOM_EVENTS.test(line.content) || SRUN_OOM.test(line.content));
    const frame = !gcc && !exit137 && !slurm && KERNEL_OOM_FRAME.test(line.content);
    if (gcc || exit137 || slurm || frame) {
      const summary = gcc
        ? `The compiler (${gcc[1]}) was killed with SIGKILL, most likely by the host OOM killer`
        : exit137
          ? /failed with -9\b/.test(line.content) ? 'A child process was killed by SIGKILL (-9), most likely for host memory' : 'A child process exited with status 137 (SIGKILL), most likely killed for host memory'
          : slurm
            ? SRUN_OOM.test(line.content) ? 'Host OOM: srun reports a task killed for memory (Out Of Memory)' : 'Host OOM: Slurm detected oom-kill events in the job step\'s memory cgroup'
            : 'Host OOM: the kernel OOM killer\'s stack trace (a process was killed for memory)';
      const why = gcc
        ? 'GCC\'s driver reports that a compiler pass it ran died of SIGKILL ("Killed signal terminated program"); a large translation unit on a small host is the usual case. '
        : exit137
          ? 'Exit status 137 is 128 + 9: the child was killed with SIGKILL, the signal the kernel OOM killer and cgroup limits send. '
          : slurm
            ? 'Slurm\'s cgroup plugin counts the kernel OOM killer\'s kills inside the step\'s memory limit; the step used more than the job asked for. '
            : 'These frames (oom_kill_process, out_of_memory) are printed only while the kernel OOM killer runs; the lines naming the victim are not in this excerpt. ';
      const horovod = exit137 ? HOROVOD_EXIT.exec(line.content) : null;
      // The killed command's own arguments may name its rank: torch.distributed.launch's "--local_rank=2" in the command a
      // CalledProcessError quotes.
      const launched = exit137 ? /\bCommand '\[.*'--local[_-]rank=(\d+)'/.exec(line.content) : null;
      const rank = horovod ? Number(horovod[1]) : launched ? Number(launched[1]) : undefined;
      return { ...hostKill(line, summary, {}, rank, why + 'The killed process got SIGKILL: no exception, no traceback.'), facts: { tier: 2 } };
    }
    const userspace = USERSPACE_OOM_KILL.exec(line.content);
    if (userspace) {
      const who = /cg-oom-killed/.test(userspace[0])
        ? 'isolate\'s meta file: the sandboxed program was killed by the OOM killer in its memory cgroup'
        : /Triggered by PID/.test(userspace[0])
          ? 'the oomkill tracer saw the kernel OOM killer kill a process'
          : /\/plugins\//.test(userspace[0])
            ? 'oomd (the userspace OOM killer) picked a cgroup to kill'
            : 'systemd-oomd picked a cgroup to kill under memory pressure or swap use';
      const why = 'A userspace OOM killer (systemd-oomd, oomd) or a tool watching the kernel\'s (isolate, oomkill) reports that a process or cgroup was killed, or chosen to be killed, for memory. ';
      return { ...hostKill(line, `Host OOM: ${who}`, {}, undefined, why + 'The killed processes got SIGKILL: no exception, no traceback.'), facts: { tier: 2 } };
    }
    if (BARE_SIGKILL.test(line.content)) {
      for (let k = 1; k <= 5; k++) if ((line.next(k) ?? '').trim() !== '') return undefined;
      const summary = 'The process ended with SIGKILL (the last line of the log), most likely killed for host memory';
      const why = 'The log ends with the name of the signal the process died of: SIGKILL, which the kernel OOM killer and cgroup memory limits send. ';
      return { ...hostKill(line, summary, {}, undefined, why + 'Nothing runs after it: no exception, no traceback.'), facts: { tier: 2 } };
    }
    if (HEROKU_QUOTA_SWAPPING.test(line.content)) {
      const finding = notOomFinding(line, 2, 'Heroku R14: the dyno is over its memory quota and swapping', false, [hostMemory]);
      finding.explanation = 'Heroku reports R14 when a dyno uses more memory than its quota: the excess goes to swap, which slows it, but the dyno keeps running. ' +
        'Nothing was killed and no allocation failed, so this is not an out-of-memory failure yet; at a multiple of the quota Heroku kills the dyno (R15).';
      return finding;
    }
    const named = NAMED_HOST_KILLS.find((k) => k.pattern.test(line.content));
    if (named) return { ...hostKill(line, named.summary, named.numbers?.(line) ?? {}, undefined, named.explanation), facts: { tier: 2 } };
    const header = TASKS_STATE.test(line.content);
    const container = !header && CONTAINER_OOM.test(line.content);
    const died = !header && !container && DIED_SIGKILL.test(line.content);
    if (!header && !container && !died) {
      if (!TASK_ROW.test(line.content)) return undefined;
      // One row is not a table: two neighbours must be rows too.
      let rows = 0;
      for (const k of [1, 2]) if (TASK_ROW.test(line.next(k) ?? '')) rows++;
      for (const k of [1, 2]) if (TASK_ROW.test(line.previous(k) ?? '')) rows++;
      if (rows < 2) return undefined;
    }
    const summary = container
      ? 'Container OOM: docker reported an out-of-memory event for a container (its memory limit was hit)'
      : died
        ? /\bfish: /.test(line.content) ? 'The job was killed (SIGKILL, fish\'s report), most likely by the host OOM killer' : 'A worker process died of SIGKILL, most likely killed by the host OOM killer'
        : 'Host OOM: the kernel OOM killer\'s task table (a process was killed for memory)';
    const why = died
      ? 'The program or shell reports that a child process died of SIGKILL, the signal the kernel OOM killer sends. '
      : container
        ? 'Docker\'s event stream reports "container oom" when the kernel OOM killer acts inside a container\'s memory cgroup. '
        : 'The kernel prints this table of tasks and their memory only when its OOM killer runs; the lines naming the victim are not in this excerpt. ';
    // Tier 2: the tail pass ranks it as the failure itself, not a launcher's report of one.
    return { ...hostKill(line, summary, {}, undefined, why + 'The killed process got SIGKILL: no exception, no traceback.'), facts: { tier: 2 } };
  },
};

const KB = /anon-rss:\s*([\d,]+)\s*kB/;

/**
 * oomd (facebookincubator/oomd, the userspace OOM killer; systemd-oomd's ancestor) starting a kill
 * action: Ruleset.cpp logs "Running Action=" and the plugin's name, and its memory kill plugins are
 * kill_by_memory_size_or_growth, kill_by_swap_usage and kill_by_pressure (memory pressure). A log cut
 * before the line naming the victim still shows the kill. kill_by_io_cost is not a memory kill.
 */
const OOMD_KILL = /Running Action=kill_by_(?:memory_size_or_growth|swap_usage|pressure|pg_scan)\b/;

const oomdKill: Signature = {
  id: 'oomd-kill',
  platform: 'cpu',
  needles: ['Running Action=kill_by_'],
  match(line) {
    const m = OOMD_KILL.exec(line.content);
    if (!m) return undefined;
    return hostKill(line, `oomd killed a process under memory pressure (${m[0].slice('Running Action='.length)})`, {}, undefined);
  },
};

const kernelOomKill: Signature = {
  id: 'kernel-oom-kill',
  platform: 'cpu',
  needles: ['Killed process', 'oom-kill:', 'invoked oom-killer', 'killing largest compressed process'],
  match(line) {
    // macOS's memorystatus (XNU's kernel log, Console): "low swap: killing largest compressed process with pid 34341 (python3.7)
    // and size 325 MB": the size is the process's compressed memory, not its resident size.
    const lowSwap = /\bkilling largest compressed process with pid (\d+) \(([^)]*)\)/.exec(line.content);
    if (lowSwap) return hostKill(line, `Host OOM: macOS killed ${lowSwap[2]} (pid ${lowSwap[1]}) for low swap`, {}, undefined);
    // RHEL 6's 2.6.32 kernel puts the uid before the name ("Killed process 4121, UID 27, (mysqld) total-vm:…kB, anon-rss:…kB").
    const killed = /Killed process (\d+)(?:, UID \d+,)? \(([^)]*)\)/.exec(line.content);
    if (!killed && !/oom-kill:|invoked oom-killer/.test(line.content)) return undefined;
    const rss = KB.exec(line.content);
    const numbers: Finding['numbers'] = rss ? { processInUseBytes: Number(rss[1]!.replace(/,/g, '')) * 1024 } : {};
    return hostKill(
      line,
      killed ? `Host OOM: the kernel killed ${killed[2]} (pid ${killed[1]})${rss ? ` using ${formatBytes(numbers.processInUseBytes!)} resident` : ''}` : 'Host OOM: the kernel OOM killer ran',
      numbers,
      undefined,
    );
  },
};

/**
 * The end of a progress bar as tqdm draws it: "| 331/1063 [01:06<03:59,  3.06it/s]" or, without a
 * total, "331it [01:06, 3.06it/s]", and as mmcv's ProgressBar does: "… 1.5 task/s, elapsed: 673s, ETA:  2621s". The bar ends
 * without a line break, so the shell's report of the kill lands right after it on the same line, even inside the frame it
 * was drawing ("[00:08<00:07,  3.95s/it[1]    1483979 killed …"), or right after its blocks when the frame was cut at the
 * terminal's width ("layers.25:  77%|█████████Killed"). With the cursor back at the line's start, the report overwrites the
 * bar's first characters instead ("Killed:   0%|▏     | 4/2628 [00:11<2:09:00,  2.95s/it]").
 */
const PROGRESS_BAR_END = /\[\d+:\d\d(?::\d\d)?(?:<|, )[^\]]*\]?$|\belapsed: \d+s, ETA: +\d+s$|^\s*\d+\/\d+ \[[=>.]+\] - .*$|\b\d{1,3}%\|[█▏▎▍▌▋▊▉#]+$/;

/**
 * How shells report a job killed by SIGKILL, at the end of a line: bash's "Killed" (its
 * translations: Chinese, German, French "Processus arrêté"; "Killed: 9" on macOS, sometimes with the command; a paste's
 * "Killed." alone on its line), zsh's "zsh: killed     python
 * train.py" (or, quoted without its command, "zsh: killed").
 */
const KILL_REPORT = /(?:(?:Killed|已杀死|Getötet|Processus arrêté)(?:: 9|\.)?(?:\s+python.*)?|zsh: killed(?:\s+\S.*)?)$/;
/**
 * Job notices: bash's "bash: line 1: 12345 Killed   python train.py" (macOS's "line 33: 22631 Killed: 9   …"), zsh's "[1]  + 12345 killed     python train.py" (which
 * may follow a progress bar's last frame on its line, as the shell's other reports do).
 */
const JOB_KILLED = /\d+ Killed(?:: 9)?\s+\S/;
const ZSH_JOB_KILLED = /\[\d+\] +(?:[+-] +)?\d+ killed +\S.*$/;
/**
 * srun's report of tasks that ended by a signal, with the signal's strsignal name ("srun: error: node25: task 11: Killed",
 * "srun: error: gpu-3: tasks 0-3,7: Killed"; Slurm's srun task-exit handler, "%s: %s %s: %s" over the node, "task"/"tasks",
 * the task list and the signal): Killed is SIGKILL, which a cgroup memory limit or the kernel OOM killer sends. A step
 * cancelled at its time limit is signalled too, so a kill under slurmstepd's "CANCELLED AT" line is not read as one.
 */
const SRUN_TASK_KILLED = /\bsrun: error: (?:\S+: )?tasks? [\d,\-\[\]]+: Killed\s*$/;

/** Whether the nearest line above is the same journald program's (its "name[pid]: " tag) and no stop timeout killed it. */
function sameJournalProgram(line: LineView, prefix: string): boolean {
  const tag = /\S+(?:\[\d+\])?: $/.exec(prefix)?.[0];
  for (let k = 1; k <= 5; k++) {
    const above = line.previous(k);
    if (above === undefined) return false;
    if (/with signal SIGKILL|stop-sigterm timed out|sending signal KILL/.test(above)) return false;
    if (above.trim() === '') continue;
    return tag !== undefined && (SYSLOG_PREFIX.exec(above)?.[0].endsWith(tag) ?? false);
  }
  return false;
}

/**
 * The shell's report of a SIGKILL, on a line of its own, as the last segment of a line a progress
 * bar redrew with carriage returns, or right after the bar's last frame.
 */
const shellKilled: Signature = {
  id: 'shell-killed',
  platform: 'cpu',
  needles: ['Killed', '已杀死', 'Getötet', 'Processus arrêté', 'zsh: killed', 'killed  '],
  match(line) {
    if (SRUN_TASK_KILLED.test(line.content)) {
      for (let k = 1; k <= 20; k++) if (/\bCANCELLED AT\b/.test(line.previous(k) ?? '')) return undefined;
      return hostKill(line, 'srun reports a task killed (SIGKILL), most likely for host memory (the job\'s memory limit or the OOM killer)', {}, undefined);
    }
    const segments = line.content.split('\r');
    // An issue's markdown can set the shell's line in bold or code ("**Killed**", "`Killed`").
    // A service's output through journald or syslog ("Oct 19 20:42:29 host cnpm[8578]: Killed") has their prefix before it: the
    // report counts when the line above is the same program's (not another program's "Killed" in a shared journal) and systemd
    // did not just kill it on a stop timeout ("Killing process 4242 (python) with signal SIGKILL.").
    const last = segments[segments.length - 1]!.trim();
    const journal = SYSLOG_PREFIX.exec(last);
    if (journal && !sameJournalProgram(line, journal[0])) return undefined;
    const c = last.replace(SYSLOG_PREFIX, '').replace(/^(\*\*|__|`)(.+)\1$/, '$2').trim();
    const report = KILL_REPORT.exec(c) ?? ZSH_JOB_KILLED.exec(c);
    const before = report ? c.slice(0, report.index).trim() : undefined;
    const overwroteBar = /^Killed\b/.test(c) && PROGRESS_BAR_END.test(c);
    if (!JOB_KILLED.test(c) && !overwroteBar && !(before !== undefined && (before === '' || PROGRESS_BAR_END.test(before)))) return undefined;
    // SGLang's scheduler watchdog kills the server's own process tree after it fires ("Watchdog timeout
    // (self.watchdog_timeout=300)"): the shell's Killed under it is that kill, not the host's.
    for (let k = 1; k <= 30; k++) if (/\bWatchdog timeout \(self\.watchdog_timeout=\d+\)/.test(line.previous(k) ?? '')) return undefined;
    // A process already dying of a failed glog CHECK ("F0719 … Check failed: …", then "*** Check failure stack trace: ***"
    // while it dumps its stack before abort()) and killed during the dump: the failed check is how the run ended.
    for (let k = 1; k <= 3; k++) if (/^\s*\*\*\* Check failure stack trace: \*\*\*\s*$/.test(line.previous(k) ?? '') && /Check failed:|^\s*F\d{4} /.test(line.previous(k + 1) ?? '')) return undefined;
    return hostKill(line, 'Process killed (SIGKILL), most likely by the host OOM killer', {}, undefined);
  },
};

/**
 * A parent process reporting a child that died of SIGKILL: PyTorch's DataLoader ("DataLoader worker
 * (pid N) is killed by signal: Killed."), torch.multiprocessing.spawn ("process N terminated with
 * signal SIGKILL", N being the spawn index, which is the rank in the usual mp.spawn(fn, nprocs=world_size)),
 * and gdb ("Program terminated with signal SIGKILL").
 */
const childKilled: Signature = {
  id: 'child-sigkill',
  platform: 'cpu',
  needles: ['is killed by signal: Killed', 'is killed by signal:killed', 'is killed by signal:Killed', 'terminated with signal SIGKILL'],
  match(line) {
    const worker = /Data[Ll]oader worker ?\(pid\(?s?\)? ?([\d, ]+|\.\.\.|x+)\) ?is killed by signal: ?[Kk]illed/.exec(line.content);
    const spawned = /(?:process (\d+)|Program) terminated with signal SIGKILL/.exec(line.content);
    if (!worker && !spawned) return undefined;
    const summary = worker
      ? `DataLoader worker (pid ${worker[1]}) killed with SIGKILL, most likely by the host OOM killer`
      : `${spawned![1] !== undefined ? `Process ${spawned![1]}` : 'The program'} killed with SIGKILL, most likely by the host OOM killer`;
    const finding = hostKill(line, summary, {}, spawned?.[1] !== undefined ? Number(spawned[1]) : undefined);
    if (worker) finding.fixes = [dataLoaderWorkers, ...finding.fixes];
    return finding;
  },
};

/**
 * A DataLoader worker that died of a signal other than SIGKILL (torch/csrc/DataLoader.cpp: "DataLoader
 * worker (pid N) is killed by signal: " + strsignal(): "Aborted", "Segmentation fault", "Bus error",
 * "Terminated", ...). The worker crashed (a native library aborting or faulting in the dataset code)
 * or was stopped; the main process gets a RuntimeError it could catch. Not the OOM killer, which
 * sends SIGKILL ("Killed"). A bus error in a worker is usually a full /dev/shm (Docker's 64 MB default),
 * which PyTorch says after the signal ("It is possible that dataloader's workers are out of shared memory.").
 */
const WORKER_SIGNAL = /DataLoader worker \(pid\(?s?\)? ([\d, ]+)\) is killed by signal: ([A-Za-z][\w -]*?)(?:\.|\s*$)/;

const workerSignal: Signature = {
  id: 'dataloader-worker-signal',
  platform: 'cpu',
  needles: ['is killed by signal: '],
  match(line) {
    // A terminal may wrap the signal's name onto the next line ("…is killed by signal: \nBus error. It is possible…").
    const text = /is killed by signal:\s*$/.test(line.content) ? `${line.content.trimEnd()} ${(line.next(1) ?? '').trim()}` : line.content;
    const m = WORKER_SIGNAL.exec(text);
    if (!m || m[2] === 'Killed') return undefined;
    const bus = /^Bus error/.test(m[2]!);
    return {
      signature: 'dataloader-worker-signal',
      role: 'failure',
      kind: 'not-oom',
      platform: 'cpu',
      catchable: !thrownByTerminate(line),
      summary: `Not an OOM: DataLoader worker (pid ${m[1]}) died of a signal (${m[2]})`,
      explanation:
        `A DataLoader worker process ended with "${m[2]}", not with the SIGKILL the OOM killer sends: ` +
        (bus
          ? 'a bus error in a worker usually means its shared-memory segment could not be backed (a full /dev/shm, 64 MB by default in Docker).'
          : 'the dataset or collate code crashed in a native library (an abort or a fault), or something stopped the worker.') +
        ' The main process raised a RuntimeError for it.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: bus
        ? [{ id: 'dataloader-shm', title: 'Give the workers more shared memory: docker run --shm-size=8g (or --ipc=host), or fewer workers', rationale: 'Workers pass batches through /dev/shm; a bus error is a write to a segment the full tmpfs cannot back.' }]
        : [{ id: 'dataloader-debug', title: 'Reproduce with num_workers=0 to see the worker\'s own error in the main process', rationale: 'Without worker processes the crash happens where its traceback or native stack can be read.' }],
    };
  },
};

const dataLoaderWorkers = {
  id: 'dataloader-workers',
  title: 'Give the DataLoader workers less to copy: fewer workers (num_workers), a smaller prefetch_factor, datasets that read samples lazily instead of holding them in lists',
  rationale: 'Each worker is a separate process; Python objects in the dataset are copied into it page by page as reference counts touch them, so host memory grows with every worker.',
};

/** A launcher (torchrun, DeepSpeed, mpirun, a container runtime) reporting a worker ended by SIGKILL: -9, 137 or signal 9. */
const launcherKill: Signature = {
  id: 'launcher-sigkill',
  platform: 'cpu',
  needles: ['signal: killed', 'exitcode: -9', 'exitcode  : -9', 'Signal 9 (SIGKILL)', 'exit code 137', 'exit code: 137', 'exit code (137)', 'exited with code 137', 'return code = -9', 'code -9', 'code: -9', 'oom_kill event', 'OUT_OF_MEMORY', 'cgroup out-of-memory', 'OOMKilled', 'Exited (137)', "result 'oom-kill'", 'killed by the OOM killer', 'exited on signal 9 (Killed)'],
  match(line) {
    const c = line.content;
    // Open MPI's report of a rank ended by a signal (mpirun's errmgr: "mpirun noticed that process rank 1 with PID 4242 on
    // node gpu-3 exited on signal 9 (Killed)."): the rank is MPI_COMM_WORLD's.
    const mpi = /\bprocess rank (\d+) with PID \S+ on node \S*\s*exited on signal 9\b/.exec(c);
    // mpirun kills its ranks itself when the job is cancelled (Slurm's time limit) or the user presses Ctrl-C twice.
    if (mpi && [...Array(20).keys()].some((k) => /\bCANCELLED AT\b|\bmpirun: abort is already in progress\b|\bhit ctrl-c again\b/.test(line.previous(k + 1) ?? ''))) return undefined;
    if (mpi) return hostKill(line, `MPI rank ${mpi[1]} killed with SIGKILL, most likely for host memory`, {}, Number(mpi[1]));
    // torchrun: "exitcode: -9"; DeepSpeed's launcher: "exits with return code = -9"; shells and containers: 137
    // (Flyte/Kubernetes plugins: "terminated with exit code (137)"); Python's subprocess returncode -9 as
    // wrappers print it ("Training failed with exit code -9"; macOS has no OOM-killer message of its own).
    // A wrapper may capitalize it: megahit's "[Exit code -9]" for a SIGKILLed child (subprocess returncode).
    // systemd (src/core/unit.c, service.c): "A process of this unit has been killed by the OOM killer." and
    // "Failed with result 'oom-kill'."; docker ps's "Exited (137) 2 minutes ago"; Kubernetes' container status "Reason: OOMKilled" / "reason: OOMKilled" and docker inspect's
    // "OOMKilled": true (false is the healthy case). Go's os/exec reports a child ended by SIGKILL as "signal: killed" (ollama:
    // "llama runner process has terminated: signal: killed").
    // Slurm's job state OUT_OF_MEMORY, not the tail of CUDA_ERROR_OUT_OF_MEMORY.
    const oomKilled = /\bOOMKilled\b(?!"?\s*[:=]\s*false)/.test(c);
    if (!oomKilled && !/\bsignal: killed\b|exitcode\s*: -9|Signal 9 \(SIGKILL\)|exit(?:ed with)? code:? \(?137\b|\bExited \(137\)|Failed with result 'oom-kill'|killed by the OOM killer|(?:[Ee]xit|return) code:? -9\b|return code = -9\b|oom_kill event|\bOUT_OF_MEMORY|cgroup out-of-memory/.test(c)) return undefined;
    let rank: number | undefined;
    // torchrun's failure table with its rows run together (a rendered table copied as text: "rank2 (local rank: 2)exitcode:
    // -9 (pid: 36071)") still has the global rank before the local one.
    const row = /\brank\s*:?\s*(\d+)\s*\(local[_ ]rank:\s*\d+\)/.exec(c);
    const local = /local_rank: (\d+)/.exec(c);
    if (row) rank = Number(row[1]);
    else if (local) rank = Number(local[1]);
    for (let k = 1; k <= 3 && rank === undefined; k++) {
      const r = /^\s*rank\s*:\s*(\d+)/.exec(line.previous(k) ?? '');
      if (r) rank = Number(r[1]);
    }
    return hostKill(line, 'Worker killed with SIGKILL (exit code -9 / 137), most likely for host memory', {}, rank);
  },
};


/**
 * Ray's memory monitor (src/ray/raylet/worker_killing_policy*.cc, raised in the driver as
 * ray.exceptions.OutOfMemoryError): "Task was killed due to the node running low on memory. Memory on the
 * node (IP: …, ID: …) where the task (… pid=4331, memory used=2.22GB) was running was 59.49GB / 62.58GB
 * (0.950744), which exceeds the memory usage threshold of 0.95. Ray killed this worker …". The raylet
 * SIGKILLs the worker before the kernel would; the used memory is the killed worker's.
 */
const RAY_USED = /memory used=(\d+(?:\.\d+)?)\s?(GB|MB|KB|GiB|MiB)/;

const rayMemoryMonitor: Signature = {
  id: 'ray-memory-monitor',
  platform: 'cpu',
  // Ray 2.0's raylet said it as it killed ("node_manager.cc:2926: [0] Killing worker with the latest task assigned time to free up
  // memory."). The raylet's periodic summary says it too: "(raylet) 1 Workers (tasks / actors) killed due to memory
  // pressure (OOM), 0 Workers crashed due to other reasons at node (ID: …, IP: …) over the last time period."
  // The error's last line points at Ray's OOM-prevention page ("Refer to the documentation on how to address the out of memory
  // issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html"); a job's tail may keep only that and the
  // table of top memory users above it.
  needles: ['running low on memory', 'Ray killed this worker', 'killed due to memory pressure (OOM)', 'address the out of memory issue', 'to free up memory'],
  match(line) {
    // The raylet's summary hard-wrapped by a log collector (syslog's fixed width cuts it after "Workers (tasks /").
    const wrapped = `${line.previous(1) ?? ''}${line.content}`.replace(/\s+/g, ' ');
    if (!/(?:Task|Actor|Worker) was killed due to the node running low on memory|Ray killed this worker|\bKilling worker with the latest task assigned time to free up memory\b|\b[1-9]\d* Workers \(tasks \/ actors\) killed due to memory pressure \(OOM\)|address the out of memory issue: https:\/\/docs\.ray\.io\/\S*ray-oom-prevention|\bworker\(s\) were killed due to the node running low on memory\b/.test(line.content) &&
      !/\b[1-9]\d* Workers \(tasks \/ ?actors\) killed due to memory pressure \(OOM\)/.test(wrapped)) return undefined;
    const text = joinNext(line, 2);
    const used = RAY_USED.exec(text);
    const bytes = used ? toBytes(used[1]!, used[2]!) : undefined;
    const finding = hostKill(line, 'Host OOM: Ray\'s memory monitor killed a worker' + (bytes !== undefined ? ` using ${formatBytes(bytes)}` : ''), bytes !== undefined ? { processInUseBytes: bytes } : {}, undefined);
    return {
      ...finding,
      explanation:
        'Ray\'s memory monitor saw the node above its memory usage threshold (RAY_memory_usage_threshold, 0.95 by default) and killed the most recently scheduled task\'s worker with SIGKILL; ' +
        'the driver gets ray.exceptions.OutOfMemoryError. The node\'s total is what matters: all workers, the object store and the raylet together.',
      fixes: [
        { id: 'ray-memory-request', title: 'Declare the tasks\' memory (@ray.remote(memory=…)) or run fewer at once (num_cpus per task) so fewer share a node', rationale: 'The scheduler only limits concurrency by declared resources; undeclared memory overcommits the node.' },
        hostMemory,
      ],
    };
  },
};

/**
 * Slurm's accounting plugin killing a job over its memory request (jobacct_gather: "slurmstepd: error: Job 7518 exceeded memory
 * limit (626359956 > 512000000), being killed", also "Step 12.0 exceeded memory limit …"; the sizes in KiB): the job's use and
 * its limit.
 */
const SLURM_MEMORY_LIMIT = /\b(?:Job |Step |StepId=)[\d.]+ exceeded memory limit \((\d+) > (\d+)\), being killed\b/;

const slurmMemoryLimit: Signature = {
  id: 'slurm-memory-limit',
  platform: 'cpu',
  needles: ['exceeded memory limit ('],
  match(line) {
    const m = SLURM_MEMORY_LIMIT.exec(line.content);
    if (!m) return undefined;
    const used = Number(m[1]) * 1024;
    const limit = Number(m[2]) * 1024;
    return hostKill(line, `Host OOM: Slurm killed the job over its memory limit (${formatBytes(used)} used, ${formatBytes(limit)} allowed)`, { processInUseBytes: used, allowedBytes: limit }, undefined,
      'Slurm\'s accounting saw the job use more memory than it asked for (--mem, --mem-per-cpu) and killed it. Nothing in the program runs after that: no exception, no traceback.');
  },
};

/**
 * The other batch schedulers' memory-limit kills: LSF's job exit reason ("TERM_MEMLIMIT: job killed after reaching LSF memory
 * usage limit."), PBS Pro's ("=>> PBS: job killed: mem 38427376kb exceeded limit 33554432kb", also vmem and pvmem, and the
 * job-wide form "mem job total 115343360 kb exceeded limit 115343360 kb"; KiB) and
 * Torque's ("Job exceeded a memory resource limit (vmem, pvmem, etc.). Job was aborted").
 */
const PBS_MEMORY_LIMIT = /\bPBS: job killed: p?v?mem (?:job total )?(\d+) ?kb exceeded limit (\d+) ?kb/;
const SCHEDULER_MEMORY_LIMIT = /\bTERM_MEMLIMIT: job killed\b|\bJob exceeded a memory resource limit\b/;

const schedulerMemoryLimit: Signature = {
  id: 'scheduler-memory-limit',
  platform: 'cpu',
  needles: ['TERM_MEMLIMIT', 'PBS: job killed: ', 'exceeded a memory resource limit'],
  match(line) {
    const pbs = PBS_MEMORY_LIMIT.exec(line.content);
    if (!pbs && !SCHEDULER_MEMORY_LIMIT.test(line.content)) return undefined;
    // Only a resident-memory limit's sizes are memory in use; vmem and pvmem count address space (CUDA maps far more than it uses).
    const resident = pbs !== null && /job killed: mem /.test(line.content);
    const numbers = resident ? { processInUseBytes: Number(pbs[1]) * 1024, allowedBytes: Number(pbs[2]) * 1024 } : {};
    const scheduler = pbs ? 'PBS' : /TERM_MEMLIMIT/.test(line.content) ? 'LSF' : 'Torque';
    const sizes = resident ? ` (${formatBytes(numbers.processInUseBytes!)} used, ${formatBytes(numbers.allowedBytes!)} allowed)` : '';
    return hostKill(line, `Host OOM: ${scheduler} killed the job over its memory limit${sizes}`, numbers, undefined,
      `${scheduler} saw the job use more memory than it asked for and killed it. Nothing in the program runs after that: no exception, no traceback.`);
  },
};

/**
 * Windows running out of commit (virtual memory: RAM plus the paging file). The Resource Exhaustion Detector's event ("Windows
 * successfully diagnosed a low virtual memory condition. The following programs consumed the most virtual memory: LM Studio.exe
 * (19112) consumed 258190471168 bytes, …", event 2004) and the "Windows - Out of Virtual Memory" popup: allocations fail and the
 * programs that need memory crash. The first program listed used the most. The event's text starts its line (an event viewer's
 * column or "Application popup: "), not a quote in advice.
 */
const WINDOWS_LOW_MEMORY = /(?:^|\t|: )(?:Windows successfully diagnosed a low virtual memory condition\b|(?:Application popup: )?Windows - Out of Virtual Memory\b)/;
const WINDOWS_TOP_CONSUMER = /consumed the most virtual memory: (.+?) \(\d+\) consumed (\d+) bytes/;

const windowsLowMemory: Signature = {
  id: 'windows-low-virtual-memory',
  platform: 'cpu',
  needles: ['low virtual memory condition', 'Out of Virtual Memory'],
  match(line) {
    if (!WINDOWS_LOW_MEMORY.test(line.content)) return undefined;
    const top = WINDOWS_TOP_CONSUMER.exec(line.content);
    // A report of the system's state, which may be older than the failure: any failure the log shows speaks first.
    return { fallback: 'oom', ...hostKill(line, 'Host OOM: Windows ran out of virtual memory (commit)' + (top ? `; ${top[1]} used the most` : ''), top ? { processInUseBytes: Number(top[2]) } : {},
      undefined,
      'Windows reports that the system is low on virtual memory: the RAM and the paging file together cannot back more allocations, so programs that ask for memory fail or crash. ' +
        'It names the programs that used the most; the first is the likeliest cause.') };
  },
};

/**
 * V8's fatal out-of-memory in Node.js (a CLI, a language server, a bundler beside the training code): "FATAL ERROR: Reached
 * heap limit Allocation failed - JavaScript heap out of memory" (or "Ineffective mark-compacts near heap limit …"), then its
 * native stack ("v8::internal::V8::FatalProcessOutOfMemory", "v8::base::FatalOOM"). V8 aborts the process: nothing could catch
 * it. The stack alone, when the message was cut, says the same. The message starts its line (after a process's "[name]"
 * prefix), not a quote in prose.
 */
const V8_FATAL_OOM = /(?:^|\]\s*)FATAL ERROR: .*\bJavaScript heap out of memory\b|\bV8::FatalProcessOutOfMemory\b|\bv8::base::FatalOOM\b/;

const v8HeapOom: Signature = {
  id: 'v8-heap-oom',
  platform: 'cpu',
  needles: ['JavaScript heap out of memory', 'FatalProcessOutOfMemory', 'v8::base::FatalOOM'],
  match(line) {
    if (!V8_FATAL_OOM.test(line.content)) return undefined;
    return {
      signature: 'v8-heap-oom',
      role: 'failure',
      kind: 'runtime-abort',
      platform: 'cpu',
      catchable: false,
      // Often a side process (a dashboard, a build) beside the training run: it speaks only when nothing else failed.
      fallback: 'oom',
      summary: 'Process aborted: Node.js ran out of JavaScript heap (V8\'s fatal out-of-memory)',
      explanation:
        'V8 could not grow the JavaScript heap past its limit (--max-old-space-size, about 2–4 GiB by default) even after full garbage collections, ' +
        'and aborted the process. It is the Node.js program\'s heap, not the GPU\'s or the whole host\'s memory.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [{ id: 'node-heap-limit', title: 'Raise the heap limit (NODE_OPTIONS=--max-old-space-size=<MiB>) or give the Node program less to hold', rationale: 'V8 stops at its heap limit long before the host runs out.', snippet: 'export NODE_OPTIONS=--max-old-space-size=8192' }],
    };
  },
};

/**
 * Rust's default allocation error handler (library/std/src/alloc.rs: "memory allocation of {} bytes
 * failed\n", then abort): a Rust extension (tokenizers, safetensors, polars) could not get host memory.
 * Two threads failing at once interleave their messages on one line; such a line is skipped and the
 * clean copy read.
 */
const RUST_ALLOC = /memory allocation of (\d+) bytes failed/;

const rustAllocFailed: Signature = {
  id: 'rust-alloc-failed',
  platform: 'cpu',
  needles: ['memory allocation of '],
  match(line) {
    const m = RUST_ALLOC.exec(line.content);
    if (!m || line.content.split('memory allocation of').length > 2) return undefined;
    const bytes = Number(m[1]);
    return {
      signature: 'rust-alloc-failed',
      role: 'failure',
      kind: 'runtime-abort',
      platform: 'cpu',
      catchable: false,
      summary: `Process aborted: a Rust library could not allocate ${formatBytes(bytes)} of host memory`,
      explanation:
        'Code written in Rust (a tokenizer, safetensors, a data library) asked for host memory and was refused; Rust\'s allocation error handler aborts the process. ' +
        'The request itself can be small: the host (or the cgroup) was already full.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: { requestedBytes: bytes },
      fixes: [hostMemory, shrinkPeak('host-side data (tokenizer batch, dataset held in memory, worker count)')],
      facts: { group: 'rust-alloc' },
    };
  },
};

/**
 * PyTorch's DataLoader worker signal handler (torch/csrc/DataLoader.cpp): "ERROR: Unexpected bus error
 * encountered in worker. This might be caused by insufficient shared memory (shm)." A worker wrote
 * into a /dev/shm segment the full tmpfs could not back. Not the OOM killer.
 */
const workerBusError: Signature = {
  id: 'dataloader-bus-error',
  platform: 'cpu',
  needles: ['insufficient shared memory'],
  match(line) {
    if (!/Unexpected bus error encountered in worker|insufficient shared memory \(shm\)/.test(line.content)) return undefined;
    return {
      signature: 'dataloader-bus-error',
      role: 'failure',
      kind: 'not-oom',
      platform: 'cpu',
      catchable: false,
      summary: 'Not an OOM: a DataLoader worker hit a bus error (shared memory /dev/shm is too small)',
      explanation:
        'DataLoader workers pass batches to the main process through shared memory in /dev/shm. A bus error in a worker means a segment could not be backed: the tmpfs is full (64 MB by default in Docker). ' +
        'Host RAM and device memory are not exhausted.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [{ id: 'dataloader-shm', title: 'Give the workers more shared memory: docker run --shm-size=8g (or --ipc=host), or fewer workers', rationale: 'Workers pass batches through /dev/shm; a bus error is a write to a segment the full tmpfs cannot back.' }],
      facts: { group: 'dataloader-shm' },
    };
  },
};

/**
 * A process manager reporting that one of its workers died of SIGKILL. gunicorn's arbiter
 * (gunicorn/arbiter.py): "Worker (pid:N) was sent SIGKILL! Perhaps out of memory?" (Sentry's and
 * other gunicorn-based servers print the same); celery's pool (billiard/pool.py, human_status):
 * "Process 'ForkPoolWorker-N' pid:N exited with 'signal 9 (SIGKILL)'". gunicorn also SIGKILLs a
 * worker itself when it missed its heartbeat ("WORKER TIMEOUT (pid:N)" just before): that is a hung
 * worker, not memory.
 */
const WORKER_SIGKILL = /Worker \(pid:(\d+)\) was sent SIGKILL|Process '[^']*' pid:(\d+) exited with 'signal 9 \(SIGKILL\)'/;

const workerSigkill: Signature = {
  id: 'worker-sigkill',
  platform: 'cpu',
  needles: ['was sent SIGKILL', "exited with 'signal 9 (SIGKILL)'"],
  match(line) {
    const m = WORKER_SIGKILL.exec(line.content);
    if (!m) return undefined;
    const pid = m[1] ?? m[2]!;
    for (let k = 1; k <= 6; k++) {
      if (new RegExp(String.raw`WORKER TIMEOUT \(pid:${pid}\)`).test(line.previous(k) ?? '')) {
        return {
          signature: 'worker-timeout-kill',
          role: 'failure',
          kind: 'not-oom',
          platform: 'cpu',
          catchable: false,
          summary: `Not an OOM: gunicorn killed worker ${pid} after it timed out (WORKER TIMEOUT)`,
          explanation:
            'gunicorn\'s arbiter sends SIGKILL to a worker that stopped answering its heartbeat for longer than --timeout; it says "Perhaps out of memory?" for every SIGKILL, ' +
            'but the WORKER TIMEOUT line before it shows the arbiter killed the worker itself because a request ran too long or the worker hung.',
          numbers: {},
          fixes: [{ id: 'worker-timeout', title: 'Find the slow request or the blocking call, or raise gunicorn\'s --timeout', rationale: 'The worker was killed for not answering, not for memory.' }],
        };
      }
    }
    return hostKill(line, `A worker (pid ${pid}) was killed with SIGKILL, most likely by the host OOM killer`, {}, undefined);
  },
};

/**
 * The kernel's memory cgroup OOM report (mm/oom_kill.c, mm/memcontrol.c): "Memory cgroup out of memory:
 * Killed process N (name) …" (older kernels "Kill process N (name) score S or sacrifice child"),
 * "Task in /kubepods/… killed as a result of limit of /kubepods/…", the counters "memory: usage
 * 1048576kB, limit 1048576kB, failcnt 141" (usage at the limit) and "Memory cgroup stats for /…",
 * which are printed only when a cgroup's limit is hit. Kubernetes' node-problem-detector reports the
 * same kill as an "OOMKilling" event.
 */
const MEMCG_USAGE = /\bmemory: usage (\d+)kB, limit (\d+)kB, failcnt/;

const memcgOom: Signature = {
  id: 'memcg-oom',
  platform: 'cpu',
  needles: ['Memory cgroup out of memory', 'memory: usage ', 'Memory cgroup stats for', 'killed as a result of limit of', 'OOMKilling'],
  match(line) {
    const c = line.content;
    const kill = /Memory cgroup out of memory: Kill(?:ed)? process (\d+) \(([^)]*)\)/.exec(c);
    if (kill) return hostKill(line, `Memory cgroup OOM: the kernel killed ${kill[2]} (pid ${kill[1]}) at its cgroup's memory limit`, {}, undefined);
    if (/Memory cgroup out of memory|\bOOMKilling\b|Memory cgroup stats for \/|killed as a result of limit of \//.test(c)) {
      return hostKill(line, 'Memory cgroup OOM: a process was killed at its cgroup\'s (container\'s) memory limit', {}, undefined);
    }
    const usage = MEMCG_USAGE.exec(c);
    if (usage && Number(usage[1]) >= Number(usage[2])) {
      return hostKill(line, 'Memory cgroup OOM: the cgroup\'s memory usage reached its limit', {}, undefined);
    }
    return undefined;
  },
};

export const signatures: readonly Signature[] = [cpuAllocator, pythonMemoryError, badAllocAbort, v8HeapOom, windowsLowMemory, slurmMemoryLimit, schedulerMemoryLimit, rustAllocFailed, tensorflowCpu, kernelOomKill, oomdKill, shellKilled, childKilled, workerSignal, workerBusError, rayMemoryMonitor, launcherKill, workerSigkill, memcgOom];
