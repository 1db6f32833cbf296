// Every collective names its own algorithms: another's is a located error.
// RUN: not ccopt %s --ccl-lower-to-sched 2>&1 | FileCheck %s
// CHECK: others-invalid.mlir:[[# @LINE + 5]]:3: error: unknown reduce_scatter algorithm 'tree' (expected one of: ring, direct)
// CHECK: others-invalid.mlir:[[# @LINE + 5]]:3: error: unknown broadcast algorithm 'ring' (expected one of: chain, direct)
ccl.program @q world(4) {
  %big = ccl.buffer "big" : !ccl.buffer<256xf32>
  %small = ccl.buffer "small" : !ccl.buffer<64xf32>
  ccl.reduce_scatter sum %big -> %small {algorithm = "tree"} : !ccl.buffer<256xf32> -> !ccl.buffer<64xf32>
  ccl.broadcast %small -> %small root 1 {algorithm = "ring"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}
