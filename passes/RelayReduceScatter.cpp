//===- RelayReduceScatter.cpp - reduce-scatter over the machine's links ---===//
//
// The direct reduce-scatter (every rank writes its contribution to block j
// into slot r of rank j's scratch; rank j adds the slots in rank order) on
// a machine whose fast links do not join every pair of GPUs: a contribution
// between GPUs without an NVLink goes into a scratch slot of a GPU linked to
// both (the relay of the all-to-all), which forwards it. Two NVLink hops at
// most where the ring takes n-1. Channel c carries part c of every block.
// Between two ranks the direct contributions go first, then the relayed
// ones, by distance: every rank sends its direct contributions, then its
// relayed ones; receives the direct ones; forwards what it relays; receives
// the relayed ones; adds. Every rank has its own tasks.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

ProgramOp ccopt::buildRelayReduceScatter(OpBuilder &b, Location loc, StringRef name,
                                         const AllReduceShape &shape,
                                         const std::vector<std::vector<int64_t>> &via,
                                         int64_t channels) {
  int64_t n = shape.ranks, m = shape.count;
  assert(!shape.inPlace && "the buffers differ in size");
  // Each relay's (source, destination) pairs, by distance then source: a
  // slot each, after the n contribution slots.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> jobs(n);
  for (int64_t s = 1; s < n; ++s)
    for (int64_t src = 0; src < n; ++src)
      if (int64_t dst = (src + s) % n; via[src][dst] >= 0)
        jobs[via[src][dst]].push_back({src, dst});
  int64_t slots = n;
  for (const auto &list : jobs)
    slots = std::max<int64_t>(slots, n + list.size());
  int64_t C = std::clamp<int64_t>(channels, 1, m);
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::ReduceScatter, shape,
                              /*hasRedop=*/true, n * m, m, n > 1 ? slots * m : 0,
                              std::nullopt, "relay", C, /*chunks=*/1);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  bool finalize = program.getRedop() == ccl::ReductionKind::Avg && !program.getPrescale();
  for (int64_t c = 0; c < C; ++c)
    for (int64_t r = 0; r < n; ++r) {
      buildRankTask(b, loc, program, c, r);
      auto input = [&](int64_t j) { return fixedPart(ctx, BufferKind::Input, j * C + c, n * C); };
      auto slot = [&](int64_t k) { return fixedPart(ctx, BufferKind::Scratch, k * C + c, slots * C); };
      auto relaySlot = [&](int64_t relay, int64_t src, int64_t dst) {
        auto it = llvm::find(jobs[relay], std::make_pair(src, dst));
        return slot(n + (it - jobs[relay].begin()));
      };
      PartAttr out = fixedPart(ctx, BufferKind::Output, c, C);
      if (n == 1) {
        CopyOp::create(b, loc, input(0), out);
        continue;
      }
      for (bool relayed : {false, true})
        for (int64_t s = 1; s < n; ++s)
          if (int64_t dst = (r + s) % n, relay = via[r][dst]; (relay >= 0) == relayed)
            SendOp::create(b, loc, input(dst), fixedPeer(ctx, relayed ? relay : dst),
                           relayed ? relaySlot(relay, r, dst) : slot(r));
      for (int64_t s = 1; s < n; ++s)
        if (int64_t src = (r - s + n) % n; via[src][r] < 0)
          RecvOp::create(b, loc, fixedPeer(ctx, src), slot(src));
      for (auto [src, dst] : jobs[r]) {
        RecvOp::create(b, loc, fixedPeer(ctx, src), relaySlot(r, src, dst));
        SendOp::create(b, loc, relaySlot(r, src, dst), fixedPeer(ctx, dst), slot(src));
      }
      for (int64_t s = 1; s < n; ++s)
        if (int64_t src = (r - s + n) % n, relay = via[src][r]; relay >= 0)
          RecvOp::create(b, loc, fixedPeer(ctx, relay), slot(src));
      // Every contribution, in rank order (the same bits on every run).
      auto contribution = [&](int64_t q) { return q == r ? input(r) : slot(q); };
      for (int64_t q = 1; q < n; ++q)
        ReduceOp::create(b, loc, q == 1 ? contribution(0) : out, contribution(q), out,
                         q == n - 1 && finalize ? b.getUnitAttr() : UnitAttr());
    }
  return program;
}
