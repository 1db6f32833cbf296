//===- StepWalker.cpp - a rank's steps, in order --------------------------===//

#include "dialect/Sched/StepWalker.h"

#include "dialect/Sched/ChannelClasses.h"

#include "mlir/IR/AffineExprVisitor.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::sched;

namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t evaluateExpr(AffineExpr expr, ArrayRef<int64_t> dims) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return cast<AffineConstantExpr>(expr).getValue();
  case AffineExprKind::DimId:
    return dims[cast<AffineDimExpr>(expr).getPosition()];
  case AffineExprKind::SymbolId:
    llvm_unreachable("schedule maps have no symbols");
  default:
    break;
  }
  auto bin = cast<AffineBinaryOpExpr>(expr);
  int64_t lhs = evaluateExpr(bin.getLHS(), dims);
  int64_t rhs = evaluateExpr(bin.getRHS(), dims);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return lhs + rhs;
  case AffineExprKind::Mul:
    return lhs * rhs;
  case AffineExprKind::Mod:
    return lhs - floorDiv(lhs, rhs) * rhs;
  case AffineExprKind::FloorDiv:
    return floorDiv(lhs, rhs);
  case AffineExprKind::CeilDiv:
    return -floorDiv(-lhs, rhs);
  default:
    llvm_unreachable("unknown affine expression");
  }
}

} // namespace

int64_t mlir::sched::evaluate(AffineMap map, ArrayRef<int64_t> dims,
                              MapCache *cache) {
  return cache ? cache->evaluate(map, dims) : evaluateExpr(map.getResult(0), dims);
}

int64_t MapCache::evaluate(AffineMap map, ArrayRef<int64_t> dims) {
  auto [it, inserted] = programs.try_emplace(map);
  SmallVector<Instr, 8> &program = it->second;
  if (inserted)
    map.getResult(0).walk([&](AffineExpr e) { // post-order: operands first
      int64_t value = 0;
      if (auto c = dyn_cast<AffineConstantExpr>(e))
        value = c.getValue();
      else if (auto d = dyn_cast<AffineDimExpr>(e))
        value = d.getPosition();
      program.push_back({e.getKind(), value});
    });
  int64_t stack[16];
  int top = 0;
  for (const Instr &in : program) {
    switch (in.kind) {
    case AffineExprKind::Constant:
      stack[top++] = in.value;
      continue;
    case AffineExprKind::DimId:
      stack[top++] = dims[in.value];
      continue;
    default:
      break;
    }
    int64_t rhs = stack[--top], lhs = stack[top - 1];
    switch (in.kind) {
    case AffineExprKind::Add: stack[top - 1] = lhs + rhs; break;
    case AffineExprKind::Mul: stack[top - 1] = lhs * rhs; break;
    case AffineExprKind::Mod: stack[top - 1] = lhs - floorDiv(lhs, rhs) * rhs; break;
    case AffineExprKind::FloorDiv: stack[top - 1] = floorDiv(lhs, rhs); break;
    case AffineExprKind::CeilDiv: stack[top - 1] = -floorDiv(-lhs, rhs); break;
    default: llvm_unreachable("schedule maps have no symbols");
    }
  }
  return stack[0];
}

std::optional<AffineMap> mlir::sched::receivesFrom(Operation *step) {
  return TypeSwitch<Operation *, std::optional<AffineMap>>(step)
      .Case([](RecvOp o) { return o.getPeer(); })
      .Case([](RecvReduceSendOp o) { return o.getFrom(); })
      .Case([](RecvCopySendOp o) { return o.getFrom(); })
      .Default([](Operation *) { return std::nullopt; });
}

int64_t mlir::sched::peerRank(Operation *step, AffineMap peer,
                              ArrayRef<int64_t> dims, MapCache *cache) {
  return step->getParentOfType<TaskOp>().scheduleRank(evaluate(peer, dims, cache));
}

std::optional<ElementRange> mlir::sched::resolve(ProgramOp program,
                                                 PartAttr part,
                                                 ArrayRef<int64_t> dims,
                                                 MapCache *cache) {
  int64_t index = evaluate(part.getIndex(), dims, cache);
  int64_t parts = part.getParts();
  if (index < 0 || index >= parts)
    return std::nullopt;
  int64_t count = program.getCount(part.getBuffer());
  return ElementRange{part.getBuffer(), partBegin(count, parts, index),
                      partBegin(count, parts, index + 1), index, parts};
}

std::string ElementRange::str() const {
  return (stringifyBufferKind(buffer) + "[" + Twine(begin) + ", " + Twine(end) +
          ") (part " + Twine(part) + " of " + Twine(parts) + ")")
      .str();
}

TaskIndex::TaskIndex(ProgramOp program)
    : channels(program.getChannels()),
      byThread(program.getRanks() * program.getChannels()) {
  int64_t ranks = program.getRanks();
  for (auto task : program.getBody().front().getOps<TaskOp>()) {
    int64_t channel = task.getChannel();
    if (auto rank = task.getRank()) {
      byThread[*rank * channels + channel].push_back(task);
      continue;
    }
    for (int64_t r = 0; r < ranks; ++r)
      byThread[r * channels + channel].push_back(task);
  }
}

StepWalker::StepWalker(const TaskIndex &index, int64_t rank, int64_t channel) {
  llvm::append_range(tasks, index.tasks(rank, channel));
  this->rank = rank;
  dimValues.push_back(rank);
}

bool StepWalker::enterNextTask() {
  if (nextTask == tasks.size())
    return false;
  TaskOp task = tasks[nextTask++];
  dimValues[0] = task.logicalRank(rank);
  Block *body = &task.getBody().front();
  frames.push_back({body, body->begin(), false, 0});
  return true;
}

Operation *StepWalker::next() {
  while (true) {
    if (frames.empty() && !enterNextTask())
      return nullptr;
    Frame &frame = frames.back();
    if (frame.it == frame.block->end()) {
      // End of a body: run the loop again or leave it.
      if (frame.loop && ++dimValues.back() < frame.upper) {
        frame.it = frame.block->begin();
        continue;
      }
      if (frame.loop)
        dimValues.pop_back();
      frames.pop_back();
      continue;
    }
    Operation *op = &*frame.it++;
    if (auto loop = dyn_cast<LoopOp>(op)) {
      int64_t lower = loop.getLower(), upper = loop.getUpper();
      if (upper > lower) {
        Block *body = &loop.getBody().front();
        frames.push_back({body, body->begin(), true, upper});
        dimValues.push_back(lower);
      }
      continue;
    }
    return op;
  }
}

FailureOr<MailboxDemand> mlir::sched::mailboxDemand(ProgramOp program,
                                                    std::string *why,
                                                    const MailboxFold *fold) {
  int64_t n = program.getRanks(), channels = program.getChannels();
  auto fail = [&](const Twine &reason) {
    if (why)
      *why = reason.str();
    return failure();
  };
  MailboxDemand demand;
  // The largest message: the largest part a send names (the parts of a
  // buffer differ by at most an element), from the ops, not every rank's
  // steps.
  program.walk([&](Operation *op) {
    std::optional<PartAttr> dst =
        TypeSwitch<Operation *, std::optional<PartAttr>>(op)
            .Case<SendOp, RecvReduceSendOp, RecvCopySendOp>(
                [](auto s) { return s.getDst(); })
            .Default(std::nullopt);
    if (!dst)
      return;
    Type type = dst->getBuffer() == BufferKind::Scratch ? program.getWireType()
                                                        : program.getElementType();
    int64_t elements = llvm::divideCeil(program.getCount(dst->getBuffer()), dst->getParts());
    demand.largestBytes = std::max(
        demand.largestBytes, elements * int64_t((type.getIntOrFloatBitWidth() + 7) / 8));
  });
  // Per (sender, receiver, channel): data messages sent, and receives that
  // name where the data goes; walked for one channel of each class (alike
  // channels send alike) and, under a fold, for the ranks of one period,
  // each message moved by whole periods so that its receiver is among them.
  llvm::DenseMap<int64_t, int64_t> sent, named;
  auto key = [&](int64_t from, int64_t to, int64_t ch) {
    return (from * n + to) * channels + ch;
  };
  std::vector<int64_t> representative, walked;
  if (fold) {
    walked = fold->channels;
  } else {
    representative = channelRepresentatives(program);
    for (int64_t ch = 0; ch < channels; ++ch)
      if (representative[ch] == ch)
        walked.push_back(ch);
  }
  int64_t period = fold && fold->rankPeriod > 0 ? fold->rankPeriod : n;
  MapCache maps;
  TaskIndex tasks(program);
  for (int64_t rank = 0; rank < period; ++rank)
    for (int64_t ch : walked) {
      StepWalker walker(tasks, rank, ch);
      while (Operation *op = walker.next()) {
        ArrayRef<int64_t> dims = walker.dims();
        auto sends = [&](AffineMap peer) {
          int64_t to = peerRank(op, peer, dims, &maps);
          if (to < 0 || to >= n)
            return;
          int64_t moved = to - to % period;
          int64_t k = key((rank - moved + n) % n, to - moved, ch);
          demand.messages = std::max(demand.messages, ++sent[k]);
        };
        auto receives = [&](AffineMap peer) {
          int64_t from = peerRank(op, peer, dims, &maps);
          if (from >= 0 && from < n)
            ++named[key(from, rank, ch)];
        };
        TypeSwitch<Operation *>(op)
            .Case([&](SendOp s) { sends(s.getPeer()); })
            .Case([&](RecvOp r) {
              if (r.getIntoAttr())
                receives(r.getPeer());
            })
            .Case([&](RecvReduceSendOp s) {
              receives(s.getFrom());
              sends(s.getTo());
            })
            .Case([&](RecvCopySendOp s) {
              receives(s.getFrom());
              sends(s.getTo());
            });
      }
    }
  demand.ranks = n;
  demand.channels = channels;
  std::vector<SmallVector<int32_t, 2>> senders(channels * n);
  for (auto [k, count] : sent) {
    int64_t ch = k % channels, to = k / channels % n, from = k / channels / n;
    senders[ch * n + to].push_back(from);
    if (int64_t got = named.lookup(k); got != count)
      return fail("rank " + Twine(from) + " sends rank " + Twine(to) + " " +
                  Twine(count) + " data message(s) on channel " + Twine(ch) +
                  ", " + Twine(got) +
                  " of them received by a step that names its part");
  }
  for (const auto &from : senders)
    demand.mostSenders = std::max<int64_t>(demand.mostSenders, from.size());
  if (fold)
    return demand;
  for (int64_t ch = 0; ch < channels; ++ch)
    for (int64_t to = 0; to < n; ++to) {
      auto &from = senders[ch * n + to];
      if (representative[ch] == ch)
        llvm::sort(from);
      else
        from = senders[representative[ch] * n + to];
    }
  demand.senders = std::move(senders);
  return demand;
}

LLMailbox MailboxDemand::under(ProtocolKind protocol) const {
  LLMailbox box;
  // NCCL_STEPS slots, as NCCL's LL buffer: beyond, a sender waits for the
  // receiver to consume (each message is consumed in its receiver's program
  // order, so a pipeline keeps flowing) instead of the mailbox growing with
  // the message count.
  box.slots = std::min<int64_t>(messages, kLLSlots);
  if (!box.slots)
    return box;
  int64_t most = mostSenders;
  box.regions = most;
  // A table of at most 256 Ki entries (NCCL's 16 channels of a tree over
  // 4096 ranks, 3 senders each: 192 Ki), else a region for every rank.
  if (most > 1 && channels * ranks * most > (1 << 18)) {
    box.regions = ranks;
  } else if (most > 1 && !senders.empty()) {
    box.senders.reserve(senders.size() * most);
    for (const auto &from : senders) {
      box.senders.append(from.begin(), from.end());
      box.senders.append(most - from.size(), -1);
    }
  }
  if (protocol == ProtocolKind::LL128) {
    box.lineBytes = 128;
    box.lines = std::max<int64_t>(1, (largestBytes + 119) / 120);
  } else {
    // cc_ll_put writes 8 data bytes (two lines) at a time.
    box.lines = std::max<int64_t>(2, (largestBytes + 7) / 8 * 2);
  }
  return box;
}

FailureOr<LLMailbox> mlir::sched::llMailbox(ProgramOp program,
                                            ProtocolKind protocol,
                                            std::string *why) {
  auto demand = mailboxDemand(program, why);
  if (failed(demand))
    return failure();
  return demand->under(protocol);
}
