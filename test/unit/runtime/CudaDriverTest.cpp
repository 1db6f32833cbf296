#include "runtime/jit/CudaDriver.h"
#include "runtime/jit/JitCache.h"

#include "ccopt/device.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#ifndef CCOPT_CUDA_STUBS_DIR
#error "CCOPT_CUDA_STUBS_DIR must name the toolkit's lib64/stubs"
#endif

namespace ccopt::rt {
namespace {

namespace fs = std::filesystem;

TEST(CudaDriver, ProbeAnswersCleanly) {
  const DeviceStatus s = probeCudaDevices();
  std::printf("[ cuda    ] %s\n", s.available ? ("devices: " + std::to_string(s.count)).c_str() : s.reason.c_str());
  if (s.available) {
    EXPECT_GT(s.count, 0);
    EXPECT_TRUE(s.reason.empty()) << s.reason;
  } else {
    EXPECT_EQ(s.count, 0);
    EXPECT_EQ(s.reason.rfind("no CUDA device: ", 0), 0u) << s.reason;
  }
  const DeviceStatus again = probeCudaDevices();  // loaded once, same answer
  EXPECT_EQ(again.available, s.available);
  EXPECT_EQ(again.reason, s.reason);
}

TEST(CudaDriver, MissingLibraryIsNoDevice) {
  const DeviceStatus s = probeCudaDriverLibrary("/nonexistent/libcuda.so.1");
  EXPECT_FALSE(s.available);
  EXPECT_EQ(s.count, 0);
  EXPECT_EQ(s.reason.rfind("no CUDA device: cannot load /nonexistent/libcuda.so.1: ", 0), 0u) << s.reason;
}

// The toolkit's link stub has every entry point but cuInit fails: the
// "driver present, unusable" path. Probed in a child so the stub (soname
// libcuda.so.1) never enters this process.
TEST(CudaDriver, FailingCuInitIsNoDevice) {
  const std::string stub = std::string(CCOPT_CUDA_STUBS_DIR) + "/libcuda.so";
  if (!fs::exists(stub)) GTEST_SKIP() << "no driver stub at " << stub;
  int reply[2];
  ASSERT_EQ(pipe(reply), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(reply[0]);
    const DeviceStatus s = probeCudaDriverLibrary(stub);
    const std::string msg = (s.available ? "available " : "unavailable ") + s.reason;
    ssize_t unused = write(reply[1], msg.data(), msg.size());
    (void)unused;
    _exit(0);
  }
  close(reply[1]);
  std::string msg;
  char buf[1024];
  for (ssize_t n; (n = read(reply[0], buf, sizeof buf)) > 0;) msg.append(buf, size_t(n));
  close(reply[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(msg.rfind("unavailable no CUDA device: cuInit: CUDA_ERROR_STUB_LIBRARY", 0), 0u) << msg;
}

TEST(CudaDriver, ContextNeedsADevice) {
  const DeviceStatus s = probeCudaDevices();
  std::string error;
  if (!s.available) {
    EXPECT_EQ(CudaContext::primary(0, error), nullptr);
    EXPECT_EQ(error, s.reason);
    return;
  }
  EXPECT_EQ(CudaContext::primary(s.count, error), nullptr);
  EXPECT_NE(error.find("does not exist"), std::string::npos) << error;
}

// ---------------------------------------------------------------------------
// GPU only: JIT through the cache, load, launch, read the result back.
// ---------------------------------------------------------------------------

class CudaDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    const DeviceStatus s = probeCudaDevices();
    if (!s.available) GTEST_SKIP() << s.reason;
    std::string error;
    context_ = CudaContext::primary(0, error);
    ASSERT_NE(context_, nullptr) << error;
    std::string tmpl = (fs::temp_directory_path() / "ccopt-cuda-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  std::shared_ptr<CudaContext> context_;
  std::string dir_;
};

TEST_F(CudaDeviceTest, JitLoadLaunch) {
  const char* source = R"CCSRC(#include "ccopt/device.h"
CC_KERNEL(mark) {
  if (cc_tid() == 0 && CC_RANK == 3 && CC_CHANNEL == 1) *args->error = 42;
}
)CCSRC";
  const JitResult jit = JitCache(dir_).compile(source, "mark.cu", context_->smArch());
  ASSERT_TRUE(jit.ok) << jit.log;
  std::string error;
  auto module = CudaModule::load(context_, jit.cubin, error);
  ASSERT_NE(module, nullptr) << error;
  void* fn = module->function("mark", error);
  ASSERT_NE(fn, nullptr) << error;

  // A cc_args whose only live field is the error word (rank_base 2: block y 1 is rank 3).
  void* errorWord = context_->alloc(sizeof(int), error);
  void* deviceArgs = context_->alloc(sizeof(cc_args), error);
  ASSERT_TRUE(errorWord && deviceArgs) << error;
  const int zero = 0;
  ASSERT_TRUE(context_->copyToDevice(errorWord, &zero, sizeof zero, error)) << error;
  cc_args args{};
  args.nranks = 4;
  args.nchannels = 2;
  args.rank_base = 2;
  args.error = static_cast<int*>(errorWord);
  ASSERT_TRUE(context_->copyToDevice(deviceArgs, &args, sizeof args, error)) << error;

  ASSERT_TRUE(module->launch(fn, Dim3{2, 2, 1}, Dim3{64, 1, 1}, 0, nullptr, static_cast<const cc_args*>(deviceArgs),
                             error))
      << error;
  ASSERT_TRUE(context_->synchronize(error)) << error;
  int result = 0;
  ASSERT_TRUE(context_->copyToHost(&result, errorWord, sizeof result, error)) << error;
  EXPECT_EQ(result, 42);
  context_->free(deviceArgs);
  context_->free(errorWord);

  EXPECT_EQ(module->function("no_such_kernel", error), nullptr);
  EXPECT_NE(error.find("cuModuleGetFunction(no_such_kernel)"), std::string::npos) << error;
}

TEST_F(CudaDeviceTest, GarbageCubinIsRejected) {
  std::string error;
  // NUL-terminated: the driver reads a non-ELF image as PTX text.
  const std::string garbage = "this is not a cubin";
  EXPECT_EQ(CudaModule::load(context_, std::vector<char>(garbage.c_str(), garbage.c_str() + garbage.size() + 1), error),
            nullptr);
  EXPECT_NE(error.find("cuModuleLoadData"), std::string::npos) << error;
  EXPECT_EQ(CudaModule::load(context_, {}, error), nullptr);
  EXPECT_NE(error.find("empty CUBIN"), std::string::npos) << error;
}

}  // namespace
}  // namespace ccopt::rt
