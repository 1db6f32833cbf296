//===- SimulatorBench.cpp - how fast the simulator predicts ---------------===//
//
// The simulator is asked for every report row, every sweep point and every
// NCCL baseline (three protocols each), so its speed bounds how fast ccopt
// can choose. BM_SimulateRingAllReduce times one simulate() of a ring
// all-reduce on a100x8 (as many nodes as the ranks need), each channel in
// its own ring order as ccopt lowers it; items/s are the schedule steps of
// all ranks per second (SimResult::steps; folded ranks and channels count).
// BM_NcclBaseline times ncclAllReduceBaseline (build + simulate LL, LL128,
// Simple) for 8 ranks.
//
//   build/bin/bench-simulator [--benchmark_filter=...]
//
//===----------------------------------------------------------------------===//

#include "passes/Algorithms.h"
#include "passes/NcclBaseline.h"
#include "topology/Machine.h"
#include "topology/Rings.h"
#include "topology/Simulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

#include <benchmark/benchmark.h>

#include <numeric>

// Results feed the counters, so nothing is optimized away; no
// benchmark::DoNotOptimize on doubles: libbenchmark 1.7's "+m,r" constraint
// hands GCC a general register for them and the counters read garbage.

using namespace mlir;

namespace {

/// a100x8 with enough nodes for `ranks`.
ccopt::topo::Machine machineFor(int64_t ranks) {
  return *ccopt::topo::lookupPreset("a100x8", std::max<int64_t>(1, (ranks + 7) / 8));
}

ccopt::AllReduceShape shapeOf(MLIRContext &context, int64_t ranks, int64_t bytes) {
  return {ranks, bytes / 4, Float32Type::get(&context), ccl::ReductionKind::Sum,
          /*inPlace=*/true, {}};
}

/// Args: ranks, channels, log2(bytes).
void BM_SimulateRingAllReduce(benchmark::State &state) {
  int64_t ranks = state.range(0), channels = state.range(1);
  int64_t bytes = int64_t(1) << state.range(2);
  MLIRContext context;
  context.loadDialect<ccl::CclDialect, sched::SchedDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  OpBuilder b(&context);
  b.setInsertionPointToStart(module->getBody());
  // Pieces of ~512 KiB per ring part and channel, as ccopt lowers.
  int64_t chunks = std::max<int64_t>(1, bytes / (ranks * channels) / (512 << 10));
  ccopt::topo::Machine machine = machineFor(ranks);
  std::vector<int> world(ranks);
  std::iota(world.begin(), world.end(), 0);
  auto orders = ccopt::toScheduleRanks(
      ccopt::topo::ringOrders(machine, world, channels), world);
  auto program = ccopt::buildRingAllReduce(b, b.getUnknownLoc(), "ring",
                                           shapeOf(context, ranks, bytes), chunks,
                                           channels, orders);
  int64_t steps = 0;
  double simulatedUs = 0;
  for (auto _ : state) {
    auto result = ccopt::topo::simulate(program, machine);
    if (!result) {
      state.SkipWithError(llvm::toString(result.takeError()).c_str());
      return;
    }
    steps += result->steps;
    simulatedUs = result->timeUs;
  }
  state.SetItemsProcessed(steps);
  state.counters["chunks"] = program.getChunks();
  state.counters["sim_us"] = simulatedUs;
}
BENCHMARK(BM_SimulateRingAllReduce)
    ->ArgNames({"ranks", "channels", "log2bytes"})
    ->ArgsProduct({{8}, {1, 16}, {22, 30}})
    ->ArgsProduct({{64, 1024}, {1, 16}, {22, 30}})
    ->Unit(benchmark::kMillisecond);

/// Arg: log2(bytes).
void BM_NcclBaseline(benchmark::State &state) {
  int64_t bytes = int64_t(1) << state.range(0);
  MLIRContext context;
  context.loadDialect<ccl::CclDialect, sched::SchedDialect>();
  ccopt::topo::Machine machine = machineFor(8);
  std::vector<int> ranks(8);
  std::iota(ranks.begin(), ranks.end(), 0);
  double us = 0;
  for (auto _ : state) {
    auto result = ccopt::ncclAllReduceBaseline(&context, shapeOf(context, 8, bytes),
                                               ranks, machine);
    if (!result) {
      state.SkipWithError(llvm::toString(result.takeError()).c_str());
      return;
    }
    us = result->timeUs;
  }
  state.counters["sim_us"] = us;
}
BENCHMARK(BM_NcclBaseline)
    ->ArgNames({"log2bytes"})
    ->Arg(3)
    ->Arg(22)
    ->Arg(30)
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
