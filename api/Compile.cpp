#include "api/Compile.h"

#include "codegen/CudaEmitter.h"
#include "passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace ccopt {
namespace {

rt::Status bad(std::string message) { return rt::Status::error(rt::Code::CompileError, std::move(message)); }

/// The ccl.buffer an operand names.
std::string bufferName(Value v) {
  auto decl = v.getDefiningOp<ccl::BufferOp>();
  return decl ? decl.getName().str() : std::string();
}

rt::Status collect(ccl::ProgramOp program, CompiledProgram& out) {
  out.name = program.getSymName().str();
  out.ranks = program.getWorld() ? int(*program.getWorld()) : 0;
  for (auto decl : program.getBody().front().getOps<ccl::BufferOp>()) {
    auto type = cast<ccl::BufferType>(decl.getType());
    BufferDecl d;
    d.count = type.getCount();
    std::string typeName;
    llvm::raw_string_ostream os(typeName);
    os << type.getElementType();
    if (!rt::parseDType(typeName, d.type)) return bad("buffer '" + decl.getName().str() + "': no runtime type " + typeName);
    out.buffers[decl.getName().str()] = d;
  }
  // Schedules by symbol: send and recv share one.
  std::map<std::string, size_t> stepOf;
  for (Operation& op : program.getBody().front()) {
    auto ref = op.getAttrOfType<FlatSymbolRefAttr>("schedule");
    if (!ref) continue;
    auto schedule = SymbolTable::lookupNearestSymbolFrom<sched::ProgramOp>(program->getParentOp(), ref);
    if (!schedule) return bad("no schedule " + ref.getValue().str());
    auto [it, fresh] = stepOf.try_emplace(ref.getValue().str(), out.steps.size());
    if (fresh) out.steps.push_back({kernelName(schedule), "", ""});
    CompiledStep& step = out.steps[it->second];
    if (isa<ccl::SendOp>(op))
      step.input = bufferName(op.getOperand(0));
    else if (isa<ccl::RecvOp>(op))
      step.output = bufferName(op.getOperand(0));
    else if (op.getNumOperands() >= 2) {
      step.input = bufferName(op.getOperand(0));
      step.output = bufferName(op.getOperand(1));
    }
  }
  return rt::Status::success();
}

}  // namespace

rt::Status compileProgram(const std::string& text, const CompileOptions& options, CompiledProgram& out) {
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
