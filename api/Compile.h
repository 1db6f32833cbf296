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
  double bucketCapMb = 0;  // > 0: fuse consecutive small all_reduces into buckets up to this many MiB; 0: none
  std::string compress;    // "", f16 or bf16: every f32 reduction sends that type on the wire
  std::string profile;     // compute profile JSON: plan buckets and their order for overlap with compute
};

/// Compiles the one ccl.program in `mlirText`. Errors (syntax, verifier,
/// machine) come back as CompileError with `line:col: error: ...` messages;
/// a bad option as CompileError naming the field (`bucketCapMb: ...`).
rt::Status compileProgram(const std::string& mlirText, const CompileOptions& options, CompiledProgram& out);

}  // namespace ccopt
