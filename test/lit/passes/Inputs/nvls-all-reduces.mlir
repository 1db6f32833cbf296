// 1 GiB all-reduces on one h100x8 node: of multicast buffers (the NVSwitch
// can reduce them), of ordinary ones, and of multicast ones that the switch
// cannot reduce (a product).
ccl.program @hopper world(8) {
  %m = ccl.buffer "m" multicast : !ccl.buffer<268435456xf32>
  %o = ccl.buffer "o" : !ccl.buffer<268435456xf32>
  ccl.all_reduce sum %m -> %m : !ccl.buffer<268435456xf32> -> !ccl.buffer<268435456xf32>
  ccl.all_reduce sum %o -> %o : !ccl.buffer<268435456xf32> -> !ccl.buffer<268435456xf32>
  ccl.all_reduce prod %m -> %m : !ccl.buffer<268435456xf32> -> !ccl.buffer<268435456xf32>
}
