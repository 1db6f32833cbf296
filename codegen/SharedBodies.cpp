//===- SharedBodies.cpp - tasks that share one kernel body ----------------===//

#include "codegen/SharedBodies.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace mlir;
using namespace mlir::sched;

AffineMap ccopt::partMap(PartAttr part) {
  return part.getIndex().insertResult(
      getAffineConstantExpr(part.getParts(), part.getContext()), 1);
}

AffineMap ccopt::loopBounds(LoopOp loop) {
  MLIRContext *ctx = loop.getContext();
  return AffineMap::get(0, 0,
                        {getAffineConstantExpr(loop.getLower(), ctx),
                         getAffineConstantExpr(loop.getUpper(), ctx)},
                        ctx);
}

namespace {

/// `expr` with each constant, left to right, replaced by `constant(value)`.
AffineExpr rewriteConstants(AffineExpr expr,
                            function_ref<AffineExpr(int64_t)> constant) {
  if (auto value = dyn_cast<AffineConstantExpr>(expr))
    return constant(value.getValue());
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return expr;
  AffineExpr lhs = rewriteConstants(bin.getLHS(), constant);
  AffineExpr rhs = rewriteConstants(bin.getRHS(), constant);
  return getAffineBinaryOpExpr(expr.getKind(), lhs, rhs);
}

/// The terms of a sum (`expr` itself if it is none) other than constants,
/// in order, and the constants' total.
void splitOffset(AffineExpr expr, SmallVectorImpl<AffineExpr> &terms, int64_t &offset) {
  if (auto value = dyn_cast<AffineConstantExpr>(expr)) {
    offset += value.getValue();
    return;
  }
  auto sum = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!sum || sum.getKind() != AffineExprKind::Add) {
    terms.push_back(expr);
    return;
  }
  splitOffset(sum.getLHS(), terms, offset);
  splitOffset(sum.getRHS(), terms, offset);
}

/// `map` with each constant, left to right, replaced by `constant(value)`,
/// over `symbols` symbols (or as many as it uses).
AffineMap rewriteConstants(AffineMap map, std::optional<unsigned> symbols,
                           function_ref<AffineExpr(int64_t)> constant) {
  SmallVector<AffineExpr> results;
  unsigned used = 0;
  for (AffineExpr result : map.getResults()) {
    // Each result is read as its terms plus one offset c, even where c is
    // 0 (`d1` on one channel is `d1 + 4` on the next) or sits inside a
    // term's sum (`x + (d1 + 4)`), so that tasks differ only in c.
    SmallVector<AffineExpr, 4> terms;
    int64_t offset = 0;
    splitOffset(result, terms, offset);
    AffineExpr rewritten;
    for (AffineExpr term : terms) {
      AffineExpr next = rewriteConstants(term, constant);
      rewritten = rewritten ? getAffineBinaryOpExpr(AffineExprKind::Add, rewritten, next)
                            : next;
    }
    AffineExpr c = constant(offset);
    results.push_back(rewritten ? getAffineBinaryOpExpr(AffineExprKind::Add, rewritten, c)
                                : c);
    results.back().walk([&](AffineExpr e) {
      if (auto symbol = dyn_cast<AffineSymbolExpr>(e))
        used = std::max(used, symbol.getPosition() + 1);
    });
  }
  return AffineMap::get(map.getNumDims(), symbols.value_or(used), results,
                        map.getContext());
}

using Word = uintptr_t;
Word word(const void *pointer) { return reinterpret_cast<Word>(pointer); }

/// Walks a task body in order: `shape` gets the words of what must match
/// (steps, loops, buffers, which attributes of a step repeat), `onMap` each
/// affine map with its step and attribute: a peer; a part's index and
/// parts (two results); a loop's bounds (two constants), so that channels
/// that cut their shares in different numbers of pieces share a body.
void walkBody(Block &block, function_ref<void(Word)> shape,
              function_ref<void(Operation *, Attribute, AffineMap)> onMap) {
  Operation *step = nullptr;
  SmallVector<Attribute, 8> seen; // the step's attributes so far
  walkStepShape(block, shape, [&](Operation *op, Attribute value) {
    if (auto loop = dyn_cast<LoopOp>(op)) {
      // Its bounds as one map (lower, upper), keyed by the upper bound:
      // the two may be one attribute (a loop that never runs).
      if (op == step)
        return;
      step = op;
      return onMap(op, loop.getUpperAttr(), ccopt::loopBounds(loop));
    }
    if (op != step) {
      step = op;
      seen.clear();
    }
    // The printed task's maps are keyed by attribute: a step that names
    // one part twice must do so in every task of its group.
    shape(llvm::find(seen, value) - seen.begin());
    seen.push_back(value);
    if (auto map = dyn_cast_if_present<AffineMapAttr>(value))
      return onMap(op, value, map.getValue());
    if (auto part = dyn_cast_if_present<PartAttr>(value)) {
      shape(static_cast<Word>(part.getBuffer()));
      return onMap(op, value, ccopt::partMap(part));
    }
    shape(value ? word(value.getAsOpaquePointer()) : 0);
  });
}

/// A map with every constant a symbol, and its constants.
struct Abstract {
  AffineMap map;
  SmallVector<int64_t, 4> constants;
};

/// Tasks' shapes (their maps with every constant a symbol) and constants;
/// each map abstracted once (a program's tasks share few maps).
class Shapes {
public:
  std::pair<std::vector<Word>, std::vector<int64_t>> of(TaskOp task) {
    std::vector<Word> shape;
    std::vector<int64_t> constants;
    walkBody(
        task.getBody().front(), [&](Word w) { shape.push_back(w); },
        [&](Operation *, Attribute, AffineMap map) {
          const Abstract &abstract = abstractOf(map);
          shape.push_back(word(abstract.map.getAsOpaquePointer()));
          llvm::append_range(constants, abstract.constants);
        });
    return {std::move(shape), std::move(constants)};
  }

private:
  const Abstract &abstractOf(AffineMap map) {
    auto [it, fresh] = abstracts.try_emplace(map);
    if (fresh) {
      Abstract &abstract = it->second;
      unsigned symbols = 0;
      abstract.map = rewriteConstants(map, std::nullopt, [&](int64_t value) {
        abstract.constants.push_back(value);
        return getAffineSymbolExpr(symbols++, map.getContext());
      });
    }
    return it->second;
  }
  llvm::DenseMap<AffineMap, Abstract> abstracts;
};

} // namespace

std::vector<ccopt::SharedBody> ccopt::sharedBodies(ProgramOp program) {
  int64_t ranks = program.getRanks();
  auto tasks = program.getBody().front().getOps<TaskOp>();
  std::vector<int> runs(program.getChannels() * ranks, 0);
  for (TaskOp task : tasks) {
    int64_t first = task.getChannel() * ranks;
    if (auto rank = task.getRank())
      ++runs[first + *rank];
    else
      for (int64_t r = 0; r < ranks; ++r)
        ++runs[first + r];
  }
  Shapes shapes;
  std::map<std::vector<Word>, size_t> groupWith;
  std::vector<SharedBody> groups;
  std::vector<std::vector<std::vector<int64_t>>> constants;
  for (TaskOp task : tasks) {
    // The one task of its channel for each rank it runs on.
    int64_t first = task.getChannel() * ranks;
    auto rank = task.getRank();
    if (rank ? runs[first + *rank] != 1
             : llvm::any_of(llvm::ArrayRef(runs).slice(first, ranks),
                            [](int n) { return n != 1; }))
      continue;
    auto [shape, values] = shapes.of(task);
    // Per-rank tasks group apart from channel-wide ones, and those that
    // follow a rank order apart from those that do not.
    shape.push_back(rank ? 0 : task.getRankMap() ? 2 : 1);
    auto [it, fresh] = groupWith.try_emplace(std::move(shape), groups.size());
    if (fresh) {
      groups.emplace_back();
      constants.emplace_back();
    }
    groups[it->second].tasks.push_back(task);
    constants[it->second].push_back(std::move(values));
  }
  std::vector<SharedBody> shared;
  for (auto [body, rows] : llvm::zip(groups, constants)) {
    if (body.tasks.size() < 2)
      continue;
    // Constants alike in every task stay in the body; constants that differ
    // alike (a part's offset in every step) share a column.
    std::vector<int64_t> column(rows.front().size(), -1);
    std::map<std::vector<int64_t>, int64_t> columnWith;
    std::vector<size_t> firstOf; // per column, a constant it holds
    for (size_t j = 0; j < column.size(); ++j) {
      std::vector<int64_t> values;
      for (const std::vector<int64_t> &row : rows)
        values.push_back(row[j]);
      if (llvm::all_equal(values))
        continue;
      auto [it, fresh] = columnWith.try_emplace(std::move(values), body.width);
      column[j] = it->second;
      if (fresh) {
        firstOf.push_back(j);
        ++body.width;
      }
    }
    for (const std::vector<int64_t> &row : rows)
      for (size_t j : firstOf)
        body.table.push_back(row[j]);
    MLIRContext *ctx = program.getContext();
    size_t next = 0;
    walkBody(
        body.tasks.front().getBody().front(), [](Word) {},
        [&](Operation *op, Attribute attr, AffineMap map) {
          body.maps.try_emplace(
              {op, attr}, rewriteConstants(map, body.width, [&](int64_t value) {
                int64_t j = column[next++];
                return j < 0 ? getAffineConstantExpr(value, ctx)
                             : getAffineSymbolExpr(j, ctx);
              }));
        });
    shared.push_back(std::move(body));
  }
  return shared;
}
