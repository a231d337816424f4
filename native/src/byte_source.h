// Where the pickle reader gets its bytes. The reader works on a window of contiguous bytes and asks
// for more only when an opcode crosses the end of the window, so a source can be a whole buffer in
// memory (no copy) or a stream read piece by piece (a gzip file decoded on the fly).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Copies up to `capacity` further bytes into `dst`; returns 0 at the end of the input. Throws
  // DecodeError(ERR_IO) when the underlying stream fails. Runs on the worker thread.
  virtual size_t read(uint8_t* dst, size_t capacity) = 0;
};

// Reads a file from disk, decompressing it on the fly when it starts with gzip's magic number, so a
// multi-gigabyte snapshot is never held in memory whole. Throws DecodeError(ERR_IO) when the file
// cannot be opened or read, and ERR_SNAPSHOT_MALFORMED when its gzip stream is corrupt.
class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  size_t read(uint8_t* dst, size_t capacity) override;
  // A guess at the decompressed size (the file size, times a typical ratio when gzip).
  uint64_t sizeHint() const { return gzip_ ? fileBytes_ * 6 : fileBytes_; }

 private:
  size_t readRaw(uint8_t* dst, size_t capacity);

  std::string path_;
  void* file_ = nullptr;     // FILE*
  void* inflater_ = nullptr; // z_stream*, when gzip.
  bool gzip_ = false;
  bool streamEnded_ = false;
  uint64_t fileBytes_ = 0;
  std::vector<uint8_t> compressed_;
  size_t compressedPos_ = 0;
  size_t compressedLen_ = 0;
};

// A window over the input that the reader advances. For an in-memory buffer the window is the
// whole buffer; for a stream it is an internal buffer that `ensure` refills.
class InputWindow {
 public:
  // Reads straight from `data` (which must outlive the window).
  InputWindow(const uint8_t* data, size_t size);
  // Reads from `source` through an internal buffer.
  explicit InputWindow(ByteSource& source);

  // Makes at least `n` bytes available at cursor(); returns false if the input ends first.
  bool ensure(size_t n) {
    return static_cast<size_t>(end_ - cursor_) >= n || refill(n);
  }
  const uint8_t* cursor() const { return cursor_; }
  void advance(size_t n) { cursor_ += n; }
  size_t available() const { return static_cast<size_t>(end_ - cursor_); }
  // Byte offset of cursor() from the start of the input (for error messages).
  uint64_t offset() const { return windowStart_ + static_cast<uint64_t>(cursor_ - data_); }

 private:
  bool refill(size_t n);

  const uint8_t* data_;
  const uint8_t* cursor_;
  const uint8_t* end_;
  uint64_t windowStart_ = 0;
  ByteSource* source_ = nullptr;
  std::vector<uint8_t> buffer_;
};

}  // namespace headroom
