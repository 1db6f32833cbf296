//===- LowerToSched.cpp - ccl-lower-to-sched ------------------------------===//
//
// Each collective becomes a sched.program next to its ccl.program, named on
// the collective, built by the algorithm chosen for it (Collectives.h).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Collectives.h"
#include "passes/NcclBaseline.h"
#include "topology/Rings.h"

#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include "mlir/IR/Builders.h"

namespace ccopt {
#define GEN_PASS_DEF_CCLLOWERTOSCHED
#include "passes/Passes.h.inc"
} // namespace ccopt

using namespace mlir;
using namespace mlir::sched;

namespace {

struct LowerToSched : ccopt::impl::CclLowerToSchedBase<LowerToSched> {
  using Base::Base;
  std::optional<ccopt::topo::Machine> machine;
  Operation *insertAfter = nullptr;

  void runOnOperation() override {
    if (chunks < 0 || channels < 0) {
      getOperation().emitError("chunks and channels must not be negative");
      return signalPassFailure();
    }
    auto loaded = ccopt::machineFromOptions(getOperation(), topo, topoFile, nodes);
    if (failed(loaded))
      return signalPassFailure();
    machine = std::move(*loaded);
    getOperation().walk([&](ccl::ProgramOp program) {
      int index = 0;
      insertAfter = program; // schedules follow their program, in order
      for (Operation &op : llvm::make_early_inc_range(program.getBody().front())) {
        if (isa<ccl::GroupOp, ccl::BufferOp, ccl::BucketOp, ccl::ReadyOp>(op))
          continue;
        if (op.hasAttr("schedule")) {
          ++index;
          continue;
        }
        if (auto barrier = dyn_cast<ccl::BarrierOp>(op)) {
          lowerBarrier(program, barrier, index++);
          continue;
        }
        if (isa<ccl::RecvOp>(op))
          continue; // lowered with its send
        if (auto send = dyn_cast<ccl::SendOp>(op)) {
          lowerSendRecv(program, send, index++);
          continue;
        }
        lower(program, &op, index++);
      }
    });
  }

  /// A send and its recv (the k-th of each between the same ranks, as the
  /// ccl verifier pairs them) become one program on the two ranks.
  void lowerSendRecv(ccl::ProgramOp program, ccl::SendOp send, int index) {
    int k = 0;
    auto same = [&](auto op) {
      return op.getFrom() == send.getFrom() && op.getTo() == send.getTo() &&
             op.getGroupAttr() == send.getGroupAttr();
    };
    for (auto other : program.getBody().front().getOps<ccl::SendOp>()) {
      if (other == send)
        break;
      k += same(other);
    }
    ccl::RecvOp recv;
    for (auto candidate : program.getBody().front().getOps<ccl::RecvOp>())
      if (same(candidate) && k-- == 0) {
        recv = candidate;
        break;
      }
    auto collective = ccopt::describeCollective(send);
    if (failed(collective))
      return signalPassFailure();
    // Pieces of ~512 KiB (NCCL's Simple step), or the selection's.
    int64_t pieceBytes = 512 << 10;
    int64_t numChunks =
        chunks ? chunks : std::max<int64_t>(1, (collective->bytes + pieceBytes - 1) / pieceBytes);
    if (auto attr = send->getAttrOfType<IntegerAttr>("chunks"))
      numChunks = attr.getInt();
    OpBuilder b(program->getContext());
    b.setInsertionPointAfter(insertAfter);
    std::string name = (program.getSymName() + "_send_recv_" + Twine(index)).str();
    insertAfter = ccopt::buildCollective(b, send.getLoc(), name, *collective,
                                         nullptr, "direct", numChunks, 1);
    applyProtocol(send, insertAfter);
    auto ref = FlatSymbolRefAttr::get(b.getContext(), name);
    send->setAttr("schedule", ref);
    recv->setAttr("schedule", ref);
  }

  void lowerBarrier(ccl::ProgramOp program, ccl::BarrierOp op, int index) {
    auto n = ccl::participantCount(op, op.getGroupAttr());
    if (!n) {
      op.emitError("the number of ranks is unknown: run ccl-assign-world first");
      return signalPassFailure();
    }
    OpBuilder b(program->getContext());
    b.setInsertionPointAfter(insertAfter);
    std::string name = (program.getSymName() + "_barrier_" + Twine(index)).str();
    auto schedule = ccopt::buildDisseminationBarrier(b, op.getLoc(), name, *n);
    if (FlatSymbolRefAttr group = op.getGroupAttr())
      schedule.setRankMapAttr(b.getDenseI64ArrayAttr(
          cast<ccl::GroupOp>(SymbolTable::lookupSymbolIn(program, group)).getRanks()));
    insertAfter = schedule;
    op->setAttr("schedule", FlatSymbolRefAttr::get(b.getContext(), name));
  }

  /// Lowers one collective (input -> output among the participants) with
  /// the algorithm chosen for it, or the default one for its kind.
  void lower(ccl::ProgramOp program, Operation *op, int index) {
    auto collective = ccopt::describeCollective(op);
    if (failed(collective))
      return signalPassFailure();
    int64_t n = collective->shape.ranks;
    // Automatic: NCCL's channel count on the machine, but no channel with
    // less than 64 KiB per ring part (more would only add steps); pieces of
    // ~512 KiB (NCCL's Simple step) so that the ring pipelines.
    int64_t ringPartBytes = collective->bytes / n;
    int64_t numChannels =
        channels ? channels
                 : std::clamp<int64_t>(ringPartBytes / (64 << 10), 1,
                                       machine ? ccopt::ncclChannels(*machine) : 1);
    int64_t pieceBytes = 512 << 10;
    int64_t perPart = ringPartBytes / numChannels;
    int64_t numChunks = chunks ? chunks : std::max<int64_t>(1, (perPart + pieceBytes - 1) / pieceBytes);
    // ccl-select-algorithm's choice (or the user's, on the op or as the
    // pass option), with its channels and chunks when it names them.
    auto chosen = op->getAttrOfType<StringAttr>("algorithm");
    if (!chosen && !algorithm.empty() && isa<ccl::AllReduceOp>(op))
      chosen = StringAttr::get(op->getContext(), algorithm);
    if (auto attr = op->getAttrOfType<IntegerAttr>("channels"))
      numChannels = attr.getInt();
    if (auto attr = op->getAttrOfType<IntegerAttr>("chunks"))
      numChunks = attr.getInt();
    StringRef algo = chosen ? chosen.getValue()
                            : ccopt::algorithmsFor(collective->kind).front();
    const ccopt::topo::Machine *onMachine = machine ? &*machine : nullptr;
    std::string unsupported = ccopt::algorithmUnsupported(*collective, algo, onMachine);
    if (!unsupported.empty()) {
      op->emitError(unsupported);
      return signalPassFailure();
    }
    OpBuilder b(program->getContext());
    b.setInsertionPointAfter(insertAfter);
    std::string name = (program.getSymName() + "_" +
                        op->getName().stripDialect() + "_" + Twine(index))
                           .str();
    auto beside = ccopt::besideOf(op);
    if (failed(beside))
      return signalPassFailure();
    std::string why;
    auto built = ccopt::buildCollective(b, op->getLoc(), name, *collective, onMachine, algo,
                                        numChunks, numChannels, *beside, why);
    if (failed(built)) {
      op->emitError("beside: ") << why;
      return signalPassFailure();
    }
    insertAfter = *built;
    applyProtocol(op, insertAfter);
    op->setAttr("schedule", FlatSymbolRefAttr::get(b.getContext(), name));
  }

  /// The collective's `protocol` ("simple", "ll" or "ll128", ccl-select-algorithm's
  /// choice or the user's) on the program built for it.
  void applyProtocol(Operation *op, Operation *built) {
    auto attr = op->getAttrOfType<StringAttr>("protocol");
    if (!attr)
      return;
    auto kind = symbolizeProtocolKind(attr.getValue());
    if (!kind) {
      op->emitError("unknown protocol '") << attr.getValue()
                                          << "' (expected simple, ll or ll128)";
      return signalPassFailure();
    }
    if (*kind != ProtocolKind::Simple)
      cast<ProgramOp>(built).setProtocol(*kind);
  }
};

} // namespace
