// Handle <-> object conversion for the MPICH ABI: the only place in fabmpi that knows handles are ints.
// Predefined handles keep MPICH's values; objects created at run time get
// 0xC0000000 | kind << 26 | slot, which no predefined handle uses.
#pragma once

#include <mpi.h>

#include <memory>
#include <unordered_map>
#include <vector>

namespace fabmpi::binding {

enum class ObjectKind : unsigned {
  comm = 1, group = 2, datatype = 3, errhandler = 5, op = 6, info = 7, keyval = 9, request = 11, win = 12, session = 14, file = 15
};

template <class T, ObjectKind Kind>
class HandleTable {
 public:
  static constexpr unsigned kDynamic = 0xC0000000u;
  static constexpr unsigned kKindShift = 26;
  static constexpr unsigned kSlotMask = (1u << kKindShift) - 1;

  // Registers a predefined object under its fixed handle value.
  void add_predefined(int handle, std::shared_ptr<T> object) { predefined_[handle] = std::move(object); }

  int insert(std::shared_ptr<T> object) {
    unsigned slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
      slots_[slot] = std::move(object);
    } else {
      slot = static_cast<unsigned>(slots_.size());
      slots_.push_back(std::move(object));
    }
    return static_cast<int>(kDynamic | (static_cast<unsigned>(Kind) << kKindShift) | slot);
  }

  // The object behind a handle, or nullptr for an unknown, freed or null handle.
  const std::shared_ptr<T>* find(int handle) const {
    const auto h = static_cast<unsigned>(handle);
    if ((h & 0xFC000000u) == (kDynamic | (static_cast<unsigned>(Kind) << kKindShift))) {
      const unsigned slot = h & kSlotMask;
      if (slot < slots_.size() && slots_[slot]) return &slots_[slot];
      return nullptr;
    }
    auto it = predefined_.find(handle);
    return it == predefined_.end() ? nullptr : &it->second;
  }

  bool is_predefined(int handle) const { return predefined_.count(handle) != 0; }

  // Drops the table's reference; the object lives on while others (requests, communicators) hold it.
  void erase(int handle) {
    const auto h = static_cast<unsigned>(handle);
    if ((h & 0xC0000000u) != kDynamic) return;
    const unsigned slot = h & kSlotMask;
    if (slot < slots_.size() && slots_[slot]) {
      slots_[slot].reset();
      free_slots_.push_back(slot);
    }
  }

  void clear() {
    slots_.clear();
    free_slots_.clear();
    predefined_.clear();
  }

 private:
  std::vector<std::shared_ptr<T>> slots_;
  std::vector<unsigned> free_slots_;
  std::unordered_map<int, std::shared_ptr<T>> predefined_;
};

}  // namespace fabmpi::binding
