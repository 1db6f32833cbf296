// An algorithm that cannot run on the world it is given is a located error.
// RUN: not ccopt %s --ccl-lower-to-sched="algorithm=bogus" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not ccopt %s --ccl-lower-to-sched="algorithm=recursive_doubling" 2>&1 | FileCheck %s --check-prefix=RD
// RUN: not ccopt %s --ccl-lower-to-sched="algorithm=hierarchical" 2>&1 | FileCheck %s --check-prefix=NO-MACHINE
// RUN: not ccopt %s --ccl-lower-to-sched="algorithm=hierarchical_rd topo=a100x8 nodes=3" 2>&1 | FileCheck %s --check-prefix=HIER-RD
// RUN: not ccopt %s --ccl-lower-to-sched="algorithm=hierarchical topo=pcie4x8" 2>&1 | FileCheck %s --check-prefix=TOO-BIG
// RUN: not ccopt %s --ccl-lower-to-sched="algorithm=hierarchical_sockets topo=a100x8 nodes=3" 2>&1 | FileCheck %s --check-prefix=SOCKETS
// RUN: not ccopt %s --ccl-lower-to-sched="algorithm=hierarchical_direct topo=a100x8 nodes=3" 2>&1 | FileCheck %s --check-prefix=DIRECT

// UNKNOWN: algorithms-invalid.mlir:[[# @LINE + 9]]:3: error: unknown all_reduce algorithm 'bogus' (expected one of: ring, tree, oneshot, twoshot, recursive_doubling, halving_doubling, hierarchical, hierarchical_rd, hierarchical_hd, nvls, hierarchical_nvls, hierarchical_sockets, ring_sockets, hierarchical_direct)
// RD: algorithms-invalid.mlir:[[# @LINE + 8]]:3: error: recursive_doubling needs a power-of-two number of ranks, not 24
// NO-MACHINE: algorithms-invalid.mlir:[[# @LINE + 7]]:3: error: hierarchical needs a machine whose nodes each hold the same number (at least 2) of the ranks, node by node, on at least 2 nodes
// HIER-RD: algorithms-invalid.mlir:[[# @LINE + 6]]:3: error: hierarchical_rd needs a power-of-two number of nodes, not 3
// TOO-BIG: algorithms-invalid.mlir:[[# @LINE + 3]]:1: error: program world of 24 ranks does not fit on pcie4x8 x 1 (8 GPUs)
// SOCKETS: algorithms-invalid.mlir:[[# @LINE + 4]]:3: error: hierarchical_sockets needs several nodes whose GPUs reach the other socket's only across the sockets' link
// DIRECT: algorithms-invalid.mlir:[[# @LINE + 3]]:3: error: the hierarchical_direct all_reduce needs at most 8 nodes whose GPUs all have NVLink to each other, a count that is a multiple of the ranks, and no compress
ccl.program @p world(24) {
  %g = ccl.buffer "g" : !ccl.buffer<64xf32>
  ccl.all_reduce sum %g -> %g : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

