//===- Collectives.cpp - every collective's algorithms, by name -----------===//

#include "passes/Collectives.h"

#include "passes/NcclBaseline.h"
#include "topology/Rings.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using K = mlir::ccl::CollectiveKind;

namespace ccopt {

FailureOr<Collective> describeCollective(Operation *op) {
  auto group = op->getAttrOfType<FlatSymbolRefAttr>("group");
  auto n = ccl::participantCount(op, group);
  if (!n)
    return op->emitError("the number of ranks is unknown: run ccl-assign-world first");
  // World ranks of the participants, in group order.
  std::vector<int> participants;
  if (group)
    llvm::append_range(participants,
                       cast<ccl::GroupOp>(SymbolTable::lookupSymbolIn(
                                              op->getParentOfType<ccl::ProgramOp>(), group))
                           .getRanks());
  else
    llvm::append_range(participants, llvm::seq<int>(0, *n));
  Collective c;
  if (isa<ccl::BarrierOp>(op)) { // no data
    c.kind = K::Barrier;
    c.shape = {*n, 0, IntegerType::get(op->getContext(), 8), ccl::ReductionKind::Sum,
               false, {}};
    c.ranks = std::move(participants);
    return c;
  }
  if (auto send = dyn_cast<ccl::SendOp>(op)) {
    // Schedule rank 0 sends, rank 1 receives.
    auto type = cast<ccl::BufferType>(send.getBuffer().getType());
    c.kind = K::SendRecv;
    c.ranks = {participants[send.getFrom()], participants[send.getTo()]};
    c.shape = {2, type.getCount(), type.getElementType(), ccl::ReductionKind::Sum,
               false, SmallVector<int64_t>(c.ranks.begin(), c.ranks.end())};
    c.bytes = type.getSizeInBytes();
    return c;
  }
  c.kind = llvm::TypeSwitch<Operation *, K>(op)
               .Case([](ccl::AllReduceOp) { return K::AllReduce; })
               .Case([](ccl::ReduceScatterOp) { return K::ReduceScatter; })
               .Case([](ccl::AllGatherOp) { return K::AllGather; })
               .Case([](ccl::BroadcastOp) { return K::Broadcast; })
               .Case([](ccl::ReduceOp) { return K::Reduce; })
               .Default([](Operation *) { return K::AllToAll; });
  auto input = cast<ccl::BufferType>(op->getOperand(0).getType());
  auto output = cast<ccl::BufferType>(op->getOperand(1).getType());
  // Rings and chains move the larger buffer, in n blocks for the halves.
  auto whole = input.getCount() >= output.getCount() ? input : output;
  ccl::ReductionKind redop = ccl::ReductionKind::Sum;
  if (auto kind = op->getAttrOfType<ccl::ReductionKindAttr>("op"))
    redop = kind.getValue();
  bool blocks = c.kind == K::ReduceScatter || c.kind == K::AllGather;
  c.shape = {*n, blocks ? whole.getCount() / *n : whole.getCount(),
             whole.getElementType(), redop, op->getOperand(0) == op->getOperand(1),
             {}};
  if (auto compress = op->getAttrOfType<TypeAttr>("compress"))
    c.shape.wire = compress.getValue();
  c.ranks = std::move(participants);
  if (!llvm::equal(c.ranks, llvm::seq<int>(0, *n)))
    llvm::append_range(c.shape.rankMap, c.ranks);
  if (auto root = op->getAttrOfType<IntegerAttr>("root"))
    c.root = root.getInt();
  c.bytes = whole.getSizeInBytes();
  c.multicast = llvm::all_of(op->getOperands(), ccl::isMulticastBuffer);
  return c;
}

ArrayRef<StringRef> algorithmsFor(K kind) {
  static const StringRef allReduce[] = {"ring",    "tree",
                                        "oneshot", "twoshot",
                                        "recursive_doubling", "halving_doubling",
                                        "hierarchical", "hierarchical_rd", "hierarchical_hd", "nvls",
                                        "hierarchical_nvls",
                                        "hierarchical_sockets", "ring_sockets",
                                        "hierarchical_direct"};
  static const StringRef halves[] = {"ring", "direct", "hierarchical", "relay",
                                     "staggered_ring", "ring_sockets",
                                     "hierarchical_sockets", "hierarchical_direct"};
  static const StringRef broadcast[] = {"chain",           "direct",
                                        "binomial",        "scatter_allgather",
                                        "chain_sockets",   "hierarchical",
                                        "hierarchical_tree", "nvls"};
  static const StringRef reduce[] = {"chain", "direct", "binomial", "chain_sockets"};
  static const StringRef allToAll[] = {"pairwise", "direct", "hierarchical", "relay"};
  static const StringRef pointToPoint[] = {"direct"};
  switch (kind) {
  case K::AllReduce: return allReduce;
  case K::ReduceScatter:
  case K::AllGather: return halves;
  case K::Broadcast: return broadcast;
  case K::Reduce: return reduce;
  case K::AllToAll: return allToAll;
  case K::SendRecv: return pointToPoint;
  default: return {};
  }
}

/// Why the switch cannot run `c` for `algorithm` (nvls, hierarchical_nvls):
/// the buffers, the wire, the element type and reduction; "" where it can.
static std::string switchUnsupported(const Collective &c, StringRef algorithm) {
  if (!c.multicast)
    return (algorithm + " needs multicast buffers (ccl.buffer \"name\" multicast): the "
                        "switch reaches only memory bound to a multicast object")
        .str();
  if (c.shape.narrowWire())
    return (algorithm + " sends the element type (no compress)").str();
  if (c.kind == ccl::CollectiveKind::Broadcast && !sched::multimemStores(c.shape.elementType))
    return (algorithm + ": the NVSwitch stores no words of this element type (f32, f64, "
                        "f16, bf16 and 32/64-bit integers)")
        .str();
  if (c.kind == ccl::CollectiveKind::AllReduce &&
      !sched::multimemReduces(c.shape.elementType, c.shape.redop))
    return (algorithm + ": the NVSwitch has no " + ccl::stringifyReductionKind(c.shape.redop) +
            " of this element type (sums of f32, f64, f16, bf16 and 32/64-bit integers; "
            "min and max of f16, bf16 and the integers)")
        .str();
  return "";
}

std::string algorithmUnsupported(const Collective &c, StringRef algorithm,
                                 const topo::Machine *machine) {
  K kind = c.kind;
  ArrayRef<int> ranks = c.ranks;
  bool inPlace = c.shape.inPlace;
  int64_t n = ranks.size();
  if (!llvm::is_contained(algorithmsFor(kind), algorithm))
    return ("unknown " + ccl::stringifyCollectiveKind(kind) + " algorithm '" +
            algorithm + "' (expected one of: " +
            llvm::join(algorithmsFor(kind), ", ") + ")")
        .str();
  if ((algorithm == "recursive_doubling" || algorithm == "halving_doubling") &&
      !llvm::isPowerOf2_64(n))
    return (algorithm + " needs a power-of-two number of ranks, not " +
            std::to_string(n))
        .str();
  if (algorithm == "nvls") {
    // The NVSwitch of one node reduces and multicasts, in buffers it can reach.
    bool oneSwitch = machine && machine->nvls && n > 1 && llvm::all_of(ranks, [&](int r) {
                       return machine->nodeOf(r) == machine->nodeOf(ranks.front()) &&
                              machine->nvSwitchLinks(r);
                     });
    if (!oneSwitch)
      return "nvls needs at least 2 ranks on one node of a machine with NVLS "
             "(an NVSwitch that reduces: h100x8, h200x8, or \"nvls\": true)";
    return switchUnsupported(c, algorithm);
  }
  if (algorithm == "relay") {
    if (inPlace)
      return "the relay " + ccl::stringifyCollectiveKind(kind).str() +
             " needs distinct input and output buffers";
    // Inside one node (relays are NVLink neighbours; this also keeps the
    // cubic search small).
    bool relays = machine && llvm::all_of(ranks, [&](int r) {
                    return machine->nodeOf(r) == machine->nodeOf(ranks.front());
                  }) && llvm::any_of(nvlinkRelays(*machine, ranks), [](auto &row) {
                    return llvm::any_of(row, [](int64_t m) { return m >= 0; });
                  });
    if (!relays)
      return "relay needs the ranks on one node, where some GPUs lack an NVLink "
             "to each other but share an NVLink neighbour";
    return "";
  }
  if (algorithm == "ring_sockets" || algorithm == "chain_sockets") {
    if (!machine || !topo::socketRingsApply(*machine, ranks))
      return (algorithm + " needs three or more nodes whose GPUs have no NVLink and "
                          "split into two sockets of at least 2 of the ranks, each node "
                          "holding the same number")
          .str();
    return "";
  }
  if (algorithm == "hierarchical_sockets") {
    if (!machine || !socketGroups(*machine, ranks))
      return "hierarchical_sockets needs several nodes whose GPUs reach the other "
             "socket's only across the sockets' link (a PCIe machine), each holding "
             "the same number of the ranks, node by node and socket by socket";
    return "";
  }
  if (!algorithm.starts_with("hierarchical"))
    return "";
  if (kind == K::AllToAll && inPlace)
    return "the hierarchical all_to_all needs distinct input and output buffers";
  std::optional<int64_t> perNode = machine ? ranksPerGroup(*machine, ranks) : std::nullopt;
  if (!perNode)
    return (algorithm + " needs a machine whose nodes each hold the same number "
                        "(at least 2) of the ranks, node by node, on at least 2 nodes "
                        "(or, on one node, whose sockets do, socket by socket)")
        .str();
  if (algorithm == "hierarchical_nvls") {
    if (!machine->nvls ||
        llvm::any_of(ranks, [&](int r) { return !machine->nvSwitchLinks(r); }))
      return "hierarchical_nvls needs an NVSwitch that reduces (NVLS) in every node "
             "(h100x8, h200x8, or \"nvls\": true)";
    return switchUnsupported(c, algorithm);
  }
  if ((algorithm == "hierarchical_rd" || algorithm == "hierarchical_hd") &&
      !llvm::isPowerOf2_64(n / *perNode))
    return (algorithm + " needs a power-of-two number of nodes, not " +
            std::to_string(n / *perNode))
        .str();
  if (algorithm == "hierarchical_direct" && kind == K::AllReduce &&
      !hierarchicalAllReduceByHalves(c.shape, *perNode, /*ringBetweenNodes=*/true,
                                     !nvlinkBetweenAll(*machine, ranks.take_front(*perNode))))
    return "the hierarchical_direct all_reduce needs at most 8 nodes whose GPUs all have "
           "NVLink to each other, a count that is a multiple of the ranks, and no "
           "compress";
  return "";
}

RelayShares nvlinkRelayShares(const topo::Machine &machine, ArrayRef<int> ranks,
                              int64_t shares) {
  int64_t n = ranks.size();
  auto nvlink = [&](int64_t a, int64_t b) {
    return machine.routeKind(ranks[a], ranks[b]) == topo::LinkKind::NvLink;
  };
  // Shares over each NVLinked pair (one way): its own block to start with.
  std::vector<std::vector<int64_t>> load(n, std::vector<int64_t>(n, shares));
  // The pair's time with `more` shares, in shares per GB/s.
  auto time = [&](int64_t a, int64_t b, int64_t more) {
    return (load[a][b] + more) / machine.routeBandwidth(ranks[a], ranks[b]);
  };
  auto hops = [&](int64_t src, int64_t m, int64_t dst, int64_t more) {
    return std::max(time(src, m, more), time(m, dst, more));
  };
  auto candidates = [&](int64_t src, int64_t dst) {
    SmallVector<int64_t> relays;
    for (int64_t m = 0; m < n; ++m)
      if (m != src && m != dst && nvlink(src, m) && nvlink(m, dst))
        relays.push_back(m);
    return relays;
  };
  auto move = [&](int64_t src, int64_t m, int64_t dst, int64_t by) {
    load[src][m] += by, load[m][dst] += by;
  };
  RelayShares via(n, std::vector<std::vector<int64_t>>(n));
  // Greedily, share by share: the relay whose busier link is the least busy.
  for (int64_t src = 0; src < n; ++src)
    for (int64_t dst = 0; dst < n; ++dst) {
      SmallVector<int64_t> relays = candidates(src, dst);
      if (src == dst || nvlink(src, dst) || relays.empty())
        continue;
      for (int64_t k = 0; k < shares; ++k) {
        int64_t best = *llvm::min_element(relays, [&](int64_t a, int64_t b) {
          return hops(src, a, dst, 1) < hops(src, b, dst, 1);
        });
        via[src][dst].push_back(best);
        move(src, best, dst, 1);
      }
    }
  // Then, while it lowers a busiest link without making another as busy,
  // move a share crossing one to another relay (the greedy order leaves
  // single links with three blocks on v100x8 where thirds fit in 2.1).
  // Every move lowers the sorted loads, so this ends.
  for (bool moved = true; moved;) {
    moved = false;
    double busiest = 0;
    for (int64_t a = 0; a < n; ++a)
      for (int64_t b = 0; b < n; ++b)
        if (a != b && nvlink(a, b))
          busiest = std::max(busiest, time(a, b, 0));
    for (int64_t src = 0; src < n && !moved; ++src)
      for (int64_t dst = 0; dst < n && !moved; ++dst)
        for (int64_t &relay : via[src][dst]) {
          if (hops(src, relay, dst, 0) < busiest)
            continue;
          for (int64_t other : candidates(src, dst))
            if (other != relay && hops(src, other, dst, 1) < busiest) {
              move(src, relay, dst, -1), move(src, other, dst, 1);
              relay = other, moved = true;
              break;
            }
          if (moved)
            break;
        }
  }
  return via;
}

std::vector<std::vector<int64_t>> nvlinkRelays(const topo::Machine &machine,
                                               ArrayRef<int> ranks) {
  RelayShares shares = nvlinkRelayShares(machine, ranks, 1);
  std::vector<std::vector<int64_t>> via(shares.size());
  for (auto [row, relays] : llvm::zip(via, shares))
    for (const auto &one : relays)
      row.push_back(one.empty() ? -1 : one.front());
  return via;
}

sched::ProgramOp buildCollective(OpBuilder &b, Location loc, StringRef name,
                                 const Collective &c, const topo::Machine *machine,
                                 StringRef algorithm, int64_t chunks,
                                 int64_t channels) {
  const AllReduceShape &shape = c.shape;
  // Rings and chains through one socket of every node, then the other's,
  // for the _sockets algorithms.
  bool bySocket = algorithm.ends_with("_sockets");
  auto orders = [&] {
    return machine ? toScheduleRanks(
                         topo::ringOrders(*machine, c.ranks, channels,
                                          bySocket ? topo::NodeCrossing::BySocket
                                                   : topo::NodeCrossing::LeastLoaded),
                         c.ranks)
                   : RingOrders();
  };
  // The program under the algorithm's own name.
  auto named = [&](sched::ProgramOp program) {
    program.setAlgorithm(algorithm);
    return program;
  };
  bool reduce = c.kind == K::Reduce;
  auto perNode = [&] { return *ranksPerGroup(*machine, c.ranks); };
  auto node = [&] { return ArrayRef<int>(c.ranks).take_front(perNode()); };
  // A node's ranks in NVLink ring orders (one per channel, disjoint where
  // the links allow) where two of its GPUs have no NVLink between them
  // (none: a direct exchange inside the node reaches every GPU over NVLink).
  auto nodeRings = [&] {
    return nvlinkBetweenAll(*machine, node())
               ? RingOrders()
               : toScheduleRanks(topo::ringOrders(*machine, node(), channels), node());
  };
  // The relays of the relay all-to-all and all-gather: each block (of
  // `block` elements) in as many shares as leave each of a rank's transfers
  // a channel of its own (the most sends a rank makes), up to three (which
  // balance v100x8's links to the optimum: its pairs have two relays each).
  auto relayShares = [&](int64_t block) {
    for (int64_t shares = std::min<int64_t>(3, block);; --shares) {
      RelayShares via = nvlinkRelayShares(*machine, c.ranks, shares);
      std::vector<int64_t> sends(c.ranks.size(), shares * c.ranks.size());
      for (const auto &row : via)
        for (const auto &relays : row)
          for (int64_t relay : relays)
            ++sends[relay];
      if (shares == 1 || *llvm::max_element(sends) <= channels)
        return via;
    }
  };
  // hierarchical_sockets: the groups are one socket of every node, each
  // group's ring as the machine orders its GPUs (positions in the group).
  std::optional<SocketGroups> sockets =
      algorithm == "hierarchical_sockets" ? socketGroups(*machine, c.ranks) : std::nullopt;
  auto socketRings = [&] {
    ArrayRef<int> group = ArrayRef<int>(sockets->order).take_front(sockets->size);
    return toScheduleRanks(topo::ringOrders(*machine, group, channels), group);
  };
  // The schedule ranks group by group (a reduce-scatter's or all-gather's
  // blocks stay their ranks' own: the groups order only the tasks).
  auto socketOrder = [&] { return toScheduleRanks({sockets->order}, c.ranks).front(); };
  switch (c.kind) {
  case K::AllReduce:
    if (algorithm == "tree")
      return buildTreeAllReduce(
          b, loc, name, shape,
          ncclTrees(shape.ranks, machine ? machine->gpusPerNode : shape.ranks),
          chunks, channels);
    if (algorithm == "oneshot")
      return buildOneShotAllReduce(b, loc, name, shape, channels);
    if (algorithm == "twoshot")
      return buildTwoShotAllReduce(b, loc, name, shape, channels);
    if (algorithm == "recursive_doubling")
      return buildRecursiveDoublingAllReduce(b, loc, name, shape, channels);
    if (algorithm == "halving_doubling")
      return buildHalvingDoublingAllReduce(b, loc, name, shape, channels);
    if (algorithm == "nvls")
      return buildNvlsAllReduce(b, loc, name, shape, chunks, channels);
    if (algorithm == "hierarchical_sockets") {
      // Schedule ranks group by group (an all-reduce's result is the same
      // on every rank, whichever order they take).
      AllReduceShape grouped = shape;
      grouped.rankMap.assign(sockets->order.begin(), sockets->order.end());
      return named(buildHierarchicalAllReduce(b, loc, name, grouped, sockets->size,
                                              RailAllReduce::Ring, chunks, channels,
                                              socketRings()));
    }
    if (algorithm == "hierarchical_direct")
      return buildHierarchicalAllReduceByHalves(b, loc, name, shape, perNode(), chunks,
                                                channels, /*directBetweenNodes=*/true);
    if (algorithm == "hierarchical_nvls")
      return buildHierarchicalAllReduce(b, loc, name, shape, perNode(),
                                        railsOf(algorithm, shape.ranks / perNode()), chunks,
                                        channels, {}, /*inSwitch=*/true);
    if (auto rails = railAllReduceOf(algorithm))
      return buildHierarchicalAllReduce(b, loc, name, shape, perNode(), *rails, chunks,
                                        channels, nodeRings());
    return named(buildRingAllReduce(b, loc, name, shape, chunks, channels, orders()));
  case K::ReduceScatter:
    if (algorithm == "direct")
      return buildDirectReduceScatter(b, loc, name, shape, channels);
    if (algorithm == "relay")
      return buildRelayReduceScatter(b, loc, name, shape, nvlinkRelays(*machine, c.ranks),
                                     channels);
    if (algorithm == "hierarchical" || algorithm == "hierarchical_direct")
      return buildHierarchicalReduceScatter(b, loc, name, shape, perNode(),
                                            nodeRingOf(*machine, node()), chunks, channels,
                                            nodeRings(), {}, algorithm == "hierarchical_direct");
    if (algorithm == "hierarchical_sockets")
      return named(buildHierarchicalReduceScatter(b, loc, name, shape, sockets->size,
                                                  NodeRing::InPieces, chunks, channels,
                                                  socketRings(), socketOrder()));
    return named(buildRingReduceScatter(b, loc, name, shape, chunks, channels, orders(),
                                        algorithm == "staggered_ring"));
  case K::AllGather:
    if (algorithm == "direct")
      return buildDirectAllGather(b, loc, name, shape, channels);
    if (algorithm == "relay")
      return buildRelayAllGather(b, loc, name, shape, relayShares(shape.count), channels,
                                 chunks);
    if (algorithm == "hierarchical" || algorithm == "hierarchical_direct")
      return buildHierarchicalAllGather(b, loc, name, shape, perNode(),
                                        nodeRingOf(*machine, node()), chunks, channels,
                                        nodeRings(), {}, algorithm == "hierarchical_direct");
    if (algorithm == "hierarchical_sockets")
      return named(buildHierarchicalAllGather(b, loc, name, shape, sockets->size,
                                              NodeRing::InPieces, chunks, channels,
                                              socketRings(), socketOrder()));
    return named(buildRingAllGather(b, loc, name, shape, chunks, channels, orders(),
                                    algorithm == "staggered_ring"));
  case K::Broadcast:
  case K::Reduce:
    if (algorithm == "direct")
      return buildDirectBroadcast(b, loc, name, shape, c.root, reduce, channels);
    if (algorithm == "binomial")
      return buildBinomialBroadcast(b, loc, name, shape, c.root, reduce, chunks,
                                    channels);
    if (algorithm == "nvls")
      return buildNvlsBroadcast(b, loc, name, shape, c.root, chunks, channels);
    if (algorithm == "scatter_allgather")
      return buildScatterAllGatherBroadcast(b, loc, name, shape, c.root, channels);
    if (algorithm.starts_with("hierarchical"))
      return buildHierarchicalBroadcast(b, loc, name, shape, c.root, perNode(),
                                        algorithm == "hierarchical_tree", chunks, channels);
    return named(buildChainBroadcast(b, loc, name, shape, c.root, reduce, chunks,
                                     channels, orders()));
  case K::SendRecv:
    return buildSendRecv(b, loc, name, shape, chunks);
  default:
    if (algorithm == "direct")
      return buildDirectAllToAll(b, loc, name, shape, channels, /*copyBeside=*/true);
    if (algorithm == "hierarchical")
      return buildHierarchicalAllToAll(
          b, loc, name, shape, perNode(), channels,
          machine ? nvlinkRelays(*machine, ArrayRef<int>(c.ranks).take_front(perNode()))
                  : std::vector<std::vector<int64_t>>());
    if (algorithm == "relay")
      return buildRelayAllToAll(b, loc, name, shape, relayShares(shape.count / shape.ranks),
                                channels, chunks);
    return buildPairwiseAllToAll(b, loc, name, shape);
  }
}

FailureOr<std::optional<Beside>> besideOf(Operation *op) {
  auto attr = op->getAttr("beside");
  if (!attr)
    return std::optional<Beside>();
  auto dict = dyn_cast<DictionaryAttr>(attr);
  auto algorithm = dict ? dict.getAs<StringAttr>("algorithm") : StringAttr();
  auto channels = dict ? dict.getAs<IntegerAttr>("channels") : IntegerAttr();
  auto chunks = dict ? dict.getAs<IntegerAttr>("chunks") : IntegerAttr();
  auto weights = dict ? dict.getAs<DenseI64ArrayAttr>("weights") : DenseI64ArrayAttr();
  if (!algorithm || !channels || !chunks || !weights || weights.size() != 2 ||
      channels.getInt() < 1 || chunks.getInt() < 1 || weights[0] < 1 || weights[1] < 1)
    return op->emitError("'beside' must be {algorithm = \"...\", channels = C, chunks = K, "
                         "weights = array<i64: A, B>} with C, K, A, B >= 1");
  return std::optional<Beside>(Beside{algorithm.getValue().str(), channels.getInt(),
                                      chunks.getInt(), weights[0], weights[1]});
}

DictionaryAttr besideAttr(MLIRContext *ctx, const Beside &beside) {
  Builder b(ctx);
  return b.getDictionaryAttr(
      {b.getNamedAttr("algorithm", b.getStringAttr(beside.algorithm)),
       b.getNamedAttr("channels", b.getI64IntegerAttr(beside.channels)),
       b.getNamedAttr("chunks", b.getI64IntegerAttr(beside.chunks)),
       b.getNamedAttr("weights", b.getDenseI64ArrayAttr({beside.ownWeight, beside.weight}))});
}

FailureOr<sched::ProgramOp> buildCollective(OpBuilder &b, Location loc, StringRef name,
                                            const Collective &c,
                                            const topo::Machine *machine,
                                            StringRef algorithm, int64_t chunks,
                                            int64_t channels,
                                            const std::optional<Beside> &beside,
                                            std::string &why) {
  if (!beside)
    return buildCollective(b, loc, name, c, machine, algorithm, chunks, channels);
  why = c.kind == K::ReduceScatter || c.kind == K::AllGather
            ? algorithmUnsupported(c, beside->algorithm, machine)
            : "'beside' runs only beside a reduce_scatter or all_gather";
  if (!why.empty())
    return failure();
  // Both programs are built apart, then merged where `b` is.
  OpBuilder apart(b.getContext());
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
  apart.setInsertionPointToStart(scratch->getBody());
  sched::ProgramOp own =
      buildCollective(apart, loc, name, c, machine, algorithm, chunks, channels);
  sched::ProgramOp other = buildCollective(apart, loc, name, c, machine, beside->algorithm,
                                           beside->chunks, beside->channels);
  return buildOnBlockShares(b, loc, name, {own, other}, {beside->ownWeight, beside->weight},
                            c.shape.count, why);
}

} // namespace ccopt
