// 1 GiB all-reduces on one h100x8 node: of multicast buffers (the NVSwitch
// can reduce them), of ordinary ones, and of multicast ones that the switch
// cannot reduce (a product); 256 MiB broadcasts into multicast buffers and
// into ordinary ones.
ccl.program @hopper world(8) {
  %m = ccl.buffer "m" multicast : !ccl.buffer<268435456xf32>
  %o = ccl.buffer "o" : !ccl.buffer<268435456xf32>
  ccl.all_reduce sum %m -> %m : !ccl.buffer<268435456xf32> -> !ccl.buffer<268435456xf32>
  ccl.all_reduce sum %o -> %o : !ccl.buffer<268435456xf32> -> !ccl.buffer<268435456xf32>
  ccl.all_reduce prod %m -> %m : !ccl.buffer<268435456xf32> -> !ccl.buffer<268435456xf32>
  %bm = ccl.buffer "bm" multicast : !ccl.buffer<67108864xf32>
  %bo = ccl.buffer "bo" : !ccl.buffer<67108864xf32>
  ccl.broadcast %bm -> %bm root 3 : !ccl.buffer<67108864xf32> -> !ccl.buffer<67108864xf32>
  ccl.broadcast %bo -> %bo root 3 : !ccl.buffer<67108864xf32> -> !ccl.buffer<67108864xf32>
}
