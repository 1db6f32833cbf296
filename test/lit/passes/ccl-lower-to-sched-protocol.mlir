// RUN: ccopt %s --emit=mlir --ccl-lower-to-sched="chunks=2" --sched-verify --split-input-file | FileCheck %s

// A collective's `protocol` (ccl-select-algorithm's choice, or written by
// hand) goes on its program; recvs of data name where the data lands.
// CHECK-LABEL: sched.program @ll_all_reduce_0
// CHECK-SAME: protocol = #sched<protocol ll>
// The ring's last recv takes part r+2 of the chunk.
// CHECK: sched.recv from #{{.*}} into <output, (d0, d1) -> (d1 * 4 + (d0 + 2) mod 4), 8>
// CHECK-LABEL: sched.program @ll_all_to_all_1
// CHECK-SAME: protocol = #sched<protocol ll>
// CHECK: sched.recv from #{{.*}} into <output, (d0, d1) -> ((d0 - d1) mod 4), 4>
// CHECK-LABEL: sched.program @ll_all_reduce_2
// CHECK-NOT: protocol
// CHECK-SAME: {
// LL128 names its parts the same way.
// CHECK-LABEL: sched.program @ll_all_reduce_3
// CHECK-SAME: protocol = #sched<protocol ll128>
// CHECK: sched.recv from #{{.*}} into <output, (d0, d1) -> (d1 * 4 + (d0 + 2) mod 4), 8>
// CHECK-LABEL: sched.program @ll_reduce_scatter_4
// CHECK-SAME: protocol = #sched<protocol ll128>
ccl.program @ll world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<100xf32>
  %b = ccl.buffer "b" : !ccl.buffer<100xf32>
  %c = ccl.buffer "c" : !ccl.buffer<25xf32>
  ccl.all_reduce sum %a -> %a {protocol = "ll"} : !ccl.buffer<100xf32> -> !ccl.buffer<100xf32>
  ccl.all_to_all %a -> %b {protocol = "ll"} : !ccl.buffer<100xf32> -> !ccl.buffer<100xf32>
  ccl.all_reduce sum %a -> %a {protocol = "simple"} : !ccl.buffer<100xf32> -> !ccl.buffer<100xf32>
  ccl.all_reduce sum %a -> %a {protocol = "ll128"} : !ccl.buffer<100xf32> -> !ccl.buffer<100xf32>
  ccl.reduce_scatter sum %a -> %c {protocol = "ll128"} : !ccl.buffer<100xf32> -> !ccl.buffer<25xf32>
}
