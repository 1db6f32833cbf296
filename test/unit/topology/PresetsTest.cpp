//===- PresetsTest.cpp - the preset machines ------------------------------===//

#include "topology/Machine.h"

#include <gtest/gtest.h>

using namespace ccopt::topo;

namespace {

Machine preset(llvm::StringRef name, int nodes = 1) {
  auto machine = lookupPreset(name, nodes);
  EXPECT_TRUE(machine.has_value()) << name.str();
  return machine ? std::move(*machine) : Machine();
}

TEST(Presets, EveryPresetValidates) {
  ASSERT_FALSE(presetNames().empty());
  for (const std::string &name : presetNames())
    for (int nodes : {1, 2}) {
      Machine m = preset(name, nodes);
      EXPECT_EQ(m.validate(), std::nullopt) << name << " x" << nodes;
      EXPECT_EQ(m.ranks(), m.gpusPerNode * nodes) << name;
      EXPECT_EQ(m.nodes, nodes);
    }
}

TEST(Presets, UnknownNameAndBadNodeCount) {
  EXPECT_FALSE(lookupPreset("tpu-v4").has_value());
  EXPECT_FALSE(lookupPreset("a100x8", 0).has_value());
}

TEST(Presets, A100RoutesThroughTheNvSwitch) {
  Machine m = preset("a100x8");
  EXPECT_EQ(m.arch, Arch::Ampere);
  const auto &route = m.route(0, 5);
  ASSERT_EQ(route.size(), 2u);
  for (int l : route) {
    EXPECT_EQ(m.links()[l].kind, LinkKind::NvLink);
    EXPECT_DOUBLE_EQ(m.links()[l].bandwidth, 240);
    EXPECT_DOUBLE_EQ(m.links()[l].rawBandwidth, 300);
  }
  EXPECT_EQ(m.devices()[m.links()[route[0]].to].kind, DeviceKind::NvSwitch);
  EXPECT_DOUBLE_EQ(m.routeBandwidth(0, 5), 240);
  EXPECT_EQ(m.routeKind(0, 5), LinkKind::NvLink);
  // The cut around a GPU: 12 NVLinks (240) and its PCIe Gen4 x16 link (24).
  EXPECT_DOUBLE_EQ(m.injectionBandwidth(0), 240 + 24);
  EXPECT_TRUE(m.route(3, 3).empty());
}

TEST(Presets, V100HybridCubeMesh) {
  Machine m = preset("v100x8");
  EXPECT_EQ(m.arch, Arch::Volta);
  // GPU0 - GPU3: two NVLink2 links, direct.
  const auto &direct = m.route(0, 3);
  ASSERT_EQ(direct.size(), 1u);
  EXPECT_EQ(m.links()[direct[0]].kind, LinkKind::NvLink);
  EXPECT_DOUBLE_EQ(m.routeBandwidth(0, 3), 40);
  EXPECT_DOUBLE_EQ(m.links()[direct[0]].rawBandwidth, 50);
  // GPU0 - GPU5: no NVLink, GPUs do not forward: PCIe and QPI.
  EXPECT_EQ(m.routeKind(0, 5), LinkKind::Smp);
  for (int l : m.route(0, 5)) {
    EXPECT_NE(m.links()[l].kind, LinkKind::NvLink);
    EXPECT_TRUE(l == m.route(0, 5).front() ||
                m.devices()[m.links()[l].from].kind != DeviceKind::Gpu);
  }
  EXPECT_DOUBLE_EQ(m.routeBandwidth(0, 5), 6);
}

TEST(Presets, Pcie4HasNoNvLink) {
  Machine m = preset("pcie4x8");
  for (const Link &link : m.links())
    EXPECT_NE(link.kind, LinkKind::NvLink);
  EXPECT_DOUBLE_EQ(m.injectionBandwidth(0), 24);
  EXPECT_EQ(m.routeKind(0, 1), LinkKind::Pcie);
}

TEST(Presets, FourNodesJoinedByTheNetwork) {
  Machine m = preset("a100x8", 4);
  EXPECT_EQ(m.ranks(), 32);
  EXPECT_EQ(m.nodeOf(0), 0);
  EXPECT_EQ(m.nodeOf(31), 3);
  EXPECT_EQ(m.routeKind(0, 24), LinkKind::Net);
  EXPECT_EQ(m.routeKind(0, 7), LinkKind::NvLink);
  EXPECT_DOUBLE_EQ(m.routeBandwidth(0, 24), 24); // PCIe Gen4 to the NIC
}

TEST(Presets, NetworkBandwidth) {
  Machine m = preset("a100x8", 2);
  EXPECT_DOUBLE_EQ(m.nodeNetworkBandwidth(0), 8 * 25);
  EXPECT_DOUBLE_EQ(m.nodeNetworkBandwidth(1), 8 * 25);
  EXPECT_DOUBLE_EQ(preset("a100x8").nodeNetworkBandwidth(0), 0);
  EXPECT_DOUBLE_EQ(m.injectionBandwidth(0), 240 + 24);
}

} // namespace
