// RUN: ccopt %s --ccl-compress-wire="wire=bf16" | FileCheck %s
// RUN: ccopt %s --topo a100x8 --compress=f16 --channels 1 --chunks 1 | FileCheck %s --check-prefix=SCHED
// RUN: not ccopt %s --ccl-compress-wire="wire=f8" 2>&1 | FileCheck %s --check-prefix=BAD

// Every f32 reduction gets the wire type; integers, data movement and
// collectives that already name one keep what they have.
// CHECK-LABEL: ccl.program @step
// CHECK: ccl.all_reduce sum %g -> %g {compress = bf16}
// CHECK: ccl.all_reduce avg %h -> %h {compress = f16}
// CHECK: ccl.reduce_scatter sum %g -> %s {compress = bf16}
// CHECK: ccl.reduce max %g -> %g root 3 {compress = bf16}
// CHECK: ccl.all_reduce sum %i -> %i :
// CHECK: ccl.all_gather %s -> %g :

// The ring over an f16 wire: every write lands in wire-typed scratch, the
// all-gather forwards scratch to scratch and stores into the output in the
// same step, and avg divides the inputs first (prescale) instead of
// finalizing.
// SCHED-LABEL: sched.program @step_all_reduce_0
// SCHED-SAME: wire = f16
// SCHED: sched.send <input, {{.*}}> to {{.*}} at <scratch,
// SCHED: sched.recv_reduce_send {{.*}} <scratch, {{.*}}>, <input, {{.*}}> to {{.*}} at <scratch,
// SCHED: sched.recv_reduce_send {{.*}} <scratch, [[OWN:.*]]>, <input, {{.*}}> store <scratch, [[OWN]]> to {{.*}} at <scratch,
// SCHED: sched.copy <scratch, {{.*}}> -> <output,
// SCHED: sched.recv_copy_send {{.*}} <scratch, [[J:.*]]> store <output, [[J]]> to {{.*}} at <scratch, [[J]]>
// SCHED: sched.recv from
// SCHED-NEXT: sched.copy <scratch, {{.*}}> -> <output,
// SCHED-LABEL: sched.program @step_all_reduce_1
// SCHED-SAME: prescale
// SCHED-SAME: wire = f16
// SCHED-NOT: finalize
// SCHED-LABEL: sched.program @step_reduce_scatter_2
// SCHED-SAME: wire = f16
// SCHED-LABEL: sched.program @step_reduce_3
// SCHED-SAME: wire = f16
// SCHED-LABEL: sched.program @step_all_reduce_4
// SCHED-NOT: wire
// SCHED-SAME: element_type = i32

// BAD: error: compress must be f16 or bf16, got 'f8'

ccl.program @step world(8) {
  %g = ccl.buffer "g" : !ccl.buffer<4096xf32>
  %h = ccl.buffer "h" : !ccl.buffer<4096xf32>
  %s = ccl.buffer "s" : !ccl.buffer<512xf32>
  %i = ccl.buffer "i" : !ccl.buffer<4096xi32>
  ccl.all_reduce sum %g -> %g : !ccl.buffer<4096xf32> -> !ccl.buffer<4096xf32>
  ccl.all_reduce avg %h -> %h {compress = f16} : !ccl.buffer<4096xf32> -> !ccl.buffer<4096xf32>
  ccl.reduce_scatter sum %g -> %s : !ccl.buffer<4096xf32> -> !ccl.buffer<512xf32>
  ccl.reduce max %g -> %g root 3 : !ccl.buffer<4096xf32> -> !ccl.buffer<4096xf32>
  ccl.all_reduce sum %i -> %i : !ccl.buffer<4096xi32> -> !ccl.buffer<4096xi32>
  ccl.all_gather %s -> %g : !ccl.buffer<512xf32> -> !ccl.buffer<4096xf32>
}
