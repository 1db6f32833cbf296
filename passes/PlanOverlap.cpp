//===- PlanOverlap.cpp - ccl-plan-overlap ---------------------------------===//
//
// Buffers become ready at ccl.ready events (a backward pass, in order); a
// compute profile gives each event's time. The plan: which ready buffers
// share a bucket, in which order the buckets are issued (as soon as the last
// member is ready), and how many channels (SMs) communication takes. For
// every channel budget, dynamic programming over the buffers in ready order
// picks the bucket boundaries that finish communication first (collective
// times interpolated between simulated sizes); every candidate plan is then
// simulated as a whole step (topology/StepSimulator.h: exact collective
// times, compute slowed by the SMs communication holds) and the shortest
// step wins. The same step model gives the two baselines the report shows:
// no overlap (compute, then the collectives as written) and DDP (fixed 25
// MiB buckets in ready order, NCCL's channel count).
//
//===----------------------------------------------------------------------===//

#include "passes/Algorithms.h"
#include "passes/Buckets.h"
#include "passes/NcclBaseline.h"
#include "passes/Passes.h"
#include "topology/Rings.h"
#include "topology/Simulator.h"
#include "topology/StepSimulator.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>

namespace ccopt {
#define GEN_PASS_DEF_CCLPLANOVERLAP
#include "passes/Passes.h.inc"
} // namespace ccopt

using namespace mlir;
using namespace ccopt;

namespace {

/// DDP's default bucket_cap_mb.
constexpr int64_t kDdpBucketBytes = 25 << 20;

/// One all_reduce of a ready buffer, in ready order.
struct Item {
  ccl::AllReduceOp op;
  int64_t event;
  int64_t bytes;
};

/// What the profile says.
struct Profile {
  std::vector<double> computeUs; ///< per event, in program order
  int64_t sms = 0;               ///< 0: the machine's GPU
};

struct Bucket {
  size_t begin, end; ///< items [begin, end)
};

struct Plan {
  std::vector<Bucket> buckets;
  int64_t channels = 0;
  topo::StepResult step;
};

class Planner {
public:
  Planner(MLIRContext *context, const topo::Machine &machine)
      : context(context), machine(machine) {}

  /// Reads and checks the profile against the program's events; on error a
  /// message naming the field.
  static llvm::Expected<Profile> readProfile(StringRef path,
                                             ArrayRef<std::string> events);

  LogicalResult plan(ccl::ProgramOp program, const Profile &profile);

private:
  /// Simulated time of one ring all-reduce of `count` elements like `like`.
  double collectiveUs(ccl::AllReduceOp like, int64_t count, int64_t channels,
                      int64_t *chunksOut = nullptr);
  /// Interpolated between simulated power-of-two sizes (the DP's estimate).
  double estimateUs(ccl::AllReduceOp like, int64_t bytes, int64_t channels);
  Plan bestPlan(ArrayRef<Item> items, ArrayRef<double> readyAt, int64_t channels);
  topo::StepResult evaluate(ArrayRef<Item> items, ArrayRef<Bucket> buckets,
                            int64_t channels, ArrayRef<double> computeUs,
                            int64_t sms);

  /// The first all_reduce seen of `op`'s kind.
  ccl::AllReduceOp canonical(ccl::AllReduceOp op);

  MLIRContext *context;
  const topo::Machine &machine;
  SmallVector<ccl::AllReduceOp> kinds;
  std::map<std::tuple<Operation *, int64_t, int64_t>, std::pair<double, int64_t>> cache;
};

llvm::Expected<Profile> Planner::readProfile(StringRef path,
                                             ArrayRef<std::string> events) {
  auto fail = [&](const Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   (path + ": " + msg).str());
  };
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail("cannot read the profile: " + buffer.getError().message());
  auto json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return fail(llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root)
    return fail("expected an object with \"events\"");
  Profile profile;
  if (const llvm::json::Value *sms = root->get("sms")) {
    auto value = sms->getAsInteger();
    if (!value || *value < 2)
      return fail("sms: expected an integer of at least 2");
    profile.sms = *value;
  }
  const llvm::json::Array *list = root->getArray("events");
  if (!list)
    return fail("events: expected an array of {\"name\", \"compute_us\"}");
  llvm::StringMap<size_t> index;
  for (auto [i, name] : llvm::enumerate(events))
    index[name] = i;
  profile.computeUs.assign(events.size(), -1);
  for (auto [i, value] : llvm::enumerate(*list)) {
    std::string field = ("events[" + Twine(i) + "]").str();
    const llvm::json::Object *event = value.getAsObject();
    if (!event)
      return fail(field + ": expected an object");
    auto name = event->getString("name");
    if (!name)
      return fail(field + ".name: expected a string");
    auto us = event->getNumber("compute_us");
    if (!us || *us < 0 || !std::isfinite(*us))
      return fail(field + ".compute_us: expected a non-negative number");
    auto it = index.find(*name);
    if (it == index.end())
      return fail(field + ".name: unknown event '" + *name +
                  "' (no ccl.ready declares it)");
    if (profile.computeUs[it->second] >= 0)
      return fail(field + ".name: event '" + *name + "' is listed twice");
    profile.computeUs[it->second] = *us;
  }
  for (auto [i, us] : llvm::enumerate(profile.computeUs))
    if (us < 0)
      return fail("events: no compute time for event '" + events[i] + "'");
  return profile;
}

ccl::AllReduceOp Planner::canonical(ccl::AllReduceOp op) {
  for (ccl::AllReduceOp known : kinds)
    if (known.getOp() == op.getOp() && known.getGroupAttr() == op.getGroupAttr() &&
        known.getCompressAttr() == op.getCompressAttr() &&
        known.getInput().getType().getElementType() ==
            op.getInput().getType().getElementType())
      return known;
  kinds.push_back(op);
  return op;
}

double Planner::collectiveUs(ccl::AllReduceOp like, int64_t count,
                             int64_t channels, int64_t *chunksOut) {
  // Collectives of one kind (reduction, group, types) share their times.
  like = canonical(like);
  auto key = std::make_tuple(like.getOperation(), count, channels);
  if (auto it = cache.find(key); it != cache.end()) {
    if (chunksOut)
      *chunksOut = it->second.second;
    return it->second.first;
  }
  auto n = *ccl::participantCount(like, like.getGroupAttr());
  std::vector<int> ranks;
  if (FlatSymbolRefAttr group = like.getGroupAttr())
    llvm::append_range(ranks, cast<ccl::GroupOp>(SymbolTable::lookupSymbolIn(
                                                     like->getParentOp(), group))
                                  .getRanks());
  else
    for (int r = 0; r < n; ++r)
      ranks.push_back(r);
  auto type = cast<ccl::BufferType>(like.getInput().getType());
  AllReduceShape shape{n, count, type.getElementType(), like.getOp(), true,
                       SmallVector<int64_t>(ranks.begin(), ranks.end())};
  if (TypeAttr compress = like.getCompressAttr())
    shape.wire = compress.getValue();
  // Chunks as the lowering picks them: pieces of about 512 KiB.
  int64_t elementBytes = type.getSizeInBytes() / type.getCount();
  int64_t perPart = count * elementBytes / n / channels;
  int64_t chunks = std::max<int64_t>(1, (perPart + (512 << 10) - 1) / (512 << 10));
  OpBuilder b(context);
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToStart(scratch->getBody());
  auto program = buildRingAllReduce(
      b, b.getUnknownLoc(), "candidate", shape, chunks, channels,
      toScheduleRanks(topo::ringOrders(machine, ranks, channels), ranks));
  auto result = topo::simulate(program, machine, {topo::Protocol::Simple});
  double us = 1e300;
  if (result)
    us = result->timeUs;
  else
    llvm::consumeError(result.takeError());
  cache[key] = {us, program.getChunks()};
  if (chunksOut)
    *chunksOut = program.getChunks();
  return us;
}

double Planner::estimateUs(ccl::AllReduceOp like, int64_t bytes, int64_t channels) {
  auto type = cast<ccl::BufferType>(like.getInput().getType());
  int64_t elementBytes = type.getSizeInBytes() / type.getCount();
  int64_t lo = 4096;
  while (lo * 2 <= bytes)
    lo *= 2;
  if (bytes <= lo)
    return collectiveUs(like, std::max<int64_t>(1, lo / elementBytes), channels);
  double a = collectiveUs(like, lo / elementBytes, channels);
  double b = collectiveUs(like, 2 * lo / elementBytes, channels);
  return a + (b - a) * static_cast<double>(bytes - lo) / static_cast<double>(lo);
}

Plan Planner::bestPlan(ArrayRef<Item> items, ArrayRef<double> readyAt,
                       int64_t channels) {
  // finish[j]: earliest end of communication for items [0, j), the last
  // bucket ending at j; buckets only join items the pass may fuse together.
  size_t n = items.size();
  std::vector<double> finish(n + 1, 1e300);
  std::vector<size_t> from(n + 1, 0);
  finish[0] = 0;
  auto sameKind = [&](const Item &a, const Item &b) {
    auto x = a.op, y = b.op;
    return x.getOp() == y.getOp() && x.getGroupAttr() == y.getGroupAttr() &&
           x.getCompressAttr() == y.getCompressAttr() &&
           x.getInput().getType().getElementType() ==
               y.getInput().getType().getElementType();
  };
  for (size_t j = 1; j <= n; ++j) {
    int64_t bytes = 0;
    for (size_t i = j; i-- > 0;) {
      if (!sameKind(items[i], items[j - 1]))
        break;
      bytes += items[i].bytes;
      double end = std::max(finish[i], readyAt[items[j - 1].event]) +
                   estimateUs(items[j - 1].op, bytes, channels);
      if (end < finish[j]) {
        finish[j] = end;
        from[j] = i;
      }
    }
  }
  Plan plan;
  plan.channels = channels;
  for (size_t j = n; j > 0; j = from[j])
    plan.buckets.push_back({from[j], j});
  std::reverse(plan.buckets.begin(), plan.buckets.end());
  return plan;
}

topo::StepResult Planner::evaluate(ArrayRef<Item> items, ArrayRef<Bucket> buckets,
                                   int64_t channels, ArrayRef<double> computeUs,
                                   int64_t sms) {
  std::vector<topo::StepCollective> comm;
  for (const Bucket &bucket : buckets) {
    int64_t count = 0, event = -1;
    for (size_t i = bucket.begin; i < bucket.end; ++i) {
      ccl::AllReduceOp op = items[i].op;
      count += op.getInput().getType().getCount();
      event = std::max(event, items[i].event);
    }
    comm.push_back({event, collectiveUs(items[bucket.begin].op, count, channels),
                    channels});
  }
  return topo::simulateStep(computeUs, comm, sms);
}

LogicalResult Planner::plan(ccl::ProgramOp program, const Profile &profile) {
  // Events in program order; the event of every ready buffer.
  std::vector<ccl::ReadyOp> readyOps;
  llvm::DenseMap<Value, int64_t> eventOf;
  for (auto ready : program.getBody().front().getOps<ccl::ReadyOp>()) {
    for (Value buffer : ready.getBuffers())
      eventOf[buffer] = readyOps.size();
    readyOps.push_back(ready);
  }
  std::vector<Item> items;
  for (auto op : program.getBody().front().getOps<ccl::AllReduceOp>()) {
    auto it = eventOf.find(op.getInput());
    if (op.getInput() != op.getOutput() || it == eventOf.end() ||
        op->hasAttr("algorithm") || !op.getInput().getDefiningOp<ccl::BufferOp>())
      continue;
    items.push_back({op, it->second,
                     cast<ccl::BufferType>(op.getInput().getType()).getSizeInBytes()});
  }
  if (items.empty())
    return success();
  std::stable_sort(items.begin(), items.end(),
                   [](const Item &a, const Item &b) { return a.event < b.event; });
  int64_t sms = profile.sms ? profile.sms : topo::smCount(static_cast<int>(machine.arch));
  int64_t ncclCh = ncclChannels(machine);
  int64_t lastEvent = static_cast<int64_t>(readyOps.size()) - 1;

  // No overlap: compute, then every collective as written.
  std::vector<topo::StepCollective> asWritten;
  for (auto op : program.getBody().front().getOps<ccl::AllReduceOp>())
    if (eventOf.count(op.getInput()))
      asWritten.push_back({lastEvent,
                           collectiveUs(op, op.getInput().getType().getCount(), ncclCh),
                           ncclCh});
  topo::StepResult none = topo::simulateStep(profile.computeUs, asWritten, sms);

  // DDP: buckets close once they reach 25 MiB, in ready order.
  auto fixedBuckets = [&](int64_t capBytes) {
    std::vector<Bucket> buckets;
    int64_t filled = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      if (buckets.empty() || filled >= capBytes) {
        buckets.push_back({i, i});
        filled = 0;
      }
      buckets.back().end = i + 1;
      filled += items[i].bytes;
    }
    return buckets;
  };
  std::vector<Bucket> ddpBuckets = fixedBuckets(kDdpBucketBytes);
  topo::StepResult ddp = evaluate(items, ddpBuckets, ncclCh, profile.computeUs, sms);

  // ccopt: for every channel budget, the DP's buckets, simulated whole.
  std::vector<double> readyAt;
  double t = 0;
  for (double us : profile.computeUs)
    readyAt.push_back(t += us);
  std::optional<Plan> best;
  for (int64_t channels = 1; channels <= 2 * ncclCh && channels < sms; channels *= 2) {
    // The DP's buckets, and fixed caps around DDP's (the DP estimates
    // times and ignores the slowdown; the step simulation decides).
    std::vector<Plan> candidates{bestPlan(items, readyAt, channels)};
    for (int64_t capMb : {10, 25, 50})
      candidates.push_back({fixedBuckets(capMb << 20), channels, {}});
    for (Plan &plan : candidates) {
      // Fixed caps may join different kinds: only the DP's plan then.
      bool valid = llvm::all_of(plan.buckets, [&](const Bucket &bk) {
        for (size_t i = bk.begin + 1; i < bk.end; ++i)
          if (canonical(items[i].op) != canonical(items[bk.begin].op))
            return false;
        return true;
      });
      if (!valid)
        continue;
      plan.step = evaluate(items, plan.buckets, channels, profile.computeUs, sms);
      if (!best || plan.step.stepUs < best->step.stepUs)
        best = std::move(plan);
    }
  }

  // Rewrite: each bucket right after the ready event of its last member, in
  // issue order, with the schedule the plan simulated.
  Builder b(context);
  // Times and chunks first: fusing erases the ops the cache knows.
  std::vector<std::pair<double, int64_t>> timing;
  for (const Bucket &bucket : best->buckets) {
    int64_t count = 0, chunks = 1;
    for (size_t i = bucket.begin; i < bucket.end; ++i) {
      ccl::AllReduceOp op = items[i].op;
      count += op.getInput().getType().getCount();
    }
    double us = collectiveUs(items[bucket.begin].op, count, best->channels, &chunks);
    timing.push_back({us, chunks});
  }
  Operation *previous = nullptr;
  int64_t previousEvent = -1;
  for (auto [k, bucket] : llvm::enumerate(best->buckets)) {
    SmallVector<ccl::AllReduceOp> ops;
    int64_t event = -1;
    for (size_t i = bucket.begin; i < bucket.end; ++i) {
      ops.push_back(items[i].op);
      event = std::max(event, items[i].event);
    }
    ccl::AllReduceOp fused =
        ops.size() == 1 ? ops.front()
                        : fuseAllReduces(ops, "ccopt.overlap" + std::to_string(k));
    auto [us, chunks] = timing[k];
    fused->setAttr("algorithm", b.getStringAttr("ring"));
    fused->setAttr("channels", b.getI64IntegerAttr(best->channels));
    fused->setAttr("chunks", b.getI64IntegerAttr(chunks));
    fused->setAttr("predicted_us", b.getF64FloatAttr(us));
    Operation *anchor = event == previousEvent ? previous : readyOps[event].getOperation();
    if (auto bucketOp = fused.getInput().getDefiningOp<ccl::BucketOp>()) {
      bucketOp->moveAfter(anchor);
      anchor = bucketOp;
    }
    fused->moveAfter(anchor);
    previous = fused;
    previousEvent = event;
  }
  auto summary = [&](const topo::StepResult &r, int64_t buckets, int64_t channels) {
    return b.getDictionaryAttr({
        b.getNamedAttr("step_us", b.getF64FloatAttr(r.stepUs)),
        b.getNamedAttr("exposed_us", b.getF64FloatAttr(r.exposedUs)),
        b.getNamedAttr("comm_us", b.getF64FloatAttr(r.commUs)),
        b.getNamedAttr("buckets", b.getI64IntegerAttr(buckets)),
        b.getNamedAttr("channels", b.getI64IntegerAttr(channels)),
    });
  };
  program->setAttr(
      "overlap",
      b.getDictionaryAttr({
          b.getNamedAttr("sms", b.getI64IntegerAttr(sms)),
          b.getNamedAttr("compute_us", b.getF64FloatAttr(none.computeUs)),
          b.getNamedAttr("none", summary(none, asWritten.size(), ncclCh)),
          b.getNamedAttr("ddp", summary(ddp, ddpBuckets.size(), ncclCh)),
          b.getNamedAttr("ccopt", summary(best->step, best->buckets.size(),
                                          best->channels)),
      }));
  return success();
}

struct PlanOverlap : ccopt::impl::CclPlanOverlapBase<PlanOverlap> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (profile.empty()) {
      module.emitError("ccl-plan-overlap needs a compute profile (profile=FILE)");
      return signalPassFailure();
    }
    auto loaded = machineFromOptions(module, topo, topoFile, nodes);
    if (failed(loaded))
      return signalPassFailure();
    if (!*loaded) {
      module.emitError("ccl-plan-overlap needs a machine (topo or topo-file)");
      return signalPassFailure();
    }
    module.walk([&](ccl::ProgramOp program) {
      std::vector<std::string> events;
      for (auto ready : program.getBody().front().getOps<ccl::ReadyOp>())
        events.push_back(ready.getName().str());
      if (events.empty())
        return;
      auto read = Planner::readProfile(profile, events);
      if (!read) {
        program.emitError(llvm::toString(read.takeError()));
        return signalPassFailure();
      }
      Planner planner(&getContext(), **loaded);
      if (failed(planner.plan(program, *read)))
        signalPassFailure();
    });
  }
};

} // namespace
