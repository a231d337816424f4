/**
 * Reproducers on real CPU PyTorch with gloo (no GPU): the seed-004 desync hangs for real and the
 * watchdog catches it with both ranks' stacks; the fix completes; cancel and a killed server leave
 * nothing behind and lose no finished cell; GPU-only probes say so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CellResult, ProbeInfo, RunRecord } from '../../server/src/protocol';
import { RunManager, type RunListener } from '../../server/src/runs/runner';
import { RunStore } from '../../server/src/runs/store';
import { cliPath, ensureCli, processesMentioning, torchPython, waitFor } from './runs-helpers';
import { tempDir } from '../support/tempDir';

const python = torchPython();
const quietListener: RunListener = { progress: () => undefined, output: () => undefined };

function cli(args: string[], timeoutMs = 120_000): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', timeout: timeoutMs });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('repro list', () => {
  beforeAll(ensureCli);

  it('lists every probe with the contract fields', () => {
    const r = cli(['repro', 'list', '--json']);
    expect(r.status).toBe(0);
    const probes = JSON.parse(r.stdout) as ProbeInfo[];
    expect(probes.map((p) => p.id).sort()).toEqual(
      ['cache-held-collective', 'capacity-search', 'fragmentation', 'global-mode-race', 'intermittent-oom', 'rank-divergent-allocation', 'script'].sort(),
    );
    for (const p of probes) expect(Object.keys(p).sort()).toEqual(['id', 'minRanks', 'needsGpu', 'seed', 'title', 'variants']);
    const rda = probes.find((p) => p.id === 'rank-divergent-allocation')!;
    expect(rda).toMatchObject({ seed: '004', variants: ['naive', 'synchronized', 'flag-after-alloc'], needsGpu: false, minRanks: 2 });
  });

  it('refuses unknown probes and variants with a code', () => {
    const probe = cli(['repro', 'run', 'no-such-probe', '--target', 'local']);
    expect(probe.status).toBe(1);
    expect(probe.stderr).toContain('HR_UNKNOWN_PROBE');
    const variant = cli(['repro', 'run', 'rank-divergent-allocation', '--target', 'local', '--variant', 'bogus']);
    expect(variant.stderr).toContain('HR_UNKNOWN_VARIANT');
    const target = cli(['repro', 'run', 'rank-divergent-allocation', '--target', 'ssh:;rm -rf /']);
    expect(target.stderr).toMatch(/HR_UNKNOWN_TARGET|HR_SSH_HOST/);
  });
});

describe.skipIf(python === undefined)('rank-divergent-allocation on CPU gloo (seed 004)', () => {
  beforeAll(ensureCli);

  it('naive and flag-after-alloc hang with both ranks named and stacked; synchronized completes', () => {
    const store = tempDir('hr-runs-');
    const r = cli(['repro', 'run', 'rank-divergent-allocation', '--target', 'local', '--json', '--python', python!, '--store', store], 180_000);
    expect(r.status, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as RunRecord;
    expect(Object.keys(run).slice(0, 5)).toEqual(['runId', 'probe', 'target', 'status', 'cells']);
    expect(run).toMatchObject({ probe: 'rank-divergent-allocation', target: 'local', status: 'finished' });
    const cell = (variant: string): CellResult => run.cells.find((c) => c.variant === variant)!;

    for (const variant of ['naive', 'flag-after-alloc']) {
      const hang = cell(variant);
      expect(hang.outcome).toBe('hang');
      // The watchdog's latency once the ranks stop (3 s desync confirmation plus stacks); the whole
      // cell adds Python and torch start-up, 6-8 s on an idle 2-core machine, more under load.
      expect(hang.metrics['secondsToVerdict']).toBeLessThan(15);
      expect(hang.seconds).toBeLessThan(60);
      expect(hang.divergingRank).toBe(1);
      expect(Object.keys(hang.stacks).sort()).toEqual(['0', '1']);
      expect(hang.stacks['0']).toMatch(/line \d+ in all_reduce_min/);
      expect(hang.stacks['1']).toMatch(/line \d+ in pipeline_hand_off/);
      expect(hang.evidence.join('\n')).toMatch(/rank 1 never joined collective #2 all_reduce\(ok flag, MIN\)/);
      expect(hang.backtrace).toBeNull();
    }
    expect(cell('flag-after-alloc').evidence.join('\n')).toContain('ok-flag allocation failed after the failed buffer');

    const ok = cell('synchronized');
    expect(ok.outcome).toBe('completed');
    expect(ok.metrics).toMatchObject({ 'path[0]': 'fallback', 'path[1]': 'fallback' });
    expect(ok.stacks).toEqual({});
    expect(Object.keys(ok.memory)).toEqual(['0', '1']);
    expect(ok.memory['0']!.length).toBeGreaterThan(3);
    // The stored record is the same run.
    const shown = JSON.parse(cli(['repro', 'show', run.runId, '--json', '--store', store]).stdout) as RunRecord;
    expect(shown.cells.map((c) => c.outcome)).toEqual(run.cells.map((c) => c.outcome));
  }, 300000);

  // A cell that stays alive: the script sleeps in one C call on both ranks (no desync to confirm early).
  const sleeper = join(__dirname, '..', 'fixtures', 'runs', 'sleep_unless_as_is.py');

  it('cancel kills the supervisor and every rank, and keeps the record', async () => {
    const store = new RunStore(tempDir('hr-runs-'));
    const manager = new RunManager(store);
    const handle = await manager.start(
      { probe: 'script', target: 'local', variants: ['expandable-segments'], ranks: 2, hangWindowSeconds: 600, python: python!, args: [sleeper] },
      quietListener,
    );
    const cell = join(store.runDir(handle.runId), 'work', 'cells', 'expandable-segments.1');
    const running = (rank: number) => {
      const events = join(cell, `rank${rank}.events.jsonl`);
      return existsSync(events) && readFileSync(events, 'utf8').includes('"ev":"progress"');
    };
    await waitFor('both ranks in the script', () => running(0) && running(1), 60_000);
    expect(processesMentioning(handle.runId).length).toBeGreaterThanOrEqual(3);
    await handle.cancel();
    const run = await handle.done;
    expect(run.status).toBe('cancelled');
    expect(run.cells).toEqual([]);
    expect(processesMentioning(handle.runId)).toEqual([]);
    expect(store.load(handle.runId).status).toBe('cancelled');
  }, 180_000);

  it('a server killed with SIGKILL mid-run loses no finished cell, and leaves no process', async () => {
    const storeDir = tempDir('hr-runs-');
    const server = spawn(
      process.execPath,
      [cliPath, 'repro', 'run', 'script', '--target', 'local', '--variant', 'as-is', '--variant', 'expandable-segments',
        '--hang-window', '600', '--python', python!, '--store', storeDir, '--json', '--', sleeper],
      { stdio: 'ignore' },
    );
    const store = new RunStore(storeDir);
    const runId = await waitFor('a finished cell in the store', () => {
      const [run] = store.list();
      return run && run.cellCount >= 1 ? run.runId : undefined;
    }, 90_000);
    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));
    const run = store.load(runId);
    expect(run.status).toBe('interrupted');
    expect(run.cells.map((c) => [c.variant, c.outcome])).toEqual([['as-is', 'completed']]);
    // The supervisor dies with its server (PR_SET_PDEATHSIG) and its ranks with it.
    await waitFor('no process of the run', () => processesMentioning(runId).length === 0, 10_000);
  }, 180_000);

  it('reports clearly that a GPU-only probe needs a GPU', () => {
    const store = tempDir('hr-runs-');
    const r = cli(['repro', 'run', 'cache-held-collective', '--target', 'local', '--json', '--python', python!, '--store', store]);
    expect(r.status).toBe(0);
    const run = JSON.parse(r.stdout) as RunRecord;
    expect(run.message).toMatch(/needs a GPU/);
    expect(run.cells.length).toBeGreaterThan(0);
    for (const c of run.cells) {
      expect(c.outcome).toBe('error');
      expect(c.evidence[0]).toMatch(/^skipped: the cache-held-collective probe needs a GPU/);
    }
  }, 120000);
});

describe.skipIf(python === undefined)('script probe with the preload shim on CPU', () => {
  beforeAll(ensureCli);
  const fixtures = join(__dirname, '..', 'fixtures', 'runs');

  it('captures an abort on a runtime thread with no Python frame: thread name, tid, native frames', () => {
    const work = tempDir('hr-abort-');
    const lib = join(work, 'libnative_abort.so');
    const cc = spawnSync('cc', ['-shared', '-fPIC', '-o', lib, join(fixtures, 'native_abort.c'), '-lpthread'], { encoding: 'utf8' });
    expect(cc.status, cc.stderr).toBe(0);
    const r = cli(['repro', 'run', 'script', '--target', 'local', '--variant', 'as-is', '--json', '--python', python!,
      '--store', join(work, 'store'), '--', join(fixtures, 'abort_on_runtime_thread.py'), lib]);
    const run = JSON.parse(r.stdout) as RunRecord;
    const cell = run.cells[0]!;
    expect(cell.outcome).toBe('abort');
    expect(cell.evidence.join('\n')).toMatch(/rank 0 was killed by SIGABRT/);
    expect(cell.backtrace).toMatch(/abort\(\) pid=\d+ tid=\d+ main=no thread=rt-callback python=no/);
    expect(cell.backtrace).toContain('libnative_abort.so');
  }, 120000);

  it('classifies an escaped OutOfMemoryError as catchable-oom and triages its message', () => {
    const store = tempDir('hr-runs-');
    const r = cli(['repro', 'run', 'script', '--target', 'local', '--variant', 'as-is', '--json', '--python', python!,
      '--store', store, '--', join(fixtures, 'raises_oom.py')]);
    const cell = (JSON.parse(r.stdout) as RunRecord).cells[0]!;
    expect(cell.outcome).toBe('catchable-oom');
    expect(cell.stacks['0']).toMatch(/raises_oom\.py", line \d+, in step/);
    expect(cell.evidence.join('\n')).toMatch(/rank 0 triage: (catchable-oom|fragmentation): .*2\.00 GiB requested/);
  }, 120000);
});

describe.skipIf(python === undefined)('global-mode-race, generic form, on CPU (seed 003)', () => {
  beforeAll(ensureCli);

  it('reproduces the race with the user callables and shows the lock fixing it; the CUDA form says it needs a GPU', () => {
    const store = tempDir('hr-runs-');
    const fixtures = join(__dirname, '..', 'fixtures', 'runs');
    const r = spawnSync(
      process.execPath,
      [cliPath, 'repro', 'run', 'global-mode-race', '--target', 'local', '--variant', 'no-lock', '--variant', 'process-lock', '--json',
        '--python', python!, '--store', store, '--', '--seconds', '1', '--graph-call', 'global_flag_runtime:graph_call', '--allocation', 'global_flag_runtime:upload'],
      { encoding: 'utf8', cwd: fixtures, timeout: 120_000 },
    );
    const run = JSON.parse(r.stdout) as RunRecord;
    const [race, locked] = run.cells;
    expect(race).toMatchObject({ variant: 'no-lock', outcome: 'catchable-oom' });
    expect(race!.metrics['allocationsFailed']).toBeGreaterThan(0);
    expect(race!.evidence.join('\n')).toContain('on DRAM_SHARED (capacity: 0)');
    expect(locked).toMatchObject({ variant: 'process-lock', outcome: 'completed' });
    expect(locked!.metrics['allocationsFailed']).toBe(0);
    expect(locked!.metrics['allocationsOk']).toBeGreaterThan(0);

    const cuda = JSON.parse(cli(['repro', 'run', 'global-mode-race', '--target', 'local', '--variant', 'no-lock', '--json', '--python', python!, '--store', store]).stdout) as RunRecord;
    expect(cuda.cells[0]!.outcome).toBe('error');
    expect(cuda.cells[0]!.evidence.join('\n')).toMatch(/needs a GPU: the CUDA analogue races graph capture against cudaMalloc/);
  }, 180000);
});
