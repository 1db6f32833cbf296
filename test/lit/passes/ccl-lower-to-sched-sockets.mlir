// The reduce-scatter and all-gather in groups of one socket of every PCIe
// node (hierarchical_sockets), chosen by hand on two pcie4x8 nodes: each
// channel's tasks take the ranks group by group, socket 0 of both nodes
// (ranks 0-3 and 8-11) in the machine's ring order, then socket 1 in the
// same positions (GPU l of one group and of the other on one node, across
// the sockets' link); each schedule passes sched-verify on the machine.
// RUN: ccopt %s --ccl-lower-to-sched="topo=pcie4x8 nodes=2 channels=2 chunks=2" --sched-verify="topo=pcie4x8 nodes=2" | FileCheck %s

// CHECK: sched.program @p_reduce_scatter_0 attributes {algorithm = "hierarchical_sockets", channels = 2 : i64, chunks = 2 : i64
// CHECK: sched.task channel 0 attributes {rank_map = array<i64: 0, 1, 3, 2, 10, 11, 9, 8, 4, 5, 7, 6, 14, 15, 13, 12>}
// CHECK: sched.task channel 1 attributes {rank_map = array<i64: 2, 3, 1, 0, 8, 9, 11, 10, 6, 7, 5, 4, 12, 13, 15, 14>}
// CHECK: sched.program @p_all_gather_1 attributes {algorithm = "hierarchical_sockets"
// CHECK: sched.task channel 0 attributes {rank_map = array<i64: 0, 1, 3, 2, 10, 11, 9, 8, 4, 5, 7, 6, 14, 15, 13, 12>}
ccl.program @p world(16) {
  %big = ccl.buffer "big" : !ccl.buffer<4096xf32>
  %small = ccl.buffer "small" : !ccl.buffer<256xf32>
  ccl.reduce_scatter sum %big -> %small {algorithm = "hierarchical_sockets"} : !ccl.buffer<4096xf32> -> !ccl.buffer<256xf32>
  ccl.all_gather %small -> %big {algorithm = "hierarchical_sockets"} : !ccl.buffer<256xf32> -> !ccl.buffer<4096xf32>
}
