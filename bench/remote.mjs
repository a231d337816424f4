// Remote targets: what the test hosts cost to start, what one command costs over ssh with and
// without the multiplexed master connection, and the wall time of the same reproducer
// (rank-divergent-allocation, naive + synchronized, CPU gloo) on the local, ssh and slurm targets.
// Needs root, Debian's openssh-server, slurm-wlm, munge and python3-torch; the CLI built (node esbuild.mjs).
//
//   node bench/remote.mjs [--cold] [--repeat 10]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const repeat = Number(process.argv[process.argv.indexOf('--repeat') + 1]) || 10;
const cold = process.argv.includes('--cold');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

function startHosts() {
  const t0 = process.hrtime.bigint();
  const out = execFileSync('bash', [path.join(root, 'scripts', 'start-test-hosts.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const env = Object.fromEntries([...out.matchAll(/^export (\w+)='?([^'\n]*)'?$/gm)].map((m) => [m[1], m[2]]));
  return { env, ms: ms(t0) };
}

const rows = [];
if (cold) {
  execFileSync('bash', [path.join(root, 'scripts', 'stop-test-hosts.sh')], { stdio: 'ignore' });
  rows.push(['start-test-hosts.sh, cold (nothing running)', `${startHosts().ms.toFixed(0)} ms`]);
}
const { env, ms: warmMs } = startHosts();
rows.push(['start-test-hosts.sh, warm (all running: checks only)', `${warmMs.toFixed(0)} ms`]);

const ssh = (extra) => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('ssh', ['-F', env.HEADROOM_TEST_SSH_CONFIG, ...extra, env.HEADROOM_TEST_SSH_HOST, 'true']);
  if (r.status !== 0) throw new Error(`ssh failed: ${r.stderr}`);
  return ms(t0);
};
const plain = Array.from({ length: repeat }, () => ssh(['-o', 'ControlMaster=no', '-o', 'ControlPath=none']));
const controlDir = mkdtempSync(path.join(tmpdir(), 'hr-bench-cm-'));
const mux = ['-o', 'ControlMaster=auto', '-o', `ControlPath=${controlDir}/%C`, '-o', 'ControlPersist=60'];
const first = ssh(mux);
const multiplexed = Array.from({ length: repeat }, () => ssh(mux));
spawnSync('ssh', ['-F', env.HEADROOM_TEST_SSH_CONFIG, ...mux, '-O', 'exit', env.HEADROOM_TEST_SSH_HOST]);
// What the host's login shell costs per command, whatever the transport: bash reads ~/.bashrc when
// sshd starts it (it sees SSH_CLIENT), and on some machines that file does slow work.
const shellStart = Array.from({ length: repeat }, () => {
  const t0 = process.hrtime.bigint();
  spawnSync('bash', ['-c', 'true'], { env: { HOME: process.env.HOME ?? '/root', PATH: '/usr/bin:/bin', SSH_CLIENT: '127.0.0.1 1 22' } });
  return ms(t0);
});
rows.push([`login shell start as sshd runs it (bash -c true with SSH_CLIENT set; median of ${repeat})`, `${median(shellStart).toFixed(0)} ms`]);
rows.push([`ssh true, new connection each time (median of ${repeat})`, `${median(plain).toFixed(0)} ms`]);
rows.push(['ssh true, first command (starts the master)', `${first.toFixed(0)} ms`]);
rows.push([`ssh true, over the master (median of ${repeat})`, `${median(multiplexed).toFixed(0)} ms`]);

const targetsFile = path.join(mkdtempSync(path.join(tmpdir(), 'hr-bench-targets-')), 'targets.json');
writeFileSync(targetsFile, JSON.stringify({ [`ssh:${env.HEADROOM_TEST_SSH_HOST}`]: { sshConfig: env.HEADROOM_TEST_SSH_CONFIG } }));
const store = mkdtempSync(path.join(tmpdir(), 'hr-bench-runs-'));
for (const target of ['local', `ssh:${env.HEADROOM_TEST_SSH_HOST}`, `slurm:${env.HEADROOM_TEST_SLURM_PARTITION}`]) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(
    process.execPath,
    [path.join(root, 'dist', 'cli.js'), 'repro', 'run', 'rank-divergent-allocation', '--target', target, '--variant', 'naive', '--variant', 'synchronized',
      '--python', env.HEADROOM_TEST_PYTHON, '--store', store, '--json'],
    { encoding: 'utf8', env: { ...process.env, SLURM_CONF: env.SLURM_CONF, HEADROOM_TARGETS_FILE: targetsFile } },
  );
  const wall = ms(t0);
  if (r.status !== 0) throw new Error(`${target}: ${r.stderr}`);
  const run = JSON.parse(r.stdout);
  const cells = run.cells.map((c) => `${c.variant} ${c.outcome} ${c.seconds.toFixed(1)} s`).join(', ');
  rows.push([`repro run on ${target} (naive + synchronized), wall`, `${(wall / 1000).toFixed(1)} s (${cells})`]);
}

console.log(`${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model}), load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log('| measurement | result |\n| --- | --- |');
for (const [what, value] of rows) console.log(`| ${what} | ${value} |`);
