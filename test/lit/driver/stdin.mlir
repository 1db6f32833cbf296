// `-` (and no input at all) reads stdin; diagnostics name it <stdin>.
// RUN: ccopt - --emit=mlir < %s | FileCheck %s
// RUN: ccopt --emit=mlir < %s | FileCheck %s
// RUN: cat %s | ccopt - --topo a100x8 | FileCheck %s --check-prefix=SCHED
// RUN: not ccopt - --emit=schedule < %s 2>&1 | FileCheck %s --check-prefix=ERROR

// CHECK: ccl.program @from_stdin {
// SCHED: ccl.program @from_stdin world(8) {
// SCHED: sched.program @from_stdin_all_reduce_0
// ERROR: <stdin>:[[# @LINE + 1]]:1: error: the world size is unknown
ccl.program @from_stdin {
  %g = ccl.buffer "g" : !ccl.buffer<64xf32>
  ccl.all_reduce sum %g -> %g : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}
