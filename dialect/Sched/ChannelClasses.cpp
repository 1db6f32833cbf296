//===- ChannelClasses.cpp - channels that run alike -----------------------===//

#include "dialect/Sched/ChannelClasses.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <map>
#include <numeric>

using namespace mlir;
using namespace mlir::sched;

namespace {

/// Ops of a task body in order, with loop bounds and peers: its shape, as
/// the uniqued names and attributes (alike ops give alike words). `peer`
/// writes each peer map (every affine map of a step is one).
using Shape = ChannelShapes::Shape;
void appendShape(Block &block, Shape &shape,
                 llvm::function_ref<void(AffineMapAttr)> peer) {
  walkStepShape(
      block, [&](uintptr_t word) { shape.push_back(word); },
      [&](Operation *, Attribute value) {
        if (auto map = dyn_cast_if_present<AffineMapAttr>(value))
          return peer(map);
        shape.push_back(value && !isa<PartAttr>(value)
                            ? reinterpret_cast<uintptr_t>(value.getAsOpaquePointer())
                            : 0);
      });
}

} // namespace

ChannelShapes::ChannelShapes(ProgramOp program)
    : channels(program.getChannels()), ranks(program.getRanks()) {
  for (TaskOp task : program.getBody().front().getOps<TaskOp>()) {
    Task &t = tasks.emplace_back();
    t.channel = task.getChannel();
    t.rank = task.getRank();
    appendShape(task.getBody().front(), t.words, [&](AffineMapAttr map) {
      // The peer as a word, and the schedule rank it names where constant.
      t.words.push_back(reinterpret_cast<uintptr_t>(map.getAsOpaquePointer()));
      auto position = dyn_cast<AffineConstantExpr>(map.getValue().getResult(0));
      bool named = position && position.getValue() >= 0 && position.getValue() < ranks;
      t.peers.push_back({t.words.size() - 1,
                         named ? task.scheduleRank(position.getValue()) : -1});
    });
    if (auto map = task.getRankMap())
      t.rankMap.assign(map->begin(), map->end());
  }
}

std::vector<int64_t> ChannelShapes::representatives() const {
  std::vector<int64_t> alone(channels);
  std::iota(alone.begin(), alone.end(), 0);
  // Channels fold when each runs one parametric task, or the same per-rank
  // tasks (a chain); they are alike when their tasks have the same ranks,
  // shapes and rank order.
  std::vector<Shape> keys(channels);
  std::vector<int> count(channels, 0);
  std::vector<bool> parametric(channels, false);
  for (const Task &t : tasks) {
    int64_t ch = t.channel;
    if (++count[ch] > 1 && (!t.rank || parametric[ch]))
      return alone;
    parametric[ch] = !t.rank;
    Shape &key = keys[ch];
    key.push_back(t.rank ? *t.rank + 3 : 0);
    llvm::append_range(key, t.words);
    llvm::append_range(key, t.rankMap);
    key.push_back(~uintptr_t(0)); // the task's end
  }
  std::map<Shape, int64_t> firstWith;
  std::vector<int64_t> representative(channels);
  for (int64_t ch = 0; ch < channels; ++ch) {
    if (count[ch] == 0)
      return alone;
    representative[ch] = firstWith.try_emplace(keys[ch], ch).first->second;
  }
  return representative;
}

std::vector<std::pair<int64_t, int64_t>> ChannelShapes::classes() const {
  std::map<int64_t, int64_t> replicas;
  for (int64_t representative : representatives())
    ++replicas[representative];
  return {replicas.begin(), replicas.end()};
}

std::vector<int64_t> mlir::sched::channelRepresentatives(ProgramOp program) {
  return ChannelShapes(program).representatives();
}

std::vector<std::pair<int64_t, int64_t>>
mlir::sched::channelClasses(ProgramOp program) {
  return ChannelShapes(program).classes();
}

bool mlir::sched::hasSymmetricChannels(ProgramOp program) {
  return channelClasses(program).size() == 1;
}

std::optional<ImageClasses>
ChannelShapes::images(ArrayRef<std::pair<int64_t, int64_t>> classes,
                      ArrayRef<std::vector<int64_t>> permutations) const {
  int64_t n = ranks;
  if (classes.size() < 2 || permutations.empty())
    return std::nullopt;
  // Per-rank tasks whose peers are constants (trees), by channel.
  std::vector<std::vector<const Task *>> byChannel(channels);
  for (const Task &t : tasks) {
    if (!t.rank || llvm::any_of(t.peers, [](auto &p) { return p.second < 0; }))
      return std::nullopt;
    byChannel[t.channel].push_back(&t);
  }
  // A channel's tasks with every rank r renamed perm[r], in rank order.
  auto key = [&](int64_t ch, ArrayRef<int64_t> perm) {
    std::vector<std::pair<int64_t, const Task *>> byRank;
    for (const Task *t : byChannel[ch])
      byRank.push_back({perm[*t->rank], t});
    llvm::sort(byRank, [](auto &a, auto &b) { return a.first < b.first; });
    Shape key;
    for (auto [rank, t] : byRank) {
      key.push_back(rank);
      size_t start = key.size();
      llvm::append_range(key, t->words);
      for (auto [word, peer] : t->peers) // (rank maps are in the peers)
        key[start + word] = perm[peer];
      key.push_back(~uintptr_t(0));
    }
    return key;
  };
  std::vector<int64_t> identity(n);
  std::iota(identity.begin(), identity.end(), 0);
  std::map<Shape, size_t> classWith;
  for (auto [i, c] : llvm::enumerate(classes))
    classWith.try_emplace(key(c.first, identity), i);
  // The permutations that carry each class onto another (none onto itself)
  // of as many channels, and what they carry it to.
  ImageClasses result;
  std::vector<std::vector<size_t>> images;
  // Permutation a after permutation b.
  auto compose = [&](size_t a, size_t b) {
    std::vector<int64_t> ab(n);
    for (int64_t r = 0; r < n; ++r)
      ab[r] = permutations[a][permutations[b][r]];
    return ab;
  };
  for (auto [p, perm] : llvm::enumerate(permutations)) {
    if (static_cast<int64_t>(perm.size()) != n)
      return std::nullopt;
    std::vector<size_t> image;
    // One that composes two found ones carries the classes as they do
    // (xor 3 is xor 1 after xor 2): no keys to build.
    for (size_t a = 0; a < images.size() && image.empty(); ++a)
      for (size_t b = 0; b < images.size() && image.empty(); ++b)
        if (compose(result.permutations[a], result.permutations[b]) == perm)
          for (size_t i = 0; i < classes.size(); ++i)
            image.push_back(images[a][images[b][i]]);
    if (!image.empty() && llvm::all_of(llvm::seq<size_t>(0, classes.size()),
                                       [&](size_t i) { return image[i] != i; })) {
      result.permutations.push_back(p);
      images.push_back(std::move(image));
      continue;
    }
    image.clear();
    for (auto [i, c] : llvm::enumerate(classes)) {
      auto it = classWith.find(key(c.first, perm));
      if (it == classWith.end() || it->second == i ||
          classes[it->second].second != c.second)
        break;
      image.push_back(it->second);
    }
    if (image.size() == classes.size()) {
      result.permutations.push_back(p);
      images.push_back(std::move(image));
    }
  }
  // They and the identity must be a group, so that every class stands for
  // its images under all of them alike; no class maps onto itself, so each
  // has as many images.
  for (size_t a : result.permutations)
    for (size_t b : result.permutations) {
      std::vector<int64_t> ab = compose(a, b);
      if (ab != identity && llvm::none_of(result.permutations, [&](size_t c) {
            return permutations[c] == ab;
          }))
        return std::nullopt;
    }
  if (result.permutations.empty())
    return std::nullopt;
  // Per class, the class it is an image of (itself where it stands for
  // others) and under which permutation.
  std::vector<std::pair<size_t, int64_t>> sourceOf(classes.size(), {0, -1});
  std::vector<bool> covered(classes.size(), false);
  for (auto [i, c] : llvm::enumerate(classes)) {
    if (covered[i])
      continue;
    sourceOf[i] = {i, -1};
    for (auto [image, p] : llvm::zip(images, result.permutations)) {
      covered[image[i]] = true;
      sourceOf[image[i]] = {i, int64_t(p)};
    }
    result.classes.push_back({c.first, c.second * int64_t(images.size() + 1)});
  }
  std::map<int64_t, size_t> classOf; // by representative channel
  for (auto [i, c] : llvm::enumerate(classes))
    classOf[c.first] = i;
  for (int64_t representative : representatives()) {
    auto [source, permutation] = sourceOf[classOf.at(representative)];
    result.sources.push_back({classes[source].first, permutation});
  }
  return result;
}
