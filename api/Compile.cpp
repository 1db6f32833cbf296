#include "api/Compile.h"

#include "codegen/CudaEmitter.h"
#include "passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir;

namespace ccopt {
namespace {

rt::Status bad(std::string message) { return rt::Status::error(rt::Code::CompileError, std::move(message)); }

/// The ccl.buffer an operand names.
std::string bufferName(Value v) {
  auto decl = v.getDefiningOp<ccl::BufferOp>();
  return decl ? decl.getName().str() : std::string();
}

/// A runtime type for an MLIR element type, or an error naming `what`.
rt::Status runtimeType(Type element, const std::string& what, rt::DType& out) {
  std::string typeName;
  llvm::raw_string_ostream os(typeName);
  os << element;
  if (!rt::parseDType(typeName, out)) return bad(what + ": no runtime type " + typeName);
  return rt::Status::success();
}

/// Records the buckets and which of them each step reads and writes.
class Collector {
public:
  explicit Collector(CompiledProgram& out) : out_(out) {}

  /// A step's operand: its buffer name, and its bucket index (or -1).
  rt::Status operand(Value v, std::string& name, int& bucket) {
    bucket = -1;
    auto op = v.getDefiningOp<ccl::BucketOp>();
    if (!op) {
      name = bufferName(v);
      return rt::Status::success();
    }
    name = op.getName().str();
    auto [it, fresh] = bucketOf_.try_emplace(op.getOperation(), int(out_.buckets.size()));
    bucket = it->second;
    if (!fresh) return rt::Status::success();
    auto type = cast<ccl::BufferType>(op.getType());
    BucketDecl decl;
    decl.name = name;
    decl.count = type.getCount();
    if (rt::Status s = runtimeType(type.getElementType(), "bucket '" + name + "'", decl.type); !s.ok()) return s;
    for (auto [member, offset] : llvm::zip(op.getMembers(), op.getMemberOffsets()))
      decl.members.push_back({bufferName(member), offset, cast<ccl::BufferType>(member.getType()).getCount()});
    out_.buckets.push_back(std::move(decl));
    return rt::Status::success();
  }

private:
  CompiledProgram& out_;
  std::map<Operation*, int> bucketOf_;
};

rt::Status collect(ccl::ProgramOp program, CompiledProgram& out) {
  out.name = program.getSymName().str();
  out.ranks = program.getWorld() ? int(*program.getWorld()) : 0;
  for (auto decl : program.getBody().front().getOps<ccl::BufferOp>()) {
    auto type = cast<ccl::BufferType>(decl.getType());
    BufferDecl d;
    d.count = type.getCount();
    if (rt::Status s = runtimeType(type.getElementType(), "buffer '" + decl.getName().str() + "'", d.type); !s.ok())
      return s;
    out.buffers[decl.getName().str()] = d;
  }
  Collector buckets(out);
  // Schedules by symbol: send and recv share one.
  std::map<std::string, size_t> stepOf;
  for (Operation& op : program.getBody().front()) {
    auto ref = op.getAttrOfType<FlatSymbolRefAttr>("schedule");
    if (!ref) continue;
    auto schedule = SymbolTable::lookupNearestSymbolFrom<sched::ProgramOp>(program->getParentOp(), ref);
    if (!schedule) return bad("no schedule " + ref.getValue().str());
    auto [it, fresh] = stepOf.try_emplace(ref.getValue().str(), out.steps.size());
    if (fresh) out.steps.push_back({kernelName(schedule), "", "", -1, -1});
    CompiledStep& step = out.steps[it->second];
    rt::Status s;
    if (isa<ccl::SendOp>(op))
      s = buckets.operand(op.getOperand(0), step.input, step.inputBucket);
    else if (isa<ccl::RecvOp>(op))
      s = buckets.operand(op.getOperand(0), step.output, step.outputBucket);
    else if (op.getNumOperands() >= 2) {
      s = buckets.operand(op.getOperand(0), step.input, step.inputBucket);
      if (s.ok()) s = buckets.operand(op.getOperand(1), step.output, step.outputBucket);
    }
    if (!s.ok()) return s;
  }
  return rt::Status::success();
}

/// Options a trainer may get wrong, named by their field.
rt::Status checkOptions(const CompileOptions& options) {
  if (!(options.bucketCapMb >= 0)) {
    char cap[32];
    std::snprintf(cap, sizeof cap, "%g", options.bucketCapMb);
    return bad(std::string("bucketCapMb: must be 0 (no fusion) or a positive cap in MiB, got ") + cap);
  }
  if (!options.compress.empty() && options.compress != "f16" && options.compress != "bf16")
    return bad("compress: must be empty, f16 or bf16, got '" + options.compress + "'");
  return rt::Status::success();
}

}  // namespace

rt::Status compileProgram(const std::string& text, const CompileOptions& options, CompiledProgram& out) {
  if (rt::Status s = checkOptions(options); !s.ok()) return s;
  MLIRContext context;
  context.loadDialect<ccl::CclDialect, sched::SchedDialect>();
  std::string errors;
  llvm::raw_string_ostream diag(errors);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic& d) {
    if (d.getSeverity() != DiagnosticSeverity::Error) return success();
    // file:line:col, as the ccopt tool prints them.
    if (auto loc = dyn_cast<FileLineColLoc>(d.getLocation()))
      diag << loc.getFilename().getValue() << ":" << loc.getLine() << ":" << loc.getColumn();
    else
      diag << d.getLocation();
    diag << ": error: " << d << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context, "program");
  if (!module) return bad(errors.empty() ? "cannot parse the program" : errors);
  auto programs = module->getOps<ccl::ProgramOp>();
  if (std::distance(programs.begin(), programs.end()) != 1) return bad("expected exactly one ccl.program");
  PassManager pm(&context);
  PipelineOptions pipeline;
  pipeline.topo = options.topo;
  pipeline.topoFile = options.topoFile;
  pipeline.nodes = options.nodes;
  pipeline.chunks = options.chunks;
  pipeline.channels = options.channels;
  pipeline.bucketCapMb = options.bucketCapMb;
  pipeline.compress = options.compress;
  pipeline.profile = options.profile;
  buildDefaultPipeline(pm, pipeline);
  if (failed(pm.run(*module))) return bad(errors.empty() ? "the pipeline failed" : errors);
  std::string cuda;
  llvm::raw_string_ostream cudaOs(cuda);
  if (failed(emitCuda(*module, cudaOs))) return bad(errors.empty() ? "CUDA emission failed" : errors);
  CompiledProgram result;
  if (rt::Status s = collect(*programs.begin(), result); !s.ok()) return s;
  if (rt::Status s = rt::parseKernelLibrary(cuda, result.library); !s.ok()) return s;
  out = std::move(result);
  return rt::Status::success();
}

}  // namespace ccopt
