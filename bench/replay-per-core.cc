// Replay speed per core, without Node and without other variants sharing the core: decodes a
// snapshot once, pairs its trace, then replays each variant given on the command line five times in
// a row on this thread and prints the fastest (CPU time of this thread). bench/replay-runs.mjs
// measures the whole budget with the variants on worker threads; this measures one core's rate.
//
//   bench/replay-per-core.sh SNAPSHOT [SETTINGS[@CAPACITY_BYTES]]...
//   ("" is the snapshot's own settings; pin it with `taskset -c N` to name the core)
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "allocator_settings.h"
#include "byte_source.h"
#include "replay.h"
#include "snapshot.h"

using namespace headroom;

namespace {

double threadCpuMs() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SNAPSHOT [SETTINGS[@CAPACITY_BYTES]]...\n", argv[0]);
    return 2;
  }
  try {
    FileSource file(argv[1]);
    InputWindow input(file);
    const Snapshot snapshot = decodeSnapshot(input, file.sizeHint(), Times::Drop);
    const std::vector<DevicePlan> plans = buildPlans(snapshot, parseAllocatorSettings(snapshot.settings.allocConf), 0);
    uint64_t events = 0;
    for (const DevicePlan& plan : plans) events += plan.end - plan.begin;
    std::vector<std::string> variants(argv + 2, argv + argc);
    if (variants.empty()) variants.emplace_back();
    for (const std::string& variant : variants) {
      const size_t at = variant.find('@');
      ReplayOptions options;
      const std::string settings = variant.substr(0, at);
      options.settings = parseAllocatorSettings(settings.empty() ? snapshot.settings.allocConf : settings);
      options.capacityBytes = at == std::string::npos ? 0 : std::stoull(variant.substr(at + 1));
      options.deviceTotalBytes = uint64_t{80} << 30;
      double best = 1e300;
      uint64_t reservedPeak = 0;
      for (int round = 0; round < 5; ++round) {
        const double start = threadCpuMs();
        for (const DevicePlan& plan : plans) reservedPeak = std::max(reservedPeak, replayDevice(plan, options).reservedPeakBytes);
        best = std::min(best, threadCpuMs() - start);
      }
      std::printf("%-40s %9.1f ms  %6.2f M entries/s  reserved peak %llu\n", variant.empty() ? "(own settings)" : variant.c_str(),
                  best, static_cast<double>(events) / best / 1e3, static_cast<unsigned long long>(reservedPeak));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
