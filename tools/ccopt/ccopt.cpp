//===- ccopt.cpp - the ccopt driver ---------------------------------------===//
//
// mlir-opt conventions (input file or -, -o, --pass-pipeline, pass flags,
// --split-input-file, --verify-diagnostics, --mlir-print-ir-after-all) plus
// the machine (--topo, --nodes) and what to emit (--emit=mlir|schedule|cuda).
// Output is written only when everything succeeded, so a failing run never
// leaves a partial or overwritten file.
//
//===----------------------------------------------------------------------===//

#include "codegen/CudaEmitter.h"
#include "codegen/Report.h"
#include "passes/Passes.h"
#include "topology/TopologyFile.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {

enum class Emit { Mlir, Schedule, Cuda, Report, Trace };

cl::OptionCategory category("ccopt options");

cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input file>"),
                                   cl::init("-"), cl::cat(category));
cl::opt<std::string> outputFilename("o", cl::desc("Output file (default: stdout)"),
                                    cl::value_desc("file"), cl::init("-"),
                                    cl::cat(category));
cl::opt<std::string> topo("topo", cl::desc("Machine preset (a100x8)"),
                          cl::value_desc("name"), cl::cat(category));
cl::opt<std::string> topoFile(
    "topo-file", cl::desc("Machine file: ccopt JSON or an NCCL topology XML dump"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<int> nodes("nodes", cl::desc("Number of such nodes"), cl::init(1),
                   cl::cat(category));
cl::opt<Emit> emit(
    "emit", cl::desc("What to print"), cl::init(Emit::Schedule),
    cl::values(clEnumValN(Emit::Mlir, "mlir", "the ccl program, verified"),
               clEnumValN(Emit::Schedule, "schedule",
                          "the optimized, verified schedule IR (default)"),
               clEnumValN(Emit::Cuda, "cuda", "CUDA C++ kernels"),
               clEnumValN(Emit::Report, "report",
                          "predicted times vs the NCCL baseline and the bound"),
               clEnumValN(Emit::Trace, "trace",
                          "Chrome/Perfetto trace of the simulated run")),
    cl::cat(category));
cl::opt<int64_t> chunks("chunks",
                        cl::desc("Pipelined pieces per ring part (0: automatic)"),
                        cl::init(0), cl::cat(category));
cl::opt<std::string> algorithm(
    "algorithm",
    cl::desc("all_reduce algorithm: ring, tree, oneshot, twoshot, "
             "recursive_doubling (default: chosen by simulation on a machine, "
             "else ring)"),
    cl::init(""), cl::cat(category));
cl::opt<int64_t> channels("channels",
                          cl::desc("Channels per rank (0: automatic)"),
                          cl::init(0), cl::cat(category));
cl::opt<std::string> compress(
    "compress", cl::desc("Send every f32 reduction in f16 or bf16 on the wire"),
    cl::value_desc("f16|bf16"), cl::cat(category));
cl::opt<bool> fuseBuckets(
    "fuse-buckets", cl::desc("Fuse consecutive small all_reduces into buckets"),
    cl::cat(category));
cl::opt<double> bucketCapMb(
    "bucket-cap-mb", cl::desc("Largest fused bucket in MiB (default 25)"),
    cl::init(25.0), cl::cat(category));
cl::opt<std::string> profileFile(
    "profile", cl::desc("Compute profile (JSON): plan buckets, order and "
                        "channels to overlap communication with compute"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> reportFormat(
    "report-format", cl::desc("Report as a table or as json"),
    cl::value_desc("table|json"), cl::init("table"), cl::cat(category));
cl::opt<std::string> sweep(
    "sweep", cl::desc("Report every power-of-two size in MIN:MAX bytes "
                      "(suffixes K, M, G)"),
    cl::value_desc("MIN:MAX"), cl::cat(category));
cl::opt<bool> splitInputFile("split-input-file",
                             cl::desc("Process each '// -----' chunk separately"),
                             cl::cat(category));
cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check diagnostics against expected-* comments"), cl::cat(category));

/// The machine of --topo/--nodes, once the options are checked.
std::optional<ccopt::topo::Machine> machine;
std::optional<std::pair<int64_t, int64_t>> sweepRange;

/// 25 -> "25", 0.5 -> "0.5".
std::string shortNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

/// "64K" -> 65536; std::nullopt when malformed.
std::optional<int64_t> parseSize(llvm::StringRef text) {
  int64_t scale = 1;
  if (!text.empty()) {
    switch (llvm::toUpper(text.back())) {
    case 'K': scale = 1LL << 10; break;
    case 'M': scale = 1LL << 20; break;
    case 'G': scale = 1LL << 30; break;
    default: break;
    }
    if (scale != 1)
      text = text.drop_back();
  }
  int64_t value;
  if (text.getAsInteger(10, value) || value < 1)
    return std::nullopt;
  return value * scale;
}

LogicalResult fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "ccopt") << message << "\n";
  return failure();
}

/// Parses, transforms and prints one input (or one split chunk).
LogicalResult processBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                            raw_ostream &os, const PassPipelineCLParser &pipeline,
                            DialectRegistry &registry) {
  MLIRContext context(registry);
  context.allowUnregisteredDialects(false);
  // One-line diagnostics, located in the input; no dump of the op.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), SMLoc());

  // --mlir-timing: parsing, each pass and the emitter, as mlir-opt shows them.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope total = timing.getRootScope();
  auto run = [&]() -> LogicalResult {
    TimingScope parsing = total.nest("Parser");
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    parsing.stop();
    if (!module)
      return failure();
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(total);
    if (pipeline.hasAnyOccurrences()) {
      auto onError = [&](const Twine &msg) {
        emitError(UnknownLoc::get(&context)) << msg;
        return failure();
      };
      if (failed(pipeline.addToPipeline(pm, onError)))
        return failure();
      // --topo/--topo-file/--nodes name the machine for sched-verify too, so
      // that hand-written schedules are checked against its GPUs and routes.
      if (machine) {
        std::string machineOptions =
            (topo.empty() ? "topo-file=" + topoFile : "topo=" + topo) +
            " nodes=" + std::to_string(nodes);
        for (Pass &pass : pm.getPasses())
          if (pass.getArgument() == "sched-verify" &&
              failed(pass.initializeOptions(machineOptions, onError)))
            return failure();
      }
    } else if (machine || (emit.getNumOccurrences() && emit != Emit::Mlir)) {
      // Like mlir-opt, a bare `ccopt file` only parses, verifies and prints.
      ccopt::PipelineOptions options{topo, topoFile, nodes, chunks, channels,
                                     /*lower=*/emit != Emit::Mlir};
      options.compress = compress;
      options.bucketCapMb =
          fuseBuckets || bucketCapMb.getNumOccurrences() ? bucketCapMb.getValue() : 0;
      options.profile = profileFile;
      options.algorithm = algorithm;
      ccopt::buildDefaultPipeline(pm, options);
    }
    if (failed(pm.run(*module)))
      return failure();
    TimingScope output = total.nest("Output");
    if (emit == Emit::Cuda)
      return ccopt::emitCuda(*module, os);
    if (emit == Emit::Report) {
      ccopt::ReportOptions report;
      report.machine = &*machine;
      report.pipeline = {topo, topoFile, nodes, chunks, channels, /*lower=*/true};
      report.pipeline.compress = compress;
      report.pipeline.algorithm = algorithm;
      report.json = reportFormat == "json";
      report.sweep = sweepRange;
      return ccopt::emitReport(*module, report, os);
    }
    if (emit == Emit::Trace)
      return ccopt::emitTrace(*module, *machine, os);
    module->print(os);
    os << "\n";
    return success();
  };

  if (!verifyDiagnostics) {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    return run();
  }
  SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context);
  (void)run();
  return handler.verify();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  ccopt::registerCcoptPasses();
  PassPipelineCLParser pipeline("", "Passes to run (instead of the default pipeline)");
  cl::ParseCommandLineOptions(
      argc, argv,
      "ccopt: compiles collective communication programs for a machine\n\n"
      "  ccopt schedule.mlir --topo a100x8               the verified schedule\n"
      "  ccopt schedule.mlir --topo a100x8 --emit=cuda   its CUDA kernels\n");

  if (!topo.empty() && !ccopt::topo::lookupPreset(topo, 1))
    return failed(fail("unknown machine '" + topo + "' for --topo (presets: " +
                       llvm::join(ccopt::topo::presetNames(), ", ") + ")"));
  if (nodes < 1)
    return failed(fail("--nodes must be at least 1, got " + Twine(nodes)));
  if (!topo.empty() && !topoFile.empty())
    return failed(fail("give --topo or --topo-file, not both"));
  if (!topo.empty() || !topoFile.empty()) {
    auto loaded = ccopt::topo::loadMachine(topo, topoFile, nodes);
    if (!loaded)
      return failed(fail(llvm::toString(loaded.takeError())));
    machine = std::move(*loaded);
  }
  if ((emit == Emit::Report || emit == Emit::Trace) && !machine)
    return failed(fail("--emit=report and --emit=trace need a machine "
                       "(--topo or --topo-file)"));
  if (reportFormat != "table" && reportFormat != "json")
    return failed(fail("--report-format must be table or json, got '" +
                       reportFormat + "'"));
  if (!sweep.empty()) {
    auto [lo, hi] = llvm::StringRef(sweep).split(':');
    auto min = parseSize(lo), max = parseSize(hi);
    if (!min || !max || *min > *max)
      return failed(fail("--sweep must be MIN:MAX with 1 <= MIN <= MAX (e.g. "
                         "1K:1G), got '" + sweep + "'"));
    sweepRange = {*min, *max};
  }
  if (chunks < 0 || channels < 0)
    return failed(fail("--chunks and --channels must not be negative"));
  if (!compress.empty() && compress != "f16" && compress != "bf16")
    return failed(fail("--compress must be f16 or bf16, got '" + compress + "'"));
  if (bucketCapMb.getNumOccurrences() && !(bucketCapMb > 0))
    return failed(fail("--bucket-cap-mb must be positive, got " +
                       llvm::formatv("{0}", shortNumber(bucketCapMb)).str()));
  if (!profileFile.empty() && !machine)
    return failed(fail("--profile needs a machine (--topo or --topo-file)"));

  std::string errorMessage;
  auto input = openInputFile(inputFilename, &errorMessage);
  if (!input) // The message names the file: "cannot open input file '...': ...".
    return failed(fail(errorMessage));

  DialectRegistry registry;
  registry.insert<ccl::CclDialect, sched::SchedDialect>();

  // Render everything first; write only on success.
  std::string text;
  llvm::raw_string_ostream os(text);
  auto process = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     raw_ostream &out) {
    return processBuffer(std::move(chunk), out, pipeline, registry);
  };
  LogicalResult result =
      splitInputFile ? splitAndProcessBuffer(std::move(input), process, os,
                                             kDefaultSplitMarker, kDefaultSplitMarker)
                     : process(std::move(input), os);
  if (failed(result))
    return 1;

  if (outputFilename == "-") {
    llvm::outs() << text;
    return 0;
  }
  if (llvm::Error error = llvm::writeToOutput(outputFilename, [&](raw_ostream &out) {
        out << text;
        return llvm::Error::success();
      })) {
    // Some of these errors name the file ("'out.mlir': ..."), some do not.
    std::string reason = llvm::toString(std::move(error));
    StringRef why = reason;
    why.consume_front("'" + outputFilename + "': ");
    return failed(fail("cannot write output '" + outputFilename + "': " + why));
  }
  return 0;
}
