// RUN: ccopt %s --emit=mlir --ccl-lower-to-sched --verify-diagnostics

ccl.program @bad world(2) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{unknown protocol 'fast' (expected simple, ll or ll128)}}
  ccl.all_reduce sum %a -> %a {protocol = "fast"} : !ccl.buffer<8xf32> -> !ccl.buffer<8xf32>
}
