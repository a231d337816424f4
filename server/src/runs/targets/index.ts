/** Target ids -> targets. `local` here; the SSH and Slurm targets register their prefixes here too. */
import { RunError } from '../errors';
import { targetOptionsFor } from '../remote/config';
import { LocalTarget } from './local';
import { SlurmTarget } from './slurm';
import { SshTarget } from './ssh';
import type { Target } from './target';

/** `configured`: the `headroom.targets` setting (remote targets' options by id), when there is one. */
export function resolveTarget(id: string, configured: Readonly<Record<string, unknown>> = {}): Target {
  if (id === 'local') return new LocalTarget();
  // Remote targets take their options (interpreter, env, Slurm allocation) from the targets file and the setting.
  if (id.startsWith('ssh:') && id.length > 4) return new SshTarget(id.slice(4), targetOptionsFor(id, configured));
  if (id.startsWith('slurm:') && id.length > 6) return new SlurmTarget(id.slice(6), targetOptionsFor(id, configured));
  throw new RunError('HR_UNKNOWN_TARGET', `unknown target "${id}" (targets: local, ssh:HOST, slurm:PARTITION)`);
}
