/**
 * Hostile strings in every word Headroom builds for a shell execute nothing: property tests over
 * generated strings through the real /bin/sh and through real ssh (two layers of shell), and every
 * setting of the ssh and slurm targets (host, interpreter, environment, directories, partition,
 * gres, time, account) fed with command substitutions, backticks, separators, newlines, quotes and
 * unicode. The canary is a file that any executed injection would create.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeTargetOptions } from '../../server/src/runs/remote/config';
import { launch, makeDirectory, tail } from '../../server/src/runs/remote/detached';
import { assignments, command, quote } from '../../server/src/runs/remote/quote';
import { LocalShell, run, type Shell } from '../../server/src/runs/remote/shell';
import { checkSlurmSettings, srunArgv } from '../../server/src/runs/remote/slurm';
import { SshTransport } from '../../server/src/runs/remote/ssh';
import { SlurmTarget } from '../../server/src/runs/targets/slurm';
import { SshTarget } from '../../server/src/runs/targets/ssh';
import { hostsUnavailable, startTestHosts, type TestHosts } from './remote-hosts';
import { tempDir } from '../support/tempDir';

const canaryDir = tempDir('hr-canary-');
const canary = join(canaryDir, 'pwned');
const bundle = {
  harnessDir: join(__dirname, '..', '..', 'server', 'src', 'runs', 'harness'),
  probeFile: '',
  shimSource: '',
};

/** Pieces that would run `touch canary` (or otherwise misbehave) if anything were interpreted. */
const PIECES = [
  `$(touch ${canary})`,
  `\`touch ${canary}\``,
  `;touch ${canary};`,
  `\ntouch ${canary}\n`,
  `&& touch ${canary}`,
  `| touch ${canary}`,
  `'; touch ${canary}; '`,
  `"; touch ${canary}; "`,
  `$'\\x41'`,
  '${IFS}',
  '$HOME',
  '\\',
  "'",
  '"',
  '*',
  '?',
  '~',
  '#',
  '!',
  '-n',
  '--',
  '%s',
  ' ',
  '\t',
  '\r',
  'ü',
  '漢字',
  '😀',
  '\u202e',
  'plain',
];

/** A deterministic generator (mulberry32), so a failure is reproducible from the seed. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hostileStrings(count: number, seed: number): string[] {
  const next = rng(seed);
  const out: string[] = [...PIECES];
  while (out.length < count) {
    const n = 1 + Math.floor(next() * 5);
    let s = '';
    for (let i = 0; i < n; i++) {
      s += next() < 0.8 ? PIECES[Math.floor(next() * PIECES.length)] : String.fromCodePoint(1 + Math.floor(next() * 0x2fff));
    }
    out.push(s);
  }
  return out;
}

/** Every word printed back through the shell, NUL-separated, must equal the input. */
async function roundTrip(shell: Shell, words: string[]): Promise<string[]> {
  const script = words.map((w) => `printf '%s\\0' ${quote(w)}`).join('\n');
  const out = await run(shell, script);
  return out.split('\0').slice(0, -1);
}

describe('quoting through the real /bin/sh', () => {
  afterAll(() => expect(existsSync(canary)).toBe(false));

  it('round-trips 400 generated hostile words exactly, executing nothing', async () => {
    const words = hostileStrings(400, 6);
    expect(await roundTrip(new LocalShell(), words)).toEqual(words);
    expect(existsSync(canary)).toBe(false);
  });

  it('keeps argv words apart and environment values intact', async () => {
    const words = hostileStrings(40, 7);
    const script = `${assignments({ HR_A: words[3]!, HR_B: words[5]! })} python3 -c 'import json, os, sys; print(json.dumps([sys.argv[1:], os.environ["HR_A"], os.environ["HR_B"]]))' ${command(words)}`;
    const parsed = JSON.parse(await run(new LocalShell(), script)) as [string[], string, string];
    expect(parsed).toEqual([words, words[3], words[5]]);
  });

  it('refuses what no shell word can carry, with a code', () => {
    expect(() => quote('a\0b')).toThrow(expect.objectContaining({ code: 'HR_SHELL_NUL' }));
    expect(() => assignments({ 'A;touch x': 'v' })).toThrow(expect.objectContaining({ code: 'HR_ENV_NAME' }));
    expect(() => command([])).toThrow(RangeError);
  });
});

const skip = hostsUnavailable();

describe.skipIf(skip !== undefined)('hostile settings on the real ssh and Slurm targets', () => {
  let hosts: TestHosts;
  let ssh: SshTransport;
  const base = `.cache/headroom-test/quote-${process.pid}`;

  beforeAll(() => {
    hosts = startTestHosts();
    ssh = new SshTransport({ host: hosts.sshHost, configFile: hosts.sshConfig, controlDir: tempDir('hr-cm-') });
  }, 180_000);
  afterAll(async () => {
    await run(ssh, `rm -rf -- ${quote(base)}`).catch(() => undefined);
    await ssh.close();
    expect(existsSync(canary)).toBe(false);
  });

  it('round-trips hostile words through ssh (login shell, then sh -c)', async () => {
    const words = hostileStrings(120, 8);
    expect(await roundTrip(ssh, words)).toEqual(words);
    expect(existsSync(canary)).toBe(false);
  });

  it('creates a run directory with a hostile name literally, and launches hostile argv and env exactly', async () => {
    const name = `dir ${PIECES.slice(0, 8).join(' ').replace(/\n/g, ' ')} ü`;
    const dir = await makeDirectory(ssh, `${base}/${name}`);
    expect(dir.endsWith(name)).toBe(true);
    const words = hostileStrings(30, 9);
    await launch(ssh, {
      dir,
      name: 'job',
      argv: [hosts.python, '-c', 'import json, os, sys; print(json.dumps([sys.argv[1:], os.environ["HR_X"]]))', ...words],
      env: { HR_X: PIECES[0]! },
    });
    await tail(ssh, dir, 'job', { 'job.out': 0 }, () => undefined).done;
    const out = await run(ssh, `cat -- ${quote(`${dir}/job.out`)}`);
    expect(JSON.parse(out)).toEqual([words, PIECES[0]]);
    expect(existsSync(canary)).toBe(false);
  });

  it('ssh target: hostile interpreter, working directory and environment run nothing', async () => {
    for (const python of [PIECES[0]!, PIECES[1]!, `${hosts.python}; touch ${canary}`]) {
      const target = new SshTarget(hosts.sshHost, normalizeTargetOptions({ sshConfig: hosts.sshConfig, python }));
      await expect(target.testConnection('python3', bundle)).rejects.toMatchObject({ code: 'HR_REMOTE_COMMAND' });
    }
    const cwdTarget = new SshTarget(hosts.sshHost, normalizeTargetOptions({ sshConfig: hosts.sshConfig, python: hosts.python, cwd: PIECES[2] }));
    await expect(cwdTarget.testConnection('python3', bundle)).rejects.toMatchObject({ code: 'HR_REMOTE_COMMAND' });
    const envTarget = new SshTarget(
      hosts.sshHost,
      normalizeTargetOptions({ sshConfig: hosts.sshConfig, python: hosts.python, env: { HR_Y: PIECES[3], HR_Z: PIECES[6] } }),
    );
    expect((await envTarget.testConnection('python3', bundle)).environment.python).toBe(hosts.python);
    expect(() => new SshTarget(`-oProxyCommand=touch ${canary}`, normalizeTargetOptions({}))).toThrow(expect.objectContaining({ code: 'HR_SSH_HOST' }));
    expect(existsSync(canary)).toBe(false);
  });

  it('slurm target: hostile partition, gres and account reach srun as literal values; a hostile time is refused', async () => {
    const shell = new LocalShell();
    for (const hostile of [PIECES[0]!, PIECES[1]!, PIECES[2]!, PIECES[3]!, PIECES[6]!]) {
      for (const settings of [
        { partition: hostile, mode: 'srun' as const },
        { partition: hosts.partition, gres: hostile, mode: 'srun' as const },
        { partition: hosts.partition, account: hostile, mode: 'srun' as const },
      ]) {
        const control = /[\n\r]/.test(hostile);
        if (control) {
          expect(() => checkSlurmSettings(settings)).toThrow(expect.objectContaining({ code: 'HR_SLURM_SETTING' }));
          continue;
        }
        const argv = srunArgv(settings, { jobName: 'hr-hostile', cpusPerTask: 1 }, ['true']);
        const result = await shell.exec(command(argv), { timeoutMs: 60_000 });
        // srun rejects an unknown partition or gres; an account is not checked on a cluster without
        // accounting (this one), so `true` may run. Either way the value stayed one literal word.
        if (settings.account === undefined) expect(result.code, result.stderr).not.toBe(0);
        expect(existsSync(canary)).toBe(false);
      }
    }
    expect(() => new SlurmTarget(hosts.partition, normalizeTargetOptions({ time: PIECES[0] }))).toThrow(
      expect.objectContaining({ code: 'HR_SLURM_SETTING' }),
    );
    expect(existsSync(canary)).toBe(false);
  });

});
