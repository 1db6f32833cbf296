// `beside` that cannot be built: a located error each, nothing lowered.
// RUN: not ccopt %s --ccl-assign-world="topo=a100x8 nodes=2" --ccl-lower-to-sched="topo=a100x8 nodes=2" 2>&1 | FileCheck %s

// CHECK: beside-invalid.mlir:[[# @LINE + 10]]:3: error: 'beside' must be {algorithm = "...", channels = C, chunks = K, weights = array<i64: A, B>} with C, K, A, B >= 1
// CHECK: beside-invalid.mlir:[[# @LINE + 10]]:3: error: 'beside' must be {algorithm = "...", channels = C, chunks = K, weights = array<i64: A, B>} with C, K, A, B >= 1
// CHECK: beside-invalid.mlir:[[# @LINE + 10]]:3: error: beside: 'beside' runs only beside a reduce_scatter or all_gather
// CHECK: beside-invalid.mlir:[[# @LINE + 10]]:3: error: beside: unknown reduce_scatter algorithm 'tree' (expected one of: ring, direct, hierarchical, relay, staggered_ring, ring_sockets, hierarchical_sockets, hierarchical_direct)
// A ring of one channel in one piece cannot be cut into 3 for a 3/4 share.
// CHECK: beside-invalid.mlir:[[# @LINE + 9]]:3: error: beside: the ring program's share (3/4 of every block) cannot hold its pieces as whole parts (its pieces per block, channels x chunks for a ring, must make a multiple of 3)
ccl.program @p {
  %big = ccl.buffer "big" : !ccl.buffer<64xf32>
  %small = ccl.buffer "small" : !ccl.buffer<4xf32>
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  ccl.reduce_scatter sum %big -> %small {beside = "hierarchical"} : !ccl.buffer<64xf32> -> !ccl.buffer<4xf32>
  ccl.reduce_scatter sum %big -> %small {beside = {algorithm = "hierarchical", channels = 1 : i64, chunks = 1 : i64, weights = array<i64: 0, 1>}} : !ccl.buffer<64xf32> -> !ccl.buffer<4xf32>
  ccl.all_reduce sum %a -> %a {beside = {algorithm = "hierarchical", channels = 1 : i64, chunks = 1 : i64, weights = array<i64: 1, 1>}} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
  ccl.reduce_scatter sum %big -> %small {beside = {algorithm = "tree", channels = 1 : i64, chunks = 1 : i64, weights = array<i64: 1, 1>}} : !ccl.buffer<64xf32> -> !ccl.buffer<4xf32>
  ccl.all_gather %small -> %big {algorithm = "ring", channels = 1, chunks = 1, beside = {algorithm = "hierarchical", channels = 1 : i64, chunks = 1 : i64, weights = array<i64: 3, 1>}} : !ccl.buffer<4xf32> -> !ccl.buffer<64xf32>
}
