#include "decode_worker.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "addon.h"
#include "allocator_settings.h"
#include "errors.h"
#include "replay.h"
#include "snapshot.h"
#include "snapshot_writer.h"

namespace headroom {

namespace {

// Runs one job on a libuv worker thread and settles a promise with its result. Subclasses copy
// their inputs in the constructor (JS thread), compute in Compute() (worker thread, may throw
// DecodeError), and convert the result in Result() (JS thread).
class PromiseWorker : public Napi::AsyncWorker {
 public:
  PromiseWorker(Napi::Env env, Addon& addon)
      : Napi::AsyncWorker(env, "headroom"), deferred_(Napi::Promise::Deferred::New(env)), addon_(addon) {
    ++addon_.pendingWorkers;
  }
  // JS thread (or the environment's teardown).
  ~PromiseWorker() override {
    if (--addon_.pendingWorkers == 0 && addon_.cleaned) delete &addon_;
  }

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
    if (addon_.cleaned) return;
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
    if (addon_.cleaned) return;
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    deferred_.Reject(addon_.makeError(env, errorCode_, error.Message()));
  }

  Napi::Promise::Deferred deferred_;
  Addon& addon_;
  const char* errorCode_ = code::kMalformed;
};

// What to decode: bytes copied from JS, or a file read (and gunzipped) on the worker thread.
struct SnapshotInput {
  std::vector<uint8_t> bytes;
  std::string path;  // Non-empty: read this file instead of `bytes`.

  Snapshot decode(Times times) {
    if (!path.empty()) {
      FileSource file(path);
      InputWindow input(file);
      return decodeSnapshot(input, file.sizeHint(), times);
    }
    InputWindow input(bytes.data(), bytes.size());
    Snapshot snapshot = decodeSnapshot(input, bytes.size(), times);
    std::vector<uint8_t>().swap(bytes);
    return snapshot;
  }
};

// JS thread: a Uint8Array is copied, so JS may reuse or free its buffer at once; a string is a path.
bool ReadInput(const Napi::Value& v, SnapshotInput& out) {
  if (v.IsString()) {
    out.path = v.As<Napi::String>().Utf8Value();
    return !out.path.empty();
  }
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) return false;
  auto bytes = v.As<Napi::Uint8Array>();
  out.bytes.assign(bytes.Data(), bytes.Data() + bytes.ByteLength());
  return true;
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// CPU time this thread has used, in milliseconds: unlike wall time, not inflated when other
// processes compete for the cores.
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Summary {
  std::map<std::string, double> actionCounts;
  double traceEvents = 0;
  double segmentCount = 0;
  double deviceCount = 0;
};

class SummaryWorker final : public PromiseWorker {
 public:
  SummaryWorker(Napi::Env env, Addon& addon, SnapshotInput input)
      : PromiseWorker(env, addon), input_(std::move(input)) {}

 private:
  void Compute() override {
    const Snapshot snapshot = input_.decode(Times::Drop);
    std::vector<uint64_t> perAction(snapshot.strings.size(), 0);
    for (size_t e = 0; e < snapshot.events.count(); ++e) ++perAction[snapshot.events.actionName(e)];
    for (uint32_t id = 0; id < perAction.size(); ++id) {
      if (perAction[id] != 0) summary_.actionCounts[std::string(snapshot.strings.get(id))] = static_cast<double>(perAction[id]);
    }
    summary_.traceEvents = static_cast<double>(snapshot.events.count());
    summary_.segmentCount = static_cast<double>(snapshot.segments.size());
    summary_.deviceCount = static_cast<double>(snapshot.devices.size());
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

  SnapshotInput input_;
  Summary summary_;
};

struct VariantRequest {
  bool ownSettings = true;
  std::string settings;
  uint64_t capacityBytes = 0;
  uint64_t fitGranularityBytes = 0;  // Non-zero: search the smallest capacity that fits.
  bool timeline = false;             // This variant's per-event bytes (or options.timeline for all).
};

struct VariantOutcome {
  std::string settings;
  uint64_t capacityBytes = 0;
  bool fit = false;
  uint64_t fitReplays = 0;
  double replayMs = 0;
  double replayCpuMs = 0;
  std::vector<ReplayResult> devices;
  size_t worst = 0;  // The device with the highest reserved peak.
};

struct FrameOut {
  std::string filename;
  int64_t line;
  std::string name;
};

Napi::Value BigNumber(Napi::Env env, uint64_t v) { return Napi::Number::New(env, static_cast<double>(v)); }

// Decodes once, then replays every requested variant on each device.
class ReplayWorker final : public PromiseWorker {
 public:
  ReplayWorker(Napi::Env env, Addon& addon, SnapshotInput input,
               std::vector<VariantRequest> variants, bool timeline, bool segmentCalls, uint64_t deviceTotalBytes,
               uint32_t firstEvent, uint32_t peakSites)
      : PromiseWorker(env, addon),
        input_(std::move(input)),
        variants_(std::move(variants)),
        timeline_(timeline),
        segmentCalls_(segmentCalls),
        deviceTotal_(deviceTotalBytes),
        firstEvent_(firstEvent),
        peakSites_(peakSites) {}

 private:
  void Compute() override {
    auto start = std::chrono::steady_clock::now();
    double cpu = ThreadCpuMs();
    snapshot_ = input_.decode(Times::Drop);
    decodeMs_ = MillisecondsSince(start);
    decodeCpuMs_ = ThreadCpuMs() - cpu;
    start = std::chrono::steady_clock::now();
    cpu = ThreadCpuMs();
    ownSettings_ = snapshot_.settings.allocConf;
    plans_ = buildPlans(snapshot_, parseAllocatorSettings(ownSettings_), firstEvent_);
    planMs_ = MillisecondsSince(start);
    planCpuMs_ = ThreadCpuMs() - cpu;
    // Settings are parsed here, so a bad one fails before any replay starts; the variants then
    // replay on their own threads (each variant's simulator is independent; plans are shared
    // read-only).
    std::vector<ReplayOptions> options(variants_.size());
    outcomes_.resize(variants_.size());
    for (size_t i = 0; i < variants_.size(); ++i) {
      const VariantRequest& v = variants_[i];
      VariantOutcome& out = outcomes_[i];
      out.settings = v.ownSettings ? ownSettings_ : v.settings;
      out.capacityBytes = v.capacityBytes;
      out.fit = v.fitGranularityBytes != 0;
      options[i].settings = parseAllocatorSettings(out.settings);
      options[i].capacityBytes = v.capacityBytes;
      options[i].deviceTotalBytes = deviceTotal_;
      options[i].timeline = timeline_ || v.timeline;
      options[i].segmentCalls = segmentCalls_;
      options[i].peakSites = peakSites_;
    }
    const size_t threads = std::max<size_t>(1, std::min<size_t>(variants_.size(), std::thread::hardware_concurrency()));
    std::atomic<size_t> next{0};
    std::vector<std::exception_ptr> errors(threads);
    auto work = [&](size_t t) {
      try {
        for (size_t i = next++; i < variants_.size(); i = next++) runVariant(variants_[i], options[i], outcomes_[i]);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (std::thread& th : pool) th.join();
    for (const std::exception_ptr& e : errors) {
      if (e) std::rethrow_exception(e);
    }
  }

  // Replays one variant on every device. Runs on a worker thread of its own.
  void runVariant(const VariantRequest& v, const ReplayOptions& options, VariantOutcome& out) const {
    const auto start = std::chrono::steady_clock::now();
    const double cpu = ThreadCpuMs();
    for (const DevicePlan& plan : plans_) {
      if (out.fit) {
        FitResult fit = fitCapacity(plan, options, v.fitGranularityBytes);
        out.capacityBytes = std::max(out.capacityBytes, fit.capacityBytes);
        out.fitReplays += fit.replays;
        out.devices.push_back(std::move(fit.result));
      } else {
        out.devices.push_back(replayDevice(plan, options));
      }
      if (out.devices.back().reservedPeakBytes > out.devices[out.worst].reservedPeakBytes) {
        out.worst = out.devices.size() - 1;
      }
    }
    out.replayMs = MillisecondsSince(start);
    out.replayCpuMs = ThreadCpuMs() - cpu;
  }

  std::vector<FrameOut> framesOf(uint32_t stack) const {
    std::vector<FrameOut> frames;
    for (uint32_t i = snapshot_.stackOffsets[stack]; i < snapshot_.stackOffsets[stack + 1]; ++i) {
      const Frame& f = snapshot_.frames[snapshot_.stackFrames[i]];
      frames.push_back({std::string(snapshot_.strings.get(f.filename)), f.line, std::string(snapshot_.strings.get(f.name))});
    }
    return frames;
  }

  Napi::Array framesArray(Napi::Env env, uint32_t stack) const {
    Napi::Array frames = Napi::Array::New(env);
    uint32_t k = 0;
    for (const FrameOut& f : framesOf(stack)) {
      Napi::Object fo = Napi::Object::New(env);
      fo.Set("filename", f.filename);
      fo.Set("line", Napi::Number::New(env, static_cast<double>(f.line)));
      fo.Set("name", f.name);
      frames.Set(k++, fo);
    }
    return frames;
  }

  Napi::Object deviceResult(Napi::Env env, const ReplayResult& r) const {
    const DevicePlan& plan = plans_[r.device];
    Napi::Object o = Napi::Object::New(env);
    o.Set("device", BigNumber(env, r.device));
    o.Set("reservedPeakBytes", BigNumber(env, r.reservedPeakBytes));
    o.Set("allocatedPeakBytes", BigNumber(env, r.allocatedPeakBytes));
    o.Set("fragmentationBytes", BigNumber(env, r.fragmentationBytes));
    o.Set("reservedPeakEventIndex", BigNumber(env, r.reservedPeakEvent));
    o.Set("allocatedPeakEventIndex", BigNumber(env, r.allocatedPeakEvent));
    o.Set("segmentAllocs", BigNumber(env, r.segmentAllocs));
    o.Set("segmentFrees", BigNumber(env, r.segmentFrees));
    o.Set("allocRetries", BigNumber(env, r.allocRetries));
    o.Set("ooms", BigNumber(env, r.ooms));
    if (r.hasOom) {
      Napi::Object oom = Napi::Object::New(env);
      oom.Set("eventIndex", BigNumber(env, r.firstOom.eventIndex));
      oom.Set("allocIndex", BigNumber(env, r.firstOom.allocIndex));
      oom.Set("sizeBytes", BigNumber(env, r.firstOom.sizeBytes));
      oom.Set("frames", framesArray(env, snapshot_.events.stack[plan.begin + r.firstOom.eventIndex]));
      o.Set("firstOom", oom);
    } else {
      o.Set("firstOom", env.Null());
    }
    if (r.hasTimeline) {
      auto toArray = [&](const std::vector<double>& values) {
        Napi::Float64Array a = Napi::Float64Array::New(env, values.size());
        std::copy(values.begin(), values.end(), a.Data());
        return a;
      };
      Napi::Object t = Napi::Object::New(env);
      t.Set("allocatedBytes", toArray(r.allocatedTimeline));
      t.Set("reservedBytes", toArray(r.reservedTimeline));
      o.Set("timeline", t);
    }
    if (peakSites_ != 0) {
      Napi::Array sites = Napi::Array::New(env);
      for (uint32_t i = 0; i < r.peakSites.size(); ++i) {
        const PeakSite& site = r.peakSites[i];
        Napi::Object so = Napi::Object::New(env);
        so.Set("bytes", BigNumber(env, site.bytes));
        so.Set("count", BigNumber(env, site.count));
        so.Set("frames", framesArray(env, site.stack));
        sites.Set(i, so);
      }
      o.Set("peakSites", sites);
    }
    if (segmentCalls_) {
      // [eventIndex, +bytes | -bytes] pairs, in call order.
      Napi::Float64Array calls = Napi::Float64Array::New(env, r.segmentCalls.size() * 2);
      for (size_t i = 0; i < r.segmentCalls.size(); ++i) {
        calls[i * 2] = r.segmentCallEvents[i];
        const double bytes = static_cast<double>(r.segmentCalls[i].bytes);
        calls[i * 2 + 1] = r.segmentCalls[i].alloc ? bytes : -bytes;
      }
      o.Set("segmentCalls", calls);
    }
    return o;
  }

  Napi::Value Result(Napi::Env env) override {
    Napi::Object source = Napi::Object::New(env);
    source.Set("events", BigNumber(env, snapshot_.events.count()));
    source.Set("devices", BigNumber(env, snapshot_.devices.size()));
    source.Set("settings", ownSettings_);
    Napi::Array recorded = Napi::Array::New(env);
    bool anyReconstructed = false;
    for (const DevicePlan& plan : plans_) {
      Napi::Object p = Napi::Object::New(env);
      p.Set("device", BigNumber(env, plan.device));
      p.Set("events", BigNumber(env, plan.end - plan.begin));
      p.Set("requests", BigNumber(env, plan.requests));
      p.Set("unmatchedFrees", BigNumber(env, plan.unmatchedFrees));
      p.Set("segmentAllocs", BigNumber(env, plan.recordedDeviceAllocs));
      p.Set("segmentFrees", BigNumber(env, plan.recordedDeviceFrees));
      p.Set("ooms", BigNumber(env, plan.recordedOoms));
      p.Set("firstEvent", BigNumber(env, plan.begin - snapshot_.devices[plan.device].begin));
      const InitialState& init = plan.initial;
      const bool reconstructed = init.supported && !init.segments.empty();
      anyReconstructed = anyReconstructed || reconstructed;
      p.Set("startReconstructed", Napi::Boolean::New(env, reconstructed));
      p.Set("initialReservedBytes", BigNumber(env, init.reservedBytes));
      p.Set("initialAllocatedBytes", BigNumber(env, init.allocatedBytes));
      p.Set("initialSegments", BigNumber(env, init.segments.size()));
      p.Set("reconstructionProblem", init.supported ? env.Null() : Napi::String::New(env, init.problem));
      recorded.Set(plan.device, p);
    }
    source.Set("recorded", recorded);
    source.Set("startReconstructed", Napi::Boolean::New(env, anyReconstructed));
    Napi::Object timings = Napi::Object::New(env);
    timings.Set("decodeMs", Napi::Number::New(env, decodeMs_));
    timings.Set("planMs", Napi::Number::New(env, planMs_));
    Napi::Array variantMs = Napi::Array::New(env);
    for (uint32_t i = 0; i < outcomes_.size(); ++i) variantMs.Set(i, Napi::Number::New(env, outcomes_[i].replayMs));
    timings.Set("variantMs", variantMs);
    timings.Set("decodeCpuMs", Napi::Number::New(env, decodeCpuMs_));
    timings.Set("planCpuMs", Napi::Number::New(env, planCpuMs_));
    Napi::Array variantCpuMs = Napi::Array::New(env);
    for (uint32_t i = 0; i < outcomes_.size(); ++i) variantCpuMs.Set(i, Napi::Number::New(env, outcomes_[i].replayCpuMs));
    timings.Set("variantCpuMs", variantCpuMs);
    source.Set("timings", timings);
    Napi::Array variants = Napi::Array::New(env);
    uint32_t k = 0;
    for (const VariantOutcome& v : outcomes_) {
      Napi::Object o = v.devices.empty() ? Napi::Object::New(env) : deviceResult(env, v.devices[v.worst]);
      o.Set("settings", v.settings);
      o.Set("capacityBytes", v.capacityBytes == 0 ? env.Null() : BigNumber(env, v.capacityBytes));
      if (v.fit) o.Set("fitReplays", BigNumber(env, v.fitReplays));
      Napi::Array devices = Napi::Array::New(env);
      for (uint32_t d = 0; d < v.devices.size(); ++d) devices.Set(d, deviceResult(env, v.devices[d]));
      o.Set("devices", devices);
      variants.Set(k++, o);
    }
    Napi::Object out = Napi::Object::New(env);
    out.Set("source", source);
    out.Set("variants", variants);
    return out;
  }

  SnapshotInput input_;
  std::vector<VariantRequest> variants_;
  bool timeline_;
  bool segmentCalls_;
  uint64_t deviceTotal_;
  uint32_t firstEvent_;
  uint32_t peakSites_;
  Snapshot snapshot_;
  std::vector<DevicePlan> plans_;
  std::string ownSettings_;
  std::vector<VariantOutcome> outcomes_;
  double decodeMs_ = 0;
  double planMs_ = 0;
  double decodeCpuMs_ = 0;
  double planCpuMs_ = 0;
};

// Decodes a snapshot and writes it back as a protocol-4 pickle for memory_viz.
class ExportWorker final : public PromiseWorker {
 public:
  ExportWorker(Napi::Env env, Addon& addon, SnapshotInput input, std::string outPath, ExportOptions options)
      : PromiseWorker(env, addon), input_(std::move(input)), outPath_(std::move(outPath)), options_(options) {}

 private:
  void Compute() override {
    const Snapshot snapshot = input_.decode(Times::Keep);
    result_ = exportSnapshot(snapshot, outPath_, options_);
  }

  Napi::Value Result(Napi::Env env) override {
    Napi::Object out = Napi::Object::New(env);
    out.Set("bytes", BigNumber(env, result_.bytes));
    out.Set("events", BigNumber(env, result_.events));
    return out;
  }

  SnapshotInput input_;
  std::string outPath_;
  ExportOptions options_;
  ExportResult result_;
};

// Argument errors reject the promise too, so callers handle every failure in one place.
Napi::Value Rejected(Napi::Env env, Addon& addon, const std::string& message) {
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Reject(addon.makeError(env, code::kInvalidArgument, message));
  return deferred.Promise();
}

// Reads a byte count from JS: a non-negative safe integer, or null/undefined for "none".
bool ReadBytesOption(const Napi::Value& v, uint64_t& out) {
  if (v.IsUndefined() || v.IsNull()) {
    out = 0;
    return true;
  }
  if (!v.IsNumber()) return false;
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 0) || d > 9007199254740991.0 || d != static_cast<double>(static_cast<uint64_t>(d))) return false;
  out = static_cast<uint64_t>(d);
  return true;
}

}  // namespace

Napi::Value ReplaySnapshot(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto& addon = *static_cast<Addon*>(info.Data());
  SnapshotInput input;
  if (info.Length() < 1 || !ReadInput(info[0], input)) {
    return Rejected(env, addon, "Expected first argument to be a Uint8Array or a file path");
  }
  if (info.Length() < 2 || !info[1].IsObject()) {
    return Rejected(env, addon, "Expected second argument to be an options object");
  }
  Napi::Object options = info[1].As<Napi::Object>();
  Napi::Value list = options.Get("variants");
  if (!list.IsArray()) return Rejected(env, addon, "Expected options.variants to be an array");
  std::vector<VariantRequest> variants;
  Napi::Array array = list.As<Napi::Array>();
  for (uint32_t i = 0; i < array.Length(); ++i) {
    Napi::Value item = array.Get(i);
    if (!item.IsObject()) return Rejected(env, addon, "Expected each variant to be an object");
    Napi::Object v = item.As<Napi::Object>();
    VariantRequest request;
    Napi::Value settings = v.Get("settings");
    if (settings.IsString()) {
      request.ownSettings = false;
      request.settings = settings.As<Napi::String>().Utf8Value();
    } else if (!settings.IsUndefined() && !settings.IsNull()) {
      return Rejected(env, addon, "Expected variant.settings to be a string or null");
    }
    if (!ReadBytesOption(v.Get("capacityBytes"), request.capacityBytes)) {
      return Rejected(env, addon, "Expected variant.capacityBytes to be a non-negative integer or null");
    }
    if (!ReadBytesOption(v.Get("fitGranularityBytes"), request.fitGranularityBytes)) {
      return Rejected(env, addon, "Expected variant.fitGranularityBytes to be a non-negative integer or null");
    }
    request.timeline = v.Get("timeline").ToBoolean().Value();
    if (request.fitGranularityBytes != 0 && request.capacityBytes != 0) {
      return Rejected(env, addon, "A variant either searches for a capacity (fitGranularityBytes) or sets one (capacityBytes), not both");
    }
    variants.push_back(std::move(request));
  }
  uint64_t deviceTotal = 0;
  if (!ReadBytesOption(options.Get("deviceTotalBytes"), deviceTotal)) {
    return Rejected(env, addon, "Expected options.deviceTotalBytes to be a non-negative integer");
  }
  // Expandable segments reserve address space for 9/8 of the device; without a device size, use
  // the capacity or, failing that, 80 GiB. It only changes which free block best-fit prefers.
  if (deviceTotal == 0) deviceTotal = uint64_t{80} << 30;
  uint64_t firstEvent = 0;
  if (!ReadBytesOption(options.Get("firstEvent"), firstEvent) || firstEvent > UINT32_MAX) {
    return Rejected(env, addon, "Expected options.firstEvent to be a non-negative integer");
  }
  const bool timeline = options.Get("timeline").ToBoolean().Value();
  const bool segmentCalls = options.Get("segmentCalls").ToBoolean().Value();
  uint64_t peakSites = 0;
  if (!ReadBytesOption(options.Get("peakSites"), peakSites) || peakSites > 100000) {
    return Rejected(env, addon, "Expected options.peakSites to be a count between 0 and 100000");
  }
  auto* worker = new ReplayWorker(env, addon, std::move(input), std::move(variants), timeline, segmentCalls, deviceTotal,
                                 static_cast<uint32_t>(firstEvent), static_cast<uint32_t>(peakSites));
  Napi::Promise promise = worker->promise();
  worker->Queue();
  return promise;
}

Napi::Value ExportSnapshot(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto& addon = *static_cast<Addon*>(info.Data());
  SnapshotInput input;
  if (info.Length() < 1 || !ReadInput(info[0], input)) {
    return Rejected(env, addon, "Expected first argument to be a Uint8Array or a file path");
  }
  if (info.Length() < 2 || !info[1].IsString() || info[1].As<Napi::String>().Utf8Value().empty()) {
    return Rejected(env, addon, "Expected second argument to be the output file path");
  }
  ExportOptions options;
  if (info.Length() >= 3 && info[2].IsObject()) {
    Napi::Object o = info[2].As<Napi::Object>();
    uint64_t first = 0;
    uint64_t max = 0;
    if (!ReadBytesOption(o.Get("firstEvent"), first) || first > UINT32_MAX ||
        !ReadBytesOption(o.Get("maxEvents"), max) || max > UINT32_MAX) {
      return Rejected(env, addon, "Expected options.firstEvent and options.maxEvents to be non-negative integers");
    }
    options.firstEvent = static_cast<uint32_t>(first);
    options.maxEvents = static_cast<uint32_t>(max);
  }
  auto* worker = new ExportWorker(env, addon, std::move(input), info[1].As<Napi::String>().Utf8Value(), options);
  Napi::Promise promise = worker->promise();
  worker->Queue();
  return promise;
}

Napi::Value DecodeSnapshotSummary(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto& addon = *static_cast<Addon*>(info.Data());
  SnapshotInput input;
  if (info.Length() < 1 || !ReadInput(info[0], input)) {
    return Rejected(env, addon, "Expected first argument to be a Uint8Array or a file path");
  }
  auto* worker = new SummaryWorker(env, addon, std::move(input));
  Napi::Promise promise = worker->promise();
  worker->Queue();
  return promise;
}

}  // namespace headroom
