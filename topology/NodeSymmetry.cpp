//===- NodeSymmetry.cpp - GPU renumberings a machine looks the same under -===//

#include "topology/NodeSymmetry.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <deque>
#include <map>

using namespace ccopt::topo;

namespace {

/// Whether `v` holds 0 .. v.size() - 1, each once.
bool isPermutation(std::vector<int> v) {
  llvm::sort(v);
  for (int i = 0, e = v.size(); i < e; ++i)
    if (v[i] != i)
      return false;
  return true;
}

std::vector<NodeSymmetry> findXorSymmetries(const Machine &machine) {
  int G = machine.gpusPerNode;
  const std::vector<Device> &devices = machine.devices();
  const std::vector<Link> &links = machine.links();
  int numDevices = devices.size();
  if (G < 2 || !llvm::isPowerOf2_32(G) || machine.ranks() != machine.nodes * G)
    return {};
  // replicate()'s layout: node k's devices at k * perNode + i, alike to node
  // 0's; the network's (node -1) after them.
  int perNode = llvm::count_if(devices, [](const Device &d) { return d.node == 0; });
  for (int d = 0; d < numDevices; ++d) {
    const Device &device = devices[d];
    bool inNode = d < machine.nodes * perNode;
    if (inNode ? device.node != d / perNode || device.kind != devices[d % perNode].kind
               : device.node >= 0)
      return {};
  }
  // A device of node 0 or of the network is told apart by its kind and its
  // hop distances to node 0's GPUs.
  std::vector<std::vector<int>> hops(numDevices, std::vector<int>(G, -1));
  for (int g = 0; g < G; ++g) {
    std::deque<int> queue{machine.gpuDevice(g)};
    hops[queue.front()][g] = 0;
    while (!queue.empty()) {
      int d = queue.front();
      queue.pop_front();
      for (int l : machine.outLinks(d))
        if (int to = links[l].to; hops[to][g] < 0) {
          hops[to][g] = hops[d][g] + 1;
          queue.push_back(to);
        }
    }
  }
  using Signature = std::pair<DeviceKind, std::vector<int>>;
  std::map<Signature, std::vector<int>> bySignature;
  auto outsideNodes = [&](int d) { return devices[d].node <= 0; };
  for (int d = 0; d < numDevices; ++d)
    if (outsideNodes(d))
      bySignature[{devices[d].kind, hops[d]}].push_back(d);
  std::map<std::pair<int, int>, int> byEnds;
  for (int l = 0, e = links.size(); l < e; ++l)
    byEnds.try_emplace({links[l].from, links[l].to}, l);

  std::vector<NodeSymmetry> symmetries;
  for (int m = 1; m < G; ++m) {
    // Each device's image: the one whose distances are its own with GPU l
    // renamed l xor m (itself among equals: a spine stays where it is).
    std::vector<int> image(numDevices, -1);
    bool ok = true;
    for (int d = 0; d < numDevices && ok; ++d) {
      if (!outsideNodes(d)) {
        image[d] = image[d % perNode] + d / perNode * perNode;
        continue;
      }
      std::vector<int> renamed(G);
      for (int g = 0; g < G; ++g)
        renamed[g ^ m] = hops[d][g];
      auto it = bySignature.find({devices[d].kind, renamed});
      ok = it != bySignature.end() &&
           (it->second.size() == 1 || llvm::is_contained(it->second, d));
      if (ok)
        image[d] = it->second.size() == 1 ? it->second.front() : d;
      ok = ok && devices[image[d]].node == devices[d].node;
    }
    NodeSymmetry symmetry;
    for (int r = 0; r < machine.ranks() && ok; ++r) {
      int to = r - r % G + (r % G ^ m);
      ok = image[machine.gpuDevice(r)] == machine.gpuDevice(to);
      symmetry.ranks.push_back(to);
    }
    // A bijection of the devices that carries every link onto a link of the
    // same kind and figures.
    ok = ok && isPermutation(image);
    for (const Link &link : links) {
      if (!ok)
        break;
      auto it = byEnds.find({image[link.from], image[link.to]});
      ok = it != byEnds.end();
      if (ok) {
        const Link &twin = links[it->second];
        ok = twin.kind == link.kind && twin.bandwidth == link.bandwidth &&
             twin.latencyUs == link.latencyUs;
        symmetry.links.push_back(it->second);
      }
    }
    ok = ok && isPermutation(symmetry.links);
    if (ok)
      symmetries.push_back(std::move(symmetry));
  }
  return symmetries;
}

} // namespace

const std::vector<NodeSymmetry> &ccopt::topo::xorSymmetries(const Machine &machine) {
  if (!machine.xorSymmetryMemo)
    machine.xorSymmetryMemo =
        std::make_shared<const std::vector<NodeSymmetry>>(findXorSymmetries(machine));
  return *machine.xorSymmetryMemo;
}
