// RUN: ccopt %s --emit=mlir --sched-verify | FileCheck %s
// RUN: ccopt %s --emit=mlir --pass-pipeline="builtin.module(sched-verify{race-check-limit=0})" | FileCheck %s

// A hand-written all-reduce for two ranks, one task per rank: each reduces
// the part it owns and sends the result to the other. It verifies as is.
// CHECK-LABEL: sched.program @direct2
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @direct2 attributes {algorithm = "direct", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 7 : i64, output_count = 7 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 7 : i64} {
  sched.task channel 0 rank 0 {
    sched.send <input, (d0) -> (1), 2> to #peer at <scratch, (d0) -> (1), 2>
    sched.recv from #peer
    sched.reduce <scratch, (d0) -> (0), 2>, <input, (d0) -> (0), 2> -> <output, (d0) -> (0), 2>
    sched.send <output, (d0) -> (0), 2> to #peer at <output, (d0) -> (0), 2>
    sched.recv from #peer
  }
  sched.task channel 0 rank 1 {
    sched.send <input, (d0) -> (0), 2> to #peer at <scratch, (d0) -> (0), 2>
    sched.recv from #peer
    sched.reduce <scratch, (d0) -> (1), 2>, <input, (d0) -> (1), 2> -> <output, (d0) -> (1), 2>
    sched.send <output, (d0) -> (1), 2> to #peer at <output, (d0) -> (1), 2>
    sched.recv from #peer
  }
}

// The same, written once for both ranks (the rank is d0).
// CHECK-LABEL: sched.program @direct2_parametric
sched.program @direct2_parametric attributes {algorithm = "direct", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 7 : i64, output_count = 7 : i64, ranks = 2 : i64,
    redop = #ccl<redop max>, scratch_count = 7 : i64} {
  sched.task channel 0 {
    sched.send <input, (d0) -> ((d0 + 1) mod 2), 2> to #peer at <scratch, (d0) -> ((d0 + 1) mod 2), 2>
    sched.recv from #peer
    sched.reduce <scratch, (d0) -> (d0), 2>, <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
    sched.send <output, (d0) -> (d0), 2> to #peer at <output, (d0) -> (d0), 2>
    sched.recv from #peer
  }
}

// An all-gather by direct sends: every rank writes its input into every
// other rank's output.
// CHECK-LABEL: sched.program @allgather3
sched.program @allgather3 attributes {algorithm = "direct", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = i32,
    input_count = 5 : i64, output_count = 15 : i64, ranks = 3 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (d0), 3>
    sched.loop 1 to 3 {
      sched.send <input, (d0, d1) -> (0), 1> to affine_map<(d0, d1) -> ((d0 + d1) mod 3)> at <output, (d0, d1) -> (d0), 3>
    }
    sched.loop 1 to 3 {
      sched.recv from affine_map<(d0, d1) -> ((d0 - d1) mod 3)>
    }
  }
}

// Two channels, each the other's steps on its own half of every buffer:
// executing channel 0 and checking that its elements, moved by channel 1's
// part shifts, meet none of its own and cover the output proves both.
// CHECK-LABEL: sched.program @moved_channels
#other = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @moved_channels attributes {algorithm = "hand", channels = 2 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 8 : i64, output_count = 8 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 8 : i64} {
  sched.task channel 0 {
    sched.send <input, (d0) -> ((d0 + 1) mod 2), 4> to #other at <scratch, (d0) -> ((d0 + 1) mod 2), 4>
    sched.recv from #other into <scratch, (d0) -> (d0), 4>
    sched.reduce <input, (d0) -> (d0), 4>, <scratch, (d0) -> (d0), 4> -> <output, (d0) -> (d0), 4>
    sched.send <output, (d0) -> (d0), 4> to #other at <output, (d0) -> (d0), 4>
    sched.recv from #other into <output, (d0) -> ((d0 + 1) mod 2), 4>
  }
  sched.task channel 1 {
    sched.send <input, (d0) -> ((d0 + 1) mod 2 + 2), 4> to #other at <scratch, (d0) -> ((d0 + 1) mod 2 + 2), 4>
    sched.recv from #other into <scratch, (d0) -> (d0 + 2), 4>
    sched.reduce <input, (d0) -> (d0 + 2), 4>, <scratch, (d0) -> (d0 + 2), 4> -> <output, (d0) -> (d0 + 2), 4>
    sched.send <output, (d0) -> (d0 + 2), 4> to #other at <output, (d0) -> (d0 + 2), 4>
    sched.recv from #other into <output, (d0) -> ((d0 + 1) mod 2 + 2), 4>
  }
}
