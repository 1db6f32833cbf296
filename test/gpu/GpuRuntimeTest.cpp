// libccrt on a GPU: the committed kernel files (test/gpu/kernels) run as
// virtual ranks on GPU 0, captured in a CUDA graph, across GPUs with peer
// access; device-side argument checks; timeouts and abort read on the host.
// Every test skips with the driver's reason where there is no GPU.
#include "runtime/ccrt/CudaBuffers.h"
#include "runtime/ccrt/CudaRunner.h"
#include "runtime/ccrt/Multicast.h"
#include "test/unit/runtime/TestKernels.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

namespace ccopt::rt {
namespace {

using namespace std::chrono_literals;

std::string kernelFile(const std::string& name) { return std::string(CCOPT_KERNELS_DIR) + "/" + name + ".cu"; }

const CudaDriverApi& driver() {
  std::string ignored;
  return *cudaDriverApi(ignored);
}

class Gpu : public ::testing::Test {
protected:
  void SetUp() override {
    const DeviceStatus status = probeCudaDevices();
    if (!status.available) GTEST_SKIP() << status.reason;
    devices_ = status.count;
    std::string error;
    ctx_ = CudaContext::primary(0, error);
    ASSERT_TRUE(ctx_) << error;
    ASSERT_TRUE(ctx_->makeCurrent(error)) << error;
    ASSERT_EQ(driver().cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  }
  void TearDown() override {
    if (stream_) driver().cuStreamDestroy(stream_);
  }

  std::unique_ptr<CudaProgram> compile(const KernelLibrary& lib, std::vector<int> devices = {0}) {
    Status s;
    auto p = CudaProgram::compile(lib, devices, cache_, s);
    EXPECT_TRUE(p) << s.message;
    return p;
  }
  KernelLibrary load(const std::string& name) {
    KernelLibrary lib;
    Status s = loadKernelLibrary(kernelFile(name), lib);
    EXPECT_TRUE(s.ok()) << s.message;
    return lib;
  }
  // Per-rank device input/output of `s`, inputs set to small integers (f32).
  struct Buffers {
    std::vector<std::unique_ptr<DeviceAllocation>> in, out;
    std::vector<RankBuffers> views;
  };
  Buffers allocate(const Schedule& s, std::vector<int> devices = {}) {
    Buffers b;
    for (int r = 0; r < s.ranks; ++r) {
      std::string error;
      auto ctx = devices.empty() ? ctx_ : CudaContext::primary(devices[r], error);
      Status st;
      b.in.push_back(DeviceAllocation::create(ctx, s.inputBytes(), st));
      b.out.push_back(s.inPlace ? nullptr : DeviceAllocation::create(ctx, s.outputBytes(), st));
      RankBuffers v;
      v.rank = r;
      v.device = devices.empty() ? 0 : devices[r];
      v.input = {b.in.back()->data(), s.inputCount, s.element, s.inputBytes()};
      v.output = s.inPlace ? v.input : BufferView{b.out.back()->data(), s.outputCount, s.element, s.outputBytes()};
      b.views.push_back(v);
    }
    return b;
  }
  void fill(const Buffers& b, const Schedule& s, int round) {
    for (int r = 0; r < s.ranks; ++r) {
      std::vector<float> host(size_t(s.inputCount));
      for (size_t i = 0; i < host.size(); ++i) host[i] = float((i * 7 + r * 3 + round) % 11);
      std::string error;
      ASSERT_TRUE(ctx_->copyToDevice(b.views[r].input.data, host.data(), host.size() * 4, error)) << error;
    }
    // The copies ran on the legacy stream, which stream_ does not wait for.
    std::string error;
    ASSERT_TRUE(ctx_->synchronize(error)) << error;
  }
  // Wrong elements of an f32 sum all-reduce after fill(round).
  long long wrongSum(const Buffers& b, const Schedule& s, int round) {
    long long wrong = 0;
    std::vector<float> host(size_t(s.outputCount));
    for (int r = 0; r < s.ranks; ++r) {
      std::string error;
      EXPECT_TRUE(ctx_->copyToHost(host.data(), b.views[r].output.data, host.size() * 4, error)) << error;
      for (size_t i = 0; i < host.size(); ++i) {
        float want = 0;
        for (int q = 0; q < s.ranks; ++q) want += float((i * 7 + q * 3 + round) % 11);
        wrong += host[i] != want;
      }
    }
    return wrong;
  }

  int devices_ = 0;
  std::shared_ptr<CudaContext> ctx_;
  CUstream stream_ = nullptr;
  JitCache cache_;
};

TEST_F(Gpu, VirtualRanksAllReduceOnTheCallersStream) {
  KernelLibrary lib = load("all_reduce-sum-f32-4r-1000");
  auto program = compile(lib);
  ASSERT_TRUE(program);
  std::printf("[ gpu     ] JIT %.3f s (%s)\n", program->compileSeconds(), program->cacheHit() ? "cache hit" : "cold");
  const Schedule& s = lib.schedules[0];
  Buffers b = allocate(s);
  Status st;
  auto c = program->bindVirtualRanks(s.kernel, 0, b.views, {}, st);
  ASSERT_TRUE(c) << st.message;
  for (int round = 0; round < 3; ++round) {
    fill(b, s, round);
    ASSERT_TRUE((st = c->launch({stream_})).ok()) << st.message;
    ASSERT_EQ(driver().cuStreamSynchronize(stream_), CUDA_SUCCESS);
    ASSERT_TRUE(c->asyncError().ok()) << c->asyncError().message;
    EXPECT_EQ(wrongSum(b, s, round), 0) << "round " << round;
  }
}

// The 8-rank sweep kernels (the ccbench set) at a few sizes, and rings under
// LL and LL128 (an even and an odd count).
TEST_F(Gpu, SweepKernelsAsVirtualRanks) {
  for (const char* name : {"all_reduce-sum-f32-8r-256", "all_reduce-sum-f32-8r-262144", "all_reduce-sum-f32-8r-4194304",
                           "all_reduce-sum-f32-8r-262144-ll", "all_reduce-sum-f32-8r-1000003-ll",
                           "all_reduce-sum-f32-8r-262144-ll128", "all_reduce-sum-f32-8r-1000003-ll128"}) {
    KernelLibrary lib = load(name);
    auto program = compile(lib);
    ASSERT_TRUE(program);
    const Schedule& s = lib.schedules[0];
    Buffers b = allocate(s);
    Status st;
    auto c = program->bindVirtualRanks(s.kernel, 0, b.views, {}, st);
    ASSERT_TRUE(c) << name << ": " << st.message;
    fill(b, s, 1);
    ASSERT_TRUE(c->launch({stream_}).ok());
    ASSERT_EQ(driver().cuStreamSynchronize(stream_), CUDA_SUCCESS);
    ASSERT_TRUE(c->asyncError().ok()) << name << ": " << c->asyncError().message;
    EXPECT_EQ(wrongSum(b, s, 1), 0) << name;
  }
}

// Captured once, replayed three times: each replay is a new epoch and a
// correct all-reduce of the inputs of the moment.
TEST_F(Gpu, CapturedInACudaGraph) {
  KernelLibrary lib = load("all_reduce-sum-f32-4r-1000");
  auto program = compile(lib);
  ASSERT_TRUE(program);
  const Schedule& s = lib.schedules[0];
  Buffers b = allocate(s);
  Status st;
  auto c = program->bindVirtualRanks(s.kernel, 0, b.views, {}, st);
  ASSERT_TRUE(c) << st.message;
  const CudaDriverApi& d = driver();
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  ASSERT_EQ(d.cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), CUDA_SUCCESS);
  st = c->launch({stream_});
  ASSERT_EQ(d.cuStreamEndCapture(stream_, &graph), CUDA_SUCCESS);
  ASSERT_TRUE(st.ok()) << st.message;
  ASSERT_EQ(d.cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
  for (int round = 0; round < 3; ++round) {
    fill(b, s, round);
    ASSERT_EQ(d.cuGraphLaunch(exec, stream_), CUDA_SUCCESS);
    ASSERT_EQ(d.cuStreamSynchronize(stream_), CUDA_SUCCESS);
    ASSERT_TRUE(c->asyncError().ok()) << c->asyncError().message;
    EXPECT_EQ(wrongSum(b, s, round), 0) << "replay " << round;
  }
  d.cuGraphExecDestroy(exec);
  d.cuGraphDestroy(graph);
}

// Device checks at bind: host memory, another device, an allocation too small.
TEST_F(Gpu, DeviceBuffersAreChecked) {
  KernelLibrary lib = load("all_reduce-sum-f32-4r-1000");
  auto program = compile(lib);
  ASSERT_TRUE(program);
  const Schedule& s = lib.schedules[0];
  Buffers b = allocate(s);
  std::vector<float> hostMemory(1000);
  Status st;
  auto views = b.views;
  views[1].input.data = hostMemory.data();
  EXPECT_FALSE(program->bindVirtualRanks(s.kernel, 0, views, {}, st));
  EXPECT_EQ(st.message, "rank 1 input: not CUDA device memory");
  Status alloc;
  auto small = DeviceAllocation::create(ctx_, 3000, alloc);
  ASSERT_TRUE(small) << alloc.message;
  views = b.views;
  views[2].output.data = small->data();  // the caller claims 4000 bytes
  EXPECT_FALSE(program->bindVirtualRanks(s.kernel, 0, views, {}, st));
  EXPECT_NE(st.message.find("rank 2 output: too small (3000 bytes to the end of its allocation, needs 4000)"),
            std::string::npos)
      << st.message;
  EXPECT_FALSE(program->bindVirtualRanks(s.kernel, 5, b.views, {}, st));
  EXPECT_EQ(st.code, Code::InvalidArgument);
  if (devices_ >= 2) {
    std::string error;
    auto other = CudaContext::primary(1, error);
    auto far = DeviceAllocation::create(other, 4000, alloc);
    views = b.views;
    views[0].input.data = far->data();
    EXPECT_FALSE(program->bindVirtualRanks(s.kernel, 0, views, {}, st));
    EXPECT_EQ(st.message, "rank 0 input: on device 1, expected device 0");
  }
}

// A kernel that waits for a message nobody sends: the timeout is read on the
// host without synchronising, launches are refused until reset; an abort
// from the host ends a wait that has no timeout.
TEST_F(Gpu, TimeoutAndAbortAreReadOnTheHost) {
  KernelLibrary lib;
  Status st = parseKernelLibrary(std::string(test::kTestKernelsSource) +
                                     "// ccopt-schedule kernel=wait_forever collective=barrier redop=none ranks=2 "
                                     "channels=1 element=f32 wire=f32 input=0 output=0 scratch=0 in_place=0 root=-1 "
                                     "rank_map=- algorithm=test\n",
                                 lib);
  ASSERT_TRUE(st.ok()) << st.message;
  auto program = compile(lib);
  ASSERT_TRUE(program);
  std::vector<RankBuffers> none(2);
  none[1].rank = 1;
  LaunchOptions quick;
  quick.timeout = 100ms;
  auto c = program->bindVirtualRanks("wait_forever", 0, none, quick, st);
  ASSERT_TRUE(c) << st.message;
  ASSERT_TRUE(c->launch({stream_}).ok());
  Status seen;
  for (int i = 0; i < 200 && seen.ok(); ++i) {
    std::this_thread::sleep_for(10ms);
    seen = c->asyncError();
  }
  EXPECT_EQ(seen.code, Code::Timeout) << seen.message;
  EXPECT_EQ(c->launch({stream_}).code, Code::InvalidUsage);
  ASSERT_TRUE(c->reset().ok());

  LaunchOptions forever;
  forever.timeout = std::chrono::nanoseconds(0);
  auto stuck = program->bindVirtualRanks("wait_forever", 0, none, forever, st);
  ASSERT_TRUE(stuck) << st.message;
  ASSERT_TRUE(stuck->launch({stream_}).ok());
  std::this_thread::sleep_for(50ms);
  stuck->abort();
  ASSERT_EQ(driver().cuStreamSynchronize(stream_), CUDA_SUCCESS);
  EXPECT_EQ(stuck->asyncError().code, Code::Aborted);
  EXPECT_TRUE(stuck->reset().ok());
}

// (b): rank r on GPU r, peer access, one stream per GPU.
TEST_F(Gpu, OneRankPerGpuWithPeerAccess) {
  if (devices_ < 4) GTEST_SKIP() << "needs 4 GPUs, the machine has " << devices_;
  KernelLibrary lib = load("all_reduce-sum-f32-4r-1000");
  auto program = compile(lib, {0, 1, 2, 3});
  ASSERT_TRUE(program);
  const Schedule& s = lib.schedules[0];
  Buffers b = allocate(s, {0, 1, 2, 3});
  Status st;
  auto c = program->bindDevices(s.kernel, b.views, {}, st);
  ASSERT_TRUE(c) << st.message;
  for (int r = 0; r < 4; ++r) {
    std::vector<float> host(1000);
    for (size_t i = 0; i < host.size(); ++i) host[i] = float((i * 7 + r * 3) % 11);
    std::string error;
    ASSERT_TRUE(ctx_->copyToDevice(b.views[r].input.data, host.data(), 4000, error)) << error;  // UVA
    ASSERT_TRUE(CudaContext::primary(r, error)->synchronize(error)) << error;
  }
  ASSERT_TRUE((st = c->launch()).ok()) << st.message;
  for (int g = 0; g < 4; ++g) {
    std::string error;
    ASSERT_TRUE(CudaContext::primary(g, error)->synchronize(error)) << error;
  }
  ASSERT_TRUE(c->asyncError().ok());
  EXPECT_EQ(wrongSum(b, s, 0), 0);
}

// NVLS: a 2-rank all-reduce reduced in the NVSwitch, on two Hopper GPUs'
// multicast buffers (input and output at the same offsets of one
// MulticastBuffers); ordinary buffers and shared GPUs are refused first.
TEST_F(Gpu, NvlsAllReduceOnMulticastBuffers) {
  KernelLibrary lib = load("all_reduce-sum-f32-2r-100003-nvls");
  const Schedule& s = lib.schedules[0];
  ASSERT_TRUE(s.multicast);
  Status st;
  EXPECT_FALSE(MulticastBuffers::allocate({0}, 4096, st));
  EXPECT_EQ(st.code, Code::InvalidArgument) << st.message;
  if (devices_ < 2) GTEST_SKIP() << "needs 2 GPUs on an NVSwitch, the machine has " << devices_;
  auto multicast = MulticastBuffers::allocate({0, 1}, s.inputBytes() + s.outputBytes(), st);
  if (!multicast && st.code == Code::NotSupported) GTEST_SKIP() << st.message;
  ASSERT_TRUE(multicast) << st.message;
  auto program = compile(lib, {0, 1});
  ASSERT_TRUE(program);
  Buffers plain = allocate(s, {0, 1});
  EXPECT_FALSE(program->bindDevices(s.kernel, plain.views, {}, st));
  EXPECT_EQ(st.code, Code::InvalidArgument) << st.message;
  EXPECT_NE(st.message.find("is not multicast memory"), std::string::npos) << st.message;
  EXPECT_FALSE(program->bindVirtualRanks(s.kernel, 0, allocate(s).views, {}, st));
  EXPECT_EQ(st.code, Code::NotSupported) << st.message;
  // The same views, pointed at the multicast buffers.
  Buffers b = std::move(plain);
  for (int r = 0; r < 2; ++r) {
    char* base = static_cast<char*>(multicast->data(size_t(r)));
    b.views[r].input.data = base;
    b.views[r].output.data = base + s.inputBytes();
  }
  auto c = program->bindDevices(s.kernel, b.views, {}, st);
  ASSERT_TRUE(c) << st.message;
  for (int round = 0; round < 2; ++round) {
    fill(b, s, round);
    ASSERT_TRUE((st = c->launch()).ok()) << st.message;
    for (int g = 0; g < 2; ++g) {
      std::string error;
      ASSERT_TRUE(CudaContext::primary(g, error)->synchronize(error)) << error;
    }
    ASSERT_TRUE(c->asyncError().ok()) << c->asyncError().message;
    EXPECT_EQ(wrongSum(b, s, round), 0) << "round " << round;
  }
}

}  // namespace
}  // namespace ccopt::rt
