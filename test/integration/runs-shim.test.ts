/**
 * The preload shim's fault injection, built with the system compiler and preloaded into a real
 * Python, against a stand-in for libcudart's allocation entry points (no GPU here): byte budget
 * over live bytes (frees tracked), Nth call, sticky, per rank, and re-arming at run time.
 * 2 is cudaErrorMemoryAllocation.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tempDir';

const fixtures = join(__dirname, '..', 'fixtures', 'runs');
const shimSource = join(__dirname, '..', '..', 'native', 'preload', 'headroom_preload.c');
const hasCompiler = spawnSync('cc', ['--version'], { stdio: 'ignore' }).status === 0;

describe.skipIf(!hasCompiler)('preload shim fault injection', () => {
  let shim: string;
  let runtime: string;

  beforeAll(() => {
    const dir = tempDir('hr-shim-');
    shim = join(dir, 'headroom_preload.so');
    runtime = join(dir, 'libstand_in_cudart.so');
    for (const [out, src, extra] of [[shim, shimSource, ['-ldl', '-lpthread']], [runtime, join(fixtures, 'stand_in_cudart.c'), []]] as const) {
      const cc = spawnSync('cc', ['-shared', '-fPIC', '-O2', '-Wall', '-Werror', '-o', out, src, ...extra], { encoding: 'utf8' });
      expect(cc.status, cc.stderr).toBe(0);
    }
  });

  function drive(env: Record<string, string>, steps: string[]): { codes: string; stderr: string } {
    const r = spawnSync('python3', [join(fixtures, 'shim_driver.py'), runtime, ...steps], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LD_PRELOAD: shim, ...env },
    });
    expect(r.status, r.stderr).toBe(0);
    return { codes: r.stdout.trim(), stderr: r.stderr };
  }

  it('fails past a byte budget of live bytes, and frees make room again', () => {
    const r = drive({ HEADROOM_FAULT_BUDGET_BYTES: '1000' }, ['m600', 'm600', 'f0', 'm600', 'm300', 'm200']);
    expect(r.codes).toBe('0 2 0 0 0 2');
    expect(r.stderr).toMatch(/headroom-shim: injected cudaMalloc failure #1 \(600 bytes; call 2; live 600 bytes\)/);
  });

  it('fails the Nth call, and every later one when sticky', () => {
    expect(drive({ HEADROOM_FAULT_NTH_CALL: '2' }, ['m10', 'm10', 'm10']).codes).toBe('0 2 0');
    expect(drive({ HEADROOM_FAULT_NTH_CALL: '2', HEADROOM_FAULT_STICKY: '1' }, ['m10', 'm10', 'm10']).codes).toBe('0 2 2');
  });

  it('injects only on the listed ranks', () => {
    expect(drive({ HEADROOM_FAULT_NTH_CALL: '1', HEADROOM_FAULT_RANKS: '1,3', RANK: '0' }, ['m10']).codes).toBe('0');
    expect(drive({ HEADROOM_FAULT_NTH_CALL: '1', HEADROOM_FAULT_RANKS: '1,3', RANK: '3' }, ['m10']).codes).toBe('2');
  });

  it('is armed and disarmed at run time, as the harness does around a risky allocation', () => {
    expect(drive({}, ['m10', 'arm', 'm10', 'm10', 'disarm', 'm10']).codes).toBe('0 0 2 2 0 0');
  });

  it('tracks many live allocations and their frees (hash table with deletions)', () => {
    const steps = [...Array.from({ length: 500 }, () => 'm100'), ...Array.from({ length: 500 }, (_, i) => `f${i}`), 'm1000'];
    const codes = drive({ HEADROOM_FAULT_BUDGET_BYTES: '50000' }, steps).codes.split(' ');
    expect(codes.slice(0, 500).filter((c) => c === '0').length).toBe(500);
    expect(codes.at(-1)).toBe('0'); // every byte freed: 1000 bytes fit the 50,000-byte budget again
  });
});
