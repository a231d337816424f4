// The message classes blind batch 33 showed the engine did not read: Determined's `[rank=N]` prefix, torch_npu's RankID above
// an EL0004 block, docker compose's service prefix, a MemoryError behind a logger's timestamp, and TSL's FATAL log line.
// Each test is a variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('ranks', () => {
  it("reads Determined's [rank=N] prefix", () => {
    const log = '[container-1] [rank=3] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 3 has a total capacity of 23.65 GiB of which 100.00 MiB is free.';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', rank: 3, device: 3 });
  });

  it("reads the rank from torch_npu's suffix above an EL0004 block", () => {
    const log = [
      '[ERROR] 2025-01-09-08:00:00 (PID:4411, Device:5, RankID:13) ERR00100 PTA call acl api failed',
      'EL0004: 2025-01-09-08:00:00.000.001 Failed to allocate memory.',
      '        Possible Cause: Available memory is insufficient.',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'npu', device: 5, rank: 13 });
  });
});

describe('prefixes that are not the program', () => {
  it("reads lines behind docker compose's service prefix, not loguru's level column", () => {
    const log = ['trainer_1   | Traceback (most recent call last):', 'trainer_1   |   File "/app/fit.py", line 31, in <module>', 'trainer_1   |     batch = load_all()', 'trainer_1   | MemoryError'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', userFrames: [{ file: '/app/fit.py', line: 31 }] });
    expect(root('ERROR    | pipeline.run:main:40 - worker crashed while parsing shard 12')).toMatchObject({ kind: 'not-oom' });
  });

  it("reads a MemoryError behind a logger's timestamp and bracketed field", () => {
    expect(root('2021-03-04 11:22:33+0000 [-] MemoryError')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });
});

describe("TSL's FATAL log line", () => {
  it('is a not-oom abort at the check it names', () => {
    const log = '2025-02-01 10:11:12.123456: F ./xla/service/shape_inference.cc:88] Non-OK-status: status: INTERNAL: unexpected operand shape';
    const v = root(log);
    expect(v).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(v!.summary).toContain('shape_inference.cc:88');
  });
});
