// RUN: ccopt %s --emit=mlir | ccopt --emit=mlir | FileCheck %s
// RUN: ccopt %s --emit=mlir --sched-verify | FileCheck %s
// RUN: ccopt %s --emit=mlir --pass-pipeline="builtin.module(sched-verify)" --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: ccopt %s --emit=mlir --pass-pipeline="builtin.module(sched-verify)" --emit=cuda --topo h100x8 | FileCheck %s --check-prefix=CUDA

// NVLS all-reduce for two ranks written by hand: reduce the own part through
// the switch, store it to everyone, signal everyone. The input and output
// are multicast-bound (`multicast`).
// CHECK-LABEL: sched.program @nvls2
// CHECK-SAME: multicast
// CHECK: sched.multimem_reduce <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
// CHECK: sched.multimem_store <output, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
// CHECK: sched.signal to

// The metadata tells the runtime to bind multicast memory; the steps go
// through the multicast addresses of the input and output.
// CUDA: // ccopt-schedule kernel=ccopt_nvls2 {{.*}} algorithm=nvls protocol=simple mailbox=0 multicast=1
// CUDA: cc_multimem_reduce<cc_op_sum>(args, rank, CC_BUF_INPUT, output + dst_b, src_b, src_n, 1LL);
// CUDA: cc_multimem_store(args, rank, CC_BUF_OUTPUT, dst_b, output + src_b, src_n);
// CUDA: cc_post_send(args, rank, ch, to);
// CUDA: cc_wait_recv(args, rank, ch, from);
#other = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @nvls2 attributes {algorithm = "nvls", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 6 : i64, output_count = 6 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 0 : i64, multicast} {
  sched.task channel 0 {
    sched.multimem_reduce <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
    sched.multimem_store <output, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
    sched.signal to #other
    sched.recv from #other
  }
}
