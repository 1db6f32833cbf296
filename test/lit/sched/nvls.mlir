// RUN: ccopt %s --emit=mlir | ccopt --emit=mlir | FileCheck %s
// RUN: ccopt %s --emit=mlir --sched-verify | FileCheck %s
// RUN: not ccopt %s --emit=mlir --pass-pipeline="builtin.module(sched-verify)" --emit=cuda 2>&1 | FileCheck %s --check-prefix=NO-CUDA

// NVLS all-reduce for two ranks written by hand: reduce the own part through
// the switch, store it to everyone, signal everyone.
// CHECK-LABEL: sched.program @nvls2
// CHECK: sched.multimem_reduce <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
// CHECK: sched.multimem_store <output, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
// CHECK: sched.signal to
// NO-CUDA: error: no CUDA emission for sched.multimem_{{reduce|store}} yet: NVLS needs multicast memory the runtime does not set up
#other = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @nvls2 attributes {algorithm = "nvls", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 6 : i64, output_count = 6 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 0 : i64} {
  sched.task channel 0 {
    sched.multimem_reduce <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
    sched.multimem_store <output, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
    sched.signal to #other
    sched.recv from #other
  }
}
