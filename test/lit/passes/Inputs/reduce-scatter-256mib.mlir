// A 256 MiB reduce-scatter over 8 ranks (32 MiB blocks).
ccl.program @rs world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<67108864xf32>
  %b = ccl.buffer "b" : !ccl.buffer<8388608xf32>
  ccl.reduce_scatter sum %a -> %b : !ccl.buffer<67108864xf32> -> !ccl.buffer<8388608xf32>
}
