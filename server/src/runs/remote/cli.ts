/**
 * `headroom remote`: the remote targets from the command line.
 *
 *   headroom remote targets [--json]                          targets to offer (local, the targets file, ~/.ssh/config)
 *   headroom remote hosts [--ssh-config FILE] [--json]        hosts from an ssh config
 *   headroom remote test TARGET [--python PY] [--json]        "test connection" (ssh:HOST, slurm:PARTITION)
 *   headroom remote attach RUN-ID [--store DIR] [--json]      follow an interrupted run to its end
 *   headroom remote cancel RUN-ID [--store DIR] [--json]      kill a detached run on its host
 *   headroom remote job RUN-ID [--store DIR] [--json]         a Slurm run's job state and queue position
 *
 * Runs themselves start with `headroom repro run PROBE --target ssh:HOST|slurm:PARTITION`; per-target
 * options come from the targets file (see docs/TARGETS.md).
 */
import { parseArgs } from 'node:util';
import type { RunRecord } from '../../protocol';
import { renderRun } from '../cli';
import { bundleFor, findProbe } from '../catalog';
import { RunError } from '../errors';
import { defaultStoreRoot, RunStore } from '../store';
import { resolveTarget } from '../targets/index';
import { SlurmTarget } from '../targets/slurm';
import type { AttachableTarget } from '../targets/ssh';
import { offeredTargets } from './config';
import { listSshHosts } from './hosts';
import { cancelDetachedRun, reattachRun } from './reattach';

function json(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

function remoteTarget(id: string): AttachableTarget {
  if (!id.startsWith('ssh:') && !id.startsWith('slurm:')) {
    throw new RunError('HR_UNKNOWN_TARGET', `"${id}" is not a remote target (ssh:HOST or slurm:PARTITION)`);
  }
  return resolveTarget(id) as AttachableTarget;
}

function exitFor(run: RunRecord): number {
  return run.status === 'finished' ? 0 : run.status === 'cancelled' ? 130 : 1;
}

/** `headroom remote ...` */
export async function remoteCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      store: { type: 'string' },
      python: { type: 'string' },
      'ssh-config': { type: 'string' },
    },
  });
  const store = (): RunStore => new RunStore(values.store ?? defaultStoreRoot());
  const one = (what: string): string => {
    if (positionals.length !== 1) throw new RunError('HR_RUN_ARGUMENT', `headroom remote ${sub}: expected one ${what}`);
    return positionals[0]!;
  };
  switch (sub) {
    case 'targets': {
      const targets = offeredTargets();
      if (values.json) json(targets);
      else process.stdout.write(targets.map((t) => `${t}\n`).join(''));
      return 0;
    }
    case 'hosts': {
      const hosts = listSshHosts(values['ssh-config']);
      if (values.json) json(hosts);
      else process.stdout.write(hosts.map((h) => `ssh:${h}\n`).join(''));
      return 0;
    }
    case 'test': {
      const target = remoteTarget(one('target'));
      // Any probe's bundle carries the harness's preflight script.
      const report = await target.testConnection(values.python ?? process.env['HEADROOM_PYTHON'] ?? 'python3', bundleFor(findProbe('rank-divergent-allocation')));
      if (values.json) json(report);
      else {
        const e = report.environment;
        process.stdout.write(
          `${report.target} (${e.hostname}, ${report.seconds.toFixed(1)} s): Python ${e.pythonVersion} at ${e.python}, ` +
            `torch ${e.torchVersion ?? `absent (${report.torchError ?? 'not importable'})`}, ${e.platform}, ${e.devices.length} device(s)` +
            `${e.devices.map((d) => `\n  ${d.name}`).join('')}\n  backends: ${e.distributedBackends.join(', ') || 'none'}\n` +
            `  C compiler: ${e.compiler ?? 'none (Python faulthandler only, no preload shim)'}\n`,
        );
      }
      return 0;
    }
    case 'attach':
    case 'cancel': {
      const runId = one('run id');
      const run =
        sub === 'attach'
          ? await reattachRun(store(), runId, {
              onCell: (r) => values.json || process.stderr.write(`  [${r.cells.length}] ${r.cells.at(-1)!.variant} #${r.cells.at(-1)!.repeat}: ${r.cells.at(-1)!.outcome}\n`),
            })
          : await cancelDetachedRun(store(), runId);
      if (values.json) json(run);
      else process.stdout.write(renderRun(run));
      return exitFor(run);
    }
    case 'job': {
      const runId = one('run id');
      const s = store();
      const record = s.load(runId);
      const target = resolveTarget(record.target);
      if (!(target instanceof SlurmTarget)) throw new RunError('HR_RUN_ARGUMENT', `run ${runId} ran on ${record.target}, not on Slurm`);
      const state = await target.job(s.runDir(runId));
      if (values.json) json(state);
      else {
        const text =
          state.tag === 'pending'
            ? `job ${state.jobId} pending (${state.reason})${state.queuePosition !== null ? `, position ${state.queuePosition} in the queue` : ''}`
            : state.tag === 'running'
              ? `job ${state.jobId} running on ${state.node}`
              : state.tag === 'ended'
                ? `job ${state.jobId} ended: ${state.state}`
                : 'no such job in squeue or scontrol (ended a while ago)';
        process.stdout.write(`${text}\n`);
      }
      return 0;
    }
    default:
      process.stderr.write('headroom remote: expected targets, hosts, test, attach, cancel or job.\n');
      return 2;
  }
}
