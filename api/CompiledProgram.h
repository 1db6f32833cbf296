// What compiling a ccl program produces, as plain data (no MLIR): the
// emitted kernel library and, per collective in program order, the kernel
// and the named buffers it reads and writes. A trainer keeps this and runs
// it many times (Executable.h).
#pragma once

#include "runtime/ccrt/Schedule.h"

#include <map>
#include <string>
#include <vector>

namespace ccopt {

struct BufferDecl {
  int64_t count = 0;
  rt::DType type = rt::DType::F32;
};

/// One ccl.buffer inside a bucket: elements [offset, offset + count).
struct BucketMember {
  std::string buffer;  // ccl buffer name
  int64_t offset = 0;  // in elements
  int64_t count = 0;
};

/// A ccl.bucket (`ccl-fuse-buckets`, `ccl-plan-overlap`): flat memory the
/// runtime owns, holding its members back to back. Before a collective reads
/// it the runtime copies the members in; after one writes it, back out.
struct BucketDecl {
  std::string name;  // the ccl.bucket's name
  rt::DType type = rt::DType::F32;
  int64_t count = 0;  // the members' total
  std::vector<BucketMember> members;
};

struct CompiledStep {
  std::string kernel;  // its schedule is library.find(kernel)
  std::string input;   // ccl buffer (or bucket) names; empty when the collective has none (barrier)
  std::string output;
  /// Index into CompiledProgram::buckets when `input` / `output` is a
  /// bucket, else -1. In place: both the same bucket.
  int inputBucket = -1, outputBucket = -1;
};

struct CompiledProgram {
  std::string name;                          // the ccl.program's symbol
  int ranks = 0;                             // the world
  std::map<std::string, BufferDecl> buffers;  // by ccl.buffer name
  std::vector<BucketDecl> buckets;           // in program order
  std::vector<CompiledStep> steps;           // program order
  rt::KernelLibrary library;                 // `ccopt --emit=cuda` of the program
};

}  // namespace ccopt
