/**
 * The SSH transport against a real OpenSSH server on 127.0.0.1 (scripts/start-test-hosts.sh):
 * multiplexing, test connection, upload, detached launch, incremental tail across a real link cut,
 * and kill of the remote process group.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { download, kill, launch, makeDirectory, tail, upload } from '../../server/src/runs/remote/detached';
import { testConnection } from '../../server/src/runs/remote/environment';
import { listSshHosts } from '../../server/src/runs/remote/hosts';
import { quote } from '../../server/src/runs/remote/quote';
import { run } from '../../server/src/runs/remote/shell';
import { checkHost, SshTransport } from '../../server/src/runs/remote/ssh';
import { hostsUnavailable, masterPid, processesMatching, sshdServing, startTestHosts, type TestHosts } from './remote-hosts';
import { tempDir } from '../support/tempDir';

const skip = hostsUnavailable();
const preflight = readFileSync(join(__dirname, '..', '..', 'server', 'src', 'runs', 'harness', 'preflight.py'), 'utf8');

describe.skipIf(skip !== undefined)('ssh transport (real sshd on 127.0.0.1)', () => {
  let hosts: TestHosts;
  let ssh: SshTransport;
  let controlDir: string;
  const runDir = `.cache/headroom-test/ssh-${process.pid}-${Date.now()}`;

  beforeAll(() => {
    hosts = startTestHosts();
    controlDir = tempDir('hr-cm-');
    ssh = new SshTransport({ host: hosts.sshHost, configFile: hosts.sshConfig, controlDir });
  });
  afterAll(async () => {
    await run(ssh, `rm -rf -- '${runDir}'`).catch(() => undefined);
    await ssh.close();
  });

  it('runs commands over one multiplexed master connection', async () => {
    expect(await run(ssh, 'echo "$((6 * 7))"')).toBe('42\n');
    expect(await ssh.isConnected()).toBe(true);
    const pid = masterPid(ssh.baseArgs());
    expect(pid).toBeGreaterThan(0);
    // Later commands reuse the same master process.
    expect(await run(ssh, 'echo again')).toBe('again\n');
    expect(masterPid(ssh.baseArgs())).toBe(pid);
    await ssh.close();
    expect(await ssh.isConnected()).toBe(false);
  });

  it('reports exit statuses and stderr without treating them as link failures', async () => {
    const result = await ssh.exec('echo out; echo err >&2; exit 7');
    expect(result).toMatchObject({ code: 7, stderr: 'err\n' });
    expect(result.stdout.toString()).toBe('out\n');
    await expect(run(ssh, 'exit 3')).rejects.toMatchObject({ code: 'HR_REMOTE_COMMAND' });
  });

  it('refuses host names that ssh could read as options', () => {
    for (const bad of ['-oProxyCommand=touch /tmp/x', '', 'a b', 'host\nx']) {
      expect(() => checkHost(bad)).toThrow(expect.objectContaining({ code: 'HR_SSH_HOST' }));
    }
  });

  it('fails with HR_SSH_CONNECT when the host cannot be reached', async () => {
    const cfg = join(controlDir, 'unreachable_config');
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    writeFileSync(cfg, `Host nowhere\n  HostName 127.0.0.1\n  Port 1\n  BatchMode yes\n`);
    const nowhere = new SshTransport({ host: 'nowhere', configFile: cfg, controlDir });
    await expect(nowhere.exec('true')).rejects.toMatchObject({ code: 'HR_SSH_CONNECT' });
  });

  it('tests the connection: python, torch, platform, devices, backends, compiler', async () => {
    const report = await testConnection(ssh, { python: hosts.python, preflightSource: preflight });
    expect(report.target).toBe(`ssh:${hosts.sshHost}`);
    expect(report.environment.python).toBe(hosts.python);
    expect(report.environment.pythonVersion).toMatch(/^3\.\d+\.\d+$/);
    expect(report.environment.torchVersion).toMatch(/^\d+\.\d+/);
    expect(report.environment.platform).toBe('cpu');
    expect(report.environment.devices).toEqual([]);
    expect(report.environment.distributedBackends).toContain('gloo');
    expect(report.environment.compiler).toMatch(/(cc|gcc|clang)$/);
    expect(report.torchError).toBeUndefined();
  });

  it('says clearly when the interpreter does not exist on the host', async () => {
    await expect(testConnection(ssh, { python: '/nonexistent/python3', preflightSource: preflight })).rejects.toMatchObject({
      code: 'HR_REMOTE_COMMAND',
      message: expect.stringContaining('not found'),
    });
  });

  it('uploads a bundle into a per-run directory and downloads artifacts back', async () => {
    const local = tempDir('hr-bundle-');
    mkdirSync(join(local, 'probes'));
    writeFileSync(join(local, 'probes', 'p.py'), 'print("hello from the bundle")\n');
    writeFileSync(join(local, 'odd name ü $(x).txt'), 'kept as is\n');
    const abs = await makeDirectory(ssh, `${runDir}/bundle`);
    expect(abs).toMatch(/^\/.*\/bundle$/);
    await upload(ssh, local, abs);
    expect(await run(ssh, `cd '${abs}' && ${hosts.python} probes/p.py`)).toBe('hello from the bundle\n');
    expect(await run(ssh, `cat -- ${quote(`${abs}/odd name ü $(x).txt`)}`)).toBe('kept as is\n');
    const back = tempDir('hr-back-');
    await download(ssh, abs, back);
    expect(readFileSync(join(back, 'probes', 'p.py'), 'utf8')).toContain('hello from the bundle');
  });

  it('keeps a detached run going through a cut link; a new connection tails the rest without loss', async () => {
    const dir = await makeDirectory(ssh, `${runDir}/detached`);
    const marker = `hr-detached-${process.pid}-${Date.now()}`;
    // 40 numbered lines, one every 50 ms; after line 9 it waits for a `release` file (so the link
    // is cut while it runs, however slow the machine), then exits 5.
    const program = [
      'import os, sys, time',
      'for i in range(40):',
      `    print("line %d ${marker}" % i, flush=True)`,
      '    while i == 9 and not os.path.exists("release"):',
      '        time.sleep(0.05)',
      '    time.sleep(0.05)',
      'sys.exit(5)',
      '',
    ].join('\n');
    await run(ssh, `cat > ${dir}/prog.py`, { stdin: program });
    const pgid = await launch(ssh, { dir, name: 'job', argv: [hosts.python, 'prog.py', marker], env: { HR_TEST: 'x y' } });
    expect(pgid).toBeGreaterThan(1);

    let received = Buffer.alloc(0);
    const follow = () =>
      tail(ssh, dir, 'job', { 'job.out': received.length }, (_file, bytes) => {
        received = Buffer.concat([received, bytes]);
      });
    // Follow a little, then cut the link by killing the sshd processes serving the master connection.
    const first = follow();
    for (let i = 0; i < 600 && !received.toString().includes('line 9 '); i++) await new Promise((r) => setTimeout(r, 100));
    expect(received.length).toBeGreaterThan(0);
    const master = masterPid(ssh.baseArgs());
    expect(master).toBeGreaterThan(0);
    const serving = sshdServing(master!, hosts.sshPort);
    expect(serving.length).toBeGreaterThan(0);
    for (const pid of serving) process.kill(pid, 'SIGKILL');
    await expect(first.done).rejects.toMatchObject({ code: 'HR_SSH_CONNECT' });
    const cutAt = received.length;
    expect(received.toString()).not.toContain('line 10 ');
    // The program goes on over a new connection; so does the following, from the same byte.
    await run(ssh, `touch -- ${quote(`${dir}/release`)}`);

    // Re-attach: a new connection, following from the byte where the first one stopped.
    const end = await follow().done;
    expect(end.exitCode).toBe(5);
    expect(received.length).toBeGreaterThan(cutAt);
    const lines = received.toString().trimEnd().split('\n');
    expect(lines).toEqual(Array.from({ length: 40 }, (_, i) => `line ${i} ${marker}`));
    expect(processesMatching(marker)).toEqual([]);
  });

  it('kills the whole remote process group (children included): 0 processes left', async () => {
    const dir = await makeDirectory(ssh, `${runDir}/kill`);
    const marker = `hr-kill-${process.pid}-${Date.now()}`;
    // A parent that starts two children and ignores SIGTERM: only the group SIGKILL ends it.
    const program = [
      'import signal, subprocess, sys, time',
      'signal.signal(signal.SIGTERM, signal.SIG_IGN)',
      `kids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "${marker}"]) for _ in range(2)]`,
      'print("started", flush=True)',
      'time.sleep(600)',
    ].join('\n');
    await run(ssh, `cat > ${dir}/prog.py`, { stdin: program });
    await launch(ssh, { dir, name: 'job', argv: [hosts.python, 'prog.py', marker] });
    let out = '';
    const following = tail(ssh, dir, 'job', { 'job.out': 0 }, (_file, bytes) => void (out += bytes.toString()));
    for (let i = 0; i < 100 && !out.includes('started'); i++) await new Promise((r) => setTimeout(r, 100));
    // The wrapper shell, the parent and its two children.
    expect(processesMatching(marker).length).toBe(4);
    expect(await kill(ssh, dir, 'job', 500)).toBe(0);
    expect(processesMatching(marker)).toEqual([]);
    // Killed, not ended on its own: no exit status.
    expect(await following.done).toEqual({ exitCode: null });
  });

  it('lists concrete hosts from an ssh config, following Include and skipping patterns', () => {
    const home = tempDir('hr-home-');
    mkdirSync(join(home, '.ssh', 'conf.d'), { recursive: true });
    writeFileSync(
      join(home, '.ssh', 'config'),
      [
        '# comment',
        'Host gpu-box gpu-box-2 *.internal !bastion',
        '  HostName 10.0.0.5',
        'Include conf.d/*.conf',
        'Include ~/.ssh/missing',
        'Host=bastion',
        'Match host foo',
        '  User x',
        'Host gpu-box',
      ].join('\n'),
    );
    writeFileSync(join(home, '.ssh', 'conf.d', 'a.conf'), 'Host cluster-login "quoted name"\n  ProxyJump bastion\nHost web?\n');
    writeFileSync(join(home, '.ssh', 'conf.d', 'b.conf'), 'Include ../config\nHost from-b\n');
    expect(listSshHosts(undefined, home)).toEqual(['gpu-box', 'gpu-box-2', 'cluster-login', 'quoted name', 'from-b', 'bastion']);
    expect(listSshHosts(join(home, 'no-such-file'), home)).toEqual([]);
  });
});
