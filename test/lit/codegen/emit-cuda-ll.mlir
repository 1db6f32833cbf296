// RUN: ccopt %s --split-input-file --emit=cuda | FileCheck %s
// The LL kernels compile against the host primitives too.
// RUN: ccopt %s --split-input-file --emit=cuda -o %t.cu
// RUN: c++ -std=c++17 -fsyntax-only -x c++ -I %runtime_include %t.cu

// Under LL (`protocol = ll` on the program, from the collective's
// `protocol`), a send packs its part into 8-byte {data, flag} lines of the
// receiver's mailbox and a receiving step copies the lines into its part:
// no cc_peer_buf writes, no fence + flag (cc_post_send) for data.
// The metadata gives the runtime the mailbox that follows the counters of
// every sync area: a ring's rank hears from one rank on a channel, so 1
// channel x 1 region x 6 slots x 250 lines x 8 bytes; no table of senders.
// CHECK: // ccopt-schedule kernel=ccopt_ring4_all_reduce_0 {{.*}} algorithm=ring protocol=ll mailbox=12000
// CHECK-NOT: _ll_senders
// CHECK-LABEL: CC_KERNEL(ccopt_ring4_all_reduce_0) {
// CHECK: const cc_ll_box llbox = {6LL, 250LL, 1LL, 0};
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
// CHECK: // ccopt-schedule kernel=ccopt_ring4_all_reduce_1 {{.*}} wire=f16 {{.*}} protocol=ll mailbox=6048
// CHECK: const cc_ll_box llbox = {6LL, 126LL, 1LL, 0};
// CHECK: cc_ll_send_reduce<ccopt_ring4_all_reduce_1_scaled_copy, W>(args, llbox, rank, ch, to, input + src_b, input + src_b, src_n, 1LL);
// CHECK: cc_ll_send_reduce<ccopt_ring4_all_reduce_1_scaled_sum, W>(

// Chains: one slot per message.
// CHECK: // ccopt-schedule kernel=ccopt_ring4_broadcast_2 {{.*}} algorithm=chain protocol=ll mailbox=8000
// CHECK: const cc_ll_box llbox = {1LL, 1000LL, 1LL, 0};

// A direct all-to-all: each rank hears from the 3 others, one region each,
// found in the table of senders per (channel, receiver); the second
// channel copies the rank's own block and hears from nobody.
// CHECK: // ccopt-schedule kernel=ccopt_ring4_all_to_all_3 {{.*}} channels=2 {{.*}} algorithm=direct protocol=ll mailbox=12000
// CHECK: CC_TABLE int ccopt_ring4_all_to_all_3_ll_senders[] = {1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
// CHECK: const cc_ll_box llbox = {1LL, 250LL, 3LL, ccopt_ring4_all_to_all_3_ll_senders};

ccl.program @ring4 world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<1000xf32>
  %b = ccl.buffer "b" : !ccl.buffer<1000xf32>
  ccl.all_reduce sum %a -> %b {protocol = "ll"} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.all_reduce avg %a -> %a {protocol = "ll", compress = f16} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.broadcast %a -> %b root 1 {protocol = "ll"} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.all_to_all %a -> %b {algorithm = "direct", protocol = "ll"} : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
}

// -----

// Where the table would pass 256 Ki entries (128 ranks x 32 channels x 127
// senders), every rank has a region: 128 x 32 channels x 1 slot x 2 lines
// (one element a message).
// CHECK: // ccopt-schedule kernel=ccopt_a2a128_all_to_all_0 {{.*}} protocol=ll mailbox=65536
// CHECK-NOT: _ll_senders
// CHECK: const cc_ll_box llbox = {1LL, 2LL, 128LL, 0};
ccl.program @a2a128 world(128) {
  %a = ccl.buffer "a" : !ccl.buffer<4096xf32>
  ccl.all_to_all %a -> %a {algorithm = "direct", protocol = "ll", channels = 32} : !ccl.buffer<4096xf32> -> !ccl.buffer<4096xf32>
}
