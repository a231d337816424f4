/**
 * The real remote targets for integration tests: starts (or reuses) the loopback sshd and the
 * single-node Slurm with scripts/start-test-hosts.sh, and exposes what the script printed. Also
 * finds the sshd process serving one SSH connection, so a test can cut that link for real.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

export interface TestHosts {
  sshConfig: string;
  sshHost: string;
  sshPort: number;
  sshdPid: number;
  slurmConf: string;
  partition: string;
  /** An interpreter with CPU PyTorch (Debian's python3-torch). */
  python: string;
}

const root = join(__dirname, '..', '..');

/** Why the hosts cannot run here, or undefined when they can. */
export function hostsUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'remote-target tests need Linux';
  if (process.getuid?.() !== 0) return 'remote-target tests start sshd and slurmd and need root (CI runs as root)';
  for (const bin of ['/usr/sbin/sshd', '/usr/sbin/slurmctld', '/usr/sbin/munged']) {
    if (!existsSync(bin)) return `${bin} is missing: run scripts/setup.sh as root`;
  }
  return undefined;
}

let cached: TestHosts | undefined;

/** Starts the hosts (idempotent, shared by concurrent test files) and sets SLURM_CONF for this process. */
export function startTestHosts(): TestHosts {
  if (cached) return cached;
  const out = execFileSync('bash', [join(root, 'scripts', 'start-test-hosts.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
  const env: Record<string, string> = {};
  for (const m of out.matchAll(/^export (\w+)='?([^'\n]*)'?$/gm)) env[m[1]!] = m[2]!;
  process.env['SLURM_CONF'] = env['SLURM_CONF'];
  cached = {
    sshConfig: env['HEADROOM_TEST_SSH_CONFIG']!,
    sshHost: env['HEADROOM_TEST_SSH_HOST']!,
    sshPort: Number(env['HEADROOM_TEST_SSH_PORT']),
    sshdPid: Number(env['HEADROOM_TEST_SSHD_PID']),
    slurmConf: env['SLURM_CONF']!,
    partition: env['HEADROOM_TEST_SLURM_PARTITION']!,
    python: env['HEADROOM_TEST_PYTHON']!,
  };
  return cached;
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // The fd closed while we looked.
    }
  }
  return inodes;
}

interface TcpEntry {
  localPort: number;
  remotePort: number;
  inode: string;
}

function tcpTable(): TcpEntry[] {
  const entries: TcpEntry[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      entries.push({
        localPort: Number.parseInt(cols[1]!.split(':')[1]!, 16),
        remotePort: Number.parseInt(cols[2]!.split(':')[1]!, 16),
        inode: cols[9]!,
      });
    }
  }
  return entries;
}

/**
 * The pids of the sshd processes holding the server end of the TCP connection that the ssh client
 * process `clientPid` (e.g. a ControlMaster) has open to `sshPort`.
 */
export function sshdServing(clientPid: number, sshPort: number): number[] {
  const table = tcpTable();
  const mine = socketInodes(clientPid);
  const client = table.find((e) => mine.has(e.inode) && e.remotePort === sshPort);
  if (!client) return [];
  const server = table.find((e) => e.localPort === sshPort && e.remotePort === client.localPort);
  if (!server) return [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === clientPid) continue;
    if (socketInodes(pid).has(server.inode)) pids.push(pid);
  }
  return pids;
}

/** The pid of the ControlMaster for an ssh destination, from `ssh -O check`. */
export function masterPid(sshArgs: readonly string[]): number | undefined {
  const end = sshArgs.indexOf('--');
  const check = spawnSync('ssh', [...sshArgs.slice(0, end), '-O', 'check', ...sshArgs.slice(end)], { encoding: 'utf8' });
  return Number(/pid=(\d+)/.exec(check.stderr)?.[1]) || undefined;
}

/** Processes whose command line contains `marker` (for "0 processes left" checks). */
export function processesMatching(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(marker)) pids.push(Number(entry));
    } catch {
      // Gone.
    }
  }
  return pids;
}
