// Round trip of every sched op and of #sched.part. --emit=mlir only parses,
// verifies and prints (the default --emit=schedule would run the pipeline).
// RUN: ccopt %s --emit=mlir | ccopt --emit=mlir | FileCheck %s
// RUN: ccopt %s --emit=mlir --mlir-print-op-generic | ccopt --emit=mlir | FileCheck %s
// RUN: ccopt %s --emit=mlir --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The ring all-reduce as ccl-lower-to-sched writes it (8 ranks, in place):
// every step op with a loop nest, a store and a rank-parametric task.
// CHECK-DAG: #[[NEXT:.*]] = affine_map<(d0) -> ((d0 + 1) mod 8)>
// CHECK-DAG: #[[PREV:.*]] = affine_map<(d0) -> ((d0 + 7) mod 8)>
// CHECK-DAG: #[[PREV_IN_LOOP:.*]] = affine_map<(d0, d1) -> ((d0 + 7) mod 8)>
// CHECK-DAG: #[[NEXT_IN_LOOP:.*]] = affine_map<(d0, d1) -> ((d0 + 1) mod 8)>
// CHECK-LABEL: sched.program @ring
// CHECK-SAME:    attributes {algorithm = "ring", channels = 1 : i64, collective = #ccl<collective all_reduce>, element_type = f32, in_place, input_count = 64 : i64, output_count = 64 : i64, ranks = 8 : i64, redop = #ccl<redop sum>, scratch_count = 64 : i64} {
// CHECK-NEXT:    sched.task channel 0 {
// CHECK-NEXT:      sched.send <input, (d0) -> (d0), 8> to #[[NEXT]] at <scratch, (d0) -> (d0), 8>
// CHECK-NEXT:      sched.loop 1 to 7 {
// CHECK-NEXT:        sched.recv_reduce_send from #[[PREV_IN_LOOP]] <scratch, (d0, d1) -> ((d0 - d1) mod 8), 8>, <input, (d0, d1) -> ((d0 - d1) mod 8), 8> to #[[NEXT_IN_LOOP]] at <scratch, (d0, d1) -> ((d0 - d1) mod 8), 8>
// CHECK-NEXT:      }
// CHECK-NEXT:      sched.recv_reduce_send from #[[PREV]] <scratch, (d0) -> ((d0 + 1) mod 8), 8>, <input, (d0) -> ((d0 + 1) mod 8), 8> store <output, (d0) -> ((d0 + 1) mod 8), 8> to #[[NEXT]] at <output, (d0) -> ((d0 + 1) mod 8), 8>
// CHECK-NEXT:      sched.loop 1 to 7 {
// CHECK-NEXT:        sched.recv_copy_send from #[[PREV_IN_LOOP]] <output, (d0, d1) -> ((d0 - d1 + 9) mod 8), 8> to #[[NEXT_IN_LOOP]] at <output, (d0, d1) -> ((d0 - d1 + 9) mod 8), 8>
// CHECK-NEXT:      }
// CHECK-NEXT:      sched.recv from #[[PREV]]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// GENERIC-LABEL: "sched.program"() <{algorithm = "ring", channels = 1 : i64, chunks = 1 : i64, collective = #ccl<collective all_reduce>, element_type = f32, in_place, input_count = 64 : i64, output_count = 64 : i64, ranks = 8 : i64, redop = #ccl<redop sum>, scratch_count = 64 : i64, sym_name = "ring"}> ({
// GENERIC:         "sched.task"() <{channel = 0 : i64}> ({
// GENERIC:           "sched.send"() <{dst = #sched.part<scratch, (d0) -> (d0), 8>, peer = #{{.*}}, src = #sched.part<input, (d0) -> (d0), 8>}> : () -> ()
// GENERIC:           "sched.loop"() <{lower = 1 : i64, upper = 7 : i64}> ({
// GENERIC:             "sched.recv_reduce_send"() <{dst = #sched.part<scratch, {{.*}}>, from = #{{.*}}, local = #sched.part<input, {{.*}}>, recvd = #sched.part<scratch, {{.*}}>, to = #{{.*}}}> : () -> ()
// GENERIC:           "sched.recv_reduce_send"() <{dst = {{.*}}, store = #sched.part<output, (d0) -> ((d0 + 1) mod 8), 8>, to = #{{.*}}}> : () -> ()
// GENERIC:           "sched.recv_copy_send"() <{dst = #sched.part<output, {{.*}}>, from = #{{.*}}, recvd = #sched.part<output, {{.*}}>, to = #{{.*}}}> : () -> ()
// GENERIC:           "sched.recv"() <{peer = #{{.*}}}> : () -> ()
sched.program @ring attributes {collective = #ccl<collective all_reduce>,
    redop = #ccl<redop sum>, ranks = 8 : i64, channels = 1 : i64,
    element_type = f32, in_place, input_count = 64 : i64,
    output_count = 64 : i64, scratch_count = 64 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    sched.send <input, (d0) -> (d0), 8> to affine_map<(d0) -> ((d0 + 1) mod 8)>
        at <scratch, (d0) -> (d0), 8>
    sched.loop 1 to 7 {
      sched.recv_reduce_send from affine_map<(d0, d1) -> ((d0 + 7) mod 8)>
          <scratch, (d0, d1) -> ((d0 - d1) mod 8), 8>,
          <input, (d0, d1) -> ((d0 - d1) mod 8), 8>
          to affine_map<(d0, d1) -> ((d0 + 1) mod 8)>
          at <scratch, (d0, d1) -> ((d0 - d1) mod 8), 8>
    }
    sched.recv_reduce_send from affine_map<(d0) -> ((d0 + 7) mod 8)>
        <scratch, (d0) -> ((d0 + 1) mod 8), 8>,
        <input, (d0) -> ((d0 + 1) mod 8), 8>
        store <output, (d0) -> ((d0 + 1) mod 8), 8>
        to affine_map<(d0) -> ((d0 + 1) mod 8)>
        at <output, (d0) -> ((d0 + 1) mod 8), 8>
    sched.loop 1 to 7 {
      sched.recv_copy_send from affine_map<(d0, d1) -> ((d0 + 7) mod 8)>
          <output, (d0, d1) -> ((d0 - d1 + 9) mod 8), 8>
          to affine_map<(d0, d1) -> ((d0 + 1) mod 8)>
          at <output, (d0, d1) -> ((d0 - d1 + 9) mod 8), 8>
    }
    sched.recv from affine_map<(d0) -> ((d0 + 7) mod 8)>
  }
}

// Hand-written per-rank tasks on two channels, the optional program
// attributes (wire, root, chunks), finalize on both reducing steps, nested
// loops (maps take rank and both indices) and an empty loop.
// CHECK-LABEL: sched.program @per_rank
// CHECK-SAME:    algorithm = "hand"
// CHECK-SAME:    channels = 2 : i64
// CHECK-SAME:    chunks = 4 : i64
// CHECK-SAME:    collective = #ccl<collective reduce>
// CHECK-SAME:    element_type = bf16
// CHECK-SAME:    redop = #ccl<redop avg>
// CHECK-SAME:    root = 1 : i64
// CHECK-SAME:    wire = f32
// CHECK-NEXT:    sched.task channel 0 rank 0 {
// CHECK-NEXT:      sched.copy <input, (d0) -> (0), 2> -> <scratch, (d0) -> (1), 2>
// CHECK-NEXT:      sched.send <input, (d0) -> (1), 2> to #{{.*}} at <scratch, (d0) -> (0), 2>
// CHECK-NEXT:      sched.send <input, (d0) -> (0), 2> to #{{.*}} at <scratch, (d0) -> (1), 2> store <output, (d0) -> (0), 2>
// CHECK-NEXT:    }
// CHECK-NEXT:    sched.task channel 1 rank 1 {
// CHECK-NEXT:      sched.recv from #{{.*}}
// CHECK-NEXT:      sched.reduce <scratch, (d0) -> (0), 2>, <input, (d0) -> (0), 2> -> <output, (d0) -> (0), 2> finalize
// CHECK-NEXT:      sched.reduce <scratch, (d0) -> (1), 2>, <input, (d0) -> (1), 2> -> <output, (d0) -> (1), 2> {tag}
// CHECK-NEXT:      sched.loop 0 to 2 {
// CHECK-NEXT:        sched.loop 0 to 3 {
// CHECK-NEXT:          sched.recv_reduce_send from #{{.*}} <scratch, (d0, d1, d2) -> (d1), 2>, <input, (d0, d1, d2) -> (d2 mod 2), 2> finalize to #{{.*}} at <output, (d0, d1, d2) -> (d1), 2>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      sched.loop 5 to 5 {
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    sched.task channel 1 {
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// GENERIC-LABEL: "sched.program"() <{algorithm = "hand", {{.*}}chunks = 4 : i64{{.*}}root = 1 : i64{{.*}}wire = f32}> ({
// GENERIC:         "sched.task"() <{channel = 0 : i64, rank = 0 : i64}> ({
// GENERIC:           "sched.copy"() <{dst = #sched.part<scratch, (d0) -> (1), 2>, src = #sched.part<input, (d0) -> (0), 2>}> : () -> ()
// GENERIC:           "sched.send"() <{dst = #sched.part<scratch, (d0) -> (1), 2>, peer = #{{.*}}, src = #sched.part<input, (d0) -> (0), 2>, store = #sched.part<output, (d0) -> (0), 2>}> : () -> ()
// GENERIC:           "sched.reduce"() <{dst = #sched.part<output, (d0) -> (0), 2>, finalize, lhs = #sched.part<scratch, (d0) -> (0), 2>, rhs = #sched.part<input, (d0) -> (0), 2>}> : () -> ()
// GENERIC:           "sched.reduce"() <{dst = {{.*}}, lhs = {{.*}}, rhs = {{.*}}}> {tag} : () -> ()
// GENERIC:               "sched.recv_reduce_send"() <{dst = {{.*}}, finalize, from = {{.*}}}> : () -> ()
sched.program @per_rank attributes {collective = #ccl<collective reduce>,
    redop = #ccl<redop avg>, ranks = 2 : i64, channels = 2 : i64,
    element_type = bf16, wire = f32, input_count = 100 : i64,
    output_count = 100 : i64, scratch_count = 100 : i64, root = 1 : i64,
    algorithm = "hand", chunks = 4 : i64} {
  sched.task channel 0 rank 0 {
    sched.copy <input, (d0) -> (0), 2> -> <scratch, (d0) -> (1), 2>
    sched.send <input, (d0) -> (1), 2> to affine_map<(d0) -> (1)>
        at <scratch, (d0) -> (0), 2>
    sched.send <input, (d0) -> (0), 2> to affine_map<(d0) -> (1)>
        at <scratch, (d0) -> (1), 2> store <output, (d0) -> (0), 2>
  }
  sched.task channel 1 rank 1 {
    sched.recv from affine_map<(d0) -> (0)>
    sched.reduce <scratch, (d0) -> (0), 2>, <input, (d0) -> (0), 2>
        -> <output, (d0) -> (0), 2> finalize
    sched.reduce <scratch, (d0) -> (1), 2>, <input, (d0) -> (1), 2>
        -> <output, (d0) -> (1), 2> {tag}
    sched.loop 0 to 2 {
      sched.loop 0 to 3 {
        sched.recv_reduce_send from affine_map<(d0, d1, d2) -> (0)>
            <scratch, (d0, d1, d2) -> (d1), 2>,
            <input, (d0, d1, d2) -> (d2 mod 2), 2> finalize
            to affine_map<(d0, d1, d2) -> (0)>
            at <output, (d0, d1, d2) -> (d1), 2>
      }
    }
    sched.loop 5 to 5 {
    }
  }
  sched.task channel 1 {
  }
}

// A program without redop, without scratch and with distinct input and
// output (all-gather): copies and forwards only.
// CHECK-LABEL: sched.program @gather attributes {algorithm = "direct", channels = 1 : i64, collective = #ccl<collective all_gather>, element_type = ui8, input_count = 4 : i64, output_count = 16 : i64, ranks = 4 : i64, scratch_count = 0 : i64} {
// CHECK-NEXT:    sched.task channel 0 {
// CHECK-NEXT:      sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (d0), 4>
// CHECK-NEXT:      sched.loop 1 to 4 {
// CHECK-NEXT:        sched.send <input, (d0, d1) -> (0), 1> to #{{.*}} at <output, (d0, d1) -> (d0), 4>
// CHECK-NEXT:        sched.recv from #{{.*}}
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// GENERIC-LABEL: "sched.program"() <{algorithm = "direct", channels = 1 : i64, chunks = 1 : i64, collective = #ccl<collective all_gather>
sched.program @gather attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = ui8,
    input_count = 4 : i64, output_count = 16 : i64, scratch_count = 0 : i64,
    algorithm = "direct"} {
  sched.task channel 0 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (d0), 4>
    sched.loop 1 to 4 {
      sched.send <input, (d0, d1) -> (0), 1> to affine_map<(d0, d1) -> ((d0 + d1) mod 4)>
          at <output, (d0, d1) -> (d0), 4>
      sched.recv from affine_map<(d0, d1) -> ((d0 - d1 + 4) mod 4)>
    }
  }
}
