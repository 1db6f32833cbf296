//===- AlgorithmBuildersExecutionTest.cpp - issue 4's builders run --------===//
//
// The hierarchical reduce-scatter and all-gather, the binomial broadcast and
// reduce and van de Geijn's broadcast, built straight from their builders:
// each program must pass sched-verify, and its emitted CUDA, compiled for
// the host backend, must compute the collective (compared with a plain
// reference, element by element). Then each simulates on a machine, with the
// times it predicts against the ring or chain it could replace.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "host/HostBackend.h"
#include "passes/Algorithms.h"
#include "topology/Machine.h"
#include "topology/Rings.h"
#include "topology/Simulator.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <numeric>

using namespace mlir;

namespace {

/// Small integers: sums of them are exact in f32, so results compare exactly
/// (avg divides the exact sum once, as the reference does).
float inputValue(int rank, int64_t e) {
  return float(int((e * 7 + rank * 13) % 17) - 8);
}

float reduceOver(ccl::ReductionKind redop, int n, const std::function<float(int)> &x) {
  float acc = x(0);
  for (int q = 1; q < n; ++q)
    acc = redop == ccl::ReductionKind::Max ? std::max(acc, x(q)) : acc + x(q);
  return redop == ccl::ReductionKind::Avg ? acc / float(n) : acc;
}

const ccl::ReductionKind redops[] = {ccl::ReductionKind::Sum, ccl::ReductionKind::Max,
                                     ccl::ReductionKind::Avg};

std::vector<int> firstRanks(int n) {
  std::vector<int> ranks(n);
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

/// Builds programs into one module, then verifies, emits, compiles and runs
/// them all; each program's expected output comes with it.
class HostExecutionBuilders : public ::testing::Test {
protected:
  /// What rank r's output element e must hold (std::nullopt: anything).
  using Expected = std::function<std::optional<float>(int rank, int64_t e)>;

  HostExecutionBuilders() : b(&context) {
    ccopt::test::loadDialects(context);
    module = ModuleOp::create(b.getUnknownLoc());
    b.setInsertionPointToEnd(module->getBody());
  }

  ccopt::AllReduceShape shape(int64_t ranks, int64_t count, ccl::ReductionKind redop,
                              bool inPlace) {
    return {ranks, count, b.getF32Type(), redop, inPlace, {}};
  }
  std::string nextName() { return "p" + std::to_string(expected.size()); }
  void add(sched::ProgramOp program, Expected want) {
    ASSERT_TRUE(program);
    expected.push_back(std::move(want));
  }

  void addReduceScatter(int64_t n, int64_t perNode, int64_t m, ccl::ReductionKind redop,
                        int64_t channels) {
    add(ccopt::buildHierarchicalReduceScatter(b, b.getUnknownLoc(), nextName(),
                                              shape(n, m, redop, false), perNode,
                                              channels),
        [=](int r, int64_t e) -> std::optional<float> {
          return reduceOver(redop, n, [&](int q) { return inputValue(q, r * m + e); });
        });
  }
  void addAllGather(int64_t n, int64_t perNode, int64_t m, int64_t channels) {
    add(ccopt::buildHierarchicalAllGather(b, b.getUnknownLoc(), nextName(),
                                          shape(n, m, ccl::ReductionKind::Sum, false),
                                          perNode, channels),
        [=](int, int64_t e) -> std::optional<float> {
          return inputValue(int(e / m), e % m);
        });
  }
  Expected broadcastFrom(int64_t root) {
    return [=](int, int64_t e) -> std::optional<float> {
      return inputValue(int(root), e);
    };
  }
  Expected reduceTo(int64_t n, int64_t root, ccl::ReductionKind redop) {
    return [=](int r, int64_t e) -> std::optional<float> {
      if (r != root)
        return std::nullopt;
      return reduceOver(redop, n, [&](int q) { return inputValue(q, e); });
    };
  }

  /// sched-verify, emit, compile for the host, run every program: 0 wrong
  /// elements each.
  void verifyAndRun() {
    std::string diagnostics;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return success();
    });
    PassManager pm(&context);
    pm.addPass(ccopt::createSchedVerify());
    ASSERT_TRUE(succeeded(pm.run(*module))) << diagnostics;
    std::string cuda, error;
    llvm::raw_string_ostream os(cuda);
    ASSERT_TRUE(succeeded(ccopt::emitCuda(*module, os))) << diagnostics;
    auto host = ccopt::rt::HostModule::compile(cuda, error);
    ASSERT_TRUE(host) << error;
    size_t index = 0;
    for (auto program : module->getOps<sched::ProgramOp>()) {
      const Expected &want = expected[index++];
      int n = program.getRanks();
      int64_t in = program.getInputCount(), out = program.getOutputCount();
      auto kernel = host->kernel(ccopt::kernelName(program), error);
      ASSERT_TRUE(kernel) << error;
      ccopt::rt::HostWorld world(n, program.getChannels(), in * 4, out * 4,
                                 program.getScratchCount() * 4, program.getInPlace());
      for (int r = 0; r < n; ++r)
        for (int64_t e = 0; e < in; ++e)
          world.buffer<float>(r, CC_BUF_INPUT)[e] = inputValue(r, e);
      std::string what = llvm::formatv("{0} ({1}, {2} ranks, count {3}, {4} channels, "
                                       "{5} chunks{6})",
                                       program.getSymName(), program.getAlgorithm(), n,
                                       out, program.getChannels(), program.getChunks(),
                                       program.getInPlace() ? ", in place" : "");
      ASSERT_EQ(world.launch(kernel, std::chrono::seconds(120)), CC_OK) << what;
      int64_t wrong = 0;
      for (int r = 0; r < n; ++r)
        for (int64_t e = 0; e < out; ++e)
          if (std::optional<float> w = want(r, e))
            wrong += world.buffer<float>(r, CC_BUF_OUTPUT)[e] != *w;
      EXPECT_EQ(wrong, 0) << what;
    }
    EXPECT_EQ(index, expected.size());
  }

  MLIRContext context;
  OpBuilder b;
  OwningOpRef<ModuleOp> module;
  std::vector<Expected> expected;
};

const int64_t counts[] = {1, 7, 4096, 30011};

// Worlds of 1, 2, 3, 5 and 8 ranks in every split into nodes (one node,
// one rank per node, and between), so that both phases and their absence
// run.
TEST_F(HostExecutionBuilders, HierarchicalScatterGatherSmallWorlds) {
  int i = 0;
  for (auto [n, perNode] : {std::pair{1, 1}, {2, 1}, {2, 2}, {3, 1}, {3, 3}, {5, 1},
                            {5, 5}, {8, 2}, {8, 4}, {6, 3}})
    for (int64_t m : counts) {
      int64_t channels = 1 + i % 2;
      addReduceScatter(n, perNode, m, redops[i % 3], channels);
      addAllGather(n, perNode, m, channels);
      ++i;
    }
  verifyAndRun();
}

// Nodes of 8 GPUs as the machine presets place them (ranksPerNode).
TEST_F(HostExecutionBuilders, HierarchicalScatterGatherOnMachines) {
  int i = 0;
  for (auto [topo, nodes] : {std::pair{"a100x8", 2}, {"v100x8", 3}, {"pcie4x8", 4}}) {
    auto machine = ccopt::topo::lookupPreset(topo, nodes);
    ASSERT_TRUE(machine);
    int n = machine->ranks();
    std::optional<int64_t> perNode = ccopt::ranksPerNode(*machine, firstRanks(n));
    ASSERT_EQ(perNode, 8);
    for (int64_t m : counts)
      for (ccl::ReductionKind redop : redops) {
        int64_t channels = 1 + i++ % 2;
        addReduceScatter(n, *perNode, m, redop, channels);
        if (redop == ccl::ReductionKind::Sum)
          addAllGather(n, *perNode, m, channels);
      }
  }
  verifyAndRun();
}

/// Roots 0, n-1 and one in the middle (once each).
std::vector<int64_t> rootsOf(int64_t n) {
  std::vector<int64_t> roots{0, n - 1, n / 2};
  llvm::sort(roots);
  roots.erase(llvm::unique(roots), roots.end());
  return roots;
}

TEST_F(HostExecutionBuilders, BinomialBroadcastAndReduce) {
  int i = 0;
  for (int64_t n : {1, 2, 3, 5, 8, 13})
    for (int64_t root : rootsOf(n))
      for (int64_t count : counts) {
        // Every mix of chunks, channels and in place over the grid.
        int64_t chunks = i % 2 ? 3 : 1, channels = (i / 2) % 2 ? 2 : 1;
        bool inPlace = (i / 4) % 2;
        ccl::ReductionKind redop = redops[i % 3];
        ++i;
        add(ccopt::buildBinomialBroadcast(b, b.getUnknownLoc(), nextName(),
                                          shape(n, count, redop, inPlace), root,
                                          /*reduce=*/false, chunks, channels),
            broadcastFrom(root));
        add(ccopt::buildBinomialBroadcast(b, b.getUnknownLoc(), nextName(),
                                          shape(n, count, redop, !inPlace), root,
                                          /*reduce=*/true, chunks, channels),
            reduceTo(n, root, redop));
      }
  verifyAndRun();
}

TEST_F(HostExecutionBuilders, ScatterAllGatherBroadcast) {
  int i = 0;
  for (int64_t n : {1, 2, 3, 5, 8, 13})
    for (int64_t root : rootsOf(n))
      for (int64_t count : counts) {
        int64_t channels = 1 + i % 2;
        bool inPlace = (i / 2) % 2;
        ++i;
        add(ccopt::buildScatterAllGatherBroadcast(
                b, b.getUnknownLoc(), nextName(),
                shape(n, count, ccl::ReductionKind::Sum, inPlace), root, channels),
            broadcastFrom(root));
      }
  verifyAndRun();
}

} // namespace
