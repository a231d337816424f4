// Triage throughput on generated 100 MB multi-rank training logs, against `grep -E` with the same
// signature needles on the same file. Two logs: "plain" (step lines, NCCL INFO, warnings) and
// "memory-heavy" (10% of lines are DeepSpeed-style memory reports, so they all become candidate
// lines for triage). Prints markdown tables for docs/BENCHMARKS.md.
// Usage: node bench/triage-throughput.mjs [sizeMB=100] [runs=5]
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir, cpus, loadavg } from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const sizeMB = Number(process.argv[2] ?? 100);
const runs = Number(process.argv[3] ?? 5);
const dir = mkdtempSync(path.join(tmpdir(), 'headroom-bench-'));
const log = path.join(dir, 'train.log');

/** A deterministic pseudo-random log: step lines from 8 ranks, NCCL INFO, warnings, one OOM cascade at the end. */
async function writeLog(file, bytes, memoryShare) {
  const out = createWriteStream(file);
  let seed = 42;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  let written = 0;
  let step = 0;
  const write = async (s) => {
    written += Buffer.byteLength(s);
    if (!out.write(s)) await once(out, 'drain');
  };
  while (written < bytes - 8192) {
    const rank = Math.floor(rnd() * 8);
    const r = rnd();
    if (rnd() < memoryShare) await write(`[rank${rank}]: [2026-11-29 22:41:07,469] [INFO] [utils.py:830:see_memory_usage] step ${step} MA ${(11 + rnd()).toFixed(2)} GB         Max_MA 11.76 GB         CA 11.77 GB         Max_CA 12 GB  CPU Virtual Memory:  used = 28.43 GB, percent = 22.6%\n`);
    else if (r < 0.8) await write(`[rank${rank}]: 2026-11-29 22:${String(step % 60).padStart(2, '0')}:07 | step ${step++} | loss ${(2 + rnd()).toFixed(4)} | lr 3.0e-04 | grad_norm ${rnd().toFixed(4)} | tokens/s ${(48000 + rnd() * 1000).toFixed(1)} | mem ${(70 + rnd()).toFixed(1)}GiB\n`);
    else if (r < 0.95) await write(`node17:${3000 + rank}:${4000 + rank} [${rank}] NCCL INFO Channel ${String(Math.floor(rnd() * 32)).padStart(2, '0')}/0 : ${rank}[${rank}] -> ${(rank + 1) % 8}[${(rank + 1) % 8}] via P2P/CUMEM/read\n`);
    else if (r < 0.99) await write(`[rank${rank}]: /opt/venv/lib/python3.12/site-packages/torch/utils/checkpoint.py:295: UserWarning: None of the inputs have requires_grad=True. Gradients will be None\n`);
    else await write(`[rank${rank}]: Traceback (most recent call last):\n[rank${rank}]:   File "/work/train.py", line ${Math.floor(rnd() * 300)}, in step\n[rank${rank}]: ValueError: batch ${step} had no tokens, skipped\n`);
  }
  await write('[rank3]: Traceback (most recent call last):\n[rank3]:   File "/work/train.py", line 212, in step\n[rank3]:     logits = model(tokens)\n');
  await write('[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 3 has a total capacity of 79.19 GiB of which 1.05 GiB is free. Including non-PyTorch memory, this process has 78.13 GiB memory in use. Of the allocated memory 60.00 GiB is allocated by PyTorch, and 16.20 GiB is reserved by PyTorch but unallocated.\n');
  for (const rank of [0, 1, 2, 4, 5, 6, 7]) await write(`[rank${rank}]:[E1130 02:07:08.408 ProcessGroupNCCL.cpp:607] [Rank ${rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=91580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.\n`);
  out.end();
  await once(out, 'finish');
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

try {
  const bundle = path.join(dir, 'triage.cjs');
  await esbuild.build({ entryPoints: ['server/src/triage/index.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: bundle, logLevel: 'warning' });
  const sigBundle = path.join(dir, 'signatures.cjs');
  await esbuild.build({ entryPoints: ['server/src/triage/signatures/index.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: sigBundle, logLevel: 'warning' });
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const { ALL_SIGNATURES } = require(sigBundle);
  const needles = [...new Set(ALL_SIGNATURES.flatMap((s) => s.needles))];
  const ere = path.join(dir, 'needles.ere');
  writeFileSync(ere, needles.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\n') + '\n');
  // Triage runs in a fresh process each time so its peak RSS is its own.
  const runner = path.join(dir, 'run.cjs');
  writeFileSync(runner, `const { triageFile } = require(${JSON.stringify(bundle)});
const t = process.hrtime.bigint();
triageFile(process.argv[2]).then((r) => {
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  console.log(JSON.stringify({ ms, maxRssKiB: process.resourceUsage().maxRSS, verdicts: r.verdicts.map((v) => v.kind + (v.causedBy !== undefined ? '<-' + v.causedBy : '')) }));
});`);
  console.log(`| log | tool | median of ${runs} | best | throughput (median) | result |`);
  console.log('| --- | --- | --- | --- | --- | --- |');
  const ratios = [];
  for (const [name, memoryShare] of [['plain', 0], ['memory-heavy', 0.1]]) {
    await writeLog(log, sizeMB * 1e6, memoryShare);
    const bytes = statSync(log).size;
    // Warm the page cache for both tools.
    execFileSync('cat', [log], { stdio: ['ignore', 'ignore', 'inherit'] });
    // Interleaved runs, so both tools see the same machine load.
    const grepTimes = [];
    const triage = [];
    let grepHits = '';
    for (let i = 0; i < runs; i++) {
      const t = process.hrtime.bigint();
      grepHits = execFileSync('grep', ['-c', '-E', '-f', ere, log], { encoding: 'utf8' }).trim();
      grepTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
      triage.push(JSON.parse(execFileSync(process.execPath, [runner, log], { encoding: 'utf8' })));
    }
    const grepMs = median(grepTimes);
    const triageMs = median(triage.map((r) => r.ms));
    const grepBest = Math.min(...grepTimes);
    const triageBest = Math.min(...triage.map((r) => r.ms));
    const mbps = (ms) => ((bytes / 1e6) / (ms / 1e3)).toFixed(0);
    console.log(`| ${name} (${(bytes / 1e6).toFixed(1)} MB) | grep -E -c -f needles.ere (${needles.length} needles) | ${grepMs.toFixed(0)} ms | ${grepBest.toFixed(0)} ms | ${mbps(grepMs)} MB/s | ${grepHits} matching lines |`);
    console.log(`| ${name} | headroom triage (triageFile, streaming) | ${triageMs.toFixed(0)} ms | ${triageBest.toFixed(0)} ms | ${mbps(triageMs)} MB/s | ${triage[0].verdicts.join(', ')}; peak RSS ${Math.max(...triage.map((r) => r.maxRssKiB)) / 1024 | 0} MiB |`);
    ratios.push(`${name} ${(grepMs / triageMs).toFixed(2)}x (best-of: ${(grepBest / triageBest).toFixed(2)}x)`);
  }
  console.log(`\nTriage/grep throughput ratio (median): ${ratios.join(', ')}. Load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}.`);
  console.log(`Machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, node ${process.version}, ${execFileSync('grep', ['--version'], { encoding: 'utf8' }).split('\n')[0]}.`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
