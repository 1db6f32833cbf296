// A 1 GiB all-reduce among 16 ranks.
ccl.program @big world(16) {
  %a = ccl.buffer "a" : !ccl.buffer<268435456xf32>
  ccl.all_reduce sum %a -> %a : !ccl.buffer<268435456xf32> -> !ccl.buffer<268435456xf32>
}
