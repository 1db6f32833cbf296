// The node-aware reduce-scatter, all-gather and all-to-all (two a100x8
// nodes), and the binomial and scatter + all-gather trees, chosen by hand;
// each schedule must pass sched-verify on the machine.
// RUN: ccopt %s --ccl-lower-to-sched="topo=a100x8 nodes=2 channels=2" --sched-verify="topo=a100x8 nodes=2" | FileCheck %s
// RUN: ccopt %s --ccl-lower-to-sched="topo=a100x8 nodes=2 channels=2 chunks=2" --sched-verify="topo=a100x8 nodes=2" | FileCheck %s --check-prefix=PIECES

// In pieces the reduce-scatter's two phases rotate: channel 0 sums both
// pieces inside the node before the rail's ring takes them, channel 1 runs
// the ring on piece 0 before it sums piece 1. The node phase sums the
// other node's block (one ring step); this node's own is summed in the
// rail phase, while the ring's sends travel.
// PIECES: sched.program @p_reduce_scatter_0 attributes {algorithm = "hierarchical", channels = 2 : i64, chunks = 2 : i64
// PIECES: sched.task channel 0 {
// PIECES: sched.reduce {{.*}} -> <output, (d0) -> (0), 4>
// PIECES-NEXT: sched.send <scratch, (d0) -> (57), 68>
// PIECES: sched.task channel 1 {
// PIECES: sched.reduce {{.*}} -> <output, (d0) -> (2), 4>
// PIECES-NEXT: sched.loop 0 to 1 {
// PIECES: sched.program @p_all_gather_1 attributes {algorithm = "hierarchical", channels = 2 : i64, chunks = 2 : i64

// CHECK: sched.program @p_reduce_scatter_0 attributes {algorithm = "hierarchical"
// CHECK: sched.program @p_all_gather_1 attributes {algorithm = "hierarchical"
// CHECK: sched.program @p_all_to_all_2 attributes {algorithm = "hierarchical"
// Binomial: every rank its own task; the root (rank 3) sends first to the
// farthest rank, 3 + 8.
// CHECK: sched.program @p_broadcast_3 attributes {algorithm = "binomial"
// CHECK: sched.task channel 0 rank 3
// CHECK: sched.send {{.*}} to #{{[a-z0-9]+}}
// CHECK: sched.program @p_broadcast_4 attributes {algorithm = "scatter_allgather"
// CHECK: sched.program @p_reduce_5 attributes {algorithm = "binomial"{{.*}}redop = #ccl<redop avg>
// CHECK: finalize
ccl.program @p world(16) {
  %big = ccl.buffer "big" : !ccl.buffer<4096xf32>
  %big2 = ccl.buffer "big2" : !ccl.buffer<4096xf32>
  %small = ccl.buffer "small" : !ccl.buffer<256xf32>
  ccl.reduce_scatter sum %big -> %small {algorithm = "hierarchical"} : !ccl.buffer<4096xf32> -> !ccl.buffer<256xf32>
  ccl.all_gather %small -> %big {algorithm = "hierarchical"} : !ccl.buffer<256xf32> -> !ccl.buffer<4096xf32>
  ccl.all_to_all %big -> %big2 {algorithm = "hierarchical"} : !ccl.buffer<4096xf32> -> !ccl.buffer<4096xf32>
  ccl.broadcast %big -> %big2 root 3 {algorithm = "binomial"} : !ccl.buffer<4096xf32> -> !ccl.buffer<4096xf32>
  ccl.broadcast %big -> %big root 3 {algorithm = "scatter_allgather"} : !ccl.buffer<4096xf32> -> !ccl.buffer<4096xf32>
  ccl.reduce avg %big -> %big2 root 3 {algorithm = "binomial"} : !ccl.buffer<4096xf32> -> !ccl.buffer<4096xf32>
}
