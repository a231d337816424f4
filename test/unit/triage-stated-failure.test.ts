// The last resort (signatures/statedFailure.ts): a failure the log states in words near its end, in a form no signature
// reads, is a not-oom; an ordinary log's talk of errors, and an unread failure about memory, are not.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('a failure stated near the end of the log', () => {
  it('is a not-oom at the last line that states it', () => {
    const log = ['step 40 loss 2.31', 'step 41 loss 2.29', 'sync: remote bucket gs://runs/x failed: permission denied', 'giving up after 3 attempts'];
    const v = root(log.join('\n'));
    expect(v).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false, evidence: [{ line: 3 }] });
    expect(v!.summary).toContain('gs://runs/x failed: permission denied');
    expect(v!.fixes[0]!.id).toBe('look-at-failure');
    expect(root('FATAL: dataset shard 17 has a bad header\n')?.kind).toBe('not-oom');
    expect(root('srun: error: node-a07: tasks 0-7: Terminated\nsrun: Terminating job step 901.0')?.kind).toBe('not-oom');
  });

  it('takes the platform the rest of the tail names, as the tail pass does', () => {
    const log = ['Using device cuda:0 (NVIDIA A10G)', 'epoch 1/3', 'upload of checkpoint-500 failed: connection reset by peer'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });

  it('keeps the rank of a prefixed line', () => {
    expect(root('[rank5]: shard loader crashed on file part-00031')).toMatchObject({ kind: 'not-oom', rank: 5 });
  });

  it('says nothing when the last stated failure is about memory or a kill', () => {
    expect(root('worker pool: failed to reserve pinned memory for batch 12')).toBeUndefined();
    expect(root('job 77 failed: container killed')).toBeUndefined();
    // The earlier failure is not taken instead: the log ended on the memory one.
    expect(root('upload failed: timeout\nstep 9\nbuffer manager failed to allocate 4 chunks')).toBeUndefined();
  });

  it('reads nothing into an ordinary log that talks of errors', () => {
    const benign = [
      'WARNING: retrying request after a connection error',
      'FutureWarning: the fused kernel failed to compile and the eager path is used',
      'epoch 3 | train_error: 0.081 | val error rate 0.094',
      '0 tests failed out of 212',
      'no errors found in 3 shards',
      'I1130 12:00:01.000000 4412 server.cc:88] connection error handler installed',
      'ignoring failed health probe (attempt 1 of 5)',
    ];
    for (const line of benign) expect(root(`step 1\n${line}\nstep 2`), line).toBeUndefined();
  });

  it("reads nothing into a healthy run's last lines (metrics, tables, states, paths, counts, handled retries)", () => {
    const healthy = [
      ['Epoch 4/4', '938/938 [====] - 4s 4ms/step - loss: 0.21 - error: 0.07 - val_loss: 0.25 - val_error: 0.08'],
      ['step 900 eval/error: 0.12 eval/loss: 0.41', 'wandb:  eval/error 0.1170'],
      ['| metric | value |', '| error | 0.12 |'],
      ['Trial status: 4 TERMINATED', '| trial_3 | TERMINATED | 0.91 |', 'Number of trials: 4/4 (4 TERMINATED)'],
      ['    State:          Terminated', '      Reason:       Completed', '      Exit Code:    0'],
      ['Writing predictions to /data/runs/error-study/preds.csv', 'Enabled fail-safe checkpoint every 200 steps'],
      ['Fetched 40 shards, failed: 0', '===== 12 passed, 0 failed in 3.10s =====', 'Cancelled 0 pending uploads on exit'],
      ['Batch size 128 failed, trying batch size 64', 'Batch size 64 succeeded'],
      ['worker 2 terminated normally', 'Request timed out; retrying (2/5)', 'upload complete'],
      ['I1201 08:00:00.000 runner.cc:10] set NCCL_DEBUG=INFO', 'fatal: not a git repository (or any parent up to mount point /)', 'epoch 3 step 120 loss 0.9'],
      ['[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign requested address).'],
    ];
    for (const lines of healthy) expect(root(lines.join('\n')), lines.join(' / ')).toBeUndefined();
  });

  it('reads no out-of-memory line the run recovered from, or that a setting or a log level names', () => {
    for (const lines of [
      ['step 50: out of memory at batch 64, halving and continuing', 'step 51 loss 1.2'],
      ['[INFO] autobatch: out of memory at 256; retrying with 128'],
      ['oom_action = "out of memory -> skip batch"'],
      ['tests/test_outofmemory.py::test_recover PASSED', '===== 1 passed in 0.5s ====='],
    ]) expect(root(lines.join('\n')), lines.join(' / ')).toBeUndefined();
  });

  it('lets a later failure of its own win over an out-of-memory line far above it', () => {
    const lines = ['pool: out of memory for prefetch buffer', ...Array.from({ length: 10 }, (_, i) => `shard ${i} read`), 'FATAL: checksum mismatch in shard 9'];
    expect(root(lines.join('\n'))).toMatchObject({ kind: 'not-oom' });
  });

  it('reads only the last lines: a failure the run went on from is not how it ended', () => {
    const lines = ['download of mirror 2 failed, using mirror 3', ...Array.from({ length: 30 }, (_, i) => `step ${i} loss ${(2 - i / 20).toFixed(2)}`)];
    expect(root(lines.join('\n'))).toBeUndefined();
  });
});

describe('a log that ends inside the frames of a traceback, with neither header nor exception line', () => {
  it('is a not-oom at the first frame, with the frames as its stack', () => {
    const log = [
      'epoch 2 step 118 loss 1.93',
      '  File "/srv/app/train/loop.py", line 212, in run_step',
      '    logits = self.model(batch)',
      '  File "/srv/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1751, in _call_impl',
      '    return forward_call(*args, **kwargs)',
      '  File "/srv/app/train/model.py", line 64, in forward',
      '    h = self.blocks(h)',
    ];
    const v = root(log.join('\n'));
    expect(v).toMatchObject({ kind: 'not-oom', catchable: false, evidence: [{ line: 2 }] });
    expect(v!.userFrames[0]).toMatchObject({ file: '/srv/app/train/model.py', line: 64 });
  });

  it('needs two frames, so an indented table or a lone frame line is none', () => {
    expect(root(['done in 31 s', '  accuracy   0.91', '  f1         0.88'].join('\n'))).toBeUndefined();
    expect(root(['step 9 loss 0.4', '  File "/srv/app/x.py", line 3, in main'].join('\n'))).toBeUndefined();
  });
});
