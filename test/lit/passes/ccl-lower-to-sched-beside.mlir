// `beside`: a second algorithm on channels of its own and a share of every
// block (two a100x8 nodes). The reduce-scatter's ring takes half of every
// block on channels 0-1, the hierarchical one the other half on channel 2;
// the all-gather's ring 2/3, the hierarchical one the last third. Each
// program's pieces keep their order on its share; both schedules must pass
// sched-verify on the machine.
// RUN: ccopt %s --ccl-assign-world="topo=a100x8 nodes=2" --ccl-lower-to-sched="topo=a100x8 nodes=2" --sched-verify="topo=a100x8 nodes=2" | FileCheck %s

// CHECK: sched.program @p_reduce_scatter_0 attributes {algorithm = "ring+hierarchical", channels = 3 : i64
// The hierarchical one's scratch: 17 blocks, more than the ring's 16.
// CHECK-SAME: scratch_count = 68 : i64
// CHECK: sched.task channel 0
// The ring's pieces: piece j of block b is part b * 4 + j of every 4-element block's first half.
// CHECK: sched.send <input, (d0, d1) -> ({{.*}} floordiv 2) * 4 + d1 mod 2), 64>
// CHECK: sched.task channel 1
// CHECK: sched.task channel 2 {
// The hierarchical one's: the second half, part b * 2 + 1 of 32.
// CHECK: sched.send <input, (d0, d1, d2) -> ((((d0 floordiv 8 - (d1 + 1)) mod 2) * 8 + (d0 mod 8 + d2) mod 8) * 2 + 1), 32>
// CHECK: -> <output, (d0) -> (1), 2>

// CHECK: sched.program @p_all_gather_1 attributes {algorithm = "ring+hierarchical", channels = 3 : i64
// CHECK: sched.task channel 2 {
// CHECK-NEXT: sched.copy <input, (d0) -> (2), 3> -> <output, (d0) -> ((((d0 floordiv 8) mod 2) * 8 + d0 mod 8) * 3 + 2), 48>
ccl.program @p {
  %big = ccl.buffer "big" : !ccl.buffer<64xf32>
  %small = ccl.buffer "small" : !ccl.buffer<4xf32>
  ccl.reduce_scatter sum %big -> %small {algorithm = "ring", channels = 2, chunks = 1, beside = {algorithm = "hierarchical", channels = 1 : i64, chunks = 1 : i64, weights = array<i64: 1, 1>}} : !ccl.buffer<64xf32> -> !ccl.buffer<4xf32>
  ccl.all_gather %small -> %big {algorithm = "ring", channels = 2, chunks = 1, beside = {algorithm = "hierarchical", channels = 1 : i64, chunks = 1 : i64, weights = array<i64: 2, 1>}} : !ccl.buffer<4xf32> -> !ccl.buffer<64xf32>
}
