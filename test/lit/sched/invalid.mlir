// Every rejection of the sched op and attribute verifiers.
// RUN: ccopt %s --emit=mlir --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// sched.program
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'sched.program' op needs at least one rank, got 0}}
sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 0 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 8 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
}

// -----

// expected-error @+1 {{'sched.program' op needs at least one rank, got -4}}
sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = -4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 8 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
}

// -----

// expected-error @+1 {{'sched.program' op needs at least one channel, got 0}}
sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 2 : i64, channels = 0 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 16 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
}

// -----

// expected-error @+1 {{'sched.program' op buffer counts must not be negative}}
sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, input_count = -8 : i64,
    output_count = 16 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
}

// -----

// expected-error @+1 {{'sched.program' op buffer counts must not be negative}}
sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = -16 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
}

// -----

// expected-error @+1 {{'sched.program' op buffer counts must not be negative}}
sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 16 : i64, scratch_count = -1 : i64, algorithm = "ring"} {
}

// -----

// expected-error @+1 {{'sched.program' op in_place needs equal input and output counts}}
sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, in_place,
    input_count = 8 : i64, output_count = 16 : i64, scratch_count = 0 : i64,
    algorithm = "ring"} {
}

// -----

// expected-error @+1 {{'sched.program' op root 4 is out of range for 4 ranks}}
sched.program @p attributes {collective = #ccl<collective broadcast>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 8 : i64, scratch_count = 0 : i64, root = 4 : i64,
    algorithm = "tree"} {
}

// -----

// expected-error @+1 {{'sched.program' op root -1 is out of range for 4 ranks}}
sched.program @p attributes {collective = #ccl<collective broadcast>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 8 : i64, scratch_count = 0 : i64, root = -1 : i64,
    algorithm = "tree"} {
}

// -----

// expected-error @+1 {{'sched.program' op requires attribute 'algorithm'}}
sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 16 : i64, scratch_count = 0 : i64} {
}

// -----

//===----------------------------------------------------------------------===//
// sched.task, sched.loop
//===----------------------------------------------------------------------===//

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 2 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  // expected-error @+1 {{'sched.task' op channel 2 is out of range for 2 channels}}
  sched.task channel 2 {
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 2 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  // expected-error @+1 {{'sched.task' op channel -1 is out of range for 2 channels}}
  sched.task channel -1 {
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 2 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  // expected-error @+1 {{'sched.task' op rank 4 is out of range for 4 ranks}}
  sched.task channel 1 rank 4 {
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 2 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  // expected-error @+1 {{'sched.task' op rank -2 is out of range for 4 ranks}}
  sched.task channel 0 rank -2 {
  }
}

// -----

// expected-error @+1 {{'sched.task' op expects parent op 'sched.program'}}
sched.task channel 0 {
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.loop' op upper bound 2 is below lower bound 3}}
    sched.loop 3 to 2 {
    }
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.loop' op lower bound -1 must not be negative}}
    sched.loop -1 to 2 {
    }
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  // expected-error @+1 {{'sched.loop' op expects parent op to be one of 'sched.task, sched.loop'}}
  sched.loop 0 to 2 {
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  // expected-error @+1 {{'sched.recv' op expects parent op to be one of 'sched.task, sched.loop'}}
  sched.recv from affine_map<(d0) -> (d0)>
}

// -----

//===----------------------------------------------------------------------===//
// #sched.part
//===----------------------------------------------------------------------===//

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{a buffer splits into at least one part, got 0}}
    sched.copy <input, (d0) -> (0), 0> -> <output, (d0) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{part index must be a map with one result and no symbols, got affine_map<(d0) -> (0, d0)>}}
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0) -> (0, d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{part index must be a map with one result and no symbols, got affine_map<(d0)[s0] -> (d0 + s0)>}}
    sched.copy <input, (d0) -> (0), 1> -> <output, (d0)[s0] -> (d0 + s0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+2 {{expected one of [input, output, scratch] for buffer of a rank}}
    // expected-error @+1 {{failed to parse Sched_PartAttr parameter 'buffer'}}
    sched.copy <inout, (d0) -> (0), 1> -> <output, (d0) -> (d0), 4>
  }
}

// -----

//===----------------------------------------------------------------------===//
// Maps of steps: (rank, loop indices...) -> one result
//===----------------------------------------------------------------------===//

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.copy' op source map affine_map<(d0, d1) -> (d1)> must take 1 dimensions (rank and 0 loop indices) and give one result}}
    sched.copy <input, (d0, d1) -> (d1), 1> -> <output, (d0) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    sched.loop 0 to 2 {
      sched.loop 0 to 2 {
        // expected-error @+1 {{'sched.copy' op destination map affine_map<(d0, d1) -> (d1)> must take 3 dimensions (rank and 2 loop indices) and give one result}}
        sched.copy <input, (d0, d1, d2) -> (0), 1> -> <output, (d0, d1) -> (d1), 4>
      }
    }
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    sched.loop 1 to 4 {
      // expected-error @+1 {{'sched.send' op peer map affine_map<(d0) -> ((d0 + 1) mod 4)> must take 2 dimensions (rank and 1 loop indices) and give one result}}
      sched.send <input, (d0, d1) -> (0), 1> to affine_map<(d0) -> ((d0 + 1) mod 4)>
          at <output, (d0, d1) -> (d0), 4>
    }
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.send' op source map affine_map<(d0, d1) -> (0)> must take 1 dimensions}}
    sched.send <input, (d0, d1) -> (0), 1> to affine_map<(d0) -> ((d0 + 1) mod 4)>
        at <output, (d0) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.send' op destination map affine_map<(d0, d1) -> (d0)> must take 1 dimensions}}
    sched.send <input, (d0) -> (0), 1> to affine_map<(d0) -> ((d0 + 1) mod 4)>
        at <output, (d0, d1) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.recv' op peer map affine_map<(d0) -> (d0, 1)> must take 1 dimensions (rank and 0 loop indices) and give one result}}
    sched.recv from affine_map<(d0) -> (d0, 1)>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.recv' op peer map affine_map<(d0)[s0] -> (s0)> must take 1 dimensions}}
    sched.recv from affine_map<(d0)[s0] -> (s0)>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    redop = #ccl<redop sum>, ranks = 4 : i64, channels = 1 : i64,
    element_type = f32, input_count = 8 : i64, output_count = 8 : i64,
    scratch_count = 8 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.reduce' op lhs map affine_map<(d0, d1) -> (0)> must take 1 dimensions}}
    sched.reduce <scratch, (d0, d1) -> (0), 4>, <input, (d0) -> (0), 4> -> <output, (d0) -> (0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    redop = #ccl<redop sum>, ranks = 4 : i64, channels = 1 : i64,
    element_type = f32, input_count = 8 : i64, output_count = 8 : i64,
    scratch_count = 8 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.reduce' op rhs map affine_map<(d0, d1) -> (0)> must take 1 dimensions}}
    sched.reduce <scratch, (d0) -> (0), 4>, <input, (d0, d1) -> (0), 4> -> <output, (d0) -> (0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    redop = #ccl<redop sum>, ranks = 4 : i64, channels = 1 : i64,
    element_type = f32, input_count = 8 : i64, output_count = 8 : i64,
    scratch_count = 8 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    sched.loop 0 to 3 {
      // expected-error @+1 {{'sched.recv_reduce_send' op from map affine_map<(d0) -> (0)> must take 2 dimensions}}
      sched.recv_reduce_send from affine_map<(d0) -> (0)>
          <scratch, (d0, d1) -> (d1), 4>, <input, (d0, d1) -> (d1), 4>
          to affine_map<(d0, d1) -> (0)> at <scratch, (d0, d1) -> (d1), 4>
    }
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    redop = #ccl<redop sum>, ranks = 4 : i64, channels = 1 : i64,
    element_type = f32, input_count = 8 : i64, output_count = 8 : i64,
    scratch_count = 8 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.recv_reduce_send' op store map affine_map<(d0, d1) -> (d1)> must take 1 dimensions}}
    sched.recv_reduce_send from affine_map<(d0) -> (0)>
        <scratch, (d0) -> (d0), 4>, <input, (d0) -> (d0), 4>
        store <output, (d0, d1) -> (d1), 4>
        to affine_map<(d0) -> (0)> at <scratch, (d0) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    redop = #ccl<redop sum>, ranks = 4 : i64, channels = 1 : i64,
    element_type = f32, input_count = 8 : i64, output_count = 8 : i64,
    scratch_count = 8 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.recv_reduce_send' op to map affine_map<(d0) -> (0, 1)> must take 1 dimensions}}
    sched.recv_reduce_send from affine_map<(d0) -> (0)>
        <scratch, (d0) -> (d0), 4>, <input, (d0) -> (d0), 4>
        to affine_map<(d0) -> (0, 1)> at <scratch, (d0) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.recv_copy_send' op from map affine_map<(d0, d1) -> (0)> must take 1 dimensions}}
    sched.recv_copy_send from affine_map<(d0, d1) -> (0)> <output, (d0) -> (d0), 4>
        to affine_map<(d0) -> (1)> at <output, (d0) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.recv_copy_send' op received map affine_map<(d0, d1) -> (d0)> must take 1 dimensions}}
    sched.recv_copy_send from affine_map<(d0) -> (0)> <output, (d0, d1) -> (d0), 4>
        to affine_map<(d0) -> (1)> at <output, (d0) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    sched.loop 0 to 1 {
      // expected-error @+1 {{'sched.recv_copy_send' op to map affine_map<(d0) -> (1)> must take 2 dimensions}}
      sched.recv_copy_send from affine_map<(d0, d1) -> (0)> <output, (d0, d1) -> (d0), 4>
          to affine_map<(d0) -> (1)> at <output, (d0, d1) -> (d0), 4>
    }
  }
}

// -----

//===----------------------------------------------------------------------===//
// Parts of buffers the program does not have
//===----------------------------------------------------------------------===//

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.copy' op destination uses the scratch buffer, which this program does not have}}
    sched.copy <input, (d0) -> (0), 1> -> <scratch, (d0) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 0 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.send' op source uses the input buffer, which this program does not have}}
    sched.send <input, (d0) -> (0), 1> to affine_map<(d0) -> ((d0 + 1) mod 4)>
        at <output, (d0) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    redop = #ccl<redop sum>, ranks = 4 : i64, channels = 1 : i64,
    element_type = f32, input_count = 8 : i64, output_count = 8 : i64,
    scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.recv_reduce_send' op received uses the scratch buffer, which this program does not have}}
    sched.recv_reduce_send from affine_map<(d0) -> (0)>
        <scratch, (d0) -> (d0), 4>, <input, (d0) -> (d0), 4>
        to affine_map<(d0) -> (1)> at <output, (d0) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    redop = #ccl<redop sum>, ranks = 4 : i64, channels = 1 : i64,
    element_type = f32, input_count = 8 : i64, output_count = 8 : i64,
    scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.recv_reduce_send' op local uses the scratch buffer, which this program does not have}}
    sched.recv_reduce_send from affine_map<(d0) -> (0)>
        <output, (d0) -> (d0), 4>, <scratch, (d0) -> (d0), 4>
        to affine_map<(d0) -> (1)> at <output, (d0) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    redop = #ccl<redop sum>, ranks = 4 : i64, channels = 1 : i64,
    element_type = f32, input_count = 8 : i64, output_count = 8 : i64,
    scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.recv_reduce_send' op destination uses the scratch buffer, which this program does not have}}
    sched.recv_reduce_send from affine_map<(d0) -> (0)>
        <output, (d0) -> (d0), 4>, <input, (d0) -> (d0), 4>
        to affine_map<(d0) -> (1)> at <scratch, (d0) -> (d0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    redop = #ccl<redop sum>, ranks = 4 : i64, channels = 1 : i64,
    element_type = f32, input_count = 8 : i64, output_count = 8 : i64,
    scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.reduce' op destination uses the scratch buffer, which this program does not have}}
    sched.reduce <output, (d0) -> (0), 4>, <input, (d0) -> (0), 4> -> <scratch, (d0) -> (0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.recv_copy_send' op destination uses the scratch buffer, which this program does not have}}
    sched.recv_copy_send from affine_map<(d0) -> (0)> <output, (d0) -> (d0), 4>
        to affine_map<(d0) -> (1)> at <scratch, (d0) -> (d0), 4>
  }
}

// -----

//===----------------------------------------------------------------------===//
// Reductions need a program with a redop
//===----------------------------------------------------------------------===//

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 8 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.reduce' op needs a program with a reduction (redop)}}
    sched.reduce <scratch, (d0) -> (0), 4>, <input, (d0) -> (0), 4> -> <output, (d0) -> (0), 4>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 8 : i64, algorithm = "ring"} {
  sched.task channel 0 {
    sched.loop 0 to 3 {
      // expected-error @+1 {{'sched.recv_reduce_send' op needs a program with a reduction (redop)}}
      sched.recv_reduce_send from affine_map<(d0, d1) -> (0)>
          <scratch, (d0, d1) -> (d1), 4>, <input, (d0, d1) -> (d1), 4>
          to affine_map<(d0, d1) -> (1)> at <scratch, (d0, d1) -> (d1), 4>
    }
  }
}

// -----

// expected-error @+1 {{'sched.program' op rank_map has 3 entries for 4 ranks}}
sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring",
    rank_map = array<i64: 0, 1, 2>} {
}

// -----

// expected-error @+1 {{'sched.program' op rank_map must list distinct non-negative ranks, got 1}}
sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 16 : i64, scratch_count = 0 : i64, algorithm = "ring",
    rank_map = array<i64: 1, 1>} {
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 4 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 32 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  // expected-error @+1 {{'sched.task' op rank_map has 2 entries for 4 ranks}}
  sched.task channel 0 attributes {rank_map = array<i64: 0, 1>} {
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 3 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 24 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  // expected-error @+1 {{'sched.task' op rank_map must be a permutation of the 3 ranks, got 0}}
  sched.task channel 0 attributes {rank_map = array<i64: 0, 2, 0>} {
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 16 : i64, scratch_count = 0 : i64, algorithm = "ring"} {
  // expected-error @+1 {{'sched.task' op takes either a rank or a rank_map, not both}}
  sched.task channel 0 rank 1 attributes {rank_map = array<i64: 1, 0>} {
  }
}

// -----

// The switch reaches only buffers bound to multicast objects.
sched.program @p attributes {collective = #ccl<collective all_reduce>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, input_count = 6 : i64,
    output_count = 6 : i64, scratch_count = 0 : i64, algorithm = "nvls",
    redop = #ccl<redop sum>} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.multimem_reduce' op needs a multicast program (input and output bound to multicast objects)}}
    sched.multimem_reduce <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, input_count = 6 : i64,
    output_count = 6 : i64, scratch_count = 6 : i64, algorithm = "nvls",
    redop = #ccl<redop sum>, multicast} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.multimem_store' op needs its destination in the input or output (multicast), not the scratch}}
    sched.multimem_store <output, (d0) -> (d0), 2> -> <scratch, (d0) -> (d0), 2>
  }
}

// -----

// NVLS steps move data through the switch, not in messages: no LL form.
sched.program @p attributes {collective = #ccl<collective all_reduce>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, input_count = 6 : i64,
    output_count = 6 : i64, scratch_count = 0 : i64, algorithm = "nvls",
    redop = #ccl<redop sum>, protocol = #sched<protocol ll>, multicast} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.multimem_reduce' op needs the simple protocol, not ll}}
    sched.multimem_reduce <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, input_count = 6 : i64,
    output_count = 6 : i64, scratch_count = 0 : i64, algorithm = "nvls",
    redop = #ccl<redop max>, multicast} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.multimem_reduce' op the switch has no max of 'f32'}}
    sched.multimem_reduce <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, wire = bf16,
    input_count = 6 : i64, output_count = 6 : i64, scratch_count = 0 : i64,
    algorithm = "nvls", redop = #ccl<redop sum>, multicast} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.multimem_reduce' op needs the element type on the wire, not 'bf16'}}
    sched.multimem_reduce <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective broadcast>,
    ranks = 2 : i64, channels = 1 : i64, element_type = i8, input_count = 6 : i64,
    output_count = 6 : i64, scratch_count = 0 : i64, algorithm = "nvls", root = 0 : i64,
    multicast} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.multimem_store' op the switch moves no 'i8' (16-bit words at least)}}
    sched.multimem_store <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_gather>,
    ranks = 2 : i64, channels = 1 : i64, element_type = f32, input_count = 3 : i64,
    output_count = 6 : i64, scratch_count = 0 : i64, algorithm = "nvls", multicast} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.multimem_reduce' op needs a program with a reduction (redop)}}
    sched.multimem_reduce <input, (d0) -> (d0), 2> -> <output, (d0) -> (d0), 2>
  }
}

// -----

// A switch group is a block of at least 2 ranks, as many in each.
sched.program @p attributes {collective = #ccl<collective all_reduce>,
    ranks = 8 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 8 : i64, scratch_count = 0 : i64, algorithm = "hierarchical_nvls",
    redop = #ccl<redop sum>, multicast} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.multimem_reduce' op group must be at least 2 ranks and divide the program's 8, not 3}}
    sched.multimem_reduce <input, (d0) -> (d0), 8> -> <output, (d0) -> (d0), 8> group 3
  }
}

// -----

sched.program @p attributes {collective = #ccl<collective all_reduce>,
    ranks = 8 : i64, channels = 1 : i64, element_type = f32, input_count = 8 : i64,
    output_count = 8 : i64, scratch_count = 0 : i64, algorithm = "hierarchical_nvls",
    redop = #ccl<redop sum>, multicast} {
  sched.task channel 0 {
    // expected-error @+1 {{'sched.multimem_store' op group must be at least 2 ranks and divide the program's 8, not 1}}
    sched.multimem_store <output, (d0) -> (d0), 8> -> <output, (d0) -> (d0), 8> group 1
  }
}
