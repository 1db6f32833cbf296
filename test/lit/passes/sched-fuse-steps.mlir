// RUN: ccopt %s --sched-fuse-steps | FileCheck %s
// RUN: ccopt %s --sched-fuse-steps --sched-verify | FileCheck %s --check-prefix=OK

// A hand-written ring all-reduce over two ranks with unfused steps: the
// pass fuses recv + reduce + send and recv + send, and the result still
// verifies.
// CHECK-LABEL: sched.program @ring2
// CHECK: sched.send <input
// CHECK-NEXT: sched.recv_reduce_send from {{.*}} <scratch, {{.*}}>, <input, {{.*}}> store <output, [[P:.*]]> to {{.*}} at <output, [[P]]>
// CHECK-NEXT: sched.recv from
// CHECK-NOT: sched.reduce
// CHECK-LABEL: sched.program @chain3
// CHECK: sched.task channel 0 rank 0 {
// CHECK-NEXT: sched.send <input, {{.*}}> to {{.*}} at <output, [[O:.*]]> store <output, [[O]]>
// CHECK-NEXT: }
// CHECK: sched.task channel 0 rank 1 {
// CHECK-NEXT: sched.recv_copy_send from {{.*}} <output, {{.*}}> to {{.*}} at <output
// CHECK-NEXT: }
// CHECK: sched.task channel 0 rank 2 {
// CHECK-NEXT: sched.recv_copy_send from {{.*}} <output, {{.*}}> store <input, {{.*}}> to {{.*}} at <output
// OK: sched.program @ring2

sched.program @ring2 attributes {collective = #ccl<collective all_reduce>,
    redop = #ccl<redop sum>, ranks = 2 : i64, channels = 1 : i64,
    element_type = f32, input_count = 64 : i64, output_count = 64 : i64,
    scratch_count = 64 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    sched.send <input, (d0) -> (d0), 2> to affine_map<(d0) -> ((d0 + 1) mod 2)> at <scratch, (d0) -> (d0), 2>
    sched.recv from affine_map<(d0) -> ((d0 + 1) mod 2)>
    sched.reduce <scratch, (d0) -> ((d0 + 1) mod 2), 2>, <input, (d0) -> ((d0 + 1) mod 2), 2> -> <output, (d0) -> ((d0 + 1) mod 2), 2>
    sched.send <output, (d0) -> ((d0 + 1) mod 2), 2> to affine_map<(d0) -> ((d0 + 1) mod 2)> at <output, (d0) -> ((d0 + 1) mod 2), 2>
    sched.recv from affine_map<(d0) -> ((d0 + 1) mod 2)>
  }
}

// A broadcast chain 0 -> 1 -> 2 -> 3 written step by step; the root copies
// its input out and sends it (a send with a store); rank 2 copies what
// arrived and forwards the copy (a recv_copy_send with a store).
sched.program @chain3 attributes {collective = #ccl<collective broadcast>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32,
    input_count = 64 : i64, output_count = 64 : i64, scratch_count = 0 : i64,
    root = 0 : i64, algorithm = "chain"} {
  sched.task channel 0 rank 0 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 1>
    sched.send <input, (d0) -> (0), 1> to affine_map<(d0) -> (1)> at <output, (d0) -> (0), 1>
  }
  sched.task channel 0 rank 1 {
    sched.recv from affine_map<(d0) -> (0)>
    sched.send <output, (d0) -> (0), 1> to affine_map<(d0) -> (2)> at <output, (d0) -> (0), 1>
  }
  sched.task channel 0 rank 2 {
    sched.recv from affine_map<(d0) -> (1)>
    sched.copy <output, (d0) -> (0), 1> -> <input, (d0) -> (0), 1>
    sched.send <input, (d0) -> (0), 1> to affine_map<(d0) -> (3)> at <output, (d0) -> (0), 1>
  }
  sched.task channel 0 rank 3 {
    sched.recv from affine_map<(d0) -> (2)>
  }
}
