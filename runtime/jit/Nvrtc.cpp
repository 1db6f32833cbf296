#include "runtime/jit/Nvrtc.h"

#include <nvrtc.h>

#include <chrono>

#if !defined(CCOPT_RUNTIME_INCLUDE_DIR) || !defined(CCOPT_CUDA_INCLUDE_DIR)
#error "CCOPT_RUNTIME_INCLUDE_DIR and CCOPT_CUDA_INCLUDE_DIR must be defined"
#endif

namespace ccopt::rt {

std::vector<std::string> nvrtcOptions(int smArch, const std::vector<std::string>& extraOptions) {
  std::vector<std::string> opts = {
      "--gpu-architecture=sm_" + std::to_string(smArch),
      "-std=c++17",
      std::string("-I") + CCOPT_RUNTIME_INCLUDE_DIR,
      std::string("-I") + CCOPT_CUDA_INCLUDE_DIR,
  };
  opts.insert(opts.end(), extraOptions.begin(), extraOptions.end());
  return opts;
}

std::string deviceHeaderPath() { return std::string(CCOPT_RUNTIME_INCLUDE_DIR) + "/ccopt/device.h"; }

NvrtcResult compileWithNvrtc(const std::string& source, const std::string& programName, int smArch,
                             const std::vector<std::string>& extraOptions) {
  const auto start = std::chrono::steady_clock::now();
  NvrtcResult result;
  auto fail = [&](const char* what, nvrtcResult rc) {
    result.ok = false;
    result.log += std::string(what) + ": " + nvrtcGetErrorString(rc) + "\n";
  };
  auto finish = [&]() -> NvrtcResult {
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };

  nvrtcProgram prog = nullptr;
  const std::string name = programName.empty() ? std::string("kernel.cu") : programName;
  if (nvrtcResult rc = nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr);
      rc != NVRTC_SUCCESS) {
    fail("nvrtcCreateProgram", rc);
    return finish();
  }

  const std::vector<std::string> options = nvrtcOptions(smArch, extraOptions);
  std::vector<const char*> opts;
  for (const std::string& o : options) opts.push_back(o.c_str());
  const nvrtcResult compiled = nvrtcCompileProgram(prog, int(opts.size()), opts.data());

  size_t logSize = 0;
  if (nvrtcGetProgramLogSize(prog, &logSize) == NVRTC_SUCCESS && logSize > 1) {
    std::string log(logSize, '\0');
    if (nvrtcGetProgramLog(prog, log.data()) == NVRTC_SUCCESS) {
      log.resize(logSize - 1);  // drop the terminating NUL
      result.log += log;
    }
  }
  if (compiled != NVRTC_SUCCESS) {
    fail("nvrtcCompileProgram", compiled);
  } else {
    size_t size = 0;
    if (nvrtcResult rc = nvrtcGetCUBINSize(prog, &size); rc != NVRTC_SUCCESS) {
      fail("nvrtcGetCUBINSize", rc);
    } else {
      result.cubin.resize(size);
      if (nvrtcResult rc2 = nvrtcGetCUBIN(prog, result.cubin.data()); rc2 != NVRTC_SUCCESS) {
        fail("nvrtcGetCUBIN", rc2);
        result.cubin.clear();
      } else {
        result.ok = size > 0;
        if (!result.ok) result.log += "NVRTC returned an empty CUBIN\n";
      }
    }
  }
  nvrtcDestroyProgram(&prog);
  return finish();
}

std::string nvrtcVersionString() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown (nvrtcVersion failed)";
  return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace ccopt::rt
