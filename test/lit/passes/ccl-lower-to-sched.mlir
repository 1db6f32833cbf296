// RUN: ccopt %s --ccl-lower-to-sched | FileCheck %s
// RUN: ccopt %s --ccl-lower-to-sched="chunks=2 channels=2" | FileCheck %s --check-prefix=PIPE

// The ring is written once for every rank: the IR does not grow with the world.
// CHECK-LABEL: ccl.program @ring4
// CHECK: ccl.all_reduce sum %[[A:.*]] -> %[[B:.*]] {schedule = @ring4_all_reduce_0}
// CHECK-LABEL: sched.program @ring4_all_reduce_0
// CHECK-SAME: algorithm = "ring"
// CHECK-SAME: channels = 1
// CHECK-SAME: collective = #ccl<collective all_reduce>, element_type = f32, input_count = 1000
// CHECK-SAME: ranks = 4
// CHECK-SAME: scratch_count = 1000
// CHECK: sched.task channel 0 {
// CHECK-NEXT: sched.loop 0 to 1 {
// Reduce-scatter: own part out, n-2 fused steps, then the owned part completes.
// CHECK-NEXT: sched.send <input, (d0, d1) -> (d1 * 4 + d0 mod 4), 4> to #{{.*}} at <scratch,
// CHECK-NEXT: sched.loop 1 to 3 {
// CHECK-NEXT: sched.recv_reduce_send from #{{.*}} <scratch, (d0, d1, d2) -> (d1 * 4 + (d0 - d2) mod 4), 4>, <input,
// CHECK: sched.recv_reduce_send {{.*}} store <output, (d0, d1) -> (d1 * 4 + (d0 + 1) mod 4), 4> to
// All-gather straight into the next rank's output.
// CHECK-NEXT: sched.loop 1 to 3 {
// CHECK-NEXT: sched.recv_copy_send {{.*}} <output, {{.*}} at <output,
// CHECK: sched.recv from
ccl.program @ring4 world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<1000xf32>
  %b = ccl.buffer "b" : !ccl.buffer<1000xf32>
  ccl.all_reduce sum %a -> %b : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
}

// avg divides once, where a part is complete; in place reads and writes one buffer.
// CHECK-LABEL: sched.program @avg3_all_reduce_0
// CHECK-SAME: in_place
// CHECK-SAME: redop = #ccl<redop avg>
// CHECK: sched.recv_reduce_send {{.*}} store <output, {{.*}} finalize to
ccl.program @avg3 world(3) {
  %a = ccl.buffer "a" : !ccl.buffer<10xf16>
  ccl.all_reduce avg %a -> %a : !ccl.buffer<10xf16> -> !ccl.buffer<10xf16>
}

// One rank: a copy, no messages.
// CHECK-LABEL: sched.program @solo_all_reduce_0
// CHECK-SAME: scratch_count = 0
// CHECK: sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 1>
// CHECK-NOT: sched.send
ccl.program @solo world(1) {
  %a = ccl.buffer "a" : !ccl.buffer<5xi32>
  %b = ccl.buffer "b" : !ccl.buffer<5xi32>
  ccl.all_reduce max %a -> %b : !ccl.buffer<5xi32> -> !ccl.buffer<5xi32>
}

// A group's collective runs among the group's ranks.
// CHECK-LABEL: sched.program @grouped_all_reduce_0
// CHECK-SAME: ranks = 2
ccl.program @grouped world(4) {
  ccl.group @pair ranks [1, 3]
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  ccl.all_reduce sum %a -> %a group @pair : !ccl.buffer<8xf32> -> !ccl.buffer<8xf32>
}

// Pipelining: channels x chunks blocks of n parts each.
// PIPE-LABEL: sched.program @ring4_all_reduce_0
// PIPE-SAME: channels = 2
// PIPE-SAME: chunks = 2
// PIPE: sched.task channel 0 {
// PIPE-NEXT: sched.loop 0 to 2 {
// PIPE-NEXT: sched.send <input, (d0, d1) -> (d1 * 4 + d0 mod 4), 16>
// PIPE: sched.task channel 1 {
// PIPE-NEXT: sched.loop 0 to 2 {
// PIPE-NEXT: sched.send <input, (d0, d1) -> ((d1 + 2) * 4 + d0 mod 4), 16>

// Reduce-scatter and all-gather rings: rank j's block is contiguous.
// CHECK-LABEL: sched.program @halves_reduce_scatter_0
// CHECK-SAME: collective = #ccl<collective reduce_scatter>
// CHECK-SAME: input_count = 30 : i64, output_count = 10 : i64, ranks = 3
// CHECK: sched.send <input, (d0, d1) -> ((d0 + 2) mod 3 + d1), 3>
// CHECK: sched.recv_reduce_send
// CHECK: sched.recv from
// CHECK-NEXT: sched.reduce <scratch, {{.*}}>, <input, {{.*}}> -> <output, (d0, d1) -> (d1), 1>
// CHECK-LABEL: sched.program @halves_all_gather_1
// CHECK-SAME: collective = #ccl<collective all_gather>
// The own block goes into place in the pass that sends it on.
// CHECK: sched.send <input, (d0, d1) -> (d1), 1> to #{{.*}} at <output, (d0, d1) -> (d0 mod 3 + d1), 3> store <output, (d0, d1) -> (d0 mod 3 + d1), 3>
// CHECK: sched.recv_copy_send
ccl.program @halves world(3) {
  %big = ccl.buffer "big" : !ccl.buffer<30xf32>
  %small = ccl.buffer "small" : !ccl.buffer<10xf32>
  ccl.reduce_scatter sum %big -> %small : !ccl.buffer<30xf32> -> !ccl.buffer<10xf32>
  ccl.all_gather %small -> %big : !ccl.buffer<10xf32> -> !ccl.buffer<30xf32>
}

// Broadcast and reduce: pipelined chains from and to the root, one task per
// rank; all-to-all: pairwise exchange, written once for every rank.
// CHECK-LABEL: sched.program @rooted_broadcast_0
// CHECK-SAME: algorithm = "chain"
// CHECK-SAME: root = 1
// CHECK: sched.task channel 0 rank 1 {
// CHECK-NOT: sched.copy
// CHECK: sched.send <input, (d0, d1) -> (d1), 1> to #{{.*}} at <output, (d0, d1) -> (d1), 1> store <output, (d0, d1) -> (d1), 1>
// CHECK: sched.task channel 0 rank 2 {
// CHECK-NEXT: sched.loop
// CHECK-NEXT: sched.recv from
// CHECK-NEXT: sched.send <output,
// CHECK: sched.task channel 0 rank 0 {
// CHECK-NEXT: sched.loop
// CHECK-NEXT: sched.recv from
// CHECK-LABEL: sched.program @rooted_reduce_1
// CHECK-SAME: algorithm = "chain"
// CHECK: sched.task channel 0 rank 2 {
// CHECK-NEXT: sched.loop
// CHECK-NEXT: sched.recv_reduce_send from
// CHECK: sched.task channel 0 rank 1 {
// CHECK-NEXT: sched.loop
// CHECK-NEXT: sched.recv from
// CHECK-NEXT: sched.reduce <scratch, {{.*}}>, <input, {{.*}}> -> <output, {{.*}}>
// CHECK-LABEL: sched.program @rooted_all_to_all_2
// CHECK-SAME: algorithm = "pairwise"
// CHECK: sched.copy <input, (d0) -> (d0 mod 3), 3> -> <output, (d0) -> (d0 mod 3), 3>
// CHECK-NEXT: sched.loop 1 to 3 {
// CHECK-NEXT: sched.send <input, (d0, d1) -> ((d0 + d1) mod 3), 3> to {{.*}} at <output, (d0, d1) -> (d0 mod 3), 3>
ccl.program @rooted world(3) {
  %a = ccl.buffer "a" : !ccl.buffer<9xf32>
  %b = ccl.buffer "b" : !ccl.buffer<9xf32>
  ccl.broadcast %a -> %b root 1 : !ccl.buffer<9xf32> -> !ccl.buffer<9xf32>
  ccl.reduce sum %a -> %b root 1 : !ccl.buffer<9xf32> -> !ccl.buffer<9xf32>
  ccl.all_to_all %a -> %b : !ccl.buffer<9xf32> -> !ccl.buffer<9xf32>
}

// A send and its recv become one program on the two ranks, placed by
// rank_map; a barrier becomes signal rounds at doubling distances.
// CHECK-LABEL: ccl.program @p2p
// CHECK: ccl.recv %{{.*}} from 2 to 0 {schedule = @p2p_send_recv_0}
// CHECK: ccl.send %{{.*}} from 2 to 0 {schedule = @p2p_send_recv_0}
// CHECK: ccl.barrier {schedule = @p2p_barrier_1}
// CHECK-LABEL: sched.program @p2p_send_recv_0
// CHECK-SAME: collective = #ccl<collective send_recv>
// CHECK-SAME: rank_map = array<i64: 2, 0>, ranks = 2
// CHECK: sched.task channel 0 rank 0 {
// CHECK: sched.send <input, (d0, d1) -> (d1), 1> to #{{.*}} at <output, (d0, d1) -> (d1), 1>
// CHECK: sched.task channel 0 rank 1 {
// CHECK: sched.recv from
// CHECK-LABEL: sched.program @p2p_barrier_1
// CHECK-SAME: algorithm = "dissemination"
// CHECK: sched.signal to
// CHECK-NEXT: sched.recv from
// CHECK-NEXT: sched.signal to
// CHECK-NEXT: sched.recv from
// CHECK-NEXT: }
ccl.program @p2p world(3) {
  %a = ccl.buffer "a" : !ccl.buffer<5xf32>
  ccl.recv %a from 2 to 0 : !ccl.buffer<5xf32>
  ccl.send %a from 2 to 0 : !ccl.buffer<5xf32>
  ccl.barrier
}
