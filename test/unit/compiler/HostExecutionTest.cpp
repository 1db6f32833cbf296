//===- HostExecutionTest.cpp - emitted kernels run on the host backend ----===//
//
// ccl programs go through the whole pipeline (lower, verify, emit CUDA); the
// emitted source is compiled for the CPU against the host primitives and run
// with one thread per rank and channel, then compared with a plain reference.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "host/HostBackend.h"
#include "passes/Collectives.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir;

namespace {

struct Case {
  int ranks;
  int64_t count;
  std::string type;  // f32 | i32
  std::string redop; // sum | max | min | avg
  bool inPlace;
  std::string name() const {
    return llvm::formatv("ar_{0}_{1}_{2}_{3}_{4}", ranks, count, type, redop,
                         inPlace ? "inplace" : "outofplace");
  }
};

std::string programText(const Case &c) {
  std::string buf = llvm::formatv("!ccl.buffer<{0}x{1}>", c.count, c.type);
  std::string out = c.inPlace ? "%a" : "%b";
  std::string text = llvm::formatv("ccl.program @{0} world({1}) {{\n"
                                   "  %a = ccl.buffer \"a\" : {2}\n",
                                   c.name(), c.ranks, buf);
  if (!c.inPlace)
    text += llvm::formatv("  %b = ccl.buffer \"b\" : {0}\n", buf).str();
  text += llvm::formatv("  ccl.all_reduce {0} %a -> {1} : {2} -> {2}\n}\n",
                        c.redop, out, buf)
              .str();
  return text;
}

/// Small integers: float sums of them are exact, so results compare exactly.
template <typename T> T inputValue(int rank, int64_t i) {
  return static_cast<T>(static_cast<int>((i * 7 + rank * 13) % 17) - 8);
}

template <typename T>
int64_t runAndCount(ccopt::rt::HostWorld &world, ccopt::rt::KernelFn kernel,
                    const Case &c) {
  for (int r = 0; r < c.ranks; ++r)
    for (int64_t i = 0; i < c.count; ++i)
      world.buffer<T>(r, CC_BUF_INPUT)[i] = inputValue<T>(r, i);
  int status = world.launch(kernel, std::chrono::seconds(60));
  EXPECT_EQ(status, CC_OK) << c.name();
  int64_t wrong = 0;
  for (int64_t i = 0; i < c.count; ++i) {
    T want = inputValue<T>(0, i);
    for (int r = 1; r < c.ranks; ++r) {
      T x = inputValue<T>(r, i);
      want = c.redop == "max"   ? std::max(want, x)
             : c.redop == "min" ? std::min(want, x)
                                : want + x;
    }
    if (c.redop == "avg")
      want /= static_cast<T>(c.ranks);
    for (int r = 0; r < c.ranks; ++r) {
      T have = world.buffer<T>(r, CC_BUF_OUTPUT)[i];
      // avg divides once, in the same order as the reference: exact too.
      wrong += have != want;
    }
  }
  return wrong;
}

class HostExecution : public ::testing::Test {
protected:
  void SetUp() override { ccopt::test::loadDialects(context); }

  /// Lowers `text` with `options`, emits CUDA and compiles it for the host
  /// into `compiled` and `module`; false (with the failure recorded) if not.
  bool build(const std::string &text, const ccopt::PipelineOptions &options) {
    compiled = ccopt::test::compile(context, text, options);
    if (!compiled.module) {
      ADD_FAILURE() << compiled.error;
      return false;
    }
    module = ccopt::rt::HostModule::compile(compiled.cuda, error);
    if (!module)
      ADD_FAILURE() << error;
    return module != nullptr;
  }
  /// Compiles all cases into one source, runs each, expects 0 wrong elements.
  void runCases(const std::vector<Case> &cases, int64_t chunks, int64_t channels) {
    runCases(cases, {"", "", 1, chunks, channels});
  }
  void runCases(const std::vector<Case> &cases, const ccopt::PipelineOptions &options);
  /// Runs `program` (in `module`) with rank r's input element e set to
  /// input(r, e); the output elements that differ from the plain reference
  /// (a reduce's root's only; an all-reduce's sum, not averaged), or -1
  /// where it did not run.
  template <typename T, typename Input>
  int64_t wrongElements(sched::ProgramOp program, Input input);
  /// Builds `text` with `options` and runs each of its programs (`check`
  /// sees it first) on small f32 inputs: 0 wrong elements each, and
  /// `expected` programs in all.
  template <typename Check>
  void runEveryProgram(const std::string &text, const ccopt::PipelineOptions &options,
                       size_t expected, Check check) {
    ASSERT_TRUE(build(text, options));
    size_t ran = 0;
    auto input = [](int rank, int64_t e) { return float((e * 5 + rank * 3) % 13); };
    for (auto program : compiled.module->getOps<sched::ProgramOp>()) {
      ++ran;
      check(program);
      EXPECT_EQ(wrongElements<float>(program, input), 0) << program.getSymName().str();
    }
    EXPECT_EQ(ran, expected);
  }
  MLIRContext context;
  ccopt::test::Compiled compiled;
  std::unique_ptr<ccopt::rt::HostModule> module;
  std::string error;
};

template <typename T, typename Input>
int64_t HostExecution::wrongElements(sched::ProgramOp program, Input input) {
  using K = ccl::CollectiveKind;
  int n = program.getRanks();
  int64_t in = program.getInputCount(), out = program.getOutputCount();
  auto kernel = module->kernel(ccopt::kernelName(program), error);
  if (!kernel) {
    ADD_FAILURE() << error;
    return -1;
  }
  ccopt::rt::HostWorld world(n, program.getChannels(), in * sizeof(T), out * sizeof(T),
                             program.getScratchCount() * sizeof(T), program.getInPlace());
  for (int r = 0; r < n; ++r)
    for (int64_t e = 0; e < in; ++e)
      world.buffer<T>(r, CC_BUF_INPUT)[e] = input(r, e);
  if (world.launch(kernel, std::chrono::seconds(60)) != CC_OK)
    return -1;
  K kind = program.getCollective();
  int root = program.getRoot() ? int(*program.getRoot()) : 0;
  int64_t wrong = 0;
  for (int r = 0; r < n; ++r) {
    if (kind == K::Reduce && r != root)
      continue; // only the root's output is defined
    for (int64_t e = 0; e < out; ++e) {
      T want{};
      if (kind == K::ReduceScatter || kind == K::Reduce || kind == K::AllReduce) {
        for (int q = 0; q < n; ++q)
          want += input(q, kind == K::ReduceScatter ? r * out + e : e);
        if (program.getRedop() == ccl::ReductionKind::Avg)
          want /= T(n);
      } else if (kind == K::AllGather) {
        want = input(int(e / in), e % in);
      } else if (kind == K::AllToAll) {
        int64_t m = out / n;
        want = input(int(e / m), r * m + e % m);
      } else {
        want = input(root, e); // broadcast
      }
      wrong += world.buffer<T>(r, CC_BUF_OUTPUT)[e] != want;
    }
  }
  return wrong;
}

void HostExecution::runCases(const std::vector<Case> &cases,
                             const ccopt::PipelineOptions &options) {
  std::string text;
  for (const Case &c : cases)
    text += programText(c);
  ASSERT_TRUE(build(text, options));

  size_t ran = 0;
  for (auto program : compiled.module->getOps<sched::ProgramOp>()) {
    ++ran;
    const Case &c = *llvm::find_if(cases, [&](const Case &c) {
      return program.getSymName().starts_with(c.name() + "_");
    });
    auto kernel = module->kernel(ccopt::kernelName(program), error);
    ASSERT_TRUE(kernel) << error;
    size_t elementBytes = 4;
    ccopt::rt::HostWorld world(c.ranks, program.getChannels(),
                               program.getInputCount() * elementBytes,
                               program.getOutputCount() * elementBytes,
                               program.getScratchCount() * elementBytes,
                               program.getInPlace());
    int64_t wrong = c.type == "f32" ? runAndCount<float>(world, kernel, c)
                                    : runAndCount<int32_t>(world, kernel, c);
    EXPECT_EQ(wrong, 0) << c.name() << " (" << program.getChannels()
                        << " channels, " << program.getChunks() << " chunks)";
  }
  EXPECT_EQ(ran, cases.size());
}

TEST_F(HostExecution, RingAllReduceMatchesReference) {
  std::vector<Case> cases;
  for (int ranks : {1, 2, 3, 5, 8})
    for (int64_t count : {1, 7, 4096, 1000003})
      for (std::string type : {"f32", "i32"})
        for (std::string redop : {"sum", "max"})
          cases.push_back({ranks, count, type, redop,
                           /*inPlace=*/(ranks + count) % 2 == 0});
  // Pipelined chunks and two channels, so both paths of the ring run.
  runCases(cases, /*chunks=*/2, /*channels=*/2);
}

// On a machine, every channel's ring follows its own order of the ranks
// (sched.task rank_map): NVLink-disjoint rings on the v100x8 cube-mesh,
// rail-aligned rings over two a100x8 nodes, rings that cross pcie4x8 nodes
// through different NICs, and by socket over three.
TEST_F(HostExecution, RingsInMachineOrder) {
  for (auto [topo, nodes, algorithm] :
       {std::tuple{"v100x8", 1, "ring"}, {"a100x8", 2, "ring"}, {"pcie4x8", 2, "ring"},
        {"pcie4x8", 3, "ring_sockets"}}) {
    std::vector<Case> cases;
    for (int64_t count : {1, 7, 4096, 100003})
      for (std::string redop : {"sum", "max"})
        cases.push_back({8 * nodes, count, "f32", redop, count % 2 == 1});
    ccopt::PipelineOptions options{topo, "", nodes, /*chunks=*/2, /*channels=*/4};
    options.algorithm = algorithm;
    SCOPED_TRACE(std::string(algorithm) + " on " + topo);
    runCases(cases, options);
  }
}

// Reduce-scatter and all-gather, every algorithm: rank j's block of the
// n-block buffer is elements [j*m, (j+1)*m).
TEST_F(HostExecution, ReduceScatterAndAllGatherAlgorithms) {
  std::string text;
  struct Shape {
    int ranks;
    int64_t block;
  };
  std::vector<Shape> shapes;
  for (int ranks : {1, 2, 3, 5, 8})
    for (int64_t block : {1, 7, 1000})
      shapes.push_back({ranks, block});
  // Those without a machine (HostExecutionBuilders runs the hierarchical
  // ones, RelayedCollectivesOnTheCubeMesh the relays).
  auto algorithms = ccopt::test::algorithmsWithoutMachine(ccl::CollectiveKind::ReduceScatter);
  for (auto [a, algorithm] : llvm::enumerate(algorithms))
    for (auto [i, shape] : llvm::enumerate(shapes)) {
      auto [n, m] = shape;
      text += llvm::formatv(
          "ccl.program @s{0}_{4} world({1}) {{\n"
          "  %big = ccl.buffer \"big\" : !ccl.buffer<{2}xi32>\n"
          "  %small = ccl.buffer \"small\" : !ccl.buffer<{3}xi32>\n"
          "  ccl.reduce_scatter sum %big -> %small {{algorithm = \"{4}\"} : !ccl.buffer<{2}xi32> -> !ccl.buffer<{3}xi32>\n"
          "  ccl.all_gather %small -> %big {{algorithm = \"{4}\"} : !ccl.buffer<{3}xi32> -> !ccl.buffer<{2}xi32>\n"
          "}\n",
          i, n, n * m, m, algorithm);
    }
  ASSERT_TRUE(build(text, {"", "", 1, 2, 2}));
  size_t ran = 0;
  auto input = [](int rank, int64_t e) { return int32_t(e * 3 + rank * 101); };
  for (auto program : compiled.module->getOps<sched::ProgramOp>()) {
    ++ran;
    EXPECT_EQ(wrongElements<int32_t>(program, input), 0) << program.getSymName().str();
  }
  EXPECT_EQ(ran, 2 * shapes.size() * algorithms.size());
}

// Broadcast and reduce from and to a root, and all-to-all, every
// algorithm of each that runs without a machine (the a-th of each kind's
// list together, cycling through the shorter lists).
TEST_F(HostExecution, RootedAndAllToAllAlgorithms) {
  std::string text;
  int index = 0;
  auto broadcast = ccopt::test::algorithmsWithoutMachine(ccl::CollectiveKind::Broadcast);
  auto reduce = ccopt::test::algorithmsWithoutMachine(ccl::CollectiveKind::Reduce);
  auto allToAll = ccopt::test::algorithmsWithoutMachine(ccl::CollectiveKind::AllToAll);
  for (size_t a = 0; a < broadcast.size(); ++a)
    for (int n : {1, 2, 3, 5, 8})
      for (int64_t m : {1, 7, 1000}) {
        int root = (n * 7 + int(m) + int(a)) % n;
        text += llvm::formatv(
            "ccl.program @c{0} world({1}) {{\n"
            "  %a = ccl.buffer \"a\" : !ccl.buffer<{2}xf32>\n"
            "  %b = ccl.buffer \"b\" : !ccl.buffer<{2}xf32>\n"
            "  ccl.broadcast %a -> %b root {3} {{algorithm = \"{4}\"} : !ccl.buffer<{2}xf32> -> !ccl.buffer<{2}xf32>\n"
            "  ccl.reduce avg %a -> %b root {3} {{algorithm = \"{6}\"} : !ccl.buffer<{2}xf32> -> !ccl.buffer<{2}xf32>\n"
            "  ccl.all_to_all %a -> %b {{algorithm = \"{5}\"} : !ccl.buffer<{2}xf32> -> !ccl.buffer<{2}xf32>\n"
            "  ccl.broadcast %a -> %a root {3} {{algorithm = \"{4}\"} : !ccl.buffer<{2}xf32> -> !ccl.buffer<{2}xf32>\n"
            "  ccl.all_to_all %a -> %a {{algorithm = \"{5}\"} : !ccl.buffer<{2}xf32> -> !ccl.buffer<{2}xf32>\n"
            "}\n",
            index++, n, n * m, root, broadcast[a], allToAll[a % allToAll.size()],
            reduce[a % reduce.size()]);
      }
  runEveryProgram(text, {"", "", 1, 3, 2}, 5 * size_t(index), [](sched::ProgramOp) {});
}

// The hierarchical broadcasts (a part per GPU of a node, along a chain or
// two trees of nodes over the rails, then to the node-mates): 2, 3 and 4
// a100x8 nodes, 6 h100x8 nodes, two v100x8 nodes, pcie4x8's sockets on one
// node; roots on the first,
// middle and last node; in and out of place; counts with fewer elements
// than sub-parts, primes; several channels and pieces (channels of
// different piece counts).
TEST_F(HostExecution, HierarchicalBroadcastsOverNodes) {
  // hierarchical_tree's two trees of the other nodes are mirrored (an even
  // number of them) or shifted.
  for (auto [topo, nodes] : {std::pair{"a100x8", 2}, {"a100x8", 3}, {"a100x8", 4},
                             {"h100x8", 6}, {"v100x8", 2}, {"pcie4x8", 1}}) {
    int n = 8 * nodes;
    std::string text;
    int index = 0;
    for (int root : {0, n / 2 + 1, n - 1})
      for (int64_t count : {1, 67, 30011}) {
        int64_t channels = 1 + index % 3, chunks = 1 + index % 4 * 2;
        text += llvm::formatv(
            "ccl.program @b{0} world({1}) {{\n"
            "  %a = ccl.buffer \"a\" : !ccl.buffer<{2}xf32>\n"
            "  %b = ccl.buffer \"b\" : !ccl.buffer<{2}xf32>\n"
            "  ccl.broadcast %a -> %b root {3} {{algorithm = \"{6}\", channels = {4} "
            ": i64, chunks = {5} : i64} : !ccl.buffer<{2}xf32> -> !ccl.buffer<{2}xf32>\n"
            "  ccl.broadcast %a -> %a root {3} {{algorithm = \"{6}\", channels = {5} "
            ": i64, chunks = {4} : i64} : !ccl.buffer<{2}xf32> -> !ccl.buffer<{2}xf32>\n"
            "}\n",
            index, n, count, root, channels, chunks,
            index % 2 ? "hierarchical_tree" : "hierarchical");
        ++index;
      }
    SCOPED_TRACE(std::string(topo) + " x" + std::to_string(nodes));
    runEveryProgram(text, {topo, "", nodes, 1, 1}, 2u * index, [](sched::ProgramOp program) {
      EXPECT_TRUE(program.getAlgorithm().starts_with("hierarchical"));
    });
  }
}

// A reduce-scatter and an all-gather by two algorithms side by side, each
// on its channels and its share of every block (`beside`): the ring and
// the hierarchical ones over two and three a100x8 nodes, two v100x8 nodes
// (node rings in pieces); shares 1:1, 2:1 and 4:1 of four ring pieces a
// block (some parts of a share then hold no element: blocks of 4 and 7),
// the other algorithm on several channels and pieces.
TEST_F(HostExecution, AlgorithmsSideBySide) {
  for (auto [topo, nodes, other] : {std::tuple{"a100x8", 2, "hierarchical"},
                                    {"a100x8", 3, "hierarchical_direct"},
                                    {"v100x8", 2, "hierarchical"}}) {
    int n = 8 * nodes;
    std::string text;
    int index = 0;
    for (auto [block, weight] : {std::pair<int64_t, int64_t>{4, 4}, {7, 2}, {1003, 1}}) {
      int64_t channels = 1 + index % 4, chunks = 1 + index % 3;
      text += llvm::formatv(
          "ccl.program @s{0} world({1}) {{\n"
          "  %big = ccl.buffer \"big\" : !ccl.buffer<{2}xf32>\n"
          "  %small = ccl.buffer \"small\" : !ccl.buffer<{3}xf32>\n"
          "  ccl.reduce_scatter sum %big -> %small {{algorithm = \"ring\", channels = 4 : "
          "i64, chunks = 1 : i64, beside = {{algorithm = \"{7}\", channels = {5} : i64, "
          "chunks = {6} : i64, weights = array<i64: {8}, 1>}} : !ccl.buffer<{2}xf32> -> "
          "!ccl.buffer<{3}xf32>\n"
          "  ccl.all_gather %small -> %big {{algorithm = \"ring\", channels = 2 : i64, "
          "chunks = 2 : i64, beside = {{algorithm = \"{7}\", channels = {4} : i64, "
          "chunks = 2 : i64, weights = array<i64: {8}, 1>}} : !ccl.buffer<{3}xf32> -> "
          "!ccl.buffer<{2}xf32>\n"
          "}\n",
          index, n, n * block, block, channels, 3 - index % 2, chunks, other, weight);
      ++index;
    }
    SCOPED_TRACE(std::string(topo) + " x" + std::to_string(nodes));
    std::string algorithm = std::string("ring+") + other;
    runEveryProgram(text, {topo, "", nodes, 1, 1}, 2u * index, [&](sched::ProgramOp program) {
      EXPECT_EQ(program.getAlgorithm().str(), algorithm);
    });
  }
}

// The node-aware pipelines on 16 channels, which cut their shares in
// different numbers of pieces (channels 8-15 fewer, down to half): their
// steady rounds run in a sched.loop that runs several times, once or not
// at all (a channel of fewer pieces keeps it, to share a kernel body).
TEST_F(HostExecution, PipelinesOfUnevenPieces) {
  for (auto [topo, algorithm, chunks] :
       {std::tuple{"a100x8", "hierarchical", 8}, {"a100x8", "hierarchical_direct", 4},
        {"v100x8", "hierarchical", 4}}) {
    int nodes = 2, n = 8 * nodes;
    int64_t block = 16 * 2 * chunks + 5; // every piece keeps elements
    std::string text = llvm::formatv(
        "ccl.program @u world({0}) {{\n"
        "  %big = ccl.buffer \"big\" : !ccl.buffer<{1}xf32>\n"
        "  %small = ccl.buffer \"small\" : !ccl.buffer<{2}xf32>\n"
        "  %out = ccl.buffer \"out\" : !ccl.buffer<{1}xf32>\n"
        "  ccl.reduce_scatter sum %big -> %small {{algorithm = \"{3}\", channels = 16 : i64, "
        "chunks = {4} : i64} : !ccl.buffer<{1}xf32> -> !ccl.buffer<{2}xf32>\n"
        "  ccl.all_gather %small -> %big {{algorithm = \"{3}\", channels = 16 : i64, "
        "chunks = {4} : i64} : !ccl.buffer<{2}xf32> -> !ccl.buffer<{1}xf32>\n"
        "  ccl.all_reduce sum %big -> %out {{algorithm = \"{3}\", channels = 16 : i64, "
        "chunks = {4} : i64} : !ccl.buffer<{1}xf32> -> !ccl.buffer<{1}xf32>\n"
        "}\n",
        n, n * block, block, algorithm, chunks);
    SCOPED_TRACE(std::string(algorithm) + " on " + topo + " x2");
    runEveryProgram(text, {topo, "", nodes, 1, 1}, 3, [&](sched::ProgramOp program) {
      EXPECT_EQ(program.getAlgorithm().str(), algorithm);
      EXPECT_EQ(program.getChannels(), 16);
    });
  }
}

// Rings and chains by socket (through one socket of every node, then the
// other's) on three and four pcie4x8 nodes: reduce-scatter, all-gather,
// broadcast and reduce.
TEST_F(HostExecution, RingsAndChainsBySocket) {
  for (int nodes : {3, 4}) {
    int n = 8 * nodes;
    std::string text;
    int index = 0;
    for (int64_t m : {1, 7, 1000}) {
      std::string big = llvm::formatv("!ccl.buffer<{0}xi32>", n * m);
      std::string small = llvm::formatv("!ccl.buffer<{0}xi32>", m);
      text += llvm::formatv(
          "ccl.program @p{0} world({1}) {{\n"
          "  %big = ccl.buffer \"big\" : {2}\n  %small = ccl.buffer \"small\" : {3}\n"
          "  ccl.reduce_scatter sum %big -> %small {{algorithm = \"ring_sockets\"} : {2} -> {3}\n"
          "  ccl.all_gather %small -> %big {{algorithm = \"ring_sockets\"} : {3} -> {2}\n"
          "  ccl.broadcast %big -> %big root {4} {{algorithm = \"chain_sockets\"} : {2} -> {2}\n"
          "  ccl.reduce sum %big -> %big root {4} {{algorithm = \"chain_sockets\"} : {2} -> {2}\n"
          "}\n",
          index++, n, big, small, (5 * m) % n);
    }
    SCOPED_TRACE(std::to_string(nodes) + " nodes");
    ASSERT_TRUE(build(text, {"pcie4x8", "", nodes, /*chunks=*/2, /*channels=*/4}));
    size_t ran = 0;
    auto input = [](int rank, int64_t e) { return int32_t(e * 3 + rank * 101); };
    for (auto program : compiled.module->getOps<sched::ProgramOp>()) {
      ++ran;
      EXPECT_EQ(wrongElements<int32_t>(program, input), 0) << program.getSymName().str();
      EXPECT_TRUE(program.getAlgorithm().ends_with("_sockets")) << program.getSymName().str();
    }
    EXPECT_EQ(ran, 4u * index);
  }
}

// Reduce-scatter and all-gather in groups of one socket of every pcie4x8
// node (hierarchical_sockets): on the world of two nodes and on a group of
// the last two of three, in one piece (the group's direct exchange) and in
// three (rings through the group); each block stays its rank's own although
// the groups reorder the ranks.
TEST_F(HostExecution, ScatterGatherInSocketGroups) {
  for (const char *group : {"", " group @g"}) {
    int nodes = *group ? 3 : 2, n = 16;
    std::string text;
    int index = 0;
    for (auto [m, chunks] : {std::pair<int64_t, int>{7, 1}, {1000, 3}}) {
      std::string big = llvm::formatv("!ccl.buffer<{0}xi32>", n * m);
      std::string small = llvm::formatv("!ccl.buffer<{0}xi32>", m);
      std::string attrs = llvm::formatv(
          "{{algorithm = \"hierarchical_sockets\", channels = {0} : i64, chunks = {1} : i64}",
          2 + chunks % 2, chunks);
      text += llvm::formatv(
          "ccl.program @p{0} world({1}) {{\n{6}"
          "  %big = ccl.buffer \"big\" : {2}\n  %small = ccl.buffer \"small\" : {3}\n"
          "  ccl.reduce_scatter sum %big -> %small{4} {5} : {2} -> {3}\n"
          "  ccl.all_gather %small -> %big{4} {5} : {3} -> {2}\n"
          "}\n",
          index++, 8 * nodes, big, small, group, attrs,
          *group ? "  ccl.group @g ranks [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, "
                   "20, 21, 22, 23]\n"
                 : "");
    }
    SCOPED_TRACE(*group ? "a group of 2 of 3 nodes" : "2 nodes");
    ASSERT_TRUE(build(text, {"pcie4x8", "", nodes, 1, 1}));
    size_t ran = 0;
    auto input = [](int rank, int64_t e) { return int32_t(e * 3 + rank * 101); };
    for (auto program : compiled.module->getOps<sched::ProgramOp>()) {
      ++ran;
      EXPECT_EQ(wrongElements<int32_t>(program, input), 0) << program.getSymName().str();
      EXPECT_EQ(program.getAlgorithm(), "hierarchical_sockets") << program.getSymName().str();
    }
    EXPECT_EQ(ran, 2u * index);
  }
}

// All-to-all, all-gather and reduce-scatter relayed over v100x8's NVLinks
// (pairs without one go through a neighbour of both), on the world and on
// a subgroup, over 1, 2 or 40 channels (enough for every share in a
// channel of its own), in 1-3 rounds.
TEST_F(HostExecution, RelayedCollectivesOnTheCubeMesh) {
  std::string text;
  int index = 0;
  for (const char *collective : {"all_to_all", "all_gather", "reduce_scatter sum"})
    for (int64_t m : {1, 7, 1000})
      for (const char *group : {"", " group @g"}) {
        // 40 channels: blocks in thirds, each on a channel of its own.
        bool gather = llvm::StringRef(collective) == "all_gather";
        bool scatter = llvm::StringRef(collective).starts_with("reduce");
        int n = *group ? 6 : 8, channels = index % 3 == 2 ? 40 : 1 + index % 3;
        text += llvm::formatv(
            "ccl.program @r{0} world(8) {{\n"
            "  ccl.group @g ranks [5, 0, 3, 6, 1, 2]\n"
            "  %a = ccl.buffer \"a\" : !ccl.buffer<{1}xf32>\n"
            "  %b = ccl.buffer \"b\" : !ccl.buffer<{2}xf32>\n"
            "  ccl.{3} %a -> %b{4} {{algorithm = \"relay\", channels = {5} : i64, "
            "chunks = {6} : i64} : !ccl.buffer<{1}xf32> -> !ccl.buffer<{2}xf32>\n"
            "}\n",
            index, gather ? m : n * m, scatter ? m : n * m, collective, group, channels,
            1 + index / 3 % 3);
        ++index;
      }
  ASSERT_TRUE(build(text, {"v100x8", "", 1, 1, 0}));
  auto input = [](int rank, int64_t e) { return float((e * 5 + rank * 3) % 13); };
  size_t ran = 0;
  for (auto program : compiled.module->getOps<sched::ProgramOp>()) {
    ++ran;
    EXPECT_EQ(program.getAlgorithm(), "relay");
    EXPECT_GT(program.getScratchCount(), 0) << "nothing relayed";
    int n = program.getRanks();
    bool gather = program.getCollective() == ccl::CollectiveKind::AllGather;
    bool scatter = program.getCollective() == ccl::CollectiveKind::ReduceScatter;
    int64_t in = program.getInputCount(), out = program.getOutputCount();
    int64_t m = scatter ? out : out / n;
    auto kernel = module->kernel(ccopt::kernelName(program), error);
    ASSERT_TRUE(kernel) << error;
    ccopt::rt::HostWorld world(n, program.getChannels(), in * 4, out * 4,
                               program.getScratchCount() * 4);
    for (int r = 0; r < n; ++r)
      for (int64_t e = 0; e < in; ++e)
        world.buffer<float>(r, CC_BUF_INPUT)[e] = input(r, e);
    ASSERT_EQ(world.launch(kernel, std::chrono::seconds(30)), CC_OK);
    int64_t wrong = 0;
    auto want = [&](int r, int64_t e) {
      if (!scatter)
        return input(int(e / m), gather ? e % m : r * m + e % m);
      float sum = 0;
      for (int q = 0; q < n; ++q)
        sum += input(q, r * m + e);
      return sum;
    };
    for (int r = 0; r < n; ++r)
      for (int64_t e = 0; e < out; ++e)
        wrong += world.buffer<float>(r, CC_BUF_OUTPUT)[e] != want(r, e);
    EXPECT_EQ(wrong, 0) << program.getSymName().str();
  }
  EXPECT_EQ(ran, size_t(index));
}

// Dissemination barriers (and a group's) run to the end on the host backend.
TEST_F(HostExecution, BarriersComplete) {
  std::string text;
  for (int n : {1, 2, 3, 5, 8})
    text += llvm::formatv("ccl.program @b{0} world({0}) {{\n"
                          "  ccl.group @odd ranks [0]\n"
                          "  ccl.barrier\n"
                          "  ccl.barrier group @odd\n"
                          "}\n",
                          n);
  ASSERT_TRUE(build(text, {}));
  for (auto program : compiled.module->getOps<sched::ProgramOp>()) {
    auto kernel = module->kernel(ccopt::kernelName(program), error);
    ASSERT_TRUE(kernel) << error;
    ccopt::rt::HostWorld world(program.getRanks(), 1, 0, 0, 0);
    EXPECT_EQ(world.launch(kernel, std::chrono::seconds(30)), CC_OK)
        << program.getSymName().str();
  }
}

// Point to point: rank `from`'s buffer arrives in rank `to`'s, in pieces.
TEST_F(HostExecution, SendRecvDelivers) {
  std::string text;
  for (int64_t count : {1, 7, 300000})
    text += llvm::formatv(
        "ccl.program @p{0} world(4) {{\n"
        "  %a = ccl.buffer \"a\" : !ccl.buffer<{0}xi32>\n"
        "  %b = ccl.buffer \"b\" : !ccl.buffer<{0}xi32>\n"
        "  ccl.recv %b from 3 to 1 : !ccl.buffer<{0}xi32>\n"
        "  ccl.send %a from 3 to 1 : !ccl.buffer<{0}xi32>\n"
        "}\n",
        count);
  ASSERT_TRUE(build(text, {"", "", 1, 3, 0}));
  for (auto program : compiled.module->getOps<sched::ProgramOp>()) {
    auto kernel = module->kernel(ccopt::kernelName(program), error);
    ASSERT_TRUE(kernel) << error;
    int64_t count = program.getInputCount();
    // Schedule ranks 0 and 1 are world ranks 3 and 1 (rank_map).
    ccopt::rt::HostWorld world(2, 1, count * 4, count * 4, 0);
    for (int64_t e = 0; e < count; ++e)
      world.buffer<int32_t>(0, CC_BUF_INPUT)[e] = int32_t(e * 7 + 1);
    ASSERT_EQ(world.launch(kernel, std::chrono::seconds(30)), CC_OK);
    int64_t wrong = 0;
    for (int64_t e = 0; e < count; ++e)
      wrong += world.buffer<int32_t>(1, CC_BUF_OUTPUT)[e] != int32_t(e * 7 + 1);
    EXPECT_EQ(wrong, 0) << program.getSymName().str();
  }
}

// Every all-reduce algorithm ccl-lower-to-sched builds, on the grid of
// worlds, counts, types and reductions (recursive doubling on powers of two).
TEST_F(HostExecution, EveryAllReduceAlgorithmMatchesReference) {
  // (Those that need nodes: HierarchicalAllReducesOverNodes, RingsInMachineOrder;
  // a switch: SwitchReductions...)
  for (llvm::StringRef algorithm :
       ccopt::test::algorithmsWithoutMachine(ccl::CollectiveKind::AllReduce)) {
    std::vector<Case> cases;
    bool powersOfTwo = algorithm.ends_with("doubling");
    for (int ranks : powersOfTwo ? std::vector<int>{1, 2, 4, 8, 16}
                                 : std::vector<int>{1, 2, 3, 5, 8})
      for (int64_t count : {1, 7, 4096, 100003})
        for (std::string redop : {"sum", "max", "avg"})
          cases.push_back({ranks, count, redop == "avg" || count % 2 ? "f32" : "i32",
                           redop, (ranks + count) % 2 == 0});
    ccopt::PipelineOptions options{"", "", 1, /*chunks=*/2, /*channels=*/2};
    options.algorithm = algorithm.str();
    SCOPED_TRACE(algorithm.str());
    runCases(cases, options);
  }
}

// The node-aware all-reduce on machines of several nodes: a ring or
// recursive doubling between the nodes' GPUs of the same index (on a100x8
// where the count is a multiple of the ranks, the hierarchical
// reduce-scatter and all-gather, in 4 pieces the end ones halved); in
// pieces, on three channels that start at each of the three phases (the
// halves' odd pieces add each block's node copies as soon as they are
// sent); on v100x8 and
// pcie4x8 with rings inside the nodes (not every pair has NVLink); on one
// pcie4x8 node between its two sockets; on several pcie4x8 nodes in groups
// of one socket of every node; hierarchical_direct (the halves exchanging
// along the rails directly) on three and four a100x8 nodes; hierarchical_hd
// (halving, then doubling, along the rails; two staging slots in turn) on
// two and four nodes.
TEST_F(HostExecution, HierarchicalAllReducesOverNodes) {
  for (auto [topo, nodes, algorithm, chunks] :
       {std::tuple{"a100x8", 2, "hierarchical", 1}, {"a100x8", 2, "hierarchical_rd", 1},
        {"v100x8", 3, "hierarchical", 1}, {"pcie4x8", 4, "hierarchical_rd", 1},
        {"a100x8", 2, "hierarchical", 4}, {"a100x8", 4, "hierarchical_rd", 4},
        {"v100x8", 2, "hierarchical_rd", 2}, {"pcie4x8", 1, "hierarchical", 2},
        {"pcie4x8", 1, "hierarchical_rd", 1}, {"pcie4x8", 2, "hierarchical_sockets", 2},
        {"pcie4x8", 4, "hierarchical_sockets", 1}, {"a100x8", 4, "hierarchical_direct", 4},
        {"a100x8", 3, "hierarchical_direct", 1}, {"a100x8", 4, "hierarchical_hd", 2},
        {"v100x8", 4, "hierarchical_hd", 1}, {"h100x8", 2, "hierarchical_hd", 4}}) {
    int ranks = 8 * nodes;
    std::vector<Case> cases;
    // hierarchical_direct takes equal blocks: multiples of the ranks.
    bool blocks = std::string_view(algorithm) == "hierarchical_direct";
    std::vector<int64_t> counts = {1, 7, 4096, 30011};
    if (blocks)
      counts = {ranks, 7 * ranks, 131 * ranks};
    for (int64_t count : counts)
      for (std::string redop : {"sum", "max", "avg"})
        cases.push_back({ranks, count, redop == "avg" ? "f32" : "i32", redop,
                         count % 2 == 1 || redop == "max"});
    ccopt::PipelineOptions options{topo, "", nodes, chunks, /*channels=*/chunks > 1 ? 3 : 2};
    options.algorithm = algorithm;
    SCOPED_TRACE(std::string(algorithm) + " on " + topo + " x" + std::to_string(nodes) +
                 ", " + std::to_string(chunks) + " pieces");
    runCases(cases, options);
  }
}

// Property test: random worlds, counts (primes and tiny ones included),
// reductions, chunking and channels, every algorithm in turn, against the
// plain reference.
TEST_F(HostExecution, RandomAllReduces) {
  std::mt19937 rng(20261129);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int64_t primes[] = {2, 3, 31, 127, 8191, 65521};
  // Not those that need a machine (HierarchicalAllReducesOverNodes,
  // RingsInMachineOrder, ProtocolExecution.SwitchReductionsOnRandomCases).
  std::vector<llvm::StringRef> withoutNodes =
      ccopt::test::algorithmsWithoutMachine(ccl::CollectiveKind::AllReduce);
  for (size_t round = 0; round < withoutNodes.size(); ++round) {
    std::string algorithm = withoutNodes[round].str();
    std::vector<Case> cases;
    for (int i = 0; i < 10; ++i) {
      int64_t count = pick(0, 2) == 0 ? primes[pick(0, 5)] : pick(1, 20000);
      std::string type = pick(0, 1) ? "f32" : "i32";
      const char *redops[] = {"sum", "max", "min", "avg"};
      std::string redop = redops[pick(0, type == "f32" ? 3 : 2)];
      int ranks = llvm::StringRef(algorithm).ends_with("doubling") ? 1 << pick(0, 5) : pick(1, 16);
      cases.push_back({ranks, count, type, redop, pick(0, 1) == 1});
    }
    // Names must be unique within one module.
    llvm::sort(cases, [](const Case &a, const Case &b) { return a.name() < b.name(); });
    cases.erase(llvm::unique(cases, [](const Case &a, const Case &b) {
                  return a.name() == b.name();
                }),
                cases.end());
    ccopt::PipelineOptions options{"", "", 1, /*chunks=*/pick(1, 4), /*channels=*/pick(1, 3)};
    options.algorithm = algorithm;
    SCOPED_TRACE(algorithm);
    runCases(cases, options);
  }
}

} // namespace
