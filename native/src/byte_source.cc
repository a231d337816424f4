#include "byte_source.h"

#include <cstring>
#include <string>

#include "errors.h"

namespace headroom {

namespace {
constexpr size_t kChunkBytes = size_t{1} << 20;
// One opcode argument (a string, a bytes object) may not need a window larger than this.
constexpr size_t kMaxWindowBytes = size_t{1} << 31;
}  // namespace

InputWindow::InputWindow(const uint8_t* data, size_t size)
    : data_(data), cursor_(data), end_(data + size) {}

InputWindow::InputWindow(ByteSource& source)
    : data_(nullptr), cursor_(nullptr), end_(nullptr), source_(&source) {}

bool InputWindow::refill(size_t n) {
  if (source_ == nullptr) return false;
  if (n > kMaxWindowBytes) {
    throw DecodeError(code::kMalformed, "an opcode argument of " + std::to_string(n) +
                                            " bytes at offset " + std::to_string(offset()) +
                                            " is larger than any memory snapshot field");
  }
  // Keep the unread tail, move it to the front, and top the buffer up from the source.
  const size_t keep = available();
  const uint64_t consumed = static_cast<uint64_t>(cursor_ - data_);
  if (keep > 0 && cursor_ != buffer_.data()) std::memmove(buffer_.data(), cursor_, keep);
  const size_t want = std::max(n, kChunkBytes);
  if (buffer_.size() < want) buffer_.resize(want);
  size_t have = keep;
  while (have < n) {
    const size_t got = source_->read(buffer_.data() + have, buffer_.size() - have);
    if (got == 0) break;
    have += got;
  }
  windowStart_ += consumed;
  data_ = buffer_.data();
  cursor_ = data_;
  end_ = data_ + have;
  return have >= n;
}

}  // namespace headroom
