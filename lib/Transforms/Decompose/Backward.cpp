//===- Backward.cpp - decompositions of ATen's activation backwards -------===//
//
// The `aten::*_backward` entries that traces of lowered (aot_autograd)
// programs hold, as PyTorch 1.13's derivative formulas.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

using Results = FailureOr<SmallVector<Value>>;

static Results one(Value v) {
  if (!v)
    return failure();
  return SmallVector<Value>{v};
}

/// grad where `zero` is false, else 0 (broadcast, in grad's type).
static Value gradUnless(Decomposer &d, Value zero, Value grad) {
  return d.call("torch.where", {{"condition", zero}, {"input", d.i64(0)}, {"other", grad}});
}

void decompose::populateBackwardDecompositions(DecompositionTable &t) {
  t["torch.ops.aten.threshold_backward.default"] = [](Decomposer &d) -> Results {
    Value le = d.binary("torch.le", d.arg("input"), d.arg("threshold"));
    return one(gradUnless(d, le, d.tensor("grad_output")));
  };
  t["torch.ops.aten.tanh_backward.default"] = [](Decomposer &d) -> Results {
    Value y = d.tensor("output");
    Value slope = d.call("torch.sub", {{"input", d.i64(1)}, {"other", d.binary("torch.mul", y, y)}});
    return one(d.binary("torch.mul", d.arg("grad_output"), slope));
  };
  t["torch.ops.aten.sigmoid_backward.default"] = [](Decomposer &d) -> Results {
    Value y = d.tensor("output");
    Value slope = d.binary("torch.mul", y, d.call("torch.sub", {{"input", d.i64(1)}, {"other", y}}));
    return one(d.binary("torch.mul", d.arg("grad_output"), slope));
  };
  t["torch.ops.aten.leaky_relu_backward.default"] = [](Decomposer &d) -> Results {
    Value g = d.tensor("grad_output");
    Value pos = d.binary("torch.gt", d.arg("input"), d.i64(0));
    return one(d.call("torch.where", {{"condition", pos},
                                      {"input", g},
                                      {"other", d.binary("torch.mul", g, d.arg("negative_slope"))}}));
  };
  t["torch.ops.aten.hardtanh_backward.default"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    Value outside = d.binary("torch.logical_or", d.binary("torch.le", x, d.arg("min_val")),
                             d.binary("torch.ge", x, d.arg("max_val")));
    return one(gradUnless(d, outside, d.tensor("grad_output")));
  };
  // grad (Phi(x) + x phi(x)) for the exact GELU.
  t["torch.ops.aten.gelu_backward.default"] = [](Decomposer &d) -> Results {
    std::optional<std::string> approximate = d.getStr("approximate");
    Value x = d.tensor("input");
    if (approximate == std::optional<std::string>("tanh")) {
      // t = tanh(k (x + c x^3)): 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2).
      double k = M_SQRT2 * M_2_SQRTPI * 0.5, c = 0.044715;
      Value x2 = d.binary("torch.mul", x, x);
      Value inner = d.binary("torch.mul",
                             d.binary("torch.add", x, d.binary("torch.mul", d.binary("torch.mul", x2, x), d.f64(c))),
                             d.f64(k));
      Value th = d.unary("torch.tanh", inner);
      Value left = d.binary("torch.mul", d.binary("torch.add", th, d.i64(1)), d.f64(0.5));
      Value sech2 = d.call("torch.sub", {{"input", d.i64(1)}, {"other", d.binary("torch.mul", th, th)}});
      Value right = d.binary(
          "torch.mul",
          d.binary("torch.mul", d.binary("torch.mul", x, d.f64(0.5)), sech2),
          d.binary("torch.mul", d.binary("torch.add", d.binary("torch.mul", x2, d.f64(3 * c)), d.i64(1)),
                   d.f64(k)));
      return one(d.binary("torch.mul", d.arg("grad_output"), d.binary("torch.add", left, right)));
    }
    if (approximate != std::optional<std::string>("none"))
      return d.decline("approximate must be a constant");
    Value cdf = d.binary("torch.mul",
                         d.binary("torch.add",
                                  d.unary("torch.erf", d.binary("torch.mul", x, d.f64(M_SQRT1_2))),
                                  d.i64(1)),
                         d.f64(0.5));
    Value pdf = d.binary("torch.mul",
                         d.unary("torch.exp", d.binary("torch.mul", d.binary("torch.mul", x, x),
                                                       d.f64(-0.5))),
                         d.f64(0.5 * M_2_SQRTPI * M_SQRT1_2));
    Value slope = d.binary("torch.add", cdf, d.binary("torch.mul", x, pdf));
    return one(d.binary("torch.mul", d.arg("grad_output"), slope));
  };
  // z = exp(beta x): grad z / (z + 1), or grad where beta x > threshold.
  t["torch.ops.aten.softplus_backward.default"] = [](Decomposer &d) -> Results {
    Value g = d.tensor("grad_output");
    Value bx = d.binary("torch.mul", d.arg("input"), d.arg("beta"));
    Value z = d.unary("torch.exp", bx);
    Value soft = d.binary("torch.mul", g, d.binary("torch.div", z, d.binary("torch.add", z, d.i64(1))));
    return one(d.call("torch.where", {{"condition", d.binary("torch.gt", bx, d.arg("threshold"))},
                                      {"input", g},
                                      {"other", soft}}));
  };
  // x <= 0: grad input_scale (result + alpha scale) from the result, or
  // grad input_scale alpha scale exp(x input_scale) from the input; else
  // grad scale.
  t["torch.ops.aten.elu_backward.default"] = [](Decomposer &d) -> Results {
    std::optional<double> alpha = d.getFloat("alpha"), scale = d.getFloat("scale"),
                          inputScale = d.getFloat("input_scale");
    std::optional<bool> isResult = d.getBool("is_result");
    if (!alpha || !scale || !inputScale || !isResult)
      return d.decline("the coefficients must be constants");
    Value g = d.tensor("grad_output"), v = d.tensor("self_or_result");
    Value neg = *isResult
                    ? d.binary("torch.mul", d.binary("torch.mul", g, d.f64(*inputScale)),
                               d.binary("torch.add", v, d.f64(*alpha * *scale)))
                    : d.binary("torch.mul", d.binary("torch.mul", g, d.f64(*inputScale * *alpha * *scale)),
                               d.unary("torch.exp", d.binary("torch.mul", v, d.f64(*inputScale))));
    return one(d.call("torch.where", {{"condition", d.binary("torch.le", v, d.i64(0))},
                                      {"input", neg},
                                      {"other", d.binary("torch.mul", g, d.f64(*scale))}}));
  };
  // copy(input, src): src converted to input's dtype and broadcast to its
  // shape.
  t["torch.ops.aten.copy.default"] = [](Decomposer &d) -> Results {
    RankedTensorType type = d.resultTensorType();
    Value src = d.cast(d.tensor("src"), type.getElementType());
    auto st = cast<RankedTensorType>(src.getType());
    if (st.getShape() == type.getShape())
      return one(d.unary("torch.clone", src));
    return one(d.call("Tensor.expand", {{"input", src}, {"size", d.ints(type.getShape())}}));
  };
}
