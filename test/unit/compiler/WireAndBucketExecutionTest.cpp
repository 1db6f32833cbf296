//===- WireAndBucketExecutionTest.cpp - compression and buckets, run ------===//
//
// Emitted kernels of compressed collectives and of fused buckets, run on
// the host backend:
//  - over an f16/bf16 wire every output element is within the documented
//    bound of the exact (double) result: |y - sum x| <= n * u * sum |x|,
//    u = 2^-11 (f16) or 2^-8 (bf16), n the ranks (every contribution is
//    rounded at most once per hop, at most n - 1 hops plus the first
//    conversion), plus the f32 accumulation's own n * 2^-24 * sum |x| and
//    f16's subnormal spacing; all_reduce outputs agree on every rank;
//  - overflow of the narrow type gives inf, NaN and inf propagate, and avg
//    divides before sending so that averages of in-range values stay exact;
//  - a fused bucket's results land back in each member buffer exactly.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "host/HostBackend.h"
#include "passes/Collectives.h"
#include "topology/Machine.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

using namespace mlir;

namespace {

class WireAndBuckets : public ::testing::Test {
protected:
  void SetUp() override { ccopt::test::loadDialects(context); }

  bool build(const std::string &text, const ccopt::PipelineOptions &options) {
    compiled = ccopt::test::compile(context, text, options);
    if (!compiled.module) {
      ADD_FAILURE() << compiled.error;
      return false;
    }
    module = ccopt::rt::HostModule::compile(compiled.cuda, error);
    if (!module)
      ADD_FAILURE() << error;
    return module != nullptr;
  }

  sched::ProgramOp schedule(StringRef name) {
    return compiled.module->lookupSymbol<sched::ProgramOp>(name);
  }

  MLIRContext context;
  ccopt::test::Compiled compiled;
  std::unique_ptr<ccopt::rt::HostModule> module;
  std::string error;
};

/// Runs `program` with inputs `in[rank][e]`; outputs per rank.
std::vector<std::vector<float>> run(ccopt::rt::HostModule &module, sched::ProgramOp program,
                                    const std::vector<std::vector<float>> &in) {
  std::string error;
  auto kernel = module.kernel(ccopt::kernelName(program), error);
  EXPECT_TRUE(kernel) << error;
  int n = program.getRanks();
  int64_t inCount = program.getInputCount(), outCount = program.getOutputCount();
  ccopt::rt::HostWorld world(n, program.getChannels(), inCount * 4, outCount * 4,
                             program.getScratchCount() * 4, program.getInPlace());
  for (int r = 0; r < n; ++r)
    std::copy(in[r].begin(), in[r].end(), world.buffer<float>(r, CC_BUF_INPUT));
  EXPECT_EQ(world.launch(kernel, std::chrono::seconds(60)), CC_OK);
  std::vector<std::vector<float>> out(n);
  for (int r = 0; r < n; ++r)
    out[r].assign(world.buffer<float>(r, CC_BUF_OUTPUT),
                  world.buffer<float>(r, CC_BUF_OUTPUT) + outCount);
  return out;
}

struct WireCase {
  std::string collective; // all_reduce | reduce_scatter | reduce
  std::string redop;      // sum | avg
  std::string wire;       // f16 | bf16
  std::string algorithm;  // ring | tree | "" (the default)
  int ranks;
  int64_t count; // of the output
};

// Every compressed reduction stays within n * u * sum|x| of the exact result.
TEST_F(WireAndBuckets, CompressedReductionsStayWithinTheBound) {
  auto machine = ccopt::topo::lookupPreset("a100x8", 2);
  Builder b(&context);
  std::vector<int> world(16);
  std::iota(world.begin(), world.end(), 0);
  std::vector<WireCase> cases;
  for (std::string wire : {"f16", "bf16"})
    for (std::string redop : {"sum", "avg"}) {
      for (int n : {2, 3, 8})
        cases.push_back({"all_reduce", redop, wire, "ring", n, 3000 + n});
      cases.push_back({"all_reduce", redop, wire, "tree", 16, 1500});
      cases.push_back({"reduce_scatter", redop, wire, "", 5, 700});
      cases.push_back({"reduce", redop, wire, "", 6, 900});
      // Every other reducing algorithm that runs on both nodes (16 ranks)
      // over this wire.
      ccopt::AllReduceShape shape{16, 640, b.getF32Type(), ccl::ReductionKind::Sum};
      shape.wire = wire == "f16" ? Type(b.getF16Type()) : Type(b.getBF16Type());
      for (auto [kind, collective] :
           {std::pair{ccl::CollectiveKind::AllReduce, "all_reduce"},
            {ccl::CollectiveKind::ReduceScatter, "reduce_scatter"},
            {ccl::CollectiveKind::Reduce, "reduce"}})
        for (StringRef algorithm : ccopt::algorithmsFor(kind).drop_front())
          if (ccopt::algorithmUnsupported({kind, shape, world}, algorithm, &*machine).empty())
            cases.push_back({collective, redop, wire, algorithm.str(), 16, 640});
    }
  std::string text;
  for (auto [i, c] : llvm::enumerate(cases)) {
    int64_t inCount = c.collective == "reduce_scatter" ? c.count * c.ranks : c.count;
    std::string in = llvm::formatv("!ccl.buffer<{0}xf32>", inCount);
    std::string out = llvm::formatv("!ccl.buffer<{0}xf32>", c.count);
    std::string attrs = "compress = " + c.wire;
    if (!c.algorithm.empty())
      attrs += ", algorithm = \"" + c.algorithm + "\", channels = 2 : i64, chunks = 3 : i64";
    text += llvm::formatv("ccl.program @w{0} world({1}) {{\n"
                          "  %a = ccl.buffer \"a\" : {2}\n"
                          "  %b = ccl.buffer \"b\" : {3}\n"
                          "  ccl.{4} {5} %a -> %b{6} {{{7}} : {2} -> {3}\n}\n",
                          i, c.ranks, in, out, c.collective, c.redop,
                          c.collective == "reduce" ? " root 1" : "", attrs);
  }
  // a100x8 x 2 nodes: the tree is a real tree over the nodes.
  ASSERT_TRUE(build(text, {"a100x8", "", 2, 2, 2}));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (auto [i, c] : llvm::enumerate(cases)) {
    auto program = schedule(llvm::formatv("w{0}_{1}_0", i, c.collective).str());
    ASSERT_TRUE(program) << i;
    ASSERT_TRUE(program.getWire()) << i;
    int n = c.ranks;
    int64_t inCount = program.getInputCount();
    std::vector<std::vector<float>> in(n, std::vector<float>(inCount));
    for (auto &rank : in)
      for (float &x : rank)
        x = value(rng);
    auto out = run(*module, program, in);
    double u = c.wire == "f16" ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
    double worst = 0;
    int64_t beyond = 0, disagree = 0;
    for (int r = 0; r < n; ++r) {
      if (c.collective == "reduce" && r != 1)
        continue;
      for (int64_t e = 0; e < c.count; ++e) {
        int64_t at = c.collective == "reduce_scatter" ? r * c.count + e : e;
        double exact = 0, magnitude = 0;
        for (int q = 0; q < n; ++q) {
          exact += in[q][at];
          magnitude += std::fabs(in[q][at]);
        }
        if (c.redop == "avg") {
          exact /= n;
          magnitude /= n;
        }
        double bound = n * u * magnitude + n * std::ldexp(1.0, -24) * magnitude +
                       n * std::ldexp(1.0, -25);
        double err = std::fabs(out[r][e] - exact);
        worst = std::max(worst, err / std::max(magnitude, 1e-30));
        beyond += err > bound;
        if (c.collective == "all_reduce")
          disagree += out[r][e] != out[0][e];
      }
    }
    EXPECT_EQ(beyond, 0) << c.collective << " " << c.redop << " " << c.wire << " "
                         << c.algorithm << " n=" << n;
    EXPECT_EQ(disagree, 0) << "ranks disagree: " << c.collective << " " << c.wire << " "
                           << c.algorithm;
    // Compression loses precision: it must show, but stay well inside the bound.
    EXPECT_GT(worst, 0.0) << c.collective << " " << c.wire;
    EXPECT_LE(worst, n * u * 1.01 + 1e-6);
  }
}

// f16 overflow gives inf (never a wrong finite value); avg divides first and
// stays in range; NaN and inf propagate.
TEST_F(WireAndBuckets, OverflowNanAndInfOverAnF16Wire) {
  const int n = 8;
  std::string text;
  for (std::string redop : {"sum", "avg"})
    text += llvm::formatv("ccl.program @o_{0} world(8) {{\n"
                          "  %a = ccl.buffer \"a\" : !ccl.buffer<64xf32>\n"
                          "  ccl.all_reduce {0} %a -> %a {{compress = f16} : "
                          "!ccl.buffer<64xf32> -> !ccl.buffer<64xf32>\n}\n",
                          redop)
                .str();
  ASSERT_TRUE(build(text, {"", "", 1, 2, 2}));
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<std::vector<float>> in(n, std::vector<float>(64, 16384.0f));
  in[3][0] = std::nanf("");
  in[5][1] = inf;
  in[2][2] = inf;
  in[6][2] = -inf;
  auto sum = run(*module, schedule("o_sum_all_reduce_0"), in);
  auto avg = run(*module, schedule("o_avg_all_reduce_0"), in);
  for (int r = 0; r < n; ++r) {
    EXPECT_TRUE(std::isnan(sum[r][0]) && std::isnan(avg[r][0])) << r;
    EXPECT_EQ(sum[r][1], inf) << r;
    EXPECT_EQ(avg[r][1], inf) << r;
    EXPECT_TRUE(std::isnan(sum[r][2]) && std::isnan(avg[r][2])) << r;
    for (int e = 3; e < 64; ++e) {
      // 8 x 16384 = 131072 is beyond f16's 65504: inf, never wrapped or clamped.
      EXPECT_EQ(sum[r][e], inf) << r << " " << e;
      // Divided first: 8 x 2048, every partial sum exact in f16.
      EXPECT_EQ(avg[r][e], 16384.0f) << r << " " << e;
    }
  }
}

// A fused bucket: pack the members into the bucket, run the one kernel,
// unpack; every member gets exactly its own reduction back.
TEST_F(WireAndBuckets, FusedBucketResultsLandInTheirBuffers) {
  std::vector<int64_t> counts = {1000, 1, 77, 4096, 3};
  const int n = 4;
  std::string text = "ccl.program @fuse world(4) {\n";
  for (auto [i, c] : llvm::enumerate(counts))
    text += llvm::formatv("  %g{0} = ccl.buffer \"g{0}\" : !ccl.buffer<{1}xf32>\n", i, c);
  for (auto [i, c] : llvm::enumerate(counts))
    text += llvm::formatv("  ccl.all_reduce sum %g{0} -> %g{0} : !ccl.buffer<{1}xf32> "
                          "-> !ccl.buffer<{1}xf32>\n",
                          i, c);
  text += "}\n";
  ccopt::PipelineOptions options{"", "", 1, 2, 3};
  options.bucketCapMb = 25;
  ASSERT_TRUE(build(text, options));
  ccl::AllReduceOp fused;
  compiled.module->walk([&](ccl::AllReduceOp op) { fused = op; });
  auto bucket = fused.getInput().getDefiningOp<ccl::BucketOp>();
  ASSERT_TRUE(bucket);
  ASSERT_EQ(bucket.getMembers().size(), counts.size());
  auto program = schedule(fused->getAttrOfType<FlatSymbolRefAttr>("schedule").getValue());
  // Each member's own values: buffer i, element e, rank r.
  auto value = [](size_t i, int64_t e, int r) { return float(i * 1000 + e % 97 + r * 7); };
  SmallVector<int64_t> offsets = bucket.getMemberOffsets();
  std::vector<std::vector<float>> packed(n, std::vector<float>(program.getInputCount()));
  for (int r = 0; r < n; ++r)
    for (auto [i, member] : llvm::enumerate(bucket.getMembers())) {
      int64_t count = cast<ccl::BufferType>(member.getType()).getCount();
      for (int64_t e = 0; e < count; ++e)
        packed[r][offsets[i] + e] = value(i, e, r);
    }
  auto out = run(*module, program, packed);
  int64_t wrong = 0;
  for (int r = 0; r < n; ++r)
    for (auto [i, member] : llvm::enumerate(bucket.getMembers())) {
      // Unpack into the member's own memory, as the runtime does.
      int64_t count = cast<ccl::BufferType>(member.getType()).getCount();
      std::vector<float> buffer(out[r].begin() + offsets[i],
                                out[r].begin() + offsets[i] + count);
      for (int64_t e = 0; e < count; ++e) {
        float want = 0;
        for (int q = 0; q < n; ++q)
          want += value(i, e, q);
        wrong += buffer[e] != want;
      }
    }
  EXPECT_EQ(wrong, 0);
}

} // namespace
