// An allow-listed pickle reader: it executes the data-only part of the pickle virtual machine
// (protocols 2 to 5: containers, strings, numbers, the memo) and nothing else. No opcode that
// imports or calls anything (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, PERSID, ...)
// is executed; each is an ERR_SNAPSHOT_FORBIDDEN_OPCODE naming the opcode and its offset. The one
// tolerated exception is the legacy TorchScript form, where every dict and list is wrapped as
// `torch.jit._pickle.restore_type_tag(obj, "Dict[str, Any]")`: that call is known to return `obj`,
// so the reader keeps `obj` and drops the tag, without importing anything.
//
// The reader streams: values are small handles, and when a container is consumed by its parent
// (the point at which pickle guarantees it is complete) a `Lowering` may turn it into a compact
// record (a trace event, a frame) and reuse the generic container. Flat dicts written in one batch
// (trace entries, frames) are read straight from the input window and lowered at once. So memory
// grows with the compact records, not with a tree of Python-like objects.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "byte_source.h"
#include "errors.h"

namespace headroom {

enum class Tag : uint8_t {
  Unset,   // An empty memo slot.
  None,
  Bool,    // num = 0 or 1.
  Int,     // num = the value.
  BigInt,  // An integer outside int64; ref = its little-endian bytes in the string table.
  Float,   // num = the IEEE-754 bits.
  Str,     // ref = interned string id.
  Bytes,   // ref = interned string id (raw bytes).
  List,    // ref = container id.
  Tuple,   // ref = container id.
  Dict,    // ref = container id; items alternate key, value.
  TypeTagFn,  // The legacy restore_type_tag callable (see above); only REDUCE may consume it.
  // Compact records produced by a Lowering; ref indexes the lowering's own tables.
  Lowered0,
  Lowered1,
  Lowered2,
  Lowered3,
  Lowered4,
};

struct Value {
  Tag tag = Tag::Unset;
  uint32_t ref = 0;
  int64_t num = 0;

  static Value none() { return {Tag::None, 0, 0}; }
  static Value boolean(bool b) { return {Tag::Bool, 0, b ? 1 : 0}; }
  static Value integer(int64_t v) { return {Tag::Int, 0, v}; }
  static Value of(Tag tag, uint32_t ref) { return {tag, ref, 0}; }
  bool isContainer() const { return tag == Tag::List || tag == Tag::Tuple || tag == Tag::Dict; }
};

// Interned strings: each distinct byte string is stored once and named by a dense id, so keys and
// repeated values (action names, file names) compare as integers.
class StringTable {
 public:
  StringTable();
  uint32_t intern(std::string_view s);
  std::string_view get(uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }

 private:
  void grow();
  std::vector<std::string> strings_;
  std::vector<uint32_t> slots_;  // Open addressing; 0 = empty, else id + 1.
};

struct Container {
  Tag kind = Tag::List;
  bool lowered = false;
  uint8_t memoRefs = 0;          // Memo slots naming this container (counted up to 2).
  uint32_t memoSlot = UINT32_MAX;  // The slot, when memoRefs == 1.
  Value loweredAs;               // Valid when lowered.
  std::vector<Value> items;      // Released (moved to a pool) once lowered.
  // A list of consecutive records (a device's trace entries, a segment's blocks) is held as a run,
  // records runTag with refs runBegin .. runBegin + runCount - 1, instead of one Value per item:
  // a 15-million-entry trace would otherwise cost a 240 MB vector grown by copying. `items` is
  // empty while a run is held; read a container through size() and at().
  Tag runTag = Tag::Unset;
  uint32_t runBegin = 0;
  uint32_t runCount = 0;

  size_t size() const { return runCount != 0 ? runCount : items.size(); }
  Value at(size_t i) const { return runCount != 0 ? Value::of(runTag, runBegin + static_cast<uint32_t>(i)) : items[i]; }
};

// The pickle memo at 4 bytes a slot (a snapshot memoizes two or three values per trace entry, so
// this is the decoder's second largest buffer, and on a 1 GB snapshot its fresh pages cost as much
// as parsing a third of the file): a value's tag above its ref. A ref too large to share the word
// with the tag (past 2^27: a snapshot of some 9 GB), and the 64-bit payload of a number (CPython
// never memoizes numbers, but a pickle may), go to a side table the slot points into.
class Memo {
 public:
  static constexpr size_t kSlotBytes = 4;
  size_t size() const { return slots_.size(); }
  void reserve(size_t n) { slots_.reserve(n); }
  const void* data() const { return slots_.data(); }
  size_t capacityBytes() const { return slots_.capacity() * sizeof(uint32_t); }
  void resize(size_t n) { slots_.resize(n); }
  Tag tag(size_t i) const { return get(i).tag; }
  void push(const Value& v) { slots_.push_back(pack(v)); }
  void set(size_t i, const Value& v) { slots_[i] = pack(v); }
  Value get(size_t i) const {
    const uint32_t s = slots_[i];
    if ((s >> kRefBits) != kWide) return Value::of(static_cast<Tag>(s >> kRefBits), s & kRefMask);
    return wide_[s & kRefMask];
  }

 private:
  // Built as one integer: written as two narrow fields and read back whole, a struct would cost a
  // store-forwarding stall on every memoized value.
  static constexpr uint32_t kRefBits = 27;
  static constexpr uint32_t kRefMask = (uint32_t{1} << kRefBits) - 1;
  static constexpr uint32_t kWide = 31;  // Above every Tag.
  static_assert(static_cast<uint32_t>(Tag::Lowered4) < kWide);
  static bool hasNumber(Tag t) { return t == Tag::Bool || t == Tag::Int || t == Tag::Float; }
  uint32_t pack(const Value& v) {
    if (!hasNumber(v.tag) && v.ref <= kRefMask) return (uint32_t{static_cast<uint8_t>(v.tag)} << kRefBits) | v.ref;
    if (wide_.size() > kRefMask) throw DecodeError(code::kSchema, "more than 2^27 memoized values with large ids: snapshot too large");
    wide_.push_back(v);
    return (kWide << kRefBits) | static_cast<uint32_t>(wide_.size() - 1);
  }
  static_assert(sizeof(uint32_t) == kSlotBytes);
  std::vector<uint32_t> slots_;
  std::vector<Value> wide_;
};

class PickleReader;

// Turns complete containers into compact records. Called on the worker thread, once per
// container, when a parent consumes it.
class Lowering {
 public:
  virtual ~Lowering() = default;
  // Returns the record that replaces the container, or a Value with tag Unset to keep it.
  virtual Value lower(PickleReader& reader, const Container& container) = 0;
};

class PickleReader {
 public:
  // Strings go into `strings`, which the caller owns (the decoded snapshot keeps it).
  PickleReader(InputWindow& input, StringTable& strings, Lowering& lowering);

  // Sizes the memo up front for a pickle of `sizeHint` bytes; returns the reserved range.
  std::pair<const void*, size_t> reserveMemo(uint64_t sizeHint);
  // Runs the pickle to its STOP opcode and returns the top-level value.
  Value run();

  const Container& container(const Value& v) const { return containers_[v.ref]; }
  // Resolves a container that has been lowered to its record; other values pass through.
  Value resolve(const Value& v) const {
    if (v.isContainer() && containers_[v.ref].lowered) return containers_[v.ref].loweredAs;
    return v;
  }
  std::string describe(const Value& v) const;
  uint64_t offset() const { return input_.offset(); }

 private:
  Value adopt(Value v);
  // The flat-dict fast path (see tryFlatDict in the .cc).
  struct FlatCursor {
    const uint8_t* p;
    const uint8_t* end;
  };
  static constexpr size_t kFlatDepth = 3;  // A trace entry, its list of frames, a frame.
  bool tryFlatDict();
  static bool skipFrames(FlatCursor& c);
  size_t takeMemoSlot(FlatCursor& c);
  bool readFlatItems(FlatCursor& c, uint8_t closer, size_t depth);
  bool readFlatContainer(FlatCursor& c, Tag kind, size_t depth, Value& out);
  bool readFlatValue(FlatCursor& c, size_t depth, Value& v);
  Value newContainer(Tag kind);
  void appendToList(Container& list, const Value& child);
  Container& mutableTarget(const Value& v, Tag expected, const char* opcodeName);
  void releaseItems(Container& c);
  std::vector<Value> takeItemPool();
  size_t popMark(const char* opcodeName);
  Value pop(const char* opcodeName);
  Value& top(const char* opcodeName);
  void memoPut(uint64_t index, const Value& v);
  Value memoGet(uint64_t index);
  Value sharedEmptyList();
  Value readLong(size_t n);
  std::string_view readBytes(size_t n, const char* what);
  [[noreturn]] void malformed(const std::string& why) const;
  [[noreturn]] void forbidden(uint8_t op, const char* name) const;

  InputWindow& input_;
  StringTable& strings_;
  Lowering& lowering_;
  std::vector<Container> containers_;
  std::vector<uint32_t> freeContainers_;  // Lowered containers no memo slot names any more.
  std::vector<std::vector<Value>> itemPool_;
  std::vector<Value> stack_;
  std::vector<size_t> marks_;
  Memo memo_;
  Container flatNested_[kFlatDepth];          // Scratch containers handed to the lowering, by depth.
  std::vector<Value> flatItems_[kFlatDepth];  // Items read so far, by depth.
  // One empty list stands for every empty list the fast path reads (a trace recorded without
  // stacks has one per entry, each memoized: a container each cost a third of such a decode).
  // Only the lowering reads it; memoGet gives the general path, which may fill a list, its own.
  uint32_t sharedEmptyList_ = UINT32_MAX;
  uint64_t opOffset_ = 0;  // Offset of the opcode being executed.
};

}  // namespace headroom
