// NCCL, resolved at run time with dlopen like the CUDA driver: the runtime
// builds without nccl.h and starts on machines without NCCL, and says so
// when a caller asks for it. Types are declared with nccl.h's layout.
#pragma once

#include <cstddef>
#include <string>

namespace ccopt::rt {

using ncclResult_t = int;
using ncclComm_t = void*;
using ncclDataType_t = int;  // ncclInt8 = 0 ... ncclBfloat16 = 9
using ncclRedOp_t = int;     // ncclSum = 0, ncclProd, ncclMax, ncclMin, ncclAvg
struct ncclUniqueId {
  char internal[128];
};
constexpr ncclResult_t ncclSuccess = 0;

struct NcclApi {
  void* lib = nullptr;
  std::string error;  // why NCCL is unusable; empty when usable
  int version = 0;    // ncclGetVersion: e.g. 22805 for 2.28.5

  ncclResult_t (*ncclGetVersion)(int*) = nullptr;
  const char* (*ncclGetErrorString)(ncclResult_t) = nullptr;
  ncclResult_t (*ncclGetUniqueId)(ncclUniqueId*) = nullptr;
  ncclResult_t (*ncclCommInitRank)(ncclComm_t*, int, ncclUniqueId, int) = nullptr;
  ncclResult_t (*ncclCommInitAll)(ncclComm_t*, int, const int*) = nullptr;
  ncclResult_t (*ncclCommDestroy)(ncclComm_t) = nullptr;
  ncclResult_t (*ncclCommCount)(ncclComm_t, int*) = nullptr;
  ncclResult_t (*ncclCommCuDevice)(ncclComm_t, int*) = nullptr;
  ncclResult_t (*ncclCommUserRank)(ncclComm_t, int*) = nullptr;
  ncclResult_t (*ncclAllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, void*) = nullptr;
  ncclResult_t (*ncclReduceScatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                    void*) = nullptr;
  ncclResult_t (*ncclAllGather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, void*) = nullptr;
  ncclResult_t (*ncclBroadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, void*) = nullptr;
  ncclResult_t (*ncclReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t,
                             void*) = nullptr;
  ncclResult_t (*ncclSend)(const void*, size_t, ncclDataType_t, int, ncclComm_t, void*) = nullptr;
  ncclResult_t (*ncclRecv)(void*, size_t, ncclDataType_t, int, ncclComm_t, void*) = nullptr;
  ncclResult_t (*ncclGroupStart)() = nullptr;
  ncclResult_t (*ncclGroupEnd)() = nullptr;

  /// "ncclFoo: <NCCL's message>".
  std::string describe(const char* call, ncclResult_t rc) const;
};

/// NCCL, loaded once per process: $CCOPT_LIBNCCL, else libnccl.so.2 on the
/// loader path, else the toolkit's lib/libnccl.so.2. Null with `error`
/// ("no NCCL: ...") when it cannot be loaded.
const NcclApi* ncclApi(std::string& error);

/// NCCL's data type for an MLIR element type name (f32, bf16, ...), or -1.
ncclDataType_t ncclTypeOf(const std::string& dtype);
/// NCCL's reduction for sum/prod/min/max/avg, or -1.
ncclRedOp_t ncclOpOf(const std::string& redop);

}  // namespace ccopt::rt
