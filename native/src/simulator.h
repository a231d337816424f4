// A model of one device's PyTorch CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp,
// DeviceCachingAllocator), close enough to replay a recorded trace's requests and get the same
// segments, peaks and OOMs the real allocator produced. What it models, with the source's names:
//   round_size (512-byte rounding, roundup_power2_divisions), get_pool (small <= 1 MiB),
//   get_allocation_size (2 MiB / 20 MiB / 2 MiB-rounded segments), get_free_block (best fit per
//   stream, max_split_size and max_non_split_rounding limits, expandable best fit),
//   should_split, alloc_found_block, free_block with try_merge_blocks, alloc_block (a capacity acts
//   like set_per_process_memory_fraction), release_available_cached_blocks,
//   release_cached_blocks / release_blocks, garbage_collect_cached_blocks, and expandable segments
//   (find_expandable_block, map_block, unmap_block, release_expandable_segment).
// What it does not model: CUDA graph private pools, cross-stream events beyond what the trace's
// free_requested/free_completed pair records, and memory used outside the caching allocator.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "allocator_settings.h"
#include "free_list.h"
#include "node_pool.h"

namespace headroom {

constexpr uint32_t kNil = UINT32_MAX;

struct SimStats {
  uint64_t allocatedBytes = 0;
  uint64_t allocatedPeakBytes = 0;
  uint64_t reservedBytes = 0;  // total_allocated_memory: cudaMalloc'd plus mapped bytes.
  uint64_t reservedPeakBytes = 0;
  uint64_t segments = 0;       // Non-expandable segments currently held.
  uint64_t deviceAllocs = 0;   // num_device_alloc: cudaMalloc and map calls.
  uint64_t deviceFrees = 0;    // num_device_free: cudaFree and unmap calls.
  uint64_t allocRetries = 0;   // num_alloc_retries.
  uint64_t ooms = 0;           // num_ooms.
};

// A device-memory call the simulator made, in the order it made them (cudaMalloc/cudaFree or
// map/unmap of expandable pages): the same calls a recorded trace lists as segment_* entries.
struct SegmentCall {
  bool alloc;
  uint64_t bytes;
};

class DeviceSimulator {
 public:
  // `capacityBytes` = 0 means no limit; otherwise it plays the role of
  // set_per_process_memory_fraction's allowed maximum (and turns on garbage collection when a
  // threshold is set, as in PyTorch). `deviceTotalBytes` sizes expandable segments' address space.
  DeviceSimulator(const AllocatorSettings& settings, uint64_t capacityBytes, uint64_t deviceTotalBytes);

  // DeviceCachingAllocator::malloc. Returns the block, or kNil for an out-of-memory error.
  // `owner` tags the block (the caller's request id) so a late free can be told from a stale one.
  uint32_t malloc(uint64_t origSize, uint64_t stream, uint32_t owner);
  // The first half of DeviceCachingAllocator::free: the block stops counting as allocated.
  void freeRequested(uint32_t block);
  // free_block: the block returns to its pool (merged with free neighbours). Ignored when the
  // block was already returned by a synchronizing release or now belongs to another owner.
  void freeCompleted(uint32_t block, uint32_t owner);

  // A block of a segment that is installed as it was recorded (see installSegment).
  struct InstalledBlock {
    uint64_t size;
    uint64_t requested;
    bool allocated;  // In use.
    bool pending;    // Freed by the program, waiting for another stream (free_requested only).
    uint32_t owner;
  };
  // Installs a cudaMalloc'd segment that already exists when the replay starts: `blocks` tile it in
  // address order. No device call is made or counted. Returns the block ids, in order.
  std::vector<uint32_t> installSegment(uint64_t address, bool small, uint64_t stream,
                                       const std::vector<InstalledBlock>& blocks);
  // A mapped range of an expandable segment, as recorded: its address and the blocks tiling it.
  struct InstalledRange {
    uint64_t address;
    std::vector<InstalledBlock> blocks;
  };
  // Installs one expandable segment (one pool, one stream) whose `ranges`, in address order, are
  // mapped when the replay starts; the rest of its address range is unmapped. No device call is
  // made or counted. Returns each range's block ids, in order.
  std::vector<std::vector<uint32_t>> installExpandable(bool small, uint64_t stream, const std::vector<InstalledRange>& ranges);

  const SimStats& stats() const { return stats_; }
  // Addresses the recorded run's cudaMalloc returned, per size, in order: the simulator hands
  // them out again for calls of the same size, so ties in best fit (equal sizes, lowest address
  // first) break the way they did on the device. Other calls get fresh synthetic addresses.
  void setAddressHints(std::unordered_map<uint64_t, std::deque<uint64_t>> hints) { addressHints_ = std::move(hints); }
  // When set, every device-memory call is appended here.
  void logSegmentCalls(std::vector<SegmentCall>* log) { segmentLog_ = log; }

  static uint64_t roundSize(const AllocatorSettings& settings, uint64_t size);

 private:
  // Unmapped ranges are ordered by stream and address; the key carries the block's fields so a
  // search touches only the tree.
  struct Key {
    uint64_t stream;
    uint64_t size;
    uint64_t ptr;
    uint32_t id;
  };
  struct ByAddress {
    bool operator()(const Key& x, const Key& y) const {
      if (x.stream != y.stream) return x.stream < y.stream;
      if (x.ptr != y.ptr) return x.ptr < y.ptr;
      return x.id < y.id;
    }
  };
  struct Block {
    uint64_t ptr = 0;
    uint64_t size = 0;
    uint64_t requested = 0;
    uint64_t stream = 0;
    int64_t gcCountBase = 0;
    uint32_t prev = kNil;
    uint32_t next = kNil;
    uint32_t owner = kNil;
    int32_t segment = -1;  // Expandable segment index, or -1 for a cudaMalloc'd segment.
    bool small = false;
    bool allocated = false;
    bool pending = false;  // free_requested seen, free_completed not yet.
    bool mapped = true;
    bool live = false;
    bool inFreeList = false;
  };
  struct Pool {
    Pool(bool isSmall, NodePool* nodes)
        : unmapped(ByAddress{}, PoolAllocator<Key>(nodes)), small(isSmall) {}
    std::map<uint64_t, FreeList> free;                      // Free, mapped blocks, by stream.
    // The list of one stream (created empty when new); almost every trace uses one stream, so
    // the last one asked for is remembered (map nodes never move).
    FreeList& listFor(uint64_t stream) {
      if (lastList == nullptr || lastStream != stream) {
        lastList = &free[stream];
        lastStream = stream;
      }
      return *lastList;
    }
    uint64_t lastStream = 0;
    FreeList* lastList = nullptr;
    std::set<Key, ByAddress, PoolAllocator<Key>> unmapped;  // Unmapped ranges of expandable segments.
    bool small;
    int64_t getFreeBlocksCallCount = 0;
  };
  // The reserved address range of one expandable segment (its pages are mapped block by block).
  struct ExpandableSegment {
    uint64_t base = 0;
    uint64_t pageSize = 0;
    uint64_t pages = 0;
  };
  struct Params {
    uint64_t size;
    uint64_t stream;
    Pool* pool;
    uint64_t allocSize;
    uint32_t block = kNil;
    // Where best fit found the block: it stays in that free list until allocFoundBlock knows
    // whether a remainder takes its place. Null for a block from a new or mapped segment.
    FreeList* list = nullptr;
    FreeList::Position at{};
  };

  uint32_t newBlock();
  void deleteBlock(uint32_t b);
  Pool& poolOf(const Block& b) { return b.small ? small_ : large_; }
  void insertIntoBlocks(uint32_t b);
  void eraseFromBlocks(uint32_t b);
  // A pool's free blocks in best-fit order (stream, size, address), for loops that release some.
  static std::vector<uint32_t> freeBlocksOf(const Pool& pool);
  static Key searchKey(uint64_t stream, uint64_t size, uint64_t ptr) { return Key{stream, size, ptr, 0}; }
  Key keyOf(uint32_t b) const { return Key{blocks_[b].stream, blocks_[b].size, blocks_[b].ptr, b}; }
  bool gcEnabled() const { return capacity_ != 0 && settings_.gcThreshold > 0.0; }
  bool getFreeBlock(Params& p);
  bool allocBlock(Params& p, bool isRetry);
  bool releaseAvailableCachedBlocks(const Params& p);
  bool releaseCachedBlocks();
  void releaseBlocks(Pool& pool);
  void releaseBlock(uint32_t b);
  void garbageCollectCachedBlocks();
  bool shouldSplit(uint32_t b, uint64_t size) const;
  uint32_t allocFoundBlock(const Params& p, uint64_t origSize, uint32_t owner, bool split);
  void freeBlock(uint32_t b);
  bool canMerge(uint32_t dst, uint32_t src) const;
  uint64_t tryMerge(uint32_t dst, uint32_t src);
  uint32_t findExpandableBlock(uint64_t stream, Pool& pool, uint64_t size);
  bool mapBlock(uint32_t b, uint64_t size);
  void unmapBlock(uint32_t b);
  void releaseExpandableSegment(uint32_t b);
  uint32_t tryAllocateExpandableBlock(uint64_t stream, Pool& pool, uint64_t size);
  void addReserved(uint64_t bytes);

  AllocatorSettings settings_;
  uint64_t capacity_;
  uint64_t deviceTotal_;
  std::vector<Block> blocks_;
  std::vector<uint32_t> freeIds_;
  NodePool nodes_;  // Declared before the pools, which allocate from it.
  Pool small_;
  Pool large_;
  std::vector<ExpandableSegment> segments_;
  std::vector<uint32_t> pendingFrees_;  // Blocks between free_requested and free_completed.
  uint64_t nextAddress_;                // Synthetic cudaMalloc addresses grow downwards.
  uint64_t nextVirtualAddress_;         // Synthetic address space for expandable segments.
  SimStats stats_;
  std::vector<SegmentCall>* segmentLog_ = nullptr;
  std::unordered_map<uint64_t, std::deque<uint64_t>> addressHints_;
};

}  // namespace headroom
