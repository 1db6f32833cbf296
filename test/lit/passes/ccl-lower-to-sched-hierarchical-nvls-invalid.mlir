// Every reason the hierarchical all-reduce cannot go through the nodes'
// switches is a located error.
// RUN: ccopt %s --split-input-file --verify-diagnostics --ccl-lower-to-sched="topo=h100x8 nodes=2"
// RUN: not ccopt %s --ccl-lower-to-sched="topo=a100x8 nodes=2" 2>&1 | FileCheck %s --check-prefix=NO-NVLS

// NO-NVLS: error: hierarchical_nvls needs an NVSwitch that reduces (NVLS) in every node (h100x8, h200x8, or "nvls": true)

ccl.program @ordinary world(16) {
  %g = ccl.buffer "g" : !ccl.buffer<64xf32>
  // expected-error @+1 {{hierarchical_nvls needs multicast buffers (ccl.buffer "name" multicast): the switch reaches only memory bound to a multicast object}}
  ccl.all_reduce sum %g -> %g {algorithm = "hierarchical_nvls"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @product world(16) {
  %g = ccl.buffer "g" multicast : !ccl.buffer<64xi32>
  // expected-error @+1 {{hierarchical_nvls: the NVSwitch has no prod of this element type}}
  ccl.all_reduce prod %g -> %g {algorithm = "hierarchical_nvls"} : !ccl.buffer<64xi32> -> !ccl.buffer<64xi32>
}

// -----

ccl.program @narrow world(16) {
  %g = ccl.buffer "g" multicast : !ccl.buffer<64xf32>
  // expected-error @+1 {{hierarchical_nvls sends the element type (no compress)}}
  ccl.all_reduce sum %g -> %g {algorithm = "hierarchical_nvls", compress = bf16} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

// -----

ccl.program @oneNode world(8) {
  %g = ccl.buffer "g" multicast : !ccl.buffer<64xf32>
  // expected-error @+1 {{hierarchical_nvls needs a machine whose nodes each hold the same number (at least 2) of the ranks}}
  ccl.all_reduce sum %g -> %g {algorithm = "hierarchical_nvls"} : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}
