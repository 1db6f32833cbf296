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
  let summary = "Pick each collective's algorithm, protocol, channels and chunks by simulation";
  let description = [{
    For every collective and send/recv: candidates are the algorithms that
    can build it on the machine, each over a range of channel counts and
    pipelined chunks; each is built as a schedule and simulated on the
    machine under Simple and, where its mailbox fits (no region over NCCL's
    buffer for one connection: LL 512 KiB, LL128 4.7 MB; 256 MiB a rank in
    all), under LL and LL128. Every power-of-two channel count up to twice NCCL's
    is tried, and for each the chunks double only while that gets faster;
    candidates over a budget of simulated steps are skipped (at least one
    per algorithm runs), so the search stays small at thousands of ranks; a
    chain cut short there goes on from its best, doubling its pieces or its
    channels while that gets faster, up to 16 budgets. The winner is
    written on the op (`algorithm`, `channels`, `chunks`, `protocol`,
    `predicted_us`)
    with the runner-up (`runner_up`, `runner_up_us`); ccl-lower-to-sched
    builds what it names.
  }];
  let options = [
    Option<"topo", "topo", "std::string", /*default=*/"\"\"", "machine preset">,
    Option<"topoFile", "topo-file", "std::string", /*default=*/"\"\"",
           "machine file (JSON or NCCL topology XML)">,
    Option<"nodes", "nodes", "int", /*default=*/"1", "number of such nodes">,
    Option<"stepBudget", "step-budget", "int64_t", /*default=*/"1 << 20",
           "simulated steps a candidate may take (about a second of "
           "simulation); a chain that fills only beyond it goes on to 16 budgets">,
  ];
  let dependentDialects = ["::mlir::sched::SchedDialect"];
}

def CclLowerToSched : Pass<"ccl-lower-to-sched", "::mlir::ModuleOp"> {
  let summary = "Lower ccl collectives to sched programs";
  let description = [{
    Each collective becomes a `sched.program` next to its `ccl.program`, and
    the collective names it in its `schedule` attribute. all_reduce lowers to
    the algorithm its `algorithm` attribute (or the `algorithm` option)
    names: by default a ring: reduce-scatter then all-gather, each of the n
    ring parts split into `chunks` pipelined pieces, the buffer split across
    `channels`; or NCCL's double binary tree, one-shot or two-shot direct
    exchanges, or recursive doubling. With
    a machine, the ring visits the ranks in the order whose slowest hop is
    fastest (`rank_map`); a collective's `protocol` (`simple` or `ll`)
    becomes its program's.
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
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"\"",
           "all_reduce algorithm where the op names none: ring (default), "
           "tree, oneshot, twoshot, recursive_doubling">,
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

    Given a machine, every rank must be one of its GPUs and every message
    must have a route between the two GPUs; a program's `links` attribute
    ("nvlink", "pcie", "smp" or "net") names the most remote kind of link a
    message may take (`links = "nvlink"`: no message leaves NVLink).
  }];
  let options = [
    Option<"raceCheckLimit", "race-check-limit", "int64_t", /*default=*/"256",
           "largest ranks x channels for the happens-before race check">,
    Option<"topo", "topo", "std::string", /*default=*/"\"\"",
           "machine preset: every message must have a route on it">,
    Option<"topoFile", "topo-file", "std::string", /*default=*/"\"\"",
           "machine file (JSON or NCCL topology XML)">,
    Option<"nodes", "nodes", "int", /*default=*/"1", "number of such nodes">,
  ];
}

def CclCompressWire : Pass<"ccl-compress-wire", "::mlir::ModuleOp"> {
  let summary = "Send every f32 reduction in a 16-bit float type on the wire";
  let description = [{
    Gives every f32 `all_reduce`, `reduce_scatter` and `reduce` without a
    `compress` attribute `compress = wire` (what `ccopt --compress=f16|bf16`
    runs). Lowering then sends every byte in the wire type, accumulates in
    f32 at each hop and divides `avg` inputs before they are sent.
  }];
  let options = [
    Option<"wire", "wire", "std::string", /*default=*/"\"f16\"",
           "wire type: f16 or bf16">,
  ];
}

def CclFuseBuckets : Pass<"ccl-fuse-buckets", "::mlir::ModuleOp"> {
  let summary = "Fuse consecutive small all_reduces into one over a flat bucket";
  let description = [{
    Consecutive `all_reduce`s with the same reduction, group, element type
    and compression, on distinct buffers, become one `all_reduce` over a
    `ccl.bucket` of their buffers (inputs and outputs each in a bucket when
    not in place), as long as the bucket stays within `cap-mb` MiB (DDP's
    bucket_cap_mb, 25 by default). A collective at or above the cap stays
    alone. The fused collective sits where the last of its members was.
  }];
  let options = [
    Option<"capMb", "cap-mb", "double", /*default=*/"25.0",
           "largest bucket in MiB (must be positive)">,
  ];
}

def CclPlanOverlap : Pass<"ccl-plan-overlap", "::mlir::ModuleOp"> {
  let summary = "Choose buckets, issue order and channels to hide communication behind compute";
  let description = [{
    For a program whose buffers become ready at `ccl.ready` events and a
    compute profile (JSON: each event's compute time), replaces the
    all_reduces of ready buffers with bucketed all_reduces, issued as soon
    as their last member is ready, and picks the channels (SMs) they take:
    the step is simulated with compute slowed by the SMs communication holds
    (time x SMs / (SMs - channels) while a collective runs), and the plan
    with the shortest step wins. The plan and the DDP and no-overlap
    baselines are written on the program (`overlap_*` attributes).
  }];
  let options = [
    Option<"profile", "profile", "std::string", /*default=*/"\"\"",
           "compute profile (JSON)">,
    Option<"topo", "topo", "std::string", /*default=*/"\"\"", "machine preset">,
    Option<"topoFile", "topo-file", "std::string", /*default=*/"\"\"",
           "machine file (JSON or NCCL topology XML)">,
    Option<"nodes", "nodes", "int", /*default=*/"1", "number of such nodes">,
  ];
  let dependentDialects = ["::mlir::sched::SchedDialect"];
}

def SchedFuseSteps : Pass<"sched-fuse-steps", "::mlir::ModuleOp"> {
  let summary = "Fuse recv + reduce + send, recv + send and copy + send into single steps";
  let description = [{
    In hand-written schedules: `recv from P; reduce A, B -> X; send X to Q
    at D` becomes `recv_reduce_send from P A, B store X to Q at D`,
    `recv from P; send X to Q at D` becomes `recv_copy_send from P X to Q
    at D`, and `copy S -> X; send S to Q at D` becomes `send S to Q at D
    store X`: one pass over memory instead of two, one step instead of two
    or three. The lowering builds the fused forms directly.
  }];
}

#endif
