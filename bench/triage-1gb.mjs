// Triage of a generated 1 GB log (step lines, one OOM at the very end), streamed from disk:
// prints time, peak RSS and the verdict, to show that size costs time but not memory.
// Usage: node bench/triage-1gb.mjs [sizeMB=1000]
import * as esbuild from 'esbuild';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const sizeMB = Number(process.argv[2] ?? 1000);
const dir = mkdtempSync(path.join(tmpdir(), 'headroom-1gb-'));
try {
  const bundle = path.join(dir, 'triage.cjs');
  await esbuild.build({ entryPoints: ['server/src/triage/index.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: bundle, logLevel: 'warning' });
  const { triageFile } = createRequire(import.meta.url)(bundle);
  const file = path.join(dir, 'big.log');
  const line = '[rank3]: 2026-11-29 22:41:07 | step 12345 | loss 2.3456 | lr 3.0e-04 | grad_norm 0.8812 | tokens/s 48213.5 | mem 71.2GiB\n';
  const block = line.repeat(Math.floor((8 << 20) / line.length));
  const fd = openSync(file, 'w');
  for (let written = 0; written < sizeMB * 1e6; written += block.length) writeSync(fd, block);
  writeSync(fd, '[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.19 GiB of which 1.05 GiB is free. Of the allocated memory 60.00 GiB is allocated by PyTorch, and 16.20 GiB is reserved by PyTorch but unallocated.\n');
  closeSync(fd);
  const t = process.hrtime.bigint();
  const report = await triageFile(file);
  const v = report.verdicts[0];
  console.log(JSON.stringify({ bytes: statSync(file).size, seconds: Number(process.hrtime.bigint() - t) / 1e9, peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024), kind: v?.kind, rank: v?.rank, line: v?.evidence[0]?.line }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
