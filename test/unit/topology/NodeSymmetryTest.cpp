//===- NodeSymmetryTest.cpp - GPU renumberings machines look the same under ===//

#include "topology/Machine.h"
#include "topology/NodeSymmetry.h"

#include <gtest/gtest.h>

#include <set>

using namespace ccopt::topo;

namespace {

std::set<int> xorsOf(const Machine &m) {
  std::set<int> xors;
  for (const NodeSymmetry &s : xorSymmetries(m))
    xors.insert(s.ranks[0]); // rank 0 goes to GPU m of node 0
  return xors;
}

/// Every link goes onto a link of the same kind and figures whose ends are
/// the images of its ends (GPUs: local index xor m, in the same node).
void expectAutomorphism(const Machine &m, const NodeSymmetry &s) {
  const auto &links = m.links();
  int G = m.gpusPerNode, x = s.ranks[0];
  for (int r = 0; r < m.ranks(); ++r)
    EXPECT_EQ(s.ranks[r], r - r % G + (r % G ^ x));
  ASSERT_EQ(s.links.size(), links.size());
  for (size_t l = 0; l < links.size(); ++l) {
    const Link &a = links[l], &b = links[s.links[l]];
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.bandwidth, b.bandwidth);
    EXPECT_EQ(m.devices()[a.from].kind, m.devices()[b.from].kind);
    EXPECT_EQ(m.devices()[a.to].node, m.devices()[b.to].node);
  }
  for (int r = 0; r < m.ranks(); ++r)
    for (int l : m.outLinks(m.gpuDevice(r)))
      EXPECT_EQ(links[s.links[l]].from, m.gpuDevice(s.ranks[r]));
}

TEST(NodeSymmetry, PcieTreesAreSymmetricUnderEveryXor) {
  // GPU pairs under a switch, two switches a socket: xor 1 swaps within
  // pairs, xor 2 the switches, xor 4 the sockets (and the rails' NICs and
  // network switches with them).
  for (const char *name : {"a100x8", "h100x8", "pcie4x8"})
    for (int nodes : {1, 3}) {
      Machine m = *lookupPreset(name, nodes);
      EXPECT_EQ(xorsOf(m), (std::set<int>{1, 2, 3, 4, 5, 6, 7})) << name << " x" << nodes;
      for (const NodeSymmetry &s : xorSymmetries(m))
        expectAutomorphism(m, s);
    }
}

TEST(NodeSymmetry, CubeMeshKeepsOnlyItsOwnSymmetries) {
  // DGX-1's hybrid cube mesh: GPU 0's double links go to 3 and 4, GPU 1's
  // to 2 and 5. Xor 1 maps 0-3 onto 1-2 and 0-4 onto 1-5, xor 4 swaps the
  // two quads; xor 2 maps 0-1 (single) onto 2-3 (double): not one.
  Machine m = *lookupPreset("v100x8", 2);
  EXPECT_EQ(xorsOf(m), (std::set<int>{1, 4, 5}));
  for (const NodeSymmetry &s : xorSymmetries(m))
    expectAutomorphism(m, s);
}

TEST(NodeSymmetry, IrregularNodesHaveNone) {
  // Six GPUs a node: not a power of two.
  Machine six;
  six.gpusPerNode = 6;
  int sw = six.addDevice(DeviceKind::NvSwitch, "nvswitch", 0);
  for (int g = 0; g < 6; ++g)
    six.connect(six.addDevice(DeviceKind::Gpu, "gpu" + std::to_string(g), 0), sw,
                LinkKind::NvLink, 100, 100);
  EXPECT_TRUE(xorSymmetries(six).empty());
  // Four GPUs in a line 0-1-2-3: xor 3 reverses it, xor 1 and 2 break it.
  Machine line;
  line.gpusPerNode = 4;
  std::vector<int> gpus;
  for (int g = 0; g < 4; ++g)
    gpus.push_back(line.addDevice(DeviceKind::Gpu, "gpu" + std::to_string(g), 0));
  for (int g = 0; g + 1 < 4; ++g)
    line.connect(gpus[g], gpus[g + 1], LinkKind::NvLink, 100, 100);
  EXPECT_EQ(xorsOf(line), (std::set<int>{3}));
}

} // namespace
