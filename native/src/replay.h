// Replays a decoded snapshot's allocation requests through DeviceSimulator under chosen settings.
// The trace is paired once (each free with the alloc it frees) into a plan; every variant then
// replays the plan with plain array lookups.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "allocator_settings.h"
#include "reconstruct.h"
#include "simulator.h"
#include "snapshot.h"

namespace headroom {

enum class PlanOp : uint8_t {
  None,           // Not a request (segment events, snapshot markers, unmatched frees).
  Alloc,          // `alloc`: a request that succeeded in the recorded run.
  FailedAlloc,    // `oom`: a request that failed in the recorded run; never used if it succeeds.
  FreeRequested,  // `free_requested`.
  FreeCompleted,  // `free_completed`.
  FreeBoth,       // `free_completed` with no `free_requested` before it.
};

struct DevicePlan {
  uint32_t device = 0;
  uint32_t begin = 0;  // This device's events in Snapshot::events.
  uint32_t end = 0;
  std::vector<PlanOp> op;          // Per event.
  // Per event: the slot of the request it allocates or frees. A request holds a slot from its
  // alloc to its free_completed, and slots are reused after that, so a replay keeps its request ->
  // block table in `slots` entries (the most requests live at once, a few thousand) instead of one
  // per request: no fresh pages per variant and a table that stays in cache. Requests themselves
  // are numbered in trace order: the k-th alloc or oom entry is request initialRequests + k.
  std::vector<uint32_t> slot;
  uint32_t slots = 0;
  std::vector<uint32_t> requestEvent;  // Event index (within the device) of the request; kNil for a live block.
  // A request's size and stack are its alloc event's (a pointer into the snapshot, which
  // outlives its plans), so the plan does not copy 20 bytes per request into fresh pages; the
  // blocks live at the start have their own.
  const EventColumns* events = nullptr;
  std::vector<uint64_t> initialSize;
  uint64_t sizeOf(uint64_t r) const { return r < initialRequests ? initialSize[r] : events->size[begin + requestEvent[r]]; }
  uint32_t stackOf(uint64_t r) const { return r < initialRequests ? 0 : events->stack[begin + requestEvent[r]]; }
  uint64_t requests = 0;         // Including the blocks already live at the start.
  uint64_t initialRequests = 0;  // Requests 0..initialRequests-1 stand for those live blocks.
  uint64_t unmatchedFrees = 0;   // Frees of blocks the trace never allocated and no reconstruction explains.
  InitialState initial;          // The allocator's state at the first replayed event.
  std::vector<uint32_t> initialOwners;  // Per initial block (segment by segment): its request's slot, or kNil.
  // What the trace itself recorded (segment events), for comparison with the replay.
  uint64_t recordedDeviceAllocs = 0;
  uint64_t recordedDeviceFrees = 0;
  uint64_t recordedOoms = 0;
  std::unordered_map<uint64_t, std::deque<uint64_t>> segmentAddresses;  // segment_alloc: size -> addresses.
};

// Pairs each device's trace from its `firstEvent`-th entry on (0 = the whole trace), after
// reconstructing the state at that entry under the run's own `settings`.
std::vector<DevicePlan> buildPlans(const Snapshot& snapshot, const AllocatorSettings& settings, uint32_t firstEvent);

struct ReplayOptions {
  AllocatorSettings settings;
  uint64_t capacityBytes = 0;     // 0 = unlimited.
  uint64_t deviceTotalBytes = 0;  // Sizes expandable segments' address space.
  bool timeline = false;
  bool segmentCalls = false;  // Record the device-memory calls (for comparing with the trace).
  uint32_t peakSites = 0;     // Report this many call stacks holding the most bytes at the allocated peak.
};

// Bytes the program held through one call stack at the allocated peak.
struct PeakSite {
  uint32_t stack;
  uint64_t bytes;  // Requested bytes of the live allocations made there.
  uint64_t count;
};

struct ReplayOom {
  uint32_t eventIndex = 0;  // Within the replayed part of the device's trace.
  uint64_t allocIndex = 0;  // Requests (alloc or oom entries) before it, counting from 0.
  uint64_t sizeBytes = 0;   // The request's size as recorded.
  uint32_t stack = 0;
};

struct ReplayResult {
  uint32_t device = 0;
  uint64_t reservedPeakBytes = 0;
  uint64_t allocatedPeakBytes = 0;
  // Reserved minus allocated when allocated memory peaked: what the cache held on top of the
  // program's demand at its highest (fragmentation and cached free blocks).
  uint64_t fragmentationBytes = 0;
  uint32_t reservedPeakEvent = 0;
  uint32_t allocatedPeakEvent = 0;
  uint64_t segmentAllocs = 0;
  uint64_t segmentFrees = 0;
  uint64_t allocRetries = 0;
  uint64_t ooms = 0;
  bool hasOom = false;
  ReplayOom firstOom;
  bool hasTimeline = false;
  std::vector<double> allocatedTimeline;  // Per event, when requested.
  std::vector<double> reservedTimeline;
  std::vector<PeakSite> peakSites;           // When requested, most bytes first.
  std::vector<SegmentCall> segmentCalls;     // When requested.
  std::vector<uint32_t> segmentCallEvents;   // The event during which each call was made.
};

ReplayResult replayDevice(const DevicePlan& plan, const ReplayOptions& options);

// The smallest capacity, in multiples of `granularityBytes`, at which replaying the plan under
// `options.settings` raises no OOM (found by bisection between 0 and the unlimited replay's reserved
// peak). `result` is the replay at that capacity.
struct FitResult {
  uint64_t capacityBytes = 0;
  uint64_t replays = 0;
  ReplayResult result;
};
FitResult fitCapacity(const DevicePlan& plan, ReplayOptions options, uint64_t granularityBytes);

}  // namespace headroom
