//===- ChannelClasses.cpp - channels that run alike -----------------------===//

#include "dialect/Sched/ChannelClasses.h"

#include <map>
#include <numeric>

using namespace mlir;
using namespace mlir::sched;

namespace {

/// Ops of a task body in order, with loop bounds and peers: its shape, as
/// the uniqued names and attributes (alike ops give alike words).
using Shape = std::vector<uintptr_t>;
void appendShape(Block &block, Shape &shape) {
  auto word = [](const void *p) { return reinterpret_cast<uintptr_t>(p); };
  for (Operation &op : block) {
    shape.push_back(word(op.getName().getAsOpaquePointer()));
    auto add = [&](Attribute value) {
      shape.push_back(value && !isa<PartAttr>(value) ? word(value.getAsOpaquePointer())
                                                     : 0);
    };
    // Inherent attributes one by one (getAttrs() would build a dictionary).
    if (std::optional<RegisteredOperationName> info = op.getRegisteredInfo())
      for (StringAttr name : info->getAttributeNames())
        add(op.getInherentAttr(name).value_or(Attribute()));
    for (NamedAttribute attr : op.getDiscardableAttrs()) {
      shape.push_back(word(attr.getName().getAsOpaquePointer()));
      add(attr.getValue());
    }
    for (Region &region : op.getRegions()) {
      shape.push_back(1); // nesting brackets
      appendShape(region.front(), shape);
      shape.push_back(2);
    }
  }
}

} // namespace

std::vector<int64_t> mlir::sched::channelRepresentatives(ProgramOp program) {
  int64_t channels = program.getChannels();
  std::vector<int64_t> alone(channels);
  std::iota(alone.begin(), alone.end(), 0);
  // Channels fold when each runs one parametric task, or the same per-rank
  // tasks (a chain); they are alike when their tasks have the same ranks,
  // shapes and rank order.
  std::vector<Shape> keys(channels);
  std::vector<int> tasks(channels, 0);
  std::vector<bool> parametric(channels, false);
  for (auto task : program.getBody().front().getOps<TaskOp>()) {
    int64_t ch = task.getChannel();
    std::optional<uint64_t> rank = task.getRank();
    if (++tasks[ch] > 1 && (!rank || parametric[ch]))
      return alone;
    parametric[ch] = !rank;
    Shape &key = keys[ch];
    key.push_back(rank ? *rank + 3 : 0);
    appendShape(task.getBody().front(), key);
    if (auto map = task.getRankMap())
      llvm::append_range(key, *map);
    key.push_back(~uintptr_t(0)); // the task's end
  }
  std::map<Shape, int64_t> firstWith;
  std::vector<int64_t> representative(channels);
  for (int64_t ch = 0; ch < channels; ++ch) {
    if (tasks[ch] == 0)
      return alone;
    representative[ch] = firstWith.try_emplace(keys[ch], ch).first->second;
  }
  return representative;
}

std::vector<std::pair<int64_t, int64_t>>
mlir::sched::channelClasses(ProgramOp program) {
  std::map<int64_t, int64_t> replicas;
  for (int64_t representative : channelRepresentatives(program))
    ++replicas[representative];
  return {replicas.begin(), replicas.end()};
}

bool mlir::sched::hasSymmetricChannels(ProgramOp program) {
  return channelClasses(program).size() == 1;
}
