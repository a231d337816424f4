// A free-list allocator for the simulator's std::set nodes. Best fit inserts and erases a set node
// on almost every allocation and free; recycling fixed-size nodes instead of calling malloc and
// free keeps that off the replay's critical path.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace headroom {

class NodePool {
 public:
  NodePool() = default;
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;

  void* get(size_t bytes) {
    if (nodeBytes_ == 0) nodeBytes_ = std::max(bytes, sizeof(void*));
    if (bytes > nodeBytes_) return ::operator new(bytes);
    if (free_ != nullptr) {
      void* p = free_;
      free_ = *static_cast<void**>(p);
      return p;
    }
    if (next_ == end_) {
      constexpr size_t kNodesPerSlab = 4096;
      slabs_.emplace_back(new char[nodeBytes_ * kNodesPerSlab]);
      next_ = slabs_.back().get();
      end_ = next_ + nodeBytes_ * kNodesPerSlab;
    }
    void* p = next_;
    next_ += nodeBytes_;
    return p;
  }

  void put(void* p, size_t bytes) {
    if (bytes > nodeBytes_) {
      ::operator delete(p);
      return;
    }
    *static_cast<void**>(p) = free_;
    free_ = p;
  }

 private:
  size_t nodeBytes_ = 0;
  void* free_ = nullptr;
  char* next_ = nullptr;
  char* end_ = nullptr;
  std::vector<std::unique_ptr<char[]>> slabs_;
};

template <class T>
struct PoolAllocator {
  using value_type = T;
  NodePool* pool;

  explicit PoolAllocator(NodePool* p) : pool(p) {}
  template <class U>
  PoolAllocator(const PoolAllocator<U>& other) : pool(other.pool) {}

  T* allocate(size_t n) {
    if (n != 1) return static_cast<T*>(::operator new(n * sizeof(T)));
    return static_cast<T*>(pool->get(sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (n != 1) {
      ::operator delete(p);
      return;
    }
    pool->put(p, sizeof(T));
  }
  template <class U>
  bool operator==(const PoolAllocator<U>& other) const { return pool == other.pool; }
  template <class U>
  bool operator!=(const PoolAllocator<U>& other) const { return pool != other.pool; }
};

}  // namespace headroom
