#include "replay.h"

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

#include "buffers.h"
#include "simulator.h"

namespace headroom {

namespace {

// Live allocations by trace address while pairing: open addressing with backward-shift deletion,
// one array of slots so a lookup touches one cache line. Pairing a trace looks up every free, so
// this is on the critical path of large snapshots.
class AddressMap {
 public:
  AddressMap() : slots_(1024) {}

  void put(uint64_t key, uint32_t value) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    size_t i = slot(key);
    while (slots_[i].used && slots_[i].key != key) i = (i + 1) & mask();
    if (!slots_[i].used) ++count_;
    slots_[i] = {key, value, true};
  }

  // Returns the value, or kNil when absent.
  uint32_t get(uint64_t key) const {
    for (size_t i = slot(key); slots_[i].used; i = (i + 1) & mask()) {
      if (slots_[i].key == key) return slots_[i].value;
    }
    return kNil;
  }

  void erase(uint64_t key) {
    size_t i = slot(key);
    while (slots_[i].used && slots_[i].key != key) i = (i + 1) & mask();
    if (!slots_[i].used) return;
    // Shift later entries of the probe run back into the hole.
    for (size_t j = (i + 1) & mask(); slots_[j].used; j = (j + 1) & mask()) {
      const size_t home = slot(slots_[j].key);
      const bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
      if (between) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i].used = false;
    --count_;
  }

 private:
  struct Slot {
    uint64_t key = 0;
    uint32_t value = 0;
    bool used = false;
  };
  size_t mask() const { return slots_.size() - 1; }
  size_t slot(uint64_t key) const {
    // Addresses are 512-byte aligned: mix the bits before masking.
    key ^= key >> 29;
    key *= 0xbf58476d1ce4e5b9ull;
    key ^= key >> 32;
    return static_cast<size_t>(key) & mask();
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    count_ = 0;
    for (const Slot& s : old) {
      if (s.used) put(s.key, s.value);
    }
  }

  std::vector<Slot> slots_;
  size_t count_ = 0;
};

}  // namespace

std::vector<DevicePlan> buildPlans(const Snapshot& snapshot, const AllocatorSettings& settings, uint32_t firstEvent) {
  std::vector<DevicePlan> plans;
  const EventColumns& ev = snapshot.events;
  for (uint32_t d = 0; d < snapshot.devices.size(); ++d) {
    DevicePlan plan;
    plan.device = d;
    plan.begin = std::min(snapshot.devices[d].begin + firstEvent, snapshot.devices[d].end);
    plan.end = snapshot.devices[d].end;
    const uint32_t n = plan.end - plan.begin;
    // About half of a trace's entries are requests (an alloc for each free_completed).
    plan.op.reserve(n);
    plan.slot.reserve(n);
    plan.events = &ev;
    plan.requestEvent.reserve(n / 2 + 1);
    // On long traces the plan's columns are faulted in on another core while pairing fills them.
    std::unique_ptr<Prefaulter> prefaulter;
    if (n >= (1u << 20)) {
      prefaulter = std::make_unique<Prefaulter>(
          std::vector<Prefaulter::Buffer>{
              {plan.op.data(), n * sizeof(PlanOp), sizeof(PlanOp)},
              {plan.slot.data(), n * sizeof(uint32_t), sizeof(uint32_t)},
              {plan.requestEvent.data(), (n / 2 + 1) * sizeof(uint32_t), sizeof(uint32_t) / 2},
          },
          size_t{1} << 20);
    }
    AddressMap live;            // Trace address -> the slot of the request allocated there.
    std::vector<bool> requested;  // Per slot: its request's free_requested was seen.
    std::vector<uint32_t> freeSlots;
    auto takeSlot = [&] {
      if (!freeSlots.empty()) {
        const uint32_t s = freeSlots.back();
        freeSlots.pop_back();
        return s;
      }
      requested.push_back(false);
      return plan.slots++;
    };
    // Blocks in use at the first replayed entry become requests of their own, so that the frees
    // the trace records for them find them.
    plan.initial = reconstructInitialState(snapshot, d, plan.begin, settings);
    if (plan.initial.supported) {
      for (const InitialSegment& seg : plan.initial.segments) {
        for (const InitialBlock& b : seg.blocks) {
          if (b.state == BlockState::Free) {
            plan.initialOwners.push_back(kNil);
            continue;
          }
          // Taken from no free slot yet: request k holds slot k (peakSitesAt relies on it).
          const uint32_t slot = takeSlot();
          plan.initialOwners.push_back(slot);
          plan.initialSize.push_back(b.requested);
          plan.requestEvent.push_back(kNil);
          requested[slot] = b.state == BlockState::Pending;
          live.put(b.address, slot);
        }
      }
    }
    plan.initialRequests = plan.requestEvent.size();
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t e = plan.begin + i;
      const uint32_t action = ev.action[e];
      plan.op.push_back(PlanOp::None);
      plan.slot.push_back(kNil);
      if (prefaulter != nullptr && (i & 0xfff) == 0) prefaulter->progress(i);
      switch (action) {
        case kAlloc:
        case kOom: {
          const uint32_t slot = takeSlot();
          plan.op[i] = action == kAlloc ? PlanOp::Alloc : PlanOp::FailedAlloc;
          plan.slot[i] = slot;
          plan.requestEvent.push_back(i);
          requested[slot] = false;
          if (action == kAlloc) {
            live.put(ev.addr[e], slot);
          } else {
            // A failed request is given straight back in the replay: it holds its slot for no time.
            freeSlots.push_back(slot);
            ++plan.recordedOoms;
          }
          break;
        }
        case kFreeRequested: {
          const uint32_t slot = live.get(ev.addr[e]);
          if (slot == kNil) {
            ++plan.unmatchedFrees;
            break;
          }
          plan.op[i] = PlanOp::FreeRequested;
          plan.slot[i] = slot;
          requested[slot] = true;
          break;
        }
        case kFreeCompleted: {
          const uint32_t slot = live.get(ev.addr[e]);
          if (slot == kNil) {
            // Either freed before the trace began, or its free_requested was already unmatched.
            break;
          }
          plan.op[i] = requested[slot] ? PlanOp::FreeCompleted : PlanOp::FreeBoth;
          plan.slot[i] = slot;
          live.erase(ev.addr[e]);
          freeSlots.push_back(slot);
          break;
        }
        case kSegmentAlloc:
          plan.segmentAddresses[ev.size[e]].push_back(ev.addr[e]);
          [[fallthrough]];
        case kSegmentMap:
          ++plan.recordedDeviceAllocs;
          break;
        case kSegmentFree:
        case kSegmentUnmap:
          ++plan.recordedDeviceFrees;
          break;
        default:
          break;
      }
    }
    plan.requests = plan.requestEvent.size();
    plans.push_back(std::move(plan));
  }
  return plans;
}

namespace {

constexpr uint64_t kNoRequest = UINT64_MAX;

// Live requests right after event `peak`, grouped by call stack: a request is live from its alloc
// until its free_requested (or a free_completed without one), unless the variant could not satisfy it.
std::vector<PeakSite> peakSitesAt(const DevicePlan& plan, const std::vector<bool>& failed, uint32_t peak, uint32_t limit) {
  std::vector<uint64_t> liveIn(plan.slots, kNoRequest);  // Per slot: the request live in it.
  // Blocks in use at the start are live; those already freed by the program (waiting for another
  // stream) are not. Initial request k holds slot k.
  if (plan.initial.supported) {
    size_t owner = 0;
    for (const InitialSegment& seg : plan.initial.segments) {
      for (const InitialBlock& b : seg.blocks) {
        const uint32_t slot = plan.initialOwners[owner++];
        if (b.state == BlockState::Allocated) liveIn[slot] = slot;
      }
    }
  }
  uint64_t next = plan.initialRequests;
  const uint32_t n = plan.end - plan.begin;
  for (uint32_t i = 0; i <= peak && i < n; ++i) {
    const uint32_t slot = plan.slot[i];
    switch (plan.op[i]) {
      case PlanOp::Alloc:
        liveIn[slot] = failed[next] ? kNoRequest : next;
        ++next;
        break;
      case PlanOp::FailedAlloc:
        ++next;
        break;
      case PlanOp::FreeRequested:
      case PlanOp::FreeBoth:
        liveIn[slot] = kNoRequest;
        break;
      default:
        break;
    }
  }
  std::unordered_map<uint32_t, PeakSite> byStack;
  for (const uint64_t r : liveIn) {
    if (r == kNoRequest) continue;
    const uint32_t stack = plan.stackOf(r);
    PeakSite& site = byStack.try_emplace(stack, PeakSite{stack, 0, 0}).first->second;
    site.bytes += plan.sizeOf(r);
    site.count += 1;
  }
  std::vector<PeakSite> sites;
  sites.reserve(byStack.size());
  for (const auto& [stack, site] : byStack) sites.push_back(site);
  std::sort(sites.begin(), sites.end(), [](const PeakSite& a, const PeakSite& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.stack < b.stack;
  });
  if (sites.size() > limit) sites.resize(limit);
  return sites;
}

}  // namespace

ReplayResult replayDevice(const DevicePlan& plan, const ReplayOptions& options) {
  ReplayResult result;
  result.device = plan.device;
  DeviceSimulator sim(options.settings, options.capacityBytes, options.deviceTotalBytes);
  if (options.segmentCalls) sim.logSegmentCalls(&result.segmentCalls);
  sim.setAddressHints(plan.segmentAddresses);
  std::vector<uint32_t> blockOf(plan.slots, kNil);  // Per slot: the block its request holds.
  std::vector<bool> failed(options.peakSites != 0 ? plan.requests : 0, false);
  if (plan.initial.supported) {
    // Block ids per initial segment, in the plan's order, so owners can be matched to them.
    const std::vector<InitialSegment>& segments = plan.initial.segments;
    std::vector<std::vector<uint32_t>> ids(segments.size());
    std::vector<size_t> firstOwner(segments.size());
    for (size_t s = 0, k = 0; s < segments.size(); k += segments[s].blocks.size(), ++s) firstOwner[s] = k;
    auto installed = [&](size_t s) {
      std::vector<DeviceSimulator::InstalledBlock> blocks;
      for (size_t i = 0; i < segments[s].blocks.size(); ++i) {
        const InitialBlock& b = segments[s].blocks[i];
        blocks.push_back({b.size, b.requested, b.state == BlockState::Allocated, b.state == BlockState::Pending,
                          plan.initialOwners[firstOwner[s] + i]});
      }
      return blocks;
    };
    // A capacity below what the recorded run held at the start: the cached, entirely free
    // segments are left out (the capped run would not have kept them), largest first.
    std::vector<bool> skip(segments.size(), false);
    if (options.capacityBytes != 0 && plan.initial.reservedBytes > options.capacityBytes) {
      std::vector<size_t> idle;
      for (size_t s = 0; s < segments.size(); ++s) {
        const bool allFree = segments[s].blocks.size() == 1 && segments[s].blocks[0].state == BlockState::Free;
        if (allFree && !segments[s].expandable) idle.push_back(s);
      }
      std::sort(idle.begin(), idle.end(), [&](size_t a, size_t b) { return segments[a].size > segments[b].size; });
      uint64_t reserved = plan.initial.reservedBytes;
      for (size_t s : idle) {
        if (reserved <= options.capacityBytes) break;
        skip[s] = true;
        reserved -= segments[s].size;
      }
    }
    // Mapped ranges of expandable segments, grouped by pool and stream (one segment each).
    std::map<std::pair<bool, uint64_t>, std::vector<size_t>> expandable;
    for (size_t s = 0; s < segments.size(); ++s) {
      if (skip[s]) continue;
      if (segments[s].expandable) {
        expandable[{segments[s].small, segments[s].stream}].push_back(s);
      } else {
        ids[s] = sim.installSegment(segments[s].address, segments[s].small, segments[s].stream, installed(s));
      }
    }
    for (const auto& [key, members] : expandable) {
      std::vector<DeviceSimulator::InstalledRange> ranges;
      for (size_t s : members) ranges.push_back({segments[s].address, installed(s)});
      std::vector<std::vector<uint32_t>> rangeIds = sim.installExpandable(key.first, key.second, ranges);
      for (size_t m = 0; m < members.size(); ++m) ids[members[m]] = std::move(rangeIds[m]);
    }
    for (size_t s = 0; s < segments.size(); ++s) {
      for (size_t i = 0; i < ids[s].size(); ++i) {
        const uint32_t owner = plan.initialOwners[firstOwner[s] + i];
        if (owner != kNil) blockOf[owner] = ids[s][i];  // Owners are slots.
      }
    }
  }
  uint64_t reservedPeak = sim.stats().reservedBytes;
  uint64_t allocatedPeak = sim.stats().allocatedBytes;
  const uint32_t n = plan.end - plan.begin;
  if (options.timeline) {
    result.hasTimeline = true;
    result.allocatedTimeline.resize(n);
    result.reservedTimeline.resize(n);
  }
  const EventColumns& events = *plan.events;
  uint64_t next = plan.initialRequests;  // The request the next alloc or oom entry makes.
  for (uint32_t i = 0; i < n; ++i) {
    // Blocks are tagged with their request's slot: a slot is not reused before the trace's
    // free_completed, so a late free can still be told from a stale one.
    const uint32_t slot = plan.slot[i];
    switch (plan.op[i]) {
      case PlanOp::None:
        break;
      case PlanOp::Alloc:
      case PlanOp::FailedAlloc: {
        const uint64_t r = next++;
        const uint64_t size = events.size[plan.begin + i];
        const uint32_t b = sim.malloc(size, events.stream(plan.begin + i), slot);
        if (b == kNil) {
          if (!failed.empty()) failed[r] = true;
          if (!result.hasOom) {
            result.hasOom = true;
            result.firstOom.eventIndex = i;
            result.firstOom.allocIndex = r - plan.initialRequests;
            result.firstOom.sizeBytes = size;
            result.firstOom.stack = 0;
          }
        } else if (plan.op[i] == PlanOp::FailedAlloc) {
          // The recorded program never got this tensor; give it straight back.
          sim.freeRequested(b);
          sim.freeCompleted(b, slot);
        } else {
          blockOf[slot] = b;
        }
        break;
      }
      case PlanOp::FreeRequested:
        if (blockOf[slot] != kNil) sim.freeRequested(blockOf[slot]);
        break;
      case PlanOp::FreeCompleted:
      case PlanOp::FreeBoth:
        if (blockOf[slot] != kNil) {
          if (plan.op[i] == PlanOp::FreeBoth) sim.freeRequested(blockOf[slot]);
          sim.freeCompleted(blockOf[slot], slot);
          blockOf[slot] = kNil;
        }
        break;
    }
    if (options.segmentCalls) result.segmentCallEvents.resize(result.segmentCalls.size(), i);
    const SimStats& s = sim.stats();
    if (s.reservedBytes > reservedPeak) {
      reservedPeak = s.reservedBytes;
      result.reservedPeakEvent = i;
    }
    if (s.allocatedBytes > allocatedPeak) {
      allocatedPeak = s.allocatedBytes;
      result.allocatedPeakEvent = i;
      result.fragmentationBytes = s.reservedBytes - s.allocatedBytes;
    }
    if (options.timeline) {
      result.allocatedTimeline[i] = static_cast<double>(s.allocatedBytes);
      result.reservedTimeline[i] = static_cast<double>(s.reservedBytes);
    }
  }
  if (options.peakSites != 0) result.peakSites = peakSitesAt(plan, failed, result.allocatedPeakEvent, options.peakSites);
  const SimStats& s = sim.stats();
  result.reservedPeakBytes = s.reservedPeakBytes;
  result.allocatedPeakBytes = s.allocatedPeakBytes;
  result.segmentAllocs = s.deviceAllocs;
  result.segmentFrees = s.deviceFrees;
  result.allocRetries = s.allocRetries;
  result.ooms = s.ooms;
  return result;
}

FitResult fitCapacity(const DevicePlan& plan, ReplayOptions options, uint64_t granularityBytes) {
  FitResult fit;
  options.capacityBytes = 0;
  options.timeline = false;
  options.segmentCalls = false;
  ReplayResult unlimited = replayDevice(plan, options);
  ++fit.replays;
  // With the whole unlimited peak available no allocation can fail, so `hi` always fits.
  uint64_t hi = (unlimited.reservedPeakBytes + granularityBytes - 1) / granularityBytes;
  uint64_t lo = 0;  // Units of granularity; 0 never fits a run that allocates anything.
  if (hi == 0) {
    fit.result = unlimited;
    return fit;
  }
  ReplayResult best;
  bool haveBest = false;
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    options.capacityBytes = mid * granularityBytes;
    ReplayResult r = replayDevice(plan, options);
    ++fit.replays;
    if (r.ooms == 0) {
      hi = mid;
      best = std::move(r);
      haveBest = true;
    } else {
      lo = mid;
    }
  }
  fit.capacityBytes = hi * granularityBytes;
  if (!haveBest) {
    options.capacityBytes = fit.capacityBytes;
    best = replayDevice(plan, options);
    ++fit.replays;
  }
  fit.result = std::move(best);
  return fit;
}

}  // namespace headroom
