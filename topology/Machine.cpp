//===- Machine.cpp - machine presets --------------------------------------===//

#include "topology/Machine.h"


using namespace ccopt::topo;

namespace {

struct Preset {
  const char *name;
  int gpusPerNode;
};

// DGX/HGX A100: 8 GPUs on NVSwitch (NVIDIA A100 Tensor Core GPU Architecture
// whitepaper, 2020).
constexpr Preset kPresets[] = {{"a100x8", 8}};

} // namespace

std::optional<Machine> ccopt::topo::lookupPreset(llvm::StringRef name,
                                                 int nodes) {
  if (nodes < 1)
    return std::nullopt;
  for (const Preset &preset : kPresets)
    if (name == preset.name)
      return Machine{preset.name, preset.gpusPerNode, nodes};
  return std::nullopt;
}

std::vector<std::string> ccopt::topo::presetNames() {
  std::vector<std::string> names;
  for (const Preset &preset : kPresets)
    names.push_back(preset.name);
  return names;
}
