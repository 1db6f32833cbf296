// sched-verify given a machine (--topo with --sched-verify, or the default
// pipeline): every rank must be one of its GPUs, every message must have a
// route, and a program's `links` bounds the kind of link a message may take.
// RUN: ccopt %s --emit=mlir --topo v100x8 --sched-verify --split-input-file --verify-diagnostics

// Rank 8 of a 9-rank broadcast: v100x8 has GPUs 0-7.
#r0 = affine_map<(d0) -> (0)>
#r8 = affine_map<(d0) -> (8)>
sched.program @beyond_the_machine attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective broadcast>, element_type = f32, root = 0 : i64,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 9 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 rank 0 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 1>
    // expected-error @+1 {{rank 0, channel 0, step 1: sends to rank 8, but rank 8 is not on v100x8 (8 GPUs)}}
    sched.send <input, (d0) -> (0), 1> to #r8 at <output, (d0) -> (0), 1>
  }
  sched.task channel 0 rank 8 {
    sched.recv from #r0
  }
}

// -----

// GPUs 0 and 5 of the cube-mesh share no NVLink: the message would cross
// PCIe and the CPUs' link, which `links = "nvlink"` rules out.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @not_nvlink attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = f32,
    input_count = 2 : i64, output_count = 4 : i64, ranks = 2 : i64,
    rank_map = array<i64: 0, 5>, scratch_count = 0 : i64, links = "nvlink"} {
  sched.task channel 0 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (d0), 2>
    // expected-error @+1 {{rank 1, channel 0, step 1: sends to rank 0 over smp, but the program allows only links up to nvlink (v100x8 has no such link from GPU 5 to GPU 0)}}
    sched.send <input, (d0) -> (0), 1> to #peer at <output, (d0) -> (d0), 2>
    sched.recv from #peer
  }
}

// -----

// The same exchange between GPUs 0 and 3 (two NVLinks) is allowed.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @nvlink_ok attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = f32,
    input_count = 1 : i64, output_count = 2 : i64, ranks = 2 : i64,
    rank_map = array<i64: 0, 3>, scratch_count = 0 : i64, links = "nvlink"} {
  sched.task channel 0 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (d0), 2>
    sched.send <input, (d0) -> (0), 1> to #peer at <output, (d0) -> (d0), 2>
    sched.recv from #peer
  }
}

// -----

// A rank placed on a GPU the machine does not have, though it sends nothing.
// expected-error @+1 {{rank 1 runs on GPU 9, but v100x8 has 8 GPUs}}
sched.program @placed_beyond attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = f32,
    input_count = 1 : i64, output_count = 2 : i64, ranks = 2 : i64,
    rank_map = array<i64: 0, 9>, scratch_count = 0 : i64} {
  sched.task channel 0 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (d0), 2>
  }
}

// -----

// expected-error @+1 {{links must be nvlink, pcie, smp or net, got 'wire'}}
sched.program @bad_links attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = f32,
    input_count = 1 : i64, output_count = 1 : i64, ranks = 1 : i64,
    scratch_count = 0 : i64, links = "wire"} {
  sched.task channel 0 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 1>
  }
}
