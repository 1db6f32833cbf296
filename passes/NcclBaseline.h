//===- NcclBaseline.h - what NCCL would do on the same machine ----*- C++ -*-===//
//
// NCCL's algorithms expressed as schedules, with NCCL's channel count,
// chunking and protocol choice per size, simulated by the same simulator on
// the same machine: every "ccopt vs NCCL" figure compares two simulations
// of one model.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_PASSES_NCCLBASELINE_H
#define CCOPT_PASSES_NCCLBASELINE_H

#include "passes/Algorithms.h"
#include "topology/Simulator.h"

namespace ccopt {

struct BaselineResult {
  std::string algorithm;
  topo::Protocol protocol;
  int64_t channels, chunks;
  double timeUs;
};

/// NCCL's fastest algorithm and protocol for an all-reduce of `shape` among
/// world ranks `ranks` (shape.ranks of them) on `machine`.
llvm::Expected<BaselineResult> ncclAllReduceBaseline(mlir::MLIRContext *context,
                                                     const AllReduceShape &shape,
                                                     llvm::ArrayRef<int> ranks,
                                                     const topo::Machine &machine);

/// NCCL's fastest algorithm and protocol (each simulated, the fastest kept)
/// for collective `kind` among world ranks `ranks`: reduce_scatter and
/// all_gather as its rings; broadcast and reduce as its pipelined chain
/// along the ring from (towards) schedule rank `root`; all_to_all as its
/// grouped send/recv to every peer at once (p2p, LL or Simple); a send/recv
/// as one p2p transfer from schedule rank 0 to 1; a barrier as the
/// one-element all-reduce frameworks use for it (torch.distributed.barrier
/// under NCCL); all_reduce as ncclAllReduceBaseline. `shape.count` is what
/// the builders take: the block per rank for reduce_scatter and all_gather,
/// the whole buffer otherwise.
llvm::Expected<BaselineResult>
ncclBaseline(mlir::MLIRContext *context, mlir::ccl::CollectiveKind kind,
             const AllReduceShape &shape, llvm::ArrayRef<int> ranks,
             const topo::Machine &machine, int64_t root = 0);

/// Pieces NCCL cuts `bytes` (one ring part or chain of one channel) into
/// under `protocol`: its step size per protocol.
int64_t piecesOf(int64_t bytes, topo::Protocol protocol);

/// The most pieces a tree is simulated in: beyond, the pipeline's fill is
/// a few percent of the time, and simulating every piece of a GiB on two
/// PCIe channels took over a minute.
constexpr int64_t kMaxTreePieces = 512;

/// Pieces NCCL cuts each channel's share of a tree all-reduce of `bytes`
/// over `ranks` on `channels` channels into under `protocol`: its step
/// size, which under LL128 it halves until the tree's depth has pieces
/// enough to pipeline (src/enqueue.cc, nstepsLL128).
int64_t treePiecesOf(const topo::Machine &machine, llvm::ArrayRef<int> ranks,
                     int64_t bytes, int64_t channels, topo::Protocol protocol);

/// Whether every hop of NCCL's rings among `ranks` inside a node is NVLink:
/// where NCCL turns LL128 on by default (src/graph/tuning.cc, typeIntra <=
/// PATH_NVB: "other cases are not tested and may cause silent data
/// corruption").
bool ringsStayOnNvlink(const topo::Machine &machine, llvm::ArrayRef<int> ranks);

/// Channels NCCL runs on `machine` (its rings/trees per collective).
int64_t ncclChannels(const topo::Machine &machine);

/// NCCL's NVLS tree across nodes (src/device/all_reduce.h, NVLS_TREE): each
/// node's switch reduces, the nodes exchange, the switch stores. The
/// baseline runs it as hierarchical_nvls on NCCL's channels in pieces of
/// its Simple step over each GPU's block (`perNode` GPUs a node).
int64_t ncclNvlsTreePieces(int64_t bytes, int64_t channels, int64_t perNode);

/// Channels NCCL's grouped send/recv (all_to_all) spreads over among
/// `ranks` ranks on `machine`.
int64_t ncclP2pChannels(const topo::Machine &machine, int64_t ranks);

} // namespace ccopt

#endif
