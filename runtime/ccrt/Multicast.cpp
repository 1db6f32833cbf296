#include "runtime/ccrt/Multicast.h"

#include "runtime/ccrt/CudaBuffers.h"
#include "runtime/jit/CudaDriver.h"

#include <algorithm>
#include <mutex>
#include <set>

namespace ccopt::rt {
namespace {

// Every live MulticastBuffers, for find().
std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}
std::vector<const MulticastBuffers*>& registry() {
  static std::vector<const MulticastBuffers*> live;
  return live;
}

CUmemAllocationProp deviceMemory(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, device};
  return prop;
}

}  // namespace

std::unique_ptr<MulticastBuffers> MulticastBuffers::allocate(const std::vector<int>& devices, size_t bytes,
                                                             Status& status) {
  std::string error;
  const CudaDriverApi* d = cudaDriverApi(error);
  if (!d) {
    status = Status::error(Code::NoDevice, error);
    return nullptr;
  }
  if (!d->cuMulticastCreate || !d->cuMemCreate) {
    status = Status::error(Code::NotSupported, "the CUDA driver has no multicast objects (CUDA 12.1 or later)");
    return nullptr;
  }
  if (devices.size() < 2 || std::set<int>(devices.begin(), devices.end()).size() != devices.size()) {
    status = Status::error(Code::InvalidArgument, "multicast buffers need at least 2 distinct devices");
    return nullptr;
  }
  std::vector<std::shared_ptr<CudaContext>> contexts;
  for (int device : devices) {
    auto context = CudaContext::primary(device, error);
    if (!context) {
      status = Status::error(Code::NoDevice, error);
      return nullptr;
    }
    int supported = 0;
    d->cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, context->cuDevice());
    if (!supported) {
      status = Status::error(Code::NotSupported, "device " + std::to_string(device) +
                                                     " has no multicast (NVLS needs Hopper or later on an NVSwitch)");
      return nullptr;
    }
    contexts.push_back(std::move(context));
  }
  std::unique_ptr<MulticastBuffers> m(new MulticastBuffers());
  m->devices_ = devices;
  // Both granularities: the multicast object's and each device's memory's.
  CUmulticastObjectProp object{};
  object.numDevices = unsigned(devices.size());
  object.size = std::max<size_t>(bytes, 1);
  // A driver call: false (its error in `status`) when it failed.
  auto call = [&](CUresult rc, const char* name) {
    status = cudaStatus(*d, rc, name);
    return status.ok();
  };
  size_t granularity = 0, memoryGranularity = 0;
  CUmemAllocationProp first = deviceMemory(contexts.front()->cuDevice());
  if (!call(d->cuMulticastGetGranularity(&granularity, &object, CU_MULTICAST_GRANULARITY_RECOMMENDED),
            "cuMulticastGetGranularity") ||
      !call(d->cuMemGetAllocationGranularity(&memoryGranularity, &first, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
            "cuMemGetAllocationGranularity"))
    return nullptr;
  granularity = std::max(granularity, memoryGranularity);
  m->bytes_ = (object.size + granularity - 1) / granularity * granularity;
  object.size = m->bytes_;
  if (!call(d->cuMulticastCreate(&m->object_, &object), "cuMulticastCreate")) return nullptr;
  m->memory_.assign(devices.size(), 0);
  m->unicast_.assign(devices.size(), 0);
  m->multicast_.assign(devices.size(), 0);
  // Every device joins before any memory is bound.
  for (const auto& context : contexts)
    if (!call(d->cuMulticastAddDevice(m->object_, context->cuDevice()), "cuMulticastAddDevice")) return nullptr;
  std::vector<CUmemAccessDesc> everyone;
  for (const auto& context : contexts)
    everyone.push_back({{CU_MEM_LOCATION_TYPE_DEVICE, context->cuDevice()}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE});
  // `handle` mapped at a new address `va`, for the devices of `access`.
  auto map = [&](unsigned long long handle, unsigned long long& va, const CUmemAccessDesc* access, size_t n) {
    return call(d->cuMemAddressReserve(&va, m->bytes_, granularity, 0, 0), "cuMemAddressReserve") &&
           call(d->cuMemMap(va, m->bytes_, 0, handle, 0), "cuMemMap") &&
           call(d->cuMemSetAccess(va, m->bytes_, access, n), "cuMemSetAccess");
  };
  for (size_t i = 0; i < contexts.size(); ++i) {
    const CudaContext& context = *contexts[i];
    if (!context.makeCurrent(error)) {
      status = Status::error(Code::CudaError, error);
      return nullptr;
    }
    CUmemAllocationProp prop = deviceMemory(context.cuDevice());
    // The buffer, which every device reads and writes (peers' stores), and
    // the multicast address this device reaches the switch at.
    if (!call(d->cuMemCreate(&m->memory_[i], m->bytes_, &prop, 0), "cuMemCreate") ||
        !call(d->cuMulticastBindMem(m->object_, 0, m->memory_[i], 0, m->bytes_, 0), "cuMulticastBindMem") ||
        !map(m->memory_[i], m->unicast_[i], everyone.data(), everyone.size()) ||
        !map(m->object_, m->multicast_[i], &everyone[i], 1))
      return nullptr;
  }
  std::lock_guard<std::mutex> lock(registryMutex());
  registry().push_back(m.get());
  status = Status::success();
  return m;
}

void* MulticastBuffers::data(size_t i) const { return reinterpret_cast<void*>(uintptr_t(unicast_.at(i))); }

MulticastBuffers::~MulticastBuffers() {
  {
    std::lock_guard<std::mutex> lock(registryMutex());
    auto& live = registry();
    live.erase(std::remove(live.begin(), live.end(), this), live.end());
  }
  release();
}

// Undoes what allocate() got to, last first; the first error is kept.
Status MulticastBuffers::release() {
  std::string error;
  const CudaDriverApi* d = cudaDriverApi(error);
  if (!d) return Status::error(Code::NoDevice, error);
  Status first = Status::success();
  auto keep = [&](CUresult rc, const char* call) {
    if (Status s = cudaStatus(*d, rc, call); first.ok() && !s.ok()) first = s;
  };
  for (size_t i = 0; i < memory_.size(); ++i) {
    for (unsigned long long* va : {&multicast_[i], &unicast_[i]})
      if (*va) {
        keep(d->cuMemUnmap(*va, bytes_), "cuMemUnmap");
        keep(d->cuMemAddressFree(*va, bytes_), "cuMemAddressFree");
      }
    if (memory_[i]) {
      CUdevice device = 0;
      keep(d->cuDeviceGet(&device, devices_[i]), "cuDeviceGet");
      keep(d->cuMulticastUnbind(object_, device, 0, bytes_), "cuMulticastUnbind");
      keep(d->cuMemRelease(memory_[i]), "cuMemRelease");
    }
  }
  if (object_) keep(d->cuMemRelease(object_), "cuMemRelease");
  return first;
}

MulticastBuffers::Found MulticastBuffers::find(const void* p, size_t bytes, int device) {
  const auto at = uintptr_t(p);
  std::lock_guard<std::mutex> lock(registryMutex());
  for (const MulticastBuffers* m : registry())
    for (size_t i = 0; i < m->devices_.size(); ++i)
      if (m->devices_[i] == device && at >= m->unicast_[i] && at + bytes <= m->unicast_[i] + m->bytes_) {
        size_t offset = at - m->unicast_[i];
        return {reinterpret_cast<void*>(uintptr_t(m->multicast_[i] + offset)), m, offset};
      }
  return {};
}

}  // namespace ccopt::rt
