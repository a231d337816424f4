// Decode speed: Headroom's native allow-listed decoder against CPython's C `pickle.load` on the
// same uncompressed files, in the same run. Reports wall time and CPU time (the decoder's thread,
// CPython's process_time), best of N, and the decoder's peak RSS in a fresh process.
//
//   node bench/decode.mjs [--synthetic-bytes 100000000] [--repeat 3]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { generate } from './replay-synthetic.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
// HEADROOM_NATIVE points at another build of the addon (as native/index.ts's loader allows).
const addon = process.env.HEADROOM_NATIVE ?? path.join(root, 'native', 'build', 'Release', 'headroom.node');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const repeat = arg('--repeat', 3);
const syntheticBytes = arg('--synthetic-bytes', 100_000_000);

/** Decodes `file` in a fresh Node process; returns {wallMs, cpuMs, maxRssMiB} (best of `repeat`). */
function nativeDecode(file) {
  const script = `
const a = require(${JSON.stringify(addon)});
a.init(class extends Error { constructor(m, c) { super(m); this.code = c; } });
(async () => {
  const runs = [];
  for (let i = 0; i < ${repeat}; i++) {
    const t = process.hrtime.bigint();
    const r = await a.replaySnapshot(${JSON.stringify(file)}, { variants: [] });
    runs.push({ wallMs: Number(process.hrtime.bigint() - t) / 1e6, cpuMs: r.source.timings.decodeCpuMs, events: r.source.events });
  }
  const best = runs.reduce((a, b) => (b.cpuMs < a.cpuMs ? b : a));
  console.log(JSON.stringify({ ...best, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
})();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
}

/** CPython's pickle.load of the same file (best of `repeat`), timed inside the interpreter. */
function pythonLoad(file) {
  const script = `
import json, pickle, sys, time
best = None
for _ in range(${repeat}):
    with open(sys.argv[1], "rb") as f:
        w, c = time.perf_counter(), time.process_time()
        obj = pickle.load(f)
        run = {"wallMs": (time.perf_counter() - w) * 1e3, "cpuMs": (time.process_time() - c) * 1e3}
    del obj
    best = run if best is None or run["cpuMs"] < best["cpuMs"] else best
print(json.dumps(best))`;
  const run = spawnSync('python3', ['-c', script, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

const dir = mkdtempSync(path.join(tmpdir(), 'headroom-bench-'));
const files = [];
const fixtures = path.join(root, 'test', 'fixtures', 'snapshots');
for (const name of readdirSync(fixtures).filter((f) => f.endsWith('.pickle.gz')).sort()) {
  const out = path.join(dir, name.replace(/\.gz$/, ''));
  writeFileSync(out, gunzipSync(readFileSync(path.join(fixtures, name))));
  files.push(out);
}
if (syntheticBytes > 0) {
  const out = path.join(dir, `synthetic-${syntheticBytes}.pickle`);
  await generate(out, syntheticBytes);
  files.push(out);
}

const rows = [];
for (const file of files) {
  const mb = statSync(file).size / 1e6;
  const n = nativeDecode(file);
  const p = pythonLoad(file);
  rows.push({
    file: path.basename(file),
    MB: +mb.toFixed(1),
    events: n.events,
    nativeCpuMs: +n.cpuMs.toFixed(1),
    nativeWallMs: +n.wallMs.toFixed(1),
    pythonCpuMs: +p.cpuMs.toFixed(1),
    pythonWallMs: +p.wallMs.toFixed(1),
    speedupCpu: +(p.cpuMs / n.cpuMs).toFixed(2),
    nativeMBps: +(mb / (n.cpuMs / 1e3)).toFixed(1),
    nativeMaxRssMiB: +n.maxRssMiB.toFixed(0),
  });
}
console.log(JSON.stringify({ date: new Date().toISOString(), cpu: cpus()[0]?.model, cores: cpus().length, loadavg: loadavg(), python: execFileSync('python3', ['--version'], { encoding: 'utf8' }).trim(), node: process.version }, null, 1));
console.table(rows);
