/**
 * "Test connection": what a target host offers for runs. The harness's own preflight script (the
 * one the supervisor runs before a run's first cell) is fed to the host's interpreter on stdin, so
 * nothing is written on the host and the answer is exactly what a run would see.
 */
import type { ConnectionReport, TargetEnvironment } from '../../protocol';
import { RemoteError } from './errors';
import { command } from './quote';
import type { Shell } from './shell';

export type { ConnectionReport };

/**
 * Runs `preflightSource` with `python` (a path or a name on the host's PATH; never interpreted by a
 * shell) in `cwd` with `env`, and returns the typed description.
 */
export async function testConnection(
  shell: Shell,
  options: {
    python: string;
    preflightSource: string;
    cwd?: string;
    env?: Readonly<Record<string, string>>;
    /** Words that start the interpreter elsewhere, e.g. `srun ... --` to ask a compute node. */
    launcher?: readonly string[];
    /** The label of the report, when it is not the shell's (e.g. `slurm:gpu`). */
    target?: string;
  },
): Promise<ConnectionReport> {
  const started = Date.now();
  const env = Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`);
  const words = [...(options.launcher ?? []), ...(env.length > 0 ? ['env', ...env] : []), options.python, '-'];
  const cd = options.cwd !== undefined ? `cd -- ${command([options.cwd])} || exit 3\n` : '';
  const result = await shell.exec(`${cd}exec ${command(words)}`, { stdin: options.preflightSource, timeoutMs: 120_000 });
  const stdout = result.stdout.toString('utf8').trim();
  if (result.code !== 0) {
    const detail = result.code === 127 ? `python interpreter "${options.python}" not found` : result.stderr.trim() || stdout;
    throw new RemoteError('HR_REMOTE_COMMAND', `${shell.label}: test connection failed (exit ${result.code}): ${detail}`);
  }
  const lastLine = stdout.split('\n').pop() ?? '';
  let parsed: TargetEnvironment & { torchError?: string };
  try {
    parsed = JSON.parse(lastLine) as TargetEnvironment & { torchError?: string };
  } catch {
    throw new RemoteError('HR_REMOTE_PROTOCOL', `${shell.label}: test connection printed no JSON: ${stdout.slice(0, 200)}`);
  }
  if (typeof parsed.pythonVersion !== 'string' || !Array.isArray(parsed.devices)) {
    throw new RemoteError('HR_REMOTE_PROTOCOL', `${shell.label}: test connection answer lacks python or devices`);
  }
  const { torchError, ...environment } = parsed;
  return {
    target: options.target ?? shell.label,
    seconds: (Date.now() - started) / 1000,
    environment,
    ...(torchError !== undefined && { torchError }),
  };
}
