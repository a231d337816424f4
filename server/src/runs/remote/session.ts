/**
 * A run on a remote machine (an SSH host, or a Slurm allocation reached from a login node), shared
 * by the ssh and slurm targets: stage and upload the bundle, start the supervisor through a
 * launcher, follow its stdout and stderr by byte offset, bring each finished cell's directory back,
 * and end cleanly on cancel or on a dropped link.
 *
 * Local layout, in the run's directory of the store:
 *   bundle/          what was uploaded (harness, probe, shim source, plan.json with host paths)
 *   remote.json      where the run lives on the host (target id, remote directory, job name)
 *   remote/supervisor.out, remote/supervisor.err   byte-exact mirrors of the host's files
 *   work/cells/V.N/  each finished cell's directory, copied back, paths in result.json made local
 * The mirrors' sizes are the offsets: after a dropped link or a server restart, re-attach follows
 * from exactly where the last stored byte ended.
 */
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { CellResult } from '../../protocol';
import { writeFileAtomic } from '../store';
import { EventLineReader, type SessionEnd, type StartOptions, type SupervisorEvent, type TargetSession } from '../targets/target';
import { download, kill, makeDirectory, tail, upload } from './detached';
import { RemoteError } from './errors';
import { quote } from './quote';
import { run, type Shell } from './shell';

export const SUPERVISOR = 'supervisor';
const STDERR_TAIL_CHARS = 4000;
const CELL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** What `remote.json` holds. */
export interface RemoteRunInfo {
  /** `ssh:HOST` or `slurm:PARTITION`. */
  target: string;
  /** The run's directory on the host, absolute. */
  remoteDir: string;
  /** The Slurm job name, for slurm runs. */
  jobName?: string;
}

/** What differs between the ssh and slurm targets. */
export interface RemoteDriver {
  readonly shell: Shell;
  /** Starts `argv` in the run directory, detached on the host or in an allocation. */
  launch(info: RemoteRunInfo, argv: string[]): Promise<void>;
  /** A shell test, run in the run directory, that succeeds while the supervisor runs or is queued. */
  aliveTest(info: RemoteRunInfo): string;
  /** Kills the supervisor and every rank process of the run (and its Slurm job). */
  kill(info: RemoteRunInfo): Promise<void>;
}

export interface RemoteStartOptions extends StartOptions {
  target: string;
  /** Parent of the per-run directories on the host (relative paths are relative to the login directory). */
  remoteRoot: string;
  jobName?: string;
}

function mirrorFile(localRunDir: string, name: 'out' | 'err'): string {
  return path.join(localRunDir, 'remote', `${SUPERVISOR}.${name}`);
}

function sizeOf(file: string): number {
  return existsSync(file) ? statSync(file).size : 0;
}

export function readRemoteInfo(localRunDir: string): RemoteRunInfo | undefined {
  const file = path.join(localRunDir, 'remote.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as RemoteRunInfo;
}

/** Copies the bundle into `<localRunDir>/bundle` with plan.json pointing at the host's copies. */
function stage(options: RemoteStartOptions, remoteDir: string): string {
  const { plan, bundle, localRunDir } = options;
  const staging = path.join(localRunDir, 'bundle');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  for (const name of readdirSync(bundle.harnessDir)) {
    if (name.endsWith('.py')) copyFileSync(path.join(bundle.harnessDir, name), path.join(staging, name));
  }
  const probeName = path.basename(bundle.probeFile);
  copyFileSync(bundle.probeFile, path.join(staging, probeName));
  const shimName = path.basename(bundle.shimSource);
  if (existsSync(bundle.shimSource)) copyFileSync(bundle.shimSource, path.join(staging, shimName));
  const hostBundle = `${remoteDir}/bundle`;
  const hostPlan = {
    ...plan,
    workDir: `${remoteDir}/work`,
    probeFile: `${hostBundle}/${probeName}`,
    shimSource: `${hostBundle}/${shimName}`,
    // The supervisor's parent on the host is the launcher's wrapper (or srun), not the server.
    dieWithParent: false,
  };
  writeFileAtomic(path.join(staging, 'plan.json'), JSON.stringify(hostPlan, null, 1));
  return staging;
}

/** Uploads the bundle, starts the supervisor through the driver, and follows it. */
export async function startRemoteRun(driver: RemoteDriver, options: RemoteStartOptions): Promise<TargetSession> {
  const remoteDir = await makeDirectory(driver.shell, `${options.remoteRoot}/${options.plan.runId}`);
  const info: RemoteRunInfo = { target: options.target, remoteDir, ...(options.jobName !== undefined && { jobName: options.jobName }) };
  const staging = stage(options, remoteDir);
  await upload(driver.shell, staging, `${remoteDir}/bundle`);
  mkdirSync(path.join(options.localRunDir, 'remote'), { recursive: true });
  writeFileAtomic(path.join(options.localRunDir, 'remote.json'), JSON.stringify(info, null, 1));
  // Absolute paths: `ps` on the host then shows which run a process belongs to.
  await driver.launch(info, [options.plan.python, `${remoteDir}/bundle/supervisor.py`, `${remoteDir}/bundle/plan.json`]);
  return follow(driver, info, options.localRunDir, options.onEvent);
}

/** Rewrites the host paths of a cell (its rank logs) to the local copies under `localRunDir/work`. */
function localizeCell(cell: CellResult, info: RemoteRunInfo, localRunDir: string): CellResult {
  const hostWork = `${info.remoteDir}/work/`;
  const localWork = path.join(localRunDir, 'work') + path.sep;
  const logs: Record<string, string> = {};
  for (const [rank, file] of Object.entries(cell.logs)) logs[rank] = file.startsWith(hostWork) ? localWork + file.slice(hostWork.length) : file;
  return { ...cell, logs };
}

/** Copies a finished cell's directory back and stores its result with local paths. */
async function fetchCell(shell: Shell, cell: CellResult, info: RemoteRunInfo, localRunDir: string): Promise<CellResult> {
  const name = `${cell.variant}.${cell.repeat}`;
  if (!CELL_NAME.test(name)) throw new RemoteError('HR_REMOTE_PROTOCOL', `the supervisor reported a cell named "${name}"`);
  const localCell = path.join(localRunDir, 'work', 'cells', name);
  mkdirSync(localCell, { recursive: true });
  await download(shell, `${info.remoteDir}/work/cells/${name}`, localCell);
  const local = localizeCell(cell, info, localRunDir);
  writeFileAtomic(path.join(localCell, 'result.json'), JSON.stringify(local, null, 1));
  return local;
}

/**
 * Follows a running supervisor from the mirrors' current sizes until it ends, is cancelled, or the
 * link drops. Events reach `onEvent` in order; a `cell` event only after its directory was copied.
 */
export function follow(
  driver: RemoteDriver,
  info: RemoteRunInfo,
  localRunDir: string,
  onEvent: (event: SupervisorEvent) => void,
): TargetSession {
  mkdirSync(path.join(localRunDir, 'remote'), { recursive: true });
  const outName = `${SUPERVISOR}.out`;
  const errName = `${SUPERVISOR}.err`;
  const outFile = mirrorFile(localRunDir, 'out');
  const errFile = mirrorFile(localRunDir, 'err');
  const decoder = new StringDecoder('utf8');
  const pending: SupervisorEvent[] = [];
  const reader = new EventLineReader((event) => pending.push(event));
  let cancelled = false;

  const deliver = async (): Promise<void> => {
    while (pending.length > 0) {
      const event = pending.shift()!;
      if (event.type === 'cell') onEvent({ type: 'cell', cell: await fetchCell(driver.shell, event.cell, info, localRunDir) });
      else onEvent(event);
    }
  };

  const following = tail(
    driver.shell,
    info.remoteDir,
    SUPERVISOR,
    { [outName]: sizeOf(outFile), [errName]: sizeOf(errFile) },
    async (file, bytes) => {
      // Stored first, then parsed: a crash in between re-reads nothing and loses nothing.
      if (file === errName) {
        appendFileSync(errFile, bytes);
        return;
      }
      appendFileSync(outFile, bytes);
      reader.push(decoder.write(bytes));
      await deliver();
    },
    { aliveTest: driver.aliveTest(info) },
  );

  const stderrTail = (): string => (existsSync(errFile) ? readFileSync(errFile, 'utf8').slice(-STDERR_TAIL_CHARS) : '');

  const ended = following.done.then(
    async (end): Promise<SessionEnd> => {
      reader.push(decoder.end() + '\n');
      await deliver();
      return { cancelled, code: end.exitCode, signal: null, stderrTail: stderrTail() };
    },
    (err: unknown): SessionEnd => {
      const message = err instanceof Error ? err.message : String(err);
      const lost =
        err instanceof RemoteError && err.code === 'HR_SSH_CONNECT'
          ? `lost the connection (${message}); the run goes on on the host: re-attach to collect the rest`
          : `stopped following the run: ${message}`;
      return { cancelled, code: null, signal: null, stderrTail: `${stderrTail()}\n${lost}` };
    },
  );

  return {
    ended,
    async cancel() {
      cancelled = true;
      await driver.kill(info);
      await ended;
    },
  };
}

/**
 * Kills the supervisor's process group, then every cell's process group it recorded (ranks run in
 * groups of their own), and resolves with how many processes of those groups are still alive.
 */
export async function killRunProcesses(shell: Shell, info: RemoteRunInfo): Promise<number> {
  const supervisorLeft = await kill(shell, info.remoteDir, SUPERVISOR);
  // pgid.json is {"pgid": N}: its digits are the group id.
  const script = [
    `cd -- ${quote(info.remoteDir)} || { echo 0; exit 0; }`,
    'groups=""',
    'for f in work/cells/*/pgid.json; do',
    '  [ -f "$f" ] || continue',
    '  g=$(tr -cd 0-9 < "$f")',
    '  [ -n "$g" ] && [ "$g" -gt 1 ] && groups="$groups $g" && kill -KILL -"$g" 2>/dev/null',
    'done',
    'n=0',
    'for g in $groups; do',
    '  i=0; while kill -0 -"$g" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i+1)); done',
    '  kill -0 -"$g" 2>/dev/null && n=$((n+1))',
    'done',
    'echo $n',
  ].join('\n');
  const cellsLeft = Number.parseInt((await run(shell, script)).trim(), 10) || 0;
  return supervisorLeft + cellsLeft;
}
