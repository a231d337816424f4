/**
 * SSH transport over the system OpenSSH client, so the user's ~/.ssh/config (ProxyJump, keys,
 * agents, certificates) applies exactly as in their terminal.
 *
 * One multiplexed connection per host: the first command starts a ControlMaster that stays up for
 * `controlPersistSeconds` after the last use, and every later command rides on it (no new handshake,
 * no new authentication). ControlPath uses `%C` (a hash of host, port and user) in a short private
 * directory, since a unix socket path may not exceed 108 bytes.
 *
 * Every command is sent as `sh -c '<script>'`: the user's login shell parses one single-quoted word
 * (any POSIX-style login shell: sh, bash, zsh, ksh, dash), and the script runs under `sh`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { RemoteError } from './errors';
import { quote } from './quote';
import { spawnCollect, type ExecOptions, type ExecResult, type Shell } from './shell';

export interface SshOptions {
  /** A host alias from the ssh config, or `[user@]hostname`. */
  host: string;
  /** An ssh_config file passed with `-F` (instead of ~/.ssh/config). */
  configFile?: string;
  /** Directory for the ControlMaster sockets; default `$TMPDIR/headroom-ssh-<uid>`. */
  controlDir?: string;
  /** How long the master connection outlives its last command. Default 120 s. */
  controlPersistSeconds?: number;
  /** Default 15 s. */
  connectTimeoutSeconds?: number;
  /** The ssh client; default `ssh` on PATH. */
  sshBinary?: string;
}

/**
 * Host names and aliases that could be read as an option (`-oProxyCommand=...`) or that hold
 * whitespace or control characters are refused before ssh sees them.
 */
export function checkHost(host: string): string {
  if (host.length === 0 || host.startsWith('-') || /[\s\0-\x1f\x7f]/.test(host)) {
    throw new RemoteError('HR_SSH_HOST', `"${host}" is not a usable ssh host name`);
  }
  return host;
}

/** `$TMPDIR/headroom-ssh-<uid>`, or under /tmp when TMPDIR holds a double quote or is too long for a socket path. */
function defaultControlDir(): string {
  const base = tmpdir();
  // A unix socket path may hold 107 bytes; %C adds 41.
  const usable = !base.includes('"') && Buffer.byteLength(base) < 50;
  return join(usable ? base : '/tmp', `headroom-ssh-${userInfo().uid}`);
}

export class SshTransport implements Shell {
  readonly label: string;
  private readonly ssh: string;
  private readonly options: Required<Omit<SshOptions, 'configFile' | 'sshBinary'>> & Pick<SshOptions, 'configFile'>;

  constructor(options: SshOptions) {
    checkHost(options.host);
    this.label = `ssh:${options.host}`;
    this.ssh = options.sshBinary ?? 'ssh';
    if (options.controlDir?.includes('"')) throw new RemoteError('HR_SSH_HOST', 'the ssh control directory may not contain a double quote');
    this.options = {
      host: options.host,
      configFile: options.configFile,
      controlDir: options.controlDir ?? defaultControlDir(),
      controlPersistSeconds: options.controlPersistSeconds ?? 120,
      connectTimeoutSeconds: options.connectTimeoutSeconds ?? 15,
    };
    mkdirSync(this.options.controlDir, { recursive: true, mode: 0o700 });
  }

  /** ssh's arguments up to and including the destination. */
  baseArgs(): string[] {
    const o = this.options;
    return [
      ...(o.configFile !== undefined ? ['-F', o.configFile] : []),
      '-o', 'ControlMaster=auto',
      // Double quotes keep a directory with spaces one value; `%` would start an ssh token.
      '-o', `ControlPath="${o.controlDir.replace(/%/g, '%%')}/%C"`,
      '-o', `ControlPersist=${o.controlPersistSeconds}`,
      // Never prompt: a password or host-key question would hang a background server.
      '-o', 'BatchMode=yes',
      '-o', `ConnectTimeout=${o.connectTimeoutSeconds}`,
      // A silently dead link (laptop asleep, NAT timeout) is noticed within ~15 s.
      '-o', 'ServerAliveInterval=5',
      '-o', 'ServerAliveCountMax=3',
      '-T',
      '--',
      o.host,
    ];
  }

  exec(script: string, options: ExecOptions = {}): Promise<ExecResult> {
    return spawnCollect(this.ssh, [...this.baseArgs(), `sh -c ${quote(script)}`], {
      ...options,
      label: this.label,
      failure: (code, stderr) =>
        code === 255
          ? new RemoteError('HR_SSH_CONNECT', `${this.label}: ${stderr.trim() || 'connection failed or was lost'}`)
          : undefined,
    });
  }

  start(script: string): ChildProcessWithoutNullStreams {
    return spawn(this.ssh, [...this.baseArgs(), `sh -c ${quote(script)}`], { stdio: ['pipe', 'pipe', 'pipe'] });
  }

  /** True when a master connection is up for this host. */
  async isConnected(): Promise<boolean> {
    const result = await this.control('check').catch(() => undefined);
    return result?.code === 0;
  }

  /** Closes the master connection (commands in flight over it end). */
  async close(): Promise<void> {
    await this.control('exit').catch(() => undefined);
  }

  private control(command: 'check' | 'exit'): Promise<ExecResult> {
    const args = this.baseArgs();
    // `-O` goes before the `--` that ends the options.
    const end = args.indexOf('--');
    return spawnCollect(this.ssh, [...args.slice(0, end), '-O', command, ...args.slice(end)], {
      label: this.label,
      timeoutMs: 10_000,
    });
  }
}
