// Compiling a ccl program for a machine, once, inside a training program:
// parse, the default pipeline (world, algorithm selection, lowering,
// verification), CUDA emission. The only part of the API that links MLIR.
#pragma once

#include "api/CompiledProgram.h"
#include "runtime/ccrt/Status.h"

namespace ccopt {

struct CompileOptions {
  std::string topo;      // machine preset (a100x8, h200x8, ...); empty: the program's world(N)
  std::string topoFile;  // or a machine file
  int nodes = 1;
  int64_t chunks = 0;    // 0: automatic
  int64_t channels = 0;  // 0: automatic
};

/// Compiles the one ccl.program in `mlirText`. Errors (syntax, verifier,
/// machine) come back as CompileError with `line:col: error: ...` messages.
rt::Status compileProgram(const std::string& mlirText, const CompileOptions& options, CompiledProgram& out);

}  // namespace ccopt
