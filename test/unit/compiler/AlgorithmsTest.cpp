//===- AlgorithmsTest.cpp - algorithm builders verify and run -------------===//
//
// Every schedule builder's output must pass sched-verify and compute the
// collective through the emitted code on the host backend. (The ring is
// covered through the lowering in HostExecutionTest.)
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "host/HostBackend.h"
#include "passes/Algorithms.h"
#include "topology/Machine.h"

#include "mlir/IR/Builders.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

/// Diagnostics as text, collected while alive.
struct Diagnostics {
  explicit Diagnostics(MLIRContext &context)
      : handler(&context, [this](Diagnostic &d) {
          text += d.str() + "\n";
          return success();
        }) {}
  std::string text;
  ScopedDiagnosticHandler handler;
};

LogicalResult verifySchedules(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(ccopt::createSchedVerify());
  return pm.run(module);
}

TEST(Algorithms, TreeAllReduceVerifiesAndRuns) {
  MLIRContext context;
  ccopt::test::loadDialects(context);
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToStart(module->getBody());
  struct Case {
    int64_t ranks, perNode, count;
    bool inPlace;
  };
  std::vector<Case> cases;
  for (int64_t ranks : {1, 2, 3, 5, 8, 16})
    for (int64_t perNode : {2, 4, 8})
      cases.push_back({ranks, perNode, ranks * 37 + 1, ranks % 2 == 0});
  for (auto [i, c] : llvm::enumerate(cases)) {
    ccopt::AllReduceShape shape{c.ranks, c.count, b.getF32Type(),
                                ccl::ReductionKind::Sum, c.inPlace, {}};
    ccopt::buildTreeAllReduce(b, b.getUnknownLoc(), "tree" + std::to_string(i),
                              shape, ccopt::ncclTrees(c.ranks, c.perNode),
                              /*chunks=*/3, /*channels=*/2);
  }
  Diagnostics diagnostics(context);
  ASSERT_TRUE(succeeded(verifySchedules(*module))) << diagnostics.text;

  std::string cuda;
  llvm::raw_string_ostream os(cuda);
  ASSERT_TRUE(succeeded(ccopt::emitCuda(*module, os)));
  std::string error;
  auto host = ccopt::rt::HostModule::compile(cuda, error);
  ASSERT_TRUE(host) << error;
  int index = 0;
  for (auto program : module->getOps<sched::ProgramOp>()) {
    const Case &c = cases[index++];
    auto kernel = host->kernel(ccopt::kernelName(program), error);
    ASSERT_TRUE(kernel) << error;
    ccopt::rt::HostWorld world(c.ranks, program.getChannels(), c.count * 4,
                               c.count * 4, program.getScratchCount() * 4,
                               c.inPlace);
    for (int r = 0; r < c.ranks; ++r)
      for (int64_t e = 0; e < c.count; ++e)
        world.buffer<float>(r, CC_BUF_INPUT)[e] = float((e + 3 * r) % 11);
    ASSERT_EQ(world.launch(kernel, std::chrono::seconds(30)), CC_OK);
    int64_t wrong = 0;
    for (int64_t e = 0; e < c.count; ++e) {
      float want = 0;
      for (int r = 0; r < c.ranks; ++r)
        want += float((e + 3 * r) % 11);
      for (int r = 0; r < c.ranks; ++r)
        wrong += world.buffer<float>(r, CC_BUF_OUTPUT)[e] != want;
    }
    EXPECT_EQ(wrong, 0) << program.getSymName().str();
  }
}

// Trees on every rail of two a100x8 nodes: the verifier executes one
// channel per image class (the rails' trees are images of rail 0's under
// the machine's GPU renumberings) and proves the others from them; a
// channel moved onto another's parts must still be rejected. (The proof
// needs parts of equal size: 32 of 48 elements.)
// The hierarchical algorithms' groups: nodes, or on one PCIe node the
// sockets (the inter-socket link is the bottleneck); none on one NVSwitch
// node or v100x8's cube mesh (no equal blocks apart from each other).
TEST(Algorithms, HierarchyGroupsAreNodesOrSockets) {
  auto groups = [](const char *topo, int nodes, std::vector<int> ranks = {}) {
    auto machine = ccopt::topo::lookupPreset(topo, nodes);
    if (ranks.empty())
      for (int r = 0; r < machine->ranks(); ++r)
        ranks.push_back(r);
    return ccopt::ranksPerGroup(*machine, ranks);
  };
  EXPECT_EQ(groups("a100x8", 2), 8);
  EXPECT_EQ(groups("a100x8", 4, {0, 1, 8, 9, 16, 17, 24, 25}), 2);
  EXPECT_EQ(groups("pcie4x8", 1), 4);
  EXPECT_EQ(groups("pcie4x8", 1, {0, 1, 4, 5}), 2);
  EXPECT_EQ(groups("pcie4x8", 2), 8);
  EXPECT_EQ(groups("a100x8", 1), std::nullopt);
  EXPECT_EQ(groups("v100x8", 1), std::nullopt);
  EXPECT_EQ(groups("pcie4x8", 1, {0, 4, 1, 5}), std::nullopt); // not socket by socket
  EXPECT_EQ(groups("pcie4x8", 1, {0, 1, 2, 4}), std::nullopt); // unequal
}

TEST(Algorithms, RailTreesAreProvenFromTheirImages) {
  MLIRContext context;
  ccopt::test::loadDialects(context);
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToStart(module->getBody());
  int64_t chunks = 2, channels = 16;
  ccopt::AllReduceShape shape{16, 32 * 48, b.getF32Type(), ccl::ReductionKind::Sum,
                              /*inPlace=*/true, {}};
  auto program = ccopt::buildTreeAllReduce(b, b.getUnknownLoc(), "rails", shape,
                                           ccopt::ncclTrees(16, 8), chunks, channels);
  auto verify = [&] {
    ccopt::SchedVerifyOptions options;
    options.topo = "a100x8";
    options.nodes = 2;
    PassManager pm(&context);
    pm.addPass(ccopt::createSchedVerify(options));
    return pm.run(*module);
  };
  {
    Diagnostics diagnostics(context);
    ASSERT_TRUE(succeeded(verify())) << diagnostics.text;
  }
  // Channel 3 onto channel 2's parts: every part index `chunks` lower.
  for (auto task : program.getBody().front().getOps<sched::TaskOp>()) {
    if (task.getChannel() != 3)
      continue;
    task.walk([&](Operation *op) {
      for (NamedAttribute attr : op->getAttrs())
        if (auto part = dyn_cast<sched::PartAttr>(attr.getValue())) {
          AffineMap index = part.getIndex();
          op->setAttr(attr.getName(),
                      sched::PartAttr::get(&context, part.getBuffer(),
                                           AffineMap::get(index.getNumDims(), 0,
                                                          index.getResult(0) - chunks),
                                           part.getParts()));
        }
    });
  }
  Diagnostics diagnostics(context);
  EXPECT_TRUE(failed(verify()));
  EXPECT_NE(diagnostics.text.find("rank"), std::string::npos) << diagnostics.text;
}

} // namespace

namespace {

// NVLS schedules (ccopt's and the NCCL baseline's on Hopper) must be
// proven right: every rank ends with the whole reduction, and no rank ends
// before the others' stores into it land. They emit multimem steps.
TEST(Algorithms, NvlsAllReduceVerifies) {
  MLIRContext context;
  ccopt::test::loadDialects(context);
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToStart(module->getBody());
  int index = 0;
  for (int64_t ranks : {2, 3, 8})
    for (bool avg : {false, true}) {
      ccopt::AllReduceShape shape{ranks, ranks * 100 + 3, b.getF32Type(),
                                  avg ? ccl::ReductionKind::Avg : ccl::ReductionKind::Sum,
                                  ranks == 3, {}};
      auto program = ccopt::buildNvlsAllReduce(b, b.getUnknownLoc(),
                                               "nvls" + std::to_string(index++), shape,
                                               /*chunks=*/2, /*channels=*/2);
      EXPECT_TRUE(program.getMulticast());
    }
  Diagnostics diagnostics(context);
  EXPECT_TRUE(succeeded(verifySchedules(*module))) << diagnostics.text;
  std::string cuda;
  llvm::raw_string_ostream os(cuda);
  EXPECT_TRUE(succeeded(ccopt::emitCuda(*module, os))) << diagnostics.text;
  EXPECT_NE(cuda.find("cc_multimem_reduce<cc_op_sum>"), std::string::npos);
  EXPECT_NE(cuda.find("multicast=1"), std::string::npos);
}

} // namespace
