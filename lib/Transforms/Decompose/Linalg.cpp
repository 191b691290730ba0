//===- Linalg.cpp - decompositions of contractions ------------------------===//
//
// linear, addmm, addbmm, baddbmm, mv, dot, outer, bilinear and einsum, in calls of
// mm, bmm, matmul and the shape entries; the cross product in products of
// windows along its dim; the complex-to-real FFTs of real input as products
// with constant cosine and sine matrices; scaled dot-product attention.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

#include "llvm/ADT/STLExtras.h"

#include <cctype>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;


/// (Empty for a null value: a call that failed, which fails the
/// decomposition; the callers only index shapes of values they built.)
static ArrayRef<int64_t> shapeOf(Value v) {
  auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
  return t ? t.getShape() : ArrayRef<int64_t>();
}

/// `beta * input + alpha * product`, as torch's addmm family computes it:
/// beta == 0 ignores input (its NaNs too), alpha == 1 and beta == 1 skip
/// their multiplications. For an integer result torch converts alpha and
/// beta to the integer type first (toward zero: beta=0.5 drops the input).
static Results scaledSum(Decomposer &d, Value product) {
  std::optional<double> beta = d.getFloat("beta"), alpha = d.getFloat("alpha");
  if (!beta || !alpha)
    return d.decline("beta and alpha are not constants");
  RankedTensorType type = d.resultTensorType();
  bool integral = type && isa<IntegerType>(type.getElementType());
  auto scalar = [&](StringRef name, double v) -> Arg {
    if (integral)
      return Arg(d.i64(static_cast<int64_t>(std::trunc(v))));
    return d.arg(name);
  };
  double al = integral ? std::trunc(*alpha) : *alpha;
  double be = integral ? std::trunc(*beta) : *beta;
  if (al != 1)
    product = d.binary("torch.mul", product, scalar("alpha", *alpha));
  // (baddbmm converts an input of another dtype to the product's.)
  Value input = type ? d.cast(d.tensor("input"), type.getElementType())
                     : d.tensor("input");
  if (*beta == 0 || be == 0) {
    // The result still has input's broadcast shape and the promoted dtype.
    Value zero = d.unary("torch.zeros_like", input);
    return one(d.binary("torch.add", zero, product));
  }
  if (be != 1)
    input = d.binary("torch.mul", input, scalar("beta", *beta));
  return one(d.binary("torch.add", input, product));
}

//===----------------------------------------------------------------------===//
// einsum
//===----------------------------------------------------------------------===//

namespace {
/// One operand of an einsum while it is contracted: its value and the label
/// of each dim.
struct Term {
  Value value;
  std::string labels;
};

struct Einsum {
  Decomposer &d;
  std::string output;

  Value reshape(Value v, ArrayRef<int64_t> shape) {
    if (shapeOf(v) == shape)
      return v;
    return d.call("torch.reshape", {{"input", v}, {"shape", d.ints(shape)}});
  }
  Value permute(Value v, ArrayRef<int64_t> perm) {
    bool identity = true;
    for (auto [i, p] : llvm::enumerate(perm))
      identity &= static_cast<int64_t>(i) == p;
    if (identity)
      return v;
    return d.call("torch.permute", {{"input", v}, {"dims", d.ints(perm)}});
  }

  /// Sums the dims of `t` whose labels `keep` does not hold, after taking
  /// the diagonal of repeated labels.
  FailureOr<Term> sumOut(Term t, StringRef keep) {
    if (!t.value)
      return failure();
    // A label repeated in one operand takes the diagonal of its dims (which
    // torch.diagonal moves to the end).
    for (size_t i = 0; i < t.labels.size(); ++i) {
      size_t j = t.labels.find(t.labels[i], i + 1);
      if (j == std::string::npos)
        continue;
      char c = t.labels[i];
      if (shapeOf(t.value)[i] != shapeOf(t.value)[j])
        return failure();
      t.value = d.call("torch.diagonal", {{"input", t.value},
                                          {"dim1", d.i64(i)},
                                          {"dim2", d.i64(j)}});
      if (!t.value)
        return failure();
      t.labels.erase(j, 1);
      t.labels.erase(i, 1);
      t.labels.push_back(c);
      i = static_cast<size_t>(-1); // rescan
    }
    SmallVector<int64_t> dims;
    std::string kept;
    for (auto [i, c] : llvm::enumerate(t.labels)) {
      if (keep.contains(c))
        kept.push_back(c);
      else
        dims.push_back(i);
    }
    if (dims.empty())
      return t;
    Value v = d.call("torch.sum", {{"input", t.value}, {"dim", d.ints(dims)}});
    return Term{v, kept};
  }

  /// Contracts two terms over the labels neither `keep` nor one of them
  /// alone holds: both become [batch, rows/cols, contracted] and meet in
  /// one bmm.
  Term contract(const Term &a, const Term &b, StringRef keep) {
    std::string batch, onlyA, onlyB, summed;
    for (char c : a.labels) {
      bool inB = b.labels.find(c) != std::string::npos;
      if (inB && keep.contains(c))
        batch.push_back(c);
      else if (inB)
        summed.push_back(c);
      else
        onlyA.push_back(c);
    }
    for (char c : b.labels)
      if (a.labels.find(c) == std::string::npos)
        onlyB.push_back(c);
    auto sizeOf = [&](const Term &t, char c) {
      return shapeOf(t.value)[t.labels.find(c)];
    };
    // Broadcast size-1 batch and summed dims against the other operand.
    auto expandTo = [&](const Term &t, const Term &other) {
      SmallVector<int64_t> shape(shapeOf(t.value));
      bool changed = false;
      for (auto [i, c] : llvm::enumerate(t.labels)) {
        size_t j = other.labels.find(c);
        if (j != std::string::npos && shape[i] == 1 &&
            shapeOf(other.value)[j] != 1) {
          shape[i] = shapeOf(other.value)[j];
          changed = true;
        }
      }
      if (!changed)
        return t.value;
      return d.call("Tensor.expand", {{"input", t.value}, {"size", d.ints(shape)}});
    };
    Term ea{expandTo(a, b), a.labels}, eb{expandTo(b, a), b.labels};
    if (!ea.value || !eb.value)
      return Term{Value(), ""};
    auto product = [&](const Term &t, StringRef labels) {
      int64_t n = 1;
      for (char c : labels)
        n *= sizeOf(t, c);
      return n;
    };
    auto order = [&](const Term &t, ArrayRef<std::string> groups) {
      SmallVector<int64_t> perm;
      for (const std::string &g : groups)
        for (char c : g)
          perm.push_back(t.labels.find(c));
      return perm;
    };
    int64_t nb = product(ea, batch), m = product(ea, onlyA),
            k = product(ea, summed), n = product(eb, onlyB);
    Value lhs = reshape(permute(ea.value, order(ea, {batch, onlyA, summed})),
                        {nb, m, k});
    Value rhs = reshape(permute(eb.value, order(eb, {batch, summed, onlyB})),
                        {nb, k, n});
    Value r = d.call("torch.bmm", {{"input", lhs}, {"mat2", rhs}});
    SmallVector<int64_t> shape;
    for (char c : batch)
      shape.push_back(sizeOf(ea, c));
    for (char c : onlyA)
      shape.push_back(sizeOf(ea, c));
    for (char c : onlyB)
      shape.push_back(sizeOf(eb, c));
    return Term{reshape(r, shape), batch + onlyA + onlyB};
  }
};
} // namespace

/// Parses `equation` into input label strings and the output's (implicit
/// output: the ellipsis, then the labels seen once, sorted). An ellipsis
/// becomes fresh labels, right-aligned across the operands as torch
/// broadcasts them; `ranks` are the operands' ranks.
static bool parseEinsum(StringRef equation, ArrayRef<int64_t> ranks,
                        SmallVectorImpl<std::string> &inputs,
                        std::string &output) {
  EinsumSides sides = splitEinsum(equation);
  SmallVector<StringRef> parts;
  StringRef(sides.inputs).split(parts, ',');
  if (parts.size() != ranks.size())
    return false;
  // Fresh labels for the ellipsis dims: letters the equation does not use.
  std::string fresh;
  for (char c = 'A'; c <= 'z'; ++c)
    if (std::isalpha(static_cast<unsigned char>(c)) && !equation.contains(c))
      fresh.push_back(c);
  int64_t ellipsisDims = 0;
  SmallVector<int64_t> perOperand;
  for (auto [p, rank] : llvm::zip(parts, ranks)) {
    int64_t e = 0;
    if (p.contains("...")) {
      e = rank - static_cast<int64_t>(p.size() - 3);
      if (e < 0)
        return false;
    }
    perOperand.push_back(e);
    ellipsisDims = std::max(ellipsisDims, e);
  }
  if (ellipsisDims > static_cast<int64_t>(fresh.size()))
    return false;
  std::string all = fresh.substr(0, ellipsisDims);
  for (auto [p, e] : llvm::zip(parts, perOperand)) {
    std::string labels;
    for (size_t i = 0; i < p.size(); ++i) {
      if (p.substr(i).starts_with("...")) {
        labels += all.substr(ellipsisDims - e);
        i += 2;
        continue;
      }
      if (!std::isalpha(static_cast<unsigned char>(p[i])))
        return false;
      labels.push_back(p[i]);
    }
    inputs.push_back(labels);
  }
  if (sides.output) {
    StringRef rhs = *sides.output;
    for (size_t i = 0; i < rhs.size(); ++i) {
      if (rhs.substr(i).starts_with("...")) {
        output += all;
        i += 2;
        continue;
      }
      output.push_back(rhs[i]);
    }
  } else {
    std::string used;
    for (StringRef p : parts)
      used += p.str();
    output = all;
    for (char c = 'A'; c <= 'z'; ++c)
      if (std::isalpha(static_cast<unsigned char>(c)) && llvm::count(used, c) == 1)
        output.push_back(c);
  }
  return true;
}

static Results decomposeEinsum(Decomposer &d) {
  auto equation = d.getStr("equation");
  Arg operandsArg = d.arg("operands");
  if (!equation)
    return d.decline("the equation is not a constant");
  SmallVector<Value> operands = operandsArg.values;
  SmallVector<int64_t> ranks;
  for (Value v : operands) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return d.decline("an operand is not a ranked tensor");
    ranks.push_back(t.getRank());
  }
  SmallVector<std::string> labels;
  std::string output;
  if (operands.empty() || !parseEinsum(*equation, ranks, labels, output))
    return d.decline("the equation does not match the operands");
  for (auto [v, l] : llvm::zip(operands, labels)) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || t.getRank() != static_cast<int64_t>(l.size()))
      return d.decline("an operand has no static shape or the wrong rank");
  }
  Einsum e{d, output};
  // Keep what the output or a later operand needs.
  auto needed = [&](size_t from, const std::string &extra) {
    std::string keep = output + extra;
    for (size_t i = from; i < labels.size(); ++i)
      keep += labels[i];
    return keep;
  };
  FailureOr<Term> acc = e.sumOut(Term{operands[0], labels[0]}, needed(1, ""));
  if (failed(acc))
    return d.decline("a repeated label has dims of different sizes");
  for (size_t i = 1; i < operands.size(); ++i) {
    FailureOr<Term> next =
        e.sumOut(Term{operands[i], labels[i]}, needed(i + 1, acc->labels));
    if (failed(next))
      return d.decline("a repeated label has dims of different sizes");
    acc = e.contract(*acc, *next, needed(i + 1, ""));
    if (!acc->value)
      return failure();
  }
  FailureOr<Term> last = e.sumOut(*acc, output);
  if (failed(last))
    return failure();
  SmallVector<int64_t> perm;
  for (char c : output) {
    size_t p = last->labels.find(c);
    if (p == std::string::npos)
      return d.decline("an output label is not an input label");
    perm.push_back(p);
  }
  Value r = e.permute(last->value, perm);
  // A copy when nothing was computed (einsum never returns a view).
  if (r == operands[0])
    r = d.unary("torch.clone", r);
  return one(r);
}

static Results decomposeDet(Decomposer &d);
static Results decomposeInv(Decomposer &d);

/// The cross product along a dim of size 3 (torch.cross: the first such
/// dim when none is given).
static Results decomposeCross(Decomposer &d) {
  RankedTensorType result = d.resultTensorType();
  if (!result || !result.hasStaticShape())
    return d.decline("needs a static result shape");
  int64_t rank = result.getRank(), dim = -1;
  if (d.isNone("dim")) {
    for (int64_t i = 0; i < rank && dim < 0; ++i)
      if (result.getDimSize(i) == 3)
        dim = i;
  } else if (auto given = d.getInt("dim")) {
    dim = normDim(*given, rank);
  }
  if (dim < 0 || dim >= rank || result.getDimSize(dim) != 3)
    return d.decline("no dim of size 3");
  Type element = result.getElementType();
  auto full = [&](StringRef name) {
    Value v = d.cast(d.tensor(name), element);
    if (typeOf(v) && typeOf(v).getShape() != result.getShape())
      v = d.call("Tensor.expand", {{"input", v}, {"size", d.ints(result.getShape())}});
    return v;
  };
  Value a = full("input"), b = full("other");
  auto part = [&](Value v, int64_t i) { return window(d, v, dim, sliceOf(d, i, i + 1, 1)); };
  auto term = [&](int64_t i, int64_t j) {
    return d.binary("torch.sub", d.binary("torch.mul", part(a, i), part(b, j)),
                    d.binary("torch.mul", part(a, j), part(b, i)));
  };
  SmallVector<Value> parts = {term(1, 2), term(2, 0), term(0, 1)};
  return one(d.call("torch.cat", {{"tensors", Arg::list(d.ctx, parts)}, {"dim", d.i64(dim)}}));
}

/// aten::_trilinear: the three unsqueezed at their expand dims, multiplied
/// (broadcasting), summed over sumdim in their dtype.
static Results decomposeTrilinear(Decomposer &d) {
  std::array<Value, 3> in = {d.tensor("i1"), d.tensor("i2"), d.tensor("i3")};
  std::array<std::optional<SmallVector<int64_t>>, 3> expands = {
      d.getInts("expand1"), d.getInts("expand2"), d.getInts("expand3")};
  std::optional<SmallVector<int64_t>> sum = d.getInts("sumdim");
  auto unroll = d.getInt("unroll_dim");
  for (int k = 0; k < 3; ++k)
    if (!typeOf(in[k]) || !typeOf(in[k]).hasStaticShape() || !expands[k])
      return d.decline("needs static inputs and constant dims");
  if (!sum || !unroll)
    return d.decline("needs constant dims");
  std::string error;
  std::optional<TrilinearShapes> s = trilinearShapes(
      {typeOf(in[0]).getShape(), typeOf(in[1]).getShape(), typeOf(in[2]).getShape()},
      {*expands[0], *expands[1], *expands[2]}, *sum, *unroll, error);
  if (!s)
    return d.decline(error);
  std::optional<DType> d1 = dtypeFromType(typeOf(in[0]).getElementType()),
                       d2 = dtypeFromType(typeOf(in[1]).getElementType()),
                       d3 = dtypeFromType(typeOf(in[2]).getElementType());
  DType first, productType;
  if (!d1 || !d2 || !d3 || !trilinearDTypes(*d1, *d2, *d3, *s, first, productType, error))
    return d.decline("the dtypes are not torch's");
  if (llvm::is_contained(s->result, 0))
    return one(d.call("torch.zeros", {{"size", d.ints(s->result)},
                                      {"dtype", Arg(d.dtype(d.resultTensorType().getElementType()))}}));
  // torch's steps: i1 * i2 summed over sums12, times i3 summed over sums23,
  // then over unroll_dim (torch.mul promotes as torch's steps do; bools
  // sum as "any": an int64 count, then nonzero).
  SmallVector<Value> v;
  for (int k = 0; k < 3; ++k) {
    v.push_back(in[k]);
    if (typeOf(in[k]).getShape() != ArrayRef<int64_t>(s->unsqueezed[k]))
      v[k] = d.call("torch.reshape", {{"input", in[k]}, {"shape", d.ints(s->unsqueezed[k])}});
  }
  auto sumOver = [&](Value x, ArrayRef<int64_t> dims, DType t) -> Value {
    if (dims.empty())
      return x;
    Type type = typeFromDType(d.ctx, t);
    Type wide = type.isInteger(1) ? d.b.getI64Type() : type;
    Value r = d.call("torch.sum", {{"input", x}, {"dim", d.ints(dims)},
                                   {"keepdim", d.boolean(true)},
                                   {"dtype", Arg(d.dtype(wide))}});
    return type.isInteger(1) ? d.binary("torch.ne", r, d.i64(0)) : r;
  };
  Value r = sumOver(d.binary("torch.mul", v[0], v[1]), s->sums12, first);
  r = sumOver(d.binary("torch.mul", r, v[2]), s->sums23, productType);
  if (s->sumsUnroll)
    r = sumOver(r, {*unroll}, productType);
  r = d.call("torch.reshape", {{"input", r}, {"shape", d.ints(s->result)}});
  return one(d.cast(r, d.resultTensorType().getElementType()));
}

/// aten::convolution_backward in torch.convolution calls (the same
/// identities the interpreter's kernel computes with GEMMs):
/// - grad_input of a convolution is the transposed convolution of
///   grad_output with the weight, its output padding chosen to give the
///   input's size; of a transposed convolution, the convolution of
///   grad_output with the weight (cropped when output_padding added rows
///   no input position reaches);
/// - grad_weight, per kernel tap, is the product of the "narrow" side
///   (grad_output of a convolution, the input of a transposed one) with the
///   strided window of the zero-padded "wide" side that the tap reads,
///   summed over the batch and the positions: a bmm over the groups of
///   [G, nc, N*P] by [G, N*P, wc], the taps stacked last. (As one
///   convolution whose filters are grad_output's planes it would be
///   shorter, but its kernel is the size of the image, which the CPU
///   strategy does not compile in reasonable time);
/// - grad_bias is grad_output's sum over all dims but the channels.
/// bfloat16 computes in float32 and rounds once.
static Results decomposeConvolutionBackward(Decomposer &d) {
  Value gy = d.tensor("grad_output"), x = d.tensor("input"), w = d.tensor("weight");
  RankedTensorType gyT = typeOf(gy), xT = typeOf(x), wT = typeOf(w);
  auto maskAttr = dyn_cast_or_null<ArrayAttr>(d.value("output_mask"));
  std::optional<int64_t> groups = d.getInt("groups");
  std::optional<bool> transposed = d.getBool("transposed");
  if (!gyT || !xT || !wT || !maskAttr || maskAttr.size() != 3 || !groups ||
      !transposed)
    return d.decline("output_mask, groups and transposed must be constants");
  if (!gyT.hasStaticShape() || !xT.hasStaticShape() || !wT.hasStaticShape())
    return d.decline("the shapes must be static");
  int64_t k = wT.getRank() - 2;
  auto list = [&](StringRef name) -> std::optional<SmallVector<int64_t>> {
    std::optional<SmallVector<int64_t>> v = d.getInts(name);
    if (v && v->size() == 1)
      v->assign(k, v->front());
    if (v && static_cast<int64_t>(v->size()) != k)
      return std::nullopt;
    return v;
  };
  std::optional<SmallVector<int64_t>> stride = list("stride"),
                                      padding = list("padding"),
                                      dilation = list("dilation");
  if (!stride || !padding || !dilation)
    return d.decline("stride, padding and dilation must be constants");
  SmallVector<bool> mask;
  for (Attribute a : maskAttr)
    mask.push_back(cast<BoolAttr>(a).getValue());
  Type element = gyT.getElementType();
  Type compute = element.isBF16() ? d.b.getF32Type() : element;
  int64_t g = *groups;
  SmallVector<Value> out(3);
  auto convolution = [&](Value input, Value weight, ArrayRef<int64_t> s,
                         ArrayRef<int64_t> dil, bool transpose,
                         ArrayRef<int64_t> outputPadding) {
    return d.call("torch.convolution",
                  {{"input", input}, {"weight", weight}, {"bias", d.none()},
                   {"stride", d.ints(s)}, {"padding", d.ints(*padding)},
                   {"dilation", d.ints(dil)}, {"transposed", d.boolean(transpose)},
                   {"output_padding", d.ints(outputPadding)}, {"groups", d.i64(g)}});
  };
  // `v` cropped to `sizes` in its trailing dims.
  auto crop = [&](Value v, ArrayRef<int64_t> sizes) {
    for (int64_t i = 0; i < k; ++i) {
      RankedTensorType t = typeOf(v);
      if (!t)
        return Value();
      int64_t dim = t.getRank() - k + i;
      if (t.getDimSize(dim) != sizes[i])
        v = window(d, v, dim, sliceOf(d, 0, sizes[i], 1));
    }
    return v;
  };
  Value gyc = d.cast(gy, compute), xc = d.cast(x, compute), wc = d.cast(w, compute);
  ArrayRef<int64_t> spatialX = xT.getShape().drop_front(2),
                    spatialY = gyT.getShape().drop_front(2),
                    kernel = wT.getShape().drop_front(2);
  if (mask[0]) {
    Value gx;
    if (!*transposed) {
      SmallVector<int64_t> extra;
      for (int64_t i = 0; i < k; ++i)
        extra.push_back(spatialX[i] - ((spatialY[i] - 1) * (*stride)[i] -
                                       2 * (*padding)[i] +
                                       (*dilation)[i] * (kernel[i] - 1) + 1));
      gx = convolution(gyc, wc, *stride, *dilation, true, extra);
    } else {
      gx = crop(convolution(gyc, wc, *stride, *dilation, false,
                            SmallVector<int64_t>(k, 0)),
                spatialX);
    }
    out[0] = d.cast(gx, element);
  }
  if (mask[1]) {
    // Per kernel tap, the wide side's positions that tap reads (a strided
    // window of the zero-padded wide side) times the narrow side, summed
    // over the batch and the narrow positions: one bmm over the groups.
    Value wide = *transposed ? gyc : xc, narrow = *transposed ? xc : gyc;
    RankedTensorType wideT = *transposed ? gyT : xT, narrowT = *transposed ? xT : gyT;
    int64_t n = wideT.getDimSize(0), wideC = wideT.getDimSize(1) / g,
            narrowC = narrowT.getDimSize(1) / g;
    ArrayRef<int64_t> narrowS = narrowT.getShape().drop_front(2);
    int64_t positions = 1, taps = 1;
    for (int64_t i = 0; i < k; ++i) {
      positions *= narrowS[i];
      taps *= kernel[i];
    }
    // [N, G*c, P...] -> [N, G, c, P] -> `perm` -> [G, a, b].
    auto grouped = [&](Value v, int64_t c, ArrayRef<int64_t> perm,
                       ArrayRef<int64_t> shape) {
      Value r = reshape(d, v, {n, g, c, positions});
      r = d.call("torch.permute", {{"input", r}, {"dims", d.ints(perm)}});
      return reshape(d, r, shape);
    };
    Value lhs = grouped(narrow, narrowC, {1, 2, 0, 3}, {g, narrowC, n * positions});
    SmallVector<int64_t> pad;
    for (int64_t i = k - 1; i >= 0; --i)
      pad.append({(*padding)[i], (*padding)[i]});
    Value padded = llvm::all_of(pad, [](int64_t v) { return v == 0; })
                       ? wide
                       : d.call("torch.nn.functional.pad",
                                {{"input", wide}, {"pad", d.ints(pad)}});
    SmallVector<Value> perTap;
    for (int64_t t = 0; t < taps; ++t) {
      Value v = padded;
      for (int64_t i = k - 1, rest = t; i >= 0; --i) {
        int64_t tap = rest % kernel[i];
        rest /= kernel[i];
        int64_t start = tap * (*dilation)[i];
        v = window(d, v, 2 + i,
                   sliceOf(d, start, start + (narrowS[i] - 1) * (*stride)[i] + 1,
                           (*stride)[i]));
      }
      Value rhs = grouped(v, wideC, {1, 0, 3, 2}, {g, n * positions, wideC});
      perTap.push_back(d.call("torch.bmm", {{"input", lhs}, {"mat2", rhs}}));
    }
    if (llvm::is_contained(perTap, Value()))
      return failure();
    Value stacked = d.call("torch.stack", {{"tensors", Arg::list(d.ctx, perTap)},
                                           {"dim", d.i64(3)}});
    out[1] = d.cast(reshape(d, stacked, wT.getShape()), element);
  }
  if (mask[2]) {
    SmallVector<int64_t> dims = {0};
    for (int64_t i = 2; i < gyT.getRank(); ++i)
      dims.push_back(i);
    out[2] = d.call("torch.sum", {{"input", gy}, {"dim", d.ints(dims)},
                                  {"dtype", d.dtype(element)}});
  }
  return maskedResults(d, out, mask);
}

Results decompose::maskedResults(Decomposer &d, SmallVector<Value> out,
                                 ArrayRef<bool> mask) {
  for (auto [value, asked] : llvm::zip(out, mask))
    if (!asked)
      value = d.constant(d.none(), traced::NoneType::get(d.ctx));
  if (llvm::is_contained(out, Value()))
    return failure();
  return out;
}

//===----------------------------------------------------------------------===//
// Products that are formulas of other products
//===----------------------------------------------------------------------===//

/// `a`'s dims `da` contracted with `b`'s `db` (tensordot, inner): both
/// permuted and flattened into one mm, reshaped back.
static Value contract(Decomposer &d, Value a, Value b, ArrayRef<int64_t> da,
                      ArrayRef<int64_t> db) {
  RankedTensorType ta = typeOf(a), tb = typeOf(b);
  SmallVector<int64_t> pa, pb, shape;
  int64_t rows = 1, cols = 1, inner = 1;
  for (int64_t i = 0; i < ta.getRank(); ++i)
    if (!llvm::is_contained(da, i)) {
      pa.push_back(i);
      shape.push_back(ta.getDimSize(i));
      rows *= ta.getDimSize(i);
    }
  for (int64_t i : da) {
    pa.push_back(i);
    inner *= ta.getDimSize(i);
  }
  llvm::append_range(pb, db);
  for (int64_t i = 0; i < tb.getRank(); ++i)
    if (!llvm::is_contained(db, i)) {
      pb.push_back(i);
      shape.push_back(tb.getDimSize(i));
      cols *= tb.getDimSize(i);
    }
  Value ap = d.call("torch.permute", {{"input", a}, {"dims", d.ints(pa)}});
  Value bp = d.call("torch.permute", {{"input", b}, {"dims", d.ints(pb)}});
  Value product = d.call("torch.mm", {{"input", reshape(d, ap, {rows, inner})},
                                      {"mat2", reshape(d, bp, {inner, cols})}});
  return reshape(d, product, shape);
}

static Results decomposeTensordot(Decomposer &d) {
  bool isInner = d.target() == "torch.inner";
  Value a = d.tensor(isInner ? "input" : "a"), b = d.tensor(isInner ? "other" : "b");
  if (!allStaticShapes({a, b}))
    return d.decline("needs static shapes");
  RankedTensorType ta = typeOf(a), tb = typeOf(b);
  if (isInner) {
    if (ta.getRank() == 0 || tb.getRank() == 0)
      return one(d.binary("torch.mul", a, b));
    return one(contract(d, a, b, {ta.getRank() - 1}, {tb.getRank() - 1}));
  }
  std::string error;
  auto dims = tensordotDimsOf(d.value("dims"), ta.getShape(), tb.getShape(), error);
  if (!dims || failed(*dims))
    return d.decline("dims must be valid constants");
  return one(contract(d, a, b, (*dims)->first, (*dims)->second));
}

/// addr: beta * input + alpha * outer(vec1, vec2) in the promoted dtype;
/// bools as (beta && input) || (alpha && outer).
static Results decomposeAddr(Decomposer &d) {
  RankedTensorType type = d.resultTensorType();
  if (!type)
    return d.decline("the result type is not known");
  Type e = type.getElementType();
  Value product = d.call("torch.outer", {{"input", d.cast(d.tensor("vec1"), e)},
                                         {"vec2", d.cast(d.tensor("vec2"), e)}});
  if (!e.isInteger(1))
    return scaledSum(d, product);
  std::optional<double> beta = d.getFloat("beta"), alpha = d.getFloat("alpha");
  if (!beta || !alpha)
    return d.decline("beta and alpha are not constants");
  if (*alpha == 0)
    product = d.unary("torch.zeros_like", product);
  if (*beta == 0)
    return one(product);
  return one(d.binary("torch.logical_or", d.cast(d.tensor("input"), e), product));
}

/// kron: [a0, 1, a1, 1, ...] * [1, b0, 1, b1, ...], dims merged pairwise.
static Results decomposeKron(Decomposer &d) {
  Value a = d.tensor("input"), b = d.tensor("other");
  if (!allStaticShapes({a, b}))
    return d.decline("needs static shapes");
  RankedTensorType ta = typeOf(a), tb = typeOf(b);
  int64_t rank = std::max(ta.getRank(), tb.getRank());
  SmallVector<int64_t> sa, sb, out;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t ia = i - (rank - ta.getRank()), ib = i - (rank - tb.getRank());
    int64_t x = ia >= 0 ? ta.getDimSize(ia) : 1, y = ib >= 0 ? tb.getDimSize(ib) : 1;
    sa.append({x, 1});
    sb.append({1, y});
    out.push_back(x * y);
  }
  return one(reshape(d, d.binary("torch.mul", reshape(d, a, sa), reshape(d, b, sb)), out));
}

/// multi_dot: the kernel's order of mm calls (Kernels/Linalg.cpp).
static Results decomposeMultiDot(Decomposer &d) {
  SmallVector<Value> ts = d.arg("tensors").values;
  if (ts.size() < 2 || !allStaticShapes(ts))
    return d.decline("needs at least two tensors of static shapes");
  RankedTensorType first = typeOf(ts.front()), last = typeOf(ts.back());
  SmallVector<int64_t> out;
  if (first.getRank() == 2)
    out.push_back(first.getDimSize(0));
  else
    ts.front() = reshape(d, ts.front(), {1, first.getDimSize(0)});
  if (last.getRank() == 2)
    out.push_back(last.getDimSize(1));
  else
    ts.back() = reshape(d, ts.back(), {last.getDimSize(0), 1});
  auto mm = [&](Value x, Value y) {
    return d.call("torch.mm", {{"input", x}, {"mat2", y}});
  };
  Value r;
  if (ts.size() == 3) {
    int64_t a = typeOf(ts[0]).getDimSize(0), b = typeOf(ts[1]).getDimSize(0),
            c = typeOf(ts[2]).getDimSize(0), e = typeOf(ts[2]).getDimSize(1);
    r = a * c * (b + e) > b * e * (a + c) ? mm(ts[0], mm(ts[1], ts[2]))
                                          : mm(mm(ts[0], ts[1]), ts[2]);
  } else {
    r = ts[0];
    for (size_t i = 1; i < ts.size(); ++i)
      r = mm(r, ts[i]);
  }
  return one(reshape(d, r, out));
}

/// matrix_power: the kernel's chain of matmuls (an identity constant for
/// 0, the inverse first for a negative power).
static Results decomposeMatrixPower(Decomposer &d) {
  Value a = d.tensor("input");
  auto n = d.getInt("n");
  RankedTensorType type = typeOf(a);
  if (!n || !type || !type.hasStaticShape())
    return d.decline("needs a constant power and a static shape");
  if (*n == 0) {
    return one(d.tensorConstant(type, [](ArrayRef<int64_t> i) {
      return i[i.size() - 1] == i[i.size() - 2] ? 1.0 : 0.0;
    }));
  }
  Value base = *n < 0 ? d.unary("torch.linalg.inv", a) : a;
  int64_t k = std::abs(*n);
  auto matmul = [&](Value x, Value y) { return d.binary("torch.matmul", x, y); };
  if (k == 1)
    return one(d.unary("torch.clone", base));
  if (k == 2)
    return one(matmul(base, base));
  if (k == 3)
    return one(matmul(matmul(base, base), base));
  Value z, result;
  for (; k > 0; k >>= 1) {
    z = z ? matmul(z, z) : base;
    if (k & 1)
      result = result ? matmul(result, z) : z;
  }
  return one(result);
}

/// linalg.matrix_rank and linalg.cond over the singular values (torch
/// 1.13's own compositions: linalg_matrix_rank, linalg_cond).
static Results decomposeSpectral(Decomposer &d) {
  RankedTensorType type = d.tensorType("A");
  RankedTensorType result = d.resultTensorType();
  if (!type || !result || !type.hasStaticShape())
    return d.decline("needs a statically shaped A");
  int64_t m = type.getShape()[type.getRank() - 2], n = type.getShape().back();
  if (m == 0 || n == 0)
    return one(d.tensorConstant(result, [](ArrayRef<int64_t>) { return 0.0; }));
  bool rank = d.target() == "torch.linalg.matrix_rank";
  bool hermitian = rank && d.getBool("hermitian").value_or(false);
  Value s = hermitian ? d.unary("torch.abs", d.call("torch.linalg.eigvalsh",
                                                     {{"A", d.arg("A")},
                                                      {"UPLO", d.str("L")}}))
                      : d.call("torch.linalg.svdvals", {{"A", d.arg("A")}});
  if (!rank) {
    bool inverse = !d.isNone("p") && d.getInt("p") == std::optional<int64_t>(-2);
    auto pick = [&](int64_t i) {
      return d.call("torch.select",
                    {{"input", s}, {"dim", d.i64(-1)}, {"index", d.i64(i)}});
    };
    return one(inverse ? d.binary("torch.div", pick(-1), pick(0))
                       : d.binary("torch.div", pick(0), pick(-1)));
  }
  std::optional<double> atol = d.getFloat("atol"), rtol = d.getFloat("rtol");
  double eps = type.getElementType().isF32() ? 1.1920928955078125e-07
                                             : 2.220446049250313e-16;
  double r = rtol ? *rtol : atol && *atol > 0 ? 0.0 : eps * std::max(m, n);
  Value largest = d.call("torch.amax", {{"input", s}, {"dim", d.ints({-1})},
                                        {"keepdim", d.boolean(true)}});
  Value tol = d.call("torch.clamp", {{"input", d.binary("torch.mul", largest, d.f64(r))},
                                     {"min", d.f64(atol.value_or(0.0))}});
  return one(d.call("torch.sum", {{"input", d.binary("torch.gt", s, tol)},
                                  {"dim", d.ints({-1})}}));
}

/// linalg.pinv and pinverse, as torch 1.13's linalg_pinv: from the reduced
/// SVD (eigh with `hermitian`), V diag(1/S) U^T with the singular values at
/// or below max(atol, rtol * the largest) dropped.
static Results decomposePinv(Decomposer &d) {
  bool old = d.target() == "torch.pinverse";
  StringRef name = old ? "input" : "A";
  RankedTensorType type = d.tensorType(name);
  RankedTensorType result = d.resultTensorType();
  if (!type || !result || !type.hasStaticShape())
    return d.decline("needs a statically shaped A");
  if (result.getNumElements() == 0)
    return one(d.tensorConstant(result, [](ArrayRef<int64_t>) { return 0.0; }));
  int64_t m = type.getShape()[type.getRank() - 2], n = type.getShape().back();
  double eps = type.getElementType().isF32() ? 1.1920928955078125e-07
                                             : 2.220446049250313e-16;
  double atol = 0, rtol = eps * std::max(m, n);
  bool hermitian = !old && d.getBool("hermitian").value_or(false);
  if (old || !d.isNone("rcond")) {
    std::optional<double> rcond = d.getFloat("rcond");
    if (!rcond)
      return d.decline("needs a constant rcond");
    rtol = *rcond;
  } else {
    std::optional<double> a = d.getFloat("atol"), r = d.getFloat("rtol");
    atol = a.value_or(0.0);
    rtol = r ? *r : a && *a > 0 ? 0.0 : rtol;
  }
  auto item = [&](Value tuple, int64_t i) {
    return d.call("operator.getitem", {{"input", tuple}, {"index", d.i64(i)}});
  };
  auto mT = [&](Value x) {
    return d.call("torch.transpose",
                  {{"input", x}, {"dim0", d.i64(-2)}, {"dim1", d.i64(-1)}});
  };
  Value u, s, v;
  if (hermitian) {
    Value e = d.call("torch.linalg.eigh", {{"A", d.arg(name)}, {"UPLO", d.str("L")}});
    s = item(e, 0);
    u = item(e, 1);
    v = u;
  } else {
    Value svd = d.call("torch.linalg.svd", {{"A", d.arg(name)},
                                            {"full_matrices", d.boolean(false)}});
    u = item(svd, 0);
    s = item(svd, 1);
    v = mT(item(svd, 2));
  }
  Value size = hermitian ? d.unary("torch.abs", s) : s;
  Value largest = d.call("torch.amax", {{"input", size}, {"dim", d.ints({-1})},
                                        {"keepdim", d.boolean(true)}});
  Value tol = d.call("torch.clamp", {{"input", d.binary("torch.mul", largest, d.f64(rtol))},
                                     {"min", d.f64(atol)}});
  Value dropped = d.unary("torch.logical_not", d.binary("torch.gt", size, tol));
  Value sinv = d.call("Tensor.masked_fill", {{"input", d.unary("torch.reciprocal", s)},
                                             {"mask", dropped},
                                             {"value", d.f64(0)}});
  Value scaled = d.binary("torch.mul", v,
                          d.call("torch.unsqueeze", {{"input", sinv}, {"dim", d.i64(-2)}}));
  return one(d.call("torch.matmul", {{"input", scaled}, {"other", mT(u)}}));
}

//===----------------------------------------------------------------------===//
// Complex-to-real FFTs of real input as matmuls (docs/fft.md)
//===----------------------------------------------------------------------===//

/// `x` times the constant [size, n] matrix `fn(k, m)` along dim `dim`
/// (moved last for the product, then back); f64 throughout.
static Value transformAlong(Decomposer &d, Value x, int64_t dim, int64_t n,
                            function_ref<double(int64_t, int64_t)> fn) {
  if (!x)
    return x;
  int64_t size = shapeOf(x)[dim];
  bool last = dim + 1 == static_cast<int64_t>(shapeOf(x).size());
  Value moved = last ? x
                     : d.call("torch.movedim", {{"input", x},
                                                {"source", d.i64(dim)},
                                                {"destination", d.i64(-1)}});
  Value matrix = d.tensorConstant(
      RankedTensorType::get({size, n}, d.b.getF64Type()),
      [&](ArrayRef<int64_t> i) { return fn(i[0], i[1]); });
  Value product = d.binary("torch.matmul", moved, matrix);
  if (last)
    return product;
  return d.call("torch.movedim", {{"input", product},
                                  {"source", d.i64(-1)},
                                  {"destination", d.i64(dim)}});
}

/// cos (`sine`: sin) of 2 pi k m / n, k m reduced mod n first.
static double twiddle(int64_t k, int64_t m, int64_t n, bool sine) {
  double angle = 2.0 * M_PI * static_cast<double>((k * m) % n) /
                 static_cast<double>(n);
  return sine ? std::sin(angle) : std::cos(angle);
}

/// torch.fft.irfft/irfft2/irfftn (`Hermitian`: hfft*) of a real input with
/// static sizes: per dim but the last, the inverse DFT as products with
/// constant cosine and sine matrices (the input cropped or zero-padded by
/// the matrices' rows), carrying real and imaginary parts; then the real
/// inverse DFT of the Hermitian last dim (bins 0 and n/2 once, the others
/// twice) with the scale folded in. In float64, rounded once to the result.
template <bool Hermitian>
static Results decomposeFftC2R(Decomposer &d) {
  Value input = d.tensor("input");
  RankedTensorType type = typeOf(input);
  RankedTensorType result = d.resultTensorType(0);
  if (!type || !type.hasStaticShape() || !result)
    return d.decline("the FFT needs an input of static shape");
  FftC2R fft;
  std::string error;
  ConvDecode status = withArgReader(d, [&](const ArgReader &reader) {
    return decodeFftC2R(d.bound.spec->signature, reader, type.getShape(),
                        Hermitian, Hermitian ? "hfftn" : "irfftn", fft, error);
  });
  if (status != ConvDecode::Ok)
    return d.decline(error.empty() ? "the FFT's arguments are not constants"
                                   : error);
  Value re = d.cast(input, d.b.getF64Type()), im;
  for (size_t i = 0; i + 1 < fft.dims.size(); ++i) {
    int64_t dim = fft.dims[i], n = fft.sizes[i];
    auto c = [&](int64_t k, int64_t m) {
      return k < n ? twiddle(k, m, n, false) : 0.0;
    };
    auto s = [&](int64_t k, int64_t m) {
      return k < n ? twiddle(k, m, n, true) : 0.0;
    };
    Value nextRe = transformAlong(d, re, dim, n, c);
    Value nextIm = transformAlong(d, re, dim, n, s);
    if (im) {
      nextRe = d.binary("torch.sub", nextRe, transformAlong(d, im, dim, n, s));
      nextIm = d.binary("torch.add", nextIm, transformAlong(d, im, dim, n, c));
    }
    re = nextRe;
    im = nextIm;
  }
  int64_t dim = fft.dims.back(), n = fft.lastSize, bins = n / 2 + 1;
  auto weight = [&](int64_t j) {
    return (j == 0 || 2 * j == n) ? fft.scale : 2.0 * fft.scale;
  };
  Value y = transformAlong(d, re, dim, n, [&](int64_t j, int64_t t) {
    return j < bins ? weight(j) * twiddle(j, t, n, false) : 0.0;
  });
  if (im)
    y = d.binary("torch.add", y,
                 transformAlong(d, im, dim, n, [&](int64_t j, int64_t t) {
                   return j < bins ? -weight(j) * twiddle(j, t, n, true) : 0.0;
                 }));
  return one(d.cast(y, result.getElementType()));
}

/// decodeStft or decodeIstft of the call (static shapes), and its window
/// (null for window=None) in float64, padded to n_fft (centred).
static FailureOr<Value> decodeStftCall(Decomposer &d, bool inverse,
                                       Stft &stft) {
  Value input = d.tensor("input");
  Value win = d.isNone("window") ? Value() : d.tensor("window");
  if (!typeOf(input) || !typeOf(input).hasStaticShape() ||
      !d.resultTensorType(0) ||
      (!d.isNone("window") && (!typeOf(win) || !typeOf(win).hasStaticShape())))
  {
    (void)d.decline("needs tensors of static shape");
    return failure();
  }
  std::optional<ArrayRef<int64_t>> windowShape;
  if (win)
    windowShape = typeOf(win).getShape();
  std::string error;
  ArrayRef<int64_t> shape = typeOf(input).getShape();
  ConvDecode status = withArgReader(d, [&](const ArgReader &reader) {
    return inverse ? decodeIstft(reader, shape, windowShape, stft, error)
                   : decodeStft(reader, shape, windowShape, stft, error);
  });
  if (status != ConvDecode::Ok) {
    (void)d.decline(error.empty() ? "the arguments are not constants" : error);
    return failure();
  }
  if (!win)
    return Value();
  win = d.cast(win, d.b.getF64Type());
  int64_t left = (stft.nFft - stft.winLength) / 2;
  if (stft.winLength < stft.nFft)
    win = d.call("torch.nn.functional.pad",
                 {{"input", win},
                  {"pad", d.ints({left, stft.nFft - stft.winLength - left})}});
  return win;
}

/// torch.stft of a real signal (docs/fft.md): the frames of the padded
/// signal gathered with a constant index [frames, n_fft] (pad_mode
/// 'constant' reads a zero appended to the signal), times the window, times
/// a constant [n_fft, 2 bins] matrix of cos and -sin columns (the scale and
/// a window of ones folded in), reshaped and transposed to [..., bin,
/// frame, 2]. In float64, rounded once to the result.
static Results decomposeStft(Decomposer &d) {
  Stft s;
  FailureOr<Value> win = decodeStftCall(d, /*inverse=*/false, s);
  if (failed(win))
    return failure();
  Value x = d.cast(d.tensor("input"), d.b.getF64Type());
  int64_t rank = static_cast<int64_t>(shapeOf(x).size());
  if (s.padMode == "constant" && s.pad > 0)
    x = d.call("torch.nn.functional.pad",
               {{"input", x}, {"pad", d.ints({0, 1})}});
  Value index = d.tensorConstant(
      RankedTensorType::get({s.frames, s.nFft}, d.b.getI64Type()),
      [&](ArrayRef<int64_t> i) {
        int64_t src = s.source(i[0] * s.hop + i[1]);
        return static_cast<double>(src < 0 ? s.length : src);
      });
  Value frames = indexDim(d, x, rank - 1, index);
  if (*win)
    frames = d.binary("torch.mul", frames, *win);
  double scale =
      s.normalized ? 1.0 / std::sqrt(static_cast<double>(s.nFft)) : 1.0;
  Value matrix = d.tensorConstant(
      RankedTensorType::get({s.nFft, 2 * s.bins}, d.b.getF64Type()),
      [&](ArrayRef<int64_t> i) {
        int64_t t = i[0], k = i[1] / 2;
        double w = (*win || s.inWindow(t)) ? scale : 0.0;
        return i[1] % 2 ? -w * twiddle(k, t, s.nFft, true)
                        : w * twiddle(k, t, s.nFft, false);
      });
  Value spectrum = d.binary("torch.matmul", frames, matrix);
  SmallVector<int64_t> shape(shapeOf(frames).drop_back());
  shape.append({s.bins, 2});
  spectrum = d.call("torch.transpose", {{"input", reshape(d, spectrum, shape)},
                                        {"dim0", d.i64(-3)},
                                        {"dim1", d.i64(-2)}});
  return one(d.cast(spectrum, d.resultTensorType(0).getElementType()));
}

/// torch.istft of a real spectrum (docs/fft.md): per frame the real inverse
/// DFT of bins 0 .. n_fft / 2 as a product with a constant [2 bins, n_fft]
/// matrix (scale, Hermitian weights and a window of ones folded in), times
/// the window, overlap-added by index_add at constant positions, trimmed,
/// divided by the overlap-added squared window (constant for window=None,
/// else computed the same way and checked at run time against torch's
/// 1e-11), zeros appended up to `length`. In float64, rounded once.
static Results decomposeIstft(Decomposer &d) {
  Stft s;
  FailureOr<Value> win = decodeStftCall(d, /*inverse=*/true, s);
  if (failed(win))
    return failure();
  Value x = d.cast(d.tensor("input"), d.b.getF64Type());
  SmallVector<int64_t> batch(shapeOf(x).drop_back(3));
  int64_t n = s.nFft, half = n / 2 + 1, kept = s.stop - s.start;
  double scale = s.normalized ? 1.0 / std::sqrt(static_cast<double>(n))
                              : 1.0 / static_cast<double>(n);
  // [..., bin, frame, 2] -> [..., frame, bin * 2].
  x = d.call("torch.movedim", {{"input", x},
                               {"source", d.i64(-3)},
                               {"destination", d.i64(-2)}});
  SmallVector<int64_t> rows(batch);
  rows.append({s.frames, 2 * s.bins});
  x = reshape(d, x, rows);
  Value matrix = d.tensorConstant(
      RankedTensorType::get({2 * s.bins, n}, d.b.getF64Type()),
      [&](ArrayRef<int64_t> i) {
        int64_t j = i[0] / 2, t = i[1];
        if (j >= half || (!*win && !s.inWindow(t)))
          return 0.0;
        bool edge = j == 0 || 2 * j == n;
        double w = (edge ? 1.0 : 2.0) * scale;
        if (i[0] % 2)
          return edge ? 0.0 : -w * twiddle(j, t, n, true);
        return w * twiddle(j, t, n, false);
      });
  Value frames = d.binary("torch.matmul", x, matrix);
  if (*win)
    frames = d.binary("torch.mul", frames, *win);
  SmallVector<int64_t> flat(batch);
  flat.push_back(s.frames * n);
  Value positions = d.tensorConstant(
      RankedTensorType::get({s.frames * n}, d.b.getI64Type()),
      [&](ArrayRef<int64_t> i) {
        return static_cast<double>((i[0] / n) * s.hop + i[0] % n);
      });
  auto overlapAdd = [&](Value source, ArrayRef<int64_t> lead) {
    SmallVector<int64_t> shape(lead);
    shape.push_back(s.added);
    int64_t dim = static_cast<int64_t>(lead.size());
    Value zeros = d.tensorConstant(
        RankedTensorType::get(shape, d.b.getF64Type()),
        [](ArrayRef<int64_t>) { return 0.0; });
    Value sum = d.call("torch.index_add", {{"input", zeros},
                                           {"dim", d.i64(dim)},
                                           {"index", positions},
                                           {"source", source}});
    return d.call("torch.narrow", {{"input", sum},
                                   {"dim", d.i64(dim)},
                                   {"start", d.i64(s.start)},
                                   {"length", d.i64(kept)}});
  };
  Value y = overlapAdd(reshape(d, frames, flat), batch);
  auto envelopeAt = [&](int64_t i) {
    double e = 0.0;
    for (int64_t f = 0; f < s.frames; ++f) {
      int64_t t = s.start + i - f * s.hop;
      e += (t >= 0 && t < n && s.inWindow(t)) ? 1.0 : 0.0;
    }
    return e;
  };
  if (*win) {
    Value squares = d.binary("torch.mul", *win, *win);
    Value ones = d.tensorConstant(
        RankedTensorType::get({s.frames, n}, d.b.getF64Type()),
        [](ArrayRef<int64_t>) { return 1.0; });
    squares = reshape(d, d.binary("torch.mul", squares, ones), {s.frames * n});
    Value envelope = overlapAdd(squares, {});
    Value ok = d.call("torch.all",
                      {{"input", d.binary("torch.ge", envelope, d.f64(1e-11))}});
    d.call("torch._assert",
           {{"condition", ok},
            {"message", d.str("istft: window overlap add min: 1 (the "
                              "overlap-added squared window is below 1e-11)")}});
    y = d.binary("torch.div", y, envelope);
  } else {
    y = d.binary("torch.mul", y,
                 d.tensorConstant(
                     RankedTensorType::get({kept}, d.b.getF64Type()),
                     [&](ArrayRef<int64_t> i) { return 1.0 / envelopeAt(i[0]); }));
  }
  if (s.outLength > kept)
    y = d.call("torch.nn.functional.pad",
               {{"input", y}, {"pad", d.ints({0, s.outLength - kept})}});
  return one(d.cast(y, d.resultTensorType(0).getElementType()));
}

/// torch 1.13's _scaled_dot_product_attention (its CPU math path):
/// matmul(query * (1 / sqrt(E)), key^T), plus the mask (bool ones and
/// is_causal's lower triangle as 0 / -inf; add_ keeps the weights' dtype),
/// softmax over the last dim (times 0 for dropout_p = 1), matmul with
/// value: (output, weights).
static Results decomposeScaledDotProductAttention(Decomposer &d) {
  Value q = d.tensor("query"), k = d.tensor("key"), v = d.tensor("value");
  std::optional<bool> causal = d.getBool("is_causal");
  if (!q || !k || !v || !causal || ShapedType::isDynamic(shapeOf(q).back()))
    return d.decline("needs query, key and value tensors, a constant "
                     "is_causal and a static embedding size");
  double factor = 1.0 / std::sqrt(static_cast<double>(shapeOf(q).back()));
  Value scaled = d.binary("torch.mul", q, d.f64(factor));
  Value keyT = d.call("torch.transpose",
                      {{"input", k}, {"dim0", d.i64(-2)}, {"dim1", d.i64(-1)}});
  Value attn = d.binary("torch.matmul", scaled, keyT);
  if (!attn)
    return failure();
  RankedTensorType attnType = typeOf(attn);
  Type element = attnType.getElementType();
  double inf = std::numeric_limits<double>::infinity();
  Value mask;
  if (*causal) {
    int64_t l = attnType.getDimSize(attnType.getRank() - 2),
            s = attnType.getShape().back();
    if (ShapedType::isDynamic(l) || ShapedType::isDynamic(s))
      return d.decline("is_causal needs static lengths");
    mask = d.tensorConstant(RankedTensorType::get({l, s}, element),
                            [&](ArrayRef<int64_t> i) {
                              return i[1] <= i[0] ? 0.0 : -inf;
                            });
  } else if (Value m = d.tensor("attn_mask")) {
    mask = m;
    RankedTensorType maskType = typeOf(m);
    if (maskType.getElementType().isInteger(1)) {
      if (!maskType.hasStaticShape())
        return d.decline("a bool attn_mask needs a static shape");
      Value zeros = d.tensorConstant(maskType.clone(element),
                                     [](ArrayRef<int64_t>) { return 0.0; });
      mask = d.call("Tensor.masked_fill",
                    {{"input", zeros},
                     {"mask", d.unary("torch.logical_not", m)},
                     {"value", d.f64(-inf)}});
    }
  }
  if (mask)
    attn = d.cast(d.binary("torch.add", attn, mask), element);
  Value weights = d.call("torch.nn.functional.softmax",
                         {{"input", attn}, {"dim", d.i64(-1)}});
  // dropout_p = 1 drops every weight (the rule refuses 0 < p < 1).
  if (d.getFloat("dropout_p") == std::optional<double>(1.0))
    weights = d.binary("torch.mul", weights, d.f64(0.0));
  Value out = d.binary("torch.matmul", weights, v);
  if (!out)
    return failure();
  return SmallVector<Value>{out, weights};
}

/// linalg.tensorinv and linalg.tensorsolve, as torch 1.13: one square
/// matrix (decodeTensorInverse), then inv_ex (checked) or solve.
static Results decomposeTensorInverse(Decomposer &d) {
  bool solve = d.target() == "torch.linalg.tensorsolve";
  Value a = d.tensor("A"), b = solve ? d.tensor("B") : Value();
  if (!a || !typeOf(a) || !typeOf(a).hasStaticShape() ||
      (solve && (!b || !typeOf(b) || !typeOf(b).hasStaticShape())))
    return d.decline("needs statically shaped tensors");
  std::optional<int64_t> ind = solve ? 0 : d.getInt("ind");
  std::optional<SmallVector<int64_t>> dims;
  if (solve && !d.isNone("dims")) {
    dims = d.getInts("dims");
    if (!dims)
      return d.decline("needs constant dims");
  }
  if (!ind)
    return d.decline("needs a constant ind");
  std::string error;
  std::optional<TensorInverse> t = decodeTensorInverse(
      typeOf(a).getShape(), *ind,
      solve ? std::optional<ArrayRef<int64_t>>(typeOf(b).getShape())
            : std::nullopt,
      dims ? std::optional<ArrayRef<int64_t>>(*dims) : std::nullopt, error);
  if (!t)
    return d.decline(error);
  Value x = d.call("torch.permute", {{"input", a}, {"dims", d.ints(t->perm)}});
  x = reshape(d, x, {t->size, t->size});
  Value r;
  if (solve) {
    r = d.call("torch.linalg.solve",
               {{"A", x}, {"B", reshape(d, b, {t->size})}});
  } else {
    Value inv = d.call("torch.linalg.inv_ex",
                       {{"A", x}, {"check_errors", d.boolean(true)}});
    r = d.call("operator.getitem", {{"input", inv}, {"index", d.i64(0)}});
  }
  return one(reshape(d, r, t->resultShape));
}

void decompose::populateLinalgDecompositions(DecompositionTable &t) {
  t["Tensor.__rmatmul__"] = [](Decomposer &d) -> Results {
    return one(d.binary("torch.matmul", d.tensor("other"), d.tensor("input")));
  };
  t["torch.addr"] = decomposeAddr;
  t["torch.fft.irfft"] = decomposeFftC2R<false>;
  t["torch.fft.irfft2"] = decomposeFftC2R<false>;
  t["torch.fft.irfftn"] = decomposeFftC2R<false>;
  t["torch.fft.hfft"] = decomposeFftC2R<true>;
  t["torch.fft.hfft2"] = decomposeFftC2R<true>;
  t["torch.fft.hfftn"] = decomposeFftC2R<true>;
  t["torch.functional.stft"] = decomposeStft;
  t["torch.istft"] = decomposeIstft;
  t["torch.nn.functional._scaled_dot_product_attention"] =
      decomposeScaledDotProductAttention;
  t["torch.inner"] = decomposeTensordot;
  t["torch.tensordot"] = decomposeTensordot;
  t["torch.kron"] = decomposeKron;
  t["torch.linalg.vecdot"] = [](Decomposer &d) -> Results {
    Value product = d.binary("torch.mul", d.tensor("x"), d.tensor("y"));
    auto dim = d.getInt("dim");
    if (!dim)
      return d.decline("dim must be a constant");
    return one(d.call("torch.sum", {{"input", product}, {"dim", d.ints({*dim})}}));
  };
  t["torch.linalg.multi_dot"] = decomposeMultiDot;
  t["torch.linalg.matrix_power"] = decomposeMatrixPower;
  t["torch.dist"] = [](Decomposer &d) -> Results {
    auto p = d.getFloat("p");
    RankedTensorType type = d.resultTensorType();
    if (!p || !type)
      return d.decline("p must be a constant");
    Value diff = d.binary("torch.sub", d.tensor("input"), d.tensor("other"));
    return one(vectorNorm(d, diff, *p, Arg(d.none()), d.boolean(false),
                          type.getElementType()));
  };
  t["torch.ops.aten.convolution_backward.default"] = decomposeConvolutionBackward;
  t["torch.ops.aten._trilinear.default"] = decomposeTrilinear;
  t["torch.linalg.det"] = decomposeDet;
  t["torch.linalg.slogdet"] = decomposeDet;
  t["torch.linalg.inv"] = decomposeInv;
  t["torch.linalg.matrix_rank"] = decomposeSpectral;
  t["torch.linalg.cond"] = decomposeSpectral;
  t["torch.linalg.pinv"] = decomposePinv;
  t["torch.pinverse"] = decomposePinv;
  t["torch.linalg.tensorinv"] = decomposeTensorInverse;
  t["torch.linalg.tensorsolve"] = decomposeTensorInverse;
  // logdet is slogdet's log|det|, NaN where the sign is -1 (torch 1.13's
  // own composition).
  t["torch.logdet"] = [](Decomposer &d) -> Results {
    Value sl = d.call("torch.linalg.slogdet", {{"input", d.arg("input")}});
    Value sign = d.call("operator.getitem", {{"input", sl}, {"index", d.i64(0)}});
    Value logabs = d.call("operator.getitem", {{"input", sl}, {"index", d.i64(1)}});
    Value negative = d.call("torch.eq", {{"input", sign}, {"other", d.f64(-1)}});
    return one(d.call("Tensor.masked_fill", {{"input", logabs},
                                             {"mask", negative},
                                             {"value", d.f64(std::nan(""))}}));
  };
  // (The products compute in the promoted dtype, as torch's do.)
  t["torch.addmm"] = [](Decomposer &d) -> Results {
    Type element = d.resultTensorType().getElementType();
    return scaledSum(d, d.call("torch.mm", {{"input", d.cast(d.tensor("mat1"), element)},
                                            {"mat2", d.cast(d.tensor("mat2"), element)}}));
  };
  t["torch.addmv"] = [](Decomposer &d) -> Results {
    return scaledSum(d, d.call("torch.mv", {{"input", d.arg("mat")},
                                            {"vec", d.arg("vec")}}));
  };
  t["torch.addbmm"] = [](Decomposer &d) -> Results {
    Type element = d.resultTensorType().getElementType();
    Value b = d.call("torch.bmm", {{"input", d.cast(d.tensor("batch1"), element)},
                                   {"mat2", d.cast(d.tensor("batch2"), element)}});
    return scaledSum(d, d.call("torch.sum", {{"input", b},
                                             {"dim", d.ints({0})},
                                             {"dtype", d.dtype(element)}}));
  };
  t["torch.baddbmm"] = [](Decomposer &d) -> Results {
    Type element = d.resultTensorType().getElementType();
    return scaledSum(d, d.call("torch.bmm", {{"input", d.cast(d.tensor("batch1"), element)},
                                             {"mat2", d.cast(d.tensor("batch2"), element)}}));
  };
  // F.linear as torch computes it: input @ weight.t() (+ bias); the direct
  // lowering takes float32 and float64, this serves the other dtypes.
  t["torch.nn.functional.linear"] = [](Decomposer &d) -> Results {
    Value weight = d.tensor("weight");
    RankedTensorType type = typeOf(weight);
    if (!type || !d.tensor("input"))
      return d.decline("its input and weight are not tensors");
    Value rhs = type.getRank() == 2 ? d.unary("torch.t", weight) : weight;
    Value out = d.binary("torch.matmul", d.tensor("input"), rhs);
    if (!d.isNone("bias"))
      out = d.binary("torch.add", out, d.tensor("bias"));
    return one(out);
  };
  t["torch.mv"] = [](Decomposer &d) -> Results {
    return one(d.call("torch.matmul",
                      {{"input", d.arg("input")}, {"other", d.arg("vec")}}));
  };
  t["torch.dot"] = [](Decomposer &d) -> Results {
    return one(d.call("torch.matmul",
                      {{"input", d.arg("input")}, {"other", d.arg("other")}}));
  };
  t["torch.outer"] = [](Decomposer &d) -> Results {
    Value col = d.call("torch.unsqueeze", {{"input", d.arg("input")},
                                           {"dim", d.i64(1)}});
    return one(d.binary("torch.mul", col, d.arg("vec2")));
  };
  t["torch.einsum"] = decomposeEinsum;
  // bilinear: y[b, o] = x1[b, i] W[o, i, j] x2[b, j] + bias[o], over the
  // flattened leading dims.
  t["torch.nn.functional.bilinear"] = [](Decomposer &d) -> Results {
    Value x1 = d.tensor("input1"), x2 = d.tensor("input2"), w = d.tensor("weight");
    auto t1 = cast<RankedTensorType>(x1.getType());
    auto tw = cast<RankedTensorType>(w.getType());
    RankedTensorType result = d.resultTensorType();
    if (!t1.hasStaticShape() || !tw.hasStaticShape() || !result ||
        !result.hasStaticShape() || tw.getRank() != 3)
      return d.decline("bilinear needs static shapes");
    int64_t o = tw.getDimSize(0), i = tw.getDimSize(1), j = tw.getDimSize(2);
    int64_t batch = t1.getNumElements() / std::max<int64_t>(i, 1);
    Value a = d.call("torch.reshape", {{"input", x1}, {"shape", d.ints({batch, i})}});
    Value b = d.call("torch.reshape", {{"input", x2}, {"shape", d.ints({batch, 1, j})}});
    Value wt = d.call("torch.reshape",
                      {{"input", d.call("torch.permute", {{"input", w},
                                                          {"dims", d.ints({1, 0, 2})}})},
                       {"shape", d.ints({i, o * j})}});
    Value p = d.call("torch.reshape", {{"input", d.call("torch.mm", {{"input", a},
                                                                     {"mat2", wt}})},
                                       {"shape", d.ints({batch, o, j})}});
    Value y = d.call("torch.sum", {{"input", d.binary("torch.mul", p, b)},
                                   {"dim", d.ints({2})},
                                   {"dtype", d.dtype(result.getElementType())}});
    if (!d.isNone("bias"))
      y = d.binary("torch.add", y, d.arg("bias"));
    return one(d.call("torch.reshape",
                      {{"input", y}, {"shape", d.ints(result.getShape())}}));
  };
  t["torch.cross"] = decomposeCross;
  t["torch.linalg.cross"] = decomposeCross;
}

//===----------------------------------------------------------------------===//
// det, slogdet, inv
//===----------------------------------------------------------------------===//

namespace {
/// Gauss-Jordan elimination with partial pivoting over [..., n, m] (m = n,
/// or 2n for [A | I]), unrolled over the n pivots (the matrices are small
/// and static): LAPACK's getrf order of row choices, as torch uses.
struct Elimination {
  Value matrix;             // after elimination: diag(pivots) on the left
  SmallVector<Value> pivots; // [...] each
  Value sign;               // [...]: -1 per row swap
};
} // namespace

static std::optional<Elimination> eliminate(Decomposer &d, Value a, int64_t n, bool full) {
  auto type = cast<RankedTensorType>(a.getType());
  int64_t rank = type.getRank(), m = type.getShape().back();
  Type element = type.getElementType();
  SmallVector<int64_t> batch(type.getShape().drop_back(2));
  auto slice = [&](std::optional<int64_t> b, std::optional<int64_t> e) {
    return SliceAttr::get(d.ctx, b ? d.i64(*b) : d.none(), e ? d.i64(*e) : d.none(), d.none());
  };
  auto at = [&](Value v, ArrayRef<Attribute> parts) {
    SmallVector<Attribute> items = {EllipsisAttr::get(d.ctx)};
    llvm::append_range(items, parts);
    return d.call("operator.getitem", {{"input", v}, {"index", TupleAttr::get(d.ctx, ArrayAttr::get(d.ctx, items))}});
  };
  Value range = d.tensorConstant(RankedTensorType::get({n}, d.b.getI64Type()),
                                 [](ArrayRef<int64_t> i) { return static_cast<double>(i[0]); });
  Elimination e;
  Value sign = d.tensorConstant(RankedTensorType::get(batch, element), [](ArrayRef<int64_t>) { return 1.0; });
  SmallVector<int64_t> gatherShape(batch);
  gatherShape.append({n, m});
  for (int64_t k = 0; k < n; ++k) {
    // The pivot row: the largest |a[i, k]| for i >= k (the first on ties).
    Value col = d.unary("torch.abs", at(a, {slice({}, {}), d.i64(k)}));
    Value above = d.tensorConstant(RankedTensorType::get({n}, IntegerType::get(d.ctx, 1)),
                                   [&](ArrayRef<int64_t> i) { return i[0] < k ? 1.0 : 0.0; });
    col = d.call("Tensor.masked_fill", {{"input", col}, {"mask", above}, {"value", d.f64(-1)}});
    Value p = d.call("torch.argmax", {{"input", col}, {"dim", d.i64(-1)}, {"keepdim", d.boolean(true)}});
    // Rows k and p swapped: a gather by the permuted row numbers.
    Value perm = d.call("torch.where", {{"condition", d.binary("torch.eq", range, d.i64(k))},
                                        {"input", p},
                                        {"other", d.call("torch.where", {{"condition", d.binary("torch.eq", range, p)},
                                                                         {"input", d.i64(k)},
                                                                         {"other", range}})}});
    Value rows = d.call("Tensor.expand", {{"input", d.call("torch.unsqueeze", {{"input", perm}, {"dim", d.i64(-1)}})},
                                          {"size", d.ints(gatherShape)}});
    a = d.call("torch.gather", {{"input", a}, {"dim", d.i64(rank - 2)}, {"index", rows}});
    Value swapped = d.call("torch.reshape", {{"input", d.binary("torch.ne", p, d.i64(k))}, {"shape", d.ints(batch)}});
    sign = d.call("torch.where", {{"condition", swapped}, {"input", d.unary("torch.neg", sign)}, {"other", sign}});
    Value pivot = at(a, {d.i64(k), d.i64(k)});
    e.pivots.push_back(pivot);
    Value safe = d.call("Tensor.masked_fill", {{"input", pivot}, {"mask", d.binary("torch.eq", pivot, d.i64(0))},
                                               {"value", d.f64(1)}});
    // Every other row (below the pivot only, unless `full`) loses its
    // multiple of the pivot row.
    Value factors = d.binary("torch.div", at(a, {slice({}, {}), slice(k, k + 1)}),
                             d.call("torch.reshape", {{"input", safe}, {"shape", d.ints([&] {
                                       SmallVector<int64_t> s(batch);
                                       s.append({1, 1});
                                       return s;
                                     }())}}));
    Value keep = d.tensorConstant(RankedTensorType::get({n, 1}, IntegerType::get(d.ctx, 1)),
                                  [&](ArrayRef<int64_t> i) { return (full ? i[0] == k : i[0] <= k) ? 1.0 : 0.0; });
    factors = d.call("Tensor.masked_fill", {{"input", factors}, {"mask", keep}, {"value", d.f64(0)}});
    a = d.binary("torch.sub", a, d.binary("torch.mul", factors, at(a, {slice(k, k + 1), slice({}, {})})));
  }
  if (!a || !sign || llvm::is_contained(e.pivots, Value()))
    return std::nullopt;
  e.matrix = a;
  e.sign = sign;
  return e;
}

static Results decomposeDet(Decomposer &d) {
  Value a = d.tensor("input");
  auto type = dyn_cast<RankedTensorType>(a.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 2 ||
      type.getShape().back() != type.getShape()[type.getRank() - 2] || type.getShape().back() > 16)
    return d.decline("needs static square matrices of at most 16 rows");
  int64_t n = type.getShape().back();
  if (n == 0) {
    // The determinant of a 0 x 0 matrix is 1 (log 0).
    auto scalarType = d.resultType();
    if (auto tuple = dyn_cast<TupleType>(scalarType)) {
      auto t0 = cast<RankedTensorType>(tuple.getType(0)), t1 = cast<RankedTensorType>(tuple.getType(1));
      return SmallVector<Value>{d.tensorConstant(t0, [](ArrayRef<int64_t>) { return 1.0; }),
                                d.tensorConstant(t1, [](ArrayRef<int64_t>) { return 0.0; })};
    }
    return one(d.tensorConstant(d.resultTensorType(), [](ArrayRef<int64_t>) { return 1.0; }));
  }
  std::optional<Elimination> e = eliminate(d, a, n, false);
  if (!e)
    return failure();
  int64_t batchRank = type.getRank() - 2;
  Value pivots = d.call("torch.stack", {{"tensors", Arg::list(d.ctx, e->pivots)}, {"dim", d.i64(batchRank)}});
  if (d.target() == "torch.linalg.det")
    return one(d.binary("torch.mul", e->sign, d.call("torch.prod", {{"input", pivots}, {"dim", d.i64(batchRank)}})));
  // slogdet: (sign, log|det|).
  // (A NaN pivot has sign 0 in torch's slogdet, not sign's NaN.)
  Value signs = d.call("Tensor.masked_fill", {{"input", d.unary("torch.sign", pivots)},
                                              {"mask", d.unary("torch.isnan", pivots)},
                                              {"value", d.f64(0)}});
  Value sign = d.binary("torch.mul", e->sign,
                        d.call("torch.prod", {{"input", signs}, {"dim", d.i64(batchRank)}}));
  Value logabs = d.call("torch.sum", {{"input", d.unary("torch.log", d.unary("torch.abs", pivots))},
                                      {"dim", d.ints({batchRank})}});
  if (!sign || !logabs)
    return failure();
  return SmallVector<Value>{sign, logabs};
}

/// inv: Gauss-Jordan on [A | I], then each row divided by its pivot.
static Results decomposeInv(Decomposer &d) {
  Value a = d.tensor("input");
  auto type = dyn_cast<RankedTensorType>(a.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 2 ||
      type.getShape().back() != type.getShape()[type.getRank() - 2] || type.getShape().back() > 16 ||
      type.getShape().back() == 0)
    return d.decline("needs static square matrices of 1 to 16 rows");
  int64_t n = type.getShape().back(), batchRank = type.getRank() - 2;
  SmallVector<int64_t> shape(type.getShape());
  Value eye = d.tensorConstant(RankedTensorType::get({n, n}, type.getElementType()),
                               [](ArrayRef<int64_t> i) { return i[0] == i[1] ? 1.0 : 0.0; });
  eye = d.call("Tensor.expand", {{"input", eye}, {"size", d.ints(shape)}});
  Value aug = d.call("torch.cat", {{"tensors", Arg::list(d.ctx, {a, eye})}, {"dim", d.i64(-1)}});
  std::optional<Elimination> e = eliminate(d, aug, n, true);
  if (!e)
    return failure();
  Value pivots = d.call("torch.stack", {{"tensors", Arg::list(d.ctx, e->pivots)}, {"dim", d.i64(batchRank)}});
  SmallVector<Attribute> items = {EllipsisAttr::get(d.ctx), SliceAttr::get(d.ctx, d.i64(n), d.none(), d.none())};
  Value right = d.call("operator.getitem",
                       {{"input", e->matrix}, {"index", TupleAttr::get(d.ctx, ArrayAttr::get(d.ctx, items))}});
  return one(d.binary("torch.div", right, d.call("torch.unsqueeze", {{"input", pivots}, {"dim", d.i64(-1)}})));
}
