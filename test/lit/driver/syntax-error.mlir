// A syntax error: file:line:col, the line and a caret, exit code 1, no output.
// RUN: not ccopt %s 2>&1 | FileCheck %s -DFILE=%s
// RUN: sh -c 'ccopt %s 2>/dev/null; test $? -eq 1'
// RUN: not ccopt %s --emit=mlir 2>/dev/null | count 0
// RUN: rm -f %t.out && not ccopt %s --topo a100x8 -o %t.out && not ls %t.out

ccl.program @p world(8) {
  %g = ccl.buffer "g" : !ccl.buffer<64xf32>
  // CHECK: [[FILE]]:[[# @LINE + 4]]:24: error: expected '->'
  // CHECK-NEXT: ccl.all_reduce sum %g %g : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
  // CHECK-NEXT: {{^ +\^$}}
  // CHECK-NOT: error
  ccl.all_reduce sum %g %g : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}
