import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadNative, NativeError, type NativeAddon } from '../../native/index';
import { parseCapacity } from '../../server/src/replay/cli';
import { FIT_GRANULARITY_BYTES, replaySnapshotFile, toReplayJson } from '../../server/src/replay/replay';

const fixtures = path.join(__dirname, '..', 'fixtures', 'snapshots');
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
}
const truth = JSON.parse(readFileSync(path.join(fixtures, 'truth.json'), 'utf8')) as Record<string, Truth>;
const files = Object.keys(truth).sort();
const snapshot = (file: string) => gunzipSync(readFileSync(path.join(fixtures, file)));

const havePython = spawnSync('python3', ['-c', 'import pickle'], { encoding: 'utf8' }).status === 0;

/** Reads a fixture with CPython (our own trusted fixtures only) and returns what its trace recorded. */
function recordedTrace(file: string): { segmentCalls: number[]; firstOomAllocIndex: number | null } {
  const script = [
    'import gzip, json, pickle, sys',
    'with gzip.open(sys.argv[1]) as f: t = pickle.load(f)["device_traces"][0]',
    'calls = [e["size"] if e["action"] in ("segment_alloc", "segment_map") else -e["size"] for e in t if e["action"] in ("segment_alloc", "segment_map", "segment_free", "segment_unmap")]',
    'requests = [e["action"] for e in t if e["action"] in ("alloc", "oom")]',
    'print(json.dumps({"segmentCalls": calls, "firstOomAllocIndex": requests.index("oom") if "oom" in requests else None}))',
  ].join('\n');
  const run = spawnSync('python3', ['-c', script, path.join(fixtures, file)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { segmentCalls: number[]; firstOomAllocIndex: number | null };
}

describe('replay through the caching-allocator simulator', () => {
  let native: NativeAddon;
  beforeAll(() => {
    native = loadNative();
  });

  for (const file of files) {
    it(`reproduces ${file} under its own settings`, async () => {
      const t = truth[file]!;
      const report = await native.replaySnapshot(snapshot(file), {
        variants: [{ capacityBytes: t.cap_bytes ?? null }],
        segmentCalls: true,
        deviceTotalBytes: t.total_mem,
      });
      expect(report.source.settings).toBe(t.alloc_conf);
      const v = report.variants[0]!;
      // The acceptance bar is 1%; the simulator is exact on these runs, so hold it to that.
      expect(v.reservedPeakBytes).toBe(t['reserved_bytes.all.peak']);
      expect(v.segmentAllocs).toBe(t.num_device_alloc);
      expect(v.allocatedPeakBytes).toBe(t['allocated_bytes.all.peak']);
      expect(v.segmentFrees).toBe(t.num_device_free);
      expect(v.allocRetries).toBe(t.num_alloc_retries);
      expect(v.ooms).toBe(t.num_ooms);
      if (havePython) {
        // Every cudaMalloc/cudaFree (or map/unmap) the simulator makes is the one the device saw.
        const calls = Array.from(v.segmentCalls!).filter((_, i) => i % 2 === 1);
        expect(calls).toEqual(recordedTrace(file).segmentCalls);
      }
    });
  }

  it('predicts what expandable_segments:True and max_split_size_mb:64 did to llm__default', async () => {
    const report = await native.replaySnapshot(snapshot('llm__default.pickle.gz'), {
      variants: [{ settings: 'expandable_segments:True' }, { settings: 'max_split_size_mb:64' }],
      deviceTotalBytes: truth['llm__default.pickle.gz']!.total_mem,
    });
    const [expandable, maxSplit] = report.variants;
    expect(expandable!.reservedPeakBytes).toBe(18_706_595_840);
    expect(expandable!.reservedPeakBytes).toBe(truth['llm__expandable_segments_True.pickle.gz']!['reserved_bytes.all.peak']);
    expect(expandable!.segmentAllocs).toBe(truth['llm__expandable_segments_True.pickle.gz']!.num_device_alloc);
    expect(maxSplit!.reservedPeakBytes).toBe(44_107_300_864);
    expect(maxSplit!.segmentAllocs).toBe(truth['llm__max_split_size_mb_64.pickle.gz']!.num_device_alloc);
  });

  it('fails llm__default at the capped run\'s first OOM when given its capacity', async () => {
    const report = await native.replaySnapshot(snapshot('llm__default.pickle.gz'), {
      variants: [{ capacityBytes: 6_004_395_212 }],
    });
    const oom = report.variants[0]!.firstOom;
    expect(oom).not.toBeNull();
    const expected = havePython ? recordedTrace('llm__cap004__default.pickle.gz').firstOomAllocIndex : 296;
    expect(oom!.allocIndex).toBe(expected);
    expect(oom!.sizeBytes).toBe(786_432_000);
    expect(oom!.frames.some((f) => f.filename.endsWith('snapshot_workload.py'))).toBe(true);
  });

  it('records a timeline of every event whose maximum is the peak', async () => {
    const report = await native.replaySnapshot(snapshot('kvcache__default.pickle.gz'), { variants: [{}], timeline: true });
    const v = report.variants[0]!;
    expect(v.timeline!.reservedBytes.length).toBe(report.source.events);
    expect(Math.max(...v.timeline!.reservedBytes)).toBe(v.reservedPeakBytes);
    expect(Math.max(...v.timeline!.allocatedBytes)).toBe(v.allocatedPeakBytes);
    expect(v.timeline!.reservedBytes[v.reservedPeakEventIndex]).toBe(v.reservedPeakBytes);
  });

  it('finds the smallest capacity without an OOM', async () => {
    const report = await native.replaySnapshot(snapshot('kvcache__default.pickle.gz'), {
      variants: [{ fitGranularityBytes: FIT_GRANULARITY_BYTES }],
    });
    const fit = report.variants[0]!;
    expect(fit.ooms).toBe(0);
    expect(fit.capacityBytes! % FIT_GRANULARITY_BYTES).toBe(0);
    const below = await native.replaySnapshot(snapshot('kvcache__default.pickle.gz'), {
      variants: [{ capacityBytes: fit.capacityBytes! - FIT_GRANULARITY_BYTES }],
    });
    expect(below.variants[0]!.ooms).toBeGreaterThan(0);
  });

  it('rejects settings PyTorch would reject, with ERR_INVALID_SETTINGS', async () => {
    for (const [settings, message] of [
      ['bogus:1', /Unrecognized CachingAllocator option: bogus/],
      ['max_split_size_mb:10', /must be >= 20/],
      ['garbage_collection_threshold:1.5', /\(0\.0, 1\.0\)/],
      ['roundup_power2_divisions:3', /power of 2/],
      ['backend:cudaMallocAsync', /native caching allocator/],
    ] as const) {
      const err = await native
        .replaySnapshot(snapshot('kvcache__default.pickle.gz'), { variants: [{ settings }] })
        .then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(NativeError);
      expect((err as NativeError).code).toBe('ERR_INVALID_SETTINGS');
      expect((err as NativeError).message).toMatch(message);
    }
  });

  it('honours roundup_power2_divisions and garbage_collection_threshold', async () => {
    const report = await native.replaySnapshot(snapshot('llm__default.pickle.gz'), {
      variants: [
        {},
        { settings: 'roundup_power2_divisions:4' },
        { settings: 'roundup_power2_divisions:[256:1,512:2,>:8]' },
        { settings: 'garbage_collection_threshold:0.6', capacityBytes: 24 * 2 ** 30 },
      ],
    });
    const [base, roundup, perRange, gc] = report.variants;
    // Coarser size classes reuse blocks more and allocate more per request.
    expect(roundup!.allocatedPeakBytes).toBeGreaterThan(base!.allocatedPeakBytes);
    expect(perRange!.allocatedPeakBytes).toBeGreaterThan(base!.allocatedPeakBytes);
    expect(gc!.ooms).toBe(0);
    expect(gc!.reservedPeakBytes).toBeLessThanOrEqual(24 * 2 ** 30);
  });

  it('reports the CLI JSON contract from a .pickle.gz path', async () => {
    const file = path.join(fixtures, 'llm__default.pickle.gz');
    const json = toReplayJson(await replaySnapshotFile(file, { settings: ['expandable_segments:True'], capacityBytes: undefined }));
    expect(json.source).toEqual({ events: 51093, devices: 1, settings: '', startReconstructed: false, notes: [] });
    expect(json.variants).toHaveLength(1);
    expect(json.variants[0]).toMatchObject({
      settings: 'expandable_segments:True',
      capacityBytes: null,
      reservedPeakBytes: 18_706_595_840,
      ooms: 0,
      firstOom: null,
    });
    expect(Object.keys(json.variants[0]!)).toEqual(
      expect.arrayContaining(['settings', 'capacityBytes', 'reservedPeakBytes', 'allocatedPeakBytes', 'segmentAllocs', 'ooms', 'firstOom']),
    );
  });

  for (const file of files) {
    it(`reconstructs the start of ${file} cut as a ring buffer would, and replays on identically`, async () => {
      const bytes = snapshot(file);
      const capacityBytes = truth[file]!.cap_bytes ?? null;
      const full = await native.replaySnapshot(bytes, { variants: [{ capacityBytes }], timeline: true });
      expect(full.source.startReconstructed).toBe(false);
      const whole = full.variants[0]!.timeline!;
      const n = whole.reservedBytes.length;
      for (const fraction of [0.02, 0.3, 0.61, 0.97]) {
        const cut = Math.floor(n * fraction);
        const part = await native.replaySnapshot(bytes, { variants: [{ capacityBytes }], timeline: true, firstEvent: cut });
        const recorded = part.source.recorded[0]!;
        expect(recorded.startReconstructed).toBe(true);
        expect(recorded.reconstructionProblem).toBeNull();
        expect(recorded.unmatchedFrees).toBe(0);
        expect(recorded.initialAllocatedBytes).toBe(whole.allocatedBytes[cut - 1]);
        const after = part.variants[0]!.timeline!;
        expect(after.reservedBytes.length).toBe(n - cut);
        // Event by event, the replay from the reconstructed state is the uncut replay.
        expect(Array.from(after.reservedBytes)).toEqual(Array.from(whole.reservedBytes.subarray(cut)));
        expect(Array.from(after.allocatedBytes)).toEqual(Array.from(whole.allocatedBytes.subarray(cut)));
        expect(part.variants[0]!.reservedPeakBytes).toBe(Math.max(recorded.initialReservedBytes, ...whole.reservedBytes.subarray(cut)));
      }
    });
  }

  it('holds the same allocations at the peak from a reconstructed start as from the whole trace', async () => {
    // Blocks the program had freed before the cut (waiting on another stream) are not live at the peak,
    // and the blocks live at the start count their requested bytes, as every other allocation does.
    const total = (sites: { bytes: number; count: number }[]) =>
      sites.reduce((sum, s) => ({ bytes: sum.bytes + s.bytes, count: sum.count + s.count }), { bytes: 0, count: 0 });
    let compared = 0;
    for (const file of files) {
      const bytes = snapshot(file);
      const whole = await native.replaySnapshot(bytes, { variants: [{}], timeline: true, peakSites: 100_000 });
      const allocated = Array.from(whole.variants[0]!.timeline!.allocatedBytes);
      const peak = allocated.indexOf(Math.max(...allocated));
      for (const cut of [777, 3001, 20_000].filter((c) => c <= peak)) {
        const part = await native.replaySnapshot(bytes, { variants: [{}], firstEvent: cut, peakSites: 100_000 });
        expect(total(part.variants[0]!.peakSites!), `${file} cut at ${cut}`).toEqual(total(whole.variants[0]!.peakSites!));
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(5);
  });

  it('leaves idle cached segments of a reconstructed start out under a smaller capacity, and says so', async () => {
    // kvcache holds 3.8 GB of cache for 0.5 GB of live tensors late in its run.
    const capacityBytes = 2 * 2 ** 30;
    const report = await native.replaySnapshot(snapshot('kvcache__default.pickle.gz'), { variants: [{ capacityBytes }], firstEvent: 20_000 });
    const start = report.source.recorded[0]!.initialReservedBytes;
    expect(start).toBeGreaterThan(capacityBytes);
    expect(report.variants[0]!.reservedPeakBytes).toBeLessThanOrEqual(capacityBytes);
    expect(toReplayJson(report).source.notes.join(' ')).toMatch(/reconstructed start already holds/);
  });

  it('says when the trace does not fit the final segments, and starts empty', async () => {
    if (!havePython) return;
    // A snapshot whose trace frees a block no segment holds: its start cannot be reconstructed.
    const script = [
      'import pickle, sys',
      'e = lambda a, addr, size: {"action": a, "addr": addr, "size": size, "stream": 0, "time_us": 1, "frames": []}',
      's = {"segments": [], "device_traces": [[e("free_requested", 4096, 512), e("free_completed", 4096, 512), e("alloc", 8192, 1000)]]}',
      'sys.stdout.buffer.write(pickle.dumps(s, protocol=4))',
    ].join('\n');
    const bytes = spawnSync('python3', ['-c', script]).stdout;
    const report = await native.replaySnapshot(bytes, { variants: [{}] });
    const recorded = report.source.recorded[0]!;
    expect(recorded.startReconstructed).toBe(false);
    expect(recorded.reconstructionProblem).toMatch(/does not fit the segments the snapshot ended with/);
    expect(recorded.unmatchedFrees).toBe(1);
    expect(report.variants[0]!.allocatedPeakBytes).toBe(1024);
    const json = toReplayJson(report);
    expect(json.source.notes[0]).toMatch(/peaks are lower bounds/);
  });

  it('fails a request no device could hold as an OOM, with or without a capacity', async () => {
    if (!havePython) return;
    // libFuzzer found a trace asking for -2^31 bytes (read as 2^64 - 2^31): rounding it and adding it to
    // the reserved bytes overflowed, the capacity check passed, and the segment's block list was corrupted.
    const script = [
      'import pickle, sys',
      'e = lambda a, addr, size: {"action": a, "addr": addr, "size": size, "stream": 0, "time_us": 1, "frames": []}',
      'big = -2**31',
      't = [e("alloc", 2**40, 65536), e("alloc", 2**41, big), e("free_completed", 2**40, 65536), e("alloc", 2**40, 512), e("free_completed", 2**41, big)]',
      'sys.stdout.buffer.write(pickle.dumps({"segments": [], "device_traces": [t]}, protocol=4))',
    ].join('\n');
    const bytes = spawnSync('python3', ['-c', script]).stdout;
    const report = await native.replaySnapshot(bytes, { variants: [{}, { capacityBytes: 2 ** 30 }] });
    for (const variant of report.variants) {
      expect(variant.ooms).toBe(1);
      expect(variant.firstOom?.sizeBytes).toBe(2 ** 64 - 2 ** 31);
      expect(variant.reservedPeakBytes).toBe(2 * 2 ** 20);
    }
  });

  it('replays each device of a multi-device snapshot on its own, and reports the worst', async () => {
    if (!havePython) return;
    // Two devices: kvcache's trace and segments on device 0, llm__cap004's on device 1.
    const script = [
      'import gzip, pickle, sys',
      'load = lambda n: pickle.load(gzip.open(sys.argv[1] + "/" + n + ".pickle.gz"))',
      'a, b = load("kvcache__default"), load("llm__cap004__default")',
      'for seg in b["segments"]: seg["device"] = 1',
      's = {"segments": a["segments"] + b["segments"], "device_traces": [a["device_traces"][0], b["device_traces"][0]], "allocator_settings": a["allocator_settings"]}',
      'sys.stdout.buffer.write(pickle.dumps(s, protocol=4))',
    ].join('\n');
    const bytes = spawnSync('python3', ['-c', script, fixtures], { maxBuffer: 1 << 26 }).stdout;
    const report = await native.replaySnapshot(bytes, { variants: [{}] });
    expect(report.source.devices).toBe(2);
    const v = report.variants[0]!;
    expect(v.devices.map((d) => d.reservedPeakBytes)).toEqual([
      truth['kvcache__default.pickle.gz']!['reserved_bytes.all.peak'],
      (await native.replaySnapshot(snapshot('llm__cap004__default.pickle.gz'), { variants: [{}] })).variants[0]!.reservedPeakBytes,
    ]);
    expect(v.reservedPeakBytes).toBe(Math.max(...v.devices.map((d) => d.reservedPeakBytes)));
    expect(report.source.recorded.map((d) => d.startReconstructed)).toEqual([false, false]);
  });

  it('reads --capacity as bytes or a 1024-based size', () => {
    expect(parseCapacity('6004395212')).toBe(6_004_395_212);
    expect(parseCapacity('6GiB')).toBe(6 * 2 ** 30);
    expect(parseCapacity('80 GB')).toBe(80 * 2 ** 30);
    expect(parseCapacity('0')).toBeUndefined();
    expect(parseCapacity('lots')).toBeUndefined();
  });
});
