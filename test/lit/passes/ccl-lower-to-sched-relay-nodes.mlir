// The node-aware all-to-all on two v100x8 nodes with more channels than
// lanes relays block by block (channel c: GPU l hands GPU l+c its blocks,
// which it sends on over its rail); GPU 0 has no NVLink to GPU 5, so on
// channel 5 it hands them to GPU 1 (linked to both), into a slot of its
// scratch, and GPU 1 passes them on. Rank 0 also passes GPU 4's on to GPU
// 1, then sends GPU 3's over its rail to rank 8.
// RUN: ccopt %s --ccl-lower-to-sched="topo=v100x8 nodes=2 channels=8" --sched-verify="topo=v100x8 nodes=2" | FileCheck %s
// CHECK-DAG: #[[GPU1:map[0-9]*]] = affine_map<(d0) -> (1)>
// CHECK-DAG: #[[GPU3:map[0-9]*]] = affine_map<(d0) -> (3)>
// CHECK-DAG: #[[GPU4:map[0-9]*]] = affine_map<(d0) -> (4)>
// CHECK-DAG: #[[RANK8:map[0-9]*]] = affine_map<(d0) -> (8)>
// CHECK: sched.program @q_all_to_all_0 attributes {algorithm = "hierarchical", channels = 8 : i64
// CHECK: sched.task channel 5 rank 0 {
// CHECK-NEXT: sched.send <input, (d0) -> (13), 16> to #[[GPU1]] at <scratch, (d0) -> (17), 24>
// CHECK-NEXT: sched.send <input, (d0) -> (5), 16> to #[[GPU1]] at <scratch, (d0) -> (16), 24>
// CHECK-NEXT: sched.recv from #[[GPU4]] into <scratch, (d0) -> (19), 24>
// CHECK-NEXT: sched.send <scratch, (d0) -> (19), 24> to #[[GPU1]] at <scratch, (d0) -> (12), 24>
// CHECK-NEXT: sched.recv from #[[GPU4]] into <scratch, (d0) -> (18), 24>
// CHECK-NEXT: sched.send <scratch, (d0) -> (18), 24> to #[[GPU1]] at <output, (d0) -> (4), 16>
// CHECK-NEXT: sched.recv from #[[GPU3]] into <scratch, (d0) -> (11), 24>
// CHECK-NEXT: sched.send <scratch, (d0) -> (11), 24> to #[[RANK8]] at <output, (d0) -> (3), 16>
// CHECK-NEXT: sched.recv from #[[GPU3]] into <output, (d0) -> (3), 16>
// CHECK-NEXT: sched.recv from #[[RANK8]] into <output, (d0) -> (11), 16>
// CHECK-NEXT: }
ccl.program @q world(16) {
  %s = ccl.buffer "s" : !ccl.buffer<64xf32>
  %t = ccl.buffer "t" : !ccl.buffer<64xf32>
  ccl.all_to_all %s -> %t {algorithm = "hierarchical"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}
