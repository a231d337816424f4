import { describe, expect, it } from 'vitest';
import { analyzeFixture, analyzeText, applyEdits, fixture } from './analysis-helpers';

/** [rule, positive fixture, negative fixture, device]: each rule fires on the first and not on the second. */
const CASES: Array<[string, string, string, string]> = [
  ['HR001', 'accelerate_qwen.py', 'hf_llama_from_config.py', 'H100-80GB'],
  ['HR002', 'seed000_rccl_after_del.py', 'seed000_rccl_after_empty_cache.py', 'MI325X'],
  ['HR003', 'seed003_resident_adamw.py', 'seed003_locked.py', 'RNGD'],
  ['HR004', 'cuda_graph_capture_threads.py', 'cuda_graph_capture_thread_local.py', 'H100-80GB'],
  ['HR005', 'seed004_skip_collective.py', 'seed004_agree_on_failure.py', 'H100-80GB'],
  ['HR006', 'seed004_nccl_window.cpp', 'seed004_nccl_window_fixed.cu', 'H100-80GB'],
  ['HR007', 'seed004_nccl_window.cpp', 'seed004_nccl_window_fixed.cu', 'H100-80GB'],
  ['HR008', 'oom_retry_in_handler.py', 'oom_retry_after_handler.py', 'H100-80GB'],
  ['HR009', 'alloc_conf_problems.py', 'alloc_conf_good.py', 'H100-80GB'],
  ['HR010', 'alloc_conf_problems.py', 'alloc_conf_good.py', 'H100-80GB'],
];

describe('rules: positive and negative fixtures', () => {
  for (const [rule, positive, negative, device] of CASES) {
    it(`${rule} fires on ${positive}`, async () => {
      const { findings } = await analyzeFixture(positive, device);
      const hit = findings.filter((f) => f.rule === rule);
      expect(hit.length).toBeGreaterThan(0);
      for (const f of hit) expect(f.evidence.length).toBeGreaterThan(0);
    });
    it(`${rule} stays quiet on ${negative}`, async () => {
      const { findings } = await analyzeFixture(negative, device);
      expect(findings.filter((f) => f.rule === rule)).toEqual([]);
    });
  }

  it('HR002 only on ROCm targets (the same script completes on NVIDIA)', async () => {
    const { findings } = await analyzeFixture('seed000_rccl_after_del.py', 'H100-80GB');
    expect(findings.some((f) => f.rule === 'HR002')).toBe(false);
  });

  it('HR005 reports both the skipping handler and the rank-conditional barrier', async () => {
    const { findings } = await analyzeFixture('seed004_skip_collective.py');
    const lines = findings.filter((f) => f.rule === 'HR005').map((f) => f.loc.line + 1);
    expect(lines).toEqual([11, 16]);
  });

  it('HR009 names the key a misspelling meant and rejects max_split_size_mb below 20', async () => {
    const { findings } = await analyzeFixture('alloc_conf_problems.py');
    const messages = findings.filter((f) => f.rule === 'HR009').map((f) => `${f.message} ${f.fix}`);
    expect(messages.some((m) => m.includes('"expandable_segment"') && m.includes('"expandable_segments"'))).toBe(true);
    expect(messages.some((m) => m.includes('max_split_size_mb:10'))).toBe(true);
  });

  it('HR009 flags options cudaMallocAsync ignores, and max_split_size_mb with expandable segments', async () => {
    const { findings } = await analyzeFixture('alloc_conf_async_backend.py');
    const messages = findings.filter((f) => f.rule === 'HR009').map((f) => f.message);
    expect(messages.some((m) => m.includes('cudaMallocAsync ignores max_split_size_mb'))).toBe(true);
    expect(messages.some((m) => m.includes('#123548'))).toBe(true);
  });

  it('HR009 warns about expandable_segments on ROCm targets only', async () => {
    const rocm = await analyzeFixture('torchtitan_fsdp2.py', 'MI300X');
    const cuda = await analyzeFixture('torchtitan_fsdp2.py', 'H100-80GB');
    expect(rocm.findings.some((f) => f.rule === 'HR009' && f.message.includes('ROCm'))).toBe(true);
    expect(cuda.findings.some((f) => f.rule === 'HR009')).toBe(false);
  });

  it('every finding has a class from the contract', async () => {
    const classes = new Set(['cache-held-collective', 'global-state-race', 'rank-divergent-allocation', 'sticky-error', 'oom-handler-retention', 'alloc-conf', 'gc-threshold-without-fraction', 'plan-over-capacity']);
    for (const [, positive, , device] of CASES) {
      for (const f of (await analyzeFixture(positive, device)).findings) expect(classes.has(f.class)).toBe(true);
    }
  });
});

describe('quick fixes remove their finding', () => {
  const FIXABLE: Array<[string, string, string]> = [
    ['HR002', 'seed000_rccl_after_del.py', 'MI325X'],
    ['HR003', 'seed003_resident_adamw.py', 'RNGD'],
    ['HR004', 'cuda_graph_capture_threads.py', 'H100-80GB'],
    ['HR005', 'seed004_skip_collective.py', 'H100-80GB'],
    ['HR006', 'seed004_nccl_window.cpp', 'H100-80GB'],
    ['HR007', 'seed004_nccl_window.cpp', 'H100-80GB'],
    ['HR008', 'oom_retry_in_handler.py', 'H100-80GB'],
    ['HR010', 'alloc_conf_problems.py', 'H100-80GB'],
  ];
  for (const [rule, name, device] of FIXABLE) {
    it(`${rule} on ${name}`, async () => {
      const { file, text } = fixture(name);
      const before = (await analyzeText(file, text, device)).findings.filter((f) => f.rule === rule);
      const fix = before[0]?.codeFix;
      expect(fix).toBeDefined();
      const fixed = applyEdits(text, fix!.edits);
      const after = await analyzeText(file, fixed, device);
      expect(after.findings.filter((f) => f.rule === rule).length).toBeLessThan(before.length);
      if (name.endsWith('.py')) {
        // The fixed file still parses without syntax errors.
        expect(fixed).not.toBe(text);
      }
    });
  }

  it('HR009 fixes the conf string one problem at a time until none is left', async () => {
    const { file } = fixture('alloc_conf_problems.py');
    let text = fixture('alloc_conf_problems.py').text;
    for (let i = 0; i < 5; i++) {
      const f = (await analyzeText(file, text)).findings.find((x) => x.rule === 'HR009');
      if (!f) break;
      text = applyEdits(text, f.codeFix!.edits);
    }
    expect((await analyzeText(file, text)).findings.filter((f) => f.rule === 'HR009')).toEqual([]);
    // The misspelling is corrected, then max_split_size_mb goes (it fights expandable segments).
    expect(text).toContain('"expandable_segments:True,garbage_collection_threshold:0.6"');
  });

  it('HR001 fix enables gradient checkpointing and lowers the plan', async () => {
    const { file, text } = fixture('accelerate_qwen.py');
    const before = await analyzeText(file, text);
    const fixed = applyEdits(text, before.findings.find((x) => x.rule === 'HR001')!.codeFix!.edits);
    const after = await analyzeText(file, fixed);
    expect(after.facts?.checkpointing?.value).toBe(true);
    expect(after.plan!.perCardBytes).toBeLessThan(before.plan!.perCardBytes);
  });

  it('HR005 fix makes every rank agree before the collective', async () => {
    const { file, text } = fixture('seed004_skip_collective.py');
    const f = (await analyzeText(file, text)).findings.find((x) => x.rule === 'HR005')!;
    const fixed = applyEdits(text, f.codeFix!.edits);
    expect(fixed).toContain([
      '    ok = torch.ones(1, device="cuda")  # 1 while this rank\'s allocation succeeded',
      '    try:',
      '        workspace = torch.empty(1 << 34, dtype=torch.uint8, device="cuda")',
      '    except torch.OutOfMemoryError:',
      '        print(f"rank {rank}: no workspace, skipping step {step}")',
      '        ok.zero_()',
      '    dist.all_reduce(ok, op=dist.ReduceOp.MIN)',
      '    if ok.item() == 0:  # some rank failed: every rank skips together',
      '        continue',
      '    dist.all_reduce(grad)',
    ].join('\n'));
  });

  it('HR008 fix moves the retry after the handler', async () => {
    const { file, text } = fixture('oom_retry_in_handler.py');
    const f = (await analyzeText(file, text)).findings.find((x) => x.rule === 'HR008')!;
    const fixed = applyEdits(text, f.codeFix!.edits);
    expect(fixed).toContain('    oom = False\n    try:');
    expect(fixed).toContain('        oom = True\n    if oom:\n        torch.cuda.empty_cache()\n        return train_step(model, optimizer, half)');
  });
});
