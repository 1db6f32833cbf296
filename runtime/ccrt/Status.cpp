#include "runtime/ccrt/Status.h"

#include "ccopt/device.h"

namespace ccopt::rt {

const char* codeName(Code code) {
  switch (code) {
    case Code::Ok: return "ok";
    case Code::InvalidArgument: return "invalid argument";
    case Code::InvalidUsage: return "invalid usage";
    case Code::NoDevice: return "no device";
    case Code::CudaError: return "CUDA error";
    case Code::NcclError: return "NCCL error";
    case Code::CompileError: return "compile error";
    case Code::Timeout: return "timeout";
    case Code::Aborted: return "aborted";
    case Code::NotSupported: return "not supported";
    case Code::Internal: return "internal error";
  }
  return "unknown error";
}

Status kernelStatus(int errorWord, const std::string& what) {
  switch (errorWord) {
    case CC_OK: return Status::success();
    case CC_ERR_TIMEOUT:
      return Status::error(Code::Timeout, what + ": a wait timed out (a peer never sent; the collective is "
                                                 "stuck); reset() before the next launch");
    case CC_ERR_ABORTED:
      return Status::error(Code::Aborted, what + ": aborted; reset() before the next launch");
    default:
      return Status::error(Code::Internal, what + ": unknown kernel error " + std::to_string(errorWord));
  }
}

}  // namespace ccopt::rt
