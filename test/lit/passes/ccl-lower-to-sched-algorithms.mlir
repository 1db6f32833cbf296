// The all_reduce algorithms besides the ring, chosen by hand
// (--algorithm, or ccl-lower-to-sched{algorithm=...}); each schedule must
// pass sched-verify.

// RUN: ccopt %s --split-input-file --ccl-lower-to-sched="algorithm=oneshot" --sched-verify | FileCheck %s --check-prefix=ONESHOT
// RUN: ccopt %s --split-input-file --ccl-lower-to-sched="algorithm=twoshot" --sched-verify | FileCheck %s --check-prefix=TWOSHOT
// RUN: ccopt %s --split-input-file --ccl-lower-to-sched="algorithm=recursive_doubling" --sched-verify | FileCheck %s --check-prefix=RD
// RUN: ccopt %s --split-input-file --ccl-lower-to-sched="algorithm=halving_doubling channels=1" --sched-verify | FileCheck %s --check-prefix=HD
// RUN: ccopt %s --split-input-file --ccl-lower-to-sched="algorithm=hierarchical topo=a100x8 nodes=2" --sched-verify | FileCheck %s --check-prefix=HIER
// RUN: sed 's/1024xf32/1000xf32/g' %s | ccopt - --ccl-lower-to-sched="algorithm=hierarchical topo=a100x8 nodes=2" --sched-verify | FileCheck %s --check-prefix=HIER-UNEVEN
// RUN: ccopt %s --split-input-file --ccl-lower-to-sched="algorithm=hierarchical_rd topo=a100x8 nodes=2" --sched-verify | FileCheck %s --check-prefix=HIER-RD
// RUN: ccopt %s --split-input-file --ccl-lower-to-sched="algorithm=tree topo=a100x8 nodes=2 channels=1 chunks=4" --sched-verify | FileCheck %s --check-prefix=TREE
// RUN: ccopt %s --split-input-file --ccl-lower-to-sched="algorithm=hierarchical_rd topo=a100x8 nodes=2 channels=3 chunks=2" --sched-verify | FileCheck %s --check-prefix=PIECES
// RUN: ccopt %s --split-input-file --ccl-lower-to-sched="algorithm=hierarchical topo=v100x8 nodes=2 channels=2" --sched-verify="topo=v100x8 nodes=2" | FileCheck %s --check-prefix=HIER-RINGS

// One-shot: own slot, n-1 writes into the peers' slot r, n-1 receives, the
// slots added in rank order (avg divides in the last addition).
// ONESHOT: sched.program @p_all_reduce_0 attributes {algorithm = "oneshot"{{.*}}scratch_count = 16384
// ONESHOT: sched.copy <input, (d0) -> (0), 1> -> <scratch, (d0) -> (d0), 16>
// ONESHOT: sched.loop 1 to 16 {
// ONESHOT-NEXT: sched.send <input, (d0, d1) -> (0), 1> to #{{.*}} at <scratch, (d0, d1) -> (d0), 16>
// ONESHOT: sched.reduce <scratch, (d0) -> (0), 16>, <scratch, (d0) -> (1), 16> -> <output, (d0) -> (0), 1>
// ONESHOT: sched.loop 2 to 15 {
// ONESHOT: sched.reduce <output, (d0) -> (0), 1>, <scratch, (d0) -> (15), 16> -> <output, (d0) -> (0), 1> finalize

// Two-shot: block j to rank j, added there, then written to every rank.
// TWOSHOT: sched.program @p_all_reduce_0 attributes {algorithm = "twoshot"
// TWOSHOT: sched.send <input, (d0, d1) -> ((d0 + d1) mod 16), 16> to #{{.*}} at <scratch, (d0, d1) -> (d0 * 16 + (d0 + d1) mod 16), 256>
// TWOSHOT: sched.send <output, (d0, d1) -> (d0), 16> to #{{.*}} at <output, (d0, d1) -> (d0), 16>

// Recursive doubling: log2(16) = 4 rounds with r xor 2^k.
// RD: sched.program @p_all_reduce_0 attributes {algorithm = "recursive_doubling"{{.*}}scratch_count = 4096
// RD-COUNT-4: sched.recv from
// RD-NOT: sched.recv from

// Halving-doubling: 4 halving rounds (the half the partner keeps, from the
// input first, into scratch copy k), then 4 doubling rounds from distance 1.
// HD: sched.program @p_all_reduce_0 attributes {algorithm = "halving_doubling"{{.*}}scratch_count = 4096
// HD: sched.send <input, (d0) -> (d0 floordiv 8 - ((d0 floordiv 8) mod 2) * 2 + 1), 2> to #{{.*}} at <scratch, (d0) -> (d0 floordiv 8 - ((d0 floordiv 8) mod 2) * 2 + 1), 8>
// HD: sched.reduce <output, (d0) -> (d0), 16>, <scratch, (d0) -> (d0 + 48), 64> -> <output, (d0) -> (d0), 16> finalize
// HD-COUNT-4: sched.recv from {{.*}} into <output
// HD-NOT: sched.recv

// Hierarchical: inside the node, between the nodes' GPU l, inside again.
// On nodes whose GPUs all have NVLink, with equal blocks, it is the
// hierarchical reduce-scatter and all-gather in one program: GPU l gets the
// node's copies of the blocks 8k + l and adds them (in the rail ring's
// order), the ring along the rail leaves block r summed on rank r, the
// all-gather's ring and the node's exchange take it everywhere; scratch:
// n + nodes - 1 = 17 blocks of 64.
// HIER: sched.program @p_all_reduce_0 attributes {algorithm = "hierarchical"{{.*}}scratch_count = 1088
// HIER: sched.send <input, {{.*}} at <scratch
// HIER: sched.reduce <input,
// HIER: sched.reduce <scratch, (d0) -> (16), 17>, <scratch, (d0) -> (15), 17> -> <output, (d0) -> (((d0 floordiv 8) mod 2) * 8 + d0 mod 8), 16> finalize
// HIER-NEXT: sched.send <output, (d0) -> (((d0 floordiv 8) mod 2) * 8 + d0 mod 8), 16> to
// HIER: sched.recv from {{.*}} into <output
// Otherwise (1000 elements on 16 ranks) the node's phases exchange the
// whole piece directly, a scratch copy of it per GPU of the node and one
// for the ring between the nodes.
// HIER-UNEVEN: sched.program @p_all_reduce_0 attributes {algorithm = "hierarchical"{{.*}}scratch_count = 9000
// HIER-UNEVEN: sched.copy <input, (d0) -> (d0 mod 8), 8> -> <scratch
// HIER-UNEVEN: sched.recv_reduce_send {{.*}} store <output
// HIER-RD: sched.program @p_all_reduce_0 attributes {algorithm = "hierarchical_rd"

// In pieces (2 per channel, blocks 8p.. of 48) the phases pipeline, and each
// channel starts its rounds at another phase: channel 0 reduces piece 1
// inside the node before piece 0 goes between the nodes, channel 1 the other
// way round, channel 2 gathers piece 0 before piece 1 goes out.
// PIECES: sched.program @p_all_reduce_0 attributes {algorithm = "hierarchical_rd", channels = 3 : i64, chunks = 2 : i64
// PIECES: sched.task channel 0 {
// PIECES-NEXT: sched.copy <input, (d0) -> (d0 mod 8), 48>
// PIECES: sched.copy <input, (d0) -> (d0 mod 8 + 8), 48>
// PIECES: sched.send <output, (d0) -> (d0 mod 8), 48> to
// PIECES: sched.task channel 1 {
// PIECES-NEXT: sched.copy <input, (d0) -> (d0 mod 8 + 16), 48>
// PIECES: sched.send <output, (d0) -> (d0 mod 8 + 16), 48> to
// PIECES: sched.copy <input, (d0) -> (d0 mod 8 + 24), 48>
// PIECES: sched.task channel 2 {
// PIECES: sched.send <output, (d0, d1) -> (d0 mod 8 + 32), 48> to
// PIECES: sched.send <output, (d0) -> (d0 mod 8 + 40), 48> to

// On v100x8 (not every pair of a node's GPUs has NVLink) the phases inside
// the nodes are rings over the node's NVLink rings, one per channel, as the
// tasks' rank order: scratch holds the node ring's and the rail ring's
// staging (2 x 1024 elements).
// HIER-RINGS: sched.program @p_all_reduce_0 attributes {algorithm = "hierarchical"{{.*}}scratch_count = 2048
// HIER-RINGS: sched.task channel 0 attributes {rank_map = array<i64: 0, 1, 2, 3, 7, 5, 6, 4, 8, 9, 10, 11, 15, 13, 14, 12>} {
// HIER-RINGS-NEXT: sched.send <input, (d0) -> (d0 mod 8), 16> to #{{.*}} at <scratch, (d0) -> (d0 mod 8), 32>
// HIER-RINGS-NEXT: sched.loop 1 to 7 {
// HIER-RINGS-NEXT: sched.recv_reduce_send
// HIER-RINGS: sched.task channel 1 attributes {rank_map = array<i64: 0, 4, 6, 5, 7, 3, 2, 1, 8, 12, 14, 13, 15, 11, 10, 9>} {

// Tree (a chain in each node, the two node leaders below rank 0): the root
// turns each piece around as it has it; every other rank sends all its
// pieces up before it takes the first one down (NCCL's split up and down
// thread groups), so the pieces stream both ways at once.
// TREE: sched.program @p_all_reduce_0 attributes {algorithm = "tree", channels = 1 : i64, chunks = 4 : i64
// TREE: sched.task channel 0 rank 0 {
// TREE-NEXT: sched.loop 0 to 4 {
// TREE: sched.reduce {{.*}} finalize
// TREE-NEXT: sched.send <output
// TREE-NEXT: sched.send <output
// TREE-NEXT: }
// TREE-NEXT: }
// TREE: sched.task channel 0 rank 1 {
// TREE-NEXT: sched.loop 0 to 4 {
// TREE-NEXT: sched.recv from
// TREE-NEXT: sched.reduce
// TREE-NEXT: sched.send <output, {{.*}} at <scratch
// TREE-NEXT: }
// TREE-NEXT: sched.loop 0 to 4 {
// TREE-NEXT: sched.recv from {{.*}} into <output
// TREE-NEXT: sched.send <output
// TREE-NEXT: }
ccl.program @p world(16) {
  %g = ccl.buffer "g" : !ccl.buffer<1024xf32>
  %o = ccl.buffer "o" : !ccl.buffer<1024xf32>
  ccl.all_reduce avg %g -> %o : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
}
