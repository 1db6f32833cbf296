// A hand-written reduce-scatter for the first four GPUs of a DGX-1 (v100x8),
// MSCCLang style: one `sched.task channel C rank R` per rank and channel.
//
// Algorithm: recursive halving over two steps, placed on the cube-mesh.
// GPUs 0-3 are fully connected by NVLink, with two links on 0-3, 1-2 and 2-3
// and one on 0-1, 0-2 and 1-3. The big step (half of the data) pairs each
// rank with 3 - r, over the doubled links 0-3 and 1-2; the small step (a
// quarter) pairs r with r xor 1. A textbook recursive halving pairs r with
// r xor 2 first, over single links, and takes half as long again.
//
//   step 1: rank r sends the half of its input that {3-r, (3-r) xor 1} own
//           to 3 - r (part (3-r) xor 1 first: the partner forwards it at once)
//   step 2: rank r adds its input to the part r xor 1 it received and sends
//           the sum on to r xor 1 (one fused recv_reduce_send), then adds
//           its input and what r xor 1 sent into part r of the result.
//
// Each of 3 channels carries a third of every part (one V100 channel copies
// about 15 GB/s, two NVLinks carry 40). Buffers: input = 4 parts of the
// output; scratch holds what step 1 delivers (parts 0-11 of 24) and what
// step 2 delivers (parts 12-23). The schedule is written for any count: the
// counts below (4 MiB of f32 in, 1 MiB out per rank) can be changed freely.
//
// Run it:
//   ccopt examples/schedules/recursive-halving-reduce-scatter-v100x4.mlir \
//       --topo v100x8 --sched-verify                 # prove it
//   ccopt ... --topo v100x8 --emit=report            # time vs ccopt and NCCL
//   ccopt ... --topo v100x8 --emit=trace > rs.json   # open in ui.perfetto.dev
//   ccopt ... --topo v100x8 --emit=cuda              # the kernel
//
// `links = "nvlink"` asks sched-verify (given a machine) to reject any
// message that would leave NVLink (e.g. a send from GPU 0 to GPU 5).

#r0 = affine_map<(d0) -> (0)>
#r1 = affine_map<(d0) -> (1)>
#r2 = affine_map<(d0) -> (2)>
#r3 = affine_map<(d0) -> (3)>

sched.program @recursive_halving_reduce_scatter attributes {
    collective = #ccl<collective reduce_scatter>, redop = #ccl<redop sum>,
    ranks = 4 : i64, channels = 3 : i64, element_type = f32,
    input_count = 1048576 : i64, output_count = 262144 : i64,
    scratch_count = 2097152 : i64, algorithm = "recursive_halving",
    links = "nvlink"} {
  // rank 0, channel 0: third 0 of each part; partners 3, then 1
  sched.task channel 0 rank 0 {
    sched.send <input, (d0) -> (6), 12> to #r3 at <scratch, (d0) -> (6), 24>
    sched.send <input, (d0) -> (9), 12> to #r3 at <scratch, (d0) -> (9), 24>
    sched.recv_reduce_send from #r3 <scratch, (d0) -> (3), 24>, <input, (d0) -> (3), 12>
        to #r1 at <scratch, (d0) -> (15), 24>
    sched.recv from #r3
    sched.reduce <scratch, (d0) -> (0), 24>, <input, (d0) -> (0), 12> -> <scratch, (d0) -> (0), 24>
    sched.recv from #r1
    sched.reduce <scratch, (d0) -> (12), 24>, <scratch, (d0) -> (0), 24> -> <output, (d0) -> (0), 3>
  }
  // rank 0, channel 1: third 1 of each part; partners 3, then 1
  sched.task channel 1 rank 0 {
    sched.send <input, (d0) -> (7), 12> to #r3 at <scratch, (d0) -> (7), 24>
    sched.send <input, (d0) -> (10), 12> to #r3 at <scratch, (d0) -> (10), 24>
    sched.recv_reduce_send from #r3 <scratch, (d0) -> (4), 24>, <input, (d0) -> (4), 12>
        to #r1 at <scratch, (d0) -> (16), 24>
    sched.recv from #r3
    sched.reduce <scratch, (d0) -> (1), 24>, <input, (d0) -> (1), 12> -> <scratch, (d0) -> (1), 24>
    sched.recv from #r1
    sched.reduce <scratch, (d0) -> (13), 24>, <scratch, (d0) -> (1), 24> -> <output, (d0) -> (1), 3>
  }
  // rank 0, channel 2: third 2 of each part; partners 3, then 1
  sched.task channel 2 rank 0 {
    sched.send <input, (d0) -> (8), 12> to #r3 at <scratch, (d0) -> (8), 24>
    sched.send <input, (d0) -> (11), 12> to #r3 at <scratch, (d0) -> (11), 24>
    sched.recv_reduce_send from #r3 <scratch, (d0) -> (5), 24>, <input, (d0) -> (5), 12>
        to #r1 at <scratch, (d0) -> (17), 24>
    sched.recv from #r3
    sched.reduce <scratch, (d0) -> (2), 24>, <input, (d0) -> (2), 12> -> <scratch, (d0) -> (2), 24>
    sched.recv from #r1
    sched.reduce <scratch, (d0) -> (14), 24>, <scratch, (d0) -> (2), 24> -> <output, (d0) -> (2), 3>
  }
  // rank 1, channel 0: third 0 of each part; partners 2, then 0
  sched.task channel 0 rank 1 {
    sched.send <input, (d0) -> (9), 12> to #r2 at <scratch, (d0) -> (9), 24>
    sched.send <input, (d0) -> (6), 12> to #r2 at <scratch, (d0) -> (6), 24>
    sched.recv_reduce_send from #r2 <scratch, (d0) -> (0), 24>, <input, (d0) -> (0), 12>
        to #r0 at <scratch, (d0) -> (12), 24>
    sched.recv from #r2
    sched.reduce <scratch, (d0) -> (3), 24>, <input, (d0) -> (3), 12> -> <scratch, (d0) -> (3), 24>
    sched.recv from #r0
    sched.reduce <scratch, (d0) -> (15), 24>, <scratch, (d0) -> (3), 24> -> <output, (d0) -> (0), 3>
  }
  // rank 1, channel 1: third 1 of each part; partners 2, then 0
  sched.task channel 1 rank 1 {
    sched.send <input, (d0) -> (10), 12> to #r2 at <scratch, (d0) -> (10), 24>
    sched.send <input, (d0) -> (7), 12> to #r2 at <scratch, (d0) -> (7), 24>
    sched.recv_reduce_send from #r2 <scratch, (d0) -> (1), 24>, <input, (d0) -> (1), 12>
        to #r0 at <scratch, (d0) -> (13), 24>
    sched.recv from #r2
    sched.reduce <scratch, (d0) -> (4), 24>, <input, (d0) -> (4), 12> -> <scratch, (d0) -> (4), 24>
    sched.recv from #r0
    sched.reduce <scratch, (d0) -> (16), 24>, <scratch, (d0) -> (4), 24> -> <output, (d0) -> (1), 3>
  }
  // rank 1, channel 2: third 2 of each part; partners 2, then 0
  sched.task channel 2 rank 1 {
    sched.send <input, (d0) -> (11), 12> to #r2 at <scratch, (d0) -> (11), 24>
    sched.send <input, (d0) -> (8), 12> to #r2 at <scratch, (d0) -> (8), 24>
    sched.recv_reduce_send from #r2 <scratch, (d0) -> (2), 24>, <input, (d0) -> (2), 12>
        to #r0 at <scratch, (d0) -> (14), 24>
    sched.recv from #r2
    sched.reduce <scratch, (d0) -> (5), 24>, <input, (d0) -> (5), 12> -> <scratch, (d0) -> (5), 24>
    sched.recv from #r0
    sched.reduce <scratch, (d0) -> (17), 24>, <scratch, (d0) -> (5), 24> -> <output, (d0) -> (2), 3>
  }
  // rank 2, channel 0: third 0 of each part; partners 1, then 3
  sched.task channel 0 rank 2 {
    sched.send <input, (d0) -> (0), 12> to #r1 at <scratch, (d0) -> (0), 24>
    sched.send <input, (d0) -> (3), 12> to #r1 at <scratch, (d0) -> (3), 24>
    sched.recv_reduce_send from #r1 <scratch, (d0) -> (9), 24>, <input, (d0) -> (9), 12>
        to #r3 at <scratch, (d0) -> (21), 24>
    sched.recv from #r1
    sched.reduce <scratch, (d0) -> (6), 24>, <input, (d0) -> (6), 12> -> <scratch, (d0) -> (6), 24>
    sched.recv from #r3
    sched.reduce <scratch, (d0) -> (18), 24>, <scratch, (d0) -> (6), 24> -> <output, (d0) -> (0), 3>
  }
  // rank 2, channel 1: third 1 of each part; partners 1, then 3
  sched.task channel 1 rank 2 {
    sched.send <input, (d0) -> (1), 12> to #r1 at <scratch, (d0) -> (1), 24>
    sched.send <input, (d0) -> (4), 12> to #r1 at <scratch, (d0) -> (4), 24>
    sched.recv_reduce_send from #r1 <scratch, (d0) -> (10), 24>, <input, (d0) -> (10), 12>
        to #r3 at <scratch, (d0) -> (22), 24>
    sched.recv from #r1
    sched.reduce <scratch, (d0) -> (7), 24>, <input, (d0) -> (7), 12> -> <scratch, (d0) -> (7), 24>
    sched.recv from #r3
    sched.reduce <scratch, (d0) -> (19), 24>, <scratch, (d0) -> (7), 24> -> <output, (d0) -> (1), 3>
  }
  // rank 2, channel 2: third 2 of each part; partners 1, then 3
  sched.task channel 2 rank 2 {
    sched.send <input, (d0) -> (2), 12> to #r1 at <scratch, (d0) -> (2), 24>
    sched.send <input, (d0) -> (5), 12> to #r1 at <scratch, (d0) -> (5), 24>
    sched.recv_reduce_send from #r1 <scratch, (d0) -> (11), 24>, <input, (d0) -> (11), 12>
        to #r3 at <scratch, (d0) -> (23), 24>
    sched.recv from #r1
    sched.reduce <scratch, (d0) -> (8), 24>, <input, (d0) -> (8), 12> -> <scratch, (d0) -> (8), 24>
    sched.recv from #r3
    sched.reduce <scratch, (d0) -> (20), 24>, <scratch, (d0) -> (8), 24> -> <output, (d0) -> (2), 3>
  }
  // rank 3, channel 0: third 0 of each part; partners 0, then 2
  sched.task channel 0 rank 3 {
    sched.send <input, (d0) -> (3), 12> to #r0 at <scratch, (d0) -> (3), 24>
    sched.send <input, (d0) -> (0), 12> to #r0 at <scratch, (d0) -> (0), 24>
    sched.recv_reduce_send from #r0 <scratch, (d0) -> (6), 24>, <input, (d0) -> (6), 12>
        to #r2 at <scratch, (d0) -> (18), 24>
    sched.recv from #r0
    sched.reduce <scratch, (d0) -> (9), 24>, <input, (d0) -> (9), 12> -> <scratch, (d0) -> (9), 24>
    sched.recv from #r2
    sched.reduce <scratch, (d0) -> (21), 24>, <scratch, (d0) -> (9), 24> -> <output, (d0) -> (0), 3>
  }
  // rank 3, channel 1: third 1 of each part; partners 0, then 2
  sched.task channel 1 rank 3 {
    sched.send <input, (d0) -> (4), 12> to #r0 at <scratch, (d0) -> (4), 24>
    sched.send <input, (d0) -> (1), 12> to #r0 at <scratch, (d0) -> (1), 24>
    sched.recv_reduce_send from #r0 <scratch, (d0) -> (7), 24>, <input, (d0) -> (7), 12>
        to #r2 at <scratch, (d0) -> (19), 24>
    sched.recv from #r0
    sched.reduce <scratch, (d0) -> (10), 24>, <input, (d0) -> (10), 12> -> <scratch, (d0) -> (10), 24>
    sched.recv from #r2
    sched.reduce <scratch, (d0) -> (22), 24>, <scratch, (d0) -> (10), 24> -> <output, (d0) -> (1), 3>
  }
  // rank 3, channel 2: third 2 of each part; partners 0, then 2
  sched.task channel 2 rank 3 {
    sched.send <input, (d0) -> (5), 12> to #r0 at <scratch, (d0) -> (5), 24>
    sched.send <input, (d0) -> (2), 12> to #r0 at <scratch, (d0) -> (2), 24>
    sched.recv_reduce_send from #r0 <scratch, (d0) -> (8), 24>, <input, (d0) -> (8), 12>
        to #r2 at <scratch, (d0) -> (20), 24>
    sched.recv from #r0
    sched.reduce <scratch, (d0) -> (11), 24>, <input, (d0) -> (11), 12> -> <scratch, (d0) -> (11), 24>
    sched.recv from #r2
    sched.reduce <scratch, (d0) -> (23), 24>, <scratch, (d0) -> (11), 24> -> <output, (d0) -> (2), 3>
  }
}
