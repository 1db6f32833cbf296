// A data-parallel SGD loop with its gradient all-reduce compiled and run by
// ccopt: linear regression on R ranks, each with its own shard of the data.
// Every step, each rank computes its gradient, ccopt averages the gradients
// over the ranks (all_reduce avg, in place: one for the weights' gradient,
// one for the bias's), and each rank applies the same update, so the ranks'
// weights stay identical. With --bucket-cap-mb the two all-reduces are
// fused into one over a bucket the runtime packs and unpacks.
//
//   trainer [--ranks R] [--steps N] [--topo NAME] [--bucket-cap-mb MB] [--gpu]
//
// Without --gpu the all-reduce runs on the host backend (a thread per rank
// and channel); with it, as virtual ranks on GPU 0. Exit status 0 when the
// loss fell at least 100-fold and every rank holds the same weights.
#include "api/Builder.h"
#include "api/Compile.h"
#include "api/Executable.h"
#ifdef CCOPT_HAVE_CUDA_RUNTIME
#include "runtime/jit/CudaDriver.h"
#endif

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kFeatures = 32;      // weights (+1 bias)
constexpr int kSamplesPerRank = 256;

struct Shard {
  std::vector<float> x;  // kSamplesPerRank x kFeatures
  std::vector<float> y;
};

// y = x . wTrue + bTrue for a fixed wTrue: the loss can reach ~0.
Shard makeShard(int rank) {
  std::mt19937 gen(1234 + rank);
  std::uniform_real_distribution<float> u(-1, 1);
  Shard s;
  s.x.resize(size_t(kSamplesPerRank) * kFeatures);
  for (float& v : s.x) v = u(gen);
  for (int i = 0; i < kSamplesPerRank; ++i) {
    float y = 0.5f;
    for (int j = 0; j < kFeatures; ++j) y += s.x[size_t(i) * kFeatures + j] * float((j % 7) - 3) * 0.25f;
    s.y.push_back(y);
  }
  return s;
}

// Mean squared error of `w` on the shard, and its gradient into `grad` (kFeatures + 1).
float lossAndGradient(const Shard& s, const std::vector<float>& w, float* grad) {
  std::fill(grad, grad + kFeatures + 1, 0.0f);
  float loss = 0;
  for (int i = 0; i < kSamplesPerRank; ++i) {
    const float* xi = &s.x[size_t(i) * kFeatures];
    float pred = w[kFeatures];
    for (int j = 0; j < kFeatures; ++j) pred += xi[j] * w[size_t(j)];
    const float err = pred - s.y[size_t(i)];
    loss += err * err;
    for (int j = 0; j < kFeatures; ++j) grad[j] += 2 * err * xi[j] / kSamplesPerRank;
    grad[kFeatures] += 2 * err / kSamplesPerRank;
  }
  return loss / kSamplesPerRank;
}

int fail(const std::string& what, const ccopt::rt::Status& s) {
  std::fprintf(stderr, "trainer: %s: %s\n", what.c_str(), s.message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int ranks = 4, steps = 60;
  std::string topo;
  double bucketCapMb = 0;
  bool gpu = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--ranks" && i + 1 < argc) ranks = std::atoi(argv[++i]);
    else if (a == "--steps" && i + 1 < argc) steps = std::atoi(argv[++i]);
    else if (a == "--topo" && i + 1 < argc) topo = argv[++i];
    else if (a == "--bucket-cap-mb" && i + 1 < argc) bucketCapMb = std::atof(argv[++i]);
    else if (a == "--gpu") gpu = true;
    else {
      std::fprintf(stderr, "usage: trainer [--ranks R] [--steps N] [--topo NAME] [--bucket-cap-mb MB] [--gpu]\n");
      return 2;
    }
  }
  if (ranks < 1 || steps < 1) return std::fprintf(stderr, "trainer: ranks and steps must be positive\n"), 2;

  // 1. Compile the gradient all-reduces once, for this world (or machine).
  ccopt::ProgramBuilder builder("sgd_step", topo.empty() ? ranks : 0);
  builder.buffer("dw", kFeatures, ccopt::rt::DType::F32);
  builder.buffer("db", 1, ccopt::rt::DType::F32);
  builder.allReduce("avg", "dw", "dw");
  builder.allReduce("avg", "db", "db");
  ccopt::CompileOptions options;
  options.topo = topo;
  options.bucketCapMb = bucketCapMb;
  ccopt::CompiledProgram program;
  if (auto s = ccopt::compileProgram(builder.text(), options, program); !s.ok()) return fail("compile", s);
  ranks = program.ranks;

  // 2. Load it for the target and bind every rank's gradient buffers: the
  // weights' gradient, then the bias's, in one array per rank.
  ccopt::Target target = ccopt::Target::host();
  std::vector<std::vector<float>> grads(size_t(ranks), std::vector<float>(kFeatures + 1));
  std::vector<void*> deviceGrads(size_t(ranks), nullptr);
#ifdef CCOPT_HAVE_CUDA_RUNTIME
  std::shared_ptr<ccopt::rt::CudaContext> ctx;
  if (gpu) {
    std::string error;
    if (!(ctx = ccopt::rt::CudaContext::primary(0, error)))
      return std::fprintf(stderr, "trainer: --gpu: %s\n", error.c_str()), 1;
    target.kind = ccopt::Target::Kind::VirtualRanks;
    for (void*& p : deviceGrads)
      if (!(p = ctx->alloc(grads[0].size() * sizeof(float), error)))
        return std::fprintf(stderr, "trainer: %s\n", error.c_str()), 1;
  }
#else
  if (gpu) return std::fprintf(stderr, "trainer: built without the CUDA runtime\n"), 1;
#endif
  ccopt::rt::Status status;
  auto exe = ccopt::Executable::load(program, target, status);
  if (!exe) return fail("load", status);
  std::vector<ccopt::RankMemory> memory;
  for (int r = 0; r < ranks; ++r) {
    float* data = static_cast<float*>(gpu ? deviceGrads[size_t(r)] : grads[size_t(r)].data());
    memory.push_back({r,
                      {{"dw", {data, kFeatures * sizeof(float)}}, {"db", {data + kFeatures, sizeof(float)}}},
                      gpu ? 0 : -1});
  }
  if (auto s = exe->bind(memory); !s.ok()) return fail("bind", s);
  std::printf("trainer: %d ranks, %s, %zu all-reduce(s) over %zu bucket(s), compiled and loaded in %.2f s\n", ranks,
              gpu ? "virtual ranks on GPU 0" : "host backend", program.steps.size(), program.buckets.size(),
              exe->loadSeconds());

  // 3. Train: local gradients, ccopt's average, the same update everywhere.
  std::vector<Shard> shards;
  for (int r = 0; r < ranks; ++r) shards.push_back(makeShard(r));
  std::vector<std::vector<float>> weights(size_t(ranks), std::vector<float>(kFeatures + 1, 0.0f));
  const float lr = 0.1f;
  float first = 0, last = 0;
  for (int step = 0; step < steps; ++step) {
    float loss = 0;
    for (int r = 0; r < ranks; ++r) loss += lossAndGradient(shards[size_t(r)], weights[size_t(r)], grads[size_t(r)].data());
    loss /= ranks;
#ifdef CCOPT_HAVE_CUDA_RUNTIME
    std::string error;
    if (gpu)
      for (int r = 0; r < ranks; ++r)
        if (!ctx->copyToDevice(deviceGrads[size_t(r)], grads[size_t(r)].data(), grads[0].size() * 4, error))
          return std::fprintf(stderr, "trainer: %s\n", error.c_str()), 1;
#endif
    if (auto s = exe->run(); !s.ok()) return fail("all-reduce", s);
#ifdef CCOPT_HAVE_CUDA_RUNTIME
    if (gpu) {
      if (!ctx->synchronize(error)) return std::fprintf(stderr, "trainer: %s\n", error.c_str()), 1;
      if (auto s = exe->asyncError(); !s.ok()) return fail("all-reduce", s);
      for (int r = 0; r < ranks; ++r)
        if (!ctx->copyToHost(grads[size_t(r)].data(), deviceGrads[size_t(r)], grads[0].size() * 4, error))
          return std::fprintf(stderr, "trainer: %s\n", error.c_str()), 1;
    }
#endif
    for (int r = 0; r < ranks; ++r)
      for (int j = 0; j <= kFeatures; ++j) weights[size_t(r)][size_t(j)] -= lr * grads[size_t(r)][size_t(j)];
    if (step == 0) first = loss;
    last = loss;
    if (step % 10 == 0 || step == steps - 1) std::printf("step %3d  loss %.6f\n", step, loss);
  }

  // 4. Data parallelism worked: identical weights, and the loss fell.
  bool identical = true;
  for (int r = 1; r < ranks; ++r)
    identical = identical && std::memcmp(weights[0].data(), weights[size_t(r)].data(), weights[0].size() * 4) == 0;
  std::printf("trainer: loss %.6f -> %.6f; ranks' weights %s\n", first, last,
              identical ? "identical (bit for bit)" : "DIFFER");
#ifdef CCOPT_HAVE_CUDA_RUNTIME
  if (gpu)
    for (void* p : deviceGrads) ctx->free(p);
#endif
  return identical && last < first / 100 ? 0 : 1;
}
