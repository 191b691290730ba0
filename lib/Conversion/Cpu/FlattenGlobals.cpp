//===- FlattenGlobals.cpp - traced-cpu-flatten-globals --------------------===//
//
// Constant globals become rank 1 before the LLVM lowering: LLVM IR gives a
// multi-dimensional global a nested array type and one uniqued constant per
// innermost row, which for small innermost dimensions (3x3 filters) costs
// several times the weights in memory (Passes.td has the figures). A flat
// global is one ConstantDataArray.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDCPUFLATTENGLOBALS
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
struct FlattenGlobalsPass
    : traced::impl::TracedCpuFlattenGlobalsBase<FlattenGlobalsPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// The same elements as a rank-1 attribute of `type`, sharing a resource
/// blob; null when the value is of another kind.
static ElementsAttr flatValue(ElementsAttr value, RankedTensorType type) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    return DenseResourceElementsAttr::get(type, resource.getRawHandle());
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return dense.reshape(type);
  return {};
}

void FlattenGlobalsPass::runOnOperation() {
  mlir::ModuleOp module = getOperation();
  llvm::StringMap<memref::GlobalOp> flattened;
  for (auto global : module.getOps<memref::GlobalOp>()) {
    MemRefType type = global.getType();
    auto value =
        dyn_cast_or_null<ElementsAttr>(global.getInitialValue().value_or(
            Attribute()));
    if (!global.getConstant() || !value || type.getRank() < 2 ||
        !type.hasStaticShape() || !type.getLayout().isIdentity())
      continue;
    int64_t size = type.getNumElements();
    auto flatType =
        MemRefType::get({size}, type.getElementType(), MemRefLayoutAttrInterface(),
                        type.getMemorySpace());
    ElementsAttr flat = flatValue(
        value, RankedTensorType::get({size}, type.getElementType()));
    if (!flat)
      continue;
    global.setType(flatType);
    global.setInitialValueAttr(flat);
    flattened[global.getSymName()] = global;
  }
  if (flattened.empty())
    return;
  SmallVector<memref::GetGlobalOp> gets;
  module.walk([&](memref::GetGlobalOp get) {
    // (A get_global inside a nested symbol table, a gpu.module, names that
    // table's own global.)
    if (flattened.contains(get.getName()) &&
        SymbolTable::getNearestSymbolTable(get) == module.getOperation())
      gets.push_back(get);
  });
  for (memref::GetGlobalOp get : gets) {
    auto it = flattened.find(get.getName());
    auto type = cast<MemRefType>(get.getType());
    OpBuilder b(get);
    b.setInsertionPointAfter(get);
    auto flatGet = memref::GetGlobalOp::create(
        b, get.getLoc(), it->second.getType(), get.getName());
    SmallVector<ReassociationIndices> all{
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))};
    Value expanded = memref::ExpandShapeOp::create(
        b, get.getLoc(), type, flatGet, all);
    get.replaceAllUsesWith(expanded);
    get.erase();
  }
}
