//===- Buckets.h - all_reduces fused over a ccl.bucket ------------*- C++ -*-===//
//
// Shared by ccl-fuse-buckets and ccl-plan-overlap.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_PASSES_BUCKETS_H
#define CCOPT_PASSES_BUCKETS_H

#include "dialect/Ccl/CclDialect.h"

namespace ccopt {

/// Replaces `ops` (all_reduces with the same reduction, group, element type,
/// compression and in-placeness, on distinct buffers) by one all_reduce over
/// a ccl.bucket named `name` of their inputs (and one of their outputs when
/// not in place), placed at the last of them. Returns the new all_reduce.
mlir::ccl::AllReduceOp fuseAllReduces(llvm::ArrayRef<mlir::ccl::AllReduceOp> ops,
                                      llvm::StringRef name);

} // namespace ccopt

#endif
