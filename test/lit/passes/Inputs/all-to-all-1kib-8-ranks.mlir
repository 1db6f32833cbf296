ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<256xf32>
  %b = ccl.buffer "b" : !ccl.buffer<256xf32>
  ccl.all_to_all %a -> %b : !ccl.buffer<256xf32> -> !ccl.buffer<256xf32>
}
