//===- Machine.h - the machine a program is compiled for ----------*- C++ -*-===//
//
// A machine is a graph of devices (GPUs, NVSwitch fabrics, PCIe switches,
// CPUs, NICs, network switches) joined by directed links, each with its
// bandwidth per direction and latency. GPUs are numbered rank = node *
// gpusPerNode + local index. Routes between GPUs never pass through another
// GPU (hardware does not forward NVLink traffic).
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_TOPOLOGY_MACHINE_H
#define CCOPT_TOPOLOGY_MACHINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <unordered_map>
#include <string>
#include <map>
#include <tuple>
#include <vector>

namespace ccopt::topo {

struct NodeSymmetry;

enum class DeviceKind { Gpu, NvSwitch, PcieSwitch, Cpu, Nic, NetSwitch };
enum class LinkKind { NvLink, Pcie, Smp, Net };
/// GPU generations differ in NCCL's protocol model (LL bandwidth caps).
enum class Arch { Volta, Ampere, Hopper };

llvm::StringRef toString(DeviceKind kind);
llvm::StringRef toString(LinkKind kind);
llvm::StringRef toString(Arch arch);

struct Device {
  DeviceKind kind;
  std::string name;
  int node = 0;
  /// NICs: GB/s of the network port (what replicate() connects).
  double portBandwidth = 0;
};

/// One direction of a connection.
struct Link {
  int from, to;
  LinkKind kind;
  double bandwidth;    ///< GB/s the best protocol achieves (what bounds use)
  double rawBandwidth; ///< GB/s of the hardware, for reference
  double latencyUs;    ///< wire latency on top of the protocol's per-hop cost
};

class Machine {
public:
  std::string name;
  int nodes = 1;
  int gpusPerNode = 0;
  Arch arch = Arch::Ampere;
  /// The NVSwitch reduces in the switch (NVLS, Hopper and later).
  bool nvls = false;
  /// GB/s one channel (one thread block of SMs) copies or reduces.
  double channelBandwidth = 25.0;

  int addDevice(DeviceKind kind, std::string name, int node,
                double portBandwidth = 0);
  /// A bidirectional connection: two links of the same figures.
  void connect(int a, int b, LinkKind kind, double bandwidth,
               double rawBandwidth, double latencyUs = 0);

  int ranks() const { return static_cast<int>(gpuDevices.size()); }
  const std::vector<Device> &devices() const { return deviceList; }
  const std::vector<Link> &links() const { return linkList; }
  int gpuDevice(int rank) const { return gpuDevices[rank]; }
  int nodeOf(int rank) const { return deviceList[gpuDevices[rank]].node; }
  /// Links leaving a device.
  const std::vector<int> &outLinks(int device) const { return outgoing[device]; }

  /// The links from rank `src` to rank `dst` (widest, then shortest);
  /// empty when src == dst or no route exists.
  const std::vector<int> &route(int src, int dst) const;
  /// The slowest link on the route.
  double routeBandwidth(int src, int dst) const;
  /// The most remote kind of link on the route (Net > Smp > Pcie > NvLink).
  LinkKind routeKind(int src, int dst) const;

  /// The links between rank `rank` and its NVSwitch (to it, from it), or
  /// std::nullopt when the GPU has none.
  std::optional<std::pair<int, int>> nvSwitchLinks(int rank) const;

  /// GB/s rank `rank` can send (or receive) at most: the sum over its links.
  double injectionBandwidth(int rank) const;
  /// GB/s that leave one node through its NICs (0 for one node).
  double nodeNetworkBandwidth(int node) const;

  /// A description of what is wrong (no GPU, a GPU pair with no route,
  /// a bad bandwidth), or std::nullopt.
  std::optional<std::string> validate() const;

  /// Orders through a node found so far by topo's exhaustive ring search,
  /// by (GPUs, closed, last GPU).
  mutable std::map<std::tuple<std::vector<int>, bool, int>, std::vector<int>> ringSearchMemo;
  /// Rings over PCIe nodes that enter and leave each node through
  /// different NICs (topo::ringOrders), by (ranks, count, by socket).
  mutable std::map<std::tuple<std::vector<int>, int, bool>, std::vector<std::vector<int>>>
      crossingRingsMemo;
  /// NVLink-disjoint rings through a node found so far, by GPUs.
  mutable std::map<std::vector<int>, std::vector<std::vector<int>>> disjointRingsMemo;
  /// xorSymmetries(*this), once found.
  mutable std::shared_ptr<const std::vector<NodeSymmetry>> xorSymmetryMemo;

private:
  std::vector<Device> deviceList;
  std::vector<Link> linkList;
  std::vector<std::vector<int>> outgoing;
  std::vector<int> gpuDevices;
  /// Routes found so far: per source, by destination (owned by pointer, so
  /// references handed out stay valid as the maps grow).
  mutable std::vector<llvm::DenseMap<int, std::shared_ptr<std::vector<int>>>> routes;
};

/// The preset called `name` replicated over `nodes` nodes joined by a
/// rail-optimized, non-blocking fat tree, or std::nullopt.
std::optional<Machine> lookupPreset(llvm::StringRef name, int nodes = 1);

/// Names of all presets, for help texts and errors.
std::vector<std::string> presetNames();

/// Joins `nodes` copies of a one-node machine: NIC k of every node connects
/// to rail switch k.
Machine replicate(const Machine &node, int nodes);

} // namespace ccopt::topo

#endif
