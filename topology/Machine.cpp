//===- Machine.cpp - the machine graph and its routes ---------------------===//

#include "topology/Machine.h"

#include "llvm/ADT/STLExtras.h"

#include <queue>

using namespace ccopt::topo;

llvm::StringRef ccopt::topo::toString(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::Gpu: return "gpu";
  case DeviceKind::NvSwitch: return "nvswitch";
  case DeviceKind::PcieSwitch: return "pcie_switch";
  case DeviceKind::Cpu: return "cpu";
  case DeviceKind::Nic: return "nic";
  case DeviceKind::NetSwitch: return "net_switch";
  }
  return "?";
}

llvm::StringRef ccopt::topo::toString(LinkKind kind) {
  switch (kind) {
  case LinkKind::NvLink: return "nvlink";
  case LinkKind::Pcie: return "pcie";
  case LinkKind::Smp: return "smp";
  case LinkKind::Net: return "net";
  }
  return "?";
}

llvm::StringRef ccopt::topo::toString(Arch arch) {
  switch (arch) {
  case Arch::Volta: return "volta";
  case Arch::Ampere: return "ampere";
  case Arch::Hopper: return "hopper";
  }
  return "?";
}

int Machine::addDevice(DeviceKind kind, std::string deviceName, int node,
                       double portBandwidth) {
  deviceList.push_back(Device{kind, std::move(deviceName), node, portBandwidth});
  outgoing.emplace_back();
  int id = static_cast<int>(deviceList.size()) - 1;
  if (kind == DeviceKind::Gpu)
    gpuDevices.push_back(id);
  xorSymmetryMemo.reset();
  return id;
}

void Machine::connect(int a, int b, LinkKind kind, double bandwidth,
                      double rawBandwidth, double latencyUs) {
  for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    linkList.push_back(Link{from, to, kind, bandwidth, rawBandwidth, latencyUs});
    outgoing[from].push_back(static_cast<int>(linkList.size()) - 1);
  }
  routes.clear();
  ringSearchMemo.clear();
  disjointRingsMemo.clear();
  crossingRingsMemo.clear();
  xorSymmetryMemo.reset();
}

const std::vector<int> &Machine::route(int src, int dst) const {
  if (routes.empty())
    routes.resize(ranks());
  auto [it, inserted] = routes[src].try_emplace(dst);
  if (!inserted)
    return *it->second;
  it->second = std::make_shared<std::vector<int>>();
  std::vector<int> &route = *it->second;
  if (src == dst)
    return route;
  // Dijkstra on seconds per byte, so the widest route wins and hops break
  // ties; GPUs other than the ends do not forward, nor do a third node's
  // devices (no fabric routes through another host, and on large machines
  // the search stays within the two nodes).
  int from = gpuDevices[src], to = gpuDevices[dst];
  auto forwards = [&](int device) {
    const Device &d = deviceList[device];
    return device == from ||
           (d.kind != DeviceKind::Gpu &&
            (d.node < 0 || d.node == deviceList[from].node || d.node == deviceList[to].node));
  };
  // Maps, not vectors over every device: the search sees two nodes' worth.
  llvm::DenseMap<int, double> cost;
  llvm::DenseMap<int, int> via;
  auto costOf = [&](int device) {
    auto it = cost.find(device);
    return it == cost.end() ? 1e300 : it->second;
  };
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  cost[from] = 0;
  queue.push({0, from});
  while (!queue.empty()) {
    auto [c, device] = queue.top();
    queue.pop();
    if (device == to)
      break;
    if (c > costOf(device))
      continue;
    for (int l : outgoing[device]) {
      const Link &link = linkList[l];
      if (link.to != to && !forwards(link.to))
        continue; // a dead end (a rail switch reaches every node's NIC)
      double next = c + 1.0 / link.bandwidth + 1e-9;
      if (next < costOf(link.to)) {
        cost[link.to] = next;
        via[link.to] = l;
        queue.push({next, link.to});
      }
    }
  }
  if (!via.count(to))
    return route;
  for (int device = to; device != from; device = linkList[via[device]].from)
    route.push_back(via[device]);
  std::reverse(route.begin(), route.end());
  return route;
}

double Machine::routeBandwidth(int src, int dst) const {
  double bw = 1e300;
  for (int l : route(src, dst))
    bw = std::min(bw, linkList[l].bandwidth);
  return bw;
}

LinkKind Machine::routeKind(int src, int dst) const {
  LinkKind worst = LinkKind::NvLink;
  for (int l : route(src, dst))
    worst = std::max(worst, linkList[l].kind);
  return worst;
}

std::optional<std::pair<int, int>> Machine::nvSwitchLinks(int rank) const {
  for (int up : outgoing[gpuDevices[rank]]) {
    int sw = linkList[up].to;
    if (deviceList[sw].kind != DeviceKind::NvSwitch)
      continue;
    for (int down : outgoing[sw])
      if (linkList[down].to == gpuDevices[rank])
        return std::make_pair(up, down);
  }
  return std::nullopt;
}

double Machine::injectionBandwidth(int rank) const {
  // The cut around the GPU: every link it has (NVLink and PCIe alike; a
  // schedule may use both at once, e.g. NVLink inside a node while the
  // PCIe path feeds a NIC).
  double total = 0;
  for (int l : outgoing[gpuDevices[rank]])
    total += linkList[l].bandwidth;
  return total;
}

double Machine::nodeNetworkBandwidth(int node) const {
  double total = 0;
  for (const Link &link : linkList)
    if (link.kind == LinkKind::Net &&
        deviceList[link.from].kind == DeviceKind::Nic &&
        deviceList[link.from].node == node)
      total += link.bandwidth;
  return total;
}

std::optional<std::string> Machine::validate() const {
  if (gpuDevices.empty())
    return std::string("the machine has no GPU");
  for (const Link &link : linkList)
    if (!(link.bandwidth > 0) || !(link.rawBandwidth > 0) || link.latencyUs < 0)
      return "link " + deviceList[link.from].name + " -> " +
             deviceList[link.to].name +
             " needs a positive bandwidth and a latency >= 0";
  // Every GPU must reach GPU 0 and be reached from it.
  for (int r = 1; r < ranks(); ++r)
    if (route(0, r).empty() || route(r, 0).empty())
      return "the graph is disconnected: no route between " +
             deviceList[gpuDevices[0]].name + " and " +
             deviceList[gpuDevices[r]].name;
  return std::nullopt;
}

Machine ccopt::topo::replicate(const Machine &node, int nodes) {
  Machine out;
  out.name = node.name;
  out.nodes = nodes;
  out.gpusPerNode = node.gpusPerNode;
  out.arch = node.arch;
  out.nvls = node.nvls;
  out.channelBandwidth = node.channelBandwidth;
  // Devices node by node, so GPU ranks run node-major.
  std::vector<int> nics;
  const auto &devices = node.devices();
  for (int n = 0; n < nodes; ++n) {
    int base = out.devices().size();
    for (const Device &d : devices) {
      std::string name = nodes > 1 ? "n" + std::to_string(n) + "/" + d.name : d.name;
      out.addDevice(d.kind, name, n, d.portBandwidth);
    }
    for (const Link &l : node.links())
      if (l.from < l.to)
        out.connect(base + l.from, base + l.to, l.kind, l.bandwidth,
                    l.rawBandwidth, l.latencyUs);
  }
  if (nodes == 1)
    return out;
  // Rail k joins NIC k of every node.
  int perNode = devices.size();
  int rail = 0;
  for (int d = 0; d < perNode; ++d) {
    if (devices[d].kind != DeviceKind::Nic)
      continue;
    int sw = out.addDevice(DeviceKind::NetSwitch, "rail" + std::to_string(rail++), -1);
    for (int n = 0; n < nodes; ++n)
      out.connect(n * perNode + d, sw, LinkKind::Net, devices[d].portBandwidth,
                  devices[d].portBandwidth);
  }
  return out;
}
