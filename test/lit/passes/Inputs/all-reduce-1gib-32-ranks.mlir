// A 1 GiB all-reduce among 32 ranks.
ccl.program @big world(32) {
  %a = ccl.buffer "a" : !ccl.buffer<268435456xf32>
  ccl.all_reduce sum %a -> %a : !ccl.buffer<268435456xf32> -> !ccl.buffer<268435456xf32>
}
