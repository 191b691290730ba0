//===- Factory.cpp - zeros_like, ones_like, full_like, new_*, fill --------===//
//
// Tensors made from another's shape (and dtype, unless `dtype=` says): a
// filled tensor of the result type, the fill a number or a 0-d tensor
// converted to the result's dtype. Factories of sizes (torch.zeros,
// torch.arange, ...) with constant arguments become constants in
// traced-decompose (Decompose/Factory.cpp).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

/// zeros_like / ones_like / full_like / new_zeros / new_ones / new_full /
/// fill: a filled tensor of the result type; `v`, or the number argument
/// `name`.
static FailureOr<SmallVector<Value>> lowerFillLike(LoweringCall &c,
                                                   std::optional<double> v,
                                                   StringRef name = "fill_value") {
  RankedTensorType type = c.logicalResultType();
  if (!type)
    return c.fail("the result shape is not static");
  if (!v) {
    // A (0-d) tensor value: converted to the result's dtype and broadcast.
    if (Value t = c.tensor(name))
      return SmallVector<Value>{buildElementwise(
          c.rewriter, c.loc, type, t,
          [](OpBuilder &, Location, ValueRange a) { return a[0]; },
          c.logicalElementTypes(t))};
    v = c.getFloat(name);
    if (!v)
      return c.fail("'" + name + "' must be a number or a tensor");
  }
  // A traced-type fill, stored like every result (bool as a byte).
  Value r = buildElementwise(
      c.rewriter, c.loc, type, {},
      [&](OpBuilder &b, Location loc, ValueRange) {
        return scalarConstant(b, loc, computeType(type.getElementType()), *v);
      });
  return SmallVector<Value>{r};
}

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

void lowering::populateFactoryLowerings(LoweringTable &t) {
  t["torch.zeros_like"] = [](LoweringCall &c) { return lowerFillLike(c, 0.0); };
  t["torch.ones_like"] = [](LoweringCall &c) { return lowerFillLike(c, 1.0); };
  t["torch.full_like"] = [](LoweringCall &c) {
    return lowerFillLike(c, std::nullopt);
  };
  t["Tensor.new_zeros"] = [](LoweringCall &c) { return lowerFillLike(c, 0.0); };
  t["Tensor.new_ones"] = [](LoweringCall &c) { return lowerFillLike(c, 1.0); };
  t["Tensor.new_full"] = [](LoweringCall &c) {
    return lowerFillLike(c, std::nullopt);
  };
  t["torch.fill"] = [](LoweringCall &c) {
    return lowerFillLike(c, std::nullopt, "value");
  };
}
