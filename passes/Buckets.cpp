//===- Buckets.cpp - all_reduces fused over a ccl.bucket ------------------===//

#include "passes/Buckets.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

ccl::AllReduceOp ccopt::fuseAllReduces(ArrayRef<ccl::AllReduceOp> ops,
                                       StringRef name) {
  ccl::AllReduceOp last = ops.back();
  OpBuilder b(last);
  auto bucketOf = [&](auto get, StringRef bucketName) {
    SmallVector<Value> members;
    int64_t count = 0;
    for (ccl::AllReduceOp op : ops) {
      Value v = get(op);
      members.push_back(v);
      count += cast<ccl::BufferType>(v.getType()).getCount();
    }
    Type element = cast<ccl::BufferType>(members.front().getType()).getElementType();
    auto type = ccl::BufferType::get(b.getContext(), count, element);
    return ccl::BucketOp::create(b, last.getLoc(), type, bucketName, members)
        .getResult();
  };
  bool inPlace = last.getInput() == last.getOutput();
  Value input = bucketOf([](ccl::AllReduceOp op) { return op.getInput(); },
                         inPlace ? name.str() : (name + ".in").str());
  Value output = inPlace ? input
                         : bucketOf([](ccl::AllReduceOp op) { return op.getOutput(); },
                                    (name + ".out").str());
  auto fused = ccl::AllReduceOp::create(b, last.getLoc(), last.getOpAttr(), input,
                                        output, last.getGroupAttr(),
                                        last.getCompressAttr());
  fused->setAttr("fused", b.getI64IntegerAttr(ops.size()));
  for (ccl::AllReduceOp op : ops)
    op.erase();
  return fused;
}
