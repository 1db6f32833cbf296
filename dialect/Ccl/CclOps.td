//===- CclOps.td - ccl operations ---------------------------*- tablegen -*-===//

#ifndef CCOPT_DIALECT_CCL_CCLOPS_TD
#define CCOPT_DIALECT_CCL_CCLOPS_TD

include "dialect/Ccl/CclBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

class Ccl_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ccl_Dialect, mnemonic, traits>;

def Ccl_ProgramOp : Ccl_Op<"program", [Symbol, SymbolTable, NoTerminator,
    SingleBlock, IsolatedFromAbove]> {
  let summary = "an SPMD communication program";
  let description = [{
    The body runs on every rank of the world. `world` fixes the number of
    ranks; without it the machine (`--topo`) sets it.

    ```mlir
    ccl.program @step world(8) {
      %g = ccl.buffer "grads" : !ccl.buffer<4096xf32>
      ccl.all_reduce sum %g -> %g : !ccl.buffer<4096xf32> -> !ccl.buffer<4096xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, OptionalAttr<I64Attr>:$world);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name (`world` `(` $world^ `)`)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Ccl_GroupOp : Ccl_Op<"group", [Symbol, HasParent<"ProgramOp">]> {
  let summary = "a named subgroup of the world's ranks";
  let description = [{
    Collectives that name the group run among its ranks only; rank `i` of the
    group is world rank `ranks[i]`.

    ```mlir
    ccl.group @tp ranks [0, 1, 2, 3]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, DenseI64ArrayAttr:$ranks);
  let assemblyFormat = "$sym_name `ranks` $ranks attr-dict";
  let hasVerifier = 1;
}

def Ccl_BufferOp : Ccl_Op<"buffer", [HasParent<"ProgramOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "a buffer every rank holds";
  let description = [{
    `name` is how the runtime binds it to the caller's memory. `multicast`:
    the caller binds memory the runtime has bound to a multicast object on
    every GPU (ccopt::rt::MulticastBuffers; NCCL's registered buffers), so
    that an NVSwitch with NVLS can reduce and replicate it in the switch.

    ```mlir
    %g = ccl.buffer "grads" : !ccl.buffer<4096xf32>
    %h = ccl.buffer "acts" multicast : !ccl.buffer<4096xbf16>
    ```
  }];
  let arguments = (ins StrAttr:$name, UnitAttr:$multicast);
  let results = (outs Ccl_BufferType:$result);
  let assemblyFormat = "$name (`multicast` $multicast^)? attr-dict `:` qualified(type($result))";
}

// Common shape of the collectives: input -> output over the world or a group.
class Ccl_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Ccl_Op<mnemonic, !listconcat(traits, [HasParent<"ProgramOp">,
        DeclareOpInterfaceMethods<SymbolUserOpInterface>])> {
  let hasVerifier = 1;
  code commonDecls = [{
    /// Checks what depends on the number of participating ranks `n`.
    ::mlir::LogicalResult verifyForRanks(int64_t n);
  }];
  let extraClassDeclaration = commonDecls;
}

def Ccl_AllReduceOp : Ccl_CollectiveOp<"all_reduce"> {
  let summary = "every rank gets the reduction of all ranks' inputs";
  let description = [{
    ```mlir
    ccl.all_reduce sum %a -> %b : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
    ccl.all_reduce max %a -> %a group @tp : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
    ```
    Input and output may be the same buffer (in place).

    `compress = f16` (or `bf16`) sends the data in that type on the wire:
    every hop converts to it, accumulates in f32 and converts back; the
    output keeps the buffer's type. `avg` divides every input by the ranks
    before it is sent.

    ```mlir
    ccl.all_reduce avg %g -> %g {compress = bf16} : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
    ```
  }];
  let arguments = (ins Ccl_ReductionKindAttr:$op, Ccl_BufferType:$input,
                       Ccl_BufferType:$output, OptionalAttr<FlatSymbolRefAttr>:$group,
                       OptionalAttr<TypeAttr>:$compress);
  let assemblyFormat = [{
    custom<RedOp>($op) $input `->` $output (`group` $group^)? attr-dict `:` qualified(type($input)) `->` qualified(type($output))
  }];
}

def Ccl_ReduceScatterOp : Ccl_CollectiveOp<"reduce_scatter"> {
  let summary = "rank i gets part i of the reduction of all inputs";
  let description = [{
    The input holds n parts of the output's count.

    ```mlir
    ccl.reduce_scatter sum %a -> %b : !ccl.buffer<4096xf32> -> !ccl.buffer<512xf32>
    ```
  }];
  let arguments = (ins Ccl_ReductionKindAttr:$op, Ccl_BufferType:$input,
                       Ccl_BufferType:$output, OptionalAttr<FlatSymbolRefAttr>:$group,
                       OptionalAttr<TypeAttr>:$compress);
  let assemblyFormat = [{
    custom<RedOp>($op) $input `->` $output (`group` $group^)? attr-dict `:` qualified(type($input)) `->` qualified(type($output))
  }];
}

def Ccl_AllGatherOp : Ccl_CollectiveOp<"all_gather"> {
  let summary = "every rank gets all inputs, concatenated in rank order";
  let description = [{
    ```mlir
    ccl.all_gather %a -> %b : !ccl.buffer<512xf32> -> !ccl.buffer<4096xf32>
    ```
  }];
  let arguments = (ins Ccl_BufferType:$input, Ccl_BufferType:$output,
                       OptionalAttr<FlatSymbolRefAttr>:$group);
  let assemblyFormat = [{
    $input `->` $output (`group` $group^)? attr-dict `:` qualified(type($input)) `->` qualified(type($output))
  }];
}

def Ccl_BroadcastOp : Ccl_CollectiveOp<"broadcast"> {
  let summary = "every rank gets the root's input";
  let description = [{
    ```mlir
    ccl.broadcast %a -> %b root 0 : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
    ```
  }];
  let arguments = (ins Ccl_BufferType:$input, Ccl_BufferType:$output,
                       I64Attr:$root, OptionalAttr<FlatSymbolRefAttr>:$group);
  let assemblyFormat = [{
    $input `->` $output `root` $root (`group` $group^)? attr-dict `:` qualified(type($input)) `->` qualified(type($output))
  }];
}

def Ccl_ReduceOp : Ccl_CollectiveOp<"reduce"> {
  let summary = "the root gets the reduction of all ranks' inputs";
  let description = [{
    ```mlir
    ccl.reduce sum %a -> %b root 3 : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
    ```
  }];
  let arguments = (ins Ccl_ReductionKindAttr:$op, Ccl_BufferType:$input,
                       Ccl_BufferType:$output, I64Attr:$root,
                       OptionalAttr<FlatSymbolRefAttr>:$group,
                       OptionalAttr<TypeAttr>:$compress);
  let assemblyFormat = [{
    custom<RedOp>($op) $input `->` $output `root` $root (`group` $group^)? attr-dict `:` qualified(type($input)) `->` qualified(type($output))
  }];
}

def Ccl_AllToAllOp : Ccl_CollectiveOp<"all_to_all"> {
  let summary = "part j of rank i's input becomes part i of rank j's output";
  let description = [{
    ```mlir
    ccl.all_to_all %a -> %b : !ccl.buffer<4096xf32> -> !ccl.buffer<4096xf32>
    ```
  }];
  let arguments = (ins Ccl_BufferType:$input, Ccl_BufferType:$output,
                       OptionalAttr<FlatSymbolRefAttr>:$group);
  let assemblyFormat = [{
    $input `->` $output (`group` $group^)? attr-dict `:` qualified(type($input)) `->` qualified(type($output))
  }];
}

def Ccl_SendOp : Ccl_CollectiveOp<"send"> {
  let summary = "rank `from` sends the buffer to rank `to`";
  let description = [{
    Needs a matching `ccl.recv` with the same ranks, count and element type;
    sends and receives between a pair of ranks match in program order.

    ```mlir
    ccl.send %a from 0 to 3 : !ccl.buffer<1024xf32>
    ```
  }];
  let arguments = (ins Ccl_BufferType:$buffer, I64Attr:$from, I64Attr:$to,
                       OptionalAttr<FlatSymbolRefAttr>:$group);
  let assemblyFormat = [{
    $buffer `from` $from `to` $to (`group` $group^)? attr-dict `:` qualified(type($buffer))
  }];
}

def Ccl_RecvOp : Ccl_CollectiveOp<"recv"> {
  let summary = "rank `to` receives into the buffer what rank `from` sends";
  let description = [{
    ```mlir
    ccl.recv %b from 0 to 3 : !ccl.buffer<1024xf32>
    ```
  }];
  let arguments = (ins Ccl_BufferType:$buffer, I64Attr:$from, I64Attr:$to,
                       OptionalAttr<FlatSymbolRefAttr>:$group);
  let assemblyFormat = [{
    $buffer `from` $from `to` $to (`group` $group^)? attr-dict `:` qualified(type($buffer))
  }];
}

def Ccl_BarrierOp : Ccl_CollectiveOp<"barrier"> {
  let summary = "no rank passes until every rank has arrived";
  let description = [{
    ```mlir
    ccl.barrier
    ccl.barrier group @tp
    ```
  }];
  let arguments = (ins OptionalAttr<FlatSymbolRefAttr>:$group);
  let assemblyFormat = "(`group` $group^)? attr-dict";
}

def Ccl_BucketOp : Ccl_Op<"bucket", [HasParent<"ProgramOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "a flat buffer holding several buffers back to back";
  let description = [{
    Made by `ccl-fuse-buckets` and `ccl-plan-overlap`: a collective on the
    bucket acts on its members, laid out in order (member i starts after the
    counts of members 0..i-1). The runtime owns the bucket's memory: it
    copies the members in before the collective and the results back out
    after it, so results land in the members' own memory.

    ```mlir
    %b = ccl.bucket "bucket0" %w, %bias : !ccl.buffer<1024xf32>, !ccl.buffer<32xf32> -> !ccl.buffer<1056xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, Variadic<Ccl_BufferType>:$members);
  let results = (outs Ccl_BufferType:$result);
  let assemblyFormat = [{
    $name $members attr-dict `:` qualified(type($members)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// First element of each member in the bucket.
    ::llvm::SmallVector<int64_t> getMemberOffsets();
  }];
}

def Ccl_ReadyOp : Ccl_Op<"ready", [HasParent<"ProgramOp">]> {
  let summary = "buffers that compute makes ready at a named event";
  let description = [{
    Compute (e.g. a training step's backward pass) runs the events in
    program order; when event `name` ends, its buffers hold their final
    values and collectives on them may start. A compute profile gives each
    event's time (`ccl-plan-overlap`). A buffer is made ready at most once,
    and no collective may use it before its event.

    ```mlir
    ccl.ready "h11" %w11, %b11 : !ccl.buffer<589824xf32>, !ccl.buffer<768xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, Variadic<Ccl_BufferType>:$buffers);
  let assemblyFormat = "$name $buffers attr-dict `:` qualified(type($buffers))";
  let hasVerifier = 1;
}

#endif
