// Fused buckets from the trainer API on the host backend: compiled with
// bucketCapMb, the program records its buckets and runs fewer steps; the
// executable packs every member into its bucket, runs the one collective
// and unpacks, so each original buffer holds exactly its own reduction —
// in place and out of place, in one bucket or split by the cap, from C++
// and through the C header. Bad options and bad members are errors before
// anything runs.
#include "api/Builder.h"
#include "api/Compile.h"
#include "api/Executable.h"
#include "ccopt/ccopt.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>

namespace ccopt {
namespace {

using rt::Code;
using rt::DType;

constexpr int kRanks = 4;

struct Spec {
  std::string name;
  int64_t count;
  DType type;  // F32 or F64
};

/// Every rank's copy of every buffer, with exact small-integer values, so
/// sums and averages over 4 ranks are exact in f32 and f64.
class Buffers {
public:
  explicit Buffers(std::vector<Spec> specs) : specs_(std::move(specs)), data_(kRanks) {
    for (auto& rank : data_)
      for (const Spec& s : specs_) rank[s.name].assign(size_t(s.count), 0.0);  // doubles: room for either type
  }
  const Spec& spec(const std::string& name) const {
    for (const Spec& s : specs_)
      if (s.name == name) return s;
    throw std::logic_error("no buffer " + name);
  }
  double get(int r, const std::string& name, int64_t e) const {
    const double* p = data_[size_t(r)].at(name).data();
    return spec(name).type == DType::F64 ? p[e] : double(reinterpret_cast<const float*>(p)[e]);
  }
  void set(int r, const std::string& name, int64_t e, double v) {
    double* p = data_[size_t(r)].at(name).data();
    if (spec(name).type == DType::F64) p[e] = v;
    else reinterpret_cast<float*>(p)[e] = float(v);
  }
  /// Buffer i of `names`, element e, rank r, run `round`.
  static double value(size_t i, int64_t e, int r, int round) {
    return double((i * 37 + e * 5 + size_t(r) * 11 + size_t(round) * 3) % 1000);
  }
  void fill(const std::vector<std::string>& names, int round) {
    for (int r = 0; r < kRanks; ++r)
      for (size_t i = 0; i < names.size(); ++i)
        for (int64_t e = 0; e < spec(names[i]).count; ++e) set(r, names[i], e, value(i, e, r, round));
  }
  std::vector<RankMemory> memory() {
    std::vector<RankMemory> m;
    for (int r = 0; r < kRanks; ++r) {
      RankMemory rm{r, {}, -1};
      for (const Spec& s : specs_)
        rm.buffers[s.name] = {data_[size_t(r)].at(s.name).data(), size_t(s.count) * rt::dtypeBytes(s.type)};
      m.push_back(rm);
    }
    return m;
  }

private:
  std::vector<Spec> specs_;
  std::vector<std::map<std::string, std::vector<double>>> data_;
};

/// Elements of `out[i]` (every rank) that differ from the reduction of the
/// values fill(..., round) wrote into the inputs.
int64_t wrongResults(const Buffers& b, const std::vector<std::string>& out, const std::vector<std::string>& redops,
                     int round) {
  int64_t wrong = 0;
  for (size_t i = 0; i < out.size(); ++i)
    for (int64_t e = 0; e < b.spec(out[i]).count; ++e) {
      double want = 0;
      for (int q = 0; q < kRanks; ++q) want += Buffers::value(i, e, q, round);
      if (redops[i] == "avg") want /= kRanks;
      for (int r = 0; r < kRanks; ++r) wrong += b.get(r, out[i], e) != want;
    }
  return wrong;
}

/// Elements of `names` that no longer hold what fill(names, round) wrote.
int64_t changed(const Buffers& b, const std::vector<std::string>& names, int round) {
  int64_t n = 0;
  for (int r = 0; r < kRanks; ++r)
    for (size_t i = 0; i < names.size(); ++i)
      for (int64_t e = 0; e < b.spec(names[i]).count; ++e) n += b.get(r, names[i], e) != Buffers::value(i, e, r, round);
  return n;
}

class FusedBuckets : public ::testing::Test {
protected:
  /// A program of one all_reduce per (in, out, redop), compiled with `capMb`.
  void compile(const std::vector<Spec>& specs, const std::vector<std::string>& in,
               const std::vector<std::string>& out, const std::vector<std::string>& redops, double capMb) {
    ProgramBuilder b("step", kRanks);
    for (const Spec& s : specs) b.buffer(s.name, s.count, s.type);
    for (size_t i = 0; i < in.size(); ++i) b.allReduce(redops[i], in[i], out[i]);
    CompileOptions options;
    options.bucketCapMb = capMb;
    rt::Status s = compileProgram(b.text(), options, program);
    ASSERT_TRUE(s.ok()) << s.message << "\n" << b.text();
    exe = Executable::load(program, Target::host(), s);
    ASSERT_TRUE(exe) << s.message;
  }
  CompiledProgram program;
  std::unique_ptr<Executable> exe;
};

// Five all_reduces (f32 sum, f64 avg) become two buckets; two runs with
// different values; every element of every buffer is its exact reduction.
TEST_F(FusedBuckets, InPlaceResultsLandInTheOriginalBuffers) {
  const std::vector<Spec> specs = {{"g0", 1000, DType::F32}, {"g1", 77, DType::F32}, {"g2", 3, DType::F32},
                                   {"g3", 513, DType::F64},  {"g4", 2048, DType::F64}};
  const std::vector<std::string> names = {"g0", "g1", "g2", "g3", "g4"};
  const std::vector<std::string> redops = {"sum", "sum", "sum", "avg", "avg"};
  ASSERT_NO_FATAL_FAILURE(compile(specs, names, names, redops, 25));

  ASSERT_EQ(program.buckets.size(), 2u);
  ASSERT_EQ(program.steps.size(), 2u);  // from five
  const BucketDecl& f32 = program.buckets[0];
  EXPECT_EQ(f32.type, DType::F32);
  EXPECT_EQ(f32.count, 1080);
  ASSERT_EQ(f32.members.size(), 3u);
  EXPECT_EQ(f32.members[1].buffer, "g1");
  EXPECT_EQ(f32.members[1].offset, 1000);
  EXPECT_EQ(f32.members[2].offset, 1077);
  EXPECT_EQ(f32.members[2].count, 3);
  EXPECT_EQ(program.buckets[1].type, DType::F64);
  EXPECT_EQ(program.buckets[1].count, 2561);
  EXPECT_EQ(program.steps[0].inputBucket, 0);
  EXPECT_EQ(program.steps[0].outputBucket, 0);
  EXPECT_EQ(program.steps[0].input, f32.name);
  EXPECT_EQ(program.steps[1].inputBucket, 1);
  EXPECT_EQ(program.library.find(program.steps[0].kernel)->inputCount, 1080);

  Buffers buffers(specs);
  rt::Status s = exe->bind(buffers.memory());
  ASSERT_TRUE(s.ok()) << s.message;
  for (int round = 0; round < 2; ++round) {
    buffers.fill(names, round);
    ASSERT_TRUE((s = exe->run()).ok()) << s.message;
    EXPECT_EQ(wrongResults(buffers, names, redops, round), 0) << "round " << round;
  }
}

// Out of place: the inputs' bucket is packed, the outputs' unpacked; the
// inputs keep their values.
TEST_F(FusedBuckets, OutOfPlaceResultsLandInTheOutputBuffers) {
  std::vector<Spec> specs;
  std::vector<std::string> in, out;
  const std::vector<int64_t> counts = {640, 1, 129, 2000};
  for (size_t i = 0; i < counts.size(); ++i) {
    in.push_back("x" + std::to_string(i));
    out.push_back("y" + std::to_string(i));
    specs.push_back({in.back(), counts[i], DType::F32});
    specs.push_back({out.back(), counts[i], DType::F32});
  }
  const std::vector<std::string> redops(counts.size(), "sum");
  ASSERT_NO_FATAL_FAILURE(compile(specs, in, out, redops, 25));
  ASSERT_EQ(program.steps.size(), 1u);
  ASSERT_EQ(program.buckets.size(), 2u);
  const CompiledStep& step = program.steps[0];
  ASSERT_GE(step.inputBucket, 0);
  ASSERT_GE(step.outputBucket, 0);
  EXPECT_NE(step.inputBucket, step.outputBucket);
  EXPECT_EQ(program.buckets[size_t(step.outputBucket)].members[3].buffer, "y3");

  Buffers buffers(specs);
  rt::Status s = exe->bind(buffers.memory());
  ASSERT_TRUE(s.ok()) << s.message;
  for (int round = 0; round < 2; ++round) {
    buffers.fill(in, round);
    ASSERT_TRUE((s = exe->run()).ok()) << s.message;
    EXPECT_EQ(wrongResults(buffers, out, redops, round), 0) << "round " << round;
    EXPECT_EQ(changed(buffers, in, round), 0);
  }
}

// A cap of 0.01 MiB (10485 bytes) closes the first bucket at 10000 bytes.
TEST_F(FusedBuckets, TheCapSplitsThemIntoTwoBuckets) {
  const std::vector<int64_t> counts = {1000, 1500, 2000, 500, 3};
  std::vector<Spec> specs;
  std::vector<std::string> names;
  for (size_t i = 0; i < counts.size(); ++i) {
    names.push_back("g" + std::to_string(i));
    specs.push_back({names.back(), counts[i], DType::F32});
  }
  const std::vector<std::string> redops(counts.size(), "avg");
  ASSERT_NO_FATAL_FAILURE(compile(specs, names, names, redops, 0.01));
  ASSERT_EQ(program.buckets.size(), 2u);
  ASSERT_EQ(program.steps.size(), 2u);
  EXPECT_EQ(program.buckets[0].count, 2500);
  EXPECT_EQ(program.buckets[1].count, 2503);
  EXPECT_EQ(program.buckets[1].members[0].buffer, "g2");

  Buffers buffers(specs);
  rt::Status s = exe->bind(buffers.memory());
  ASSERT_TRUE(s.ok()) << s.message;
  for (int round = 0; round < 2; ++round) {
    buffers.fill(names, round);
    ASSERT_TRUE((s = exe->run()).ok()) << s.message;
    EXPECT_EQ(wrongResults(buffers, names, redops, round), 0) << "round " << round;
  }
}

// A member bound too small (or missing) is refused before anything runs;
// a refused rebind keeps the earlier binding.
TEST_F(FusedBuckets, BadMembersAreBindingErrors) {
  const std::vector<Spec> specs = {{"g0", 100, DType::F32}, {"g1", 77, DType::F32}, {"g2", 5, DType::F32}};
  const std::vector<std::string> names = {"g0", "g1", "g2"};
  const std::vector<std::string> redops(3, "sum");
  ASSERT_NO_FATAL_FAILURE(compile(specs, names, names, redops, 25));
  ASSERT_EQ(program.buckets.size(), 1u);
  const std::string bucket = program.buckets[0].name;

  Buffers buffers(specs);
  buffers.fill(names, 0);
  auto m = buffers.memory();
  m[1].buffers["g1"].bytes = 307;
  rt::Status s = exe->bind(m);
  EXPECT_EQ(s.code, Code::InvalidArgument);
  EXPECT_EQ(s.message, "rank 1 buffer 'g1' (bucket '" + bucket + "'): too small (307 bytes, needs 308)");
  m = buffers.memory();
  m[3].buffers.erase("g2");
  EXPECT_EQ(exe->bind(m).message, "rank 3 has no buffer 'g2'");
  m = buffers.memory();
  m[2].buffers["g1"].data = m[2].buffers["g0"].data;  // two results into the same memory
  EXPECT_EQ(exe->bind(m).message, "rank 2: buffers 'g0' and 'g1' of bucket '" + bucket + "' overlap");
  EXPECT_EQ(exe->run().code, Code::InvalidUsage);  // nothing bound, nothing run
  EXPECT_EQ(changed(buffers, names, 0), 0);

  ASSERT_TRUE((s = exe->bind(buffers.memory())).ok()) << s.message;
  m = buffers.memory();
  m[0].buffers["g2"].bytes = 19;
  EXPECT_EQ(exe->bind(m).code, Code::InvalidArgument);
  ASSERT_TRUE((s = exe->run()).ok()) << s.message;  // the earlier binding
  EXPECT_EQ(wrongResults(buffers, names, redops, 0), 0);
}

TEST(CompileOptions, BadOptionsNameTheirField) {
  ProgramBuilder b("p", 2);
  b.buffer("g", 16, DType::F32);
  b.allReduce("sum", "g", "g");
  CompiledProgram p;
  CompileOptions options;
  options.bucketCapMb = -1;
  rt::Status s = compileProgram(b.text(), options, p);
  EXPECT_EQ(s.code, Code::CompileError);
  EXPECT_EQ(s.message, "bucketCapMb: must be 0 (no fusion) or a positive cap in MiB, got -1");
  options = {};
  options.compress = "f8";
  s = compileProgram(b.text(), options, p);
  EXPECT_EQ(s.code, Code::CompileError);
  EXPECT_EQ(s.message, "compress: must be empty, f16 or bf16, got 'f8'");
  options = {};
  options.profile = "/nonexistent/profile.json";
  s = compileProgram(b.text(), options, p);
  EXPECT_EQ(s.code, Code::CompileError);
  EXPECT_NE(s.message.find("ccl-plan-overlap needs a machine"), std::string::npos) << s.message;
  // compress reaches the pipeline: the schedule sends bf16.
  options = {};
  options.compress = "bf16";
  ASSERT_TRUE((s = compileProgram(b.text(), options, p)).ok()) << s.message;
  EXPECT_EQ(p.library.find(p.steps[0].kernel)->wire, DType::BF16);
}

// A compute profile: ccl-plan-overlap buckets the gradients by their ready
// events, and the buckets it makes run from the API like fused ones.
TEST(OverlapBuckets, ProfilePlannedBucketsRun) {
  const char* text = R"(ccl.program @backward {
  %w2 = ccl.buffer "w2" : !ccl.buffer<3000xf32>
  %b2 = ccl.buffer "b2" : !ccl.buffer<30xf32>
  %w1 = ccl.buffer "w1" : !ccl.buffer<2000xf32>
  ccl.ready "l2" %w2, %b2 : !ccl.buffer<3000xf32>, !ccl.buffer<30xf32>
  ccl.ready "l1" %w1 : !ccl.buffer<2000xf32>
  ccl.all_reduce sum %w2 -> %w2 : !ccl.buffer<3000xf32> -> !ccl.buffer<3000xf32>
  ccl.all_reduce sum %b2 -> %b2 : !ccl.buffer<30xf32> -> !ccl.buffer<30xf32>
  ccl.all_reduce sum %w1 -> %w1 : !ccl.buffer<2000xf32> -> !ccl.buffer<2000xf32>
}
)";
  const std::string profile = ::testing::TempDir() + "ccopt-api-profile.json";
  {
    std::FILE* f = std::fopen(profile.c_str(), "w");
    ASSERT_TRUE(f);
    std::fputs(R"({"sms": 108, "events": [{"name": "l2", "compute_us": 500}, {"name": "l1", "compute_us": 1}]})", f);
    std::fclose(f);
  }
  CompileOptions options;
  options.topo = "a100x8";
  options.profile = "/nonexistent/profile.json";
  CompiledProgram p;
  rt::Status s = compileProgram(text, options, p);
  EXPECT_EQ(s.code, Code::CompileError);
  EXPECT_NE(s.message.find("cannot read the profile"), std::string::npos) << s.message;
  options.profile = profile;
  ASSERT_TRUE((s = compileProgram(text, options, p)).ok()) << s.message;
  ASSERT_EQ(p.ranks, 8);
  ASSERT_FALSE(p.buckets.empty());  // small gradients: not worth a collective each
  ASSERT_LT(p.steps.size(), 3u);
  auto exe = Executable::load(p, Target::host(), s);
  ASSERT_TRUE(exe) << s.message;
  const std::vector<std::pair<std::string, int64_t>> buffers = {{"w2", 3000}, {"b2", 30}, {"w1", 2000}};
  std::vector<std::map<std::string, std::vector<float>>> data(8);
  std::vector<RankMemory> memory;
  for (int r = 0; r < 8; ++r) {
    RankMemory m{r, {}, -1};
    for (auto& [name, count] : buffers) {
      auto& v = data[size_t(r)][name];
      v.resize(size_t(count));
      for (int64_t e = 0; e < count; ++e) v[size_t(e)] = float(e % 101 + r + name.size());
      m.buffers[name] = {v.data(), v.size() * 4};
    }
    memory.push_back(m);
  }
  ASSERT_TRUE((s = exe->bind(memory)).ok()) << s.message;
  ASSERT_TRUE((s = exe->run()).ok()) << s.message;
  int64_t wrong = 0;
  for (int r = 0; r < 8; ++r)
    for (auto& [name, count] : buffers)
      for (int64_t e = 0; e < count; ++e)
        wrong += data[size_t(r)][name][size_t(e)] != float(8 * (e % 101 + name.size()) + 28);
  EXPECT_EQ(wrong, 0);
}

TEST(CApiBuckets, CompileWithACapThenRun) {
  std::string text = "ccl.program @g world(4) {\n";
  const int64_t counts[3] = {300, 7, 64};
  for (int i = 0; i < 3; ++i)
    text += "  %g" + std::to_string(i) + " = ccl.buffer \"g" + std::to_string(i) + "\" : !ccl.buffer<" +
            std::to_string(counts[i]) + "xf32>\n";
  for (int i = 0; i < 3; ++i) {
    const std::string type = "!ccl.buffer<" + std::to_string(counts[i]) + "xf32>";
    text += "  ccl.all_reduce sum %g" + std::to_string(i) + " -> %g" + std::to_string(i) + " : " + type + " -> " +
            type + "\n";
  }
  text += "}\n";
  ccopt_compile_options options;
  ccopt_compile_options_init(&options);
  options.bucket_cap_mb = -2;
  ccopt_program* p = nullptr;
  EXPECT_EQ(ccopt_compile_with(text.c_str(), &options, &p), CCOPT_COMPILE_ERROR);
  EXPECT_EQ(std::strncmp(ccopt_last_error(), "bucketCapMb: ", 13), 0) << ccopt_last_error();
  EXPECT_EQ(p, nullptr);
  options.bucket_cap_mb = 25;
  ASSERT_EQ(ccopt_compile_with(text.c_str(), &options, &p), CCOPT_OK) << ccopt_last_error();
  EXPECT_EQ(ccopt_program_steps(p), 1);
  EXPECT_EQ(ccopt_program_buckets(p), 1);
  ccopt_executable* e = nullptr;
  ASSERT_EQ(ccopt_load(p, CCOPT_TARGET_HOST, 0, nullptr, 10.0, &e), CCOPT_OK) << ccopt_last_error();
  std::vector<std::vector<float>> g[4];
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 3; ++i) {
      g[r].emplace_back(size_t(counts[i]));
      for (int64_t k = 0; k < counts[i]; ++k) g[r][size_t(i)][size_t(k)] = float(k % 13 + i * 100 + r);
      ASSERT_EQ(ccopt_set_buffer(e, r, -1, ("g" + std::to_string(i)).c_str(), g[r][size_t(i)].data(),
                                 size_t(counts[i]) * 4),
                CCOPT_OK);
    }
  ASSERT_EQ(ccopt_bind(e), CCOPT_OK) << ccopt_last_error();
  ASSERT_EQ(ccopt_run(e, nullptr, 0), CCOPT_OK) << ccopt_last_error();
  int wrong = 0;
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 3; ++i)
      for (int64_t k = 0; k < counts[i]; ++k) wrong += g[r][size_t(i)][size_t(k)] != float(4 * (k % 13 + i * 100) + 6);
  EXPECT_EQ(wrong, 0);
  ccopt_executable_destroy(e);
  ccopt_program_destroy(p);
}

}  // namespace
}  // namespace ccopt
