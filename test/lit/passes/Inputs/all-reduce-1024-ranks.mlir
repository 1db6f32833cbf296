// 4 MiB over 1024 ranks (a100x8, 128 nodes), for ccl-select-algorithm.mlir.
ccl.program @p world(1024) {
  %g = ccl.buffer "g" : !ccl.buffer<1048576xf32>
  ccl.all_reduce sum %g -> %g : !ccl.buffer<1048576xf32> -> !ccl.buffer<1048576xf32>
}
