//===- Pool.cpp - decompositions of pooling -------------------------------===//
//
// lp_pool as torch composes it (the direct lowering takes float32 and
// float64; convert-traced-to-linalg decomposes the calls it refuses).
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

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
  t["torch.nn.functional.lp_pool1d"] = [](Decomposer &d) { return decomposeLpPool(d, 1); };
  t["torch.nn.functional.lp_pool2d"] = [](Decomposer &d) { return decomposeLpPool(d, 2); };
}
