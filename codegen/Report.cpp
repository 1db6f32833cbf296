//===- Report.cpp - predicted performance, nccl-tests style ---------------===//

#include "codegen/Report.h"

#include "passes/NcclBaseline.h"
#include "topology/Bounds.h"
#include "topology/Simulator.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace ccopt;
using namespace ccopt::topo;

namespace {

struct Row {
  std::string collective;
  int64_t sizeBytes, count;
  std::string dtype, redop, algorithm, protocol;
  int64_t channels, chunks;
  double timeUs, algbw, busbw;
  std::string ncclAlgorithm, ncclProtocol;
  double ncclTimeUs, ncclBusbw, boundUs;
  std::string runnerUp; // the selection's second choice, if it ran
  double runnerUpUs = 0;
  // Wire compression: what travels, and the same collective without it.
  std::string wireType;
  int64_t wireBytes = 0;
  double uncompressedTimeUs = 0;
  int64_t uncompressedWireBytes = 0;
};

FailureOr<std::vector<Row>> sweepPoint(ccl::AllReduceOp op, int64_t count,
                                       TypeAttr compress,
                                       const ReportOptions &options);

std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// World ranks a collective runs among.
std::vector<int> participants(Operation *op, FlatSymbolRefAttr group, int64_t world) {
  std::vector<int> ranks;
  if (group) {
    auto program = op->getParentOfType<ccl::ProgramOp>();
    for (int64_t r : cast<ccl::GroupOp>(SymbolTable::lookupSymbolIn(program, group)).getRanks())
      ranks.push_back(r);
  } else {
    for (int r = 0; r < world; ++r)
      ranks.push_back(r);
  }
  return ranks;
}

FailureOr<Row> rowFor(ccl::AllReduceOp op, sched::ProgramOp schedule,
                      const ReportOptions &options) {
  const Machine &machine = *options.machine;
  auto fail = [&](llvm::Error error) -> FailureOr<Row> {
    op.emitError("cannot simulate ") << schedule.getSymName() << ": "
                                     << llvm::toString(std::move(error));
    return failure();
  };
  auto program = op->getParentOfType<ccl::ProgramOp>();
  auto type = cast<ccl::BufferType>(op.getInput().getType());
  std::vector<int> ranks = participants(op, op.getGroupAttr(), *program.getWorld());
  int n = ranks.size();
  auto simulated = simulate(schedule, machine, {Protocol::Simple});
  if (!simulated)
    return fail(simulated.takeError());
  AllReduceShape shape{n, type.getCount(), type.getElementType(), op.getOp(),
                       op.getInput() == op.getOutput(), {}};
  auto nccl = ncclAllReduceBaseline(op.getContext(), shape, ranks, machine);
  if (!nccl)
    return fail(nccl.takeError());
  Row row;
  row.collective = "all_reduce";
  row.sizeBytes = type.getSizeInBytes();
  row.count = type.getCount();
  row.dtype = typeName(type.getElementType());
  row.redop = ccl::stringifyReductionKind(op.getOp()).str();
  row.algorithm = schedule.getAlgorithm().str();
  row.protocol = toString(Protocol::Simple).str();
  row.channels = schedule.getChannels();
  row.chunks = schedule.getChunks();
  row.timeUs = simulated->timeUs;
  double factor = busBandwidthFactor(ccl::CollectiveKind::AllReduce, n);
  // nccl-tests: algbw = size / time; bytes per µs / 1e3 = GB/s.
  row.algbw = row.sizeBytes / row.timeUs / 1e3;
  row.busbw = row.algbw * factor;
  row.ncclAlgorithm = nccl->algorithm;
  row.ncclProtocol = toString(nccl->protocol).str();
  row.ncclTimeUs = nccl->timeUs;
  row.ncclBusbw = row.sizeBytes / nccl->timeUs / 1e3 * factor;
  row.boundUs = lowerBoundUs(ccl::CollectiveKind::AllReduce, ranks,
                             row.sizeBytes, machine);
  if (auto runnerUp = op->getAttrOfType<StringAttr>("runner_up")) {
    row.runnerUp = runnerUp.str();
    row.runnerUpUs = op->getAttrOfType<FloatAttr>("runner_up_us").getValueAsDouble();
  }
  row.wireType = typeName(schedule.getWireType());
  row.wireBytes = simulated->wireBytes;
  row.uncompressedTimeUs = row.timeUs;
  row.uncompressedWireBytes = row.wireBytes;
  if (schedule.getWire()) {
    // The same collective, selected and lowered without compression.
    ReportOptions plain = options;
    plain.pipeline.compress.clear();
    auto uncompressed = sweepPoint(op, type.getCount(), TypeAttr(), plain);
    if (mlir::failed(uncompressed) || uncompressed->empty())
      return failure();
    row.uncompressedTimeUs = uncompressed->front().timeUs;
    row.uncompressedWireBytes = uncompressed->front().wireBytes;
  }
  return row;
}

/// Rows of every lowered collective in `module`.
FailureOr<std::vector<Row>> collectRows(ModuleOp module, const ReportOptions &options) {
  std::vector<Row> rows;
  bool failed = false;
  module.walk([&](ccl::AllReduceOp op) {
    auto name = op->getAttrOfType<FlatSymbolRefAttr>("schedule");
    if (!name || failed)
      return;
    auto schedule = module.lookupSymbol<sched::ProgramOp>(name.getValue());
    auto row = rowFor(op, schedule, options);
    if (mlir::failed(row)) {
      failed = true;
      return;
    }
    rows.push_back(*row);
  });
  if (failed)
    return failure();
  return rows;
}

/// One all-reduce of `count` elements like `op` (compressed to `compress`
/// if set), lowered with `options`.
FailureOr<std::vector<Row>> sweepPoint(ccl::AllReduceOp op, int64_t count,
                                       TypeAttr compress,
                                       const ReportOptions &options) {
  MLIRContext *context = op.getContext();
  auto program = op->getParentOfType<ccl::ProgramOp>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(op.getLoc());
  OpBuilder b(context);
  b.setInsertionPointToStart(module->getBody());
  auto clone = cast<ccl::ProgramOp>(b.clone(*program.getOperation()));
  // Keep groups and this collective; give its buffers the new count.
  auto type = cast<ccl::BufferType>(op.getInput().getType());
  auto resized = ccl::BufferType::get(context, count, type.getElementType());
  Block &body = clone.getBody().front();
  for (Operation &other : llvm::make_early_inc_range(llvm::reverse(body)))
    if (!isa<ccl::GroupOp>(other))
      other.erase();
  b.setInsertionPointToEnd(&body);
  auto in = ccl::BufferOp::create(b, op.getLoc(), resized, "in");
  Value out = in;
  if (op.getInput() != op.getOutput())
    out = ccl::BufferOp::create(b, op.getLoc(), resized, "out");
  ccl::AllReduceOp::create(b, op.getLoc(), op.getOpAttr(), in, out, op.getGroupAttr(),
                           compress);
  PassManager pm(context);
  PipelineOptions pipeline = options.pipeline;
  pipeline.lower = true;
  pipeline.profile.clear();
  pipeline.bucketCapMb = 0;
  buildDefaultPipeline(pm, pipeline);
  if (mlir::failed(pm.run(*module)))
    return failure();
  return collectRows(*module, options);
}

void printTable(llvm::ArrayRef<Row> rows, const ReportOptions &options,
                llvm::raw_ostream &os) {
  const Machine &m = *options.machine;
  os << llvm::formatv("# ccopt report: {0}, {1} node(s), {2} ranks; times "
                      "simulated; nccl = NCCL's algorithms on the same model\n",
                      m.name, m.nodes, m.ranks());
  os << llvm::formatv("# {0,12} {1,12} {2,6} {3,6} {4,10} {5,8} {6,4} {7,6} "
                      "{8,11} {9,8} {10,8}  {11,10} {12,11} {13,8}  {14,11} {15,8} {16,9}"
                      "  {17,5} {18,13} {19,13} {20,8}\n",
                      "size(B)", "count", "type", "redop", "algorithm", "proto",
                      "ch", "chunks", "time(us)", "algbw", "busbw", "nccl_algo",
                      "nccl_us", "nccl_bw", "bound(us)", "vs_nccl", "of_bound",
                      "wire", "wire_bytes", "plain_us", "vs_plain");
  for (const Row &r : rows)
    os << llvm::formatv("  {0,12} {1,12} {2,6} {3,6} {4,10} {5,8} {6,4} {7,6} "
                        "{8,11:F2} {9,8:F2} {10,8:F2}  {11,10} {12,11:F2} {13,8:F2}  "
                        "{14,11:F2} {15,8:F3} {16,9:F3}  {17,5} {18,13} {19,13:F2} "
                        "{20,8:F3}\n",
                        r.sizeBytes, r.count, r.dtype, r.redop, r.algorithm,
                        r.protocol, r.channels, r.chunks, r.timeUs, r.algbw,
                        r.busbw, r.ncclAlgorithm + "/" + r.ncclProtocol,
                        r.ncclTimeUs, r.ncclBusbw, r.boundUs,
                        r.ncclTimeUs / r.timeUs, r.boundUs / r.timeUs, r.wireType,
                        r.wireBytes, r.uncompressedTimeUs,
                        r.uncompressedTimeUs / r.timeUs);
}

/// The step plans ccl-plan-overlap recorded on each program.
struct StepPlan {
  std::string name;
  double stepUs, exposedUs, commUs;
  int64_t buckets, channels;
};
struct StepReport {
  std::string program;
  int64_t sms;
  double computeUs;
  std::vector<StepPlan> plans; // no overlap, DDP, ccopt
};

std::vector<StepReport> collectSteps(ModuleOp module) {
  std::vector<StepReport> steps;
  module.walk([&](ccl::ProgramOp program) {
    auto overlap = program->getAttrOfType<DictionaryAttr>("overlap");
    if (!overlap)
      return;
    auto number = [](DictionaryAttr d, StringRef key) {
      return cast<FloatAttr>(d.get(key)).getValueAsDouble();
    };
    auto integer = [](DictionaryAttr d, StringRef key) {
      return cast<IntegerAttr>(d.get(key)).getInt();
    };
    StepReport step{program.getSymName().str(), integer(overlap, "sms"),
                    number(overlap, "compute_us"), {}};
    for (StringRef plan : {"none", "ddp", "ccopt"}) {
      auto d = cast<DictionaryAttr>(overlap.get(plan));
      step.plans.push_back({plan.str(), number(d, "step_us"), number(d, "exposed_us"),
                            number(d, "comm_us"), integer(d, "buckets"),
                            integer(d, "channels")});
    }
    steps.push_back(std::move(step));
  });
  return steps;
}

void printStepTable(llvm::ArrayRef<StepReport> steps, llvm::raw_ostream &os) {
  for (const StepReport &s : steps) {
    os << llvm::formatv("# step @{0}: compute {1:F1} us on {2} SMs; compute slows to "
                        "SMs/(SMs-ch) while a collective holds ch channels\n",
                        s.program, s.computeUs, s.sms);
    os << llvm::formatv("# {0,-12} {1,12} {2,12} {3,12} {4,8} {5,4}\n", "plan",
                        "step(us)", "exposed(us)", "comm(us)", "buckets", "ch");
    for (const StepPlan &p : s.plans)
      os << llvm::formatv("  {0,-12} {1,12:F1} {2,12:F1} {3,12:F1} {4,8} {5,4}\n",
                          p.name == "none" ? "no-overlap"
                          : p.name == "ddp" ? "ddp-25MiB"
                                            : "ccopt",
                          p.stepUs, p.exposedUs, p.commUs, p.buckets, p.channels);
  }
}

void printJson(llvm::ArrayRef<Row> rows, const ReportOptions &options,
               llvm::raw_ostream &os, llvm::ArrayRef<StepReport> steps) {
  llvm::json::Array jsonRows;
  for (const Row &r : rows)
    jsonRows.push_back(llvm::json::Object{
        {"collective", r.collective},
        {"size_bytes", r.sizeBytes},
        {"count", r.count},
        {"dtype", r.dtype},
        {"redop", r.redop},
        {"algorithm", r.algorithm},
        {"protocol", r.protocol},
        {"channels", r.channels},
        {"chunks", r.chunks},
        {"time_us", r.timeUs},
        {"algbw_gbps", r.algbw},
        {"busbw_gbps", r.busbw},
        {"nccl_algorithm", r.ncclAlgorithm},
        {"nccl_protocol", r.ncclProtocol},
        {"nccl_time_us", r.ncclTimeUs},
        {"nccl_busbw_gbps", r.ncclBusbw},
        {"bound_time_us", r.boundUs},
        {"speedup_vs_nccl", r.ncclTimeUs / r.timeUs},
        {"fraction_of_bound", r.boundUs / r.timeUs},
        {"runner_up", r.runnerUp},
        {"runner_up_time_us", r.runnerUpUs},
        {"wire_type", r.wireType},
        {"wire_bytes", r.wireBytes},
        {"uncompressed_time_us", r.uncompressedTimeUs},
        {"uncompressed_wire_bytes", r.uncompressedWireBytes},
        {"speedup_vs_uncompressed", r.uncompressedTimeUs / r.timeUs},
    });
  const Machine &m = *options.machine;
  llvm::json::Object top{{"topology", m.name},
                         {"nodes", m.nodes},
                         {"ranks", m.ranks()},
                         {"rows", std::move(jsonRows)}};
  if (!steps.empty()) {
    llvm::json::Array jsonSteps;
    for (const StepReport &s : steps) {
      llvm::json::Object step{{"program", s.program},
                              {"sms", s.sms},
                              {"compute_us", s.computeUs}};
      for (const StepPlan &p : s.plans)
        step[p.name] = llvm::json::Object{{"step_us", p.stepUs},
                                          {"exposed_us", p.exposedUs},
                                          {"comm_us", p.commUs},
                                          {"buckets", p.buckets},
                                          {"channels", p.channels}};
      jsonSteps.push_back(std::move(step));
    }
    top["steps"] = std::move(jsonSteps);
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(top))) << "\n";
}

} // namespace

LogicalResult ccopt::emitReport(ModuleOp module, const ReportOptions &options,
                                llvm::raw_ostream &os) {
  std::vector<Row> rows;
  if (!options.sweep) {
    auto collected = collectRows(module, options);
    if (failed(collected))
      return failure();
    rows = std::move(*collected);
  } else {
    auto [lo, hi] = *options.sweep;
    SmallVector<ccl::AllReduceOp> ops;
    module.walk([&](ccl::AllReduceOp op) { ops.push_back(op); });
    for (ccl::AllReduceOp op : ops) {
      auto type = cast<ccl::BufferType>(op.getInput().getType());
      int64_t elementBytes = type.getSizeInBytes() / type.getCount();
      for (int64_t size = lo; size <= hi; size *= 2) {
        auto point = sweepPoint(op, std::max<int64_t>(1, size / elementBytes),
                                op.getCompressAttr(), options);
        if (failed(point))
          return failure();
        llvm::append_range(rows, *point);
      }
    }
  }
  std::vector<StepReport> steps = collectSteps(module);
  if (options.json) {
    printJson(rows, options, os, steps);
  } else {
    printTable(rows, options, os);
    printStepTable(steps, os);
  }
  return success();
}

LogicalResult ccopt::emitTrace(ModuleOp module, const Machine &machine,
                               llvm::raw_ostream &os) {
  std::vector<TraceEvent> events;
  for (auto program : module.getOps<sched::ProgramOp>()) {
    auto result = simulate(program, machine, {Protocol::Simple,
                                              AlgorithmFamily::Ring, /*trace=*/true});
    if (!result)
      return program.emitError("cannot simulate: ")
             << llvm::toString(result.takeError());
    for (TraceEvent &e : result->events) {
      e.track = (program.getSymName() + ": " + e.track).str();
      events.push_back(std::move(e));
    }
  }
  writeChromeTrace(events, os);
  return success();
}
