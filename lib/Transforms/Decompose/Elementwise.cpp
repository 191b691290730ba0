//===- Elementwise.cpp - decompositions of elementwise entries ------------===//
//
// Each is PyTorch 1.13's formula (aten/src/ATen/native), in calls of lowered
// elementwise entries, so that dtype promotion is the entries' own.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;


/// `input + value * (tensor1 <op> tensor2)`, all three in the result's
/// (promoted) dtype from the start, as torch computes it: a float32 product
/// added to a float64 input would otherwise round in float32.
static Results addcOp(Decomposer &d, StringRef op) {
  Type element = d.resultTensorType().getElementType();
  Value prod = d.binary(op, d.cast(d.tensor("tensor1"), element),
                        d.cast(d.tensor("tensor2"), element));
  return one(d.call("torch.add", {{"input", d.cast(d.tensor("input"), element)},
                                  {"other", prod},
                                  {"alpha", d.arg("value")}}));
}

/// logaddexp and logaddexp2: `max + log1p(exp(-|a - b|))` (base 2: exp2,
/// and log1p / ln 2); where both are the same infinity, that infinity.
static Results logAddExp(Decomposer &d, bool base2) {
  Type element = d.resultTensorType().getElementType();
  Value a = d.cast(d.tensor("input"), element);
  Value b = d.cast(d.tensor("other"), element);
  Value m = d.binary("torch.maximum", a, b);
  Value diff = d.unary("torch.abs", d.binary("torch.sub", a, b));
  Value e = d.unary(base2 ? "torch.exp2" : "torch.exp",
                    d.unary("torch.neg", diff));
  Value l = d.unary("torch.log1p", e);
  if (base2)
    l = d.binary("torch.div", l, d.f64(std::log(2.0)));
  Value r = d.binary("torch.add", m, l);
  Value sameInf = d.binary("torch.logical_and", d.unary("torch.isinf", a),
                           d.binary("torch.eq", a, b));
  return one(d.call("torch.where",
                    {{"condition", sameInf}, {"input", a}, {"other", r}}));
}

/// The largest finite value of a float element type.
static double largest(Type t) {
  if (auto f = dyn_cast<FloatType>(t))
    return llvm::APFloat::getLargest(f.getFloatSemantics()).convertToDouble();
  return 0;
}

/// Fake quantization in float arithmetic, as the interpreter's kernel
/// (torch 1.13's steps): q = zero_point + round(x * inv) in float32
/// (float64 for a float64 input), out = (clamp(q, quant_min, quant_max) -
/// zero_point) * scale, mask = quant_min <= q <= quant_max. A q that is no
/// finite number (NaN or infinite x, scale 0) is quant_min and outside the
/// mask, as torch's conversion to INT64_MIN makes it on x86.
static Results decomposeFakeQuantize(Decomposer &d) {
  std::optional<double> scale = d.getFloat("scale");
  std::optional<int64_t> zp = d.getInt("zero_point"), lo = d.getInt("quant_min"),
                         hi = d.getInt("quant_max");
  if (!scale || !zp || !lo || !hi)
    return d.decline("scale, zero_point and the range must be constants");
  Value x = d.tensor("input");
  RankedTensorType xt = typeOf(x);
  if (!xt)
    return failure();
  Type element = xt.getElementType();
  Type compute = element.isF64() ? element : d.b.getF32Type();
  float sc = static_cast<float>(*scale), inv = 1.0f / sc;
  Value xc = d.cast(x, compute);
  Value q = d.binary("torch.add",
                     d.unary("torch.round", d.binary("torch.mul", xc, d.f64(inv))),
                     d.f64(static_cast<double>(*zp)));
  Value finite = d.unary("torch.isfinite", q);
  Value clamped = d.call("torch.clamp", {{"input", q}, {"min", d.f64(*lo)},
                                         {"max", d.f64(*hi)}});
  clamped = d.call("torch.where", {{"condition", finite}, {"input", clamped},
                                   {"other", d.f64(*lo)}});
  Value out = d.cast(d.binary("torch.mul",
                              d.binary("torch.sub", clamped, d.f64(*zp)),
                              d.f64(sc)),
                     element);
  if (!d.target().contains("cachemask"))
    return one(out);
  Value inside = d.binary("torch.logical_and",
                          d.binary("torch.ge", q, d.f64(*lo)),
                          d.binary("torch.le", q, d.f64(*hi)));
  if (!out || !inside)
    return failure();
  return SmallVector<Value>{out, inside};
}

void decompose::populateElementwiseDecompositions(DecompositionTable &t) {
  t["torch.positive"] = [](Decomposer &d) -> Results {
    return one(d.unary("torch.clone", d.tensor("input")));
  };
  // A real tensor's angle: pi where x < 0, else 0; NaN kept.
  t["torch.angle"] = [](Decomposer &d) -> Results {
    Value x = d.cast(d.tensor("input"), d.resultTensorType().getElementType());
    Value r = d.call("Tensor.masked_fill",
                     {{"input", d.unary("torch.zeros_like", x)},
                      {"mask", d.binary("torch.lt", x, d.i64(0))},
                      {"value", d.f64(M_PI)}});
    return one(d.call("torch.where", {{"condition", d.unary("torch.isnan", x)},
                                      {"input", x},
                                      {"other", r}}));
  };
  t["torch.fake_quantize_per_tensor_affine"] = decomposeFakeQuantize;
  t["torch.ops.aten.fake_quantize_per_tensor_affine_cachemask.default"] =
      decomposeFakeQuantize;
  t["torch.addcmul"] = [](Decomposer &d) -> Results { return addcOp(d, "torch.mul"); };
  t["torch.addcdiv"] = [](Decomposer &d) -> Results { return addcOp(d, "torch.div"); };
  t["torch.rsub"] = [](Decomposer &d) -> Results {
    return one(d.call("torch.sub", {{"input", d.arg("other")},
                                    {"other", d.arg("input")},
                                    {"alpha", d.arg("alpha")}}));
  };
  t["torch.clamp_min"] = [](Decomposer &d) -> Results {
    return one(d.call("torch.clamp", {{"input", d.arg("input")},
                                      {"min", d.arg("min")}}));
  };
  t["torch.clamp_max"] = [](Decomposer &d) -> Results {
    return one(d.call("torch.clamp", {{"input", d.arg("input")},
                                      {"max", d.arg("max")}}));
  };
  t["torch.hypot"] = [](Decomposer &d) -> Results {
    // std::hypot: no overflow or underflow in the squares, and an infinite
    // operand gives inf even beside a NaN. Narrower floats square in
    // float64 (exact enough to round as hypot does); float64 scales by the
    // larger magnitude m: m sqrt(1 + (n / m)^2).
    Type element = d.resultTensorType().getElementType();
    Type compute = element.isF64() ? element : d.b.getF64Type();
    Value a = d.unary("torch.abs", d.cast(d.tensor("input"), compute));
    Value b = d.unary("torch.abs", d.cast(d.tensor("other"), compute));
    Value r;
    if (element.isF64()) {
      Value m = d.binary("torch.maximum", a, b), n = d.binary("torch.minimum", a, b);
      Value q = d.binary("torch.div", n, m);
      q = d.call("torch.where", {{"condition", d.binary("torch.eq", m, d.f64(0))},
                                 {"input", d.f64(0)}, {"other", q}});
      r = d.binary("torch.mul", m,
                   d.unary("torch.sqrt", d.binary("torch.add", d.binary("torch.mul", q, q),
                                                  d.f64(1))));
    } else {
      r = d.unary("torch.sqrt", d.binary("torch.add", d.binary("torch.mul", a, a),
                                         d.binary("torch.mul", b, b)));
    }
    Value inf = d.binary("torch.logical_or", d.unary("torch.isinf", a), d.unary("torch.isinf", b));
    r = d.call("torch.where", {{"condition", inf}, {"input", d.f64(INFINITY)}, {"other", r}});
    return one(d.cast(r, element));
  };
  t["torch.logaddexp"] = [](Decomposer &d) -> Results { return logAddExp(d, false); };
  t["torch.logaddexp2"] = [](Decomposer &d) -> Results { return logAddExp(d, true); };
  // x * log(y), 0 where x == 0 unless y is NaN; either may be a number.
  t["torch.xlogy"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input"), y = d.tensor("other");
    // (float16 computes in float32: 1.13 has no float16 log on the CPU.)
    Type element = d.resultTensorType().getElementType();
    Type result = element;
    if (element.isF16())
      element = d.b.getF32Type();
    auto done = [&](Value v) { return one(d.cast(v, result)); };
    if (!y) {
      std::optional<double> yv = d.getFloat("other");
      if (!yv || !x)
        return d.decline("xlogy's number argument is not a constant");
      Value r = d.binary("torch.mul", d.cast(x, element), d.f64(std::log(*yv)));
      if (std::isnan(*yv))
        return done(r);
      return done(d.call("Tensor.masked_fill",
                        {{"input", r},
                         {"mask", d.binary("torch.eq", x, d.i64(0))},
                         {"value", d.f64(0)}}));
    }
    Value logY = d.unary("torch.log", d.cast(y, element));
    Value r;
    if (!x) {
      std::optional<double> xv = d.getFloat("input");
      if (!xv)
        return d.decline("xlogy's number argument is not a constant");
      r = d.binary("torch.mul", logY, d.f64(*xv));
      if (*xv != 0)
        return done(r);
      return done(d.call("Tensor.masked_fill",
                        {{"input", r},
                         {"mask", d.unary("torch.logical_not", d.unary("torch.isnan", y))},
                         {"value", d.f64(0)}}));
    }
    r = d.binary("torch.mul", d.cast(x, element), logY);
    Value zero = d.binary("torch.logical_and", d.binary("torch.eq", x, d.i64(0)),
                          d.unary("torch.logical_not", d.unary("torch.isnan", y)));
    return done(d.call("Tensor.masked_fill",
                      {{"input", r}, {"mask", zero}, {"value", d.f64(0)}}));
  };
  t["torch.deg2rad"] = [](Decomposer &d) -> Results {
    return one(d.binary("torch.mul", d.arg("input"), d.f64(M_PI / 180.0)));
  };
  t["torch.rad2deg"] = [](Decomposer &d) -> Results {
    return one(d.binary("torch.mul", d.arg("input"), d.f64(180.0 / M_PI)));
  };
  t["torch.isposinf"] = [](Decomposer &d) -> Results {
    return one(d.binary("torch.eq", d.arg("input"),
                        d.f64(std::numeric_limits<double>::infinity())));
  };
  t["torch.isneginf"] = [](Decomposer &d) -> Results {
    return one(d.binary("torch.eq", d.arg("input"),
                        d.f64(-std::numeric_limits<double>::infinity())));
  };
  // sin(pi x) / (pi x), 1 at 0.
  t["torch.sinc"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    Value px = d.binary("torch.mul", x, d.f64(M_PI));
    Value r = d.binary("torch.div", d.unary("torch.sin", px), px);
    return one(d.call("Tensor.masked_fill",
                      {{"input", r},
                       {"mask", d.binary("torch.eq", x, d.i64(0))},
                       {"value", d.f64(1)}}));
  };
  // log(z / (1 - z)), z clamped to [eps, 1 - eps] when eps is given, in
  // the float result type (an integer input is converted first: 1 - z must
  // not wrap in uint8).
  t["torch.logit"] = [](Decomposer &d) -> Results {
    Value z = d.cast(d.tensor("input"), d.resultTensorType().getElementType());
    if (!d.isNone("eps")) {
      std::optional<double> eps = d.getFloat("eps");
      if (!eps)
        return d.decline("logit's eps is not a constant");
      double lo = *eps, hi = 1.0 - *eps;
      if (lo <= hi) {
        z = d.call("torch.clamp", {{"input", z},
                                   {"min", d.f64(lo)},
                                   {"max", d.f64(hi)}});
      } else {
        // eps > 0.5: torch's kernel takes `x < lo ? lo : x > hi ? hi : x`,
        // which is not clamp's min(max(x, lo), hi) once lo > hi (fuzz-diff,
        // test/Fuzz/diff/logit-eps-above-half). The constants come from
        // clamps of z itself, to keep its dtype (and its NaNs).
        auto constantLike = [&](double v) {
          return d.call("torch.clamp",
                        {{"input", z}, {"min", d.f64(v)}, {"max", d.f64(v)}});
        };
        Value above = d.call(
            "torch.where", {{"condition", d.binary("torch.gt", z, d.f64(hi))},
                            {"input", constantLike(hi)},
                            {"other", z}});
        z = d.call("torch.where",
                   {{"condition", d.binary("torch.lt", z, d.f64(lo))},
                    {"input", constantLike(lo)},
                    {"other", above}});
      }
    }
    Value one_minus = d.call("torch.sub", {{"input", d.i64(1)}, {"other", z}});
    return one(d.unary("torch.log", d.binary("torch.div", z, one_minus)));
  };
  // NaN, +inf and -inf replaced (by default with 0 and the dtype's largest
  // and lowest finite values); integers are returned as they are.
  t["torch.nan_to_num"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    Type element = d.resultTensorType().getElementType();
    if (!isa<FloatType>(element))
      return one(d.unary("torch.clone", x));
    auto replacement = [&](StringRef name, double dflt) -> std::optional<double> {
      if (d.isNone(name))
        return dflt;
      return d.getFloat(name);
    };
    std::optional<double> nan = replacement("nan", 0.0);
    std::optional<double> posinf = replacement("posinf", largest(element));
    std::optional<double> neginf = replacement("neginf", -largest(element));
    if (!nan || !posinf || !neginf)
      return d.decline("nan_to_num's replacements are not constants");
    double inf = std::numeric_limits<double>::infinity();
    Value r = d.call("Tensor.masked_fill",
                     {{"input", x},
                      {"mask", d.unary("torch.isnan", x)},
                      {"value", d.f64(*nan)}});
    r = d.call("Tensor.masked_fill", {{"input", r},
                                      {"mask", d.binary("torch.eq", x, d.f64(inf))},
                                      {"value", d.f64(*posinf)}});
    r = d.call("Tensor.masked_fill", {{"input", r},
                                      {"mask", d.binary("torch.eq", x, d.f64(-inf))},
                                      {"value", d.f64(*neginf)}});
    return one(r);
  };
  // values where input == 0, else (input > 0).
  t["torch.heaviside"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input"), values = d.tensor("values");
    Type element = d.resultTensorType().getElementType();
    Value step = d.cast(d.binary("torch.gt", x, d.i64(0)), element);
    return one(d.call("torch.where",
                      {{"condition", d.binary("torch.eq", x, d.i64(0))},
                       {"input", values},
                       {"other", step}}));
  };
  // torch.isclose: a == b, or both NaN with equal_nan, or a finite
  // |a - b| <= atol + |rtol * b|.
  t["torch.isclose"] = [](Decomposer &d) -> Results {
    Value a = d.tensor("input"), b = d.tensor("other");
    std::optional<double> rtol = d.getFloat("rtol"), atol = d.getFloat("atol");
    std::optional<bool> equalNan = d.getBool("equal_nan");
    if (!rtol || !atol || !equalNan)
      return d.decline("isclose's tolerances are not constants");
    Value close = d.binary("torch.eq", a, b);
    if (*equalNan)
      close = d.binary("torch.logical_or", close,
                       d.binary("torch.logical_and", d.unary("torch.isnan", a),
                                d.unary("torch.isnan", b)));
    // Integers and bools take the tolerance test in the default float
    // (torch 1.13 converts them): isclose(False, True, atol=1) is true, and
    // uint8's difference must not wrap (fuzz-diff,
    // test/Fuzz/diff/isclose-uint8-no-wrap).
    Type element = cast<RankedTensorType>(a.getType()).getElementType();
    if (isa<IntegerType>(element)) {
      a = d.cast(a, d.b.getF32Type());
      b = d.cast(b, d.b.getF32Type());
    }
    Value allowed = d.binary(
        "torch.add", d.unary("torch.abs", d.binary("torch.mul", b, d.f64(*rtol))),
        d.f64(*atol));
    Value actual = d.unary("torch.abs", d.binary("torch.sub", a, b));
    Value within = d.binary("torch.logical_and", d.unary("torch.isfinite", actual),
                            d.binary("torch.le", actual, allowed));
    return one(d.binary("torch.logical_or", close, within));
  };
  t["Tensor.where"] = [](Decomposer &d) -> Results {
    return one(d.call("torch.where", {{"condition", d.arg("condition")},
                                      {"input", d.arg("input")},
                                      {"other", d.arg("other")}}));
  };
  // torch 1.13's lerp: input + w (end - input) for w < 0.5 (not |w|), else
  // end - (end - input) (1 - w); float16 and bfloat16 in float32.
  t["torch.lerp"] = [](Decomposer &d) -> Results {
    Type element = d.resultTensorType().getElementType();
    Type compute = (element.isF16() || element.isBF16()) ? d.b.getF32Type() : element;
    Value a = d.cast(d.tensor("input"), compute), e = d.cast(d.tensor("end"), compute);
    Value diff = d.binary("torch.sub", e, a);
    auto low = [&](Arg w) { return d.binary("torch.add", a, d.binary("torch.mul", diff, w)); };
    auto high = [&](Arg oneMinus) {
      return d.binary("torch.sub", e, d.binary("torch.mul", diff, oneMinus));
    };
    Value r;
    if (Value w = d.tensor("weight")) {
      w = d.cast(w, compute);
      Value small = d.binary("torch.lt", w, d.f64(0.5));
      Value oneMinus = d.call("torch.sub", {{"input", d.i64(1)}, {"other", w}});
      r = d.call("torch.where", {{"condition", small}, {"input", low(w)}, {"other", high(oneMinus)}});
    } else {
      std::optional<double> wv = d.getFloat("weight");
      if (!wv)
        return d.decline("the weight is not a constant");
      r = *wv < 0.5 ? low(d.f64(*wv)) : high(d.f64(1.0 - *wv));
    }
    return one(d.cast(r, element));
  };
  // ldexp: torch's own definition, input * pow(2.0, other).
  t["torch.ldexp"] = [](Decomposer &d) -> Results {
    Value power = d.call("torch.pow", {{"input", Arg(d.f64(2.0))},
                                       {"exponent", d.tensor("other")}});
    return one(d.binary("torch.mul", d.tensor("input"), power));
  };
  // float_power: pow in float64.
  t["torch.float_power"] = [](Decomposer &d) -> Results {
    Type f64 = d.b.getF64Type();
    Value x = d.tensor("input"), e = d.tensor("exponent");
    Arg base = x ? Arg(d.cast(x, f64)) : d.arg("input");
    Arg exponent = e ? Arg(d.cast(e, f64)) : d.arg("exponent");
    if (!x && !e)
      return d.decline("no tensor argument");
    if (!x) {
      std::optional<double> v = d.getFloat("input");
      if (!v)
        return d.decline("the base is not a constant");
      base = Arg(d.f64(*v));
    }
    if (!e) {
      std::optional<double> v = d.getFloat("exponent");
      if (!v)
        return d.decline("the exponent is not a constant");
      exponent = Arg(d.f64(*v));
    }
    return one(d.call("torch.pow", {{"input", base}, {"exponent", exponent}}));
  };
  // The dropouts of eval mode are the identity.
  for (StringRef name : {"torch.nn.functional.dropout1d",
                         "torch.nn.functional.dropout2d",
                         "torch.nn.functional.dropout3d",
                         "torch.nn.functional.alpha_dropout",
                         "torch.nn.functional.feature_alpha_dropout"})
    t[name] = [](Decomposer &d) -> Results {
      std::optional<bool> training = d.getBool("training");
      std::optional<double> p = d.getFloat("p");
      if ((!training || *training) && (!p || *p != 0))
        return d.decline("dropout in training mode is random");
      return one(d.unary("torch.clone", d.tensor("input")));
    };
  // aten::native_dropout in eval mode or with p = 0: (x, ones); an empty
  // input's mask has its dtype.
  t["torch.ops.aten.native_dropout.default"] = [](Decomposer &d) -> Results {
    std::optional<bool> train = d.getBool("train");
    std::optional<double> p = d.getFloat("p");
    if ((d.isNone("train") || (train && *train)) && (!p || *p != 0))
      return d.decline("native_dropout in training mode is random");
    auto tuple = dyn_cast<TupleType>(d.resultType());
    if (!tuple || tuple.size() != 2)
      return d.decline("the result type is unknown");
    auto maskType = cast<RankedTensorType>(tuple.getType(1));
    Value x = d.tensor("input");
    Value mask = d.call("torch.ones_like",
                        {{"input", x}, {"dtype", d.dtype(maskType.getElementType())}});
    Value out = d.unary("torch.clone", x);
    if (!mask || !out)
      return failure();
    return SmallVector<Value>{out, mask};
  };
  // prelu: x where x > 0, else weight * x, weight along dim 1.
  t["torch.nn.functional.prelu"] = [](Decomposer &d) -> Results {
    // (In the result's dtype: the input's, whatever the weight's.)
    Type element = d.resultTensorType().getElementType();
    Value x = d.cast(d.tensor("input"), element),
          w = d.cast(d.tensor("weight"), element);
    auto xt = cast<RankedTensorType>(x.getType());
    auto wt = dyn_cast<RankedTensorType>(w.getType());
    if (!wt || !wt.hasStaticShape())
      return d.decline("prelu's weight has no static shape");
    if (wt.getNumElements() != 1 && xt.getRank() >= 2) {
      SmallVector<int64_t> shape(xt.getRank(), 1);
      shape[1] = wt.getNumElements();
      w = d.call("torch.reshape", {{"input", w}, {"shape", d.ints(shape)}});
    } else if (xt.getRank() == 0 && wt.getRank() != 0) {
      // (A 0-d input keeps its shape: its one weight, 0-d.)
      w = d.call("torch.reshape", {{"input", w}, {"shape", d.ints({})}});
    }
    Value neg = d.binary("torch.mul", w, x);
    return one(d.call("torch.where",
                      {{"condition", d.binary("torch.gt", x, d.i64(0))},
                       {"input", x},
                       {"other", neg}}));
  };
  // glu: first half * sigmoid(second half) along dim.
  t["torch.nn.functional.glu"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    std::optional<int64_t> dim = d.getInt("dim");
    if (!dim)
      return d.decline("glu's dim is not a constant");
    SmallVector<Value> halves =
        d.calls("torch.chunk", {{"input", x}, {"chunks", d.i64(2)}, {"dim", d.i64(*dim)}});
    if (halves.empty())
      return failure();
    Value a = d.call("operator.getitem", {{"input", halves[0]}, {"index", d.i64(0)}});
    Value b = d.call("operator.getitem", {{"input", halves[0]}, {"index", d.i64(1)}});
    return one(d.binary("torch.mul", a, d.unary("torch.sigmoid", b)));
  };
}
