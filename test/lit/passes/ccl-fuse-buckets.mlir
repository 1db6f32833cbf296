// RUN: ccopt %s --ccl-fuse-buckets | FileCheck %s
// RUN: ccopt %s --ccl-fuse-buckets="cap-mb=0.005" | FileCheck %s --check-prefix=SMALL
// RUN: not ccopt %s --ccl-fuse-buckets="cap-mb=0" 2>&1 | FileCheck %s --check-prefix=CAP
// RUN: not ccopt %s --topo a100x8 --bucket-cap-mb=-1 2>&1 | FileCheck %s --check-prefix=CAP-CLI
// RUN: ccopt %s --topo a100x8 --fuse-buckets | FileCheck %s --check-prefix=LOWER

// Consecutive all_reduces with the same reduction, group, type and
// in-placeness fuse over a bucket of their buffers, at the last of them.
// CHECK-LABEL: ccl.program @grads
// CHECK: %[[K0:.*]] = ccl.bucket "ccopt.bucket0" %w0, %b0, %w1 : !ccl.buffer<1000xf32>, !ccl.buffer<10xf32>, !ccl.buffer<1000xf32> -> !ccl.buffer<2010xf32>
// CHECK-NEXT: ccl.all_reduce sum %[[K0]] -> %[[K0]] {fused = 3 : i64}
// A max breaks the run; it stays alone.
// CHECK-NEXT: ccl.all_reduce max %b1 -> %b1 :
// CHECK-NEXT: %[[IN:.*]] = ccl.bucket "ccopt.bucket1.in" %x, %y
// CHECK-NEXT: %[[OUT:.*]] = ccl.bucket "ccopt.bucket1.out" %xo, %yo
// CHECK-NEXT: ccl.all_reduce avg %[[IN]] -> %[[OUT]] {fused = 2 : i64}
// The same buffer twice is two reductions: not fused.
// CHECK-NEXT: ccl.all_reduce sum %w0 -> %w0 :
// CHECK-NEXT: ccl.all_reduce sum %w0 -> %w0 :
// CHECK-NOT: ccl.bucket

// A 0.005 MiB cap (5242 bytes) holds w0 + b0 (4040 bytes) but not w1 too.
// SMALL: ccl.bucket "ccopt.bucket0" %w0, %b0 :
// SMALL-NEXT: ccl.all_reduce sum
// SMALL-NEXT: ccl.all_reduce sum %w1 -> %w1

// CAP: error: bucket cap must be positive, got 0 MiB
// CAP-CLI: ccopt: error: --bucket-cap-mb must be positive, got -1

// Lowered: one schedule for the bucket, over its 2010 elements.
// LOWER: ccl.all_reduce sum %{{.*}} -> %{{.*}} {{{.*}}fused = 3 : i64{{.*}}schedule = @grads_all_reduce_0
// LOWER: sched.program @grads_all_reduce_0
// LOWER-SAME: input_count = 2010

ccl.program @grads world(8) {
  %w0 = ccl.buffer "w0" : !ccl.buffer<1000xf32>
  %b0 = ccl.buffer "b0" : !ccl.buffer<10xf32>
  %w1 = ccl.buffer "w1" : !ccl.buffer<1000xf32>
  %b1 = ccl.buffer "b1" : !ccl.buffer<10xf32>
  %x = ccl.buffer "x" : !ccl.buffer<64xf32>
  %y = ccl.buffer "y" : !ccl.buffer<64xf32>
  %xo = ccl.buffer "xo" : !ccl.buffer<64xf32>
  %yo = ccl.buffer "yo" : !ccl.buffer<64xf32>
  ccl.all_reduce sum %w0 -> %w0 : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.all_reduce sum %b0 -> %b0 : !ccl.buffer<10xf32> -> !ccl.buffer<10xf32>
  ccl.all_reduce sum %w1 -> %w1 : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.all_reduce max %b1 -> %b1 : !ccl.buffer<10xf32> -> !ccl.buffer<10xf32>
  ccl.all_reduce avg %x -> %xo : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
  ccl.all_reduce avg %y -> %yo : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
  ccl.all_reduce sum %w0 -> %w0 : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
  ccl.all_reduce sum %w0 -> %w0 : !ccl.buffer<1000xf32> -> !ccl.buffer<1000xf32>
}
