import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CellResult, RunRecord } from '../../server/src/protocol';
import { RunStore } from '../../server/src/runs/store';
import { tempDir } from '../support/tempDir';

const cell = (variant: string, repeat: number): CellResult => ({
  variant, repeat, outcome: 'completed', seconds: 1, evidence: [], stacks: {}, backtrace: null, metrics: {}, logs: {}, memory: {},
});

const record = (runId: string, startedAt: string): RunRecord => ({
  runId, probe: 'rank-divergent-allocation', target: 'local', status: 'running', variants: ['naive', 'synchronized'],
  repeats: 1, ranks: 2, hangWindowSeconds: 10, startedAt, cells: [],
});

describe('run store', () => {
  it('keeps a running record of this process as running, and lists newest first', () => {
    const store = new RunStore(tempDir('hr-store-'));
    store.create(record('a-old', '2026-11-30T01:00:00.000Z'));
    store.create(record('b-new', '2026-11-30T02:00:00.000Z'));
    expect(store.list().map((r) => [r.runId, r.status, r.cellCount])).toEqual([['b-new', 'running', 0], ['a-old', 'running', 0]]);
    // Writes are atomic renames: no temp file is left beside run.json.
    expect(readdirSync(store.runDir('a-old'))).toEqual(['run.json']);
  });

  it('reads a run whose owner is gone as interrupted, with cells the supervisor finished on disk', () => {
    const root = tempDir('hr-store-');
    const first = new RunStore(root);
    const run = record('r1', '2026-11-30T01:00:00.000Z');
    first.create(run);
    run.cells.push(cell('synchronized', 1));
    first.save(run);
    const cellDir = join(first.runDir('r1'), 'work', 'cells', 'naive.1');
    mkdirSync(cellDir, { recursive: true });
    writeFileSync(join(cellDir, 'result.json'), JSON.stringify(cell('naive', 1)));
    // A new store object in the same process stands for a restarted server: it does not drive r1.
    const loaded = new RunStore(root).load('r1');
    expect(loaded.status).toBe('interrupted');
    expect(loaded.message).toMatch(/stopped before the run ended/);
    expect(loaded.cells.map((c) => c.variant)).toEqual(['synchronized', 'naive']);
  });

  it('refuses run ids that could leave the store', () => {
    const store = new RunStore(tempDir('hr-store-'));
    expect(() => store.load('../etc')).toThrow(expect.objectContaining({ code: 'HR_UNKNOWN_RUN' }));
    expect(() => store.load('missing')).toThrow(expect.objectContaining({ code: 'HR_UNKNOWN_RUN' }));
  });
});
