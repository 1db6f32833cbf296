// RUN: ccopt %s --emit=cuda | FileCheck %s
// The LL kernels compile against the host primitives too.
// RUN: ccopt %s --emit=cuda -o %t.cu
// RUN: c++ -std=c++17 -fsyntax-only -x c++ -I %runtime_include %t.cu

// Under LL (`protocol = ll` on the program, from the collective's
// `protocol`), a send packs its part into 8-byte {data, flag} lines of the
// receiver's mailbox and a receiving step copies the lines into its part:
// no cc_peer_buf writes, no fence + flag (cc_post_send) for data.
// The metadata gives the runtime the mailbox that follows the counters of
// every sync area: 4 ranks x 1 channel x 6 slots x 250 lines x 8 bytes.
// CHECK: // ccopt-schedule kernel=ccopt_ring4_all_reduce_0 {{.*}} algorithm=ring protocol=ll mailbox=48000
// CHECK-LABEL: CC_KERNEL(ccopt_ring4_all_reduce_0) {
// CHECK: const cc_ll_box llbox = {6LL, 250LL};
// CHECK: { // send
// CHECK: cc_ll_send<W>(args, llbox, rank, ch, to, input + src_b, src_n);
// CHECK-NOT: cc_post_send
// CHECK: { // recv_reduce_send
// CHECK: cc_ll_recv(args, llbox, rank, ch, from, scratch + recvd_b, recvd_n);
// CHECK-NEXT: cc_ll_send_reduce<cc_op_sum, W>(args, llbox, rank, ch, to, scratch + recvd_b, input + local_b, recvd_n, 1LL);
// The step that completes a part sends it on and keeps it.
// CHECK: cc_ll_send_reduce<cc_op_sum, T>(args, llbox, rank, ch, to, scratch + recvd_b, input + local_b, recvd_n, 1LL);
// CHECK-NEXT: cc_reduce<cc_op_sum>(output + store_b, (T*)nullptr, scratch + recvd_b, input + local_b, recvd_n, 1LL);
// CHECK: { // recv_copy_send
// CHECK: cc_ll_recv(args, llbox, rank, ch, from, output + recvd_b, recvd_n);
// CHECK-NEXT: cc_ll_send<T>(args, llbox, rank, ch, to, output + recvd_b, recvd_n);
// CHECK: { // recv
// CHECK: cc_ll_recv(args, llbox, rank, ch, from, output + into_b, into_n);
// CHECK-NOT: cc_wait_recv
// CHECK: cc_end(args, rank);

// A narrow wire: f16 elements, two to a data word; prescaled avg.
// CHECK: // ccopt-schedule kernel=ccopt_ring4_all_reduce_1 {{.*}} wire=f16 {{.*}} protocol=ll mailbox=24192
// CHECK: const cc_ll_box llbox = {6LL, 126LL};
// CHECK: cc_ll_send_reduce<ccopt_ring4_all_reduce_1_scaled_copy, W>(args, llbox, rank, ch, to, input + src_b, input + src_b, src_n, 1LL);
// CHECK: cc_ll_send_reduce<ccopt_ring4_all_reduce_1_scaled_sum, W>(

// Chains: one slot per message.
// CHECK: // ccopt-schedule kernel=ccopt_ring4_broadcast_2 {{.*}} algorithm=chain protocol=ll mailbox=32000
// CHECK: const cc_ll_box llbox = {1LL, 1000LL};

ccl.program @ring4 world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<1000xf32>
  %b = ccl.buffer "b" : !ccl.buffer<1000xf32>
  ccl.all_reduce sum %a -> %b {protocol = "ll"} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.all_reduce avg %a -> %a {protocol = "ll", compress = f16} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.broadcast %a -> %b root 1 {protocol = "ll"} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
}
