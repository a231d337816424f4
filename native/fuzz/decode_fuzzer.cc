// libFuzzer harness for the snapshot decoder, the trace pairing, the start reconstruction and the
// simulator: arbitrary bytes must give a result or a DecodeError, never a crash, a sanitizer
// report, or an exception of another type. Built with ASan and UBSan by native/fuzz/run.sh.
#include <cstddef>
#include <cstdint>

#include "allocator_settings.h"
#include "byte_source.h"
#include "errors.h"
#include "replay.h"
#include "snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace headroom;
  try {
    InputWindow input(data, size);
    // Odd sizes keep the time stamps (as an export does), even ones drop them (as a replay does).
    const Snapshot snapshot = decodeSnapshot(input, size, size % 2 != 0 ? Times::Keep : Times::Drop);
    AllocatorSettings settings;
    // The snapshot's own settings string is attacker-controlled too.
    try {
      settings = parseAllocatorSettings(snapshot.settings.allocConf);
    } catch (const DecodeError&) {
    }
    const std::vector<DevicePlan> plans = buildPlans(snapshot, settings, 0);
    ReplayOptions options;
    options.settings = settings;
    options.deviceTotalBytes = uint64_t{1} << 34;
    for (const DevicePlan& plan : plans) {
      replayDevice(plan, options);
      options.capacityBytes = uint64_t{1} << 30;
      replayDevice(plan, options);
      options.capacityBytes = 0;
    }
  } catch (const DecodeError&) {
    // Bad input, reported with a code: the expected outcome for most inputs.
  }
  return 0;
}
