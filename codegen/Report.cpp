//===- Report.cpp - predicted performance, nccl-tests style ---------------===//

#include "codegen/Report.h"

#include "passes/Collectives.h"
#include "passes/NcclBaseline.h"
#include "topology/Bounds.h"
#include "topology/Simulator.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
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
  int64_t root = -1; // broadcast, reduce: the root (group rank); else -1
  int64_t ranks = 0; // ranks the collective runs among
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

FailureOr<std::vector<Row>> sweepPoint(Operation *op, int64_t bytes,
                                       bool compressed, const ReportOptions &options);

std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// The buffer whose size nccl-tests reports (the larger one) and the one
/// the algorithm builders count in (a rank's block for reduce_scatter and
/// all_gather); null for a barrier.
std::pair<ccl::BufferType, ccl::BufferType> buffersOf(Operation *op) {
  if (op->getNumOperands() == 0)
    return {};
  auto first = cast<ccl::BufferType>(op->getOperand(0).getType());
  if (op->getNumOperands() == 1)
    return {first, first};
  auto second = cast<ccl::BufferType>(op->getOperand(1).getType());
  if (first.getCount() >= second.getCount())
    return {first, second};
  return {second, first};
}

/// A row's fields that come from the schedule and its simulation, once
/// the row's size and ranks are known.
void fillRun(Row &row, ccl::CollectiveKind kind, sched::ProgramOp schedule,
             const SimResult &simulated) {
  row.collective = ccl::stringifyCollectiveKind(kind).str();
  row.algorithm = schedule.getAlgorithm().str();
  row.protocol = toString(topo::protocolOf(schedule.getProtocolKind())).str();
  row.channels = schedule.getChannels();
  row.chunks = schedule.getChunks();
  row.timeUs = simulated.timeUs;
  // nccl-tests: algbw = size / time; bytes per µs / 1e3 = GB/s.
  row.algbw = row.sizeBytes / row.timeUs / 1e3;
  row.busbw = row.algbw * busBandwidthFactor(kind, row.ranks);
  row.wireType = typeName(schedule.getWireType());
  row.wireBytes = simulated.wireBytes;
  row.uncompressedTimeUs = row.timeUs;
  row.uncompressedWireBytes = row.wireBytes;
}

/// A row's NCCL fields.
void fillNccl(Row &row, ccl::CollectiveKind kind, const BaselineResult &nccl) {
  row.ncclAlgorithm = nccl.algorithm;
  row.ncclProtocol = toString(nccl.protocol).str();
  row.ncclTimeUs = nccl.timeUs;
  row.ncclBusbw = row.sizeBytes / nccl.timeUs / 1e3 * busBandwidthFactor(kind, row.ranks);
}

FailureOr<Row> rowFor(Operation *op, sched::ProgramOp schedule,
                      const ReportOptions &options) {
  const Machine &machine = *options.machine;
  auto fail = [&](llvm::Error error) -> FailureOr<Row> {
    op->emitError("cannot simulate ") << schedule.getSymName() << ": "
                                      << llvm::toString(std::move(error));
    return failure();
  };
  ccl::CollectiveKind kind = schedule.getCollective();
  auto c = describeCollective(op);
  if (mlir::failed(c))
    return failure();
  auto simulated = simulate(schedule, machine); // in the program's protocol
  if (!simulated)
    return fail(simulated.takeError());
  bool barrier = kind == ccl::CollectiveKind::Barrier;
  Type elementType = barrier ? schedule.getElementType() : c->shape.elementType;
  auto redopAttr = op->getAttrOfType<ccl::ReductionKindAttr>("op");
  int64_t root = -1;
  if (auto attr = op->getAttrOfType<IntegerAttr>("root"))
    root = attr.getInt();
  // NCCL sends the elements as they are.
  AllReduceShape shape = c->shape;
  shape.elementType = elementType;
  shape.wire = {};
  auto nccl = ncclBaseline(op->getContext(), kind, shape, c->ranks, machine,
                           std::max<int64_t>(root, 0));
  if (!nccl)
    return fail(nccl.takeError());
  Row row;
  row.sizeBytes = c->bytes;
  ccl::BufferType whole = buffersOf(op).first;
  row.count = whole ? whole.getCount() : 0;
  row.dtype = typeName(elementType);
  row.redop = redopAttr ? ccl::stringifyReductionKind(redopAttr.getValue()).str() : "none";
  row.root = root;
  row.ranks = c->ranks.size();
  fillRun(row, kind, schedule, *simulated);
  fillNccl(row, kind, *nccl);
  row.boundUs = lowerBoundUs(kind, c->ranks, row.sizeBytes, machine);
  if (auto runnerUp = op->getAttrOfType<StringAttr>("runner_up")) {
    row.runnerUp = runnerUp.str();
    if (auto us = op->getAttrOfType<FloatAttr>("runner_up_us"))
      row.runnerUpUs = us.getValueAsDouble();
  }
  if (schedule.getWire()) {
    // The same collective, selected and lowered without compression.
    ReportOptions plain = options;
    plain.pipeline.compress.clear();
    auto uncompressed = sweepPoint(op, row.sizeBytes, /*compressed=*/false, plain);
    if (mlir::failed(uncompressed) || uncompressed->empty())
      return failure();
    row.uncompressedTimeUs = uncompressed->front().timeUs;
    row.uncompressedWireBytes = uncompressed->front().wireBytes;
  }
  return row;
}

/// Rows of every lowered collective in `module` (a send and its recv are
/// one row, the send's).
FailureOr<std::vector<Row>> collectRows(ModuleOp module, const ReportOptions &options) {
  std::vector<Row> rows;
  bool failed = false;
  module.walk([&](ccl::ProgramOp program) {
    for (Operation &op : program.getBody().front()) {
      auto name = op.getAttrOfType<FlatSymbolRefAttr>("schedule");
      if (!name || failed || isa<ccl::RecvOp>(op))
        continue;
      auto schedule = module.lookupSymbol<sched::ProgramOp>(name.getValue());
      if (!schedule)
        continue;
      auto row = rowFor(&op, schedule, options);
      if (mlir::failed(row)) {
        failed = true;
        return;
      }
      rows.push_back(*row);
    }
  });
  if (failed)
    return failure();
  return rows;
}

/// Whether the report can sweep `op` over sizes (every lowered collective
/// but a barrier, and a recv, which goes with its send).
bool sweepable(Operation *op) {
  return op->hasAttr("schedule") && op->getNumOperands() > 0 && !isa<ccl::RecvOp>(op);
}

/// One collective like `op` of about `bytes` bytes (nccl-tests' size: the
/// larger buffer; a multiple of the ranks' blocks where the collective
/// splits it), without compression unless `compressed`, lowered with
/// `options`.
FailureOr<std::vector<Row>> sweepPoint(Operation *op, int64_t bytes,
                                       bool compressed,
                                       const ReportOptions &options) {
  MLIRContext *context = op->getContext();
  auto program = op->getParentOfType<ccl::ProgramOp>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(op->getLoc());
  OpBuilder b(context);
  b.setInsertionPointToStart(module->getBody());
  auto clone = cast<ccl::ProgramOp>(b.clone(*program.getOperation()));
  // Keep groups and this collective; give its buffers the new count.
  auto [whole, block] = buffersOf(op);
  int64_t n = isa<ccl::SendOp>(op)
                  ? 1
                  : *ccl::participantCount(op, op->getAttrOfType<FlatSymbolRefAttr>("group"));
  int64_t elementSize = whole.getSizeInBytes() / std::max<int64_t>(1, whole.getCount());
  int64_t count = std::max<int64_t>(1, bytes / std::max<int64_t>(1, elementSize));
  bool blocks = isa<ccl::ReduceScatterOp, ccl::AllGatherOp, ccl::AllToAllOp>(op);
  if (blocks)
    count = std::max<int64_t>(n, count / n * n);
  auto typeOf = [&](Value v) {
    auto type = cast<ccl::BufferType>(v.getType());
    int64_t c = type.getCount() == whole.getCount() ? count : count / n;
    return ccl::BufferType::get(context, c, type.getElementType());
  };
  Block &body = clone.getBody().front();
  for (Operation &other : llvm::make_early_inc_range(llvm::reverse(body)))
    if (!isa<ccl::GroupOp>(other))
      other.erase();
  b.setInsertionPointToEnd(&body);
  IRMapping mapping;
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (!mapping.contains(operand))
      mapping.map(operand, ccl::BufferOp::create(b, op->getLoc(), typeOf(operand),
                                                 i == 0 ? "in" : "out",
                                                 ccl::isMulticastBuffer(operand)));
  SmallVector<Operation *, 2> copies = {op};
  if (isa<ccl::SendOp>(op)) {
    // Its recv, into the same buffer.
    for (auto recv : program.getBody().front().getOps<ccl::RecvOp>())
      if (recv->getAttr("schedule") == op->getAttr("schedule"))
        copies.push_back(recv);
    mapping.map(copies.back()->getOperand(0), mapping.lookup(op->getOperand(0)));
  }
  for (Operation *original : copies) {
    Operation *copy = b.clone(*original, mapping);
    // What selection and lowering wrote goes: the point is chosen again.
    copy->setDiscardableAttrs(DictionaryAttr::get(context, {}));
    if (!compressed)
      copy->removeAttr("compress");
  }
  PassManager pm(context);
  PipelineOptions pipeline = options.pipeline;
  pipeline.lower = true;
  pipeline.profile.clear();
  pipeline.bucketCapMb = 0;
  if (!compressed)
    pipeline.compress.clear();
  buildDefaultPipeline(pm, pipeline);
  if (mlir::failed(pm.run(*module)))
    return failure();
  return collectRows(*module, options);
}

//===-- Hand-written schedules: sched.programs no ccl collective names ----===//

/// The same collective as `schedule`, in ccl, for ccopt to lower its own way;
/// empty where there is nothing to compare with (send/recv, barrier, a
/// program placed by a rank_map).
std::string cclTextFor(sched::ProgramOp schedule) {
  using ccl::CollectiveKind;
  CollectiveKind kind = schedule.getCollective();
  if (schedule.getRankMap() || kind == CollectiveKind::SendRecv ||
      kind == CollectiveKind::Barrier)
    return "";
  auto bufferType = [&](int64_t count) {
    return llvm::formatv("!ccl.buffer<{0}x{1}>", count,
                         typeName(schedule.getElementType()))
        .str();
  };
  std::string in = bufferType(schedule.getInputCount());
  std::string out = bufferType(schedule.getOutputCount());
  std::string redop, root;
  if (auto r = schedule.getRedop())
    redop = (ccl::stringifyReductionKind(*r) + " ").str();
  if (auto r = schedule.getRoot())
    root = " root " + std::to_string(*r);
  std::string text = llvm::formatv("ccl.program @same world({0}) {{\n"
                                   "  %a = ccl.buffer \"a\" : {1}\n",
                                   schedule.getRanks(), in);
  if (!schedule.getInPlace())
    text += "  %b = ccl.buffer \"b\" : " + out + "\n";
  text += llvm::formatv("  ccl.{0} {1}%a -> {2}{3} : {4} -> {5}\n}\n",
                        ccl::stringifyCollectiveKind(kind), redop,
                        schedule.getInPlace() ? "%a" : "%b", root, in, out);
  return text;
}

/// What ccopt itself would run for the collective `schedule` performs: its
/// algorithm and simulated time, or std::nullopt.
std::optional<std::pair<std::string, double>>
ccoptOwn(sched::ProgramOp schedule, const ReportOptions &options) {
  std::string text = cclTextFor(schedule);
  if (text.empty())
    return std::nullopt;
  MLIRContext *context = schedule.getContext();
  // A comparison that cannot be made is left out, not reported as an error.
  ScopedDiagnosticHandler quiet(context, [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, context);
  if (!module)
    return std::nullopt;
  PassManager pm(context);
  PipelineOptions pipeline = options.pipeline;
  pipeline.lower = true;
  pipeline.profile.clear();
  pipeline.bucketCapMb = 0;
  pipeline.compress.clear();
  buildDefaultPipeline(pm, pipeline);
  if (failed(pm.run(*module)))
    return std::nullopt;
  for (auto own : module->getOps<sched::ProgramOp>()) {
    auto simulated = simulate(own, *options.machine);
    if (!simulated) {
      llvm::consumeError(simulated.takeError());
      return std::nullopt;
    }
    return std::make_pair(own.getAlgorithm().str(), simulated->timeUs);
  }
  return std::nullopt;
}

/// The row of a hand-written schedule: simulated, against NCCL's baseline
/// for the same collective and size and against the bound; ccopt's own
/// choice for it as the runner-up.
FailureOr<Row> rowForSchedule(sched::ProgramOp schedule,
                              const ReportOptions &options) {
  using ccl::CollectiveKind;
  const Machine &machine = *options.machine;
  auto fail = [&](llvm::Error error) -> FailureOr<Row> {
    schedule.emitError("cannot simulate ") << schedule.getSymName() << ": "
                                           << llvm::toString(std::move(error));
    return failure();
  };
  CollectiveKind kind = schedule.getCollective();
  int n = schedule.getRanks();
  std::vector<int> ranks;
  for (int r = 0; r < n; ++r)
    ranks.push_back(schedule.worldRank(r));
  auto simulated = simulate(schedule, machine); // in the program's protocol
  if (!simulated)
    return fail(simulated.takeError());
  Type elementType = schedule.getElementType();
  int64_t elementBytes = std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
  int64_t in = schedule.getInputCount(), out = schedule.getOutputCount();
  Row row;
  row.count = std::max(in, out);
  row.sizeBytes = row.count * elementBytes;
  row.dtype = typeName(elementType);
  auto redop = schedule.getRedop();
  row.redop = redop ? ccl::stringifyReductionKind(*redop).str() : "none";
  row.root = schedule.getRoot() ? int64_t(*schedule.getRoot()) : -1;
  row.ranks = n;
  fillRun(row, kind, schedule, *simulated);
  row.boundUs = lowerBoundUs(kind, ranks, row.sizeBytes, machine);
  // NCCL's builders count a rank's block for reduce_scatter and all_gather.
  int64_t shapeCount = kind == CollectiveKind::ReduceScatter ? out
                       : kind == CollectiveKind::AllGather   ? in
                                                             : row.count;
  AllReduceShape shape{n, shapeCount, elementType,
                       redop.value_or(ccl::ReductionKind::Sum),
                       schedule.getInPlace(), {}};
  auto nccl = ncclBaseline(schedule.getContext(), kind, shape, ranks, machine,
                           std::max<int64_t>(row.root, 0));
  if (nccl) {
    fillNccl(row, kind, *nccl);
  } else {
    llvm::consumeError(nccl.takeError());
    row.ncclAlgorithm = "none";
    row.ncclProtocol = "-";
    row.ncclTimeUs = row.ncclBusbw = 0;
  }
  if (auto own = ccoptOwn(schedule, options)) {
    row.runnerUp = "ccopt " + own->first;
    row.runnerUpUs = own->second;
  }
  return row;
}

/// Rows of the sched.programs in `module` that no ccl collective names:
/// schedules written by hand.
FailureOr<std::vector<Row>> collectScheduleRows(ModuleOp module,
                                                const ReportOptions &options) {
  llvm::DenseSet<StringRef> named;
  module.walk([&](Operation *op) {
    if (auto name = op->getAttrOfType<FlatSymbolRefAttr>("schedule"))
      named.insert(name.getValue());
  });
  std::vector<Row> rows;
  for (auto schedule : module.getOps<sched::ProgramOp>()) {
    if (named.contains(schedule.getSymName()))
      continue;
    auto row = rowForSchedule(schedule, options);
    if (failed(row))
      return failure();
    rows.push_back(*row);
  }
  return rows;
}

/// One line per hand-written schedule under the table: what ccopt itself
/// would run for the same collective.
void printScheduleNotes(llvm::ArrayRef<Row> rows,
                        llvm::raw_ostream &os) {
  for (const Row &r : rows) {
    if (r.runnerUp.empty())
      continue;
    os << llvm::formatv("# hand-written {0} ({1}): {2:F2} us; {3} takes {4:F2} us "
                        "({5:F2}x)\n",
                        r.algorithm, r.collective, r.timeUs, r.runnerUp,
                        r.runnerUpUs, r.runnerUpUs / r.timeUs);
  }
}

void printTable(llvm::ArrayRef<Row> rows, const ReportOptions &options,
                llvm::raw_ostream &os) {
  const Machine &m = *options.machine;
  os << llvm::formatv("# ccopt report: {0}, {1} node(s), {2} ranks; times "
                      "simulated; nccl = NCCL's algorithms on the same model\n",
                      m.name, m.nodes, m.ranks());
  os << llvm::formatv("# {0,12} {1,12} {2,6} {3,6} {4,10} {5,8} {6,4} {7,6} "
                      "{8,11} {9,8} {10,8}  {11,10} {12,11} {13,8}  {14,11} {15,8} {16,9}"
                      "  {17,5} {18,13} {19,13} {20,8}  {21,-14} {22,4}\n",
                      "size(B)", "count", "type", "redop", "algorithm", "proto",
                      "ch", "chunks", "time(us)", "algbw", "busbw", "nccl_algo",
                      "nccl_us", "nccl_bw", "bound(us)", "vs_nccl", "of_bound",
                      "wire", "wire_bytes", "plain_us", "vs_plain", "collective",
                      "root");
  for (const Row &r : rows)
    os << llvm::formatv("  {0,12} {1,12} {2,6} {3,6} {4,10} {5,8} {6,4} {7,6} "
                        "{8,11:F2} {9,8:F2} {10,8:F2}  {11,10} {12,11:F2} {13,8:F2}  "
                        "{14,11:F2} {15,8:F3} {16,9:F3}  {17,5} {18,13} {19,13:F2} "
                        "{20,8:F3}  {21,-14} {22,4}\n",
                        r.sizeBytes, r.count, r.dtype, r.redop, r.algorithm,
                        r.protocol, r.channels, r.chunks, r.timeUs, r.algbw,
                        r.busbw, r.ncclAlgorithm + "/" + r.ncclProtocol,
                        r.ncclTimeUs, r.ncclBusbw, r.boundUs,
                        r.ncclTimeUs / r.timeUs, r.boundUs / r.timeUs, r.wireType,
                        r.wireBytes, r.uncompressedTimeUs,
                        r.uncompressedTimeUs / r.timeUs, r.collective, r.root);
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
        {"root", r.root},
        {"collective_ranks", r.ranks},
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
    SmallVector<Operation *> ops;
    module.walk([&](ccl::ProgramOp program) {
      for (Operation &op : program.getBody().front())
        if (sweepable(&op))
          ops.push_back(&op);
    });
    for (Operation *op : ops)
      for (int64_t size = lo; size <= hi; size *= 2) {
        auto point = sweepPoint(op, size, /*compressed=*/true, options);
        if (failed(point))
          return failure();
        llvm::append_range(rows, *point);
      }
  }
  // Hand-written schedules, at the size they are written for.
  auto handWritten = collectScheduleRows(module, options);
  if (failed(handWritten))
    return failure();
  llvm::append_range(rows, *handWritten);
  std::vector<StepReport> steps = collectSteps(module);
  if (options.json) {
    printJson(rows, options, os, steps);
  } else {
    printTable(rows, options, os);
    printScheduleNotes(*handWritten, os);
    printStepTable(steps, os);
  }
  return success();
}

LogicalResult ccopt::emitTrace(ModuleOp module, const Machine &machine,
                               llvm::raw_ostream &os) {
  std::vector<TraceEvent> events;
  for (auto program : module.getOps<sched::ProgramOp>()) {
    auto result = simulate(program, machine, {/*protocol: the program's*/ std::nullopt,
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
