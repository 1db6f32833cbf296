#include "runtime/host/HostBackend.h"
#include "test/unit/runtime/TestKernels.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace ccopt::rt {
namespace {

using namespace std::chrono_literals;

// The test kernels, compiled once for the whole binary.
class HostBackendTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    const auto t0 = std::chrono::steady_clock::now();
    module_ = HostModule::compile(test::kTestKernelsSource, compileError_).release();
    compileSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[ host    ] test kernels compiled in %.2f s\n", compileSeconds_);
  }
  static void TearDownTestSuite() {
    delete module_;
    module_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(module_, nullptr) << compileError_; }

  static KernelFn kernel(const std::string& name) {
    std::string error;
    KernelFn fn = module_->kernel(name, error);
    EXPECT_NE(fn, nullptr) << error;
    return fn;
  }

  static HostModule* module_;
  static std::string compileError_;
  static double compileSeconds_;
};
HostModule* HostBackendTest::module_ = nullptr;
std::string HostBackendTest::compileError_;
double HostBackendTest::compileSeconds_ = 0;

// Element i of rank r's input in launch `round`: small integers, so every
// summation order gives the exact same result, in f16 too.
int inputValue(int round, int r, long long i) { return int((i * 7 + r * 13 + round * 5) % 23) - 11; }

template <class T> T fromInt(int v) { return cc_cvt<T>(v); }
template <class T> int toInt(T v) { return cc_cvt<int>(v); }

// Runs the ring all-reduce kernel twice on one world (epochs 1 and 2, counters
// carried over) and returns the number of wrong output elements.
template <class T>
long long runRing(KernelFn fn, int nranks, int nchannels, long long count, bool inPlace) {
  const size_t bytes = size_t(count) * sizeof(T);
  HostWorld world(nranks, nchannels, bytes, bytes, bytes, inPlace);
  long long wrong = 0;
  for (int round = 0; round < 2; ++round) {
    for (int r = 0; r < nranks; ++r) {
      T* in = world.buffer<T>(r, CC_BUF_INPUT);
      for (long long i = 0; i < count; ++i) in[i] = fromInt<T>(inputValue(round, r, i));
      if (!inPlace) std::memset(world.buffer(r, CC_BUF_OUTPUT), 0x7f, bytes);  // catch unwritten elements
    }
    const int rc = world.launch(fn, 10s);
    EXPECT_EQ(rc, CC_OK);
    EXPECT_EQ(world.epoch(), cc_u64(round + 1));
    for (int r = 0; r < nranks; ++r) {
      const T* out = world.buffer<T>(r, CC_BUF_OUTPUT);
      for (long long i = 0; i < count; ++i) {
        int expect = 0;
        for (int q = 0; q < nranks; ++q) expect += inputValue(round, q, i);
        wrong += toInt(out[i]) != expect;
      }
    }
  }
  return wrong;
}

template <class T> void checkAllSizes(const char* type, KernelFn (*get)(const std::string&)) {
  for (long long count : {1LL, 7LL, 4096LL}) {
    KernelFn fn = get(std::string("ring_") + type + "_" + std::to_string(count));
    ASSERT_NE(fn, nullptr);
    for (int nranks : {1, 2, 3, 5, 8})
      for (int nchannels : {1, 2})
        EXPECT_EQ(runRing<T>(fn, nranks, nchannels, count, false), 0)
            << type << " count=" << count << " nranks=" << nranks << " nchannels=" << nchannels;
  }
}

TEST_F(HostBackendTest, RingAllReduceF32) { checkAllSizes<float>("float", &HostBackendTest::kernel); }
TEST_F(HostBackendTest, RingAllReduceI32) { checkAllSizes<int>("int", &HostBackendTest::kernel); }
TEST_F(HostBackendTest, RingAllReduceF16) { checkAllSizes<cc_f16>("cc_f16", &HostBackendTest::kernel); }

TEST_F(HostBackendTest, RingAllReduceInPlace) {
  KernelFn fn = kernel("ring_float_4096");
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(runRing<float>(fn, 5, 2, 4096, true), 0);
  EXPECT_EQ(runRing<float>(fn, 3, 1, 4096, true), 0);
}

TEST_F(HostBackendTest, SyncAreaCountersPersist) {
  KernelFn fn = kernel("ring_int_7");
  ASSERT_NE(fn, nullptr);
  const int n = 4;
  HostWorld world(n, 1, 7 * sizeof(int), 7 * sizeof(int), 7 * sizeof(int));
  for (int launch = 1; launch <= 3; ++launch) {
    ASSERT_EQ(world.launch(fn, 10s), CC_OK);
    for (int r = 0; r < n; ++r) {
      const cc_u64* s = world.syncArea(r);
      EXPECT_EQ(s[0], cc_u64(launch));  // entered
      const int from = (r + n - 1) % n, to = (r + 1) % n;
      const cc_u64 msgs = cc_u64(launch) * (2 * n - 2);
      EXPECT_EQ(s[1 + from], msgs);          // inbound from the left
      EXPECT_EQ(s[1 + n + from], msgs);      // seen from the left
      EXPECT_EQ(s[1 + 2 * n + to], msgs);    // sent to the right
    }
  }
}

TEST_F(HostBackendTest, MissingMessageTimesOut) {
  KernelFn wait = kernel("wait_forever"), ring = kernel("ring_float_7");
  ASSERT_NE(wait, nullptr);
  ASSERT_NE(ring, nullptr);
  HostWorld world(4, 2, 64, 64, 64);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(world.launch(wait, 100ms), CC_ERR_TIMEOUT);
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(elapsed, 100ms);
  EXPECT_LT(elapsed, 2s);
  // The world recovers: the next launch resets the out-of-step counters.
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 7; ++i) world.buffer<float>(r, CC_BUF_INPUT)[i] = float(r + i);
  EXPECT_EQ(world.launch(ring, 10s), CC_OK);
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 7; ++i) EXPECT_EQ(world.buffer<float>(r, CC_BUF_OUTPUT)[i], float(6 + 4 * i));
}

TEST_F(HostBackendTest, AbortReleasesWaits) {
  KernelFn wait = kernel("wait_forever");
  ASSERT_NE(wait, nullptr);
  HostWorld world(3, 1, 64, 64, 64);
  std::atomic<bool> done{false};
  std::thread aborter([&] {
    // Repeated, in case the first request lands before launch() clears the flag.
    while (!done) {
      std::this_thread::sleep_for(20ms);
      world.requestAbort();
    }
  });
  EXPECT_EQ(world.launch(wait, 0ns), CC_ERR_ABORTED);  // no timeout: only the abort ends it
  done = true;
  aborter.join();
}

TEST_F(HostBackendTest, Movers) {
  KernelFn fn = kernel("movers");
  ASSERT_NE(fn, nullptr);
  HostWorld world(1, 1, 64 * sizeof(float), 256 * sizeof(float), 64 * sizeof(cc_bf16));
  float* in = world.buffer<float>(0, CC_BUF_INPUT);
  for (int i = 0; i < 64; ++i) in[i] = float(i - 32) + 1.0f / 1024;  // not exact in bf16 for |x| >= 1
  ASSERT_EQ(world.launch(fn, 10s), CC_OK);
  const float* out = world.buffer<float>(0, CC_BUF_OUTPUT);
  for (int i = 0; i < 64; ++i) {
    const float wire = cc_cvt<float>(cc_cvt<cc_bf16>(in[i]));
    EXPECT_EQ(out[i], (in[i] > wire ? in[i] : wire) / 4) << i;
    EXPECT_EQ(out[64 + i], in[i]);
    EXPECT_EQ(out[128 + i], in[i]);
    EXPECT_EQ(out[192 + i], in[i] * in[i] / 2);
  }
}

TEST(HostModule, CompileErrorReturnsLog) {
  std::string error;
  auto module = HostModule::compile("#include \"ccopt/device.h\"\nCC_KERNEL(bad) {\n  int x = ;\n}\n", error);
  EXPECT_EQ(module, nullptr);
  EXPECT_NE(error.find("kernel.cpp:3"), std::string::npos) << error;
  EXPECT_NE(error.find("error"), std::string::npos) << error;
}

TEST_F(HostBackendTest, MissingKernel) {
  std::string error;
  EXPECT_EQ(module_->kernel("nope", error), nullptr);
  EXPECT_NE(error.find("nope"), std::string::npos) << error;
}

}  // namespace
}  // namespace ccopt::rt
