// --mlir-print-ir-after-all dumps the IR to stderr after each pass of the
// default pipeline; stdout holds only the result.
// RUN: ccopt %s --topo a100x8 --mlir-print-ir-after-all -o %t.out 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// --emit=mlir stops after ccl-assign-world.
// RUN: ccopt %s --topo a100x8 --emit=mlir --mlir-print-ir-after-all 2>&1 -o %t.mlir | FileCheck %s --check-prefix=MLIR

// CHECK:      IR Dump After CclAssignWorld (ccl-assign-world)
// CHECK-NEXT: module {
// CHECK-NEXT:   ccl.program @step world(8) {
// CHECK-NOT:  sched.program
// CHECK:      IR Dump After CclSelectAlgorithm (ccl-select-algorithm)
// CHECK:        ccl.all_reduce {{.*}}algorithm = "{{ring|tree|oneshot|twoshot|recursive_doubling}}"
// CHECK-NOT:  sched.program
// CHECK:      IR Dump After CclLowerToSched (ccl-lower-to-sched)
// CHECK:        ccl.all_reduce {{.*}}schedule = @step_all_reduce_0
// CHECK:        sched.program @step_all_reduce_0
// CHECK:      IR Dump After SchedVerify (sched-verify)
// CHECK:        sched.program @step_all_reduce_0
// CHECK-NOT:  IR Dump After

// OUT-NOT:    IR Dump
// OUT:        sched.program @step_all_reduce_0

// MLIR:       IR Dump After CclAssignWorld (ccl-assign-world)
// MLIR-NOT:   IR Dump After

ccl.program @step {
  %g = ccl.buffer "g" : !ccl.buffer<1024xf32>
  ccl.all_reduce sum %g -> %g : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
}
