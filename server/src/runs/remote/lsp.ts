/**
 * The remote targets over LSP: "Test connection", the targets to offer, re-attach and cancel of
 * interrupted remote runs, and a Slurm run's job state and queue position. Runs themselves start
 * through `headroom/startRun` with `target: "ssh:HOST"` or `"slurm:PARTITION"` (runs/lsp.ts).
 */
import type { ServerContext } from '../../context';
import {
  CancelRemoteRunRequest,
  ListTargetsRequest,
  ReattachRunRequest,
  SlurmJobRequest,
  TestConnectionRequest,
} from '../../protocol';
import { bundleFor, findProbe } from '../catalog';
import { RunError } from '../errors';
import { defaultStoreRoot, RunStore } from '../store';
import { resolveTarget } from '../targets/index';
import { SlurmTarget } from '../targets/slurm';
import type { AttachableTarget } from '../targets/ssh';
import type { Target } from '../targets/target';
import { offeredTargets } from './config';
import { cancelDetachedRun, reattachRun } from './reattach';

export function register(ctx: ServerContext): void {
  const store = new RunStore(defaultStoreRoot());
  /** The `headroom.targets` setting of the first workspace folder (or the user's). */
  const configured = async (): Promise<Readonly<Record<string, unknown>>> =>
    (await ctx.settingsFor(ctx.workspaceFolders()[0] ?? '')).targets;
  const targetFor = async (): Promise<(id: string) => Target> => {
    const targets = await configured();
    return (id) => resolveTarget(id, targets);
  };

  ctx.connection.onRequest(ListTargetsRequest.type, async () => offeredTargets(await configured()));

  ctx.connection.onRequest(TestConnectionRequest.type, async ({ target }) => {
    if (!target.startsWith('ssh:') && !target.startsWith('slurm:')) {
      throw new RunError('HR_UNKNOWN_TARGET', `"${target}" is not a remote target (ssh:HOST or slurm:PARTITION)`);
    }
    const settings = await ctx.settingsFor(ctx.workspaceFolders()[0] ?? '');
    const remote = resolveTarget(target, settings.targets) as AttachableTarget;
    return ctx.track(`test connection ${target}`, () =>
      remote.testConnection(settings.python, bundleFor(findProbe('rank-divergent-allocation'))),
    );
  });

  ctx.connection.onRequest(ReattachRunRequest.type, async ({ runId }) => {
    const resolve = await targetFor();
    return ctx.track(`re-attach ${runId}`, () => reattachRun(store, runId, { targetFor: resolve }));
  });

  ctx.connection.onRequest(CancelRemoteRunRequest.type, async ({ runId }) => {
    const resolve = await targetFor();
    return ctx.track(`cancel ${runId}`, () => cancelDetachedRun(store, runId, resolve));
  });

  ctx.connection.onRequest(SlurmJobRequest.type, async ({ runId }) => {
    const record = store.load(runId);
    const target = (await targetFor())(record.target);
    if (!(target instanceof SlurmTarget)) throw new RunError('HR_RUN_ARGUMENT', `run ${runId} ran on ${record.target}, not on Slurm`);
    return target.job(store.runDir(runId));
  });
}
