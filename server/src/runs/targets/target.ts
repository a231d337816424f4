/**
 * Where a run executes. Every target runs the same thing: the Python supervisor
 * (`harness/supervisor.py`) with a plan file, next to the probe, the harness and the preload shim
 * source. The supervisor does the per-cell work on the machine with the GPUs (ranks, watchdog,
 * stacks, classification) and streams JSON lines back; a target only moves files, starts the
 * supervisor, relays its lines, and kills everything on cancel.
 *
 * The local target runs it as a child process; the SSH and Slurm targets (issue 6) copy the bundle
 * to a per-run directory on the host and run it there under setsid/nohup or srun/sbatch.
 */
import type { CellResult, TargetEnvironment } from '../../protocol';

/** The files a run needs on the target, as paths on the server's machine. */
export interface RunBundle {
  /** `harness/`: supervisor.py, preflight.py, headroom_harness.py. */
  harnessDir: string;
  /** The probe's Python file. */
  probeFile: string;
  /** The preload shim's C source (built on the target when it has a compiler). */
  shimSource: string;
}

/** What the supervisor needs to know; written as JSON next to it with target-side paths filled in. */
export interface RunPlan {
  runId: string;
  probe: string;
  variants: string[];
  repeats: number;
  ranks: number;
  hangWindowSeconds: number;
  /** A cell that still makes progress is stopped after this long (outcome `error`). */
  cellTimeoutSeconds: number;
  needsGpu: boolean;
  /** The interpreter on the target. */
  python: string;
  /** Arguments after the probe file (the `script` probe: the user's entry point and its arguments). */
  args: string[];
  /** Extra environment for every rank (already validated names). */
  env: Record<string, string>;
  /** Working directory for the ranks on the target; default: the cell directory. */
  cwd?: string;
  /** `off` skips the preload shim even when a compiler is there. */
  shim?: 'auto' | 'off';
}

/** One JSON line of the supervisor's stdout. */
export type SupervisorEvent =
  | { type: 'environment'; environment: TargetEnvironment & { torchError?: string } }
  | { type: 'cell-started'; variant: string; repeat: number }
  | { type: 'output'; variant: string; repeat: number; rank: number; text: string }
  | { type: 'cell'; cell: CellResult }
  | { type: 'done'; message?: string }
  | { type: 'cancelled' };

/** How the supervisor process ended, as far as the target can tell. */
export interface SessionEnd {
  /** True when `cancel()` was called before the end. */
  cancelled: boolean;
  /** The supervisor's exit code (null: killed by a signal, or the link to the host dropped). */
  code: number | null;
  signal: string | null;
  /** The end of the supervisor's stderr, for the run's message when it died unexpectedly. */
  stderrTail: string;
}

export interface TargetSession {
  /** Kills the supervisor and every rank process of the run; resolves when nothing is left. */
  cancel(): Promise<void>;
  /** Settles once the supervisor is gone (after the last event was delivered). */
  readonly ended: Promise<SessionEnd>;
}

export interface StartOptions {
  plan: RunPlan;
  bundle: RunBundle;
  /**
   * The run's directory on the server's machine (in the run store). The local target works in it
   * directly; a remote target keeps its copies of logs and artifacts there.
   */
  localRunDir: string;
  onEvent(event: SupervisorEvent): void;
}

export interface Target {
  /** `local`, `ssh:HOST`, `slurm:PARTITION`. */
  readonly id: string;
  /** Runs preflight.py with `python` on the target ("test connection"). */
  describe(python: string, bundle: RunBundle): Promise<TargetEnvironment>;
  start(options: StartOptions): Promise<TargetSession>;
}

/** Splits the supervisor's stdout into events; lines that are not events are ignored. */
export class EventLineReader {
  private buffered = '';

  constructor(private readonly onEvent: (event: SupervisorEvent) => void) {}

  push(chunk: string): void {
    this.buffered += chunk;
    let newline: number;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, newline).trim();
      this.buffered = this.buffered.slice(newline + 1);
      if (!line.startsWith('{')) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { type?: unknown }).type === 'string') {
        this.onEvent(parsed as SupervisorEvent);
      }
    }
  }
}
