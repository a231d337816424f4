/**
 * The local target: the machine the server runs on (over Remote-SSH, that is the GPU host).
 *
 * The supervisor runs as a child in its own session and process group, and asks the kernel to
 * signal it when the server dies (PR_SET_PDEATHSIG), so an editor crash does not leave GPU
 * processes behind; its ranks in turn die with it. Cancel sends SIGTERM (the supervisor kills the
 * running cell's process group), then SIGKILL to every group the run created.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { TargetEnvironment } from '../../protocol';
import { RunError } from '../errors';
import { writeFileAtomic } from '../store';
import { EventLineReader, type RunBundle, type SessionEnd, type StartOptions, type Target, type TargetSession } from './target';

const CANCEL_GRACE_MS = 3000;
const STDERR_TAIL_CHARS = 4000;

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already gone.
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Process groups of the run's cells, as the supervisor recorded them. */
function cellGroups(workDir: string): number[] {
  const cells = path.join(workDir, 'cells');
  if (!existsSync(cells)) return [];
  const groups: number[] = [];
  for (const name of readdirSync(cells)) {
    try {
      const { pgid } = JSON.parse(readFileSync(path.join(cells, name, 'pgid.json'), 'utf8')) as { pgid: number };
      if (Number.isInteger(pgid) && pgid > 1) groups.push(pgid);
    } catch {
      // No group recorded for this cell yet.
    }
  }
  return groups;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class LocalTarget implements Target {
  readonly id = 'local';

  describe(python: string, bundle: RunBundle): Promise<TargetEnvironment> {
    return new Promise((resolve, reject) => {
      const child = spawn(python, [path.join(bundle.harnessDir, 'preflight.py')], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      child.on('error', (e) => reject(new RunError('HR_RUN_START', `cannot run ${python}: ${e.message}`)));
      child.on('close', (code) => {
        try {
          resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as TargetEnvironment);
        } catch {
          reject(new RunError('HR_RUN_START', `${python} preflight failed (exit ${code}): ${err.trim().slice(-500)}`));
        }
      });
    });
  }

  async start({ plan, bundle, localRunDir, onEvent }: StartOptions): Promise<TargetSession> {
    const workDir = path.join(localRunDir, 'work');
    mkdirSync(workDir, { recursive: true });
    const planFile = path.join(localRunDir, 'plan.json');
    writeFileAtomic(
      planFile,
      JSON.stringify({ ...plan, workDir, probeFile: bundle.probeFile, shimSource: bundle.shimSource, dieWithParent: true }, null, 1),
    );
    const child = spawn(plan.python, [path.join(bundle.harnessDir, 'supervisor.py'), planFile], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: workDir,
      // The harness is imported from the installation; keep bytecode caches out of it.
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    const pid = await new Promise<number>((resolve, reject) => {
      child.once('spawn', () => resolve(child.pid!));
      child.once('error', (e) => reject(new RunError('HR_RUN_START', `cannot start ${plan.python}: ${e.message}`)));
    });
    const reader = new EventLineReader(onEvent);
    let stderrTail = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => reader.push(chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    let cancelled = false;
    const ended = new Promise<SessionEnd>((resolve) => {
      child.on('close', (code, signal) => {
        reader.push('\n');
        resolve({ cancelled, code, signal, stderrTail });
      });
    });
    return {
      ended,
      async cancel() {
        cancelled = true;
        killGroup(pid, 'SIGTERM');
        const deadline = Date.now() + CANCEL_GRACE_MS;
        while (groupAlive(pid) && Date.now() < deadline) await sleep(50);
        // Whatever is left (a supervisor stuck in a system call, ranks of any cell): kill outright.
        for (const group of [pid, ...cellGroups(workDir)]) killGroup(group, 'SIGKILL');
        await ended;
        // Ranks orphaned by the supervisor's death are reaped by init; wait (bounded) until they are.
        const reaped = Date.now() + CANCEL_GRACE_MS;
        for (const group of cellGroups(workDir)) {
          while (groupAlive(group) && Date.now() < reaped) await sleep(20);
        }
      },
    };
  }
}
