// The node-aware all-to-all on two v100x8 nodes with more channels than
// lanes relays block by block: on channel c GPU l hands GPU l+c its blocks
// for GPU l+c of both nodes, and GPU l+c sends them on over its rail. Where
// two GPUs have no NVLink the hand-off goes through a GPU linked to both,
// into a slot of its scratch (24 blocks: 16 staged for the rails, then the
// slots). sched-verify checks it on the machine.
// RUN: ccopt %s --ccl-lower-to-sched="topo=v100x8 nodes=2 channels=8" --sched-verify="topo=v100x8 nodes=2" | FileCheck %s
// CHECK-DAG: #[[RANK8:map[0-9]*]] = affine_map<(d0) -> (8)>
// CHECK-DAG: #[[GPU1:map[0-9]*]] = affine_map<(d0) -> (1)>
// CHECK-DAG: #[[GPU3:map[0-9]*]] = affine_map<(d0) -> (3)>
// CHECK-DAG: #[[GPU4:map[0-9]*]] = affine_map<(d0) -> (4)>
// CHECK: sched.program @q_all_to_all_0 attributes {algorithm = "hierarchical", channels = 8 : i64
// Channel 1, rank 0: hands GPU 1 (linked) its blocks; passes GPU 3's on to
// GPU 4 (neither linked to the other); takes GPU 7's blocks, through GPU 4,
// and sends the one for rank 8 on over its rail; then receives over it.
// CHECK: sched.task channel 1 rank 0 {
// CHECK-NEXT: sched.send <input, (d0) -> (9), 16> to #[[GPU1]] at <scratch, (d0) -> (8), 24>
// CHECK-NEXT: sched.send <input, (d0) -> (1), 16> to #[[GPU1]] at <output, (d0) -> (0), 16>
// CHECK-NEXT: sched.recv from #[[GPU3]] into <scratch, (d0) -> (21), 24>
// CHECK-NEXT: sched.send <scratch, (d0) -> (21), 24> to #[[GPU4]] at <scratch, (d0) -> (11), 24>
// CHECK-NEXT: sched.recv from #[[GPU3]] into <scratch, (d0) -> (20), 24>
// CHECK-NEXT: sched.send <scratch, (d0) -> (20), 24> to #[[GPU4]] at <output, (d0) -> (3), 16>
// CHECK-NEXT: sched.recv from #[[GPU4]] into <scratch, (d0) -> (15), 24>
// CHECK-NEXT: sched.send <scratch, (d0) -> (15), 24> to #[[RANK8]] at <output, (d0) -> (7), 16>
// CHECK-NEXT: sched.recv from #[[GPU4]] into <output, (d0) -> (7), 16>
// CHECK-NEXT: sched.recv from #[[RANK8]] into <output, (d0) -> (15), 16>
// CHECK-NEXT: }
// Channel 5: GPU 0 has no NVLink to GPU 5, so its blocks go to GPU 1.
// CHECK: sched.task channel 5 rank 0 {
// CHECK-NEXT: sched.send <input, (d0) -> (13), 16> to #[[GPU1]] at <scratch, (d0) -> (17), 24>
// CHECK-NEXT: sched.send <input, (d0) -> (5), 16> to #[[GPU1]] at <scratch, (d0) -> (16), 24>
ccl.program @q world(16) {
  %s = ccl.buffer "s" : !ccl.buffer<64xf32>
  %t = ccl.buffer "t" : !ccl.buffer<64xf32>
  ccl.all_to_all %s -> %t {algorithm = "hierarchical"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}
