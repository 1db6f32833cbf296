// NVLS broadcast, chosen by hand: the root stores each piece once through
// the switch into every rank's output, then signals each rank per channel;
// the others only wait. The schedule must pass sched-verify and emit
// multicast stores.
// RUN: ccopt %s --ccl-lower-to-sched="topo=h100x8" --sched-verify | FileCheck %s
// RUN: ccopt %s --topo h100x8 --emit=cuda | FileCheck %s --check-prefix=CUDA

// Out of place, from the root's input; 2 channels x 3 pieces.
// CHECK-LABEL: sched.program @p_broadcast_0 attributes {algorithm = "nvls", channels = 2 : i64, chunks = 3 : i64
// CHECK-SAME: multicast
// CHECK-SAME: root = 2
// CHECK: sched.task channel 0 rank 2 {
// CHECK-NEXT: sched.loop 0 to 3 {
// CHECK-NEXT: sched.multimem_store <input, (d0, d1) -> (d1), 6> -> <output, (d0, d1) -> (d1), 6>
// CHECK-COUNT-3: sched.signal to
// CHECK: sched.task channel 0 rank 3 {
// CHECK-NEXT: sched.recv from #{{[a-z0-9]+}}
// CHECK-NOT: sched.send
// CHECK: sched.task channel 1 rank 2 {
// CHECK-NEXT: sched.loop 0 to 3 {
// CHECK-NEXT: sched.multimem_store <input, (d0, d1) -> (d1 + 3), 6> -> <output, (d0, d1) -> (d1 + 3), 6>

// In place the switch reads the root's output.
// CHECK-LABEL: sched.program @p_broadcast_1
// CHECK-SAME: in_place
// CHECK: sched.task channel 0 rank 1 {
// CHECK: sched.multimem_store <output, (d0, d1) -> (d1), 1> -> <output, (d0, d1) -> (d1), 1>

// CUDA: // ccopt-schedule kernel=ccopt_p_broadcast_0 collective=broadcast {{.*}} root=2 {{.*}}algorithm=nvls protocol=simple mailbox=0 multicast=1
// CUDA: cc_multimem_store(args, rank, CC_BUF_OUTPUT, dst_b, input + src_b, src_n);
// CUDA: cc_post_send(args, rank, ch, to);
// CUDA: cc_wait_recv(args, rank, ch, from);
// CUDA: // ccopt-schedule kernel=ccopt_p_broadcast_1 {{.*}} in_place=1 root=1
// CUDA: cc_multimem_store(args, rank, CC_BUF_OUTPUT, dst_b, output + src_b, src_n);

ccl.program @p world(4) {
  %a = ccl.buffer "a" multicast : !ccl.buffer<1000xf32>
  %b = ccl.buffer "b" multicast : !ccl.buffer<1000xf32>
  ccl.broadcast %a -> %b root 2 {algorithm = "nvls", channels = 2 : i64, chunks = 3 : i64} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.broadcast %b -> %b root 1 {algorithm = "nvls", channels = 1 : i64, chunks = 1 : i64} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
}
