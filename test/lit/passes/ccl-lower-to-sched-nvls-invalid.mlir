// Every reason NVLS cannot build an all-reduce or a broadcast is a located error.
// RUN: ccopt %s --split-input-file --verify-diagnostics --ccl-lower-to-sched="topo=h100x8"
// RUN: not ccopt %s --ccl-lower-to-sched="topo=a100x8" 2>&1 | FileCheck %s --check-prefix=NO-NVLS

// NO-NVLS: error: nvls needs at least 2 ranks on one node of a machine with NVLS (an NVSwitch that reduces: h100x8, h200x8, or "nvls": true)

ccl.program @ordinary world(8) {
  %g = ccl.buffer "g" : !ccl.buffer<64xf32>
  // expected-error @+1 {{nvls needs multicast buffers (ccl.buffer "name" multicast): the switch reaches only memory bound to a multicast object}}
  ccl.all_reduce sum %g -> %g {algorithm = "nvls"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @bytes world(8) {
  %g = ccl.buffer "g" multicast : !ccl.buffer<64xi8>
  // expected-error @+1 {{nvls: the NVSwitch has no sum of this element type (sums of f32, f64, f16, bf16 and 32/64-bit integers; min and max of f16, bf16 and the integers)}}
  ccl.all_reduce sum %g -> %g {algorithm = "nvls"} : !ccl.buffer<64xi8> -> !ccl.buffer<64xi8>
}

// -----

ccl.program @product world(8) {
  %g = ccl.buffer "g" multicast : !ccl.buffer<64xf32>
  // expected-error @+1 {{the NVSwitch has no prod of this element type}}
  ccl.all_reduce prod %g -> %g {algorithm = "nvls"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @floatmax world(8) {
  %g = ccl.buffer "g" multicast : !ccl.buffer<64xf32>
  // expected-error @+1 {{the NVSwitch has no max of this element type}}
  ccl.all_reduce max %g -> %g {algorithm = "nvls"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @compressed world(8) {
  %g = ccl.buffer "g" multicast : !ccl.buffer<64xf32>
  // expected-error @+1 {{nvls sends the element type (no compress)}}
  ccl.all_reduce sum %g -> %g {algorithm = "nvls", compress = bf16} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @alone world(8) {
  ccl.group @one ranks [3]
  %g = ccl.buffer "g" multicast : !ccl.buffer<64xf32>
  // expected-error @+1 {{nvls needs at least 2 ranks on one node}}
  ccl.all_reduce sum %g -> %g group @one {algorithm = "nvls"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @ordinaryBroadcast world(8) {
  %g = ccl.buffer "g" : !ccl.buffer<64xf32>
  // expected-error @+1 {{nvls needs multicast buffers}}
  ccl.broadcast %g -> %g root 0 {algorithm = "nvls"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @byteBroadcast world(8) {
  %g = ccl.buffer "g" multicast : !ccl.buffer<64xi8>
  // expected-error @+1 {{nvls: the NVSwitch stores no words of this element type (f32, f64, f16, bf16 and 32/64-bit integers)}}
  ccl.broadcast %g -> %g root 0 {algorithm = "nvls"} : !ccl.buffer<64xi8> -> !ccl.buffer<64xi8>
}

// -----

ccl.program @broadcastAlone world(8) {
  ccl.group @one ranks [5]
  %g = ccl.buffer "g" multicast : !ccl.buffer<64xf32>
  // expected-error @+1 {{nvls needs at least 2 ranks on one node}}
  ccl.broadcast %g -> %g root 0 group @one {algorithm = "nvls"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}
