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

// The all-gather the same way: GPU 0's one block goes directly to its four
// NVLink neighbours (channel 0) and, for GPUs 5, 6 and 7, a second time into
// a relay's scratch slot (channel 1), which forwards it into their outputs.
// RUN: ccopt %S/Inputs/relay-gather-scatter.mlir --ccl-lower-to-sched="topo=v100x8 channels=1" --sched-verify=topo=v100x8 | FileCheck %s --check-prefix=GATHER
// GATHER: sched.program @g_all_gather_0 attributes {algorithm = "relay", channels = 2 : i64, collective = #ccl<collective all_gather>{{.*}}input_count = 8 : i64, output_count = 64 : i64{{.*}}scratch_count = 32 : i64
// GATHER: sched.task channel 0 rank 0 {
// GATHER-NEXT: sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 8>
// GATHER-COUNT-4: sched.send <input, (d0) -> (0), 1> to
// GATHER: sched.task channel 1 rank 0 {
// GATHER-NEXT: sched.send <input, (d0) -> (0), 1> to #{{.*}} at <scratch,
// GATHER-NEXT: sched.send <input, (d0) -> (0), 1> to #{{.*}} at <scratch,
// GATHER-NEXT: sched.send <input, (d0) -> (0), 1> to #{{.*}} at <scratch,
// GATHER-NEXT: sched.recv from #{{.*}} into <scratch, (d0) -> (0), 4>
// GATHER-NEXT: sched.send <scratch, (d0) -> (0), 4> to #{{.*}} at <output

// The reduce-scatter: GPU 0 sends its contributions to its four NVLink
// neighbours' slot 0, the other three into relays' slots (after the 8
// contribution slots), forwards what it relays into slot `source` of the
// destination, and adds the contributions in rank order.
// GATHER: sched.program @s_reduce_scatter_0 attributes {algorithm = "relay", channels = 1 : i64, collective = #ccl<collective reduce_scatter>
// GATHER: sched.task channel 0 rank 0 {
// GATHER-COUNT-4: sched.send <input, (d0) -> ({{[1-4]}}), 8> to #{{.*}} at <scratch, (d0) -> (0), 12>
// GATHER-COUNT-3: sched.send <input, (d0) -> ({{[5-7]}}), 8> to #{{.*}} at <scratch, (d0) -> ({{8|9|10|11}}), 12>
// GATHER-COUNT-4: sched.recv from #{{.*}} into <scratch, (d0) -> ({{[1-4]}}), 12>
// GATHER-NEXT: sched.recv from #{{.*}} into <scratch, (d0) -> ({{8|9|10|11}}), 12>
// GATHER-NEXT: sched.send <scratch, (d0) -> ({{8|9|10|11}}), 12> to #{{.*}} at <scratch
// GATHER: sched.reduce <input, (d0) -> (0), 8>, <scratch, (d0) -> (1), 12> -> <output, (d0) -> (0), 1>
// GATHER-NEXT: sched.reduce <output, (d0) -> (0), 1>, <scratch, (d0) -> (2), 12> -> <output, (d0) -> (0), 1>
