#include "byte_source.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "errors.h"

namespace headroom {

namespace {
constexpr size_t kChunkBytes = size_t{1} << 20;
// One opcode argument (a string, a bytes object) may not need a window larger than this.
constexpr size_t kMaxWindowBytes = size_t{1} << 31;
}  // namespace

FileSource::FileSource(const std::string& path) : path_(path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    throw DecodeError(code::kIo, "cannot open " + path + ": " + std::strerror(errno));
  }
  file_ = f;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    const long end = std::ftell(f);
    fileBytes_ = end > 0 ? static_cast<uint64_t>(end) : 0;
    std::fseek(f, 0, SEEK_SET);
  }
  compressed_.resize(kChunkBytes);
  compressedLen_ = readRaw(compressed_.data(), compressed_.size());
  gzip_ = compressedLen_ >= 2 && compressed_[0] == 0x1f && compressed_[1] == 0x8b;
  if (gzip_) {
    auto* z = new z_stream();
    // 16 + MAX_WBITS: expect a gzip header.
    if (inflateInit2(z, 16 + MAX_WBITS) != Z_OK) {
      delete z;
      throw DecodeError(code::kIo, "cannot start gzip decompression for " + path);
    }
    inflater_ = z;
  }
}

FileSource::~FileSource() {
  if (inflater_ != nullptr) {
    auto* z = static_cast<z_stream*>(inflater_);
    inflateEnd(z);
    delete z;
  }
  if (file_ != nullptr) std::fclose(static_cast<FILE*>(file_));
}

size_t FileSource::readRaw(uint8_t* dst, size_t capacity) {
  FILE* f = static_cast<FILE*>(file_);
  const size_t got = std::fread(dst, 1, capacity, f);
  if (got < capacity && std::ferror(f)) {
    throw DecodeError(code::kIo, "cannot read " + path_ + ": " + std::strerror(errno));
  }
  return got;
}

size_t FileSource::read(uint8_t* dst, size_t capacity) {
  if (!gzip_) {
    // The first chunk was read to sniff the format; hand it out before reading on.
    if (compressedPos_ < compressedLen_) {
      const size_t n = std::min(capacity, compressedLen_ - compressedPos_);
      std::memcpy(dst, compressed_.data() + compressedPos_, n);
      compressedPos_ += n;
      return n;
    }
    return readRaw(dst, capacity);
  }
  auto* z = static_cast<z_stream*>(inflater_);
  size_t produced = 0;
  while (produced < capacity && !streamEnded_) {
    if (compressedPos_ == compressedLen_) {
      compressedLen_ = readRaw(compressed_.data(), compressed_.size());
      compressedPos_ = 0;
      if (compressedLen_ == 0) {
        throw DecodeError(code::kMalformed, path_ + ": the gzip stream ends early (truncated file)");
      }
    }
    z->next_in = compressed_.data() + compressedPos_;
    z->avail_in = static_cast<uInt>(compressedLen_ - compressedPos_);
    z->next_out = dst + produced;
    z->avail_out = static_cast<uInt>(std::min<size_t>(capacity - produced, UINT32_MAX));
    const int rc = inflate(z, Z_NO_FLUSH);
    const size_t consumed = (compressedLen_ - compressedPos_) - z->avail_in;
    compressedPos_ += consumed;
    produced = static_cast<size_t>(z->next_out - dst);
    if (rc == Z_STREAM_END) {
      streamEnded_ = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      throw DecodeError(code::kMalformed, path_ + ": corrupt gzip data (" + std::string(z->msg ? z->msg : "inflate failed") + ")");
    } else if (rc == Z_BUF_ERROR && consumed == 0 && z->avail_in != 0) {
      throw DecodeError(code::kMalformed, path_ + ": corrupt gzip data");
    }
  }
  return produced;
}

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
