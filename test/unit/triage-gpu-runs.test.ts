// Real multi-GPU failures, as torchrun's console showed them on two H200s (bench/triage-gpu-logs/run.sh, torch 2.11,
// NCCL 2.28; docs/GPU-RESULTS.md): the OOM on one rank is the root, and the other rank's watchdog timeout is linked to it,
// with the flight recorder's stack of the collective that never finished as the hang's frames.
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { triageFile } from '../../server/src/triage/index';

const DIR = path.join(__dirname, '..', 'fixtures', 'gpu-runs');
const verdictsOf = async (name: string) => (await triageFile(path.join(DIR, name))).verdicts;

describe('two-GPU runs under torchrun', () => {
  it('reads an uncaught OOM on rank 1 as the root, before torchrun kills rank 0', async () => {
    const verdicts = await verdictsOf('oom-then-timeout.log');
    expect(verdicts[0]).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', rank: 1, device: 1, requestedBytes: Math.round(146.36 * 2 ** 30) });
    expect(verdicts[0]!.userFrames[0]).toMatchObject({ file: '/work/main/bench/triage-gpu-logs/oom_then_timeout.py', line: 23 });
    expect(verdicts.every((v) => v.kind !== 'hang')).toBe(true);
  });

  it("links rank 0's watchdog timeout to rank 1's OOM, at the all_reduce the flight recorder names", async () => {
    const [oom, hang, ...rest] = await verdictsOf('oom-then-watchdog.log');
    expect(oom).toMatchObject({ kind: 'catchable-oom', rank: 1 });
    expect(hang).toMatchObject({ kind: 'hang', rank: 0, causedBy: 0 });
    expect(hang!.userFrames[0]).toMatchObject({ file: '/work/main/bench/triage-gpu-logs/oom_then_timeout.py', line: 24 });
    expect(rest).toEqual([]);
  });

  it('reads the OOM rank 1 caught and skipped a collective for as the root of the desync timeout', async () => {
    const [oom, hang] = await verdictsOf('caught-oom-desync.log');
    expect(oom).toMatchObject({ kind: 'catchable-oom', device: 1 });
    expect(hang).toMatchObject({ kind: 'hang', rank: 0, causedBy: 0 });
    expect(hang!.userFrames[0]).toMatchObject({ file: '/work/main/test/gpu/desync_watchdog.py', line: 23 });
  });
});

describe('collective OOMs and look-alikes on the H200 pair', () => {
  it("reads NCCL's 'Cuda failure 2' at the first collective, on a nearly full GPU, as a collective OOM at the all_reduce", async () => {
    for (const name of ['collective-oom-16mib.log', 'collective-oom-256mib.log']) {
      const [v, ...rest] = await verdictsOf(name);
      expect(v).toMatchObject({ kind: 'collective-oom', platform: 'cuda', catchable: false, rank: 1, device: 1 });
      expect(v!.userFrames[0]).toMatchObject({ file: '/work/main/bench/triage-gpu-logs/collective_oom.py' });
      expect(rest).toEqual([]);
    }
  });

  it('reads an OOM on both ranks before any collective as two catchable OOMs, one per rank', async () => {
    const verdicts = await verdictsOf('two-rank-oom-before-collective.log');
    expect(verdicts.map((v) => [v.kind, v.rank, v.device])).toEqual([['catchable-oom', 1, 1], ['catchable-oom', 0, 0]]);
  });

  it('reads a device-side assert as not an OOM, at the line that synchronized', async () => {
    const [v] = await verdictsOf('device-assert.log');
    expect(v).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(v!.userFrames[0]).toMatchObject({ file: '/work/main/bench/triage-gpu-logs/device_assert.py', line: 8 });
  });
});
