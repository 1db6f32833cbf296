// Every rejection of the ccl type, op and program verifiers.
// RUN: ccopt %s --emit=mlir --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// !ccl.buffer
//===----------------------------------------------------------------------===//

ccl.program @p {
  // expected-error @+1 {{buffer count must be positive, got 0}}
  %a = ccl.buffer "a" : !ccl.buffer<0xf32>
}

// -----

ccl.program @p {
  // expected-error @+1 {{expected one element count, as in <4096xf32>}}
  %a = ccl.buffer "a" : !ccl.buffer<4x4xf32>
}

// -----

ccl.program @p {
  // expected-error @+1 {{expected one element count, as in <4096xf32>}}
  %a = ccl.buffer "a" : !ccl.buffer<f32>
}

// -----

ccl.program @p {
  // expected-error @+1 {{expected static shape}}
  %a = ccl.buffer "a" : !ccl.buffer<?xf32>
}

// -----

ccl.program @p {
  // expected-error @+1 {{unsupported buffer element type 'si32' (expected f64, f32, f16, bf16, i64/ui64, i32/ui32 or i8/ui8)}}
  %a = ccl.buffer "a" : !ccl.buffer<16xsi32>
}

// -----

ccl.program @p {
  // expected-error @+1 {{unsupported buffer element type 'i16'}}
  %a = ccl.buffer "a" : !ccl.buffer<16xi16>
}

// -----

ccl.program @p {
  // expected-error @+1 {{unsupported buffer element type 'index'}}
  %a = ccl.buffer "a" : !ccl.buffer<16xindex>
}

// -----

ccl.program @p {
  // expected-error @+1 {{unsupported buffer element type 'complex<f32>'}}
  %a = ccl.buffer "a" : !ccl.buffer<16xcomplex<f32>>
}

// -----

//===----------------------------------------------------------------------===//
// ccl.program, ccl.group, ccl.buffer
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'ccl.program' op world must hold at least one rank, got 0}}
ccl.program @p world(0) {
}

// -----

// expected-error @+1 {{'ccl.program' op world must hold at least one rank, got -2}}
ccl.program @p world(-2) {
}

// -----

ccl.program @p world(8) {
  // expected-error @+1 {{'ccl.group' op must hold at least one rank}}
  ccl.group @g ranks []
}

// -----

ccl.program @p world(8) {
  // expected-error @+1 {{'ccl.group' op lists rank 2 twice}}
  ccl.group @g ranks [0, 2, 1, 2]
}

// -----

ccl.program @p world(8) {
  // expected-error @+1 {{'ccl.group' op rank 8 is outside the world of 8 ranks}}
  ccl.group @g ranks [0, 8]
}

// -----

// Without a world only negative ranks are known to be wrong.
ccl.program @p {
  // expected-error @+1 {{'ccl.group' op rank -1 is negative}}
  ccl.group @g ranks [0, -1]
}

// -----

ccl.program @p world(8) {
  // expected-note @+1 {{see existing symbol definition here}}
  ccl.group @g ranks [0, 1]
  // expected-error @+1 {{redefinition of symbol named 'g'}}
  ccl.group @g ranks [2, 3]
}

// -----

// expected-error @+1 {{'ccl.group' op expects parent op 'ccl.program'}}
ccl.group @g ranks [0]

// -----

// expected-error @+1 {{'ccl.buffer' op expects parent op 'ccl.program'}}
%a = ccl.buffer "a" : !ccl.buffer<8xf32>

// -----

//===----------------------------------------------------------------------===//
// Groups named by collectives
//===----------------------------------------------------------------------===//

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.all_reduce' op names unknown group @tp}}
  ccl.all_reduce sum %a -> %a group @tp : !ccl.buffer<8xf32> -> !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  // expected-error @+1 {{'ccl.barrier' op names unknown group @missing}}
  ccl.barrier group @missing
}

// -----

ccl.program @p world(2) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.send' op names unknown group @g}}
  ccl.send %a from 0 to 1 group @g : !ccl.buffer<8xf32>
  ccl.recv %a from 0 to 1 group @g : !ccl.buffer<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Element types and counts
//===----------------------------------------------------------------------===//

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  %b = ccl.buffer "b" : !ccl.buffer<8xf16>
  // expected-error @+1 {{'ccl.all_reduce' op input element type 'f32' differs from output element type 'f16'}}
  ccl.all_reduce sum %a -> %b : !ccl.buffer<8xf32> -> !ccl.buffer<8xf16>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  %b = ccl.buffer "b" : !ccl.buffer<16xf32>
  // expected-error @+1 {{'ccl.all_reduce' op input and output counts differ: 8 vs 16}}
  ccl.all_reduce max %a -> %b : !ccl.buffer<8xf32> -> !ccl.buffer<16xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<64xi32>
  %b = ccl.buffer "b" : !ccl.buffer<8xui32>
  // expected-error @+1 {{'ccl.reduce_scatter' op input element type 'i32' differs from output element type 'ui32'}}
  ccl.reduce_scatter sum %a -> %b : !ccl.buffer<64xi32> -> !ccl.buffer<8xui32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %b = ccl.buffer "b" : !ccl.buffer<16xf32>
  // expected-error @+1 {{'ccl.reduce_scatter' op input count 64 must be 8 ranks x output count 16}}
  ccl.reduce_scatter sum %a -> %b : !ccl.buffer<64xf32> -> !ccl.buffer<16xf32>
}

// -----

// With a group, its size is the number of ranks.
ccl.program @p world(8) {
  ccl.group @g ranks [0, 2, 4]
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %b = ccl.buffer "b" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.reduce_scatter' op input count 64 must be 3 ranks x output count 8}}
  ccl.reduce_scatter sum %a -> %b group @g : !ccl.buffer<64xf32> -> !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xbf16>
  %b = ccl.buffer "b" : !ccl.buffer<64xf16>
  // expected-error @+1 {{'ccl.all_gather' op input element type 'bf16' differs from output element type 'f16'}}
  ccl.all_gather %a -> %b : !ccl.buffer<8xbf16> -> !ccl.buffer<64xf16>
}

// -----

ccl.program @p world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  %b = ccl.buffer "b" : !ccl.buffer<64xf32>
  // expected-error @+1 {{'ccl.all_gather' op output count 64 must be 4 ranks x input count 8}}
  ccl.all_gather %a -> %b : !ccl.buffer<8xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xi64>
  %b = ccl.buffer "b" : !ccl.buffer<8xui64>
  // expected-error @+1 {{'ccl.broadcast' op input element type 'i64' differs from output element type 'ui64'}}
  ccl.broadcast %a -> %b root 0 : !ccl.buffer<8xi64> -> !ccl.buffer<8xui64>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  %b = ccl.buffer "b" : !ccl.buffer<4xf32>
  // expected-error @+1 {{'ccl.broadcast' op input and output counts differ: 8 vs 4}}
  ccl.broadcast %a -> %b root 0 : !ccl.buffer<8xf32> -> !ccl.buffer<4xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.broadcast' op root 8 is out of range for 8 ranks}}
  ccl.broadcast %a -> %a root 8 : !ccl.buffer<8xf32> -> !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  ccl.group @g ranks [4, 5]
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.broadcast' op root 4 is out of range for 2 ranks}}
  ccl.broadcast %a -> %a root 4 group @g : !ccl.buffer<8xf32> -> !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf64>
  %b = ccl.buffer "b" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.reduce' op input element type 'f64' differs from output element type 'f32'}}
  ccl.reduce sum %a -> %b root 0 : !ccl.buffer<8xf64> -> !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  %b = ccl.buffer "b" : !ccl.buffer<9xf32>
  // expected-error @+1 {{'ccl.reduce' op input and output counts differ: 8 vs 9}}
  ccl.reduce sum %a -> %b root 0 : !ccl.buffer<8xf32> -> !ccl.buffer<9xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.reduce' op root -1 is out of range for 8 ranks}}
  ccl.reduce min %a -> %a root -1 : !ccl.buffer<8xf32> -> !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<64xi8>
  %b = ccl.buffer "b" : !ccl.buffer<64xui8>
  // expected-error @+1 {{'ccl.all_to_all' op input element type 'i8' differs from output element type 'ui8'}}
  ccl.all_to_all %a -> %b : !ccl.buffer<64xi8> -> !ccl.buffer<64xui8>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %b = ccl.buffer "b" : !ccl.buffer<32xf32>
  // expected-error @+1 {{'ccl.all_to_all' op input and output counts differ: 64 vs 32}}
  ccl.all_to_all %a -> %b : !ccl.buffer<64xf32> -> !ccl.buffer<32xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<60xf32>
  // expected-error @+1 {{'ccl.all_to_all' op count 60 is not divisible by 8 ranks}}
  ccl.all_to_all %a -> %a : !ccl.buffer<60xf32> -> !ccl.buffer<60xf32>
}

// -----

//===----------------------------------------------------------------------===//
// ccl.send, ccl.recv
//===----------------------------------------------------------------------===//

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.send' op sends from rank 2 to itself}}
  ccl.send %a from 2 to 2 : !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.recv' op receives from rank 5 on itself}}
  ccl.recv %a from 5 to 5 : !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.send' op from rank 8 is out of range for 8 ranks}}
  ccl.send %a from 8 to 1 : !ccl.buffer<8xf32>
  ccl.recv %a from 8 to 1 : !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.send' op to rank -3 is out of range for 8 ranks}}
  ccl.send %a from 1 to -3 : !ccl.buffer<8xf32>
  ccl.recv %a from 1 to -3 : !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  ccl.group @g ranks [6, 7]
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  ccl.send %a from 0 to 1 group @g : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.recv' op to rank 6 is out of range for 2 ranks}}
  ccl.recv %a from 0 to 6 group @g : !ccl.buffer<8xf32>
  ccl.send %a from 0 to 6 group @g : !ccl.buffer<8xf32>
  ccl.recv %a from 0 to 1 group @g : !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  ccl.send %a from 0 to 1 : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.recv' op from rank 4 is out of range for 4 ranks}}
  ccl.recv %a from 4 to 1 : !ccl.buffer<8xf32>
  ccl.recv %a from 0 to 1 : !ccl.buffer<8xf32>
  ccl.send %a from 4 to 1 : !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.send' op from rank 0 to rank 1 has no matching ccl.recv}}
  ccl.send %a from 0 to 1 : !ccl.buffer<8xf32>
  // A receive the other way round does not match it.
  ccl.recv %a from 1 to 0 : !ccl.buffer<8xf32>
  ccl.send %a from 1 to 0 : !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  ccl.group @g ranks [0, 1]
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.recv' op from rank 0 to rank 1 has no matching ccl.send}}
  ccl.recv %a from 0 to 1 : !ccl.buffer<8xf32>
  // A send within a group does not match a receive over the world.
  ccl.send %a from 0 to 1 group @g : !ccl.buffer<8xf32>
  ccl.recv %a from 0 to 1 group @g : !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  ccl.send %a from 0 to 1 : !ccl.buffer<8xf32>
  ccl.recv %a from 0 to 1 : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.recv' op from rank 0 to rank 1 has no matching ccl.send}}
  ccl.recv %a from 0 to 1 : !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  %b = ccl.buffer "b" : !ccl.buffer<8xf16>
  // expected-note @+1 {{the matching ccl.send is here}}
  ccl.send %a from 0 to 1 : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.recv' op buffer type '!ccl.buffer<8xf16>' differs from '!ccl.buffer<8xf32>' of the matching ccl.send}}
  ccl.recv %b from 0 to 1 : !ccl.buffer<8xf16>
}

// -----

// Sends and receives pair in program order: the second send meets the
// second receive, whose count differs.
ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  %b = ccl.buffer "b" : !ccl.buffer<16xf32>
  ccl.recv %a from 3 to 2 : !ccl.buffer<8xf32>
  // expected-note @+1 {{the matching ccl.recv is here}}
  ccl.recv %a from 3 to 2 : !ccl.buffer<8xf32>
  ccl.send %a from 3 to 2 : !ccl.buffer<8xf32>
  // expected-error @+1 {{'ccl.send' op buffer type '!ccl.buffer<16xf32>' differs from '!ccl.buffer<8xf32>' of the matching ccl.recv}}
  ccl.send %b from 3 to 2 : !ccl.buffer<16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Syntax
//===----------------------------------------------------------------------===//

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{expected '->'}}
  ccl.all_reduce sum %a %a : !ccl.buffer<8xf32> -> !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{expected a reduction (sum, prod, min, max or avg), got 'mean'}}
  ccl.all_reduce mean %a -> %a : !ccl.buffer<8xf32> -> !ccl.buffer<8xf32>
}

// -----

ccl.program @p world(8) {
  %a = ccl.buffer "a" : !ccl.buffer<8xf32>
  // expected-error @+1 {{custom op 'ccl.allreduce' is unknown}}
  ccl.allreduce sum %a -> %a : !ccl.buffer<8xf32> -> !ccl.buffer<8xf32>
}

//===----------------------------------------------------------------------===//
// compress (wire compression)
//===----------------------------------------------------------------------===//

// -----

ccl.program @p world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<64xi32>
  // expected-error @+1 {{compress needs f32 or f64 data, got 'i32' (integers and 16-bit floats are sent as they are)}}
  ccl.all_reduce sum %a -> %a {compress = f16} : !ccl.buffer<64xi32> -> !ccl.buffer<64xi32>
}

// -----

ccl.program @p world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<64xf16>
  // expected-error @+1 {{compress needs f32 or f64 data, got 'f16'}}
  ccl.reduce sum %a -> %a root 0 {compress = bf16} : !ccl.buffer<64xf16> -> !ccl.buffer<64xf16>
}

// -----

ccl.program @p world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %b = ccl.buffer "b" : !ccl.buffer<16xf32>
  // expected-error @+1 {{compress must be f16 or bf16, got 'f32'}}
  ccl.reduce_scatter sum %a -> %b {compress = f32} : !ccl.buffer<64xf32> -> !ccl.buffer<16xf32>
}

//===----------------------------------------------------------------------===//
// ccl.bucket
//===----------------------------------------------------------------------===//

// -----

ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %b = ccl.buffer "b" : !ccl.buffer<32xf32>
  // expected-error @+1 {{count 100 differs from the members' total 96}}
  %k = ccl.bucket "k" %a, %b : !ccl.buffer<64xf32>, !ccl.buffer<32xf32> -> !ccl.buffer<100xf32>
}

// -----

ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %b = ccl.buffer "b" : !ccl.buffer<32xi32>
  // expected-error @+1 {{member #1 holds 'i32' but the bucket holds 'f32'}}
  %k = ccl.bucket "k" %a, %b : !ccl.buffer<64xf32>, !ccl.buffer<32xi32> -> !ccl.buffer<96xf32>
}

// -----

ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  // expected-error @+1 {{lists member #1 twice}}
  %k = ccl.bucket "k" %a, %a : !ccl.buffer<64xf32>, !ccl.buffer<64xf32> -> !ccl.buffer<128xf32>
}

// -----

ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %k = ccl.bucket "k" %a : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
  // expected-error @+1 {{member #0 is not a ccl.buffer}}
  %k2 = ccl.bucket "k2" %k : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

//===----------------------------------------------------------------------===//
// ccl.ready (compute events)
//===----------------------------------------------------------------------===//

// -----

ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  // expected-note @+1 {{used here}}
  ccl.all_reduce sum %a -> %a : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
  // expected-error @+1 {{event 'late' makes buffer #0 ready after a collective used it (impossible order)}}
  ccl.ready "late" %a : !ccl.buffer<64xf32>
}

// -----

ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %b = ccl.buffer "b" : !ccl.buffer<64xf32>
  %k = ccl.bucket "k" %a, %b : !ccl.buffer<64xf32>, !ccl.buffer<64xf32> -> !ccl.buffer<128xf32>
  ccl.ready "first" %a : !ccl.buffer<64xf32>
  // expected-note @+1 {{used here}}
  ccl.all_reduce sum %k -> %k : !ccl.buffer<128xf32> -> !ccl.buffer<128xf32>
  // expected-error @+1 {{event 'second' makes buffer #0 ready after a collective used it (impossible order)}}
  ccl.ready "second" %b : !ccl.buffer<64xf32>
}

// -----

ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %b = ccl.buffer "b" : !ccl.buffer<64xf32>
  ccl.ready "e1" %a : !ccl.buffer<64xf32>
  // expected-error @+1 {{makes buffer #1 ready a second time}}
  ccl.ready "e2" %b, %a : !ccl.buffer<64xf32>, !ccl.buffer<64xf32>
}

// -----

ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %b = ccl.buffer "b" : !ccl.buffer<64xf32>
  // expected-note @+1 {{first declared here}}
  ccl.ready "e" %a : !ccl.buffer<64xf32>
  // expected-error @+1 {{event 'e' is declared twice}}
  ccl.ready "e" %b : !ccl.buffer<64xf32>
}

// -----

ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %k = ccl.bucket "k" %a : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
  // expected-error @+1 {{buffer #0 is not a ccl.buffer}}
  ccl.ready "e" %k : !ccl.buffer<64xf32>
}

// -----

ccl.program @p world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %b = ccl.buffer "b" : !ccl.buffer<16xf32>
  // expected-error @+1 {{compress applies to reductions (all_reduce, reduce_scatter, reduce): this collective would deliver rounded copies of its input}}
  ccl.all_gather %b -> %a {compress = f16} : !ccl.buffer<16xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @p world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  // expected-error @+1 {{compress applies to reductions}}
  ccl.broadcast %a -> %a root 1 {compress = bf16} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @p world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  %b = ccl.buffer "b" : !ccl.buffer<64xf32>
  // expected-error @+1 {{compress applies to reductions}}
  ccl.all_to_all %a -> %b {compress = f16} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @p world(4) {
  %a = ccl.buffer "a" : !ccl.buffer<64xf32>
  ccl.recv %a from 0 to 1 : !ccl.buffer<64xf32>
  // expected-error @+1 {{compress applies to reductions}}
  ccl.send %a from 0 to 1 {compress = f16} : !ccl.buffer<64xf32>
}
