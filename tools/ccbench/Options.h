// ccbench's command line, nccl-tests style.
#pragma once

#include "runtime/ccrt/Schedule.h"

#include <cstdint>
#include <string>

namespace ccopt::bench {

struct Options {
  int64_t minBytes = 1 << 10, maxBytes = 64 << 20;
  int64_t stepFactor = 4;       // -f
  std::string collective = "all_reduce";
  std::string redop = "sum";    // -o
  rt::DType type = rt::DType::F32;
  bool check = true;            // -c
  int iters = 20, warmup = 5;   // -n, -w
  int ranks = 8;                // -g: ranks (GPUs with --devices, else virtual ranks or host threads)
  bool host = false;            // --host: the CPU backend
  bool devices = false;         // --devices: one GPU per rank (else virtual ranks on GPU 0)
  bool nccl = true;             // NCCL side by side (GPUs only)
  std::string kernelsDir;       // --kernels
  std::string ccopt;            // --ccopt BIN: emit missing kernels on the fly
  std::string topo;             // --topo, for --ccopt
  double timeoutSeconds = 30;
  int jitJobs = 8;              // -j: NVRTC compiles at once before a GPU sweep
};

/// Parses argv; false with `error` set (or with an empty error after --help,
/// the usage printed).
bool parseOptions(int argc, char** argv, Options& options, std::string& error);

/// "1K" -> 1024, "64M", "1G", plain bytes; -1 when malformed.
int64_t parseSize(const std::string& text);

}  // namespace ccopt::bench
