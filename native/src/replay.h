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
  std::vector<uint32_t> request;   // Per event: the request it allocates or frees.
  std::vector<uint64_t> requestSize;
  std::vector<uint64_t> requestStream;
  std::vector<uint32_t> requestEvent;  // Event index (within the device) of the request.
  uint64_t requests = 0;
  uint64_t unmatchedFrees = 0;  // Frees of blocks allocated before the trace starts.
  // What the trace itself recorded (segment events), for comparison with the replay.
  uint64_t recordedDeviceAllocs = 0;
  uint64_t recordedDeviceFrees = 0;
  uint64_t recordedOoms = 0;
  int64_t recordedReservedPeakDelta = 0;  // Peak of segment bytes relative to the trace start.
  std::unordered_map<uint64_t, std::deque<uint64_t>> segmentAddresses;  // segment_alloc: size -> addresses.
};

std::vector<DevicePlan> buildPlans(const Snapshot& snapshot);

struct ReplayOptions {
  AllocatorSettings settings;
  uint64_t capacityBytes = 0;     // 0 = unlimited.
  uint64_t deviceTotalBytes = 0;  // Sizes expandable segments' address space.
  bool timeline = false;
  bool segmentCalls = false;  // Record the device-memory calls (for comparing with the trace).
};

struct ReplayOom {
  uint32_t eventIndex = 0;  // Within the device's trace.
  uint64_t allocIndex = 0;  // Requests (alloc or oom entries) before it, counting from 0.
  uint64_t sizeBytes = 0;   // The request's size as recorded.
  uint32_t stack = 0;
};

struct ReplayResult {
  uint32_t device = 0;
  uint64_t reservedPeakBytes = 0;
  uint64_t allocatedPeakBytes = 0;
  uint64_t reservedUnallocatedAtPeakBytes = 0;  // Reserved minus allocated when reserved peaked.
  uint32_t reservedPeakEvent = 0;
  uint32_t allocatedPeakEvent = 0;
  uint64_t segmentAllocs = 0;
  uint64_t segmentFrees = 0;
  uint64_t allocRetries = 0;
  uint64_t ooms = 0;
  bool hasOom = false;
  ReplayOom firstOom;
  std::vector<double> allocatedTimeline;  // Per event, when requested.
  std::vector<double> reservedTimeline;
  std::vector<SegmentCall> segmentCalls;     // When requested.
  std::vector<uint32_t> segmentCallEvents;   // The event during which each call was made.
};

ReplayResult replayDevice(const DevicePlan& plan, const ReplayOptions& options);

}  // namespace headroom
