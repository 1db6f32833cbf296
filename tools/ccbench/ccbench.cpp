// ccbench: nccl-tests for ccopt's kernels. Sweeps sizes, runs each point's
// emitted schedule (host threads, virtual ranks on one GPU, or one GPU per
// rank) and, on GPUs, NCCL on the same buffers, printing time, algbw, busbw
// and the number of wrong elements side by side. Exit status 1 on any wrong
// element or failed run.
#include "tools/ccbench/KernelFiles.h"
#include "tools/ccbench/Options.h"
#include "tools/ccbench/Result.h"
#include "tools/ccbench/Verifiable.h"

#include "runtime/ccrt/HostRunner.h"
#ifdef CCOPT_HAVE_CUDA_RUNTIME
#include "tools/ccbench/GpuBench.h"
#endif

#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace ccopt;
using namespace ccopt::bench;

namespace {

double busFactor(const std::string& collective, int n) {
  if (collective == "all_reduce") return 2.0 * (n - 1) / n;
  if (collective == "broadcast") return 1.0;
  return double(n - 1) / n;
}

Shape shapeFor(const Options& o, int64_t bytes) {
  Shape s;
  s.collective = o.collective;
  s.redop = o.redop;
  s.ranks = o.ranks;
  s.type = o.type;
  int64_t count = bytes / int64_t(rt::dtypeBytes(o.type));
  if (o.collective == "reduce_scatter" || o.collective == "all_gather") count = count / o.ranks * o.ranks;
  count = std::max<int64_t>(count, o.collective == "all_reduce" || o.collective == "broadcast" ? 1 : o.ranks);
  s.inputCount = o.collective == "all_gather" ? count / o.ranks : count;
  s.outputCount = o.collective == "reduce_scatter" ? count / o.ranks : count;
  return s;
}

// One ccopt run on the host backend: {microseconds per iteration, wrong elements}.
rt::Status runHost(const Options& o, const Shape& s, const rt::KernelLibrary& lib, Result& result) {
  rt::Status st;
  auto program = rt::HostProgram::compile(lib, st);
  if (!program) return st;
  const size_t elem = rt::dtypeBytes(s.type);
  std::vector<std::vector<char>> in(size_t(s.ranks)), out(size_t(s.ranks));
  std::vector<rt::RankBuffers> views;
  for (int r = 0; r < s.ranks; ++r) {
    // 64-byte aligned storage via over-allocation.
    in[size_t(r)].assign(size_t(s.inputCount) * elem + 64, 0);
    out[size_t(r)].assign(size_t(s.outputCount) * elem + 64, char(0xff));  // unwritten elements show
    auto align = [](std::vector<char>& v) { return (void*)((uintptr_t(v.data()) + 63) / 64 * 64); };
    rt::RankBuffers b;
    b.rank = r;
    b.input = {align(in[size_t(r)]), s.inputCount, s.type, size_t(s.inputCount) * elem};
    b.output = {align(out[size_t(r)]), s.outputCount, s.type, size_t(s.outputCount) * elem};
    fillInput(s, r, b.input.data);
    views.push_back(b);
  }
  rt::LaunchOptions lo;
  lo.timeout = std::chrono::nanoseconds(int64_t(o.timeoutSeconds * 1e9));
  auto c = program->bind(lib.schedules[0].kernel, views, lo, st);
  if (!c) return st;
  for (int i = 0; i < o.warmup; ++i)
    if (st = c->launch(); !st.ok()) return st;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < o.iters; ++i)
    if (st = c->launch(); !st.ok()) return st;
  result.us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / o.iters;
  result.wrong = 0;
  if (o.check)
    for (int r = 0; r < s.ranks; ++r) result.wrong += countWrong(s, r, views[size_t(r)].output.data);
  result.ran = true;
  return rt::Status::success();
}

void printCell(const Result& r, double bytes, double factor, bool check) {
  if (!r.ran) {
    std::printf("  %10s %7s %7s %6s", "n/a", "", "", "");
    return;
  }
  const double algbw = bytes / (r.us * 1e-6) / 1e9;
  std::printf("  %10.1f %7.2f %7.2f", r.us, algbw, algbw * factor);
  if (check) std::printf(" %6lld", (long long)r.wrong);
  else std::printf(" %6s", "N/A");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string error;
  if (!parseOptions(argc, argv, o, error)) {
    if (error.empty()) return 0;  // --help
    std::fprintf(stderr, "ccbench: %s\n", error.c_str());
    return 2;
  }
  if (o.kernelsDir.empty()) o.kernelsDir = CCOPT_KERNELS_DIR;

#ifdef CCOPT_HAVE_CUDA_RUNTIME
  std::unique_ptr<GpuBench> gpu;
  if (!o.host) {
    rt::Status st;
    gpu = GpuBench::create(o, st);
    if (!gpu) {
      std::fprintf(stderr, "ccbench: %s (--host runs on the CPU)\n", st.message.c_str());
      return 2;
    }
  }
#else
  if (!o.host) {
    std::fprintf(stderr, "ccbench: built without the CUDA runtime (no NVRTC at build time): use --host\n");
    return 2;
  }
#endif

  std::printf("# ccbench: %s %s %s, %d ranks on %s; %d iterations after %d warm-up; kernels from %s\n",
              o.collective.c_str(), o.redop.c_str(), rt::dtypeName(o.type), o.ranks,
#ifdef CCOPT_HAVE_CUDA_RUNTIME
              gpu ? gpu->describe().c_str() :
#endif
                  "the host backend (CPU threads)",
              o.iters, o.warmup, o.kernelsDir.c_str());
  std::printf("#%11s %12s %6s %6s  %10s %7s %7s %6s  %10s %7s %7s %6s\n", "", "", "", "", "ccopt", "", "", "", "nccl",
              "", "", "");
  std::printf("#%11s %12s %6s %6s  %10s %7s %7s %6s  %10s %7s %7s %6s\n", "size(B)", "count", "type", "redop",
              "time(us)", "algbw", "busbw", "#wrong", "time(us)", "algbw", "busbw", "#wrong");
#ifdef CCOPT_HAVE_CUDA_RUNTIME
  if (gpu) {
    // NVRTC all sweep points at once, so the sweep itself only hits the cache.
    std::vector<rt::KernelLibrary> libs;
    for (int64_t bytes = o.minBytes; bytes <= o.maxBytes; bytes *= o.stepFactor) {
      rt::KernelLibrary lib;
      if (loadKernel(shapeFor(o, bytes), o.kernelsDir, o.ccopt, o.topo, lib).ok()) libs.push_back(std::move(lib));
      if (bytes > o.maxBytes / o.stepFactor) break;
    }
    const auto t0 = std::chrono::steady_clock::now();
    gpu->precompile(libs, o.jitJobs);
    std::printf("# JIT: %zu kernels in %.1f s (%d at a time; cached in %s)\n", libs.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), o.jitJobs,
                rt::JitCache::defaultDir().c_str());
  }
#endif
  int64_t totalWrong = 0;
  int failures = 0;
  for (int64_t bytes = o.minBytes; bytes <= o.maxBytes; bytes *= o.stepFactor) {
    const Shape s = shapeFor(o, bytes);
    const int64_t count = std::max(s.inputCount, s.outputCount);
    const double size = double(count) * rt::dtypeBytes(s.type);
    rt::KernelLibrary lib;
    rt::Status st = loadKernel(s, o.kernelsDir, o.ccopt, o.topo, lib);
    Result mine, nccl;
    if (st.ok()) {
#ifdef CCOPT_HAVE_CUDA_RUNTIME
      st = gpu ? gpu->runCcopt(s, lib, mine) : runHost(o, s, lib, mine);
      if (st.ok() && gpu && o.nccl) gpu->runNccl(s, nccl);  // n/a when NCCL cannot run here
#else
      st = runHost(o, s, lib, mine);
#endif
    }
    std::printf("%12lld %12lld %6s %6s", (long long)size, (long long)count, rt::dtypeName(s.type), s.redop.c_str());
    printCell(mine, size, busFactor(s.collective, s.ranks), o.check);
    printCell(nccl, size, busFactor(s.collective, s.ranks), o.check);
    std::printf("\n");
    std::fflush(stdout);
    if (!st.ok()) {
      std::fprintf(stderr, "ccbench: %lld bytes: %s\n", (long long)size, st.message.c_str());
      ++failures;
    }
    totalWrong += mine.wrong + nccl.wrong;
    if (bytes > o.maxBytes / o.stepFactor) break;  // no overflow past the end
  }
  std::printf("# out of bounds values : %lld %s\n", (long long)totalWrong, totalWrong ? "ERROR" : "OK");
  return totalWrong || failures ? 1 : 0;
}
