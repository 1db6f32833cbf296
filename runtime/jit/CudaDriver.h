// Loading and launching CUBINs through the CUDA driver API, resolved at run
// time: libcuda.so.1 is dlopen'ed on first use, never linked, so the runtime
// builds and loads on machines without a GPU or driver and reports "no CUDA
// device: <why>" there instead of failing to start.
//
// Kernels run in the device's primary context, the one the CUDA runtime (and
// so PyTorch and NCCL) uses, so a caller's cudaStream_t can be passed as the
// launch stream.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

struct cc_args;  // ccopt/device.h

namespace ccopt::rt {

struct DeviceStatus {
  bool available = false;
  std::string reason;  // "no CUDA device: <why>" when !available
  int count = 0;       // devices the driver reports
};

/// Loads the driver (once per process: $CCOPT_LIBCUDA, else libcuda.so.1),
/// calls cuInit and counts devices. Never throws or aborts.
DeviceStatus probeCudaDevices();

/// The same probe against the driver library at `path`, apart from the
/// process-wide driver (diagnostics, tests). A library that fails is unloaded
/// again; one that initialises stays loaded.
DeviceStatus probeCudaDriverLibrary(const std::string& path);

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// The primary context of one device, retained while the object lives.
class CudaContext {
public:
  /// Null with `error` ("no CUDA device: ..." without a usable driver).
  static std::shared_ptr<CudaContext> primary(int device, std::string& error);
  ~CudaContext();
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

  int device() const { return device_; }
  /// The CUdevice and CUcontext, for driver calls the class does not wrap.
  int cuDevice() const { return cuDevice_; }
  void* handle() const { return context_; }
  /// 10 * major + minor compute capability: NVRTC's sm_<smArch>.
  int smArch() const { return smArch_; }

  /// Makes this context current on the calling thread (a no-op when it is).
  bool makeCurrent(std::string& error) const;

  // Plain device memory, for argument blocks and tests.
  void* alloc(size_t bytes, std::string& error) const;
  void free(void* devicePtr) const;
  bool copyToDevice(void* devicePtr, const void* hostPtr, size_t bytes, std::string& error) const;
  bool copyToHost(void* hostPtr, const void* devicePtr, size_t bytes, std::string& error) const;
  /// Enqueues a copy between device buffers (any devices, through unified
  /// addressing) on `stream` (a CUstream of this context; null: the legacy
  /// default stream). Does not wait, and may be captured in a CUDA graph.
  bool copyAsync(void* dst, const void* src, size_t bytes, void* stream, std::string& error) const;
  /// Waits for all work in the context.
  bool synchronize(std::string& error) const;

private:
  CudaContext(int device, int cuDevice, void* context, int smArch)
      : device_(device), cuDevice_(cuDevice), context_(context), smArch_(smArch) {}
  friend class CudaModule;

  int device_;
  int cuDevice_;   // CUdevice
  void* context_;  // CUcontext
  int smArch_;
};

/// A CUBIN loaded into a context.
class CudaModule {
public:
  /// Null with `error` when the driver rejects the image (wrong architecture,
  /// corrupted CUBIN, ...).
  static std::unique_ptr<CudaModule> load(std::shared_ptr<CudaContext> context, const std::vector<char>& cubin,
                                          std::string& error);
  ~CudaModule();
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;

  /// The CUfunction of the extern "C" kernel `name`, or null with `error`.
  void* function(const std::string& name, std::string& error) const;

  /// Enqueues `function`, a CC_KERNEL whose only parameter is `args` (a
  /// device pointer to a cc_args), on `stream` (a CUstream/cudaStream_t of
  /// this context; null: the legacy default stream). Does not wait.
  bool launch(void* function, Dim3 grid, Dim3 block, size_t sharedBytes, void* stream, const cc_args* args,
              std::string& error) const;

  const std::shared_ptr<CudaContext>& context() const { return context_; }

private:
  CudaModule(std::shared_ptr<CudaContext> context, void* module) : context_(std::move(context)), module_(module) {}

  std::shared_ptr<CudaContext> context_;  // outlives the module
  void* module_;                          // CUmodule
};

}  // namespace ccopt::rt
