//===- StepWalker.h - a rank's steps, in order --------------------*- C++ -*-===//
//
// Schedules are parametric in the rank and loop indices; analyses (the
// verifier, the simulator) need them concrete. A StepWalker yields, for one
// rank and channel, each step op in program order with its dimension values
// (rank, loop indices...), without unrolling the whole program.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_DIALECT_SCHED_STEPWALKER_H
#define CCOPT_DIALECT_SCHED_STEPWALKER_H

#include "dialect/Sched/SchedDialect.h"

namespace mlir::sched {

/// Maps compiled to a flat postfix program, for analyses that evaluate the
/// same maps millions of times. Valid while the maps' context lives.
class MapCache {
public:
  int64_t evaluate(AffineMap map, ArrayRef<int64_t> dims);

private:
  struct Instr {
    AffineExprKind kind;
    int64_t value; // constant, or dimension position
  };
  llvm::DenseMap<AffineMap, SmallVector<Instr, 8>> programs;
};

/// Value of a one-result map at `dims` (mod and floordiv round to -inf),
/// through `cache` when given.
int64_t evaluate(AffineMap map, ArrayRef<int64_t> dims, MapCache *cache = nullptr);

/// The peer map of a step that receives (recv, recv_reduce_send,
/// recv_copy_send), or std::nullopt.
std::optional<AffineMap> receivesFrom(Operation *step);

/// The schedule rank a peer map of `step` names at `dims` (maps give
/// positions in the step's task; its rank_map turns them into ranks).
int64_t peerRank(Operation *step, AffineMap peer, ArrayRef<int64_t> dims,
                 MapCache *cache = nullptr);

/// Elements [begin, end) of a buffer.
struct ElementRange {
  BufferKind buffer;
  int64_t begin = 0, end = 0;
  int64_t part = 0, parts = 1;
  int64_t size() const { return end - begin; }
  /// `scratch[128, 256) (part 1 of 8)`, for diagnostics.
  std::string str() const;
};

/// The elements `part` names at `dims`. An index outside [0, parts) is
/// reported by returning std::nullopt.
std::optional<ElementRange> resolve(ProgramOp program, PartAttr part,
                                    ArrayRef<int64_t> dims,
                                    MapCache *cache = nullptr);

/// The tasks each (rank, channel) runs, in program order, found in one
/// pass (a tree's per-rank tasks would make a search per thread quadratic).
class TaskIndex {
public:
  explicit TaskIndex(ProgramOp program);
  ArrayRef<TaskOp> tasks(int64_t rank, int64_t channel) const {
    return byThread[rank * channels + channel];
  }

private:
  int64_t channels;
  std::vector<SmallVector<TaskOp, 1>> byThread;
};

class StepWalker {
public:
  StepWalker(const TaskIndex &index, int64_t rank, int64_t channel);

  /// The next step op, or nullptr at the end. `dims()` then holds its
  /// dimension values.
  Operation *next();
  ArrayRef<int64_t> dims() const { return dimValues; }

private:
  struct Frame {
    Block *block;
    Block::iterator it;
    bool loop;     // false for a task body
    int64_t upper; // the loop's bound (read once: attributes are slow)
  };
  bool enterNextTask();

  SmallVector<TaskOp> tasks;
  size_t nextTask = 0;
  int64_t rank;
  SmallVector<Frame> frames;
  SmallVector<int64_t> dimValues;
};

/// Most slots an LL or LL128 mailbox holds per (channel, sender).
constexpr int64_t kLLSlots = 8;

/// Whether `protocol` sends through the receiver's mailbox (LL, LL128).
inline bool usesMailbox(ProtocolKind protocol) {
  return protocol != ProtocolKind::Simple;
}

/// The mailbox a program needs in every rank's sync area (after the
/// counters): per channel `regions` regions, one for each rank that sends
/// this rank messages on that channel, of `slots` slots of `lines` lines of
/// `lineBytes`; a slot for every message that sender sends on that channel
/// in one launch (up to kLLSlots), as large as the largest message. LL:
/// 8-byte lines of 4 data bytes (lines rounded up to even); LL128: 128-byte
/// lines of 120.
///
/// A ring's receiver hears from one rank per channel: one region (the
/// sender's is 0). Where some hear from several, `senders` lists them for
/// every (channel, receiver), `regions` entries each padded with -1, and a
/// sender's region is its index there; where that table would be large,
/// `senders` is empty and every rank has a region (`regions` = ranks, the
/// sender's is its rank).
struct LLMailbox {
  int64_t slots = 0, lines = 0, lineBytes = 8, regions = 0;
  SmallVector<int32_t> senders;
  /// Bytes of one region.
  int64_t regionBytes() const { return slots * lines * lineBytes; }
  /// Bytes per rank.
  int64_t bytes(ProgramOp program) const {
    return program.getChannels() * regions * regionBytes();
  }
};

/// What sizes a mailbox, whatever the line format: the most data messages a
/// sender sends one receiver on one channel in a launch, the bytes of the
/// largest part a message names (a bound: parts differ by an element), the
/// most ranks one rank hears from on one channel, and who sends whom:
/// `senders[ch * ranks + receiver]`, sorted (empty when sized from a fold).
struct MailboxDemand {
  int64_t ranks = 0, channels = 0, messages = 0, largestBytes = 0, mostSenders = 0;
  std::vector<SmallVector<int32_t, 2>> senders;
  /// The mailbox under `protocol` (LL or LL128); without `senders`, its
  /// size only (no sender table).
  LLMailbox under(ProtocolKind protocol) const;
};

/// Where a program looks the same up to symmetry, the mailbox's size needs
/// only part of it walked: one channel of each class (`channels`; channels
/// that run alike, or images of each other under a renumbering of the
/// ranks, send and hear alike) and the ranks of one period (every rank
/// r + rankPeriod runs rank r's steps with peers moved by rankPeriod).
struct MailboxFold {
  std::vector<int64_t> channels;
  int64_t rankPeriod = 0;
};

/// What `program` needs of a mailbox, whatever its protocol attribute.
/// Fails (with the reason in `why`) when some rank does not receive every
/// data message with a step that names where it goes (`sched.recv` without
/// `into`, a message of NVLS), i.e. when the program cannot run as LL or
/// LL128. With `fold`, walks only what it names and leaves `senders` empty.
FailureOr<MailboxDemand> mailboxDemand(ProgramOp program, std::string *why = nullptr,
                                       const MailboxFold *fold = nullptr);

/// mailboxDemand(program)->under(protocol).
FailureOr<LLMailbox> llMailbox(ProgramOp program, ProtocolKind protocol,
                               std::string *why = nullptr);

} // namespace mlir::sched

#endif
