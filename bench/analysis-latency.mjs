// Diagnostics latency after an edit on a 2,000-line training script: incremental reparse + facts +
// plan + all rules, as the language server runs them on didChange. Prints a markdown table for
// docs/BENCHMARKS.md.
// Usage: node bench/analysis-latency.mjs [edits=300]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as esbuild from 'esbuild';

const edits = Number(process.argv[2] ?? 300);
const loadBefore = loadavg();
const dir = mkdtempSync(path.join(tmpdir(), 'headroom-analysis-bench-'));

// Bundle the analysis entry points once; the bundle finds the grammars in node_modules.
const entry = path.join(dir, 'entry.ts');
writeFileSync(entry, `export { analyzeDocument, resolveDevice } from ${JSON.stringify(path.resolve('server/src/analysis/analyze.ts'))};\nexport { ParsedDocument } from ${JSON.stringify(path.resolve('server/src/analysis/parser.ts'))};\n`);
await esbuild.build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: path.join(dir, 'analysis.cjs'), logLevel: 'warning' });
const { createRequire } = await import('node:module');
const { analyzeDocument, resolveDevice, ParsedDocument } = createRequire(import.meta.url)(path.join(dir, 'analysis.cjs'));

/** A deterministic 2,000-line script: a Llama fine-tuning loop plus many helpers of the usual kinds. */
function script(lines) {
  const head = `"""Fine-tune Llama-3.1-8B with FSDP.

    torchrun --nproc_per_node=8 train.py
"""
import argparse
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import torch
import torch.distributed as dist
from transformers import AutoModelForCausalLM

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True,garbage_collection_threshold:0.8"
parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", type=int, default=2)
parser.add_argument("--seq-len", type=int, default=4096)
parser.add_argument("--gradient-accumulation-steps", type=int, default=8)
args = parser.parse_args()
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B", torch_dtype=torch.bfloat16)
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
`;
  const helpers = [];
  for (let k = 0; helpers.join('').split('\n').length + head.split('\n').length < lines - 10; k++) {
    helpers.push(`

def step_${k}(batch, scale=${k + 1}):
    """Helper ${k}: one micro-step with logging."""
    try:
        out = model(input_ids=batch["input_ids"].to("cuda", non_blocking=True), labels=batch["labels"].cuda())
        loss = out.loss / args.gradient_accumulation_steps * scale
        loss.backward()
    except torch.OutOfMemoryError:
        torch.cuda.empty_cache()
        return None
    if ${k} % 7 == 0:
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        dist.all_reduce(grad_norm)
    stats = {"loss": loss.item(), "step": ${k}, "lr": optimizer.param_groups[0]["lr"]}
    return stats`);
  }
  const tail = `

def main():
    pool = ThreadPoolExecutor(max_workers=2)
    for i in range(1000):
        batch = {"input_ids": torch.randint(0, 128256, (args.batch_size, args.seq_len)), "labels": None}
        futures = [pool.submit(step_0, batch)]
        for f in futures:
            f.result()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


if __name__ == "__main__":
    main()
`;
  return head + helpers.join('') + tail;
}

const text = script(2000);
const lineCount = text.split('\n').length;
const file = path.join(dir, 'train.py');
const device = resolveDevice('H100-80GB');

// Cold: first parse + analysis (includes loading the wasm grammars once).
let t0 = performance.now();
const doc = await ParsedDocument.create('python', text);
let result = analyzeDocument(doc, file, device);
const coldMs = performance.now() - t0;

// Full parse + analysis without reuse, for comparison.
const full = [];
for (let i = 0; i < 30; i++) {
  t0 = performance.now();
  const fresh = await ParsedDocument.create('python', text);
  analyzeDocument(fresh, file, device);
  full.push(performance.now() - t0);
  fresh.dispose();
}

// Edits: type one character into a random line (deterministic), then re-analyze incrementally.
let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
let current = text;
const parseMs = [];
const totalMs = [];
// CPU time of this process per edit: on a shared machine wall time also counts the time other
// processes held the cores, so both are reported.
const cpuMs = [];
for (let i = 0; i < edits; i++) {
  const lines = current.split('\n');
  const line = 20 + Math.floor(rnd() * (lines.length - 40));
  lines[line] = lines[line] + (i % 2 === 0 ? ' ' : '');
  if (i % 2 === 1) lines[line] = lines[line].trimEnd();
  current = lines.join('\n');
  const c0 = process.cpuUsage();
  t0 = performance.now();
  doc.update(current);
  const t1 = performance.now();
  result = analyzeDocument(doc, file, device);
  const t2 = performance.now();
  const c1 = process.cpuUsage(c0);
  parseMs.push(t1 - t0);
  totalMs.push(t2 - t0);
  cpuMs.push((c1.user + c1.system) / 1000);
}
doc.dispose();
rmSync(dir, { recursive: true, force: true });

const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const f = (x) => x.toFixed(1);
console.log(`Load average before/after: ${loadBefore.map((x) => x.toFixed(2)).join(' ')} / ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`Script: ${lineCount} lines, ${text.length} chars; ${result.findings.length} findings, plan ${result.plan ? 'yes' : 'no'}; ${cpus()[0].model}, Node ${process.version}\n`);
console.log('| measurement | p50 ms | p95 ms | max ms |');
console.log('| --- | --- | --- | --- |');
console.log(`| edit -> diagnostics (incremental reparse + facts + plan + rules), ${edits} edits | ${f(q(totalMs, 0.5))} | ${f(q(totalMs, 0.95))} | ${f(Math.max(...totalMs))} |`);
console.log(`| same edits, CPU time of the process (user + system) | ${f(q(cpuMs, 0.5))} | ${f(q(cpuMs, 0.95))} | ${f(Math.max(...cpuMs))} |`);
console.log(`| of which incremental reparse | ${f(q(parseMs, 0.5))} | ${f(q(parseMs, 0.95))} | ${f(Math.max(...parseMs))} |`);
console.log(`| full parse + analysis, no reuse (30 runs) | ${f(q(full, 0.5))} | ${f(q(full, 0.95))} | ${f(Math.max(...full))} |`);
console.log(`| first analysis in a process (loads the grammars) | ${f(coldMs)} | | |`);
