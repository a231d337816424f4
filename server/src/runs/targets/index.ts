/** Target ids -> targets. `local` here; the SSH and Slurm targets register their prefixes here too. */
import { RunError } from '../errors';
import { LocalTarget } from './local';
import type { Target } from './target';

export function resolveTarget(id: string): Target {
  if (id === 'local') return new LocalTarget();
  throw new RunError('HR_UNKNOWN_TARGET', `unknown target "${id}" (this version runs on "local")`);
}
