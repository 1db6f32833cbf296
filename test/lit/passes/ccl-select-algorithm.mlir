// RUN: ccopt %s --emit=mlir --ccl-select-algorithm="topo=a100x8 nodes=2" | FileCheck %s
// RUN: ccopt %s --topo a100x8 --nodes 2 | FileCheck %s --check-prefix=LOWERED
// RUN: not ccopt %s --emit=mlir --ccl-select-algorithm 2>&1 | FileCheck %s --check-prefix=NO-MACHINE
// RUN: ccopt %S/Inputs/all-reduce-1024-ranks.mlir --emit=mlir --ccl-select-algorithm="topo=a100x8 nodes=128" | FileCheck %s --check-prefix=HUGE
// RUN: ccopt %S/Inputs/pcie-socket-collectives.mlir --topo pcie4x8 | FileCheck %s --check-prefix=SOCKETS
// RUN: ccopt %S/Inputs/all-reduce-1gib-16-ranks.mlir --emit=mlir --ccl-select-algorithm="topo=v100x8 nodes=2" | FileCheck %s --check-prefix=RAILS
// RUN: ccopt %S/Inputs/nvls-collectives.mlir --emit=mlir --ccl-select-algorithm="topo=h100x8" | FileCheck %s --check-prefix=NVLS
// RUN: ccopt %S/Inputs/all-reduce-256mib-16-ranks-multicast.mlir --emit=mlir --ccl-select-algorithm="topo=h100x8 nodes=2" | FileCheck %s --check-prefix=NVLS-NODES
// RUN: ccopt %S/Inputs/reduce-scatter-256mib.mlir --emit=mlir --ccl-select-algorithm="topo=h100x8" | FileCheck %s --check-prefix=STAGGER
// RUN: ccopt %S/Inputs/reduce-scatter-256mib.mlir --emit=mlir --ccl-select-algorithm="topo=v100x8" | FileCheck %s --check-prefix=CUBE
// RUN: ccopt %S/Inputs/all-reduce-1gib-32-ranks.mlir --emit=mlir --ccl-select-algorithm="topo=pcie4x8 nodes=4" | FileCheck %s --check-prefix=PCIE-NODES
// RUN: ccopt %S/Inputs/all-to-all-1kib-8-ranks.mlir --emit=mlir --ccl-assign-world="topo=pcie4x8" --ccl-select-algorithm="topo=pcie4x8" | FileCheck %s --check-prefix=A2A-CHANNELS

// The direct all-to-all's sends each take a channel of their own, beyond
// NCCL's two on a PCIe node: 1 KiB in one hop on 8 channels beats the
// node-aware one (two hops).
// A2A-CHANNELS: ccl.all_to_all %{{.*}} {algorithm = "direct", channels = 8 : i64
// A2A-CHANNELS-SAME: runner_up = "hierarchical"

// The node-aware all-reduce's pieces overlap NVLink and the network when
// enough channels are in each phase: v100x8 (NCCL: 8 channels, the others'
// search: up to 16) takes 32, in pieces.
// RAILS: ccl.all_reduce sum %{{.*}} {algorithm = "{{hierarchical|hierarchical_rd}}", channels = 32 : i64, chunks = {{[0-9]*[2-9]}} : i64

// On several PCIe nodes a ring node by node crosses every node's sockets'
// link: on four, a ring through one socket of every node and back through
// the other's crosses two (ring_sockets), and one that all-reduces in
// groups of a socket of every node crosses them with the blocks only
// (hierarchical_sockets): both faster.
// PCIE-NODES: ccl.all_reduce sum %{{.*}} {algorithm = "{{ring|hierarchical}}_sockets"
// PCIE-NODES-SAME: runner_up = "{{ring|hierarchical}}_sockets"

// On one PCIe node the sockets' link is the bottleneck: the node-aware
// algorithms, with the sockets as their groups, cross it with each block
// once (the ring: every block twice), and beat NCCL's ring.
// NVLS in the switch where the buffers are multicast and the switch has the
// reduction, on NCCL's 16 channels or more; a ring elsewhere.
// NVLS: ccl.all_reduce sum %m -> %m {algorithm = "nvls", channels = {{16|32}} : i64
// NVLS-SAME: runner_up = "ring"
// NVLS: ccl.all_reduce sum %o -> %o {algorithm = "ring"
// NVLS: ccl.all_reduce prod %m -> %m {algorithm = "ring"
// A broadcast into multicast buffers: the root's stores through the switch
// (its link carries the buffer once, no chain to fill); a chain elsewhere.
// NVLS: ccl.broadcast %bm -> %bm root 3 {algorithm = "nvls", channels = {{16|32}} : i64
// NVLS-SAME: runner_up = "chain"
// NVLS: ccl.broadcast %bo -> %bo root 3 {algorithm = "chain"
// Over two h100x8 nodes each node's switch reduces its blocks, the rails
// all-reduce them, the switch stores the result: each NVLink carries about
// the buffer each way instead of the node exchange's 1.75 times it.
// NVLS-NODES: ccl.all_reduce sum %a -> %b {algorithm = "hierarchical_nvls"
// NVLS-NODES-SAME: protocol = "simple", runner_up = "hierarchical"

// On one NVSwitch node the ring's 32 channels in lock-step would leave the
// links idle together between steps and during the final reductions; odd
// channels in one piece more keep them busy.
// STAGGER: ccl.reduce_scatter sum %{{.*}} {algorithm = "staggered_ring", channels = 32 : i64, chunks = 1 : i64
// STAGGER-SAME: runner_up = "ring"

// v100x8's six NVLink rings, each way, twice: NCCL's 12 channels doubled
// (no power of two; 16 would run four rings twice as often as the others).
// CUBE: ccl.reduce_scatter sum %{{.*}} {algorithm = "{{ring|staggered_ring}}", channels = 24 : i64

// SOCKETS: ccl.all_reduce sum %{{.*}} {algorithm = "{{hierarchical|hierarchical_rd|hierarchical_hd}}"
// SOCKETS-SAME: runner_up = "{{hierarchical|hierarchical_rd|hierarchical_hd}}"
// SOCKETS: ccl.all_gather %{{.*}} {algorithm = "hierarchical"{{.*}}runner_up = "{{ring|staggered_ring}}"
// SOCKETS: sched.program @sockets_all_reduce_0
// SOCKETS: sched.program @sockets_all_gather_1

// At 1024 ranks the node-aware halving and doubling along the rails under
// LL128 (log2 of the nodes' hops each way, each NIC carrying the ring's
// bytes) beats the recursive doubling (the whole block each of 7 rounds)
// and NCCL's pipelined tree (16384 per-rank tasks, a few shared kernel
// bodies).
// HUGE: ccl.all_reduce sum %{{.*}} {algorithm = "hierarchical_hd", channels = 16 : i64, {{.*}}protocol = "ll128", runner_up = "hierarchical_rd"

// A tiny all-reduce over two nodes is latency-bound: a direct or
// node-aware algorithm (few hops) in the LL protocol (no fence, no flag write: NCCL's lowest
// latencies) beats the tree's log-depth and the ring's 2(n-1) steps. The
// runner-up is kept.
// CHECK-LABEL: ccl.program @small
// CHECK: ccl.all_reduce sum %{{.*}} {algorithm = "{{oneshot|twoshot|recursive_doubling|hierarchical|hierarchical_rd|hierarchical_hd}}", channels = {{[0-9]+}} : i64, chunks = 1 : i64, predicted_us = {{.*}}, protocol = "ll", runner_up = "{{oneshot|twoshot|recursive_doubling|hierarchical|hierarchical_rd|hierarchical_hd}}", runner_up_us = {{.*}}}
// LOWERED: sched.program @small_all_reduce_0 attributes {algorithm = "{{oneshot|twoshot|recursive_doubling|hierarchical|hierarchical_rd|hierarchical_hd}}"
// LOWERED-SAME: protocol = #sched<protocol ll>
ccl.program @small world(16) {
  %a = ccl.buffer "a" : !ccl.buffer<256xf32>
  ccl.all_reduce sum %a -> %a : !ccl.buffer<256xf32> -> !ccl.buffer<256xf32>
}

// A large one is bandwidth-bound: the node-aware one built from the
// hierarchical reduce-scatter and all-gather (1/8 of the buffer over each
// NIC, its pieces' phases on NVLink and the network at once) beats the
// double binary tree and the ring, in the Simple or LL128 protocol (LL's
// lines carry half data).
// CHECK-LABEL: ccl.program @large
// CHECK: ccl.all_reduce sum %{{.*}} {algorithm = "hierarchical", channels = {{[0-9]+}} : i64, chunks = {{[0-9]+}} : i64, predicted_us = {{.*}}, protocol = "{{simple|ll128}}", runner_up = "{{ring|tree}}"
// LOWERED: sched.program @large_all_reduce_0 attributes {algorithm = "hierarchical"
ccl.program @large world(16) {
  %a = ccl.buffer "a" : !ccl.buffer<16777216xf32>
  ccl.all_reduce sum %a -> %a : !ccl.buffer<16777216xf32> -> !ccl.buffer<16777216xf32>
}

// NO-MACHINE: error: ccl-select-algorithm needs a machine (topo or topo-file)
