//===- Simulator.h - predicted time of a schedule on a machine ----*- C++ -*-===//
//
// The one truth for time: an event-driven, deterministic simulation of a
// sched.program on a Machine. Every rank and channel runs its steps in order;
// a send is a flow over the links of its route, capped by what one channel
// can copy, the flows sharing the links max-min fairly (a flow held back on
// one link leaves its share of the others to the flows there); the message
// arrives a per-hop latency after its last byte; a receive waits for its
// message. Local copies and reductions take bytes over the channel's
// bandwidth.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_TOPOLOGY_SIMULATOR_H
#define CCOPT_TOPOLOGY_SIMULATOR_H

#include "dialect/Sched/SchedDialect.h"
#include "dialect/Sched/StepWalker.h"
#include "topology/Machine.h"
#include "topology/NodeSymmetry.h"
#include "topology/Protocol.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ccopt::topo {

/// What a simulation folds: channels that run alike (channelClasses) and
/// the rank period (rankPeriod). A search that simulates one program under
/// several protocols finds it once.
struct Symmetry {
  std::vector<std::pair<int64_t, int64_t>> channelClasses;
  int64_t rankPeriod;
  /// Where classes are images of each other under node symmetries of the
  /// machine (ChannelShapes::images; channelClasses then counts the
  /// images): each link's orbit under them (its first link) and the orbit's
  /// size. Empty otherwise.
  std::vector<int> linkOrbit;
  std::vector<int> orbitSize;

  /// What a mailbox's sizing needs to walk: one channel of each class and
  /// one period of ranks.
  mlir::sched::MailboxFold mailboxFold() const {
    mlir::sched::MailboxFold fold{{}, rankPeriod};
    for (auto [channel, replicas] : channelClasses)
      fold.channels.push_back(channel);
    return fold;
  }
};

struct SimOptions {
  /// How messages travel; unset: the program's `protocol` (Simple
  /// without one).
  std::optional<Protocol> protocol;
  /// Whose latencies apply; by default the program's algorithm says
  /// ("tree", "nvls", anything else a ring).
  std::optional<AlgorithmFamily> family;
  /// Record a trace (a track per rank/channel and per link).
  bool trace = false;
  /// Channels that run the same steps on their own slices of the data are
  /// simulated once and their flows counted once per channel on every link:
  /// the same max-min shares (alike flows get alike rates), much cheaper.
  /// Channels that are images of each other under a symmetry of the machine
  /// (trees on different rails) likewise: a simulated flow on link l stands
  /// for its images on l's orbit, so the orbit's links all carry the orbit's
  /// load, shared out. Exact where the channels' parts have equal sizes; where
  /// they differ by an element their flows end apart and shares shift
  /// (within 1% in the tests). (Off when tracing, so that every channel has
  /// its track.)
  bool foldSymmetricChannels = true;
  /// On a machine of identical nodes, a schedule that looks the same from
  /// every node (rankPeriod() < ranks) is simulated for one period of ranks;
  /// every link of another node stands for its twin in the simulated ones,
  /// so a link carries what it carries in the full run. Exact when every
  /// rank's parts have equal sizes, within one element per part otherwise.
  /// (Off when tracing.)
  bool foldSymmetricRanks = true;
  /// symmetryOf(program, machine), when the caller has it.
  const Symmetry *symmetry = nullptr;
  /// Stop once the clock passes this (µs): the result then has that time
  /// and `gaveUp` (a search only needs to know the candidate loses).
  double giveUpAfterUs = 1e300;
  /// Stop, the same way, once settling has taken this much work
  /// (SimResult::settleWork): what a search can afford on one candidate.
  int64_t giveUpAfterWork = INT64_MAX;
};

struct TraceEvent {
  std::string track; ///< "rank 3 / ch 0" or "link gpu0 -> nvswitch"
  std::string name;  ///< the step, or the flow on a link
  double startUs, endUs;
  int64_t bytes;
};

struct SimResult {
  double timeUs = 0;
  bool gaveUp = false; ///< past SimOptions::giveUpAfterUs or giveUpAfterWork, not finished
  int64_t wireBytes = 0; ///< bytes all sends put on links, summed
  int64_t steps = 0;     ///< steps all ranks and channels executed
  /// Links and flows visited settling rates: the simulation's work (flows
  /// that share links with many others cost more than their steps tell).
  int64_t settleWork = 0;
  std::vector<TraceEvent> events;
};

/// The smallest q < ranks such that moving every rank q ranks on moves it
/// by whole nodes of `machine` (a replicated machine) and maps every step's
/// peers the same way, so ranks r and r + q run alike; `ranks` when there is
/// none (one node, per-rank tasks, NVLS, peers that are not translation
/// invariant).
int64_t rankPeriod(mlir::sched::ProgramOp program, const Machine &machine);

Symmetry symmetryOf(mlir::sched::ProgramOp program, const Machine &machine);

/// The machine's node symmetries (xorSymmetries) that keep `program`'s
/// ranks among themselves, each as a renumbering of its schedule ranks.
struct RankSymmetry {
  std::vector<int64_t> ranks;
  const NodeSymmetry *node;
};
std::vector<RankSymmetry> rankSymmetries(mlir::sched::ProgramOp program,
                                         const Machine &machine);

/// What each task of `program` moves one step after the other: bytes it
/// sends and bytes it copies or reduces locally (parts at their smallest
/// size). Whatever the chunking, the same.
struct TaskLoads {
  std::vector<std::pair<int64_t, int64_t>> sentAndLocal;

  /// No simulation of the program under `protocol` ends sooner: every task
  /// runs its steps in order, a send no faster than one channel copies
  /// under the protocol, a local step at the channel's bandwidth.
  double lowerBoundUs(mlir::sched::ProgramOp program, const Machine &machine,
                      Protocol protocol) const;
};
TaskLoads taskLoads(mlir::sched::ProgramOp program);

/// The cost model's protocol for a schedule's.
Protocol protocolOf(mlir::sched::ProtocolKind kind);

/// Simulates `program` on `machine`. Schedule rank i runs on machine rank
/// program.getRankMap()[i] (or i). Fails with a message when the program
/// does not fit the machine.
llvm::Expected<SimResult> simulate(mlir::sched::ProgramOp program,
                                   const Machine &machine,
                                   const SimOptions &options = {});

/// Writes events as Chrome trace JSON (opens in ui.perfetto.dev).
void writeChromeTrace(llvm::ArrayRef<TraceEvent> events, llvm::raw_ostream &os);

} // namespace ccopt::topo

#endif
