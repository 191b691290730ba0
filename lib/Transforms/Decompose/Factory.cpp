//===- Factory.cpp - decompositions of factories --------------------------===//
//
// Factories with constant arguments are constants: zeros, ones, full and
// empty (zeros, deterministically) as splats; arange, linspace and eye
// evaluated once by their interpreter kernels. empty_like and
// Tensor.new_empty are zeros_like and Tensor.new_zeros.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"
#include "TracedIR/Transforms/GraphRewrites.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

void decompose::populateFactoryDecompositions(DecompositionTable &t) {
  for (StringRef name : {"torch.zeros", "torch.ones", "torch.full", "torch.empty"})
    t[name] = [](Decomposer &d) -> Results {
      RankedTensorType type = d.resultTensorType();
      if (!type || !type.hasStaticShape())
        return d.decline("the size is not known statically");
      double v = 0;
      if (d.target() == "torch.ones") {
        v = 1;
      } else if (d.target() == "torch.full") {
        std::optional<double> f = d.getFloat("fill_value");
        if (!f)
          return d.decline("the fill value is not a constant");
        v = *f;
      }
      Type e = type.getElementType();
      Attribute splat;
      if (auto f = dyn_cast<FloatType>(e))
        splat = FloatAttr::get(f, v);
      else if (e.isInteger(1))
        splat = BoolAttr::get(d.ctx, v != 0);
      else
        splat = IntegerAttr::get(e, static_cast<int64_t>(v));
      return one(d.constant(DenseElementsAttr::get(type, splat), type));
    };
  for (StringRef name : {"torch.arange", "torch.linspace", "torch.eye"})
    t[name] = [](Decomposer &d) -> Results {
      RankedTensorType type = d.resultTensorType();
      if (!type || !type.hasStaticShape() || type.getNumElements() > (1 << 24))
        return d.decline("the result is not static or above 2^24 elements");
      if (d.target() == "torch.arange" && d.tensor("out")) {
        // out= only gives the dtype and shape: the same call without it,
        // in that dtype, reshaped.
        Value range = d.call(d.target(), {{"start", d.arg("start")}, {"end", d.arg("end")},
                                          {"step", d.arg("step")}, {"dtype", d.dtype(type.getElementType())}});
        return one(d.call("torch.reshape", {{"input", range}, {"shape", d.ints(type.getShape())}}));
      }
      Attribute value = evaluateConstantCall(d.bound.op, 0);
      if (!value)
        return d.decline("the arguments are not constants");
      return one(d.constant(value, type));
    };
  t["torch.empty_like"] = [](Decomposer &d) -> Results {
    return one(d.call("torch.zeros_like", {{"input", d.tensor("input")}, {"dtype", d.arg("dtype")}}));
  };
  t["Tensor.new_empty"] = [](Decomposer &d) -> Results {
    return one(d.call("Tensor.new_zeros", {{"input", d.tensor("input")},
                                           {"size", d.arg("size")},
                                           {"dtype", d.arg("dtype")}}));
  };
}
