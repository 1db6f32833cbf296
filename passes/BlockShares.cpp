//===- BlockShares.cpp - algorithms side by side on shares of every block -===//
//
// Every algorithm of a reduce-scatter or all-gather over several nodes
// loads NVLink and the NICs in a fixed ratio: the flat ring sends twice the
// hierarchical one's bytes over the NICs, the hierarchical one more over
// NVLink. Where the machine's ratio lies between, each is bound by one
// kind of link while the other idles part of the time. Run side by side,
// each on its own channels and on its own share of every block, they load
// both (h100x8 x2 1 GiB reduce-scatter: ring 2696 us, hierarchical 2635,
// ring on 4/5 of every block and hierarchical on 1/5 2564).
//
// The programs are built as usual and merged. A buffer of nb blocks that a
// program cuts into K = nb * P parts holds piece j = e mod P of block
// e floordiv P in its part e; in the merged program that piece is the same
// piece of the program's share [lo/W, (lo + w)/W) of the block, which is
// part (e floordiv P) * G + lo*P/w + j of nb' * G with G = W*P/w (nb' the
// merged buffer's blocks: scratch takes the most either program takes).
//
//===----------------------------------------------------------------------===//

#include "passes/Algorithms.h"

#include "mlir/IR/AttrTypeSubElements.h"

using namespace mlir;
using namespace mlir::sched;

namespace {

/// Rewrites a program's parts onto its share of every block.
class ShareRemap {
public:
  ShareRemap(int64_t lo, int64_t w, int64_t W, std::array<int64_t, 3> blocksBefore,
             std::array<int64_t, 3> blocksAfter)
      : lo(lo), w(w), W(W), before(blocksBefore), after(blocksAfter) {}

  /// The part on the share, or null where it cannot be one part of it.
  PartAttr operator()(PartAttr part) const {
    int kind = static_cast<int>(part.getBuffer());
    int64_t nb = before[kind], K = part.getParts();
    if (nb == 0 || K % nb)
      return {};
    int64_t P = K / nb;
    if ((W * P) % w || (lo * P) % w)
      return {};
    int64_t G = W * P / w, offset = lo * P / w;
    AffineMap map = part.getIndex();
    AffineExpr e = map.getResult(0);
    AffineExpr index = P == K ? e + offset : e.floorDiv(P) * G + offset + e % P;
    return PartAttr::get(part.getContext(), part.getBuffer(),
                         AffineMap::get(map.getNumDims(), map.getNumSymbols(), index),
                         after[kind] * G);
  }

private:
  int64_t lo, w, W;
  std::array<int64_t, 3> before, after;
};

/// Blocks of each buffer (indexed by BufferKind) of `program`, 0 where its
/// count is not whole blocks.
std::array<int64_t, 3> blocksOf(ProgramOp program, int64_t block) {
  std::array<int64_t, 3> blocks{};
  auto set = [&](BufferKind kind, int64_t count) {
    blocks[static_cast<int>(kind)] = count % block ? 0 : count / block;
  };
  set(BufferKind::Input, program.getInputCount());
  set(BufferKind::Output, program.getOutputCount());
  set(BufferKind::Scratch, program.getScratchCount());
  return blocks;
}

} // namespace

FailureOr<ProgramOp> ccopt::buildOnBlockShares(OpBuilder &b, Location loc, StringRef name,
                                               ArrayRef<ProgramOp> programs,
                                               ArrayRef<int64_t> weights, int64_t block,
                                               std::string &why) {
  assert(!programs.empty() && programs.size() == weights.size() && block > 0);
  ProgramOp first = programs.front();
  int64_t W = 0, channels = 0, scratchBlocks = 0;
  std::string algorithm;
  for (auto [one, weight] : llvm::zip(programs, weights)) {
    ProgramOp program = one;
    if (weight <= 0) {
      why = "every share needs a positive weight";
      return failure();
    }
    if (program.getRankMap() != first.getRankMap() || program.getWire() != first.getWire() ||
        program.getProtocol() != first.getProtocol()) {
      why = "the programs differ in rank map, wire or protocol";
      return failure();
    }
    if (program.getScratchCount() % block) {
      why = "a program's scratch is not whole blocks";
      return failure();
    }
    W += weight;
    channels += program.getChannels();
    scratchBlocks = std::max<int64_t>(scratchBlocks, program.getScratchCount() / block);
    algorithm += (algorithm.empty() ? "" : "+") + program.getAlgorithm().str();
  }
  auto merged = cast<ProgramOp>(b.insert(first->cloneWithoutRegions()));
  merged.setSymName(name);
  merged.setAlgorithm(algorithm);
  merged.setChannels(channels);
  merged.setScratchCount(scratchBlocks * block);
  Block &body = merged.getBody().emplaceBlock();
  std::array<int64_t, 3> after = blocksOf(merged, block);
  int64_t lo = 0, channel = 0;
  for (auto [one, weight] : llvm::zip(programs, weights)) {
    ProgramOp program = one;
    ShareRemap remap(lo, weight, W, blocksOf(program, block), after);
    bool representable = true;
    AttrTypeReplacer replacer;
    replacer.addReplacement([&](PartAttr part) -> std::optional<Attribute> {
      PartAttr moved = remap(part);
      representable &= bool(moved);
      return moved ? Attribute(moved) : Attribute(part);
    });
    for (TaskOp task : program.getBody().front().getOps<TaskOp>()) {
      auto copy = cast<TaskOp>(task->clone());
      copy.setChannel(copy.getChannel() + channel);
      replacer.recursivelyReplaceElementsIn(copy);
      body.push_back(copy);
    }
    if (!representable) {
      merged.erase();
      why = "the " + program.getAlgorithm().str() + " program's share (" +
            std::to_string(weight) + "/" + std::to_string(W) +
            " of every block) cannot hold its pieces as whole parts (its pieces per "
            "block, channels x chunks for a ring, must make a multiple of " +
            std::to_string(weight) + ")";
      return failure();
    }
    lo += weight;
    channel += program.getChannels();
  }
  return merged;
}
