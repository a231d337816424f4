import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadNative, type NativeAddon } from '../../native/index';

// Snapshots recorded for the simulator on one H200 (test/fixtures/replay-h200/record.py): the same
// seeded training loop under settings and capacities that exercise every path of the allocator.
const dir = path.join(__dirname, '..', 'fixtures', 'replay-h200');
interface Truth {
  'allocated_bytes.all.peak': number;
  'reserved_bytes.all.peak': number;
  num_alloc_retries: number;
  num_ooms: number;
  num_device_alloc: number;
  num_device_free: number;
  total_mem: number;
  alloc_conf: string;
  cap_bytes?: number;
  max_entries: number | null;
}
const truth = JSON.parse(readFileSync(path.join(dir, 'truth.json'), 'utf8')) as Record<string, Truth>;

describe('replay against more H200 ground truth', () => {
  let native: NativeAddon;
  beforeAll(() => {
    native = loadNative();
  });

  const complete = Object.keys(truth).filter((f) => truth[f]!.max_entries === null);
  it('covers roundup, garbage collection, max_split with a cap, expandable with a cap, and stream waits', () => {
    expect(complete).toEqual(
      expect.arrayContaining([
        'tf__roundup4.pickle.gz',
        'tf__roundup_ranges.pickle.gz',
        'tf__cap70_gc05.pickle.gz',
        'tf__cap70_split96.pickle.gz',
        'tf__cap60_expandable.pickle.gz',
        'tf__side_stream.pickle.gz',
      ]),
    );
  });

  for (const file of complete) {
    it(`reproduces every allocator statistic of ${file}`, async () => {
      const t = truth[file]!;
      const report = await native.replaySnapshot(path.join(dir, file), {
        variants: [{ capacityBytes: t.cap_bytes ?? null }],
        deviceTotalBytes: t.total_mem,
      });
      expect(report.source.settings).toBe(t.alloc_conf);
      const v = report.variants[0]!;
      expect({
        reserved: v.reservedPeakBytes,
        allocated: v.allocatedPeakBytes,
        deviceAllocs: v.segmentAllocs,
        deviceFrees: v.segmentFrees,
        retries: v.allocRetries,
        ooms: v.ooms,
      }).toEqual({
        reserved: t['reserved_bytes.all.peak'],
        allocated: t['allocated_bytes.all.peak'],
        deviceAllocs: t.num_device_alloc,
        deviceFrees: t.num_device_free,
        retries: t.num_alloc_retries,
        ooms: t.num_ooms,
      });
    });
  }

  it('replays a real ring-buffered snapshot (max_entries=4000) exactly like the last 4000 entries of the full run', async () => {
    const full = await native.replaySnapshot(path.join(dir, 'tf__default.pickle.gz'), { variants: [{}], timeline: true });
    const ring = await native.replaySnapshot(path.join(dir, 'tf__ring4000.pickle.gz'), { variants: [{}], timeline: true });
    const recorded = ring.source.recorded[0]!;
    expect(recorded.events).toBe(4000);
    expect(recorded.startReconstructed).toBe(true);
    expect(recorded.unmatchedFrees).toBe(0);
    const whole = full.variants[0]!.timeline!;
    const tail = ring.variants[0]!.timeline!;
    const offset = whole.reservedBytes.length - 4000;
    expect(Array.from(tail.reservedBytes)).toEqual(Array.from(whole.reservedBytes.subarray(offset)));
    expect(Array.from(tail.allocatedBytes)).toEqual(Array.from(whole.allocatedBytes.subarray(offset)));
    expect(ring.variants[0]!.reservedPeakBytes).toBe(truth['tf__ring4000.pickle.gz']!['reserved_bytes.all.peak']);
  });

  it('reconstructs cut traces with expandable segments unmapped on OOM, and replays on identically', async () => {
    const file = path.join(dir, 'tf__cap60_expandable.pickle.gz');
    const t = truth['tf__cap60_expandable.pickle.gz']!;
    const options = { deviceTotalBytes: t.total_mem, timeline: true };
    const full = await native.replaySnapshot(file, { ...options, variants: [{ capacityBytes: t.cap_bytes! }] });
    const whole = full.variants[0]!.timeline!;
    for (const fraction of [0.05, 0.5, 0.9]) {
      const cut = Math.floor(whole.reservedBytes.length * fraction);
      const part = await native.replaySnapshot(file, { ...options, firstEvent: cut, variants: [{ capacityBytes: t.cap_bytes! }] });
      expect(part.source.recorded[0]!.startReconstructed).toBe(true);
      expect(Array.from(part.variants[0]!.timeline!.reservedBytes)).toEqual(Array.from(whole.reservedBytes.subarray(cut)));
      expect(Array.from(part.variants[0]!.timeline!.allocatedBytes)).toEqual(Array.from(whole.allocatedBytes.subarray(cut)));
    }
  });

  it('predicts the capped runs from the uncapped trace up to their first OOM', async () => {
    const report = await native.replaySnapshot(path.join(dir, 'tf__default.pickle.gz'), {
      variants: [
        { capacityBytes: truth['tf__cap60.pickle.gz']!.cap_bytes! },
        { settings: 'expandable_segments:True', capacityBytes: truth['tf__cap60_expandable.pickle.gz']!.cap_bytes! },
      ],
    });
    for (const [i, file] of ['tf__cap60.pickle.gz', 'tf__cap60_expandable.pickle.gz'].entries()) {
      const capped = await native.replaySnapshot(path.join(dir, file), {
        variants: [{ capacityBytes: truth[file]!.cap_bytes! }],
      });
      expect(report.variants[i]!.firstOom!.allocIndex).toBe(capped.variants[0]!.firstOom!.allocIndex);
    }
  });
});
