// RUN: not ccopt %s --emit=mlir --pass-pipeline="builtin.module(sched-verify)" --emit=cuda 2>&1 | FileCheck %s

// NVLS steps move data through the switch, not in messages: an LL program
// cannot hold them (and the emitter says so before anything else).
// CHECK: error: no LL emission: NVLS steps have no LL or LL128 form
#other = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @nvls_ll attributes {algorithm = "nvls", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 6 : i64, output_count = 6 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 0 : i64, protocol = #sched<protocol ll>} {
  sched.task channel 0 {
    sched.multimem_reduce <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
    sched.multimem_store <output, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
    sched.signal to #other
    sched.recv from #other
  }
}
