// The all-to-all relayed over v100x8's NVLinks: GPU 0 has no NVLink to 5,
// 6 and 7, so those blocks go into a scratch slot of a GPU linked to both
// and are forwarded from there; the others go directly. On one channel a
// rank sends its blocks (direct ones first), receives the direct ones,
// forwards what it relays, receives the relayed ones and copies its own
// block last. sched-verify checks it on the machine.
// RUN: ccopt %s --ccl-lower-to-sched="topo=v100x8 channels=1" --sched-verify=topo=v100x8 | FileCheck %s

// CHECK: sched.program @p_all_to_all_0 attributes {algorithm = "relay", channels = 1 : i64{{.*}}scratch_count = 32 : i64
// CHECK: sched.task channel 0 rank 0 {
// CHECK-COUNT-4: sched.send <input, (d0) -> ({{[1-4]}}), 8> to #{{.*}} at <output, (d0) -> (0), 8>
// CHECK-NEXT: sched.send <input, (d0) -> (5), 8> to #{{.*}} at <scratch,
// CHECK-NEXT: sched.send <input, (d0) -> (6), 8> to #{{.*}} at <scratch,
// CHECK-NEXT: sched.send <input, (d0) -> (7), 8> to #{{.*}} at <scratch,
// CHECK-COUNT-4: sched.recv from #{{.*}} into <output, (d0) -> ({{[1-4]}}), 8>
// Rank 0 relays for others: receive into its scratch, forward to the output.
// CHECK-NEXT: sched.recv from #{{.*}} into <scratch, (d0) -> (0), 4>
// CHECK-NEXT: sched.send <scratch, (d0) -> (0), 4> to #{{.*}} at <output
// CHECK: sched.recv from #{{.*}} into <output, (d0) -> (7), 8>
// CHECK-NEXT: sched.recv from #{{.*}} into <output, (d0) -> (6), 8>
// CHECK-NEXT: sched.recv from #{{.*}} into <output, (d0) -> (5), 8>
// CHECK-NEXT: sched.copy <input, (d0) -> (0), 8> -> <output, (d0) -> (0), 8>
// CHECK-NEXT: }

// With channels for them, every block goes in thirds (the relayed ones'
// each through either of two relays, so that the links carry equal loads),
// each third on a channel of its own (38 of the 64 asked for), in two
// rounds: a relay forwards the first round's piece before it receives the
// second's.
// RUN: ccopt %s --ccl-lower-to-sched="topo=v100x8 channels=64 chunks=2" --sched-verify=topo=v100x8 | FileCheck %s --check-prefix=THIRDS
// THIRDS: sched.program @p_all_to_all_0 attributes {algorithm = "relay", channels = 38 : i64, chunks = 2 : i64
// THIRDS: sched.task channel 0 rank 0 {
// THIRDS-NEXT: sched.copy <input, (d0) -> (0), 24> -> <output, (d0) -> (0), 24>
// THIRDS-NEXT: }
// THIRDS: sched.task channel 6 rank 0 {
// THIRDS-NEXT: sched.recv from #{{.*}} into <scratch, (d0) -> (0), 30>
// THIRDS-NEXT: sched.send <scratch, (d0) -> (0), 30> to #{{.*}} at <output, (d0) -> (18), 48>
// THIRDS-NEXT: sched.recv from #{{.*}} into <scratch, (d0) -> (1), 30>
// THIRDS-NEXT: sched.send <scratch, (d0) -> (1), 30> to #{{.*}} at <output, (d0) -> (19), 48>
ccl.program @p world(8) {
  %s = ccl.buffer "s" : !ccl.buffer<64xf32>
  %t = ccl.buffer "t" : !ccl.buffer<64xf32>
  ccl.all_to_all %s -> %t {algorithm = "relay"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// The all-gather the same way: GPU 0's one block goes directly to its four
// NVLink neighbours and, for GPUs 5, 6 and 7, a second time into a relay's
// scratch slot, which forwards it into their outputs.
// RUN: ccopt %S/Inputs/relay-gather-scatter.mlir --ccl-lower-to-sched="topo=v100x8 channels=1" --sched-verify=topo=v100x8 | FileCheck %s --check-prefix=GATHER
// GATHER: sched.program @g_all_gather_0 attributes {algorithm = "relay", channels = 1 : i64, collective = #ccl<collective all_gather>{{.*}}input_count = 8 : i64, output_count = 64 : i64{{.*}}scratch_count = 32 : i64
// GATHER: sched.task channel 0 rank 0 {
// GATHER-COUNT-4: sched.send <input, (d0) -> (0), 1> to #{{.*}} at <output, (d0) -> (0), 8>
// GATHER-NEXT: sched.send <input, (d0) -> (0), 1> to #{{.*}} at <scratch,
// GATHER-NEXT: sched.send <input, (d0) -> (0), 1> to #{{.*}} at <scratch,
// GATHER-NEXT: sched.send <input, (d0) -> (0), 1> to #{{.*}} at <scratch,
// GATHER-COUNT-4: sched.recv from #{{.*}} into <output, (d0) -> ({{[1-4]}}), 8>
// GATHER-NEXT: sched.recv from #{{.*}} into <scratch, (d0) -> (0), 4>
// GATHER-NEXT: sched.send <scratch, (d0) -> (0), 4> to #{{.*}} at <output
// GATHER: sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 8>

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
