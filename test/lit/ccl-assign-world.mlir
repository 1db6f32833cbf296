// A program without world gets the machine's ranks; one with a world keeps it.
// RUN: ccopt %s --emit=mlir --ccl-assign-world="topo=a100x8" | FileCheck %s
// RUN: ccopt %s --emit=mlir --pass-pipeline="builtin.module(ccl-assign-world{topo=a100x8})" | FileCheck %s
// RUN: ccopt %s --emit=mlir --pass-pipeline="builtin.module(ccl-assign-world{topo=a100x8 nodes=2})" | FileCheck %s --check-prefix=NODES2
// The driver's --topo runs the pass in its default pipeline.
// RUN: ccopt %s --emit=mlir --topo a100x8 | FileCheck %s
// RUN: ccopt %s --emit=mlir --topo a100x8 --nodes 2 | FileCheck %s --check-prefix=NODES2

// Rejections that are not tied to a program of this file (the machine) or
// that every program without a world gets (no machine).
// RUN: not ccopt %s --emit=mlir --ccl-assign-world="topo=dgx1" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not ccopt %s --emit=mlir --ccl-assign-world 2>&1 | FileCheck %s --check-prefix=NO-TOPO
// Without --topo the default --emit=schedule pipeline needs world(N) too.
// RUN: not ccopt %s --emit=schedule 2>&1 | FileCheck %s --check-prefix=NO-TOPO

// CHECK-LABEL: ccl.program @machine_wide world(8) {
// CHECK-NEXT:    %[[G:.*]] = ccl.buffer "g" : !ccl.buffer<64xf32>
// CHECK-NEXT:    ccl.all_reduce sum %[[G]] -> %[[G]]
// NODES2-LABEL: ccl.program @machine_wide world(16) {
// NO-TOPO: ccl-assign-world.mlir:[[# @LINE + 3]]:1: error: the world size is unknown: give a machine (--topo) or write world(N) on the program
// NO-TOPO-NEXT: ccl.program @machine_wide {
// NO-TOPO-NOT: error
ccl.program @machine_wide {
  %g = ccl.buffer "g" : !ccl.buffer<64xf32>
  ccl.all_reduce sum %g -> %g : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// CHECK-LABEL: ccl.program @half world(4) {
// NODES2-LABEL: ccl.program @half world(4) {
ccl.program @half world(4) {
  ccl.barrier
}

// CHECK-LABEL: ccl.program @whole world(8) attributes {note} {
// NODES2-LABEL: ccl.program @whole world(8) attributes {note} {
ccl.program @whole world(8) attributes {note} {
}

// UNKNOWN: error: unknown machine 'dgx1' (presets: a100x8, h100x8, h200x8, v100x8, pcie4x8)
// UNKNOWN-NOT: error

