//===- CclBase.td - the ccl dialect, its enums and types ----*- tablegen -*-===//
//
// ccl says *what* is communicated: SPMD collectives over a world of ranks and
// named subgroups, on typed buffers.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_DIALECT_CCL_CCLBASE_TD
#define CCOPT_DIALECT_CCL_CCLBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Ccl_Dialect : Dialect {
  let name = "ccl";
  let cppNamespace = "::mlir::ccl";
  let summary = "Collective communication programs: what is communicated";
  let description = [{
    A `ccl.program` runs on every rank of a world (the machine's GPUs unless
    the program names a smaller `world`). It declares buffers and issues
    collectives over the whole world or over a `ccl.group` of it.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
}

def Ccl_ReductionKind : I32EnumAttr<"ReductionKind", "reduction operator", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Prod", 1, "prod">,
  I32EnumAttrCase<"Min", 2, "min">,
  I32EnumAttrCase<"Max", 3, "max">,
  I32EnumAttrCase<"Avg", 4, "avg">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ccl";
}

def Ccl_ReductionKindAttr : EnumAttr<Ccl_Dialect, Ccl_ReductionKind, "redop"> {
  let assemblyFormat = "$value";
}

def Ccl_CollectiveKind : I32EnumAttr<"CollectiveKind", "collective", [
  I32EnumAttrCase<"AllReduce", 0, "all_reduce">,
  I32EnumAttrCase<"ReduceScatter", 1, "reduce_scatter">,
  I32EnumAttrCase<"AllGather", 2, "all_gather">,
  I32EnumAttrCase<"Broadcast", 3, "broadcast">,
  I32EnumAttrCase<"Reduce", 4, "reduce">,
  I32EnumAttrCase<"AllToAll", 5, "all_to_all">,
  I32EnumAttrCase<"SendRecv", 6, "send_recv">,
  I32EnumAttrCase<"Barrier", 7, "barrier">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ccl";
}

def Ccl_CollectiveKindAttr : EnumAttr<Ccl_Dialect, Ccl_CollectiveKind, "collective"> {
  let assemblyFormat = "$value";
}

// Element types a buffer may hold (what NCCL's ncclDataType_t covers).
def Ccl_ElementType : AnyTypeOf<[F64, F32, F16, BF16, I64, I32, I8, UI64, UI32, UI8]>;

def Ccl_BufferType : TypeDef<Ccl_Dialect, "Buffer"> {
  let mnemonic = "buffer";
  let summary = "a buffer of `count` elements on every rank";
  let description = [{
    ```mlir
    !ccl.buffer<4096xf32>
    ```
  }];
  let parameters = (ins "int64_t":$count, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes the buffer occupies on one rank.
    int64_t getSizeInBytes() const;
  }];
}

#endif
