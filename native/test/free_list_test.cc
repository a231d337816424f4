// Differential test of FreeList against std::set: random inserts, erases, replacements and
// lower-bound walks on lists from a handful of entries to thousands (many chunks), with equal
// sizes, equal (size, address) keys under different ids, and keys at the 64-bit extremes.
// Prints "ok N" after N operations, or the first difference and exits 1.
//   g++ -std=c++17 -O1 -fsanitize=address,undefined -I native/src native/src/free_list.cc native/test/free_list_test.cc
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "free_list.h"

namespace {

using Entry = std::tuple<uint64_t, uint64_t, uint32_t>;  // size, ptr, id: FreeList's order.

[[noreturn]] void fail(const char* what, uint64_t op) {
  std::printf("FAIL at op %llu: %s\n", static_cast<unsigned long long>(op), what);
  std::exit(1);
}

std::vector<Entry> contents(const headroom::FreeList& list, const std::set<Entry>& byId) {
  std::vector<Entry> out;
  for (auto p = list.begin(); !list.atEnd(p); p = list.next(p)) {
    const uint32_t id = list.id(p);
    // Find the entry's key through the reference (ids are unique there).
    for (const Entry& e : byId) {
      if (std::get<2>(e) == id) {
        out.push_back(e);
        break;
      }
    }
  }
  return out;
}

}  // namespace

int main() {
  std::mt19937_64 rng(20261130);
  uint64_t ops = 0;
  for (int round = 0; round < 40; ++round) {
    headroom::FreeList list;
    std::set<Entry> ref;
    // Small key ranges force equal sizes and equal (size, ptr) pairs; later rounds use wide ones.
    const uint64_t sizes = round % 4 == 0 ? 3 : (round % 4 == 1 ? 50 : UINT64_MAX);
    const uint64_t ptrs = round % 3 == 0 ? 4 : UINT64_MAX;
    const size_t target = round < 10 ? 20 : (round < 30 ? 300 : 3000);
    uint32_t nextId = 1;
    auto randomKey = [&] {
      const uint64_t size = sizes == UINT64_MAX ? rng() : rng() % sizes;
      const uint64_t ptr = ptrs == UINT64_MAX ? rng() : rng() % ptrs;
      return std::make_pair(size, ptr);
    };
    for (int step = 0; step < 20000; ++step, ++ops) {
      const unsigned action = rng() % 10;
      if (ref.size() < target && (action < 4 || ref.empty())) {
        const auto [size, ptr] = randomKey();
        list.insert(size, ptr, nextId);
        ref.emplace(size, ptr, nextId++);
      } else if (action < 7) {
        auto victim = std::next(ref.begin(), static_cast<long>(rng() % ref.size()));
        const auto [size, ptr, id] = *victim;
        if (rng() % 2 == 0) {
          list.erase(size, ptr, id);
        } else {
          list.eraseAt(list.find(size, ptr, id));
        }
        ref.erase(victim);
      } else if (action < 9) {
        // A split (smaller key) or a merge (larger key), sometimes with a new id.
        auto victim = std::next(ref.begin(), static_cast<long>(rng() % ref.size()));
        const auto [size, ptr, id] = *victim;
        const auto [newSize, newPtr] = randomKey();
        const uint32_t newId = rng() % 2 == 0 ? id : nextId++;
        list.replaceAt(list.find(size, ptr, id), newSize, newPtr, newId);
        ref.erase(victim);
        ref.emplace(newSize, newPtr, newId);
      }
      // Best fit: the first entry not before a probe, and the walk back from it.
      const auto [size, ptr] = randomKey();
      const uint32_t probeId = rng() % 2 == 0 ? 0 : static_cast<uint32_t>(rng() % nextId);
      const auto p = list.lowerBound(size, ptr, probeId);
      const auto r = ref.lower_bound(Entry{size, ptr, probeId});
      if (list.atEnd(p) != (r == ref.end())) fail("lowerBound end", ops);
      if (!list.atEnd(p) && list.id(p) != std::get<2>(*r)) fail("lowerBound entry", ops);
      if (list.atBegin(p) != (r == ref.begin())) fail("lowerBound begin", ops);
      if (!list.atBegin(p) && list.id(list.prev(p)) != std::get<2>(*std::prev(r))) fail("prev", ops);
      if (list.empty() != ref.empty()) fail("empty", ops);
    }
    if (contents(list, ref) != std::vector<Entry>(ref.begin(), ref.end())) fail("order", ops);
  }
  std::printf("ok %llu\n", static_cast<unsigned long long>(ops));
  return 0;
}
