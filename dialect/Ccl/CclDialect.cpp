//===- CclDialect.cpp - ccl dialect, types and attributes -----------------===//

#include "dialect/Ccl/CclDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ccl;

#include "dialect/Ccl/CclDialect.cpp.inc"
#include "dialect/Ccl/CclEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "dialect/Ccl/CclAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "dialect/Ccl/CclTypes.cpp.inc"

void CclDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/Ccl/CclAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialect/Ccl/CclTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/Ccl/CclOps.cpp.inc"
      >();
}

// Types are written like memrefs: !ccl.buffer<4096xf32>.
Type BufferType::parse(AsmParser &parser) {
  SmallVector<int64_t, 1> dims;
  Type elementType;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(dims, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  if (dims.size() != 1) {
    parser.emitError(loc, "expected one element count, as in <4096xf32>");
    return {};
  }
  return parser.getChecked<BufferType>(loc, parser.getContext(), dims[0],
                                       elementType);
}

void BufferType::print(AsmPrinter &printer) const {
  printer << "<" << getCount() << "x" << getElementType() << ">";
}

LogicalResult BufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t count, Type elementType) {
  if (count <= 0)
    return emitError() << "buffer count must be positive, got " << count;
  auto intType = dyn_cast<IntegerType>(elementType);
  bool supportedInt = intType && !intType.isSigned() &&
                      llvm::is_contained({8u, 32u, 64u}, intType.getWidth());
  if (!supportedInt && !elementType.isF64() && !elementType.isF32() &&
      !elementType.isF16() && !elementType.isBF16())
    return emitError() << "unsupported buffer element type " << elementType
                       << " (expected f64, f32, f16, bf16, i64/ui64, i32/ui32 "
                          "or i8/ui8)";
  return success();
}

int64_t BufferType::getSizeInBytes() const {
  return getCount() * ((getElementType().getIntOrFloatBitWidth() + 7) / 8);
}
