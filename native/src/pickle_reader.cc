#include "pickle_reader.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "buffers.h"
#include "errors.h"

namespace headroom {

namespace {

// Opcodes, as named in CPython's Lib/pickletools.py.
enum Op : uint8_t {
  MARK = '(', STOP = '.', POP = '0', POP_MARK = '1', DUP = '2', FLOAT = 'F', INT = 'I',
  BININT = 'J', BININT1 = 'K', LONG = 'L', BININT2 = 'M', NONE = 'N', PERSID = 'P',
  BINPERSID = 'Q', REDUCE = 'R', STRING = 'S', BINSTRING = 'T', SHORT_BINSTRING = 'U',
  UNICODE = 'V', BINUNICODE = 'X', APPEND = 'a', BUILD = 'b', GLOBAL = 'c', DICT = 'd',
  EMPTY_DICT = '}', APPENDS = 'e', GET = 'g', BINGET = 'h', INST = 'i', LONG_BINGET = 'j',
  LIST = 'l', EMPTY_LIST = ']', OBJ = 'o', PUT = 'p', BINPUT = 'q', LONG_BINPUT = 'r',
  SETITEM = 's', TUPLE = 't', EMPTY_TUPLE = ')', SETITEMS = 'u', BINFLOAT = 'G',
  PROTO = 0x80, NEWOBJ = 0x81, EXT1 = 0x82, EXT2 = 0x83, EXT4 = 0x84, TUPLE1 = 0x85,
  TUPLE2 = 0x86, TUPLE3 = 0x87, NEWTRUE = 0x88, NEWFALSE = 0x89, LONG1 = 0x8a, LONG4 = 0x8b,
  BINBYTES = 'B', SHORT_BINBYTES = 'C', SHORT_BINUNICODE = 0x8c, BINUNICODE8 = 0x8d,
  BINBYTES8 = 0x8e, EMPTY_SET = 0x8f, ADDITEMS = 0x90, FROZENSET = 0x91, NEWOBJ_EX = 0x92,
  STACK_GLOBAL = 0x93, MEMOIZE = 0x94, FRAME = 0x95, BYTEARRAY8 = 0x96, NEXT_BUFFER = 0x97,
  READONLY_BUFFER = 0x98,
};

// Names of the opcodes the reader refuses, for the error message. Anything not listed here and
// not handled in run() is not a pickle opcode at all (ERR_SNAPSHOT_MALFORMED).
const char* forbiddenName(uint8_t op) {
  switch (op) {
    case GLOBAL: return "GLOBAL";
    case STACK_GLOBAL: return "STACK_GLOBAL";
    case REDUCE: return "REDUCE";
    case BUILD: return "BUILD";
    case INST: return "INST";
    case OBJ: return "OBJ";
    case NEWOBJ: return "NEWOBJ";
    case NEWOBJ_EX: return "NEWOBJ_EX";
    case PERSID: return "PERSID";
    case BINPERSID: return "BINPERSID";
    case EXT1: return "EXT1";
    case EXT2: return "EXT2";
    case EXT4: return "EXT4";
    case NEXT_BUFFER: return "NEXT_BUFFER";
    case READONLY_BUFFER: return "READONLY_BUFFER";
    // Data-only, but never produced for a memory snapshot; refusing them keeps the reader small.
    case EMPTY_SET: return "EMPTY_SET";
    case ADDITEMS: return "ADDITEMS";
    case FROZENSET: return "FROZENSET";
    case STRING: return "STRING";
    case BINSTRING: return "BINSTRING";
    case SHORT_BINSTRING: return "SHORT_BINSTRING";
    case UNICODE: return "UNICODE";
    case INT: return "INT";
    case LONG: return "LONG";
    case FLOAT: return "FLOAT";
    default: return nullptr;
  }
}

constexpr std::string_view kTypeTagModule = "torch.jit._pickle";
constexpr std::string_view kTypeTagName = "restore_type_tag";

inline uint64_t loadLe(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// A little-endian two's-complement integer of 1 to 8 bytes (LONG1's payload), sign-extended.
inline int64_t loadSignedLe(const uint8_t* p, size_t n) {
  uint64_t v = loadLe(p, n);
  if (n < 8 && (p[n - 1] & 0x80)) v |= ~uint64_t{0} << (8 * n);
  return static_cast<int64_t>(v);
}

// BINFLOAT's payload: a big-endian IEEE-754 double, kept as its bits.
inline int64_t loadFloatBits(const uint8_t* p) {
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];
  return static_cast<int64_t>(bits);
}

inline uint64_t hashBytes(std::string_view s) {
  // Eight bytes per multiply: a trace entry's action name is interned on every entry (CPython
  // writes it anew each time), and a byte-at-a-time hash made that a chain of 14 multiplies. The
  // tail is read with whole (overlapping) loads: a byte-wise copy into a word stalls on reading it.
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  auto load = [](const unsigned char* q, size_t bytes) {
    uint64_t w = 0;
    std::memcpy(&w, q, bytes);
    return w;
  };
  uint64_t h = n * kMul;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    h = (h ^ load(p + i, 8)) * kMul;
    h ^= h >> 32;
  }
  if (i < n) {
    uint64_t tail;
    if (n >= 8) {
      tail = load(p + n - 8, 8);
    } else if (n >= 4) {
      tail = load(p, 4) | (load(p + n - 4, 4) << 32);
    } else {
      tail = p[0] | (uint64_t{p[n / 2]} << 8) | (uint64_t{p[n - 1]} << 16);
    }
    h = (h ^ tail) * kMul;
  }
  return h ^ (h >> 29);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// StringTable

StringTable::StringTable() : slots_(1024, 0) {}

uint32_t StringTable::intern(std::string_view s) {
  const size_t mask = slots_.size() - 1;
  size_t i = hashBytes(s) & mask;
  while (slots_[i] != 0) {
    const uint32_t id = slots_[i] - 1;
    if (strings_[id] == s) return id;
    i = (i + 1) & mask;
  }
  const auto id = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(s);
  slots_[i] = id + 1;
  if (strings_.size() * 2 > slots_.size()) grow();
  return id;
}

void StringTable::grow() {
  std::vector<uint32_t> slots(slots_.size() * 2, 0);
  const size_t mask = slots.size() - 1;
  for (uint32_t id = 0; id < strings_.size(); ++id) {
    size_t i = hashBytes(strings_[id]) & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = id + 1;
  }
  slots_.swap(slots);
}

// ---------------------------------------------------------------------------------------------
// PickleReader

PickleReader::PickleReader(InputWindow& input, StringTable& strings, Lowering& lowering)
    : input_(input), strings_(strings), lowering_(lowering) {
  stack_.reserve(1024);
}

void PickleReader::malformed(const std::string& why) const {
  throw DecodeError(code::kMalformed,
                    "not a valid pickle: " + why + " (opcode at offset " + std::to_string(opOffset_) + ")");
}

void PickleReader::forbidden(uint8_t op, const char* name) const {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", op);
  throw DecodeError(code::kForbiddenOpcode,
                    std::string("opcode ") + name + " (" + hex + ") at offset " +
                        std::to_string(opOffset_) +
                        " is not allowed: memory snapshots hold only plain data, and Headroom "
                        "never imports or calls anything named in a pickle");
}

std::string PickleReader::describe(const Value& v) const {
  switch (v.tag) {
    case Tag::Unset: return "nothing";
    case Tag::None: return "None";
    case Tag::Bool: return "a bool";
    case Tag::Int:
    case Tag::BigInt: return "an int outside 64 bits";
    case Tag::Float: return "a float";
    case Tag::Str: return "a str";
    case Tag::Bytes: return "bytes";
    case Tag::List: return "a list";
    case Tag::Tuple: return "a tuple";
    case Tag::Dict: return "a dict";
    case Tag::TypeTagFn: return "a type-tag function";
    default: return "a decoded record";
  }
}

Value PickleReader::pop(const char* opcodeName) {
  if (stack_.empty() || (!marks_.empty() && marks_.back() == stack_.size())) {
    malformed(std::string(opcodeName) + " needs a value but the stack is empty");
  }
  Value v = stack_.back();
  stack_.pop_back();
  return v;
}

Value& PickleReader::top(const char* opcodeName) {
  if (stack_.empty() || (!marks_.empty() && marks_.back() == stack_.size())) {
    malformed(std::string(opcodeName) + " needs a value but the stack is empty");
  }
  return stack_.back();
}

size_t PickleReader::popMark(const char* opcodeName) {
  if (marks_.empty()) malformed(std::string(opcodeName) + " without a MARK");
  const size_t m = marks_.back();
  marks_.pop_back();
  return m;
}

std::vector<Value> PickleReader::takeItemPool() {
  if (itemPool_.empty()) return {};
  std::vector<Value> items = std::move(itemPool_.back());
  itemPool_.pop_back();
  return items;
}

void PickleReader::releaseItems(Container& c) {
  c.runCount = 0;
  c.items.clear();
  // Reuse small buffers (trace entries, frame lists); let big ones go back to the heap.
  if (c.items.capacity() <= 64 && itemPool_.size() < 4096) itemPool_.push_back(std::move(c.items));
  c.items = std::vector<Value>();
}

Value PickleReader::newContainer(Tag kind) {
  if (!freeContainers_.empty()) {
    const uint32_t id = freeContainers_.back();
    freeContainers_.pop_back();
    Container& c = containers_[id];
    c.kind = kind;
    c.lowered = false;
    c.memoRefs = 0;
    c.memoSlot = UINT32_MAX;
    c.loweredAs = Value{};
    c.runCount = 0;
    c.items = takeItemPool();
    return Value::of(kind, id);
  }
  if (containers_.size() >= UINT32_MAX) malformed("too many containers");
  Container c;
  c.kind = kind;
  c.items = takeItemPool();
  containers_.push_back(std::move(c));
  return Value::of(kind, static_cast<uint32_t>(containers_.size() - 1));
}

void PickleReader::appendToList(Container& list, const Value& child) {
  if (list.items.empty() && child.tag >= Tag::Lowered0) {
    if (list.runCount == 0) {
      list.runTag = child.tag;
      list.runBegin = child.ref;
      list.runCount = 1;
      return;
    }
    if (child.tag == list.runTag && child.ref == list.runBegin + list.runCount && list.runCount < UINT32_MAX) {
      ++list.runCount;
      return;
    }
  }
  if (list.runCount != 0) {
    // The run is broken: spell it out as items.
    list.items.reserve(list.runCount + 1);
    for (uint32_t i = 0; i < list.runCount; ++i) list.items.push_back(Value::of(list.runTag, list.runBegin + i));
    list.runCount = 0;
  }
  list.items.push_back(child);
}

Container& PickleReader::mutableTarget(const Value& v, Tag expected, const char* opcodeName) {
  if (v.tag != expected) {
    malformed(std::string(opcodeName) + " applied to " + describe(v));
  }
  Container& c = containers_[v.ref];
  if (c.lowered) {
    throw DecodeError(code::kSchema, std::string(opcodeName) + " at offset " + std::to_string(opOffset_) +
                                         " changes a container after it was used; snapshots never do that");
  }
  return c;
}

// A value becomes part of a parent container: by pickle's order of operations it is complete now,
// so it can be lowered to a compact record.
Value PickleReader::adopt(Value v) {
  if (v.tag == Tag::TypeTagFn) malformed("a type-tag function used as data");
  if (!v.isContainer()) return v;
  Container& c = containers_[v.ref];
  if (c.lowered) return c.loweredAs;
  Value record = lowering_.lower(*this, c);
  if (record.tag == Tag::Unset) return v;
  Container& again = containers_[v.ref];  // lower() does not add containers, but stay safe.
  again.lowered = true;
  again.loweredAs = record;
  releaseItems(again);
  // The memo slot that names the container now names its record, so the container's slot can be
  // reused; pickle.dump memoizes every container once, so this keeps only live ones in memory.
  if (again.memoRefs <= 1) {
    if (again.memoRefs == 1 && again.memoSlot < memo_.size()) {
      const Value slot = memo_.get(again.memoSlot);
      if (slot.tag == v.tag && slot.ref == v.ref) memo_.set(again.memoSlot, record);
    }
    freeContainers_.push_back(v.ref);
  }
  return record;
}

void PickleReader::memoPut(uint64_t index, const Value& v) {
  if (v.isContainer()) {
    Container& c = containers_[v.ref];
    if (c.memoRefs < 2) ++c.memoRefs;
    c.memoSlot = static_cast<uint32_t>(std::min<uint64_t>(index, UINT32_MAX));
  }
  if (index == memo_.size()) {
    memo_.push(v);
    return;
  }
  if (index < memo_.size()) {
    // Overwriting a slot: a container it named may still be named elsewhere; keep it for good.
    const Value old = memo_.get(index);
    if (old.isContainer()) containers_[old.ref].memoRefs = 2;
    memo_.set(index, v);
    return;
  }
  // Python writes memo indices in order; a far-away index would only serve to exhaust memory.
  if (index > memo_.size() + (uint64_t{1} << 20)) malformed("memo index " + std::to_string(index) + " out of range");
  memo_.resize(index + 1);
  memo_.set(index, v);
}

Value PickleReader::memoGet(uint64_t index) {
  if (index >= memo_.size() || memo_.tag(index) == Tag::Unset) {
    malformed("memo entry " + std::to_string(index) + " read before it was written");
  }
  const Value v = memo_.get(index);
  if (v.tag != Tag::List || v.ref != sharedEmptyList_) return v;
  // The program may fill the list it gets back, so from here on this slot names a list of its own.
  const Value own = newContainer(Tag::List);
  memoPut(index, own);
  return own;
}

Value PickleReader::sharedEmptyList() {
  if (sharedEmptyList_ == UINT32_MAX) {
    sharedEmptyList_ = newContainer(Tag::List).ref;
    containers_[sharedEmptyList_].memoRefs = 2;  // Never recycled.
  }
  return Value::of(Tag::List, sharedEmptyList_);
}

std::string_view PickleReader::readBytes(size_t n, const char* what) {
  if (!input_.ensure(n)) malformed(std::string("input ends inside ") + what);
  std::string_view s(reinterpret_cast<const char*>(input_.cursor()), n);
  input_.advance(n);
  return s;
}

Value PickleReader::readLong(size_t n) {
  std::string_view b = readBytes(n, "a LONG argument");
  const auto* p = reinterpret_cast<const uint8_t*>(b.data());
  if (n == 0) return Value::integer(0);
  if (n <= 8) return Value::integer(loadSignedLe(p, n));
  // Longer encodings still fit in int64 when the extra bytes only repeat the sign.
  const bool negative = (p[n - 1] & 0x80) != 0;
  bool fits = ((p[7] & 0x80) != 0) == negative;
  for (size_t i = 8; i < n && fits; ++i) fits = p[i] == (negative ? 0xff : 0x00);
  if (fits) return Value::integer(static_cast<int64_t>(loadLe(p, 8)));
  return Value::of(Tag::BigInt, strings_.intern(b));
}

// The fast path for the dicts a snapshot is made of (trace entries, frames): a dict written in one
// MARK ... SETITEMS batch whose items are scalars, strings, memo references, or nested flat
// containers (a trace entry's new list of frames, each frame a flat dict) is read straight from
// the input window and lowered at once, without going through the stack. Lowering every entry as
// soon as it is read also numbers the entries in trace order, so a device's trace stays one run
// of records (see Container). Anything else (another opcode, the window ending, a nested container
// the lowering does not turn into a record) undoes the memo entries it added and leaves the dict
// to the general path, which gives the same result more slowly. Nested records lowered before
// such a bail are frames and call stacks, which the lowering interns, so lowering them again on
// the general path returns the same records.
bool PickleReader::tryFlatDict() {
  constexpr size_t kLookahead = 4096;
  InputWindow& in = input_;
  in.ensure(kLookahead);  // Near the end of the input, fewer bytes is fine.
  FlatCursor c{in.cursor(), in.cursor() + in.available()};
  const uint8_t* const start = c.p;
  const size_t memoBefore = memo_.size();
  auto bail = [&] {
    memo_.resize(memoBefore);
    return false;
  };
  const size_t memoSlot = takeMemoSlot(c);
  if (c.p >= c.end || *c.p != MARK) return bail();
  ++c.p;
  std::vector<Value>& items = flatItems_[0];
  if (!readFlatItems(c, SETITEMS, 0)) return bail();
  in.advance(static_cast<size_t>(c.p - start));
  // Committed: from here on this is what the general path would have done.
  for (Value& v : items) {
    // Scalars and strings pass through adopt unchanged; skip the call for them.
    if (v.isContainer() || v.tag == Tag::TypeTagFn) v = adopt(v);
  }
  Container& scratch = flatNested_[0];
  scratch.kind = Tag::Dict;
  scratch.items.swap(items);
  Value result = lowering_.lower(*this, scratch);
  scratch.items.swap(items);
  if (result.tag == Tag::Unset) {
    result = newContainer(Tag::Dict);
    containers_[result.ref].items.assign(items.begin(), items.end());
  }
  if (memoSlot != SIZE_MAX) {
    memo_.set(memoSlot, result);
    if (result.isContainer()) {
      Container& container = containers_[result.ref];
      container.memoRefs = 1;
      container.memoSlot = static_cast<uint32_t>(std::min<uint64_t>(memoSlot, UINT32_MAX));
    }
  }
  stack_.push_back(result);
  return true;
}

// A MEMOIZE right after a container's opening opcode names the container; its slot is filled in
// once the container is lowered (a reference to it from inside the container means: bail).
size_t PickleReader::takeMemoSlot(FlatCursor& c) {
  if (c.p >= c.end || *c.p != MEMOIZE) return SIZE_MAX;
  ++c.p;
  memo_.push(Value{});
  return memo_.size() - 1;
}

// One item of a flat container: a scalar, a string, a memo reference to anything but an
// unfinished container, or (below the top) a nested flat container.
// Inlined into its callers: a call per item (18 in a trace entry) cost a third of the fast path.
[[gnu::always_inline]] inline bool PickleReader::readFlatValue(FlatCursor& c, size_t depth, Value& v) {
  if (!skipFrames(c)) return false;
  const uint8_t*& p = c.p;
  const uint8_t* const end = c.end;
  if (p >= end) return false;
  const uint8_t op = *p++;
  switch (op) {
    case SHORT_BINUNICODE:
    case BINUNICODE: {
      size_t n;
      if (op == SHORT_BINUNICODE) {
        if (p >= end) return false;
        n = *p++;
      } else {
        if (end - p < 4) return false;
        n = static_cast<size_t>(loadLe(p, 4));
        p += 4;
      }
      if (static_cast<size_t>(end - p) < n) return false;
      v = Value::of(Tag::Str, strings_.intern(std::string_view(reinterpret_cast<const char*>(p), n)));
      p += n;
      if (p < end && *p == MEMOIZE) {
        memo_.push(v);
        ++p;
      }
      return true;
    }
    case BININT1:
      if (p >= end) return false;
      v = Value::integer(*p++);
      return true;
    case BININT2:
      if (end - p < 2) return false;
      v = Value::integer(static_cast<int64_t>(loadLe(p, 2)));
      p += 2;
      return true;
    case BININT:
      if (end - p < 4) return false;
      v = Value::integer(static_cast<int32_t>(static_cast<uint32_t>(loadLe(p, 4))));
      p += 4;
      return true;
    case LONG1: {
      if (p >= end) return false;
      const size_t n = *p++;
      if (n > 8 || static_cast<size_t>(end - p) < n) return false;
      v = Value::integer(n == 0 ? 0 : loadSignedLe(p, n));
      p += n;
      return true;
    }
    case BINFLOAT: {
      if (end - p < 8) return false;
      v = Value{Tag::Float, 0, loadFloatBits(p)};
      p += 8;
      return true;
    }
    case NONE:
      v = Value::none();
      return true;
    case NEWTRUE:
      v = Value::boolean(true);
      return true;
    case NEWFALSE:
      v = Value::boolean(false);
      return true;
    case BINGET:
    case LONG_BINGET: {
      uint64_t index;
      if (op == BINGET) {
        if (p >= end) return false;
        index = *p++;
      } else {
        if (end - p < 4) return false;
        index = loadLe(p, 4);
        p += 4;
      }
      if (index >= memo_.size()) return false;
      v = memo_.get(index);
      // Unset: a slot of a container still being read. Below the top, a container that is not yet
      // lowered would be lowered by adopting it, which only the committed top level may do.
      return v.tag != Tag::Unset && (depth == 0 || !v.isContainer());
    }
    case EMPTY_LIST:
    case EMPTY_DICT: {
      // Through a copy: handing the caller's cursor to a call that is not inlined would keep it
      // in memory on every path (see readFlatItems).
      FlatCursor nested = c;
      const bool ok = readFlatContainer(nested, op == EMPTY_LIST ? Tag::List : Tag::Dict, depth, v);
      c = nested;
      return ok;
    }
    default:
      return false;
  }
}

// Reads items into flatItems_[depth] up to the `closer` opcode (SETITEMS or APPENDS).
// CPython's pickler ends a 64 KiB frame before whichever object it saves next, so FRAME opcodes
// land inside trace entries (between a key and its value, say) once per frame: the fast path
// steps over them as the general path does, or every such entry would leave it and break the
// trace's run of records (which then costs a 16-byte handle per entry and a reordering pass).
bool PickleReader::skipFrames(FlatCursor& c) {
  while (c.p < c.end && *c.p == FRAME) {
    if (c.end - c.p < 9) return false;
    c.p += 9;
  }
  return true;
}

bool PickleReader::readFlatItems(FlatCursor& c, uint8_t closer, size_t depth) {
  constexpr size_t kMaxItems = 128;
  std::vector<Value>& items = flatItems_[depth];
  items.clear();
  // The cursor is a local whose address never escapes, so it stays in a register: through the
  // caller's reference, every narrow store of a value's tag (which may alias anything) forced it
  // back to memory and the next opcode's read waited on that store.
  FlatCursor cur = c;
  for (;;) {
    if (!skipFrames(cur) || cur.p >= cur.end) return false;
    if (*cur.p == closer) {
      c.p = cur.p + 1;
      return closer != SETITEMS || items.size() % 2 == 0;
    }
    if (items.size() == kMaxItems) return false;
    // Read straight into the vector: building the value elsewhere and copying it in would load
    // 16 bytes just written as three narrow stores, a store-forwarding stall per item.
    if (!readFlatValue(cur, depth, items.emplace_back())) return false;
  }
}

// A nested container inside a flat dict, its opening opcode already read: lowered to a record.
bool PickleReader::readFlatContainer(FlatCursor& c, Tag kind, size_t depth, Value& out) {
  if (depth + 1 >= kFlatDepth) return false;
  const size_t slot = takeMemoSlot(c);
  std::vector<Value>& items = flatItems_[depth + 1];
  if (c.p < c.end && *c.p == MARK) {
    ++c.p;
    if (!readFlatItems(c, kind == Tag::Dict ? SETITEMS : APPENDS, depth + 1)) return false;
  } else if (kind == Tag::List) {
    // CPython writes a one-item list as `item APPEND`; anything else after the list's opening
    // means it is empty (filling it later would take opcodes this path does not read).
    items.clear();
    FlatCursor probe = c;
    const size_t memoBefore = memo_.size();
    Value item;
    if (readFlatValue(probe, depth + 1, item) && probe.p < probe.end && *probe.p == APPEND) {
      items.push_back(item);
      c.p = probe.p + 1;
    } else {
      memo_.resize(memoBefore);
    }
  } else {
    return false;  // A one-item dict (`key value SETITEM`): left to the general path.
  }
  if (items.empty() && kind == Tag::List) {
    // An empty list (a trace entry without frames) is the shared empty list; see memoGet.
    if (depth != 0) return false;
    out = sharedEmptyList();
    if (slot != SIZE_MAX) memoPut(slot, out);
    return true;
  }
  Container& scratch = flatNested_[depth + 1];
  scratch.kind = kind;
  scratch.items.swap(items);
  out = lowering_.lower(*this, scratch);
  scratch.items.swap(items);
  if (out.tag < Tag::Lowered0) return false;
  if (slot != SIZE_MAX) memo_.set(slot, out);
  return true;
}

std::pair<const void*, size_t> PickleReader::reserveMemo(uint64_t sizeHint) {
  // pickle.dump memoizes about one value per 25 bytes of a snapshot; reserving address space
  // costs nothing until it is touched, and saves copying the memo as it grows.
  memo_.reserve(static_cast<size_t>(std::min<uint64_t>(sizeHint / 20, uint64_t{1} << 31)));
  adviseHugePages(memo_.data(), memo_.capacityBytes());
  return {memo_.data(), memo_.capacityBytes()};
}

Value PickleReader::run() {
  InputWindow& in = input_;
  for (;;) {
    opOffset_ = in.offset();
    if (!in.ensure(1)) malformed("input ends before the STOP opcode");
    const uint8_t op = *in.cursor();
    in.advance(1);
    switch (op) {
      case PROTO: {
        const uint8_t version = static_cast<uint8_t>(readBytes(1, "PROTO")[0]);
        if (version < 2 || version > 5) malformed("unsupported pickle protocol " + std::to_string(version));
        break;
      }
      case FRAME:
        // A framing hint (protocol 4+): the frame's contents follow inline, so only the length is skipped.
        readBytes(8, "FRAME");
        break;
      case STOP: {
        if (stack_.size() != 1 || !marks_.empty()) malformed("STOP with a stack of " + std::to_string(stack_.size()) + " values");
        return stack_.back();
      }
      case MARK:
        marks_.push_back(stack_.size());
        break;
      case POP:
        if (!marks_.empty() && marks_.back() == stack_.size()) {
          marks_.pop_back();  // POP of a bare MARK discards the mark, as CPython does.
        } else {
          pop("POP");
        }
        break;
      case POP_MARK:
        stack_.resize(popMark("POP_MARK"));
        break;
      case DUP:
        stack_.push_back(top("DUP"));
        break;
      case NONE:
        stack_.push_back(Value::none());
        break;
      case NEWTRUE:
        stack_.push_back(Value::boolean(true));
        break;
      case NEWFALSE:
        stack_.push_back(Value::boolean(false));
        break;
      case BININT: {
        const auto* p = reinterpret_cast<const uint8_t*>(readBytes(4, "BININT").data());
        stack_.push_back(Value::integer(static_cast<int32_t>(static_cast<uint32_t>(loadLe(p, 4)))));
        break;
      }
      case BININT1:
        stack_.push_back(Value::integer(static_cast<uint8_t>(readBytes(1, "BININT1")[0])));
        break;
      case BININT2: {
        const auto* p = reinterpret_cast<const uint8_t*>(readBytes(2, "BININT2").data());
        stack_.push_back(Value::integer(static_cast<int64_t>(loadLe(p, 2))));
        break;
      }
      case LONG1: {
        const size_t n = static_cast<uint8_t>(readBytes(1, "LONG1")[0]);
        stack_.push_back(readLong(n));
        break;
      }
      case LONG4: {
        const auto* p = reinterpret_cast<const uint8_t*>(readBytes(4, "LONG4").data());
        const int32_t n = static_cast<int32_t>(static_cast<uint32_t>(loadLe(p, 4)));
        if (n < 0) malformed("LONG4 with a negative length");
        stack_.push_back(readLong(static_cast<size_t>(n)));
        break;
      }
      case BINFLOAT: {
        const auto* p = reinterpret_cast<const uint8_t*>(readBytes(8, "BINFLOAT").data());
        stack_.push_back(Value{Tag::Float, 0, loadFloatBits(p)});
        break;
      }
      case SHORT_BINUNICODE:
      case SHORT_BINBYTES: {
        const size_t n = static_cast<uint8_t>(readBytes(1, "a short string length")[0]);
        const uint32_t id = strings_.intern(readBytes(n, "a string"));
        stack_.push_back(Value::of(op == SHORT_BINUNICODE ? Tag::Str : Tag::Bytes, id));
        break;
      }
      case BINUNICODE:
      case BINBYTES: {
        const auto* p = reinterpret_cast<const uint8_t*>(readBytes(4, "a string length").data());
        const size_t n = static_cast<size_t>(loadLe(p, 4));
        const uint32_t id = strings_.intern(readBytes(n, "a string"));
        stack_.push_back(Value::of(op == BINUNICODE ? Tag::Str : Tag::Bytes, id));
        break;
      }
      case BINUNICODE8:
      case BINBYTES8:
      case BYTEARRAY8: {
        const auto* p = reinterpret_cast<const uint8_t*>(readBytes(8, "a string length").data());
        const uint64_t n = loadLe(p, 8);
        if (n > (uint64_t{1} << 31)) malformed("a string of " + std::to_string(n) + " bytes");
        const uint32_t id = strings_.intern(readBytes(static_cast<size_t>(n), "a string"));
        stack_.push_back(Value::of(op == BINUNICODE8 ? Tag::Str : Tag::Bytes, id));
        break;
      }
      case EMPTY_DICT:
        if (!tryFlatDict()) stack_.push_back(newContainer(Tag::Dict));
        break;
      case EMPTY_LIST:
        stack_.push_back(newContainer(Tag::List));
        break;
      case EMPTY_TUPLE:
        stack_.push_back(newContainer(Tag::Tuple));
        break;
      case TUPLE1:
      case TUPLE2:
      case TUPLE3: {
        const size_t n = static_cast<size_t>(op - TUPLE1 + 1);
        const char* name = op == TUPLE1 ? "TUPLE1" : op == TUPLE2 ? "TUPLE2" : "TUPLE3";
        Value items[3];
        for (size_t i = n; i-- > 0;) items[i] = pop(name);
        Value t = newContainer(Tag::Tuple);
        for (size_t i = 0; i < n; ++i) {
          Value child = adopt(items[i]);
          containers_[t.ref].items.push_back(child);
        }
        stack_.push_back(t);
        break;
      }
      case TUPLE:
      case LIST:
      case DICT: {
        const char* name = op == TUPLE ? "TUPLE" : op == LIST ? "LIST" : "DICT";
        const size_t m = popMark(name);
        if (op == DICT && (stack_.size() - m) % 2 != 0) malformed("DICT with an odd number of items");
        Value c = newContainer(op == TUPLE ? Tag::Tuple : op == LIST ? Tag::List : Tag::Dict);
        for (size_t i = m; i < stack_.size(); ++i) {
          Value child = adopt(stack_[i]);
          Container& target = containers_[c.ref];
          if (op == LIST) {
            appendToList(target, child);
          } else {
            target.items.push_back(child);
          }
        }
        stack_.resize(m);
        stack_.push_back(c);
        break;
      }
      case APPEND: {
        Value item = pop("APPEND");
        Value list = top("APPEND");
        Value child = adopt(item);
        appendToList(mutableTarget(list, Tag::List, "APPEND"), child);
        break;
      }
      case APPENDS: {
        const size_t m = popMark("APPENDS");
        if (m == 0) malformed("APPENDS without a list");
        Value list = stack_[m - 1];
        mutableTarget(list, Tag::List, "APPENDS");
        for (size_t i = m; i < stack_.size(); ++i) {
          Value child = adopt(stack_[i]);
          appendToList(containers_[list.ref], child);
        }
        stack_.resize(m);
        break;
      }
      case SETITEM: {
        Value value = pop("SETITEM");
        Value key = pop("SETITEM");
        Value dict = top("SETITEM");
        mutableTarget(dict, Tag::Dict, "SETITEM");
        Value k = adopt(key);
        Value v = adopt(value);
        std::vector<Value>& items = containers_[dict.ref].items;
        items.push_back(k);
        items.push_back(v);
        break;
      }
      case SETITEMS: {
        const size_t m = popMark("SETITEMS");
        if (m == 0) malformed("SETITEMS without a dict");
        if ((stack_.size() - m) % 2 != 0) malformed("SETITEMS with an odd number of items");
        Value dict = stack_[m - 1];
        mutableTarget(dict, Tag::Dict, "SETITEMS");
        for (size_t i = m; i < stack_.size(); ++i) {
          Value child = adopt(stack_[i]);
          containers_[dict.ref].items.push_back(child);
        }
        stack_.resize(m);
        break;
      }
      case MEMOIZE:
        memoPut(memo_.size(), top("MEMOIZE"));
        break;
      case BINPUT:
        memoPut(static_cast<uint8_t>(readBytes(1, "BINPUT")[0]), top("BINPUT"));
        break;
      case LONG_BINPUT: {
        const auto* p = reinterpret_cast<const uint8_t*>(readBytes(4, "LONG_BINPUT").data());
        memoPut(loadLe(p, 4), top("LONG_BINPUT"));
        break;
      }
      case BINGET:
        stack_.push_back(memoGet(static_cast<uint8_t>(readBytes(1, "BINGET")[0])));
        break;
      case LONG_BINGET: {
        const auto* p = reinterpret_cast<const uint8_t*>(readBytes(4, "LONG_BINGET").data());
        stack_.push_back(memoGet(loadLe(p, 4)));
        break;
      }
      case PUT:
      case GET: {
        // Text forms (protocol 0, still accepted by every later protocol): a decimal index and '\n'.
        uint64_t index = 0;
        size_t digits = 0;
        for (;;) {
          if (!in.ensure(1)) malformed("input ends inside a PUT/GET index");
          const uint8_t c = *in.cursor();
          in.advance(1);
          if (c == '\n') break;
          if (c < '0' || c > '9' || ++digits > 12) malformed("a PUT/GET index that is not a number");
          index = index * 10 + (c - '0');
        }
        if (digits == 0) malformed("an empty PUT/GET index");
        if (op == PUT) {
          memoPut(index, top("PUT"));
        } else {
          stack_.push_back(memoGet(index));
        }
        break;
      }
      case GLOBAL: {
        // Only the legacy TorchScript type tag is tolerated; the names are compared, never imported.
        std::string module, name;
        for (std::string* part : {&module, &name}) {
          for (;;) {
            if (!in.ensure(1)) malformed("input ends inside GLOBAL");
            const char c = static_cast<char>(*in.cursor());
            in.advance(1);
            if (c == '\n') break;
            if (part->size() > 256) forbidden(op, "GLOBAL");
            part->push_back(c);
          }
        }
        if (module != kTypeTagModule || name != kTypeTagName) forbidden(op, "GLOBAL");
        stack_.push_back(Value{Tag::TypeTagFn, 0, 0});
        break;
      }
      case REDUCE: {
        // Allowed only as restore_type_tag(obj, type): the result is obj.
        Value args = pop("REDUCE");
        Value fn = pop("REDUCE");
        if (fn.tag != Tag::TypeTagFn || args.tag != Tag::Tuple) forbidden(op, "REDUCE");
        const Container& tuple = containers_[args.ref];
        if (tuple.items.size() != 2) forbidden(op, "REDUCE");
        stack_.push_back(tuple.items[0]);
        break;
      }
      default: {
        const char* name = forbiddenName(op);
        if (name != nullptr) forbidden(op, name);
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        malformed(std::string("unknown opcode ") + hex);
      }
    }
  }
}

}  // namespace headroom
