#include "allocator_settings.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

#include "errors.h"

namespace headroom {

namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw DecodeError(code::kInvalidSettings, message);
}

bool isPowerOf2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

unsigned log2Floor(uint64_t v) { return 63u - static_cast<unsigned>(__builtin_clzll(v)); }

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

uint64_t parseUnsigned(const std::string& text, const std::string& option) {
  if (text.empty() || text.size() > 18 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    invalid("option " + option + " expects a non-negative integer, got '" + text + "'");
  }
  return std::strtoull(text.c_str(), nullptr, 10);
}

bool parseBool(const std::string& text, const std::string& option) {
  if (text == "True" || text == "true" || text == "1") return true;
  if (text == "False" || text == "false" || text == "0") return false;
  invalid("Expected a single True/False argument for " + option);
}

// "[256:1,512:2,>:8]" or a single number (c10 AllocatorConfig::parseRoundUpPower2Divisions).
void parseDivisions(const std::string& value, AllocatorSettings& s) {
  auto& div = s.roundupDivisions;
  if (value.empty() || value[0] != '[') {
    const uint64_t d = parseUnsigned(value, "roundup_power2_divisions");
    if (!isPowerOf2(d)) invalid("For roundups, the divisions has to be power of 2");
    div.fill(d);
    return;
  }
  if (value.back() != ']') invalid("roundup_power2_divisions: missing ']'");
  const std::string body = value.substr(1, value.size() - 2);
  size_t lastIndex = 0;
  bool first = true;
  size_t pos = 0;
  while (pos <= body.size()) {
    size_t comma = body.find(',', pos);
    if (comma == std::string::npos) comma = body.size();
    const std::string item = trim(std::string_view(body).substr(pos, comma - pos));
    pos = comma + 1;
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    if (colon == std::string::npos) invalid("roundup_power2_divisions: expected 'interval:divisions', got '" + item + "'");
    const std::string key = trim(std::string_view(item).substr(0, colon));
    const uint64_t d = parseUnsigned(trim(std::string_view(item).substr(colon + 1)), "roundup_power2_divisions");
    if (!isPowerOf2(d)) invalid("For roundups, the divisions has to be power of 2");
    if (key == ">") {
      std::fill(div.begin() + static_cast<long>(lastIndex), div.end(), d);
    } else {
      const uint64_t mb = parseUnsigned(key, "roundup_power2_divisions");
      if (!isPowerOf2(mb)) invalid("For roundups, the intervals have to be power of 2");
      size_t index = std::min<size_t>(log2Floor(mb), kRoundupIntervals - 1);
      if (first) std::fill(div.begin(), div.begin() + static_cast<long>(index), d);
      div[index] = d;
      lastIndex = index;
      first = false;
    }
  }
}

}  // namespace

uint64_t AllocatorSettings::divisionsFor(uint64_t size) const {
  const unsigned logSize = log2Floor(size);
  const unsigned intervalStart = 20;  // 1 MiB.
  size_t index = logSize > intervalStart ? logSize - intervalStart : 0;
  index = std::min(index, kRoundupIntervals - 1);
  return roundupDivisions[index];
}

AllocatorSettings parseAllocatorSettings(std::string_view conf) {
  AllocatorSettings s;
  // Options are comma separated, but a roundup list holds commas inside brackets.
  std::vector<std::string> options;
  std::string current;
  int depth = 0;
  for (char c : conf) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      options.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  options.push_back(current);
  for (const std::string& raw : options) {
    const std::string option = trim(raw);
    if (option.empty()) continue;
    const size_t colon = option.find(':');
    if (colon == std::string::npos) invalid("Error parsing CachingAllocator option '" + option + "': expected key:value");
    const std::string key = trim(std::string_view(option).substr(0, colon));
    const std::string value = trim(std::string_view(option).substr(colon + 1));
    if (key == "max_split_size_mb") {
      const uint64_t mb = parseUnsigned(value, key);
      if (mb * kMiB < kLargeBuffer) invalid("CachingAllocator option max_split_size_mb too small, must be >= 20");
      s.maxSplitSize = mb * kMiB;
    } else if (key == "max_non_split_rounding_mb") {
      const uint64_t mb = parseUnsigned(value, key);
      if (mb * kMiB < kLargeBuffer) invalid("CachingAllocator option max_non_split_rounding_mb too small, must be >= 20");
      s.maxNonSplitRoundingSize = mb * kMiB;
    } else if (key == "roundup_power2_divisions") {
      parseDivisions(value, s);
    } else if (key == "garbage_collection_threshold") {
      char* end = nullptr;
      const double t = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0' || !(t > 0.0 && t < 1.0)) {
        invalid("garbage_collect_threshold is invalid, set it in (0.0, 1.0)");
      }
      s.gcThreshold = t;
    } else if (key == "expandable_segments") {
      s.expandableSegments = parseBool(value, key);
    } else if (key == "backend") {
      if (value == "cudaMallocAsync") {
        invalid("backend:cudaMallocAsync hands memory to the CUDA driver's own pool; Headroom simulates only the native caching allocator");
      }
      if (value != "native") invalid("Unknown allocator backend, options are native and cudaMallocAsync");
    } else if (key == "release_lock_on_cudamalloc" || key == "pinned_use_cuda_host_register" ||
               key == "pinned_num_register_threads" || key == "pinned_use_background_threads" ||
               key == "pinned_reserve_segment_size_mb" || key == "graph_capture_record_stream_reuse") {
      // No effect on where device memory goes.
    } else {
      invalid("Unrecognized CachingAllocator option: " + key);
    }
  }
  return s;
}

}  // namespace headroom
