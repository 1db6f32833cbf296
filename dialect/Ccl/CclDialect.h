//===- CclDialect.h - the ccl dialect -----------------------------*- C++ -*-===//

#ifndef CCOPT_DIALECT_CCL_CCLDIALECT_H
#define CCOPT_DIALECT_CCL_CCLDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/Ccl/CclDialect.h.inc"
#include "dialect/Ccl/CclEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/Ccl/CclAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "dialect/Ccl/CclTypes.h.inc"
#define GET_OP_CLASSES
#include "dialect/Ccl/CclOps.h.inc"

namespace mlir::ccl {

/// Number of ranks `op` runs among: its group's size, or the world of the
/// enclosing program; std::nullopt while the world is not known yet.
std::optional<int64_t> participantCount(Operation *op, FlatSymbolRefAttr group);

/// Whether `v` is a `ccl.buffer ... multicast`.
bool isMulticastBuffer(Value v);

} // namespace mlir::ccl

#endif
