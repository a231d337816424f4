#include "buffers.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace headroom {

namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;

}  // namespace

void adviseHugePages(const void* data, size_t bytes) {
#ifdef __linux__
  if (bytes < 4 * kHugePage) return;
  const auto begin = (reinterpret_cast<uintptr_t>(data) + kHugePage - 1) & ~(kHugePage - 1);
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

Prefaulter::Prefaulter(std::vector<Buffer> buffers, size_t leadItems)
    : buffers_(std::move(buffers)), populated_(buffers_.size(), 0), leadItems_(leadItems) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  thread_ = std::thread([this] { run(); });
#endif
}

Prefaulter::~Prefaulter() {
  stop_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
}

void Prefaulter::run() {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  while (!stop_.load(std::memory_order_relaxed)) {
    const size_t target = filled_.load(std::memory_order_relaxed) + leadItems_;
    bool worked = false;
    for (size_t i = 0; i < buffers_.size(); ++i) {
      const Buffer& b = buffers_[i];
      // Whole huge pages only, from the first page boundary on: the range's ends may share pages
      // with other allocations, which are none of this thread's business.
      const auto start = (reinterpret_cast<uintptr_t>(b.data) + kHugePage - 1) & ~(kHugePage - 1);
      const auto limit = (reinterpret_cast<uintptr_t>(b.data) + b.bytes) & ~(kHugePage - 1);
      if (limit <= start) continue;
      const uintptr_t want = std::min<uintptr_t>(limit, reinterpret_cast<uintptr_t>(b.data) + target * b.bytesPerItem);
      const uintptr_t from = std::max<uintptr_t>(start, start + populated_[i]);
      if (want < from + kHugePage) continue;
      const uintptr_t to = from + ((want - from) & ~(kHugePage - 1));
      if (madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE) != 0) return;
      populated_[i] = to - start;
      worked = true;
    }
    if (!worked) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
#endif
}

}  // namespace headroom
