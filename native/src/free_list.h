// The free blocks of one pool on one stream, in best-fit order: by size, then address, as
// PyTorch's BlockComparatorSize orders a BlockPool (the simulator keeps one list per stream, so
// the stream never needs comparing). Best fit is the first entry not ordered before the request.
//
// Replay inserts or erases an entry on nearly every alloc and free, and the lists it sees are
// short (tens to hundreds of blocks), so a red-black tree's pointer chasing was most of the
// replay's time. Here an entry is a 16-byte key (size in the high half, address in the low half,
// compared as one 128-bit integer) kept sorted in arrays of at most kChunkEntries, with the block
// id beside it; a short list is one cache-resident array, and a long one (a badly fragmented run)
// costs a binary search over the chunks' last keys plus a move inside one chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace headroom {

class FreeList {
 public:
  // Where an entry sits; valid until the next insert or erase.
  struct Position {
    size_t chunk;
    uint32_t index;
  };

  bool empty() const { return chunks_.empty(); }
  Position begin() const { return {0, 0}; }
  bool atEnd(const Position& p) const { return p.chunk == chunks_.size(); }
  bool atBegin(const Position& p) const { return p.chunk == 0 && p.index == 0; }
  Position next(Position p) const;
  Position prev(Position p) const;  // p must not be begin().
  uint32_t id(const Position& p) const { return chunks_[p.chunk]->ids[p.index]; }

  // The first entry not ordered before (size, ptr, id); end when there is none.
  Position lowerBound(uint64_t size, uint64_t ptr, uint32_t id = 0) const;
  void insert(uint64_t size, uint64_t ptr, uint32_t id);
  // Removes the entry (size, ptr, id), which must be present.
  void erase(uint64_t size, uint64_t ptr, uint32_t id);
  void eraseAt(Position p);
  // The entry at `p` gets a new key (and id): a block that was split or merged keeps its place in
  // the list when it can, so replay moves a few entries instead of erasing and inserting.
  void replaceAt(Position p, uint64_t size, uint64_t ptr, uint32_t id);
  // Where the entry (size, ptr, id) is; it must be present.
  Position find(uint64_t size, uint64_t ptr, uint32_t id) const;

 private:
  using Key = unsigned __int128;
  static constexpr uint32_t kChunkEntries = 64;
  // Slots past `count` hold kPastEnd, which no entry's key reaches (sizes stay below 2^46), so a
  // search can compare every slot of a chunk without knowing where its entries end.
  static constexpr Key kPastEnd = ~Key{0};
  static constexpr uint32_t kGroup = 8;  // A chunk is searched as 8 groups of 8 slots.
  static_assert(kChunkEntries == kGroup * kGroup, "a chunk is searched as kGroup groups of kGroup slots");
  struct Chunk {
    Chunk() {
      for (Key& k : keys) k = kPastEnd;
    }
    uint32_t count = 0;
    Key keys[kChunkEntries];
    uint32_t ids[kChunkEntries];
    // Moves n entries from position `from` to position `to` (ranges may overlap).
    void move(uint32_t from, uint32_t to, uint32_t n);
    void put(uint32_t at, Key k, uint32_t id) {
      keys[at] = k;
      ids[at] = id;
    }
  };
  static Key keyOf(uint64_t size, uint64_t ptr) { return (static_cast<Key>(size) << 64) | ptr; }
  // Entries with equal keys (two blocks a diverging replay placed at one recorded address) are
  // ordered by id, as the tree before this ordered them.
  static bool before(Key k, uint32_t id, Key otherKey, uint32_t otherId) {
    return (k < otherKey) | ((k == otherKey) & (id < otherId));
  }
  static size_t firstNotBefore(const Key* keys, const uint32_t* ids, size_t n, Key k, uint32_t id);
  size_t chunkFor(Key k, uint32_t id) const;  // The first chunk whose last entry is not before (k, id).
  static uint32_t indexIn(const Chunk& c, Key k, uint32_t id);
  void splitChunk(size_t chunk);

  std::vector<std::unique_ptr<Chunk>> chunks_;  // None is empty.
  std::vector<Key> lastKeys_;                   // Each chunk's last key, for finding a chunk.
  std::vector<uint32_t> lastIds_;               // And its id.
  std::unique_ptr<Chunk> spare_;  // The last chunk emptied, kept: a list often empties and refills.
};

}  // namespace headroom
