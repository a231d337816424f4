#include "replay.h"

#include <algorithm>
#include <unordered_map>

#include "simulator.h"

namespace headroom {

std::vector<DevicePlan> buildPlans(const Snapshot& snapshot) {
  std::vector<DevicePlan> plans;
  const EventColumns& ev = snapshot.events;
  for (uint32_t d = 0; d < snapshot.devices.size(); ++d) {
    DevicePlan plan;
    plan.device = d;
    plan.begin = snapshot.devices[d].begin;
    plan.end = snapshot.devices[d].end;
    const uint32_t n = plan.end - plan.begin;
    plan.op.assign(n, PlanOp::None);
    plan.request.assign(n, kNil);
    std::unordered_map<uint64_t, uint32_t> live;  // Trace address -> request.
    std::vector<bool> requested;
    int64_t segmentBytes = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t e = plan.begin + i;
      const uint32_t action = ev.action[e];
      switch (action) {
        case kAlloc:
        case kOom: {
          const auto r = static_cast<uint32_t>(plan.requestSize.size());
          plan.op[i] = action == kAlloc ? PlanOp::Alloc : PlanOp::FailedAlloc;
          plan.request[i] = r;
          plan.requestSize.push_back(ev.size[e]);
          plan.requestStream.push_back(static_cast<uint64_t>(ev.stream[e]));
          plan.requestEvent.push_back(i);
          requested.push_back(false);
          if (action == kAlloc) live[ev.addr[e]] = r;
          if (action == kOom) ++plan.recordedOoms;
          break;
        }
        case kFreeRequested: {
          auto it = live.find(ev.addr[e]);
          if (it == live.end()) {
            ++plan.unmatchedFrees;
            break;
          }
          plan.op[i] = PlanOp::FreeRequested;
          plan.request[i] = it->second;
          requested[it->second] = true;
          break;
        }
        case kFreeCompleted: {
          auto it = live.find(ev.addr[e]);
          if (it == live.end()) {
            // Either freed before the trace began, or its free_requested was already unmatched.
            break;
          }
          plan.op[i] = requested[it->second] ? PlanOp::FreeCompleted : PlanOp::FreeBoth;
          plan.request[i] = it->second;
          live.erase(it);
          break;
        }
        case kSegmentAlloc:
          plan.segmentAddresses[ev.size[e]].push_back(ev.addr[e]);
          [[fallthrough]];
        case kSegmentMap:
          ++plan.recordedDeviceAllocs;
          segmentBytes += static_cast<int64_t>(ev.size[e]);
          plan.recordedReservedPeakDelta = std::max(plan.recordedReservedPeakDelta, segmentBytes);
          break;
        case kSegmentFree:
        case kSegmentUnmap:
          ++plan.recordedDeviceFrees;
          segmentBytes -= static_cast<int64_t>(ev.size[e]);
          break;
        default:
          break;
      }
    }
    plan.requests = plan.requestSize.size();
    plans.push_back(std::move(plan));
  }
  return plans;
}

ReplayResult replayDevice(const DevicePlan& plan, const ReplayOptions& options) {
  ReplayResult result;
  result.device = plan.device;
  DeviceSimulator sim(options.settings, options.capacityBytes, options.deviceTotalBytes);
  if (options.segmentCalls) sim.logSegmentCalls(&result.segmentCalls);
  sim.setAddressHints(plan.segmentAddresses);
  std::vector<uint32_t> blockOf(plan.requests, kNil);
  const uint32_t n = plan.end - plan.begin;
  if (options.timeline) {
    result.allocatedTimeline.resize(n);
    result.reservedTimeline.resize(n);
  }
  uint64_t reservedPeak = 0;
  uint64_t allocatedPeak = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t r = plan.request[i];
    switch (plan.op[i]) {
      case PlanOp::None:
        break;
      case PlanOp::Alloc:
      case PlanOp::FailedAlloc: {
        const uint32_t b = sim.malloc(plan.requestSize[r], plan.requestStream[r], r);
        if (b == kNil) {
          if (!result.hasOom) {
            result.hasOom = true;
            result.firstOom.eventIndex = i;
            result.firstOom.allocIndex = r;
            result.firstOom.sizeBytes = plan.requestSize[r];
            result.firstOom.stack = 0;
          }
        } else if (plan.op[i] == PlanOp::FailedAlloc) {
          // The recorded program never got this tensor; give it straight back.
          sim.freeRequested(b);
          sim.freeCompleted(b, r);
        } else {
          blockOf[r] = b;
        }
        break;
      }
      case PlanOp::FreeRequested:
        if (blockOf[r] != kNil) sim.freeRequested(blockOf[r]);
        break;
      case PlanOp::FreeCompleted:
      case PlanOp::FreeBoth:
        if (blockOf[r] != kNil) {
          if (plan.op[i] == PlanOp::FreeBoth) sim.freeRequested(blockOf[r]);
          sim.freeCompleted(blockOf[r], r);
          blockOf[r] = kNil;
        }
        break;
    }
    if (options.segmentCalls) result.segmentCallEvents.resize(result.segmentCalls.size(), i);
    const SimStats& s = sim.stats();
    if (s.reservedBytes > reservedPeak) {
      reservedPeak = s.reservedBytes;
      result.reservedPeakEvent = i;
      result.reservedUnallocatedAtPeakBytes = s.reservedBytes - s.allocatedBytes;
    }
    if (s.allocatedBytes > allocatedPeak) {
      allocatedPeak = s.allocatedBytes;
      result.allocatedPeakEvent = i;
    }
    if (options.timeline) {
      result.allocatedTimeline[i] = static_cast<double>(s.allocatedBytes);
      result.reservedTimeline[i] = static_cast<double>(s.reservedBytes);
    }
  }
  const SimStats& s = sim.stats();
  result.reservedPeakBytes = s.reservedPeakBytes;
  result.allocatedPeakBytes = s.allocatedPeakBytes;
  result.segmentAllocs = s.deviceAllocs;
  result.segmentFrees = s.deviceFrees;
  result.allocRetries = s.allocRetries;
  result.ooms = s.ooms;
  return result;
}

}  // namespace headroom
