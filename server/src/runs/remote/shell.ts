/**
 * A place to run POSIX `sh` scripts: this machine (`LocalShell`) or an SSH host (`SshTransport` in
 * ./ssh.ts). The detached-process, upload and Slurm helpers work on either, so the Slurm target runs
 * the same way on a login node the server is on and on one it reaches over SSH.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable } from 'node:stream';
import { RemoteError } from './errors';

export interface ExecOptions {
  /** Bytes for the script's stdin, or a stream piped into it (e.g. a tar archive). */
  stdin?: Buffer | string | Readable;
  /** Kill the command (and report `HR_REMOTE_TIMEOUT`) after this long. Default 60 s. */
  timeoutMs?: number;
}

export interface ExecResult {
  /** The script's exit status. */
  code: number;
  stdout: Buffer;
  stderr: string;
}

export interface Shell {
  /** Where scripts run, for messages: `local`, `ssh:HOST`. */
  readonly label: string;
  /**
   * Runs a POSIX sh script. Resolves with its exit status whatever it is; rejects only when the
   * script could not be run or finished (`HR_SSH_CONNECT` for a failed or dropped link,
   * `HR_REMOTE_TIMEOUT`).
   */
  exec(script: string, options?: ExecOptions): Promise<ExecResult>;
  /**
   * Starts a long-lived script whose stdout the caller reads as it comes (following a run). For
   * ssh, exit status 255 of the child means the link failed or dropped.
   */
  start(script: string): ChildProcessWithoutNullStreams;
}

/** Runs `script` and returns its stdout as text; a non-zero exit becomes `HR_REMOTE_COMMAND`. */
export async function run(shell: Shell, script: string, options?: ExecOptions): Promise<string> {
  const result = await shell.exec(script, options);
  if (result.code !== 0) {
    const detail = result.stderr.trim() || result.stdout.toString('utf8').trim() || '(no output)';
    throw new RemoteError('HR_REMOTE_COMMAND', `${shell.label}: command failed with exit status ${result.code}: ${detail}`);
  }
  return result.stdout.toString('utf8');
}

/**
 * Spawns `file args`, feeds stdin, collects stdout and stderr, enforces the timeout. `onExit` maps
 * the exit status to a rejection when it means the transport failed (ssh's 255).
 */
export function spawnCollect(
  file: string,
  args: readonly string[],
  options: ExecOptions & { label: string; failure?: (code: number, stderr: string) => RemoteError | undefined },
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timeoutMs = options.timeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    // A command that exits without reading all of its stdin closes the pipe: not an error here.
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new RemoteError('HR_REMOTE_COMMAND', `${options.label}: cannot run ${file}: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8');
      if (timedOut) {
        reject(new RemoteError('HR_REMOTE_TIMEOUT', `${options.label}: no answer within ${timeoutMs} ms`));
        return;
      }
      const status = code ?? 128 + (signal === 'SIGKILL' ? 9 : 15);
      const failure = options.failure?.(status, stderr);
      if (failure) reject(failure);
      else resolve({ code: status, stdout: Buffer.concat(out), stderr });
    });
    const stdin = options.stdin;
    if (stdin === undefined) child.stdin.end();
    else if (typeof stdin === 'string' || Buffer.isBuffer(stdin)) child.stdin.end(stdin);
    else stdin.pipe(child.stdin);
  });
}

/** This machine's `/bin/sh`, with the server's environment. */
export class LocalShell implements Shell {
  readonly label = 'local';

  exec(script: string, options: ExecOptions = {}): Promise<ExecResult> {
    return spawnCollect('/bin/sh', ['-c', script], { ...options, label: this.label });
  }

  start(script: string): ChildProcessWithoutNullStreams {
    return spawn('/bin/sh', ['-c', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  }
}
