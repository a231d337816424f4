#include "decode_worker.h"

#include <map>
#include <new>
#include <string>
#include <vector>

#include "addon.h"
#include "errors.h"
#include "snapshot.h"

namespace headroom {

namespace {

// Runs one job on a libuv worker thread and settles a promise with its result. Subclasses copy
// their inputs in the constructor (JS thread), compute in Compute() (worker thread, may throw
// DecodeError), and convert the result in Result() (JS thread).
class PromiseWorker : public Napi::AsyncWorker {
 public:
  PromiseWorker(Napi::Env env, const Addon& addon)
      : Napi::AsyncWorker(env, "headroom"), deferred_(Napi::Promise::Deferred::New(env)), addon_(addon) {}

  Napi::Promise promise() const { return deferred_.Promise(); }

 protected:
  virtual void Compute() = 0;
  virtual Napi::Value Result(Napi::Env env) = 0;

 private:
  // Worker thread: no JS values may be touched here, and no exception may escape.
  void Execute() final {
    try {
      Compute();
    } catch (const DecodeError& e) {
      errorCode_ = e.code();
      SetError(e.what());
    } catch (const std::bad_alloc&) {
      errorCode_ = code::kOutOfMemory;
      SetError("out of memory while decoding the snapshot");
    } catch (const std::exception& e) {
      errorCode_ = code::kMalformed;
      SetError(e.what());
    }
  }

  // JS thread.
  void OnOK() final {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    Napi::Value result = Result(env);
    if (env.IsExceptionPending()) {
      deferred_.Reject(env.GetAndClearPendingException().Value());
      return;
    }
    deferred_.Resolve(result);
  }

  // JS thread.
  void OnError(const Napi::Error& error) final {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    deferred_.Reject(addon_.makeError(env, errorCode_, error.Message()));
  }

  Napi::Promise::Deferred deferred_;
  const Addon& addon_;
  const char* errorCode_ = code::kMalformed;
};

struct Summary {
  std::map<std::string, double> actionCounts;
  double traceEvents = 0;
  double segmentCount = 0;
  double deviceCount = 0;
};

class SummaryWorker final : public PromiseWorker {
 public:
  // JS thread: the bytes are copied so JS may reuse or free its buffer at once.
  SummaryWorker(Napi::Env env, const Addon& addon, const uint8_t* data, size_t size)
      : PromiseWorker(env, addon), bytes_(data, data + size) {}

 private:
  void Compute() override {
    InputWindow input(bytes_.data(), bytes_.size());
    const Snapshot snapshot = decodeSnapshot(input);
    std::vector<uint64_t> perAction(snapshot.strings.size(), 0);
    for (uint32_t action : snapshot.events.action) ++perAction[action];
    for (uint32_t id = 0; id < perAction.size(); ++id) {
      if (perAction[id] != 0) summary_.actionCounts[std::string(snapshot.strings.get(id))] = static_cast<double>(perAction[id]);
    }
    summary_.traceEvents = static_cast<double>(snapshot.events.count());
    summary_.segmentCount = static_cast<double>(snapshot.segments.size());
    summary_.deviceCount = static_cast<double>(snapshot.devices.size());
    std::vector<uint8_t>().swap(bytes_);
  }

  Napi::Value Result(Napi::Env env) override {
    Napi::Object counts = Napi::Object::New(env);
    for (const auto& [action, n] : summary_.actionCounts) counts.Set(action, Napi::Number::New(env, n));
    Napi::Object out = Napi::Object::New(env);
    out.Set("actionCounts", counts);
    out.Set("traceEvents", Napi::Number::New(env, summary_.traceEvents));
    out.Set("segmentCount", Napi::Number::New(env, summary_.segmentCount));
    out.Set("deviceCount", Napi::Number::New(env, summary_.deviceCount));
    return out;
  }

  std::vector<uint8_t> bytes_;
  Summary summary_;
};

// Argument errors reject the promise too, so callers handle every failure in one place.
Napi::Value Rejected(Napi::Env env, const Addon& addon, const std::string& message) {
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Reject(addon.makeError(env, code::kInvalidArgument, message));
  return deferred.Promise();
}

}  // namespace

Napi::Value DecodeSnapshotSummary(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto& addon = *static_cast<const Addon*>(info.Data());
  if (info.Length() < 1 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    return Rejected(env, addon, "Expected first argument to be a Uint8Array");
  }
  auto bytes = info[0].As<Napi::Uint8Array>();
  auto* worker = new SummaryWorker(env, addon, bytes.Data(), bytes.ByteLength());
  Napi::Promise promise = worker->promise();
  worker->Queue();
  return promise;
}

}  // namespace headroom
