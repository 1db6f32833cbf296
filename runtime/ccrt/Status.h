// Error codes and messages of libccrt: every call that can fail returns a
// Status; nothing throws across the API and nothing aborts the process.
#pragma once

#include <string>

namespace ccopt::rt {

/// Stable numbers: the C API (ccopt/ccopt.h) returns them as ints.
enum class Code : int {
  Ok = 0,
  InvalidArgument = 1,  // a buffer, count, type, rank or option the program cannot take
  InvalidUsage = 2,     // the right arguments at the wrong time (e.g. launch after an error)
  NoDevice = 3,         // no CUDA driver or device, or no NCCL library
  CudaError = 4,
  NcclError = 5,
  CompileError = 6,     // ccl/MLIR, NVRTC or host compiler errors
  Timeout = 7,          // a kernel's spin-wait gave up (CC_ERR_TIMEOUT)
  Aborted = 8,          // the abort flag was raised (CC_ERR_ABORTED)
  NotSupported = 9,
  Internal = 10,
};

const char* codeName(Code code);

struct Status {
  Code code = Code::Ok;
  std::string message;

  bool ok() const { return code == Code::Ok; }
  static Status success() { return {}; }
  static Status error(Code code, std::string message) { return {code, std::move(message)}; }
};

/// The Status of a kernel error word (CC_OK, CC_ERR_TIMEOUT, CC_ERR_ABORTED).
Status kernelStatus(int errorWord, const std::string& what);

}  // namespace ccopt::rt
