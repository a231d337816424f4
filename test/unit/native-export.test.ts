import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadNative, type NativeAddon } from '../../native/index';
import { tempDir } from '../support/tempDir';

const fixture = path.join(__dirname, '..', 'fixtures', 'snapshots', 'llm__default.pickle.gz');
const havePython = spawnSync('python3', ['-c', 'import pickle'], { encoding: 'utf8' }).status === 0;
// The opcodes MemoryViz.js's own unpickler handles (torch/utils/viz/MemoryViz.js).
const MEMORY_VIZ_OPCODES = new Set([
  'PROTO', 'APPEND', 'APPENDS', 'LIST', 'TUPLE', 'TUPLE1', 'TUPLE2', 'TUPLE3', 'EMPTY_TUPLE', 'NEWFALSE', 'NEWTRUE', 'NONE',
  'BINGET', 'LONG_BINGET', 'BININT', 'BININT1', 'BININT2', 'EMPTY_DICT', 'EMPTY_LIST', 'FRAME', 'LONG1', 'MARK', 'MEMOIZE',
  'BINPUT', 'LONG_BINPUT', 'SETITEMS', 'SETITEM', 'DICT', 'SHORT_BINUNICODE', 'BINUNICODE', 'STOP', 'BINFLOAT',
]);

describe('export for memory_viz', () => {
  let native: NativeAddon;
  beforeAll(() => {
    native = loadNative();
  });

  it('writes a protocol-4 pickle that decodes to the same snapshot', async () => {
    const out = path.join(tempDir('headroom-'), 'export.pickle');
    const written = await native.exportSnapshot(fixture, out);
    expect(written.events).toBe(51_093);
    const bytes = readFileSync(out);
    expect(written.bytes).toBe(bytes.length);
    expect([bytes[0], bytes[1]]).toEqual([0x80, 4]);
    expect(await native.decodeSnapshotSummary(out)).toEqual(await native.decodeSnapshotSummary(fixture));
    const [own, again] = await Promise.all([
      native.replaySnapshot(fixture, { variants: [{ settings: 'max_split_size_mb:64' }] }),
      native.replaySnapshot(out, { variants: [{ settings: 'max_split_size_mb:64' }] }),
    ]);
    expect(again.variants[0]!.reservedPeakBytes).toBe(own.variants[0]!.reservedPeakBytes);
  });

  it('keeps the trace entries and segments CPython reads from the original, with only opcodes memory_viz reads', async () => {
    if (!havePython) return;
    const out = path.join(tempDir('headroom-'), 'export.pickle');
    await native.exportSnapshot(fixture, out);
    const script = [
      'import collections, gzip, json, pickle, pickletools, sys',
      'with gzip.open(sys.argv[1]) as f: a = pickle.load(f)',
      'raw = open(sys.argv[2], "rb").read()',
      'b = pickle.loads(raw)',
      'drop = ("compile_context", "user_metadata", "segment_pool_id")',
      'strip = lambda d: {k: v for k, v in d.items() if k not in drop}',
      'same_trace = [strip(e) for e in a["device_traces"][0]] == b["device_traces"][0]',
      'same_segments = [strip(s) for s in a["segments"]] == b["segments"]',
      'ops = sorted({op.name for op, _, _ in pickletools.genops(raw)})',
      'print(json.dumps({"trace": same_trace, "segments": same_segments, "ops": ops, "settings": b["allocator_settings"]["PYTORCH_CUDA_ALLOC_CONF"]}))',
    ].join('\n');
    const run = spawnSync('python3', ['-c', script, fixture, out], { encoding: 'utf8', maxBuffer: 1 << 24 });
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as { trace: boolean; segments: boolean; ops: string[]; settings: string };
    expect(result.trace).toBe(true);
    expect(result.segments).toBe(true);
    expect(result.settings).toBe('');
    for (const op of result.ops) expect(MEMORY_VIZ_OPCODES.has(op)).toBe(true);
  });

  it('reads every shape of trace entry the way CPython does (new, shared, empty and one-frame stacks, 64 KiB frames inside entries, several streams, actions it does not know)', async () => {
    if (!havePython) return;
    // Trace entries whose frames lists are new inline lists (read by the decoder's fast path with
    // their frames), memo references to earlier lists, empty lists and one-frame lists (pickled as
    // `item APPEND`), with frame dicts shared between lists; the export must give them back as CPython reads them.
    // The trace spans several protocol-4 frames, and CPython starts a frame before whichever object
    // it saves next, so FRAME opcodes fall inside entries (between a key and its value).
    const dir = tempDir('headroom-');
    const source = path.join(dir, 'shapes.pickle');
    const out = path.join(dir, 'export.pickle');
    const write = [
      'import pickle, sys',
      'f = [{"filename": "train.py", "line": i, "name": "step%d" % i} for i in range(6)]',
      'shared = [f[0], f[1]]',
      'stacks = [[], shared, [f[2]], [f[3], f[0], f[4]], shared, [f[5]], [], [f[1], f[2]]]',
      'trace = []',
      'n = 2000',
      'streams = [0, 7, 2**47 + 3, -1]',
      'for i in range(n):',
      '    s = stacks[i % len(stacks)]',
      '    frames = s if s is shared else list(s)',
      '    trace.append({"action": "alloc", "addr": 2**40 + 512 * i, "size": 512 * (i + 1), "stream": streams[i % 4], "time_us": i, "frames": frames})',
      '    if i % 500 == 0: trace.append({"action": "marker_%d" % (i // 500), "addr": 0, "size": 0, "stream": 0, "time_us": i, "frames": []})',
      'for i in range(n):',
      '    trace.append({"action": "free_completed", "addr": 2**40 + 512 * i, "size": 512 * (i + 1), "stream": streams[i % 4], "time_us": n + i, "frames": []})',
      'data = pickle.dumps({"segments": [], "device_traces": [trace]}, protocol=4)',
      'open(sys.argv[1], "wb").write(data)',
      'import pickletools',
      'ops = [op.name for op, _, _ in pickletools.genops(data)]',
      'print(sum(1 for a, b in zip(ops, ops[1:]) if b == "FRAME" and a not in ("PROTO", "SETITEMS")))',
    ].join('\n');
    const written = spawnSync('python3', ['-c', write, source], { encoding: 'utf8' });
    expect(written.status).toBe(0);
    expect(Number(written.stdout)).toBeGreaterThan(0); // FRAMEs inside entries.
    expect((await native.exportSnapshot(source, out)).events).toBe(4004);
    const compare = [
      'import json, pickle, sys',
      'a = pickle.load(open(sys.argv[1], "rb"))["device_traces"][0]',
      'b = pickle.load(open(sys.argv[2], "rb"))["device_traces"][0]',
      'print(json.dumps(a == b))',
    ].join('\n');
    const run = spawnSync('python3', ['-c', compare, source, out], { encoding: 'utf8' });
    expect(run.stdout.trim()).toBe('true');
  });

  it('keeps only the last N entries when asked, and the final segments whole', async () => {
    const out = path.join(tempDir('headroom-'), 'last.pickle');
    const written = await native.exportSnapshot(fixture, out, { maxEvents: 1000 });
    expect(written.events).toBe(1000);
    const summary = await native.decodeSnapshotSummary(out);
    expect(summary.traceEvents).toBe(1000);
    expect(summary.segmentCount).toBe(111);
    // A trimmed trace starts mid-run: the replay reconstructs its start from the segments.
    const report = await native.replaySnapshot(out, { variants: [{}] });
    expect(report.source.startReconstructed).toBe(true);
    expect(report.variants[0]!.reservedPeakBytes).toBe(21_082_669_056);
  });
});
