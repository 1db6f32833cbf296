// 1 GiB all-reduce and all-gather on one pcie4x8 node (8 GPUs, two sockets).
ccl.program @sockets world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<268435456xf32>
  %b = ccl.buffer "b" : !ccl.buffer<33554432xf32>
  ccl.all_reduce sum %a -> %a : !ccl.buffer<268435456xf32> -> !ccl.buffer<268435456xf32>
  ccl.all_gather %b -> %a : !ccl.buffer<33554432xf32> -> !ccl.buffer<268435456xf32>
}
