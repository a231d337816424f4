// The decoded form of a PyTorch memory snapshot (torch.cuda.memory._snapshot()): trace events as
// columns, frames and call stacks interned once, segments and their blocks, allocator settings.
// Built by streaming the pickle through PickleReader; no Python object tree is ever held.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "byte_source.h"
#include "pickle_reader.h"

namespace headroom {

// Strings interned before decoding starts, so their ids are these constants. Trace actions come
// first: an event's `action` is a string id, and ids below kActionCount are the known actions.
enum Known : uint32_t {
  kAlloc, kFreeRequested, kFreeCompleted, kSegmentAlloc, kSegmentFree, kSegmentMap,
  kSegmentUnmap, kOom, kSnapshotAction, kUserDefined,
  kActionCount,
  kKeyAction = kActionCount, kKeyAddr, kKeySize, kKeyStream, kKeyTimeUs, kKeyFrames,
  kKeyDeviceFree, kKeyFilename, kKeyLine, kKeyName, kKeyTotalSize, kKeyBlocks, kKeyAddress,
  kKeyRequestedSize, kKeyState, kKeyDevice, kKeyAllocatedSize, kKeyActiveSize, kKeySegmentType,
  kKeySegmentPoolId, kKeyIsExpandable, kKeySegments, kKeyDeviceTraces, kKeyAllocatorSettings,
  kKeyAllocConf, kKeyMaxSplitSize, kKeyGcThreshold, kKeyExpandableSegments, kKeyRoundupDivisions,
  kStateActiveAllocated, kStateActivePendingFree, kStateInactive, kTypeSmall, kTypeLarge,
  kKnownCount,
};

struct Frame {
  uint32_t filename;  // String id.
  uint32_t name;      // String id.
  int64_t line;
};

// Trace events of all devices, one column per field, device after device. A 1 GB snapshot has
// 15 M entries, and on some machines faulting in fresh pages costs as much as parsing, so the
// action and the stream, which take few distinct values, are small codes into tables.
struct EventColumns {
  std::vector<uint8_t> action;        // Action code: the Known value for the known actions (< kActionCount).
  std::vector<uint32_t> actionNames;  // String id of each action code; the known ones first.
  std::vector<uint64_t> addr;         // For `oom`: the device's free bytes (the entry's device_free).
  std::vector<uint64_t> size;
  std::vector<uint16_t> streamCode;   // Index into streams.
  std::vector<int64_t> streams;       // Each distinct stream, in order of first use.
  std::vector<int64_t> timeUs;        // Empty unless decoded with Times::Keep.
  std::vector<uint32_t> stack;        // Stack id (0 = no frames).
  size_t count() const { return action.size(); }
  int64_t stream(size_t e) const { return streams[streamCode[e]]; }
  uint32_t actionName(size_t e) const { return actionNames[action[e]]; }
};

struct DeviceTrace {
  uint32_t begin;  // Range of this device's events in EventColumns.
  uint32_t end;
};

struct Block {
  uint64_t address;
  uint64_t size;
  uint64_t requestedSize;
  uint32_t state;  // String id (kStateActiveAllocated, ...).
  uint32_t stack;
};

struct Segment {
  int64_t device;
  uint64_t address;
  uint64_t totalSize;
  uint64_t allocatedSize;
  uint64_t activeSize;
  uint64_t requestedSize;
  int64_t stream;
  uint32_t segmentType;  // String id (kTypeSmall / kTypeLarge).
  bool isExpandable;
  uint32_t stack;
  uint32_t firstBlock;  // Range in Snapshot::blocks.
  uint32_t blockCount;
};

// The run's allocator configuration as the snapshot recorded it (C++ path or PyTorch >= 2.1).
struct AllocatorSettingsRecord {
  std::string allocConf;  // PYTORCH_CUDA_ALLOC_CONF as last set.
  int64_t maxSplitSize = -1;
  double gcThreshold = 0;
  bool expandableSegments = false;
};

struct Snapshot {
  StringTable strings;
  std::vector<Frame> frames;
  std::vector<uint32_t> stackOffsets{0, 0};  // Stack s is stackFrames[stackOffsets[s], stackOffsets[s+1]).
  std::vector<uint32_t> stackFrames;         // Frame ids, innermost first.
  EventColumns events;
  std::vector<DeviceTrace> devices;
  std::vector<Segment> segments;
  std::vector<Block> blocks;
  AllocatorSettingsRecord settings;
};

// Whether the entries' time stamps are kept: only an export writes them back, and on a 1 GB snapshot
// they are 120 MB of fresh pages (each entry's time_us is still read and checked).
enum class Times : uint8_t { Drop, Keep };

// Decodes a whole snapshot pickle. Throws DecodeError. Runs on a worker thread. `sizeHint` is
// the pickle's size in bytes if known (0 if not); it only sizes buffers up front.
Snapshot decodeSnapshot(InputWindow& input, uint64_t sizeHint, Times times);

}  // namespace headroom
