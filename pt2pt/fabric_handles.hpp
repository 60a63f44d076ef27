// RAII owners for libfabric objects. Every libfabric object starts with a struct fid, so one owner type
// closes them all with fi_close.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include <utility>

#include "pt2pt/fabric_api.hpp"

namespace fabmpi::pt2pt {

template <class T>
class FidOwner {
 public:
  FidOwner() = default;
  explicit FidOwner(T* object) noexcept : object_(object) {}
  ~FidOwner() { reset(); }
  FidOwner(FidOwner&& other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
  FidOwner& operator=(FidOwner&& other) noexcept {
    if (this != &other) {
      reset();
      object_ = std::exchange(other.object_, nullptr);
    }
    return *this;
  }
  FidOwner(const FidOwner&) = delete;
  FidOwner& operator=(const FidOwner&) = delete;

  T* get() const noexcept { return object_; }
  T** out() noexcept { reset(); return &object_; }  // for fi_* calls that create the object
  explicit operator bool() const noexcept { return object_ != nullptr; }
  void reset() noexcept {
    if (object_) fi_close(&object_->fid);
    object_ = nullptr;
  }

 private:
  T* object_ = nullptr;
};

using FabricHandle = FidOwner<fid_fabric>;
using DomainHandle = FidOwner<fid_domain>;
using AvHandle = FidOwner<fid_av>;
using CqHandle = FidOwner<fid_cq>;
using EndpointHandle = FidOwner<fid_ep>;
using MrHandle = FidOwner<fid_mr>;

// fi_getinfo results are freed with fi_freeinfo (through the loader), not fi_close.
class InfoHandle {
 public:
  InfoHandle() = default;
  explicit InfoHandle(fi_info* info) noexcept : info_(info) {}
  ~InfoHandle() { if (info_) ofi::freeinfo(info_); }
  InfoHandle(const InfoHandle&) = delete;
  InfoHandle& operator=(const InfoHandle&) = delete;
  fi_info* get() const noexcept { return info_; }
  fi_info* operator->() const noexcept { return info_; }
  fi_info** out() noexcept { if (info_) ofi::freeinfo(info_); info_ = nullptr; return &info_; }

 private:
  fi_info* info_ = nullptr;
};

}  // namespace fabmpi::pt2pt
