// The hierarchical reduce-scatter in pieces on two v100x8 nodes, whose GPUs
// do not all have NVLink to each other: each piece's node phase sums its
// blocks (one per node) round the node's NVLink ring, the blocks side by
// side: every block's first hop, then hop by hop (G-1 = 7) every block,
// then every block's last, so the ring's hop latencies are paid once per
// piece, not once per block. The schedule passes sched-verify on the machine.
// RUN: ccopt %s --ccl-lower-to-sched="topo=v100x8 nodes=2 channels=1 chunks=2" --sched-verify="topo=v100x8 nodes=2" | FileCheck %s

// CHECK-LABEL: sched.program @p_reduce_scatter_0 attributes {algorithm = "hierarchical", channels = 1 : i64, chunks = 2 : i64
// CHECK: sched.task channel 0
// CHECK-NEXT: sched.loop 0 to 2 {
// CHECK-NEXT:   sched.send <input, {{.*}}> to #map at <scratch, (d0, d1) -> (d1 * 2), 34>
// CHECK-NEXT: }
// CHECK-NEXT: sched.loop 1 to 7 {
// CHECK-NEXT:   sched.loop 0 to 2 {
// CHECK-NEXT:     sched.recv_reduce_send from #map1 <scratch, (d0, d1, d2) -> (((d1 - 1) * 2 + d2) * 2), 34>, <input, {{.*}}> to #map2 at <scratch, (d0, d1, d2) -> ((d1 * 2 + d2) * 2), 34>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: sched.loop 0 to 2 {
// CHECK-NEXT:   sched.recv from #map3 into <scratch, (d0, d1) -> ((d1 + 12) * 2), 34>
// CHECK-NEXT:   sched.reduce <scratch, (d0, d1) -> ((d1 + 12) * 2), 34>, <input, {{.*}}> -> <scratch, (d0, d1) -> ((d1 + 14) * 2), 34>
// CHECK-NEXT: }
// The second piece's node phase alike, then the ring along the rail.
// CHECK-NEXT: sched.loop 0 to 2 {
// CHECK-NEXT:   sched.send
// CHECK-NEXT: }
// CHECK-NEXT: sched.loop 1 to 7 {
// CHECK-NEXT:   sched.loop 0 to 2 {
// CHECK-NEXT:     sched.recv_reduce_send
// CHECK:      sched.send <scratch, (d0) -> (28), 34> to #map4 at <scratch, (d0) -> (32), 34>
ccl.program @p world(16) {
  %big = ccl.buffer "big" : !ccl.buffer<4096xf32>
  %small = ccl.buffer "small" : !ccl.buffer<256xf32>
  ccl.reduce_scatter sum %big -> %small {algorithm = "hierarchical"} : !ccl.buffer<4096xf32> -> !ccl.buffer<256xf32>
}
