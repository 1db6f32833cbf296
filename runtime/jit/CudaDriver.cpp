#include "runtime/jit/CudaDriver.h"
#include "runtime/jit/CudaDriverApi.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>

namespace ccopt::rt {
namespace {

// The codes that explain a missing device, named when the driver cannot name them.
const char* knownErrorName(CUresult rc) {
  switch (rc) {
    case 3: return "CUDA_ERROR_NOT_INITIALIZED";
    case 34: return "CUDA_ERROR_STUB_LIBRARY";
    case 36: return "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER";
    case 46: return "CUDA_ERROR_DEVICE_UNAVAILABLE";
    case 100: return "CUDA_ERROR_NO_DEVICE";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 209: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case 999: return "CUDA_ERROR_UNKNOWN";
    default: return nullptr;
  }
}

using Driver = CudaDriverApi;

template <class Fn>
bool resolve(void* lib, const char* symbol, Fn& fn, std::string& error) {
  fn = reinterpret_cast<Fn>(dlsym(lib, symbol));
  if (!fn && error.empty()) error = std::string("the driver lacks ") + symbol;
  return fn != nullptr;
}

Driver loadDriver(const std::string& libName) {
  Driver d;
  void* lib = dlopen(libName.c_str(), RTLD_NOW | RTLD_LOCAL);
  d.lib = lib;
  if (!lib) {
    // dlerror() names the file itself: "libcuda.so.1: cannot open shared object file: ...".
    const char* dl = dlerror();
    std::string why = dl ? dl : "unknown dlopen error";
    if (why.rfind(libName + ": ", 0) == 0) why.erase(0, libName.size() + 2);
    d.error = "cannot load " + libName + ": " + why;
    return d;
  }
  std::string& e = d.error;
  resolve(lib, "cuInit", d.cuInit, e);
  resolve(lib, "cuGetErrorName", d.cuGetErrorName, e);
  resolve(lib, "cuGetErrorString", d.cuGetErrorString, e);
  resolve(lib, "cuDeviceGetCount", d.cuDeviceGetCount, e);
  resolve(lib, "cuDeviceGet", d.cuDeviceGet, e);
  resolve(lib, "cuDeviceGetAttribute", d.cuDeviceGetAttribute, e);
  resolve(lib, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain, e);
  resolve(lib, "cuDevicePrimaryCtxRelease_v2", d.cuDevicePrimaryCtxRelease, e);
  resolve(lib, "cuCtxGetCurrent", d.cuCtxGetCurrent, e);
  resolve(lib, "cuCtxSetCurrent", d.cuCtxSetCurrent, e);
  resolve(lib, "cuCtxSynchronize", d.cuCtxSynchronize, e);
  resolve(lib, "cuModuleLoadData", d.cuModuleLoadData, e);
  resolve(lib, "cuModuleUnload", d.cuModuleUnload, e);
  resolve(lib, "cuModuleGetFunction", d.cuModuleGetFunction, e);
  resolve(lib, "cuLaunchKernel", d.cuLaunchKernel, e);
  resolve(lib, "cuMemAlloc_v2", d.cuMemAlloc, e);
  resolve(lib, "cuMemFree_v2", d.cuMemFree, e);
  resolve(lib, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD, e);
  resolve(lib, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH, e);
  resolve(lib, "cuDeviceCanAccessPeer", d.cuDeviceCanAccessPeer, e);
  resolve(lib, "cuCtxEnablePeerAccess", d.cuCtxEnablePeerAccess, e);
  resolve(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor", d.cuOccupancyMaxActiveBlocksPerMultiprocessor, e);
  resolve(lib, "cuMemHostAlloc", d.cuMemHostAlloc, e);
  resolve(lib, "cuMemHostGetDevicePointer_v2", d.cuMemHostGetDevicePointer, e);
  resolve(lib, "cuMemFreeHost", d.cuMemFreeHost, e);
  resolve(lib, "cuMemcpyHtoDAsync_v2", d.cuMemcpyHtoDAsync, e);
  resolve(lib, "cuMemcpyDtoHAsync_v2", d.cuMemcpyDtoHAsync, e);
  resolve(lib, "cuMemcpyDtoDAsync_v2", d.cuMemcpyDtoDAsync, e);
  resolve(lib, "cuMemsetD8_v2", d.cuMemsetD8, e);
  resolve(lib, "cuMemsetD8Async", d.cuMemsetD8Async, e);
  resolve(lib, "cuMemGetAddressRange_v2", d.cuMemGetAddressRange, e);
  resolve(lib, "cuPointerGetAttribute", d.cuPointerGetAttribute, e);
  resolve(lib, "cuIpcGetMemHandle", d.cuIpcGetMemHandle, e);
  resolve(lib, "cuIpcOpenMemHandle_v2", d.cuIpcOpenMemHandle, e);
  resolve(lib, "cuIpcCloseMemHandle", d.cuIpcCloseMemHandle, e);
  resolve(lib, "cuStreamCreate", d.cuStreamCreate, e);
  resolve(lib, "cuStreamDestroy_v2", d.cuStreamDestroy, e);
  resolve(lib, "cuStreamSynchronize", d.cuStreamSynchronize, e);
  resolve(lib, "cuEventCreate", d.cuEventCreate, e);
  resolve(lib, "cuEventDestroy_v2", d.cuEventDestroy, e);
  resolve(lib, "cuEventRecord", d.cuEventRecord, e);
  resolve(lib, "cuEventSynchronize", d.cuEventSynchronize, e);
  // CUDA 13 renamed it; older drivers have only the first version.
  if (!dlsym(lib, "cuEventElapsedTime_v2")) resolve(lib, "cuEventElapsedTime", d.cuEventElapsedTime, e);
  else resolve(lib, "cuEventElapsedTime_v2", d.cuEventElapsedTime, e);
  resolve(lib, "cuStreamBeginCapture_v2", d.cuStreamBeginCapture, e);
  resolve(lib, "cuStreamEndCapture", d.cuStreamEndCapture, e);
  resolve(lib, "cuGraphInstantiateWithFlags", d.cuGraphInstantiateWithFlags, e);
  resolve(lib, "cuGraphLaunch", d.cuGraphLaunch, e);
  resolve(lib, "cuGraphExecDestroy", d.cuGraphExecDestroy, e);
  resolve(lib, "cuGraphDestroy", d.cuGraphDestroy, e);
  std::string optional;  // multicast: a driver without it runs everything else
  resolve(lib, "cuMemCreate", d.cuMemCreate, optional);
  resolve(lib, "cuMemRelease", d.cuMemRelease, optional);
  resolve(lib, "cuMemGetAllocationGranularity", d.cuMemGetAllocationGranularity, optional);
  resolve(lib, "cuMemAddressReserve", d.cuMemAddressReserve, optional);
  resolve(lib, "cuMemAddressFree", d.cuMemAddressFree, optional);
  resolve(lib, "cuMemMap", d.cuMemMap, optional);
  resolve(lib, "cuMemUnmap", d.cuMemUnmap, optional);
  resolve(lib, "cuMemSetAccess", d.cuMemSetAccess, optional);
  resolve(lib, "cuMulticastCreate", d.cuMulticastCreate, optional);
  resolve(lib, "cuMulticastAddDevice", d.cuMulticastAddDevice, optional);
  resolve(lib, "cuMulticastBindMem", d.cuMulticastBindMem, optional);
  resolve(lib, "cuMulticastUnbind", d.cuMulticastUnbind, optional);
  resolve(lib, "cuMulticastGetGranularity", d.cuMulticastGetGranularity, optional);
  if (!e.empty()) return d;
  d.initResult = d.cuInit(0);
  if (d.initResult != CUDA_SUCCESS) d.error = d.describe("cuInit", d.initResult);
  return d;
}

// Loaded on first use and never dlclose'd, as if linked; C++ makes the
// initialisation thread-safe.
const Driver& driver() {
  static const Driver d = [] {
    const char* override = std::getenv("CCOPT_LIBCUDA");
    return loadDriver(override && *override ? override : "libcuda.so.1");
  }();
  return d;
}

std::string noDevice(const std::string& why) { return "no CUDA device: " + why; }

DeviceStatus probe(const Driver& d) {
  DeviceStatus status;
  if (!d.error.empty()) {
    status.reason = noDevice(d.error);
    return status;
  }
  if (CUresult rc = d.cuDeviceGetCount(&status.count); rc != CUDA_SUCCESS) {
    status.count = 0;
    status.reason = noDevice(d.describe("cuDeviceGetCount", rc));
    return status;
  }
  if (status.count <= 0) {
    status.reason = noDevice("the driver reports no devices");
    return status;
  }
  status.available = true;
  return status;
}

}  // namespace

std::string CudaDriverApi::describe(const char* call, CUresult rc) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName) cuGetErrorName(rc, &name);
  if (cuGetErrorString) cuGetErrorString(rc, &text);
  if (!name) name = knownErrorName(rc);  // the link stub, for one, names nothing
  std::string s = std::string(call) + ": " + (name ? name : "CUDA error " + std::to_string(rc));
  if (text) s += std::string(" (") + text + ")";
  return s;
}

const CudaDriverApi* cudaDriverApi(std::string& error) {
  const DeviceStatus status = probeCudaDevices();
  if (!status.available) {
    error = status.reason;
    return nullptr;
  }
  return &driver();
}

DeviceStatus probeCudaDevices() { return probe(driver()); }

DeviceStatus probeCudaDriverLibrary(const std::string& path) {
  const Driver d = loadDriver(path);
  DeviceStatus status = probe(d);
  // Unload a library that failed (it must not answer a later dlopen of
  // libcuda.so.1 by soname); an initialised driver stays: unloading one is unsafe.
  if (d.lib && !d.error.empty()) dlclose(d.lib);
  return status;
}

// ---------------------------------------------------------------------------
// CudaContext
// ---------------------------------------------------------------------------

std::shared_ptr<CudaContext> CudaContext::primary(int device, std::string& error) {
  error.clear();
  const DeviceStatus status = probeCudaDevices();
  if (!status.available) {
    error = status.reason;
    return nullptr;
  }
  if (device < 0 || device >= status.count) {
    error = "CUDA device " + std::to_string(device) + " does not exist (" + std::to_string(status.count) +
            " device" + (status.count == 1 ? "" : "s") + ")";
    return nullptr;
  }
  const Driver& d = driver();
  CUdevice dev = 0;
  if (CUresult rc = d.cuDeviceGet(&dev, device); rc != CUDA_SUCCESS) {
    error = d.describe("cuDeviceGet", rc);
    return nullptr;
  }
  int major = 0, minor = 0;
  CUresult rc = d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  if (rc == CUDA_SUCCESS) rc = d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  if (rc != CUDA_SUCCESS) {
    error = d.describe("cuDeviceGetAttribute(compute capability)", rc);
    return nullptr;
  }
  CUcontext ctx = nullptr;
  if (CUresult rc2 = d.cuDevicePrimaryCtxRetain(&ctx, dev); rc2 != CUDA_SUCCESS) {
    error = d.describe("cuDevicePrimaryCtxRetain", rc2);
    return nullptr;
  }
  return std::shared_ptr<CudaContext>(new CudaContext(device, dev, ctx, 10 * major + minor));
}

CudaContext::~CudaContext() { driver().cuDevicePrimaryCtxRelease(cuDevice_); }

bool CudaContext::makeCurrent(std::string& error) const {
  const Driver& d = driver();
  CUcontext current = nullptr;
  if (d.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context_) return true;
  if (CUresult rc = d.cuCtxSetCurrent(context_); rc != CUDA_SUCCESS) {
    error = d.describe("cuCtxSetCurrent", rc);
    return false;
  }
  return true;
}

void* CudaContext::alloc(size_t bytes, std::string& error) const {
  if (!makeCurrent(error)) return nullptr;
  CUdeviceptr p = 0;
  if (CUresult rc = driver().cuMemAlloc(&p, bytes); rc != CUDA_SUCCESS) {
    error = driver().describe("cuMemAlloc", rc);
    return nullptr;
  }
  return reinterpret_cast<void*>(uintptr_t(p));
}

void CudaContext::free(void* devicePtr) const {
  std::string ignored;
  if (devicePtr && makeCurrent(ignored)) driver().cuMemFree(CUdeviceptr(uintptr_t(devicePtr)));
}

bool CudaContext::copyToDevice(void* devicePtr, const void* hostPtr, size_t bytes, std::string& error) const {
  if (!makeCurrent(error)) return false;
  if (CUresult rc = driver().cuMemcpyHtoD(CUdeviceptr(uintptr_t(devicePtr)), hostPtr, bytes); rc != CUDA_SUCCESS) {
    error = driver().describe("cuMemcpyHtoD", rc);
    return false;
  }
  return true;
}

bool CudaContext::copyToHost(void* hostPtr, const void* devicePtr, size_t bytes, std::string& error) const {
  if (!makeCurrent(error)) return false;
  if (CUresult rc = driver().cuMemcpyDtoH(hostPtr, CUdeviceptr(uintptr_t(devicePtr)), bytes); rc != CUDA_SUCCESS) {
    error = driver().describe("cuMemcpyDtoH", rc);
    return false;
  }
  return true;
}

bool CudaContext::copyAsync(void* dst, const void* src, size_t bytes, void* stream, std::string& error) const {
  if (!makeCurrent(error)) return false;
  if (CUresult rc = driver().cuMemcpyDtoDAsync(CUdeviceptr(uintptr_t(dst)), CUdeviceptr(uintptr_t(src)), bytes, stream);
      rc != CUDA_SUCCESS) {
    error = driver().describe("cuMemcpyDtoDAsync", rc);
    return false;
  }
  return true;
}

bool CudaContext::synchronize(std::string& error) const {
  if (!makeCurrent(error)) return false;
  if (CUresult rc = driver().cuCtxSynchronize(); rc != CUDA_SUCCESS) {
    error = driver().describe("cuCtxSynchronize", rc);
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// CudaModule
// ---------------------------------------------------------------------------

std::unique_ptr<CudaModule> CudaModule::load(std::shared_ptr<CudaContext> context, const std::vector<char>& cubin,
                                             std::string& error) {
  error.clear();
  if (!context) {
    error = "CudaModule::load: no context";
    return nullptr;
  }
  if (cubin.empty()) {
    error = "CudaModule::load: empty CUBIN";
    return nullptr;
  }
  if (!context->makeCurrent(error)) return nullptr;
  CUmodule module = nullptr;
  if (CUresult rc = driver().cuModuleLoadData(&module, cubin.data()); rc != CUDA_SUCCESS) {
    error = driver().describe("cuModuleLoadData", rc);
    return nullptr;
  }
  return std::unique_ptr<CudaModule>(new CudaModule(std::move(context), module));
}

CudaModule::~CudaModule() {
  std::string ignored;
  if (context_->makeCurrent(ignored)) driver().cuModuleUnload(module_);
}

void* CudaModule::function(const std::string& name, std::string& error) const {
  CUfunction fn = nullptr;
  if (CUresult rc = driver().cuModuleGetFunction(&fn, module_, name.c_str()); rc != CUDA_SUCCESS) {
    error = driver().describe(("cuModuleGetFunction(" + name + ")").c_str(), rc);
    return nullptr;
  }
  return fn;
}

bool CudaModule::launch(void* function, Dim3 grid, Dim3 block, size_t sharedBytes, void* stream, const cc_args* args,
                        std::string& error) const {
  if (!function) {
    error = "CudaModule::launch: null function";
    return false;
  }
  if (!context_->makeCurrent(error)) return false;
  // The kernel parameter is the pointer itself; cuLaunchKernel wants the address of each parameter.
  void* params[] = {&args};
  if (CUresult rc = driver().cuLaunchKernel(function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                            unsigned(sharedBytes), stream, params, nullptr);
      rc != CUDA_SUCCESS) {
    error = driver().describe("cuLaunchKernel", rc);
    return false;
  }
  return true;
}

}  // namespace ccopt::rt
