/**
 * Drives runs: checks the request against the probe catalog, creates the record in the store,
 * starts the supervisor on the target, and turns its events into stored cells and progress
 * notifications (every one carrying the runId). Several runs may go at once; each has its own
 * handle, nothing global is aborted.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { CellResult, RunOutputParams, RunRecord, RunState, SourceFrame, StartRunParams } from '../protocol';
import { triageText } from '../triage/index';
import { mapFramesToWorkspace } from '../triage/workspaceFrames';
import { bundleFor, findProbe } from './catalog';
import { RunError } from './errors';
import { stackFrames } from './frames';
import type { RunStore } from './store';
import { resolveTarget } from './targets/index';
import type { RunPlan, SupervisorEvent, Target, TargetSession } from './targets/target';

export const DEFAULT_HANG_WINDOW_SECONDS = 10;
const DEFAULT_CELL_TIMEOUT_SECONDS = 900;
const MAX_REPEATS = 1000;
const MAX_RANKS = 64;
const TRIAGE_TAIL_BYTES = 1 << 20;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface RunListener {
  progress(runId: string, state: RunState): void;
  output(params: RunOutputParams): void;
}

export interface RunRequest extends StartRunParams {
  /** The interpreter on the target; default `python3`. */
  python?: string;
  /** Extra environment for every rank. */
  env?: Record<string, string>;
  cellTimeoutSeconds?: number;
  /** Working directory of the ranks (the workspace folder, where the `script` probe finds the entry point). */
  cwd?: string;
  /** The `headroom.targets` setting: options of the remote targets by id. */
  targets?: Readonly<Record<string, unknown>>;
  /** Folders whose files the cells' Python frames are mapped to (`workspaceUri`). */
  workspaceFolders?: readonly string[];
}

export interface RunHandle {
  readonly runId: string;
  /** Resolves with the final record (finished, interrupted or cancelled). */
  readonly done: Promise<RunRecord>;
  cancel(): Promise<void>;
}

function wholeNumber(value: number | undefined, fallback: number, min: number, max: number, name: string): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new RunError('HR_RUN_ARGUMENT', `${name} must be a whole number from ${min} to ${max} (got ${String(value)})`);
  }
  return n;
}

function newRunId(probe: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${probe}-${randomBytes(3).toString('hex')}`;
}

/** Verdicts of the triage engine on a rank's log, as evidence lines (OOM texts Headroom knows). */
function triageEvidence(cell: CellResult): string[] {
  if (cell.outcome !== 'catchable-oom' && cell.outcome !== 'error' && cell.outcome !== 'abort') return [];
  const lines: string[] = [];
  for (const [rank, file] of Object.entries(cell.logs)) {
    if (!existsSync(file)) continue;
    const size = statSync(file).size;
    const text = readFileSync(file).subarray(Math.max(0, size - TRIAGE_TAIL_BYTES)).toString('utf8');
    for (const verdict of triageText(text, file).verdicts.filter((v) => !v.noFailureFound)) lines.push(`rank ${rank} triage: ${verdict.kind}: ${verdict.summary}`);
  }
  return lines;
}

export class RunManager {
  private readonly running = new Map<string, RunHandle>();

  constructor(
    readonly store: RunStore,
    private readonly targetFor: (id: string, configured: Readonly<Record<string, unknown>>) => Target = resolveTarget,
  ) {}

  async cancel(runId: string): Promise<void> {
    const handle = this.running.get(runId);
    if (!handle) throw new RunError('HR_UNKNOWN_RUN', `run "${runId}" is not running`);
    await handle.cancel();
  }

  async start(request: RunRequest, listener: RunListener): Promise<RunHandle> {
    const probe = findProbe(request.probe);
    const target = this.targetFor(request.target, request.targets ?? {});
    const variants = [...new Set(request.variants && request.variants.length > 0 ? request.variants : probe.variants)];
    const unknown = variants.filter((v) => !probe.variants.includes(v));
    if (unknown.length > 0) {
      throw new RunError('HR_UNKNOWN_VARIANT', `probe ${probe.id} has no variant ${unknown.join(', ')}; variants: ${probe.variants.join(', ')}`);
    }
    const repeats = wholeNumber(request.repeats, 1, 1, MAX_REPEATS, 'repeats');
    const ranks = wholeNumber(request.ranks, probe.minRanks, probe.minRanks, MAX_RANKS, `ranks (probe ${probe.id})`);
    const hangWindowSeconds = request.hangWindowSeconds ?? DEFAULT_HANG_WINDOW_SECONDS;
    if (!(hangWindowSeconds >= 1 && hangWindowSeconds <= 3600)) {
      throw new RunError('HR_RUN_ARGUMENT', `the hang window must be 1 to 3600 seconds (got ${hangWindowSeconds})`);
    }
    const env = request.env ?? {};
    for (const name of Object.keys(env)) {
      if (!ENV_NAME.test(name)) throw new RunError('HR_RUN_ARGUMENT', `"${name}" is not an environment variable name`);
    }
    const now = new Date();
    const runId = newRunId(probe.id, now);
    const plan: RunPlan = {
      runId,
      probe: probe.id,
      variants,
      repeats,
      ranks,
      hangWindowSeconds,
      cellTimeoutSeconds: request.cellTimeoutSeconds ?? DEFAULT_CELL_TIMEOUT_SECONDS,
      needsGpu: probe.needsGpu,
      python: request.python ?? 'python3',
      args: request.args ?? [],
      env,
      ...(request.cwd !== undefined && { cwd: request.cwd }),
    };
    const record: RunRecord = {
      runId,
      probe: probe.id,
      target: target.id,
      status: 'running',
      variants,
      repeats,
      ranks,
      hangWindowSeconds,
      startedAt: now.toISOString(),
      cells: [],
    };
    this.store.create(record);
    const cellsPlanned = variants.length * repeats;
    listener.progress(runId, { tag: 'started', probe: probe.id, target: target.id, cellsPlanned });

    let sawDone = false;
    const onEvent = (event: SupervisorEvent): void => {
      switch (event.type) {
        case 'environment': {
          const { torchError: _torchError, ...environment } = event.environment;
          record.environment = environment;
          this.store.save(record);
          listener.progress(runId, { tag: 'environment', environment });
          break;
        }
        case 'cell-started':
          listener.progress(runId, { tag: 'cell-started', variant: event.variant, repeat: event.repeat });
          break;
        case 'output':
          listener.output({ runId, variant: event.variant, repeat: event.repeat, rank: event.rank, text: event.text });
          break;
        case 'cell': {
          const frames: Record<string, SourceFrame[]> = {};
          for (const [rank, stack] of Object.entries(event.cell.stacks)) {
            frames[rank] = mapFramesToWorkspace(stackFrames(stack), request.workspaceFolders ?? []);
          }
          const cell = { ...event.cell, frames, evidence: [...event.cell.evidence, ...triageEvidence(event.cell)] };
          record.cells.push(cell);
          this.store.save(record);
          listener.progress(runId, { tag: 'cell-finished', cell, cellsDone: record.cells.length, cellsPlanned });
          break;
        }
        case 'done':
          sawDone = true;
          if (event.message) record.message = event.message;
          break;
        case 'cancelled':
          break;
      }
    };

    let session: TargetSession;
    try {
      session = await target.start({ plan, bundle: bundleFor(probe), localRunDir: this.store.runDir(runId), onEvent });
    } catch (err) {
      this.finish(record, 'interrupted', err instanceof Error ? err.message : String(err), listener);
      throw err;
    }
    const done = session.ended.then((end) => {
      if (end.cancelled) {
        this.finish(record, 'cancelled', record.message ?? 'cancelled by the user', listener);
      } else if (sawDone) {
        this.finish(record, 'finished', record.message, listener);
      } else {
        // A remote target reports code null with no signal when it stopped hearing from the host.
        const how = end.signal ? `was killed by ${end.signal}` : end.code === null ? 'was lost from view' : `exited with code ${end.code}`;
        const tail = end.stderrTail.trim().split('\n').slice(-5).join('\n');
        this.finish(record, 'interrupted', `the supervisor ${how} before the run ended${tail ? `: ${tail}` : ''}`, listener);
      }
      this.running.delete(runId);
      return record;
    });
    const handle: RunHandle = { runId, done, cancel: () => session.cancel() };
    this.running.set(runId, handle);
    return handle;
  }

  private finish(record: RunRecord, status: Exclude<RunRecord['status'], 'running'>, message: string | undefined, listener: RunListener): void {
    record.status = status;
    record.endedAt = new Date().toISOString();
    if (message !== undefined) record.message = message;
    record.cells = this.store.mergeCellsFromDisk(record.runId, record.cells);
    this.store.save(record);
    listener.progress(record.runId, { tag: 'ended', status, ...(message !== undefined && { message }) });
  }
}
