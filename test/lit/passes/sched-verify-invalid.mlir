// RUN: ccopt %s --emit=mlir --sched-verify --split-input-file --verify-diagnostics

// Both ranks wait first: nobody ever sends.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @deadlock attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 2 : i64, output_count = 2 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 2 : i64} {
  sched.task channel 0 {
    // expected-error @+1 {{rank 0, channel 0, step 0: circular wait (rank 0 waits for rank 1; rank 1 waits for rank 0)}}
    sched.recv from #peer
    sched.send <input, (d0) -> (0), 1> to #peer at <scratch, (d0) -> (0), 1>
  }
}

// -----

// Rank 0 reduces its scratch before the message that fills it arrives.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @early_read attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 2 : i64, output_count = 2 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 2 : i64} {
  sched.task channel 0 rank 1 {
    sched.send <input, (d0) -> (0), 2> to #peer at <scratch, (d0) -> (0), 2>
    sched.recv from #peer
  }
  sched.task channel 0 rank 0 {
    // expected-error @+1 {{rank 0, channel 0, step 0: reads scratch[0, 1) (part 0 of 2) before the data of rank 1 (channel 0, step 0) arrives}}
    sched.reduce <scratch, (d0) -> (0), 2>, <input, (d0) -> (0), 2> -> <output, (d0) -> (0), 2>
    sched.recv from #peer
    sched.send <output, (d0) -> (0), 2> to #peer at <output, (d0) -> (0), 2>
  }
}

// -----

// A rank adds its own input to itself.
sched.program @twice attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 1 : i64,
    redop = #ccl<redop sum>, scratch_count = 0 : i64} {
  sched.task channel 0 {
    // expected-error @+1 {{rank 0, channel 0, step 0: adds the contribution of rank 0 twice into input[0, 4) (part 0 of 1) ({0} + {0})}}
    sched.reduce <input, (d0) -> (0), 1>, <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 1>
  }
}

// -----

// Parts 0 and 1 hold different elements: reducing them together is wrong.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @misaligned attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 2 : i64, output_count = 2 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 2 : i64} {
  sched.task channel 0 {
    sched.send <input, (d0) -> (0), 2> to #peer at <scratch, (d0) -> (0), 2>
    sched.recv from #peer
    // expected-error @+1 {{combines input elements from 0 and from 1 into scratch[0, 1) (part 0 of 2) (misaligned parts)}}
    sched.reduce <scratch, (d0) -> (0), 2>, <input, (d0) -> (1), 2> -> <output, (d0) -> (0), 2>
  }
}

// -----

// Only part 0 is exchanged; part 1 of the output is never written.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
// expected-error @+1 {{rank 0 ends with output[1, 2) never written where all_reduce needs ranks {0-1} of input element 1 at element 1}}
sched.program @incomplete attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 2 : i64, output_count = 2 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 2 : i64} {
  sched.task channel 0 {
    sched.send <input, (d0) -> (0), 2> to #peer at <scratch, (d0) -> (0), 2>
    sched.recv from #peer
    sched.reduce <scratch, (d0) -> (0), 2>, <input, (d0) -> (0), 2> -> <output, (d0) -> (0), 2>
  }
}

// -----

// The output holds only the rank's own input: a contribution is missing.
// expected-error @+1 {{rank 0 ends with output[0, 3) holding ranks {0} of input element 0 where all_reduce needs ranks {0-1} of input element 0 at element 0}}
sched.program @missing attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 3 : i64, output_count = 3 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 0 : i64} {
  sched.task channel 0 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 1>
  }
}

// -----

// A message nobody receives.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
// expected-error @+1 {{rank 0 sends 1 message(s) to rank 1 on channel 0 that are never received}}
sched.program @unreceived attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = f32,
    input_count = 1 : i64, output_count = 2 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 rank 0 {
    sched.send <input, (d0) -> (0), 1> to #peer at <output, (d0) -> (d0), 2>
  }
}

// -----

// A receive whose sender finished without sending.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @never_sent attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = f32,
    input_count = 1 : i64, output_count = 2 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 rank 0 {
    // expected-error @+1 {{rank 0, channel 0, step 0: waits for a message that is never sent (rank 0 waits for rank 1)}}
    sched.recv from #peer
  }
}

// -----

// Sending to a rank that does not exist, or to oneself.
sched.program @no_such_peer attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = f32,
    input_count = 1 : i64, output_count = 2 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 {
    // expected-error @+1 {{rank 1, channel 0, step 0: peer rank 2 is outside [0, 2)}}
    sched.send <input, (d0) -> (0), 1> to affine_map<(d0) -> (d0 + 1)> at <output, (d0) -> (d0), 2>
  }
}

// -----

sched.program @self attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = f32,
    input_count = 1 : i64, output_count = 2 : i64, ranks = 2 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 {
    // expected-error @+1 {{rank 1, channel 0, step 0: rank 1 exchanges a message with itself}}
    sched.send <input, (d0) -> (0), 1> to affine_map<(d0) -> (d0)> at <output, (d0) -> (d0), 2>
  }
}

// -----

// A part index past the end.
sched.program @bad_part attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 1 : i64,
    redop = #ccl<redop sum>, scratch_count = 0 : i64} {
  sched.task channel 0 {
    // expected-error @+1 {{rank 0, channel 0, step 0: part index 2 of the input buffer is outside [0, 2)}}
    sched.copy <input, (d0) -> (2), 2> -> <output, (d0) -> (0), 1>
  }
}

// -----

// Source and destination differ in size.
sched.program @sizes attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 1 : i64,
    redop = #ccl<redop sum>, scratch_count = 0 : i64} {
  sched.task channel 0 {
    // expected-error @+1 {{rank 0, channel 0, step 0: input[0, 2) (part 0 of 2) and output[0, 4) (part 0 of 1) differ in size (2 vs 4 elements)}}
    sched.copy <input, (d0) -> (0), 2> -> <output, (d0) -> (0), 1>
  }
}

// -----

// A send's local store differs in size from what it sends.
sched.program @store_size attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective broadcast>, element_type = f32,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 2 : i64,
    root = 0 : i64, scratch_count = 0 : i64} {
  sched.task channel 0 rank 0 {
    // expected-error @+1 {{rank 0, channel 0, step 0: input[0, 4) (part 0 of 1) and output[0, 2) (part 0 of 2) differ in size (4 vs 2 elements)}}
    sched.send <input, (d0) -> (0), 1> to affine_map<(d0) -> (1)> at <output, (d0) -> (0), 1> store <output, (d0) -> (0), 2>
  }
  sched.task channel 0 rank 1 {
    sched.recv from affine_map<(d0) -> (0)>
  }
}

// -----

// Rank 1 fills its own scratch while rank 0 writes into it: nothing orders
// the two writes.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @race attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 2 : i64, output_count = 2 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 2 : i64} {
  sched.task channel 0 rank 1 {
    sched.copy <input, (d0) -> (0), 2> -> <scratch, (d0) -> (0), 2>
    sched.recv from #peer
  }
  sched.task channel 0 rank 0 {
    // expected-error @+1 {{rank 0, channel 0, step 0: writes rank 1's scratch[0, 1) (part 0 of 2) while rank 1 (channel 0, step 0) may still be writing it (no message orders the two)}}
    sched.send <input, (d0) -> (0), 2> to #peer at <scratch, (d0) -> (0), 2>
  }
}

// -----

// Two channels of one rank touch the same part unordered.
sched.program @channels attributes {algorithm = "hand", channels = 2 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 2 : i64, output_count = 2 : i64, ranks = 1 : i64,
    redop = #ccl<redop sum>, scratch_count = 0 : i64} {
  sched.task channel 1 {
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 1>
  }
  sched.task channel 0 {
    // expected-error @+1 {{rank 0, channel 0, step 0: writes rank 0's output[0, 2) (part 0 of 1) while rank 0 (channel 1, step 0) may still be writing it (no message orders the two)}}
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 1>
  }
}

// -----

// Finalizing twice (avg would divide twice).
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @avg_twice attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 2 : i64, output_count = 2 : i64, ranks = 2 : i64,
    redop = #ccl<redop avg>, scratch_count = 2 : i64} {
  sched.task channel 0 rank 0 {
    sched.send <input, (d0) -> (0), 1> to #peer at <scratch, (d0) -> (0), 1>
  }
  sched.task channel 0 rank 1 {
    sched.recv from #peer
    sched.reduce <scratch, (d0) -> (0), 1>, <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 1> finalize
    // expected-error @+1 {{rank 1, channel 0, step 2: reduces output[0, 2) (part 0 of 1) after it was finalized}}
    sched.reduce <output, (d0) -> (0), 1>, <scratch, (d0) -> (0), 1> -> <output, (d0) -> (0), 1> finalize
  }
}

// -----

// One round of a dissemination barrier over four ranks: rank r hears only
// from r-1, so rank 0 may leave before ranks 1 and 2 arrive.
// expected-error @+1 {{rank 0 (channel 0) may leave the barrier before rank 1 has arrived}}
sched.program @short_barrier attributes {algorithm = "dissemination", channels = 1 : i64,
    collective = #ccl<collective barrier>, element_type = i8,
    input_count = 0 : i64, output_count = 0 : i64, ranks = 4 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 {
    sched.signal to affine_map<(d0) -> ((d0 + 1) mod 4)>
    sched.recv from affine_map<(d0) -> ((d0 + 3) mod 4)>
  }
}

// -----

// Hand-written, one task per rank: three ranks each wait for the previous
// one before sending on: nobody starts.
#r0 = affine_map<(d0) -> (0)>
#r1 = affine_map<(d0) -> (1)>
#r2 = affine_map<(d0) -> (2)>
sched.program @cycle_of_three attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 3 : i64, output_count = 3 : i64, ranks = 3 : i64,
    redop = #ccl<redop sum>, scratch_count = 3 : i64} {
  sched.task channel 0 rank 0 {
    // expected-error @+1 {{rank 0, channel 0, step 0: circular wait (rank 0 waits for rank 2; rank 2 waits for rank 1; rank 1 waits for rank 0)}}
    sched.recv from #r2
    sched.send <input, (d0) -> (0), 1> to #r1 at <scratch, (d0) -> (0), 1>
  }
  sched.task channel 0 rank 1 {
    sched.recv from #r0
    sched.send <input, (d0) -> (0), 1> to #r2 at <scratch, (d0) -> (0), 1>
  }
  sched.task channel 0 rank 2 {
    sched.recv from #r1
    sched.send <input, (d0) -> (0), 1> to #r0 at <scratch, (d0) -> (0), 1>
  }
}

// -----

// Rank 1 sends its input twice (into two scratch halves); rank 0 adds both.
#r0 = affine_map<(d0) -> (0)>
#r1 = affine_map<(d0) -> (1)>
sched.program @contribution_twice attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective reduce>, element_type = f32, root = 0 : i64,
    input_count = 4 : i64, output_count = 4 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 8 : i64} {
  sched.task channel 0 rank 1 {
    sched.send <input, (d0) -> (0), 1> to #r0 at <scratch, (d0) -> (0), 2>
    sched.send <input, (d0) -> (0), 1> to #r0 at <scratch, (d0) -> (1), 2>
  }
  sched.task channel 0 rank 0 {
    sched.recv from #r1
    sched.reduce <scratch, (d0) -> (0), 2>, <input, (d0) -> (0), 1> -> <output, (d0) -> (0), 1>
    sched.recv from #r1
    // expected-error @+1 {{rank 0, channel 0, step 3: adds the contribution of rank 1 twice into output[0, 4) (part 0 of 1) ({0-1} + {1})}}
    sched.reduce <output, (d0) -> (0), 1>, <scratch, (d0) -> (1), 2> -> <output, (d0) -> (0), 1>
  }
}

// -----

// Rank 1 forwards the part it gathers from rank 0 before that part arrives.
#r0 = affine_map<(d0) -> (0)>
#r1 = affine_map<(d0) -> (1)>
#r2 = affine_map<(d0) -> (2)>
sched.program @forward_too_early attributes {algorithm = "hand", channels = 1 : i64,
    collective = #ccl<collective all_gather>, element_type = f32,
    input_count = 2 : i64, output_count = 6 : i64, ranks = 3 : i64,
    scratch_count = 0 : i64} {
  sched.task channel 0 rank 0 {
    sched.send <input, (d0) -> (0), 1> to #r1 at <output, (d0) -> (0), 3>
  }
  sched.task channel 0 rank 1 {
    // expected-error @+1 {{rank 1, channel 0, step 0: reads output[0, 2) (part 0 of 3), which holds no data yet}}
    sched.send <output, (d0) -> (0), 3> to #r2 at <output, (d0) -> (0), 3>
    sched.recv from #r0
  }
  sched.task channel 0 rank 2 {
    sched.recv from #r1
  }
}

// -----

// Two alike channels on the same elements: no proof from channel 0 alone;
// every channel runs and they race.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @same_channels attributes {algorithm = "hand", channels = 2 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 8 : i64, output_count = 8 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 8 : i64} {
  sched.task channel 0 {
    // expected-error @+1 {{rank 1, channel 0, step 0: writes rank 0's scratch[0, 2) (part 0 of 4) while rank 1 (channel 1, step 0) may still be writing it (no message orders the two)}}
    sched.send <input, (d0) -> ((d0 + 1) mod 2), 4> to #peer at <scratch, (d0) -> ((d0 + 1) mod 2), 4>
    sched.recv from #peer into <scratch, (d0) -> (d0), 4>
    sched.reduce <input, (d0) -> (d0), 4>, <scratch, (d0) -> (d0), 4> -> <output, (d0) -> (d0), 4>
    sched.send <output, (d0) -> (d0), 4> to #peer at <output, (d0) -> (d0), 4>
    sched.recv from #peer into <output, (d0) -> ((d0 + 1) mod 2), 4>
  }
  sched.task channel 1 {
    sched.send <input, (d0) -> ((d0 + 1) mod 2), 4> to #peer at <scratch, (d0) -> ((d0 + 1) mod 2), 4>
    sched.recv from #peer into <scratch, (d0) -> (d0), 4>
    sched.reduce <input, (d0) -> (d0), 4>, <scratch, (d0) -> (d0), 4> -> <output, (d0) -> (d0), 4>
    sched.send <output, (d0) -> (d0), 4> to #peer at <output, (d0) -> (d0), 4>
    sched.recv from #peer into <output, (d0) -> ((d0 + 1) mod 2), 4>
  }
}

// -----

// Channel 1 moved by one part: half of its elements are channel 0's.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @overlapping_channels attributes {algorithm = "hand", channels = 2 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 8 : i64, output_count = 8 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 8 : i64} {
  sched.task channel 0 {
    sched.send <input, (d0) -> ((d0 + 1) mod 2), 4> to #peer at <scratch, (d0) -> ((d0 + 1) mod 2), 4>
    sched.recv from #peer into <scratch, (d0) -> (d0), 4>
    // expected-error @+1 {{rank 1, channel 0, step 2: writes rank 1's output[2, 4) (part 1 of 4) while rank 0 (channel 1, step 3) may still be writing it (no message orders the two)}}
    sched.reduce <input, (d0) -> (d0), 4>, <scratch, (d0) -> (d0), 4> -> <output, (d0) -> (d0), 4>
    sched.send <output, (d0) -> (d0), 4> to #peer at <output, (d0) -> (d0), 4>
    sched.recv from #peer into <output, (d0) -> ((d0 + 1) mod 2), 4>
  }
  sched.task channel 1 {
    sched.send <input, (d0) -> ((d0 + 1) mod 2 + 1), 4> to #peer at <scratch, (d0) -> ((d0 + 1) mod 2 + 1), 4>
    sched.recv from #peer into <scratch, (d0) -> (d0 + 1), 4>
    sched.reduce <input, (d0) -> (d0 + 1), 4>, <scratch, (d0) -> (d0 + 1), 4> -> <output, (d0) -> (d0 + 1), 4>
    sched.send <output, (d0) -> (d0 + 1), 4> to #peer at <output, (d0) -> (d0 + 1), 4>
    sched.recv from #peer into <output, (d0) -> ((d0 + 1) mod 2 + 1), 4>
  }
}

// -----

// Channel 1 moved too far: the channels leave elements of the output between
// them that nobody writes.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
// expected-error @+1 {{rank 0 ends with output[4, 6) never written where all_reduce needs ranks {0-1} of input element 4 at element 4}}
sched.program @gap_between_channels attributes {algorithm = "hand", channels = 2 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 12 : i64, output_count = 12 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 12 : i64} {
  sched.task channel 0 {
    sched.send <input, (d0) -> ((d0 + 1) mod 2), 6> to #peer at <scratch, (d0) -> ((d0 + 1) mod 2), 6>
    sched.recv from #peer into <scratch, (d0) -> (d0), 6>
    sched.reduce <input, (d0) -> (d0), 6>, <scratch, (d0) -> (d0), 6> -> <output, (d0) -> (d0), 6>
    sched.send <output, (d0) -> (d0), 6> to #peer at <output, (d0) -> (d0), 6>
    sched.recv from #peer into <output, (d0) -> ((d0 + 1) mod 2), 6>
  }
  sched.task channel 1 {
    sched.send <input, (d0) -> ((d0 + 1) mod 2 + 3), 6> to #peer at <scratch, (d0) -> ((d0 + 1) mod 2 + 3), 6>
    sched.recv from #peer into <scratch, (d0) -> (d0 + 3), 6>
    sched.reduce <input, (d0) -> (d0 + 3), 6>, <scratch, (d0) -> (d0 + 3), 6> -> <output, (d0) -> (d0 + 3), 6>
    sched.send <output, (d0) -> (d0 + 3), 6> to #peer at <output, (d0) -> (d0 + 3), 6>
    sched.recv from #peer into <output, (d0) -> ((d0 + 1) mod 2 + 3), 6>
  }
}

// -----

// Channel 1 moved past the end of its buffers.
#peer = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @channel_beyond_the_buffers attributes {algorithm = "hand", channels = 2 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 8 : i64, output_count = 8 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 8 : i64} {
  sched.task channel 0 {
    sched.send <input, (d0) -> ((d0 + 1) mod 2), 4> to #peer at <scratch, (d0) -> ((d0 + 1) mod 2), 4>
    sched.recv from #peer into <scratch, (d0) -> (d0), 4>
    sched.reduce <input, (d0) -> (d0), 4>, <scratch, (d0) -> (d0), 4> -> <output, (d0) -> (d0), 4>
    sched.send <output, (d0) -> (d0), 4> to #peer at <output, (d0) -> (d0), 4>
    sched.recv from #peer into <output, (d0) -> ((d0 + 1) mod 2), 4>
  }
  sched.task channel 1 {
    // expected-error @+1 {{rank 0, channel 1, step 0: part index 4 of the input buffer is outside [0, 4)}}
    sched.send <input, (d0) -> ((d0 + 1) mod 2 + 3), 4> to #peer at <scratch, (d0) -> ((d0 + 1) mod 2 + 3), 4>
    sched.recv from #peer into <scratch, (d0) -> (d0 + 3), 4>
    sched.reduce <input, (d0) -> (d0 + 3), 4>, <scratch, (d0) -> (d0 + 3), 4> -> <output, (d0) -> (d0 + 3), 4>
    sched.send <output, (d0) -> (d0 + 3), 4> to #peer at <output, (d0) -> (d0 + 3), 4>
    sched.recv from #peer into <output, (d0) -> ((d0 + 1) mod 2 + 3), 4>
  }
}

// -----

// NVLS without the closing signals: rank 0 may finish before rank 1's store
// through the switch reaches its output.
// expected-error @+1 {{rank 0 may end before the write of output[3, 6) by rank 1 (channel 0, step 1) lands (no message orders it first)}}
sched.program @nvls_unsignalled attributes {algorithm = "nvls", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 6 : i64, output_count = 6 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 0 : i64, multicast} {
  sched.task channel 0 {
    sched.multimem_reduce <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
    sched.multimem_store <output, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
  }
}

// -----

// NVLS storing a part before reducing it: the switch replicates the
// output's old contents.
#other = affine_map<(d0) -> ((d0 + 1) mod 2)>
sched.program @nvls_store_first attributes {algorithm = "nvls", channels = 1 : i64,
    collective = #ccl<collective all_reduce>, element_type = f32,
    input_count = 6 : i64, output_count = 6 : i64, ranks = 2 : i64,
    redop = #ccl<redop sum>, scratch_count = 0 : i64, multicast} {
  sched.task channel 0 {
    // expected-error @+1 {{rank 1, channel 0, step 0: reads output[3, 6) (part 1 of 2), which holds no data yet}}
    sched.multimem_store <output, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
    sched.multimem_reduce <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
    sched.signal to #other
    sched.recv from #other
  }
}
