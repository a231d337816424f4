#include "reconstruct.h"

#include <iterator>
#include <map>

#include "simulator.h"

namespace headroom {

namespace {

constexpr uint64_t kSmallBuffer = 2 * kMiB;

struct BlockInfo {
  uint64_t size;
  uint64_t requested;
  BlockState state;
};

struct SegmentInfo {
  uint64_t size;
  uint64_t stream;
  bool small;
  bool expandable;
  std::map<uint64_t, BlockInfo> blocks;  // Start address -> block.
};

class BackwardWalk {
 public:
  explicit BackwardWalk(const AllocatorSettings& settings) : settings_(settings) {}

  std::map<uint64_t, SegmentInfo> segments;
  std::string problem;

  // Each undo returns false, with `problem` set, when the trace and the state disagree.
  bool undoAlloc(uint64_t addr) {
    auto [seg, it] = blockAt(addr);
    if (seg == nullptr || it->second.state != BlockState::Allocated) return fail("an alloc", addr);
    it->second.state = BlockState::Free;
    mergeFree(*seg, it);
    return true;
  }

  bool undoFreeRequested(uint64_t addr) {
    auto [seg, it] = blockAt(addr);
    if (seg == nullptr || it->second.state != BlockState::Pending) return fail("a free_requested", addr);
    it->second.state = BlockState::Allocated;
    return true;
  }

  bool undoFreeCompleted(uint64_t addr, uint64_t requested) {
    SegmentInfo* seg = segmentContaining(addr);
    if (seg == nullptr) return fail("a free_completed", addr);
    auto it = seg->blocks.upper_bound(addr);
    if (it == seg->blocks.begin()) return fail("a free_completed", addr);
    --it;
    const uint64_t freeStart = it->first;
    const uint64_t freeEnd = it->first + it->second.size;
    if (it->second.state != BlockState::Free || addr >= freeEnd) return fail("a free_completed", addr);
    // The block's size: its rounded request, plus a tail too small to have been split off
    // (DeviceCachingAllocator::should_split), which then cannot be a free block of its own.
    const uint64_t rounded = DeviceSimulator::roundSize(settings_, requested);
    if (addr + rounded > freeEnd) return fail("a free_completed", addr);
    uint64_t size = rounded;
    const uint64_t tail = freeEnd - (addr + rounded);
    const bool oversize = rounded >= settings_.maxSplitSize;
    // Small pools and expandable segments split off any remainder of 512 bytes or more.
    const bool splitsSmall = seg->small || seg->expandable;
    if (tail > 0 && ((splitsSmall && tail < 512) || (!splitsSmall && tail <= kMiB) ||
                     (oversize && tail < settings_.maxNonSplitRoundingSize))) {
      size += tail;
    }
    seg->blocks.erase(it);
    if (addr > freeStart) seg->blocks[freeStart] = {addr - freeStart, 0, BlockState::Free};
    seg->blocks[addr] = {size, requested, BlockState::Pending};
    if (addr + size < freeEnd) seg->blocks[addr + size] = {freeEnd - addr - size, 0, BlockState::Free};
    return true;
  }

  bool undoSegmentAlloc(uint64_t addr, uint64_t size) {
    auto it = segments.find(addr);
    if (it == segments.end() || it->second.size != size || it->second.blocks.size() != 1 ||
        it->second.blocks.begin()->second.state != BlockState::Free) {
      return fail("a segment_alloc", addr);
    }
    segments.erase(it);
    return true;
  }

  bool undoSegmentFree(uint64_t addr, uint64_t size, uint64_t stream) {
    if (segmentContaining(addr) != nullptr) return fail("a segment_free", addr);
    SegmentInfo seg;
    seg.size = size;
    seg.stream = stream;
    // Small requests are packed into 2 MiB segments, and no large-pool segment has that size.
    seg.small = size == kSmallBuffer;
    seg.expandable = false;
    seg.blocks[addr] = {size, 0, BlockState::Free};
    segments[addr] = std::move(seg);
    return true;
  }

  // segment_map made [addr, addr+size) of an expandable segment usable (merged with the mapped free
  // space around it): before it, that range was unmapped, so it leaves the mapped range it is in.
  bool undoSegmentMap(uint64_t addr, uint64_t size) {
    auto segIt = segments.upper_bound(addr);
    if (segIt == segments.begin()) return fail("a segment_map", addr);
    --segIt;
    SegmentInfo& seg = segIt->second;
    const uint64_t segStart = segIt->first;
    if (!seg.expandable || addr + size > segStart + seg.size) return fail("a segment_map", addr);
    auto it = seg.blocks.upper_bound(addr);
    --it;
    const uint64_t freeStart = it->first;
    const uint64_t freeEnd = it->first + it->second.size;
    if (it->second.state != BlockState::Free || addr + size > freeEnd) return fail("a segment_map", addr);
    seg.blocks.erase(it);
    if (freeStart < addr) seg.blocks[freeStart] = {addr - freeStart, 0, BlockState::Free};
    if (addr + size < freeEnd) seg.blocks[addr + size] = {freeEnd - addr - size, 0, BlockState::Free};
    // Split the mapped range around the hole.
    SegmentInfo right{segStart + seg.size - (addr + size), seg.stream, seg.small, true, {}};
    for (auto b = seg.blocks.lower_bound(addr + size); b != seg.blocks.end();) {
      right.blocks.insert(*b);
      b = seg.blocks.erase(b);
    }
    seg.size = addr - segStart;
    const bool leftEmpty = seg.size == 0;
    if (right.size > 0) segments[addr + size] = std::move(right);
    if (leftEmpty) segments.erase(segStart);
    return true;
  }

  // segment_unmap released [addr, addr+size): before it, that range was mapped and free, joined to
  // the mapped ranges on either side.
  bool undoSegmentUnmap(uint64_t addr, uint64_t size, uint64_t stream) {
    if (segmentContaining(addr) != nullptr || segmentContaining(addr + size - 1) != nullptr) {
      return fail("a segment_unmap", addr);
    }
    SegmentInfo seg{size, stream, size % kLargeBuffer != 0, true, {}};
    seg.blocks[addr] = {size, 0, BlockState::Free};
    uint64_t start = addr;
    // Join the mapped range that ends here.
    auto before = segments.lower_bound(addr);
    if (before != segments.begin()) {
      auto prev = std::prev(before);
      if (prev->second.expandable && prev->first + prev->second.size == addr) {
        SegmentInfo left = std::move(prev->second);
        start = prev->first;
        segments.erase(prev);
        left.size += seg.size;
        left.blocks.insert(seg.blocks.begin(), seg.blocks.end());
        seg = std::move(left);
      }
    }
    // And the one that starts right after.
    auto after = segments.find(addr + size);
    if (after != segments.end() && after->second.expandable) {
      seg.size += after->second.size;
      seg.blocks.insert(after->second.blocks.begin(), after->second.blocks.end());
      segments.erase(after);
    }
    auto it = segments.emplace(start, std::move(seg)).first;
    mergeFree(it->second, it->second.blocks.find(addr));
    return true;
  }

 private:
  bool fail(const char* what, uint64_t addr) {
    problem = std::string("undoing ") + what + " at address " + std::to_string(addr) +
              " does not fit the segments the snapshot ended with";
    return false;
  }

  SegmentInfo* segmentContaining(uint64_t addr) {
    auto it = segments.upper_bound(addr);
    if (it == segments.begin()) return nullptr;
    --it;
    return addr < it->first + it->second.size ? &it->second : nullptr;
  }

  std::pair<SegmentInfo*, std::map<uint64_t, BlockInfo>::iterator> blockAt(uint64_t addr) {
    SegmentInfo* seg = segmentContaining(addr);
    if (seg == nullptr) return {nullptr, {}};
    auto it = seg->blocks.find(addr);
    if (it == seg->blocks.end()) return {nullptr, {}};
    return {seg, it};
  }

  void mergeFree(SegmentInfo& seg, std::map<uint64_t, BlockInfo>::iterator it) {
    auto next = std::next(it);
    if (next != seg.blocks.end() && next->second.state == BlockState::Free) {
      it->second.size += next->second.size;
      seg.blocks.erase(next);
    }
    if (it != seg.blocks.begin()) {
      auto prev = std::prev(it);
      if (prev->second.state == BlockState::Free) {
        prev->second.size += it->second.size;
        seg.blocks.erase(it);
      }
    }
  }

  const AllocatorSettings& settings_;
};

}  // namespace

InitialState reconstructInitialState(const Snapshot& snapshot, uint32_t device, uint32_t firstEvent,
                                     const AllocatorSettings& settings) {
  InitialState out;
  BackwardWalk walk(settings);
  for (const Segment& s : snapshot.segments) {
    if (s.device != static_cast<int64_t>(device)) continue;
    SegmentInfo seg;
    seg.size = s.totalSize;
    seg.stream = static_cast<uint64_t>(s.stream);
    seg.small = s.segmentType == kTypeSmall;
    seg.expandable = s.isExpandable;
    for (uint32_t i = 0; i < s.blockCount; ++i) {
      const Block& b = snapshot.blocks[s.firstBlock + i];
      const BlockState state = b.state == kStateActiveAllocated ? BlockState::Allocated
                               : b.state == kStateInactive     ? BlockState::Free
                                                               : BlockState::Pending;
      seg.blocks[b.address] = {b.size, b.requestedSize, state};
    }
    walk.segments[s.address] = std::move(seg);
  }
  const EventColumns& ev = snapshot.events;
  const DeviceTrace& trace = snapshot.devices[device];
  for (uint32_t e = trace.end; e-- > firstEvent;) {
    bool ok = true;
    switch (ev.action[e]) {
      case kAlloc: ok = walk.undoAlloc(ev.addr[e]); break;
      case kFreeRequested: ok = walk.undoFreeRequested(ev.addr[e]); break;
      case kFreeCompleted: ok = walk.undoFreeCompleted(ev.addr[e], ev.size[e]); break;
      case kSegmentAlloc: ok = walk.undoSegmentAlloc(ev.addr[e], ev.size[e]); break;
      case kSegmentFree: ok = walk.undoSegmentFree(ev.addr[e], ev.size[e], static_cast<uint64_t>(ev.stream(e))); break;
      case kSegmentMap: ok = walk.undoSegmentMap(ev.addr[e], ev.size[e]); break;
      case kSegmentUnmap: ok = walk.undoSegmentUnmap(ev.addr[e], ev.size[e], static_cast<uint64_t>(ev.stream(e))); break;
      default: break;
    }
    if (!ok) {
      out.supported = false;
      out.problem = walk.problem + " (trace entry " + std::to_string(e - trace.begin) + ")";
      return out;
    }
  }
  for (const auto& [address, seg] : walk.segments) {
    InitialSegment s{address, seg.size, seg.stream, seg.small, seg.expandable, {}};
    for (const auto& [blockAddress, b] : seg.blocks) {
      s.blocks.push_back({blockAddress, b.size, b.requested, b.state});
      if (b.state == BlockState::Allocated) out.allocatedBytes += b.size;
    }
    out.reservedBytes += seg.size;
    out.segments.push_back(std::move(s));
  }
  return out;
}

}  // namespace headroom
