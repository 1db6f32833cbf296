#include "runtime/nccl/NcclLibrary.h"

#include <dlfcn.h>

#include <cstdlib>

#ifndef CCOPT_CUDA_ROOT
#define CCOPT_CUDA_ROOT "/usr/local/cuda"
#endif

namespace ccopt::rt {
namespace {

template <class Fn>
void resolve(void* lib, const char* symbol, Fn& fn, std::string& error) {
  fn = reinterpret_cast<Fn>(dlsym(lib, symbol));
  if (!fn && error.empty()) error = std::string("no NCCL: the library lacks ") + symbol;
}

NcclApi load() {
  NcclApi n;
  const char* override = std::getenv("CCOPT_LIBNCCL");
  std::string tried;
  for (std::string name : {std::string(override && *override ? override : ""), std::string("libnccl.so.2"),
                           std::string(CCOPT_CUDA_ROOT "/lib/libnccl.so.2")}) {
    if (name.empty()) continue;
    n.lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (n.lib) break;
    const char* e = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(e ? e : name);
    if (override && *override) break;  // an explicit choice is not second-guessed
  }
  if (!n.lib) {
    n.error = "no NCCL: " + tried;
    return n;
  }
  std::string& e = n.error;
  resolve(n.lib, "ncclGetVersion", n.ncclGetVersion, e);
  resolve(n.lib, "ncclGetErrorString", n.ncclGetErrorString, e);
  resolve(n.lib, "ncclGetUniqueId", n.ncclGetUniqueId, e);
  resolve(n.lib, "ncclCommInitRank", n.ncclCommInitRank, e);
  resolve(n.lib, "ncclCommInitAll", n.ncclCommInitAll, e);
  resolve(n.lib, "ncclCommDestroy", n.ncclCommDestroy, e);
  resolve(n.lib, "ncclCommCount", n.ncclCommCount, e);
  resolve(n.lib, "ncclCommCuDevice", n.ncclCommCuDevice, e);
  resolve(n.lib, "ncclCommUserRank", n.ncclCommUserRank, e);
  resolve(n.lib, "ncclAllReduce", n.ncclAllReduce, e);
  resolve(n.lib, "ncclReduceScatter", n.ncclReduceScatter, e);
  resolve(n.lib, "ncclAllGather", n.ncclAllGather, e);
  resolve(n.lib, "ncclBroadcast", n.ncclBroadcast, e);
  resolve(n.lib, "ncclReduce", n.ncclReduce, e);
  resolve(n.lib, "ncclSend", n.ncclSend, e);
  resolve(n.lib, "ncclRecv", n.ncclRecv, e);
  resolve(n.lib, "ncclGroupStart", n.ncclGroupStart, e);
  resolve(n.lib, "ncclGroupEnd", n.ncclGroupEnd, e);
  if (e.empty() && n.ncclGetVersion(&n.version) != ncclSuccess) e = "no NCCL: ncclGetVersion failed";
  return n;
}

}  // namespace

std::string NcclApi::describe(const char* call, ncclResult_t rc) const {
  const char* text = ncclGetErrorString ? ncclGetErrorString(rc) : nullptr;
  return std::string(call) + ": " + (text ? text : "NCCL error " + std::to_string(rc));
}

const NcclApi* ncclApi(std::string& error) {
  static const NcclApi api = load();  // never unloaded, as if linked
  if (!api.error.empty()) {
    error = api.error;
    return nullptr;
  }
  return &api;
}

ncclDataType_t ncclTypeOf(const std::string& t) {
  if (t == "i8") return 0;
  if (t == "ui8") return 1;
  if (t == "i32") return 2;
  if (t == "ui32") return 3;
  if (t == "i64") return 4;
  if (t == "ui64") return 5;
  if (t == "f16") return 6;
  if (t == "f32") return 7;
  if (t == "f64") return 8;
  if (t == "bf16") return 9;
  return -1;
}

ncclRedOp_t ncclOpOf(const std::string& op) {
  if (op == "sum") return 0;
  if (op == "prod") return 1;
  if (op == "max") return 2;
  if (op == "min") return 3;
  if (op == "avg") return 4;
  return -1;
}

}  // namespace ccopt::rt
