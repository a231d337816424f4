// Large buffers the decoder fills once, front to back (the event columns, the pickle memo): how
// to make filling them cheap. Touching a fresh page costs a fault and the kernel zeroing it, which
// took a third of the decoding thread's time on a 1 GB snapshot.
#pragma once

#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace headroom {

// Asks the kernel to back a large buffer with huge pages (where transparent huge pages are on
// "madvise"), so filling it takes a page fault per 2 MiB instead of per 4 KiB. A hint only.
void adviseHugePages(const void* data, size_t bytes);

// Faults in the pages of buffers on a thread of its own, a bounded distance ahead of the thread
// that fills them, so the zeroing happens on another core. Each buffer is an address range
// reserved up front; the filler reports its progress as a count of items (one item = `bytesPerItem`
// bytes of each buffer). Only page tables change (MADV_POPULATE_WRITE), never the contents, so
// a buffer that is reallocated meanwhile is at worst populated for nothing. Where the kernel
// lacks MADV_POPULATE_WRITE the thread ends at once and nothing changes.
class Prefaulter {
 public:
  struct Buffer {
    const void* data;
    size_t bytes;         // Reserved range.
    size_t bytesPerItem;  // How far the filler advances in it per item.
  };
  Prefaulter(std::vector<Buffer> buffers, size_t leadItems);
  ~Prefaulter();
  Prefaulter(const Prefaulter&) = delete;
  Prefaulter& operator=(const Prefaulter&) = delete;

  // Called by the filling thread (cheap: one relaxed store).
  void progress(size_t items) { filled_.store(items, std::memory_order_relaxed); }

 private:
  void run();

  std::vector<Buffer> buffers_;
  std::vector<size_t> populated_;  // Bytes of each buffer faulted in so far.
  size_t leadItems_;
  std::atomic<size_t> filled_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace headroom
