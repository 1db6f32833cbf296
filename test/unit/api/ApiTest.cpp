// The trainer API on the host backend: compile in-process (text or
// builder), load, bind by buffer name, run many times; the C API over it;
// and the errors both give for bad programs and bad buffers.
#include "api/Builder.h"
#include "api/Compile.h"
#include "api/Executable.h"
#include "ccopt/ccopt.h"

#include <gtest/gtest.h>

#include <cstring>

namespace ccopt {
namespace {

using rt::Code;

TEST(Compile, ReportsLocatedErrors) {
  CompiledProgram p;
  rt::Status s = compileProgram("ccl.program @p world(2) {\n  %a = ccl.buffer \"a\" : !ccl.buffer<4xf32>\n  ccl.bogus\n}\n",
                                {}, p);
  EXPECT_EQ(s.code, Code::CompileError);
  EXPECT_EQ(s.message.rfind("program:3:3: error: custom op 'ccl.bogus' is unknown", 0), 0u) << s.message;
  s = compileProgram("", {}, p);
  EXPECT_EQ(s.code, Code::CompileError);
  EXPECT_EQ(s.message, "expected exactly one ccl.program");
  CompileOptions bad;
  bad.topo = "nosuchmachine";
  ProgramBuilder b("p");
  b.buffer("g", 16, rt::DType::F32);
  b.allReduce("sum", "g", "g");
  s = compileProgram(b.text(), bad, p);
  EXPECT_EQ(s.code, Code::CompileError);
  EXPECT_NE(s.message.find("nosuchmachine"), std::string::npos) << s.message;
}

TEST(Compile, BuilderProgramHasStepsInOrder) {
  ProgramBuilder b("step", 4);
  b.buffer("big", 400, rt::DType::I32);
  b.buffer("small", 100, rt::DType::I32);
  b.reduceScatter("sum", "big", "small");
  b.allGather("small", "big");
  b.barrier();
  CompiledProgram p;
  rt::Status s = compileProgram(b.text(), {}, p);
  ASSERT_TRUE(s.ok()) << s.message << "\n" << b.text();
  EXPECT_EQ(p.name, "step");
  EXPECT_EQ(p.ranks, 4);
  ASSERT_EQ(p.steps.size(), 3u);
  EXPECT_EQ(p.steps[0].input, "big");
  EXPECT_EQ(p.steps[0].output, "small");
  EXPECT_EQ(p.steps[1].input, "small");
  EXPECT_EQ(p.steps[2].input, "");
  EXPECT_EQ(p.buffers.at("big").count, 400);
  EXPECT_EQ(p.buffers.at("big").type, rt::DType::I32);
  for (const CompiledStep& step : p.steps) EXPECT_TRUE(p.library.find(step.kernel)) << step.kernel;
}

// Multicast buffers on an NVSwitch with NVLS: the all-reduce reduces in the
// switch (here on the host backend, which reduces over every rank's buffer);
// the ordinary buffer's does not.
TEST(Compile, MulticastBuffersReduceInTheSwitch) {
  ProgramBuilder b("step", 8);
  b.buffer("grads", 1 << 22, rt::DType::F32, /*multicast=*/true);
  b.buffer("plain", 1 << 22, rt::DType::F32);
  b.allReduce("sum", "grads", "grads");
  b.allReduce("sum", "plain", "plain");
  CompileOptions options;
  options.topo = "h100x8";
  CompiledProgram p;
  rt::Status s = compileProgram(b.text(), options, p);
  ASSERT_TRUE(s.ok()) << s.message << "\n" << b.text();
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.library.find(p.steps[0].kernel)->algorithm, "nvls");
  EXPECT_TRUE(p.library.find(p.steps[0].kernel)->multicast);
  EXPECT_NE(p.library.find(p.steps[1].kernel)->algorithm, "nvls");
  std::unique_ptr<Executable> exe = Executable::load(p, Target::host(), s);
  ASSERT_TRUE(exe) << s.message;
  std::vector<std::vector<float>> grads(8, std::vector<float>(1 << 22)), plain = grads;
  std::vector<RankMemory> m;
  for (int r = 0; r < 8; ++r) {
    for (size_t i = 0; i < grads[r].size(); ++i) grads[r][i] = plain[r][i] = float((i + r) % 5);
    m.push_back({r, {{"grads", {grads[r].data(), grads[r].size() * 4}}, {"plain", {plain[r].data(), plain[r].size() * 4}}}, -1});
  }
  ASSERT_TRUE((s = exe->bind(m)).ok()) << s.message;
  ASSERT_TRUE((s = exe->run()).ok()) << s.message;
  int64_t wrong = 0;
  for (int r = 0; r < 8; ++r)
    for (size_t i = 0; i < grads[r].size(); i += 997) {
      float want = 0;
      for (int q = 0; q < 8; ++q) want += float((i + q) % 5);
      wrong += (grads[r][i] != want) + (plain[r][i] != want);
    }
  EXPECT_EQ(wrong, 0);
}

class HostExecutable : public ::testing::Test {
protected:
  void SetUp() override {
    ProgramBuilder b("step", 4);
    b.buffer("big", 400, rt::DType::I32);
    b.buffer("small", 100, rt::DType::I32);
    b.reduceScatter("sum", "big", "small");
    b.allGather("small", "big");
    b.barrier();
    rt::Status s = compileProgram(b.text(), {}, program);
    ASSERT_TRUE(s.ok()) << s.message;
    exe = Executable::load(program, Target::host(), s);
    ASSERT_TRUE(exe) << s.message;
    big.assign(4, std::vector<int32_t>(400));
    small.assign(4, std::vector<int32_t>(100));
  }
  std::vector<RankMemory> memory() {
    std::vector<RankMemory> m;
    for (int r = 0; r < 4; ++r)
      m.push_back({r, {{"big", {big[r].data(), 1600}}, {"small", {small[r].data(), 400}}}, -1});
    return m;
  }
  CompiledProgram program;
  std::unique_ptr<Executable> exe;
  std::vector<std::vector<int32_t>> big, small;
};

// reduce_scatter then all_gather: every rank ends with the sum over ranks.
TEST_F(HostExecutable, RunsEveryStepManyTimes) {
  ASSERT_TRUE(exe->bind(memory()).ok());
  for (int round = 0; round < 3; ++round) {
    for (int r = 0; r < 4; ++r)
      for (int i = 0; i < 400; ++i) big[r][i] = i * 3 + r * 100 + round;
    rt::Status s = exe->run();
    ASSERT_TRUE(s.ok()) << s.message;
    int wrong = 0;
    for (int r = 0; r < 4; ++r)
      for (int i = 0; i < 400; ++i) wrong += big[r][i] != 4 * (i * 3 + round) + 600;
    EXPECT_EQ(wrong, 0) << "round " << round;
  }
  EXPECT_TRUE(exe->asyncError().ok());
}

TEST_F(HostExecutable, BadBindingsChangeNothing) {
  auto m = memory();
  m[2].buffers.erase("small");
  rt::Status s = exe->bind(m);
  EXPECT_EQ(s.code, Code::InvalidArgument);
  EXPECT_EQ(s.message, "rank 2 has no buffer 'small'");
  m = memory();
  m[1].buffers["big"].bytes = 1599;
  s = exe->bind(m);
  EXPECT_EQ(s.code, Code::InvalidArgument);
  EXPECT_NE(s.message.find("rank 1 input: too small (1599 bytes, needs 1600)"), std::string::npos) << s.message;
  m = memory();
  m[3].rank = 7;
  s = exe->bind(m);
  EXPECT_EQ(s.message, "rank 7 out of range: the program has 4 ranks");
  m = memory();
  m.pop_back();
  EXPECT_EQ(exe->bind(m).message, "no memory for rank 3");
  EXPECT_EQ(exe->run().code, Code::InvalidUsage);  // nothing bound yet
}

// A group's collective binds the group's ranks (the schedule's rank_map), a
// send/recv pair its two ranks; nobody else's memory is touched.
TEST(Executable, GroupsAndPointToPointBindTheirRanks) {
  const char* text = R"(ccl.program @mix world(4) {
  ccl.group @pair ranks [2, 0]
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %b = ccl.buffer "b" : !ccl.buffer<64xf32>
  ccl.all_reduce sum %a -> %a group @pair : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
  ccl.send %a from 1 to 3 : !ccl.buffer<64xf32>
  ccl.recv %b from 1 to 3 : !ccl.buffer<64xf32>
}
)";
  CompiledProgram p;
  rt::Status s = compileProgram(text, {}, p);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.library.find(p.steps[0].kernel)->rankMap, (std::vector<int>{2, 0}));
  EXPECT_EQ(p.steps[1].input, "a");
  EXPECT_EQ(p.steps[1].output, "b");
  auto exe = Executable::load(p, Target::host(), s);
  ASSERT_TRUE(exe) << s.message;
  std::vector<std::vector<float>> a(4, std::vector<float>(64)), b(4, std::vector<float>(64, -1.0f));
  std::vector<RankMemory> m;
  for (int r = 0; r < 4; ++r) {
    for (int i = 0; i < 64; ++i) a[r][i] = float(i + 100 * r);
    m.push_back({r, {{"a", {a[r].data(), 256}}, {"b", {b[r].data(), 256}}}, -1});
  }
  ASSERT_TRUE((s = exe->bind(m)).ok()) << s.message;
  ASSERT_TRUE((s = exe->run()).ok()) << s.message;
  int wrong = 0;
  for (int i = 0; i < 64; ++i) {
    wrong += a[0][i] != float(2 * i + 200) || a[2][i] != float(2 * i + 200);  // the pair's sum
    wrong += a[1][i] != float(i + 100) || a[3][i] != float(i + 300);          // not in the group
    wrong += b[3][i] != float(i + 100);                                         // received from rank 1
    wrong += b[0][i] != -1.0f || b[1][i] != -1.0f || b[2][i] != -1.0f;
  }
  EXPECT_EQ(wrong, 0);
}

TEST(CApi, CompileLoadBindRun) {
  ccopt_program* p = nullptr;
  const char* text =
      "ccl.program @g world(3) {\n  %g = ccl.buffer \"grads\" : !ccl.buffer<1000xf32>\n"
      "  ccl.all_reduce avg %g -> %g : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>\n}\n";
  ASSERT_EQ(ccopt_compile(text, nullptr, &p), CCOPT_OK) << ccopt_last_error();
  EXPECT_EQ(ccopt_program_ranks(p), 3);
  EXPECT_NE(std::strstr(ccopt_program_source(p), "// ccopt-schedule kernel="), nullptr);
  ccopt_executable* e = nullptr;
  ASSERT_EQ(ccopt_load(p, CCOPT_TARGET_HOST, 0, nullptr, 10.0, &e), CCOPT_OK) << ccopt_last_error();
  std::vector<std::vector<float>> g(3, std::vector<float>(1000));
  for (int r = 0; r < 3; ++r) {
    for (int i = 0; i < 1000; ++i) g[r][i] = float(3 * (i % 5) + 3 * r);
    ASSERT_EQ(ccopt_set_buffer(e, r, -1, "grads", g[r].data(), 4000), CCOPT_OK);
  }
  ASSERT_EQ(ccopt_bind(e), CCOPT_OK) << ccopt_last_error();
  ASSERT_EQ(ccopt_run(e, nullptr, 0), CCOPT_OK) << ccopt_last_error();
  EXPECT_EQ(ccopt_async_error(e), CCOPT_OK);
  int wrong = 0;
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 1000; ++i) wrong += g[r][i] != float(3 * (i % 5) + 3);
  EXPECT_EQ(wrong, 0);
  // Abort: the next run reports it until reset.
  EXPECT_EQ(ccopt_abort(e), CCOPT_OK);
  EXPECT_EQ(ccopt_run(e, nullptr, 0), CCOPT_ABORTED);
  EXPECT_STREQ(ccopt_error_name(CCOPT_ABORTED), "aborted");
  EXPECT_EQ(ccopt_reset(e), CCOPT_OK);
  EXPECT_EQ(ccopt_run(e, nullptr, 0), CCOPT_OK) << ccopt_last_error();
  ccopt_executable_destroy(e);
  ccopt_program_destroy(p);
}

TEST(CApi, ErrorsComeWithMessages) {
  ccopt_program* p = nullptr;
  EXPECT_EQ(ccopt_compile("ccl.program @x {", nullptr, &p), CCOPT_COMPILE_ERROR);
  EXPECT_EQ(p, nullptr);
  EXPECT_STRNE(ccopt_last_error(), "");
  EXPECT_EQ(ccopt_compile(nullptr, nullptr, &p), CCOPT_INVALID_ARGUMENT);
  const char* text =
      "ccl.program @g world(2) {\n  %g = ccl.buffer \"grads\" : !ccl.buffer<8xf32>\n"
      "  ccl.all_reduce sum %g -> %g : !ccl.buffer<8xf32> -> !ccl.buffer<8xf32>\n}\n";
  ASSERT_EQ(ccopt_compile(text, "", &p), CCOPT_OK) << ccopt_last_error();
  ccopt_executable* e = nullptr;
  EXPECT_EQ(ccopt_load(p, 42, 0, nullptr, 1.0, &e), CCOPT_INVALID_ARGUMENT);
  EXPECT_STREQ(ccopt_last_error(), "ccopt_load: unknown target 42");
  ASSERT_EQ(ccopt_load(p, CCOPT_TARGET_HOST, 0, nullptr, 1.0, &e), CCOPT_OK);
  float a[8], b[8];
  ccopt_set_buffer(e, 0, -1, "grads", a, sizeof a);
  ccopt_set_buffer(e, 1, -1, "grads", (char*)b + 1, sizeof b - 1);
  EXPECT_EQ(ccopt_bind(e), CCOPT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(ccopt_last_error(), "rank 1 input: misaligned"), nullptr) << ccopt_last_error();
  EXPECT_EQ(ccopt_run(e, nullptr, 0), CCOPT_INVALID_USAGE);
  EXPECT_EQ(ccopt_run(nullptr, nullptr, 0), CCOPT_INVALID_ARGUMENT);
  EXPECT_EQ(ccopt_program_ranks(nullptr), -1);
  ccopt_executable_destroy(e);
  ccopt_program_destroy(p);
}

}  // namespace
}  // namespace ccopt
