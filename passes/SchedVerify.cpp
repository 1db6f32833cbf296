//===- SchedVerify.cpp - sched-verify -------------------------------------===//
//
// Symbolic execution of a schedule on every rank and channel. Buffers hold,
// per element range, which ranks' inputs were combined there and from which
// input element; messages carry vector clocks so that every access can be
// checked against the last write and the reads since (happens-before), the
// way a race detector would. Channels that run another's steps moved to
// other elements (and, for an all-reduce, with the ranks renamed by a
// symmetry of the machine: a tree on each rail) are proven by executing
// that one (channelProofs).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "dialect/Sched/ChannelClasses.h"
#include "dialect/Sched/StepWalker.h"
#include "topology/Simulator.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <variant>
#include <map>
#include <set>
#include <tuple>
#include <array>

namespace ccopt {
#define GEN_PASS_DEF_SCHEDVERIFY
#include "passes/Passes.h.inc"
} // namespace ccopt

using namespace mlir;
using namespace mlir::sched;
using ccl::CollectiveKind;

namespace {

/// Sorted, disjoint [lo, hi) rank ranges.
using RankSet = SmallVector<std::pair<int64_t, int64_t>, 2>;

std::string toString(const RankSet &set) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "{";
  llvm::interleaveComma(set, os, [&](auto range) {
    os << range.first;
    if (range.second - range.first > 1)
      os << "-" << range.second - 1;
  });
  os << "}";
  return s;
}

/// The union of a and b, or the first rank they share.
std::variant<RankSet, int64_t> unite(const RankSet &a, const RankSet &b) {
  RankSet all(a.begin(), a.end());
  all.append(b.begin(), b.end());
  llvm::sort(all);
  RankSet out;
  for (auto range : all) {
    if (!out.empty() && range.first < out.back().second)
      return range.first;
    if (!out.empty() && range.first == out.back().second)
      out.back().second = range.second;
    else
      out.push_back(range);
  }
  return out;
}

/// What an element range holds: the inputs of `ranks`, combined, taken from
/// input element `origin` onwards.
struct Content {
  bool defined = false;
  int64_t origin = 0;
  RankSet ranks;
  bool finalized = false;
  /// Every contribution was divided by the ranks where it was read from the
  /// input (a `prescale` program); a complete scaled sum is the average.
  bool scaled = false;

  Content shifted(int64_t by) const {
    Content c = *this;
    if (defined)
      c.origin += by;
    return c;
  }
  bool operator==(const Content &o) const {
    return defined == o.defined && (!defined || (origin == o.origin &&
                                                 ranks == o.ranks &&
                                                 finalized == o.finalized &&
                                                 scaled == o.scaled));
  }
};

/// An access: by which thread, at which of its clock values.
struct Access {
  int32_t thread = -1; // -1: the initial contents
  uint32_t clock = 0;
  uint64_t step = 0;
};

struct Piece {
  int64_t end;
  Content content;
  Access write;
  SmallVector<Access, 1> reads; // since the last write
};

/// Element start -> piece, covering [0, count) of one buffer of one rank.
using Memory = std::map<int64_t, Piece>;

/// Contents of consecutive element runs: (length, content).
using Slice = SmallVector<std::pair<int64_t, Content>, 2>;

struct Message {
  std::vector<uint32_t> clock;
  /// Where the data goes in the receiver (none: a signal) and, under LL,
  /// what it is: LL writes it when the receiver copies it out of its
  /// mailbox, Simple when it is sent.
  std::optional<ElementRange> landed;
  Slice data;
};

struct Thread {
  int64_t rank, channel;
  StepWalker walker;
  Operation *blockedOn = nullptr; // a receiving step waiting for its message
  SmallVector<int64_t> blockedDims;
  uint64_t step = 0;
  std::vector<uint32_t> clock;
  bool done = false;
};

/// What a machine allows a program's messages: the most remote kind of link
/// on their routes (the program's `links` attribute; any without it).
struct MachineCheck {
  const ccopt::topo::Machine *machine = nullptr;
  std::optional<ccopt::topo::LinkKind> mostRemote;
};

/// The memory `kind` names (0 input, 1 output, 2 scratch): an in-place
/// output is the input.
int memoryIndex(ProgramOp program, BufferKind kind) {
  if (kind == BufferKind::Output && program.getInPlace())
    kind = BufferKind::Input;
  return static_cast<int>(kind);
}

/// How a channel is proven: it runs channel `source`'s steps (itself: it is
/// executed), its accesses `shift` elements past the source's per memory
/// (input, output, scratch; an in-place output is the input).
struct ChannelProof {
  int64_t source;
  std::array<int64_t, 3> shift{0, 0, 0};
};
using Proofs = std::vector<ChannelProof>;
using Runs = std::vector<std::pair<int64_t, int64_t>>;

class SymbolicExecution {
public:
  SymbolicExecution(ProgramOp program, bool raceCheck, MachineCheck onMachine = {})
      : program(program), n(program.getRanks()), channels(program.getChannels()),
        raceCheck(raceCheck), onMachine(onMachine) {}

  LogicalResult run();

private:
  // Set-up and driving.
  LogicalResult execute();
  void initMemory();
  void runThread(Thread &t);
  LogicalResult execute(Thread &t, Operation *op, ArrayRef<int64_t> dims);
  LogicalResult checkEnd();

  // Access helpers; all report through fail().
  Memory &memory(int64_t rank, BufferKind kind);
  /// Whether the executed channels' accesses, moved as `proofs` say,
  /// prove every channel: no two channels touch one element and the output
  /// is covered.
  bool proofsProveEveryChannel();
  /// Whether an executed channel touched an element of [begin, end) of
  /// `kind` (once proofsProveEveryChannel merged its runs).
  bool touches(BufferKind kind, int64_t begin, int64_t end) {
    for (auto [c, proof] : llvm::enumerate(*proofs)) {
      if (proof.source != int64_t(c))
        continue;
      const Runs &runs = touched[c][memoryIndex(program, kind)];
      auto it = llvm::lower_bound(runs, std::make_pair(end, int64_t(0)));
      if (it != runs.begin() && std::prev(it)->second > begin)
        return true;
    }
    return false;
  }
  std::optional<ElementRange> range(Thread &t, Operation *op, PartAttr part,
                                    ArrayRef<int64_t> dims);
  std::optional<int64_t> peer(Thread &t, Operation *op, AffineMap map,
                              ArrayRef<int64_t> dims);
  std::optional<Slice> read(Thread &t, Operation *op, int64_t rank,
                            const ElementRange &r);
  LogicalResult write(Thread &t, Operation *op, int64_t rank,
                      const ElementRange &r, const Slice &slice);
  std::optional<Slice> combine(Thread &t, Operation *op, const Slice &a,
                               const Slice &b, bool finalize,
                               const ElementRange &where);
  LogicalResult sameSize(Thread &t, Operation *op,
                         ArrayRef<const ElementRange *> ranges);
  void post(Thread &t, int64_t to, std::optional<ElementRange> landed = {},
            Slice data = {});
  /// Checks that receiving step `op` takes message `m` from `from` where
  /// it landed, and under LL (or LL128) lands its data.
  LogicalResult deliver(Thread &t, Operation *op, ArrayRef<int64_t> dims,
                        int64_t from, const Message &m);
  /// LL or LL128: every message of data goes through the mailbox.
  bool isLL() { return usesMailbox(program.getProtocolKind()); }
  /// "LL" or "LL128", for diagnostics.
  std::string protocolName() {
    return stringifyProtocolKind(program.getProtocolKind()).upper();
  }
  /// Whether the machine (if any) can carry a message from t's rank to `to`.
  LogicalResult checkRoute(Thread &t, Operation *op, int64_t to);
  bool happensBefore(const Access &a, const Thread &t) const;
  /// An access by `t` now.
  Access accessBy(const Thread &t) const {
    int32_t id = &t - threads.data();
    return Access{id, t.clock.empty() ? 0 : t.clock[id], t.step};
  }
  std::string describe(const Access &a) const;
  InFlightDiagnostic fail(Thread &t, Operation *op);

  /// Messages from `from` to `to` on `channel`, in order.
  std::deque<Message> &queue(int64_t from, int64_t to, int64_t channel) {
    return queues[(from * n + to) * channels + channel];
  }

  ProgramOp program;
  int64_t n, channels;
  /// How each channel is proven (channelProofs); when set, only the
  /// sources run and `touched` gathers the elements each reads or writes
  /// (over every rank), per channel and memory.
  std::optional<Proofs> proofs;
  std::vector<std::array<Runs, 3>> touched;
  bool raceCheck;
  MachineCheck onMachine;
  bool hasFailed = false;
  std::vector<Thread> threads;
  std::vector<Memory> memories; // [rank * 3 + buffer]
  llvm::DenseMap<int64_t, std::deque<Message>> queues;
  MapCache maps;
  SmallVector<int32_t> runnable;
};

Memory &SymbolicExecution::memory(int64_t rank, BufferKind kind) {
  return memories[rank * 3 + memoryIndex(program, kind)];
}

void SymbolicExecution::initMemory() {
  memories.resize(n * 3);
  for (int64_t rank = 0; rank < n; ++rank)
    for (BufferKind kind :
         {BufferKind::Input, BufferKind::Output, BufferKind::Scratch}) {
      int64_t count = program.getCount(kind);
      if (count == 0)
        continue;
      Content content;
      if (kind == BufferKind::Input)
        content = Content{true, 0, RankSet{{rank, rank + 1}}, false};
      memories[rank * 3 + static_cast<int>(kind)][0] = Piece{count, content, {}, {}};
    }
}

InFlightDiagnostic SymbolicExecution::fail(Thread &t, Operation *op) {
  hasFailed = true;
  auto diag = op->emitError();
  diag << "rank " << t.rank << ", channel " << t.channel << ", step " << t.step
       << ": ";
  return diag;
}

std::string SymbolicExecution::describe(const Access &a) const {
  const Thread &w = threads[a.thread];
  return ("rank " + Twine(w.rank) + " (channel " + Twine(w.channel) +
          ", step " + Twine(a.step) + ")")
      .str();
}

bool SymbolicExecution::happensBefore(const Access &a, const Thread &t) const {
  if (a.thread < 0 || !raceCheck)
    return true;
  return t.clock[a.thread] >= a.clock;
}

std::optional<ElementRange> SymbolicExecution::range(Thread &t, Operation *op,
                                                     PartAttr part,
                                                     ArrayRef<int64_t> dims) {
  auto r = resolve(program, part, dims, &maps);
  if (!r)
    fail(t, op) << "part index " << evaluate(part.getIndex(), dims)
                << " of the " << stringifyBufferKind(part.getBuffer())
                << " buffer is outside [0, " << part.getParts() << ")";
  else if (proofs)
    touched[t.channel][memoryIndex(program, r->buffer)].push_back({r->begin, r->end});
  return r;
}

std::optional<int64_t> SymbolicExecution::peer(Thread &t, Operation *op,
                                               AffineMap map,
                                               ArrayRef<int64_t> dims) {
  int64_t position = evaluate(map, dims, &maps);
  if (position < 0 || position >= n) {
    fail(t, op) << "peer rank " << position << " is outside [0, " << n << ")";
    return std::nullopt;
  }
  int64_t p = op->getParentOfType<TaskOp>().scheduleRank(position);
  if (p == t.rank) {
    fail(t, op) << "rank " << p << " exchanges a message with itself";
    return std::nullopt;
  }
  return p;
}

LogicalResult SymbolicExecution::sameSize(Thread &t, Operation *op,
                                          ArrayRef<const ElementRange *> ranges) {
  for (const ElementRange *r : ranges.drop_front())
    if (r->size() != ranges.front()->size()) {
      fail(t, op) << ranges.front()->str() << " and " << r->str()
                  << " differ in size (" << ranges.front()->size() << " vs "
                  << r->size() << " elements)";
      return failure();
    }
  return success();
}

/// Splits the piece covering `at` so that a piece starts there.
static void splitAt(Memory &mem, int64_t at) {
  auto it = mem.upper_bound(at);
  if (it == mem.begin())
    return;
  --it;
  if (it->first == at || it->second.end <= at)
    return;
  Piece right = it->second;
  right.content = right.content.shifted(at - it->first);
  it->second.end = at;
  mem.emplace(at, std::move(right));
}

/// Merges `it` into the piece before it when the two continue one another
/// (same ranks, consecutive input elements): keeps memory proportional to
/// what differs, not to the number of parts touched.
static void coalesce(Memory &mem, Memory::iterator it) {
  if (it == mem.begin())
    return;
  auto prev = std::prev(it);
  const Content &a = prev->second.content, &b = it->second.content;
  bool continues = prev->second.end == it->first && a.defined == b.defined &&
                   (!a.defined || (a.ranks == b.ranks && a.finalized == b.finalized &&
                                   a.origin + (it->first - prev->first) == b.origin));
  if (!continues)
    return;
  prev->second.end = it->second.end;
  mem.erase(it);
}

std::optional<Slice> SymbolicExecution::read(Thread &t, Operation *op,
                                             int64_t rank, const ElementRange &r) {
  Memory &mem = memory(rank, r.buffer);
  // Reads are recorded per piece only for the race check; otherwise they
  // leave the pieces whole.
  if (raceCheck) {
    splitAt(mem, r.begin);
    splitAt(mem, r.end);
  }
  Slice slice;
  auto it = mem.upper_bound(r.begin);
  if (it != mem.begin())
    --it;
  for (; it != mem.end() && it->first < r.end; ++it) {
    Piece &piece = it->second;
    int64_t begin = std::max(it->first, r.begin);
    int64_t end = std::min(piece.end, r.end);
    if (begin >= end)
      continue;
    if (!happensBefore(piece.write, t)) {
      const Thread &w = threads[piece.write.thread];
      fail(t, op) << "reads " << r.str() << " before "
                  << (w.rank == t.rank ? "the write" : "the data") << " of "
                  << describe(piece.write) << " arrives";
      return std::nullopt;
    }
    if (!piece.content.defined) {
      fail(t, op) << "reads " << r.str() << ", which holds no data yet";
      return std::nullopt;
    }
    if (raceCheck) {
      Access self = accessBy(t);
      auto mine = llvm::find_if(piece.reads, [&](const Access &a) {
        return a.thread == self.thread;
      });
      if (mine != piece.reads.end())
        *mine = self;
      else
        piece.reads.push_back(self);
    }
    slice.push_back({end - begin, piece.content.shifted(begin - it->first)});
  }
  return slice;
}

LogicalResult SymbolicExecution::write(Thread &t, Operation *op, int64_t rank,
                                       const ElementRange &r, const Slice &slice) {
  Memory &mem = memory(rank, r.buffer);
  splitAt(mem, r.begin);
  splitAt(mem, r.end);
  auto first = mem.lower_bound(r.begin), last = first;
  for (; last != mem.end() && last->first < r.end; ++last) {
    Piece &piece = last->second;
    bool ok = happensBefore(piece.write, t);
    const Access *conflict = ok ? nullptr : &piece.write;
    for (const Access &a : piece.reads)
      if (!conflict && !happensBefore(a, t))
        conflict = &a;
    if (conflict) {
      fail(t, op) << "writes rank " << rank << "'s " << r.str() << " while "
                  << describe(*conflict) << " may still "
                  << (conflict == &piece.write ? "be writing" : "be reading")
                  << " it (no message orders the two)";
      return failure();
    }
  }
  mem.erase(first, last);
  Access self = accessBy(t);
  int64_t at = r.begin;
  for (auto &[length, content] : slice) {
    auto piece = mem.emplace_hint(mem.end(), at, Piece{at + length, content, self, {}});
    if (!raceCheck)
      coalesce(mem, piece);
    at += length;
  }
  if (!raceCheck)
    if (auto next = mem.find(r.end); next != mem.end())
      coalesce(mem, next);
  return success();
}

std::optional<Slice> SymbolicExecution::combine(Thread &t, Operation *op,
                                                const Slice &a, const Slice &b,
                                                bool finalize,
                                                const ElementRange &where) {
  Slice out;
  size_t i = 0, j = 0;
  int64_t offA = 0, offB = 0; // consumed within a[i], b[j]
  while (i < a.size() && j < b.size()) {
    int64_t len = std::min(a[i].first - offA, b[j].first - offB);
    Content x = a[i].second.shifted(offA), y = b[j].second.shifted(offB);
    if (x.origin != y.origin) {
      fail(t, op) << "combines input elements from " << x.origin << " and from "
                  << y.origin << " into " << where.str() << " (misaligned parts)";
      return std::nullopt;
    }
    if (x.finalized || y.finalized) {
      fail(t, op) << "reduces " << where.str() << " after it was finalized";
      return std::nullopt;
    }
    if (x.scaled != y.scaled || (finalize && x.scaled)) {
      fail(t, op) << (finalize ? "finalizes" : "combines")
                  << " prescaled and unscaled contributions into " << where.str();
      return std::nullopt;
    }
    auto merged = unite(x.ranks, y.ranks);
    if (auto *dup = std::get_if<int64_t>(&merged)) {
      fail(t, op) << "adds the contribution of rank " << *dup << " twice into "
                  << where.str() << " (" << toString(x.ranks) << " + "
                  << toString(y.ranks) << ")";
      return std::nullopt;
    }
    out.push_back({len, Content{true, x.origin, std::get<RankSet>(merged), finalize,
                                x.scaled}});
    offA += len;
    offB += len;
    if (offA == a[i].first)
      ++i, offA = 0;
    if (offB == b[j].first)
      ++j, offB = 0;
  }
  return out;
}

LogicalResult SymbolicExecution::checkRoute(Thread &t, Operation *op, int64_t to) {
  const ccopt::topo::Machine *m = onMachine.machine;
  if (!m)
    return success();
  int64_t src = program.worldRank(t.rank), dst = program.worldRank(to);
  for (int64_t world : {src, dst})
    if (world >= m->ranks()) {
      fail(t, op) << "sends to rank " << to << ", but rank " << world
                  << " is not on " << m->name << " (" << m->ranks() << " GPUs)";
      return failure();
    }
  if (m->route(src, dst).empty()) {
    fail(t, op) << "sends to rank " << to << ", but " << m->name
                << " has no route from GPU " << src << " to GPU " << dst;
    return failure();
  }
  ccopt::topo::LinkKind kind = m->routeKind(src, dst);
  if (onMachine.mostRemote && kind > *onMachine.mostRemote) {
    fail(t, op) << "sends to rank " << to << " over " << toString(kind)
                << ", but the program allows only links up to "
                << toString(*onMachine.mostRemote) << " (" << m->name
                << " has no such link from GPU " << src << " to GPU " << dst << ")";
    return failure();
  }
  return success();
}

void SymbolicExecution::post(Thread &t, int64_t to,
                             std::optional<ElementRange> landed, Slice data) {
  queue(t.rank, to, t.channel).push_back(Message{t.clock, landed, std::move(data)});
  Thread &receiver = threads[to * channels + t.channel];
  if (receiver.blockedOn)
    runnable.push_back(to * channels + t.channel);
}

LogicalResult SymbolicExecution::deliver(Thread &t, Operation *op,
                                         ArrayRef<int64_t> dims, int64_t from,
                                         const Message &m) {
  bool ll = isLL();
  auto recv = dyn_cast<RecvOp>(op);
  PartAttr named = TypeSwitch<Operation *, PartAttr>(op)
                       .Case([](RecvOp o) { return o.getIntoAttr(); })
                       .Case([](RecvReduceSendOp o) { return o.getRecvd(); })
                       .Case([](RecvCopySendOp o) { return o.getRecvd(); })
                       .Default([](Operation *) { return PartAttr(); });
  if (!m.landed) { // a signal
    if (recv && named) {
      fail(t, op) << "receives into the " << stringifyBufferKind(named.getBuffer())
                  << " buffer, but its message from rank " << from
                  << " is a signal (no data)";
      return failure();
    }
    if (!recv && ll) {
      fail(t, op) << "expects data, but its message from rank " << from
                  << " is a signal (an " << protocolName()
                  << " program's fused steps receive data)";
      return failure();
    }
    return success();
  }
  if (!named) {
    if (ll) {
      fail(t, op) << "receives data (rank " << from << " sends it to "
                  << m.landed->str()
                  << ") but names no `into`: an " << protocolName()
                  << " program's recv needs it";
      return failure();
    }
    return success();
  }
  // Simple programs check a named `into`; LL(128) ones every receiving step,
  // which is where the data is copied out of the mailbox.
  if (recv || ll) {
    auto r = range(t, op, named, dims);
    if (!r)
      return failure();
    if (r->buffer != m.landed->buffer || r->begin != m.landed->begin ||
        r->end != m.landed->end) {
      fail(t, op) << "receives into " << r->str() << ", but rank " << from
                  << " sends to " << m.landed->str();
      return failure();
    }
  }
  if (ll)
    return write(t, op, t.rank, *m.landed, m.data);
  return success();
}

LogicalResult SymbolicExecution::execute(Thread &t, Operation *op,
                                         ArrayRef<int64_t> dims) {
  int64_t r = t.rank;
  auto readPart = [&](PartAttr p) -> std::optional<std::pair<ElementRange, Slice>> {
    auto er = range(t, op, p, dims);
    if (!er)
      return std::nullopt;
    auto s = read(t, op, r, *er);
    if (!s)
      return std::nullopt;
    // A prescaled program reads every contribution divided by the ranks.
    if (program.getPrescale() && p.getBuffer() == BufferKind::Input)
      for (auto &piece : *s) {
        if (piece.second.defined && (piece.second.scaled || piece.second.finalized)) {
          fail(t, op) << "prescales " << er->str() << " a second time";
          return std::nullopt;
        }
        piece.second.scaled = piece.second.defined;
      }
    return std::make_pair(*er, *s);
  };
  auto sendTo = [&](int64_t to, PartAttr dst, const ElementRange &src,
                    const Slice &data) -> LogicalResult {
    if (failed(checkRoute(t, op, to)))
      return failure();
    auto d = range(t, op, dst, dims);
    if (!d || failed(sameSize(t, op, {&src, &*d})))
      return failure();
    if (isLL()) { // lands when the receiver takes it out of its mailbox
      post(t, to, *d, data);
      return success();
    }
    if (failed(write(t, op, to, *d, data)))
      return failure();
    post(t, to, *d);
    return success();
  };
  /// A fused step's optional local store of what it sends.
  auto store = [&](PartAttr part, const std::pair<ElementRange, Slice> &data)
      -> LogicalResult {
    if (!part)
      return success();
    auto st = range(t, op, part, dims);
    if (!st || failed(sameSize(t, op, {&data.first, &*st})))
      return failure();
    return write(t, op, r, *st, data.second);
  };
  auto reduceInto = [&](PartAttr lhsPart, PartAttr rhsPart, bool finalize)
      -> std::optional<std::pair<ElementRange, Slice>> {
    auto lhs = readPart(lhsPart), rhs = readPart(rhsPart);
    if (!lhs || !rhs || failed(sameSize(t, op, {&lhs->first, &rhs->first})))
      return std::nullopt;
    auto sum = combine(t, op, lhs->second, rhs->second, finalize, lhs->first);
    if (!sum)
      return std::nullopt;
    return std::make_pair(lhs->first, *sum);
  };

  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](CopyOp copy) -> LogicalResult {
        auto src = readPart(copy.getSrc());
        auto dst = src ? range(t, op, copy.getDst(), dims) : std::nullopt;
        if (!dst || failed(sameSize(t, op, {&src->first, &*dst})))
          return failure();
        return write(t, op, r, *dst, src->second);
      })
      .Case([&](ReduceOp reduce) -> LogicalResult {
        auto sum = reduceInto(reduce.getLhs(), reduce.getRhs(), reduce.getFinalize());
        auto dst = sum ? range(t, op, reduce.getDst(), dims) : std::nullopt;
        if (!dst || failed(sameSize(t, op, {&sum->first, &*dst})))
          return failure();
        return write(t, op, r, *dst, sum->second);
      })
      .Case([&](SendOp send) -> LogicalResult {
        auto to = peer(t, op, send.getPeer(), dims);
        auto src = to ? readPart(send.getSrc()) : std::nullopt;
        if (!src || failed(store(send.getStoreAttr(), *src)))
          return failure();
        return sendTo(*to, send.getDst(), src->first, src->second);
      })
      .Case([&](RecvOp) { return success(); })
      .Case([&](RecvReduceSendOp rrs) -> LogicalResult {
        auto to = peer(t, op, rrs.getTo(), dims);
        auto sum = to ? reduceInto(rrs.getRecvd(), rrs.getLocal(), rrs.getFinalize())
                      : std::nullopt;
        if (!sum || failed(store(rrs.getStoreAttr(), *sum)))
          return failure();
        return sendTo(*to, rrs.getDst(), sum->first, sum->second);
      })
      .Case([&](RecvCopySendOp rcs) -> LogicalResult {
        auto to = peer(t, op, rcs.getTo(), dims);
        auto src = to ? readPart(rcs.getRecvd()) : std::nullopt;
        if (!src || failed(store(rcs.getStoreAttr(), *src)))
          return failure();
        return sendTo(*to, rcs.getDst(), src->first, src->second);
      })
      .Case([&](SignalOp signal) -> LogicalResult {
        auto to = peer(t, op, signal.getPeer(), dims);
        if (!to || failed(checkRoute(t, op, *to)))
          return failure();
        post(t, *to);
        return success();
      })
      .Case([&](MultimemReduceOp mm) -> LogicalResult {
        // The switch reads the part from every rank it reaches and reduces.
        auto src = range(t, op, mm.getSrc(), dims);
        auto dst = src ? range(t, op, mm.getDst(), dims) : std::nullopt;
        if (!dst || failed(sameSize(t, op, {&*src, &*dst})))
          return failure();
        std::optional<Slice> sum;
        SwitchRanks reached = switchRanks(mm.getGroup(), r, n);
        for (int64_t q = reached.first; q < reached.first + reached.count; ++q) {
          auto slice = read(t, op, q, *src);
          if (!slice)
            return failure();
          bool last = q + 1 == reached.first + reached.count;
          sum = !sum ? *slice
                     : combine(t, op, *sum, *slice, last && mm.getFinalize(), *src);
          if (!sum)
            return failure();
        }
        return write(t, op, r, *dst, *sum);
      })
      .Case([&](MultimemStoreOp mm) -> LogicalResult {
        // One write, replicated by the switch into every rank it reaches.
        auto src = readPart(mm.getSrc());
        auto dst = src ? range(t, op, mm.getDst(), dims) : std::nullopt;
        if (!dst || failed(sameSize(t, op, {&src->first, &*dst})))
          return failure();
        SwitchRanks reached = switchRanks(mm.getGroup(), r, n);
        for (int64_t q = reached.first; q < reached.first + reached.count; ++q)
          if (failed(write(t, op, q, *dst, src->second)))
            return failure();
        return success();
      })
      .Default([&](Operation *) {
        fail(t, op) << "is not a step";
        return failure();
      });
}

void SymbolicExecution::runThread(Thread &t) {
  int32_t self = &t - threads.data();
  while (!hasFailed) {
    Operation *op = t.blockedOn;
    SmallVector<int64_t> dims;
    if (op) {
      dims = t.blockedDims;
    } else {
      op = t.walker.next();
      if (!op) {
        t.done = true;
        return;
      }
      dims.assign(t.walker.dims().begin(), t.walker.dims().end());
    }
    if (auto from = receivesFrom(op)) {
      auto p = peer(t, op, *from, dims);
      if (!p)
        return;
      auto &q = queue(*p, t.rank, t.channel);
      if (q.empty()) {
        t.blockedOn = op;
        t.blockedDims = dims;
        return;
      }
      if (raceCheck)
        for (size_t i = 0; i < t.clock.size(); ++i)
          t.clock[i] = std::max(t.clock[i], q.front().clock[i]);
      Message message = std::move(q.front());
      q.pop_front();
      t.blockedOn = nullptr;
      if (raceCheck)
        ++t.clock[self];
      if (failed(deliver(t, op, dims, *p, message)))
        return;
    } else if (raceCheck) {
      ++t.clock[self];
    }
    if (failed(execute(t, op, dims)))
      return;
    ++t.step;
  }
}

/// How to prove every channel from a few: a channel that runs another's
/// steps with its parts moved by a constant number of elements per memory
/// (input and output alike, parts of equal size), for a collective whose
/// output element e needs input element e + a constant of the rank, from a
/// fixed set of ranks (all_reduce, reduce_scatter, broadcast, reduce,
/// send/recv), is proven by that one. For an all-reduce (every rank ends
/// with every rank's sum, whatever their names), also one that runs
/// another's steps with the ranks renamed by a symmetry of the machine
/// (ChannelShapes::images: NCCL's trees, one per rail).
static std::optional<Proofs> channelProofs(ProgramOp program,
                                           const ccopt::topo::Machine *machine) {
  int64_t C = program.getChannels(), n = program.getRanks();
  if (C == 1 ||
      !llvm::is_contained({CollectiveKind::AllReduce, CollectiveKind::Broadcast,
                           CollectiveKind::Reduce, CollectiveKind::SendRecv,
                           CollectiveKind::ReduceScatter},
                          program.getCollective()))
    return std::nullopt;
  ChannelShapes shapes(program);
  auto classes = shapes.classes();
  // Per channel, its source and the renaming of ranks (-1: none).
  std::vector<std::pair<int64_t, int64_t>> sources(C, {classes.front().first, -1});
  std::vector<std::vector<int64_t>> renamings;
  if (classes.size() > 1) {
    if (program.getCollective() != CollectiveKind::AllReduce || !machine)
      return std::nullopt;
    for (ccopt::topo::RankSymmetry &symmetry : ccopt::topo::rankSymmetries(program, *machine))
      renamings.push_back(std::move(symmetry.ranks));
    auto images = shapes.images(classes, renamings);
    if (!images)
      return std::nullopt;
    sources = std::move(images->sources);
  }
  // Every channel's task per rank (a parametric one stands for all).
  std::vector<std::vector<TaskOp>> taskOf(C, std::vector<TaskOp>(n));
  for (TaskOp task : program.getBody().front().getOps<TaskOp>()) {
    auto &ofRank = taskOf[task.getChannel()];
    for (int64_t r = task.getRank() ? *task.getRank() : 0,
                 e = task.getRank() ? r + 1 : n;
         r < e; ++r) {
      if (ofRank[r])
        return std::nullopt; // a rank with two tasks on one channel
      ofRank[r] = task;
    }
  }
  auto partsOf = [](TaskOp task) {
    SmallVector<PartAttr> parts;
    task.walk([&](Operation *op) {
      forEachInherentAttr(op, [&](Attribute value) {
        if (auto part = dyn_cast_or_null<PartAttr>(value))
          parts.push_back(part);
      });
    });
    return parts;
  };
  // How far one part index lies past another, in elements (memoized: a
  // channel's tasks name few distinct parts).
  llvm::DenseMap<std::pair<Attribute, Attribute>, std::optional<int64_t>> apart;
  auto distance = [&](PartAttr mine, PartAttr theirs) -> std::optional<int64_t> {
    auto [it, fresh] = apart.try_emplace({mine, theirs}, std::nullopt);
    if (!fresh)
      return it->second;
    int64_t count = program.getCount(theirs.getBuffer());
    if (mine.getBuffer() != theirs.getBuffer() || mine.getParts() != theirs.getParts() ||
        count % theirs.getParts())
      return std::nullopt;
    AffineMap index = theirs.getIndex();
    auto by = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(
        mine.getIndex().getResult(0) - index.getResult(0), index.getNumDims(), 0));
    if (by)
      it->second = by.getValue() * (count / theirs.getParts());
    return it->second;
  };
  Proofs proofs(C);
  for (int64_t c = 0; c < C; ++c) {
    auto [source, renaming] = sources[c];
    proofs[c].source = source;
    if (source == c)
      continue;
    std::array<std::optional<int64_t>, 3> moved;
    llvm::DenseSet<std::pair<Operation *, Operation *>> compared;
    for (int64_t r = 0; r < n; ++r) {
      TaskOp theirs = taskOf[source][r];
      TaskOp mine = taskOf[c][renaming < 0 ? r : renamings[renaming][r]];
      if (!mine != !theirs)
        return std::nullopt;
      if (!mine || !compared.insert({mine, theirs}).second)
        continue;
      SmallVector<PartAttr> myParts = partsOf(mine), theirParts = partsOf(theirs);
      if (myParts.size() != theirParts.size())
        return std::nullopt;
      for (auto [part, other] : llvm::zip(myParts, theirParts)) {
        std::optional<int64_t> elements = distance(part, other);
        if (!elements)
          return std::nullopt;
        std::optional<int64_t> &m = moved[memoryIndex(program, other.getBuffer())];
        if (m && *m != *elements)
          return std::nullopt;
        m = elements;
      }
    }
    if (moved[0] && moved[1] && *moved[0] != *moved[1])
      return std::nullopt; // output e would not hold input e
    for (int k = 0; k < 3; ++k)
      proofs[c].shift[k] = moved[k].value_or(0);
  }
  return proofs;
}

/// Whether a run of `b`, moved by `delta`, meets a run of `a` (both sorted
/// and merged).
static bool meet(const Runs &a, const Runs &b, int64_t delta) {
  size_t i = 0;
  for (auto [begin, end] : b) {
    while (i < a.size() && a[i].second <= begin + delta)
      ++i;
    if (i < a.size() && a[i].first < end + delta)
      return true;
  }
  return false;
}

bool SymbolicExecution::proofsProveEveryChannel() {
  int64_t C = proofs->size();
  auto source = [&](int64_t c) { return (*proofs)[c].source; };
  for (int k = 0; k < 3; ++k) {
    // The executed channels' elements, merged.
    for (int64_t c = 0; c < C; ++c) {
      if (source(c) != c)
        continue;
      Runs &runs = touched[c][k];
      llvm::sort(runs);
      Runs merged;
      for (auto [b, e] : runs) {
        if (!merged.empty() && b <= merged.back().second)
          merged.back().second = std::max(merged.back().second, e);
        else
          merged.push_back({b, e});
      }
      runs = std::move(merged);
    }
    // Every channel stays in the memory (as each part index would have to).
    for (int64_t c = 0; c < C; ++c) {
      const Runs &runs = touched[source(c)][k];
      int64_t shift = (*proofs)[c].shift[k];
      if (!runs.empty() && (runs.front().first + shift < 0 ||
                            runs.back().second + shift > program.getCount(BufferKind(k))))
        return false;
    }
    // No two channels meet: each pair of sources misses the other by every
    // difference of two of their channels' shifts.
    std::set<std::tuple<int64_t, int64_t, int64_t>> pairs; // sources, delta
    for (int64_t c = 0; c < C; ++c)
      for (int64_t d = c + 1; d < C; ++d) {
        int64_t a = source(c), b = source(d);
        int64_t delta = (*proofs)[d].shift[k] - (*proofs)[c].shift[k];
        if (a > b || (a == b && delta < 0)) {
          std::swap(a, b);
          delta = -delta;
        }
        pairs.insert({a, b, delta});
      }
    for (auto [a, b, delta] : pairs) {
      const Runs &runsA = touched[a][k], &runsB = touched[b][k];
      if ((a == b && delta == 0 && !runsA.empty()) || meet(runsA, runsB, delta))
        return false;
    }
  }
  // The channels' outputs cover the output.
  int64_t written = 0;
  for (int64_t c = 0; c < C; ++c)
    for (auto [b, e] : touched[source(c)][memoryIndex(program, BufferKind::Output)])
      written += e - b;
  return written == program.getOutputCount();
}

LogicalResult SymbolicExecution::run() {
  if (auto proofs = channelProofs(program, onMachine.machine)) {
    // The sources alone, quietly: anything short of a proof (a failure, or
    // moves that overlap) runs every channel, which reports.
    SymbolicExecution sources(program, raceCheck, onMachine);
    sources.proofs = std::move(proofs);
    sources.touched.resize(channels);
    ScopedDiagnosticHandler quiet(program.getContext(),
                                  [](Diagnostic &) { return success(); });
    if (succeeded(sources.execute()))
      return success();
  }
  return execute();
}

LogicalResult SymbolicExecution::execute() {
  initMemory();
  TaskIndex tasks(program);
  threads.reserve(n * channels);
  for (int64_t rank = 0; rank < n; ++rank)
    for (int64_t ch = 0; ch < channels; ++ch) {
      threads.push_back(Thread{rank, ch, StepWalker(tasks, rank, ch)});
      // A channel another's run proves does not run.
      threads.back().done = proofs && (*proofs)[ch].source != ch;
      if (raceCheck)
        threads.back().clock.assign(n * channels, 0);
    }
  for (int32_t i = 0, e = threads.size(); i < e; ++i)
    runnable.push_back(i);
  while (!runnable.empty() && !hasFailed) {
    Thread &t = threads[runnable.pop_back_val()];
    if (t.done)
      continue;
    if (t.blockedOn) {
      auto p = peerRank(t.blockedOn, *receivesFrom(t.blockedOn), t.blockedDims, &maps);
      if (queue(p, t.rank, t.channel).empty())
        continue;
    }
    runThread(t);
  }
  if (hasFailed)
    return failure();
  if (onMachine.machine)
    for (int64_t rank = 0; rank < n; ++rank)
      if (program.worldRank(rank) >= onMachine.machine->ranks())
        return program.emitError()
               << "rank " << rank << " runs on GPU " << program.worldRank(rank)
               << ", but " << onMachine.machine->name << " has "
               << onMachine.machine->ranks() << " GPUs";
  return checkEnd();
}

/// What rank `rank`'s output element `e` must hold; std::nullopt where the
/// collective leaves it unspecified.
static std::optional<Content> expected(ProgramOp program, int64_t rank, int64_t e) {
  int64_t n = program.getRanks();
  // avg divides once the sum is complete (a no-op for one rank).
  bool finalized = program.getRedop() == ccl::ReductionKind::Avg && n > 1;
  RankSet all{{0, n}};
  auto one = [](int64_t r) { return RankSet{{r, r + 1}}; };
  int64_t in = program.getInputCount(), out = program.getOutputCount();
  switch (program.getCollective()) {
  case CollectiveKind::AllReduce:
    return Content{true, e, all, finalized};
  case CollectiveKind::ReduceScatter:
    return Content{true, rank * out + e, all, finalized};
  case CollectiveKind::AllGather:
    return Content{true, e % in, one(e / in), false};
  case CollectiveKind::Broadcast:
    return Content{true, e, one(*program.getRoot()), false};
  case CollectiveKind::Reduce:
    if (rank != static_cast<int64_t>(*program.getRoot()))
      return std::nullopt;
    return Content{true, e, all, finalized};
  case CollectiveKind::AllToAll: {
    int64_t m = out / n;
    return Content{true, rank * m + e % m, one(e / m), false};
  }
  case CollectiveKind::SendRecv:
    // Schedule rank 0 sends, rank 1 receives (rank_map places them).
    if (rank != 1)
      return std::nullopt;
    return Content{true, e, one(0), false};
  case CollectiveKind::Barrier:
    return std::nullopt;
  }
  return std::nullopt;
}

LogicalResult SymbolicExecution::checkEnd() {
  if (proofs && !proofsProveEveryChannel())
    return failure();
  for (Thread &t : threads) {
    if (!t.done) {
      // Follow who waits for whom to name the cycle.
      std::string chain;
      llvm::raw_string_ostream os(chain);
      llvm::DenseSet<int64_t> seen;
      const Thread *w = &t;
      while (w && w->blockedOn && seen.insert(w->rank).second) {
        int64_t p = peerRank(w->blockedOn, *receivesFrom(w->blockedOn), w->blockedDims);
        os << "rank " << w->rank << " waits for rank " << p << "; ";
        w = &threads[p * channels + w->channel];
      }
      fail(t, t.blockedOn) << (w && w->done ? "waits for a message that is never sent ("
                                            : "circular wait (")
                           << StringRef(chain).drop_back(2) << ")";
      return failure();
    }
  }
  for (auto &[key, q] : queues)
    if (!q.empty()) {
      int64_t ch = key % channels, to = (key / channels) % n, from = key / channels / n;
      program.emitError() << "rank " << from << " sends " << q.size()
                          << " message(s) to rank " << to << " on channel "
                          << ch << " that are never received";
      return failure();
    }
  // A barrier: no rank may leave before it has heard, directly or through
  // others, from every rank (checked with the messages' vector clocks).
  if (program.getCollective() == CollectiveKind::Barrier)
    for (Thread &t : threads)
      for (int64_t other = 0; other < n; ++other)
        if (other != t.rank && t.clock[other * channels] == 0) {
          program.emitError() << "rank " << t.rank << " (channel " << t.channel
                              << ") may leave the barrier before rank " << other
                              << " has arrived";
          return failure();
        }
  int64_t count = program.getOutputCount();
  for (int64_t rank = 0; rank < n; ++rank) {
    Memory &mem = memory(rank, BufferKind::Output);
    // What the rank has heard of when its last channel ends: a write into
    // its output by another rank (through the switch) must be among it.
    std::vector<uint32_t> end(threads.front().clock.size(), 0);
    for (int64_t ch = 0; raceCheck && ch < channels; ++ch)
      for (auto [i, c] : llvm::enumerate(threads[rank * channels + ch].clock))
        end[i] = std::max(end[i], c);
    for (auto &[start, piece] : mem) {
      if (start >= count)
        break;
      const Access &write = piece.write;
      if (raceCheck && write.thread >= 0 && threads[write.thread].rank != rank &&
          end[write.thread] < write.clock) {
        program.emitError() << "rank " << rank << " may end before the write of output["
                            << start << ", " << piece.end << ") by "
                            << describe(write)
                            << " lands (no message orders it first)";
        return failure();
      }
      if (proofs && !touches(BufferKind::Output, start, piece.end))
        continue; // another channel's, proven by the moves
      for (int64_t e : {start, piece.end - 1}) {
        auto want = expected(program, rank, e);
        if (!want)
          continue;
        Content have = piece.content.shifted(e - start);
        if (have.scaled) { // the prescaled sum of every rank is the average
          have.scaled = false;
          have.finalized = have.ranks == want->ranks;
        }
        if (have == *want)
          continue;
        auto diag = program.emitError() << "rank " << rank << " ends with output["
                                        << start << ", " << piece.end << ") ";
        if (!have.defined)
          diag << "never written";
        else
          diag << "holding ranks " << toString(have.ranks) << " of input element "
               << have.origin << (have.finalized ? " (finalized)" : "");
        diag << " where " << ccl::stringifyCollectiveKind(program.getCollective())
             << " needs ranks " << toString(want->ranks) << " of input element "
             << want->origin << (want->finalized ? " (finalized)" : "")
             << " at element " << e;
        return failure();
      }
    }
  }
  return success();
}

struct SchedVerify : ccopt::impl::SchedVerifyBase<SchedVerify> {
  using Base::Base;

  void runOnOperation() override {
    auto machine = ccopt::machineFromOptions(getOperation(), topo, topoFile, nodes);
    if (failed(machine))
      return signalPassFailure();
    getOperation().walk([&](ProgramOp program) {
      MachineCheck onMachine{*machine ? &**machine : nullptr, std::nullopt};
      if (auto links = program->getAttrOfType<StringAttr>("links")) {
        for (auto kind : {ccopt::topo::LinkKind::NvLink, ccopt::topo::LinkKind::Pcie,
                          ccopt::topo::LinkKind::Smp, ccopt::topo::LinkKind::Net})
          if (links.getValue() == toString(kind))
            onMachine.mostRemote = kind;
        if (!onMachine.mostRemote) {
          program.emitError() << "links must be nvlink, pcie, smp or net, got '"
                              << links.getValue() << "'";
          return signalPassFailure();
        }
      }
      // Barriers need the clocks to prove that everyone heard from everyone.
      bool raceCheck = program.getRanks() * program.getChannels() <= raceCheckLimit ||
                       program.getCollective() == ccl::CollectiveKind::Barrier;
      if (failed(SymbolicExecution(program, raceCheck, onMachine).run()))
        signalPassFailure();
    });
  }
};

} // namespace
