// The one-hop algorithms of the other collectives, chosen by hand with
// `algorithm = "direct"` on the op; each schedule must pass sched-verify.
// RUN: ccopt %s --ccl-lower-to-sched="channels=2" --sched-verify | FileCheck %s

// Reduce-scatter: block j (piece ch of it: part j*2+ch) into slot r of rank
// j's scratch, the slots added in rank order.
// CHECK-LABEL: sched.program @p_reduce_scatter_0 attributes {algorithm = "direct"{{.*}}scratch_count = 256
// CHECK: sched.copy <input, (d0) -> (d0 * 2), 8> -> <scratch, (d0) -> (d0 * 2), 8>
// CHECK: sched.send <input, (d0, d1) -> (((d0 + d1) mod 4) * 2), 8> to #{{.*}} at <scratch, (d0, d1) -> (d0 * 2), 8>
// CHECK: sched.recv from #{{.*}} into <scratch, (d0, d1) -> (((d0 - d1) mod 4) * 2), 8>
// CHECK: sched.reduce <scratch, (d0) -> (0), 8>, <scratch, (d0) -> (2), 8> -> <output, (d0) -> (0), 2>

// All-gather: the own block into block r of every output.
// CHECK-LABEL: sched.program @p_all_gather_1 attributes {algorithm = "direct"{{.*}}scratch_count = 0
// CHECK: sched.send <input, (d0, d1) -> (0), 2> to #{{.*}} at <output, (d0, d1) -> (d0 * 2), 8>

// Broadcast: the root's task writes every other rank's output; each other
// rank's task receives once.
// CHECK-LABEL: sched.program @p_broadcast_2 attributes {algorithm = "direct"
// CHECK: sched.task channel 0 rank 1
// CHECK-COUNT-3: sched.send <input, (d0) -> (0), 2>
// CHECK: sched.task channel 0 rank 2
// CHECK-NEXT: sched.recv from #{{.*}} into <output, (d0) -> (0), 2>

// Reduce: every rank writes into its slot of the root's scratch; the root
// adds the slots in rank order, avg dividing in the last addition.
// CHECK-LABEL: sched.program @p_reduce_3 attributes {algorithm = "direct"{{.*}}scratch_count = 512
// CHECK: sched.task channel 0 rank 3
// CHECK: sched.copy <input, (d0) -> (0), 2> -> <scratch, (d0) -> (6), 8>
// CHECK-COUNT-3: sched.recv from
// CHECK: sched.reduce {{.*}} -> <output, (d0) -> (0), 2> finalize
// CHECK: sched.task channel 0 rank 0
// CHECK-NEXT: sched.send <input, (d0) -> (0), 2> to #{{.*}} at <scratch, (d0) -> (0), 8>

// All-to-all: every peer's block at once, spread over the channels.
// CHECK-LABEL: sched.program @p_all_to_all_4 attributes {algorithm = "direct"
ccl.program @p world(4) {
  %big = ccl.buffer "big" : !ccl.buffer<256xf32>
  %small = ccl.buffer "small" : !ccl.buffer<64xf32>
  %x = ccl.buffer "x" : !ccl.buffer<128xf32>
  %y = ccl.buffer "y" : !ccl.buffer<128xf32>
  ccl.reduce_scatter sum %big -> %small {algorithm = "direct"} : !ccl.buffer<256xf32> -> !ccl.buffer<64xf32>
  ccl.all_gather %small -> %big {algorithm = "direct"} : !ccl.buffer<64xf32> -> !ccl.buffer<256xf32>
  ccl.broadcast %x -> %y root 1 {algorithm = "direct"} : !ccl.buffer<128xf32> -> !ccl.buffer<128xf32>
  ccl.reduce avg %x -> %y root 3 {algorithm = "direct"} : !ccl.buffer<128xf32> -> !ccl.buffer<128xf32>
  ccl.all_to_all %x -> %y {algorithm = "direct"} : !ccl.buffer<128xf32> -> !ccl.buffer<128xf32>
}
