// --split-input-file processes each chunk on its own and joins the outputs
// with the marker line.
// RUN: ccopt %s --split-input-file --emit=mlir | FileCheck %s
// RUN: ccopt %s --split-input-file --topo a100x8 | FileCheck %s --check-prefix=SCHED
// Without it the file is one module.
// RUN: ccopt %s --emit=mlir | FileCheck %s --check-prefix=WHOLE

// CHECK:      module {
// CHECK-NEXT:   ccl.program @first world(2) {
// CHECK:      {{//[ ]-----}}
// CHECK-NEXT: module {
// CHECK-NEXT:   ccl.program @second {
// CHECK-NOT:  {{//[ ]-----}}

// SCHED:     sched.program @first_all_reduce_0 attributes {{[{].*}}ranks = 2 : i64
// SCHED:     {{//[ ]-----}}
// SCHED:     sched.program @second_all_reduce_0 attributes {{[{].*}}ranks = 8 : i64

// WHOLE:     module {
// WHOLE:       ccl.program @first world(2) {
// WHOLE:       ccl.program @second {
// WHOLE-NOT: {{//[ ]-----}}

ccl.program @first world(2) {
  %g = ccl.buffer "g" : !ccl.buffer<64xf32>
  ccl.all_reduce sum %g -> %g : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @second {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  %b = ccl.buffer "b" : !ccl.buffer<8xf32>
  ccl.all_reduce max %a -> %b : !ccl.buffer<8xf32> -> !ccl.buffer<8xf32>
}
