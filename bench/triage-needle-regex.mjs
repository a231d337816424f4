// Times the streaming scan's per-line needle check (engine.ts mayMatch: one regex of every hot signature's needles) over
// the DeepSpeed-style memory lines of bench/triage-throughput.mjs's memory-heavy log, the lines every anchor hits. For
// weighing a new needle: each alternative costs every such line.
// Usage: node bench/triage-needle-regex.mjs [lines] [runs] [--with NEEDLE ...]
// With --with, each candidate needle is added to the engine's set in its own regex, and all the regexes are timed
// interleaved in one process (the VM's speed drifts between runs, so separate runs do not compare).
import * as esbuild from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const withAt = process.argv.indexOf('--with');
const positional = process.argv.slice(2, withAt < 0 ? undefined : withAt);
const candidates = withAt < 0 ? [] : process.argv.slice(withAt + 1);
const count = Number(positional[0] ?? 82000);
const runs = Number(positional[1] ?? (candidates.length > 0 ? 15 : 7));
const dir = mkdtempSync(path.join(tmpdir(), 'headroom-needles-'));
try {
  const outfile = path.join(dir, 'signatures.cjs');
  await esbuild.build({ entryPoints: ['server/src/triage/signatures/index.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, logLevel: 'warning' });
  const { ALL_SIGNATURES } = await import(pathToFileURL(outfile).href);
  const needles = [...new Set(ALL_SIGNATURES.flatMap((s) => s.needles))];
  // The engine escapes each needle as a literal (maskedLiteral); these are all ASCII, so escaping is all it does.
  const regexOf = (list) => new RegExp(list.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
  const sets = [{ name: `${needles.length} needles`, pattern: regexOf(needles) }, ...candidates.map((c) => ({ name: `+ '${c}'`, pattern: regexOf([...needles, c]) }))];
  const lines = Array.from({ length: count }, (_, i) => `[rank${i % 8}]: [2026-11-29 22:41:07,469] [INFO] [utils.py:830:see_memory_usage] step ${i} MA ${(11 + (i % 97) / 100).toFixed(2)} GB         Max_MA 11.76 GB         CA 11.77 GB         Max_CA 12 GB  CPU Virtual Memory:  used = 28.43 GB, percent = 22.6%`);
  const times = sets.map(() => []);
  for (let r = 0; r < runs; r++) {
    sets.forEach(({ pattern }, i) => {
      const start = performance.now();
      let hits = 0;
      for (const line of lines) if (pattern.test(line)) hits++;
      times[i].push(performance.now() - start);
      if (hits !== 0) throw new Error(`a needle matched a memory report line (${hits} lines)`);
    });
  }
  sets.forEach(({ name }, i) => {
    const t = times[i].sort((a, b) => a - b);
    console.log(`${name}, ${count} memory lines: median ${t[runs >> 1].toFixed(1)} ms, best ${t[0].toFixed(1)} ms`);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
