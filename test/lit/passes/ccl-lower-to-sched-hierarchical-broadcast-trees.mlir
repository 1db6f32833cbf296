// hierarchical_tree on four nodes from rank 0: part l takes one of two
// binary trees of the other nodes, channel by channel: channel 0 node 0 ->
// node 2 -> nodes 1 and 3, channel 1 node 0 -> node 1 -> nodes 3 and 2. A
// node inner in one is a leaf in the other.
// RUN: ccopt %s --ccl-lower-to-sched="topo=a100x8 nodes=4" --sched-verify="topo=a100x8 nodes=4" | FileCheck %s --check-prefix=TREES
// TREES-DAG: #[[R0:.*]] = affine_map<(d0) -> (0)>
// TREES-DAG: #[[R8:.*]] = affine_map<(d0) -> (8)>
// TREES-DAG: #[[R16:.*]] = affine_map<(d0) -> (16)>
// TREES-DAG: #[[R24:.*]] = affine_map<(d0) -> (24)>
// TREES-DAG: #[[R17:.*]] = affine_map<(d0) -> (17)>
// TREES: sched.program @t_broadcast_0 attributes {algorithm = "hierarchical_tree"
// TREES: sched.task channel 0 rank 0 {
// TREES: sched.send <input, (d0) -> (0), 32> to #[[R16]] at
// TREES-NEXT: sched.loop
// TREES: sched.task channel 0 rank 8 {
// TREES-NEXT: sched.recv from #[[R16]] into <output, (d0) -> (0), 32>
// TREES-NEXT: sched.send <output, (d0) -> (0), 32> to #{{.*}} at
// TREES: sched.task channel 0 rank 16 {
// TREES-NEXT: sched.recv from #[[R0]] into <output, (d0) -> (0), 32>
// TREES-NEXT: sched.send <output, (d0) -> (0), 32> to #[[R8]] at
// TREES-NEXT: sched.send <output, (d0) -> (0), 32> to #[[R24]] at
// TREES: sched.task channel 1 rank 8 {
// TREES-NEXT: sched.recv from #[[R0]] into <output, (d0) -> (16), 32>
// TREES-NEXT: sched.send <output, (d0) -> (16), 32> to #[[R24]] at
// TREES-NEXT: sched.send <output, (d0) -> (16), 32> to #[[R16]] at
// TREES: sched.task channel 1 rank 16 {
// TREES-NEXT: sched.recv from #[[R8]] into <output, (d0) -> (16), 32>
// TREES-NEXT: sched.send <output, (d0) -> (16), 32> to #[[R17]] at
ccl.program @t world(32) {
  %a = ccl.buffer "a" : !ccl.buffer<4096xf32>
  %b = ccl.buffer "b" : !ccl.buffer<4096xf32>
  ccl.broadcast %a -> %b root 0 {algorithm = "hierarchical_tree", channels = 2 : i64, chunks = 2 : i64} : !ccl.buffer<4096xf32> -> !ccl.buffer<4096xf32>
}
