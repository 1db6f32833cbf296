ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<262144xf32>
  %b = ccl.buffer "b" : !ccl.buffer<8192xf32>
  ccl.reduce_scatter sum %a -> %b : !ccl.buffer<262144xf32> -> !ccl.buffer<8192xf32>
}
