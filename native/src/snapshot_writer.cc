#include "snapshot_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "errors.h"

namespace headroom {

namespace {

enum Op : uint8_t {
  MARK = '(', STOP = '.', BININT = 'J', BININT1 = 'K', BININT2 = 'M', BINUNICODE = 'X', APPEND = 'a',
  EMPTY_DICT = '}', APPENDS = 'e', BINGET = 'h', LONG_BINGET = 'j', EMPTY_LIST = ']', SETITEMS = 'u',
  BINFLOAT = 'G', PROTO = 0x80, NEWTRUE = 0x88, NEWFALSE = 0x89, LONG1 = 0x8a, SHORT_BINUNICODE = 0x8c,
  MEMOIZE = 0x94,
};

class PickleWriter {
 public:
  explicit PickleWriter(const std::string& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) throw DecodeError(code::kIo, "cannot write " + path + ": " + std::strerror(errno));
    buffer_.reserve(kFlushBytes + 1024);
  }
  ~PickleWriter() {
    if (file_ != nullptr) std::fclose(file_);
  }
  PickleWriter(const PickleWriter&) = delete;
  PickleWriter& operator=(const PickleWriter&) = delete;

  void op(uint8_t o) { buffer_.push_back(o); }
  uint32_t memoize() {
    op(MEMOIZE);
    return memo_++;
  }
  void get(uint32_t index) {
    if (index < 256) {
      op(BINGET);
      op(static_cast<uint8_t>(index));
    } else {
      op(LONG_BINGET);
      le(index, 4);
    }
  }
  void integer(int64_t v) {
    if (v >= 0 && v < 256) {
      op(BININT1);
      op(static_cast<uint8_t>(v));
    } else if (v >= 0 && v < 65536) {
      op(BININT2);
      le(static_cast<uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op(BININT);
      le(static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(v))), 4);
    } else {
      // LONG1: the shortest little-endian two's complement that keeps the sign.
      uint8_t bytes[9];
      size_t n = 0;
      int64_t x = v;
      do {
        bytes[n++] = static_cast<uint8_t>(x & 0xff);
        x >>= 8;
      } while (!((x == 0 && !(bytes[n - 1] & 0x80)) || (x == -1 && (bytes[n - 1] & 0x80))) && n < 9);
      op(LONG1);
      op(static_cast<uint8_t>(n));
      buffer_.insert(buffer_.end(), bytes, bytes + n);
    }
  }
  void unsignedInteger(uint64_t v) {
    if (v <= static_cast<uint64_t>(INT64_MAX)) {
      integer(static_cast<int64_t>(v));
      return;
    }
    op(LONG1);
    op(9);
    le(v, 8);
    op(0);
  }
  void floating(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    op(BINFLOAT);
    for (int i = 7; i >= 0; --i) op(static_cast<uint8_t>(bits >> (8 * i)));
  }
  void boolean(bool b) { op(b ? NEWTRUE : NEWFALSE); }
  // A string written once and then referenced through the memo.
  void str(std::string_view s) {
    auto it = strings_.find(std::string(s));
    if (it != strings_.end()) {
      get(it->second);
      return;
    }
    if (s.size() < 256) {
      op(SHORT_BINUNICODE);
      op(static_cast<uint8_t>(s.size()));
    } else {
      op(BINUNICODE);
      le(s.size(), 4);
    }
    buffer_.insert(buffer_.end(), s.begin(), s.end());
    strings_.emplace(std::string(s), memoize());
  }
  void maybeFlush() {
    if (buffer_.size() >= kFlushBytes) flush();
  }
  uint64_t finish() {
    op(STOP);
    flush();
    if (std::fclose(file_) != 0) {
      file_ = nullptr;
      throw DecodeError(code::kIo, "cannot write " + path_ + ": " + std::strerror(errno));
    }
    file_ = nullptr;
    return written_;
  }

 private:
  static constexpr size_t kFlushBytes = size_t{1} << 20;

  void le(uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i) op(static_cast<uint8_t>(v >> (8 * i)));
  }
  void flush() {
    if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
      throw DecodeError(code::kIo, "cannot write " + path_ + ": " + std::strerror(errno));
    }
    written_ += buffer_.size();
    buffer_.clear();
  }

  std::string path_;
  FILE* file_ = nullptr;
  std::vector<uint8_t> buffer_;
  uint64_t written_ = 0;
  uint32_t memo_ = 0;
  std::unordered_map<std::string, uint32_t> strings_;
};

class Exporter {
 public:
  Exporter(const Snapshot& s, PickleWriter& w) : s_(s), w_(w), frameMemo_(s.frames.size(), UINT32_MAX) {
    stackMemo_.assign(s.stackOffsets.size() - 1, UINT32_MAX);
  }

  void frame(uint32_t f) {
    if (frameMemo_[f] != UINT32_MAX) return w_.get(frameMemo_[f]);
    const Frame& fr = s_.frames[f];
    w_.op(EMPTY_DICT);
    frameMemo_[f] = w_.memoize();
    w_.op(MARK);
    w_.str("name");
    w_.str(s_.strings.get(fr.name));
    w_.str("filename");
    w_.str(s_.strings.get(fr.filename));
    w_.str("line");
    w_.integer(fr.line);
    w_.op(SETITEMS);
  }

  void stack(uint32_t st) {
    if (stackMemo_[st] != UINT32_MAX) return w_.get(stackMemo_[st]);
    w_.op(EMPTY_LIST);
    stackMemo_[st] = w_.memoize();
    const uint32_t b = s_.stackOffsets[st], e = s_.stackOffsets[st + 1];
    if (e - b == 1) {
      frame(s_.stackFrames[b]);
      w_.op(APPEND);
    } else if (e > b) {
      w_.op(MARK);
      for (uint32_t i = b; i < e; ++i) frame(s_.stackFrames[i]);
      w_.op(APPENDS);
    }
  }

  void event(uint32_t e) {
    const EventColumns& ev = s_.events;
    w_.op(EMPTY_DICT);
    w_.memoize();
    w_.op(MARK);
    w_.str("action");
    w_.str(s_.strings.get(ev.actionName(e)));
    w_.str(ev.action[e] == kOom ? "device_free" : "addr");
    w_.unsignedInteger(ev.addr[e]);
    w_.str("size");
    w_.unsignedInteger(ev.size[e]);
    w_.str("stream");
    w_.integer(ev.stream(e));
    w_.str("time_us");
    w_.integer(ev.timeUs[e]);
    w_.str("frames");
    stack(ev.stack[e]);
    w_.op(SETITEMS);
  }

  void segment(const Segment& seg) {
    w_.op(EMPTY_DICT);
    w_.memoize();
    w_.op(MARK);
    w_.str("device");
    w_.integer(seg.device);
    w_.str("address");
    w_.unsignedInteger(seg.address);
    w_.str("total_size");
    w_.unsignedInteger(seg.totalSize);
    w_.str("allocated_size");
    w_.unsignedInteger(seg.allocatedSize);
    w_.str("active_size");
    w_.unsignedInteger(seg.activeSize);
    w_.str("requested_size");
    w_.unsignedInteger(seg.requestedSize);
    w_.str("stream");
    w_.integer(seg.stream);
    w_.str("segment_type");
    w_.str(s_.strings.get(seg.segmentType));
    w_.str("is_expandable");
    w_.boolean(seg.isExpandable);
    w_.str("frames");
    stack(seg.stack);
    w_.str("blocks");
    w_.op(EMPTY_LIST);
    w_.memoize();
    if (seg.blockCount > 0) {
      w_.op(MARK);
      for (uint32_t i = 0; i < seg.blockCount; ++i) {
        const Block& b = s_.blocks[seg.firstBlock + i];
        w_.op(EMPTY_DICT);
        w_.memoize();
        w_.op(MARK);
        w_.str("address");
        w_.unsignedInteger(b.address);
        w_.str("size");
        w_.unsignedInteger(b.size);
        w_.str("requested_size");
        w_.unsignedInteger(b.requestedSize);
        w_.str("state");
        w_.str(s_.strings.get(b.state));
        w_.str("frames");
        stack(b.stack);
        w_.op(SETITEMS);
      }
      w_.op(APPENDS);
    }
    w_.op(SETITEMS);
  }

 private:
  const Snapshot& s_;
  PickleWriter& w_;
  std::vector<uint32_t> frameMemo_;
  std::vector<uint32_t> stackMemo_;
};

}  // namespace

ExportResult exportSnapshot(const Snapshot& snapshot, const std::string& path, const ExportOptions& options) {
  PickleWriter w(path);
  Exporter x(snapshot, w);
  ExportResult result;
  w.op(PROTO);
  w.op(4);
  w.op(EMPTY_DICT);
  w.memoize();
  w.op(MARK);
  w.str("segments");
  w.op(EMPTY_LIST);
  w.memoize();
  if (!snapshot.segments.empty()) {
    w.op(MARK);
    for (const Segment& seg : snapshot.segments) {
      x.segment(seg);
      w.maybeFlush();
    }
    w.op(APPENDS);
  }
  w.str("device_traces");
  w.op(EMPTY_LIST);
  w.memoize();
  for (const DeviceTrace& d : snapshot.devices) {
    uint32_t begin = std::min(d.begin + options.firstEvent, d.end);
    if (options.maxEvents != 0 && d.end - begin > options.maxEvents) begin = d.end - options.maxEvents;
    w.op(EMPTY_LIST);
    w.memoize();
    // Batches of 1000, as pickle.dump writes them.
    for (uint32_t e = begin; e < d.end; e += 1000) {
      w.op(MARK);
      for (uint32_t i = e; i < std::min(e + 1000, d.end); ++i) {
        x.event(i);
        ++result.events;
      }
      w.op(APPENDS);
      w.maybeFlush();
    }
    w.op(APPEND);
  }
  w.str("allocator_settings");
  w.op(EMPTY_DICT);
  w.memoize();
  w.op(MARK);
  w.str("PYTORCH_CUDA_ALLOC_CONF");
  w.str(snapshot.settings.allocConf);
  w.str("max_split_size");
  w.integer(snapshot.settings.maxSplitSize);
  w.str("garbage_collection_threshold");
  w.floating(snapshot.settings.gcThreshold);
  w.str("expandable_segments");
  w.boolean(snapshot.settings.expandableSegments);
  w.op(SETITEMS);
  w.op(SETITEMS);
  result.bytes = w.finish();
  return result;
}

}  // namespace headroom
