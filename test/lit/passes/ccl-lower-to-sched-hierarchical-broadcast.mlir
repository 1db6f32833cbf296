// The hierarchical broadcast on two a100x8 nodes from rank 9 (node 1, GPU
// 1), in 2 pieces: each piece's part l goes to GPU l of the root's node,
// along rail l to GPU l of the other node, and from every GPU to its
// node-mates. sched-verify checks it on the machine.
// RUN: ccopt %s --ccl-lower-to-sched="topo=a100x8 nodes=2" --sched-verify="topo=a100x8 nodes=2" | FileCheck %s

// CHECK: sched.program @b_broadcast_0 attributes {algorithm = "hierarchical", channels = 1 : i64, chunks = 2 : i64, collective = #ccl<collective broadcast>{{.*}}root = 9 : i64, scratch_count = 0 : i64}
// Rank 1 (GPU 1 of node 0) takes part 1 over the rail, hands it to its 7
// node-mates, and takes theirs a piece behind.
// CHECK: sched.task channel 0 rank 1 {
// CHECK-NEXT: sched.recv from #{{.*}} into <output, (d0) -> (2), 16>
// CHECK-COUNT-7: sched.send <output, (d0) -> (2), 16> to
// CHECK-NEXT: sched.loop 1 to 2 {
// CHECK-NEXT: sched.recv from #{{.*}} into <output, (d0, d1) -> (d1 + 2), 16>
// CHECK-COUNT-7: sched.send <output, (d0, d1) -> (d1 + 2), 16> to
// CHECK-NEXT: sched.recv from #{{.*}} into <output, (d0, d1) -> (d1 - 1), 16>
// CHECK-COUNT-6: sched.recv from
// CHECK-NEXT: }
// CHECK-COUNT-7: sched.recv from
// CHECK-NEXT: }
// The root's node-mates each take their part and a sub-part of the root's
// (part 1: 7 sub-parts), so that the root sends the buffer out once; its
// own part goes over the rail to GPU 1 of node 0, stored on the way.
// CHECK: sched.task channel 0 rank 9 {
// CHECK-NEXT: sched.send <input, (d0) -> (4), 16> to #{{.*}} at <output, (d0) -> (4), 16> store <output, (d0) -> (4), 16>
// CHECK-NEXT: sched.send <input, (d0) -> (14), 112> to #{{.*}} at <output, (d0) -> (14), 112>
// CHECK-COUNT-12: sched.send <input
// CHECK-NEXT: sched.send <input, (d0) -> (2), 16> to #{{.*}} at <output, (d0) -> (2), 16> store <output, (d0) -> (2), 16>
// CHECK-NEXT: sched.loop 1 to 2 {
ccl.program @b world(16) {
  %a = ccl.buffer "a" : !ccl.buffer<1024xf32>
  %b = ccl.buffer "b" : !ccl.buffer<1024xf32>
  ccl.broadcast %a -> %b root 9 {algorithm = "hierarchical", channels = 1 : i64, chunks = 2 : i64} : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
}

// In place the root sends from its buffer and stores nothing.
// RUN: ccopt %s --ccl-lower-to-sched="topo=a100x8 nodes=2" | FileCheck %s --check-prefix=INPLACE
// INPLACE: sched.task channel 0 rank 0 {
// INPLACE-NOT: store
// INPLACE: sched.task channel 0 rank 1 {
ccl.program @c world(16) {
  %a = ccl.buffer "a" : !ccl.buffer<1024xf32>
  ccl.broadcast %a -> %a root 0 {algorithm = "hierarchical", channels = 1 : i64, chunks = 2 : i64} : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
}
