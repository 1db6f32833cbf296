// A hand-written two-level all-gather for two DGX A100 nodes
// (`--topo a100x8 --nodes 2`, 16 ranks), written once for every rank.
//
// A flat ring crosses the network with (n-1)/n of the data on every rail. Here
// each shard crosses it once: rank r (node r / 8, GPU r mod 8) sends its shard
// over its own NIC rail to the same GPU of the other node, rank (r + 8) mod 16,
// which forwards it to the seven GPUs of its node over the NVSwitch; at the
// same time every rank sends its shard to the seven GPUs of its own node. Per
// rank: 1/16 of the output over the NIC, 14/16 over NVLink, nothing twice
// over the network.
//
// Each rank's shard is cut into 16 pieces, one per channel (an A100 channel
// copies ~25 GB/s; the NVSwitch port takes 240). Every channel c moves piece
// c three ways: over the rail, forwarded from the rail peer, and to the local
// peers. Channels 0-7 use the rail first, channels 8-15 NVLink first, so
// that the NIC and the NVSwitch are both busy from the start and the
// forwarding of one half overlaps the rail transfer of the other.
//
//   #rail:  d0 -> (d0 + 8) mod 16                     the other node's twin GPU
//   #local: (d0, d1) -> node base + (d0 + d1) mod 8   local peer d1 = 1..7
//   output part s * 16 + c of 256                     piece c of rank s's shard
//
// Run it:
//   ccopt examples/schedules/two-level-allgather-a100x8x2.mlir \
//       --topo a100x8 --nodes 2 --sched-verify         # prove it
//   ccopt ... --topo a100x8 --nodes 2 --emit=report    # vs ccopt's own and NCCL
//   ccopt ... --topo a100x8 --nodes 2 --emit=trace > ag.json
//   ccopt ... --topo a100x8 --nodes 2 --emit=cuda
//
// The counts (16 MiB of f32 per rank, 256 MiB gathered) can be changed
// freely, as long as output = 16 x input.

#rail = affine_map<(d0) -> ((d0 + 8) mod 16)>
#local = affine_map<(d0, d1) -> ((d0 floordiv 8) * 8 + (d0 + d1) mod 8)>

sched.program @two_level_all_gather attributes {
    collective = #ccl<collective all_gather>, ranks = 16 : i64,
    channels = 16 : i64, element_type = f32, input_count = 4194304 : i64,
    output_count = 67108864 : i64, scratch_count = 0 : i64,
    algorithm = "two_level"} {
  // piece 0, rail first
  sched.task channel 0 {
    sched.copy <input, (d0) -> (0), 16> -> <output, (d0) -> (d0 * 16 + 0), 256>
    sched.send <input, (d0) -> (0), 16> to #rail at <output, (d0) -> (d0 * 16 + 0), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 0), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 0), 256>
    }
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (0), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 0), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 1, rail first
  sched.task channel 1 {
    sched.copy <input, (d0) -> (1), 16> -> <output, (d0) -> (d0 * 16 + 1), 256>
    sched.send <input, (d0) -> (1), 16> to #rail at <output, (d0) -> (d0 * 16 + 1), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 1), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 1), 256>
    }
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (1), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 1), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 2, rail first
  sched.task channel 2 {
    sched.copy <input, (d0) -> (2), 16> -> <output, (d0) -> (d0 * 16 + 2), 256>
    sched.send <input, (d0) -> (2), 16> to #rail at <output, (d0) -> (d0 * 16 + 2), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 2), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 2), 256>
    }
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (2), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 2), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 3, rail first
  sched.task channel 3 {
    sched.copy <input, (d0) -> (3), 16> -> <output, (d0) -> (d0 * 16 + 3), 256>
    sched.send <input, (d0) -> (3), 16> to #rail at <output, (d0) -> (d0 * 16 + 3), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 3), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 3), 256>
    }
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (3), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 3), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 4, rail first
  sched.task channel 4 {
    sched.copy <input, (d0) -> (4), 16> -> <output, (d0) -> (d0 * 16 + 4), 256>
    sched.send <input, (d0) -> (4), 16> to #rail at <output, (d0) -> (d0 * 16 + 4), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 4), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 4), 256>
    }
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (4), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 4), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 5, rail first
  sched.task channel 5 {
    sched.copy <input, (d0) -> (5), 16> -> <output, (d0) -> (d0 * 16 + 5), 256>
    sched.send <input, (d0) -> (5), 16> to #rail at <output, (d0) -> (d0 * 16 + 5), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 5), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 5), 256>
    }
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (5), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 5), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 6, rail first
  sched.task channel 6 {
    sched.copy <input, (d0) -> (6), 16> -> <output, (d0) -> (d0 * 16 + 6), 256>
    sched.send <input, (d0) -> (6), 16> to #rail at <output, (d0) -> (d0 * 16 + 6), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 6), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 6), 256>
    }
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (6), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 6), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 7, rail first
  sched.task channel 7 {
    sched.copy <input, (d0) -> (7), 16> -> <output, (d0) -> (d0 * 16 + 7), 256>
    sched.send <input, (d0) -> (7), 16> to #rail at <output, (d0) -> (d0 * 16 + 7), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 7), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 7), 256>
    }
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (7), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 7), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 8, NVLink first
  sched.task channel 8 {
    sched.copy <input, (d0) -> (8), 16> -> <output, (d0) -> (d0 * 16 + 8), 256>
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (8), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 8), 256>
    }
    sched.send <input, (d0) -> (8), 16> to #rail at <output, (d0) -> (d0 * 16 + 8), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 8), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 8), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 9, NVLink first
  sched.task channel 9 {
    sched.copy <input, (d0) -> (9), 16> -> <output, (d0) -> (d0 * 16 + 9), 256>
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (9), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 9), 256>
    }
    sched.send <input, (d0) -> (9), 16> to #rail at <output, (d0) -> (d0 * 16 + 9), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 9), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 9), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 10, NVLink first
  sched.task channel 10 {
    sched.copy <input, (d0) -> (10), 16> -> <output, (d0) -> (d0 * 16 + 10), 256>
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (10), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 10), 256>
    }
    sched.send <input, (d0) -> (10), 16> to #rail at <output, (d0) -> (d0 * 16 + 10), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 10), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 10), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 11, NVLink first
  sched.task channel 11 {
    sched.copy <input, (d0) -> (11), 16> -> <output, (d0) -> (d0 * 16 + 11), 256>
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (11), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 11), 256>
    }
    sched.send <input, (d0) -> (11), 16> to #rail at <output, (d0) -> (d0 * 16 + 11), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 11), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 11), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 12, NVLink first
  sched.task channel 12 {
    sched.copy <input, (d0) -> (12), 16> -> <output, (d0) -> (d0 * 16 + 12), 256>
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (12), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 12), 256>
    }
    sched.send <input, (d0) -> (12), 16> to #rail at <output, (d0) -> (d0 * 16 + 12), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 12), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 12), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 13, NVLink first
  sched.task channel 13 {
    sched.copy <input, (d0) -> (13), 16> -> <output, (d0) -> (d0 * 16 + 13), 256>
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (13), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 13), 256>
    }
    sched.send <input, (d0) -> (13), 16> to #rail at <output, (d0) -> (d0 * 16 + 13), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 13), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 13), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 14, NVLink first
  sched.task channel 14 {
    sched.copy <input, (d0) -> (14), 16> -> <output, (d0) -> (d0 * 16 + 14), 256>
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (14), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 14), 256>
    }
    sched.send <input, (d0) -> (14), 16> to #rail at <output, (d0) -> (d0 * 16 + 14), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 14), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 14), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
  // piece 15, NVLink first
  sched.task channel 15 {
    sched.copy <input, (d0) -> (15), 16> -> <output, (d0) -> (d0 * 16 + 15), 256>
    sched.loop 1 to 8 {
      sched.send <input, (d0, d1) -> (15), 16> to #local at <output, (d0, d1) -> (d0 * 16 + 15), 256>
    }
    sched.send <input, (d0) -> (15), 16> to #rail at <output, (d0) -> (d0 * 16 + 15), 256>
    sched.recv from #rail
    sched.loop 1 to 8 {
      sched.send <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 15), 256> to #local at <output, (d0, d1) -> (((d0 + 8) mod 16) * 16 + 15), 256>
    }
    sched.loop 1 to 8 {  // each local peer's piece and its forwarded one
      sched.recv from #local
      sched.recv from #local
    }
  }
}
