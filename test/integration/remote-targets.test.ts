/**
 * The proof of the remote targets, all real: Debian's sshd on 127.0.0.1 and a single-node Slurm
 * (scripts/start-test-hosts.sh), CPU PyTorch with gloo. rank-divergent-allocation hangs (naive) and
 * completes (synchronized) through ssh and through Slurm; a cut SSH link leaves the run interrupted
 * with what arrived, and re-attach collects the rest; cancel leaves no process and no job.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CellResult, RunRecord, RunState } from '../../server/src/protocol';
import { normalizeTargetOptions } from '../../server/src/runs/remote/config';
import { reattachRun } from '../../server/src/runs/remote/reattach';
import { jobIds } from '../../server/src/runs/remote/slurm';
import { LocalShell } from '../../server/src/runs/remote/shell';
import { RunManager, type RunListener } from '../../server/src/runs/runner';
import { RunStore } from '../../server/src/runs/store';
import { SlurmTarget } from '../../server/src/runs/targets/slurm';
import { SshTarget } from '../../server/src/runs/targets/ssh';
import type { Target } from '../../server/src/runs/targets/target';
import { hostsUnavailable, masterPid, sshdServing, startTestHosts, type TestHosts } from './remote-hosts';
import { cliPath, ensureCli, processesMentioning, torchPython, waitFor } from './runs-helpers';
import { tempDir } from '../support/tempDir';

const python = torchPython();
const skip = hostsUnavailable() ?? (python === undefined ? 'no Python with CPU PyTorch (Debian python3-torch)' : undefined);
const PROBE = 'rank-divergent-allocation';

interface Recorder extends RunListener {
  states: RunState[];
}
function recorder(): Recorder {
  const states: RunState[] = [];
  return { states, progress: (_id, s) => void states.push(s), output: () => undefined };
}

function expectHangAndFix(run: RunRecord): void {
  const cell = (v: string): CellResult => run.cells.find((c) => c.variant === v)!;
  const naive = cell('naive');
  expect(naive.outcome).toBe('hang');
  expect(Object.keys(naive.stacks).sort()).toEqual(['0', '1']);
  for (const stack of Object.values(naive.stacks)) expect(stack).toContain('rank_divergent_allocation.py');
  expect(naive.divergingRank).toBe(1);
  expect(cell('synchronized').outcome).toBe('completed');
  // Logs were copied back and point at the local copies.
  for (const c of run.cells) for (const log of Object.values(c.logs)) expect(existsSync(log)).toBe(true);
}

describe.skipIf(skip !== undefined)('remote targets on real sshd and Slurm (CPU gloo)', () => {
  let hosts: TestHosts;
  let env: NodeJS.ProcessEnv;
  let sbatchEnv: NodeJS.ProcessEnv;
  const store = tempDir('hr-remote-runs-');
  const sshTarget = (): SshTarget => new SshTarget(hosts.sshHost, normalizeTargetOptions({ sshConfig: hosts.sshConfig }));
  const manager = (target: Target): RunManager => new RunManager(new RunStore(store), () => target);
  const cli = (args: string[], withEnv: NodeJS.ProcessEnv = env) => {
    const r = spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', timeout: 240_000, env: withEnv });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  beforeAll(() => {
    hosts = startTestHosts();
    ensureCli();
    const dir = tempDir('hr-targets-');
    const targets = join(dir, 'targets.json');
    writeFileSync(targets, JSON.stringify({ [`ssh:${hosts.sshHost}`]: { sshConfig: hosts.sshConfig }, [`slurm:${hosts.partition}`]: {} }));
    const sbatchTargets = join(dir, 'sbatch.json');
    writeFileSync(sbatchTargets, JSON.stringify({ [`slurm:${hosts.partition}`]: { mode: 'sbatch', time: '10:00' } }));
    env = { ...process.env, SLURM_CONF: hosts.slurmConf, HEADROOM_TARGETS_FILE: targets };
    sbatchEnv = { ...env, HEADROOM_TARGETS_FILE: sbatchTargets };
  }, 180_000);

  // The desync is recognized within seconds whatever the window; the window only has to outlast
  // `import torch`, which takes over 10 s on a loaded 2-core runner.
  const HANG_WINDOW_S = 30;
  const runArgs = (target: string) => [
    'repro', 'run', PROBE, '--target', target, '--variant', 'naive', '--variant', 'synchronized',
    '--hang-window', String(HANG_WINDOW_S), '--json', '--python', python!, '--store', store,
  ];

  it('ssh: naive hangs with both ranks stacked, synchronized completes (CLI --target ssh:HOST)', () => {
    const r = cli(runArgs(`ssh:${hosts.sshHost}`));
    expect(r.status, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as RunRecord;
    expect(Object.keys(run).slice(0, 5)).toEqual(['runId', 'probe', 'target', 'status', 'cells']);
    expect(run).toMatchObject({ probe: PROBE, target: `ssh:${hosts.sshHost}`, status: 'finished' });
    expect(run.environment).toMatchObject({ platform: 'cpu', python: python });
    expectHangAndFix(run);
    expect(processesMentioning(run.runId)).toEqual([]);
  }, 240_000);

  it('slurm (srun): the same matrix through an allocation; no job left (CLI --target slurm:PARTITION)', async () => {
    const r = cli(runArgs(`slurm:${hosts.partition}`));
    expect(r.status, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as RunRecord;
    expect(run).toMatchObject({ target: `slurm:${hosts.partition}`, status: 'finished' });
    expectHangAndFix(run);
    expect(await jobIds(new LocalShell(), `headroom-${run.runId}`)).toEqual([]);
  }, 240_000);

  it('slurm (sbatch): queued, runs, completes; job state afterwards', () => {
    const r = cli(
      ['repro', 'run', PROBE, '--target', `slurm:${hosts.partition}`, '--variant', 'synchronized', '--hang-window', String(HANG_WINDOW_S), '--json', '--python', python!, '--store', store],
      sbatchEnv,
    );
    expect(r.status, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as RunRecord;
    expect(run.cells.map((c) => c.outcome)).toEqual(['completed']);
    expect(readFileSync(join(store, run.runId, 'bundle', 'plan.json'), 'utf8')).toContain('"workDir"');
    const job = cli(['remote', 'job', run.runId, '--json', '--store', store], sbatchEnv);
    expect(job.status, job.stderr).toBe(0);
    expect(JSON.parse(job.stdout)).toMatchObject({ tag: 'ended', state: 'COMPLETED' });
  }, 240_000);

  it('ssh: a cut link leaves the run interrupted with what arrived; re-attach collects the finished result', async () => {
    const target = sshTarget();
    const listener = recorder();
    const handle = await manager(target).start(
      { probe: PROBE, target: target.id, variants: ['naive', 'synchronized'], python: python!, hangWindowSeconds: HANG_WINDOW_S },
      listener,
    );
    await waitFor('the first cell', () => listener.states.some((s) => s.tag === 'cell-finished'), 120_000);
    const master = masterPid(target.shell.baseArgs());
    expect(master).toBeGreaterThan(0);
    const serving = sshdServing(master!, hosts.sshPort);
    expect(serving.length).toBeGreaterThan(0);
    for (const pid of serving) process.kill(pid, 'SIGKILL');

    const interrupted = await handle.done;
    expect(interrupted.status).toBe('interrupted');
    expect(interrupted.message).toContain('lost the connection');
    expect(interrupted.cells.map((c) => `${c.variant}:${c.outcome}`)).toEqual(['naive:hang']);
    const mirror = join(store, handle.runId, 'remote', 'supervisor.out');
    const partialBytes = statSync(mirror).size;
    expect(partialBytes).toBeGreaterThan(0);

    const finished = await reattachRun(new RunStore(store), handle.runId, { targetFor: () => target });
    expect(finished.status).toBe('finished');
    expectHangAndFix(finished);
    expect(finished.cells).toHaveLength(2);
    expect(statSync(mirror).size).toBeGreaterThan(partialBytes);
    // The stored record says so too.
    expect(new RunStore(store).load(handle.runId).status).toBe('finished');
    await waitFor('no process of the run', () => processesMentioning(handle.runId).length === 0, 10_000);
  }, 240_000);

  it('ssh: cancel mid-hang leaves 0 processes on the host', async () => {
    const target = sshTarget();
    const listener = recorder();
    const handle = await manager(target).start(
      { probe: PROBE, target: target.id, variants: ['naive'], python: python!, hangWindowSeconds: 120 },
      listener,
    );
    // Both ranks and the supervisor are up (the ranks' environment names the run).
    await waitFor('the ranks', () => processesMentioning(handle.runId).length >= 3, 120_000);
    await handle.cancel();
    const run = await handle.done;
    expect(run.status).toBe('cancelled');
    await waitFor('no process of the run', () => processesMentioning(handle.runId).length === 0, 10_000);
  }, 240_000);

  it('slurm: job state while running, then cancel: 0 processes and no job in squeue', async () => {
    const target = new SlurmTarget(hosts.partition, normalizeTargetOptions({}));
    const listener = recorder();
    const handle = await manager(target).start(
      { probe: PROBE, target: target.id, variants: ['naive'], python: python!, hangWindowSeconds: 120 },
      listener,
    );
    await waitFor('the ranks', () => processesMentioning(handle.runId).length >= 3, 120_000);
    expect(await target.job(join(store, handle.runId))).toMatchObject({ tag: 'running' });
    await handle.cancel();
    expect((await handle.done).status).toBe('cancelled');
    expect(await jobIds(new LocalShell(), `headroom-${handle.runId}`)).toEqual([]);
    await waitFor('no process of the run', () => processesMentioning(handle.runId).length === 0, 10_000);
  }, 240_000);

  it('slurm through an SSH login node: srun runs over the ssh transport', async () => {
    const target = new SlurmTarget(hosts.partition, normalizeTargetOptions({ host: hosts.sshHost, sshConfig: hosts.sshConfig }));
    expect(target.shell.label).toBe(`ssh:${hosts.sshHost}`);
    const handle = await manager(target).start(
      { probe: PROBE, target: target.id, variants: ['synchronized'], python: python!, hangWindowSeconds: HANG_WINDOW_S },
      recorder(),
    );
    const run = await handle.done;
    expect(run.status, run.message).toBe('finished');
    expect(run.cells.map((c) => c.outcome)).toEqual(['completed']);
    expect(await jobIds(new LocalShell(), `headroom-${handle.runId}`)).toEqual([]);
  }, 240_000);

  it('slurm (sbatch): a queued run shows its queue position, and cancel removes the job', async () => {
    const shell = new LocalShell();
    // Fill the node (all 4 CPUs) so the run must wait.
    const blocker = spawnSync('sbatch', ['--parsable', `--partition=${hosts.partition}`, '--cpus-per-task=4', '--job-name=hr-blocker', '--wrap=sleep 120'], { encoding: 'utf8', env });
    expect(blocker.status, blocker.stderr).toBe(0);
    const blockerId = blocker.stdout.trim().split(';')[0]!;
    let runJob: string | undefined;
    try {
      // Once the blocker runs, the run below is the only pending job: position 1.
      await waitFor(
        'the blocker to run',
        () => spawnSync('squeue', ['-h', '-j', blockerId, '-o', '%T'], { encoding: 'utf8', env }).stdout.trim() === 'RUNNING' || undefined,
        60_000,
      );
      const target = new SlurmTarget(hosts.partition, normalizeTargetOptions({ mode: 'sbatch' }));
      const handle = await manager(target).start(
        { probe: PROBE, target: target.id, variants: ['synchronized'], python: python!, hangWindowSeconds: HANG_WINDOW_S },
        recorder(),
      );
      runJob = `headroom-${handle.runId}`;
      const state = await target.job(join(store, handle.runId));
      expect(state).toMatchObject({ tag: 'pending', queuePosition: 1 });
      await handle.cancel();
      expect((await handle.done).status).toBe('cancelled');
      expect(await jobIds(shell, `headroom-${handle.runId}`)).toEqual([]);
    } finally {
      // Nothing queued is left behind, even when an assertion above failed.
      spawnSync('scancel', [blockerId], { env });
      if (runJob !== undefined) spawnSync('scancel', [`--name=${runJob}`], { env });
    }
  }, 240_000);
});
