//===- RelayAllToAll.cpp - all-to-all over the machine's own links --------===//
//
// On a machine whose fast links do not join every pair of GPUs (v100x8's
// hybrid cube mesh: each GPU has NVLinks to four of the seven others), a
// direct all-to-all sends the other pairs' blocks over PCIe and the
// sockets' link, many times slower. Here those blocks take two NVLink hops
// instead: the sender writes each share of the block into a scratch slot of
// a GPU linked to both (that share's relay), which forwards it; shares of
// one block may take different relays, so that the links carry equal loads
// (nvlinkRelayShares). Every share (and every share of a direct block, and
// of the own block's copy) has a channel of its own where the channels
// allow, else the one where its senders have sent least: each channel runs
// one transfer after another, at one channel's rate, so the links are only
// kept busy by many at once. Shares go in rounds, a piece each round, the
// relays forwarding one round behind, so that both hops' links are busy
// from the start to the end. Every rank has its own tasks: who relays what
// depends on the links. The all-gather is the same exchange with one block
// for everyone: a relayed block goes to its relay twice (once for it, once
// to forward), so it pays where latency rules (two hops, not a ring's n-1).
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

namespace {

/// A share of the block from `src` to `dst` (its own block when they are
/// equal: a copy), directly or through `relay` (into its scratch slot
/// `slot`), on `channel`.
struct Transfer {
  int64_t src, dst, share, relay, slot, channel;
};

/// The all-to-all, or with `gather` the all-gather (`shape.count`: the
/// block each rank sends).
ProgramOp buildRelay(OpBuilder &b, Location loc, StringRef name,
                     const ccopt::AllReduceShape &shape, const ccopt::RelayShares &via,
                     int64_t channels, int64_t rounds, bool gather) {
  int64_t n = shape.ranks;
  channels = std::max<int64_t>(1, channels);
  assert(!shape.inPlace && (gather || shape.count % n == 0) && "out of place, whole blocks");
  int64_t shares = 1;
  for (const auto &row : via)
    for (const auto &relays : row)
      shares = std::max<int64_t>(shares, relays.size());
  int64_t block = gather ? shape.count : shape.count / n;
  rounds = std::clamp<int64_t>(rounds, 1, std::max<int64_t>(1, block / shares));
  // Every share, by distance then source; relayed share k in its relay's
  // first slot whose share k is free. Each goes on the channel where the
  // ranks that send it (source, relay) have sent least so far.
  std::vector<Transfer> transfers;
  std::vector<std::vector<int64_t>> used(n, std::vector<int64_t>(shares));
  std::vector<std::vector<int64_t>> load(n, std::vector<int64_t>(channels));
  for (int64_t s = 0; s < n; ++s)
    for (int64_t src = 0; src < n; ++src) {
      int64_t dst = (src + s) % n;
      for (int64_t k = 0; k < shares; ++k) {
        int64_t relay = via[src][dst].empty() ? -1 : via[src][dst][k];
        auto busy = [&](int64_t c) {
          return std::max(load[src][c], relay < 0 ? 0 : load[relay][c]);
        };
        int64_t channel = 0;
        for (int64_t c = 1; c < channels; ++c)
          if (busy(c) < busy(channel))
            channel = c;
        ++load[src][channel];
        if (relay >= 0)
          ++load[relay][channel];
        transfers.push_back({src, dst, k, relay, relay < 0 ? -1 : used[relay][k]++, channel});
      }
    }
  int64_t slots = 0;
  for (const auto &row : used)
    for (int64_t count : row)
      slots = std::max(slots, count);
  // More channels than a rank has transfers stay unused.
  channels = 1 + llvm::max_element(transfers, [](const Transfer &x, const Transfer &y) {
                   return x.channel < y.channel;
                 })->channel;
  auto program = buildProgram(b, loc, name,
                              gather ? ccl::CollectiveKind::AllGather
                                     : ccl::CollectiveKind::AllToAll,
                              shape, /*hasRedop=*/false, gather ? block : shape.count,
                              n * block, slots * block, std::nullopt, "relay", channels,
                              rounds);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  // Inside the rounds' loop the maps take its index too.
  unsigned dims = 1;
  auto rankAt = [&](int64_t r) { return fixedPeer(ctx, r, dims); };
  // Piece `q` (of the rounds) of share k of block j (of `blocks`), or the
  // whole share (no q).
  auto piece = [&](BufferKind kind, int64_t j, int64_t k, std::optional<AffineExpr> q,
                   int64_t blocks) {
    int64_t index = j * shares + k;
    if (!q)
      return fixedPart(ctx, kind, index, blocks * shares);
    return PartAttr::get(ctx, kind, AffineMap::get(dims, 0, *q + index * rounds),
                         blocks * shares * rounds);
  };
  auto sent = [&](const Transfer &t, std::optional<AffineExpr> q) {
    return gather ? piece(BufferKind::Input, 0, t.share, q, 1)
                  : piece(BufferKind::Input, t.dst, t.share, q, n);
  };
  auto landed = [&](const Transfer &t, std::optional<AffineExpr> q) {
    return piece(BufferKind::Output, t.src, t.share, q, n);
  };
  auto slotOf = [&](const Transfer &t, AffineExpr q) {
    return piece(BufferKind::Scratch, t.slot, t.share, q, slots);
  };
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t r = 0; r < n; ++r) {
      buildRankTask(b, loc, program, c, r);
      auto mine = [&](auto keep) {
        return llvm::make_filter_range(transfers, [&, keep](const Transfer &t) {
          return t.channel == c && t.src != t.dst && keep(t);
        });
      };
      // Round q (of 0 .. rounds + 1): this round's pieces out (direct ones,
      // then those to a relay), last round's relayed pieces forwarded, the
      // relayed pieces of the round before and this round's direct ones in,
      // each where the round has them. Between two ranks the messages come
      // in the same order on both sides.
      auto round = [&](AffineExpr q, bool out, bool forward, bool relayedIn, bool directIn) {
        for (bool relayed : {false, true})
          for (const Transfer &t : mine([&](const Transfer &t) {
                 return out && t.src == r && (t.relay >= 0) == relayed;
               }))
            SendOp::create(b, loc, sent(t, q), rankAt(relayed ? t.relay : t.dst),
                           relayed ? slotOf(t, q) : landed(t, q));
        for (const Transfer &t : mine([&](const Transfer &t) { return forward && t.relay == r; })) {
          RecvOp::create(b, loc, rankAt(t.src), slotOf(t, q - 1));
          SendOp::create(b, loc, slotOf(t, q - 1), rankAt(t.dst), landed(t, q - 1));
        }
        for (const Transfer &t : mine([&](const Transfer &t) {
               return relayedIn && t.dst == r && t.relay >= 0;
             }))
          RecvOp::create(b, loc, rankAt(t.relay), landed(t, q - 2));
        for (const Transfer &t : mine([&](const Transfer &t) {
               return directIn && t.dst == r && t.relay < 0;
             }))
          RecvOp::create(b, loc, rankAt(t.src), landed(t, q));
      };
      auto fixedRound = [&](int64_t q) {
        round(getAffineConstantExpr(q, ctx), q < rounds, q >= 1 && q <= rounds, q >= 2,
              q < rounds);
      };
      // Rounds 2 .. rounds-1 have every kind: one loop.
      for (int64_t q = 0; q < std::min<int64_t>(2, rounds + 2); ++q)
        fixedRound(q);
      buildLoop(b, loc, 2, rounds, [&] {
        dims = 2;
        round(getAffineDimExpr(1, ctx), true, true, true, true);
        dims = 1;
      });
      for (int64_t q = std::max<int64_t>(2, rounds); q < rounds + 2; ++q)
        fixedRound(q);
      // The own block's shares last, beside the other channels' transfers.
      for (const Transfer &t : transfers)
        if (t.channel == c && t.src == r && t.dst == r)
          CopyOp::create(b, loc, sent(t, std::nullopt), landed(t, std::nullopt));
    }
  return program;
}

} // namespace

ProgramOp ccopt::buildRelayAllToAll(OpBuilder &b, Location loc, StringRef name,
                                    const AllReduceShape &shape, const RelayShares &via,
                                    int64_t channels, int64_t rounds) {
  return buildRelay(b, loc, name, shape, via, channels, rounds, /*gather=*/false);
}

ProgramOp ccopt::buildRelayAllGather(OpBuilder &b, Location loc, StringRef name,
                                     const AllReduceShape &shape, const RelayShares &via,
                                     int64_t channels, int64_t rounds) {
  return buildRelay(b, loc, name, shape, via, channels, rounds, /*gather=*/true);
}
