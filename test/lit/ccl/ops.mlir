// Round trip of every ccl op: the custom form prints, reparses and prints the
// same; the generic form reparses too. --emit=mlir only parses, verifies and
// prints (no pipeline).
// RUN: ccopt %s --emit=mlir | ccopt --emit=mlir | FileCheck %s
// RUN: ccopt %s --emit=mlir --mlir-print-op-generic | ccopt --emit=mlir | FileCheck %s
// RUN: ccopt %s --emit=mlir --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: ccl.program @no_world {
// CHECK-NEXT:    %[[G:.*]] = ccl.buffer "grads" : !ccl.buffer<1048576xf32>
// CHECK-NEXT:    ccl.all_reduce sum %[[G]] -> %[[G]] : !ccl.buffer<1048576xf32> -> !ccl.buffer<1048576xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "ccl.program"() <{sym_name = "no_world"}>
// GENERIC:         "ccl.all_reduce"(%{{.*}}, %{{.*}}) <{op = #ccl<redop sum>}>
ccl.program @no_world {
  %grads = ccl.buffer "grads" : !ccl.buffer<1048576xf32>
  ccl.all_reduce sum %grads -> %grads : !ccl.buffer<1048576xf32> -> !ccl.buffer<1048576xf32>
}

// CHECK-LABEL: ccl.program @attrs world(2) attributes {note = "kept"} {
// GENERIC-LABEL: "ccl.program"() <{sym_name = "attrs", world = 2 : i64}> ({
// GENERIC:       }) {note = "kept"} : () -> ()
ccl.program @attrs world(2) attributes {note = "kept"} {
}

// Every element type a buffer may hold; the result takes the buffer's name.
// CHECK-LABEL: ccl.program @types world(8) {
// CHECK-NEXT:    %f64 = ccl.buffer "f64" : !ccl.buffer<8xf64>
// CHECK-NEXT:    %f32 = ccl.buffer "f32" : !ccl.buffer<8xf32>
// CHECK-NEXT:    %f16 = ccl.buffer "f16" : !ccl.buffer<8xf16>
// CHECK-NEXT:    %bf16 = ccl.buffer "bf16" : !ccl.buffer<8xbf16>
// CHECK-NEXT:    %i64 = ccl.buffer "i64" : !ccl.buffer<8xi64>
// CHECK-NEXT:    %i32 = ccl.buffer "i32" : !ccl.buffer<8xi32>
// CHECK-NEXT:    %i8 = ccl.buffer "i8" : !ccl.buffer<8xi8>
// CHECK-NEXT:    %ui64 = ccl.buffer "ui64" : !ccl.buffer<8xui64>
// CHECK-NEXT:    %ui32 = ccl.buffer "ui32" : !ccl.buffer<8xui32>
// CHECK-NEXT:    %ui8 = ccl.buffer "ui8" : !ccl.buffer<8xui8>
// CHECK-NEXT:    %one = ccl.buffer "one" {tag} : !ccl.buffer<1xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "ccl.program"() <{sym_name = "types", world = 8 : i64}>
// GENERIC:         %{{.*}} = "ccl.buffer"() <{name = "bf16"}> : () -> !ccl.buffer<8xbf16>
ccl.program @types world(8) {
  %0 = ccl.buffer "f64" : !ccl.buffer<8xf64>
  %1 = ccl.buffer "f32" : !ccl.buffer<8xf32>
  %2 = ccl.buffer "f16" : !ccl.buffer<8xf16>
  %3 = ccl.buffer "bf16" : !ccl.buffer<8xbf16>
  %4 = ccl.buffer "i64" : !ccl.buffer<8xi64>
  %5 = ccl.buffer "i32" : !ccl.buffer<8xi32>
  %6 = ccl.buffer "i8" : !ccl.buffer<8xi8>
  %7 = ccl.buffer "ui64" : !ccl.buffer<8xui64>
  %8 = ccl.buffer "ui32" : !ccl.buffer<8xui32>
  %9 = ccl.buffer "ui8" : !ccl.buffer<8xui8>
  %10 = ccl.buffer "one" {tag} : !ccl.buffer<1xf32>
}

// CHECK-LABEL: ccl.program @all_reduce world(8) {
// CHECK-NEXT:    ccl.group @tp ranks [0, 1, 2, 3]
// CHECK-NEXT:    %[[A:.*]] = ccl.buffer "a" : !ccl.buffer<1024xf32>
// CHECK-NEXT:    %[[B:.*]] = ccl.buffer "b" : !ccl.buffer<1024xf32>
// CHECK-NEXT:    ccl.all_reduce sum %[[A]] -> %[[A]] : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
// CHECK-NEXT:    ccl.all_reduce prod %[[A]] -> %[[B]] : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
// CHECK-NEXT:    ccl.all_reduce min %[[A]] -> %[[B]] group @tp : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
// CHECK-NEXT:    ccl.all_reduce max %[[B]] -> %[[B]] group @tp : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
// CHECK-NEXT:    ccl.all_reduce avg %[[A]] -> %[[B]] {tag} : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "ccl.program"() <{sym_name = "all_reduce", world = 8 : i64}>
// GENERIC:         "ccl.group"() <{ranks = array<i64: 0, 1, 2, 3>, sym_name = "tp"}> : () -> ()
// GENERIC:         "ccl.all_reduce"(%{{.*}}, %{{.*}}) <{group = @tp, op = #ccl<redop min>}> : (!ccl.buffer<1024xf32>, !ccl.buffer<1024xf32>) -> ()
// GENERIC:         "ccl.all_reduce"(%{{.*}}, %{{.*}}) <{op = #ccl<redop avg>}> {tag}
ccl.program @all_reduce world(8) {
  ccl.group @tp ranks [0, 1, 2, 3]
  %a = ccl.buffer "a" : !ccl.buffer<1024xf32>
  %b = ccl.buffer "b" : !ccl.buffer<1024xf32>
  ccl.all_reduce sum %a -> %a : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
  ccl.all_reduce prod %a -> %b : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
  ccl.all_reduce min %a -> %b group @tp : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
  ccl.all_reduce max %b -> %b group @tp : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
  ccl.all_reduce avg %a -> %b {tag} : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
}

// The other collectives, over the world and over a group (the group's size
// sets the counts that depend on the number of ranks).
// CHECK-LABEL: ccl.program @collectives world(8) {
// CHECK-NEXT:    ccl.group @pair ranks [6, 1]
// CHECK-NEXT:    %[[BIG:.*]] = ccl.buffer "big" : !ccl.buffer<4096xbf16>
// CHECK-NEXT:    %[[PART:.*]] = ccl.buffer "part" : !ccl.buffer<512xbf16>
// CHECK-NEXT:    %[[HALF:.*]] = ccl.buffer "half" : !ccl.buffer<2048xbf16>
// CHECK-NEXT:    ccl.reduce_scatter sum %[[BIG]] -> %[[PART]] : !ccl.buffer<4096xbf16> -> !ccl.buffer<512xbf16>
// CHECK-NEXT:    ccl.reduce_scatter max %[[BIG]] -> %[[HALF]] group @pair : !ccl.buffer<4096xbf16> -> !ccl.buffer<2048xbf16>
// CHECK-NEXT:    ccl.all_gather %[[PART]] -> %[[BIG]] : !ccl.buffer<512xbf16> -> !ccl.buffer<4096xbf16>
// CHECK-NEXT:    ccl.all_gather %[[HALF]] -> %[[BIG]] group @pair : !ccl.buffer<2048xbf16> -> !ccl.buffer<4096xbf16>
// CHECK-NEXT:    ccl.broadcast %[[BIG]] -> %[[BIG]] root 7 : !ccl.buffer<4096xbf16> -> !ccl.buffer<4096xbf16>
// CHECK-NEXT:    ccl.broadcast %[[PART]] -> %[[PART]] root 1 group @pair : !ccl.buffer<512xbf16> -> !ccl.buffer<512xbf16>
// CHECK-NEXT:    ccl.reduce prod %[[BIG]] -> %[[BIG]] root 3 : !ccl.buffer<4096xbf16> -> !ccl.buffer<4096xbf16>
// CHECK-NEXT:    ccl.reduce avg %[[HALF]] -> %[[HALF]] root 0 group @pair : !ccl.buffer<2048xbf16> -> !ccl.buffer<2048xbf16>
// CHECK-NEXT:    ccl.all_to_all %[[BIG]] -> %[[BIG]] : !ccl.buffer<4096xbf16> -> !ccl.buffer<4096xbf16>
// CHECK-NEXT:    ccl.all_to_all %[[PART]] -> %[[PART]] group @pair : !ccl.buffer<512xbf16> -> !ccl.buffer<512xbf16>
// CHECK-NEXT:    ccl.barrier
// CHECK-NEXT:    ccl.barrier group @pair
// CHECK-NEXT:  }
// GENERIC-LABEL: "ccl.program"() <{sym_name = "collectives", world = 8 : i64}>
// GENERIC:         "ccl.reduce_scatter"(%{{.*}}, %{{.*}}) <{op = #ccl<redop sum>}>
// GENERIC:         "ccl.all_gather"(%{{.*}}, %{{.*}}) : (!ccl.buffer<512xbf16>, !ccl.buffer<4096xbf16>) -> ()
// GENERIC:         "ccl.broadcast"(%{{.*}}, %{{.*}}) <{root = 7 : i64}>
// GENERIC:         "ccl.reduce"(%{{.*}}, %{{.*}}) <{op = #ccl<redop prod>, root = 3 : i64}>
// GENERIC:         "ccl.all_to_all"(%{{.*}}, %{{.*}}) : (!ccl.buffer<4096xbf16>, !ccl.buffer<4096xbf16>) -> ()
// GENERIC:         "ccl.barrier"() : () -> ()
// GENERIC:         "ccl.barrier"() <{group = @pair}> : () -> ()
ccl.program @collectives world(8) {
  ccl.group @pair ranks [6, 1]
  %big = ccl.buffer "big" : !ccl.buffer<4096xbf16>
  %part = ccl.buffer "part" : !ccl.buffer<512xbf16>
  %half = ccl.buffer "half" : !ccl.buffer<2048xbf16>
  ccl.reduce_scatter sum %big -> %part : !ccl.buffer<4096xbf16> -> !ccl.buffer<512xbf16>
  ccl.reduce_scatter max %big -> %half group @pair : !ccl.buffer<4096xbf16> -> !ccl.buffer<2048xbf16>
  ccl.all_gather %part -> %big : !ccl.buffer<512xbf16> -> !ccl.buffer<4096xbf16>
  ccl.all_gather %half -> %big group @pair : !ccl.buffer<2048xbf16> -> !ccl.buffer<4096xbf16>
  ccl.broadcast %big -> %big root 7 : !ccl.buffer<4096xbf16> -> !ccl.buffer<4096xbf16>
  ccl.broadcast %part -> %part root 1 group @pair : !ccl.buffer<512xbf16> -> !ccl.buffer<512xbf16>
  ccl.reduce prod %big -> %big root 3 : !ccl.buffer<4096xbf16> -> !ccl.buffer<4096xbf16>
  ccl.reduce avg %half -> %half root 0 group @pair : !ccl.buffer<2048xbf16> -> !ccl.buffer<2048xbf16>
  ccl.all_to_all %big -> %big : !ccl.buffer<4096xbf16> -> !ccl.buffer<4096xbf16>
  ccl.all_to_all %part -> %part group @pair : !ccl.buffer<512xbf16> -> !ccl.buffer<512xbf16>
  ccl.barrier
  ccl.barrier group @pair
}

// Sends and receives match in program order per (group, from, to); a send
// and its receive may use different buffers of the same type.
// CHECK-LABEL: ccl.program @point_to_point world(4) {
// CHECK-NEXT:    ccl.group @rev ranks [3, 2, 1, 0]
// CHECK-NEXT:    %[[X:.*]] = ccl.buffer "x" : !ccl.buffer<256xi64>
// CHECK-NEXT:    %[[Y:.*]] = ccl.buffer "y" : !ccl.buffer<256xi64>
// CHECK-NEXT:    ccl.send %[[X]] from 0 to 3 : !ccl.buffer<256xi64>
// CHECK-NEXT:    ccl.recv %[[Y]] from 0 to 3 : !ccl.buffer<256xi64>
// CHECK-NEXT:    ccl.recv %[[X]] from 3 to 0 : !ccl.buffer<256xi64>
// CHECK-NEXT:    ccl.send %[[Y]] from 3 to 0 : !ccl.buffer<256xi64>
// CHECK-NEXT:    ccl.send %[[X]] from 1 to 2 group @rev : !ccl.buffer<256xi64>
// CHECK-NEXT:    ccl.send %[[Y]] from 1 to 2 group @rev : !ccl.buffer<256xi64>
// CHECK-NEXT:    ccl.recv %[[X]] from 1 to 2 group @rev : !ccl.buffer<256xi64>
// CHECK-NEXT:    ccl.recv %[[Y]] from 1 to 2 group @rev : !ccl.buffer<256xi64>
// CHECK-NEXT:  }
// GENERIC-LABEL: "ccl.program"() <{sym_name = "point_to_point", world = 4 : i64}>
// GENERIC:         "ccl.send"(%{{.*}}) <{from = 0 : i64, to = 3 : i64}> : (!ccl.buffer<256xi64>) -> ()
// GENERIC:         "ccl.recv"(%{{.*}}) <{from = 0 : i64, to = 3 : i64}> : (!ccl.buffer<256xi64>) -> ()
// GENERIC:         "ccl.send"(%{{.*}}) <{from = 1 : i64, group = @rev, to = 2 : i64}>
ccl.program @point_to_point world(4) {
  ccl.group @rev ranks [3, 2, 1, 0]
  %x = ccl.buffer "x" : !ccl.buffer<256xi64>
  %y = ccl.buffer "y" : !ccl.buffer<256xi64>
  ccl.send %x from 0 to 3 : !ccl.buffer<256xi64>
  ccl.recv %y from 0 to 3 : !ccl.buffer<256xi64>
  ccl.recv %x from 3 to 0 : !ccl.buffer<256xi64>
  ccl.send %y from 3 to 0 : !ccl.buffer<256xi64>
  ccl.send %x from 1 to 2 group @rev : !ccl.buffer<256xi64>
  ccl.send %y from 1 to 2 group @rev : !ccl.buffer<256xi64>
  ccl.recv %x from 1 to 2 group @rev : !ccl.buffer<256xi64>
  ccl.recv %y from 1 to 2 group @rev : !ccl.buffer<256xi64>
}

// Without a world, checks that need the number of ranks wait for one (the
// group still gives it where the program names one).
// CHECK-LABEL: ccl.program @unsized {
// CHECK-NEXT:    ccl.group @g ranks [5, 9]
// CHECK-NEXT:    %[[U:.*]] = ccl.buffer "u" : !ccl.buffer<96xui8>
// CHECK-NEXT:    %[[V:.*]] = ccl.buffer "v" : !ccl.buffer<48xui8>
// CHECK-NEXT:    ccl.reduce_scatter min %[[U]] -> %[[V]] group @g : !ccl.buffer<96xui8> -> !ccl.buffer<48xui8>
// CHECK-NEXT:    ccl.all_gather %[[V]] -> %[[U]] : !ccl.buffer<48xui8> -> !ccl.buffer<96xui8>
// CHECK-NEXT:    ccl.broadcast %[[U]] -> %[[U]] root 30 : !ccl.buffer<96xui8> -> !ccl.buffer<96xui8>
// CHECK-NEXT:    ccl.send %[[U]] from 30 to 2 : !ccl.buffer<96xui8>
// CHECK-NEXT:    ccl.recv %[[U]] from 30 to 2 : !ccl.buffer<96xui8>
// CHECK-NEXT:  }
ccl.program @unsized {
  ccl.group @g ranks [5, 9]
  %u = ccl.buffer "u" : !ccl.buffer<96xui8>
  %v = ccl.buffer "v" : !ccl.buffer<48xui8>
  ccl.reduce_scatter min %u -> %v group @g : !ccl.buffer<96xui8> -> !ccl.buffer<48xui8>
  ccl.all_gather %v -> %u : !ccl.buffer<48xui8> -> !ccl.buffer<96xui8>
  ccl.broadcast %u -> %u root 30 : !ccl.buffer<96xui8> -> !ccl.buffer<96xui8>
  ccl.send %u from 30 to 2 : !ccl.buffer<96xui8>
  ccl.recv %u from 30 to 2 : !ccl.buffer<96xui8>
}
