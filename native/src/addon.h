// Per-environment state of the addon (one per Node environment: the main thread and each worker
// thread get their own). Created in Init, deleted by the environment's cleanup hook; nothing static.
#pragma once

#include <napi.h>

#include <string>

namespace headroom {

class Addon {
 public:
  // The JS class (NativeError in native/index.ts) every error is constructed from; set by init().
  Napi::FunctionReference errorClass;
  // Set by the environment's cleanup hook: JS can no longer run, so settling promises is skipped.
  bool cleaned = false;
  // Async workers still holding this object; the last one to finish after cleanup deletes it.
  // Touched only on the environment's JS thread.
  int pendingWorkers = 0;

  // Builds `new errorClass(message, code)`, or a plain Error with a `code` before init() ran.
  // JS thread only.
  Napi::Value makeError(Napi::Env env, const char* code, const std::string& message) const;
};

}  // namespace headroom
