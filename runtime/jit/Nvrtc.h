// Run-time compilation of emitted kernel source to a CUBIN with NVRTC. Needs
// no GPU and no driver: only libnvrtc and the toolkit headers.
#pragma once

#include <string>
#include <vector>

namespace ccopt::rt {

struct NvrtcResult {
  bool ok = false;
  std::string log;          // NVRTC's program log (warnings, errors with "name.cu(line)")
  std::vector<char> cubin;  // empty unless ok
  double seconds = 0;       // wall time of the whole compile
};

/// The options compileWithNvrtc passes for sm_<smArch>: the architecture,
/// -std=c++17, the runtime and toolkit include paths, then `extraOptions`.
/// The JIT cache keys on exactly these.
std::vector<std::string> nvrtcOptions(int smArch, const std::vector<std::string>& extraOptions = {});

/// Compiles `source` (which includes "ccopt/device.h") for sm_<smArch>
/// (80, 90, ...) with nvrtcOptions(smArch, extraOptions) (e.g. "-lineinfo",
/// "-DNAME=1" as extras). `programName` names the source in the log.
NvrtcResult compileWithNvrtc(const std::string& source, const std::string& programName, int smArch,
                             const std::vector<std::string>& extraOptions = {});

/// The device header the emitted source includes (read by NVRTC at compile time).
std::string deviceHeaderPath();

/// "major.minor" of the loaded NVRTC, or a message saying why it is unknown.
std::string nvrtcVersionString();

}  // namespace ccopt::rt
