// JS entry points that decode a snapshot off the JS thread (a libuv worker) and settle a promise.
#pragma once

#include <napi.h>

namespace headroom {

// decodeSnapshotSummary(bytes: Uint8Array): Promise<SnapshotDecodeSummary>. JS thread.
Napi::Value DecodeSnapshotSummary(const Napi::CallbackInfo& info);

// replaySnapshot(bytes, {variants: [{settings?, capacityBytes?}], timeline?, deviceTotalBytes?}):
// Promise<ReplayReport>. JS thread.
Napi::Value ReplaySnapshot(const Napi::CallbackInfo& info);

// exportSnapshot(source, outPath, {firstEvent?, maxEvents?}): Promise<{bytes, events}>. JS thread.
Napi::Value ExportSnapshot(const Napi::CallbackInfo& info);

}  // namespace headroom
