//===- SelectAlgorithm.cpp - ccl-select-algorithm -------------------------===//

#include "passes/Algorithms.h"
#include "passes/NcclBaseline.h"
#include "passes/Passes.h"
#include "dialect/Sched/StepWalker.h"
#include "topology/Rings.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace ccopt {
#define GEN_PASS_DEF_CCLSELECTALGORITHM
#include "passes/Passes.h.inc"
} // namespace ccopt

using namespace mlir;
using namespace ccopt;

namespace {

/// Simulated steps a candidate may take (about a second of simulation).
constexpr int64_t kStepBudget = 1 << 20;

/// Scratch the direct algorithms may take per rank (they keep a copy of
/// every rank's buffer): they win on latency, for small buffers.
constexpr int64_t kDirectScratchBytes = int64_t(256) << 20;
/// Beyond this many ranks the direct algorithms' n-1 sends in a row lose to
/// anything with fewer hops, and verifying them costs n^2 steps.
constexpr int64_t kDirectMaxRanks = 64;

/// LL mailbox a rank may hold (its sync area): LL is for small messages.
constexpr int64_t kLLMailboxBytes = int64_t(16) << 20;

struct Choice {
  std::string algorithm;
  int64_t channels, chunks;
  double timeUs;
  std::string protocol = "simple";
};

struct SelectAlgorithm : ccopt::impl::CclSelectAlgorithmBase<SelectAlgorithm> {
  using Base::Base;

  void runOnOperation() override {
    auto loaded = machineFromOptions(getOperation(), topo, topoFile, nodes);
    if (failed(loaded))
      return signalPassFailure();
    if (!*loaded) {
      getOperation().emitError("ccl-select-algorithm needs a machine (topo or topo-file)");
      return signalPassFailure();
    }
    machine = std::move(**loaded);
    getOperation().walk([&](ccl::AllReduceOp op) {
      if (!op->hasAttr("algorithm") && failed(select(op)))
        signalPassFailure();
    });
  }

  /// Simulates one candidate under Simple and, where its messages fit an
  /// LL mailbox, LL; the faster time and its protocol. +inf when it cannot
  /// run.
  double timeOf(AllReduceShape &shape, ArrayRef<int> ranks, StringRef algorithm,
                int64_t channels, int64_t chunks, std::string &protocol) {
    OpBuilder b(&getContext());
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(b.getUnknownLoc());
    b.setInsertionPointToStart(scratch->getBody());
    sched::ProgramOp program;
    Location loc = b.getUnknownLoc();
    if (algorithm == "ring")
      program = buildRingAllReduce(
          b, loc, "candidate", shape, chunks, channels,
          toScheduleRanks(topo::ringOrders(machine, ranks, channels), ranks));
    else if (algorithm == "oneshot")
      program = buildOneShotAllReduce(b, loc, "candidate", shape, channels);
    else if (algorithm == "twoshot")
      program = buildTwoShotAllReduce(b, loc, "candidate", shape, channels);
    else if (algorithm == "recursive_doubling")
      program = buildRecursiveDoublingAllReduce(b, loc, "candidate", shape, channels);
    else if (algorithm.starts_with("hierarchical"))
      program = buildHierarchicalAllReduce(b, loc, "candidate", shape,
                                           *ranksPerNode(machine, ranks),
                                           algorithm == "hierarchical", channels);
    else
      program = buildTreeAllReduce(
          b, b.getUnknownLoc(), "candidate", shape,
          ncclTrees(shape.ranks, machine.gpusPerNode), chunks, channels);
    double best = 1e300;
    for (auto kind : {sched::ProtocolKind::Simple, sched::ProtocolKind::LL}) {
      if (kind == sched::ProtocolKind::LL) {
        // Sizing the mailbox walks every rank's steps: only where that is
        // cheap (LL is for small worlds' and buffers' latency anyway).
        if (shape.ranks * shape.ranks * channels * chunks * 5 > kStepBudget)
          continue;
        auto box = sched::llMailbox(program);
        if (failed(box) || box->bytes(program) > kLLMailboxBytes)
          continue;
      }
      program.setProtocol(kind);
      auto result = topo::simulate(program, machine);
      if (!result) {
        llvm::consumeError(result.takeError());
        continue;
      }
      if (result->timeUs < best) {
        best = result->timeUs;
        protocol = sched::stringifyProtocolKind(kind).str();
      }
    }
    return best;
  }

  LogicalResult select(ccl::AllReduceOp op) {
    auto n = ccl::participantCount(op, op.getGroupAttr());
    if (!n)
      return op.emitError("the number of ranks is unknown: run ccl-assign-world first");
    auto type = cast<ccl::BufferType>(op.getInput().getType());
    std::vector<int> ranks;
    if (FlatSymbolRefAttr group = op.getGroupAttr())
      llvm::append_range(ranks, cast<ccl::GroupOp>(SymbolTable::lookupSymbolIn(
                                                       op->getParentOp(), group))
                                    .getRanks());
    else
      for (int r = 0; r < *n; ++r)
        ranks.push_back(r);
    AllReduceShape shape{*n, type.getCount(), type.getElementType(), op.getOp(),
                         op.getInput() == op.getOutput(),
                         SmallVector<int64_t>(ranks.begin(), ranks.end())};
    if (TypeAttr compress = op.getCompressAttr())
      shape.wire = compress.getValue();
    // Per algorithm: every power-of-two channel count, and for each, double
    // the chunks while that helps.
    std::vector<Choice> best;
    int64_t maxChannels = 2 * ncclChannels(machine);
    std::optional<int64_t> perNode = ranksPerNode(machine, ranks);
    for (StringRef algorithm : allReduceAlgorithms()) {
      if (algorithm == "tree" && *n < 3)
        continue; // a tree of two is the ring
      if (!allReduceUnsupported(algorithm, ranks, &machine).empty())
        continue;
      // Scratch of the direct, doubling and hierarchical algorithms, in
      // copies of the buffer; they win on latency, for small buffers.
      bool direct = algorithm == "oneshot" || algorithm == "twoshot";
      int64_t copies = direct                              ? *n
                       : algorithm == "recursive_doubling" ? llvm::Log2_64(*n)
                       : algorithm.starts_with("hierarchical") ? *perNode + 1
                                                               : 0;
      if (*n < 2 && algorithm != "ring")
        continue;
      if ((direct && *n > kDirectMaxRanks) ||
          copies * type.getSizeInBytes() > kDirectScratchBytes)
        continue;
      // Only rings and trees pipeline in chunks.
      int64_t maxChunks = algorithm == "ring" || algorithm == "tree" ? 256 : 1;
      std::optional<Choice> bestHere;
      for (int64_t channels = 1; channels <= maxChannels; channels *= 2) {
        std::optional<Choice> bestChunks;
        for (int64_t chunks = 1; chunks <= maxChunks; chunks *= 2) {
          // Simulation time grows with the steps; beyond a budget only the
          // smallest candidate runs (large worlds keep compile time sane).
          int64_t perThread = algorithm == "tree" ? 4
                              : algorithm == "recursive_doubling"
                                  ? 3 * llvm::Log2_64(*n)
                              : perNode && algorithm.starts_with("hierarchical")
                                  ? 4 * *perNode + 2 * *n / *perNode
                                  : 5 * *n; // ring 2n, one-shot 3n, two-shot 5n
          int64_t steps = *n * channels * chunks * perThread;
          if (steps > kStepBudget && (bestChunks || bestHere))
            break;
          std::string protocol;
          double us = timeOf(shape, ranks, algorithm, channels, chunks, protocol);
          if (bestChunks && us >= bestChunks->timeUs)
            break;
          bestChunks = Choice{algorithm.str(), channels, chunks, us, protocol};
        }
        // Every channel count is tried: rings per channel can differ (NIC
        // rails, NVLink-disjoint rings), so time is not unimodal in them.
        if (bestChunks && (!bestHere || bestChunks->timeUs < bestHere->timeUs))
          bestHere = bestChunks;
      }
      if (bestHere)
        best.push_back(*bestHere);
    }
    llvm::sort(best, [](const Choice &a, const Choice &b) { return a.timeUs < b.timeUs; });
    Builder b(&getContext());
    op->setAttr("algorithm", b.getStringAttr(best[0].algorithm));
    op->setAttr("channels", b.getI64IntegerAttr(best[0].channels));
    op->setAttr("chunks", b.getI64IntegerAttr(best[0].chunks));
    op->setAttr("protocol", b.getStringAttr(best[0].protocol));
    op->setAttr("predicted_us", b.getF64FloatAttr(best[0].timeUs));
    if (best.size() > 1) {
      op->setAttr("runner_up", b.getStringAttr(best[1].algorithm));
      op->setAttr("runner_up_us", b.getF64FloatAttr(best[1].timeUs));
    }
    return success();
  }

  topo::Machine machine;
};

} // namespace
