/**
 * Long-running commands on a host that outlive the connection that started them.
 *
 * A run lives in its own directory on the host. `launch` starts the command under `setsid nohup`
 * (a new session and process group, immune to the hang-up of the SSH session), with stdin from
 * /dev/null, stdout in `<name>.out` and stderr in `<name>.err`; a small fixed wrapper writes `<name>.pid` (the process
 * group id) before starting it and `<name>.exit` (its exit status) after. Nothing from the caller is
 * spliced into the wrapper's text: the name, directory and argv reach it as quoted positional
 * parameters.
 *
 * `tail` follows what is appended to the log files from given byte offsets, in one long-lived
 * session, until the command ends. The caller keeps the offsets with what it stored, so after a
 * dropped link a new session continues exactly where the last chunk ended: nothing is lost and
 * nothing is read twice. `kill` ends the whole process group.
 */
import { spawn } from 'node:child_process';
import { RemoteError } from './errors';
import { command, quote } from './quote';
import { run, type Shell } from './shell';

/** Names of files in a run directory: letters, digits, `.`, `_`, `-` (no slashes, no leading dot). */
function checkName(name: string): string {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(name)) {
    throw new RemoteError('HR_REMOTE_PROTOCOL', `"${name}" is not a valid run file name`);
  }
  return name;
}

/** Creates `dir` (and parents) on the host and returns its absolute path there. */
export async function makeDirectory(shell: Shell, dir: string): Promise<string> {
  const out = await run(shell, `mkdir -p -- ${quote(dir)} && cd -- ${quote(dir)} && pwd -P`);
  return out.trim();
}

/**
 * Copies the contents of the local directory `localDir` into `remoteDir` on the host (created if
 * needed), as one tar stream over the shell's stdin.
 */
export async function upload(shell: Shell, localDir: string, remoteDir: string): Promise<void> {
  const tar = spawn('tar', ['-cf', '-', '-C', localDir, '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let tarError = '';
  tar.stderr.on('data', (chunk: Buffer) => (tarError += chunk.toString('utf8')));
  const tarDone = new Promise<number>((resolveDone) => tar.on('close', (code) => resolveDone(code ?? 1)));
  await run(shell, `mkdir -p -- ${quote(remoteDir)} && tar -xf - -C ${quote(remoteDir)}`, {
    stdin: tar.stdout,
    timeoutMs: 300_000,
  });
  const tarCode = await tarDone;
  if (tarCode !== 0) throw new RemoteError('HR_REMOTE_COMMAND', `tar of ${localDir} failed: ${tarError.trim()}`);
}

export interface LaunchSpec {
  /** The run directory on the host (absolute, or relative to the login directory). */
  dir: string;
  /** Base name of the `.out`, `.err`, `.pid` and `.exit` files. */
  name: string;
  /** The command, one argv entry per word. */
  argv: readonly string[];
  /** Working directory of the command; default the run directory. */
  cwd?: string;
  /** Extra environment for the command. */
  env?: Readonly<Record<string, string>>;
}

/**
 * The fixed wrapper run under setsid: `$1` name, `$2` working directory, the rest the command.
 * `$$` is the session leader, so it is also the process group id that `kill` signals.
 */
const WRAPPER = [
  'n=$1; d=$2; shift 2',
  'echo $$ > "$n.pid.tmp" && mv -f "$n.pid.tmp" "$n.pid"',
  '(cd "$d" && exec "$@")',
  'echo $? > "$n.exit.tmp" && mv -f "$n.exit.tmp" "$n.exit"',
].join('\n');

/** Starts the command detached and returns its process group id on the host. */
export async function launch(shell: Shell, spec: LaunchSpec): Promise<number> {
  const name = checkName(spec.name);
  if (spec.argv.length === 0) throw new RangeError('launch needs a command');
  const env = Object.entries(spec.env ?? {});
  for (const [key] of env) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new RemoteError('HR_ENV_NAME', `"${key}" is not a valid environment variable name`);
  }
  const argv = env.length > 0 ? ['env', ...env.map(([k, v]) => `${k}=${v}`), ...spec.argv] : [...spec.argv];
  const script = [
    `cd -- ${quote(spec.dir)} || exit 3`,
    `rm -f -- ${quote(`${name}.pid`)} ${quote(`${name}.exit`)}`,
    `setsid nohup /bin/sh -c ${quote(WRAPPER)} headroom-run ${command([name, spec.cwd ?? '.', ...argv])}` +
      ` </dev/null >>${quote(`${name}.out`)} 2>>${quote(`${name}.err`)} &`,
    // Wait (at most ~10 s) for the wrapper to record its group id, then print it.
    'i=0',
    `while [ ! -s ${quote(`${name}.pid`)} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done`,
    `cat -- ${quote(`${name}.pid`)}`,
  ].join('\n');
  const out = await run(shell, script);
  const pgid = Number.parseInt(out.trim(), 10);
  if (!Number.isInteger(pgid) || pgid <= 1) {
    throw new RemoteError('HR_REMOTE_PROTOCOL', `${shell.label}: the detached command did not report its process group (got "${out.trim()}")`);
  }
  return pgid;
}

/** The shell test for "the command `name` launched is still running": any process of its group alive. */
export function groupAliveTest(name: string): string {
  const pid = quote(`${checkName(name)}.pid`);
  return `[ -s ${pid} ] && kill -0 -"$(cat ${pid})" 2>/dev/null`;
}

export interface TailOptions {
  /** A shell test that succeeds while the command runs; default: its process group is alive. */
  aliveTest?: string;
  /** Seconds between looks at the files on the host. Default 0.3. */
  intervalSeconds?: number;
}

export interface TailEnd {
  /** The command's exit status when it ended on its own; null when it was killed (or queued work vanished). */
  exitCode: number | null;
}

export interface TailHandle {
  /**
   * Resolves when the command has ended and every byte was delivered; rejects with
   * `HR_SSH_CONNECT` when the link dropped (what arrived was delivered, the command goes on).
   */
  readonly done: Promise<TailEnd>;
  /** Stops following (the command is not touched). */
  stop(): void;
}

/**
 * Follows files of a run directory from byte offsets, in one long-lived session: the host loops
 * (check alive, send what each file gained, sleep) and ends after the first look that found the
 * command gone, so the last bytes it wrote are always sent. `onChunk` gets them in order; an async
 * `onChunk` is awaited before the next one.
 */
export function tail(
  shell: Shell,
  dir: string,
  name: string,
  offsets: Readonly<Record<string, number>>,
  onChunk: (file: string, bytes: Buffer) => void | Promise<void>,
  options: TailOptions = {},
): TailHandle {
  checkName(name);
  const files = Object.entries(offsets);
  const interval = options.intervalSeconds ?? 0.3;
  const lines = [`cd -- ${quote(dir)} || exit 3`];
  files.forEach(([file, offset], index) => {
    checkName(file);
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`bad offset ${offset} for ${file}`);
    lines.push(`o${index}=${offset}`);
  });
  lines.push('while :; do', `  if ${options.aliveTest ?? groupAliveTest(name)}; then a=1; else a=0; fi`);
  files.forEach(([file], index) => {
    const f = quote(file);
    // The size is read once, so the header and the bytes that follow always agree.
    lines.push(
      `  if [ -f ${f} ]; then s=$(wc -c < ${f}); else s=0; fi`,
      `  if [ "$s" -gt "$o${index}" ]; then`,
      `    printf 'chunk ${index} %s\n' $((s - o${index}))`,
      `    tail -c +$((o${index} + 1)) ${f} | head -c $((s - o${index}))`,
      `    o${index}=$s`,
      '  fi',
    );
  });
  const exit = quote(`${name}.exit`);
  lines.push(
    `  if [ $a = 0 ]; then if [ -s ${exit} ]; then printf 'end %s\n' "$(cat ${exit})"; else echo 'end -'; fi; exit 0; fi`,
    `  sleep ${interval}`,
    'done',
  );
  const child = shell.start(lines.join('\n'));
  child.stdin.end();
  let stopped = false;
  const done = new Promise<TailEnd>((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    let want: { file: string; size: number } | undefined;
    let end: TailEnd | undefined;
    let chain: Promise<void> = Promise.resolve();
    let failure: Error | undefined;
    let stderr = '';
    const deliver = (file: string, bytes: Buffer): void => {
      chain = chain.then(() => onChunk(file, bytes)).catch((err: unknown) => {
        failure ??= err instanceof Error ? err : new Error(String(err));
        child.kill('SIGTERM');
      });
    };
    child.stdout.on('data', (data: Buffer) => {
      buffer = Buffer.concat([buffer, data]);
      for (;;) {
        if (want) {
          if (buffer.length < want.size) return;
          deliver(want.file, Buffer.from(buffer.subarray(0, want.size)));
          buffer = buffer.subarray(want.size);
          want = undefined;
          continue;
        }
        const newline = buffer.indexOf(0x0a);
        if (newline < 0) return;
        const [tag, a, b] = buffer.subarray(0, newline).toString('latin1').split(' ');
        buffer = buffer.subarray(newline + 1);
        if (tag === 'chunk') want = { file: files[Number(a)]?.[0] ?? '?', size: Number(b) };
        else if (tag === 'end') end = { exitCode: a === '-' || a === undefined ? null : Number.parseInt(a, 10) };
      }
    });
    child.stderr.on('data', (data: Buffer) => (stderr = (stderr + data.toString('utf8')).slice(-2000)));
    child.on('error', (err) => reject(new RemoteError('HR_REMOTE_COMMAND', `${shell.label}: cannot follow ${dir}: ${err.message}`)));
    child.on('close', (code) => {
      void chain.then(() => {
        if (failure) reject(failure);
        else if (end) resolve(end);
        else if (stopped) resolve({ exitCode: null });
        else if (code === 255) {
          reject(new RemoteError('HR_SSH_CONNECT', `${shell.label}: ${stderr.trim() || 'the connection was lost'}`));
        } else reject(new RemoteError('HR_REMOTE_COMMAND', `${shell.label}: following ${dir} ended with status ${code}: ${stderr.trim()}`));
      });
    });
  });
  return {
    done,
    stop() {
      stopped = true;
      child.kill('SIGTERM');
    },
  };
}

/**
 * Ends the process group `name` launched: SIGTERM, then SIGKILL after `graceMs`. Resolves with the
 * number of its processes still alive afterwards (0 unless something ignores SIGKILL, e.g. a
 * process stuck in the kernel).
 */
export async function kill(shell: Shell, dir: string, name: string, graceMs = 3000): Promise<number> {
  checkName(name);
  const pid = quote(`${name}.pid`);
  const tenths = Math.max(1, Math.ceil(graceMs / 100));
  const script = [
    `cd -- ${quote(dir)} || exit 3`,
    `[ -s ${pid} ] || { echo 0; exit 0; }`,
    `g=$(cat ${pid})`,
    `case $g in ''|*[!0-9]*) echo 0; exit 0;; esac`,
    'kill -TERM -"$g" 2>/dev/null',
    `i=0; while kill -0 -"$g" 2>/dev/null && [ $i -lt ${tenths} ]; do sleep 0.1; i=$((i+1)); done`,
    'kill -KILL -"$g" 2>/dev/null',
    'i=0; while kill -0 -"$g" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done',
    // pgrep -g lists the group's members; without procps, count 1 for "still alive".
    'if command -v pgrep >/dev/null; then pgrep -g "$g" | wc -l; elif kill -0 -"$g" 2>/dev/null; then echo 1; else echo 0; fi',
  ].join('\n');
  const out = await run(shell, script, { timeoutMs: graceMs + 30_000 });
  return Number.parseInt(out.trim(), 10) || 0;
}

/** Copies the host directory `remoteDir` into the local directory `localDir` (one tar stream). */
export async function download(shell: Shell, remoteDir: string, localDir: string): Promise<void> {
  const result = await shell.exec(`tar -cf - -C ${quote(remoteDir)} .`, { timeoutMs: 300_000 });
  if (result.code !== 0) throw new RemoteError('HR_REMOTE_COMMAND', `${shell.label}: cannot pack ${remoteDir}: ${result.stderr.trim()}`);
  await new Promise<void>((resolveDone, reject) => {
    const tar = spawn('tar', ['-xf', '-', '-C', localDir], { stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    tar.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    tar.on('close', (code) => (code === 0 ? resolveDone() : reject(new RemoteError('HR_REMOTE_COMMAND', `tar into ${localDir} failed: ${err.trim()}`))));
    tar.stdin.end(result.stdout);
  });
}
