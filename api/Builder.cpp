#include "api/Builder.h"

#include <cctype>

namespace ccopt {
namespace {

// SSA names from buffer names: letters, digits and '_' survive.
std::string ssa(const std::string& name) {
  std::string s = "%";
  for (char c : name) s += (std::isalnum((unsigned char)c) || c == '_') ? c : '_';
  return s;
}

}  // namespace

void ProgramBuilder::buffer(const std::string& name, int64_t count, rt::DType type, bool multicast) {
  const std::string t = "!ccl.buffer<" + std::to_string(count) + "x" + rt::dtypeName(type) + ">";
  types_[name] = t;
  lines_.push_back(ssa(name) + " = ccl.buffer \"" + name + "\"" + (multicast ? " multicast" : "") + " : " + t);
}

void ProgramBuilder::collective(const std::string& op, const std::string& redop, const std::string& in,
                                const std::string& out, const std::string& suffix) {
  auto type = [&](const std::string& b) {
    auto it = types_.find(b);
    return it == types_.end() ? std::string("!ccl.buffer<?>") : it->second;
  };
  lines_.push_back("ccl." + op + " " + (redop.empty() ? "" : redop + " ") + ssa(in) + " -> " + ssa(out) + suffix +
                   " : " + type(in) + " -> " + type(out));
}

void ProgramBuilder::allReduce(const std::string& r, const std::string& in, const std::string& out) {
  collective("all_reduce", r, in, out, "");
}
void ProgramBuilder::reduceScatter(const std::string& r, const std::string& in, const std::string& out) {
  collective("reduce_scatter", r, in, out, "");
}
void ProgramBuilder::allGather(const std::string& in, const std::string& out) {
  collective("all_gather", "", in, out, "");
}
void ProgramBuilder::broadcast(const std::string& in, const std::string& out, int root) {
  collective("broadcast", "", in, out, " root " + std::to_string(root));
}
void ProgramBuilder::reduce(const std::string& r, const std::string& in, const std::string& out, int root) {
  collective("reduce", r, in, out, " root " + std::to_string(root));
}
void ProgramBuilder::allToAll(const std::string& in, const std::string& out) {
  collective("all_to_all", "", in, out, "");
}
void ProgramBuilder::barrier() { lines_.push_back("ccl.barrier"); }

std::string ProgramBuilder::text() const {
  std::string s = "ccl.program @" + name_ + (world_ ? " world(" + std::to_string(world_) + ")" : "") + " {\n";
  for (const std::string& l : lines_) s += "  " + l + "\n";
  return s + "}\n";
}

}  // namespace ccopt
