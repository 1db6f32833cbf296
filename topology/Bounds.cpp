//===- Bounds.cpp - what no schedule can beat -----------------------------===//

#include "topology/Bounds.h"

#include "topology/Protocol.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <mutex>
#include <string>
#include <tuple>

using namespace ccopt::topo;
using mlir::ccl::CollectiveKind;

double ccopt::topo::busBandwidthFactor(CollectiveKind kind, int n) {
  // nccl-tests doc/PERFORMANCE.md.
  switch (kind) {
  case CollectiveKind::AllReduce:
    return 2.0 * (n - 1) / n;
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllGather:
  case CollectiveKind::AllToAll:
    return static_cast<double>(n - 1) / n;
  default:
    return 1.0;
  }
}

namespace {

/// The bandwidth across one cut inside a node: `inside` (indices into the
/// collective's ranks) on one side, every other participant on the other.
struct Cut {
  llvm::SmallVector<int, 12> inside;
  double out, in; // GB/s leaving and entering the inside
};

/// Maximum flow (GB/s) from `sources` to `sinks` over the machine's links
/// (Edmonds-Karp, every source and sink joined to a super source and sink);
/// `blocked` devices carry nothing (GPUs do not forward).
double maxFlow(const Machine &machine, const std::vector<char> &role) {
  // role: 0 free, 1 source, 2 sink, 3 blocked.
  const auto &links = machine.links();
  int numDevices = machine.devices().size();
  // Residual capacity: edge 2l is link l, 2l+1 its reverse.
  std::vector<double> residual(2 * links.size());
  std::vector<std::vector<int>> adjacent(numDevices);
  for (size_t l = 0; l < links.size(); ++l) {
    const Link &link = links[l];
    if (role[link.from] == 3 || role[link.to] == 3)
      continue;
    residual[2 * l] = link.bandwidth;
    adjacent[link.from].push_back(2 * l);
    adjacent[link.to].push_back(2 * l + 1);
  }
  auto head = [&](int e) {
    const Link &link = links[e / 2];
    return e % 2 ? link.from : link.to;
  };
  double total = 0;
  std::vector<int> via(numDevices);
  while (true) {
    std::fill(via.begin(), via.end(), -2);
    std::vector<int> queue;
    for (int d = 0; d < numDevices; ++d)
      if (role[d] == 1) {
        via[d] = -1;
        queue.push_back(d);
      }
    int reached = -1;
    for (size_t i = 0; i < queue.size() && reached < 0; ++i)
      for (int e : adjacent[queue[i]]) {
        int d = head(e);
        if (via[d] != -2 || residual[e] <= 1e-9)
          continue;
        via[d] = e;
        if (role[d] == 2) {
          reached = d;
          break;
        }
        queue.push_back(d);
      }
    if (reached < 0)
      return total;
    double push = 1e300;
    for (int d = reached; via[d] >= 0; d = head(via[d] ^ 1))
      push = std::min(push, residual[via[d]]);
    for (int d = reached; via[d] >= 0; d = head(via[d] ^ 1)) {
      residual[via[d]] -= push;
      residual[via[d] ^ 1] += push;
    }
    total += push;
  }
}

/// The maximum flow from `role`'s sources to its sinks, and back.
std::pair<double, double> flowEachWay(const Machine &machine, std::vector<char> role) {
  double there = maxFlow(machine, role);
  for (char &r : role)
    r = r == 1 ? 2 : r == 2 ? 1 : r;
  return {there, maxFlow(machine, role)};
}

/// Names a machine and the ranks of a collective on it, for the caches.
std::string cacheKey(const Machine &machine, llvm::ArrayRef<int> ranks) {
  std::string key = machine.name + "/" + std::to_string(machine.nodes) + "/" +
                    std::to_string(machine.devices().size()) + "/" +
                    std::to_string(machine.links().size());
  double sum = 0;
  for (const Link &link : machine.links())
    sum += link.bandwidth;
  key += "/" + std::to_string(sum) + ":";
  for (int r : ranks)
    key += std::to_string(r) + ",";
  return key;
}

/// compute(), once per machine and ranks (each caller's lambda type has a
/// cache of its own).
template <typename Compute>
const auto &cached(const Machine &machine, llvm::ArrayRef<int> ranks, Compute compute) {
  static std::mutex mutex;
  static std::map<std::string, decltype(compute())> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = cache.try_emplace(cacheKey(machine, ranks));
  if (inserted)
    it->second = compute();
  return it->second;
}

/// What the GPUs of `ranks` (one node) can move to and from each other
/// together (GB/s), and the least of that one GPU's own links carry. CUDA
/// sends between GPUs joined by NVLink over NVLink, never PCIe peer to
/// peer, so beside NVLink such a GPU reaches its peers over PCIe only
/// through host memory, up to a CPU and down again, through PCIe switch
/// uplinks that its neighbours share: its NVLinks count, and all of them
/// together the flow between them and the CPUs. Where some two GPUs have
/// neither NVLink nor a route through a CPU between them (a PCIe machine)
/// they reach each other by PCIe peer to peer: every link counts. Cached
/// per machine and ranks.
struct Together {
  double total = 0, leastGpu = 1e300;
};
Together togetherBandwidth(const Machine &machine, llvm::ArrayRef<int> ranks) {
  return cached(machine, ranks, [&] {
    Together together;
    const auto &devices = machine.devices();
    std::vector<char> role(devices.size(), 3); // only GPUs, PCIe switches, CPUs
    int node = machine.nodeOf(ranks.front());
    for (size_t d = 0; d < devices.size(); ++d)
      if (devices[d].node == node && (devices[d].kind == DeviceKind::PcieSwitch ||
                                      devices[d].kind == DeviceKind::Cpu))
        role[d] = devices[d].kind == DeviceKind::Cpu ? 2 : 0;
    auto throughCpu = [&](int a, int b) {
      return llvm::any_of(machine.route(a, b), [&](int l) {
        return devices[machine.links()[l].to].kind == DeviceKind::Cpu;
      });
    };
    bool peerToPeer = llvm::any_of(ranks, [&](int a) {
      return llvm::any_of(ranks, [&](int b) {
        return a != b && machine.routeKind(a, b) != LinkKind::NvLink && !throughCpu(a, b);
      });
    });
    for (int r : ranks) {
      int gpu = machine.gpuDevice(r);
      double own = 0;
      for (int l : machine.outLinks(gpu))
        if (peerToPeer || machine.links()[l].kind == LinkKind::NvLink)
          own += machine.links()[l].bandwidth;
      together.total += own;
      together.leastGpu = std::min(together.leastGpu, own);
      role[gpu] = 1;
    }
    if (peerToPeer)
      return together;
    auto [up, down] = flowEachWay(machine, std::move(role));
    together.total += std::max(up, down);
    return together;
  });
}

/// Every cut of the participants of one node from the rest (the nodes are
/// alike, so the first node with participants stands for all), with the
/// bandwidth out of and into each side: the cuts inside a node that a GPU's
/// own links or a node's NICs do not see, e.g. the inter-socket link of a
/// PCIe machine. Cached per machine and ranks.
const std::vector<Cut> &nodeCuts(const Machine &machine,
                                 llvm::ArrayRef<int> ranks) {
  return cached(machine, ranks, [&] {
    std::vector<Cut> cuts;
    int node = machine.nodeOf(ranks.front());
    llvm::SmallVector<int, 12> local; // indices into ranks
    bool outside = false;
    for (auto [i, r] : llvm::enumerate(ranks)) {
      if (machine.nodeOf(r) == node)
        local.push_back(i);
      else
        outside = true;
    }
    if (local.size() > 12 || (local.size() < 2 && !outside))
      return cuts;
    const auto &devices = machine.devices();
    std::vector<char> base(devices.size(), 0);
    std::vector<char> participant(devices.size(), 0);
    for (int r : ranks)
      participant[machine.gpuDevice(r)] = 1;
    for (size_t d = 0; d < devices.size(); ++d) {
      bool here = devices[d].node == node;
      if (devices[d].kind == DeviceKind::Gpu && !participant[d])
        base[d] = 3; // GPUs do not forward
      else if (!here)
        base[d] = outside ? 2 : 3; // the rest of the machine: the other side
    }
    unsigned subsets = 1u << local.size();
    for (unsigned mask = 1; mask < subsets; ++mask) {
      if (mask == subsets - 1 && !outside)
        continue;
      Cut cut;
      std::vector<char> role = base;
      for (auto [bit, i] : llvm::enumerate(local)) {
        int device = machine.gpuDevice(ranks[i]);
        if (mask >> bit & 1) {
          cut.inside.push_back(i);
          role[device] = 1;
        } else {
          role[device] = 2;
        }
      }
      std::tie(cut.out, cut.in) = flowEachWay(machine, std::move(role));
      cuts.push_back(std::move(cut));
    }
    return cuts;
  });
}

/// Every cut that takes the same GPUs (by local index) of every node, on
/// several nodes each holding the same local GPUs of the collective, e.g.
/// one socket of every node. A rail joins the NICs of one index only, so
/// what crosses such a cut crosses it inside some node: (averaged over the
/// nodes, which the rails treat alike) each node's own max-flow between its
/// two sides, times the nodes, where every NIC has a single link into its
/// node (a flow out through rail k and back in through it then only turns
/// around at the NIC). Cached per machine and ranks.
const std::vector<Cut> &sameGpusOfEveryNodeCuts(const Machine &machine,
                                                 llvm::ArrayRef<int> ranks) {
  return cached(machine, ranks, [&] {
    std::vector<Cut> cuts;
    int g = machine.gpusPerNode, first = machine.nodeOf(ranks.front());
    std::map<int, std::vector<int>> localsByNode; // node -> local indices, in order
    for (int r : ranks)
      localsByNode[machine.nodeOf(r)].push_back(r - machine.nodeOf(r) * g);
    const std::vector<int> &locals = localsByNode.begin()->second;
    if (localsByNode.size() < 2 || locals.size() > 12 || locals.size() < 2 ||
        llvm::any_of(localsByNode, [&](auto &node) { return node.second != locals; }))
      return cuts;
    double nodes = localsByNode.size();
    const auto &devices = machine.devices();
    for (size_t d = 0; d < devices.size(); ++d)
      if (devices[d].kind == DeviceKind::Nic &&
          llvm::count_if(machine.outLinks(d), [&](int l) {
            return devices[machine.links()[l].to].node == devices[d].node;
          }) != 1)
        return cuts;
    for (unsigned mask = 1; mask + 1 < 1u << locals.size(); ++mask) {
      std::vector<char> role(devices.size(), 0);
      for (size_t d = 0; d < devices.size(); ++d)
        if (devices[d].node != first || devices[d].kind == DeviceKind::Gpu)
          role[d] = 3; // off this node, or a GPU not taking part
      Cut cut;
      for (auto [bit, local] : llvm::enumerate(locals)) {
        bool inside = mask >> bit & 1;
        role[machine.gpuDevice(first * g + local)] = inside ? 1 : 2;
        if (inside)
          for (auto [i, r] : llvm::enumerate(ranks))
            if (r % g == local)
              cut.inside.push_back(i);
      }
      std::tie(cut.out, cut.in) = flowEachWay(machine, std::move(role));
      cut.out *= nodes;
      cut.in *= nodes;
      cuts.push_back(std::move(cut));
    }
    return cuts;
  });
}

/// The time (µs) `kind` needs across `cut`: what must leave and enter the
/// inside, over the cut's bandwidth each way.
double cutTimeUs(CollectiveKind kind, const Cut &cut, int n, int64_t bytes) {
  double k = cut.inside.size(), s = bytes;
  double out = 0, in = 0;
  switch (kind) {
  case CollectiveKind::AllGather: // the inside's blocks out, the others in
    out = k / n * s, in = (n - k) / n * s;
    break;
  case CollectiveKind::ReduceScatter: // contributions to the others' blocks
    out = (n - k) / n * s, in = k / n * s;
    break;
  case CollectiveKind::AllReduce: // each side needs the other side's sum
    out = in = s;
    break;
  case CollectiveKind::AllToAll:
    out = in = k * (n - k) / n * s;
    break;
  case CollectiveKind::Broadcast:
  case CollectiveKind::Reduce: // the root is on one side or the other
    return std::min(s / cut.out, s / cut.in) / 1e3;
  case CollectiveKind::SendRecv: { // rank 0 sends to rank 1
    bool from = llvm::is_contained(cut.inside, 0), to = llvm::is_contained(cut.inside, 1);
    out = from && !to ? s : 0;
    in = to && !from ? s : 0;
    break;
  }
  default:
    return 0;
  }
  return std::max(out / cut.out, in / cut.in) / 1e3; // GB/s = 1e3 B/µs
}

} // namespace

double ccopt::topo::lowerBoundUs(CollectiveKind kind, llvm::ArrayRef<int> ranks,
                                 int64_t bytes, const Machine &machine,
                                 bool withNodeCuts) {
  int n = ranks.size();
  if (n <= 1)
    return 0;
  // The data share a rank must send (or receive) through its own links, as
  // a fraction of `bytes`.
  double share = busBandwidthFactor(kind, n);
  double gpuBandwidth = 1e300;
  llvm::SmallDenseSet<int> nodes;
  for (int r : ranks) {
    gpuBandwidth = std::min(gpuBandwidth, machine.injectionBandwidth(r));
    nodes.insert(machine.nodeOf(r));
  }
  // On one node the ranks together move no more than their NVLinks and the
  // host path carry: a GPU's PCIe link reaches NVLink peers only through
  // host memory (togetherBandwidth). Where every rank moves the same share
  // each has 1/n of that; a broadcast's n-1 receivers (a reduce's senders)
  // each S, over all but the root's links, whichever GPU it is. (On
  // several nodes the PCIe link feeds the GPU's NIC beside NVLink.)
  if (nodes.size() == 1) {
    Together together = togetherBandwidth(machine, ranks);
    switch (kind) {
    case CollectiveKind::AllReduce:
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllGather:
    case CollectiveKind::AllToAll:
      gpuBandwidth = std::min(gpuBandwidth, together.total / n);
      break;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
      gpuBandwidth = std::min(gpuBandwidth, (together.total - together.leastGpu) / (n - 1));
      break;
    default:
      break;
    }
  }
  double transferUs = share * bytes / (gpuBandwidth * 1e3); // GB/s = 1e3 B/µs
  // A switch that reduces (NVLS) halves what an all-reduce must move per
  // GPU: each sends its data once and receives the result once, the whole
  // buffer each way (a rank's own part too: its contribution to it goes in,
  // or its result comes back, through the switch), over its NVLinks to the
  // switch only.
  // On several nodes each GPU still sends its data once and receives the
  // result once, over any of its links (its node's switch reduces; what
  // crosses the NICs is the network term below).
  if (kind == CollectiveKind::AllReduce && machine.nvls) {
    double switchBandwidth = 1e300;
    bool everyRank = true;
    for (int r : ranks)
      if (auto links = machine.nvSwitchLinks(r))
        switchBandwidth = std::min({switchBandwidth, machine.links()[links->first].bandwidth,
                                    machine.links()[links->second].bandwidth});
      else
        everyRank = false;
    if (nodes.size() > 1 && everyRank)
      transferUs = std::min(transferUs, bytes / (gpuBandwidth * 1e3));
    else if (nodes.size() == 1 && switchBandwidth < 1e300)
      transferUs = std::min(transferUs, bytes / (switchBandwidth * 1e3));
  }
  // Several nodes: a node's NICs carry what leaves it. For the reductions
  // and gathers that is the same share of the node-level data (one buffer
  // per node after reducing inside it); all-to-all sends everything that
  // goes to other nodes.
  int numNodes = nodes.size();
  if (numNodes > 1) {
    double nic = 1e300;
    for (int node : nodes)
      nic = std::min(nic, machine.nodeNetworkBandwidth(node));
    double perNode = static_cast<double>(n) / numNodes;
    double nodeShare = busBandwidthFactor(kind, numNodes);
    double nodeBytes = kind == CollectiveKind::AllToAll ? bytes * perNode : bytes;
    transferUs = std::max(transferUs, nodeShare * nodeBytes / (nic * 1e3));
  }
  // Cuts inside a node (and between part of a node and the rest), and
  // those that take the same GPUs of every node.
  if (bytes > 0 && withNodeCuts)
    for (const auto *cuts : {&nodeCuts(machine, ranks), &sameGpusOfEveryNodeCuts(machine, ranks)})
      for (const Cut &cut : *cuts)
        if (cut.out > 0 && cut.in > 0)
          transferUs = std::max(transferUs, cutTimeUs(kind, cut, n, bytes));
  // Latency: some message crosses the most remote kind of link, at least
  // at the lowest per-hop latency (LL's).
  LinkKind worst = numNodes > 1 ? LinkKind::Net : LinkKind::NvLink;
  if (numNodes == 1)
    for (int r : ranks)
      worst = std::max(worst, machine.routeKind(ranks[0], r));
  return hopLatencyUs(AlgorithmFamily::Ring, Protocol::LL, worst) + transferUs;
}

double ccopt::topo::boundUnder(Protocol protocol, double boundUs, double latencyUs) {
  // The ring's base latencies are the lowest of each protocol's (tree's and
  // NVLS's are no lower).
  return baseLatencyUs(AlgorithmFamily::Ring, protocol) + latencyUs +
         (boundUs - latencyUs) / bandwidthEfficiency(protocol);
}
