// On four a100x8 nodes the node-aware all-reduce, reduce-scatter and
// all-gather exchange along the rails directly (hierarchical_direct: one
// network hop per piece, where the ring over the nodes waits on three in a
// row). The all-reduce's search goes one level past its step budget, from
// 32 x 8 pieces (0.89 of the bound) to 32 x 16 (0.92).
// RUN: ccopt %s --emit=mlir --ccl-assign-world="topo=a100x8 nodes=4" --ccl-select-algorithm="topo=a100x8 nodes=4" | FileCheck %s
// On four v100x8 nodes a 1 MiB reduce-scatter takes the node-aware one,
// whose exchange inside a node goes round its NVLink rings: LL128 there, as
// on NCCL's rings.
// RUN: ccopt %S/Inputs/reduce-scatter-1mib-32-ranks.mlir --emit=mlir --ccl-assign-world="topo=v100x8 nodes=4" --ccl-select-algorithm="topo=v100x8 nodes=4" | FileCheck %s --check-prefix=CUBE

// CHECK: ccl.all_reduce {{.*}}algorithm = "hierarchical_direct", channels = 32 : i64, chunks = 16 : i64{{.*}}runner_up = "hierarchical"
// CHECK: ccl.reduce_scatter {{.*}}algorithm = "hierarchical_direct", channels = 64 : i64, chunks = 8 : i64{{.*}}runner_up = "hierarchical"
// CHECK: ccl.all_gather {{.*}}algorithm = "hierarchical_direct", channels = 32 : i64, chunks = 8 : i64{{.*}}runner_up = "hierarchical"
// CUBE: ccl.reduce_scatter {{.*}}algorithm = "hierarchical_direct", channels = 64 : i64, chunks = 1 : i64{{.*}}protocol = "ll128"
ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<268435456xf32>
  %b = ccl.buffer "b" : !ccl.buffer<268435456xf32>
  %big = ccl.buffer "big" : !ccl.buffer<67108864xf32>
  %small = ccl.buffer "small" : !ccl.buffer<2097152xf32>
  ccl.all_reduce sum %a -> %b : !ccl.buffer<268435456xf32> -> !ccl.buffer<268435456xf32>
  ccl.reduce_scatter sum %big -> %small : !ccl.buffer<67108864xf32> -> !ccl.buffer<2097152xf32>
  ccl.all_gather %small -> %big : !ccl.buffer<2097152xf32> -> !ccl.buffer<67108864xf32>
}
