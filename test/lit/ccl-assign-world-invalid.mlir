// A program's world must fit on the machine (an unknown machine and a missing
// world: ccl-assign-world.mlir, which checks them with FileCheck).
// RUN: ccopt %s --emit=mlir --ccl-assign-world="topo=a100x8" --split-input-file --verify-diagnostics
// RUN: ccopt %s --emit=mlir --topo a100x8 --split-input-file --verify-diagnostics
// Every pass that takes a machine checks it too (run alone, the lowering
// placed ranks past the machine's GPUs).
// RUN: ccopt %s --emit=mlir --ccl-lower-to-sched="topo=a100x8" --split-input-file --verify-diagnostics
// RUN: ccopt %s --emit=mlir --ccl-select-algorithm="topo=a100x8" --split-input-file --verify-diagnostics

// expected-error @+1 {{program world of 16 ranks does not fit on a100x8 x 1 (8 GPUs)}}
ccl.program @too_big world(16) {
  %g = ccl.buffer "g" : !ccl.buffer<64xf32>
  ccl.all_reduce sum %g -> %g {algorithm = "hierarchical"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// -----

// Every program is checked, not only the first.
ccl.program @fits world(8) {
}
// expected-error @+1 {{program world of 9 ranks does not fit on a100x8 x 1 (8 GPUs)}}
ccl.program @one_too_many world(9) {
}
// expected-error @+1 {{program world of 64 ranks does not fit on a100x8 x 1 (8 GPUs)}}
ccl.program @far_too_many world(64) {
}

