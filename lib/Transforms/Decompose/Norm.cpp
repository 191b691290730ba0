//===- Norm.cpp - decompositions of normalizations ------------------------===//
//
// aten::native_layer_norm and native_batch_norm, training-mode batch_norm,
// F.normalize and group_norm in calls of layer_norm, eval batch_norm and the
// reductions.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

/// The batch statistics of training-mode batch norm: the mean and the
/// biased variance of `x` over every dim but 1 (nulls if `x` is not a
/// ranked tensor of rank >= 2).
static std::pair<Value, Value> batchStatistics(Decomposer &d, Value x) {
  auto type = x ? dyn_cast<RankedTensorType>(x.getType()) : RankedTensorType();
  if (!type || type.getRank() < 2)
    return {};
  SmallVector<int64_t> dims = {0};
  for (int64_t i = 2; i < type.getRank(); ++i)
    dims.push_back(i);
  Value mean = d.call("torch.mean", {{"input", x}, {"dim", d.ints(dims)}});
  Value var = d.call("torch.var", {{"input", x}, {"dim", d.ints(dims)},
                                   {"unbiased", d.boolean(false)}});
  return {mean, var};
}

/// Eval-mode F.batch_norm of the call's input, weight, bias and eps, by the
/// statistics `mean` and `var`.
static Value evalBatchNorm(Decomposer &d, Arg mean, Arg var) {
  return d.call("torch.nn.functional.batch_norm",
                {{"input", d.arg("input")}, {"running_mean", mean},
                 {"running_var", var}, {"weight", d.arg("weight")},
                 {"bias", d.arg("bias")}, {"training", d.boolean(false)},
                 {"momentum", d.arg("momentum")}, {"eps", d.arg("eps")}});
}

void decompose::populateNormDecompositions(DecompositionTable &t) {
  // aten::native_layer_norm: (layer_norm, mean, 1 / sqrt(var + eps)) with
  // the statistics keeping the normalized dims as 1s.
  t["torch.ops.aten.native_layer_norm.default"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto shape = d.getInts("normalized_shape");
    std::optional<double> eps = d.getFloat("eps");
    auto type = cast<RankedTensorType>(x.getType());
    if (!shape || !eps || shape->size() > static_cast<size_t>(type.getRank()))
      return d.decline("normalized_shape and eps must be constants");
    SmallVector<int64_t> dims;
    for (int64_t i = type.getRank() - shape->size(); i < type.getRank(); ++i)
      dims.push_back(i);
    Value out = d.call("torch.nn.functional.layer_norm",
                       {{"input", x}, {"normalized_shape", d.ints(*shape)},
                        {"weight", d.arg("weight")}, {"bias", d.arg("bias")},
                        {"eps", d.f64(*eps)}});
    Type element = type.getElementType();
    Type compute = (element.isF16() || element.isBF16()) ? d.b.getF32Type() : element;
    Value xc = d.cast(x, compute);
    Value mean = d.call("torch.mean", {{"input", xc}, {"dim", d.ints(dims)}, {"keepdim", d.boolean(true)}});
    Value dev = d.binary("torch.sub", xc, mean);
    Value var = d.call("torch.mean", {{"input", d.binary("torch.mul", dev, dev)},
                                      {"dim", d.ints(dims)}, {"keepdim", d.boolean(true)}});
    Value rstd = d.unary("torch.rsqrt", d.binary("torch.add", var, d.f64(*eps)));
    SmallVector<Value> parts = {out, d.cast(mean, element), d.cast(rstd, element)};
    if (llvm::is_contained(parts, Value()))
      return failure();
    return parts;
  };
  // aten::native_group_norm_backward: the kernel's formulas
  // (Kernels/Norm.cpp) over [N, G, D, HxW], bfloat16 in float32 rounded
  // once; None where output_mask is false.
  t["torch.ops.aten.native_group_norm_backward.default"] = [](Decomposer &d) -> Results {
    Value dy = d.tensor("grad_out"), x = d.tensor("input"), mean = d.tensor("mean"),
          rstd = d.tensor("rstd");
    auto type = cast<RankedTensorType>(x.getType());
    std::optional<int64_t> n = d.getInt("N"), c = d.getInt("C"), hw = d.getInt("HxW"),
                           group = d.getInt("group");
    auto maskAttr = dyn_cast_or_null<ArrayAttr>(d.value("output_mask"));
    if (!n || !c || !hw || !group || !maskAttr || maskAttr.size() != 3 ||
        !type.hasStaticShape() || *group <= 0 || *c % *group)
      return d.decline("N, C, HxW, group and output_mask must be constants and "
                       "the shape static");
    bool mask[3];
    for (unsigned i = 0; i < 3; ++i)
      mask[i] = cast<BoolAttr>(maskAttr[i]).getValue();
    int64_t g = *group, per = *c / g, inner = *hw;
    Type element = type.getElementType();
    Type compute = element.isBF16() ? d.b.getF32Type() : element;
    SmallVector<int64_t> full = {*n, g, per, inner};
    Value xs = reshape(d, d.cast(x, compute), full), dys = reshape(d, d.cast(dy, compute), full);
    Value m = reshape(d, d.cast(mean, compute), {*n, g, 1}),
          r = reshape(d, d.cast(rstd, compute), {*n, g, 1});
    Value gamma = d.isNone("weight") ? Value()
                                     : reshape(d, d.cast(d.tensor("weight"), compute), {1, g, per});
    auto sum = [&](Value v, ArrayRef<int64_t> dims, bool keep = false) {
      return d.call("torch.sum", {{"input", v}, {"dim", d.ints(dims)}, {"keepdim", d.boolean(keep)}});
    };
    Value ds = sum(d.binary("torch.mul", dys, xs), {3});  // [N, G, D]
    Value db = sum(dys, {3});
    SmallVector<Value> out(3);
    if (mask[2])
      out[2] = d.cast(reshape(d, sum(db, {0}), {*c}), element);
    if (mask[1])
      out[1] = d.cast(reshape(d, sum(d.binary("torch.mul", d.binary("torch.sub", ds, d.binary("torch.mul", db, m)), r),
                                     {0}),
                              {*c}),
                      element);
    if (mask[0]) {
      Value dsg = gamma ? d.binary("torch.mul", ds, gamma) : ds;
      Value dbg = gamma ? d.binary("torch.mul", db, gamma) : db;
      dsg = sum(dsg, {2}, true);  // [N, G, 1]
      dbg = sum(dbg, {2}, true);
      double s = 1.0 / static_cast<double>(per * inner);
      Value r3 = d.binary("torch.mul", d.binary("torch.mul", r, r), r);
      Value c2 = d.binary("torch.mul",
                          d.binary("torch.mul", d.binary("torch.sub", d.binary("torch.mul", dbg, m), dsg), r3),
                          d.f64(s));
      Value c3 = d.binary("torch.sub", d.unary("torch.neg", d.binary("torch.mul", c2, m)),
                          d.binary("torch.mul", d.binary("torch.mul", dbg, r), d.f64(s)));
      auto widen = [&](Value v) { return d.call("torch.unsqueeze", {{"input", v}, {"dim", d.i64(-1)}}); };
      Value scale = widen(r);
      if (gamma)
        scale = d.binary("torch.mul", widen(gamma), scale);
      Value dx = d.binary("torch.add",
                          d.binary("torch.add", d.binary("torch.mul", scale, dys),
                                   d.binary("torch.mul", widen(c2), xs)),
                          widen(c3));
      out[0] = d.cast(reshape(d, dx, type.getShape()), element);
    }
    return maskedResults(d, out, mask);
  };
  // aten::native_group_norm: native_layer_norm over [N, group, per], the
  // per-channel affine, and its statistics as [N, group].
  t["torch.ops.aten.native_group_norm.default"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto type = cast<RankedTensorType>(x.getType());
    std::optional<int64_t> n = d.getInt("N"), group = d.getInt("group");
    std::optional<double> eps = d.getFloat("eps");
    if (!n || !group || !eps || !type.hasStaticShape() || *group <= 0 || *n <= 0)
      return d.decline("N, group and eps must be constants and the shape static");
    int64_t c = type.getDimSize(1);
    int64_t per = type.getNumElements() / (*n * *group);
    Value grouped = reshape(d, x, {*n, *group, per});
    SmallVector<Value> parts = d.calls(
        "torch.ops.aten.native_layer_norm.default",
        {{"input", grouped}, {"normalized_shape", d.ints({per})},
         {"weight", d.none()}, {"bias", d.none()}, {"eps", d.f64(*eps)}});
    if (d.failed || parts.size() != 1)
      return failure();
    auto element = [&](int64_t i) {
      return d.call("operator.getitem", {{"input", parts[0]}, {"index", d.i64(i)}});
    };
    Value y = reshape(d, element(0), type.getShape());
    SmallVector<int64_t> channel(type.getRank(), 1);
    channel[1] = c;
    if (!d.isNone("weight"))
      y = d.binary("torch.mul", y, reshape(d, d.tensor("weight"), channel));
    if (!d.isNone("bias"))
      y = d.binary("torch.add", y, reshape(d, d.tensor("bias"), channel));
    SmallVector<Value> out = {y, reshape(d, element(1), {*n, *group}),
                              reshape(d, element(2), {*n, *group})};
    if (llvm::is_contained(out, Value()))
      return failure();
    return out;
  };
  // torch._weight_norm and _weight_norm_interface: v * (g / norm), the
  // norm a keepdim vector_norm over every dim but `dim` (-1: all; 0-d),
  // float16 and bfloat16 in float32.
  for (StringRef name : {"torch._weight_norm", "torch.ops.aten._weight_norm_interface.default"})
    t[name] = [](Decomposer &d) -> Results {
      std::optional<int64_t> dim = d.getInt("dim");
      Value v = d.tensor("v"), g = d.tensor("g");
      RankedTensorType vt = typeOf(v);
      if (!dim || !vt)
        return d.decline("dim must be a constant");
      bool interface = d.target().contains("interface");
      Type element = interface ? vt.getElementType() : d.resultTensorType().getElementType();
      Type compute = (element.isF16() || element.isBF16()) ? d.b.getF32Type() : element;
      SmallVector<int64_t> dims;
      for (int64_t i = 0; i < vt.getRank(); ++i)
        if (i != *dim)
          dims.push_back(i);
      // (A 1-D v keeps its only dim: the norm of each one-element slice is
      // its magnitude; an empty dim list would mean every dim.)
      Value norm =
          *dim >= 0 && dims.empty()
              ? d.unary("torch.abs", d.cast(v, compute))
              : d.call("torch.linalg.vector_norm",
                       {{"input", d.cast(v, compute)}, {"ord", d.i64(2)},
                        {"dim", *dim >= 0 ? Arg(d.ints(dims)) : Arg(d.none())},
                        {"keepdim", d.boolean(*dim >= 0)}});
      Value w = d.cast(d.binary("torch.mul", d.cast(v, compute),
                                d.binary("torch.div", d.cast(g, compute), norm)),
                       element);
      if (!interface)
        return one(w);
      Type normElement = cast<RankedTensorType>(cast<TupleType>(d.resultType()).getType(1))
                             .getElementType();
      SmallVector<Value> out = {w, d.cast(norm, normElement)};
      if (llvm::is_contained(out, Value()))
        return failure();
      return out;
    };
  // batch_norm in training mode: eval batch_norm by the batch's statistics
  // (the running ones are not read; torch only updates them, in place).
  t["torch.nn.functional.batch_norm"] = [](Decomposer &d) -> Results {
    if (d.getBool("training") != std::optional<bool>(true))
      return d.decline("eval-mode batch_norm is lowered as it is");
    auto [mean, var] = batchStatistics(d, d.tensor("input"));
    if (!mean || !var)
      return failure();
    return one(evalBatchNorm(d, mean, var));
  };
  // aten::native_batch_norm: (batch_norm, saved mean, saved invstd); the
  // saved statistics are empty in eval mode.
  t["torch.ops.aten.native_batch_norm.default"] = [](Decomposer &d) -> Results {
    std::optional<bool> training = d.getBool("training");
    auto tuple = dyn_cast<TupleType>(d.resultType());
    if (!training || !tuple || tuple.size() != 3)
      return d.decline("training must be a constant");
    if (*training) {
      auto [mean, var] = batchStatistics(d, d.tensor("input"));
      if (!mean || !var)
        return failure();
      Value invstd = d.unary(
          "torch.rsqrt", d.call("torch.add", {{"input", var}, {"other", d.arg("eps")}}));
      return SmallVector<Value>{evalBatchNorm(d, mean, var), mean, invstd};
    }
    Value out = evalBatchNorm(d, d.arg("running_mean"), d.arg("running_var"));
    if (!out)
      return failure();
    SmallVector<Value> parts = {out};
    for (unsigned i = 1; i < 3; ++i) {
      auto t = dyn_cast<RankedTensorType>(tuple.getType(i));
      if (!t || !t.hasStaticShape() || t.getNumElements() != 0)
        return d.decline("the saved statistics are not empty");
      parts.push_back(d.constant(DenseElementsAttr::get(t, ArrayRef<Attribute>{}), t));
    }
    return parts;
  };
  // input / max(norm_p(input, dim), eps).
  t["torch.nn.functional.normalize"] = [](Decomposer &d) -> Results {
    std::optional<double> p = d.getFloat("p"), eps = d.getFloat("eps");
    if (!p || !eps || !d.isNone("out"))
      return d.decline("p and eps must be constants and out None");
    Value x = d.tensor("input");
    Type element = cast<RankedTensorType>(x.getType()).getElementType();
    Value n = vectorNorm(d, x, *p, d.arg("dim"), d.boolean(true), element);
    Value denom = d.call("torch.clamp", {{"input", n}, {"min", d.f64(*eps)}});
    return one(d.binary("torch.div", x, denom));
  };
  // instance_norm as torch computes it: eval batch_norm over the (1, N*C,
  // spatial) view, with each slice's biased mean and variance as the
  // statistics (or the running ones) and the weight and bias repeated N
  // times; so its folded x * alpha + beta, and its NaNs, are torch's.
  // (The parameters are cast to the input's dtype: batch_norm takes one.)
  t["torch.nn.functional.instance_norm"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto type = dyn_cast<RankedTensorType>(x.getType());
    std::optional<bool> useInputStats = d.getBool("use_input_stats");
    if (!type || !useInputStats || type.getRank() < 2 || !type.hasStaticShape())
      return d.decline("use_input_stats must be a constant and the shape static");
    int64_t n = type.getDimSize(0), c = type.getDimSize(1);
    int64_t spatial = n * c ? type.getNumElements() / (n * c) : 0;
    Type element = type.getElementType();
    Value view = d.call("torch.reshape", {{"input", x}, {"shape", d.ints({1, n * c, spatial})}});
    // A per-channel tensor repeated for every sample, or None.
    auto perSlice = [&](StringRef name) -> Arg {
      if (d.isNone(name))
        return d.arg(name);
      return d.call("Tensor.repeat", {{"input", d.cast(d.tensor(name), element)},
                                      {"repeats", d.ints({n})}});
    };
    Arg mean = perSlice("running_mean"), var = perSlice("running_var");
    if (*useInputStats) {
      mean = d.call("torch.mean", {{"input", view}, {"dim", d.ints({0, 2})}});
      var = d.call("torch.var", {{"input", view}, {"dim", d.ints({0, 2})},
                                 {"unbiased", d.boolean(false)}});
    }
    Value y = d.call("torch.nn.functional.batch_norm",
                     {{"input", view}, {"running_mean", mean}, {"running_var", var},
                      {"weight", perSlice("weight")}, {"bias", perSlice("bias")},
                      {"training", d.boolean(false)}, {"momentum", d.arg("momentum")},
                      {"eps", d.arg("eps")}});
    return one(d.call("torch.reshape", {{"input", y}, {"shape", d.ints(type.getShape())}}));
  };
  // group_norm: a layer_norm over each group's elements, then the
  // per-channel affine.
  t["torch.nn.functional.group_norm"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto type = cast<RankedTensorType>(x.getType());
    std::optional<int64_t> groups = d.getInt("num_groups");
    if (!groups || !type.hasStaticShape() || type.getRank() < 2 || *groups <= 0)
      return d.decline("num_groups must be a constant and the shape static");
    int64_t n = type.getDimSize(0), c = type.getDimSize(1);
    int64_t per = type.getNumElements() / std::max<int64_t>(n * *groups, 1);
    Value g = d.call("torch.reshape", {{"input", x}, {"shape", d.ints({n, *groups, per})}});
    Value normed = d.call("torch.nn.functional.layer_norm",
                          {{"input", g}, {"normalized_shape", d.ints({per})}, {"eps", d.arg("eps")}});
    Value y = d.call("torch.reshape", {{"input", normed}, {"shape", d.ints(type.getShape())}});
    SmallVector<int64_t> channel(type.getRank(), 1);
    channel[1] = c;
    if (!d.isNone("weight"))
      y = d.binary("torch.mul", y,
                   d.call("torch.reshape", {{"input", d.arg("weight")}, {"shape", d.ints(channel)}}));
    if (!d.isNone("bias"))
      y = d.binary("torch.add", y,
                   d.call("torch.reshape", {{"input", d.arg("bias")}, {"shape", d.ints(channel)}}));
    return one(y);
  };
}
