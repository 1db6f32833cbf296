#include "tools/ccbench/KernelFiles.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

namespace ccopt::bench {
namespace {

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The ccl program of one sweep point (what scripts/emit-kernels writes too).
std::string programText(const Shape& s) {
  const std::string t = rt::dtypeName(s.type);
  const std::string in = "!ccl.buffer<" + std::to_string(s.inputCount) + "x" + t + ">";
  const std::string out = "!ccl.buffer<" + std::to_string(s.outputCount) + "x" + t + ">";
  std::string op = s.redop == "none" ? "" : s.redop + " ";
  std::string root = s.collective == "broadcast" ? " root " + std::to_string(s.root) : "";
  return "ccl.program @bench world(" + std::to_string(s.ranks) + ") {\n  %a = ccl.buffer \"a\" : " + in +
         "\n  %b = ccl.buffer \"b\" : " + out + "\n  ccl." + s.collective + " " + op + "%a -> %b" + root + " : " + in +
         " -> " + out + "\n}\n";
}

}  // namespace

std::string kernelFileName(const Shape& s) {
  const int64_t count = std::max(s.inputCount, s.outputCount);
  return s.collective + "-" + s.redop + "-" + rt::dtypeName(s.type) + "-" + std::to_string(s.ranks) + "r-" +
         std::to_string(count) + ".cu";
}

rt::Status loadKernel(const Shape& shape, const std::string& dir, const std::string& ccopt, const std::string& topo,
                      rt::KernelLibrary& out) {
  const std::string path = dir + "/" + kernelFileName(shape);
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    if (ccopt.empty())
      return rt::Status::error(rt::Code::InvalidArgument,
                               "no kernel file " + path + " (scripts/emit-kernels writes them; or pass --ccopt BIN)");
    mkdir(dir.c_str(), 0755);
    const std::string mlir = path + ".mlir";
    {
      std::ofstream f(mlir);
      f << programText(shape);
      if (!f) return rt::Status::error(rt::Code::InvalidArgument, "cannot write " + mlir);
    }
    const std::string cmd = shellQuote(ccopt) + " " + shellQuote(mlir) + (topo.empty() ? "" : " --topo " + shellQuote(topo)) +
                            " --emit=cuda -o " + shellQuote(path);
    const int rc = std::system(cmd.c_str());
    std::remove(mlir.c_str());
    if (rc != 0) return rt::Status::error(rt::Code::CompileError, "failed: " + cmd);
  }
  if (rt::Status st = rt::loadKernelLibrary(path, out); !st.ok()) return st;
  // The file's own metadata must describe the point being measured.
  const rt::Schedule& k = out.schedules.front();
  if (out.schedules.size() != 1 || k.collective != shape.collective || k.redop != shape.redop ||
      k.element != shape.type || k.ranks != shape.ranks || k.inputCount != shape.inputCount ||
      k.outputCount != shape.outputCount || k.inPlace || (shape.collective == "broadcast" && k.root != shape.root))
    return rt::Status::error(rt::Code::InvalidArgument,
                             path + ": its schedule (" + k.collective + " " + k.redop + " " + rt::dtypeName(k.element) +
                                 ", " + std::to_string(k.ranks) + " ranks, " + std::to_string(k.inputCount) + " -> " +
                                 std::to_string(k.outputCount) + (k.inPlace ? ", in place" : "") +
                                 ") is not the one asked for");
  return rt::Status::success();
}

}  // namespace ccopt::bench
