import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadNative, NativeError, type NativeAddon } from '../../native/index';
import { tempDir } from '../support/tempDir';

const fixtures = path.join(__dirname, '..', 'fixtures', 'snapshots');
const snapshotFiles = readdirSync(fixtures).filter((f) => f.endsWith('.pickle.gz')).sort();
const truth = JSON.parse(readFileSync(path.join(fixtures, 'truth.json'), 'utf8')) as Record<string, { trace_events: number }>;

/** The fixture's counts as CPython's own unpickler reads them (our fixtures hold no GLOBAL, so this is safe). */
function pythonCounts(file: string): { actions: Record<string, number>; segments: number; devices: number } | undefined {
  const script = [
    'import collections, gzip, json, pickle, sys',
    'with gzip.open(sys.argv[1]) as f: s = pickle.load(f)',
    'a = collections.Counter(e["action"] for t in s["device_traces"] for e in t)',
    'print(json.dumps({"actions": a, "segments": len(s["segments"]), "devices": len(s["device_traces"])}))',
  ].join('\n');
  const run = spawnSync('python3', ['-c', script, file], { encoding: 'utf8' });
  if (run.error || run.status !== 0) return undefined;
  return JSON.parse(run.stdout) as { actions: Record<string, number>; segments: number; devices: number };
}
const havePython = spawnSync('python3', ['-c', 'import pickle'], { encoding: 'utf8' }).status === 0;

/** A pickle that would run `touch <marker>` if it were unpickled: GLOBAL os.system + REDUCE (protocol 2). */
function globalReducePickle(marker: string): Uint8Array {
  const command = Buffer.from(`touch ${marker}`, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(command.length);
  return Buffer.concat([
    Buffer.from([0x80, 0x02]),
    Buffer.from('cos\nsystem\n', 'latin1'),
    Buffer.from([0x58]), len, command, // BINUNICODE
    Buffer.from([0x85, 0x52, 0x2e]), // TUPLE1 REDUCE STOP
  ]);
}

/** The same call through STACK_GLOBAL (protocol 4). */
function stackGlobalPickle(marker: string): Uint8Array {
  const str = (s: string) => Buffer.concat([Buffer.from([0x8c, Buffer.byteLength(s)]), Buffer.from(s, 'utf8')]);
  return Buffer.concat([
    Buffer.from([0x80, 0x04]),
    str('os'), str('system'), Buffer.from([0x93]), str(`touch ${marker}`), Buffer.from([0x85, 0x52, 0x2e]),
  ]);
}

async function decodeError(native: NativeAddon, bytes: Uint8Array): Promise<NativeError> {
  try {
    await native.decodeSnapshotSummary(bytes);
  } catch (err) {
    expect(err).toBeInstanceOf(NativeError);
    return err as NativeError;
  }
  throw new Error('expected the decoder to reject the input');
}

describe('native snapshot decoder', () => {
  let native: NativeAddon;
  beforeAll(() => {
    native = loadNative();
  });

  it('has fixtures to decode', () => {
    expect(snapshotFiles.length).toBeGreaterThanOrEqual(6);
  });

  for (const file of snapshotFiles) {
    it(`decodes ${file} and agrees with truth.json and with CPython`, async () => {
      const bytes = gunzipSync(readFileSync(path.join(fixtures, file)));
      const summary = await native.decodeSnapshotSummary(bytes);
      expect(summary.traceEvents).toBe(truth[file]!.trace_events);
      expect(Object.values(summary.actionCounts).reduce((a, b) => a + b, 0)).toBe(summary.traceEvents);
      expect(summary.deviceCount).toBe(1);
      if (havePython) {
        const reference = pythonCounts(path.join(fixtures, file));
        expect(reference).toBeDefined();
        expect(summary.actionCounts).toEqual(reference!.actions);
        expect(summary.segmentCount).toBe(reference!.segments);
        expect(summary.deviceCount).toBe(reference!.devices);
      }
    });
  }

  it('refuses GLOBAL + REDUCE and runs nothing', async () => {
    const marker = path.join(tempDir('headroom-'), 'pwned');
    const err = await decodeError(native, globalReducePickle(marker));
    expect(err.code).toBe('ERR_SNAPSHOT_FORBIDDEN_OPCODE');
    expect(err.message).toMatch(/GLOBAL \(0x63\) at offset 2/);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses STACK_GLOBAL and names the opcode and offset', async () => {
    const marker = path.join(tempDir('headroom-'), 'pwned');
    const err = await decodeError(native, stackGlobalPickle(marker));
    expect(err.code).toBe('ERR_SNAPSHOT_FORBIDDEN_OPCODE');
    expect(err.message).toMatch(/STACK_GLOBAL \(0x93\) at offset 14/);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses BUILD, INST, OBJ, NEWOBJ and PERSID', async () => {
    for (const [op, name] of [[0x62, 'BUILD'], [0x69, 'INST'], [0x6f, 'OBJ'], [0x81, 'NEWOBJ'], [0x51, 'BINPERSID']] as const) {
      const err = await decodeError(native, Buffer.from([0x80, 0x04, 0x4e, op, 0x2e]));
      expect(err.code).toBe('ERR_SNAPSHOT_FORBIDDEN_OPCODE');
      expect(err.message).toContain(`${name} (0x${op.toString(16)}) at offset 3`);
    }
  });

  it('reports truncated snapshots as malformed, wherever they are cut', async () => {
    const bytes = gunzipSync(readFileSync(path.join(fixtures, 'llm__cap004__default.pickle.gz')));
    for (const fraction of [0, 0.001, 0.25, 0.5, 0.9, 0.999999]) {
      const err = await decodeError(native, bytes.subarray(0, Math.floor(bytes.length * fraction)));
      expect(err.code).toBe('ERR_SNAPSHOT_MALFORMED');
    }
    const err = await decodeError(native, bytes.subarray(0, bytes.length - 1));
    expect(err.code).toBe('ERR_SNAPSHOT_MALFORMED');
    expect(err.message).toMatch(/before the STOP opcode/);
  });

  it('reports a pickle that is not a snapshot as a schema error', async () => {
    // pickle.dumps([1, 2, 3], protocol=4)
    const list = Buffer.from('80049509000000000000005d94284b014b024b03652e', 'hex');
    expect((await decodeError(native, list)).code).toBe('ERR_SNAPSHOT_SCHEMA');
    // pickle.dumps({'a': 1}, protocol=4)
    const dict = Buffer.from('8004950a000000000000007d948c0161944b01732e', 'hex');
    const err = await decodeError(native, dict);
    expect(err.code).toBe('ERR_SNAPSHOT_SCHEMA');
    expect(err.message).toMatch(/no 'segments'/);
  });

  it('gives every corrupted input a coded error or a result, never a crash', async () => {
    const bytes = gunzipSync(readFileSync(path.join(fixtures, 'kvcache__default.pickle.gz')));
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const codes = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const copy = Buffer.from(bytes);
      for (let k = 0; k < 4; k++) copy[next() % copy.length] = next() & 0xff;
      try {
        await native.decodeSnapshotSummary(copy);
      } catch (err) {
        expect(err).toBeInstanceOf(NativeError);
        codes.add((err as NativeError).code);
      }
    }
    for (const c of codes) expect(['ERR_SNAPSHOT_MALFORMED', 'ERR_SNAPSHOT_FORBIDDEN_OPCODE', 'ERR_SNAPSHOT_SCHEMA']).toContain(c);
  });

  it('rejects an argument that is neither bytes nor a path with ERR_INVALID_ARGUMENT', async () => {
    const err = await decodeError(native, 42 as unknown as Uint8Array);
    expect(err.code).toBe('ERR_INVALID_ARGUMENT');
    expect(err.message).toBe('Expected first argument to be a Uint8Array or a file path');
  });

  it('streams .pickle.gz and .pickle files from disk with the same result as bytes', async () => {
    const file = path.join(fixtures, 'cnn__default.pickle.gz');
    const fromBytes = await native.decodeSnapshotSummary(gunzipSync(readFileSync(file)));
    expect(await native.decodeSnapshotSummary(file)).toEqual(fromBytes);
    const dir = tempDir('headroom-');
    const plain = path.join(dir, 'cnn.pickle');
    writeFileSync(plain, gunzipSync(readFileSync(file)));
    expect(await native.decodeSnapshotSummary(plain)).toEqual(fromBytes);
  });

  it('reports missing files as ERR_IO and truncated or corrupt gzip as malformed', async () => {
    const dir = tempDir('headroom-');
    expect((await decodeError(native, path.join(dir, 'missing.pickle.gz') as unknown as Uint8Array)).code).toBe('ERR_IO');
    const gz = readFileSync(path.join(fixtures, 'kvcache__default.pickle.gz'));
    const truncated = path.join(dir, 'truncated.pickle.gz');
    writeFileSync(truncated, gz.subarray(0, gz.length >> 1));
    const err = await decodeError(native, truncated as unknown as Uint8Array);
    expect(err.code).toBe('ERR_SNAPSHOT_MALFORMED');
    const corrupt = path.join(dir, 'corrupt.pickle.gz');
    const bad = Buffer.from(gz);
    bad.fill(0x55, 100, 400);
    writeFileSync(corrupt, bad);
    expect((await decodeError(native, corrupt as unknown as Uint8Array)).code).toBe('ERR_SNAPSHOT_MALFORMED');
  });

  it('accepts protocol 2 and 5 and the legacy TorchScript type tags', async () => {
    if (!havePython) return;
    const script = [
      'import pickle, sys',
      's = {"segments": [], "device_traces": [[{"action": "alloc", "addr": 2**40, "size": 512, "stream": 0, "time_us": 1, "frames": []}]]}',
      'sys.stdout.buffer.write(pickle.dumps(s, protocol=int(sys.argv[1])))',
    ].join('\n');
    for (const protocol of ['2', '5']) {
      const run = spawnSync('python3', ['-c', script, protocol]);
      const summary = await native.decodeSnapshotSummary(run.stdout);
      expect(summary).toEqual({ actionCounts: { alloc: 1 }, traceEvents: 1, segmentCount: 0, deviceCount: 1 });
    }
    // What TorchScript's older pickler wrote: restore_type_tag(obj, type) around each dict.
    const legacy = Buffer.concat([
      Buffer.from([0x80, 0x02]),
      Buffer.from('ctorch.jit._pickle\nrestore_type_tag\n', 'latin1'),
      Buffer.from([0x7d, 0x28]), // EMPTY_DICT MARK
      Buffer.from([0x8c, 8]), Buffer.from('segments'), Buffer.from([0x5d]), // 'segments': []
      Buffer.from([0x8c, 13]), Buffer.from('device_traces'), Buffer.from([0x5d]), // 'device_traces': []
      Buffer.from([0x75]), // SETITEMS
      Buffer.from([0x8c, 14]), Buffer.from('Dict[str, Any]'),
      Buffer.from([0x86, 0x52, 0x2e]), // TUPLE2 REDUCE STOP
    ]);
    expect(await native.decodeSnapshotSummary(legacy)).toEqual({ actionCounts: {}, traceEvents: 0, segmentCount: 0, deviceCount: 0 });
  });

  it('names the limit when a trace uses more distinct actions than a snapshot has', async () => {
    if (!havePython) return;
    // Actions are stored as one-byte codes (torch writes about ten kinds).
    const script = [
      'import pickle, sys',
      't = [{"action": "a%d" % i, "addr": 0, "size": 0, "stream": 0, "time_us": i, "frames": []} for i in range(300)]',
      'sys.stdout.buffer.write(pickle.dumps({"segments": [], "device_traces": [t]}, protocol=4))',
    ].join('\n');
    const err = await decodeError(native, spawnSync('python3', ['-c', script]).stdout);
    expect(err.code).toBe('ERR_SNAPSHOT_SCHEMA');
    expect(err.message).toMatch(/more than 255 distinct trace actions/);
  });

  it('reads every memoized value back, numbers included', async () => {
    // CPython never memoizes an int, but a pickle may (BINPUT after BININT): the memo keeps numbers'
    // payloads beside its 4-byte slots. The second entry's size is the first's, through the memo.
    const str = (s: string) => {
      const len = Buffer.alloc(4);
      len.writeUInt32LE(Buffer.byteLength(s));
      return Buffer.concat([Buffer.from([0x58]), len, Buffer.from(s, 'utf8')]); // BINUNICODE
    };
    const int = (v: number) => {
      const b = Buffer.alloc(4);
      b.writeInt32LE(v);
      return Buffer.concat([Buffer.from([0x4a]), b]); // BININT
    };
    const entry = (addr: number, size: Buffer) =>
      Buffer.concat([
        Buffer.from([0x7d, 0x28]), // EMPTY_DICT MARK
        str('action'), str('alloc'), str('addr'), int(addr), str('size'), size,
        str('stream'), int(0), str('frames'), Buffer.from([0x5d]), // []
        Buffer.from([0x75]), // SETITEMS
      ]);
    const bytes = Buffer.concat([
      Buffer.from([0x80, 0x02, 0x7d, 0x28]), // PROTO 2, EMPTY_DICT MARK
      str('segments'), Buffer.from([0x5d]),
      str('device_traces'), Buffer.from([0x5d, 0x5d, 0x28]), // [ [ MARK
      entry(1 << 30, Buffer.concat([int(3 << 20), Buffer.from([0x71, 7])])), // size, BINPUT 7
      entry(1 << 29, Buffer.from([0x68, 7])), // BINGET 7
      Buffer.from([0x65, 0x61, 0x75, 0x2e]), // APPENDS APPEND SETITEMS STOP
    ]);
    expect((await native.decodeSnapshotSummary(bytes)).actionCounts).toEqual({ alloc: 2 });
    const report = await native.replaySnapshot(bytes, { variants: [{}] });
    expect(report.variants[0]!.allocatedPeakBytes).toBe(2 * (3 << 20));
  });
});
