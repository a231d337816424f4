/**
 * Per-target options of the remote targets (interpreter, environment, working directory, Slurm
 * allocation), keyed by target id (`ssh:gpu-box`, `slurm:gpu`). They come from a JSON file that
 * the CLI and the server both read, `$HEADROOM_TARGETS_FILE`, else
 * `$XDG_CONFIG_HOME/headroom/targets.json` (`~/.config/headroom/targets.json`), and in the editor
 * also from the `headroom.targets` setting, whose keys win. A missing file means defaults. Normalized here, in one place, without throwing: wrong types fall back to defaults;
 * strings are kept as written (they are quoted wherever they reach a shell).
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { listSshHosts } from './hosts';

export interface RemoteTargetOptions {
  /** The interpreter on the host (default: the run's `python`, i.e. the `headroom.python` setting). */
  python?: string;
  /** Extra environment for the supervisor and every rank. */
  env: Record<string, string>;
  /** Working directory of the ranks on the host (default: each cell's directory). */
  cwd?: string;
  /** Parent of the per-run directories on the host; relative to the login directory. */
  remoteRoot: string;
  /** ssh: an ssh_config file for `ssh -F` (default: the user's ~/.ssh/config). */
  sshConfig?: string;
  /** slurm: the login node to reach over SSH (default: this machine is the login node). */
  host?: string;
  /** slurm: `srun` (interactive) or `sbatch` (queued). */
  mode: 'srun' | 'sbatch';
  gres?: string;
  time?: string;
  account?: string;
}

export const DEFAULT_REMOTE_ROOT = '.cache/headroom/runs';

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** Normalizes one target's raw options (anything JSON can hold). */
export function normalizeTargetOptions(raw: unknown): RemoteTargetOptions {
  const o = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const env: Record<string, string> = {};
  if (typeof o['env'] === 'object' && o['env'] !== null) {
    for (const [k, v] of Object.entries(o['env'] as Record<string, unknown>)) if (typeof v === 'string') env[k] = v;
  }
  const pick = (key: string): Partial<Record<string, string>> => {
    const v = str(o[key]);
    return v === undefined ? {} : { [key]: v };
  };
  return {
    env,
    remoteRoot: str(o['remoteRoot']) ?? DEFAULT_REMOTE_ROOT,
    mode: o['mode'] === 'sbatch' ? 'sbatch' : 'srun',
    ...pick('python'),
    ...pick('cwd'),
    ...pick('sshConfig'),
    ...pick('host'),
    ...pick('gres'),
    ...pick('time'),
    ...pick('account'),
  };
}

export function targetsFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env['HEADROOM_TARGETS_FILE']) return env['HEADROOM_TARGETS_FILE'];
  const config = env['XDG_CONFIG_HOME'] || path.join(homedir(), '.config');
  return path.join(config, 'headroom', 'targets.json');
}

/** Every entry of the targets file, raw; an absent or unreadable file gives none. */
function readTargetsFile(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const file = targetsFile(env);
  if (!existsSync(file)) return {};
  try {
    const all: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof all === 'object' && all !== null && !Array.isArray(all) ? (all as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function entry(all: Readonly<Record<string, unknown>>, id: string): Record<string, unknown> {
  const value = all[id];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * The options of target `id`: its entry in the targets file, with the keys of its entry in the
 * `headroom.targets` setting (`configured`) on top. Defaults for whatever neither gives.
 */
export function targetOptionsFor(
  id: string,
  configured: Readonly<Record<string, unknown>> = {},
  env: NodeJS.ProcessEnv = process.env,
): RemoteTargetOptions {
  return normalizeTargetOptions({ ...entry(readTargetsFile(env), id), ...entry(configured, id) });
}

/**
 * The targets to offer in a picker: `local`, the remote targets of the `headroom.targets` setting
 * and of the targets file, then `ssh:HOST` for each concrete host of ~/.ssh/config, without duplicates.
 */
export function offeredTargets(configured: Readonly<Record<string, unknown>> = {}, env: NodeJS.ProcessEnv = process.env): string[] {
  const ids = [...Object.keys(configured), ...Object.keys(readTargetsFile(env))].filter((id) => /^(ssh|slurm):./.test(id));
  return [...new Set(['local', ...ids, ...listSshHosts().map((host) => `ssh:${host}`)])];
}
