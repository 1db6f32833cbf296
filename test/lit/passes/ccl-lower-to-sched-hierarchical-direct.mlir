// hierarchical_direct: the node-aware reduce-scatter, all-gather and the
// all-reduce built from them, exchanging along the rails directly instead
// of round a ring (four a100x8 nodes); each schedule must pass sched-verify
// on the machine.
// RUN: ccopt %s --ccl-lower-to-sched="topo=a100x8 nodes=4 channels=1 chunks=2" --sched-verify="topo=a100x8 nodes=4" | FileCheck %s
// RUN: ccopt %s --ccl-lower-to-sched="topo=a100x8 nodes=4 channels=3 chunks=1" --sched-verify="topo=a100x8 nodes=4" | FileCheck %s --check-prefix=ONE-PIECE

// The rail's peers: the GPU of the same index 1 + i nodes back, and
// i nodes on and back.
// CHECK-DAG: #[[BACK1:map[0-9]*]] = affine_map<(d0, d1) -> ((d0 - (d1 + 1) * 8) mod 32)>
// CHECK-DAG: #[[ON:map[0-9]*]] = affine_map<(d0, d1) -> ((d0 + d1 * 8) mod 32)>
// CHECK-DAG: #[[BACK:map[0-9]*]] = affine_map<(d0, d1) -> ((d0 - d1 * 8) mod 32)>

// Reduce-scatter: the node phase sums the blocks of the three other nodes
// (ring steps 0-2); the rail phase sends each piece's node sums to them at
// once (no ring step waits on another), sums this node's own block (step
// 3) while they travel, and adds the three that come back, the last
// addition averaging.
// CHECK: sched.program @p_reduce_scatter_0 attributes {algorithm = "hierarchical_direct"
// CHECK: sched.loop 0 to 3 {
// CHECK-NEXT: sched.loop 1 to 8 {
// CHECK-NEXT: sched.send <input, {{.*}}> to #{{map[0-9]*}} at <scratch, (d0, d1, d2) -> (((d2 - 1) * 4 + d1) * 2), 70>
// CHECK: sched.send <scratch, (d0, d1) -> ((d1 + 28) * 2), 70> to #[[BACK1]] at <scratch, (d0, d1) -> ((d1 + 32) * 2), 70>
// CHECK-NEXT: }
// CHECK-NEXT: sched.loop 1 to 8 {
// CHECK-NEXT: sched.send <input, {{.*}}> to #{{map[0-9]*}} at <scratch, (d0, d1) -> (((d1 - 1) * 4 + 3) * 2), 70>
// CHECK: sched.loop 1 to 4 {
// CHECK-NEXT: sched.recv from #[[ON]] into <scratch, (d0, d1) -> ((d1 + 31) * 2), 70>
// CHECK: sched.reduce <scratch, (d0) -> (64), 70>, <scratch, (d0) -> (62), 70> -> <output, (d0) -> (0), 2>
// CHECK-NEXT: sched.loop 2 to 3 {
// CHECK-NEXT: sched.reduce <scratch, (d0, d1) -> ((d1 + 31) * 2), 70>, <output, (d0, d1) -> (0), 2> -> <output, (d0, d1) -> (0), 2>
// CHECK: sched.reduce <scratch, (d0) -> (68), 70>, <output, (d0) -> (0), 2> -> <output, (d0) -> (0), 2> finalize

// All-gather: this GPU's block to the three other nodes at once and to its
// node-mates, theirs received as they come; then the other nodes' blocks
// inside the node.
// CHECK: sched.program @p_all_gather_1 attributes {algorithm = "hierarchical_direct"
// CHECK: sched.loop 1 to 4 {
// CHECK-NEXT: sched.send <input, (d0, d1) -> (0), 2> to #[[ON]] at <output, (d0, d1) -> ((((d0 floordiv 8) mod 4) * 8 + d0 mod 8) * 2), 64>
// CHECK-NEXT: }
// CHECK-NEXT: sched.loop 1 to 8 {
// CHECK-NEXT: sched.send <output, (d0, d1) -> ((((d0 floordiv 8) mod 4) * 8 + d0 mod 8) * 2), 64>
// CHECK: sched.loop 1 to 4 {
// CHECK-NEXT: sched.recv from #[[BACK]] into <output, (d0, d1) -> ((((d0 floordiv 8 - d1) mod 4) * 8 + d0 mod 8) * 2), 64>
// CHECK-NEXT: }
// CHECK-NEXT: sched.loop 1 to 8 {
// CHECK-NEXT: sched.recv from #{{map[0-9]*}} into <output, (d0, d1) -> ((((d0 floordiv 8) mod 4) * 8 + (d0 mod 8 - d1) mod 8) * 2), 64>

// The all-reduce: both halves' rail steps, direct.
// CHECK: sched.program @p_all_reduce_2 attributes {algorithm = "hierarchical_direct"
// CHECK: sched.send {{.*}} to #[[BACK1]]
// CHECK: sched.send {{.*}} to #[[ON]]

// In one piece a node sum goes out as soon as it is made, and each block
// from the rail goes on to the node as it arrives.
// ONE-PIECE: sched.program @p_reduce_scatter_0 attributes {algorithm = "hierarchical_direct"
// ONE-PIECE: sched.loop 0 to 3 {
// ONE-PIECE: sched.reduce
// ONE-PIECE: sched.send {{.*}} to #{{map[0-9]*}} at <scratch
// ONE-PIECE: sched.program @p_all_gather_1 attributes {algorithm = "hierarchical_direct"
// ONE-PIECE: sched.loop 1 to 4 {
// ONE-PIECE-NEXT: sched.send
// ONE-PIECE: sched.loop 1 to 4 {
// ONE-PIECE-NEXT: sched.recv
// ONE-PIECE-NEXT: sched.loop 1 to 8 {
// ONE-PIECE-NEXT: sched.send
ccl.program @p world(32) {
  %big = ccl.buffer "big" : !ccl.buffer<4096xf32>
  %big2 = ccl.buffer "big2" : !ccl.buffer<4096xf32>
  %small = ccl.buffer "small" : !ccl.buffer<128xf32>
  ccl.reduce_scatter avg %big -> %small {algorithm = "hierarchical_direct"} : !ccl.buffer<4096xf32> -> !ccl.buffer<128xf32>
  ccl.all_gather %small -> %big {algorithm = "hierarchical_direct"} : !ccl.buffer<128xf32> -> !ccl.buffer<4096xf32>
  ccl.all_reduce sum %big -> %big2 {algorithm = "hierarchical_direct"} : !ccl.buffer<4096xf32> -> !ccl.buffer<4096xf32>
}
