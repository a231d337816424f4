// Output of runs that did not fail gets only the verdict that no failure was found. The logs are real: a healthy one-GPU DDP run on the lent H200 with
// NCCL_DEBUG=INFO and the allocator's memory summary (bench/healthy-runs/gpu_train.py, docs/GPU-RESULTS.md), a two-rank
// gloo DDP run on CPU with metric lines, a metrics table and an error-rate line (bench/healthy-runs/cpu_gloo_train.py),
// and a DataLoader run printing Keras-style metrics. healthy/issues/ holds 40 public logs of runs that did not fail,
// gathered in rank order by two collectors who never saw the engine (README.md and README-2.md say how): slow runs, NaN
// losses, warnings, NCCL INFO lines, trainer tables, ZeRO step prints, vLLM's memory profiling, torchelastic's summary.
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { triageFile } from '../../server/src/triage/index';

const DIR = path.join(__dirname, '..', 'fixtures', 'healthy');

describe('healthy runs', () => {
  for (const dir of [DIR, path.join(DIR, 'issues')]) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.log'))) {
      it(`finds no failure in ${path.relative(DIR, path.join(dir, file))}`, async () => {
        const { verdicts } = await triageFile(path.join(dir, file));
        expect(verdicts.map((v) => [v.kind, v.noFailureFound])).toEqual([['not-oom', true]]);
      });
    }
  }
});
