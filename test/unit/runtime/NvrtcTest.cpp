#include "runtime/jit/Nvrtc.h"
#include "test/unit/runtime/TestKernels.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace ccopt::rt {
namespace {

TEST(Nvrtc, Version) {
  const std::string v = nvrtcVersionString();
  std::printf("[ nvrtc   ] version %s\n", v.c_str());
  EXPECT_NE(v.find('.'), std::string::npos) << v;
}

// The host tests' kernels, unchanged, for Ampere and Hopper.
void compileTestKernels(int sm) {
  const NvrtcResult r = compileWithNvrtc(test::kTestKernelsSource, "test_kernels.cu", sm);
  EXPECT_TRUE(r.ok) << "sm_" << sm << ":\n" << r.log;
  ASSERT_GE(r.cubin.size(), 4u);
  EXPECT_EQ(std::string(r.cubin.data() + 1, 3), "ELF");  // a CUBIN is an ELF image
  std::printf("[ nvrtc   ] sm_%d: %.2f s, %zu-byte cubin\n", sm, r.seconds, r.cubin.size());
}

TEST(Nvrtc, TestKernelsCompileSm80) { compileTestKernels(80); }
TEST(Nvrtc, TestKernelsCompileSm90) { compileTestKernels(90); }

TEST(Nvrtc, SyntaxErrorNamesTheLine) {
  const NvrtcResult r = compileWithNvrtc(
      "#include \"ccopt/device.h\"\nCC_KERNEL(bad) {\n  int x = ;\n}\n", "bad.cu", 80);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.cubin.empty());
  EXPECT_NE(r.log.find("bad.cu(3)"), std::string::npos) << r.log;
}

}  // namespace
}  // namespace ccopt::rt
