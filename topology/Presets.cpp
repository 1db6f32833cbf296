//===- Presets.cpp - machines by name -------------------------------------===//
//
// Figures and their sources (see also shared/REFERENCES.md). `bandwidth` is
// what NCCL achieves per link (src/graph/topo.h), `raw` the hardware figure.
//
//===----------------------------------------------------------------------===//

#include "topology/Machine.h"

#include <functional>

using namespace ccopt::topo;

namespace {

// NCCL's per-link NVLink bandwidth (topo.h: SM70 20, SM80 20, SM90 20.6 GB/s);
// raw NVLink2/3/4: 25 GB/s per direction per link (NVIDIA whitepapers).
constexpr double kNvLinkRaw = 25.0;
// PCIe x16 as NCCL models it (width x speed / 80): Gen3 12, Gen4 24, Gen5 48;
// raw: 15.75 / 31.5 / 63 GB/s.
constexpr double kPcieGen3 = 12, kPcieGen3Raw = 15.75;
constexpr double kPcieGen4 = 24, kPcieGen4Raw = 31.5;
constexpr double kPcieGen5 = 48, kPcieGen5Raw = 63;
// Inter-socket links as NCCL models them (topo.h): QPI 6, SKL/SPR UPI 10,
// AMD xGMI 16 GB/s.
constexpr double kQpi = 6, kUpi = 10, kXgmi = 16;
// InfiniBand 4x ports: EDR 100 Gb/s, HDR 200 Gb/s, NDR 400 Gb/s.
constexpr double kEdr = 12.5, kHdr = 25, kNdr = 50;

/// GPUs in pairs under PCIe switches, switches split over two CPUs, one
/// NIC per switch or one per GPU (beside it under a leaf switch).
struct PcieTree {
  double pcie, pcieRaw, smp, nicBandwidth;
  int nicsPerSwitch;
};

std::vector<int> buildPcieTree(Machine &m, const PcieTree &t) {
  int cpus[2] = {m.addDevice(DeviceKind::Cpu, "cpu0", 0),
                 m.addDevice(DeviceKind::Cpu, "cpu1", 0)};
  m.connect(cpus[0], cpus[1], LinkKind::Smp, t.smp, t.smp);
  std::vector<int> gpus;
  int nic = 0;
  for (int sw = 0; sw < 4; ++sw) {
    int s = m.addDevice(DeviceKind::PcieSwitch, "pcie" + std::to_string(sw), 0);
    m.connect(s, cpus[sw / 2], LinkKind::Pcie, t.pcie, t.pcieRaw);
    for (int g = 0; g < 2; ++g) {
      int gpu = m.addDevice(DeviceKind::Gpu, "gpu" + std::to_string(2 * sw + g), 0);
      gpus.push_back(gpu);
      if (t.nicsPerSwitch < 2) {
        m.connect(gpu, s, LinkKind::Pcie, t.pcie, t.pcieRaw);
        continue;
      }
      // One NIC per GPU: the pair shares a leaf switch, so that each GPU
      // reaches the network through its own NIC (GPUDirect RDMA).
      int leaf = m.addDevice(DeviceKind::PcieSwitch,
                             "pcie" + std::to_string(sw) + "." + std::to_string(g), 0);
      m.connect(leaf, s, LinkKind::Pcie, t.pcie, t.pcieRaw);
      m.connect(gpu, leaf, LinkKind::Pcie, t.pcie, t.pcieRaw);
      int n = m.addDevice(DeviceKind::Nic, "nic" + std::to_string(nic++), 0,
                          t.nicBandwidth);
      m.connect(n, leaf, LinkKind::Pcie, t.pcie, t.pcieRaw);
    }
    if (t.nicsPerSwitch == 1) {
      int n = m.addDevice(DeviceKind::Nic, "nic" + std::to_string(nic++), 0,
                          t.nicBandwidth);
      m.connect(n, s, LinkKind::Pcie, t.pcie, t.pcieRaw);
    }
  }
  return gpus;
}

/// Every GPU joins one NVSwitch fabric with `links` NVLinks.
void addNvSwitch(Machine &m, const std::vector<int> &gpus, int links,
                 double perLink) {
  int fabric = m.addDevice(DeviceKind::NvSwitch, "nvswitch", 0);
  for (int gpu : gpus)
    m.connect(gpu, fabric, LinkKind::NvLink, links * perLink, links * kNvLinkRaw);
}

// DGX/HGX A100 (A100 whitepaper; DGX A100 user guide): 12 NVLink3 links per
// GPU into six NVSwitches, PCIe Gen4 switches with two GPUs and two HDR NICs
// each, two AMD EPYC sockets.
Machine a100x8() {
  Machine m;
  m.name = "a100x8";
  m.gpusPerNode = 8;
  m.arch = Arch::Ampere;
  // Assumed per-SM-block copy rate, so that NCCL's 16 channels are not the
  // limit on NVSwitch (NCCL reaches ~230 GB/s busbw, nccl-tests #149).
  m.channelBandwidth = 25;
  auto gpus = buildPcieTree(m, {kPcieGen4, kPcieGen4Raw, kXgmi, kHdr, 2});
  addNvSwitch(m, gpus, 12, 20.0);
  return m;
}

// DGX/HGX H100 and H200 (H100 whitepaper; DGX H100 docs): 18 NVLink4 links
// (450 GB/s) into four NVSwitches with NVLS, PCIe Gen5, 8 NDR NICs, two
// Intel Sapphire Rapids sockets (UPI).
Machine hopper(const char *name) {
  Machine m;
  m.name = name;
  m.gpusPerNode = 8;
  m.arch = Arch::Hopper;
  m.nvls = true;
  m.channelBandwidth = 40;
  auto gpus = buildPcieTree(m, {kPcieGen5, kPcieGen5Raw, kUpi, kNdr, 2});
  addNvSwitch(m, gpus, 18, 20.6);
  return m;
}

// DGX-1 with V100 (DGX-1 system architecture whitepaper; `nvidia-smi topo
// -m` of a DGX-1V): hybrid cube-mesh, 6 NVLink2 links per GPU, some pairs
// doubled, GPUs 0-3 and 4-7 each a quad, cross links i <-> i+4 (some pairs
// only via PCIe and QPI); PCIe Gen3 switches with 2 GPUs and one EDR NIC each.
Machine v100x8() {
  Machine m;
  m.name = "v100x8";
  m.gpusPerNode = 8;
  m.arch = Arch::Volta;
  m.channelBandwidth = 15;
  auto gpus = buildPcieTree(m, {kPcieGen3, kPcieGen3Raw, kQpi, kEdr, 1});
  // {a, b, links}
  const int mesh[][3] = {{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2},
                         {1, 2, 2}, {1, 3, 1}, {1, 5, 2}, {2, 3, 2},
                         {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1},
                         {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2}};
  for (auto [a, b, links] : mesh)
    m.connect(gpus[a], gpus[b], LinkKind::NvLink, links * 20.0,
              links * kNvLinkRaw);
  return m;
}

// Eight PCIe Gen4 GPUs (e.g. A100 PCIe or A40 servers) in pairs under four
// switches, two per CPU socket, one HDR NIC per switch, no NVLink.
Machine pcie4x8() {
  Machine m;
  m.name = "pcie4x8";
  m.gpusPerNode = 8;
  m.arch = Arch::Ampere;
  m.channelBandwidth = 25;
  buildPcieTree(m, {kPcieGen4, kPcieGen4Raw, kUpi, kHdr, 1});
  return m;
}

struct Preset {
  const char *name;
  std::function<Machine()> build;
};

const std::vector<Preset> &presets() {
  static const std::vector<Preset> all = {
      {"a100x8", a100x8},
      {"h100x8", [] { return hopper("h100x8"); }},
      {"h200x8", [] { return hopper("h200x8"); }},
      {"v100x8", v100x8},
      {"pcie4x8", pcie4x8},
  };
  return all;
}

} // namespace

std::optional<Machine> ccopt::topo::lookupPreset(llvm::StringRef name,
                                                 int nodes) {
  if (nodes < 1)
    return std::nullopt;
  for (const Preset &preset : presets())
    if (name == preset.name)
      return replicate(preset.build(), nodes);
  return std::nullopt;
}

std::vector<std::string> ccopt::topo::presetNames() {
  std::vector<std::string> names;
  for (const Preset &preset : presets())
    names.push_back(preset.name);
  return names;
}
