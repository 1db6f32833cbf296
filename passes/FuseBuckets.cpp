//===- FuseBuckets.cpp - ccl-fuse-buckets ---------------------------------===//
//
// Consecutive small all_reduces become one all_reduce over a ccl.bucket of
// their buffers. The bucket is flat memory the runtime owns: it copies the
// members in before the collective and back out after it (as DDP copies
// gradients into its buckets), so the emitted kernel keeps the ABI of one
// input and one output buffer and results land in the members' memory.
//
//===----------------------------------------------------------------------===//

#include "passes/Buckets.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

namespace ccopt {
#define GEN_PASS_DEF_CCLFUSEBUCKETS
#include "passes/Passes.h.inc"
} // namespace ccopt

using namespace mlir;

namespace {

/// 25 -> "25", 0.5 -> "0.5".
std::string shortNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

/// Whether `op` may join a bucket that already holds `members`.
bool compatible(ccl::AllReduceOp op, ccl::AllReduceOp first) {
  auto typeOf = [](Value v) { return cast<ccl::BufferType>(v.getType()); };
  return op.getOp() == first.getOp() && op.getGroupAttr() == first.getGroupAttr() &&
         op.getCompressAttr() == first.getCompressAttr() &&
         typeOf(op.getInput()).getElementType() ==
             typeOf(first.getInput()).getElementType() &&
         (op.getInput() == op.getOutput()) == (first.getInput() == first.getOutput());
}

/// A collective the pass may fuse: an all_reduce on plain buffers that no
/// other pass has decided on yet.
bool fusible(ccl::AllReduceOp op) {
  return !op->hasAttr("schedule") && !op->hasAttr("algorithm") &&
         op.getInput().getDefiningOp<ccl::BufferOp>() &&
         op.getOutput().getDefiningOp<ccl::BufferOp>();
}

struct FuseBuckets : ccopt::impl::CclFuseBucketsBase<FuseBuckets> {
  using Base::Base;

  void runOnOperation() override {
    if (!(capMb > 0)) {
      getOperation().emitError("bucket cap must be positive, got ")
          << llvm::formatv("{0}", shortNumber(capMb)).str() << " MiB";
      return signalPassFailure();
    }
    int64_t capBytes = static_cast<int64_t>(capMb * (1 << 20));
    getOperation().walk([&](ccl::ProgramOp program) {
      int bucket = 0;
      SmallVector<ccl::AllReduceOp> group;
      int64_t groupBytes = 0;
      llvm::SmallPtrSet<Value, 16> used;
      auto flush = [&] {
        if (group.size() > 1)
          ccopt::fuseAllReduces(group, "ccopt.bucket" + std::to_string(bucket++));
        group.clear();
        groupBytes = 0;
        used.clear();
      };
      for (Operation &op : llvm::make_early_inc_range(program.getBody().front())) {
        if (isa<ccl::BufferOp, ccl::BucketOp, ccl::GroupOp, ccl::ReadyOp>(op))
          continue; // no communication: the run goes on
        auto allReduce = dyn_cast<ccl::AllReduceOp>(op);
        if (!allReduce || !fusible(allReduce)) {
          flush();
          continue;
        }
        int64_t bytes =
            cast<ccl::BufferType>(allReduce.getInput().getType()).getSizeInBytes();
        bool fresh = !used.contains(allReduce.getInput()) &&
                     !used.contains(allReduce.getOutput());
        if (group.empty() || !compatible(allReduce, group.front()) || !fresh ||
            groupBytes + bytes > capBytes)
          flush();
        if (bytes >= capBytes)
          continue; // large enough alone
        group.push_back(allReduce);
        groupBytes += bytes;
        used.insert(allReduce.getInput());
        used.insert(allReduce.getOutput());
      }
      flush();
    });
  }
};

} // namespace
