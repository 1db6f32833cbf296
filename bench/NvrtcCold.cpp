// Cold NVRTC of emitted kernel files: `bench-nvrtc-cold [--sm 90] FILE.cu...`
// prints, per file, its lines and the seconds NVRTC takes to compile it
// (no cache), as a trainer's first step pays them. A benchmark, not a
// test; bench/kernel-size drives it over a grid of points.
#include "runtime/ccrt/CudaRunner.h"
#include "runtime/jit/Nvrtc.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  int sm = 90, failures = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--sm" && i + 1 < argc) {
      sm = std::atoi(argv[++i]);
      continue;
    }
    ccopt::rt::KernelLibrary lib;
    ccopt::rt::Status status = ccopt::rt::loadKernelLibrary(arg, lib);
    if (!status.ok()) {
      std::fprintf(stderr, "%s: %s\n", arg.c_str(), status.message.c_str());
      ++failures;
      continue;
    }
    const std::string source = ccopt::rt::cudaProgramSource(lib);
    ccopt::rt::NvrtcResult result = ccopt::rt::compileWithNvrtc(source, "ccopt_kernels.cu", sm);
    if (!result.ok) {
      std::fprintf(stderr, "%s: NVRTC failed\n%s\n", arg.c_str(), result.log.c_str());
      ++failures;
      continue;
    }
    std::printf("%s lines=%ld nvrtc_s=%.2f\n", arg.c_str(),
                static_cast<long>(std::count(source.begin(), source.end(), '\n')), result.seconds);
    std::fflush(stdout);
  }
  return failures ? 1 : 0;
}
