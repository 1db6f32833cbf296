//===- CompressWire.cpp - ccl-compress-wire -------------------------------===//
//
// `ccopt --compress=f16|bf16`: every f32 reduction without a `compress`
// attribute gets one; lowering does the rest (Algorithms.h, AllReduceShape).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace ccopt {
#define GEN_PASS_DEF_CCLCOMPRESSWIRE
#include "passes/Passes.h.inc"
} // namespace ccopt

using namespace mlir;

namespace {

struct CompressWire : ccopt::impl::CclCompressWireBase<CompressWire> {
  using Base::Base;

  void runOnOperation() override {
    Builder b(&getContext());
    Type type = wire == "f16" ? Type(b.getF16Type())
                : wire == "bf16" ? Type(b.getBF16Type())
                                 : Type();
    if (!type) {
      getOperation().emitError("compress must be f16 or bf16, got '") << wire << "'";
      return signalPassFailure();
    }
    auto compress = [&](Operation *op) {
      auto input = cast<ccl::BufferType>(op->getOperand(0).getType());
      if (input.getElementType().isF32() && !op->hasAttr("compress"))
        op->setAttr("compress", TypeAttr::get(type));
    };
    getOperation().walk([&](Operation *op) {
      if (isa<ccl::AllReduceOp, ccl::ReduceScatterOp, ccl::ReduceOp>(op))
        compress(op);
    });
  }
};

} // namespace
