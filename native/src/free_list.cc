#include "free_list.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace headroom {

void FreeList::Chunk::move(uint32_t from, uint32_t to, uint32_t n) {
  std::memmove(keys + to, keys + from, n * sizeof(Key));
  std::memmove(ids + to, ids + from, n * sizeof(uint32_t));
}

FreeList::Position FreeList::next(Position p) const {
  if (++p.index == chunks_[p.chunk]->count) return {p.chunk + 1, 0};
  return p;
}

FreeList::Position FreeList::prev(Position p) const {
  if (p.index != 0) return {p.chunk, p.index - 1};
  return {p.chunk - 1, chunks_[p.chunk - 1]->count - 1};
}

// The first of n sorted entries not before (k, id). The search compares keys only and is
// branch-free (the comparison picks the next base with a conditional move): on best-fit keys a
// branchy search mispredicted about every other step. Equal keys are rare (see before()), so ids
// are compared only when stepping over them.
size_t FreeList::firstNotBefore(const Key* keys, const uint32_t* ids, size_t n, Key k, uint32_t id) {
  const size_t count = n;
  size_t lo = 0;
  while (n > 1) {
    const size_t half = n / 2;
    lo = keys[lo + half - 1] < k ? lo + half : lo;
    n -= half;
  }
  lo += n == 1 && keys[lo] < k ? 1 : 0;
  while (lo < count && keys[lo] == k && ids[lo] < id) ++lo;
  return lo;
}

size_t FreeList::chunkFor(Key k, uint32_t id) const {
  return firstNotBefore(lastKeys_.data(), lastIds_.data(), chunks_.size(), k, id);
}

// Within a chunk, counting beats bisecting: the slots before k are counted among the 8 groups'
// last slots, then among the 8 slots of the group k falls in. The 16 comparisons are independent
// of each other, where a binary search's 6 steps each wait for the previous step's load.
uint32_t FreeList::indexIn(const Chunk& c, Key k, uint32_t id) {
  uint32_t group = 0;
  for (uint32_t g = 0; g < kGroup; ++g) group += c.keys[g * kGroup + kGroup - 1] < k;
  uint32_t at = group * kGroup;
  if (group < kGroup) {
    uint32_t before = 0;
    for (uint32_t i = 0; i < kGroup; ++i) before += c.keys[at + i] < k;
    at += before;
  }
  while (at < c.count && c.keys[at] == k && c.ids[at] < id) ++at;
  return at;
}

FreeList::Position FreeList::lowerBound(uint64_t size, uint64_t ptr, uint32_t id) const {
  const Key k = keyOf(size, ptr);
  const size_t chunk = chunkFor(k, id);
  if (chunk == chunks_.size()) return {chunk, 0};
  const uint32_t index = indexIn(*chunks_[chunk], k, id);
  return index == chunks_[chunk]->count ? Position{chunk + 1, 0} : Position{chunk, index};
}

void FreeList::splitChunk(size_t chunk) {
  Chunk& full = *chunks_[chunk];
  std::unique_ptr<Chunk> upper = spare_ ? std::move(spare_) : std::make_unique<Chunk>();
  const uint32_t keep = full.count / 2;
  upper->count = full.count - keep;
  std::memcpy(upper->keys, full.keys + keep, upper->count * sizeof(Key));
  std::memcpy(upper->ids, full.ids + keep, upper->count * sizeof(uint32_t));
  std::fill(upper->keys + upper->count, upper->keys + kChunkEntries, kPastEnd);
  std::fill(full.keys + keep, full.keys + kChunkEntries, kPastEnd);
  full.count = keep;
  chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(chunk) + 1, std::move(upper));
  lastKeys_.insert(lastKeys_.begin() + static_cast<std::ptrdiff_t>(chunk), full.keys[keep - 1]);
  lastIds_.insert(lastIds_.begin() + static_cast<std::ptrdiff_t>(chunk), full.ids[keep - 1]);
}

void FreeList::insert(uint64_t size, uint64_t ptr, uint32_t id) {
  const Key k = keyOf(size, ptr);
  if (chunks_.empty()) {
    chunks_.push_back(spare_ ? std::move(spare_) : std::make_unique<Chunk>());
    chunks_[0]->count = 0;
    lastKeys_.push_back(k);
    lastIds_.push_back(id);
  }
  size_t chunk = chunkFor(k, id);
  if (chunk == chunks_.size()) --chunk;  // After every entry: append to the last chunk.
  if (chunks_[chunk]->count == kChunkEntries) {
    splitChunk(chunk);
    if (!before(k, id, lastKeys_[chunk], lastIds_[chunk])) ++chunk;
  }
  Chunk& c = *chunks_[chunk];
  const uint32_t at = indexIn(c, k, id);
  c.move(at, at + 1, c.count - at);
  c.put(at, k, id);
  if (at == c.count) {
    lastKeys_[chunk] = k;
    lastIds_[chunk] = id;
  }
  ++c.count;
}

FreeList::Position FreeList::find(uint64_t size, uint64_t ptr, uint32_t id) const {
  const Position p = lowerBound(size, ptr, id);
  if (atEnd(p) || chunks_[p.chunk]->keys[p.index] != keyOf(size, ptr) || chunks_[p.chunk]->ids[p.index] != id) {
    throw std::logic_error("free list: a block that is not in it");
  }
  return p;
}

void FreeList::erase(uint64_t size, uint64_t ptr, uint32_t id) { eraseAt(find(size, ptr, id)); }

void FreeList::replaceAt(Position p, uint64_t size, uint64_t ptr, uint32_t id) {
  const Key k = keyOf(size, ptr);
  Chunk& c = *chunks_[p.chunk];
  // The new key stays in this chunk when it is after the previous chunk's last entry and not
  // after the next chunk's first; otherwise it moves between chunks the long way.
  const bool afterPrevious = p.chunk == 0 || before(lastKeys_[p.chunk - 1], lastIds_[p.chunk - 1], k, id);
  const bool beforeNext = p.chunk + 1 == chunks_.size() ||
                          before(k, id, chunks_[p.chunk + 1]->keys[0], chunks_[p.chunk + 1]->ids[0]);
  if (!afterPrevious || !beforeNext) {
    eraseAt(p);
    insert(size, ptr, id);
    return;
  }
  const uint32_t i = p.index;
  // Entries before the new key, counting the old one if it is among them.
  const uint32_t j = indexIn(c, k, id);
  if (j <= i) {
    c.move(j, j + 1, i - j);
    c.put(j, k, id);
  } else {
    c.move(i + 1, i, j - 1 - i);
    c.put(j - 1, k, id);
  }
  lastKeys_[p.chunk] = c.keys[c.count - 1];
  lastIds_[p.chunk] = c.ids[c.count - 1];
}

void FreeList::eraseAt(Position p) {
  Chunk& c = *chunks_[p.chunk];
  const uint32_t at = p.index;
  --c.count;
  c.move(at + 1, at, c.count - at);
  c.keys[c.count] = kPastEnd;
  const auto chunk = static_cast<std::ptrdiff_t>(p.chunk);
  if (c.count == 0) {
    spare_ = std::move(chunks_[p.chunk]);
    chunks_.erase(chunks_.begin() + chunk);
    lastKeys_.erase(lastKeys_.begin() + chunk);
    lastIds_.erase(lastIds_.begin() + chunk);
  } else if (at == c.count) {
    lastKeys_[p.chunk] = c.keys[at - 1];
    lastIds_[p.chunk] = c.ids[at - 1];
  }
}

}  // namespace headroom
