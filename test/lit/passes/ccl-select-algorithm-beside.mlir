// Over two h100x8 nodes a 256 MiB all-gather is bound by the NICs under
// the flat ring (twice the hierarchical one's bytes on them) and by NVLink
// under the hierarchical one; the selection runs both side by side, the
// ring on 2/3 of every block and the hierarchical one on the rest on
// channels of its own (683 -> 640 us), and names the runner-up it beat
// (the hierarchical one alone, 661 us). The hierarchical reduce-scatter
// alone (its node's own block summed while the rail's sends travel) beats
// every mix there (656 us, the ring 696) and at 64 MiB (186 us, the ring
// 206).
// RUN: ccopt %s --emit=mlir --ccl-assign-world="topo=h100x8 nodes=2" --ccl-select-algorithm="topo=h100x8 nodes=2" | FileCheck %s

// CHECK: ccl.reduce_scatter sum %big -> %small {algorithm = "hierarchical", channels = 64 : i64, chunks = 8 : i64, {{.*}}runner_up = "ring"
// CHECK: ccl.all_gather %small -> %big {algorithm = "ring", beside = {algorithm = "hierarchical", channels = 16 : i64, chunks = 8 : i64, weights = array<i64: 2, 1>}, channels = 32 : i64, chunks = 1 : i64, {{.*}}runner_up = "hierarchical"
// CHECK: ccl.reduce_scatter sum %mid -> %few {algorithm = "hierarchical", channels = 64 : i64, chunks = 4 : i64, {{.*}}runner_up = "ring"
ccl.program @p {
  %big = ccl.buffer "big" : !ccl.buffer<67108864xf32>
  %small = ccl.buffer "small" : !ccl.buffer<4194304xf32>
  %mid = ccl.buffer "mid" : !ccl.buffer<16777216xf32>
  %few = ccl.buffer "few" : !ccl.buffer<1048576xf32>
  ccl.reduce_scatter sum %big -> %small : !ccl.buffer<67108864xf32> -> !ccl.buffer<4194304xf32>
  ccl.all_gather %small -> %big : !ccl.buffer<4194304xf32> -> !ccl.buffer<67108864xf32>
  ccl.reduce_scatter sum %mid -> %few : !ccl.buffer<16777216xf32> -> !ccl.buffer<1048576xf32>
}
