//===- Rings.cpp - ring orders that follow the machine's links ------------===//

#include "topology/Rings.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <array>
#include <functional>
#include <map>
#include <numeric>

using namespace ccopt::topo;

namespace {

/// Depth-first search over orders of `gpus` (first one fixed), keeping the
/// order whose slowest hop (including the hop back to the start, when
/// `closed`) is fastest; ties go to the larger sum of hop bandwidths.
class RingSearch {
public:
  /// `last`: when not -1, the order must end there (a path through a node
  /// between the GPUs where a multi-node ring enters and leaves it).
  RingSearch(const Machine &m, std::vector<int> gpus, bool closed, int last = -1)
      : m(m), gpus(std::move(gpus)), closed(closed), last(last) {}

  std::vector<int> run() {
    if (gpus.size() <= 2 || gpus.size() > 10)
      return gpus;
    auto [it, fresh] = m.ringSearchMemo.try_emplace({gpus, closed, last});
    if (fresh) // every candidate schedule asks again
      it->second = search();
    return it->second;
  }

private:
  std::vector<int> search() {
    std::vector<int> order = {gpus[0]};
    std::vector<bool> used(gpus.size(), false);
    used[0] = true;
    visit(order, used, 1e300, 0);
    return best;
  }

  void visit(std::vector<int> &order, std::vector<bool> &used, double slowest,
             double sum) {
    if (slowest < bestSlowest)
      return; // cannot beat the best any more
    if (order.size() == gpus.size()) {
      if (last >= 0 && order.back() != last)
        return;
      if (closed) {
        double back = m.routeBandwidth(order.back(), order.front());
        slowest = std::min(slowest, back);
        sum += back;
      }
      if (slowest > bestSlowest || (slowest == bestSlowest && sum > bestSum)) {
        bestSlowest = slowest;
        bestSum = sum;
        best = order;
      }
      return;
    }
    for (size_t i = 1; i < gpus.size(); ++i) {
      if (used[i] || (gpus[i] == last && order.size() + 1 < gpus.size()))
        continue;
      double hop = m.routeBandwidth(order.back(), gpus[i]);
      used[i] = true;
      order.push_back(gpus[i]);
      visit(order, used, std::min(slowest, hop), sum + hop);
      order.pop_back();
      used[i] = false;
    }
  }

  const Machine &m;
  std::vector<int> gpus;
  bool closed;
  int last;
  std::vector<int> best;
  double bestSlowest = -1, bestSum = -1;
};

} // namespace

std::vector<int> ccopt::topo::bestRingOrder(const Machine &machine,
                                            llvm::ArrayRef<int> ranks) {
  std::map<int, std::vector<int>> byNode;
  for (int r : ranks)
    byNode[machine.nodeOf(r)].push_back(r);
  bool oneNode = byNode.size() == 1;
  std::vector<int> ring;
  for (auto &[node, gpus] : byNode)
    llvm::append_range(ring, RingSearch(machine, gpus, oneNode).run());
  return ring;
}

namespace {

/// Hamiltonian cycles over direct NVLinks, each taking one link per hop in
/// both directions, as many as the links allow; each run both ways. A
/// depth-first search over packings of cycles (the first cycles found can
/// block the rest: on v100x8's cube mesh the first two leave GPU 0 only its
/// doubled link to GPU 3, yet three cycles use every link), within a budget
/// of search steps.
std::vector<std::vector<int>> searchDisjointNvLinkRings(const Machine &m,
                                                        llvm::ArrayRef<int> gpus) {
  int n = gpus.size();
  // capacity[a][b]: NVLinks from gpus[a] to gpus[b] on a direct route.
  std::vector<std::vector<int>> capacity(n, std::vector<int>(n, 0));
  double perLink = 1e300;
  for (const Link &l : m.links())
    if (l.kind == LinkKind::NvLink &&
        m.devices()[l.from].kind == DeviceKind::Gpu &&
        m.devices()[l.to].kind == DeviceKind::Gpu)
      perLink = std::min(perLink, l.bandwidth);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const std::vector<int> &route = m.route(gpus[a], gpus[b]);
      if (a != b && route.size() == 1 && m.links()[route[0]].kind == LinkKind::NvLink)
        capacity[a][b] = static_cast<int>(m.links()[route[0]].bandwidth / perLink + 0.5);
    }
  // No more cycles than the least connected GPU has pairs of links.
  size_t target = n;
  for (int a = 0; a < n; ++a) {
    int links = 0;
    for (int b = 0; b < n; ++b)
      links += capacity[a][b];
    target = std::min<size_t>(target, links / 2);
  }
  std::vector<std::vector<int>> cycles, best;
  int64_t budget = 1 << 20;
  auto take = [&](const std::vector<int> &cycle, int sign) {
    for (int i = 0; i < n; ++i) {
      int a = cycle[i], b = cycle[(i + 1) % n];
      capacity[a][b] -= sign;
      capacity[b][a] -= sign;
    }
  };
  // Extends `cycles` by cycles after its last one (in lexicographic order,
  // so that each packing is tried once).
  std::function<void()> pack = [&] {
    if (cycles.size() > best.size())
      best = cycles;
    std::vector<int> order = {0};
    std::vector<bool> used(n, false);
    used[0] = true;
    std::function<void()> extend = [&] {
      if (best.size() >= target || --budget < 0)
        return;
      if (static_cast<int>(order.size()) == n) {
        if (capacity[order.back()][0] == 0 || (!cycles.empty() && order <= cycles.back()))
          return;
        take(order, 1);
        cycles.push_back(order);
        pack();
        cycles.pop_back();
        take(order, -1);
        return;
      }
      for (int next = 1; next < n; ++next) {
        if (used[next] || capacity[order.back()][next] == 0)
          continue;
        used[next] = true;
        order.push_back(next);
        extend();
        order.pop_back();
        used[next] = false;
      }
    };
    extend();
  };
  pack();
  std::vector<std::vector<int>> rings;
  for (const std::vector<int> &cycle : best) {
    std::vector<int> ring;
    for (int i : cycle)
      ring.push_back(gpus[i]);
    rings.push_back(ring);
    std::reverse(ring.begin() + 1, ring.end());
    rings.push_back(ring);
  }
  return rings;
}

/// The first `count` of searchDisjointNvLinkRings (remembered per GPUs).
std::vector<std::vector<int>> disjointNvLinkRings(const Machine &m,
                                                  llvm::ArrayRef<int> gpus,
                                                  int count) {
  auto [it, fresh] = m.disjointRingsMemo.try_emplace(gpus.vec());
  if (fresh)
    it->second = searchDisjointNvLinkRings(m, gpus);
  std::vector<std::vector<int>> rings = it->second;
  if (static_cast<int>(rings.size()) > count)
    rings.resize(count);
  return rings;
}

/// The time per byte (1 / GB/s) that the hops of some rings put on each link.
using Loads = llvm::DenseMap<int, double>;

void addHop(const Machine &m, int from, int to, Loads &loads) {
  for (int l : m.route(from, to))
    loads[l] += 1 / m.links()[l].bandwidth;
}

/// How busy links are: the busiest link's load, then the sum of the
/// loads' squares (lower: spread wider).
struct Congestion {
  double busiest = 0, squares = 0;
  bool operator<(const Congestion &o) const {
    constexpr double eps = 1e-12;
    if (busiest < o.busiest - eps || busiest > o.busiest + eps)
      return busiest < o.busiest;
    return squares < o.squares - eps;
  }
  /// Together with `extra` on top of `base` (whose congestion this is).
  Congestion with(const Loads &base, const Loads &extra) const {
    Congestion c = *this;
    for (auto [l, load] : extra) {
      double before = base.lookup(l), after = before + load;
      c.busiest = std::max(c.busiest, after);
      c.squares += after * after - before * before;
    }
    return c;
  }
};

/// The order of `gpus` (one node's) from `enter` to `leave` whose hops load
/// the busiest link least, then spread widest: on a PCIe node hops between
/// switches share the switches' uplinks, which the slowest-hop search does
/// not see. Exhaustive (up to 10 GPUs).
std::vector<int> leastLoadedPath(const Machine &m, llvm::ArrayRef<int> gpus, int enter,
                                 int leave) {
  std::vector<int> order = {enter}, best;
  if (gpus.size() > 10) {
    for (int gpu : gpus)
      if (gpu != enter && gpu != leave)
        order.push_back(gpu);
    order.push_back(leave);
    return order;
  }
  Congestion bestCongestion{1e300, 1e300};
  Loads loads;
  std::function<void(Congestion)> visit = [&](Congestion now) {
    if (bestCongestion < now)
      return; // the busiest link only gets busier
    bool last = order.size() + 1 == gpus.size();
    for (int gpu : gpus) {
      if (llvm::is_contained(order, gpu) || (gpu == leave) != last)
        continue;
      Loads hop;
      addHop(m, order.back(), gpu, hop);
      Congestion next = now.with(loads, hop);
      for (auto [l, load] : hop)
        loads[l] += load;
      order.push_back(gpu);
      if (!last)
        visit(next);
      else if (next < bestCongestion)
        bestCongestion = next, best = order;
      order.pop_back();
      for (auto [l, load] : hop)
        loads[l] -= load;
    }
  };
  visit({});
  return best;
}

/// The positions in `gpus` (one node's) of the two sockets' GPUs: those
/// that reach gpus[0] without the sockets' link, and the others; empty
/// unless every GPU reaches its socket's others without that link and the
/// other socket's only across it.
std::array<std::vector<int>, 2> socketsOf(const Machine &m, llvm::ArrayRef<int> gpus) {
  std::array<std::vector<int>, 2> sockets;
  for (size_t i = 0; i < gpus.size(); ++i)
    sockets[m.routeKind(gpus[0], gpus[i]) == LinkKind::Smp].push_back(i);
  for (int s : {0, 1})
    for (int a : sockets[s]) {
      for (int b : sockets[s])
        if (m.routeKind(gpus[a], gpus[b]) == LinkKind::Smp)
          return {};
      for (int b : sockets[1 - s])
        if (m.routeKind(gpus[a], gpus[b]) != LinkKind::Smp)
          return {};
    }
  return sockets;
}

/// Whether rings go by socket over `numNodes` nodes split into `sockets`:
/// three nodes or more, two sockets of at least 2 GPUs each.
bool bySocketApplies(int numNodes, const std::array<std::vector<int>, 2> &sockets) {
  return numNodes >= 3 && sockets[0].size() >= 2 && sockets[1].size() >= 2;
}

/// Several nodes' ranks, node by node, where every node holds the same
/// number and no two of a node's GPUs have NVLink between them; empty
/// otherwise.
std::vector<std::vector<int>> pcieNodes(const Machine &m, llvm::ArrayRef<int> ranks) {
  std::map<int, std::vector<int>> byNode;
  for (int r : ranks)
    byNode[m.nodeOf(r)].push_back(r);
  std::vector<std::vector<int>> nodes;
  for (auto &[node, gpus] : byNode)
    nodes.push_back(gpus);
  bool alike = llvm::all_of(nodes, [&](auto &gpus) { return gpus.size() == nodes[0].size(); });
  bool pcie = llvm::none_of(nodes[0], [&](int a) {
    return llvm::any_of(nodes[0], [&](int b) {
      return a != b && m.routeKind(a, b) == LinkKind::NvLink;
    });
  });
  if (nodes.size() < 2 || !alike || !pcie || nodes[0].size() < 2)
    return {};
  return nodes;
}

/// The rings of NodeCrossing::LeastLoaded (`bySocket` false: node by node,
/// on an even number of nodes; node k entered at local GPU a and left from
/// b for even k, the other way for odd k, so that every crossing stays on
/// one rail) or BySocket (one socket of every node in turn, across the
/// sockets' link at the last node, the other socket of every node back, and
/// across at the first; channel c starts at node c) over `nodes`. For each
/// channel the entry and exit GPUs whose ring, on top of the channels
/// before, loads the busiest link least. Empty where the crossing does not
/// apply.
std::vector<std::vector<int>> leastLoadedRings(const Machine &m,
                                               const std::vector<std::vector<int>> &nodes,
                                               int count, bool bySocket) {
  int numNodes = nodes.size(), g = nodes[0].size();
  std::array<std::vector<int>, 2> sockets = socketsOf(m, nodes[0]);
  if (bySocket ? !bySocketApplies(numNodes, sockets) : numNodes % 2 != 0)
    return {};
  std::vector<int> everyGpu(g);
  std::iota(everyGpu.begin(), everyGpu.end(), 0);
  // A node's local GPUs (nodes alike share their paths, shifted).
  auto local = [&](int k) {
    std::vector<int> gpus;
    for (int r : nodes[k])
      gpus.push_back(r - m.nodeOf(r) * m.gpusPerNode);
    return gpus;
  };
  // The path through the GPUs at positions `part` of node k from position
  // a to b, as world ranks.
  std::map<std::tuple<std::vector<int>, std::vector<int>, int, int>, std::vector<int>> paths;
  auto path = [&](int k, const std::vector<int> &part, int a, int b) {
    auto [it, fresh] = paths.try_emplace({local(k), part, a, b});
    if (fresh) {
      std::vector<int> gpus;
      for (int i : part)
        gpus.push_back(nodes[k][i]);
      for (int r : leastLoadedPath(m, gpus, nodes[k][a], nodes[k][b]))
        it->second.push_back(r - m.nodeOf(r) * m.gpusPerNode);
    }
    std::vector<int> ranks;
    for (int l : it->second)
      ranks.push_back(l + m.nodeOf(nodes[k][0]) * m.gpusPerNode);
    return ranks;
  };
  // Every candidate ring of channel c.
  auto candidates = [&](int c, auto take) {
    if (!bySocket) {
      for (int a = 0; a < g; ++a)
        for (int b = 0; b < g; ++b)
          if (a != b) {
            std::vector<int> ring;
            for (int k = 0; k < numNodes; ++k)
              llvm::append_range(ring, path(k, everyGpu, k % 2 ? b : a, k % 2 ? a : b));
            take(ring);
          }
      return;
    }
    // Node k of the channel's order; x[k] (y[k]) the GPU of the first
    // (second) socket between its visits to nodes k-1 and k.
    auto node = [&](int k) { return (c + k) % numNodes; };
    const std::vector<int> &first = sockets[0], &second = sockets[1];
    for (int a1 : first)
      for (int a2 : first)
        for (int b1 : second)
          for (int b2 : second) {
            if (a1 == a2 || b1 == b2)
              continue;
            auto x = [&](int k) { return k % 2 ? a1 : a2; };
            auto y = [&](int k) { return k % 2 ? b1 : b2; };
            int last = numNodes - 1;
            std::vector<int> ring = path(node(0), everyGpu, y(1), x(1));
            for (int k = 1; k < last; ++k)
              llvm::append_range(ring, path(node(k), first, x(k), x(k + 1)));
            llvm::append_range(ring, path(node(last), everyGpu, x(last), y(last)));
            for (int k = last - 1; k >= 1; --k)
              llvm::append_range(ring, path(node(k), second, y(k + 1), y(k)));
            take(ring);
          }
  };
  std::vector<std::vector<int>> rings;
  Loads total;
  Congestion now;
  for (int c = 0; c < count && c < g; ++c) {
    std::vector<int> best;
    Loads bestLoads;
    Congestion bestCongestion{1e300, 1e300};
    candidates(c, [&](const std::vector<int> &ring) {
      Loads loads;
      for (size_t i = 0; i < ring.size(); ++i)
        addHop(m, ring[i], ring[(i + 1) % ring.size()], loads);
      Congestion congestion = now.with(total, loads);
      if (congestion < bestCongestion)
        best = ring, bestLoads = loads, bestCongestion = congestion;
    });
    for (auto [l, load] : bestLoads)
      total[l] += load;
    now = bestCongestion;
    rings.push_back(best);
  }
  return rings;
}

} // namespace

std::vector<std::vector<int>> ccopt::topo::ringOrders(const Machine &machine,
                                                      llvm::ArrayRef<int> ranks,
                                                      int count, NodeCrossing crossing) {
  std::map<int, std::vector<int>> byNode;
  for (int r : ranks)
    byNode[machine.nodeOf(r)].push_back(r);
  if (byNode.size() == 1) {
    auto rings = disjointNvLinkRings(machine, ranks, count);
    if (rings.size() > 1)
      return rings;
    return {bestRingOrder(machine, ranks)};
  }
  if (crossing != NodeCrossing::SameRail) {
    bool bySocket = crossing == NodeCrossing::BySocket;
    auto [it, fresh] = machine.crossingRingsMemo.try_emplace({ranks.vec(), count, bySocket});
    if (fresh)
      if (std::vector<std::vector<int>> nodes = pcieNodes(machine, ranks); !nodes.empty())
        it->second = leastLoadedRings(machine, nodes, count, bySocket);
    if (!it->second.empty())
      return it->second;
  }
  // Several nodes: channel c enters node k at local GPU (c + k) and leaves
  // it from local GPU (c + k + 1), where it enters node k+1: every crossing
  // stays on one rail (GPU i's NIC to GPU i's NIC), and the channels rotate
  // over the rails. Inside a node the ring follows the node's best order.
  std::vector<std::vector<int>> rings;
  int numNodes = byNode.size();
  size_t perNode = byNode.begin()->second.size();
  for (int c = 0; c < count && c < static_cast<int>(perNode); ++c) {
    std::vector<int> ring;
    int k = 0;
    for (auto &[node, gpus] : byNode) {
      int g = gpus.size();
      int enter = gpus[(c + k) % g];
      int leave = gpus[(c + (k + 1) % numNodes) % g];
      // The fastest path through the node from `enter` to `leave`.
      std::vector<int> members = {enter};
      for (int gpu : gpus)
        if (gpu != enter)
          members.push_back(gpu);
      llvm::append_range(ring, RingSearch(machine, members, /*closed=*/false,
                                          leave == enter ? -1 : leave)
                                   .run());
      ++k;
    }
    rings.push_back(ring);
  }
  return rings;
}

bool ccopt::topo::socketRingsApply(const Machine &machine, llvm::ArrayRef<int> ranks) {
  std::vector<std::vector<int>> nodes = pcieNodes(machine, ranks);
  return !nodes.empty() && bySocketApplies(nodes.size(), socketsOf(machine, nodes[0]));
}
