// The one exception type the decoder and simulator throw. It never crosses into JavaScript: the
// worker's Execute() catches it and the error reaches JS as a NativeError with the same `code`.
#pragma once

#include <stdexcept>
#include <string>

namespace headroom {

// Stable error codes; native/index.ts lists the same strings in NativeErrorCode.
namespace code {
constexpr const char* kMalformed = "ERR_SNAPSHOT_MALFORMED";
constexpr const char* kForbiddenOpcode = "ERR_SNAPSHOT_FORBIDDEN_OPCODE";
constexpr const char* kSchema = "ERR_SNAPSHOT_SCHEMA";
constexpr const char* kInvalidArgument = "ERR_INVALID_ARGUMENT";
constexpr const char* kInvalidSettings = "ERR_INVALID_SETTINGS";
constexpr const char* kIo = "ERR_IO";
constexpr const char* kOutOfMemory = "ERR_OUT_OF_MEMORY";
}  // namespace code

class DecodeError : public std::runtime_error {
 public:
  DecodeError(const char* errorCode, const std::string& message)
      : std::runtime_error(message), code_(errorCode) {}
  const char* code() const { return code_; }

 private:
  const char* code_;  // One of the string literals in headroom::code.
};

}  // namespace headroom
