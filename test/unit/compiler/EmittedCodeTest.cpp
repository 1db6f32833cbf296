//===- EmittedCodeTest.cpp - emitted CUDA compiles with NVRTC -------------===//
//
// NVRTC needs no GPU: the kernels ccopt emits for the example must compile
// for Ampere and Hopper on any machine with the toolkit.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#ifdef CCOPT_HAVE_NVRTC
#include "jit/Nvrtc.h"
#endif

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

std::string readExample(const std::string &name) {
  std::ifstream in(std::string(CCOPT_SOURCE_DIR) + "/examples/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(EmittedCode, CompilesWithNvrtcForAmpereAndHopper) {
#ifndef CCOPT_HAVE_NVRTC
  GTEST_SKIP() << "no NVRTC in this build (CUDA toolkit missing)";
#else
  mlir::MLIRContext context;
  ccopt::test::loadDialects(context);
  auto compiled = ccopt::test::compile(context, readExample("allreduce.mlir"),
                                       {"a100x8", "", 1, 4, 2});
  ASSERT_TRUE(compiled.module) << compiled.error;
  for (int arch : {80, 90}) {
    auto result = ccopt::rt::compileWithNvrtc(compiled.cuda, "allreduce.cu", arch);
    EXPECT_TRUE(result.ok) << "sm_" << arch << ":\n" << result.log;
    EXPECT_FALSE(result.cubin.empty());
    std::cout << "[ nvrtc   ] sm_" << arch << " " << result.seconds << " s\n";
  }
#endif
}

} // namespace
