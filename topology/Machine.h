//===- Machine.h - the machine a program is compiled for ----------*- C++ -*-===//
//
// The machine sets the world: a program runs on every GPU of it unless it
// names a smaller world. This is the spine's view of a machine (its size);
// links, bandwidths and the simulator grow here.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_TOPOLOGY_MACHINE_H
#define CCOPT_TOPOLOGY_MACHINE_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace ccopt::topo {

struct Machine {
  std::string name;
  int gpusPerNode = 0;
  int nodes = 1;

  int ranks() const { return gpusPerNode * nodes; }
};

/// The preset called `name` replicated over `nodes` nodes, or std::nullopt.
std::optional<Machine> lookupPreset(llvm::StringRef name, int nodes = 1);

/// Names of all presets, for help texts and errors.
std::vector<std::string> presetNames();

} // namespace ccopt::topo

#endif
