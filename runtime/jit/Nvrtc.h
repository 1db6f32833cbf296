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

/// Compiles `source` (which includes "ccopt/device.h") for sm_<smArch>
/// (80, 90, ...) with -std=c++17. `programName` names the source in the log.
NvrtcResult compileWithNvrtc(const std::string& source, const std::string& programName, int smArch);

/// "major.minor" of the loaded NVRTC, or a message saying why it is unknown.
std::string nvrtcVersionString();

}  // namespace ccopt::rt
