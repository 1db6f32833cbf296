//===- PresetsTest.cpp - the preset machines ------------------------------===//

#include "topology/Machine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

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

int countKind(const Machine &m, DeviceKind kind) {
  return std::count_if(m.devices().begin(), m.devices().end(),
                       [&](const Device &d) { return d.kind == kind; });
}

/// The devices joined to `device` by PCIe links.
std::vector<int> pcieNeighbours(const Machine &m, int device) {
  std::vector<int> out;
  for (int l : m.outLinks(device))
    if (m.links()[l].kind == LinkKind::Pcie)
      out.push_back(m.links()[l].to);
  return out;
}

// With two NICs per PCIe switch, each GPU shares a leaf switch
// pcie<s>.<g> under switch pcie<s> with its own NIC only.
TEST(Presets, EachGpuHasItsOwnNicUnderALeafSwitch) {
  for (const char *name : {"a100x8", "h100x8", "h200x8"}) {
    Machine m = preset(name);
    EXPECT_EQ(countKind(m, DeviceKind::Cpu), 2) << name;
    EXPECT_EQ(countKind(m, DeviceKind::PcieSwitch), 4 + 8) << name;
    EXPECT_EQ(countKind(m, DeviceKind::Gpu), 8) << name;
    EXPECT_EQ(countKind(m, DeviceKind::Nic), 8) << name;
    EXPECT_EQ(countKind(m, DeviceKind::NvSwitch), 1) << name;
    EXPECT_EQ(m.devices().size(), 2u + 12 + 8 + 8 + 1) << name;
    for (int r = 0; r < m.ranks(); ++r) {
      std::vector<int> up = pcieNeighbours(m, m.gpuDevice(r));
      ASSERT_EQ(up.size(), 1u) << name << " rank " << r;
      int leaf = up[0];
      EXPECT_EQ(m.devices()[leaf].kind, DeviceKind::PcieSwitch);
      EXPECT_EQ(m.devices()[leaf].name,
                "pcie" + std::to_string(r / 2) + "." + std::to_string(r % 2));
      std::vector<std::string> below;
      for (int d : pcieNeighbours(m, leaf))
        below.push_back(m.devices()[d].name);
      std::sort(below.begin(), below.end());
      EXPECT_EQ(below, (std::vector<std::string>{
                           "gpu" + std::to_string(r), "nic" + std::to_string(r),
                           "pcie" + std::to_string(r / 2)}))
          << name << " rank " << r;
    }
  }
  // One NIC per switch: GPUs and the NIC sit right under the switch.
  for (const char *name : {"v100x8", "pcie4x8"}) {
    Machine m = preset(name);
    EXPECT_EQ(countKind(m, DeviceKind::PcieSwitch), 4) << name;
    EXPECT_EQ(countKind(m, DeviceKind::Nic), 4) << name;
    for (int r = 0; r < m.ranks(); ++r) {
      std::vector<int> up = pcieNeighbours(m, m.gpuDevice(r));
      ASSERT_EQ(up.size(), 1u) << name << " rank " << r;
      EXPECT_EQ(m.devices()[up[0]].name, "pcie" + std::to_string(r / 2));
    }
  }
}

TEST(Presets, HopperInjectionBandwidth) {
  // 18 NVLink4 links at NCCL's 20.6 and PCIe Gen5 x16 (48).
  for (const char *name : {"h100x8", "h200x8"})
    EXPECT_NEAR(preset(name).injectionBandwidth(0), 18 * 20.6 + 48, 1e-9) << name;
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
  // Through GPU 0's own NIC and rail: n0/gpu0, n0/pcie0.0, n0/nic0, rail0,
  // then node 3's nic0, pcie0.0, gpu0.
  const auto &route = m.route(0, 24);
  ASSERT_EQ(route.size(), 6u);
  std::vector<std::string> path;
  for (int l : route)
    path.push_back(m.devices()[m.links()[l].to].name);
  EXPECT_EQ(path, (std::vector<std::string>{"n0/pcie0.0", "n0/nic0", "rail0",
                                            "n3/nic0", "n3/pcie0.0",
                                            "n3/gpu0"}));
  // GPU 5 (node 0) to GPU 29 (node 3, its rank 5): through nic5 and rail5.
  std::vector<std::string> path5;
  for (int l : m.route(5, 29))
    path5.push_back(m.devices()[m.links()[l].to].name);
  EXPECT_EQ(path5, (std::vector<std::string>{"n0/pcie2.1", "n0/nic5", "rail5",
                                             "n3/nic5", "n3/pcie2.1",
                                             "n3/gpu5"}));
}

// No route passes through a third host: between two nodes only their own
// devices and the network's switches (node -1) carry it.
TEST(Presets, RoutesStayOnTheirTwoNodes) {
  Machine m = preset("a100x8", 4);
  for (int a = 0; a < m.ranks(); ++a)
    for (int b = 0; b < m.ranks(); ++b)
      for (int l : m.route(a, b)) {
        int node = m.devices()[m.links()[l].to].node;
        EXPECT_TRUE(node < 0 || node == m.nodeOf(a) || node == m.nodeOf(b))
            << a << " -> " << b;
      }
}

TEST(Presets, NetworkBandwidth) {
  Machine m = preset("a100x8", 2);
  EXPECT_DOUBLE_EQ(m.nodeNetworkBandwidth(0), 8 * 25);
  EXPECT_DOUBLE_EQ(m.nodeNetworkBandwidth(1), 8 * 25);
  EXPECT_DOUBLE_EQ(preset("a100x8").nodeNetworkBandwidth(0), 0);
  EXPECT_DOUBLE_EQ(m.injectionBandwidth(0), 240 + 24);
}

} // namespace
