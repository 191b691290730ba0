//===- Folds.cpp - op-specific folds of the op library's entries ----------===//
//
// Each fold hangs on its entry (OpSpec::fold) through kFolds below; the
// call ops' fold() binds the call and asks the entry. They only forward an
// operand or answer a Python constant, never run a kernel.
//
//===----------------------------------------------------------------------===//

#include "ResultRules.h"

#include "TracedIR/Dialect/Traced/TracedBase.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::traced;

/// Whether Python value `a` is the number `v` (not a bool).
static bool isNumber(Attribute a, double v) {
  if (auto i = dyn_cast_or_null<IntegerAttr>(a); i && !isa<BoolAttr>(a))
    return i.getInt() == v;
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble() == v;
  return false;
}

/// The input, when the result has its type (so it can stand for it).
static Value sameTypeInput(const FoldCall &c) {
  Value input = c.value("input");
  return input && input.getType() == c.resultType ? input : Value();
}

static OpFoldResult identity(const FoldCall &c) { return sameTypeInput(c); }

/// Dropouts in eval mode (or with p = 0) are the identity.
static OpFoldResult dropoutWith(const FoldCall &c, StringRef training) {
  auto flag = dyn_cast_or_null<BoolAttr>(c.slot(training));
  if ((flag && !flag.getValue()) || isNumber(c.slot("p"), 0))
    return sameTypeInput(c);
  return {};
}

/// `x op other` is x for the operation's identity element.
static OpFoldResult identityOperand(const FoldCall &c, double unit) {
  return isNumber(c.slot("other"), unit) ? OpFoldResult(sameTypeInput(c)) : OpFoldResult();
}

/// The statically shaped tensor input, or null.
static RankedTensorType staticInput(const FoldCall &c) {
  Value input = c.value("input");
  auto type = input ? dyn_cast<RankedTensorType>(input.getType()) : RankedTensorType();
  return type && type.hasStaticShape() ? type : RankedTensorType();
}

static Attribute shapeTuple(MLIRContext *ctx, RankedTensorType type) {
  Builder b(ctx);
  SmallVector<Attribute> dims;
  for (int64_t d : type.getShape())
    dims.push_back(b.getI64IntegerAttr(d));
  return TupleAttr::get(ctx, b.getArrayAttr(dims));
}

namespace {
struct FoldRow {
  StringRef entry;
  FoldFn fold;
};
} // namespace

static const FoldRow kFolds[] = {
    {"Tensor.contiguous", identity},
    {"torchvision.ops.stochastic_depth.stochastic_depth",
     [](const FoldCall &c) -> OpFoldResult {
       auto training = dyn_cast_or_null<BoolAttr>(c.slot("training"));
       return training && !training.getValue() ? OpFoldResult(sameTypeInput(c))
                                               : OpFoldResult();
     }},
    {"torch.nn.functional.dropout",
     [](const FoldCall &c) { return dropoutWith(c, "training"); }},
    {"torch.dropout", [](const FoldCall &c) { return dropoutWith(c, "train"); }},
    {"torch.mul", [](const FoldCall &c) { return identityOperand(c, 1); }},
    {"torch.div",
     [](const FoldCall &c) -> OpFoldResult {
       if (!isa_and_nonnull<NoneAttr>(c.slot("rounding_mode")))
         return {};
       return identityOperand(c, 1);
     }},
    {"torch.sub", [](const FoldCall &c) { return identityOperand(c, 0); }},
    // (-0.0 + 0 is +0.0, so x + 0 is x only for integers.)
    {"torch.add",
     [](const FoldCall &c) -> OpFoldResult {
       if (isa<FloatType>(getElementTypeOrSelf(c.resultType)))
         return {};
       return identityOperand(c, 0);
     }},
    {"Tensor.dim",
     [](const FoldCall &c) -> OpFoldResult {
       RankedTensorType t = staticInput(c);
       if (!t)
         return {};
       return Builder(t.getContext()).getI64IntegerAttr(t.getRank());
     }},
    {"Tensor.size",
     [](const FoldCall &c) -> OpFoldResult {
       RankedTensorType t = staticInput(c);
       if (!t)
         return {};
       Attribute dim = c.slot("dim");
       if (isa_and_nonnull<NoneAttr>(dim))
         return shapeTuple(t.getContext(), t);
       if (auto d = dyn_cast_or_null<IntegerAttr>(dim)) {
         int64_t n = d.getInt() < 0 ? d.getInt() + t.getRank() : d.getInt();
         if (n >= 0 && n < t.getRank())
           return Builder(t.getContext()).getI64IntegerAttr(t.getDimSize(n));
       }
       return {};
     }},
    {"builtins.getattr",
     [](const FoldCall &c) -> OpFoldResult {
       RankedTensorType t = staticInput(c);
       auto name = dyn_cast_or_null<StringAttr>(c.slot("name"));
       if (!t || !name || name.getValue() != "shape")
         return {};
       return shapeTuple(t.getContext(), t);
     }},
};

void traced::attachFolds(std::vector<OpSpec> &ops) {
  for (const FoldRow &row : kFolds) {
    auto it = llvm::find_if(ops, [&](const OpSpec &op) { return op.name == row.entry; });
    if (it == ops.end())
      llvm::report_fatal_error(llvm::Twine("op library: fold row names unknown entry '") +
                               row.entry + "'");
    it->fold = row.fold;
  }
}
