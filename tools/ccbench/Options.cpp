#include "tools/ccbench/Options.h"

#include <cstdio>
#include <cstdlib>

namespace ccopt::bench {
namespace {

const char* kUsage = R"(usage: ccbench [options]
  -b, --minbytes SIZE    smallest size (bytes of the larger buffer; K, M, G suffixes) [1K]
  -e, --maxbytes SIZE    largest size [64M]
  -f, --stepfactor N     multiply the size by N each step [4]
  -t, --collective NAME  all_reduce | reduce_scatter | all_gather | broadcast [all_reduce]
  -o, --op OP            sum | prod | min | max | avg [sum]
  -d, --datatype TYPE    f32 f64 f16 bf16 i32 i64 i8 ui32 ui64 ui8 (or float, half, int, ...) [f32]
  -c, --check 0|1        verify every element against the exactly known result [1]
  -n, --iters N          timed iterations [20]
  -w, --warmup_iters N   untimed iterations first [5]
  -g, --ranks N          ranks [8]
      --host             run on the CPU (host backend: one thread per rank and channel)
      --devices          one GPU per rank, peer access (default on a GPU: virtual ranks on GPU 0)
      --no-nccl          skip the NCCL columns
      --kernels DIR      emitted kernel files (scripts/emit-kernels) [the committed test/gpu/kernels]
      --ccopt BIN        emit kernels missing from DIR with this ccopt (--topo NAME for its machine)
      --timeout SEC      a stuck collective fails after SEC seconds [30]
  -j, --jit-jobs N       NVRTC compiles at once before a GPU sweep [8]
Exit status: 0 when every element of every checked result is right, 1 otherwise, 2 on bad usage.
)";

bool parseInt(const std::string& s, int64_t lo, int64_t& out) {
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end || v < lo) return false;
  out = v;
  return true;
}

bool parseTypeAlias(std::string name, rt::DType& type) {
  static const char* aliases[][2] = {{"float", "f32"}, {"double", "f64"}, {"half", "f16"}, {"bfloat16", "bf16"},
                                     {"int", "i32"},   {"int32", "i32"},  {"int64", "i64"}, {"int8", "i8"},
                                     {"uint32", "ui32"}, {"uint64", "ui64"}, {"uint8", "ui8"}, {"float32", "f32"}};
  for (auto& a : aliases)
    if (name == a[0]) name = a[1];
  return rt::parseDType(name, type);
}

}  // namespace

int64_t parseSize(const std::string& text) {
  if (text.empty()) return -1;
  int64_t mult = 1;
  std::string digits = text;
  switch (text.back()) {
    case 'K': case 'k': mult = 1LL << 10; break;
    case 'M': case 'm': mult = 1LL << 20; break;
    case 'G': case 'g': mult = 1LL << 30; break;
    default: break;
  }
  if (mult != 1) digits.pop_back();
  int64_t v = 0;
  if (!parseInt(digits, 1, v)) return -1;
  return v * mult;
}

bool parseOptions(int argc, char** argv, Options& o, std::string& error) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) {
        error = a + " needs a value";
        return false;
      }
      out = argv[++i];
      return true;
    };
    std::string v;
    int64_t n = 0;
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      error.clear();
      return false;
    } else if (a == "--host") {
      o.host = true;
    } else if (a == "--devices") {
      o.devices = true;
    } else if (a == "--no-nccl") {
      o.nccl = false;
    } else if (a == "-b" || a == "--minbytes" || a == "-e" || a == "--maxbytes") {
      if (!value(v)) return false;
      if ((n = parseSize(v)) < 1) return error = a + ": bad size '" + v + "'", false;
      (a == "-b" || a == "--minbytes" ? o.minBytes : o.maxBytes) = n;
    } else if (a == "-f" || a == "--stepfactor") {
      if (!value(v) || !parseInt(v, 2, o.stepFactor)) return error = a + ": a factor >= 2", false;
    } else if (a == "-t" || a == "--collective") {
      if (!value(v)) return false;
      if (v != "all_reduce" && v != "reduce_scatter" && v != "all_gather" && v != "broadcast")
        return error = a + ": unknown collective '" + v + "'", false;
      o.collective = v;
    } else if (a == "-o" || a == "--op") {
      if (!value(v)) return false;
      if (v != "sum" && v != "prod" && v != "min" && v != "max" && v != "avg")
        return error = a + ": unknown op '" + v + "'", false;
      o.redop = v;
    } else if (a == "-d" || a == "--datatype") {
      if (!value(v)) return false;
      if (!parseTypeAlias(v, o.type)) return error = a + ": unknown type '" + v + "'", false;
    } else if (a == "-c" || a == "--check") {
      if (!value(v) || !parseInt(v, 0, n) || n > 1) return error = a + ": 0 or 1", false;
      o.check = n == 1;
    } else if (a == "-n" || a == "--iters" || a == "-w" || a == "--warmup_iters" || a == "-g" || a == "--ranks") {
      if (!value(v) || !parseInt(v, a == "-w" || a == "--warmup_iters" ? 0 : 1, n) || n > (1 << 20))
        return error = a + ": bad count '" + v + "'", false;
      (a == "-n" || a == "--iters" ? o.iters : a == "-g" || a == "--ranks" ? o.ranks : o.warmup) = int(n);
    } else if (a == "-j" || a == "--jit-jobs") {
      if (!value(v) || !parseInt(v, 1, n) || n > 256) return error = a + ": bad count '" + v + "'", false;
      o.jitJobs = int(n);
    } else if (a == "--kernels") {
      if (!value(o.kernelsDir)) return false;
    } else if (a == "--ccopt") {
      if (!value(o.ccopt)) return false;
    } else if (a == "--topo") {
      if (!value(o.topo)) return false;
    } else if (a == "--timeout") {
      if (!value(v)) return false;
      char* end = nullptr;
      o.timeoutSeconds = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(o.timeoutSeconds >= 0)) return error = a + ": bad seconds '" + v + "'", false;
    } else {
      error = "unknown argument '" + a + "' (--help lists them)";
      return false;
    }
  }
  if (o.minBytes > o.maxBytes) return error = "-b is larger than -e", false;
  if (o.collective == "all_gather" || o.collective == "broadcast") o.redop = "none";
  return true;
}

}  // namespace ccopt::bench
