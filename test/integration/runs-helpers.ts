/**
 * Shared by the reproducer integration tests: a Python with real CPU PyTorch (Debian's
 * python3-torch in CI), the built CLI, and a /proc scan for processes that belong to a run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const repoRoot = join(__dirname, '..', '..');
export const cliPath = join(repoRoot, 'dist', 'cli.js');

/** The first interpreter that imports torch with gloo: $HEADROOM_TEST_PYTHON, /usr/bin/python3, python3. */
export function torchPython(): string | undefined {
  const candidates = [process.env['HEADROOM_TEST_PYTHON'], '/usr/bin/python3', 'python3'].filter((c): c is string => !!c);
  return candidates.find(
    (py) => spawnSync(py, ['-c', 'import torch.distributed as d; assert d.is_gloo_available()'], { stdio: 'ignore', timeout: 60_000 }).status === 0,
  );
}

/** Builds dist/ (the CLI and dist/runs) when it is missing, as scripts/setup.sh does in CI. */
export function ensureCli(): void {
  if (!existsSync(cliPath) || !existsSync(join(repoRoot, 'dist', 'runs', 'harness', 'supervisor.py'))) {
    execFileSync(process.execPath, ['esbuild.mjs'], { cwd: repoRoot, stdio: 'ignore' });
  }
}

/** Pids of live processes whose command line or environment mentions `needle` (a run id). */
export function processesMentioning(needle: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue; // a zombie is already dead, only not yet reaped
      const text = readFileSync(`/proc/${name}/cmdline`, 'latin1') + readFileSync(`/proc/${name}/environ`, 'latin1');
      if (text.includes(needle)) found.push(Number(name));
    } catch {
      // Exited while we looked, or not ours to read.
    }
  }
  return found;
}

export async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
