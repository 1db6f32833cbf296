//===- Simulator.cpp - predicted time of a schedule on a machine ----------===//

#include "topology/Simulator.h"

#include "dialect/Sched/ChannelClasses.h"
#include "dialect/Sched/StepWalker.h"
#include "topology/NodeSymmetry.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <functional>
#include <map>
#include <queue>
#include <unordered_map>

using namespace ccopt::topo;
using namespace mlir;
using namespace mlir::sched;

namespace {

std::vector<int> twinLinks(const Machine &machine, int shift);
void foldImages(ProgramOp program, const Machine &machine,
                const ChannelShapes &shapes, Symmetry &symmetry);
int64_t periodOf(ProgramOp program, const Machine &machine,
                 ArrayRef<std::pair<int64_t, int64_t>> classes);

double channelCap(const Machine &machine, Protocol protocol, int64_t channels);
AlgorithmFamily familyOf(ProgramOp program);

/// GB/s as bytes per microsecond.
constexpr double kBytesPerUsPerGBps = 1e3;

/// Events closer than this (µs) happen together. Channels that run alike
/// reach the same event at times a rounding apart (their flows' bytes are
/// counted down over different re-ratings); taken in turn, the first one's
/// next flow starts alone and the sharing can amplify that into a
/// different schedule (30% slower on one 16-rank reduce-scatter).
constexpr double kTieUs = 1e-6;

int64_t elementBytes(Type type) { return (type.getIntOrFloatBitWidth() + 7) / 8; }

/// Bytes in flight from one rank and channel to a peer. `remaining` is as
/// of `updated`; the rate holds until a flow sharing a link with it (or
/// with a flow that shares one, and so on) starts or ends.
struct Flow {
  int thread;
  int64_t to; // schedule rank
  double remaining, bytes, rate, start, updated;
  const std::vector<int> *route;
  double latencyUs;
  uint64_t version = 0; // bumps when the predicted finish changes
  llvm::StringRef step; // the step's op name, for the trace
  /// What the flow is: a message, or part of an NVLS reduce or store.
  enum Kind { Message, Reduce, Store } kind = Message;
  double finishAt = 0; // as predicted at the last re-rating (FinishQueue)
};

/// Arrival times of the messages on one connection, in order: a vector
/// read from `head`, emptied when read to the end (a deque's first block
/// costs more than the few messages most connections hold).
struct MessageQueue {
  llvm::SmallVector<double, 2> arrivals;
  size_t head = 0;
  bool empty() const { return head == arrivals.size(); }
  double front() const { return arrivals[head]; }
  void push_back(double arrival) { arrivals.push_back(arrival); }
  void pop_front() {
    if (++head == arrivals.size()) {
      arrivals.clear();
      head = 0;
    }
  }
};

/// The active flows by predicted finish (ties by version, then slot), one
/// entry each: a re-rating moves a flow's entry rather than leaving a stale
/// one behind (flows are re-rated many times over, and a heap of stale
/// entries grows with the whole run, not with what is in flight).
class FinishQueue {
public:
  explicit FinishQueue(std::vector<Flow> &flows) : flows(flows) {}
  bool empty() const { return heap.empty(); }
  int top() const { return heap.front(); }
  double topTime() const { return flows[heap.front()].finishAt; }
  /// Flow `id` (in the queue or not) now finishes at `at`.
  void update(int id, double at) {
    Flow &f = flows[id];
    f.finishAt = at;
    ++f.version;
    if (size_t(id) >= position.size())
      position.resize(flows.size(), -1);
    if (position[id] < 0) {
      position[id] = heap.size();
      heap.push_back(id);
    }
    siftDown(siftUp(position[id]));
  }
  /// Takes the first flow out.
  void pop() {
    position[heap.front()] = -1;
    int last = heap.back();
    heap.pop_back();
    if (heap.empty())
      return;
    heap[0] = last;
    position[last] = 0;
    siftDown(0);
  }

private:
  bool before(int a, int b) const {
    const Flow &x = flows[a], &y = flows[b];
    return std::tie(x.finishAt, x.version, a) < std::tie(y.finishAt, y.version, b);
  }
  void place(size_t i, int id) {
    heap[i] = id;
    position[id] = i;
  }
  size_t siftUp(size_t i) {
    int id = heap[i];
    for (size_t parent; i > 0 && before(id, heap[parent = (i - 1) / 2]); i = parent)
      place(i, heap[parent]);
    place(i, id);
    return i;
  }
  void siftDown(size_t i) {
    int id = heap[i];
    for (size_t child; (child = 2 * i + 1) < heap.size(); i = child) {
      if (child + 1 < heap.size() && before(heap[child + 1], heap[child]))
        ++child;
      if (!before(heap[child], id))
        break;
      place(i, heap[child]);
    }
    place(i, id);
  }

  std::vector<Flow> &flows;
  std::vector<int> heap;          // flow ids
  std::vector<ptrdiff_t> position; // in heap, by flow id; -1: not queued
};

struct Thread {
  int64_t rank, channel;
  int64_t replicas; // real channels this one stands for
  StepWalker walker;
  Operation *op = nullptr; // the step in progress
  SmallVector<int64_t> dims;
  bool received = false; // its message is consumed
  bool done = false;
  double stepStart = 0;
  // NVLS: flows of the reduce in progress (the step waits for them) and of
  // stores still landing (they overlap the next reduce, as NCCL's gather
  // warps do; a signal waits for them).
  int pendingReduce = 0, pendingStores = 0;
  bool waitingForStores = false;
  // The route to the last peer sent to (schedules send to few peers).
  int64_t routePeer = -1;
  const std::vector<int> *route = nullptr;
  double routeLatencyUs = 0;
  /// The peer the last step named (to receive from, to send to), for the
  /// same step's next iteration when its map reads only the rank.
  struct PeerMemo {
    Operation *step = nullptr;
    int64_t peer = -1;
  } recvPeer, sendPeer;
};

class Simulation {
public:
  Simulation(ProgramOp program, const Machine &machine, const SimOptions &options)
      : program(program), machine(machine), options(options),
        n(program.getRanks()), channels(program.getChannels()), period(n),
        load(machine.links().size(), 0), onLink(machine.links().size()),
        changed(machine.links().size()), linkMark(machine.links().size()),
        linkLeft(machine.links().size()), linkShares(machine.links().size()) {
    protocol = options.protocol.value_or(protocolOf(program.getProtocolKind()));
    flowCap = channelCap(machine, protocol, channels) * kBytesPerUsPerGBps;
    for (const Link &link : machine.links())
      linkCapacity.push_back(link.bandwidth * bandwidthEfficiency(protocol) *
                             kBytesPerUsPerGBps);
    for (BufferKind kind : {BufferKind::Input, BufferKind::Output, BufferKind::Scratch})
      buffers[static_cast<int>(kind)] = {
          program.getCount(kind),
          elementBytes(kind == BufferKind::Scratch ? program.getWireType()
                                                   : program.getElementType())};
    family = options.family.value_or(familyOf(program));
    if (!options.trace && (options.foldSymmetricChannels || options.foldSymmetricRanks)) {
      if (!options.symmetry)
        ownSymmetry = symmetryOf(program, machine);
      symmetry = options.symmetry ? options.symmetry : &*ownSymmetry;
    }
    if (symmetry && options.foldSymmetricChannels) {
      classes = symmetry->channelClasses;
      linkImage = symmetry->linkOrbit;
      orbitSize = symmetry->orbitSize;
    } else {
      for (int64_t ch = 0; ch < channels; ++ch)
        classes.push_back({ch, 1});
    }
  }

  llvm::Expected<SimResult> run();

private:
  void advance(Thread &t);
  void startFlow(Thread &t, int64_t to, int64_t bytes, StringRef step);
  /// A flow over one GPU<->NVSwitch link, part of an NVLS step.
  void startSwitchFlow(Thread &t, int link, int64_t bytes, Flow::Kind kind);
  void addFlow(Thread &t, const std::vector<int> &route, double latencyUs,
               int64_t to, int64_t bytes, StringRef step, Flow::Kind kind);
  /// Posts a message from `t` to `to` that arrives at `arrival`.
  void postMessage(Thread &t, int64_t to, double arrival);
  void finishFlow(int id);
  /// The rank `map` of `t`'s step names, through `memo` when the map reads
  /// only the rank.
  int64_t peerOf(Thread &t, AffineMap map, Thread::PeerMemo &memo);
  /// Loads changed on `route`: its flows' rates are settled before the
  /// clock moves on.
  void markChanged(const std::vector<int> &route) {
    for (int l : route)
      if (!changed[l]) {
        changed[l] = true;
        changedLinks.push_back(l);
      }
  }
  /// Re-rates the flows connected (through shared links) to a changed link
  /// to their max-min fair shares.
  void settleRates();
  void wake(int thread, double at) { wakes.push({at, seq++, thread}); }
  /// Flows a flow of `t` counts for on link `l` (a stand-in).
  int64_t replicasOn(int l, const Thread &t) const {
    return orbitSize.empty() ? t.replicas : t.replicas / orbitSize[l];
  }
  int64_t bytesOf(PartAttr part, ArrayRef<int64_t> dims);
  /// Messages from `from` to `to` on channel `ch`, folded onto the
  /// simulated ranks.
  int64_t queueKey(int64_t from, int64_t to, int64_t ch) const {
    return ((from % period) * period + to % period) * channels + ch;
  }
  MessageQueue &queue(int64_t from, int64_t to, int64_t ch) {
    return messages[queueKey(from, to, ch)];
  }
  /// The links between two world ranks, as their stand-ins when ranks or
  /// channel images fold.
  const std::vector<int> &route(int src, int dst);
  void record(std::string track, StringRef name, double start, double end,
              int64_t bytes) {
    if (options.trace)
      result.events.push_back({std::move(track), name.str(), start, end, bytes});
  }
  std::string trackOf(const Thread &t) {
    return ("rank " + Twine(program.worldRank(t.rank)) + " / ch " + Twine(t.channel)).str();
  }

  ProgramOp program;
  const Machine &machine;
  SimOptions options;
  Protocol protocol; ///< the options', else the program's
  double flowCap;    ///< what one channel's flow carries at most (bytes/µs)
  std::vector<double> linkCapacity; ///< each link's, under the protocol (bytes/µs)
  AlgorithmFamily family;
  int64_t n, channels;
  /// Ranks simulated ([0, period)) and how many ranks each stands for.
  int64_t period, rankReplicas = 1;
  /// Each link's stand-in: its twin when ranks fold, its orbit's first
  /// link when channel images fold (a flow there counts once per link of
  /// the orbit, orbitSize).
  std::vector<int> linkImage, orbitSize;
  std::unordered_map<uint64_t, std::vector<int>> imageRoutes;
  std::optional<Symmetry> ownSymmetry;
  const Symmetry *symmetry = nullptr;
  /// Simulated channels and how many real channels each stands for.
  std::vector<std::pair<int64_t, int64_t>> classes;
  double now = 0;
  uint64_t seq = 0;
  std::vector<Thread> threads;
  std::vector<Flow> flows;         // slots; finished ones are reused
  std::vector<int> freeFlows;
  std::vector<int> load;           // flows per link (counting replicas)
  std::vector<std::vector<int>> onLink; // active flow ids per link
  // settleRates()'s: the links where flows started or ended since it last
  // ran, and scratch reused from call to call.
  std::vector<char> changed;
  std::vector<int> changedLinks, settleLinks, settleFlows, risingLinks;
  std::vector<uint64_t> linkMark, flowMark; // == settleMark: in this settle
  uint64_t settleMark = 0;
  std::vector<double> linkLeft, flowRate;
  std::vector<int64_t> linkShares;
  FinishQueue finishes{flows};
  llvm::DenseMap<int64_t, MessageQueue> messages;
  llvm::DenseMap<int64_t, int> waiting; // queue key -> blocked thread
  using Wake = std::tuple<double, uint64_t, int>;
  std::priority_queue<Wake, std::vector<Wake>, std::greater<>> wakes;
  SimResult result;
  MapCache maps;
  /// Elements and bytes per element of each buffer, by BufferKind.
  std::array<std::pair<int64_t, int64_t>, 3> buffers;
  llvm::DenseMap<AffineMap, bool> rankOnlyMaps; // peers that read only the rank
  std::unordered_map<int, std::vector<int>> linkRoutes; // one-link routes
  /// Each schedule rank's links to and from its NVSwitch (NVLS steps).
  std::vector<std::pair<int, int>> switchLinks;
};

int64_t Simulation::bytesOf(PartAttr part, ArrayRef<int64_t> dims) {
  auto [count, bytes] = buffers[static_cast<int>(part.getBuffer())];
  // Equal parts: the size, whichever part (a bad index is the verifier's).
  if (count % part.getParts() == 0)
    return count / part.getParts() * bytes;
  auto range = resolve(program, part, dims, &maps);
  return range ? range->size() * bytes : 0;
}

void Simulation::startFlow(Thread &t, int64_t to, int64_t bytes, StringRef step) {
  if (t.routePeer != to) {
    int src = program.worldRank(t.rank), dst = program.worldRank(to);
    t.routePeer = to;
    t.route = &route(src, dst);
    t.routeLatencyUs = hopLatencyUs(family, protocol,
                                    machine.routeKind(src, dst));
    for (int l : *t.route)
      t.routeLatencyUs += machine.links()[l].latencyUs;
  }
  addFlow(t, *t.route, t.routeLatencyUs, to, bytes, step, Flow::Message);
}

const std::vector<int> &Simulation::route(int src, int dst) {
  const std::vector<int> &links = machine.route(src, dst);
  if (linkImage.empty())
    return links;
  auto [it, inserted] = imageRoutes.try_emplace(uint64_t(src) << 32 | uint32_t(dst));
  if (inserted)
    for (int l : links)
      it->second.push_back(linkImage[l]);
  return it->second;
}

void Simulation::startSwitchFlow(Thread &t, int link, int64_t bytes,
                                 Flow::Kind kind) {
  auto [it, inserted] = linkRoutes.try_emplace(link);
  if (inserted)
    it->second.push_back(linkImage.empty() ? link : linkImage[link]);
  ++(kind == Flow::Reduce ? t.pendingReduce : t.pendingStores);
  addFlow(t, it->second,
          hopLatencyUs(family, protocol, LinkKind::NvLink), t.rank,
          bytes, kind == Flow::Reduce ? "multimem_reduce" : "multimem_store",
          kind);
}

/// GB/s one channel's send reaches at most under `protocol`.
double channelCap(const Machine &machine, Protocol protocol, int64_t channels) {
  double cap = machine.channelBandwidth * bandwidthEfficiency(protocol);
  if (protocol == Protocol::LL)
    cap = std::min(cap, llMaxBandwidth(machine.arch, machine.nodes) / channels);
  return cap;
}

AlgorithmFamily familyOf(ProgramOp program) {
  StringRef algorithm = program.getAlgorithm();
  // The switch's algorithms pay NVLS's base latency (NCCL's NVLS and NVLS
  // tree alike).
  return algorithm == "tree"                                          ? AlgorithmFamily::Tree
         : algorithm == "nvls" || algorithm == "hierarchical_nvls" ? AlgorithmFamily::Nvls
                                                                      : AlgorithmFamily::Ring;
}

void Simulation::addFlow(Thread &t, const std::vector<int> &route,
                         double latency, int64_t to, int64_t bytes,
                         StringRef step, Flow::Kind kind) {
  int id;
  if (freeFlows.empty()) {
    id = flows.size();
    flows.emplace_back();
  } else {
    id = freeFlows.back();
    freeFlows.pop_back();
  }
  Flow &f = flows[id];
  uint64_t version = f.version + 1;
  f = Flow{static_cast<int>(&t - threads.data()), to, static_cast<double>(bytes),
           static_cast<double>(bytes), 0, now, now,
           &route, latency, version, step, kind};
  for (int l : route) {
    load[l] += replicasOn(l, t);
    onLink[l].push_back(id);
  }
  result.wireBytes += bytes * t.replicas * rankReplicas;
  markChanged(route);
  if (route.empty()) { // no link to share: only the channel's own cap
    f.rate = flowCap;
    finishes.update(id, now + f.remaining / f.rate);
  }
}

void Simulation::postMessage(Thread &t, int64_t to, double arrival) {
  int64_t key = queueKey(t.rank, to, t.channel);
  messages[key].push_back(arrival);
  if (auto it = waiting.find(key); it != waiting.end()) {
    wake(it->second, arrival);
    waiting.erase(it);
  }
}

/// Max-min fairness by progressive filling: every unsettled flow's rate
/// rises together until a link fills (its flows keep that rate) or the
/// channel's cap is reached. A flow held back elsewhere leaves the rest of
/// a link to the others, as a link's credit-based flow control does. A
/// simulated flow counts replicasOn() times on each link, and its stand-ins
/// get the same rate by symmetry.
void Simulation::settleRates() {
  if (changedLinks.empty())
    return;
  ++settleMark;
  flowMark.resize(flows.size());
  flowRate.resize(flows.size());
  settleLinks.clear();
  settleFlows.clear();
  for (int l : changedLinks) {
    changed[l] = false;
    linkMark[l] = settleMark;
    settleLinks.push_back(l);
  }
  changedLinks.clear();
  for (size_t i = 0; i < settleLinks.size(); ++i)
    for (int id : onLink[settleLinks[i]]) {
      if (flowMark[id] == settleMark)
        continue;
      flowMark[id] = settleMark;
      flowRate[id] = -1; // rising
      settleFlows.push_back(id);
      // A link that holds all its flows at the cap couples none of them.
      for (int k : *flows[id].route)
        if (linkMark[k] != settleMark && load[k] * flowCap > linkCapacity[k]) {
          linkMark[k] = settleMark;
          settleLinks.push_back(k);
        }
    }
  if (settleFlows.empty())
    return;
  result.settleWork += settleFlows.size();
  for (int l : settleLinks) {
    linkLeft[l] = linkCapacity[l];
    linkShares[l] = load[l];
  }
  double level = 0;
  // The links with flows still rising, in settleLinks' order (the order
  // they are charged in is the rounding's).
  auto rising = [&](int l) { return linkShares[l] > 0; };
  risingLinks.clear();
  llvm::copy_if(settleLinks, std::back_inserter(risingLinks), rising);
  while (true) {
    result.settleWork += risingLinks.size();
    // The links that fill first (alike links fill together).
    double share = flowCap;
    for (int l : risingLinks)
      share = std::min(share, linkLeft[l] / linkShares[l]);
    if (share >= flowCap)
      break;
    level = std::max(level, share); // never falls (a rounding below would)
    bool froze = false;
    for (int l : risingLinks) {
      if (!rising(l) || linkLeft[l] / linkShares[l] > level * (1 + 1e-12))
        continue;
      for (int id : onLink[l]) {
        if (flowRate[id] >= 0)
          continue;
        flowRate[id] = level;
        froze = true;
        const Thread &t = threads[flows[id].thread];
        for (int k : *flows[id].route) {
          if (linkMark[k] != settleMark)
            continue;
          int64_t replicas = replicasOn(k, t);
          linkLeft[k] = std::max(0.0, linkLeft[k] - level * replicas);
          linkShares[k] -= replicas;
        }
      }
    }
    if (!froze)
      break;
    llvm::erase_if(risingLinks, [&](int l) { return !rising(l); });
  }
  for (int id : settleFlows) {
    Flow &f = flows[id];
    double rate = flowRate[id] < 0 ? flowCap : flowRate[id];
    if (rate == f.rate)
      continue;
    f.remaining -= f.rate * (now - f.updated);
    f.updated = now;
    f.rate = rate;
    finishes.update(id, now + f.remaining / rate);
  }
}

void Simulation::finishFlow(int id) {
  Flow &f = flows[id];
  Thread &sender = threads[f.thread];
  if (f.kind == Flow::Message)
    postMessage(sender, f.to, now + f.latencyUs);
  if (options.trace) {
    record(trackOf(sender), f.step, f.start, now, f.bytes);
    for (int l : *f.route) {
      const Link &link = machine.links()[l];
      record("link " + machine.devices()[link.from].name + " -> " +
                 machine.devices()[link.to].name,
             ("rank " + Twine(program.worldRank(sender.rank)) + " -> " +
              Twine(program.worldRank(f.to)))
                 .str(),
             f.start, now, f.bytes);
    }
  }
  for (int l : *f.route) {
    load[l] -= replicasOn(l, sender);
    llvm::erase(onLink[l], id);
  }
  ++f.version;
  freeFlows.push_back(id);
  Flow::Kind kind = f.kind;
  double latency = f.latencyUs;
  markChanged(*f.route);
  // The sender goes on now (this may reuse the flow's slot); an NVLS step
  // ends a hop after its last flow.
  int self = &sender - threads.data();
  if (kind == Flow::Message)
    advance(sender);
  else if (kind == Flow::Reduce && --sender.pendingReduce == 0)
    wake(self, now + latency);
  else if (kind == Flow::Store && --sender.pendingStores == 0 &&
           sender.waitingForStores) {
    sender.waitingForStores = false;
    wake(self, now + latency);
  }
}

int64_t Simulation::peerOf(Thread &t, AffineMap map, Thread::PeerMemo &memo) {
  if (memo.step == t.op && memo.peer >= 0)
    return memo.peer;
  int64_t peer = peerRank(t.op, map, t.dims, &maps);
  auto [it, fresh] = rankOnlyMaps.try_emplace(map, true);
  if (fresh)
    for (unsigned d = 1; d < map.getNumDims(); ++d)
      it->second &= !map.isFunctionOfDim(d);
  memo = {t.op, it->second ? peer : -1};
  return peer;
}

/// Runs `t` from where it stands until it waits for a message, a flow or a
/// local step.
void Simulation::advance(Thread &t) {
  int self = &t - threads.data();
  while (true) {
    if (!t.op) {
      Operation *next = t.walker.next();
      if (!next) {
        t.done = true;
        return;
      }
      t.op = next;
      t.dims.assign(t.walker.dims().begin(), t.walker.dims().end());
      t.received = false;
      t.stepStart = now;
    }
    Operation *op = t.op;
    if (auto from = receivesFrom(op); from && !t.received) {
      int64_t peer = peerOf(t, *from, t.recvPeer);
      auto &q = queue(peer, t.rank, t.channel);
      if (q.empty()) {
        waiting[queueKey(peer, t.rank, t.channel)] = self;
        return;
      }
      if (q.front() > now + kTieUs) {
        wake(self, q.front());
        return;
      }
      q.pop_front();
      t.received = true;
    }
    result.steps += t.replicas * rankReplicas;
    auto local = [&](int64_t bytes) {
      double end = now + bytes / (machine.channelBandwidth * kBytesPerUsPerGBps);
      if (options.trace)
        record(trackOf(t), op->getName().stripDialect(), t.stepStart, end, bytes);
      wake(self, end);
    };
    auto send = [&](AffineMap to, PartAttr dst) {
      startFlow(t, peerOf(t, to, t.sendPeer), bytesOf(dst, t.dims),
                op->getName().stripDialect());
    };
    bool retry = false; // blocked before the step could start
    bool blocked = TypeSwitch<Operation *, bool>(op)
                       .Case([&](CopyOp c) {
                         local(bytesOf(c.getDst(), t.dims));
                         return true;
                       })
                       .Case([&](ReduceOp c) {
                         local(bytesOf(c.getDst(), t.dims));
                         return true;
                       })
                       .Case([&](SendOp s) {
                         send(s.getPeer(), s.getDst());
                         return true;
                       })
                       .Case([&](RecvReduceSendOp s) {
                         send(s.getTo(), s.getDst());
                         return true;
                       })
                       .Case([&](RecvCopySendOp s) {
                         send(s.getTo(), s.getDst());
                         return true;
                       })
                       .Case([&](SignalOp s) {
                         if (t.pendingStores > 0) { // signal what has landed
                           t.waitingForStores = true;
                           retry = true;
                           return true;
                         }
                         int64_t to = peerRank(op, s.getPeer(), t.dims, &maps);
                         postMessage(t, to,
                                     now + hopLatencyUs(family, protocol,
                                                        machine.routeKind(
                                                            program.worldRank(t.rank),
                                                            program.worldRank(to))));
                         return false;
                       })
                       .Case([&](MultimemReduceOp m) {
                         // Every reached rank's part up to the switch, the sum down.
                         int64_t bytes = bytesOf(m.getDst(), t.dims);
                         SwitchRanks reached = switchRanks(m.getGroup(), t.rank, n);
                         for (int64_t q = reached.first; q < reached.first + reached.count; ++q)
                           startSwitchFlow(t, switchLinks[q].first, bytes, Flow::Reduce);
                         startSwitchFlow(t, switchLinks[t.rank].second, bytes, Flow::Reduce);
                         return true;
                       })
                       .Case([&](MultimemStoreOp m) {
                         // One copy up, the switch's copies down to every rank.
                         int64_t bytes = bytesOf(m.getDst(), t.dims);
                         startSwitchFlow(t, switchLinks[t.rank].first, bytes, Flow::Store);
                         SwitchRanks reached = switchRanks(m.getGroup(), t.rank, n);
                         for (int64_t q = reached.first; q < reached.first + reached.count; ++q)
                           startSwitchFlow(t, switchLinks[q].second, bytes, Flow::Store);
                         return false; // lands while the next step runs
                       })
                       .Default([&](Operation *) {
                         if (options.trace)
                           record(trackOf(t), "recv", t.stepStart, now, 0);
                         return false;
                       });
    if (retry) {
      result.steps -= t.replicas * rankReplicas;
      return;
    }
    if (blocked) {
      // The step ends when its flow or local work does; wake() resumes it.
      t.op = nullptr;
      t.received = false;
      return;
    }
    t.op = nullptr;
  }
}

llvm::Expected<SimResult> Simulation::run() {
  if (auto map = program.getRankMap())
    for (int64_t world : *map)
      if (world >= machine.ranks())
        return llvm::createStringError(
            "schedule rank placed on world rank %lld, but the machine has %d GPUs",
            (long long)world, machine.ranks());
  if (!program.getRankMap() && n > machine.ranks())
    return llvm::createStringError(
        "the schedule has %lld ranks, but the machine has %d GPUs",
        (long long)n, machine.ranks());
  if (hasMultimemSteps(program)) {
    if (!machine.nvls)
      return llvm::createStringError(
          "the schedule reduces in the NVSwitch (NVLS), which %s does not have",
          machine.name.c_str());
    for (int64_t r = 0; r < n; ++r) {
      auto links = machine.nvSwitchLinks(program.worldRank(r));
      if (!links)
        return llvm::createStringError("rank %lld has no NVSwitch for NVLS",
                                       (long long)r);
      switchLinks.push_back(*links);
    }
  }
  if (options.foldSymmetricRanks && !options.trace) {
    int64_t q = symmetry->rankPeriod;
    if (q < n) {
      int shiftNodes = (program.worldRank(q) - program.worldRank(0)) / machine.gpusPerNode;
      linkImage = twinLinks(machine, shiftNodes);
      if (!linkImage.empty()) {
        period = q;
        rankReplicas = n / q;
      }
    }
  }
  now = baseLatencyUs(family, protocol);
  TaskIndex tasks(program);
  threads.reserve(period * classes.size());
  for (int64_t r = 0; r < period; ++r)
    for (auto [ch, replicas] : classes)
      threads.push_back(Thread{r, ch, replicas, StepWalker(tasks, r, ch)});
  for (int i = 0, e = threads.size(); i < e; ++i)
    wake(i, now);

  while (true) {
    // Everything due now, then the rates of the flows that started and
    // ended: one settling for all of them.
    bool due = true;
    while (due) {
      due = false;
      while (!wakes.empty() && std::get<0>(wakes.top()) <= now + kTieUs) {
        int i = std::get<2>(wakes.top());
        wakes.pop();
        if (!threads[i].done)
          advance(threads[i]);
      }
      if (!finishes.empty() && finishes.topTime() <= now + kTieUs) {
        int id = finishes.top();
        finishes.pop();
        finishFlow(id);
        due = true;
      }
    }
    settleRates();
    if (finishes.empty() && wakes.empty())
      break;
    double next = wakes.empty() ? 1e300 : std::get<0>(wakes.top());
    if (!finishes.empty())
      next = std::min(next, finishes.topTime());
    now = std::max(now, next);
    if (now > options.giveUpAfterUs || result.settleWork > options.giveUpAfterWork) {
      result.timeUs = now;
      result.gaveUp = true;
      return std::move(result);
    }
  }
  for (const Thread &t : threads)
    if (!t.done)
      return llvm::createStringError(
          "rank %lld channel %lld never finishes (the schedule deadlocks)",
          (long long)t.rank, (long long)t.channel);
  result.timeUs = now;
  return std::move(result);
}

/// Each link's twin among the first `shift` nodes' links (node k is like
/// node k mod shift), for a machine laid out as replicate() does; empty when
/// it is not, or when a link joins two switches of the network (shared by
/// every node, it has no twin).
std::vector<int> twinLinks(const Machine &machine, int shift) {
  const auto &devices = machine.devices();
  int64_t perNode = llvm::count_if(devices, [](const Device &d) { return d.node == 0; });
  auto twin = [&](int d) -> int {
    int node = devices[d].node;
    return node < 0 ? d : d - (node - node % shift) * perNode;
  };
  for (int d = 0, e = devices.size(); d < e; ++d) {
    int t = twin(d);
    if (t < 0 || t >= e || devices[t].kind != devices[d].kind ||
        (devices[d].node >= 0 && devices[t].node != devices[d].node % shift))
      return {};
  }
  const auto &links = machine.links();
  std::map<std::pair<int, int>, int> byEnds;
  for (int l = links.size() - 1; l >= 0; --l)
    byEnds[{links[l].from, links[l].to}] = l;
  std::vector<int> twins;
  for (const Link &link : links) {
    if (devices[link.from].node < 0 && devices[link.to].node < 0)
      return {};
    auto it = byEnds.find({twin(link.from), twin(link.to)});
    if (it == byEnds.end())
      return {};
    twins.push_back(it->second);
  }
  return twins;
}

/// The peer maps of a step: whom it sends to and receives from.
SmallVector<AffineMap, 2> peerMaps(Operation *op) {
  SmallVector<AffineMap, 2> maps;
  if (auto from = receivesFrom(op))
    maps.push_back(*from);
  TypeSwitch<Operation *>(op)
      .Case([&](SendOp s) { maps.push_back(s.getPeer()); })
      .Case([&](RecvReduceSendOp s) { maps.push_back(s.getTo()); })
      .Case([&](RecvCopySendOp s) { maps.push_back(s.getTo()); })
      .Case([&](SignalOp s) { maps.push_back(s.getPeer()); });
  return maps;
}

/// Whether moving every rank q on moves every step's peers q on, for ranks
/// below `ranks` and loop indices at their bounds (peer maps are affine: the
/// ends of each loop stand for it), in the tasks of `channels` (the others
/// run alike to one of them).
bool peersMoveWithRanks(ProgramOp program, int64_t q,
                        const llvm::SmallDenseSet<int64_t> &channels, int64_t ranks) {
  int64_t n = program.getRanks();
  MapCache maps;
  bool invariant = true;
  for (TaskOp task : program.getBody().front().getOps<TaskOp>()) {
    if (!channels.contains(task.getChannel()))
      continue;
    std::vector<int64_t> position(n);
    for (int64_t p = 0; p < n; ++p)
      position[task.scheduleRank(p)] = p;
    task.walk([&](Operation *op) {
      SmallVector<AffineMap, 2> peers = peerMaps(op);
      if (peers.empty() || !invariant)
        return;
      SmallVector<LoopOp> loops;
      for (Operation *parent = op->getParentOp(); parent != task;
           parent = parent->getParentOp())
        loops.insert(loops.begin(), cast<LoopOp>(parent));
      if (llvm::any_of(loops, [](LoopOp l) { return l.getUpper() <= l.getLower(); }))
        return;
      SmallVector<int64_t> dims(1 + loops.size());
      auto peerAt = [&](AffineMap peer, int64_t p) {
        dims[0] = p;
        return task.scheduleRank(evaluate(peer, dims, &maps));
      };
      for (unsigned corner = 0; corner < (1u << loops.size()); ++corner) {
        for (size_t i = 0; i < loops.size(); ++i)
          dims[1 + i] = corner >> i & 1 ? loops[i].getUpper() - 1 : loops[i].getLower();
        for (AffineMap peer : peers)
          for (int64_t p = 0; p < ranks && invariant; ++p)
            invariant = peerAt(peer, position[(task.scheduleRank(p) + q) % n]) ==
                        (peerAt(peer, p) + q) % n;
      }
    });
  }
  return invariant;
}

/// rankPeriod, given the program's channel classes.
int64_t periodOf(ProgramOp program, const Machine &machine,
                 ArrayRef<std::pair<int64_t, int64_t>> classes) {
  int64_t n = program.getRanks();
  int perNode = machine.gpusPerNode;
  if (machine.nodes < 2 || perNode <= 0)
    return n;
  if (llvm::any_of(program.getBody().front().getOps<TaskOp>(),
                   [](TaskOp task) { return task.getRank(); }))
    return n;
  // A rank's switch flows stay within its multimem blocks (its node's).
  int64_t block = std::max<int64_t>(multimemBlock(program), 1);
  llvm::SmallDenseSet<int64_t> representatives;
  for (auto [ch, replicas] : classes)
    representatives.insert(ch);
  for (int64_t q = 1; q < n; ++q) {
    int64_t shift = program.worldRank(q) - program.worldRank(0);
    if (n % q || q % block || shift <= 0 || shift % perNode)
      continue;
    bool periodic = true;
    for (int64_t r = 0; r + q < n && periodic; ++r)
      periodic = program.worldRank(r + q) - program.worldRank(r) == shift;
    // Rank 0 first: a period that fails mostly fails there, before every
    // step is tried for every rank.
    if (periodic && peersMoveWithRanks(program, q, representatives, 1) &&
        peersMoveWithRanks(program, q, representatives, n))
      return q;
  }
  return n;
}

/// Folds `symmetry`'s channel classes that are images of each other under
/// the machine's node symmetries, and finds the links' orbits under those.
void foldImages(ProgramOp program, const Machine &machine,
                const ChannelShapes &shapes, Symmetry &symmetry) {
  std::vector<RankSymmetry> symmetries = rankSymmetries(program, machine);
  if (symmetries.empty())
    return;
  std::vector<std::vector<int64_t>> permutations;
  std::vector<const NodeSymmetry *> of;
  for (RankSymmetry &symmetry : symmetries) {
    permutations.push_back(std::move(symmetry.ranks));
    of.push_back(symmetry.node);
  }
  auto images = shapes.images(symmetry.channelClasses, permutations);
  if (!images || hasMultimemSteps(program)) // NVLS flows use each rank's own switch links
    return;
  int numLinks = machine.links().size();
  symmetry.linkOrbit.assign(numLinks, -1);
  symmetry.orbitSize.assign(numLinks, 0);
  for (int l = 0; l < numLinks; ++l) {
    if (symmetry.linkOrbit[l] >= 0)
      continue;
    // The permutations and the identity are a group: l's images are its
    // orbit, and l comes first in it.
    SmallVector<int, 8> orbit{l};
    for (size_t p : images->permutations)
      if (!llvm::is_contained(orbit, of[p]->links[l]))
        orbit.push_back(of[p]->links[l]);
    for (int o : orbit)
      symmetry.linkOrbit[o] = l;
    symmetry.orbitSize[l] = orbit.size();
  }
  symmetry.channelClasses = std::move(images->classes);
}

} // namespace

int64_t ccopt::topo::rankPeriod(ProgramOp program, const Machine &machine) {
  return periodOf(program, machine, channelClasses(program));
}

std::vector<RankSymmetry> ccopt::topo::rankSymmetries(ProgramOp program,
                                                      const Machine &machine) {
  int64_t n = program.getRanks();
  llvm::DenseMap<int, int64_t> scheduleRank;
  for (int64_t r = 0; r < n; ++r)
    scheduleRank[program.worldRank(r)] = r;
  std::vector<RankSymmetry> symmetries;
  for (const NodeSymmetry &node : xorSymmetries(machine)) {
    RankSymmetry symmetry{{}, &node};
    for (int64_t r = 0; r < n; ++r) {
      auto it = scheduleRank.find(node.ranks[program.worldRank(r)]);
      if (it == scheduleRank.end())
        break;
      symmetry.ranks.push_back(it->second);
    }
    if (static_cast<int64_t>(symmetry.ranks.size()) == n)
      symmetries.push_back(std::move(symmetry));
  }
  return symmetries;
}

Symmetry ccopt::topo::symmetryOf(ProgramOp program, const Machine &machine) {
  ChannelShapes shapes(program);
  Symmetry symmetry{shapes.classes(), 0};
  symmetry.rankPeriod = periodOf(program, machine, symmetry.channelClasses);
  if (symmetry.rankPeriod == program.getRanks() && symmetry.channelClasses.size() > 1)
    foldImages(program, machine, shapes, symmetry);
  return symmetry;
}

TaskLoads ccopt::topo::taskLoads(ProgramOp program) {
  auto partBytes = [&](PartAttr part) {
    BufferKind kind = part.getBuffer();
    Type type = kind == BufferKind::Scratch ? program.getWireType() : program.getElementType();
    return program.getCount(kind) / part.getParts() * elementBytes(type);
  };
  TaskLoads loads;
  std::function<void(Block &, int64_t, std::pair<int64_t, int64_t> &)> add =
      [&](Block &block, int64_t times, std::pair<int64_t, int64_t> &load) {
        for (Operation &op : block)
          TypeSwitch<Operation *>(&op)
              .Case([&](LoopOp loop) {
                add(loop.getBody().front(),
                    times * std::max<int64_t>(0, loop.getUpper() - loop.getLower()), load);
              })
              .Case([&](SendOp s) { load.first += times * partBytes(s.getDst()); })
              .Case([&](RecvReduceSendOp s) { load.first += times * partBytes(s.getDst()); })
              .Case([&](RecvCopySendOp s) { load.first += times * partBytes(s.getDst()); })
              .Case([&](CopyOp c) { load.second += times * partBytes(c.getDst()); })
              .Case([&](ReduceOp r) { load.second += times * partBytes(r.getDst()); });
      };
  for (TaskOp task : program.getBody().front().getOps<TaskOp>())
    add(task.getBody().front(), 1, loads.sentAndLocal.emplace_back(0, 0));
  return loads;
}

double TaskLoads::lowerBoundUs(ProgramOp program, const Machine &machine,
                               Protocol protocol) const {
  double send = channelCap(machine, protocol, program.getChannels()) * kBytesPerUsPerGBps;
  double local = machine.channelBandwidth * kBytesPerUsPerGBps;
  double busiest = 0;
  for (auto [sent, copied] : sentAndLocal)
    busiest = std::max(busiest, sent / send + copied / local);
  return baseLatencyUs(familyOf(program), protocol) + busiest;
}

Protocol ccopt::topo::protocolOf(ProtocolKind kind) {
  switch (kind) {
  case ProtocolKind::LL: return Protocol::LL;
  case ProtocolKind::LL128: return Protocol::LL128;
  case ProtocolKind::Simple: return Protocol::Simple;
  }
  return Protocol::Simple;
}

llvm::Expected<SimResult> ccopt::topo::simulate(ProgramOp program,
                                                const Machine &machine,
                                                const SimOptions &options) {
  return Simulation(program, machine, options).run();
}

void ccopt::topo::writeChromeTrace(llvm::ArrayRef<TraceEvent> events,
                                   llvm::raw_ostream &os) {
  // Streamed: a large collective's trace has millions of events, far too
  // many to build as a json::Value first. One thread id per track, named
  // by metadata events; times in µs; keys in order, as json::Value prints.
  llvm::StringMap<int> tids;
  llvm::json::OStream json(os, 2);
  json.object([&] {
    json.attribute("displayTimeUnit", "ns");
    json.attributeArray("traceEvents", [&] {
      for (const TraceEvent &e : events) {
        auto [it, inserted] = tids.try_emplace(e.track, tids.size() + 1);
        int tid = it->second;
        if (inserted)
          json.object([&] {
            json.attributeObject("args", [&] { json.attribute("name", e.track); });
            json.attribute("name", "thread_name");
            json.attribute("ph", "M");
            json.attribute("pid", 1);
            json.attribute("tid", tid);
          });
        json.object([&] {
          json.attributeObject("args", [&] { json.attribute("bytes", e.bytes); });
          json.attribute("dur", e.endUs - e.startUs);
          json.attribute("name", e.name);
          json.attribute("ph", "X");
          json.attribute("pid", 1);
          json.attribute("tid", tid);
          json.attribute("ts", e.startUs);
        });
      }
    });
  });
}
