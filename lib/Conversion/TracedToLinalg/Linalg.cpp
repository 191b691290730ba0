//===- Linalg.cpp - matrix products, attention and convolutions -----------===//
//
// Contractions become `linalg.matmul` / `linalg.batch_matmul` on 2-D and 3-D
// views of their operands (leading dimensions collapsed), so that the CPU
// pipeline tiles and vectorizes one kind of op. Constant linear weights are
// transposed at compile time.
//
// Convolutions' arguments are decoded by decodeConv, as in the rule and the
// interpreter. Padding is an explicit `tensor.pad` (asymmetric for
// padding="same"); the convolution is the NC... named op matching its
// grouping: `linalg.conv_2d_nchw_fchw` (groups = 1),
// `linalg.depthwise_conv_2d_nchw_chw` (one filter per channel) or
// `linalg.conv_2d_ngchw_gfchw` (other groups); conv1d is conv2d over a
// height of one. 3-D convolutions are `linalg.conv_3d_ncdhw_fcdhw`, one per
// group (there is no grouped 3-D named op). The bias is a broadcast add
// that fuses with what follows.
//
// A transposed convolution is a convolution of stride one over the input
// with `stride - 1` zeros inserted between elements, padded by
// `dilation * (kernel - 1) - padding` (plus `output_padding` after; a
// negative amount crops), with the weight's channels swapped per group and
// its taps flipped.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

//===----------------------------------------------------------------------===//
// Matrix products and attention
//===----------------------------------------------------------------------===//

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static FailureOr<Value> buildGeneralMatmul(LoweringCall &c, Value a, Value b,
                                           RankedTensorType resultType);

static FailureOr<SmallVector<Value>> lowerLinear(LoweringCall &c) {
  Value x = c.tensor("input"), w = c.tensor("weight");
  Value bias = c.tensor("bias");
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  if (!x || !w || !type || !rankedTensorType(x) || !staticTensorType(w) ||
      typeOf(w).getRank() < 1 || typeOf(w).getRank() > 2)
    return c.fail("expected a ranked input and a statically shaped 1-D or 2-D "
                  "weight");
  if (!bias && !c.isNone("bias"))
    return c.fail("the bias is not a tensor");
  // (Dynamic dims of the input are leading dims: they collapse into the
  // matmul's rows.)
  if (typeOf(w).getRank() == 2 && typeOf(x).getRank() >= 2 &&
      !ShapedType::isDynamic(typeOf(x).getShape().back()) &&
      (!bias || staticTensorType(bias)))
    return SmallVector<Value>{buildLinear(c.rewriter, c.loc, x, w, bias)};
  if (!staticTensorType(x) || !type.hasStaticShape())
    return c.fail("expected a statically shaped input (dynamic dims are "
                  "compiled for a 2-D weight and a >= 2-D input)");
  // A 1-D input or weight: input @ weight.T as torch.matmul, plus the bias.
  Value wt = typeOf(w).getRank() == 2 ? buildTranspose(c.rewriter, c.loc, w, {1, 0}) : w;
  RankedTensorType product = RankedTensorType::get(type.getShape(), type.getElementType());
  FailureOr<Value> r = buildGeneralMatmul(c, x, wt, product);
  if (failed(r))
    return failure();
  if (!bias)
    return SmallVector<Value>{*r};
  return SmallVector<Value>{buildElementwise(
      c.rewriter, c.loc, type, ValueRange{*r, bias},
      [](OpBuilder &b, Location l, ValueRange a) -> Value {
        if (isa<FloatType>(a[0].getType()))
          return arith::AddFOp::create(b, l, a[0], a[1]);
        return arith::AddIOp::create(b, l, a[0], a[1]);
      })};
}

/// `a` broadcast to `shape` (NumPy rules), or `a` itself.
static Value broadcastTo(OpBuilder &b, Location loc, Value a,
                         ArrayRef<int64_t> shape) {
  if (typeOf(a).getShape() == shape)
    return a;
  auto type = RankedTensorType::get(shape, typeOf(a).getElementType());
  return buildElementwise(b, loc, type, a,
                          [](OpBuilder &, Location, ValueRange v) {
                            return v[0];
                          });
}

/// torch.matmul on statically shaped operands of any rank >= 1.
static FailureOr<Value> buildGeneralMatmul(LoweringCall &c, Value a, Value b,
                                           RankedTensorType resultType) {
  OpBuilder &rw = c.rewriter;
  Location loc = c.loc;
  if (typeOf(a).getRank() == 1)
    a = buildReshape(rw, loc, a, {1, typeOf(a).getDimSize(0)});
  if (typeOf(b).getRank() == 1)
    b = buildReshape(rw, loc, b, {typeOf(b).getDimSize(0), 1});
  ArrayRef<int64_t> sa = typeOf(a).getShape(), sb = typeOf(b).getShape();
  int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  if (sb[sb.size() - 2] != k)
    return c.fail("the contracted dimensions differ");
  ArrayRef<int64_t> batchA = sa.drop_back(2), batchB = sb.drop_back(2);
  Value result;
  if (batchB.empty()) {
    // (..., M, K) @ (K, N): one matmul over the collapsed rows.
    // (A product, not numElements / k: k may be 0.)
    int64_t rows = 1;
    for (int64_t d : sa.drop_back())
      rows *= d;
    result = buildMatmul(rw, loc, buildReshape(rw, loc, a, {rows, k}), b);
  } else {
    // Broadcast the batch dimensions, then one batch_matmul.
    SmallVector<int64_t> batch;
    int64_t rank = std::max(batchA.size(), batchB.size());
    for (int64_t i = 0; i < rank; ++i) {
      int64_t da = i < rank - (int64_t)batchA.size()
                       ? 1
                       : batchA[i - (rank - batchA.size())];
      int64_t db = i < rank - (int64_t)batchB.size()
                       ? 1
                       : batchB[i - (rank - batchB.size())];
      if (da != db && da != 1 && db != 1)
        return c.fail("the batch dimensions do not broadcast");
      batch.push_back(std::max(da, db));
    }
    int64_t count = 1;
    for (int64_t d : batch)
      count *= d;
    SmallVector<int64_t> shapeA(batch), shapeB(batch);
    shapeA.append({m, k});
    shapeB.append({k, n});
    Value a3 = buildReshape(rw, loc, broadcastTo(rw, loc, a, shapeA),
                            {count, m, k});
    Value b3 = buildReshape(rw, loc, broadcastTo(rw, loc, b, shapeB),
                            {count, k, n});
    result = buildBatchMatmul(rw, loc, a3, b3);
  }
  return buildReshape(rw, loc, result, resultType.getShape());
}

/// matmul, mm and bmm with dynamic dims, in the two forms a dynamic batch
/// takes: (..., M, K) @ (K, N) with dynamic leading dims (one matmul over
/// the collapsed rows, as a linear) and (B, M, K) @ (B, K, N) with a
/// dynamic B (checked equal at run time). Null when neither applies.
static FailureOr<Value> buildDynamicMatmul(LoweringCall &c, Value a, Value b,
                                           RankedTensorType type) {
  OpBuilder &rw = c.rewriter;
  Location loc = c.loc;
  RankedTensorType ta = typeOf(a), tb = typeOf(b);
  auto staticTail = [](RankedTensorType t, int64_t n) {
    return llvm::none_of(t.getShape().take_back(n), ShapedType::isDynamic);
  };
  if (ta.getRank() >= 2 && tb.getRank() == 2 && tb.hasStaticShape() &&
      staticTail(ta, 1) && ta.getShape().back() == tb.getDimSize(0)) {
    Value rows = buildReshape(rw, loc, a,
                              {ShapedType::kDynamic, ta.getShape().back()});
    Value r = buildMatmul(rw, loc, rows, b);
    if (ta.getRank() == 2)
      return r;
    SmallVector<OpFoldResult> sizes = dimSizes(rw, loc, a);
    sizes.back() = rw.getIndexAttr(tb.getDimSize(1));
    return buildDynamicReshape(rw, loc, r, type.getShape(), sizes);
  }
  if (ta.getRank() == 3 && tb.getRank() == 3 && staticTail(ta, 2) &&
      staticTail(tb, 2) && ta.getDimSize(2) == tb.getDimSize(1)) {
    checkSameSize(rw, loc, dimSizes(rw, loc, a)[0], dimSizes(rw, loc, b)[0],
                  "'" + c.target() + "': the batch sizes differ (compiled "
                  "code does not broadcast a dynamic batch)");
    return buildBatchMatmul(rw, loc, a, b);
  }
  // Operands of one rank >= 3 whose batch dims agree (static and equal, or
  // dynamic and checked equal at run time): the batch dims collapse into
  // one, then one batch_matmul with M, N and K of any size (attention's
  // scores and context over a growing sequence).
  if (ta.getRank() >= 3 && ta.getRank() == tb.getRank()) {
    int64_t rank = ta.getRank(), batch = rank - 2;
    for (int64_t i = 0; i < batch; ++i)
      if (!ta.isDynamicDim(i) && !tb.isDynamicDim(i) &&
          ta.getDimSize(i) != tb.getDimSize(i))
        return Value();
    SmallVector<OpFoldResult> sa = dimSizes(rw, loc, a), sb = dimSizes(rw, loc, b);
    for (int64_t i = 0; i < batch; ++i)
      checkSameSize(rw, loc, sa[i], sb[i],
                    "'" + c.target() + "': the batch sizes differ (compiled "
                    "code does not broadcast a dynamic batch)");
    checkSameSize(rw, loc, sa[rank - 1], sb[rank - 2],
                  "'" + c.target() + "': the contracted sizes differ");
    Value count = arith::ConstantIndexOp::create(rw, loc, 1);
    int64_t staticCount = 1;
    for (int64_t i = 0; i < batch; ++i) {
      count = rw.createOrFold<arith::MulIOp>(
          loc, count, getValueOrCreateConstantIndexOp(rw, loc, sa[i]));
      staticCount = ta.isDynamicDim(i) || ShapedType::isDynamic(staticCount)
                        ? ShapedType::kDynamic
                        : staticCount * ta.getDimSize(i);
    }
    auto collapse = [&](Value v, RankedTensorType t,
                        ArrayRef<OpFoldResult> sizes) {
      return buildDynamicReshape(
          rw, loc, v,
          {staticCount, t.getDimSize(rank - 2), t.getDimSize(rank - 1)},
          {getAsOpFoldResult(count), sizes[rank - 2], sizes[rank - 1]});
    };
    Value a3 = collapse(a, ta, sa);
    if (!a3)
      return Value();
    // `q @ k.transpose(-2, -1)`: the matmul reads k's rows as its columns
    // (indexing maps) instead of a materialized transpose, which was a copy
    // of the whole cache of every layer in each decode step.
    Value r;
    if (auto t = b.getDefiningOp<linalg::TransposeOp>()) {
      ArrayRef<int64_t> perm = t.getPermutation();
      bool swapsLast = static_cast<int64_t>(perm.size()) == rank &&
                       perm[rank - 1] == rank - 2 && perm[rank - 2] == rank - 1;
      for (int64_t i = 0; swapsLast && i < batch; ++i)
        swapsLast = perm[i] == i;
      Value rows = t.getInput();
      auto rowsType = cast<RankedTensorType>(rows.getType());
      if (swapsLast && rowsType.getElementType() == ta.getElementType()) {
        SmallVector<OpFoldResult> sr = dimSizes(rw, loc, rows);
        Value r3 = collapse(rows, rowsType, sr);
        if (!r3)
          return Value();
        MLIRContext *ctx = rw.getContext();
        AffineExpr d0, d1, d2, d3;
        bindDims(ctx, d0, d1, d2, d3);
        auto maps = rw.getAffineMapArrayAttr(
            {AffineMap::get(4, 0, {d0, d1, d3}, ctx),
             AffineMap::get(4, 0, {d0, d2, d3}, ctx),
             AffineMap::get(4, 0, {d0, d1, d2}, ctx)});
        auto outType = RankedTensorType::get(
            {staticCount, ta.getDimSize(rank - 2), rowsType.getDimSize(rank - 2)},
            ta.getElementType());
        Value init = buildFilled(rw, loc, outType,
                                 {getAsOpFoldResult(count), sa[rank - 2],
                                  sr[rank - 2]},
                                 0.0);
        r = linalg::BatchMatmulOp::create(
                rw, loc, TypeRange{outType}, ValueRange{a3, r3}, ValueRange{init},
                {rw.getNamedAttr("indexing_maps", maps)})
                .getResult(0);
      }
    }
    if (!r) {
      Value b3 = collapse(b, tb, sb);
      if (!b3)
        return Value();
      r = buildBatchMatmul(rw, loc, a3, b3);
    }
    SmallVector<OpFoldResult> sizes(sa.begin(), sa.begin() + batch);
    sizes.append({sa[rank - 2], sb[rank - 1]});
    return buildDynamicReshape(rw, loc, r, type.getShape(), sizes);
  }
  return Value();
}

static FailureOr<SmallVector<Value>> lowerMatmul(LoweringCall &c) {
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  Value a = c.tensor("input");
  Value b = c.tensor(c.spec->signature.lookup("other") ? "other" : "mat2");
  if (!type || !a || !b || !rankedTensorType(a) || !rankedTensorType(b))
    return c.fail("expected ranked tensors");
  if (!staticTensorType(a) || !staticTensorType(b)) {
    if (type.getElementType().isBF16())
      return c.fail("a bfloat16 product with dynamic dims is not compiled");
    FailureOr<Value> r = buildDynamicMatmul(c, a, b, type);
    if (failed(r))
      return failure();
    if (!*r)
      return c.fail("dynamic dims are compiled for (..., M, K) @ (K, N) with "
                    "dynamic leading dims and for operands of one rank whose "
                    "batch dims agree");
    return SmallVector<Value>{*r};
  }
  if (!type.hasStaticShape())
    return c.fail("expected a statically shaped result");
  // bfloat16 computes in float32 and rounds once at the end, as torch's CPU
  // kernels do.
  bool bf16 = type.getElementType().isBF16();
  auto identity = [](OpBuilder &, Location, ValueRange v) { return v[0]; };
  auto widen = [&](Value v) {
    return buildElementwise(
        c.rewriter, c.loc,
        RankedTensorType::get(typeOf(v).getShape(), c.rewriter.getF32Type()), v,
        identity);
  };
  if (bf16) {
    a = widen(a);
    b = widen(b);
  }
  FailureOr<Value> r = buildGeneralMatmul(
      c, a, b,
      bf16 ? RankedTensorType::get(type.getShape(), c.rewriter.getF32Type())
           : type);
  if (failed(r))
    return failure();
  if (bf16)
    *r = buildElementwise(c.rewriter, c.loc, type, *r, identity);
  return SmallVector<Value>{*r};
}

/// The attention scores (N*H, L, S) plus the additive masks, seen as
/// (N, H, L, S): attn_mask (L, S) or (N*H, L, S), key_padding_mask (N, S);
/// a bool mask's true entries are -inf, as torch converts them (whether a
/// mask is bool is read from the call's operands by the caller: a reshaped
/// or padded mask is no operand).
static FailureOr<Value> addAttentionMasks(LoweringCall &c, Value scores,
                                          Value attnMask, Value padMask,
                                          bool attnIsBool, bool padIsBool,
                                          ArrayRef<int64_t> nhls) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  int64_t n = nhls[0], h = nhls[1], l = nhls[2], s = nhls[3];
  Type f = typeOf(scores).getElementType();
  auto scores4 = RankedTensorType::get({n, h, l, s}, f);
  SmallVector<Value> inputs{buildReshape(b, loc, scores, {n, h, l, s})};
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(4)};
  SmallVector<bool> isBool{false};
  MLIRContext *ctx = b.getContext();
  AffineExpr dn = getAffineDimExpr(0, ctx), dl = getAffineDimExpr(2, ctx),
             ds = getAffineDimExpr(3, ctx);
  if (attnMask) {
    auto mt = typeOf(attnMask);
    if (!staticTensorType(attnMask) ||
        !((mt.getRank() == 2 && mt.getShape() == ArrayRef<int64_t>{l, s}) ||
          (mt.getRank() == 3 &&
           mt.getShape() == ArrayRef<int64_t>{n * h, l, s})))
      return c.fail("attn_mask must be (L, S) or (N * num_heads, L, S)");
    if (mt.getRank() == 3) {
      inputs.push_back(buildReshape(b, loc, attnMask, {n, h, l, s}));
      maps.push_back(b.getMultiDimIdentityMap(4));
    } else {
      inputs.push_back(attnMask);
      maps.push_back(AffineMap::get(4, 0, {dl, ds}, ctx));
    }
    isBool.push_back(attnIsBool);
  }
  if (padMask) {
    auto pt = typeOf(padMask);
    if (!staticTensorType(padMask) ||
        pt.getShape() != ArrayRef<int64_t>{n, s})
      return c.fail("key_padding_mask must be (N, S)");
    inputs.push_back(padMask);
    maps.push_back(AffineMap::get(4, 0, {dn, ds}, ctx));
    isBool.push_back(padIsBool);
  }
  SmallVector<Type> logical{f};
  for (size_t i = 1; i < inputs.size(); ++i)
    logical.push_back(isBool[i] ? Type(b.getI1Type()) : f);
  Value masked = buildElementwise(
      b, loc, scores4, inputs, maps,
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value acc = a[0];
        for (size_t i = 1; i < a.size(); ++i) {
          Value m = a[i];
          if (isBool[i]) {
            // (Read in f32 as 0 / 1: a true entry is -inf.)
            Value isSet = arith::CmpFOp::create(
                nb, nl, arith::CmpFPredicate::UNE, m,
                scalarConstant(nb, nl, m.getType(), 0.0));
            m = arith::SelectOp::create(
                nb, nl, isSet,
                scalarConstant(nb, nl, acc.getType(),
                               -std::numeric_limits<double>::infinity()),
                scalarConstant(nb, nl, acc.getType(), 0.0));
          }
          acc = arith::AddFOp::create(nb, nl, acc, m);
        }
        return acc;
      },
      logical);
  return buildReshape(b, loc, masked, {n * h, l, s});
}

/// The projected keys or values `y` (len, N, E) with `extra` rows
/// appended as torch appends them: `biasRow` (bias_k or bias_v, (1, 1, E),
/// repeated over the batch) when given, then zeros (add_zero_attn).
static Value appendKeyRows(OpBuilder &b, Location loc, Value y, int64_t len,
                           int64_t extra, Value biasRow) {
  if (!extra)
    return y;
  RankedTensorType yt = typeOf(y);
  int64_t n = yt.getDimSize(1), e = yt.getDimSize(2);
  Value all = buildFilled(
      b, loc, RankedTensorType::get({len + extra, n, e}, yt.getElementType()), 0.0);
  auto insert = [&](Value part, int64_t at, int64_t rows) {
    SmallVector<OpFoldResult> offsets{b.getIndexAttr(at), b.getIndexAttr(0),
                                      b.getIndexAttr(0)},
        sizes{b.getIndexAttr(rows), b.getIndexAttr(n), b.getIndexAttr(e)},
        strides(3, b.getIndexAttr(1));
    return tensor::InsertSliceOp::create(b, loc, part, all, offsets, sizes, strides)
        .getResult();
  };
  all = insert(y, 0, len);
  if (biasRow)
    all = insert(buildElementwise(b, loc, RankedTensorType::get({1, n, e}, yt.getElementType()),
                                  biasRow,
                                  [](OpBuilder &, Location, ValueRange a) { return a[0]; }),
                 len, 1);
  return all;
}

/// The attention weights from the softmaxed scores `probs` (N*H, L, S):
/// (N, H, L, S), or their mean over the heads (N, L, S) with `average`;
/// unbatched, without N.
static Value attentionWeights(OpBuilder &b, Location loc, Value probs,
                              ArrayRef<int64_t> nhls, bool average,
                              bool unbatched) {
  int64_t h = nhls[1];
  Value w = buildReshape(b, loc, probs, nhls);
  if (average) {
    w = buildReduce(b, loc, w, {1}, 0.0, [](OpBuilder &nb, Location nl, ValueRange a) {
      return arith::AddFOp::create(nb, nl, a[0], a[1]).getResult();
    });
    w = buildElementwise(b, loc, typeOf(w), w, [&](OpBuilder &nb, Location nl, ValueRange a) {
      return arith::DivFOp::create(nb, nl, a[0],
                                   scalarConstant(nb, nl, a[0].getType(), static_cast<double>(h)))
          .getResult();
    });
  }
  if (!unbatched)
    return w;
  SmallVector<int64_t> shape(typeOf(w).getShape().drop_front());
  return buildReshape(b, loc, w, shape);
}

/// What compiled attention takes: no static_k/static_v, a packed
/// projection, a constant add_zero_attn, bias_k with bias_v, eval mode.
static LogicalResult checkAttentionOptions(LoweringCall &c) {
  for (StringRef unsupported : {"static_k", "static_v"})
    if (!c.isNone(unsupported))
      return c.fail(Twine("'") + unsupported + "' must be None");
  if (c.getBool("use_separate_proj_weight") != false)
    return c.fail("separate projection weights are not supported");
  if (!c.getBool("add_zero_attn"))
    return c.fail("add_zero_attn must be a constant");
  if (c.isNone("bias_k") != c.isNone("bias_v"))
    return c.fail("bias_k and bias_v must be given together");
  if (c.getBool("training") != false && c.getFloat("dropout_p") != 0.0)
    return c.fail("only eval mode (training=False) can be compiled");
  return success();
}

FailureOr<Value> lowering::lowerAttentionElement(LoweringCall &c, int64_t index) {
  if (index != 0 && index != 1)
    return c.fail("multi_head_attention_forward has two results");
  if (index == 1 && c.getBool("need_weights") != true)
    return c.fail("the attention weights are None without need_weights");
  std::optional<bool> average = c.getBool("average_attn_weights");
  if (index == 1 && !average)
    return c.fail("average_attn_weights must be a constant");
  if (failed(checkAttentionOptions(c)))
    return failure();
  std::optional<bool> zeroAttn = c.getBool("add_zero_attn");
  Value biasK = c.tensor("bias_k"), biasV = c.tensor("bias_v");
  Value q = c.tensor("query"), k = c.tensor("key"), v = c.tensor("value");
  Value inW = c.tensor("in_proj_weight"), inB = c.tensor("in_proj_bias");
  Value outW = c.tensor("out_proj_weight"), outB = c.tensor("out_proj_bias");
  std::optional<int64_t> heads = c.getInt("num_heads");
  // Unbatched (L, E) query, key and value (torch: a batch of one, squeezed
  // again; key_padding_mask is then (S)).
  auto rankOf = [](Value t) {
    auto type = rankedTensorType(t);
    return type ? type.getRank() : -1;
  };
  bool unbatched = rankOf(q) == 2 && rankOf(k) == 2 && rankOf(v) == 2 &&
                   staticTensorType(q) && staticTensorType(k) &&
                   staticTensorType(v);
  auto batchOfOne = [&](Value t) {
    auto shape = typeOf(t).getShape();
    return buildReshape(c.rewriter, c.loc, t, {shape[0], 1, shape[1]});
  };
  if (unbatched) {
    q = batchOfOne(q);
    k = batchOfOne(k);
    v = batchOfOne(v);
  }
  // The batch N may be dynamic (the same in query, key and value); the
  // sequence lengths and the embedding are static.
  auto staticButBatch = [](Value t) {
    auto type = rankedTensorType(t);
    return type && type.getRank() == 3 && !type.isDynamicDim(0) &&
           !type.isDynamicDim(2);
  };
  if (!q || !k || !v || !inW || !outW || !heads || !staticButBatch(q) ||
      !staticButBatch(k) || !staticButBatch(v) ||
      !staticTensorType(inW) || !staticTensorType(outW))
    return c.fail("expected (L, N, E) tensors (N may be dynamic), "
                  "in_proj_weight and num_heads");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  int64_t l = typeOf(q).getDimSize(0), n = typeOf(q).getDimSize(1),
          e = typeOf(q).getDimSize(2), s = typeOf(k).getDimSize(0);
  int64_t h = *heads, hd = e / h;
  if (hd * h != e)
    return c.fail("embed_dim is not divisible by num_heads");
  bool dynamicBatch = ShapedType::isDynamic(n);
  if (dynamicBatch) {
    // (Their batches are one size at run time, or the projections and
    // products would read past an operand.)
    SmallVector<OpFoldResult> nq = dimSizes(b, loc, q);
    checkSameSize(b, loc, nq[1], dimSizes(b, loc, k)[1],
                  "query and key differ in their batch");
    checkSameSize(b, loc, nq[1], dimSizes(b, loc, v)[1],
                  "query and value differ in their batch");
  }
  int64_t nh = dynamicBatch ? ShapedType::kDynamic : n * h;
  // Appended to the projected keys and values (torch's order): a bias_k /
  // bias_v row repeated over the batch, then a row of zeros with
  // add_zero_attn. The masks get as many columns of 0 (attend).
  int64_t extra = (biasK ? 1 : 0) + (*zeroAttn ? 1 : 0);
  if (extra && dynamicBatch)
    return c.fail("bias_k/bias_v and add_zero_attn are compiled for a static "
                  "batch only");
  if (biasK && (!staticTensorType(biasK) || !staticTensorType(biasV) ||
                typeOf(biasK).getShape() != ArrayRef<int64_t>{1, 1, e} ||
                typeOf(biasV).getShape() != ArrayRef<int64_t>{1, 1, e}))
    return c.fail("bias_k and bias_v must be (1, 1, embed_dim)");
  // The three projections: rows [i*E, (i+1)*E) of the packed weight.
  auto project = [&](Value x, int64_t i, int64_t len, Value biasRow) {
    Value w = buildSlice(b, loc, inW, {i * e, 0}, {e, e}, {1, 1});
    Value bias = inB ? buildSlice(b, loc, inB, {i * e}, {e}, {1}) : Value();
    Value y = buildLinear(b, loc, x, w, bias); // (len, N, E)
    if (i > 0) {
      y = appendKeyRows(b, loc, y, len, extra, biasRow);
      len += extra;
    }
    // (len, N*H, hd) -> (N*H, len, hd)
    y = buildReshape(b, loc, y, {len, nh, hd});
    return buildTranspose(b, loc, y, {1, 0, 2});
  };
  Value qh = project(q, 0, l, Value()), kh = project(k, 1, s, biasK),
        vh = project(v, 2, s, biasV);
  double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  qh = buildElementwise(b, loc, typeOf(qh), qh,
                        [&](OpBuilder &nb, Location nl, ValueRange a) {
                          return arith::MulFOp::create(
                                     nb, nl, a[0],
                                     scalarConstant(nb, nl, a[0].getType(),
                                                    scale))
                              .getResult();
                        });
  Value kt = buildTranspose(b, loc, kh, {0, 2, 1});          // (NH, hd, S)
  Value scores = buildBatchMatmul(b, loc, qh, kt);           // (NH, L, S)
  // Additive masks, added to the scores seen as (N, H, L, S): attn_mask
  // (L, S) or (N*H, L, S), key_padding_mask (N, S); a bool mask's true
  // entries are -inf, as torch converts them.
  Value attnMask = c.tensor("attn_mask"), padMask = c.tensor("key_padding_mask");
  if ((!c.isNone("attn_mask") && !attnMask) ||
      (!c.isNone("key_padding_mask") && !padMask))
    return c.fail("masks must be tensors");
  // (The operand's logical element type says whether a mask is bool; a
  // reshaped mask is no operand.)
  Value padOperand = padMask;
  if (unbatched && padMask && staticTensorType(padMask) &&
      typeOf(padMask).getRank() == 1)
    padMask = buildReshape(b, loc, padMask, {1, typeOf(padMask).getDimSize(0)});
  if (dynamicBatch && (attnMask || padMask))
    return c.fail("masks are compiled for a static batch only");
  bool attnIsBool = attnMask && c.logicalElementType(attnMask).isInteger(1);
  bool padIsBool = padMask && c.logicalElementType(padOperand).isInteger(1);
  // The appended keys' columns: 0 (attend; false for a bool mask).
  auto padColumns = [&](Value m) {
    if (!m || !extra || !staticTensorType(m))
      return m;
    int64_t r = typeOf(m).getRank();
    SmallVector<int64_t> low(r, 0), high(r, 0);
    high[r - 1] = extra;
    return buildPad(b, loc, m, low, high, 0.0);
  };
  attnMask = padColumns(attnMask);
  padMask = padColumns(padMask);
  if (attnMask || padMask) {
    FailureOr<Value> masked = addAttentionMasks(c, scores, attnMask, padMask, attnIsBool,
                                                padIsBool, {n, h, l, s + extra});
    if (failed(masked))
      return failure();
    scores = *masked;
  }
  Value probs = buildSoftmax(b, loc, scores, -1, /*log=*/false);
  if (index == 1) {
    if (dynamicBatch)
      return c.fail("the attention weights are compiled for a static batch only");
    return attentionWeights(b, loc, probs, {n, h, l, s + extra}, *average, unbatched);
  }
  Value ctx = buildBatchMatmul(b, loc, probs, vh);           // (NH, L, hd)
  ctx = buildTranspose(b, loc, ctx, {1, 0, 2});              // (L, NH, hd)
  ctx = buildReshape(b, loc, ctx, {l, n, e});
  Value out = buildLinear(b, loc, ctx, outW, outB);
  return unbatched ? buildReshape(b, loc, out, {l, e}) : out;
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

static ConvDecode decode(LoweringCall &c, RankedTensorType x,
                         RankedTensorType w, Value bias, ConvParams &p,
                         std::string &error) {
  std::optional<ArrayRef<int64_t>> biasShape;
  if (bias)
    biasShape = cast<RankedTensorType>(bias.getType()).getShape();
  return withArgReader(c, [&](const ArgReader &reader) {
    return decodeConv(c.spec->signature, reader, x.getShape(), w.getShape(),
                      biasShape, p, error);
  });
}

/// `v` converted to float32 elementwise.
static Value widenToF32(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  return buildElementwise(
      b, loc, RankedTensorType::get(type.getShape(), b.getF32Type()), {v},
      [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

/// `x` with `stride - 1` zeros between its elements along each spatial dim.
static Value insertZeros(OpBuilder &b, Location loc, Value x,
                         ArrayRef<int64_t> stride) {
  if (llvm::all_of(stride, [](int64_t s) { return s == 1; }))
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape().take_front(2));
  for (auto [size, s] : llvm::zip(type.getShape().drop_front(2), stride))
    shape.push_back(size == 0 ? 0 : (size - 1) * s + 1);
  Value zeros = buildFilled(
      b, loc, RankedTensorType::get(shape, type.getElementType()), 0.0);
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
    strides.push_back(b.getIndexAttr(d < 2 ? 1 : stride[d - 2]));
  }
  return tensor::InsertSliceOp::create(b, loc, x, zeros, offsets, sizes,
                                       strides);
}

/// `x` padded by `low`/`high` zeros per spatial dim, cropped where negative.
static Value padOrCrop(OpBuilder &b, Location loc, Value x,
                       ArrayRef<int64_t> low, ArrayRef<int64_t> high) {
  SmallVector<int64_t> lo{0, 0}, hi{0, 0};
  for (auto [l, h] : llvm::zip(low, high)) {
    lo.push_back(std::max<int64_t>(l, 0));
    hi.push_back(std::max<int64_t>(h, 0));
  }
  x = buildPad(b, loc, x, lo, hi, 0.0);
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> offsets{0, 0}, sizes(type.getShape().take_front(2)),
      strides(type.getRank(), 1);
  bool crop = false;
  for (auto [i, lh] : llvm::enumerate(llvm::zip(low, high))) {
    auto [l, h] = lh;
    int64_t cutLo = std::max<int64_t>(-l, 0), cutHi = std::max<int64_t>(-h, 0);
    crop |= cutLo || cutHi;
    offsets.push_back(cutLo);
    sizes.push_back(type.getDimSize(2 + i) - cutLo - cutHi);
  }
  return crop ? buildSlice(b, loc, x, offsets, sizes, strides) : x;
}

/// `x` padded along dims firstDim, firstDim + 1, ... by copies of its own
/// elements (padding_mode reflect, replicate or circular), one dim after the
/// other as F.pad does. Each side is a `linalg.generic` reading `x` through
/// an affine map of its index, inserted with `x` into the padded tensor.
Value lowering::padByMode(OpBuilder &b, Location loc, Value x,
                          ArrayRef<int64_t> before, ArrayRef<int64_t> after,
                          ConvParams::PadMode mode, unsigned firstDim) {
  for (unsigned i = 0; i < before.size(); ++i) {
    auto type = cast<RankedTensorType>(x.getType());
    unsigned d = firstDim + i, rank = type.getRank();
    int64_t size = type.getDimSize(d), lo = before[i], hi = after[i];
    if (lo == 0 && hi == 0)
      continue;
    Type et = type.getElementType();
    AffineExpr j = b.getAffineDimExpr(d);
    auto constant = [&](int64_t v) { return b.getAffineConstantExpr(v); };
    // The source index along `d` of the side's j-th element.
    AffineExpr loSrc, hiSrc;
    switch (mode) {
    case ConvParams::PadMode::Reflect:
      loSrc = constant(lo) - j;
      hiSrc = constant(size - 2) - j;
      break;
    case ConvParams::PadMode::Replicate:
      loSrc = constant(0);
      hiSrc = constant(size - 1);
      break;
    case ConvParams::PadMode::Circular:
      break; // slices, below
    case ConvParams::PadMode::Zeros:
      llvm_unreachable("zeros are a tensor.pad");
    }
    SmallVector<int64_t> padded(type.getShape());
    padded[d] += lo + hi;
    Value out = tensor::EmptyOp::create(b, loc, padded, et);
    auto insert = [&](Value part, int64_t offset) {
      auto pt = cast<RankedTensorType>(part.getType());
      SmallVector<OpFoldResult> offsets, sizes, ones;
      for (unsigned k = 0; k < rank; ++k) {
        offsets.push_back(b.getIndexAttr(k == d ? offset : 0));
        sizes.push_back(b.getIndexAttr(pt.getDimSize(k)));
        ones.push_back(b.getIndexAttr(1));
      }
      out = tensor::InsertSliceOp::create(b, loc, part, out, offsets, sizes,
                                          ones);
    };
    auto side = [&](int64_t len, AffineExpr src, int64_t offset) {
      if (len == 0)
        return;
      SmallVector<int64_t> shape(type.getShape());
      shape[d] = len;
      SmallVector<AffineExpr> exprs;
      for (unsigned k = 0; k < rank; ++k)
        exprs.push_back(k == d ? src : b.getAffineDimExpr(k));
      AffineMap map = AffineMap::get(rank, 0, exprs, b.getContext());
      insert(buildElementwise(
                 b, loc, RankedTensorType::get(shape, et), {x}, {map},
                 [](OpBuilder &, Location, ValueRange a) { return a[0]; }),
             offset);
    };
    if (mode == ConvParams::PadMode::Circular) {
      // Plain slices (a generic reading `x` at `j` would take its loop
      // bound from `x`).
      auto slice = [&](int64_t offset, int64_t len) {
        SmallVector<int64_t> offs(rank, 0), sizes(type.getShape()),
            ones(rank, 1);
        offs[d] = offset;
        sizes[d] = len;
        return buildSlice(b, loc, x, offs, sizes, ones);
      };
      if (lo)
        insert(slice(size - lo, lo), 0);
      insert(x, lo);
      if (hi)
        insert(slice(0, hi), lo + size);
    } else {
      side(lo, loSrc, 0);
      insert(x, lo);
      side(hi, hiSrc, lo + size);
    }
    x = out;
  }
  return x;
}

/// The weight of the convolution equivalent to a transposed one: [C, O/g,
/// K...] becomes [O, C/g, K...] with every tap flipped.
static Value transposedWeight(OpBuilder &b, Location loc, Value w,
                              int64_t groups) {
  auto type = cast<RankedTensorType>(w.getType());
  int64_t c = type.getDimSize(0), og = type.getDimSize(1), cg = c / groups;
  unsigned k = type.getRank() - 2;
  // Iterate over [g, o, c, taps...]; read w[g * cg + c, o, K - 1 - tap].
  SmallVector<int64_t> shape{groups, og, cg};
  llvm::append_range(shape, type.getShape().drop_front(2));
  MLIRContext *ctx = b.getContext();
  unsigned rank = 3 + k;
  SmallVector<AffineExpr> exprs{b.getAffineDimExpr(0) * cg +
                                    b.getAffineDimExpr(2),
                                b.getAffineDimExpr(1)};
  for (unsigned i = 0; i < k; ++i)
    exprs.push_back(type.getDimSize(2 + i) - 1 - b.getAffineDimExpr(3 + i));
  AffineMap map = AffineMap::get(rank, 0, exprs, ctx);
  Value flipped = buildElementwise(
      b, loc, RankedTensorType::get(shape, type.getElementType()), {w}, {map},
      [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  SmallVector<int64_t> out{groups * og, cg};
  llvm::append_range(out, type.getShape().drop_front(2));
  return buildReshape(b, loc, flipped, out);
}

/// A 3-D convolution of padded `x` ([N, C, Dp, Hp, Wp]) with `w` ([F, C/g,
/// KD, KH, KW]) into `outType` ([N, F, OD, OH, OW]) as one 2-D convolution:
/// the KD depth taps of each output plane are stacked as channels,
/// `cols[n * OD + od, c * KD + t] = x[n, c, od * sd + t * dd]` (a strided
/// slice and a transposing copy per tap, both vectorized), and `w` is read
/// as [F, C/g * KD, KH, KW] (a reshape: the groups stay contiguous). The 2-D
/// convolution then takes the im2col or grouped path on all threads; its
/// [N * OD, F, OH, OW] result is transposed back. A depthwise one is KD
/// chained depthwise 2-D convolutions over the taps' planes instead.
/// linalg.conv_3d ran as scalar loops on one thread.
static FailureOr<Value> buildConv(LoweringCall &c, Value x, Value w, int64_t g,
                                  ArrayRef<int64_t> stride,
                                  ArrayRef<int64_t> dilation,
                                  RankedTensorType outType);
static FailureOr<Value> buildConv3d(LoweringCall &c, Value x, Value w,
                                    int64_t g, ArrayRef<int64_t> s,
                                    ArrayRef<int64_t> d,
                                    RankedTensorType outType) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  Type et = outType.getElementType();
  int64_t n = xType.getDimSize(0), cin = xType.getDimSize(1),
          hp = xType.getDimSize(3), wp = xType.getDimSize(4);
  int64_t f = wType.getDimSize(0), cg = wType.getDimSize(1),
          kd = wType.getDimSize(2), kh = wType.getDimSize(3),
          kw = wType.getDimSize(4);
  int64_t od = outType.getDimSize(2), oh = outType.getDimSize(3),
          ow = outType.getDimSize(4);
  if (outType.getNumElements() == 0 || xType.getNumElements() == 0)
    return buildFilled(b, loc, outType, 0.0);
  MLIRContext *ctx = b.getContext();
  auto dim = [&](unsigned i) { return b.getAffineDimExpr(i); };
  // Iterations (n, od, c, 1, h, w) read the tap's view [N, C, OD, Hp, Wp].
  AffineMap viewMap = AffineMap::get(
      6, 0, {dim(0), dim(2), dim(1), dim(4), dim(5)}, ctx);
  AffineMap id = b.getMultiDimIdentityMap(6);
  SmallVector<int64_t> planeShape = {n, od, cin, 1, hp, wp};
  auto planeType = RankedTensorType::get(planeShape, et);
  Value cols = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{n, od, cin, kd, hp, wp}, et);
  SmallVector<int64_t> ones(6, 1);
  for (int64_t t = 0; t < kd; ++t) {
    Value view = buildSlice(b, loc, x, {0, 0, t * d[0], 0, 0},
                            {n, cin, od, hp, wp}, {1, 1, s[0], 1, 1});
    SmallVector<int64_t> offsets = {0, 0, 0, t, 0, 0};
    Value plane = buildSlice(b, loc, cols, offsets, planeShape, ones);
    Value copied =
        linalg::GenericOp::create(
            b, loc, planeType, view, plane, ArrayRef<AffineMap>{viewMap, id},
            SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
            [](OpBuilder &nb, Location l, ValueRange a) {
              linalg::YieldOp::create(nb, l, a[0]);
            })
            .getResult(0);
    cols = tensor::InsertSliceOp::create(b, loc, copied, cols, ValueRange{},
                                         ValueRange{}, ValueRange{}, offsets,
                                         planeShape, ones);
  }
  auto out2 = RankedTensorType::get({n * od, f, oh, ow}, et);
  Value conv;
  if (g == cin && f == cin) {
    // Depthwise: as a grouped 2-D convolution, each group would be KD
    // channels and one filter, too little work a group to pay for its
    // matmul or its threads. Instead KD depthwise 2-D convolutions (the
    // CPU pipeline's taps), one per depth tap's planes, each accumulating
    // into the previous one's result.
    Value taps = buildReshape(b, loc, cols, {n * od, cin, kd, hp, wp});
    auto strides = b.getI64VectorAttr(s.drop_front());
    auto dilations = b.getI64VectorAttr(d.drop_front());
    conv = buildFilled(b, loc, out2, 0.0);
    for (int64_t t = 0; t < kd; ++t) {
      Value plane = buildSlice(b, loc, taps, {0, 0, t, 0, 0},
                               {n * od, cin, 1, hp, wp}, {1, 1, 1, 1, 1});
      plane = buildReshape(b, loc, plane, {n * od, cin, hp, wp});
      Value filter = buildSlice(b, loc, w, {0, 0, t, 0, 0}, {f, 1, 1, kh, kw},
                                {1, 1, 1, 1, 1});
      filter = buildReshape(b, loc, filter, {f, kh, kw});
      conv = linalg::DepthwiseConv2DNchwChwOp::create(
                 b, loc, TypeRange{out2}, ValueRange{plane, filter},
                 ValueRange{conv}, strides, dilations)
                 .getResult(0);
    }
  } else {
    Value x2 = buildReshape(b, loc, cols, {n * od, cin * kd, hp, wp});
    Value w2 = buildReshape(b, loc, w, {f, cg * kd, kh, kw});
    FailureOr<Value> grouped =
        buildConv(c, x2, w2, g, s.drop_front(), d.drop_front(), out2);
    if (failed(grouped))
      return failure();
    conv = *grouped;
  }
  Value planes = buildReshape(b, loc, conv, {n, od, f, oh, ow});
  return buildTranspose(b, loc, planes, {0, 2, 1, 3, 4});
}

/// A convolution without padding of batched `x` ([N, C, spatial...]) with
/// `w` ([O, C/groups, K...]) into `outType`, for 1 to 3 spatial dims.
static FailureOr<Value> buildConv(LoweringCall &c, Value x, Value w, int64_t g,
                                  ArrayRef<int64_t> stride,
                                  ArrayRef<int64_t> dilation,
                                  RankedTensorType outType) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  Type et = outType.getElementType();
  unsigned k = wType.getRank() - 2;
  SmallVector<int64_t> s(stride), d(dilation);
  if (k == 1) {
    // (N, C, W) -> (N, C, 1, W)
    auto lift = [&](Value v, RankedTensorType t) {
      return buildReshape(
          b, loc, v, {t.getDimSize(0), t.getDimSize(1), 1, t.getDimSize(2)});
    };
    auto out2 =
        RankedTensorType::get({outType.getDimSize(0), outType.getDimSize(1), 1,
                               outType.getDimSize(2)},
                              et);
    s.insert(s.begin(), 1);
    d.insert(d.begin(), 1);
    FailureOr<Value> out =
        buildConv(c, lift(x, xType), lift(w, wType), g, s, d, out2);
    if (failed(out))
      return failure();
    return buildReshape(b, loc, *out, outType.getShape());
  }
  if (k == 3)
    return buildConv3d(c, x, w, g, s, d, outType);
  int64_t batch = xType.getDimSize(0), cin = xType.getDimSize(1);
  int64_t cout = wType.getDimSize(0);
  auto strides = b.getI64VectorAttr(s), dilations = b.getI64VectorAttr(d);
  // Zero-filled results; a dynamic batch (the only dynamic dim lowerConv
  // lets through) is x's.
  auto zeros = [&](RankedTensorType t) {
    if (t.hasStaticShape())
      return buildFilled(b, loc, t, 0.0);
    SmallVector<OpFoldResult> sizes(t.getRank(), b.getIndexAttr(0));
    sizes[0] = dimSizes(b, loc, x)[0];
    return buildFilled(b, loc, t, sizes, 0.0);
  };
  if (g == 1) {
    Value init = zeros(outType);
    return linalg::Conv2DNchwFchwOp::create(b, loc, TypeRange{outType},
                                            ValueRange{x, w}, ValueRange{init},
                                            strides, dilations)
        .getResult(0);
  }
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  int64_t kh = wType.getDimSize(2), kw = wType.getDimSize(3);
  if (g == cin && cout == cin) {
    Value filter = buildReshape(b, loc, w, {cin, kh, kw});
    Value init = zeros(outType);
    return linalg::DepthwiseConv2DNchwChwOp::create(
               b, loc, TypeRange{outType}, ValueRange{x, filter},
               ValueRange{init}, strides, dilations)
        .getResult(0);
  }
  Value xg = buildReshape(
      b, loc, x, {batch, g, cin / g, xType.getDimSize(2), xType.getDimSize(3)});
  Value wg = buildReshape(b, loc, w, {g, cout / g, cin / g, kh, kw});
  auto gType = RankedTensorType::get({batch, g, cout / g, oh, ow}, et);
  Value init = zeros(gType);
  Value og = linalg::Conv2DNgchwGfchwOp::create(
                 b, loc, TypeRange{gType}, ValueRange{xg, wg}, ValueRange{init},
                 strides, dilations)
                 .getResult(0);
  return buildReshape(b, loc, og, outType.getShape());
}

static FailureOr<SmallVector<Value>> lowerConv(LoweringCall &c) {
  RankedTensorType resultType = c.resultType(0, /*dynamic=*/true);
  Value x = c.tensor("input"), w = c.tensor("weight"), bias = c.tensor("bias");
  if (!resultType || !x || !w || !rankedTensorType(x) || !staticTensorType(w))
    return c.fail("expected a ranked input and a statically shaped weight");
  // A dynamic batch is compiled (the rest of the input static) for the
  // plain and grouped 1-D and 2-D convolutions with zero padding.
  bool dynamicBatch = !staticTensorType(x);
  if (dynamicBatch) {
    ArrayRef<int64_t> shape = typeOf(x).getShape();
    if (shape.size() < 3 || shape.size() > 4 ||
        llvm::any_of(shape.drop_front(), ShapedType::isDynamic))
      return c.fail("only the batch dim of a convolution's input may be "
                    "dynamic (in 1-D and 2-D convolutions)");
  }
  if (!bias && !c.isNone("bias"))
    return c.fail("the bias is not a tensor");
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  ConvParams p;
  std::string error;
  switch (decode(c, xType, wType, bias, p, error)) {
  case ConvDecode::Unknown:
    return c.fail("stride, padding, dilation, output_padding, groups and "
                  "transposed must be constants");
  case ConvDecode::Invalid:
    return c.fail(error);
  case ConvDecode::Ok:
    break;
  }
  if (dynamicBatch &&
      (!p.batched || p.transposed ||
       p.padMode != ConvParams::PadMode::Zeros ||
       llvm::any_of(p.padBefore, [](int64_t v) { return v < 0; }) ||
       llvm::any_of(p.padAfter, [](int64_t v) { return v < 0; })))
    return c.fail("a dynamic batch is compiled for batched, non-transposed "
                  "convolutions with zero padding");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Type et = resultType.getElementType();
  unsigned k = p.spatial;
  // bfloat16 computes in float32 and rounds once at the end, as torch's CPU
  // kernels (and the interpreter) do.
  Type rounded = et;
  if (et.isBF16()) {
    et = b.getF32Type();
    x = widenToF32(b, loc, x);
    w = widenToF32(b, loc, w);
    xType = cast<RankedTensorType>(x.getType());
    wType = cast<RankedTensorType>(w.getType());
  }
  // Unbatched inputs get a batch of one.
  RankedTensorType outType = RankedTensorType::get(resultType.getShape(), et);
  if (!p.batched) {
    SmallVector<int64_t> xs{1}, os{1};
    llvm::append_range(xs, xType.getShape());
    llvm::append_range(os, resultType.getShape());
    x = buildReshape(b, loc, x, xs);
    xType = cast<RankedTensorType>(x.getType());
    outType = RankedTensorType::get(os, et);
  }
  SmallVector<int64_t> stride(p.stride);
  if (p.transposed) {
    x = insertZeros(b, loc, x, p.stride);
    SmallVector<int64_t> low, high;
    for (unsigned i = 0; i < k; ++i) {
      int64_t span = p.dilation[i] * (wType.getDimSize(2 + i) - 1);
      low.push_back(span - p.padBefore[i]);
      high.push_back(span - p.padAfter[i] + p.outputPadding[i]);
    }
    x = padOrCrop(b, loc, x, low, high);
    w = transposedWeight(b, loc, w, p.groups);
    stride.assign(k, 1);
  } else if (p.padMode != ConvParams::PadMode::Zeros) {
    x = padByMode(b, loc, x, p.padBefore, p.padAfter, p.padMode);
  } else {
    x = padOrCrop(b, loc, x, p.padBefore, p.padAfter);
  }
  FailureOr<Value> conv =
      buildConv(c, x, w, p.groups, stride, p.dilation, outType);
  if (failed(conv))
    return failure();
  Value out = *conv;
  if (bias) {
    // bias (C) broadcast along dimension 1.
    unsigned rank = outType.getRank();
    AffineMap id = b.getMultiDimIdentityMap(rank);
    AffineMap channel =
        AffineMap::get(rank, 0, b.getAffineDimExpr(1), b.getContext());
    out = buildElementwise(
        b, loc, outType, {out, bias}, {id, channel},
        [](OpBuilder &nb, Location l, ValueRange a) {
          if (isa<IntegerType>(a[0].getType()))
            return arith::AddIOp::create(nb, l, a[0], a[1]).getResult();
          return arith::AddFOp::create(nb, l, a[0], a[1]).getResult();
        });
  }
  if (rounded != et)
    out = buildElementwise(
        b, loc, RankedTensorType::get(outType.getShape(), rounded), {out},
        [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  if (!p.batched)
    out = buildReshape(b, loc, out, resultType.getShape());
  return SmallVector<Value>{out};
}

/// torch.conv_tbc: conv1d over the input transposed to [B, C, T] with the
/// weight transposed to [O, C, K]; the result is transposed back.
static FailureOr<SmallVector<Value>> lowerConvTbc(LoweringCall &c) {
  RankedTensorType resultType = c.resultType();
  Value x = c.tensor("input"), w = c.tensor("weight"), bias = c.tensor("bias");
  std::optional<int64_t> pad = c.getInt("pad");
  if (!resultType || !x || !w || !bias || !staticTensorType(x) ||
      !staticTensorType(w))
    return c.fail("expected statically shaped input, weight and bias");
  if (!pad)
    return c.fail("pad must be a constant");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Type et = resultType.getElementType();
  if (et.isBF16()) {
    // Computed in float32, rounded once (as in lowerConv).
    x = widenToF32(b, loc, x);
    w = widenToF32(b, loc, w);
    et = b.getF32Type();
  }
  x = buildTranspose(b, loc, x, {1, 2, 0});
  w = buildTranspose(b, loc, w, {2, 1, 0});
  // A negative pad crops.
  x = padOrCrop(b, loc, x, {*pad}, {*pad});
  auto out =
      RankedTensorType::get({resultType.getDimSize(1), resultType.getDimSize(2),
                             resultType.getDimSize(0)},
                            et);
  FailureOr<Value> conv = buildConv(c, x, w, 1, {1}, {1}, out);
  if (failed(conv))
    return failure();
  AffineMap id = b.getMultiDimIdentityMap(3);
  AffineMap channel =
      AffineMap::get(3, 0, b.getAffineDimExpr(1), b.getContext());
  Value y = buildElementwise(
      b, loc, out, {*conv, bias}, {id, channel},
      [](OpBuilder &nb, Location l, ValueRange a) {
        if (isa<IntegerType>(a[0].getType()))
          return arith::AddIOp::create(nb, l, a[0], a[1]).getResult();
        return arith::AddFOp::create(nb, l, a[0], a[1]).getResult();
      });
  if (et != resultType.getElementType())
    y = buildElementwise(
        b, loc,
        RankedTensorType::get(out.getShape(), resultType.getElementType()), {y},
        [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  return SmallVector<Value>{buildTranspose(b, loc, y, {2, 0, 1})};
}

static constexpr StringLiteral kConvTargets[] = {
    "torch.nn.functional.conv1d",
    "torch.nn.functional.conv2d",
    "torch.nn.functional.conv3d",
    "torch.nn.functional.conv_transpose1d",
    "torch.nn.functional.conv_transpose2d",
    "torch.nn.functional.conv_transpose3d",
    "torch.convolution",
    "torch.conv_tbc"};

bool lowering::isConvTarget(StringRef target) {
  return llvm::is_contained(kConvTargets, target);
}

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Recurrent networks: traced.nn.rnn (nn.RNN/LSTM/GRU) and traced.nn.rnn_cell
//===----------------------------------------------------------------------===//
//
// A cell is one step: the input and hidden projections as matmuls
// (buildLinear) and the gate math as generics. A sequence module runs, per
// layer and direction, the input projection of every time step as one
// matmul and then an `scf.for` over the sequence length (`tensor.dim`, so a
// dynamic length works) carrying the trajectory of h (and c); the reverse
// direction walks the steps backwards and writes the second half of the
// output's features. Gate orders are torch's: LSTM i, f, g, o; GRU r, z, n.

namespace {
/// A recurrent call's options and lowered tensors.
struct Recurrent {
  std::string mode;
  int64_t hidden = 0, proj = 0, layers = 1, dirs = 1, perGroup = 2;
  bool bias = true, batchFirst = false;
  SmallVector<Value> params;
  /// The initial states as given (null: zeros).
  Value h0, c0;

  bool lstm() const { return mode == "LSTM"; }
  bool gru() const { return mode == "GRU"; }
  bool relu() const { return mode == "RNN_RELU" || mode == "relu"; }
  int64_t gates() const { return lstm() ? 4 : gru() ? 3 : 1; }
  int64_t out() const { return proj > 0 ? proj : hidden; }
};

/// One layer's and direction's parameters (biases and w_hr may be null).
struct Weights {
  Value wih, whh, bih, bhh, whr;
};
} // namespace

static FailureOr<Recurrent> readRecurrent(LoweringCall &c, bool cell) {
  Recurrent r;
  auto mode = dyn_cast_or_null<StringAttr>(c.value("mode"));
  std::optional<int64_t> hidden = c.getInt("hidden_size");
  std::optional<bool> bias = c.getBool("bias");
  FailureOr<SmallVector<Value>> params = c.tensors("params");
  if (!mode || !hidden || !bias || failed(params) || !c.tensor("input"))
    return c.fail("expected constant options and tensor parameters");
  r.mode = mode.getValue().str();
  r.hidden = *hidden;
  r.bias = *bias;
  r.params = *params;
  if (!cell) {
    std::optional<int64_t> proj = c.getInt("proj_size"),
                           layers = c.getInt("num_layers");
    std::optional<bool> batchFirst = c.getBool("batch_first"),
                        bidirectional = c.getBool("bidirectional"),
                        training = c.getBool("training");
    std::optional<double> dropout = c.getFloat("dropout");
    if (!proj || !layers || !batchFirst || !bidirectional || !training ||
        !dropout)
      return c.fail("expected constant options");
    if (*training && *dropout > 0 && *layers > 1)
      return c.fail("dropout between layers in training mode is random");
    r.proj = *proj;
    r.layers = *layers;
    r.batchFirst = *batchFirst;
    r.dirs = *bidirectional ? 2 : 1;
  }
  r.perGroup = 2 + (r.bias ? 2 : 0) + (r.proj > 0 ? 1 : 0);
  if (static_cast<int64_t>(r.params.size()) !=
      r.perGroup * r.layers * r.dirs)
    return c.fail("expected the module's parameters");
  if (c.isNone("hx"))
    return r;
  if (Value h = c.tensor("hx")) {
    r.h0 = h;
  } else {
    FailureOr<SmallVector<Value>> states = c.tensors("hx");
    if (failed(states) || states->size() != (r.lstm() ? 2u : 1u))
      return c.fail("expected hx as a tensor or (for LSTM) (h0, c0)");
    r.h0 = (*states)[0];
    if (r.lstm())
      r.c0 = (*states)[1];
  }
  if (r.lstm() && !r.c0)
    return c.fail("expected hx as the tuple (h0, c0)");
  return r;
}

static Weights weightsOf(const Recurrent &r, int64_t group) {
  ArrayRef<Value> p = ArrayRef<Value>(r.params).slice(group * r.perGroup,
                                                      r.perGroup);
  Weights w{p[0], p[1], {}, {}, {}};
  if (r.bias) {
    w.bih = p[2];
    w.bhh = p[3];
  }
  if (r.proj > 0)
    w.whr = p.back();
  return w;
}

static Value sigmoidOf(OpBuilder &b, Location loc, Value x) {
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(x.getType(), 1));
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

/// Gate `g` of `v` (size `h` each along the last dim), rank kept.
static Value gateSlice(OpBuilder &b, Location loc, Value v, int64_t g,
                       int64_t h) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)),
      sizes = dimSizes(b, loc, v), strides(rank, b.getIndexAttr(1));
  offsets.back() = b.getIndexAttr(g * h);
  sizes.back() = b.getIndexAttr(h);
  return tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides);
}

/// One step of the recurrence: the new h and (LSTM) c from `xp` (the
/// input's projection x @ W_ih^T + b_ih, gates along the last dim) and the
/// states `h` and `c` (any leading dims: [N, .] or, for an unbatched cell,
/// none).
static std::pair<Value, Value> buildStep(OpBuilder &b, Location loc,
                                         const Recurrent &r, const Weights &w,
                                         Value xp, Value h, Value c) {
  Value hp = buildLinear(b, loc, h, w.whh, w.bhh);
  int64_t n = r.hidden;
  auto add = [](OpBuilder &nb, Location l, ValueRange a) -> Value {
    return arith::AddFOp::create(nb, l, a[0], a[1]);
  };
  if (r.gru()) {
    SmallVector<Value> in;
    for (int64_t g = 0; g < 3; ++g) {
      in.push_back(gateSlice(b, loc, xp, g, n));
      in.push_back(gateSlice(b, loc, hp, g, n));
    }
    in.push_back(h);
    Value next = buildElementwise(
        b, loc, typeOf(in[0]), in, [](OpBuilder &nb, Location l, ValueRange a) {
          Value rg = sigmoidOf(nb, l, arith::AddFOp::create(nb, l, a[0], a[1]));
          Value z = sigmoidOf(nb, l, arith::AddFOp::create(nb, l, a[2], a[3]));
          Value nn = math::TanhOp::create(
              nb, l, arith::AddFOp::create(
                         nb, l, a[4], arith::MulFOp::create(nb, l, rg, a[5])));
          // (1 - z) * n + z * h = n + z * (h - n)
          Value d = arith::SubFOp::create(nb, l, a[6], nn);
          return arith::AddFOp::create(nb, l, nn,
                                       arith::MulFOp::create(nb, l, z, d))
              .getResult();
        });
    return {next, {}};
  }
  Value sum = buildElementwise(b, loc, typeOf(xp), {xp, hp}, add);
  if (!r.lstm()) {
    bool relu = r.relu();
    Value next = buildElementwise(
        b, loc, typeOf(sum), {sum},
        [relu](OpBuilder &nb, Location l, ValueRange a) -> Value {
          if (!relu)
            return math::TanhOp::create(nb, l, a[0]);
          Value zero = arith::ConstantOp::create(
              nb, l, nb.getFloatAttr(a[0].getType(), 0));
          return arith::MaximumFOp::create(nb, l, a[0], zero);
        });
    return {next, {}};
  }
  SmallVector<Value> g;
  for (int64_t k = 0; k < 4; ++k)
    g.push_back(gateSlice(b, loc, sum, k, n));
  Value nextC = buildElementwise(
      b, loc, typeOf(g[0]), {g[0], g[1], g[2], c},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value i = sigmoidOf(nb, l, a[0]), f = sigmoidOf(nb, l, a[1]);
        Value gg = math::TanhOp::create(nb, l, a[2]);
        return arith::AddFOp::create(nb, l, arith::MulFOp::create(nb, l, f, a[3]),
                                     arith::MulFOp::create(nb, l, i, gg));
      });
  Value nextH = buildElementwise(
      b, loc, typeOf(g[3]), {g[3], nextC},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return arith::MulFOp::create(nb, l, sigmoidOf(nb, l, a[0]),
                                     math::TanhOp::create(nb, l, a[1]));
      });
  if (w.whr)
    nextH = buildLinear(b, loc, nextH, w.whr, {});
  return {nextH, nextC};
}

/// A zero state of `size` features, with the leading dims of `like` but
/// its last.
static Value zeroState(OpBuilder &b, Location loc, Value like, int64_t size) {
  RankedTensorType t = typeOf(like);
  SmallVector<int64_t> shape(t.getShape());
  shape.back() = size;
  SmallVector<OpFoldResult> sizes = dimSizes(b, loc, like);
  sizes.back() = b.getIndexAttr(size);
  return buildFilled(b, loc, RankedTensorType::get(shape, t.getElementType()),
                     sizes, 0.0);
}

//===----------------------------------------------------------------------===//
// Cells
//===----------------------------------------------------------------------===//

/// The cell's h and (LSTMCell) c.
static FailureOr<std::pair<Value, Value>> lowerCellCall(LoweringCall &c) {
  FailureOr<Recurrent> r = readRecurrent(c, /*cell=*/true);
  if (failed(r))
    return failure();
  OpBuilder &b = c.rewriter;
  Value x = c.tensor("input");
  Weights w = weightsOf(*r, 0);
  Value xp = buildLinear(b, c.loc, x, w.wih, w.bih);
  Value h = r->h0, cs = r->c0;
  if (!h)
    h = zeroState(b, c.loc, x, r->hidden);
  if (r->lstm() && !cs)
    cs = zeroState(b, c.loc, x, r->hidden);
  return buildStep(b, c.loc, *r, w, xp, h, cs);
}

//===----------------------------------------------------------------------===//
// Sequence modules
//===----------------------------------------------------------------------===//

/// Row `i` of `v` along dim 0 (rank dropped).
static Value rowOf(OpBuilder &b, Location loc, Value v, OpFoldResult i) {
  RankedTensorType t = typeOf(v);
  int64_t rank = t.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)),
      sizes = dimSizes(b, loc, v), strides(rank, b.getIndexAttr(1));
  offsets[0] = i;
  sizes[0] = b.getIndexAttr(1);
  auto rowType = RankedTensorType::get(t.getShape().drop_front(),
                                       t.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, rowType, v, offsets, sizes,
                                        strides);
}

/// `v` written into `dest` (rank 3) at row `i` and feature offset
/// `column`: a row ([N, F], rank dropped) or a block of rows ([R, N, F]).
static Value insertRows(OpBuilder &b, Location loc, Value v, Value dest,
                        OpFoldResult i, int64_t column) {
  SmallVector<OpFoldResult> sizes = dimSizes(b, loc, v);
  if (typeOf(v).getRank() < 3)
    sizes.insert(sizes.begin(), b.getIndexAttr(1));
  SmallVector<OpFoldResult> offsets(3, b.getIndexAttr(0)),
      strides(3, b.getIndexAttr(1));
  offsets[0] = i;
  offsets[2] = b.getIndexAttr(column);
  return tensor::InsertSliceOp::create(b, loc, v, dest, offsets, sizes,
                                       strides);
}

/// A trajectory of states ([T + 1, N, F]): `first` ([N, F]) at row
/// `start`, the other rows to be written by the time loop.
static Value trajectory(OpBuilder &b, Location loc, Value first, Value steps,
                        Value start) {
  RankedTensorType t = typeOf(first);
  SmallVector<OpFoldResult> sizes = dimSizes(b, loc, first);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  sizes.insert(sizes.begin(), arith::AddIOp::create(b, loc, steps, one)
                                  .getResult());
  SmallVector<int64_t> shape(t.getShape());
  shape.insert(shape.begin(), ShapedType::kDynamic);
  Value empty = buildEmpty(
      b, loc, RankedTensorType::get(shape, t.getElementType()), sizes);
  return insertRows(b, loc, first, empty, start, 0);
}

/// One direction of one layer: the scf.for over the time steps of `xp`
/// ([T, N, G*H], the input projection of every step) from states `h`, `c`
/// ([N, .]), writing its T steps' h into `out` at feature offset `column`.
/// The loop carries the trajectories of h and c ([T + 1, N, .]: the
/// initial state and each step's), reading row i (forward) or i + 1
/// (reverse) and writing the other, so that each value it yields is its
/// iter_arg updated in place (tensor.insert_slice), as one-shot
/// bufferization wants. Returns the output and the final h and c.
static SmallVector<Value> buildDirection(OpBuilder &b, Location loc,
                                         const Recurrent &r, const Weights &w,
                                         Value xp, Value out, int64_t column,
                                         bool reverse, Value h, Value c) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value steps = tensor::DimOp::create(b, loc, xp, 0);
  Value start = reverse ? steps : zero;
  SmallVector<Value> init = {trajectory(b, loc, h, steps, start)};
  if (c)
    init.push_back(trajectory(b, loc, c, steps, start));
  auto loop = scf::ForOp::create(
      b, loc, zero, steps, one, init,
      [&](OpBuilder &nb, Location l, Value t, ValueRange carried) {
        Value i = t, src = t, dst = arith::AddIOp::create(nb, l, t, one);
        if (reverse) {
          i = arith::SubIOp::create(
              nb, l, arith::SubIOp::create(nb, l, steps, one), t);
          src = arith::AddIOp::create(nb, l, i, one);
          dst = i;
        }
        Value x = rowOf(nb, l, xp, i);
        auto [nextH, nextC] =
            buildStep(nb, l, r, w, x, rowOf(nb, l, carried[0], src),
                      c ? rowOf(nb, l, carried[1], src) : Value());
        SmallVector<Value> yield = {insertRows(nb, l, nextH, carried[0], dst, 0)};
        if (c)
          yield.push_back(insertRows(nb, l, nextC, carried[1], dst, 0));
        scf::YieldOp::create(nb, l, yield);
      });
  // The steps' h: rows 1..T (forward) or 0..T-1 (reverse).
  Value hs = loop.getResult(0);
  SmallVector<OpFoldResult> offsets(3, b.getIndexAttr(0)),
      sizes = dimSizes(b, loc, xp), strides(3, b.getIndexAttr(1));
  offsets[0] = b.getIndexAttr(reverse ? 0 : 1);
  sizes.back() = b.getIndexAttr(typeOf(h).getShape().back());
  RankedTensorType ht = typeOf(h);
  auto rowsType = RankedTensorType::get(
      {typeOf(xp).getDimSize(0), ht.getDimSize(0), ht.getDimSize(1)},
      ht.getElementType());
  Value rows = tensor::ExtractSliceOp::create(b, loc, rowsType, hs, offsets,
                                              sizes, strides);
  Value last = reverse ? zero : steps;
  SmallVector<Value> results = {insertRows(b, loc, rows, out, zero, column),
                                rowOf(b, loc, hs, last)};
  if (c)
    results.push_back(rowOf(b, loc, loop.getResult(1), last));
  return results;
}

/// `states` ([N, F] each) stacked into [L*D, N, F].
static Value stackStates(OpBuilder &b, Location loc, ArrayRef<Value> states) {
  RankedTensorType t = typeOf(states[0]);
  SmallVector<int64_t> shape(t.getShape());
  shape.insert(shape.begin(), static_cast<int64_t>(states.size()));
  SmallVector<OpFoldResult> sizes = dimSizes(b, loc, states[0]);
  sizes.insert(sizes.begin(), b.getIndexAttr(states.size()));
  Value dest = buildEmpty(
      b, loc, RankedTensorType::get(shape, t.getElementType()), sizes);
  for (auto [k, s] : llvm::enumerate(states))
    dest = insertRows(b, loc, s, dest, b.getIndexAttr(k), 0);
  return dest;
}

/// The output and final states of a sequence module, as torch returns
/// them: (output, h_n[, c_n]).
static FailureOr<SmallVector<Value>> lowerSequenceCall(LoweringCall &c) {
  FailureOr<Recurrent> r = readRecurrent(c, /*cell=*/false);
  if (failed(r))
    return failure();
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value seq = c.tensor("input");
  bool batched = typeOf(seq).getRank() == 3;
  Value h0 = r->h0, c0 = r->c0;
  // Time-major [T, N, F] throughout; an unbatched input has N = 1.
  auto withBatch = [&](Value v) {
    SmallVector<int64_t> shape(typeOf(v).getShape());
    shape.insert(shape.begin() + 1, 1);
    return buildReshape(b, loc, v, shape);
  };
  if (!batched) {
    seq = withBatch(seq);
    h0 = h0 ? withBatch(h0) : h0;
    c0 = c0 ? withBatch(c0) : c0;
  } else if (r->batchFirst) {
    seq = buildTranspose(b, loc, seq, {1, 0, 2});
  }
  SmallVector<Value> hn, cn;
  for (int64_t layer = 0; layer < r->layers; ++layer) {
    RankedTensorType st = typeOf(seq);
    SmallVector<OpFoldResult> sizes = dimSizes(b, loc, seq);
    sizes.back() = b.getIndexAttr(r->dirs * r->out());
    Value out = buildEmpty(
        b, loc,
        RankedTensorType::get({st.getDimSize(0), st.getDimSize(1),
                               r->dirs * r->out()},
                              st.getElementType()),
        sizes);
    for (int64_t d = 0; d < r->dirs; ++d) {
      int64_t k = layer * r->dirs + d;
      Weights w = weightsOf(*r, k);
      Value xp = buildLinear(b, loc, seq, w.wih, w.bih);
      Value first = rowOf(b, loc, xp, b.getIndexAttr(0));
      Value h = h0 ? rowOf(b, loc, h0, b.getIndexAttr(k))
                   : zeroState(b, loc, first, r->out());
      Value cs;
      if (r->lstm())
        cs = c0 ? rowOf(b, loc, c0, b.getIndexAttr(k))
                : zeroState(b, loc, first, r->hidden);
      SmallVector<Value> res = buildDirection(b, loc, *r, w, xp, out,
                                              d * r->out(), d == 1, h, cs);
      out = res[0];
      hn.push_back(res[1]);
      if (cs)
        cn.push_back(res[2]);
    }
    seq = out;
  }
  SmallVector<Value> results = {seq, stackStates(b, loc, hn)};
  if (r->lstm())
    results.push_back(stackStates(b, loc, cn));
  for (Value &v : results) {
    if (!batched) {
      SmallVector<int64_t> shape(typeOf(v).getShape());
      shape.erase(shape.begin() + 1);
      v = buildReshape(b, loc, v, shape);
    }
  }
  if (batched && r->batchFirst)
    results[0] = buildTranspose(b, loc, results[0], {1, 0, 2});
  return results;
}

bool lowering::isRecurrentTarget(StringRef target) {
  return target == "traced.nn.rnn" || target == "traced.nn.rnn_cell";
}

FailureOr<Value> lowering::lowerRecurrentElement(LoweringCall &c,
                                                 ArrayRef<int64_t> path,
                                                 RankedTensorType type) {
  if (!type)
    return c.fail("expected a ranked tensor element");
  SmallVector<Value> values;
  bool sequence = c.target() == "traced.nn.rnn";
  if (sequence) {
    FailureOr<SmallVector<Value>> all = lowerSequenceCall(c);
    if (failed(all))
      return failure();
    values = *all;
  } else {
    FailureOr<std::pair<Value, Value>> hc = lowerCellCall(c);
    if (failed(hc))
      return failure();
    values = {hc->first, hc->second};
  }
  // (output, h_n), (output, (h_n, c_n)) for LSTM, (h, c) for LSTMCell.
  int64_t index = -1;
  if (!sequence && path.size() == 1)
    index = path[0];
  else if (sequence && values.size() == 2 && path.size() == 1)
    index = path[0];
  else if (sequence && values.size() == 3 && path.size() == 1 && path[0] == 0)
    index = 0;
  else if (sequence && values.size() == 3 && path.size() == 2 && path[0] == 1)
    index = 1 + path[1];
  if (index < 0 || index >= static_cast<int64_t>(values.size()) ||
      !values[index])
    return c.fail("cannot compile this element of the result");
  return castChecked(c.rewriter, c.loc, values[index], type,
                     "'" + c.target() + "': a dim has another size than the "
                     "trace's");
}

static void populateRecurrent(LoweringTable &t) {
  // The sequence modules' results are tuples: lowered where
  // operator.getitem reads them (lowerRecurrentElement).
  t["traced.nn.rnn"] = [](LoweringCall &c) -> FailureOr<SmallVector<Value>> {
    return c.fail("only the indexed elements of the result (output, h_n, "
                  "c_n) can be compiled");
  };
  // RNNCell and GRUCell return h; LSTMCell's (h, c) is read by getitem.
  t["traced.nn.rnn_cell"] =
      [](LoweringCall &c) -> FailureOr<SmallVector<Value>> {
    RankedTensorType type = c.resultType(0, /*dynamic=*/true);
    if (!type)
      return c.fail("only LSTMCell's indexed (h, c) can be compiled");
    FailureOr<Value> h = lowerRecurrentElement(c, {0}, type);
    if (failed(h))
      return failure();
    return SmallVector<Value>{*h};
  };
}

//===----------------------------------------------------------------------===//
// Factorizations: calls of the linear-algebra runtime (docs/linalg-runtime.md)
//===----------------------------------------------------------------------===//

namespace {
/// The bool parameter `name`, or `fallback` where the entry has no such
/// parameter (torch.lu_solve has no `left`) or it is not a constant.
bool flag(LoweringCall &c, StringRef name, bool fallback) {
  if (!c.spec->signature.lookup(name))
    return fallback;
  return c.getBool(name).value_or(fallback);
}

} // namespace

/// One call of `traced_linalg_<routine>_<f32|f64|i64>` (Lowering.h).
RuntimeCall lowering::callRuntime(LoweringCall &c, StringRef routine, Type element,
                        ArrayRef<Value> inputs,
                        ArrayRef<RankedTensorType> outputs,
                        ArrayRef<int64_t> ints) {
  std::string name = ("traced_linalg_" + routine + "_" +
                      (element.isF32() ? "f32" : element.isF64() ? "f64" : "i64"))
                         .str();
  return buildRuntimeCall(c.rewriter, c.loc, c.op, name, inputs, outputs, ints);
}

namespace {

/// The types of a factorization's results (its tuple's elements), as the
/// lowered code stores them; empty unless all are statically shaped.
SmallVector<RankedTensorType> lapackResultTypes(LoweringCall &c) {
  Type t = c.op->getResult(0).getType();
  SmallVector<Type> types;
  if (auto tuple = dyn_cast<TupleType>(t))
    types.append(tuple.getTypes().begin(), tuple.getTypes().end());
  else
    types.push_back(t);
  SmallVector<RankedTensorType> out;
  for (Type e : types) {
    auto r = dyn_cast<RankedTensorType>(storageType(e));
    if (!r || !r.hasStaticShape())
      return {};
    out.push_back(r);
  }
  return out;
}

/// The static (batch, m, n) of a matrix operand.
struct MatrixDims {
  SmallVector<int64_t> batchShape;
  int64_t batch = 1, m = 0, n = 0;
};
MatrixDims matrixDims(Value a) {
  ArrayRef<int64_t> s = typeOf(a).getShape();
  MatrixDims d{SmallVector<int64_t>(s.drop_back(2)), 1, s[s.size() - 2],
               s.back()};
  for (int64_t v : d.batchShape)
    d.batch *= v;
  return d;
}

int64_t product(ArrayRef<int64_t> shape) {
  int64_t p = 1;
  for (int64_t v : shape)
    p *= v;
  return p;
}

SmallVector<int64_t> joined(ArrayRef<int64_t> batch, ArrayRef<int64_t> tail) {
  SmallVector<int64_t> shape(batch);
  shape.append(tail.begin(), tail.end());
  return shape;
}

/// The matrices' last two dims swapped.
Value transposeMatrices(OpBuilder &b, Location loc, Value x) {
  int64_t r = typeOf(x).getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, r));
  std::swap(perm[r - 2], perm[r - 1]);
  return buildTranspose(b, loc, x, perm);
}

/// Whether compiled code checks the routine's status: the forms without
/// `_ex`, and those with check_errors=True.
bool checksErrors(LoweringCall &c) {
  return !c.target().ends_with("_ex") || flag(c, "check_errors", false);
}

void checkStatus(LoweringCall &c, Value status, const Twine &what) {
  OpBuilder &b = c.rewriter;
  Value zero = arith::ConstantOp::create(b, c.loc, b.getI32IntegerAttr(0));
  c.check(arith::CmpIOp::create(b, c.loc, arith::CmpIPredicate::eq, status,
                                zero),
          what);
}

/// A + 0: the LU factors, pivots and info of A.
RuntimeCall luFactorCall(LoweringCall &c, Value a, Type e) {
  MatrixDims d = matrixDims(a);
  Type i32 = c.rewriter.getI32Type();
  int64_t k = std::min(d.m, d.n);
  return callRuntime(
      c, "lu_factor", e, {a},
      {typeOf(a), RankedTensorType::get(joined(d.batchShape, {k}), i32),
       RankedTensorType::get(d.batchShape, i32)},
      {d.batch, d.m, d.n});
}

/// getrs: X with A X = B (`left`) or X A = B from A's LU factors and
/// pivots, broadcast with B to the batch `batch`.
Value solveFromLu(LoweringCall &c, Value lu, Value pivots, Value rhs,
                  ArrayRef<int64_t> batch, bool left, bool adjoint) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  int64_t n = typeOf(lu).getShape().back();
  Type e = typeOf(lu).getElementType();
  ArrayRef<int64_t> tail = typeOf(rhs).getShape().take_back(2);
  rhs = broadcastTo(b, loc, rhs, joined(batch, tail));
  lu = broadcastTo(b, loc, lu, joined(batch, {n, n}));
  pivots = broadcastTo(b, loc, pivots, joined(batch, {n}));
  // X A = B is A^T X^T = B^T.
  if (!left)
    rhs = transposeMatrices(b, loc, rhs);
  RankedTensorType xType = typeOf(rhs);
  int64_t k = xType.getShape().back();
  RuntimeCall s = callRuntime(c, "lu_solve", e, {lu, pivots, rhs}, {xType},
                              {product(batch), n, k, left ? adjoint : !adjoint});
  return left ? s.results[0] : transposeMatrices(b, loc, s.results[0]);
}

/// linalg.lu_solve, lu_solve, cholesky_solve and cholesky_inverse: solves
/// from given factors.
FailureOr<SmallVector<Value>> lowerFactoredSolve(LoweringCall &c,
                                                 RankedTensorType type) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  StringRef t = c.target();
  if (t == "torch.cholesky_inverse") {
    Value a = c.tensor("input");
    MatrixDims d = matrixDims(a);
    RuntimeCall r = callRuntime(
        c, "cholesky_inverse", type.getElementType(), {a},
        {type, RankedTensorType::get(d.batchShape, b.getI32Type())},
        {d.batch, d.n, flag(c, "upper", false)});
    checkStatus(c, r.status,
                "the input matrix is singular (a zero diagonal element)");
    return SmallVector<Value>{r.results[0]};
  }
  bool linalg = t == "torch.linalg.lu_solve";
  Value factor = c.tensor(linalg ? "LU" : t == "torch.lu_solve" ? "LU_data"
                                                                : "input2");
  Value rhs = c.tensor(linalg ? "B" : "input");
  if (!factor || !rhs || !typeOf(factor).hasStaticShape() ||
      !typeOf(rhs).hasStaticShape())
    return c.fail("expected statically shaped operands");
  ArrayRef<int64_t> xShape = type.getShape();
  SmallVector<int64_t> batch(xShape.drop_back(2));
  int64_t n = typeOf(factor).getShape().back();
  if (t.contains("lu_solve")) {
    Value pivots = c.tensor(linalg ? "pivots" : "LU_pivots");
    if (!pivots || !typeOf(pivots).hasStaticShape() ||
        !typeOf(pivots).getElementType().isInteger(32))
      return c.fail("expected statically shaped int32 pivots");
    return SmallVector<Value>{solveFromLu(
        c, factor, pivots, rhs, batch, flag(c, "left", true),
        flag(c, "adjoint", false))};
  }
  rhs = broadcastTo(b, loc, rhs, xShape);
  factor = broadcastTo(b, loc, factor, joined(batch, {n, n}));
  RuntimeCall r = callRuntime(c, "cholesky_solve", type.getElementType(),
                              {factor, rhs}, {type},
                              {product(batch), n, xShape.back(),
                               flag(c, "upper", false)});
  return r.results;
}

FailureOr<SmallVector<Value>> lowerSolve(LoweringCall &c,
                                         ArrayRef<RankedTensorType> types) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value a = c.tensor("A");
  Type e = typeOf(a).getElementType();
  MatrixDims d = matrixDims(a);
  int64_t n = d.n;
  bool inverse = c.target() == "torch.linalg.inv_ex";
  bool left = flag(c, "left", true), vector = false;
  Value rhs;
  if (inverse) {
    rhs = buildConstant(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({n, n}, e),
                               [&]() {
                                 SmallVector<Attribute> v;
                                 for (int64_t i = 0; i < n * n; ++i)
                                   v.push_back(FloatAttr::get(
                                       e, i % (n + 1) == 0 ? 1.0 : 0.0));
                                 return v;
                               }()));
  } else {
    rhs = c.tensor("B");
    vector = solveTakesVector(typeOf(a).getShape(), typeOf(rhs).getShape());
    if (vector)
      rhs = buildReshape(b, loc, rhs, joined(typeOf(rhs).getShape(), {1}));
  }
  RuntimeCall f = luFactorCall(c, a, e);
  if (checksErrors(c))
    checkStatus(c, f.status,
                inverse ? "the input matrix is singular"
                        : "The solver failed because the input matrix is "
                          "singular.");
  // The broadcast batch, from the result's type.
  ArrayRef<int64_t> xShape = types[0].getShape();
  SmallVector<int64_t> batch(xShape.drop_back(vector ? 1 : 2));
  Value x = solveFromLu(c, f.results[0], f.results[1], rhs, batch, left,
                        false);
  if (vector)
    x = buildReshape(b, loc, x, xShape);
  if (types.size() == 1)
    return SmallVector<Value>{x};
  return SmallVector<Value>{x, f.results[2]};
}

/// lu_unpack, linalg.lu, torch.lu and symeig.
FailureOr<SmallVector<Value>> lowerUnpacked(LoweringCall &c,
                                            ArrayRef<RankedTensorType> types) {
  OpBuilder &b = c.rewriter;
  StringRef t = c.target();
  bool unpack = t == "torch.lu_unpack";
  Value a = c.tensor(unpack ? "LU_data" : t == "torch.symeig" ? "input" : "A");
  if (!a || !typeOf(a).hasStaticShape())
    return c.fail("expected a statically shaped A");
  Type e = typeOf(a).getElementType(), i32 = b.getI32Type();
  MatrixDims d = matrixDims(a);
  if (t == "torch.symeig") {
    bool vectors = flag(c, "eigenvectors", false);
    RuntimeCall r = callRuntime(
        c, "eigh", e, {a},
        {types[0], types[1], RankedTensorType::get(d.batchShape, i32)},
        {d.batch, d.n, flag(c, "upper", true), vectors});
    checkStatus(c, r.status,
                "The algorithm failed to converge because the input matrix "
                "is ill-conditioned or has too many repeated eigenvalues.");
    return SmallVector<Value>{r.results[0], r.results[1]};
  }
  if (t == "torch.functional.lu") {
    // (No check: torch.lu returns the factors of a singular matrix.)
    RuntimeCall r = luFactorCall(c, a, e);
    if (types.size() == 2)
      r.results.pop_back();
    return r.results;
  }
  Value lu = a, pivots;
  if (unpack) {
    pivots = c.tensor("LU_pivots");
    if (!pivots || !typeOf(pivots).hasStaticShape())
      return c.fail("expected statically shaped pivots");
  } else {
    RuntimeCall f = luFactorCall(c, a, e);
    lu = f.results[0];
    pivots = f.results[1];
  }
  bool data = flag(c, "unpack_data", true),
       permutation = flag(c, "unpack_pivots", true);
  RuntimeCall r = callRuntime(c, "lu_unpack", e, {lu, pivots},
                              {types[0], types[1], types[2]},
                              {d.batch, d.m, d.n, data, permutation});
  checkStatus(c, r.status, "a pivot is out of range");
  return r.results;
}

/// geqrf, linalg.householder_product (orgqr) and ormqr.
FailureOr<SmallVector<Value>> lowerHouseholder(LoweringCall &c,
                                               ArrayRef<RankedTensorType> types) {
  StringRef t = c.target();
  bool product = t == "torch.linalg.householder_product";
  Value a = c.tensor(product ? "A" : "input");
  if (!a || !typeOf(a).hasStaticShape())
    return c.fail("expected a statically shaped input");
  Type e = typeOf(a).getElementType();
  MatrixDims d = matrixDims(a);
  if (t == "torch.geqrf")
    return callRuntime(c, "geqrf", e, {a}, {types[0], types[1]},
                       {d.batch, d.m, d.n})
        .results;
  Value tau = c.tensor(product ? "tau" : "input2");
  if (!tau || !typeOf(tau).hasStaticShape())
    return c.fail("expected a statically shaped tau");
  int64_t k = typeOf(tau).getShape().back();
  if (product)
    return callRuntime(c, "householder_product", e, {a, tau}, {types[0]},
                       {d.batch, d.m, d.n, k})
        .results;
  Value other = c.tensor("input3");
  if (!other || !typeOf(other).hasStaticShape())
    return c.fail("expected a statically shaped matrix");
  ArrayRef<int64_t> cs = types[0].getShape();
  return callRuntime(c, "ormqr", e, {a, tau, other}, {types[0]},
                     {d.batch, cs[cs.size() - 2], cs.back(), k,
                      flag(c, "left", true), flag(c, "transpose", false)})
      .results;
}

/// linalg.ldl_solve: sytrs from ldl_factor's factors and int32 pivots,
/// broadcast with B.
FailureOr<SmallVector<Value>> lowerLdlSolve(LoweringCall &c,
                                            RankedTensorType type) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value ld = c.tensor("LD"), pivots = c.tensor("pivots"), rhs = c.tensor("B");
  if (!ld || !pivots || !rhs || !typeOf(ld).hasStaticShape() ||
      !typeOf(pivots).hasStaticShape() || !typeOf(rhs).hasStaticShape())
    return c.fail("expected statically shaped operands");
  if (!typeOf(pivots).getElementType().isInteger(32))
    return c.fail("expected int32 pivots (ldl_factor's)");
  ArrayRef<int64_t> xShape = type.getShape();
  SmallVector<int64_t> batch(xShape.drop_back(2));
  int64_t n = typeOf(ld).getShape().back();
  rhs = broadcastTo(b, loc, rhs, xShape);
  ld = broadcastTo(b, loc, ld, joined(batch, {n, n}));
  pivots = broadcastTo(b, loc, pivots, joined(batch, {n}));
  RuntimeCall r = callRuntime(c, "ldl_solve", type.getElementType(),
                              {ld, pivots, rhs}, {type},
                              {product(batch), n, xShape.back()});
  checkStatus(c, r.status,
              "torch.linalg.ldl_solve: pivots must be LAPACK's sytrf pivots "
              "(1-based, negative for 2 x 2 blocks)");
  return r.results;
}

/// linalg.ldl_factor(_ex): sytrf (LD, pivots and info).
FailureOr<SmallVector<Value>> lowerLdlFactor(LoweringCall &c, Value a,
                                             ArrayRef<RankedTensorType> types) {
  MatrixDims d = matrixDims(a);
  RuntimeCall r = callRuntime(
      c, "ldl_factor", typeOf(a).getElementType(), {a},
      {types[0], types[1],
       RankedTensorType::get(d.batchShape, c.rewriter.getI32Type())},
      {d.batch, d.n});
  if (checksErrors(c))
    checkStatus(c, r.status,
                "torch.linalg.ldl_factor: Unknown error code (a zero pivot).");
  if (types.size() == 2)
    r.results.pop_back();
  return r.results;
}

/// linalg.lstsq's element `index`: the runtime computes the solution, the
/// residuals' sums of squares, the ranks and the singular values; the
/// result rule says which of them torch returns (empty otherwise). The
/// residuals of gelsd and gelss for m > n exist only when every matrix
/// has full rank (an unranked type): not compiled.
FailureOr<Value> lowerLstsq(LoweringCall &c, int64_t index) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  auto tuple = dyn_cast<TupleType>(c.op->getResult(0).getType());
  Value a = c.tensor("A"), rhs = c.tensor("B");
  if (!tuple || !a || !rhs || !typeOf(a).hasStaticShape() ||
      !typeOf(rhs).hasStaticShape())
    return c.fail("expected statically shaped operands");
  if (index < 0 || index > 3)
    return c.fail("tuple index out of range");
  auto resultType = [&](int64_t i) {
    return dyn_cast<RankedTensorType>(storageType(tuple.getType(i)));
  };
  if (!resultType(index))
    return c.fail("the residuals of gelsd and gelss exist only when every "
                  "matrix has full rank (a shape that depends on the "
                  "values): not compiled");
  // Reading gelsd's or gelss's residuals for m > n, compiled code checks
  // that the ranks give the shape traced: all n for residuals, not all
  // for none.
  int64_t driver = 1;
  if (auto s = dyn_cast_or_null<StringAttr>(c.value("driver")))
    driver = llvm::StringSwitch<int64_t>(s.getValue())
                 .Case("gels", 0)
                 .Case("gelsd", 2)
                 .Case("gelss", 3)
                 .Default(1);
  Type e = typeOf(a).getElementType();
  MatrixDims d = matrixDims(a);
  int64_t m = d.m, n = d.n;
  double eps = e.isF32() ? 1.1920928955078125e-07 : 2.220446049250313e-16;
  std::optional<double> rcond = c.getFloat("rcond");
  if (!rcond && !c.isNone("rcond"))
    return c.fail("expected a constant rcond");
  bool vector = typeOf(a).getRank() - typeOf(rhs).getRank() == 1;
  if (vector)
    rhs = buildReshape(b, loc, rhs, joined(typeOf(rhs).getShape(), {1}));
  int64_t k = typeOf(rhs).getShape().back();
  RankedTensorType solution = resultType(0);
  SmallVector<int64_t> batch(solution.getShape().drop_back(vector ? 1 : 2));
  SmallVector<int64_t> computed = joined(batch, {k});
  int64_t expect =
      index == 1 && driver >= 2 && m > n && computed != SmallVector<int64_t>{0}
          ? (resultType(1).getShape() == ArrayRef<int64_t>(computed) ? 1 : 2)
          : 0;
  a = broadcastTo(b, loc, a, joined(batch, {m, n}));
  rhs = broadcastTo(b, loc, rhs, joined(batch, {m, k}));
  Value rc = buildFilled(b, loc, RankedTensorType::get({1}, e),
                         rcond ? *rcond : eps * std::max(m, n));
  RuntimeCall r = callRuntime(
      c, "lstsq", e, {a, rhs, rc},
      {RankedTensorType::get(joined(batch, {n, k}), e),
       RankedTensorType::get(joined(batch, {k}), e),
       RankedTensorType::get(batch, b.getI64Type()),
       RankedTensorType::get(joined(batch, {std::min(m, n)}), e),
       RankedTensorType::get(batch, b.getI32Type())},
      {product(batch), m, n, k, driver, expect});
  checkStatus(c, r.status,
              driver == 0 ? "The least squares solution could not be computed "
                            "because the input matrix does not have full rank."
              : expect   ? "The least squares algorithm failed to converge, "
                           "or the ranks differ from the traced run's (torch "
                           "returns the residuals of gelsd and gelss only "
                           "when every matrix has rank n: a shape compiled "
                           "code cannot change)."
                         : "The least squares algorithm failed to converge.");
  if (index >= 2 && ArrayRef<int64_t>(d.batchShape) != ArrayRef<int64_t>(batch)) {
    // The ranks and singular values are A's own (over its batch): the same
    // routine on A alone, with one zero column.
    Value own = c.tensor("A");
    r = callRuntime(
        c, "lstsq", e,
        {own, buildFilled(b, loc, RankedTensorType::get(joined(d.batchShape, {m, 1}), e), 0.0),
         rc},
        {RankedTensorType::get(joined(d.batchShape, {n, 1}), e),
         RankedTensorType::get(joined(d.batchShape, {1}), e),
         RankedTensorType::get(d.batchShape, b.getI64Type()),
         RankedTensorType::get(joined(d.batchShape, {std::min(m, n)}), e),
         RankedTensorType::get(d.batchShape, b.getI32Type())},
        {d.batch, m, n, 1, driver, 0});
  }
  if (index == 0)
    return vector ? buildReshape(b, loc, r.results[0], solution.getShape())
                  : r.results[0];
  RankedTensorType type = resultType(index);
  if (type.getNumElements() == 0 &&
      typeOf(r.results[index]).getNumElements() != 0)
    return buildFilled(b, loc, type, 0.0);
  return buildReshape(b, loc, r.results[index], type.getShape());
}

/// Every result of a factorization call (its tuple's elements in order).
FailureOr<SmallVector<Value>> lowerLapack(LoweringCall &c) {
  SmallVector<RankedTensorType> types = lapackResultTypes(c);
  if (types.empty())
    return c.fail("expected statically shaped results");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  StringRef t = c.target();
  bool linalg = t.starts_with("torch.linalg.");
  if (t.contains("lu_solve") || t == "torch.cholesky_solve" ||
      t == "torch.cholesky_inverse")
    return lowerFactoredSolve(c, types[0]);
  if (t == "torch.linalg.ldl_solve")
    return lowerLdlSolve(c, types[0]);
  if (t == "torch.lu_unpack" || t == "torch.linalg.lu" ||
      t == "torch.functional.lu" || t == "torch.symeig")
    return lowerUnpacked(c, types);
  if (t == "torch.geqrf" || t == "torch.linalg.householder_product" ||
      t == "torch.ormqr")
    return lowerHouseholder(c, types);
  Value a = c.tensor(linalg ? "A" : "input");
  if (t == "torch.triangular_solve")
    a = c.tensor("A");
  if (!a || !typeOf(a).hasStaticShape())
    return c.fail("expected a statically shaped A");
  Type e = typeOf(a).getElementType(), i32 = b.getI32Type();
  MatrixDims d = matrixDims(a);
  if (t == "torch.linalg.matrix_exp")
    return callRuntime(c, "matrix_exp", e, {a}, {types[0]}, {d.batch, d.n})
        .results;
  if (t.starts_with("torch.linalg.ldl_factor"))
    return lowerLdlFactor(c, a, types);
  if (t.contains("cholesky")) {
    bool upper = flag(c, "upper", false);
    RuntimeCall r = callRuntime(c, "cholesky", e, {a},
                                {types[0], RankedTensorType::get(d.batchShape, i32)},
                                {d.batch, d.n, upper});
    if (checksErrors(c))
      checkStatus(c, r.status,
                  "The factorization could not be completed because the "
                  "input is not positive-definite.");
    if (types.size() == 1)
      r.results.pop_back();
    return r.results;
  }
  if (t.contains("lu_factor")) {
    RuntimeCall r = luFactorCall(c, a, e);
    if (checksErrors(c))
      checkStatus(c, r.status,
                  "U is singular: a zero pivot would divide by zero in "
                  "lu_solve.");
    if (types.size() == 2)
      r.results.pop_back();
    return r.results;
  }
  if (t.contains("solve_ex") || t == "torch.linalg.solve" ||
      t == "torch.linalg.inv_ex")
    return lowerSolve(c, types);
  if (t.contains("qr")) {
    int64_t mode = types[0].getRank() == 1        ? 2
                   : types[0].getShape().back() == d.m && d.m > d.n ? 1
                                                                    : 0;
    RuntimeCall r = callRuntime(c, "qr", e, {a}, {types[0], types[1]},
                                {d.batch, d.m, d.n, mode});
    return r.results;
  }
  if (t.contains("svd")) {
    int64_t k = std::min(d.m, d.n);
    bool vals = t == "torch.linalg.svdvals";
    bool uv = !vals && (linalg || flag(c, "compute_uv", true));
    bool full = linalg ? flag(c, "full_matrices", true)
                       : !flag(c, "some", true);
    RankedTensorType u = RankedTensorType::get(
                         joined(d.batchShape, {d.m, full ? d.m : k}), e),
                     s = RankedTensorType::get(joined(d.batchShape, {k}), e),
                     vh = RankedTensorType::get(
                         joined(d.batchShape, {full ? d.n : k, d.n}), e);
    if (!uv) {
      u = RankedTensorType::get({0}, e);
      vh = u;
    }
    RuntimeCall r = callRuntime(
        c, "svd", e, {a}, {u, s, vh, RankedTensorType::get(d.batchShape, i32)},
        {d.batch, d.m, d.n, full, uv});
    checkStatus(c, r.status,
                "The algorithm failed to converge because the input matrix "
                "is ill-conditioned or has too many repeated singular values.");
    if (vals)
      return SmallVector<Value>{r.results[1]};
    if (linalg)
      return SmallVector<Value>{r.results[0], r.results[1], r.results[2]};
    if (!uv)
      return SmallVector<Value>{buildFilled(b, loc, types[0], 0.0),
                                r.results[1],
                                buildFilled(b, loc, types[2], 0.0)};
    return SmallVector<Value>{r.results[0], r.results[1],
                              transposeMatrices(b, loc, r.results[2])};
  }
  if (t.contains("eigh") || t.contains("eigvalsh")) {
    auto uplo = dyn_cast_or_null<StringAttr>(c.value("UPLO"));
    if (!uplo)
      return c.fail("expected a constant UPLO");
    bool vectors = t == "torch.linalg.eigh";
    RankedTensorType w = RankedTensorType::get(joined(d.batchShape, {d.n}), e);
    RuntimeCall r = callRuntime(
        c, "eigh", e, {a},
        {w, vectors ? typeOf(a) : RankedTensorType::get({0}, e),
         RankedTensorType::get(d.batchShape, i32)},
        {d.batch, d.n, uplo.getValue() == "U", vectors});
    checkStatus(c, r.status,
                "The algorithm failed to converge because the input matrix "
                "is ill-conditioned or has too many repeated eigenvalues.");
    if (!vectors)
      return SmallVector<Value>{r.results[0]};
    return SmallVector<Value>{r.results[0], r.results[1]};
  }
  if (t.contains("solve_triangular") || t == "torch.triangular_solve") {
    Value rhs = c.tensor(linalg ? "B" : "input");
    if (!rhs || !typeOf(rhs).hasStaticShape())
      return c.fail("expected a statically shaped B");
    ArrayRef<int64_t> xShape = types[0].getShape();
    SmallVector<int64_t> batch(xShape.drop_back(2));
    // (B broadcast and converted to A's dtype, as solve_triangular does.)
    rhs = buildElementwise(
        b, loc, RankedTensorType::get(xShape, e), ValueRange{rhs},
        [](OpBuilder &, Location, ValueRange v) { return v[0]; },
        c.logicalElementTypes(ValueRange{rhs}));
    a = broadcastTo(b, loc, a, joined(batch, {d.n, d.n}));
    bool left = flag(c, "left", true);
    bool upper = flag(c, "upper", true);
    bool transpose = !linalg && flag(c, "transpose", false);
    bool unit = flag(c, "unitriangular", false);
    RuntimeCall r = callRuntime(c, "triangular_solve", e, {a, rhs}, {types[0]},
                                {product(batch), xShape[xShape.size() - 2],
                                 xShape.back(), left, upper, transpose, unit});
    if (linalg)
      return r.results;
    return SmallVector<Value>{r.results[0], a};
  }
  return c.fail("no LAPACK lowering");
}
} // namespace

bool lowering::isLapackTarget(StringRef target) {
  return llvm::is_contained(
      {"torch.linalg.cholesky", "torch.linalg.cholesky_ex", "torch.cholesky",
       "torch.linalg.lu_factor", "torch.linalg.lu_factor_ex",
       "torch.linalg.solve", "torch.linalg.solve_ex", "torch.linalg.inv_ex",
       "torch.linalg.qr", "torch.qr", "torch.linalg.svd", "torch.svd",
       "torch.linalg.svdvals", "torch.linalg.eigh", "torch.linalg.eigvalsh",
       "torch.linalg.solve_triangular", "torch.triangular_solve",
       "torch.linalg.lu_solve", "torch.lu_solve", "torch.cholesky_solve",
       "torch.cholesky_inverse", "torch.lu_unpack", "torch.linalg.lu",
       "torch.functional.lu", "torch.symeig", "torch.geqrf",
       "torch.linalg.householder_product", "torch.ormqr",
       "torch.linalg.lstsq", "torch.linalg.ldl_factor",
       "torch.linalg.ldl_factor_ex", "torch.linalg.ldl_solve",
       "torch.linalg.matrix_exp"},
      target);
}

FailureOr<Value> lowering::lowerLapackElement(LoweringCall &c, int64_t index) {
  if (c.target() == "torch.linalg.lstsq")
    return lowerLstsq(c, index < 0 ? index + 4 : index);
  FailureOr<SmallVector<Value>> all = lowerLapack(c);
  if (failed(all))
    return failure();
  if (index < 0)
    index += all->size();
  if (index < 0 || index >= static_cast<int64_t>(all->size()))
    return c.fail("tuple index out of range");
  return (*all)[index];
}

void lowering::populateLinalgLowerings(LoweringTable &t) {
  // Factorizations (docs/linalg-runtime.md): single results here, the
  // elements of tuples where operator.getitem reads them (Shape.cpp).
  for (const char *name :
       {"torch.linalg.cholesky", "torch.cholesky", "torch.linalg.solve",
        "torch.linalg.svdvals", "torch.linalg.eigvalsh",
        "torch.linalg.solve_triangular", "torch.linalg.lu_solve",
        "torch.lu_solve", "torch.cholesky_solve", "torch.cholesky_inverse",
        "torch.linalg.householder_product", "torch.ormqr",
        "torch.linalg.ldl_solve", "torch.linalg.matrix_exp"})
    t[name] = [](LoweringCall &c) -> FailureOr<SmallVector<Value>> {
      FailureOr<Value> v = lowerLapackElement(c, 0);
      if (failed(v))
        return failure();
      return SmallVector<Value>{*v};
    };
  for (const char *name :
       {"torch.linalg.cholesky_ex", "torch.linalg.lu_factor",
        "torch.linalg.lu_factor_ex", "torch.linalg.solve_ex",
        "torch.linalg.inv_ex", "torch.linalg.qr", "torch.qr",
        "torch.linalg.svd", "torch.svd", "torch.linalg.eigh",
        "torch.triangular_solve", "torch.lu_unpack", "torch.linalg.lu",
        "torch.functional.lu", "torch.symeig", "torch.geqrf",
        "torch.linalg.lstsq", "torch.linalg.ldl_factor",
        "torch.linalg.ldl_factor_ex"})
    t[name] = [](LoweringCall &c) -> FailureOr<SmallVector<Value>> {
      return c.fail("only the indexed elements of its result can be compiled");
    };
  populateRecurrent(t);
  t["torch.nn.functional.linear"] = lowerLinear;
  t["torch.matmul"] = lowerMatmul;
  t["torch.mm"] = lowerMatmul;
  t["torch.bmm"] = lowerMatmul;
  // torch.baddbmm is decomposed (bmm, mul, add: Decompose/Linalg.cpp).
  // Lowered where operator.getitem reads its first element.
  t["torch.nn.functional.multi_head_attention_forward"] =
      [](LoweringCall &c) -> FailureOr<SmallVector<Value>> {
    return c.fail("only element 0 of the result can be compiled");
  };
  for (StringRef name : kConvTargets)
    t[name] = lowerConv;
  t["torch.conv_tbc"] = lowerConvTbc;
}
