#include "runtime/ccrt/CudaBuffers.h"

#include <cstdint>
#include <cstring>

namespace ccopt::rt {
namespace {

const CudaDriverApi& api() {
  std::string ignored;
  return *cudaDriverApi(ignored);  // only reached after a context exists
}

}  // namespace

Status cudaStatus(const CudaDriverApi& d, CUresult rc, const char* call) {
  if (rc == CUDA_SUCCESS) return Status::success();
  return Status::error(Code::CudaError, d.describe(call, rc));
}

std::unique_ptr<DeviceAllocation> DeviceAllocation::create(std::shared_ptr<CudaContext> context, size_t bytes,
                                                           Status& status) {
  std::string error;
  bytes = bytes ? bytes : 256;  // never a null buffer, even for counts of 0
  void* p = context->alloc(bytes, error);
  if (!p) {
    status = Status::error(Code::CudaError, error);
    return nullptr;
  }
  status = Status::success();
  return std::unique_ptr<DeviceAllocation>(new DeviceAllocation(std::move(context), CUdeviceptr(uintptr_t(p)), bytes));
}

DeviceAllocation::~DeviceAllocation() { context_->free(data()); }

std::unique_ptr<MappedFlags> MappedFlags::create(Status& status) {
  std::string error;
  const CudaDriverApi* d = cudaDriverApi(error);
  if (!d) {
    status = Status::error(Code::NoDevice, error);
    return nullptr;
  }
  void* host = nullptr;
  if (status = cudaStatus(*d, d->cuMemHostAlloc(&host, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
                          "cuMemHostAlloc");
      !status.ok())
    return nullptr;
  std::memset(host, 0, 64);
  CUdeviceptr dev = 0;
  if (status = cudaStatus(*d, d->cuMemHostGetDevicePointer(&dev, host, 0), "cuMemHostGetDevicePointer");
      !status.ok()) {
    d->cuMemFreeHost(host);
    return nullptr;
  }
  return std::unique_ptr<MappedFlags>(
      new MappedFlags(static_cast<int*>(host), reinterpret_cast<int*>(uintptr_t(dev))));
}

MappedFlags::~MappedFlags() { api().cuMemFreeHost(const_cast<int*>(words_)); }

Status checkDevicePointer(const void* data, size_t bytes, int device, const std::string& what) {
  std::string error;
  const CudaDriverApi* d = cudaDriverApi(error);
  if (!d) return Status::error(Code::NoDevice, error);
  if (!bytes) return Status::success();
  const CUdeviceptr p = CUdeviceptr(uintptr_t(data));
  int ordinal = -1;
  if (d->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p) != CUDA_SUCCESS)
    return Status::error(Code::InvalidArgument, what + ": not CUDA device memory");
  if (ordinal != device)
    return Status::error(Code::InvalidArgument, what + ": on device " + std::to_string(ordinal) +
                                                    ", expected device " + std::to_string(device));
  CUdeviceptr base = 0;
  size_t size = 0;
  // Registered or managed host memory has no device allocation range: skip the size check then.
  if (d->cuMemGetAddressRange(&base, &size, p) == CUDA_SUCCESS && base + size - p < bytes)
    return Status::error(Code::InvalidArgument, what + ": too small (" + std::to_string(base + size - p) +
                                                    " bytes to the end of its allocation, needs " +
                                                    std::to_string(bytes) + ")");
  return Status::success();
}

Status exportIpc(const void* data, IpcBuffer& out) {
  out = IpcBuffer{};
  if (!data) return Status::success();
  std::string error;
  const CudaDriverApi* d = cudaDriverApi(error);
  if (!d) return Status::error(Code::NoDevice, error);
  CUdeviceptr base = 0;
  size_t size = 0;
  const CUdeviceptr p = CUdeviceptr(uintptr_t(data));
  if (Status s = cudaStatus(*d, d->cuMemGetAddressRange(&base, &size, p), "cuMemGetAddressRange"); !s.ok()) return s;
  if (Status s = cudaStatus(*d, d->cuIpcGetMemHandle(&out.handle, base), "cuIpcGetMemHandle"); !s.ok()) return s;
  out.offset = p - base;
  return Status::success();
}

Status IpcMappings::open(const IpcBuffer& buffer, void*& data) {
  data = nullptr;
  if (buffer.offset == ~0ULL) return Status::success();
  for (const Mapping& m : mappings_)
    if (std::memcmp(&m.handle, &buffer.handle, sizeof m.handle) == 0) {
      data = reinterpret_cast<void*>(uintptr_t(m.base + buffer.offset));
      return Status::success();
    }
  std::string error;
  if (!context_->makeCurrent(error)) return Status::error(Code::CudaError, error);
  const CudaDriverApi& d = api();
  CUdeviceptr base = 0;
  if (Status s = cudaStatus(d, d.cuIpcOpenMemHandle(&base, buffer.handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                            "cuIpcOpenMemHandle");
      !s.ok())
    return s;
  mappings_.push_back({buffer.handle, base});
  data = reinterpret_cast<void*>(uintptr_t(base + buffer.offset));
  return Status::success();
}

IpcMappings::~IpcMappings() {
  std::string ignored;
  if (mappings_.empty() || !context_->makeCurrent(ignored)) return;
  for (const Mapping& m : mappings_) api().cuIpcCloseMemHandle(m.base);
}

}  // namespace ccopt::rt
