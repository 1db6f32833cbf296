//===- SchedOps.td - the sched dialect ----------------------*- tablegen -*-===//
//
// sched says *how*: for every rank and channel, an ordered program of
// transfers on parts of buffers. Index expressions are affine maps of
// (rank, enclosing loop indices...), so a ring over 4096 ranks is as small as
// a ring over 8.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_DIALECT_SCHED_SCHEDOPS_TD
#define CCOPT_DIALECT_SCHED_SCHEDOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/SymbolInterfaces.td"

def Sched_Dialect : Dialect {
  let name = "sched";
  let cppNamespace = "::mlir::sched";
  let summary = "Communication schedules: who moves which part where, in order";
  let description = [{
    A `sched.program` is the schedule of one collective for `ranks` ranks and
    `channels` channels. Each rank runs, per channel, the `sched.task`s that
    apply to it in order. Data moves by remote writes: a send writes a part of
    a local buffer into a part of the peer's buffer, then signals the peer; the
    peer's matching `recv` (the k-th from that sender on that channel) waits for
    the signal.
  }];
  let dependentDialects = ["::mlir::ccl::CclDialect"];
  let useDefaultAttributePrinterParser = 1;
}

def Sched_BufferKind : I32EnumAttr<"BufferKind", "buffer of a rank", [
  I32EnumAttrCase<"Input", 0, "input">,
  I32EnumAttrCase<"Output", 1, "output">,
  I32EnumAttrCase<"Scratch", 2, "scratch">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::sched";
}

def Sched_BufferKindAttr : EnumAttr<Sched_Dialect, Sched_BufferKind, "buffer_kind">;

def Sched_ProtocolKind : I32EnumAttr<"ProtocolKind", "how messages travel", [
  I32EnumAttrCase<"Simple", 0, "simple">,
  I32EnumAttrCase<"LL", 1, "ll">,
  I32EnumAttrCase<"LL128", 2, "ll128">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::sched";
}

def Sched_ProtocolKindAttr : EnumAttr<Sched_Dialect, Sched_ProtocolKind, "protocol">;

def Sched_PartAttr : AttrDef<Sched_Dialect, "Part"> {
  let mnemonic = "part";
  let summary = "part `index` of `parts` nearly equal parts of a buffer";
  let description = [{
    Part i of P parts of a buffer of C elements covers [i*C/P, (i+1)*C/P), so
    any count splits into any number of parts. `index` is an affine map of
    (rank, loop indices...) to the part.

    ```mlir
    <output, (d0, d1) -> ((d0 - d1) mod 8), 8>
    ```
  }];
  let parameters = (ins "BufferKind":$buffer, "::mlir::AffineMap":$index,
                        "int64_t":$parts);
  let assemblyFormat = "`<` $buffer `,` $index `,` $parts `>`";
  let genVerifyDecl = 1;
}

// ccl's enums, reused so both layers agree on what a collective is.
class Sched_CclEnum<string cls, string enumCls, string desc>
    : Attr<CPred<"::llvm::isa<::mlir::ccl::" # cls # ">($_self)">, desc> {
  let storageType = "::mlir::ccl::" # cls;
  let returnType = "::mlir::ccl::" # enumCls;
  let convertFromStorage = "$_self.getValue()";
  let constBuilderCall = "::mlir::ccl::" # cls # "::get($_builder.getContext(), $0)";
}
def Sched_CollectiveAttr : Sched_CclEnum<"CollectiveKindAttr", "CollectiveKind", "collective">;
def Sched_RedOpAttr : Sched_CclEnum<"ReductionKindAttr", "ReductionKind", "reduction">;

class Sched_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sched_Dialect, mnemonic, traits>;

def Sched_ProgramOp : Sched_Op<"program", [Symbol, NoTerminator, SingleBlock,
    IsolatedFromAbove]> {
  let summary = "the schedule of one collective";
  let description = [{
    Buffers: `input` and `output` (the collective's, `input_count` and
    `output_count` elements of `element_type`; the same memory when
    `in_place`) and `scratch` (`scratch_count` elements of `wire`, which
    defaults to the element type; remote writes into scratch travel in it).
    Schedule rank i runs on world rank `rank_map[i]` (identity without it):
    how a group's collective or a ring in a machine-friendly order is placed.
    `prescale` (avg only): every step that reads the input reads it divided
    by the ranks, so sums stay in the range of a narrow wire type and
    nothing is finalized at the end.
    `multicast`: the input and output are bound to multicast objects (the
    caller's `ccl.buffer ... multicast`), which NVLS steps need.
    `protocol` (default `simple`): how every message travels. Simple writes
    the data into the peer's part, then a flag. LL (NCCL's low-latency
    protocol) writes 8-byte lines of 4 data bytes and a 4-byte flag into a
    mailbox of the receiver, whose `recv` copies them into the part (every
    data `recv` must then name it: `into`).

    ```mlir
    sched.program @ring attributes {collective = #ccl<collective all_reduce>,
        redop = #ccl<redop sum>, ranks = 2 : i64, channels = 1 : i64,
        element_type = f32, input_count = 64 : i64, output_count = 64 : i64,
        scratch_count = 64 : i64, algorithm = "ring"} {
      sched.task channel 0 {
        sched.send <input, (d0) -> (d0), 2> to affine_map<(d0) -> ((d0 + 1) mod 2)>
            at <scratch, (d0) -> (d0), 2>
        ...
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Sched_CollectiveAttr:$collective,
      OptionalAttr<Sched_RedOpAttr>:$redop, I64Attr:$ranks, I64Attr:$channels,
      TypeAttr:$element_type, OptionalAttr<TypeAttr>:$wire,
      I64Attr:$input_count, I64Attr:$output_count, I64Attr:$scratch_count,
      OptionalAttr<I64Attr>:$root, UnitAttr:$in_place, StrAttr:$algorithm,
      DefaultValuedAttr<I64Attr, "1">:$chunks,
      OptionalAttr<DenseI64ArrayAttr>:$rank_map, UnitAttr:$prescale,
      OptionalAttr<Sched_ProtocolKindAttr>:$protocol, UnitAttr:$multicast);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Element type of the scratch buffer and of writes into it.
    ::mlir::Type getWireType() {
      return getWire() ? *getWire() : getElementType();
    }
    /// Elements of a buffer of this program.
    int64_t getCount(BufferKind kind);
    /// The protocol messages travel in (simple without the attribute).
    ProtocolKind getProtocolKind() {
      auto protocol = getProtocol();
      return protocol ? *protocol : ProtocolKind::Simple;
    }
    /// World rank that schedule rank `rank` runs on.
    int64_t worldRank(int64_t rank) {
      auto map = getRankMap();
      return map ? (*map)[rank] : rank;
    }
  }];
}

def Sched_TaskOp : Sched_Op<"task", [HasParent<"ProgramOp">, NoTerminator,
    SingleBlock]> {
  let summary = "what a channel of every rank (or of one rank) runs";
  let description = [{
    Without `rank` the body is parametric in the rank (dimension d0 of every
    index map); with it, it runs on that rank only (hand-written schedules).
    `rank_map` renumbers the ranks for this task: d0 and every peer are
    positions, and position i is schedule rank rank_map[i]. One parametric
    ring then follows a different order of the machine on every channel.

    ```mlir
    sched.task channel 0 { ... }
    sched.task channel 1 rank 3 { ... }
    ```
  }];
  let arguments = (ins I64Attr:$channel, OptionalAttr<I64Attr>:$rank,
                       OptionalAttr<DenseI64ArrayAttr>:$rank_map);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`channel` $channel (`rank` $rank^)? attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Schedule rank of the task's rank `logical` (d0 and peers are
    /// logical: a ring visits rank_map[0], rank_map[1], ...).
    int64_t scheduleRank(int64_t logical) {
      auto map = getRankMap();
      return map ? (*map)[logical] : logical;
    }
    /// The task's logical rank of schedule rank `rank`.
    int64_t logicalRank(int64_t rank);
  }];
}

def Sched_LoopOp : Sched_Op<"loop", [ParentOneOf<["TaskOp", "LoopOp"]>,
    NoTerminator, SingleBlock]> {
  let summary = "repeat the body for i in [lower, upper)";
  let description = [{
    Adds one dimension to the index maps inside: (rank, outer..., i).

    ```mlir
    sched.loop 1 to 7 { ... }
    ```
  }];
  let arguments = (ins I64Attr:$lower, I64Attr:$upper);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$lower `to` $upper attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

// Steps: ops inside tasks and loops; their maps take (rank, loop indices...).
class Sched_StepOp<string mnemonic> : Sched_Op<mnemonic,
    [ParentOneOf<["TaskOp", "LoopOp"]>]> {
  let hasVerifier = 1;
}

def Sched_CopyOp : Sched_StepOp<"copy"> {
  let summary = "local copy of a part";
  let description = [{
    ```mlir
    sched.copy <input, (d0) -> (d0), 8> -> <output, (d0) -> (d0), 8>
    ```
  }];
  let arguments = (ins Sched_PartAttr:$src, Sched_PartAttr:$dst);
  let assemblyFormat = "$src `->` $dst attr-dict";
}

def Sched_ReduceOp : Sched_StepOp<"reduce"> {
  let summary = "local dst = lhs (op) rhs";
  let description = [{
    `finalize` applies the reduction's last step (avg: divide by the ranks).

    ```mlir
    sched.reduce <scratch, (d0) -> (d0), 8>, <input, (d0) -> (d0), 8>
        -> <output, (d0) -> (d0), 8>
    ```
  }];
  let arguments = (ins Sched_PartAttr:$lhs, Sched_PartAttr:$rhs,
                       Sched_PartAttr:$dst, UnitAttr:$finalize);
  let assemblyFormat = "$lhs `,` $rhs `->` $dst (`finalize` $finalize^)? attr-dict";
}

def Sched_SendOp : Sched_StepOp<"send"> {
  let summary = "write a local part into a part of the peer's buffer, then signal";
  let description = [{
    With `store`, the part is also written into a local part in the same
    pass over memory (NCCL's directCopySend: an out-of-place broadcast's
    root or all-gather's own block, into the output while it goes out).

    ```mlir
    sched.send <input, (d0) -> (d0), 8> to affine_map<(d0) -> ((d0 + 1) mod 8)>
        at <scratch, (d0) -> (d0), 8>
    sched.send <input, (d0) -> (0), 8> to affine_map<(d0) -> (1)>
        at <output, (d0) -> (0), 8> store <output, (d0) -> (0), 8>
    ```
  }];
  let arguments = (ins Sched_PartAttr:$src, AffineMapAttr:$peer, Sched_PartAttr:$dst,
                       OptionalAttr<Sched_PartAttr>:$store);
  let assemblyFormat = "$src `to` $peer `at` $dst (`store` $store^)? attr-dict";
  let builders = [
    // Without a local store (what most schedules send).
    OpBuilder<(ins "PartAttr":$src, "::mlir::AffineMapAttr":$peer, "PartAttr":$dst), [{
      build($_builder, $_state, src, peer, dst, PartAttr());
    }]>
  ];
}

def Sched_RecvOp : Sched_StepOp<"recv"> {
  let summary = "wait for the next message from the peer";
  let description = [{
    `into` names the local part the matching send writes (sched-verify
    checks it). Under the LL protocol the data arrives in a mailbox and the
    recv copies it there, so every recv of data must name it; a recv of a
    `signal` has none.

    ```mlir
    sched.recv from affine_map<(d0) -> ((d0 + 7) mod 8)>
        into <scratch, (d0) -> ((d0 + 7) mod 8), 8>
    ```
  }];
  let arguments = (ins AffineMapAttr:$peer, OptionalAttr<Sched_PartAttr>:$into);
  let assemblyFormat = "`from` $peer (`into` $into^)? attr-dict";
  let builders = [
    // A recv of a signal (no data).
    OpBuilder<(ins "::mlir::AffineMapAttr":$peer), [{
      build($_builder, $_state, peer, PartAttr());
    }]>
  ];
}

def Sched_RecvReduceSendOp : Sched_StepOp<"recv_reduce_send"> {
  let summary = "wait for `from`, reduce what arrived with a local part, send the result on";
  let description = [{
    One pass over memory: x = recvd (op) local; optionally kept in `store`;
    written into `to`'s `dst`, then `to` is signalled.

    ```mlir
    sched.recv_reduce_send from affine_map<(d0) -> ((d0 + 7) mod 8)>
        <scratch, (d0) -> (d0), 8>, <input, (d0) -> (d0), 8>
        to affine_map<(d0) -> ((d0 + 1) mod 8)> at <scratch, (d0) -> (d0), 8>
    ```
  }];
  let arguments = (ins AffineMapAttr:$from, Sched_PartAttr:$recvd,
      Sched_PartAttr:$local, OptionalAttr<Sched_PartAttr>:$store,
      UnitAttr:$finalize, AffineMapAttr:$to, Sched_PartAttr:$dst);
  let assemblyFormat = [{
    `from` $from $recvd `,` $local (`store` $store^)? (`finalize` $finalize^)?
    `to` $to `at` $dst attr-dict
  }];
}

def Sched_RecvCopySendOp : Sched_StepOp<"recv_copy_send"> {
  let summary = "wait for `from`, forward what arrived to `to`";
  let description = [{
    One pass over memory: what arrived is read once, written into `to`'s
    `dst` (and, with `store`, into a local part too, e.g. from wire-typed
    scratch into the output), then `to` is signalled.

    ```mlir
    sched.recv_copy_send from affine_map<(d0) -> ((d0 + 7) mod 8)>
        <output, (d0) -> (d0), 8>
        to affine_map<(d0) -> ((d0 + 1) mod 8)> at <output, (d0) -> (d0), 8>
    ```
  }];
  let arguments = (ins AffineMapAttr:$from, Sched_PartAttr:$recvd,
      AffineMapAttr:$to, Sched_PartAttr:$dst, OptionalAttr<Sched_PartAttr>:$store);
  let assemblyFormat = [{
    `from` $from $recvd (`store` $store^)? `to` $to `at` $dst attr-dict
  }];
  let builders = [
    // Without a local store (what most schedules forward).
    OpBuilder<(ins "::mlir::AffineMapAttr":$from, "PartAttr":$recvd,
                   "::mlir::AffineMapAttr":$to, "PartAttr":$dst), [{
      build($_builder, $_state, from, recvd, to, dst, PartAttr());
    }]>
  ];
}

def Sched_SignalOp : Sched_StepOp<"signal"> {
  let summary = "signal the peer without data";
  let description = [{
    Counts as a message: the peer's matching `recv` waits for it. Barriers
    and the end of in-switch phases are made of signals.

    ```mlir
    sched.signal to affine_map<(d0) -> ((d0 + 1) mod 8)>
    ```
  }];
  let arguments = (ins AffineMapAttr:$peer);
  let assemblyFormat = "`to` $peer attr-dict";
}

def Sched_MultimemReduceOp : Sched_StepOp<"multimem_reduce"> {
  let summary = "read a part of every rank's buffer through the NVSwitch, reduced";
  let description = [{
    NVLS (NVSwitch multicast with in-switch reduction): the switch reads the
    part from every rank's input (or output) and returns the reduction,
    written to the local destination. Only machines with NVLS run it
    (multimem.ld_reduce, sm_90), only in a `multicast` program under Simple,
    and only for what the switch reduces (`multimemReduces`). With `group
    G` the switch reaches this rank's block of G consecutive ranks (rank r:
    ranks r - r mod G to r - r mod G + G - 1, e.g. its node's, each block
    bound to a multicast object of its own) instead of every rank.

    ```mlir
    sched.multimem_reduce <input, (d0) -> (d0), 8> -> <output, (d0) -> (d0), 8>
    sched.multimem_reduce <input, (d0) -> (d0 mod 8), 8> -> <output, (d0) -> (d0 mod 8), 8> group 8
    ```
  }];
  let arguments = (ins Sched_PartAttr:$src, Sched_PartAttr:$dst, UnitAttr:$finalize,
                       OptionalAttr<I64Attr>:$group);
  let assemblyFormat = "$src `->` $dst (`finalize` $finalize^)? (`group` $group^)? attr-dict";
}

def Sched_MultimemStoreOp : Sched_StepOp<"multimem_store"> {
  let summary = "write a part into that part of every rank's buffer through the NVSwitch";
  let description = [{
    NVLS multicast store: one write of a local part, replicated by the
    switch into that part of every rank's output (a `multicast` program);
    with `group G`, of every rank of this rank's block of G (as
    `multimem_reduce`).

    ```mlir
    sched.multimem_store <output, (d0) -> (d0), 8> -> <output, (d0) -> (d0), 8>
    ```
  }];
  let arguments = (ins Sched_PartAttr:$src, Sched_PartAttr:$dst, OptionalAttr<I64Attr>:$group);
  let assemblyFormat = "$src `->` $dst (`group` $group^)? attr-dict";
}

#endif
