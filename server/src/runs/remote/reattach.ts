/**
 * Re-attach: a remote run whose server lost it (a dropped SSH link, a closed editor) keeps going on
 * the host; re-attaching follows it again from the last stored byte, stores every cell that
 * finished meanwhile, and records the end. Cancel of such a run kills it on the host and cancels
 * its Slurm job without a live session.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunRecord } from '../../protocol';
import { RunError } from '../errors';
import type { RunStore } from '../store';
import { resolveTarget } from '../targets/index';
import type { AttachableTarget } from '../targets/ssh';
import type { Target, TargetSession } from '../targets/target';
import { readRemoteInfo, SUPERVISOR } from './session';

function isAttachable(target: Target): target is AttachableTarget {
  return typeof (target as Partial<AttachableTarget>).attach === 'function';
}

/** The record and its remote target, for a stored run that is not being followed by anyone. */
function detachedRun(store: RunStore, runId: string, targetFor: (id: string) => Target): { record: RunRecord; target: AttachableTarget; dir: string } {
  const record = store.load(runId);
  const dir = store.runDir(runId);
  if (record.status === 'running') {
    throw new RunError('HR_RUN_ARGUMENT', `run ${runId} is still followed by a live server (pid in run.json); cancel it there`);
  }
  const target = targetFor(record.target);
  if (!isAttachable(target) || !readRemoteInfo(dir)) {
    throw new RunError('HR_RUN_ARGUMENT', `run ${runId} ran on ${record.target}, which has nothing to re-attach to`);
  }
  return { record, target, dir };
}

/** True when the supervisor's stored stdout holds its final `done` line. */
function sawDone(dir: string): { done: boolean; message?: string } {
  const file = path.join(dir, 'remote', `${SUPERVISOR}.out`);
  if (!existsSync(file)) return { done: false };
  for (const line of readFileSync(file, 'utf8').split('\n').reverse()) {
    if (!line.startsWith('{"type":"done"')) continue;
    try {
      const event = JSON.parse(line) as { message?: string };
      return { done: true, ...(event.message !== undefined && { message: event.message }) };
    } catch {
      return { done: true };
    }
  }
  return { done: false };
}

function settle(store: RunStore, record: RunRecord, status: RunRecord['status'], message: string | undefined): RunRecord {
  record.status = status;
  record.endedAt = new Date().toISOString();
  if (message !== undefined) record.message = message;
  else delete record.message;
  record.cells = store.mergeCellsFromDisk(record.runId, record.cells);
  store.save(record);
  return record;
}

/**
 * Follows an interrupted remote run until its supervisor ends on the host, and stores the result:
 * `finished` with every cell when it ran to its end, else still `interrupted` with the reason.
 * `onCell` sees each newly stored cell (progress for a UI).
 */
export async function reattachRun(
  store: RunStore,
  runId: string,
  options: { targetFor?: (id: string) => Target; onCell?: (record: RunRecord) => void } = {},
): Promise<RunRecord> {
  const { record, target, dir } = detachedRun(store, runId, options.targetFor ?? resolveTarget);
  const have = new Set(record.cells.map((c) => `${c.variant}.${c.repeat}`));
  const session: TargetSession = target.attach(dir, (event) => {
    if (event.type !== 'cell' || have.has(`${event.cell.variant}.${event.cell.repeat}`)) return;
    have.add(`${event.cell.variant}.${event.cell.repeat}`);
    record.cells.push(event.cell);
    store.save(record);
    options.onCell?.(record);
  });
  const end = await session.ended;
  const done = sawDone(dir);
  if (done.done) return settle(store, record, 'finished', done.message);
  const tail = end.stderrTail.trim().split('\n').slice(-3).join('\n');
  return settle(store, record, 'interrupted', `re-attached, but the supervisor ended before the run did${tail ? `: ${tail}` : ''}`);
}

/** Kills a detached remote run on its host (and cancels its Slurm job); the record says `cancelled`. */
export async function cancelDetachedRun(store: RunStore, runId: string, targetFor: (id: string) => Target = resolveTarget): Promise<RunRecord> {
  const { record, target, dir } = detachedRun(store, runId, targetFor);
  const session = target.attach(dir, () => undefined);
  await session.cancel();
  return settle(store, record, 'cancelled', 'cancelled by the user after the server lost the run');
}
