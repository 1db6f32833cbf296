// Every collective names its own algorithms: another's is a located error.
// RUN: not ccopt %s --ccl-lower-to-sched 2>&1 | FileCheck %s
// RUN: not ccopt %s --ccl-lower-to-sched="topo=a100x8 nodes=2" 2>&1 | FileCheck %s --check-prefix=NODES
// CHECK: others-invalid.mlir:[[# @LINE + 5]]:3: error: unknown reduce_scatter algorithm 'tree' (expected one of: ring, direct, hierarchical, relay, staggered_ring, ring_sockets, hierarchical_sockets, hierarchical_direct)
// CHECK: others-invalid.mlir:[[# @LINE + 5]]:3: error: unknown broadcast algorithm 'ring' (expected one of: chain, direct, binomial, scatter_allgather, chain_sockets, hierarchical, hierarchical_tree, nvls)
ccl.program @q world(4) {
  %big = ccl.buffer "big" : !ccl.buffer<256xf32>
  %small = ccl.buffer "small" : !ccl.buffer<64xf32>
  ccl.reduce_scatter sum %big -> %small {algorithm = "tree"} : !ccl.buffer<256xf32> -> !ccl.buffer<64xf32>
  ccl.broadcast %small -> %small root 1 {algorithm = "ring"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// The node-aware algorithms need nodes, and the all-to-all distinct buffers.
// CHECK: others-invalid.mlir:[[# @LINE + 5]]:3: error: hierarchical needs a machine whose nodes each hold the same number (at least 2) of the ranks, node by node, on at least 2 nodes
// NODES: others-invalid.mlir:[[# @LINE + 5]]:3: error: the hierarchical all_to_all needs distinct input and output buffers
ccl.program @r world(16) {
  %a = ccl.buffer "a" : !ccl.buffer<256xf32>
  %b = ccl.buffer "b" : !ccl.buffer<16xf32>
  ccl.all_gather %b -> %a {algorithm = "hierarchical"} : !ccl.buffer<16xf32> -> !ccl.buffer<256xf32>
  ccl.all_to_all %a -> %a {algorithm = "hierarchical"} : !ccl.buffer<256xf32> -> !ccl.buffer<256xf32>
}

// Relaying needs NVLink neighbours: none on an NVSwitch (every pair linked).
// NODES: others-invalid.mlir:[[# @LINE + 7]]:3: error: relay needs the ranks on one node, where some GPUs lack an NVLink to each other but share an NVLink neighbour
// NODES: others-invalid.mlir:[[# @LINE + 7]]:3: error: relay needs the ranks on one node, where some GPUs lack an NVLink to each other but share an NVLink neighbour
// NODES: others-invalid.mlir:[[# @LINE + 7]]:3: error: relay needs the ranks on one node, where some GPUs lack an NVLink to each other but share an NVLink neighbour
ccl.program @s world(16) {
  %a = ccl.buffer "a" : !ccl.buffer<256xf32>
  %b = ccl.buffer "b" : !ccl.buffer<256xf32>
  %c = ccl.buffer "c" : !ccl.buffer<16xf32>
  ccl.all_to_all %a -> %b {algorithm = "relay"} : !ccl.buffer<256xf32> -> !ccl.buffer<256xf32>
  ccl.all_gather %c -> %b {algorithm = "relay"} : !ccl.buffer<16xf32> -> !ccl.buffer<256xf32>
  ccl.reduce_scatter sum %a -> %c {algorithm = "relay"} : !ccl.buffer<256xf32> -> !ccl.buffer<16xf32>
}

// Rings and chains by socket need three or more PCIe nodes of two sockets.
// NODES: others-invalid.mlir:[[# @LINE + 5]]:3: error: ring_sockets needs three or more nodes whose GPUs have no NVLink and split into two sockets of at least 2 of the ranks, each node holding the same number
// NODES: others-invalid.mlir:[[# @LINE + 5]]:3: error: chain_sockets needs three or more nodes whose GPUs have no NVLink
ccl.program @t world(16) {
  %a = ccl.buffer "a" : !ccl.buffer<256xf32>
  %c = ccl.buffer "c" : !ccl.buffer<16xf32>
  ccl.all_gather %c -> %a {algorithm = "ring_sockets"} : !ccl.buffer<16xf32> -> !ccl.buffer<256xf32>
  ccl.broadcast %a -> %a root 0 {algorithm = "chain_sockets"} : !ccl.buffer<256xf32> -> !ccl.buffer<256xf32>
}
