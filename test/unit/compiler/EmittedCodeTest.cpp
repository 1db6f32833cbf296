//===- EmittedCodeTest.cpp - emitted CUDA compiles with NVRTC -------------===//
//
// NVRTC needs no GPU: the kernels ccopt emits for the example must compile
// for Ampere and Hopper on any machine with the toolkit.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"
#include "dialect/Ccl/CclDialect.h"
#include "dialect/Sched/SchedDialect.h"
#include "mlir/AsmParser/AsmParser.h"

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

// The LL protocol's kernels (8-byte volatile {data, flag} lines, elements of
// 1, 2, 4 and 8 bytes packed into data words, a 16-bit wire) compile too,
// and so do LL128's (128-byte lines as v2.u64 stores and loads of 8 lanes,
// warp votes).
TEST(EmittedCode, LLCompilesWithNvrtcForAmpereAndHopper) {
#ifndef CCOPT_HAVE_NVRTC
  GTEST_SKIP() << "no NVRTC in this build (CUDA toolkit missing)";
#else
  mlir::MLIRContext context;
  ccopt::test::loadDialects(context);
  for (std::string protocol : {"ll", "ll128"}) {
    // One kernel per element size (NVRTC time grows with the inlined LL
    // steps: a few small kernels).
    std::string text = "ccl.program @" + protocol + " world(4) {\n";
    int index = 0;
    for (auto [type, algorithm] : {std::pair{"i8", "ring"}, {"f16", "oneshot"},
                                   {"f32", "tree"}, {"ui64", "ring"}}) {
      std::string buf = "!ccl.buffer<1003x" + std::string(type) + ">";
      std::string name = "%b" + std::to_string(index++);
      text += "  " + name + " = ccl.buffer \"" + name.substr(1) + "\" : " + buf + "\n";
      text += "  ccl.all_reduce sum " + name + " -> " + name + " {algorithm = \"" +
              algorithm + "\", protocol = \"" + protocol + "\"} : " + buf + " -> " + buf + "\n";
    }
    text += "  %w = ccl.buffer \"w\" : !ccl.buffer<999xf32>\n"
            "  ccl.all_reduce avg %w -> %w {compress = f16, protocol = \"" + protocol + "\"} : "
            "!ccl.buffer<999xf32> -> !ccl.buffer<999xf32>\n}\n";
    auto compiled = ccopt::test::compile(context, text, {"a100x8", "", 1, 1, 1});
    ASSERT_TRUE(compiled.module) << compiled.error;
    ASSERT_NE(compiled.cuda.find("cc_ll_recv"), std::string::npos);
    ASSERT_EQ(compiled.cuda.find("cc_ll128_box") != std::string::npos, protocol == "ll128");
    for (int arch : {80, 90}) {
      auto result = ccopt::rt::compileWithNvrtc(compiled.cuda, protocol + ".cu", arch);
      EXPECT_TRUE(result.ok) << protocol << " sm_" << arch << ":\n" << result.log;
      EXPECT_FALSE(result.cubin.empty());
      std::cout << "[ nvrtc   ] " << protocol << " sm_" << arch << " " << result.seconds << " s\n";
    }
  }
#endif
}

// NVLS kernels: multimem load-reduce and store (one word, four words, and
// the lone f16/bf16 at a part's edge) of every type and operator the
// switch has, and the broadcast's stores from the root's input; ptxas
// (NVRTC's CUBIN) checks each instruction against sm_90. For sm_80 they
// compile to a trap (NVLS runs on Hopper only).
TEST(EmittedCode, NvlsCompilesWithNvrtcForHopper) {
#ifndef CCOPT_HAVE_NVRTC
  GTEST_SKIP() << "no NVRTC in this build (CUDA toolkit missing)";
#else
  mlir::MLIRContext context;
  ccopt::test::loadDialects(context);
  std::string text = "ccl.program @nvls world(8) {\n";
  int index = 0;
  for (const char *type : {"f32", "f64", "f16", "bf16", "i32", "ui32", "i64", "ui64"})
    for (const char *redop : {"sum", "avg", "min", "max"}) {
      mlir::Type element = mlir::parseType(type, &context);
      if (!mlir::sched::multimemReduces(element, *mlir::ccl::symbolizeReductionKind(redop)))
        continue;
      std::string buf = "!ccl.buffer<1003x" + std::string(type) + ">";
      std::string a = "%a" + std::to_string(index), b = "%b" + std::to_string(index++);
      text += "  " + a + " = ccl.buffer \"" + a.substr(1) + "\" multicast : " + buf + "\n";
      text += "  " + b + " = ccl.buffer \"" + b.substr(1) + "\" multicast : " + buf + "\n";
      text += "  ccl.all_reduce " + std::string(redop) + " " + a + " -> " + b +
              " {algorithm = \"nvls\"} : " + buf + " -> " + buf + "\n";
      if (std::string(redop) == "sum")
        text += "  ccl.broadcast " + a + " -> " + b + " root 5 {algorithm = \"nvls\"} : " + buf +
                " -> " + buf + "\n";
    }
  text += "}\n";
  auto compiled = ccopt::test::compile(context, text, {"h100x8", "", 1, 1, 2});
  ASSERT_TRUE(compiled.module) << compiled.error;
  ASSERT_NE(compiled.cuda.find("cc_multimem_reduce<cc_op_max>"), std::string::npos);
  ASSERT_NE(compiled.cuda.find("algorithm=nvls protocol=simple mailbox=0 multicast=1"),
            std::string::npos);
  ASSERT_NE(compiled.cuda.find("collective=broadcast"), std::string::npos);
  EXPECT_EQ(index, 28);
  for (int arch : {80, 90}) {
    auto result = ccopt::rt::compileWithNvrtc(compiled.cuda, "nvls.cu", arch);
    EXPECT_TRUE(result.ok) << "sm_" << arch << ":\n" << result.log;
    EXPECT_FALSE(result.cubin.empty());
    std::cout << "[ nvrtc   ] nvls sm_" << arch << " " << result.seconds << " s\n";
  }
  // The switch steps of the hierarchical one reach a node's ranks.
  std::string buf = "!ccl.buffer<1003xf16>";
  auto grouped = ccopt::test::compile(
      context,
      "ccl.program @nodes world(16) {\n  %a = ccl.buffer \"a\" multicast : " + buf +
          "\n  ccl.all_reduce max %a -> %a {algorithm = \"hierarchical_nvls\"} : " + buf +
          " -> " + buf + "\n}\n",
      {"h100x8", "", 2, 1, 2});
  ASSERT_TRUE(grouped.module) << grouped.error;
  ASSERT_NE(grouped.cuda.find("multicast=8"), std::string::npos);
  ASSERT_NE(grouped.cuda.find(", 8);"), std::string::npos);
  auto result = ccopt::rt::compileWithNvrtc(grouped.cuda, "nodes.cu", 90);
  EXPECT_TRUE(result.ok) << result.log;
#endif
}

} // namespace
