/**
 * Slurm commands for the slurm target: argv builders for `srun` (interactive: the allocation lives
 * as long as the srun process) and `sbatch` (queued: a batch script in the run directory), and job
 * queries (`squeue`, `scontrol`) and cancel (`scancel`), all run through a `Shell` (the login node
 * the server is on, or one reached over SSH).
 *
 * Every option is passed in its `--name=value` form as one argv word, so a value can never turn into
 * another option, and every word is quoted when the argv becomes a command line. Jobs are named
 * `headroom-<runId>`, which is how a run finds its job again after a restart or a dropped link.
 */
import type { SlurmJobState } from '../../protocol';
import { RemoteError } from './errors';
import { command, quote } from './quote';
import { run, type Shell } from './shell';

export interface SlurmSettings {
  partition: string;
  /** Generic resources, e.g. `gpu:2` or `gpu:h100:8`. */
  gres?: string;
  /** Time limit in any Slurm form: `30`, `30:00`, `2:00:00`, `1-00:00:00`, `UNLIMITED`. */
  time?: string;
  account?: string;
  /** `srun` runs while the run is watched; `sbatch` queues the run and survives the server. */
  mode: 'srun' | 'sbatch';
}

export interface AllocationShape {
  /** The job name (`headroom-<runId>`). */
  jobName: string;
  /** CPUs the single task needs (the supervisor and its ranks run on one node). */
  cpusPerTask: number;
}

const TIME_FORMS = /^(UNLIMITED|INFINITE|\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d+|\d+-\d+:\d{1,2}|\d+-\d+:\d{1,2}:\d{1,2})$/i;

function setting(name: string, value: string | undefined, required: boolean): string | undefined {
  if (value === undefined || value.trim() === '') {
    if (required) throw new RemoteError('HR_SLURM_SETTING', `the Slurm ${name} is empty`);
    return undefined;
  }
  // Slurm names never hold control characters; a value with one is a paste accident.
  if (/[\0-\x1f\x7f]/.test(value)) throw new RemoteError('HR_SLURM_SETTING', `the Slurm ${name} holds a control character`);
  return value.trim();
}

/** Normalizes and checks the settings; throws `HR_SLURM_SETTING` with the setting's name. */
export function checkSlurmSettings(settings: SlurmSettings): SlurmSettings {
  const time = setting('time limit', settings.time, false);
  if (time !== undefined && !TIME_FORMS.test(time)) {
    throw new RemoteError('HR_SLURM_SETTING', `"${time}" is not a Slurm time limit (e.g. 30, 30:00, 2:00:00, 1-00:00:00)`);
  }
  const gres = setting('gres', settings.gres, false);
  const account = setting('account', settings.account, false);
  return {
    partition: setting('partition', settings.partition, true)!,
    mode: settings.mode === 'sbatch' ? 'sbatch' : 'srun',
    ...(gres !== undefined && { gres }),
    ...(time !== undefined && { time }),
    ...(account !== undefined && { account }),
  };
}

/** The allocation options shared by srun and sbatch, one `--name=value` word each. */
export function allocationArgs(settings: SlurmSettings, shape: AllocationShape): string[] {
  const s = checkSlurmSettings(settings);
  if (!Number.isInteger(shape.cpusPerTask) || shape.cpusPerTask < 1) throw new RangeError('cpusPerTask must be a positive integer');
  return [
    `--partition=${s.partition}`,
    ...(s.gres !== undefined ? [`--gres=${s.gres}`] : []),
    ...(s.time !== undefined ? [`--time=${s.time}`] : []),
    ...(s.account !== undefined ? [`--account=${s.account}`] : []),
    `--job-name=${shape.jobName}`,
    '--nodes=1',
    '--ntasks=1',
    `--cpus-per-task=${shape.cpusPerTask}`,
  ];
}

/** `srun ... -- argv`: the task runs `argv` on the allocated node; output comes back through srun. */
export function srunArgv(settings: SlurmSettings, shape: AllocationShape, argv: readonly string[]): string[] {
  return ['srun', ...allocationArgs(settings, shape), '--unbuffered', '--kill-on-bad-exit=1', '--', ...argv];
}

/** The batch script for `sbatch`: runs `argv` in `cwd`, its output in the file sbatch is given. */
export function batchScript(argv: readonly string[], cwd: string): string {
  return ['#!/bin/sh', '# Written by Headroom: one reproducer run.', `cd -- ${quote(cwd)} || exit 3`, `exec ${command(argv)}`, ''].join('\n');
}

/** `sbatch --parsable ... SCRIPT`: prints the job id; the job's stdout and stderr go to the two files. */
export function sbatchArgv(settings: SlurmSettings, shape: AllocationShape, scriptPath: string, outputFile: string, errorFile: string): string[] {
  return ['sbatch', '--parsable', ...allocationArgs(settings, shape), `--output=${outputFile}`, `--error=${errorFile}`, scriptPath];
}

/** Submits a batch script already on the host; returns the job id. */
export async function submit(shell: Shell, argv: readonly string[], cwd: string): Promise<string> {
  const out = await run(shell, `cd -- ${quote(cwd)} || exit 3\n${command(argv)}`);
  const jobId = out.trim().split(';')[0] ?? '';
  if (!/^\d+$/.test(jobId)) throw new RemoteError('HR_SLURM', `${shell.label}: sbatch printed no job id: ${out.trim()}`);
  return jobId;
}

export type JobState = SlurmJobState;

/**
 * A shell test that succeeds while squeue lists a job of this user called `jobName` (queued or
 * running). When squeue itself fails (slurmctld restarting, a timeout), the job counts as listed:
 * a run is never declared over because the controller was briefly unreachable.
 */
export function jobListedTest(jobName: string): string {
  return `{ j=$(squeue -h -u "$(id -un)" ${command([`--name=${jobName}`])} -o '%i' 2>/dev/null) || j=unreachable; [ -n "$j" ]; }`;
}

/** Job ids of this user's jobs called `jobName` that squeue still lists. */
export async function jobIds(shell: Shell, jobName: string): Promise<string[]> {
  const out = await run(shell, `squeue -h -u "$(id -un)" ${command([`--name=${jobName}`])} -o '%i'`);
  return out.split('\n').map((l) => l.trim()).filter((l) => /^\d+$/.test(l));
}

/**
 * The state of the job called `jobName`: pending (with its reason and position among the pending
 * jobs of its partition, highest priority first), running (with its node), ended (from
 * `scontrol`, which remembers a finished job for MinJobAge seconds), or unknown.
 */
export async function jobState(shell: Shell, jobName: string): Promise<JobState> {
  const out = await run(shell, `squeue -h -u "$(id -un)" ${command([`--name=${jobName}`])} -o '%i|%T|%r|%P|%N'`);
  const line = out.split('\n').find((l) => l.includes('|'));
  if (line === undefined) return endedState(shell, jobName);
  const [jobId = '', state = '', reason = '', partition = '', node = ''] = line.trim().split('|');
  if (state === 'PENDING') {
    const queue = await run(shell, `squeue -h -t PENDING ${command([`--partition=${partition}`])} --sort=-p,i -o '%i'`);
    const index = queue.split('\n').map((l) => l.trim()).indexOf(jobId);
    return { tag: 'pending', jobId, reason, queuePosition: index < 0 ? null : index + 1 };
  }
  if (state === 'RUNNING' || state === 'CONFIGURING' || state === 'COMPLETING') return { tag: 'running', jobId, node };
  return { tag: 'ended', jobId, state };
}

async function endedState(shell: Shell, jobName: string): Promise<JobState> {
  const result = await shell.exec(`scontrol -o show job 2>/dev/null | grep -F -- ${quote(`JobName=${jobName} `)} | tail -n 1`);
  const text = result.stdout.toString('utf8');
  const jobId = /JobId=(\d+)/.exec(text)?.[1];
  const state = /JobState=(\S+)/.exec(text)?.[1];
  return jobId !== undefined && state !== undefined ? { tag: 'ended', jobId, state } : { tag: 'unknown' };
}

/**
 * Cancels every job of this user called `jobName` and waits (up to `waitMs`) until squeue lists
 * none; resolves with the ids still listed (empty on success).
 */
export async function cancelJobs(shell: Shell, jobName: string, waitMs = 15_000): Promise<string[]> {
  await run(shell, `scancel -u "$(id -un)" ${command([`--name=${jobName}`])}`);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const left = await jobIds(shell, jobName);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 250));
  }
}
