/**
 * The run store: one directory per run under a root (the extension passes its workspace storage
 * in HEADROOM_RUNS_DIR; the CLI takes --store). `run.json` is rewritten atomically (temp file,
 * fsync, rename) after every finished cell, so a server killed at any moment leaves the last
 * complete record. The supervisor also writes each cell's `result.json` under `work/cells/`; a
 * record read back later picks up cells that finished after the server stopped listening.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import type { CellResult, RunRecord } from '../protocol';
import { RunError } from './errors';

/** What run.json holds: the public record plus the process that owned the run while it ran. */
interface StoredRun {
  record: RunRecord;
  ownerPid: number;
}

export type RunSummary = Omit<RunRecord, 'cells'> & { cellCount: number };

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** `$HEADROOM_RUNS_DIR`, else `$XDG_STATE_HOME/headroom/runs`, else `~/.local/state/headroom/runs`. */
export function defaultStoreRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env['HEADROOM_RUNS_DIR']) return env['HEADROOM_RUNS_DIR'];
  const state = env['XDG_STATE_HOME'] || path.join(homedir(), '.local', 'state');
  return path.join(state, 'headroom', 'runs');
}

export function writeFileAtomic(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class RunStore {
  /** Runs this process is driving right now; everything else marked `running` has lost its owner. */
  private readonly active = new Set<string>();

  constructor(readonly root: string) {}

  runDir(runId: string): string {
    if (!RUN_ID.test(runId)) throw new RunError('HR_UNKNOWN_RUN', `"${runId}" is not a run id`);
    return path.join(this.root, runId);
  }

  /** Creates the run's directory and first record, owned by this process. */
  create(record: RunRecord): void {
    mkdirSync(this.runDir(record.runId), { recursive: true });
    this.active.add(record.runId);
    this.save(record);
  }

  save(record: RunRecord): void {
    const stored: StoredRun = { record, ownerPid: process.pid };
    writeFileAtomic(path.join(this.runDir(record.runId), 'run.json'), JSON.stringify(stored, null, 1));
    if (record.status !== 'running') this.active.delete(record.runId);
  }

  /**
   * Reads a run back. A record still marked `running` whose owner is gone becomes `interrupted`,
   * with every cell the supervisor finished on disk merged in.
   */
  load(runId: string): RunRecord {
    const file = path.join(this.runDir(runId), 'run.json');
    if (!existsSync(file)) throw new RunError('HR_UNKNOWN_RUN', `no run "${runId}" in ${this.root}`);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as StoredRun;
    const record = stored.record;
    const orphaned =
      record.status === 'running' && !this.active.has(runId) && (stored.ownerPid === process.pid || !pidAlive(stored.ownerPid));
    if (!orphaned) return record;
    const cells = this.mergeCellsFromDisk(runId, record.cells);
    return {
      ...record,
      cells,
      status: 'interrupted',
      message: record.message ?? `the server that ran it (pid ${stored.ownerPid}) stopped before the run ended`,
    };
  }

  /** Cells in `work/cells/*\/result.json` that the record does not have yet, appended in cell order. */
  mergeCellsFromDisk(runId: string, cells: readonly CellResult[]): CellResult[] {
    const dir = path.join(this.runDir(runId), 'work', 'cells');
    if (!existsSync(dir)) return [...cells];
    const merged = [...cells];
    const have = new Set(cells.map((c) => `${c.variant}.${c.repeat}`));
    for (const name of readdirSync(dir).sort()) {
      const result = path.join(dir, name, 'result.json');
      if (have.has(name) || !existsSync(result)) continue;
      try {
        merged.push(JSON.parse(readFileSync(result, 'utf8')) as CellResult);
      } catch {
        // A result.json is written by rename, so a partial file is never seen; anything else unreadable is skipped.
      }
    }
    return merged;
  }

  /** Every run in the store, newest first, without cells. */
  list(): RunSummary[] {
    if (!existsSync(this.root)) return [];
    const summaries: RunSummary[] = [];
    for (const name of readdirSync(this.root)) {
      if (!RUN_ID.test(name) || !existsSync(path.join(this.root, name, 'run.json'))) continue;
      try {
        const { cells, ...rest } = this.load(name);
        summaries.push({ ...rest, cellCount: cells.length });
      } catch {
        // A run directory without a readable record (being created right now) is left out.
      }
    }
    return summaries.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  }
}
