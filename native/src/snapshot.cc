#include "snapshot.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "buffers.h"
#include "errors.h"

namespace headroom {

namespace {

// Order must match enum Known.
constexpr std::string_view kKnownStrings[kKnownCount] = {
    "alloc", "free_requested", "free_completed", "segment_alloc", "segment_free", "segment_map",
    "segment_unmap", "oom", "snapshot", "user_defined",
    "action", "addr", "size", "stream", "time_us", "frames", "device_free", "filename", "line",
    "name", "total_size", "blocks", "address", "requested_size", "state", "device",
    "allocated_size", "active_size", "segment_type", "segment_pool_id", "is_expandable",
    "segments", "device_traces", "allocator_settings", "PYTORCH_CUDA_ALLOC_CONF",
    "max_split_size", "garbage_collection_threshold", "expandable_segments",
    "roundup_power2_divisions", "active_allocated", "active_pending_free", "inactive", "small",
    "large",
};

// Record kinds a lowered container can become.
constexpr Tag kEventTag = Tag::Lowered0;
constexpr Tag kFrameTag = Tag::Lowered1;
constexpr Tag kStackTag = Tag::Lowered2;
constexpr Tag kBlockTag = Tag::Lowered3;
constexpr Tag kSegmentTag = Tag::Lowered4;

constexpr uint32_t kFirstKey = kKeyAction;
constexpr uint32_t kKeySlots = kKnownCount - kFirstKey;

[[noreturn]] void schemaError(const std::string& message) { throw DecodeError(code::kSchema, message); }

inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

// The values of a dict under the known keys, found in one pass over its items. A bit per key says
// which slots are set, so the slots are not cleared for every dict (a trace entry each).
class KeyView {
 public:
  explicit KeyView(const Container& dict) {
    for (size_t i = 0; i + 1 < dict.items.size(); i += 2) {
      const Value& key = dict.items[i];
      if (key.tag == Tag::Str && key.ref >= kFirstKey && key.ref < kKnownCount) {
        slots_[key.ref - kFirstKey] = &dict.items[i + 1];
        present_ |= uint64_t{1} << (key.ref - kFirstKey);
      }
    }
  }
  const Value* get(uint32_t key) const { return has(key) ? slots_[key - kFirstKey] : nullptr; }
  bool has(uint32_t key) const { return (present_ >> (key - kFirstKey)) & 1; }

 private:
  static_assert(kKeySlots <= 64);
  uint64_t present_ = 0;
  const Value* slots_[kKeySlots];
};

class SnapshotBuilder final : public Lowering {
 public:
  SnapshotBuilder(Snapshot& out, Times times) : out_(out), keepTimes_(times == Times::Keep) {
    for (uint32_t i = 0; i < kKnownCount; ++i) {
      if (out_.strings.intern(kKnownStrings[i]) != i) throw std::logic_error("known strings out of order");
    }
  }

  Value lower(PickleReader& reader, const Container& c) override {
    if (c.kind == Tag::Dict) {
      KeyView keys(c);
      if (keys.has(kKeyAction)) return lowerEvent(reader, keys);
      if (keys.has(kKeyFilename) && keys.has(kKeyLine)) return lowerFrame(reader, keys);
      if (keys.has(kKeyTotalSize) && keys.has(kKeyBlocks)) return lowerSegment(reader, keys);
      if (keys.has(kKeyState) && keys.has(kKeySize)) return lowerBlock(reader, keys);
      return Value{};
    }
    if (c.kind == Tag::List && c.size() != 0 && c.at(0).tag == kFrameTag) return lowerStack(reader, c);
    return Value{};
  }

  void finish(PickleReader& reader, const Value& rootValue);
  void reportProgressTo(Prefaulter* prefaulter) { prefaulter_ = prefaulter; }

 private:
  int64_t intField(PickleReader& reader, const KeyView& keys, uint32_t key, const char* what,
                   bool required, int64_t fallback = 0) {
    const Value* v = keys.get(key);
    if (v == nullptr || (!required && v->tag == Tag::None)) {
      if (required) schemaError(std::string(what) + " has no '" + std::string(kKnownStrings[key]) + "'");
      return fallback;
    }
    if (v->tag == Tag::Int || v->tag == Tag::Bool) return v->num;
    schemaError(std::string(what) + ": '" + std::string(kKnownStrings[key]) + "' is " + reader.describe(*v) +
                ", expected an int (offset " + std::to_string(reader.offset()) + ")");
  }

  uint32_t strField(PickleReader& reader, const KeyView& keys, uint32_t key, const char* what,
                    bool required) {
    const Value* v = keys.get(key);
    if (v == nullptr) {
      if (required) schemaError(std::string(what) + " has no '" + std::string(kKnownStrings[key]) + "'");
      return UINT32_MAX;
    }
    if (v->tag == Tag::Str) return v->ref;
    schemaError(std::string(what) + ": '" + std::string(kKnownStrings[key]) + "' is " + reader.describe(*v) +
                ", expected a str (offset " + std::to_string(reader.offset()) + ")");
  }

  uint32_t stackField(PickleReader& reader, const KeyView& keys, const char* what) {
    const Value* v = keys.get(kKeyFrames);
    if (v == nullptr || v->tag == Tag::None) return 0;
    if (v->tag == kStackTag) return v->ref;
    if (v->tag == Tag::List && reader.container(*v).size() == 0) return 0;
    schemaError(std::string(what) + ": 'frames' is " + reader.describe(*v) + ", expected a list of frames (offset " +
                std::to_string(reader.offset()) + ")");
  }

  Value lowerEvent(PickleReader& reader, const KeyView& keys) {
    const char* what = "a trace entry";
    EventColumns& ev = out_.events;
    if (ev.count() >= UINT32_MAX - 1) schemaError("more than 2^32 trace entries");
    const uint32_t action = strField(reader, keys, kKeyAction, what, true);
    const uint32_t addrKey = keys.has(kKeyAddr) ? kKeyAddr : kKeyDeviceFree;
    ev.action.push_back(actionCode(action));
    ev.addr.push_back(static_cast<uint64_t>(intField(reader, keys, addrKey, what, false)));
    ev.size.push_back(static_cast<uint64_t>(intField(reader, keys, kKeySize, what, false)));
    ev.streamCode.push_back(streamCode(intField(reader, keys, kKeyStream, what, false)));
    const int64_t timeUs = intField(reader, keys, kKeyTimeUs, what, false);
    if (keepTimes_) ev.timeUs.push_back(timeUs);
    ev.stack.push_back(stackField(reader, keys, what));
    if (prefaulter_ != nullptr) prefaulter_->progress(ev.count());
    return Value::of(kEventTag, static_cast<uint32_t>(ev.count() - 1));
  }

  // The code of an action string: the known actions are their own codes, others are numbered as met.
  uint8_t actionCode(uint32_t action) {
    if (action < kActionCount) return static_cast<uint8_t>(action);
    std::vector<uint32_t>& names = out_.events.actionNames;
    for (size_t i = kActionCount; i < names.size(); ++i) {
      if (names[i] == action) return static_cast<uint8_t>(i);
    }
    if (names.size() > UINT8_MAX) schemaError("more than 255 distinct trace actions: not a PyTorch memory snapshot");
    names.push_back(action);
    return static_cast<uint8_t>(names.size() - 1);
  }

  // The code of a stream; a trace uses a handful, and nearly every entry the one before it used.
  uint16_t streamCode(int64_t stream) {
    std::vector<int64_t>& streams = out_.events.streams;
    if (lastStreamCode_ < streams.size() && streams[lastStreamCode_] == stream) return lastStreamCode_;
    for (size_t i = 0; i < streams.size(); ++i) {
      if (streams[i] == stream) return lastStreamCode_ = static_cast<uint16_t>(i);
    }
    if (streams.size() > UINT16_MAX) schemaError("more than 65,536 distinct streams in the trace");
    streams.push_back(stream);
    return lastStreamCode_ = static_cast<uint16_t>(streams.size() - 1);
  }

  Value lowerFrame(PickleReader& reader, const KeyView& keys) {
    const char* what = "a frame";
    Frame f;
    f.filename = strField(reader, keys, kKeyFilename, what, true);
    const uint32_t name = strField(reader, keys, kKeyName, what, false);
    f.name = name == UINT32_MAX ? out_.strings.intern("") : name;
    f.line = intField(reader, keys, kKeyLine, what, false);
    const uint64_t key = mix(mix(f.filename, f.name), static_cast<uint64_t>(f.line));
    auto [it, inserted] = frameIndex_.try_emplace(key, static_cast<uint32_t>(out_.frames.size()));
    // Distinct frames that collide on the 64-bit key are told apart by a linear probe of the key.
    uint64_t probe = key;
    while (!inserted) {
      const Frame& existing = out_.frames[it->second];
      if (existing.filename == f.filename && existing.name == f.name && existing.line == f.line) {
        return Value::of(kFrameTag, it->second);
      }
      probe = mix(probe, 1);
      std::tie(it, inserted) = frameIndex_.try_emplace(probe, static_cast<uint32_t>(out_.frames.size()));
    }
    out_.frames.push_back(f);
    return Value::of(kFrameTag, it->second);
  }

  Value lowerStack(PickleReader& reader, const Container& list) {
    const size_t n = list.size();
    uint64_t key = n;
    for (size_t i = 0; i < n; ++i) {
      const Value v = list.at(i);
      if (v.tag != kFrameTag) {
        schemaError("a list of frames holds " + reader.describe(v) + " (offset " + std::to_string(reader.offset()) + ")");
      }
      key = mix(key, v.ref);
    }
    auto sameStack = [&](uint32_t s) {
      const uint32_t b = out_.stackOffsets[s], e = out_.stackOffsets[s + 1];
      if (e - b != n) return false;
      for (uint32_t i = b; i < e; ++i) {
        if (out_.stackFrames[i] != list.at(i - b).ref) return false;
      }
      return true;
    };
    const auto newId = static_cast<uint32_t>(out_.stackOffsets.size() - 1);
    auto [it, inserted] = stackIndex_.try_emplace(key, newId);
    uint64_t probe = key;
    while (!inserted) {
      if (sameStack(it->second)) return Value::of(kStackTag, it->second);
      probe = mix(probe, 1);
      std::tie(it, inserted) = stackIndex_.try_emplace(probe, newId);
    }
    for (size_t i = 0; i < n; ++i) out_.stackFrames.push_back(list.at(i).ref);
    out_.stackOffsets.push_back(static_cast<uint32_t>(out_.stackFrames.size()));
    return Value::of(kStackTag, newId);
  }

  Value lowerBlock(PickleReader& reader, const KeyView& keys) {
    const char* what = "a segment block";
    Block b;
    b.address = static_cast<uint64_t>(intField(reader, keys, kKeyAddress, what, false, -1));
    b.size = static_cast<uint64_t>(intField(reader, keys, kKeySize, what, true));
    b.requestedSize = static_cast<uint64_t>(intField(reader, keys, kKeyRequestedSize, what, false));
    b.state = strField(reader, keys, kKeyState, what, true);
    b.stack = stackField(reader, keys, what);
    pendingBlocks_.push_back(b);
    return Value::of(kBlockTag, static_cast<uint32_t>(pendingBlocks_.size() - 1));
  }

  Value lowerSegment(PickleReader& reader, const KeyView& keys) {
    const char* what = "a segment";
    Segment s;
    s.device = intField(reader, keys, kKeyDevice, what, false);
    s.address = static_cast<uint64_t>(intField(reader, keys, kKeyAddress, what, true));
    s.totalSize = static_cast<uint64_t>(intField(reader, keys, kKeyTotalSize, what, true));
    s.allocatedSize = static_cast<uint64_t>(intField(reader, keys, kKeyAllocatedSize, what, false));
    s.activeSize = static_cast<uint64_t>(intField(reader, keys, kKeyActiveSize, what, false));
    s.requestedSize = static_cast<uint64_t>(intField(reader, keys, kKeyRequestedSize, what, false));
    s.stream = intField(reader, keys, kKeyStream, what, false);
    const uint32_t type = strField(reader, keys, kKeySegmentType, what, false);
    s.segmentType = type == UINT32_MAX ? kTypeLarge : type;
    s.isExpandable = intField(reader, keys, kKeyIsExpandable, what, false) != 0;
    s.stack = stackField(reader, keys, what);
    const Value* blocks = keys.get(kKeyBlocks);
    if (blocks->tag != Tag::List) schemaError("a segment's 'blocks' is " + reader.describe(*blocks) + ", expected a list");
    const Container& list = reader.container(*blocks);
    s.firstBlock = static_cast<uint32_t>(out_.blocks.size());
    s.blockCount = static_cast<uint32_t>(list.size());
    uint64_t address = s.address;
    for (size_t i = 0; i < list.size(); ++i) {
      const Value v = list.at(i);
      if (v.tag != kBlockTag) schemaError("a segment's blocks list holds " + reader.describe(v));
      Block b = pendingBlocks_[v.ref];
      // Snapshots from the Python path may leave out block addresses: blocks tile the segment in order.
      if (b.address == UINT64_MAX) b.address = address;
      address = b.address + b.size;
      out_.blocks.push_back(b);
    }
    out_.segments.push_back(s);
    return Value::of(kSegmentTag, static_cast<uint32_t>(out_.segments.size() - 1));
  }

  void readSettings(PickleReader& reader, const Value& v);
  void orderEvents(PickleReader& reader, const Container& traces);

  Snapshot& out_;
  const bool keepTimes_;
  Prefaulter* prefaulter_ = nullptr;
  uint16_t lastStreamCode_ = UINT16_MAX;
  std::vector<Block> pendingBlocks_;
  std::unordered_map<uint64_t, uint32_t> frameIndex_;
  std::unordered_map<uint64_t, uint32_t> stackIndex_;
};

void SnapshotBuilder::readSettings(PickleReader& reader, const Value& v) {
  if (v.tag != Tag::Dict) return;
  const Container& dict = reader.container(v);
  KeyView keys(dict);
  AllocatorSettingsRecord& s = out_.settings;
  if (const Value* conf = keys.get(kKeyAllocConf); conf != nullptr && conf->tag == Tag::Str) {
    s.allocConf = std::string(out_.strings.get(conf->ref));
  }
  if (const Value* m = keys.get(kKeyMaxSplitSize); m != nullptr && m->tag == Tag::Int) s.maxSplitSize = m->num;
  if (const Value* g = keys.get(kKeyGcThreshold); g != nullptr && g->tag == Tag::Float) {
    std::memcpy(&s.gcThreshold, &g->num, sizeof(double));
  }
  if (const Value* e = keys.get(kKeyExpandableSegments); e != nullptr && e->tag == Tag::Bool) {
    s.expandableSegments = e->num != 0;
  }
}

// Puts each device's events in one contiguous range, in trace order. Events are numbered as they
// are decoded, so this is normally already true and costs a check per device.
void SnapshotBuilder::orderEvents(PickleReader& reader, const Container& traces) {
  // First pass: the device ranges, and whether the entries are already in trace order (then no
  // order vector is needed: the usual case, where each trace is held as one run of records).
  bool identity = true;
  uint32_t next = 0;
  for (size_t i = 0; i < traces.size(); ++i) {
    const Value t = traces.at(i);
    if (t.tag != Tag::List) schemaError("'device_traces' holds " + reader.describe(t) + ", expected one list per device");
    const Container& list = reader.container(t);
    DeviceTrace d;
    d.begin = next;
    if (list.runCount != 0 && list.runTag == kEventTag) {
      identity = identity && list.runBegin == next;
      next += list.runCount;
    } else {
      for (size_t j = 0; j < list.size(); ++j) {
        const Value e = list.at(j);
        if (e.tag != kEventTag) schemaError("a device trace holds " + reader.describe(e) + ", expected trace entries");
        identity = identity && e.ref == next;
        ++next;
      }
    }
    d.end = next;
    out_.devices.push_back(d);
  }
  if (identity && next == out_.events.count()) return;
  std::vector<uint32_t> order;
  order.reserve(next);
  for (size_t i = 0; i < traces.size(); ++i) {
    const Container& list = reader.container(traces.at(i));
    for (size_t j = 0; j < list.size(); ++j) order.push_back(list.at(j).ref);
  }
  EventColumns& ev = out_.events;
  bool permutation = order.size() == ev.count();
  if (permutation) {
    std::vector<bool> seen(order.size(), false);
    for (uint32_t i : order) {
      if (seen[i]) {
        permutation = false;
        break;
      }
      seen[i] = true;
    }
  }
  if (permutation) {
    // A permutation (entries read by the fast path are numbered before entries the general path
    // lowers later in the same batch): apply it in place, cycle by cycle, instead of copying every
    // column, which would double the decoder's largest allocation.
    std::vector<bool> placed(order.size(), false);
    const bool timed = !ev.timeUs.empty();
    for (uint32_t start = 0; start < order.size(); ++start) {
      if (placed[start] || order[start] == start) {
        placed[start] = true;
        continue;
      }
      const uint8_t action = ev.action[start];
      const uint64_t addr = ev.addr[start];
      const uint64_t size = ev.size[start];
      const uint16_t stream = ev.streamCode[start];
      const int64_t timeUs = timed ? ev.timeUs[start] : 0;
      const uint32_t stack = ev.stack[start];
      uint32_t j = start;
      for (;;) {
        placed[j] = true;
        const uint32_t k = order[j];
        if (k == start) {
          ev.action[j] = action;
          ev.addr[j] = addr;
          ev.size[j] = size;
          ev.streamCode[j] = stream;
          if (timed) ev.timeUs[j] = timeUs;
          ev.stack[j] = stack;
          break;
        }
        ev.action[j] = ev.action[k];
        ev.addr[j] = ev.addr[k];
        ev.size[j] = ev.size[k];
        ev.streamCode[j] = ev.streamCode[k];
        if (timed) ev.timeUs[j] = ev.timeUs[k];
        ev.stack[j] = ev.stack[k];
        j = k;
      }
    }
    return;
  }
  // Rare: entries outside the traces, or shared between them. Gather the columns in trace order.
  EventColumns sorted;
  sorted.actionNames = ev.actionNames;
  sorted.streams = ev.streams;
  for (uint32_t i : order) {
    sorted.action.push_back(ev.action[i]);
    sorted.addr.push_back(ev.addr[i]);
    sorted.size.push_back(ev.size[i]);
    sorted.streamCode.push_back(ev.streamCode[i]);
    if (!ev.timeUs.empty()) sorted.timeUs.push_back(ev.timeUs[i]);
    sorted.stack.push_back(ev.stack[i]);
  }
  ev = std::move(sorted);
}

void SnapshotBuilder::finish(PickleReader& reader, const Value& rootValue) {
  const Value root = reader.resolve(rootValue);
  if (root.tag != Tag::Dict) {
    schemaError("the pickle holds " + reader.describe(root) +
                ", not the dict that torch.cuda.memory._snapshot() returns: not a PyTorch memory snapshot");
  }
  KeyView keys(reader.container(root));
  const Value* segments = keys.get(kKeySegments);
  if (segments == nullptr) schemaError("the top-level dict has no 'segments': not a PyTorch memory snapshot");
  if (segments->tag != Tag::List) schemaError("'segments' is " + reader.describe(*segments) + ", expected a list");
  const Container& segmentList = reader.container(*segments);
  for (size_t i = 0; i < segmentList.size(); ++i) {
    const Value s = segmentList.at(i);
    if (s.tag != kSegmentTag) schemaError("'segments' holds " + reader.describe(s) + ", expected segments");
  }
  if (const Value* traces = keys.get(kKeyDeviceTraces); traces != nullptr) {
    if (traces->tag != Tag::List) schemaError("'device_traces' is " + reader.describe(*traces) + ", expected a list");
    orderEvents(reader, reader.container(*traces));
  } else if (out_.events.count() != 0) {
    schemaError("trace entries outside 'device_traces'");
  }
  if (const Value* settings = keys.get(kKeyAllocatorSettings); settings != nullptr) readSettings(reader, *settings);
}

}  // namespace

Snapshot decodeSnapshot(InputWindow& input, uint64_t sizeHint, Times times) {
  Snapshot out;
  // A trace entry takes 60-90 bytes of pickle with a call stack and about 40 without one (a
  // trace recorded without stacks: `frames` is an empty list each time); reserving for the
  // smallest keeps the columns from being regrown and copied, and capacity never touched costs
  // only address space.
  const auto events = static_cast<size_t>(std::min<uint64_t>(sizeHint / 40, UINT32_MAX));
  EventColumns& ev = out.events;
  for (uint32_t a = 0; a < kActionCount; ++a) ev.actionNames.push_back(a);
  ev.action.reserve(events);
  ev.addr.reserve(events);
  ev.size.reserve(events);
  ev.streamCode.reserve(events);
  const size_t timedEvents = times == Times::Keep ? events : 0;
  ev.timeUs.reserve(timedEvents);
  ev.stack.reserve(events);
  adviseHugePages(ev.action.data(), events * sizeof(uint8_t));
  adviseHugePages(ev.addr.data(), events * sizeof(uint64_t));
  adviseHugePages(ev.size.data(), events * sizeof(uint64_t));
  adviseHugePages(ev.streamCode.data(), events * sizeof(uint16_t));
  adviseHugePages(ev.timeUs.data(), timedEvents * sizeof(int64_t));
  adviseHugePages(ev.stack.data(), events * sizeof(uint32_t));
  SnapshotBuilder builder(out, times);
  PickleReader reader(input, out.strings, builder);
  const auto [memo, memoBytes] = reader.reserveMemo(sizeHint);
  // On large snapshots the columns and the memo are faulted in on another core, about a million
  // entries ahead (the memo grows by about two slots an entry).
  std::unique_ptr<Prefaulter> prefaulter;
  if (sizeHint >= (uint64_t{64} << 20)) {
    prefaulter = std::make_unique<Prefaulter>(
        std::vector<Prefaulter::Buffer>{
            {ev.action.data(), events * sizeof(uint8_t), sizeof(uint8_t)},
            {ev.addr.data(), events * sizeof(uint64_t), sizeof(uint64_t)},
            {ev.size.data(), events * sizeof(uint64_t), sizeof(uint64_t)},
            {ev.streamCode.data(), events * sizeof(uint16_t), sizeof(uint16_t)},
            {ev.timeUs.data(), timedEvents * sizeof(int64_t), sizeof(int64_t)},
            {ev.stack.data(), events * sizeof(uint32_t), sizeof(uint32_t)},
            {memo, memoBytes, 2 * Memo::kSlotBytes},
        },
        size_t{1} << 20);
    builder.reportProgressTo(prefaulter.get());
  }
  const Value root = reader.run();
  prefaulter.reset();
  builder.finish(reader, root);
  return out;
}

}  // namespace headroom
