// A 256 MiB all-reduce among 16 ranks, in multicast buffers.
ccl.program @big world(16) {
  %a = ccl.buffer "a" multicast : !ccl.buffer<67108864xf32>
  %b = ccl.buffer "b" multicast : !ccl.buffer<67108864xf32>
  ccl.all_reduce sum %a -> %b : !ccl.buffer<67108864xf32> -> !ccl.buffer<67108864xf32>
}
