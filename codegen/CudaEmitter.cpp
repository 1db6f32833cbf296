//===- CudaEmitter.cpp - sched programs to CUDA C++ -----------------------===//
//
// A plain op-by-op printer: every step becomes a block of statements over
// the device primitives; loops stay loops and index maps become integer
// expressions of the rank r and loop indices i1, i2, ..., so the kernel is as
// compact as the schedule.
//
// Protocols. Simple (the default): a send writes the data into the peer's
// part (cc_copy / cc_reduce into cc_peer_buf), then cc_post_send fences and
// raises the peer's flag; a receive waits for the flag (cc_wait_recv) and
// reads the part in place. LL (`protocol = ll` on the program): a send
// packs the data, converted to the type of the part it is meant for, into
// 8-byte lines {4 data bytes, flag} of the receiver's mailbox
// (cc_ll_send / cc_ll_send_reduce: no fence, no separate flag write); the
// receiving step polls the lines and copies them into that part
// (cc_ll_recv: `into` of a recv, `recvd` of a fused step), after which the
// step reads it as under Simple. LL128 (`protocol = ll128`) prints the same
// calls over a cc_ll128_box, whose overloads write 128-byte lines of 120 data
// bytes and a flag word. Signals stay flags under every protocol.
//
//===----------------------------------------------------------------------===//

#include "codegen/CudaEmitter.h"
#include "codegen/SharedBodies.h"

#include "dialect/Sched/StepWalker.h"

#include "mlir/Support/IndentedOstream.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::sched;

namespace {

/// C type of a buffer element type, or nullptr.
const char *cType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (type.isF16())
    return "cc_f16";
  if (type.isBF16())
    return "cc_bf16";
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer)
    return nullptr;
  bool isUnsigned = integer.isUnsigned();
  switch (integer.getWidth()) {
  case 8:
    return isUnsigned ? "unsigned char" : "signed char";
  case 32:
    return isUnsigned ? "unsigned" : "int";
  case 64:
    return isUnsigned ? "unsigned long long" : "long long";
  default:
    return nullptr;
  }
}

const char *opStruct(ccl::ReductionKind kind) {
  switch (kind) {
  case ccl::ReductionKind::Sum:
  case ccl::ReductionKind::Avg: // a sum, divided where it is finalized
    return "cc_op_sum";
  case ccl::ReductionKind::Prod:
    return "cc_op_prod";
  case ccl::ReductionKind::Min:
    return "cc_op_min";
  case ccl::ReductionKind::Max:
    return "cc_op_max";
  }
  llvm_unreachable("unknown reduction");
}

const char *bufferEnum(BufferKind kind) {
  switch (kind) {
  case BufferKind::Input:
    return "CC_BUF_INPUT";
  case BufferKind::Output:
    return "CC_BUF_OUTPUT";
  case BufferKind::Scratch:
    return "CC_BUF_SCRATCH";
  }
  llvm_unreachable("unknown buffer");
}

/// The header's multicast key: 1 where the switch reaches every rank, the
/// ranks per multicast object where its steps reach blocks of them.
std::string multicastKey(ProgramOp program) {
  if (!program.getMulticast())
    return "";
  int64_t block = multimemBlock(program);
  return " multicast=" + std::to_string(block && block < program.getRanks() ? block : 1);
}

/// A multimem step's last argument where it reaches a block of ranks (its
/// `group`); none where it reaches every rank.
std::string groupArgument(std::optional<uint64_t> ranks) {
  return ranks ? ", " + std::to_string(*ranks) : "";
}

/// Element type name used in the kernel for a buffer: scratch holds wire data.
const char *bufferType(BufferKind kind) {
  return kind == BufferKind::Scratch ? "W" : "T";
}

/// An affine expression over (r, i1, i2, ...) as C; symbol j is column j of
/// a shared body's row k.
std::string cExpr(AffineExpr expr) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return std::to_string(cast<AffineConstantExpr>(expr).getValue()) + "LL";
  case AffineExprKind::DimId: {
    unsigned pos = cast<AffineDimExpr>(expr).getPosition();
    return pos == 0 ? "r" : "i" + std::to_string(pos);
  }
  case AffineExprKind::SymbolId:
    return "k[" + std::to_string(cast<AffineSymbolExpr>(expr).getPosition()) + "]";
  default:
    break;
  }
  auto bin = cast<AffineBinaryOpExpr>(expr);
  std::string lhs = cExpr(bin.getLHS()), rhs = cExpr(bin.getRHS());
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return "(" + lhs + " + " + rhs + ")";
  case AffineExprKind::Mul:
    return "(" + lhs + " * " + rhs + ")";
  case AffineExprKind::Mod:
    return "cc_mod(" + lhs + ", " + rhs + ")";
  case AffineExprKind::FloorDiv:
    return "cc_floordiv(" + lhs + ", " + rhs + ")";
  case AffineExprKind::CeilDiv:
    return "cc_ceildiv(" + lhs + ", " + rhs + ")";
  default:
    llvm_unreachable("unknown affine expression");
  }
}

class KernelPrinter {
public:
  KernelPrinter(ProgramOp program, raw_indented_ostream &os)
      : program(program), os(os) {}

  LogicalResult print();

private:
  void printBlock(Block &block);
  void printStep(Operation *op);
  /// The tasks of shared body `index`: one body over each one's row.
  void printSharedBody(size_t index);
  /// The map of `attribute` of `op` (a step's peer or part, a loop's
  /// bounds), with a shared body's constants as symbols.
  AffineMap mapOf(Operation *op, Attribute attribute, AffineMap map) {
    if (!shared)
      return map;
    return shared->maps.at({op, attribute});
  }
  /// Declares `<name>_b` (first element) and `<name>_n` (count) of a part.
  void declarePart(StringRef name, PartAttr part);
  std::string local(StringRef name, PartAttr part) {
    return (stringifyBufferKind(part.getBuffer()) + " + " + name + "_b").str();
  }
  std::string remote(StringRef peer, StringRef name, PartAttr part) {
    return ("cc_peer_buf<" + Twine(bufferType(part.getBuffer())) +
            ">(args, rank, " + peer + ", " + bufferEnum(part.getBuffer()) +
            ") + " + name + "_b")
        .str();
  }
  void printReduce(StringRef dst, StringRef dst2, StringRef lhs, StringRef rhs,
                   StringRef count, bool finalize, StringRef opOverride = "");
  /// dst = local part `src` (its buffer `kind`): a conversion, divided by
  /// the ranks when a prescaled program reads its input.
  void printCopy(StringRef dst, StringRef src, BufferKind kind, StringRef count);
  /// A reduction of a received part and a local one; a prescaled program
  /// divides what it reads from the input (the local operand).
  void printReduceLocal(StringRef dst, StringRef dst2, StringRef received,
                        StringRef local, BufferKind localKind, StringRef count,
                        bool finalize);
  bool prescaled(BufferKind kind) {
    return program.getPrescale() && kind == BufferKind::Input;
  }
  /// Reduction operators of a prescaled program (avg over the ranks).
  void printPrescaleOps();

  std::string tableName(int task, StringRef what) {
    return (ccopt::kernelName(program) + "_task" + Twine(task) + "_" + what).str();
  }
  /// The varying constants of shared body `index`, a row per task.
  std::string sharedTableName(size_t index) {
    return ccopt::kernelName(program) + "_shared" + std::to_string(index);
  }
  /// Who has which region of the LL mailbox (LLMailbox::senders).
  std::string sendersTableName() {
    return ccopt::kernelName(program) + "_ll_senders";
  }
  /// Rank orders of tasks with a rank_map and the mailbox's regions, as
  /// constant tables.
  void printTables();
  /// One `// ccopt-schedule key=value ...` line: what a launcher needs to
  /// know about the kernel, read by runtime/ccrt (no MLIR on a GPU machine).
  void printMetadata();

  /// Under LL or LL128: the message `from` sends, copied out of the mailbox into
  /// local part `name` (declared).
  void printLLRecv(StringRef name, PartAttr part) {
    os << "cc_ll_recv(args, llbox, rank, ch, from, " << local(name, part) << ", "
       << name << "_n);\n";
  }
  /// Under LL or LL128: `src` (local, of buffer `kind`) converted to the type of
  /// part `dst` into `to`'s mailbox, prescaled like printCopy.
  void printLLSendCopy(PartAttr dst, StringRef src, BufferKind kind,
                       StringRef count) {
    const char *type = bufferType(dst.getBuffer());
    if (!prescaled(kind)) {
      os << "cc_ll_send<" << type << ">(args, llbox, rank, ch, to, " << src
         << ", " << count << ");\n";
      return;
    }
    os << "cc_ll_send_reduce<" << ccopt::kernelName(program) << "_scaled_copy, "
       << type << ">(args, llbox, rank, ch, to, " << src << ", " << src << ", "
       << count << ", 1LL);\n";
  }
  /// Under LL or LL128: received (op) local into `to`'s mailbox, as printReduceLocal.
  void printLLSendReduce(PartAttr dst, StringRef received, StringRef local,
                         BufferKind localKind, StringRef count, bool finalize) {
    ccl::ReductionKind kind = *program.getRedop();
    bool divide = finalize && kind == ccl::ReductionKind::Avg;
    std::string op = prescaled(localKind)
                         ? ccopt::kernelName(program) + "_scaled_sum"
                         : std::string(opStruct(kind));
    os << "cc_ll_send_reduce<" << op << ", " << bufferType(dst.getBuffer())
       << ">(args, llbox, rank, ch, to, " << received << ", " << local << ", "
       << count << ", " << (divide ? std::to_string(program.getRanks()) : "1")
       << "LL);\n";
  }
  /// LL or LL128: data goes through the receiver's mailbox.
  bool isLL() { return usesMailbox(program.getProtocolKind()); }

  ProgramOp program;
  raw_indented_ostream &os;
  unsigned depth = 0;
  LLMailbox mailbox; // under LL or LL128
  std::string taskTable; // order table of the task being printed, if any
  std::vector<ccopt::SharedBody> bodies;
  std::vector<int64_t> firstRows; // per body, its first task's row
  const ccopt::SharedBody *shared = nullptr; // the body being printed, if any
  Operation *step = nullptr;                 // the step being printed
};

void KernelPrinter::printTables() {
  if (!mailbox.senders.empty()) {
    os << "CC_TABLE int " << sendersTableName() << "[] = {";
    llvm::interleaveComma(mailbox.senders, os);
    os << "};\n";
  }
  llvm::DenseSet<Operation *> inBodies; // their orders are the bodies' tables
  for (const ccopt::SharedBody &body : bodies)
    inBodies.insert(body.tasks.begin(), body.tasks.end());
  // `<prefix>_order`: rank orders, a row of n each; `<prefix>_position`:
  // where each rank is in its row's order.
  int64_t n = program.getRanks();
  auto printOrders = [&](const std::string &prefix, ArrayRef<TaskOp> tasks) {
    std::vector<int64_t> order, position(tasks.size() * n);
    for (auto [row, task] : llvm::enumerate(tasks))
      for (auto [at, r] : llvm::enumerate(*TaskOp(task).getRankMap())) {
        order.push_back(r);
        position[row * n + r] = at;
      }
    os << "CC_TABLE int " << prefix << "_order[] = {";
    llvm::interleaveComma(order, os);
    os << "};\n";
    os << "CC_TABLE int " << prefix << "_position[] = {";
    llvm::interleaveComma(position, os);
    os << "};\n";
  };
  int taskIndex = 0;
  for (auto task : program.getBody().front().getOps<TaskOp>()) {
    if (task.getRankMap() && !inBodies.contains(task))
      printOrders(ccopt::kernelName(program) + "_task" + std::to_string(taskIndex), task);
    ++taskIndex;
  }
  if (bodies.empty())
    return;
  // Per channel and rank, its task's row (its body's rows are consecutive).
  std::vector<int64_t> rows(program.getChannels() * n, -1);
  for (auto [index, body] : llvm::enumerate(bodies)) {
    for (auto [i, task] : llvm::enumerate(body.tasks)) {
      int64_t first = task.getChannel() * n;
      if (auto rank = task.getRank())
        rows[first + *rank] = firstRows[index] + i;
      else
        std::fill_n(rows.begin() + first, n, firstRows[index] + i);
    }
    if (TaskOp(body.tasks.front()).getRankMap())
      printOrders(sharedTableName(index), body.tasks);
    if (body.width == 0)
      continue;
    bool narrow = llvm::all_of(body.table, [](int64_t value) {
      return value >= INT32_MIN && value <= INT32_MAX;
    });
    os << "CC_TABLE " << (narrow ? "int " : "long long ")
       << sharedTableName(index) << "[] = {";
    llvm::interleaveComma(body.table, os);
    os << "};\n";
  }
  os << "CC_TABLE int " << ccopt::kernelName(program) << "_rows[] = {";
  llvm::interleaveComma(rows, os);
  os << "};\n";
}

void KernelPrinter::printSharedBody(size_t index) {
  const ccopt::SharedBody &body = bodies[index];
  int64_t firstRow = firstRows[index];
  os << "if (row >= " << firstRow << " && row < "
     << firstRow + int64_t(body.tasks.size()) << ") { // "
     << body.tasks.size() << " tasks alike\n";
  os.indent();
  if (body.width > 0)
    os << "const auto* const k = " << sharedTableName(index) << " + (row - "
       << firstRow << ") * " << body.width << ";\n";
  taskTable.clear();
  if (TaskOp(body.tasks.front()).getRankMap()) {
    // Positions in the row's rank order: r is this rank's, the order maps back.
    std::string rowStart = "(row - " + std::to_string(firstRow) + ") * " +
                           std::to_string(program.getRanks()) + "LL";
    os << "const int* const order = " << sharedTableName(index) << "_order + "
       << rowStart << ";\n";
    os << "const long long r = " << sharedTableName(index) << "_position["
       << rowStart << " + rank];\n";
    taskTable = "order";
  } else {
    os << "const long long r = rank;\n";
  }
  shared = &body;
  printBlock(TaskOp(body.tasks.front()).getBody().front());
  shared = nullptr;
  os.unindent();
  os << "}\n";
}

void KernelPrinter::printMetadata() {
  auto redop = program.getRedop();
  auto root = program.getRoot();
  os << "// ccopt-schedule kernel=" << ccopt::kernelName(program)
     << " collective=" << ccl::stringifyCollectiveKind(program.getCollective())
     << " redop=" << (redop ? ccl::stringifyReductionKind(*redop) : "none")
     << " ranks=" << program.getRanks() << " channels=" << program.getChannels()
     << " element=" << program.getElementType()
     << " wire=" << program.getWireType()
     << " input=" << program.getInputCount()
     << " output=" << program.getOutputCount()
     << " scratch=" << program.getScratchCount()
     << " in_place=" << (program.getInPlace() ? 1 : 0)
     << " root=" << (root ? int64_t(*root) : int64_t(-1)) << " rank_map=";
  if (auto map = program.getRankMap())
    llvm::interleave(*map, os, ",");
  else
    os << "-";
  os << " algorithm=" << program.getAlgorithm()
     << " protocol=" << stringifyProtocolKind(program.getProtocolKind())
     << " mailbox=" << mailbox.bytes(program)
     << multicastKey(program) << "\n";
}

void KernelPrinter::declarePart(StringRef name, PartAttr part) {
  int64_t count = program.getCount(part.getBuffer());
  AffineMap map = mapOf(step, part, ccopt::partMap(part));
  std::string index = cExpr(map.getResult(0)), parts = cExpr(map.getResult(1));
  os << "const long long " << name << "_i = " << index << ";\n";
  os << "const long long " << name << "_b = cc_part_begin(" << count << "LL, " << parts
     << ", " << name << "_i);\n";
  os << "const long long " << name << "_n = cc_part_begin(" << count << "LL, " << parts
     << ", " << name << "_i + 1) - " << name << "_b;\n";
}

void KernelPrinter::printPrescaleOps() {
  if (!program.getPrescale())
    return;
  std::string name = ccopt::kernelName(program);
  int64_t n = program.getRanks();
  // cc_reduce applies OP in the accumulation type (float for 16-bit wire
  // types): the division happens before the narrow conversion.
  os << "// avg, divided before it is sent: input / " << n << "\n";
  os << "struct " << name << "_scaled_copy { template <class T> static "
     << "CC_DEVICE T apply(T a, T) { return a / (T)" << n << "; } };\n";
  os << "struct " << name << "_scaled_sum { template <class T> static "
     << "CC_DEVICE T apply(T a, T b) { return a + b / (T)" << n << "; } };\n";
}

void KernelPrinter::printCopy(StringRef dst, StringRef src, BufferKind kind,
                              StringRef count) {
  if (!prescaled(kind)) {
    os << "cc_copy(" << dst << ", " << src << ", " << count << ");\n";
    return;
  }
  os << "cc_reduce<" << ccopt::kernelName(program) << "_scaled_copy>(" << dst
     << ", nullptr, " << src << ", " << src << ", " << count << ", 1LL);\n";
}

void KernelPrinter::printReduceLocal(StringRef dst, StringRef dst2,
                                     StringRef received, StringRef local,
                                     BufferKind localKind, StringRef count,
                                     bool finalize) {
  if (prescaled(localKind))
    return printReduce(dst, dst2, received, local, count, finalize,
                       ccopt::kernelName(program) + "_scaled_sum");
  printReduce(dst, dst2, received, local, count, finalize);
}

void KernelPrinter::printReduce(StringRef dst, StringRef dst2, StringRef lhs,
                                StringRef rhs, StringRef count, bool finalize,
                                StringRef opOverride) {
  ccl::ReductionKind kind = *program.getRedop();
  bool divide = finalize && kind == ccl::ReductionKind::Avg;
  os << "cc_reduce<" << (opOverride.empty() ? StringRef(opStruct(kind)) : opOverride)
     << ">(" << dst << ", " << dst2 << ", "
     << lhs << ", " << rhs << ", " << count << ", "
     << (divide ? std::to_string(program.getRanks()) : "1") << "LL);\n";
}

void KernelPrinter::printStep(Operation *op) {
  auto peer = [&](StringRef name, AffineMapAttr map) {
    std::string position = cExpr(mapOf(step, map, map.getValue()).getResult(0));
    os << "const long long " << name << " = "
       << (taskTable.empty() ? position : taskTable + "[" + position + "]")
       << ";\n";
  };
  step = op;
  os << "{ // " << op->getName().stripDialect() << "\n";
  os.indent();
  TypeSwitch<Operation *>(op)
      .Case([&](CopyOp copy) {
        declarePart("src", copy.getSrc());
        declarePart("dst", copy.getDst());
        printCopy(local("dst", copy.getDst()), local("src", copy.getSrc()),
                  copy.getSrc().getBuffer(), "src_n");
      })
      .Case([&](ReduceOp reduce) {
        declarePart("lhs", reduce.getLhs());
        declarePart("rhs", reduce.getRhs());
        declarePart("dst", reduce.getDst());
        // A prescaled input operand goes second (sums commute).
        bool swap = prescaled(reduce.getLhs().getBuffer());
        PartAttr first = swap ? reduce.getRhs() : reduce.getLhs();
        PartAttr second = swap ? reduce.getLhs() : reduce.getRhs();
        printReduceLocal(local("dst", reduce.getDst()),
                         std::string("(") + bufferType(reduce.getDst().getBuffer()) +
                             "*)nullptr",
                         local(swap ? "rhs" : "lhs", first),
                         local(swap ? "lhs" : "rhs", second), second.getBuffer(),
                         "dst_n", reduce.getFinalize());
      })
      .Case([&](SendOp send) {
        peer("to", send.getPeerAttr());
        declarePart("src", send.getSrc());
        declarePart("dst", send.getDst());
        PartAttr store = send.getStoreAttr();
        if (store) {
          declarePart("store", store);
          printCopy(local("store", store), local("src", send.getSrc()),
                    send.getSrc().getBuffer(), "src_n");
        }
        if (isLL())
          return printLLSendCopy(send.getDst(), local("src", send.getSrc()),
                                 send.getSrc().getBuffer(), "src_n");
        printCopy(remote("to", "dst", send.getDst()), local("src", send.getSrc()),
                  send.getSrc().getBuffer(), "src_n");
        os << "cc_post_send(args, rank, ch, to);\n";
      })
      .Case([&](RecvOp recv) {
        peer("from", recv.getPeerAttr());
        if (isLL() && recv.getIntoAttr()) {
          declarePart("into", recv.getIntoAttr());
          return printLLRecv("into", recv.getIntoAttr());
        }
        os << "cc_wait_recv(args, rank, ch, from);\n";
      })
      .Case([&](RecvReduceSendOp rrs) {
        peer("from", rrs.getFromAttr());
        peer("to", rrs.getToAttr());
        declarePart("recvd", rrs.getRecvd());
        declarePart("local", rrs.getLocal());
        declarePart("dst", rrs.getDst());
        PartAttr store = rrs.getStoreAttr();
        if (store)
          declarePart("store", store);
        if (isLL()) {
          printLLRecv("recvd", rrs.getRecvd());
          printLLSendReduce(rrs.getDst(), local("recvd", rrs.getRecvd()),
                            local("local", rrs.getLocal()),
                            rrs.getLocal().getBuffer(), "recvd_n",
                            rrs.getFinalize());
          if (store)
            printReduceLocal(local("store", store),
                             std::string("(") + bufferType(store.getBuffer()) +
                                 "*)nullptr",
                             local("recvd", rrs.getRecvd()),
                             local("local", rrs.getLocal()),
                             rrs.getLocal().getBuffer(), "recvd_n",
                             rrs.getFinalize());
          return;
        }
        os << "cc_wait_recv(args, rank, ch, from);\n";
        std::string storePtr =
            store ? local("store", store)
                  : std::string("(") + bufferType(rrs.getDst().getBuffer()) + "*)nullptr";
        // The remote write and the local store share one element type.
        if (store && store.getBuffer() != rrs.getDst().getBuffer() &&
            (store.getBuffer() == BufferKind::Scratch ||
             rrs.getDst().getBuffer() == BufferKind::Scratch)) {
          printReduceLocal(remote("to", "dst", rrs.getDst()), "(W*)nullptr",
                           local("recvd", rrs.getRecvd()),
                           local("local", rrs.getLocal()),
                           rrs.getLocal().getBuffer(), "recvd_n", rrs.getFinalize());
          printReduceLocal(storePtr, "(T*)nullptr", local("recvd", rrs.getRecvd()),
                           local("local", rrs.getLocal()),
                           rrs.getLocal().getBuffer(), "recvd_n", rrs.getFinalize());
        } else {
          printReduceLocal(remote("to", "dst", rrs.getDst()), storePtr,
                           local("recvd", rrs.getRecvd()),
                           local("local", rrs.getLocal()),
                           rrs.getLocal().getBuffer(), "recvd_n", rrs.getFinalize());
        }
        os << "cc_post_send(args, rank, ch, to);\n";
      })
      .Case([&](SignalOp signal) {
        peer("to", signal.getPeerAttr());
        os << "cc_post_send(args, rank, ch, to);\n";
      })
      .Case([&](MultimemReduceOp mm) {
        declarePart("src", mm.getSrc());
        declarePart("dst", mm.getDst());
        ccl::ReductionKind kind = *program.getRedop();
        bool divide = mm.getFinalize() && kind == ccl::ReductionKind::Avg;
        os << "cc_multimem_reduce<" << opStruct(kind) << ">(args, rank, "
           << bufferEnum(mm.getSrc().getBuffer()) << ", "
           << local("dst", mm.getDst()) << ", src_b, src_n, "
           << (divide ? std::to_string(program.getRanks()) : "1") << "LL"
           << groupArgument(mm.getGroup()) << ");\n";
      })
      .Case([&](MultimemStoreOp mm) {
        declarePart("src", mm.getSrc());
        declarePart("dst", mm.getDst());
        os << "cc_multimem_store(args, rank, " << bufferEnum(mm.getDst().getBuffer())
           << ", dst_b, "
           << local("src", mm.getSrc()) << ", src_n" << groupArgument(mm.getGroup()) << ");\n";
      })
      .Case([&](RecvCopySendOp rcs) {
        peer("from", rcs.getFromAttr());
        peer("to", rcs.getToAttr());
        declarePart("recvd", rcs.getRecvd());
        declarePart("dst", rcs.getDst());
        PartAttr store = rcs.getStoreAttr();
        if (store)
          declarePart("store", store);
        if (isLL()) {
          printLLRecv("recvd", rcs.getRecvd());
          printLLSendCopy(rcs.getDst(), local("recvd", rcs.getRecvd()),
                          rcs.getRecvd().getBuffer(), "recvd_n");
          if (store)
            printCopy(local("store", store), local("recvd", rcs.getRecvd()),
                      rcs.getRecvd().getBuffer(), "recvd_n");
          return;
        }
        os << "cc_wait_recv(args, rank, ch, from);\n";
        printCopy(remote("to", "dst", rcs.getDst()), local("recvd", rcs.getRecvd()),
                  rcs.getRecvd().getBuffer(), "recvd_n");
        // Kept locally too (e.g. wire-typed scratch into the output).
        if (store)
          printCopy(local("store", store), local("recvd", rcs.getRecvd()),
                    rcs.getRecvd().getBuffer(), "recvd_n");
        os << "cc_post_send(args, rank, ch, to);\n";
      });
  os.unindent();
  os << "}\n";
}

void KernelPrinter::printBlock(Block &block) {
  for (Operation &op : block) {
    if (auto loop = dyn_cast<LoopOp>(op)) {
      std::string iv = "i" + std::to_string(++depth);
      AffineMap bounds = mapOf(loop, loop.getUpperAttr(), ccopt::loopBounds(loop));
      auto bound = [&](unsigned which) { // a shared body's may differ by task
        AffineExpr expr = bounds.getResult(which);
        auto constant = dyn_cast<AffineConstantExpr>(expr);
        return constant ? std::to_string(constant.getValue()) : cExpr(expr);
      };
      os << "for (long long " << iv << " = " << bound(0) << "; " << iv << " < " << bound(1)
         << "; ++" << iv << ") {\n";
      os.indent();
      printBlock(loop.getBody().front());
      os.unindent();
      os << "}\n";
      --depth;
      continue;
    }
    printStep(&op);
  }
}

LogicalResult KernelPrinter::print() {
  const char *elementType = cType(program.getElementType());
  const char *wireType = cType(program.getWireType());
  if (!elementType || !wireType)
    return program.emitError("no CUDA type for ") << program.getElementType();
  if (isLL()) {
    std::string why;
    auto box = llMailbox(program, program.getProtocolKind(), &why);
    if (failed(box))
      return program.emitError("no ")
             << stringifyProtocolKind(program.getProtocolKind()).upper()
             << " emission: " << why;
    mailbox = *box;
  }
  bodies = ccopt::sharedBodies(program);
  int64_t rowCount = 0;
  for (const ccopt::SharedBody &body : bodies) {
    firstRows.push_back(rowCount);
    rowCount += body.tasks.size();
  }
  printMetadata();
  os << "// " << program.getSymName() << ": "
     << ccl::stringifyCollectiveKind(program.getCollective());
  if (auto redop = program.getRedop())
    os << " " << ccl::stringifyReductionKind(*redop);
  os << ", " << program.getAlgorithm() << ", " << program.getRanks()
     << " ranks, " << program.getChannels() << " channel(s), "
     << program.getInputCount() << " -> " << program.getOutputCount() << " x "
     << program.getElementType() << "\n";
  printTables();
  printPrescaleOps();
  os << "CC_KERNEL(" << ccopt::kernelName(program) << ") {\n";
  os.indent();
  os << "typedef " << elementType << " T;\n";
  os << "typedef " << wireType << " W;\n";
  os << "const long long rank = CC_RANK;\n";
  os << "const int ch = CC_CHANNEL;\n";
  os << "cc_begin(args, rank);\n";
  os << "T* const input = cc_buf<T>(args, rank, CC_BUF_INPUT);\n";
  os << "T* const output = cc_buf<T>(args, rank, CC_BUF_OUTPUT);\n";
  os << "W* const scratch = cc_buf<W>(args, rank, CC_BUF_SCRATCH);\n";
  os << "(void)input; (void)output; (void)scratch;\n";
  if (isLL())
    os << "const "
       << (program.getProtocolKind() == ProtocolKind::LL128 ? "cc_ll128_box"
                                                            : "cc_ll_box")
       << " llbox = {" << mailbox.slots << "LL, " << mailbox.lines << "LL, "
       << mailbox.regions << "LL, "
       << (mailbox.senders.empty() ? std::string("0") : sendersTableName())
       << "};\n";
  // Tasks that share a body: printed once, where the first of them is.
  llvm::DenseMap<Operation *, size_t> bodyOf;
  for (auto [index, body] : llvm::enumerate(bodies))
    for (TaskOp task : body.tasks)
      bodyOf[task] = index;
  if (!bodies.empty())
    os << "const int row = " << ccopt::kernelName(program) << "_rows[ch * "
       << program.getRanks() << "LL + rank];\n";
  int taskIndex = 0;
  for (auto task : program.getBody().front().getOps<TaskOp>()) {
    if (auto shared = bodyOf.find(task); shared != bodyOf.end()) {
      if (bodies[shared->second].tasks.front() == task)
        printSharedBody(shared->second);
      ++taskIndex;
      continue;
    }
    os << "if (ch == " << task.getChannel();
    if (auto rank = task.getRank())
      os << " && rank == " << *rank;
    os << ") {\n";
    os.indent();
    // Positions in the task's order: r is this rank's, tables map back.
    taskTable.clear();
    if (task.getRankMap()) {
      taskTable = tableName(taskIndex, "order");
      os << "const long long r = " << tableName(taskIndex, "position") << "[rank];\n";
    } else {
      os << "const long long r = rank;\n";
    }
    ++taskIndex;
    printBlock(task.getBody().front());
    os.unindent();
    os << "}\n";
  }
  os << "cc_end(args, rank);\n";
  os.unindent();
  os << "}\n";
  return success();
}

} // namespace

std::string ccopt::kernelName(ProgramOp program) {
  std::string name = "ccopt_";
  for (char c : program.getSymName())
    name += llvm::isAlnum(c) ? c : '_';
  return name;
}

LogicalResult ccopt::emitCuda(ModuleOp module, llvm::raw_ostream &out) {
  raw_indented_ostream os(out);
  os << "// Generated by ccopt. Kernels over the device primitives of "
        "ccopt/device.h.\n";
  os << "#include \"ccopt/device.h\"\n";
  for (auto program : module.getOps<ProgramOp>()) {
    os << "\n";
    if (failed(KernelPrinter(program, os).print()))
      return failure();
  }
  return success();
}
