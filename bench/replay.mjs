// Replay speed and the end-to-end budget: trace entries replayed per second of CPU per variant
// (each variant runs on its own thread), and a synthetic snapshot of --bytes decoded from disk and
// replayed under four variants, with wall time and peak RSS of the whole process.
//
//   node bench/replay.mjs [--bytes 1000000000]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './replay-synthetic.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
// HEADROOM_NATIVE points at another build of the addon (as native/index.ts's loader allows).
const addon = process.env.HEADROOM_NATIVE ?? path.join(root, 'native', 'build', 'Release', 'headroom.node');
const i = process.argv.indexOf('--bytes');
const bytes = i > 0 ? Number(process.argv[i + 1]) : 1e9;
const variants = [
  {},
  { settings: 'expandable_segments:True' },
  { settings: 'max_split_size_mb:64' },
  { settings: 'roundup_power2_divisions:4', capacityBytes: 6 * 2 ** 30 },
];

/** Replays `file` under the four variants in a fresh process; returns timings, events and peak RSS. */
function replay(file) {
  const script = `
const a = require(${JSON.stringify(addon)});
a.init(class extends Error { constructor(m, c) { super(m); this.code = c; } });
(async () => {
  const t = process.hrtime.bigint();
  const r = await a.replaySnapshot(${JSON.stringify(file)}, { variants: ${JSON.stringify(variants)} });
  const wallMs = Number(process.hrtime.bigint() - t) / 1e6;
  console.log(JSON.stringify({ wallMs, events: r.source.events, timings: r.source.timings, maxRssMiB: process.resourceUsage().maxRSS / 1024,
    peaks: r.variants.map((v) => v.reservedPeakBytes) }));
})();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', maxBuffer: 1 << 24 }));
}

const files = readdirSync(path.join(root, 'test', 'fixtures', 'snapshots'))
  .filter((f) => f.endsWith('.pickle.gz'))
  .sort()
  .map((f) => path.join(root, 'test', 'fixtures', 'snapshots', f));
const dir = mkdtempSync(path.join(tmpdir(), 'headroom-bench-'));
const synthetic = path.join(dir, `synthetic-${bytes}.pickle`);
const generated = await generate(synthetic, bytes);
files.push(synthetic);

const rows = files.map((file) => {
  const r = replay(file);
  const perVariant = r.timings.variantCpuMs.map((ms) => r.events / (ms / 1e3) / 1e6);
  return {
    file: path.basename(file),
    MB: +(statSync(file).size / 1e6).toFixed(1),
    events: r.events,
    decodeCpuMs: +r.timings.decodeCpuMs.toFixed(0),
    planCpuMs: +r.timings.planCpuMs.toFixed(0),
    replayMeventsPerCpuSecond: perVariant.map((x) => +x.toFixed(1)).join(' / '),
    totalWallMs: +r.wallMs.toFixed(0),
    maxRssMiB: +r.maxRssMiB.toFixed(0),
  };
});
console.log(JSON.stringify({ date: new Date().toISOString(), cpu: cpus()[0]?.model, cores: cpus().length, loadavg: loadavg(), node: process.version, synthetic: generated }, null, 1));
console.table(rows);
