// PYTORCH_CUDA_ALLOC_CONF, parsed the way c10/core/AllocatorConfig.cpp and
// c10/cuda/CUDAAllocatorConfig.cpp parse it, into the knobs the simulator honours.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace headroom {

constexpr uint64_t kMiB = 1048576;
constexpr uint64_t kLargeBuffer = 20 * kMiB;
// Intervals of roundup_power2_divisions: one per power of two from 1 MiB to 64 GiB.
constexpr size_t kRoundupIntervals = 16;

struct AllocatorSettings {
  uint64_t maxSplitSize = UINT64_MAX;               // max_split_size_mb (unlimited by default).
  uint64_t maxNonSplitRoundingSize = kLargeBuffer;  // max_non_split_rounding_mb.
  std::array<uint64_t, kRoundupIntervals> roundupDivisions{};  // 0 = no power-of-two rounding.
  double gcThreshold = 0;                           // garbage_collection_threshold.
  bool expandableSegments = false;

  // Divisions for a request of `size` bytes (CUDAAllocatorConfig::roundup_power2_divisions).
  uint64_t divisionsFor(uint64_t size) const;
};

// Parses a PYTORCH_CUDA_ALLOC_CONF string ("" = PyTorch's defaults). Options that do not change
// device memory placement (pinned_*, release_lock_on_cudamalloc, ...) are accepted and ignored.
// Throws DecodeError(ERR_INVALID_SETTINGS) with PyTorch's own wording where it has one.
AllocatorSettings parseAllocatorSettings(std::string_view conf);

}  // namespace headroom
