// An all-gather and a reduce-scatter of 8 floats a rank over v100x8's cube mesh.
ccl.program @g world(8) {
  %s = ccl.buffer "s" : !ccl.buffer<8xf32>
  %t = ccl.buffer "t" : !ccl.buffer<64xf32>
  ccl.all_gather %s -> %t {algorithm = "relay"} : !ccl.buffer<8xf32> -> !ccl.buffer<64xf32>
}
ccl.program @s world(8) {
  %s = ccl.buffer "s" : !ccl.buffer<8xf32>
  %t = ccl.buffer "t" : !ccl.buffer<64xf32>
  ccl.reduce_scatter sum %t -> %s {algorithm = "relay"} : !ccl.buffer<64xf32> -> !ccl.buffer<8xf32>
}
