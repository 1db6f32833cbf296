//===- Passes.td - ccopt passes -----------------------------*- tablegen -*-===//

#ifndef CCOPT_PASSES_TD
#define CCOPT_PASSES_TD

include "mlir/Pass/PassBase.td"

def CclAssignWorld : Pass<"ccl-assign-world", "::mlir::ModuleOp"> {
  let summary = "Give every ccl.program the machine's ranks as its world";
  let description = [{
    A program without `world` runs on every GPU of the machine; a program that
    names a world must fit on the machine.
  }];
  let options = [
    Option<"topo", "topo", "std::string", /*default=*/"\"\"",
           "machine preset (e.g. a100x8)">,
    Option<"topoFile", "topo-file", "std::string", /*default=*/"\"\"",
           "machine file (JSON or NCCL topology XML)">,
    Option<"nodes", "nodes", "int", /*default=*/"1",
           "number of such nodes">,
  ];
}

def CclSelectAlgorithm : Pass<"ccl-select-algorithm", "::mlir::ModuleOp"> {
  let summary = "Pick each all_reduce's algorithm, channels and chunks by simulation";
  let description = [{
    For every all_reduce: candidates are the ring and the tree, each over a
    range of channel counts and pipelined chunks; each is built as a
    schedule and simulated on the machine (Simple protocol, the one emitted
    kernels implement). Every power-of-two channel count up to twice NCCL's
    is tried, and for each the chunks double only while that gets faster;
    candidates over a budget of simulated steps are skipped (at least one
    per algorithm runs), so the search stays small at thousands of ranks. The winner is
    written on the op (`algorithm`, `channels`, `chunks`, `predicted_us`)
    with the runner-up (`runner_up`, `runner_up_us`); ccl-lower-to-sched
    builds what it names.
  }];
  let options = [
    Option<"topo", "topo", "std::string", /*default=*/"\"\"", "machine preset">,
    Option<"topoFile", "topo-file", "std::string", /*default=*/"\"\"",
           "machine file (JSON or NCCL topology XML)">,
    Option<"nodes", "nodes", "int", /*default=*/"1", "number of such nodes">,
  ];
  let dependentDialects = ["::mlir::sched::SchedDialect"];
}

def CclLowerToSched : Pass<"ccl-lower-to-sched", "::mlir::ModuleOp"> {
  let summary = "Lower ccl collectives to sched programs";
  let description = [{
    Each collective becomes a `sched.program` next to its `ccl.program`, and
    the collective names it in its `schedule` attribute. all_reduce lowers to
    a ring: reduce-scatter then all-gather, each of the n ring parts split
    into `chunks` pipelined pieces, the buffer split across `channels`. With
    a machine, the ring visits the ranks in the order whose slowest hop is
    fastest (`rank_map`).
  }];
  let options = [
    Option<"chunks", "chunks", "int64_t", /*default=*/"0",
           "pipelined pieces per ring part (0: pieces of about 512 KiB)">,
    Option<"channels", "channels", "int64_t", /*default=*/"0",
           "channels (thread blocks) per rank (0: as many as NCCL uses on "
           "the machine, 1 without one)">,
    Option<"topo", "topo", "std::string", /*default=*/"\"\"",
           "machine preset: rings follow its fastest links">,
    Option<"topoFile", "topo-file", "std::string", /*default=*/"\"\"",
           "machine file (JSON or NCCL topology XML)">,
    Option<"nodes", "nodes", "int", /*default=*/"1", "number of such nodes">,
  ];
  let dependentDialects = ["::mlir::sched::SchedDialect"];
}

def SchedVerify : Pass<"sched-verify", "::mlir::ModuleOp"> {
  let summary = "Prove every sched.program computes its collective";
  let description = [{
    Executes each schedule symbolically on every rank: each output element
    must hold exactly the contributions the collective requires (every
    rank's input once for reductions, the right source for copies); no part
    is read before it arrives or overwritten before it is read (happens-before
    over the messages); every receive has its send and there is no circular
    wait. Diagnostics name the rank, channel, step and part.
  }];
  let options = [
    Option<"raceCheckLimit", "race-check-limit", "int64_t", /*default=*/"256",
           "largest ranks x channels for the happens-before race check">,
  ];
}

#endif
