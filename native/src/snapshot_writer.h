// Writes a decoded snapshot back out as a pickle that pytorch.org/memory_viz (and
// torch.cuda.memory._snapshot consumers) read: protocol 4, plain dicts and lists, frames and call
// stacks written once and shared through the memo, as torch's own pickler shares them. Useful to
// hand memory_viz a protocol-5 snapshot it cannot read, or only the last part of a huge trace.
#pragma once

#include <cstdint>
#include <string>

#include "snapshot.h"

namespace headroom {

struct ExportOptions {
  // Keep each device's trace entries from this index on (0 = all), at most `maxEvents` of them
  // counting back from the end (0 = no limit). Segments are always the final ones, complete.
  uint32_t firstEvent = 0;
  uint32_t maxEvents = 0;
};

struct ExportResult {
  uint64_t bytes = 0;
  uint64_t events = 0;
};

// Throws DecodeError(ERR_IO) when the file cannot be written. Runs on a worker thread.
ExportResult exportSnapshot(const Snapshot& snapshot, const std::string& path, const ExportOptions& options);

}  // namespace headroom
