// The all-to-all relayed over v100x8's NVLinks: GPU 0 has no NVLink to 5,
// 6 and 7, so those blocks go into a scratch slot of a GPU linked to both
// (channel 1) and are forwarded from there; the others go directly
// (channel 0). sched-verify checks it on the machine.
// RUN: ccopt %s --ccl-lower-to-sched="topo=v100x8 channels=1" --sched-verify=topo=v100x8 | FileCheck %s

// CHECK: sched.program @p_all_to_all_0 attributes {algorithm = "relay", channels = 2 : i64{{.*}}scratch_count = 32 : i64
// CHECK: sched.task channel 0 rank 0 {
// CHECK-NEXT: sched.copy <input, (d0) -> (0), 8> -> <output, (d0) -> (0), 8>
// CHECK-COUNT-4: sched.send <input
// CHECK-NOT: sched.send
// CHECK-COUNT-4: sched.recv from
// CHECK: sched.task channel 1 rank 0 {
// CHECK-NEXT: sched.send <input, (d0) -> (5), 8> to #{{.*}} at <scratch,
// CHECK-NEXT: sched.send <input, (d0) -> (6), 8> to #{{.*}} at <scratch,
// CHECK-NEXT: sched.send <input, (d0) -> (7), 8> to #{{.*}} at <scratch,
// Rank 0 relays for others: receive into its scratch, forward to the output.
// CHECK-NEXT: sched.recv from #{{.*}} into <scratch, (d0) -> (0), 4>
// CHECK-NEXT: sched.send <scratch, (d0) -> (0), 4> to #{{.*}} at <output
ccl.program @p world(8) {
  %s = ccl.buffer "s" : !ccl.buffer<64xf32>
  %t = ccl.buffer "t" : !ccl.buffer<64xf32>
  ccl.all_to_all %s -> %t {algorithm = "relay"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}
