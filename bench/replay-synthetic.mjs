// Writes a synthetic PyTorch memory snapshot of a chosen size, shaped like the real ones: the
// balanced alloc/free pattern of the llm__default fixture (an H200 training run) repeated, with
// its real frames and call stacks shared through the pickle memo as torch's own pickler shares
// them, at protocol 4 with 64 KiB frames. The opcodes are written directly, so a multi-gigabyte
// snapshot is produced in seconds without building Python objects.
//
//   node bench/replay-synthetic.mjs OUT.pickle --bytes 1000000000
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, '..', 'test', 'fixtures', 'snapshots', 'llm__default.pickle.gz');

/** The fixture's requests that are freed inside the trace, in trace order (read with CPython: our own fixture). */
function loadPattern() {
  const script = `
import gzip, json, pickle, sys
with gzip.open(sys.argv[1]) as f: s = pickle.load(f)
t = s["device_traces"][0]
frames, frame_ids, stacks, stack_ids = [], {}, [], {}
def stack_of(fs):
    key = id(fs)
    if key not in stack_ids:
        ids = []
        for fr in fs:
            fk = id(fr)
            if fk not in frame_ids:
                frame_ids[fk] = len(frames); frames.append([fr["name"], fr["filename"], fr["line"]])
            ids.append(frame_ids[fk])
        stack_ids[key] = len(stacks); stacks.append(ids)
    return stack_ids[key]
live, ops, freed = {}, [], set()
for e in t:
    if e["action"] == "free_completed": freed.add(e["addr"])
req = {}
for i, e in enumerate(t):
    a = e["action"]
    if a == "alloc":
        req[e["addr"]] = len(req) if False else i
        ops.append(["a", i, e["size"], stack_of(e["frames"])])
    elif a in ("free_requested", "free_completed"):
        ops.append(["r" if a == "free_requested" else "c", req[e["addr"]], 0, stack_of(e["frames"])])
# Keep only requests that are freed within the trace, so the repeated pattern stays balanced.
done = {op[1] for op in ops if op[0] == "c"}
ops = [op for op in ops if op[1] in done]
print(json.dumps({"frames": frames, "stacks": stacks, "ops": ops}))
`;
  const run = spawnSync('python3', ['-c', script, fixture], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

const OP = {
  MARK: 0x28, STOP: 0x2e, BININT: 0x4a, BININT1: 0x4b, BININT2: 0x4d, EMPTY_DICT: 0x7d, EMPTY_LIST: 0x5d,
  APPEND: 0x61, APPENDS: 0x65, BINGET: 0x68, LONG_BINGET: 0x6a, SETITEMS: 0x75, PROTO: 0x80, LONG1: 0x8a,
  SHORT_BINUNICODE: 0x8c, MEMOIZE: 0x94, FRAME: 0x95, NEWFALSE: 0x89, BINFLOAT: 0x47,
};
const FRAME_TARGET = 64 * 1024;

/** A protocol-4 pickle writer with CPython's framing and memo numbering. */
class Writer {
  constructor(out) {
    this.out = out;
    this.buf = Buffer.allocUnsafe(FRAME_TARGET * 4);
    this.len = 0;
    this.memo = 0;
    this.written = 0;
    this.ready = []; // Complete frames (header, body) not yet written out.
  }
  ensure(n) {
    if (this.len + n > this.buf.length) {
      const bigger = Buffer.allocUnsafe((this.len + n) * 2);
      this.buf.copy(bigger, 0, 0, this.len);
      this.buf = bigger;
    }
  }
  byte(b) { this.ensure(1); this.buf[this.len++] = b; }
  bytes(b) { this.ensure(b.length); b.copy(this.buf, this.len); this.len += b.length; }
  memoize() { this.byte(OP.MEMOIZE); return this.memo++; }
  get(idx) {
    this.boundary();
    if (idx < 256) { this.ensure(2); this.buf[this.len++] = OP.BINGET; this.buf[this.len++] = idx; }
    else { this.ensure(5); this.buf[this.len++] = OP.LONG_BINGET; this.buf.writeUInt32LE(idx, this.len); this.len += 4; }
  }
  str(s) {
    this.boundary();
    const b = Buffer.from(s, 'utf8');
    if (b.length >= 256) throw new Error('long strings are not needed here');
    this.ensure(2 + b.length);
    this.buf[this.len++] = OP.SHORT_BINUNICODE; this.buf[this.len++] = b.length;
    b.copy(this.buf, this.len); this.len += b.length;
    return this.memoize();
  }
  int(v) {
    this.boundary();
    if (v >= 0 && v < 256) { this.ensure(2); this.buf[this.len++] = OP.BININT1; this.buf[this.len++] = v; }
    else if (v >= 0 && v < 65536) { this.ensure(3); this.buf[this.len++] = OP.BININT2; this.buf.writeUInt16LE(v, this.len); this.len += 2; }
    else if (v >= -(2 ** 31) && v < 2 ** 31) { this.ensure(5); this.buf[this.len++] = OP.BININT; this.buf.writeInt32LE(v, this.len); this.len += 4; }
    else {
      // LONG1: minimal little-endian two's complement (positive values below 2^53 here).
      this.ensure(11);
      this.buf[this.len++] = OP.LONG1;
      const at = this.len++;
      let n = 0;
      let last = 0;
      while (v > 0) {
        last = v % 256;
        this.buf[this.len++] = last;
        v = Math.floor(v / 256);
        n++;
      }
      if (last & 0x80) { this.buf[this.len++] = 0; n++; }
      this.buf[at] = n;
    }
  }
  /**
   * Called before every object is saved: like CPython's pickler (pickle.py's save() calls
   * commit_frame() first), a frame that has reached the target size ends here, so frames end
   * inside trace entries (between a key and its value, say), as they do in real snapshots.
   */
  boundary() {
    if (this.len >= FRAME_TARGET) this.cut();
  }
  /** Opens a container object (EMPTY_DICT or EMPTY_LIST) at an object boundary and memoizes it. */
  open(op) {
    this.boundary();
    this.byte(op);
    return this.memoize();
  }
  cut() {
    const header = Buffer.alloc(9);
    header[0] = OP.FRAME;
    header.writeBigUInt64LE(BigInt(this.len), 1);
    this.ready.push(header, Buffer.from(this.buf.subarray(0, this.len)));
    this.written += 9 + this.len;
    this.len = 0;
  }
  /** Writes out the complete frames; at the end, the last one whatever its size. */
  async flush(final = false) {
    if (final && this.len > 0) this.cut();
    for (const b of this.ready) if (!this.out.write(b)) await new Promise((r) => this.out.once('drain', r));
    this.ready = [];
  }
}

export async function generate(outPath, targetBytes) {
  const pattern = loadPattern();
  const out = createWriteStream(outPath);
  out.write(Buffer.from([OP.PROTO, 4]));
  const w = new Writer(out);
  const keys = {};
  const key = (k) => (keys[k] === undefined ? (keys[k] = w.str(k)) : w.get(keys[k]));
  const strings = {};
  const shared = (s) => (strings[s] === undefined ? (strings[s] = w.str(s)) : w.get(strings[s]));
  const frameMemo = new Map();
  const stackMemo = new Map();
  const frame = (i) => {
    if (frameMemo.has(i)) return w.get(frameMemo.get(i));
    const [name, filename, line] = pattern.frames[i];
    frameMemo.set(i, w.open(OP.EMPTY_DICT));
    w.byte(OP.MARK);
    key('name'); shared(name); key('filename'); shared(filename); key('line'); w.int(line);
    w.byte(OP.SETITEMS);
  };
  const stack = (s) => {
    if (stackMemo.has(s)) return w.get(stackMemo.get(s));
    const ids = pattern.stacks[s];
    stackMemo.set(s, w.open(OP.EMPTY_LIST));
    if (ids.length === 1) { frame(ids[0]); w.byte(OP.APPEND); }
    else if (ids.length > 1) { w.byte(OP.MARK); for (const f of ids) frame(f); w.byte(OP.APPENDS); }
  };

  w.open(OP.EMPTY_DICT);
  w.byte(OP.MARK);
  key('segments'); w.open(OP.EMPTY_LIST);
  key('device_traces'); w.open(OP.EMPTY_LIST);
  w.open(OP.EMPTY_LIST);
  let events = 0;
  let inBatch = 0;
  let time = 1_796_000_000_000_000;
  let rep = 0;
  const base = 0x100000000000;
  const perRep = pattern.ops.length;
  const actions = { a: 'alloc', r: 'free_requested', c: 'free_completed' };
  const sizes = new Map();
  // A request's address: unique per repetition, so alloc/free pairs never collide.
  const addrOf = (rep, req) => base + (rep * 60000 + req) * 4096;
  w.byte(OP.MARK);
  while (w.written + w.len < targetBytes) {
    for (const [kind, req, size, st] of pattern.ops) {
      if (kind === 'a') sizes.set(req, size);
      w.open(OP.EMPTY_DICT);
      w.byte(OP.MARK);
      key('action'); w.str(actions[kind]);
      key('addr'); w.int(addrOf(rep, req));
      key('size'); w.int(sizes.get(req));
      key('stream'); w.int(0);
      key('time_us'); w.int((time += 7));
      key('compile_context'); shared('N/A');
      key('user_metadata'); shared('');
      key('frames'); stack(st);
      w.byte(OP.SETITEMS);
      events++;
      if (++inBatch === 1000) { w.byte(OP.APPENDS); w.byte(OP.MARK); inBatch = 0; }
      if (w.ready.length > 0) await w.flush();
    }
    rep++;
  }
  w.byte(OP.APPENDS);
  w.byte(OP.APPEND); // the trace into device_traces
  key('allocator_settings'); w.open(OP.EMPTY_DICT);
  w.byte(OP.MARK); key('PYTORCH_CUDA_ALLOC_CONF'); shared(''); key('expandable_segments'); w.boundary(); w.byte(OP.NEWFALSE); w.byte(OP.SETITEMS);
  key('external_annotations'); w.open(OP.EMPTY_LIST);
  w.byte(OP.SETITEMS);
  w.byte(OP.STOP);
  await w.flush(true);
  await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve())));
  return { path: outPath, bytes: w.written + 2, events, repetitions: rep, patternEvents: perRep };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outPath = process.argv[2];
  const i = process.argv.indexOf('--bytes');
  const target = i > 0 ? Number(process.argv[i + 1]) : 1e9;
  if (!outPath || !Number.isFinite(target)) {
    console.error('usage: node bench/replay-synthetic.mjs OUT.pickle [--bytes N]');
    process.exit(2);
  }
  console.log(JSON.stringify(await generate(outPath, target)));
}
