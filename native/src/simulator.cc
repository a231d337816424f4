#include "simulator.h"

#include <algorithm>

namespace headroom {

namespace {
constexpr uint64_t kMinBlockSize = 512;
constexpr uint64_t kSmallSize = kMiB;
constexpr uint64_t kSmallBuffer = 2 * kMiB;
constexpr uint64_t kMinLargeAlloc = 10 * kMiB;
constexpr uint64_t kRoundLarge = 2 * kMiB;
// No accelerator holds 2^46 bytes (64 TiB). A request, or a total, beyond that (a corrupt or hostile
// trace: libFuzzer found a size of 2^64 - 2^31) fails as a cudaMalloc that cannot be satisfied
// would; before this bound, rounding such a size and adding it to the reserved bytes overflowed and
// the capacity check passed, which corrupted the segment's block list.
constexpr uint64_t kMaxDeviceBytes = uint64_t{1} << 46;

bool isPowerOf2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
unsigned log2Floor(uint64_t v) { return 63u - static_cast<unsigned>(__builtin_clzll(v)); }

// roundup_power2_next_division: e.g. 1200 with 4 divisions -> 1280.
uint64_t roundupPower2NextDivision(uint64_t size, uint64_t divisions) {
  if (isPowerOf2(size)) return size;
  const uint64_t floor = uint64_t{1} << log2Floor(size);
  const uint64_t division = floor >> log2Floor(divisions);
  if (division == 0) return floor << 1;
  const uint64_t roundedFloor = size & ~(division - 1);
  return roundedFloor == size ? size : roundedFloor + division;
}

uint64_t allocationSize(uint64_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge);
}
}  // namespace

uint64_t DeviceSimulator::roundSize(const AllocatorSettings& settings, uint64_t size) {
  if (size < kMinBlockSize) return kMinBlockSize;
  const uint64_t divisions = settings.divisionsFor(size);
  if (divisions > 1 && size > kMinBlockSize * divisions) return roundupPower2NextDivision(size, divisions);
  return kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

DeviceSimulator::DeviceSimulator(const AllocatorSettings& settings, uint64_t capacityBytes, uint64_t deviceTotalBytes)
    : settings_(settings),
      capacity_(capacityBytes),
      deviceTotal_(deviceTotalBytes),
      small_(true, &nodes_),
      large_(false, &nodes_),
      nextAddress_(uint64_t{0x7f0000000000}),
      nextVirtualAddress_(uint64_t{0x100000000000}) {
  blocks_.reserve(4096);
  blocks_.emplace_back();  // Slot 0 is never a block, so 0 can be the search keys' id.
}

uint32_t DeviceSimulator::newBlock() {
  uint32_t id;
  if (!freeIds_.empty()) {
    id = freeIds_.back();
    freeIds_.pop_back();
    blocks_[id] = Block();
  } else {
    id = static_cast<uint32_t>(blocks_.size());
    blocks_.emplace_back();
  }
  blocks_[id].live = true;
  return id;
}

void DeviceSimulator::deleteBlock(uint32_t b) {
  blocks_[b].live = false;
  freeIds_.push_back(b);
}

void DeviceSimulator::insertIntoBlocks(uint32_t b) {
  Block& block = blocks_[b];
  Pool& pool = poolOf(block);
  block.gcCountBase = pool.getFreeBlocksCallCount;
  pool.listFor(block.stream).insert(block.size, block.ptr, b);
  block.inFreeList = true;
}

void DeviceSimulator::eraseFromBlocks(uint32_t b) {
  Block& block = blocks_[b];
  if (!block.inFreeList) return;
  poolOf(block).listFor(block.stream).erase(block.size, block.ptr, b);
  block.inFreeList = false;
}

std::vector<uint32_t> DeviceSimulator::freeBlocksOf(const Pool& pool) {
  std::vector<uint32_t> ids;
  for (const auto& [stream, list] : pool.free) {
    for (FreeList::Position it = list.begin(); !list.atEnd(it); it = list.next(it)) ids.push_back(list.id(it));
  }
  return ids;
}

void DeviceSimulator::addReserved(uint64_t bytes) {
  if (segmentLog_ != nullptr) segmentLog_->push_back({true, bytes});
  stats_.reservedBytes += bytes;
  stats_.reservedPeakBytes = std::max(stats_.reservedPeakBytes, stats_.reservedBytes);
}

uint32_t DeviceSimulator::malloc(uint64_t origSize, uint64_t stream, uint32_t owner) {
  if (origSize > kMaxDeviceBytes) {
    ++stats_.ooms;
    return kNil;
  }
  const uint64_t size = roundSize(settings_, origSize);
  Pool& pool = size <= kSmallSize ? small_ : large_;
  Params p{size, stream, &pool, allocationSize(size)};
  bool found = getFreeBlock(p);
  if (!found) {
    if (gcEnabled()) garbageCollectCachedBlocks();
    found = allocBlock(p, false) || (releaseAvailableCachedBlocks(p) && allocBlock(p, false)) ||
            (releaseCachedBlocks() && allocBlock(p, true));
  }
  if (!found) {
    ++stats_.ooms;
    return kNil;
  }
  return allocFoundBlock(p, origSize, owner, shouldSplit(p.block, size));
}

bool DeviceSimulator::getFreeBlock(Params& p) {
  Pool& pool = *p.pool;
  if (gcEnabled()) ++pool.getFreeBlocksCallCount;
  const auto list = pool.free.find(p.stream);
  if (list == pool.free.end()) return false;
  FreeList& free = list->second;
  FreeList::Position it = free.lowerBound(p.size, 0);
  if (free.atEnd(it)) return false;
  if (blocks_[free.id(it)].segment >= 0) {
    if (settings_.expandableSegments) {
      // Best fit counts the unmapped space an expandable block could grow into.
      auto expandableSize = [this](uint32_t b) {
        const Block& x = blocks_[b];
        return x.size + (x.next != kNil && !blocks_[x.next].mapped ? blocks_[x.next].size : 0);
      };
      FreeList::Position next = free.next(it);
      while (blocks_[free.id(it)].segment >= 0 && !free.atEnd(next) &&
             expandableSize(free.id(next)) < expandableSize(free.id(it))) {
        it = next;
        next = free.next(next);
      }
    } else {
      do {
        it = free.next(it);
      } while (!free.atEnd(it) && blocks_[free.id(it)].segment >= 0);
      if (free.atEnd(it)) return false;
    }
  }
  const uint64_t candidate = blocks_[free.id(it)].size;
  // Do not return an oversized block for a large request.
  if (p.size < settings_.maxSplitSize && candidate >= settings_.maxSplitSize) return false;
  // Allow an oversized block to be rounded up, but only so far.
  if (p.size >= settings_.maxSplitSize && candidate >= p.size + settings_.maxNonSplitRoundingSize) return false;
  p.block = free.id(it);
  p.list = &free;
  p.at = it;
  return true;
}

bool DeviceSimulator::allocBlock(Params& p, bool isRetry) {
  if (isRetry) ++stats_.allocRetries;
  const uint64_t size = p.allocSize;
  const uint64_t limit = capacity_ != 0 ? std::min(capacity_, kMaxDeviceBytes) : kMaxDeviceBytes;
  if (size > limit || stats_.reservedBytes > limit - size) return false;
  if (settings_.expandableSegments) {
    p.block = tryAllocateExpandableBlock(p.stream, *p.pool, p.size);
    return p.block != kNil;
  }
  // cudaMalloc: a recorded address for this size if one is left, else a fresh descending one.
  uint64_t ptr;
  auto hint = addressHints_.find(size);
  if (hint != addressHints_.end() && !hint->second.empty()) {
    ptr = hint->second.front();
    hint->second.pop_front();
  } else {
    nextAddress_ -= (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
    ptr = nextAddress_;
  }
  const uint32_t b = newBlock();
  Block& block = blocks_[b];
  block.ptr = ptr;
  block.size = size;
  block.stream = p.stream;
  block.small = p.pool->small;
  p.block = b;
  addReserved(size);
  stats_.segments += 1;
  stats_.deviceAllocs += 1;
  return true;
}

bool DeviceSimulator::releaseAvailableCachedBlocks(const Params& p) {
  if (settings_.maxSplitSize == UINT64_MAX) return false;
  Pool& pool = *p.pool;
  const uint64_t keySize = std::max(p.size, settings_.maxSplitSize);
  const auto list = pool.free.find(p.stream);
  if (list == pool.free.end()) return false;
  const FreeList& free = list->second;
  FreeList::Position it = free.lowerBound(keySize, 0);
  if (free.atEnd(it) || blocks_[free.id(it)].segment >= 0) {
    // No single block is large enough: free oversize blocks, largest first.
    if (free.atBegin(it)) return false;
    uint64_t released = 0;
    std::vector<uint32_t> oversize;
    it = free.prev(it);
    while (released < keySize && blocks_[free.id(it)].size >= settings_.maxSplitSize) {
      const uint32_t b = free.id(it);
      if (blocks_[b].segment < 0) {
        released += blocks_[b].size;
        oversize.push_back(b);
      }
      if (free.atBegin(it)) break;
      it = free.prev(it);
    }
    // Released after the walk: releasing erases from the list the walk reads.
    for (uint32_t b : oversize) releaseBlock(b);
    if (released < keySize) return false;
  } else {
    releaseBlock(free.id(it));
  }
  return true;
}

bool DeviceSimulator::releaseCachedBlocks() {
  // synchronize_and_free_events: every free still waiting on another stream completes now.
  std::vector<uint32_t> pending;
  pending.swap(pendingFrees_);
  for (uint32_t b : pending) {
    blocks_[b].pending = false;
    freeBlock(b);
  }
  releaseBlocks(large_);
  releaseBlocks(small_);
  return true;
}

void DeviceSimulator::releaseBlocks(Pool& pool) {
  std::vector<uint32_t> toUnmap;
  for (uint32_t b : freeBlocksOf(pool)) {
    if (blocks_[b].segment >= 0) {
      toUnmap.push_back(b);
    } else if (blocks_[b].prev == kNil && blocks_[b].next == kNil) {
      releaseBlock(b);
    }
  }
  for (uint32_t b : toUnmap) {
    unmapBlock(b);
    if (blocks_[b].prev == kNil && blocks_[b].next == kNil) releaseExpandableSegment(b);
  }
}

void DeviceSimulator::releaseBlock(uint32_t b) {
  Block& block = blocks_[b];
  stats_.deviceFrees += 1;
  stats_.reservedBytes -= block.size;
  if (segmentLog_ != nullptr) segmentLog_->push_back({false, block.size});
  stats_.segments -= 1;
  eraseFromBlocks(b);
  deleteBlock(b);
}

void DeviceSimulator::garbageCollectCachedBlocks() {
  const auto gcThreshold = static_cast<uint64_t>(settings_.gcThreshold * static_cast<double>(capacity_));
  if (stats_.reservedBytes <= gcThreshold) return;
  const uint64_t target = stats_.reservedBytes - gcThreshold;
  uint64_t reclaimed = 0;
  uint64_t totalAge = 0;
  int64_t freeable = 0;
  auto age = [this](uint32_t b) {
    return static_cast<uint64_t>(static_cast<int>(large_.getFreeBlocksCallCount - blocks_[b].gcCountBase));
  };
  for (uint32_t b : freeBlocksOf(large_)) {
    if (blocks_[b].prev == kNil && blocks_[b].next == kNil) {
      totalAge += age(b);
      ++freeable;
    }
  }
  if (freeable == 0) return;
  bool freed = true;
  while (reclaimed < target && freed && freeable > 0) {
    const double threshold = static_cast<double>(totalAge) / static_cast<double>(freeable);
    freed = false;
    for (uint32_t b : freeBlocksOf(large_)) {
      const Block& block = blocks_[b];
      if (block.prev == kNil && block.next == kNil && block.segment < 0 && static_cast<double>(age(b)) >= threshold) {
        freed = true;
        reclaimed += block.size;
        totalAge -= age(b);
        --freeable;
        releaseBlock(b);
      }
    }
  }
}

bool DeviceSimulator::shouldSplit(uint32_t b, uint64_t size) const {
  const Block& block = blocks_[b];
  const uint64_t remaining = block.size - size;
  if (block.small || settings_.expandableSegments) return remaining >= kMinBlockSize;
  return size < settings_.maxSplitSize && remaining > kSmallSize;
}

uint32_t DeviceSimulator::allocFoundBlock(const Params& p, uint64_t origSize, uint32_t owner, bool split) {
  uint32_t b = p.block;
  if (split) {
    const uint32_t remaining = b;
    b = newBlock();  // May reallocate blocks_: index, don't hold references across it.
    Block& block = blocks_[b];
    Block& rest = blocks_[remaining];
    block.ptr = rest.ptr;
    block.size = p.size;
    block.stream = p.stream;
    block.small = rest.small;
    block.segment = rest.segment;
    block.prev = rest.prev;
    if (block.prev != kNil) blocks_[block.prev].next = b;
    block.next = remaining;
    rest.prev = b;
    rest.ptr += p.size;
    rest.size -= p.size;
    if (p.list != nullptr) {
      // The remainder keeps the found block's id and its place in the free list.
      rest.gcCountBase = p.pool->getFreeBlocksCallCount;
      p.list->replaceAt(p.at, rest.size, rest.ptr, remaining);
    } else {
      insertIntoBlocks(remaining);
    }
  } else if (p.list != nullptr) {
    p.list->eraseAt(p.at);
    blocks_[b].inFreeList = false;
  }
  Block& block = blocks_[b];
  block.allocated = true;
  block.requested = origSize;
  block.owner = owner;
  stats_.allocatedBytes += block.size;
  stats_.allocatedPeakBytes = std::max(stats_.allocatedPeakBytes, stats_.allocatedBytes);
  return b;
}

void DeviceSimulator::freeRequested(uint32_t b) {
  Block& block = blocks_[b];
  block.allocated = false;
  block.pending = true;
  stats_.allocatedBytes -= block.size;
  pendingFrees_.push_back(b);
}

void DeviceSimulator::freeCompleted(uint32_t b, uint32_t owner) {
  Block& block = blocks_[b];
  if (!block.live || !block.pending || block.owner != owner) return;
  block.pending = false;
  for (size_t i = pendingFrees_.size(); i-- > 0;) {
    if (pendingFrees_[i] == b) {
      pendingFrees_[i] = pendingFrees_.back();
      pendingFrees_.pop_back();
      break;
    }
  }
  freeBlock(b);
}

void DeviceSimulator::freeBlock(uint32_t b) {
  // The freed block takes over the free-list entry of the first neighbour it absorbs (usually the
  // remainder split off when it was allocated): one move in the list instead of an erase and an insert.
  uint32_t absorbed = kNil;
  uint64_t absorbedSize = 0;
  uint64_t absorbedPtr = 0;
  for (const uint32_t neighbour : {blocks_[b].prev, blocks_[b].next}) {
    if (absorbed == kNil && canMerge(b, neighbour) && blocks_[neighbour].inFreeList) {
      absorbed = neighbour;
      absorbedSize = blocks_[neighbour].size;
      absorbedPtr = blocks_[neighbour].ptr;
      blocks_[neighbour].inFreeList = false;  // Its entry is left in place for b.
    }
    tryMerge(b, neighbour);
  }
  if (absorbed == kNil) {
    insertIntoBlocks(b);
    return;
  }
  Block& block = blocks_[b];
  Pool& pool = poolOf(block);
  block.gcCountBase = pool.getFreeBlocksCallCount;
  FreeList& list = pool.listFor(block.stream);
  list.replaceAt(list.find(absorbedSize, absorbedPtr, absorbed), block.size, block.ptr, b);
  block.inFreeList = true;
}

bool DeviceSimulator::canMerge(uint32_t dst, uint32_t src) const {
  if (src == kNil) return false;
  const Block& s = blocks_[src];
  return !s.allocated && !s.pending && blocks_[dst].mapped == s.mapped;
}

uint64_t DeviceSimulator::tryMerge(uint32_t dst, uint32_t src) {
  if (!canMerge(dst, src)) return 0;
  Block& s = blocks_[src];
  Block& d = blocks_[dst];
  if (d.prev == src) {
    d.ptr = s.ptr;
    d.prev = s.prev;
    if (d.prev != kNil) blocks_[d.prev].next = dst;
  } else {
    d.next = s.next;
    if (d.next != kNil) blocks_[d.next].prev = dst;
  }
  const uint64_t subsumed = s.size;
  // Erase before the size changes: the sets order blocks by it.
  Pool& pool = poolOf(s);
  if (s.mapped) {
    eraseFromBlocks(src);
  } else {
    pool.unmapped.erase(keyOf(src));
  }
  blocks_[dst].size += subsumed;
  deleteBlock(src);
  return subsumed;
}

// ---- Expandable segments ---------------------------------------------------------------------

uint32_t DeviceSimulator::findExpandableBlock(uint64_t stream, Pool& pool, uint64_t size) {
  auto allocatable = [this](uint32_t b) { return b != kNil && !blocks_[b].allocated && !blocks_[b].pending; };
  auto hasSpace = [&](uint32_t b) {
    uint64_t bytes = 0;
    while (bytes < size && allocatable(b)) {
      bytes += blocks_[b].size;
      b = blocks_[b].next;
    }
    return bytes >= size;
  };
  for (auto it = pool.unmapped.lower_bound(searchKey(stream, 0, 0)); it != pool.unmapped.end() && blocks_[it->id].stream == stream; ++it) {
    uint32_t c = it->id;
    if (allocatable(blocks_[c].prev)) c = blocks_[c].prev;
    if (hasSpace(c)) return c;
  }
  // A new segment reserves address space for 1 1/8 of the device's memory.
  ExpandableSegment es;
  es.pageSize = pool.small ? kSmallBuffer : kLargeBuffer;
  const uint64_t addressSpace = deviceTotal_ + deviceTotal_ / 8;
  es.pages = (addressSpace + es.pageSize - 1) / es.pageSize;
  es.base = nextVirtualAddress_;
  nextVirtualAddress_ += es.pages * es.pageSize + (uint64_t{1} << 30);
  segments_.push_back(es);
  const uint32_t b = newBlock();
  Block& block = blocks_[b];
  block.ptr = es.base;
  block.size = es.pages * es.pageSize;
  block.stream = stream;
  block.small = pool.small;
  block.segment = static_cast<int32_t>(segments_.size() - 1);
  block.mapped = false;
  pool.unmapped.insert(keyOf(b));
  return b;
}

bool DeviceSimulator::mapBlock(uint32_t b, uint64_t size) {
  const ExpandableSegment& es = segments_[static_cast<size_t>(blocks_[b].segment)];
  const uint64_t offset = blocks_[b].ptr - es.base;
  const uint64_t begin = offset / es.pageSize;
  const uint64_t end = (offset + size + es.pageSize - 1) / es.pageSize;
  const uint64_t mappedSize = (end - begin) * es.pageSize;
  if (mappedSize == 0) return false;
  Pool& pool = poolOf(blocks_[b]);
  pool.unmapped.erase(keyOf(b));
  blocks_[b].mapped = true;
  if (mappedSize < blocks_[b].size) {
    const uint32_t rest = newBlock();
    Block& r = blocks_[rest];
    Block& to = blocks_[b];
    r.ptr = to.ptr + mappedSize;
    r.size = to.size - mappedSize;
    r.stream = to.stream;
    r.small = to.small;
    r.segment = to.segment;
    r.mapped = false;
    r.prev = b;
    r.next = to.next;
    if (to.next != kNil) blocks_[to.next].prev = rest;
    to.next = rest;
    to.size = mappedSize;
    pool.unmapped.insert(keyOf(rest));
  }
  tryMerge(b, blocks_[b].prev);
  tryMerge(b, blocks_[b].next);
  insertIntoBlocks(b);
  addReserved(mappedSize);
  stats_.deviceAllocs += 1;
  return true;
}

uint32_t DeviceSimulator::tryAllocateExpandableBlock(uint64_t stream, Pool& pool, uint64_t size) {
  uint32_t candidate = findExpandableBlock(stream, pool, size);
  if (!blocks_[candidate].mapped && !mapBlock(candidate, std::min(blocks_[candidate].size, size))) return kNil;
  while (blocks_[candidate].size < size) {
    const uint64_t remaining = size - blocks_[candidate].size;
    const uint32_t next = blocks_[candidate].next;
    if (!mapBlock(next, std::min(remaining, blocks_[next].size))) return kNil;
    candidate = next;
  }
  eraseFromBlocks(candidate);
  return candidate;
}

void DeviceSimulator::unmapBlock(uint32_t b) {
  const ExpandableSegment& es = segments_[static_cast<size_t>(blocks_[b].segment)];
  const uint64_t offset = blocks_[b].ptr - es.base;
  const uint64_t begin = (offset + es.pageSize - 1) / es.pageSize;
  const uint64_t end = (offset + blocks_[b].size) / es.pageSize;
  if (begin >= end) return;
  const uint64_t unmappedPtr = es.base + begin * es.pageSize;
  const uint64_t unmappedSize = (end - begin) * es.pageSize;
  Pool& pool = poolOf(blocks_[b]);
  eraseFromBlocks(b);
  const uint64_t beforeSize = unmappedPtr - blocks_[b].ptr;
  if (beforeSize > 0) {
    const uint32_t before = newBlock();
    Block& x = blocks_[before];
    Block& blk = blocks_[b];
    x.ptr = blk.ptr;
    x.size = beforeSize;
    x.stream = blk.stream;
    x.small = blk.small;
    x.segment = blk.segment;
    x.prev = blk.prev;
    x.next = b;
    if (blk.prev != kNil) blocks_[blk.prev].next = before;
    blk.prev = before;
    insertIntoBlocks(before);
  }
  const uint64_t afterSize = blocks_[b].size - (beforeSize + unmappedSize);
  if (afterSize > 0) {
    const uint32_t after = newBlock();
    Block& x = blocks_[after];
    Block& blk = blocks_[b];
    x.ptr = unmappedPtr + unmappedSize;
    x.size = afterSize;
    x.stream = blk.stream;
    x.small = blk.small;
    x.segment = blk.segment;
    x.prev = b;
    x.next = blk.next;
    if (blk.next != kNil) blocks_[blk.next].prev = after;
    blk.next = after;
    insertIntoBlocks(after);
  }
  Block& blk = blocks_[b];
  blk.ptr = unmappedPtr;
  blk.size = unmappedSize;
  blk.mapped = false;
  tryMerge(b, blocks_[b].prev);
  tryMerge(b, blocks_[b].next);
  pool.unmapped.insert(keyOf(b));
  stats_.reservedBytes -= unmappedSize;
  stats_.deviceFrees += 1;
  if (segmentLog_ != nullptr) segmentLog_->push_back({false, unmappedSize});
}

void DeviceSimulator::releaseExpandableSegment(uint32_t b) {
  poolOf(blocks_[b]).unmapped.erase(keyOf(b));
  deleteBlock(b);
}

// ---- Installing a recorded state ------------------------------------------------------------

std::vector<std::vector<uint32_t>> DeviceSimulator::installExpandable(bool small, uint64_t stream,
                                                                      const std::vector<InstalledRange>& ranges) {
  std::vector<std::vector<uint32_t>> ids;
  if (ranges.empty()) return ids;
  ExpandableSegment es;
  es.pageSize = small ? kSmallBuffer : kLargeBuffer;
  // The reservation's start is not recorded; the lowest mapped address is page-aligned from it.
  es.base = ranges.front().address;
  uint64_t end = es.base;
  for (const InstalledRange& r : ranges) {
    uint64_t bytes = 0;
    for (const InstalledBlock& b : r.blocks) bytes += b.size;
    end = std::max(end, r.address + bytes);
  }
  const uint64_t addressSpace = deviceTotal_ + deviceTotal_ / 8;
  es.pages = std::max((addressSpace + es.pageSize - 1) / es.pageSize, (end - es.base + es.pageSize - 1) / es.pageSize);
  segments_.push_back(es);
  const auto segment = static_cast<int32_t>(segments_.size() - 1);
  Pool& pool = small ? small_ : large_;
  uint32_t prev = kNil;
  auto add = [&](uint64_t ptr, uint64_t size) {
    const uint32_t b = newBlock();
    Block& block = blocks_[b];
    block.ptr = ptr;
    block.size = size;
    block.stream = stream;
    block.small = small;
    block.segment = segment;
    block.prev = prev;
    if (prev != kNil) blocks_[prev].next = b;
    prev = b;
    return b;
  };
  auto unmapped = [&](uint64_t ptr, uint64_t size) {
    const uint32_t b = add(ptr, size);
    blocks_[b].mapped = false;
    pool.unmapped.insert(keyOf(b));
  };
  uint64_t cursor = es.base;
  for (const InstalledRange& r : ranges) {
    if (r.address > cursor) unmapped(cursor, r.address - cursor);
    std::vector<uint32_t>& rangeIds = ids.emplace_back();
    uint64_t ptr = r.address;
    for (const InstalledBlock& installed : r.blocks) {
      const uint32_t b = add(ptr, installed.size);
      Block& block = blocks_[b];
      block.requested = installed.requested;
      block.owner = installed.owner;
      if (installed.allocated) {
        block.allocated = true;
        stats_.allocatedBytes += installed.size;
      } else if (installed.pending) {
        block.pending = true;
        pendingFrees_.push_back(b);
      } else {
        insertIntoBlocks(b);
      }
      rangeIds.push_back(b);
      ptr += installed.size;
      stats_.reservedBytes += installed.size;
    }
    cursor = ptr;
  }
  const uint64_t limit = es.base + es.pages * es.pageSize;
  if (cursor < limit) unmapped(cursor, limit - cursor);
  stats_.allocatedPeakBytes = std::max(stats_.allocatedPeakBytes, stats_.allocatedBytes);
  stats_.reservedPeakBytes = std::max(stats_.reservedPeakBytes, stats_.reservedBytes);
  return ids;
}

std::vector<uint32_t> DeviceSimulator::installSegment(uint64_t address, bool small, uint64_t stream,
                                                      const std::vector<InstalledBlock>& blocks) {
  std::vector<uint32_t> ids;
  uint64_t ptr = address;
  uint64_t total = 0;
  uint32_t prev = kNil;
  for (const InstalledBlock& installed : blocks) {
    const uint32_t b = newBlock();
    Block& block = blocks_[b];
    block.ptr = ptr;
    block.size = installed.size;
    block.requested = installed.requested;
    block.stream = stream;
    block.small = small;
    block.owner = installed.owner;
    block.prev = prev;
    if (prev != kNil) blocks_[prev].next = b;
    ptr += installed.size;
    total += installed.size;
    prev = b;
    ids.push_back(b);
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    Block& block = blocks_[ids[i]];
    if (blocks[i].allocated) {
      block.allocated = true;
      stats_.allocatedBytes += block.size;
    } else if (blocks[i].pending) {
      block.pending = true;
      pendingFrees_.push_back(ids[i]);
    } else {
      insertIntoBlocks(ids[i]);
    }
  }
  stats_.allocatedPeakBytes = std::max(stats_.allocatedPeakBytes, stats_.allocatedBytes);
  // Already held when the replay starts: no device call is made (nor logged) for it.
  stats_.reservedBytes += total;
  stats_.reservedPeakBytes = std::max(stats_.reservedPeakBytes, stats_.reservedBytes);
  stats_.segments += 1;
  return ids;
}

}  // namespace headroom
