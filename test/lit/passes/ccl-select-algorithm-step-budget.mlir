// A chain cut short by the step budget goes on from its best, doubling its
// pieces or its channels while that gets faster, up to 16 budgets. Here 8
// ranks x 4 steps a piece: the search stops at 32 pieces x channels, the
// chain goes on to 512 (v100x8 16 x 32) or until a level gains under 1%
// (pcie4x8 1 x 256).
// RUN: ccopt %s --emit=mlir --ccl-assign-world="topo=v100x8" --ccl-select-algorithm="topo=v100x8 step-budget=1024" | FileCheck %s --check-prefix=V100
// RUN: ccopt %s --emit=mlir --ccl-assign-world="topo=pcie4x8" --ccl-select-algorithm="topo=pcie4x8 step-budget=1024" | FileCheck %s --check-prefix=PCIE

// V100: ccl.broadcast {{.*}}algorithm = "chain", channels = 16 : i64, chunks = 32 : i64
// PCIE: ccl.broadcast {{.*}}algorithm = "chain", channels = 1 : i64, chunks = 256 : i64

// A broadcast over the nodes' rails goes on the same way: on four h100x8
// nodes the budget leaves it behind the chain (16 x 128, 988 us); going on
// to 16 x 16 pieces it wins (934 us).
// RUN: ccopt %s --emit=mlir --ccl-assign-world="topo=h100x8 nodes=4" --ccl-select-algorithm="topo=h100x8 nodes=4 step-budget=16384" | FileCheck %s --check-prefix=H100X4

// H100X4: ccl.broadcast {{.*}}algorithm = "hierarchical", channels = 16 : i64, chunks = 16 : i64{{.*}}runner_up = "chain"
ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<67108864xf32>
  %b = ccl.buffer "b" : !ccl.buffer<67108864xf32>
  ccl.broadcast %a -> %b root 0 : !ccl.buffer<67108864xf32> -> !ccl.buffer<67108864xf32>
}
