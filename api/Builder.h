// A small builder for ccl programs, for callers that would rather not write
// MLIR text: declare buffers, add collectives, take the text to Compile.h.
//
//   ProgramBuilder b("step", 8);
//   b.buffer("grads", 1 << 20, rt::DType::F32);
//   b.allReduce("avg", "grads", "grads");
//   compileProgram(b.text(), {}, program);
#pragma once

#include "runtime/ccrt/Schedule.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ccopt {

class ProgramBuilder {
public:
  /// `world` 0: the machine given at compile time sets it.
  explicit ProgramBuilder(std::string name, int world = 0) : name_(std::move(name)), world_(world) {}

  /// `multicast`: the caller binds MulticastBuffers memory (on an NVSwitch
  /// with NVLS, all-reduces of it may reduce in the switch).
  void buffer(const std::string& name, int64_t count, rt::DType type, bool multicast = false);
  /// `redop`: sum, prod, min, max or avg.
  void allReduce(const std::string& redop, const std::string& in, const std::string& out);
  void reduceScatter(const std::string& redop, const std::string& in, const std::string& out);
  void allGather(const std::string& in, const std::string& out);
  void broadcast(const std::string& in, const std::string& out, int root);
  void reduce(const std::string& redop, const std::string& in, const std::string& out, int root);
  void allToAll(const std::string& in, const std::string& out);
  void barrier();

  /// The ccl.program. Names that were never declared come out as they are,
  /// so the compiler reports them.
  std::string text() const;

private:
  void collective(const std::string& op, const std::string& redop, const std::string& in, const std::string& out,
                  const std::string& suffix);
  std::string name_;
  int world_;
  std::vector<std::string> lines_;
  std::map<std::string, std::string> types_;  // buffer name -> !ccl.buffer<...>
};

}  // namespace ccopt
