//===- HandWrittenScheduleTest.cpp - examples/schedules run on the host ---===//
//
// Every hand-written schedule in examples/schedules goes the whole way: it is
// parsed, given small odd counts (the schedules are written for any count),
// verified against its machine, emitted as CUDA, compiled for the host and
// run with one thread per rank and channel; every output element is compared
// with a plain reference.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "host/HostBackend.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace mlir;

namespace {

struct Example {
  std::string file; // under examples/schedules
  std::string topo;
  int nodes;
};

std::string readExample(const std::string &file) {
  auto buffer = llvm::MemoryBuffer::getFile(std::string(CCOPT_SOURCE_DIR) +
                                            "/examples/schedules/" + file);
  return buffer ? (*buffer)->getBuffer().str() : "";
}

/// Gives every program's buffers `scale` elements per unit of the counts'
/// greatest common divisor (the ratios between them stay as written).
std::string withSmallCounts(MLIRContext &context, const std::string &text,
                            int64_t scale) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return "";
  module->walk([&](sched::ProgramOp program) {
    int64_t unit = 0;
    for (int64_t count : {program.getInputCount(), program.getOutputCount(),
                          program.getScratchCount()})
      unit = std::gcd(unit, count);
    program.setInputCount(program.getInputCount() / unit * scale);
    program.setOutputCount(program.getOutputCount() / unit * scale);
    program.setScratchCount(program.getScratchCount() / unit * scale);
  });
  std::string out;
  llvm::raw_string_ostream os(out);
  module->print(os);
  return out;
}

/// Small integers: float sums of them are exact.
float inputValue(int rank, int64_t i) {
  return static_cast<float>((i * 7 + rank * 13) % 17) - 8;
}

/// What rank `rank` must hold in output element `e`.
float expected(sched::ProgramOp program, int rank, int64_t e) {
  int n = program.getRanks();
  int64_t in = program.getInputCount(), out = program.getOutputCount();
  switch (program.getCollective()) {
  case ccl::CollectiveKind::AllGather:
    return inputValue(e / in, e % in);
  case ccl::CollectiveKind::ReduceScatter: {
    float sum = 0;
    for (int r = 0; r < n; ++r)
      sum += inputValue(r, rank * out + e);
    return sum;
  }
  case ccl::CollectiveKind::AllReduce: {
    float sum = 0;
    for (int r = 0; r < n; ++r)
      sum += inputValue(r, e);
    return sum;
  }
  default:
    ADD_FAILURE() << "no reference for " << program.getSymName().str();
    return 0;
  }
}

class HandWrittenSchedule : public ::testing::TestWithParam<Example> {
protected:
  void SetUp() override { ccopt::test::loadDialects(context); }
  MLIRContext context;
};

TEST_P(HandWrittenSchedule, VerifiesEmitsAndRunsOnTheHost) {
  const Example &example = GetParam();
  std::string text = readExample(example.file);
  ASSERT_FALSE(text.empty()) << "cannot read " << example.file;
  // 37: a prime, so parts differ in size by one element.
  for (int64_t scale : {1, 37}) {
    std::string small = withSmallCounts(context, text, scale);
    ASSERT_FALSE(small.empty());
    ccopt::PipelineOptions options{example.topo, "", example.nodes, 0, 0, true};
    ccopt::test::Compiled compiled = ccopt::test::compile(context, small, options);
    ASSERT_TRUE(compiled.module) << compiled.error;
    std::string error;
    auto host = ccopt::rt::HostModule::compile(compiled.cuda, error);
    ASSERT_TRUE(host) << error;
    int programs = 0;
    for (auto program : compiled.module->getOps<sched::ProgramOp>()) {
      ++programs;
      auto kernel = host->kernel(ccopt::kernelName(program), error);
      ASSERT_TRUE(kernel) << error;
      ASSERT_TRUE(program.getElementType().isF32());
      int n = program.getRanks();
      ccopt::rt::HostWorld world(n, program.getChannels(),
                                 program.getInputCount() * sizeof(float),
                                 program.getOutputCount() * sizeof(float),
                                 program.getScratchCount() * sizeof(float),
                                 program.getInPlace());
      for (int r = 0; r < n; ++r)
        for (int64_t i = 0; i < program.getInputCount(); ++i)
          world.buffer<float>(r, CC_BUF_INPUT)[i] = inputValue(r, i);
      ASSERT_EQ(world.launch(kernel, std::chrono::seconds(60)), CC_OK);
      int64_t wrong = 0;
      for (int r = 0; r < n; ++r)
        for (int64_t e = 0; e < program.getOutputCount(); ++e)
          wrong += world.buffer<float>(r, CC_BUF_OUTPUT)[e] != expected(program, r, e);
      EXPECT_EQ(wrong, 0) << example.file << " with counts x" << scale;
    }
    EXPECT_EQ(programs, 1);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Examples, HandWrittenSchedule,
    ::testing::Values(Example{"two-level-allgather-a100x8x2.mlir", "a100x8", 2},
                      Example{"recursive-halving-reduce-scatter-v100x4.mlir",
                              "v100x8", 1}),
    [](const auto &info) {
      std::string name = info.param.file.substr(0, info.param.file.find('.'));
      for (char &c : name)
        if (!isalnum(static_cast<unsigned char>(c)))
          c = '_';
      return name;
    });

} // namespace
