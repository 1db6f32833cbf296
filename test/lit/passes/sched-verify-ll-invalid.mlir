// RUN: ccopt %s --emit=mlir --sched-verify --split-input-file --verify-diagnostics

// Every rejection that comes with `into` and the LL protocol. Under LL a
// message lands where its receiver copies it out of the mailbox, so every
// receive of data must name the part (and it must be what the send wrote).

#r0 = affine_map<(d0) -> (0)>
#r1 = affine_map<(d0) -> (1)>
sched.program @ll_recv_without_into attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective send_recv>, element_type = f32,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64, protocol = #sched<protocol ll>} {
  sched.task channel 0 rank 0 {
    sched.send <input, (d0) -> (0), 1> to #r1 at <output, (d0) -> (0), 1>
  }
  sched.task channel 0 rank 1 {
    // expected-error @+1 {{rank 1, channel 0, step 0: receives data (rank 0 sends it to output[0, 4) (part 0 of 1)) but names no `into`: an LL program's recv needs it}}
    sched.recv from #r0
  }
}

// -----

// `into` is checked under Simple too.
#r0 = affine_map<(d0) -> (0)>
#r1 = affine_map<(d0) -> (1)>
sched.program @wrong_into attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective send_recv>, element_type = f32,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 rank 0 {
    sched.send <input, (d0) -> (0), 2> to #r1 at <output, (d0) -> (0), 2>
    sched.send <input, (d0) -> (1), 2> to #r1 at <output, (d0) -> (1), 2>
  }
  sched.task channel 0 rank 1 {
    sched.recv from #r0 into <output, (d0) -> (0), 2>
    // expected-error @+1 {{rank 1, channel 0, step 1: receives into output[0, 2) (part 0 of 2), but rank 0 sends to output[2, 4) (part 1 of 2)}}
    sched.recv from #r0 into <output, (d0) -> (0), 2>
  }
}

// -----

#r0 = affine_map<(d0) -> (0)>
#r1 = affine_map<(d0) -> (1)>
sched.program @into_from_a_signal attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective send_recv>, element_type = f32,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 rank 0 {
    sched.signal to #r1
  }
  sched.task channel 0 rank 1 {
    // expected-error @+1 {{rank 1, channel 0, step 0: receives into the output buffer, but its message from rank 0 is a signal (no data)}}
    sched.recv from #r0 into <output, (d0) -> (0), 1>
  }
}

// -----

// A fused step of an LL program copies its message out of the mailbox: it
// cannot take a signal.
#r0 = affine_map<(d0) -> (0)>
#r1 = affine_map<(d0) -> (1)>
sched.program @ll_fused_from_a_signal attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective reduce>, element_type = f32, root = 0 : i64,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 4 : i64, protocol = #sched<protocol ll>} {
  sched.task channel 0 rank 1 {
    sched.copy <input, (d0) -> (0), 1> -> <scratch, (d0) -> (0), 1>
    sched.signal to #r0
    sched.recv from #r0 into <scratch, (d0) -> (0), 1>
  }
  sched.task channel 0 rank 0 {
    // expected-error @+1 {{rank 0, channel 0, step 0: expects data, but its message from rank 1 is a signal (an LL program's fused steps receive data)}}
    sched.recv_reduce_send from #r1 <scratch, (d0) -> (0), 1>, <input, (d0) -> (0), 1> store <output, (d0) -> (0), 1> to #r1 at <scratch, (d0) -> (0), 1>
  }
}

// -----

// Under LL the fused steps' received part is where the data lands.
#r0 = affine_map<(d0) -> (0)>
#r1 = affine_map<(d0) -> (1)>
sched.program @ll_fused_wrong_part attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = i32,
    input_count = 2 : i64, output_count = 4 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64, protocol = #sched<protocol ll>} {
  sched.task channel 0 rank 0 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 2>
    sched.send <input, (d0) -> (0), 1> to #r1 at <output, (d0) -> (0), 2>
    sched.recv from #r1 into <output, (d0) -> (1), 2>
  }
  sched.task channel 0 rank 1 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (1), 2>
    // expected-error @+1 {{rank 1, channel 0, step 1: receives into output[2, 4) (part 1 of 2), but rank 0 sends to output[0, 2) (part 0 of 2)}}
    sched.recv_copy_send from #r0 <output, (d0) -> (1), 2> to #r0 at <output, (d0) -> (1), 2>
  }
}

// -----

sched.program @into_missing_buffer attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective send_recv>, element_type = f32,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 rank 1 {
    // expected-error @+1 {{'sched.recv' op destination uses the scratch buffer, which this program does not have}}
    sched.recv from affine_map<(d0) -> (0)> into <scratch, (d0) -> (0), 1>
  }
}

// -----

// LL128 goes through the mailbox too: the same rules, named for it.
#r0 = affine_map<(d0) -> (0)>
#r1 = affine_map<(d0) -> (1)>
sched.program @ll128_recv_without_into attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective send_recv>, element_type = f32,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64, protocol = #sched<protocol ll128>} {
  sched.task channel 0 rank 0 {
    sched.send <input, (d0) -> (0), 1> to #r1 at <output, (d0) -> (0), 1>
  }
  sched.task channel 0 rank 1 {
    // expected-error @+1 {{rank 1, channel 0, step 0: receives data (rank 0 sends it to output[0, 4) (part 0 of 1)) but names no `into`: an LL128 program's recv needs it}}
    sched.recv from #r0
  }
}

// -----

#r0 = affine_map<(d0) -> (0)>
#r1 = affine_map<(d0) -> (1)>
sched.program @ll128_fused_from_a_signal attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective reduce>, element_type = f32, root = 0 : i64,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 4 : i64, protocol = #sched<protocol ll128>} {
  sched.task channel 0 rank 1 {
    sched.copy <input, (d0) -> (0), 1> -> <scratch, (d0) -> (0), 1>
    sched.signal to #r0
    sched.recv from #r0 into <scratch, (d0) -> (0), 1>
  }
  sched.task channel 0 rank 0 {
    // expected-error @+1 {{rank 0, channel 0, step 0: expects data, but its message from rank 1 is a signal (an LL128 program's fused steps receive data)}}
    sched.recv_reduce_send from #r1 <scratch, (d0) -> (0), 1>, <input, (d0) -> (0), 1> store <output, (d0) -> (0), 1> to #r1 at <scratch, (d0) -> (0), 1>
  }
}

// -----

// Under LL128 too, the fused steps' received part is where the data lands.
#r0 = affine_map<(d0) -> (0)>
#r1 = affine_map<(d0) -> (1)>
sched.program @ll128_fused_wrong_part attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = i32,
    input_count = 2 : i64, output_count = 4 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64, protocol = #sched<protocol ll128>} {
  sched.task channel 0 rank 0 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 2>
    sched.send <input, (d0) -> (0), 1> to #r1 at <output, (d0) -> (0), 2>
    sched.recv from #r1 into <output, (d0) -> (1), 2>
  }
  sched.task channel 0 rank 1 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (1), 2>
    // expected-error @+1 {{rank 1, channel 0, step 1: receives into output[2, 4) (part 1 of 2), but rank 0 sends to output[0, 2) (part 0 of 2)}}
    sched.recv_copy_send from #r0 <output, (d0) -> (1), 2> to #r0 at <output, (d0) -> (1), 2>
  }
}
