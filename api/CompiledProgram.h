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

struct CompiledStep {
  std::string kernel;  // its schedule is library.find(kernel)
  std::string input;   // ccl buffer names; empty when the collective has none (barrier)
  std::string output;
};

struct CompiledProgram {
  std::string name;                          // the ccl.program's symbol
  int ranks = 0;                             // the world
  std::map<std::string, BufferDecl> buffers;  // by ccl.buffer name
  std::vector<CompiledStep> steps;           // program order
  rt::KernelLibrary library;                 // `ccopt --emit=cuda` of the program
};

}  // namespace ccopt
