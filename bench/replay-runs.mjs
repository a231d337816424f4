// Repeated end-to-end runs of the 1 GB budget: a snapshot decoded from disk and replayed under the
// four variants of bench/replay.mjs, each run in a fresh Node process, one summary line per run
// (wall, decode, pairing, per-variant rates, peak RSS). For spread across runs, which a single
// bench/replay.mjs run does not show.
//
//   node bench/replay-runs.mjs SNAPSHOT [--runs 5]
//   (HEADROOM_NATIVE=<addon> to measure another build; prefix with `taskset -c 0-1` for two cores)
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const addon = process.env.HEADROOM_NATIVE ?? path.join(here, '..', 'native', 'build', 'Release', 'headroom.node');
const file = process.argv[2];
if (!file) throw new Error('usage: node bench/replay-runs.mjs SNAPSHOT [--runs N]');
const i = process.argv.indexOf('--runs');
const runs = i > 0 ? Number(process.argv[i + 1]) : 5;
const variants = [
  {},
  { settings: 'expandable_segments:True' },
  { settings: 'max_split_size_mb:64' },
  { settings: 'roundup_power2_divisions:4', capacityBytes: 6 * 2 ** 30 },
];
const script = `
const a = require(${JSON.stringify(addon)});
a.init(class extends Error { constructor(m, c) { super(m); this.code = c; } });
(async () => {
  const t = process.hrtime.bigint();
  const r = await a.replaySnapshot(${JSON.stringify(file)}, { variants: ${JSON.stringify(variants)} });
  console.log(JSON.stringify({ wallMs: Number(process.hrtime.bigint() - t) / 1e6, events: r.source.events,
    timings: r.source.timings, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
})();`;
for (let run = 1; run <= runs; run++) {
  const r = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
  const t = r.timings;
  const rates = t.variantCpuMs.map((ms) => (r.events / ms / 1e3).toFixed(1)).join(' / ');
  console.log(
    `run ${run}: wall ${r.wallMs.toFixed(0)} ms, decode ${t.decodeMs.toFixed(0)} ms (CPU ${t.decodeCpuMs.toFixed(0)}), ` +
      `pairing ${t.planMs.toFixed(0)} ms, replay ${rates} M entries per CPU s, peak RSS ${r.maxRssMiB.toFixed(0)} MiB`,
  );
}
