//===- TopologyFileTest.cpp - JSON and NCCL XML topology files -----------===//

#include "topology/TopologyFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

using namespace ccopt::topo;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

std::string sourcePath(llvm::StringRef relative) {
  return (llvm::Twine(CCOPT_SOURCE_DIR) + "/" + relative).str();
}

std::string readSource(llvm::StringRef relative) {
  auto buffer = llvm::MemoryBuffer::getFile(sourcePath(relative));
  EXPECT_TRUE(bool(buffer)) << relative.str();
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

/// The machine, or a failed test and an empty machine.
Machine expectMachine(llvm::Expected<Machine> machine) {
  if (!machine) {
    ADD_FAILURE() << llvm::toString(machine.takeError());
    return Machine();
  }
  return std::move(*machine);
}

/// The error message, or a failed test and "".
std::string errorOf(llvm::Expected<Machine> machine) {
  if (machine) {
    ADD_FAILURE() << "expected an error, got a machine of "
                  << machine->ranks() << " GPUs";
    return "";
  }
  std::string message = llvm::toString(machine.takeError());
  EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
  return message;
}

std::string jsonError(llvm::StringRef text) {
  return errorOf(parseTopologyJson(text, "t.json"));
}

std::string xmlError(llvm::StringRef text) {
  return errorOf(parseNcclTopologyXml(text, "t.xml"));
}

int countKind(const Machine &m, DeviceKind kind) {
  return std::count_if(m.devices().begin(), m.devices().end(),
                       [&](const Device &d) { return d.kind == kind; });
}

/// Every link as (from name, to name, kind, bandwidth, raw, latency).
std::vector<std::tuple<std::string, std::string, LinkKind, double, double, double>>
linkSet(const Machine &m) {
  std::vector<std::tuple<std::string, std::string, LinkKind, double, double, double>> out;
  for (const Link &l : m.links())
    out.emplace_back(m.devices()[l.from].name, m.devices()[l.to].name, l.kind,
                     l.bandwidth, l.rawBandwidth, l.latencyUs);
  std::sort(out.begin(), out.end());
  return out;
}

/// Every link by what it joins rather than by name: (from kind, to kind,
/// link kind, bandwidth, raw to 0.1 GB/s, latency), sorted. Two machines
/// with equal shapes and equal routes differ at most in device names.
std::vector<std::tuple<DeviceKind, DeviceKind, LinkKind, double, double, double>>
linkShape(const Machine &m) {
  std::vector<std::tuple<DeviceKind, DeviceKind, LinkKind, double, double, double>> out;
  for (const Link &l : m.links())
    out.emplace_back(m.devices()[l.from].kind, m.devices()[l.to].kind, l.kind,
                     l.bandwidth, std::round(l.rawBandwidth * 10) / 10,
                     l.latencyUs);
  std::sort(out.begin(), out.end());
  return out;
}

/// Same GPUs, same routes and figures, rank by rank.
void expectSameRoutes(const Machine &a, const Machine &b) {
  ASSERT_EQ(a.ranks(), b.ranks());
  for (int s = 0; s < a.ranks(); ++s) {
    EXPECT_DOUBLE_EQ(a.injectionBandwidth(s), b.injectionBandwidth(s)) << s;
    for (int d = 0; d < a.ranks(); ++d) {
      if (s == d)
        continue;
      EXPECT_DOUBLE_EQ(a.routeBandwidth(s, d), b.routeBandwidth(s, d))
          << s << " -> " << d;
      EXPECT_EQ(a.routeKind(s, d), b.routeKind(s, d)) << s << " -> " << d;
      EXPECT_EQ(a.route(s, d).size(), b.route(s, d).size()) << s << " -> " << d;
    }
  }
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

TEST(TopologyJson, ExampleMatchesTheA100Preset) {
  Machine file = expectMachine(
      loadTopologyFile(sourcePath("examples/topologies/dgx-a100-like.json")));
  Machine preset = *lookupPreset("a100x8");
  EXPECT_EQ(file.name, "dgx-a100-like");
  EXPECT_EQ(file.ranks(), 8);
  EXPECT_EQ(file.gpusPerNode, 8);
  EXPECT_EQ(file.nodes, 1);
  EXPECT_EQ(file.arch, Arch::Ampere);
  EXPECT_FALSE(file.nvls);
  EXPECT_DOUBLE_EQ(file.channelBandwidth, preset.channelBandwidth);
  EXPECT_EQ(file.devices().size(), preset.devices().size());
  for (DeviceKind kind : {DeviceKind::Gpu, DeviceKind::NvSwitch,
                          DeviceKind::PcieSwitch, DeviceKind::Cpu,
                          DeviceKind::Nic})
    EXPECT_EQ(countKind(file, kind), countKind(preset, kind)) << toString(kind).str();
  EXPECT_EQ(linkSet(file), linkSet(preset));
  expectSameRoutes(file, preset);
  EXPECT_DOUBLE_EQ(file.routeBandwidth(0, 5), 240);
  // The cut around a GPU: 12 NVLinks (240) and its PCIe Gen4 x16 link (24).
  EXPECT_DOUBLE_EQ(file.injectionBandwidth(0), 240 + 24);

  Machine two = replicate(file, 2);
  EXPECT_EQ(two.validate(), std::nullopt);
  EXPECT_EQ(two.ranks(), 16);
  EXPECT_DOUBLE_EQ(two.nodeNetworkBandwidth(0), 8 * 25);
  EXPECT_EQ(two.routeKind(0, 8), LinkKind::Net);
  expectSameRoutes(two, *lookupPreset("a100x8", 2));
}

/// The header's documentation carries the example verbatim.
TEST(TopologyJson, HeaderExampleIsTheExampleFile) {
  std::string header = readSource("topology/TopologyFile.h");
  llvm::StringRef rest = header;
  size_t begin = rest.find("// ---- example: examples/topologies/dgx-a100-like.json");
  size_t end = rest.find("// ---- end of example ----");
  ASSERT_NE(begin, llvm::StringRef::npos);
  ASSERT_NE(end, llvm::StringRef::npos);
  llvm::StringRef block = rest.slice(begin, end);
  block = block.drop_front(block.find('\n') + 1);
  std::string text;
  llvm::SmallVector<llvm::StringRef> lines;
  block.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line.consume_front("//");
    text += line.str() + "\n";
  }
  auto fromHeader = llvm::json::parse(text);
  ASSERT_TRUE(bool(fromHeader)) << llvm::toString(fromHeader.takeError());
  auto fromFile = llvm::json::parse(readSource("examples/topologies/dgx-a100-like.json"));
  ASSERT_TRUE(bool(fromFile)) << llvm::toString(fromFile.takeError());
  EXPECT_EQ(*fromHeader, *fromFile);
}

constexpr const char *kSmall = R"({
  "name": "small",
  "devices": [ {"name": "gpu0", "kind": "gpu"}, {"name": "gpu1", "kind": "gpu"},
               {"name": "sw", "kind": "nvswitch"} ],
  "links": [ {"from": "gpu0", "to": "sw", "kind": "nvlink", "bandwidth_gbps": 240},
             {"from": "gpu1", "to": "sw", "kind": "nvlink", "bandwidth_gbps": 240, "raw_gbps": 300, "latency_us": 0.5} ]
})";

/// kSmall with `from` replaced by `to` (which must occur once).
std::string smallWith(llvm::StringRef from, llvm::StringRef to) {
  std::string text = kSmall;
  size_t at = text.find(from.str());
  EXPECT_NE(at, std::string::npos) << from.str();
  EXPECT_EQ(text.find(from.str(), at + 1), std::string::npos) << from.str();
  if (at != std::string::npos)
    text.replace(at, from.size(), to.str());
  return text;
}

TEST(TopologyJson, DefaultsAndFigures) {
  Machine m = expectMachine(parseTopologyJson(kSmall, "dir/small-file.json"));
  EXPECT_EQ(m.name, "small");
  EXPECT_EQ(m.ranks(), 2);
  EXPECT_EQ(m.arch, Arch::Ampere);
  EXPECT_FALSE(m.nvls);
  EXPECT_DOUBLE_EQ(m.channelBandwidth, 25);
  ASSERT_EQ(m.links().size(), 4u); // two each way
  EXPECT_DOUBLE_EQ(m.links()[0].rawBandwidth, 240); // raw defaults to bandwidth
  EXPECT_DOUBLE_EQ(m.links()[0].latencyUs, 0);
  EXPECT_DOUBLE_EQ(m.links()[2].rawBandwidth, 300);
  EXPECT_DOUBLE_EQ(m.links()[2].latencyUs, 0.5);
  EXPECT_EQ(m.links()[1].from, m.links()[0].to); // bidirectional

  Machine unnamed = expectMachine(parseTopologyJson(
      smallWith(R"("name": "small",)", R"("arch": "hopper", "nvls": true,)"),
      "dir/small-file.json"));
  EXPECT_EQ(unnamed.name, "small-file");
  EXPECT_EQ(unnamed.arch, Arch::Hopper);
  EXPECT_TRUE(unnamed.nvls);
  EXPECT_DOUBLE_EQ(unnamed.channelBandwidth, 40);
}

TEST(TopologyJson, SyntaxErrorsHaveLineAndColumn) {
  // Line 3, column 14: the '}' where a value should be.
  EXPECT_THAT(jsonError("{\n  \"name\": \"x\",\n  \"devices\": }\n}"),
              StartsWith("t.json:3:14: "));
  EXPECT_EQ(jsonError("{\"devices\": [1, 2"),
            "t.json:1:18: Expected , or ] after array element");
  EXPECT_EQ(jsonError("{\"a\": 1,\n \"b\" 2}"), "t.json:2:6: Expected : after object key");
  EXPECT_EQ(jsonError("{\"a\": \"x\ty\"}"), "t.json:1:9: Control character in string");
  EXPECT_EQ(jsonError("{\"a\": \"\xff\"}"), "t.json:1:8: Invalid UTF-8 sequence");
  EXPECT_THAT(jsonError(""), StartsWith("t.json:1:1: "));
  EXPECT_THAT(jsonError("{} x"), StartsWith("t.json:1:4: "));
  EXPECT_THAT(jsonError("[1]"), HasSubstr("t.json: the top level must be an object"));
  std::string deep(100000, '[');
  EXPECT_THAT(jsonError(deep), HasSubstr("t.json:1:257: nested deeper than 256"));
}

TEST(TopologyJson, Rejections) {
  struct Case {
    std::string text;
    const char *message;
  } cases[] = {
      {smallWith(R"("kind": "nvswitch")", R"("kind": "tpu")"),
       "t.json: devices[2].kind: unknown device kind 'tpu'"},
      {smallWith(R"("kind": "nvlink", "bandwidth_gbps": 240})",
                 R"("kind": "infinityfabric", "bandwidth_gbps": 240})"),
       "t.json: links[0].kind: unknown link kind 'infinityfabric'"},
      {smallWith(R"({"name": "gpu1", "kind": "gpu"})", R"({"kind": "gpu"})"),
       "t.json: devices[1]: missing field 'name'"},
      {smallWith(R"({"name": "gpu1", "kind": "gpu"})", R"({"name": "gpu1"})"),
       "t.json: devices[1]: missing field 'kind'"},
      {smallWith(R"("to": "sw", "kind": "nvlink", "bandwidth_gbps": 240})",
                 R"("kind": "nvlink", "bandwidth_gbps": 240})"),
       "t.json: links[0]: missing field 'to'"},
      {smallWith(R"("kind": "nvlink", "bandwidth_gbps": 240})",
                 R"("kind": "nvlink"})"),
       "t.json: links[0]: missing field 'bandwidth_gbps'"},
      {R"({"links": []})", "t.json: missing field 'devices'"},
      {R"({"devices": [{"name": "g", "kind": "gpu"}]})",
       "t.json: missing field 'links'"},
      {smallWith(R"({"name": "gpu1", "kind": "gpu"})",
                 R"({"name": "gpu0", "kind": "gpu"})"),
       "t.json: devices[1].name: duplicate device name 'gpu0' (also devices[0])"},
      {smallWith(R"({"from": "gpu1", "to": "sw")", R"({"from": "gpu1", "to": "gpu9")"),
       "t.json: links[1].to: unknown device 'gpu9'"},
      {smallWith(R"({"from": "gpu1")", R"({"from": "gpu7")"),
       "t.json: links[1].from: unknown device 'gpu7'"},
      {smallWith(R"("to": "sw", "kind": "nvlink", "bandwidth_gbps": 240})",
                 R"("to": "gpu0", "kind": "nvlink", "bandwidth_gbps": 240})"),
       "t.json: links[0]: a link from 'gpu0' to itself"},
      {smallWith(R"("kind": "nvlink", "bandwidth_gbps": 240})",
                 R"("kind": "nvlink", "bandwidth_gbps": 0})"),
       "t.json: links[0].bandwidth_gbps: must be a number > 0 (got 0)"},
      {smallWith(R"("kind": "nvlink", "bandwidth_gbps": 240})",
                 R"("kind": "nvlink", "bandwidth_gbps": -5})"),
       "t.json: links[0].bandwidth_gbps: must be a number > 0 (got -5)"},
      {smallWith(R"("kind": "nvlink", "bandwidth_gbps": 240})",
                 R"("kind": "nvlink", "bandwidth_gbps": "fast"})"),
       "t.json: links[0].bandwidth_gbps: must be a number > 0 (got \"fast\")"},
      {smallWith(R"("kind": "nvlink", "bandwidth_gbps": 240})",
                 R"("kind": "nvlink", "bandwidth_gbps": 1e999})"),
       "t.json: links[0].bandwidth_gbps: must be a number > 0"},
      {smallWith(R"("raw_gbps": 300)", R"("raw_gbps": 0)"),
       "t.json: links[1].raw_gbps: must be a number > 0 (got 0)"},
      {smallWith(R"("latency_us": 0.5)", R"("latency_us": -1)"),
       "t.json: links[1].latency_us: must be a number >= 0 (got -1)"},
      {smallWith(R"("name": "small",)", R"("name": "small", "arch": "kepler",)"),
       "t.json: arch: unknown arch 'kepler'"},
      {smallWith(R"("name": "small",)", R"("name": "small", "nvls": 1,)"),
       "t.json: nvls: expected true or false, got 1"},
      {smallWith(R"("name": "small",)", R"("name": 7,)"),
       "t.json: name: expected a string, got 7"},
      {smallWith(R"("name": "small",)", R"("name": "s", "channel_bandwidth_gbps": 0,)"),
       "t.json: channel_bandwidth_gbps: must be a number > 0 (got 0)"},
      {smallWith(R"("raw_gbps": 300)", R"("raw_gbsp": 300)"),
       "t.json: links[1].raw_gbsp: unknown field"},
      {smallWith(R"({"name": "sw", "kind": "nvswitch"})",
                 R"({"name": "sw", "kind": "nvswitch", "port_gbps": 25})"),
       "t.json: devices[2].port_gbps: only a nic has a network port"},
      {smallWith(R"({"name": "sw", "kind": "nvswitch"})",
                 R"({"name": "sw", "kind": "nvswitch"}, {"name": "nic0", "kind": "nic"})"),
       "t.json: devices[3]: missing field 'port_gbps'"},
      {smallWith(R"({"name": "gpu1", "kind": "gpu"})", R"({"name": "", "kind": "gpu"})"),
       "t.json: devices[1].name: must not be empty"},
      {smallWith(R"("devices": [)", R"("devices": [ 3,)"),
       "t.json: devices[0]: expected an object, got 3"},
      {R"({"devices": {}, "links": []})", "t.json: devices: expected an array"},
      // A newline from the input stays an escape: errors are one line.
      {smallWith(R"("kind": "nvswitch")", R"("kind": "nv\nswitch")"),
       "t.json: devices[2].kind: unknown device kind 'nv\\nswitch'"},
      // No GPU; a disconnected graph (Machine::validate()).
      {R"({"devices": [{"name": "c", "kind": "cpu"}], "links": []})",
       "t.json: the machine has no GPU"},
      {R"({"devices": [], "links": []})", "t.json: the machine has no GPU"},
      {smallWith(R"({"from": "gpu1", "to": "sw", "kind": "nvlink", "bandwidth_gbps": 240, "raw_gbps": 300, "latency_us": 0.5})",
                 R"({"from": "sw", "to": "gpu0", "kind": "nvlink", "bandwidth_gbps": 240})"),
       "t.json: the graph is disconnected: no route between gpu0 and gpu1"},
  };
  for (const Case &c : cases)
    EXPECT_THAT(jsonError(c.text), HasSubstr(c.message)) << c.text;
}

TEST(TopologyFile, DispatchAndUnreadableFiles) {
  EXPECT_THAT(errorOf(loadTopologyFile("/nonexistent/dir/topo.json")),
              StartsWith("/nonexistent/dir/topo.json: cannot read the topology file: "));

  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("topology-tests", dir));
  auto write = [&](llvm::StringRef name, llvm::StringRef text) {
    std::string path = (dir + "/" + name).str();
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    EXPECT_FALSE(ec);
    os << text;
    return path;
  };
  EXPECT_EQ(expectMachine(loadTopologyFile(write("a.topo", std::string("\n  ") + kSmall))).ranks(), 2);
  EXPECT_EQ(expectMachine(loadTopologyFile(write("bom.json", "\xEF\xBB\xBF" + std::string(kSmall)))).ranks(), 2);
  EXPECT_EQ(expectMachine(loadTopologyFile(write("b.topo", readSource("examples/topologies/nccl-v100-4gpu.xml")))).ranks(), 4);
  std::string empty = write("empty.json", "  \n");
  EXPECT_THAT(errorOf(loadTopologyFile(empty)), HasSubstr(empty + ": the topology file is empty"));
  std::string yaml = write("t.yaml", "devices:\n  - gpu0\n");
  EXPECT_THAT(errorOf(loadTopologyFile(yaml)), HasSubstr(yaml + ": not a topology file"));
  std::string bad = write("bad.json", "{\n  \"devices\": [,]\n}\n");
  EXPECT_THAT(errorOf(loadTopologyFile(bad)), StartsWith(bad + ":2:15: "));
  EXPECT_THAT(errorOf(loadTopologyFile(dir.str())), HasSubstr(dir.str().str() + ": "));
  llvm::sys::fs::remove_directories(dir);
}

//===----------------------------------------------------------------------===//
// NCCL XML
//===----------------------------------------------------------------------===//

TEST(NcclTopologyXml, DgxA100Dump) {
  Machine m = expectMachine(
      loadTopologyFile(sourcePath("examples/topologies/nccl-dgx-a100.xml")));
  EXPECT_EQ(m.name, "nccl-dgx-a100");
  EXPECT_EQ(m.ranks(), 8);
  EXPECT_EQ(m.gpusPerNode, 8);
  EXPECT_EQ(m.arch, Arch::Ampere);
  EXPECT_FALSE(m.nvls);
  EXPECT_DOUBLE_EQ(m.channelBandwidth, 25);
  EXPECT_EQ(countKind(m, DeviceKind::Cpu), 2);
  // Four switches, each with a leaf bridge per GPU that it shares with
  // that GPU's NIC.
  EXPECT_EQ(countKind(m, DeviceKind::PcieSwitch), 4 + 8);
  EXPECT_EQ(countKind(m, DeviceKind::Nic), 8);
  EXPECT_EQ(countKind(m, DeviceKind::NvSwitch), 1);
  for (const Device &d : m.devices())
    if (d.kind == DeviceKind::Nic) {
      EXPECT_DOUBLE_EQ(d.portBandwidth, 25) << d.name; // 200000 Mb/s
    }
  EXPECT_EQ(m.devices()[m.gpuDevice(0)].name, "gpu0");
  // Twelve NVLink3 links (six NVSwitches x 2) folded into one fabric.
  const auto &route = m.route(0, 5);
  ASSERT_EQ(route.size(), 2u);
  for (int l : route) {
    EXPECT_EQ(m.links()[l].kind, LinkKind::NvLink);
    EXPECT_DOUBLE_EQ(m.links()[l].bandwidth, 240);
    EXPECT_DOUBLE_EQ(m.links()[l].rawBandwidth, 300);
  }
  for (const Link &l : m.links()) {
    if (l.kind == LinkKind::Pcie) {
      EXPECT_DOUBLE_EQ(l.bandwidth, 24); // Gen4 x16
      EXPECT_NEAR(l.rawBandwidth, 31.5, 0.01);
    }
    if (l.kind == LinkKind::Smp) {
      EXPECT_DOUBLE_EQ(l.bandwidth, 16); // AMD
    }
  }
  // The same machine as the preset up to device names: the same devices
  // and links by kind and figure, route for route, on one node and two.
  Machine preset = *lookupPreset("a100x8");
  EXPECT_EQ(m.devices().size(), preset.devices().size());
  for (DeviceKind kind : {DeviceKind::Gpu, DeviceKind::NvSwitch,
                          DeviceKind::PcieSwitch, DeviceKind::Cpu,
                          DeviceKind::Nic, DeviceKind::NetSwitch})
    EXPECT_EQ(countKind(m, kind), countKind(preset, kind)) << toString(kind).str();
  EXPECT_EQ(linkShape(m), linkShape(preset));
  expectSameRoutes(m, preset);
  EXPECT_DOUBLE_EQ(m.injectionBandwidth(0), 240 + 24);
  Machine two = replicate(m, 2);
  EXPECT_EQ(two.validate(), std::nullopt);
  EXPECT_DOUBLE_EQ(two.nodeNetworkBandwidth(0), 8 * 25);
  EXPECT_EQ(two.routeKind(3, 12), LinkKind::Net);
  expectSameRoutes(two, *lookupPreset("a100x8", 2));
}

TEST(NcclTopologyXml, V100DumpWithDirectNvLinks) {
  Machine m = expectMachine(
      loadTopologyFile(sourcePath("examples/topologies/nccl-v100-4gpu.xml")));
  EXPECT_EQ(m.ranks(), 4);
  EXPECT_EQ(m.arch, Arch::Volta);
  EXPECT_FALSE(m.nvls);
  EXPECT_DOUBLE_EQ(m.channelBandwidth, 15);
  EXPECT_EQ(countKind(m, DeviceKind::NvSwitch), 0);
  // 0-1 and 2-3: two links of 20 GB/s (sm 70); 0-2 and 1-3: one.
  ASSERT_EQ(m.route(0, 1).size(), 1u);
  EXPECT_EQ(m.routeKind(0, 1), LinkKind::NvLink);
  EXPECT_DOUBLE_EQ(m.routeBandwidth(0, 1), 40);
  EXPECT_DOUBLE_EQ(m.links()[m.route(0, 1)[0]].rawBandwidth, 50);
  EXPECT_DOUBLE_EQ(m.routeBandwidth(2, 3), 40);
  EXPECT_DOUBLE_EQ(m.routeBandwidth(0, 2), 20);
  EXPECT_DOUBLE_EQ(m.routeBandwidth(1, 3), 20);
  // 0-3 and 1-2: no NVLink: PCIe Gen3 and QPI (Broadwell, 6 GB/s).
  EXPECT_EQ(m.routeKind(0, 3), LinkKind::Smp);
  EXPECT_DOUBLE_EQ(m.routeBandwidth(0, 3), 6);
  EXPECT_EQ(m.routeKind(1, 2), LinkKind::Smp);
  // The cut around GPU 0: three NVLinks (60) and its PCIe Gen3 x16 link (12).
  EXPECT_DOUBLE_EQ(m.injectionBandwidth(0), 60 + 12);
  // One NVLink entry per pair (the dump lists each from both ends); the
  // links to GPUs outside the dump are skipped.
  int nvlinks = 0;
  for (const Link &l : m.links())
    nvlinks += l.kind == LinkKind::NvLink;
  EXPECT_EQ(nvlinks, 2 * 4);
  for (const Device &d : m.devices())
    if (d.kind == DeviceKind::Nic) {
      EXPECT_DOUBLE_EQ(d.portBandwidth, 12.5) << d.name;
    }
}

/// A two-socket node; `gpus` is the GPUs' XML, cpu0 then cpu1 attributes.
std::string twoSockets(llvm::StringRef gpus0, llvm::StringRef gpus1,
                       llvm::StringRef cpuAttributes =
                           R"(arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85")") {
  return (llvm::Twine("<system version=\"1\">\n  <cpu numaid=\"0\" ") +
          cpuAttributes + ">\n" + gpus0 + "  </cpu>\n  <cpu numaid=\"1\" " +
          cpuAttributes + ">\n" + gpus1 + "  </cpu>\n</system>\n")
      .str();
}

std::string gpuPci(llvm::StringRef busid, int sm, int rank,
                   llvm::StringRef nvlinks = "",
                   llvm::StringRef speed = "16.0 GT/s PCIe", int width = 16) {
  return (llvm::Twine("    <pci busid=\"") + busid +
          "\" class=\"0x030200\" link_speed=\"" + speed + "\" link_width=\"" +
          llvm::Twine(width) + "\">\n      <gpu dev=\"" + llvm::Twine(rank) +
          "\" sm=\"" + llvm::Twine(sm) + "\" rank=\"" + llvm::Twine(rank) +
          "\" gdr=\"1\">\n" + nvlinks + "      </gpu>\n    </pci>\n")
      .str();
}

TEST(NcclTopologyXml, HopperWithNvSwitchHasNvls) {
  std::string links;
  for (int i = 0; i < 4; ++i)
    links += "        <nvlink target=\"0000:c" + std::to_string(i) +
             ":00.0\" count=\"" + (i < 2 ? "5" : "4") + "\" tclass=\"0x068000\"/>\n";
  std::string text = twoSockets(gpuPci("0000:18:00.0", 90, 0, links, "32.0 GT/s PCIe"),
                                gpuPci("0000:9a:00.0", 90, 1, links, "32.0 GT/s PCIe"));
  Machine m = expectMachine(parseNcclTopologyXml(text, "h100.xml"));
  EXPECT_EQ(m.arch, Arch::Hopper);
  EXPECT_TRUE(m.nvls);
  EXPECT_DOUBLE_EQ(m.channelBandwidth, 40);
  EXPECT_NEAR(m.routeBandwidth(0, 1), 18 * 20.6, 1e-9);
  EXPECT_DOUBLE_EQ(m.links()[m.route(0, 1)[0]].rawBandwidth, 18 * 25);
  for (const Link &l : m.links()) {
    if (l.kind == LinkKind::Pcie) {
      EXPECT_DOUBLE_EQ(l.bandwidth, 48); // Gen5 x16
    } else if (l.kind == LinkKind::Smp) {
      EXPECT_DOUBLE_EQ(l.bandwidth, 10); // Skylake and later: UPI
    }
  }
}

TEST(NcclTopologyXml, PcieCpuAndRankModels) {
  // Listed rank 1 first: ranks follow the rank attribute. Gen3 x8 = 6,
  // Gen4 x16 = 24, "5 GT/s" x16 = 6 (NCCL: width x speed / 80).
  std::string text = twoSockets(gpuPci("0000:01:00.0", 86, 1, "", "8 GT/s", 8) +
                                    gpuPci("0000:02:00.0", 86, 0),
                                gpuPci("0000:81:00.0", 80, 2, "", "5.0 GT/s PCIe"),
                                R"(arch="x86_64" vendor="AuthenticAMD")");
  Machine m = expectMachine(parseNcclTopologyXml(text, "t.xml"));
  EXPECT_EQ(m.arch, Arch::Ampere);
  EXPECT_DOUBLE_EQ(m.injectionBandwidth(0), 24);
  EXPECT_DOUBLE_EQ(m.injectionBandwidth(1), 6);
  EXPECT_DOUBLE_EQ(m.injectionBandwidth(2), 6);
  EXPECT_EQ(m.routeKind(0, 2), LinkKind::Smp);
  EXPECT_DOUBLE_EQ(m.routeBandwidth(1, 2), 6);

  auto smp = [](llvm::StringRef cpu) {
    std::string text = twoSockets(gpuPci("0000:01:00.0", 70, 0),
                                  gpuPci("0000:81:00.0", 70, 1), cpu);
    Machine m = expectMachine(parseNcclTopologyXml(text, "t.xml"));
    return m.ranks() == 2 ? m.routeBandwidth(0, 1) : -1.0;
  };
  EXPECT_DOUBLE_EQ(smp(R"(arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="79")"), 6);
  EXPECT_DOUBLE_EQ(smp(R"(arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="0x8f")"), 10);
  EXPECT_DOUBLE_EQ(smp(R"(arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="1")"), 16);
  EXPECT_DOUBLE_EQ(smp(R"(arch="ppc64")"), 24); // POWER9 32, PCIe Gen4 24 below
  EXPECT_DOUBLE_EQ(smp(R"(arch="arm64")"), 6);
  EXPECT_DOUBLE_EQ(smp(R"(arch="riscv")"), 10);
  EXPECT_DOUBLE_EQ(smp(""), 10);

  // sm 86 has 12 GB/s per NVLink; links listed twice add up; the larger of
  // the two ends is kept.
  std::string nv0 = R"(        <nvlink target="0000:02:00.0" count="2" tclass="0x030200"/>
        <nvlink target="0000:02:00.0" count="2" tclass="0x030200"/>
)";
  std::string nv1 = R"(        <nvlink target="0000:01:00.0" count="1" tclass="0x030200"/>
)";
  Machine pair = expectMachine(parseNcclTopologyXml(
      twoSockets(gpuPci("0000:01:00.0", 86, 0, nv0) + gpuPci("0000:02:00.0", 86, 1, nv1), ""),
      "t.xml"));
  EXPECT_DOUBLE_EQ(pair.routeBandwidth(0, 1), 4 * 12);
}

TEST(NcclTopologyXml, NicsAndSwitches) {
  // A dual-port card behind one PCIe link, a NIC with no PCI path, a
  // storage controller that is not modelled, speed -1 read as 10 Gb/s.
  std::string cpu0 = gpuPci("0000:01:00.0", 80, 0) + R"(    <pci busid="0000:03:00.0" class="0x020000" link_speed="16.0 GT/s PCIe" link_width="16">
      <nic>
        <net name="mlx5_0" dev="0" speed="100000" port="1"/>
        <net name="mlx5_0" dev="1" speed="-1" port="2"/>
      </nic>
    </pci>
    <pci busid="0000:04:00.0" class="0x010802" link_speed="16.0 GT/s PCIe" link_width="4"/>
    <nic>
      <net name="eth0" dev="2" speed="25000" port="1"/>
    </nic>
)";
  Machine m = expectMachine(parseNcclTopologyXml(twoSockets(cpu0, ""), "t.xml"));
  EXPECT_EQ(countKind(m, DeviceKind::Nic), 3);
  EXPECT_EQ(countKind(m, DeviceKind::PcieSwitch), 1); // the card
  std::vector<std::string> names;
  std::vector<double> ports;
  for (const Device &d : m.devices())
    if (d.kind == DeviceKind::Nic) {
      names.push_back(d.name);
      ports.push_back(d.portBandwidth);
    }
  EXPECT_THAT(names, ::testing::ElementsAre("mlx5_0", "mlx5_0#1", "eth0"));
  EXPECT_THAT(ports, ::testing::ElementsAre(12.5, 1.25, 25000 / 8000.0));
  Machine two = replicate(m, 2);
  EXPECT_EQ(two.validate(), std::nullopt);
  EXPECT_EQ(two.routeKind(0, 1), LinkKind::Net);
}

TEST(NcclTopologyXml, SyntaxErrorsHaveLineAndColumn) {
  EXPECT_EQ(xmlError("<system>\n  <cpu numaid=\"0\">\n  </pci>\n</system>"),
            "t.xml:3:3: expected '</cpu>' (opened at 2:3), found '</pci>'");
  EXPECT_EQ(xmlError("<system>\n  <cpu numaid=\"0>\n</system>"),
            "t.xml:2:15: unterminated value of attribute 'numaid'");
  EXPECT_EQ(xmlError("<system>\n  <cpu numaid=0/>\n</system>"),
            "t.xml:2:15: expected a quoted value for attribute 'numaid'");
  EXPECT_EQ(xmlError("<system>\n  <cpu numaid/>\n</system>"),
            "t.xml:2:14: expected '=' after attribute 'numaid'");
  EXPECT_EQ(xmlError("<system>\n  <cpu a=\"1\"b=\"2\"/>\n</system>"),
            "t.xml:2:13: expected whitespace, '>' or '/>' in '<cpu', found 'b'");
  EXPECT_EQ(xmlError("<system>\n  <cpu a=\"1\" a=\"2\"/>\n</system>"),
            "t.xml:2:14: duplicate attribute 'a'");
  EXPECT_EQ(xmlError("<system>\n  <cpu>\n"),
            "t.xml:3:1: unexpected end of file: '<cpu>' opened at 2:3 is not closed");
  EXPECT_EQ(xmlError("<system>\n  <!-- a comment\n</system>"),
            "t.xml:2:3: unterminated comment");
  EXPECT_EQ(xmlError("<system/>\n<system/>"),
            "t.xml:2:1: a second root element '<system>'");
  EXPECT_EQ(xmlError("hello <system/>"),
            "t.xml:1:1: expected '<' (text before the root element)");
  EXPECT_EQ(xmlError("<system/> x"), "t.xml:1:11: text after the root element");
  EXPECT_EQ(xmlError("<system>\n  < cpu/>\n</system>"),
            "t.xml:2:4: expected an element name after '<'");
  EXPECT_EQ(xmlError("<system>\n  <cpu vendor=\"A&B\"/>\n</system>"),
            "t.xml:2:17: '&' that does not start an entity (write &amp;)");
  EXPECT_EQ(xmlError("<system>\n  <cpu vendor=\"&foo;\"/>\n</system>"),
            "t.xml:2:16: unknown entity '&foo;'");
  EXPECT_EQ(xmlError("</system>"),
            "t.xml:1:1: closing tag '</system>' without an open element");
  EXPECT_EQ(xmlError(""), "t.xml:1:1: no root element");
  EXPECT_EQ(xmlError("<?xml version=\"1.0\""), "t.xml:1:1: unterminated '<?' declaration");
  std::string deep;
  for (int i = 0; i < 100000; ++i)
    deep += "<a>";
  EXPECT_EQ(xmlError(deep), "t.xml:1:769: elements nested deeper than 256");
}

TEST(NcclTopologyXml, EntitiesCommentsAndDeclarations) {
  std::string text = "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<!DOCTYPE system>\n<!-- <gpu> in a comment is not a GPU -->\n" +
                     twoSockets(gpuPci("0000:01:00.0", 80, 0), "",
                                R"(arch='x86_64' vendor="Authentic&#65;MD")");
  Machine m = expectMachine(parseNcclTopologyXml(text, "t.xml"));
  EXPECT_EQ(m.ranks(), 1);
  Machine amd = expectMachine(parseNcclTopologyXml(
      twoSockets(gpuPci("0000:01:00.0", 80, 0), gpuPci("0000:81:00.0", 80, 1),
                 R"(arch='x86_64' vendor="Authentic&#x41;MD")"),
      "t.xml"));
  EXPECT_DOUBLE_EQ(amd.routeBandwidth(0, 1), 16);
}

TEST(NcclTopologyXml, SemanticErrorsNameTheElement) {
  std::string pci = R"(    <pci busid="0000:01:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16">
)";
  struct Case {
    std::string text;
    const char *message;
  } cases[] = {
      {"<topology/>", "t.xml:1:1: expected the root element <system>, found <topology>"},
      {twoSockets(pci + "      <gpu dev=\"0\" rank=\"0\"/>\n    </pci>\n", ""),
       "t.xml:4:7: <gpu>: missing attribute 'sm'"},
      {twoSockets(pci + "      <gpu sm=\"eighty\"/>\n    </pci>\n", ""),
       "t.xml:4:7: <gpu>: attribute 'sm' must be an integer, got 'eighty'"},
      {twoSockets(pci + "      <gpu sm=\"0\"/>\n    </pci>\n", ""),
       "t.xml:4:7: <gpu>: attribute 'sm' must be a compute capability"},
      {twoSockets(R"(    <pci class="0x060400"/>
)", ""),
       "t.xml:3:5: <pci>: missing attribute 'busid'"},
      {twoSockets(R"(    <pci busid="0000:01:00.0" link_width="x16"/>
)", ""),
       "t.xml:3:5: <pci>: attribute 'link_width' must be an integer, got 'x16'"},
      {twoSockets(pci + "    </pci>\n", ""),
       "t.xml:3:5: <pci>: a GPU (class 0x030200) without a <gpu> element"},
      {twoSockets(gpuPci("0000:01:00.0", 80, 0,
                         "        <nvlink target=\"0000:c4:00.0\" count=\"2\" tclass=\"0x060400\"/>\n"),
                  ""),
       "t.xml:5:9: <nvlink>: target '0000:c4:00.0' is not a GPU in this file and "
       "tclass '0x060400' is not an NVSwitch (0x068000) or a CPU (0x068001)"},
      {twoSockets(gpuPci("0000:01:00.0", 80, 0,
                         "        <nvlink target=\"0000:c4:00.0\" tclass=\"0x068000\"/>\n"),
                  ""),
       "t.xml:5:9: <nvlink>: missing attribute 'count'"},
      {twoSockets(gpuPci("0000:01:00.0", 80, 0,
                         "        <nvlink target=\"0000:c4:00.0\" count=\"2\" tclass=\"0x06\n8000\"/>\n"),
                  ""),
       "tclass '0x06\\n8000' is not an NVSwitch"},
      {twoSockets(gpuPci("0000:01:00.0", 80, 0,
                         "        <nvlink target=\"0000:c4:00.0\" count=\"0\" tclass=\"0x068000\"/>\n"),
                  ""),
       "t.xml:5:9: <nvlink>: attribute 'count' must be between 1 and 1024, got 0"},
      {twoSockets(gpuPci("0000:01:00.0", 80, 0,
                         "        <nvlink target=\"0000:01:00.0\" count=\"1\" tclass=\"0x030200\"/>\n"),
                  ""),
       "t.xml:5:9: <nvlink>: an NVLink from a GPU to itself"},
      {twoSockets(gpuPci("0000:01:00.0", 80, 0), gpuPci("0000:01:00.0", 80, 1)),
       "t.xml:9:5: <pci>: a second GPU with busid '0000:01:00.0'"},
      {twoSockets(R"(    <pci busid="0000:03:00.0" class="0x020700"><nic><net name="mlx5_0"/></nic></pci>
)" + gpuPci("0000:01:00.0", 80, 0), ""),
       "t.xml:3:53: <net>: missing attribute 'speed'"},
      {"<system version=\"1\"><cpu numaid=\"0\"/></system>", "t.xml: the machine has no GPU"},
  };
  for (const Case &c : cases)
    EXPECT_THAT(xmlError(c.text), HasSubstr(c.message)) << c.text;
}

//===----------------------------------------------------------------------===//
// Fuzz-ish: damaged example files never crash.
//===----------------------------------------------------------------------===//

void expectNoCrash(const std::string &text, llvm::StringRef name) {
  for (auto parse : {parseTopologyJson, parseNcclTopologyXml}) {
    auto machine = parse(text, name);
    if (machine) {
      EXPECT_EQ(machine->validate(), std::nullopt);
      EXPECT_GT(machine->ranks(), 0);
      (void)replicate(*machine, 2).validate();
    } else {
      std::string message = llvm::toString(machine.takeError());
      EXPECT_THAT(message, StartsWith(name.str())) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

TEST(TopologyFileFuzz, DamagedExamplesNeverCrash) {
  std::mt19937 rng(20240611);
  const char special[] = "<>/=\"'&;{}[]:,-0.e\n \x80\xff";
  for (const char *file : {"examples/topologies/dgx-a100-like.json",
                           "examples/topologies/nccl-dgx-a100.xml",
                           "examples/topologies/nccl-v100-4gpu.xml"}) {
    std::string original = readSource(file);
    ASSERT_FALSE(original.empty());
    for (int i = 0; i < 150; ++i) {
      // Truncated.
      size_t cut = std::uniform_int_distribution<size_t>(0, original.size())(rng);
      expectNoCrash(original.substr(0, cut), "fuzz");
      // Flipped bytes.
      std::string damaged = original;
      int flips = std::uniform_int_distribution<int>(1, 4)(rng);
      for (int f = 0; f < flips; ++f) {
        size_t at = std::uniform_int_distribution<size_t>(0, damaged.size() - 1)(rng);
        if (rng() % 2)
          damaged[at] = special[rng() % (sizeof(special) - 1)];
        else
          damaged[at] = static_cast<char>(rng() & 0xff);
      }
      expectNoCrash(damaged, "fuzz");
      // A slice cut out.
      size_t from = std::uniform_int_distribution<size_t>(0, original.size())(rng);
      size_t len = std::uniform_int_distribution<size_t>(0, 200)(rng);
      expectNoCrash(original.substr(0, from) +
                        original.substr(std::min(original.size(), from + len)),
                    "fuzz");
    }
  }
  expectNoCrash(std::string("\0\0\0", 3), "fuzz");
  expectNoCrash("{\"devices\": [{\"name\": \"\\u0000\", \"kind\": \"gpu\"}], \"links\": []}", "fuzz");
  expectNoCrash(std::string(300, '{') + std::string(300, '}'), "fuzz");
  expectNoCrash("<system><cpu><pci busid=\"1\"><pci busid=\"2\"><gpu sm=\"80\"><nvlink target=\"1\" count=\"99999999999999999999\"/></gpu></pci></pci></cpu></system>", "fuzz");
}

} // namespace
