//===- Pool.cpp - decompositions of pooling -------------------------------===//
//
// lp_pool as torch composes it, and the pooling entries of float16 and
// bfloat16 tensors as the same pooling of float32 ones, rounded once. The
// direct lowerings (lib/Conversion/TracedToLinalg/Pool.cpp) take float32 and
// float64; convert-traced-to-linalg decomposes the calls they refuse.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

static bool isHalf(Type element) {
  return element && (element.isF16() || element.isBF16());
}

/// The call again with its float16/bfloat16 tensors in float32, its results
/// rounded back: exact for max pooling, and what torch's kernels do for
/// average pooling (they accumulate in float and round once).
static Results decomposeInFloat32(Decomposer &d) {
  const OpSpec &spec = *d.bound.spec;
  bool widened = false;
  SmallVector<KwArg> args;
  for (const Param &p : spec.signature.params) {
    RankedTensorType type = d.tensorType(p.name);
    if (type && isHalf(type.getElementType())) {
      args.push_back({p.name, Arg(d.cast(d.tensor(p.name), d.b.getF32Type()))});
      widened = true;
    } else {
      args.push_back({p.name, d.arg(p.name)});
    }
  }
  for (Type t : d.bound.op->getResultTypes()) {
    if (auto tuple = dyn_cast<TupleType>(t)) {
      for (Type e : tuple.getTypes())
        if (auto r = dyn_cast<RankedTensorType>(e); r && isHalf(r.getElementType()))
          widened = true;
    } else if (auto r = dyn_cast<RankedTensorType>(t); r && isHalf(r.getElementType())) {
      widened = true;
    }
  }
  if (!widened)
    return d.decline("it has no float16 or bfloat16 tensor");
  // The same spelling, so that an ATen overload keeps its parameter names.
  std::string target;
  if (auto f = dyn_cast<CallFunctionOp>(d.bound.op))
    target = f.getCallee().str();
  else
    target = ("Tensor." + cast<CallMethodOp>(d.bound.op).getMethod()).str();
  SmallVector<Value> results = d.calls(target, args);
  if (d.failed)
    return failure();
  SmallVector<Value> out;
  auto roundBack = [&](Value v, Type original) {
    auto r = dyn_cast<RankedTensorType>(original);
    return r ? d.cast(v, r.getElementType()) : v;
  };
  Type only = d.resultType();
  if (auto tuple = dyn_cast<TupleType>(only); tuple && results.size() == 1) {
    // A (values, indices) pair: its elements, for the getitems to read.
    for (auto [i, element] : llvm::enumerate(tuple.getTypes())) {
      Value e = d.call("operator.getitem",
                       {{"input", results[0]}, {"index", d.i64(i)}});
      out.push_back(roundBack(e, element));
    }
    return out;
  }
  for (auto [v, t] : llvm::zip(results, d.bound.op->getResultTypes()))
    out.push_back(roundBack(v, t));
  return out;
}

/// F.lp_pool1d/2d as torch 1.13 writes it in Python:
/// (sign(a) * relu(|a|)).mul(window size).pow(1 / p) with
/// a = avg_pool(x.pow(p), kernel_size, stride, 0, ceil_mode); sign(a) *
/// relu(|a|) is a itself. Every dtype follows from the entries' own rules
/// (an integer x with an integer p pools in int64 and truncates).
static Results decomposeLpPool(Decomposer &d, unsigned spatial) {
  std::optional<double> p = d.getFloat("norm_type");
  std::optional<SmallVector<int64_t>> kernel = d.getInts("kernel_size", spatial);
  if (!p || !kernel)
    return d.decline("norm_type and kernel_size are not constants");
  int64_t window = 1;
  for (int64_t k : *kernel)
    window *= k;
  Value powered = d.call("torch.pow", {{"input", d.tensor("input")},
                                       {"exponent", d.arg("norm_type")}});
  std::string pool = "torch.nn.functional.avg_pool" + std::to_string(spatial) + "d";
  Value avg = d.call(pool, {{"input", powered},
                            {"kernel_size", d.ints(*kernel)},
                            {"stride", d.arg("stride")},
                            {"padding", d.i64(0)},
                            {"ceil_mode", d.arg("ceil_mode")}});
  Value scaled = d.binary("torch.mul", avg, d.i64(window));
  return one(d.call("torch.pow", {{"input", scaled}, {"exponent", d.f64(1.0 / *p)}}));
}

void decompose::populatePoolDecompositions(DecompositionTable &t) {
  for (const char *name :
       {"torch.nn.functional.max_pool1d", "torch.nn.functional.max_pool2d",
        "torch.nn.functional.max_pool3d", "torch.nn.functional.avg_pool1d",
        "torch.nn.functional.avg_pool2d", "torch.nn.functional.avg_pool3d",
        "torch.nn.functional.adaptive_avg_pool1d",
        "torch.nn.functional.adaptive_avg_pool2d",
        "torch.nn.functional.adaptive_avg_pool3d",
        "torch.nn.functional.adaptive_max_pool1d",
        "torch.nn.functional.adaptive_max_pool2d",
        "torch.nn.functional.adaptive_max_pool3d",
        "torch.nn.functional.max_pool1d_with_indices",
        "torch.nn.functional.max_pool2d_with_indices",
        "torch.nn.functional.max_pool3d_with_indices",
        "torch.nn.functional.adaptive_max_pool1d_with_indices",
        "torch.nn.functional.adaptive_max_pool2d_with_indices",
        "torch.nn.functional.adaptive_max_pool3d_with_indices"})
    t[name] = decomposeInFloat32;
  t["torch.nn.functional.lp_pool1d"] = [](Decomposer &d) { return decomposeLpPool(d, 1); };
  t["torch.nn.functional.lp_pool2d"] = [](Decomposer &d) { return decomposeLpPool(d, 2); };
}
