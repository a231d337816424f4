// Recovers the allocator's state at a trace's first entry from the snapshot's final segments, by
// undoing the trace backwards (what memory_viz's "Allocator State History" does). A trace kept in
// a ring buffer (max_entries) starts mid-run: its first frees name blocks it never allocated, and
// a replay must begin from the memory that was already held then, not from an empty device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "allocator_settings.h"
#include "snapshot.h"

namespace headroom {

enum class BlockState : uint8_t { Free, Allocated, Pending };

struct InitialBlock {
  uint64_t address;
  uint64_t size;
  uint64_t requested;
  BlockState state;
};

struct InitialSegment {
  uint64_t address;
  uint64_t size;
  uint64_t stream;
  bool small;
  // A mapped range of an expandable segment (one reserved address range per pool and stream,
  // mapped in pages) rather than a cudaMalloc'd segment.
  bool expandable;
  std::vector<InitialBlock> blocks;  // Tiling the segment in address order.
};

struct InitialState {
  // False when the state could not be recovered (a trace that disagrees with the final segments);
  // `problem` says why, and the replay starts from an empty allocator.
  bool supported = true;
  std::string problem;
  std::vector<InitialSegment> segments;  // Empty when the trace starts with an empty allocator.
  uint64_t reservedBytes = 0;
  uint64_t allocatedBytes = 0;  // Allocated blocks (pending ones are active but no longer allocated).
};

// Undoes device `device`'s events from the end of its trace back to event `firstEvent` (absolute
// index in Snapshot::events). Block sizes the trace does not record (frees of blocks allocated
// before the trace) are inferred from round_size under `settings`, the run's own settings.
InitialState reconstructInitialState(const Snapshot& snapshot, uint32_t device, uint32_t firstEvent,
                                     const AllocatorSettings& settings);

}  // namespace headroom
