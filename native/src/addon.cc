#include "addon.h"

#include "decode_worker.h"
#include "errors.h"

namespace headroom {

Napi::Value Addon::makeError(Napi::Env env, const char* code, const std::string& message) const {
  if (!errorClass.IsEmpty()) {
    Napi::Object error = errorClass.New({Napi::String::New(env, message), Napi::String::New(env, code)});
    if (!env.IsExceptionPending()) return error;
    // The constructor threw: report what it threw rather than losing the original error silently.
    return env.GetAndClearPendingException().Value();
  }
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, code));
  return error.Value();
}

namespace {

// init(errorClass): called once by native/index.ts right after loading. JS thread.
Napi::Value InitErrors(const Napi::CallbackInfo& info) {
  auto* addon = static_cast<Addon*>(info.Data());
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsFunction()) {
    Napi::TypeError::New(env, "Expected first argument to be a function").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  addon->errorClass = Napi::Persistent(info[0].As<Napi::Function>());
  return env.Undefined();
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* addon = new Addon();
  env.AddCleanupHook(
      [](Addon* a) {
        a->cleaned = true;
        a->errorClass.Reset();
        // Workers still queued keep the object alive; the last one deletes it (PromiseWorker).
        if (a->pendingWorkers == 0) delete a;
      },
      addon);
  exports.Set("init", Napi::Function::New(env, InitErrors, "init", addon));
  exports.Set("decodeSnapshotSummary",
              Napi::Function::New(env, DecodeSnapshotSummary, "decodeSnapshotSummary", addon));
  exports.Set("replaySnapshot", Napi::Function::New(env, ReplaySnapshot, "replaySnapshot", addon));
  exports.Set("exportSnapshot", Napi::Function::New(env, ExportSnapshot, "exportSnapshot", addon));
  return exports;
}

}  // namespace headroom

namespace {
// NODE_API_MODULE pastes the name into an identifier, so it needs an unqualified one.
Napi::Object InitHeadroom(Napi::Env env, Napi::Object exports) { return headroom::Init(env, exports); }
}  // namespace

NODE_API_MODULE(headroom, InitHeadroom)
