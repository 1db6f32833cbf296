//===- Algorithms.h - schedules of collective algorithms ----------*- C++ -*-===//
//
// Builders of sched.programs, shared by the lowering and by the NCCL
// baseline (which builds NCCL's own algorithms to simulate them).
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_PASSES_ALGORITHMS_H
#define CCOPT_PASSES_ALGORITHMS_H

#include "dialect/Sched/SchedDialect.h"

#include "mlir/IR/Builders.h"

namespace ccopt {
namespace topo {
class Machine;
} // namespace topo

struct AllReduceShape {
  int64_t ranks;
  int64_t count;
  mlir::Type elementType;
  mlir::ccl::ReductionKind redop;
  bool inPlace = false;
  /// World rank of each schedule rank; empty for the identity.
  llvm::SmallVector<int64_t> rankMap;
  /// Narrow type on the wire (f16, bf16); null: the element type. With one,
  /// builders send every byte in it, accumulate in f32 at each hop, and
  /// `avg` divides the inputs first (the program's `prescale`).
  mlir::Type wire = {};
  /// Whether the wire is narrower than the elements: partners that add the
  /// same two values must then both add them as rounded to the wire (a rank
  /// rounds its own value too), or they disagree in the last bits.
  bool narrowWire() const { return wire && wire != elementType; }
};

/// Orders in which rings visit the schedule ranks; channel c follows
/// orders[c % orders.size()] (none: 0, 1, ..., n-1).
using RingOrders = std::vector<std::vector<int64_t>>;

/// `orders` of world ranks as orders of schedule ranks, where schedule rank
/// i runs on world rank participants[i].
RingOrders toScheduleRanks(const std::vector<std::vector<int>> &orders,
                           llvm::ArrayRef<int> participants);

/// Ring all-reduce (Patarasuk & Yuan): n-1 reduce-scatter then n-1
/// all-gather steps around r -> r+1, every ring part split into `chunks`
/// pipelined pieces and the buffer over `channels` channels (both clamped
/// so that every piece keeps an element). Written once for every rank.
mlir::sched::ProgramOp buildRingAllReduce(mlir::OpBuilder &b, mlir::Location loc,
                                          llvm::StringRef name,
                                          const AllReduceShape &shape,
                                          int64_t chunks, int64_t channels,
                                          const RingOrders &orders = {});

/// Ring reduce-scatter and all-gather: n-1 steps around the ring, pipelined
/// like the all-reduce. `shape.count` is the block each rank ends with
/// (reduce-scatter) or brings (all-gather); the other buffer holds n blocks.
/// `staggered`: odd channels cut their share into one piece more (where it
/// has the elements), so that their steps end while the even channels'
/// still run: channels in lock-step leave the links idle together between
/// steps and at a reduce-scatter's final local reductions. Algorithm
/// "staggered_ring".
mlir::sched::ProgramOp buildRingReduceScatter(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              llvm::StringRef name,
                                              const AllReduceShape &shape,
                                              int64_t chunks, int64_t channels,
                                              const RingOrders &orders = {},
                                              bool staggered = false);
mlir::sched::ProgramOp buildRingAllGather(mlir::OpBuilder &b, mlir::Location loc,
                                          llvm::StringRef name,
                                          const AllReduceShape &shape,
                                          int64_t chunks, int64_t channels,
                                          const RingOrders &orders = {},
                                          bool staggered = false);

/// One-shot all-reduce: every rank writes its input into every rank's
/// scratch (n slots), then adds the slots in rank order. One hop; scratch
/// of n x count elements. Over `channels` channels.
mlir::sched::ProgramOp buildOneShotAllReduce(mlir::OpBuilder &b, mlir::Location loc,
                                             llvm::StringRef name,
                                             const AllReduceShape &shape,
                                             int64_t channels);

/// Two-shot all-reduce: a direct reduce-scatter (rank j adds every rank's
/// part j in rank order) then a direct all-gather. Two hops; scratch of
/// n x count elements.
mlir::sched::ProgramOp buildTwoShotAllReduce(mlir::OpBuilder &b, mlir::Location loc,
                                             llvm::StringRef name,
                                             const AllReduceShape &shape,
                                             int64_t channels);

/// Recursive doubling: log2(n) rounds exchanging the whole buffer with rank
/// r xor 2^k and adding. `shape.ranks` must be a power of two.
mlir::sched::ProgramOp buildRecursiveDoublingAllReduce(mlir::OpBuilder &b,
                                                       mlir::Location loc,
                                                       llvm::StringRef name,
                                                       const AllReduceShape &shape,
                                                       int64_t channels);

/// Rabenseifner's all-reduce: a reduce-scatter by recursive halving (log2 n
/// rounds exchanging half of the range still held with rank r xor n/2,
/// r xor n/4, ...), then an all-gather by recursive doubling: the ring's
/// traffic in 2 log2 n steps. `shape.ranks` must be a power of two;
/// scratch of log2 n (one more over a narrow wire) x count elements.
mlir::sched::ProgramOp buildHalvingDoublingAllReduce(mlir::OpBuilder &b,
                                                     mlir::Location loc,
                                                     llvm::StringRef name,
                                                     const AllReduceShape &shape,
                                                     int64_t channels);

/// How the hierarchical all-reduce's second phase all-reduces a block along
/// its rail: a ring over the nodes, recursive doubling (the whole block
/// each round: fewest hops) or recursive halving then doubling (log2 of
/// the nodes hops each way, the ring's bytes); the last two over a
/// power-of-two number of nodes.
enum class RailAllReduce { Ring, RecursiveDoubling, HalvingDoubling };

/// Hierarchical all-reduce over nodes of `perNode` ranks (node-major): a
/// direct reduce-scatter inside each node, an all-reduce of each block
/// between the nodes' GPUs of the same index (`rails`), a direct
/// all-gather inside each node. Needs at least 2 nodes of 2 ranks. In
/// `chunks` pieces per channel the phases of consecutive pieces pipeline,
/// channels starting at different phases so that they overlap. With
/// `nodeRings` (a node's local ranks in ring order; channels take them in
/// turn) the exchanges inside the nodes are rings instead of direct;
/// `inSwitch`, through each node's NVSwitch (algorithm "hierarchical_nvls",
/// a `multicast` program: GPU l reduces block l over its node in the
/// switch and stores the result to every GPU of the node once; no scratch
/// for the node, and each NVLink carries about the buffer each way instead
/// of 1.75 times it). Where hierarchicalAllReduceByHalves holds (and not
/// in the switch) it is buildHierarchicalAllReduceByHalves.
mlir::sched::ProgramOp buildHierarchicalAllReduce(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  llvm::StringRef name,
                                                  const AllReduceShape &shape,
                                                  int64_t perNode,
                                                  RailAllReduce rails,
                                                  int64_t chunks,
                                                  int64_t channels,
                                                  const RingOrders &nodeRings = {},
                                                  bool inSwitch = false);
/// How the hierarchical all-reduce's first and last phases exchange
/// inside a node: directly, along the node's rings, or through its
/// NVSwitch (NVLS: multimem steps over the node's ranks).
enum class NodeExchange { Direct, Ring, Switch };
/// The scratch slots (copies of the buffer) its node phases take: the
/// node's copies of a block; one, the node ring's staging; none.
int64_t hierarchicalNodeSlots(int64_t perNode, NodeExchange inNode);
/// And in all: then one for the ring's staging between the nodes, one per
/// doubling round (and one for this rank's rounded block over a narrow
/// wire), or two (rounds in turn) for the halving.
int64_t hierarchicalAllReduceSlots(int64_t perNode, int64_t nodes, RailAllReduce rails,
                                   NodeExchange inNode, bool narrowWire);
/// Its algorithm name ("hierarchical", "hierarchical_rd", "hierarchical_hd"),
/// and back (none for other names).
llvm::StringRef hierarchicalAllReduceName(RailAllReduce rails);
std::optional<RailAllReduce> railAllReduceOf(llvm::StringRef algorithm);
/// The rails of a hierarchical all-reduce `algorithm` over `nodes` nodes:
/// hierarchical_nvls halves and doubles over a power of two, else rings.
RailAllReduce railsOf(llvm::StringRef algorithm, int64_t nodes);
/// Whether the hierarchical all-reduce is the hierarchical reduce-scatter
/// and all-gather in one program: a ring between up to 8 nodes whose GPUs
/// all have NVLink (no `nodeRings`), equal blocks (count a multiple of the
/// ranks), the full-width wire (a narrow one would leave each block's owner
/// with bits the others do not get). On more nodes its node phases' steps,
/// block by block, outgrow the selection's step budgets before the channels
/// and pieces that pay (a100x8 ×16 16 MiB: the direct one's 459 µs in
/// LL128, the halves' best within the budgets slower than the tree's 472).
bool hierarchicalAllReduceByHalves(const AllReduceShape &shape, int64_t perNode,
                                   bool ringBetweenNodes, bool ringInNode);
/// That program: block r summed onto rank r, then gathered, the three
/// phases of a piece (the node's exchange; the reduce-scatter's then the
/// all-gather's ring along the rail; the node's exchange back) pipelined as
/// above. Scratch: hierarchicalReduceScatterScratch blocks of count / n
/// (n + nodes - 1).
/// With `directBetweenNodes` its rails' reduce-scatter and all-gather are
/// direct (as below): algorithm "hierarchical_direct".
mlir::sched::ProgramOp buildHierarchicalAllReduceByHalves(
    mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
    const AllReduceShape &shape, int64_t perNode, int64_t chunks, int64_t channels,
    bool directBetweenNodes = false);
/// Blocks of scratch (of one rank's block each) the hierarchical
/// reduce-scatter takes, and the all-reduce built from it.
int64_t hierarchicalReduceScatterScratch(int64_t ranks, int64_t perNode);

/// Whether every two of `ranks` (world ranks) reach each other over NVLink
/// alone: a direct exchange among them stays on NVLink.
bool nvlinkBetweenAll(const topo::Machine &machine, llvm::ArrayRef<int> ranks);

/// The groups the hierarchical algorithms work in, as how many of `ranks`
/// (world ranks, in schedule order) each holds: the nodes, when the ranks
/// come node by node in equal blocks of at least 2 on at least 2 nodes; on
/// one node whose GPUs reach the other socket's only across the sockets'
/// link (a PCIe machine), the sockets, when the ranks come socket by socket
/// in equal blocks of at least 2. std::nullopt otherwise.
std::optional<int64_t> ranksPerGroup(const topo::Machine &machine,
                                    llvm::ArrayRef<int> ranks);

/// The groups of the hierarchical all-reduce over sockets: on several nodes
/// whose GPUs reach the other socket's only across the sockets' link (a
/// PCIe machine; ranks node by node, and in each node socket by socket, in
/// equal blocks of at least 2), one socket of every node.
struct SocketGroups {
  /// Ranks per group: a socket's on every node.
  int64_t size;
  /// World ranks group by group, node by node in a group; position l of
  /// every group is on the same node, across the sockets' link.
  std::vector<int> order;
};
std::optional<SocketGroups> socketGroups(const topo::Machine &machine,
                                         llvm::ArrayRef<int> ranks);

/// Broadcast over nodes of `perNode` ranks (node-major) from schedule rank
/// `root`: each channel's slice in a part per GPU of a node; the root hands
/// GPU l of its node part l, GPU l of each node passes it on over rail l to
/// GPU l of the next node (a chain of nodes) or, with `nodeTrees`, of its
/// children in one of two binary trees of nodes (by channel), and to its
/// node-mates. Pipelined in `chunks` pieces; no scratch; every rank gets its
/// own task; algorithm "hierarchical" or "hierarchical_tree".
mlir::sched::ProgramOp buildHierarchicalBroadcast(mlir::OpBuilder &b, mlir::Location loc,
                                                  llvm::StringRef name,
                                                  const AllReduceShape &shape, int64_t root,
                                                  int64_t perNode, bool nodeTrees,
                                                  int64_t chunks, int64_t channels);

/// Broadcast (or, with `reduce`, reduce) as a chain pipelined in chunks:
/// from the root along `order` (schedule ranks; empty: 0, 1, ...), or
/// towards the root for a reduce. Every rank gets its own task.
mlir::sched::ProgramOp buildChainBroadcast(mlir::OpBuilder &b, mlir::Location loc,
                                           llvm::StringRef name,
                                           const AllReduceShape &shape,
                                           int64_t root, bool reduce,
                                           int64_t chunks, int64_t channels,
                                           llvm::ArrayRef<int64_t> order = {});
/// The same with channel c following orders[c % orders.size()] (NCCL runs
/// each channel's chain along that channel's ring: across nodes, through a
/// different NIC rail per channel).
mlir::sched::ProgramOp buildChainBroadcast(mlir::OpBuilder &b, mlir::Location loc,
                                           llvm::StringRef name,
                                           const AllReduceShape &shape,
                                           int64_t root, bool reduce,
                                           int64_t chunks, int64_t channels,
                                           const RingOrders &orders);

/// Direct reduce-scatter: rank r writes block j into slot r of rank j's
/// scratch (n x count elements); rank j adds its slots in rank order. One
/// hop. `shape.count` is the block per rank.
mlir::sched::ProgramOp buildDirectReduceScatter(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                llvm::StringRef name,
                                                const AllReduceShape &shape,
                                                int64_t channels);

/// Direct all-gather: rank r writes its block into block r of every rank's
/// output. One hop, no scratch.
mlir::sched::ProgramOp buildDirectAllGather(mlir::OpBuilder &b, mlir::Location loc,
                                            llvm::StringRef name,
                                            const AllReduceShape &shape,
                                            int64_t channels);

/// Direct broadcast (the root writes into every output) or, with `reduce`,
/// direct reduce (every rank writes into its slot of the root's scratch,
/// n x count elements; the root adds them in rank order). One hop.
mlir::sched::ProgramOp buildDirectBroadcast(mlir::OpBuilder &b, mlir::Location loc,
                                            llvm::StringRef name,
                                            const AllReduceShape &shape,
                                            int64_t root, bool reduce,
                                            int64_t channels);

/// All-to-all by pairwise exchange: n-1 steps, at step s rank r writes its
/// block r+s into rank r+s's block r. `shape.count` is the whole buffer.
mlir::sched::ProgramOp buildPairwiseAllToAll(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             llvm::StringRef name,
                                             const AllReduceShape &shape);

/// All-to-all to every peer at once, as NCCL's grouped send/recv runs it:
/// channel c of `channels` writes, one after the other, block r+s of rank r
/// into block r of rank r+s for s = c+1, c+1+channels, ...; with at least
/// twice as many channels as peers, each peer's block goes in pieces over
/// channels/(n-1) channels. The channels run side by side. Out of place, the
/// rank's own block is copied before the first channel's transfers (NCCL's
/// send to self), or with `copyBeside` by channels of their own beside them.
/// `shape.count` is the whole buffer.
mlir::sched::ProgramOp buildDirectAllToAll(mlir::OpBuilder &b, mlir::Location loc,
                                           llvm::StringRef name,
                                           const AllReduceShape &shape,
                                           int64_t channels, bool copyBeside = false);

/// Point to point: schedule rank 0 (shape.rankMap[0]) sends `count`
/// elements to schedule rank 1, pipelined in `chunks` pieces.
mlir::sched::ProgramOp buildSendRecv(mlir::OpBuilder &b, mlir::Location loc,
                                     llvm::StringRef name,
                                     const AllReduceShape &shape, int64_t chunks);

/// Dissemination barrier: ceil(log2 n) rounds of signals at doubling
/// distances; no data.
mlir::sched::ProgramOp buildDisseminationBarrier(mlir::OpBuilder &b,
                                                 mlir::Location loc,
                                                 llvm::StringRef name,
                                                 int64_t ranks);

/// NVLS all-reduce (in-switch reduction on Hopper NVSwitch): every rank
/// reduces its part through the switch, stores it to all ranks at once,
/// then signals everyone.
mlir::sched::ProgramOp buildNvlsAllReduce(mlir::OpBuilder &b, mlir::Location loc,
                                          llvm::StringRef name,
                                          const AllReduceShape &shape,
                                          int64_t chunks, int64_t channels);

/// NVLS broadcast: the root stores its buffer into every rank's at once
/// through the switch (multimem st), then signals everyone.
mlir::sched::ProgramOp buildNvlsBroadcast(mlir::OpBuilder &b, mlir::Location loc,
                                          llvm::StringRef name,
                                          const AllReduceShape &shape, int64_t root,
                                          int64_t chunks, int64_t channels);

/// Trees as parent arrays: parent[r] of schedule rank r (-1: the root).
using Trees = std::vector<std::vector<int64_t>>;

/// NCCL's double binary tree over `ranks` ranks in nodes of `perNode`: a
/// chain inside a node, and over the nodes' leaders a binary tree and its
/// mirror image; one such pair per rail m (GPU m leads every node and the
/// chain visits GPU p xor m at position p, so that channels spread over the
/// NICs), rail-major. One chain when there is one node.
Trees ncclTrees(int64_t ranks, int64_t perNode);

/// Tree all-reduce: reduce up a tree, then broadcast down it, pipelined in
/// `chunks` pieces over `channels` channels; channel c uses tree c mod
/// trees.size().
mlir::sched::ProgramOp buildTreeAllReduce(mlir::OpBuilder &b, mlir::Location loc,
                                          llvm::StringRef name,
                                          const AllReduceShape &shape,
                                          const Trees &trees, int64_t chunks,
                                          int64_t channels);

//===----------------------------------------------------------------------===//
// Node-aware halves and all-to-all, binomial trees, van de Geijn's
// broadcast (issue 4)
//===----------------------------------------------------------------------===//

/// How the hierarchical reduce-scatter and all-gather exchange inside a
/// node: directly (NVLink between every two GPUs); round a ring over its
/// GPUs in pieces but directly in one (a ring over PCIe, where a single
/// latency-bound piece takes one hop sooner than G-1); or round the ring
/// always (the node's NVLink rings, where a direct exchange would cross
/// PCIe: v100x8).
enum class NodeRing { Never, InPieces, Always };
/// Which of those a node of `ranks` (world ranks) takes.
NodeRing nodeRingOf(const topo::Machine &machine, llvm::ArrayRef<int> ranks);

/// Hierarchical reduce-scatter over nodes of `perNode` ranks (node-major:
/// rank node * perNode + l is GPU l of its node). A direct reduce-scatter
/// inside each node leaves GPU l with its node's sum of the blocks whose
/// owners are GPU l of some node; a ring over the nodes' GPUs l (NIC rail
/// l) then reduce-scatters those blocks. `shape.count` is the block each
/// rank ends with; the input holds n blocks, rank j's at [j*m, (j+1)*m).
/// Scratch: n + nodes - 1 blocks at most. Sums go in a fixed order,
/// so every run gives the same bits. Any perNode dividing n (1 or n: the
/// flat ring, the direct reduce-scatter). As `nodeRing` says, the node's
/// sums go round a ring over its GPUs instead (where not every two have
/// NVLink: fused reductions, each link once), in the order
/// nodeRings[c % size] on channel c (orders of one node's GPUs; none: in
/// order).
/// Each channel's
/// share goes in up to `chunks` pieces whose two phases (inside the node,
/// along the rail) pipeline, odd channels starting each round with the
/// rail's. Out of place; algorithm "hierarchical". `groupOrder` (schedule
/// ranks group by group; empty: node by node) makes other groups the
/// "nodes": position l of each group must be alike (a rail), and the
/// blocks stay their ranks' own wherever the groups put them. With
/// `directBetweenNodes` GPU l sends each node sum straight to its node's
/// GPU l instead of round the rail's ring (one network hop per piece, not
/// N-1 in a row): algorithm "hierarchical_direct".
mlir::sched::ProgramOp buildHierarchicalReduceScatter(
    mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
    const AllReduceShape &shape, int64_t perNode, NodeRing nodeRing, int64_t chunks,
    int64_t channels, const RingOrders &nodeRings = {},
    llvm::ArrayRef<int64_t> groupOrder = {}, bool directBetweenNodes = false);
/// The mirror image: a ring all-gather of the blocks of GPU l of every
/// node over rail l, then a direct all-gather inside each node (or a ring
/// over its GPUs, as above), in pieces as above. No scratch; algorithm
/// "hierarchical" ("hierarchical_direct" with `directBetweenNodes`: the
/// rail's blocks sent to every other node at once).
mlir::sched::ProgramOp buildHierarchicalAllGather(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  llvm::StringRef name,
                                                  const AllReduceShape &shape,
                                                  int64_t perNode, NodeRing nodeRing,
                                                  int64_t chunks, int64_t channels,
                                                  const RingOrders &nodeRings = {},
                                                  llvm::ArrayRef<int64_t> groupOrder = {},
                                                  bool directBetweenNodes = false);

/// Broadcast from schedule rank `root` (with `reduce`: reduce towards it)
/// along a binomial tree: ceil(log2 n) rounds for any n, rank q (counted
/// from the root) passing the data to q + 2^j for every 2^j below its
/// lowest set bit, farthest first. Pipelined in `chunks` pieces over
/// `channels` channels (clamped so that every piece keeps an element). The
/// reduce adds each rank's input, then its children's sums nearest first,
/// and divides once at the root for avg; scratch (ceil(log2 n) + 1) x
/// count. Every rank gets its own task; algorithm "binomial".
mlir::sched::ProgramOp buildBinomialBroadcast(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              llvm::StringRef name,
                                              const AllReduceShape &shape,
                                              int64_t root, bool reduce,
                                              int64_t chunks, int64_t channels);

/// Van de Geijn's broadcast for large buffers on fully connected machines:
/// the root writes block j of n (part j of n, uneven when n does not divide
/// the count) into rank j's output, then every rank other than the root
/// writes its block into the output of every other rank but the root, and
/// the root writes its own block into every rank's. Each channel takes a
/// contiguous slice of the buffer, split into the n blocks. No scratch;
/// every rank gets its own task; algorithm "scatter_allgather".
mlir::sched::ProgramOp buildScatterAllGatherBroadcast(mlir::OpBuilder &b,
                                                      mlir::Location loc,
                                                      llvm::StringRef name,
                                                      const AllReduceShape &shape,
                                                      int64_t root,
                                                      int64_t channels);

/// Relays per pair of ranks: via[r][d][k] carries share k of the block
/// from r to d (none: the block goes directly).
using RelayShares = std::vector<std::vector<std::vector<int64_t>>>;

/// All-to-all over the machine's own fast links: the block from schedule
/// rank r to d goes directly where via[r][d] is empty, otherwise in
/// via[r][d].size() equal shares, share k through the relay via[r][d][k]
/// (a GPU linked to both): r writes it into a scratch slot of the relay,
/// which forwards it. Every share (direct blocks and the own block's copy in
/// as many) on a channel of its own, as far as `channels` go, in `rounds`
/// pieces, the relays forwarding one round behind; every rank has its own
/// tasks. `shape.count` is the whole buffer, a multiple of the ranks, with
/// at least an element per share; out of place; algorithm "relay".
mlir::sched::ProgramOp buildRelayAllToAll(mlir::OpBuilder &b, mlir::Location loc,
                                          llvm::StringRef name,
                                          const AllReduceShape &shape,
                                          const RelayShares &via, int64_t channels,
                                          int64_t rounds = 1);
/// The all-gather the same way (every rank's one block to every other;
/// `shape.count` is that block): two NVLink hops at most where the ring
/// takes n-1. Algorithm "relay".
mlir::sched::ProgramOp buildRelayAllGather(mlir::OpBuilder &b, mlir::Location loc,
                                           llvm::StringRef name,
                                           const AllReduceShape &shape,
                                           const RelayShares &via, int64_t channels,
                                           int64_t rounds = 1);
/// The direct reduce-scatter (contributions into slots of their block's
/// owner, added there in rank order) with the contributions between GPUs
/// without an NVLink through the relay via[r][d]: two NVLink hops at most.
/// Channel c carries part c of every block; every rank has its own tasks.
/// `shape.count` is the block each rank ends with; algorithm "relay".
mlir::sched::ProgramOp buildRelayReduceScatter(mlir::OpBuilder &b, mlir::Location loc,
                                               llvm::StringRef name,
                                               const AllReduceShape &shape,
                                               const std::vector<std::vector<int64_t>> &via,
                                               int64_t channels);

/// All-to-all over nodes of `perNode` ranks (node-major): GPU l of each node
/// gathers from its node-mates (NVLink) the blocks for GPU l of every other
/// node, then sends each node's P blocks in one message over rail l, straight
/// into that GPU's output; blocks within a node go directly. N-1 network
/// messages per rank instead of (N-1)*P. `shape.count` is the whole buffer,
/// a multiple of the ranks; out of place. Scratch: `count` elements (none
/// with one node or one GPU per node). Channel c serves the other nodes and
/// node-mates at offsets 1 + c (mod channels); algorithm "hierarchical".
/// `via` (GPUs of a node, as nvlinkRelays gives them): where GPUs o and d
/// of a node have no NVLink, the blocks o hands d (with more channels than
/// lanes) go through via[o][d], a GPU linked to both, each rank then with
/// its own tasks.
mlir::sched::ProgramOp buildHierarchicalAllToAll(
    mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
    const AllReduceShape &shape, int64_t perNode, int64_t channels,
    const std::vector<std::vector<int64_t>> &via = {});

/// `programs` (of one collective, built alike but for their algorithms,
/// chunks and channels) merged side by side: program i on the next channels
/// and on weights[i] / sum(weights) of every block of `block` elements (its
/// pieces on that share as they were on the whole block), its algorithm
/// "a+b"; inserted at `b`. Fails, saying why, where a program's pieces are
/// not whole parts of its share (a weight that does not divide them) or
/// its buffers not whole blocks.
mlir::FailureOr<mlir::sched::ProgramOp>
buildOnBlockShares(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                   llvm::ArrayRef<mlir::sched::ProgramOp> programs,
                   llvm::ArrayRef<int64_t> weights, int64_t block, std::string &why);

} // namespace ccopt

#endif
