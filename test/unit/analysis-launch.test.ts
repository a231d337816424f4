import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFile, resolveDevice } from '../../server/src/analysis/analyze';
import { applyEdits, SCRIPTS } from './analysis-helpers';

const device = resolveDevice('H100-80GB');

describe('launch scripts', () => {
  it('applies the launcher world size and the script arguments to the plan', async () => {
    const { facts, plan } = await analyzeFile(path.join(SCRIPTS, 'launch', 'train_fsdp.py'), device);
    expect(facts?.worldSize?.value).toBe(16);
    expect(facts?.batchSize?.value).toBe(4);
    expect(facts?.seqLen?.value).toBe(4096);
    expect(facts?.checkpointing?.value).toBe(true);
    expect(plan?.assumptions.some((a) => a.includes('run.sh:6'))).toBe(true);
    // expandable_segments exported by run.sh lowers the fragmentation margin to 2%.
    const margin = plan!.breakdown.find((b) => b.key === 'fragmentationMargin')!;
    expect(margin.bytes).toBe(Math.round(plan!.allocatedPeakBytes * 0.02));
  });

  it('HR010 on a launch script whose training script sets no memory fraction', async () => {
    const { findings } = await analyzeFile(path.join(SCRIPTS, 'launch', 'run.sh'), device);
    expect(findings.map((f) => f.rule)).toEqual(['HR010']);
    expect(findings[0]!.loc.line).toBe(4);
  });

  it('HR009 fixes a misspelled key inside a quoted shell value', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'headroom-launch-'));
    const file = path.join(dir, 'go.sh');
    const text = 'export PYTORCH_CUDA_ALLOC_CONF="expandable_segmnts:True"\npython train.py\n';
    writeFileSync(file, text);
    const { findings } = await analyzeFile(file, device);
    const f = findings.find((x) => x.rule === 'HR009')!;
    expect(applyEdits(text, f.codeFix!.edits)).toBe('export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True"\npython train.py\n');
  });
});
