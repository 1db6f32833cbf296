//===- Rings.cpp - ring orders that follow the machine's links ------------===//

#include "topology/Rings.h"

#include "llvm/ADT/STLExtras.h"

#include <map>

using namespace ccopt::topo;

namespace {

/// Depth-first search over orders of `gpus` (first one fixed), keeping the
/// order whose slowest hop (including the hop back to the start, when
/// `closed`) is fastest; ties go to the larger sum of hop bandwidths.
class RingSearch {
public:
  RingSearch(const Machine &m, std::vector<int> gpus, bool closed)
      : m(m), gpus(std::move(gpus)), closed(closed) {}

  std::vector<int> run() {
    if (gpus.size() <= 2 || gpus.size() > 10)
      return gpus;
    std::vector<int> order = {gpus[0]};
    std::vector<bool> used(gpus.size(), false);
    used[0] = true;
    visit(order, used, 1e300, 0);
    return best;
  }

private:
  void visit(std::vector<int> &order, std::vector<bool> &used, double slowest,
             double sum) {
    if (slowest < bestSlowest)
      return; // cannot beat the best any more
    if (order.size() == gpus.size()) {
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
      if (used[i])
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
