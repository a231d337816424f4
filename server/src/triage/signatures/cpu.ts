/**
 * Host memory: PyTorch's CPU allocator failing (a catchable RuntimeError), Python's MemoryError,
 * TensorFlow on the CPU, and the process being killed for it — the kernel OOM killer in dmesg, a
 * bare "Killed" from the shell, torchrun's exit code -9 / SIGKILL, exit code 137, Slurm and cgroup
 * OOM events. A killed process cannot catch anything.
 */
import { formatBytes } from '../../format';
import { hostMemory, shrinkPeak } from '../fixes';
import type { Finding, LineView, Signature } from './types';

const cpuAllocator: Signature = {
  id: 'cpu-allocator',
  platform: 'cpu',
  needles: ['DefaultCPUAllocator'],
  match(line) {
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

const pythonMemoryError: Signature = {
  id: 'python-memory-error',
  platform: 'cpu',
  needles: ['MemoryError'],
  match(line) {
    if (!/^\s*MemoryError\b/.test(line.content)) return undefined;
    return {
      signature: 'python-memory-error',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'cpu',
      catchable: true,
      summary: 'Host out of memory: Python raised MemoryError',
      explanation: 'The Python allocator could not get host memory for an object.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [hostMemory],
    };
  },
};

const tensorflowCpu: Signature = {
  id: 'tensorflow-bfc-cpu',
  platform: 'cpu',
  needles: ['OOM when allocating tensor'],
  match(line) {
    if (!/OOM when allocating tensor.*device:CPU:\d+/.test(line.content)) return undefined;
    return {
      signature: 'tensorflow-bfc-cpu',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'cpu',
      catchable: true,
      summary: 'TensorFlow out of host memory allocating a tensor',
      explanation: 'TensorFlow could not allocate a tensor in host memory; ResourceExhaustedError can be caught.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [shrinkPeak(), hostMemory],
    };
  },
};

/** A kill for memory: one verdict per log, whichever of its traces (dmesg, shell, launcher) were captured. */
function hostKill(line: LineView, summary: string, numbers: Finding['numbers'], rank: number | undefined): Finding {
  return {
    signature: 'host-oom-kill',
    role: 'host-kill',
    kind: 'host-oom',
    platform: 'cpu',
    catchable: false,
    summary,
    explanation:
      'The process was killed with SIGKILL for using too much host memory (the kernel OOM killer or the job\'s cgroup limit). ' +
      'Nothing in the program runs after that: no exception, no traceback, no cleanup. The last lines of the log show where it was, not why.',
    ...(rank !== undefined ? { rank } : line.rank !== undefined ? { rank: line.rank } : {}),
    numbers,
    fixes: [hostMemory],
  };
}

const KB = /anon-rss:\s*([\d,]+)\s*kB/;

const kernelOomKill: Signature = {
  id: 'kernel-oom-kill',
  platform: 'cpu',
  needles: ['Killed process', 'oom-kill:', 'invoked oom-killer'],
  match(line) {
    const killed = /Killed process (\d+) \(([^)]*)\)/.exec(line.content);
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

/** The shell's report of a SIGKILL: a line that is only "Killed" (or its translations). */
const shellKilled: Signature = {
  id: 'shell-killed',
  platform: 'cpu',
  needles: ['Killed', '已杀死', 'Getötet'],
  match(line) {
    const c = line.content.trim();
    if (!/^(?:Killed|已杀死|Getötet)(?:\s+python.*)?$/.test(c) && !/\d+ Killed\s+\S/.test(c)) return undefined;
    return hostKill(line, 'Process killed (SIGKILL), most likely by the host OOM killer', {}, undefined);
  },
};

/** A launcher (torchrun, DeepSpeed, a container runtime) reporting a worker ended by SIGKILL: -9 or 137. */
const launcherKill: Signature = {
  id: 'launcher-sigkill',
  platform: 'cpu',
  needles: ['exitcode: -9', 'exitcode  : -9', 'Signal 9 (SIGKILL)', 'exit code 137', 'exit code: 137', 'exited with code 137', 'return code = -9', 'oom_kill event', 'OUT_OF_MEMORY', 'cgroup out-of-memory'],
  match(line) {
    const c = line.content;
    // torchrun: "exitcode: -9"; DeepSpeed's launcher: "exits with return code = -9"; shells and containers: 137.
    // Slurm's job state OUT_OF_MEMORY, not the tail of CUDA_ERROR_OUT_OF_MEMORY.
    if (!/exitcode\s*: -9|Signal 9 \(SIGKILL\)|exit(?:ed with)? code:? 137|return code = -9\b|oom_kill event|\bOUT_OF_MEMORY|cgroup out-of-memory/.test(c)) return undefined;
    let rank: number | undefined;
    const local = /local_rank: (\d+)/.exec(c);
    if (local) rank = Number(local[1]);
    for (let k = 1; k <= 3 && rank === undefined; k++) {
      const r = /^\s*rank\s*:\s*(\d+)/.exec(line.previous(k) ?? '');
      if (r) rank = Number(r[1]);
    }
    return hostKill(line, 'Worker killed with SIGKILL (exit code -9 / 137), most likely for host memory', {}, rank);
  },
};

export const signatures: readonly Signature[] = [cpuAllocator, pythonMemoryError, tensorflowCpu, kernelOomKill, shellKilled, launcherKill];
