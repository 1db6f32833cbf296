// Device memory for libccrt's CUDA backends: owned allocations, the mapped
// host words a kernel reports errors in, questions about caller pointers
// (which device, how much room), and CUDA IPC handles for NCCL worlds.
#pragma once

#include "runtime/ccrt/Status.h"
#include "runtime/jit/CudaDriver.h"
#include "runtime/jit/CudaDriverApi.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ccopt::rt {

/// `rc` as a Status (CudaError naming the call), Ok on CUDA_SUCCESS.
Status cudaStatus(const CudaDriverApi& d, CUresult rc, const char* call);

/// cuMemAlloc'ed memory of one context, freed with it.
class DeviceAllocation {
public:
  static std::unique_ptr<DeviceAllocation> create(std::shared_ptr<CudaContext> context, size_t bytes,
                                                  Status& status);
  ~DeviceAllocation();
  void* data() const { return reinterpret_cast<void*>(uintptr_t(ptr_)); }
  size_t bytes() const { return bytes_; }
  const std::shared_ptr<CudaContext>& context() const { return context_; }

private:
  DeviceAllocation(std::shared_ptr<CudaContext> c, CUdeviceptr p, size_t b)
      : context_(std::move(c)), ptr_(p), bytes_(b) {}
  std::shared_ptr<CudaContext> context_;
  CUdeviceptr ptr_;
  size_t bytes_;
};

/// The abort flag and error word: pinned host memory mapped into every
/// device, so the host reads a running kernel's error and raises the flag
/// without synchronising.
class MappedFlags {
public:
  static std::unique_ptr<MappedFlags> create(Status& status);
  ~MappedFlags();
  volatile int* abortHost() const { return words_; }
  volatile int* errorHost() const { return words_ + 1; }
  /// The device-side addresses (UVA: the same in every context).
  int* abortDevice() const { return device_; }
  int* errorDevice() const { return device_ + 1; }

private:
  MappedFlags(int* host, int* device) : words_(host), device_(device) {}
  volatile int* words_;
  int* device_;
};

/// Checks that `data` is device memory of `device` with at least `bytes`
/// from `data` to the end of its allocation. `what` names it in messages.
Status checkDevicePointer(const void* data, size_t bytes, int device, const std::string& what);

/// A buffer as another process opens it: the IPC handle of its allocation
/// and its offset there.
struct IpcBuffer {
  CUipcMemHandle handle{};
  unsigned long long offset = ~0ULL;  // ~0: no buffer (a count of 0)
};
Status exportIpc(const void* data, IpcBuffer& out);

/// Peer buffers opened through IPC, closed on destruction; the same
/// allocation opened twice is mapped once.
class IpcMappings {
public:
  explicit IpcMappings(std::shared_ptr<CudaContext> context) : context_(std::move(context)) {}
  ~IpcMappings();
  Status open(const IpcBuffer& buffer, void*& data);

private:
  std::shared_ptr<CudaContext> context_;
  struct Mapping {
    CUipcMemHandle handle;
    CUdeviceptr base;
  };
  std::vector<Mapping> mappings_;
};

}  // namespace ccopt::rt
