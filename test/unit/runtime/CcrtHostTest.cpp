// libccrt on the host backend: kernel libraries written by `ccopt --emit=cuda`
// (test/gpu/kernels, committed, so this runs in a runtime-only build too),
// their metadata, argument validation (an error, no launch, nothing
// written), runs, timeouts and abort.
#include "runtime/ccrt/HostRunner.h"
#include "runtime/ccrt/Validate.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

namespace ccopt::rt {
namespace {

using namespace std::chrono_literals;

std::string kernelFile(const std::string& name) { return std::string(CCOPT_KERNELS_DIR) + "/" + name + ".cu"; }

TEST(KernelLibrary, ReadsEmittedMetadata) {
  KernelLibrary lib;
  Status s = loadKernelLibrary(kernelFile("all_reduce-sum-f32-4r-1000"), lib);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(lib.schedules.size(), 1u);
  const Schedule& sc = lib.schedules[0];
  EXPECT_EQ(sc.kernel, "ccopt_bench_all_reduce_0");
  EXPECT_EQ(sc.collective, "all_reduce");
  EXPECT_EQ(sc.redop, "sum");
  EXPECT_EQ(sc.ranks, 4);
  EXPECT_EQ(sc.element, DType::F32);
  EXPECT_EQ(sc.inputCount, 1000);
  EXPECT_EQ(sc.outputCount, 1000);
  EXPECT_FALSE(sc.inPlace);
  EXPECT_EQ(sc.root, -1);
  EXPECT_TRUE(sc.rankMap.empty());
  EXPECT_EQ(lib.find("ccopt_bench_all_reduce_0"), &lib.schedules[0]);
  EXPECT_EQ(lib.find("nope"), nullptr);
}

TEST(KernelLibrary, RejectsBadMetadata) {
  KernelLibrary lib;
  const std::string good =
      "// ccopt-schedule kernel=k collective=all_reduce redop=sum ranks=2 channels=1 element=f32 wire=f32 "
      "input=4 output=4 scratch=4 in_place=0 root=-1 rank_map=1,0 algorithm=ring future_key=1\n";
  Status s = parseKernelLibrary(good, lib);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(lib.schedules[0].rankMap, (std::vector<int>{1, 0}));
  struct Bad {
    std::string text, message;
  } cases[] = {
      {"int x;\n", "no '// ccopt-schedule' line"},
      {"// ccopt-schedule kernel=k\n", "line 1: ccopt-schedule: missing 'collective'"},
      {"\n" + std::string(good).replace(good.find("f32"), 3, "f31"), "line 2: ccopt-schedule: unknown element type 'f31'"},
      {std::string(good).replace(good.find("ranks=2"), 7, "ranks=0"), "bad ranks '0'"},
      {std::string(good).replace(good.find("rank_map=1,0"), 12, "rank_map=1"), "rank_map has 1 entries for 2 ranks"},
      {good + good, "line 2: kernel 'k' appears twice"},
      {"// ccopt-schedule oops\n", "malformed field 'oops'"},
  };
  for (const Bad& c : cases) {
    s = parseKernelLibrary(c.text, lib);
    EXPECT_EQ(s.code, Code::InvalidArgument) << c.text;
    EXPECT_NE(s.message.find(c.message), std::string::npos) << s.message;
  }
  s = loadKernelLibrary("/nonexistent/k.cu", lib);
  EXPECT_EQ(s.code, Code::InvalidArgument);
  EXPECT_NE(s.message.find("cannot read /nonexistent/k.cu"), std::string::npos) << s.message;
}

// The protocol keys: optional (Simple, no mailbox, without them); the
// mailbox is added to every sync area, from a 128-byte boundary.
TEST(KernelLibrary, ReadsProtocolAndMailbox) {
  const std::string line =
      "// ccopt-schedule kernel=k collective=all_reduce redop=sum ranks=2 channels=3 element=f32 wire=f32 "
      "input=4 output=4 scratch=4 in_place=0 root=-1 rank_map=- algorithm=ring";
  KernelLibrary lib;
  ASSERT_TRUE(parseKernelLibrary(line + "\n", lib).ok());
  EXPECT_EQ(lib.schedules[0].protocol, "simple");
  EXPECT_EQ(lib.schedules[0].mailboxBytes, 0);
  EXPECT_EQ(lib.schedules[0].syncBytes(), size_t(cc_sync_words(2, 3)) * 8);
  ASSERT_TRUE(parseKernelLibrary(line + " protocol=ll mailbox=96\n", lib).ok());
  EXPECT_EQ(lib.schedules[0].protocol, "ll");
  EXPECT_EQ(cc_mailbox_begin(2, 3), 32);  // 19 counter words, then up to 128 bytes
  EXPECT_EQ(lib.schedules[0].syncBytes(), size_t(32 * 8 + 96));
  ASSERT_TRUE(parseKernelLibrary(line + " protocol=ll128 mailbox=768\n", lib).ok());
  EXPECT_EQ(lib.schedules[0].protocol, "ll128");
  EXPECT_EQ(lib.schedules[0].syncBytes(), size_t(32 * 8 + 768));
  for (auto [extra, message] : {std::pair{" protocol=ll256", "unknown protocol 'll256'"},
                                {" protocol=ll mailbox=-8", "bad mailbox '-8'"},
                                {" protocol=ll mailbox=12", "mailbox must be whole 8-byte lines"},
                                {" protocol=ll128 mailbox=96", "mailbox must be whole 128-byte lines"}}) {
    Status s = parseKernelLibrary(line + extra + "\n", lib);
    EXPECT_EQ(s.code, Code::InvalidArgument) << extra;
    EXPECT_NE(s.message.find(message), std::string::npos) << s.message;
  }
}

// The multicast key (NVLS schedules): optional, ordinary buffers without it.
TEST(KernelLibrary, ReadsMulticast) {
  const std::string line =
      "// ccopt-schedule kernel=k collective=all_reduce redop=sum ranks=2 channels=1 element=f32 wire=f32 "
      "input=4 output=4 scratch=0 in_place=0 root=-1 rank_map=- algorithm=nvls protocol=simple mailbox=0";
  KernelLibrary lib;
  ASSERT_TRUE(parseKernelLibrary(line + "\n", lib).ok());
  EXPECT_FALSE(lib.schedules[0].multicast);
  ASSERT_TRUE(parseKernelLibrary(line + " multicast=1\n", lib).ok());
  EXPECT_TRUE(lib.schedules[0].multicast);
  EXPECT_EQ(lib.schedules[0].multicastGroup, 0);
  Status s = parseKernelLibrary(line + " multicast=yes\n", lib);
  EXPECT_EQ(s.code, Code::InvalidArgument);
  EXPECT_NE(s.message.find("bad multicast 'yes'"), std::string::npos) << s.message;
  // Blocks of consecutive ranks, one multicast object each (a node's).
  std::string four = line;
  four.replace(four.find("ranks=2"), 7, "ranks=4");
  ASSERT_TRUE(parseKernelLibrary(four + " multicast=2\n", lib).ok());
  EXPECT_TRUE(lib.schedules[0].multicast);
  EXPECT_EQ(lib.schedules[0].multicastGroup, 2);
  s = parseKernelLibrary(four + " multicast=3\n", lib);
  EXPECT_EQ(s.code, Code::InvalidArgument);
  EXPECT_NE(s.message.find("multicast must divide the ranks into equal blocks"), std::string::npos)
      << s.message;
}

// Per-rank host buffers for one schedule, filled with small integers.
struct Buffers {
  Buffers(const Schedule& s, bool inPlace) : sched(s) {
    for (int r = 0; r < s.ranks; ++r) {
      in.emplace_back(size_t(std::max(s.inputCount, s.outputCount)));
      out.emplace_back(size_t(s.outputCount), -1.0f);
      for (size_t i = 0; i < in[r].size(); ++i) in[r][i] = float((i * 7 + r * 3) % 11);
      RankBuffers b;
      b.rank = r;
      b.input = {in[r].data(), s.inputCount, DType::F32, in[r].size() * 4};
      b.output = inPlace ? b.input : BufferView{out[r].data(), s.outputCount, DType::F32, out[r].size() * 4};
      views.push_back(b);
    }
  }
  const Schedule& sched;
  std::vector<std::vector<float>> in, out;
  std::vector<RankBuffers> views;
};

class CcrtHost : public ::testing::Test {
protected:
  void load(const std::string& name) {
    Status s = loadKernelLibrary(kernelFile(name), lib);
    ASSERT_TRUE(s.ok()) << s.message;
    program = HostProgram::compile(lib, s);
    ASSERT_TRUE(program) << s.message;
  }
  const Schedule& sched() const { return lib.schedules[0]; }
  KernelLibrary lib;
  std::unique_ptr<HostProgram> program;
};

TEST_F(CcrtHost, AllReduceRunsManyTimes) {
  ASSERT_NO_FATAL_FAILURE(load("all_reduce-sum-f32-4r-1000"));
  Buffers b(sched(), false);
  Status s;
  auto c = program->bind(sched().kernel, b.views, {}, s);
  ASSERT_TRUE(c) << s.message;
  for (int round = 0; round < 3; ++round) {
    for (int r = 0; r < 4; ++r)
      for (size_t i = 0; i < 1000; ++i) b.in[r][i] = float((i * 7 + r * 3 + round) % 11);
    s = c->launch();
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_TRUE(c->asyncError().ok());
    long long wrong = 0;
    for (int r = 0; r < 4; ++r)
      for (size_t i = 0; i < 1000; ++i) {
        float want = 0;
        for (int q = 0; q < 4; ++q) want += float((i * 7 + q * 3 + round) % 11);
        wrong += b.out[r][i] != want;
      }
    EXPECT_EQ(wrong, 0) << "round " << round;
  }
}

// A small h200x8 all-reduce, which the selection sends in LL: its mailbox
// comes from the metadata, and launches reuse its slots.
TEST_F(CcrtHost, LLAllReduceRunsManyTimes) {
  ASSERT_NO_FATAL_FAILURE(load("all_reduce-sum-f32-8r-256"));
  ASSERT_EQ(sched().protocol, "ll");
  ASSERT_GT(sched().mailboxBytes, 0);
  Buffers b(sched(), false);
  Status s;
  auto c = program->bind(sched().kernel, b.views, {}, s);
  ASSERT_TRUE(c) << s.message;
  for (int round = 0; round < 4; ++round) {
    for (int r = 0; r < 8; ++r)
      for (size_t i = 0; i < 256; ++i) b.in[r][i] = float((i * 7 + r * 3 + round) % 11);
    s = c->launch();
    ASSERT_TRUE(s.ok()) << s.message;
    long long wrong = 0;
    for (int r = 0; r < 8; ++r)
      for (size_t i = 0; i < 256; ++i) {
        float want = 0;
        for (int q = 0; q < 8; ++q) want += float((i * 7 + q * 3 + round) % 11);
        wrong += b.out[r][i] != want;
      }
    EXPECT_EQ(wrong, 0) << "round " << round;
  }
}

TEST_F(CcrtHost, InPlaceAverage) {
  ASSERT_NO_FATAL_FAILURE(load("all_reduce-avg-f32-4r-4096-inplace"));
  ASSERT_TRUE(sched().inPlace);
  Buffers b(sched(), true);
  std::vector<std::vector<float>> before = b.in;
  Status s;
  auto c = program->bind(sched().kernel, b.views, {}, s);
  ASSERT_TRUE(c) << s.message;
  ASSERT_TRUE((s = c->launch()).ok()) << s.message;
  long long wrong = 0;
  for (int r = 0; r < 4; ++r)
    for (size_t i = 0; i < 4096; ++i)
      wrong += b.in[r][i] != (before[0][i] + before[1][i] + before[2][i] + before[3][i]) / 4;
  EXPECT_EQ(wrong, 0);
}

// Every bad argument: an InvalidArgument naming it, no collective, and the
// caller's memory untouched.
TEST_F(CcrtHost, BadArgumentsAreRejectedBeforeAnythingRuns) {
  ASSERT_NO_FATAL_FAILURE(load("all_reduce-sum-f32-4r-1000"));
  struct Case {
    const char* message;
    void (*mutate)(std::vector<RankBuffers>&);
  } cases[] = {
      {"rank 1 output: too small (3996 bytes, needs 4000)", [](auto& v) { v[1].output.capacityBytes = 3996; }},
      {"rank 2 input: misaligned (2 bytes off a 4-byte f32 boundary)",
       [](auto& v) { v[2].input.data = static_cast<char*>(v[2].input.data) + 2; }},
      {"rank 0 input: count 999, the schedule was compiled for 1000", [](auto& v) { v[0].input.count = 999; }},
      {"rank 3 output: element type i32, the schedule was compiled for f32",
       [](auto& v) { v[3].output.type = DType::I32; }},
      {"rank 4 out of range: the schedule has 4 ranks", [](auto& v) { v[3].rank = 4; }},
      {"rank 1 bound twice", [](auto& v) { v[2].rank = 1; }},
      {"no buffers for rank 3", [](auto& v) { v.pop_back(); }},
      {"rank 0 input: null pointer", [](auto& v) { v[0].input.data = nullptr; }},
      {"rank 0: input and output overlap, but the schedule was compiled out of place", [](auto& v) { v[0].output = v[0].input; }},
  };
  for (const Case& c : cases) {
    Buffers b(sched(), false);
    const auto in = b.in;
    const auto out = b.out;
    c.mutate(b.views);
    Status s;
    auto bound = program->bind(sched().kernel, b.views, {}, s);
    EXPECT_FALSE(bound);
    EXPECT_EQ(s.code, Code::InvalidArgument) << c.message;
    EXPECT_EQ(s.message, c.message);
    EXPECT_EQ(b.in, in);
    EXPECT_EQ(b.out, out);
  }
  Buffers b(sched(), false);
  Status s;
  EXPECT_FALSE(program->bind("ccopt_other", b.views, {}, s));
  EXPECT_EQ(s.message, "no schedule 'ccopt_other' in the kernel library");
  LaunchOptions odd;
  odd.threadsPerBlock = 100;
  EXPECT_FALSE(program->bind(sched().kernel, b.views, odd, s));
  EXPECT_EQ(s.code, Code::InvalidArgument);
}

TEST_F(CcrtHost, InPlaceScheduleNeedsOneBuffer) {
  ASSERT_NO_FATAL_FAILURE(load("all_reduce-avg-f32-4r-4096-inplace"));
  Buffers b(sched(), false);
  Status s;
  EXPECT_FALSE(program->bind(sched().kernel, b.views, {}, s));
  EXPECT_EQ(s.message, "rank 0: the schedule is in place: input and output must be the same buffer");
}

// An abort from another thread: the launch (or the next) reports it, the
// error stays readable, and launches are refused until reset.
TEST_F(CcrtHost, AbortIsReportedAndResetRecovers) {
  ASSERT_NO_FATAL_FAILURE(load("all_reduce-sum-f32-4r-1000"));
  Buffers b(sched(), false);
  LaunchOptions quick;
  quick.timeout = 200ms;
  Status s;
  auto c = program->bind(sched().kernel, b.views, quick, s);
  ASSERT_TRUE(c) << s.message;
  std::thread aborter([&] {
    std::this_thread::sleep_for(10ms);
    c->abort();
  });
  s = c->launch();
  aborter.join();
  // The launch may have finished before the abort; then the next one sees it.
  if (s.ok()) s = c->launch();
  EXPECT_EQ(s.code, Code::Aborted) << s.message;
  EXPECT_EQ(c->asyncError().code, Code::Aborted);
  s = c->launch();
  EXPECT_EQ(s.code, Code::InvalidUsage) << s.message;
  ASSERT_TRUE(c->reset().ok());
  s = c->launch();
  EXPECT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(b.out[2][5], b.out[0][5]);
}

TEST(CcrtOptions, Validation) {
  LaunchOptions o;
  EXPECT_TRUE(validateOptions(o).ok());
  o.threadsPerBlock = 2048;
  EXPECT_EQ(validateOptions(o).code, Code::InvalidArgument);
  o.threadsPerBlock = 256;
  o.timeout = std::chrono::nanoseconds(-1);
  EXPECT_EQ(validateOptions(o).code, Code::InvalidArgument);
}

}  // namespace
}  // namespace ccopt::rt
