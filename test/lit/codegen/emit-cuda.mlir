// RUN: ccopt %s --emit=cuda | FileCheck %s
// The emitted text is C++ the host compiler accepts against the host primitives.
// RUN: ccopt %s --emit=cuda -o %t.cu
// RUN: c++ -std=c++17 -fsyntax-only -x c++ -I %runtime_include %t.cu

// CHECK: #include "ccopt/device.h"
// Each kernel is preceded by the metadata a launcher reads (runtime/ccrt).
// CHECK: // ccopt-schedule kernel=ccopt_ring4_all_reduce_0 collective=all_reduce redop=sum ranks=4 channels=1 element=f32 wire=f32 input=1000 output=1000 scratch={{[0-9]+}} in_place=0 root=-1 rank_map=- algorithm=ring
// CHECK-LABEL: // ring4_all_reduce_0: all_reduce sum, ring, 4 ranks, 1 channel(s), 1000 -> 1000 x f32
// CHECK-NEXT: CC_KERNEL(ccopt_ring4_all_reduce_0) {
// CHECK: typedef float T;
// CHECK: typedef float W;
// CHECK: const long long rank = CC_RANK;
// CHECK: cc_begin(args, rank);
// CHECK: if (ch == 0) {
// CHECK-NEXT: const long long r = rank;
// Loops stay loops; maps become expressions of r and the loop indices.
// CHECK: for (long long i1 = 0; i1 < 1; ++i1) {
// CHECK: { // send
// CHECK: const long long to = cc_mod((r + 1LL), 4LL);
// CHECK: const long long src_b = cc_part_begin(1000LL, 4LL, src_i);
// CHECK: cc_copy(cc_peer_buf<W>(args, rank, to, CC_BUF_SCRATCH) + dst_b, input + src_b, src_n);
// CHECK-NEXT: cc_post_send(args, rank, ch, to);
// CHECK: for (long long i2 = 1; i2 < 3; ++i2) {
// CHECK: { // recv_reduce_send
// CHECK: cc_wait_recv(args, rank, ch, from);
// CHECK-NEXT: cc_reduce<cc_op_sum>(cc_peer_buf<W>(args, rank, to, CC_BUF_SCRATCH) + dst_b, (W*)nullptr, scratch + recvd_b, input + local_b, recvd_n, 1LL);
// The step that completes a part keeps it and starts the all-gather.
// CHECK: cc_reduce<cc_op_sum>(cc_peer_buf<T>(args, rank, to, CC_BUF_OUTPUT) + dst_b, output + store_b, scratch + recvd_b, input + local_b, recvd_n, 1LL);
// CHECK: { // recv_copy_send
// CHECK: cc_copy(cc_peer_buf<T>(args, rank, to, CC_BUF_OUTPUT) + dst_b, output + recvd_b, recvd_n);
// CHECK: { // recv
// CHECK: cc_end(args, rank);
ccl.program @ring4 world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<1000xf32>
  %b = ccl.buffer "b" : !ccl.buffer<1000xf32>
  ccl.all_reduce sum %a -> %b : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
}

// avg divides by the ranks where a part completes; bf16 maps to cc_bf16.
// CHECK: // ccopt-schedule kernel=ccopt_avg3_all_reduce_0 collective=all_reduce redop=avg ranks=3 {{.*}} element=bf16 {{.*}} in_place=1 root=-1
// CHECK-LABEL: // avg3_all_reduce_0: all_reduce avg
// CHECK: typedef cc_bf16 T;
// CHECK: cc_reduce<cc_op_sum>({{.*}}, output + store_b, {{.*}}, 3LL);
ccl.program @avg3 world(3) {
  %a = ccl.buffer "a" : !ccl.buffer<10xbf16>
  ccl.all_reduce avg %a -> %a : !ccl.buffer<10xbf16> -> !ccl.buffer<10xbf16>
}

// Explicit per-rank tasks are guarded by the rank; a send with a store
// writes the local part and the peer's.
// CHECK: // ccopt-schedule kernel=ccopt_hand collective=all_gather redop=none ranks=2 channels=1 element=i32 wire=i32 input=1 output=2 scratch=0 in_place=0 root=-1 rank_map=- algorithm=direct
// CHECK-LABEL: // hand: all_gather, direct, 2 ranks
// CHECK: if (ch == 0 && rank == 1) {
// CHECK: { // send
// CHECK: cc_copy(output + store_b, input + src_b, src_n);
// CHECK-NEXT: cc_copy(cc_peer_buf<T>(args, rank, to, CC_BUF_OUTPUT) + dst_b, input + src_b, src_n);
// CHECK-NEXT: cc_post_send(args, rank, ch, to);
sched.program @hand attributes {algorithm = "direct", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = i32,
    input_count = 1 : i64, output_count = 2 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 rank 0 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 2>
    sched.send <input, (d0) -> (0), 1> to affine_map<(d0) -> (1)> at <output, (d0) -> (0), 2>
    sched.recv from affine_map<(d0) -> (1)>
  }
  sched.task channel 0 rank 1 {
    sched.send <input, (d0) -> (0), 1> to affine_map<(d0) -> (0)> at <output, (d0) -> (1), 2>
        store <output, (d0) -> (1), 2>
    sched.recv from affine_map<(d0) -> (0)>
  }
}

// Per-rank tasks alike but for constants (a tree's ranks) share one body:
// the constants that differ come from the task's row of a table (`d1` and
// `d1 + 2` are offsets 0 and 2), a column for those that differ alike,
// those alike stay in the body; a task of another shape keeps its own.
// CHECK-LABEL: // shared: all_gather, direct, 3 ranks
// CHECK: CC_TABLE int ccopt_shared_shared0[] = {0, 1, 2, 2, 2, 0};
// CHECK-NEXT: CC_TABLE int ccopt_shared_rows[] = {0, 1, -1};
// CHECK: const int row = ccopt_shared_rows[ch * 3LL + rank];
// CHECK: if (row >= 0 && row < 2) { // 2 tasks alike
// CHECK-NEXT: const auto* const k = ccopt_shared_shared0 + (row - 0) * 3;
// CHECK-NEXT: const long long r = rank;
// CHECK: { // copy
// CHECK-NEXT: const long long src_i = i1;
// CHECK: const long long dst_i = (i1 + k[0]);
// CHECK: { // send
// CHECK-NEXT: const long long to = k[1];
// CHECK: const long long dst_i = (i1 + k[0]);
// CHECK: const long long to = k[2];
// CHECK: { // recv
// CHECK-NEXT: const long long from = k[1];
// CHECK: if (ch == 0 && rank == 2) {
// CHECK-NOT: k[
// CHECK: cc_end(args, rank);
sched.program @shared attributes {algorithm = "direct", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = i32,
    input_count = 2 : i64, output_count = 6 : i64, ranks = 3 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 rank 0 {
    sched.loop 0 to 2 {
      sched.copy <input, (d0, d1) -> (d1), 2> -> <output, (d0, d1) -> (d1), 6>
      sched.send <input, (d0, d1) -> (d1), 2> to affine_map<(d0, d1) -> (1)> at <output, (d0, d1) -> (d1), 6>
      sched.send <input, (d0, d1) -> (d1), 2> to affine_map<(d0, d1) -> (2)> at <output, (d0, d1) -> (d1), 6>
    }
    sched.loop 0 to 2 {
      sched.recv from affine_map<(d0, d1) -> (1)>
      sched.recv from affine_map<(d0, d1) -> (2)>
    }
  }
  sched.task channel 0 rank 1 {
    sched.loop 0 to 2 {
      sched.copy <input, (d0, d1) -> (d1), 2> -> <output, (d0, d1) -> (d1 + 2), 6>
      sched.send <input, (d0, d1) -> (d1), 2> to affine_map<(d0, d1) -> (2)> at <output, (d0, d1) -> (d1 + 2), 6>
      sched.send <input, (d0, d1) -> (d1), 2> to affine_map<(d0, d1) -> (0)> at <output, (d0, d1) -> (d1 + 2), 6>
    }
    sched.loop 0 to 2 {
      sched.recv from affine_map<(d0, d1) -> (2)>
      sched.recv from affine_map<(d0, d1) -> (0)>
    }
  }
  sched.task channel 0 rank 2 {
    sched.loop 0 to 2 {
      sched.recv from affine_map<(d0, d1) -> (0)>
      sched.recv from affine_map<(d0, d1) -> (1)>
    }
    sched.loop 0 to 2 {
      sched.copy <input, (d0, d1) -> (d1), 2> -> <output, (d0, d1) -> (d1 + 4), 6>
      sched.send <input, (d0, d1) -> (d1), 2> to affine_map<(d0, d1) -> (0)> at <output, (d0, d1) -> (d1 + 4), 6>
      sched.send <input, (d0, d1) -> (d1), 2> to affine_map<(d0, d1) -> (1)> at <output, (d0, d1) -> (d1 + 4), 6>
    }
  }
}

// Channels that cut their shares in different numbers of pieces share one
// body too: loop bounds and parts come from the row like other constants.
// CHECK-LABEL: // pieces: all_gather, ring, 2 ranks, 2 channel(s)
// CHECK: CC_TABLE int ccopt_pieces_shared0[] = {2, 4, 0, 8, 3, 6, 3, 12};
// CHECK: if (row >= 0 && row < 2) { // 2 tasks alike
// CHECK: for (long long i1 = 0; i1 < k[0]; ++i1) {
// CHECK-NEXT: { // copy
// CHECK-NEXT: const long long src_i = (i1 + k[2]);
// CHECK-NEXT: const long long src_b = cc_part_begin(12LL, k[1], src_i);
// CHECK: const long long dst_b = cc_part_begin(24LL, k[3], dst_i);
// CHECK: for (long long i1 = 0; i1 < k[0]; ++i1) {
// CHECK-NEXT: { // recv
// CHECK-NOT: if (ch ==
// CHECK: cc_end(args, rank);
sched.program @pieces attributes {algorithm = "ring", channels = 2 : i64,
    collective = #ccl<collective all_gather>, element_type = f32,
    input_count = 12 : i64, output_count = 24 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 {
    sched.loop 0 to 2 {
      sched.copy <input, (d0, d1) -> (d1), 4> -> <output, (d0, d1) -> (d0 * 4 + d1), 8>
      sched.send <input, (d0, d1) -> (d1), 4> to affine_map<(d0, d1) -> ((d0 + 1) mod 2)> at <output, (d0, d1) -> (d0 * 4 + d1), 8>
    }
    sched.loop 0 to 2 {
      sched.recv from affine_map<(d0, d1) -> ((d0 + 1) mod 2)>
    }
  }
  sched.task channel 1 {
    sched.loop 0 to 3 {
      sched.copy <input, (d0, d1) -> (d1 + 3), 6> -> <output, (d0, d1) -> (d0 * 6 + d1 + 3), 12>
      sched.send <input, (d0, d1) -> (d1 + 3), 6> to affine_map<(d0, d1) -> ((d0 + 1) mod 2)> at <output, (d0, d1) -> (d0 * 6 + d1 + 3), 12>
    }
    sched.loop 0 to 3 {
      sched.recv from affine_map<(d0, d1) -> ((d0 + 1) mod 2)>
    }
  }
}

// A task with a rank order: d0 and peers are positions in it.
// CHECK-LABEL: // ordered: all_reduce sum, ring, 4 ranks
// CHECK: CC_TABLE int ccopt_ordered_task0_order[] = {0, 2, 3, 1};
// CHECK-NEXT: CC_TABLE int ccopt_ordered_task0_position[] = {0, 3, 1, 2};
// CHECK: const long long r = ccopt_ordered_task0_position[rank];
// CHECK: const long long to = ccopt_ordered_task0_order[cc_mod((r + 1LL), 4LL)];
sched.program @ordered attributes {algorithm = "ring", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 8 : i64, output_count = 8 : i64, ranks = 4 : i64,
    redop = #ccl<redop sum>, scratch_count = 8 : i64} {
  sched.task channel 0 attributes {rank_map = array<i64: 0, 2, 3, 1>} {
    sched.loop 0 to 1 {
      sched.send <input, (d0, d1) -> (d1 * 4 + d0 mod 4), 4> to affine_map<(d0, d1) -> ((d0 + 1) mod 4)> at <scratch, (d0, d1) -> (d1 * 4 + d0 mod 4), 4>
      sched.loop 1 to 3 {
        sched.recv_reduce_send from affine_map<(d0, d1, d2) -> ((d0 + 3) mod 4)> <scratch, (d0, d1, d2) -> (d1 * 4 + (d0 - d2) mod 4), 4>, <input, (d0, d1, d2) -> (d1 * 4 + (d0 - d2) mod 4), 4> to affine_map<(d0, d1, d2) -> ((d0 + 1) mod 4)> at <scratch, (d0, d1, d2) -> (d1 * 4 + (d0 - d2) mod 4), 4>
      }
      sched.recv_reduce_send from affine_map<(d0, d1) -> ((d0 + 3) mod 4)> <scratch, (d0, d1) -> (d1 * 4 + (d0 + 1) mod 4), 4>, <input, (d0, d1) -> (d1 * 4 + (d0 + 1) mod 4), 4> store <output, (d0, d1) -> (d1 * 4 + (d0 + 1) mod 4), 4> to affine_map<(d0, d1) -> ((d0 + 1) mod 4)> at <output, (d0, d1) -> (d1 * 4 + (d0 + 1) mod 4), 4>
      sched.loop 1 to 3 {
        sched.recv_copy_send from affine_map<(d0, d1, d2) -> ((d0 + 3) mod 4)> <output, (d0, d1, d2) -> (d1 * 4 + (d0 - d2 + 5) mod 4), 4> to affine_map<(d0, d1, d2) -> ((d0 + 1) mod 4)> at <output, (d0, d1, d2) -> (d1 * 4 + (d0 - d2 + 5) mod 4), 4>
      }
      sched.recv from affine_map<(d0, d1) -> ((d0 + 3) mod 4)>
    }
  }
}
