// RUN: ccopt %s --emit=cuda | FileCheck %s
// The LL128 kernels compile against the host primitives too.
// RUN: ccopt %s --emit=cuda -o %t.cu
// RUN: c++ -std=c++17 -fsyntax-only -x c++ -I %runtime_include %t.cu

// Under LL128 (`protocol = ll128` on the program) the steps are printed as
// under LL, over a cc_ll128_box: its overloads pack a part into 128-byte
// lines of 120 data bytes and a flag word in the receiver's mailbox.
// The metadata sizes that mailbox in 128-byte lines: 1 channel x 1 region
// (a ring) x 6 slots x 9 lines (1000 bytes a message) x 128 bytes.
// CHECK: // ccopt-schedule kernel=ccopt_ring4_all_reduce_0 {{.*}} algorithm=ring protocol=ll128 mailbox=6912
// CHECK-LABEL: CC_KERNEL(ccopt_ring4_all_reduce_0) {
// CHECK: const cc_ll128_box llbox = {6LL, 9LL, 1LL, 0};
// CHECK: { // send
// CHECK: cc_ll_send<W>(args, llbox, rank, ch, to, input + src_b, src_n);
// CHECK-NOT: cc_post_send
// CHECK: { // recv_reduce_send
// CHECK: cc_ll_recv(args, llbox, rank, ch, from, scratch + recvd_b, recvd_n);
// CHECK-NEXT: cc_ll_send_reduce<cc_op_sum, W>(args, llbox, rank, ch, to, scratch + recvd_b, input + local_b, recvd_n, 1LL);
// CHECK: { // recv_copy_send
// CHECK: cc_ll_recv(args, llbox, rank, ch, from, output + recvd_b, recvd_n);
// CHECK-NEXT: cc_ll_send<T>(args, llbox, rank, ch, to, output + recvd_b, recvd_n);
// CHECK: { // recv
// CHECK: cc_ll_recv(args, llbox, rank, ch, from, output + into_b, into_n);
// CHECK-NOT: cc_wait_recv
// CHECK: cc_end(args, rank);

// A narrow wire: 250 f16 elements (500 bytes) a message, 5 lines.
// CHECK: // ccopt-schedule kernel=ccopt_ring4_all_reduce_1 {{.*}} wire=f16 {{.*}} protocol=ll128 mailbox=3840
// CHECK: const cc_ll128_box llbox = {6LL, 5LL, 1LL, 0};

// A chain: one slot of 4000 bytes, 34 lines.
// CHECK: // ccopt-schedule kernel=ccopt_ring4_broadcast_2 {{.*}} algorithm=chain protocol=ll128 mailbox=4352
// CHECK: const cc_ll128_box llbox = {1LL, 34LL, 1LL, 0};

// Simple and LL programs next to it keep their own forms.
// CHECK: // ccopt-schedule kernel=ccopt_ring4_all_reduce_3 {{.*}} protocol=ll mailbox=12000
// CHECK: const cc_ll_box llbox = {6LL, 250LL, 1LL, 0};
// CHECK: // ccopt-schedule kernel=ccopt_ring4_all_reduce_4 {{.*}} protocol=simple mailbox=0
// CHECK-NOT: llbox
// CHECK: cc_post_send

ccl.program @ring4 world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<1000xf32>
  %b = ccl.buffer "b" : !ccl.buffer<1000xf32>
  ccl.all_reduce sum %a -> %b {protocol = "ll128"} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.all_reduce avg %a -> %a {protocol = "ll128", compress = f16} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.broadcast %a -> %b root 1 {protocol = "ll128"} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.all_reduce sum %a -> %b {protocol = "ll"} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.all_reduce sum %a -> %b {protocol = "simple"} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
}
