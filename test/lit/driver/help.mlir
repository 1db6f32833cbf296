// --help lists the machine and output options with their values.
// RUN: ccopt --help | FileCheck %s

// CHECK: ccopt: compiles collective communication programs for a machine
// CHECK: ccopt schedule.mlir --topo a100x8 --emit=cuda
// CHECK-DAG: --emit=<value> {{.*}}- What to print
// CHECK-DAG: =mlir {{.*}}- the ccl program, verified
// CHECK-DAG: =schedule {{.*}}(default)
// CHECK-DAG: =cuda {{.*}}- CUDA C++ kernels
// CHECK-DAG: --topo=<name> {{.*}}Machine preset (a100x8)
// CHECK-DAG: --nodes=<int> {{.*}}- Number of such nodes
// CHECK-DAG: --chunks=<long> {{.*}}- Pipelined pieces per ring part
// CHECK-DAG: --channels=<long> {{.*}}- Channels per rank
// CHECK-DAG: --split-input-file
// CHECK-DAG: --verify-diagnostics
// CHECK-DAG: --ccl-assign-world
// CHECK-DAG: --pass-pipeline=<string>
// CHECK-DAG: -o <file>
