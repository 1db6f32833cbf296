// Over two h100x8 nodes a 256 MiB reduce-scatter or all-gather is bound by
// the NICs under the flat ring (twice the hierarchical one's bytes on them)
// and by NVLink under the hierarchical one; the selection runs both side
// by side, the ring on 4/5 of every block and the hierarchical one on the
// rest on channels of its own (reduce-scatter 696 -> 669 us, all-gather
// 683 -> 658 us), and names the runner-up it beat (the all-gather's: the
// hierarchical one alone, 678 us, its first piece halved).
// RUN: ccopt %s --emit=mlir --ccl-assign-world="topo=h100x8 nodes=2" --ccl-select-algorithm="topo=h100x8 nodes=2" | FileCheck %s
// At 64 MiB the ring alone (LL128) stays faster.

// CHECK: ccl.reduce_scatter sum %big -> %small {algorithm = "ring", beside = {algorithm = "hierarchical", channels = 32 : i64, chunks = 16 : i64, weights = array<i64: 4, 1>}, channels = 32 : i64, chunks = 1 : i64, {{.*}}runner_up = "ring"
// CHECK: ccl.all_gather %small -> %big {algorithm = "ring", beside = {algorithm = "hierarchical", channels = 16 : i64, chunks = 8 : i64, weights = array<i64: 4, 1>}, channels = 32 : i64, chunks = 1 : i64, {{.*}}runner_up = "hierarchical"
// CHECK: ccl.reduce_scatter sum %mid -> %few {algorithm = "ring", channels = 32 : i64, chunks = 1 : i64, {{.*}}protocol = "ll128"
ccl.program @p {
  %big = ccl.buffer "big" : !ccl.buffer<67108864xf32>
  %small = ccl.buffer "small" : !ccl.buffer<4194304xf32>
  %mid = ccl.buffer "mid" : !ccl.buffer<16777216xf32>
  %few = ccl.buffer "few" : !ccl.buffer<1048576xf32>
  ccl.reduce_scatter sum %big -> %small : !ccl.buffer<67108864xf32> -> !ccl.buffer<4194304xf32>
  ccl.all_gather %small -> %big : !ccl.buffer<4194304xf32> -> !ccl.buffer<67108864xf32>
  ccl.reduce_scatter sum %mid -> %few : !ccl.buffer<16777216xf32> -> !ccl.buffer<1048576xf32>
}
