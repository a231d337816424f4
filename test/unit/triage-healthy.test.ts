// Output of runs that did not fail gets no verdict. The logs are real: a healthy one-GPU DDP run on the lent H200 with
// NCCL_DEBUG=INFO and the allocator's memory summary (bench/healthy-runs/gpu_train.py, docs/GPU-RESULTS.md), a two-rank
// gloo DDP run on CPU with metric lines, a metrics table and an error-rate line (bench/healthy-runs/cpu_gloo_train.py),
// and a DataLoader run printing Keras-style metrics.
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { triageFile } from '../../server/src/triage/index';

const DIR = path.join(__dirname, '..', 'fixtures', 'healthy');

describe('healthy runs', () => {
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.log'))) {
    it(`finds no failure in ${file}`, async () => {
      expect((await triageFile(path.join(DIR, file))).verdicts).toEqual([]);
    });
  }
});
