//===- Matmul.cpp - linear, matmul, bmm and attention ---------------------===//
//
// Contractions become `linalg.matmul` / `linalg.batch_matmul` on 2-D and 3-D
// views of their operands (leading dimensions collapsed), so that the CPU
// pipeline tiles and vectorizes one kind of op. Constant linear weights are
// transposed at compile time.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <limits>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static FailureOr<Value> buildGeneralMatmul(LoweringCall &c, Value a, Value b,
                                           RankedTensorType resultType);

static FailureOr<SmallVector<Value>> lowerLinear(LoweringCall &c) {
  Value x = c.tensor("input"), w = c.tensor("weight");
  Value bias = c.tensor("bias");
  RankedTensorType type = c.resultType();
  if (!x || !w || !type || !staticTensorType(x) || !staticTensorType(w) ||
      typeOf(w).getRank() < 1 || typeOf(w).getRank() > 2)
    return c.fail("expected a statically shaped input and a 1-D or 2-D weight");
  if (!bias && !c.isNone("bias"))
    return c.fail("the bias is not a tensor");
  if (typeOf(w).getRank() == 2 && typeOf(x).getRank() >= 2)
    return SmallVector<Value>{buildLinear(c.rewriter, c.loc, x, w, bias)};
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

static FailureOr<SmallVector<Value>> lowerMatmul(LoweringCall &c) {
  RankedTensorType type = c.resultType();
  Value a = c.tensor("input");
  Value b = c.tensor(c.spec->signature.lookup("other") ? "other" : "mat2");
  if (!type || !a || !b || !staticTensorType(a) || !staticTensorType(b))
    return c.fail("expected statically shaped tensors");
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

FailureOr<Value> lowering::lowerAttentionOutput(LoweringCall &c) {
  for (StringRef unsupported : {"bias_k", "bias_v", "static_k", "static_v"})
    if (!c.isNone(unsupported))
      return c.fail(Twine("'") + unsupported + "' must be None");
  if (c.getBool("add_zero_attn") != false ||
      c.getBool("use_separate_proj_weight") != false)
    return c.fail("add_zero_attn and separate projection weights are not "
                  "supported");
  if (c.getBool("training") != false && c.getFloat("dropout_p") != 0.0)
    return c.fail("only eval mode (training=False) can be compiled");
  Value q = c.tensor("query"), k = c.tensor("key"), v = c.tensor("value");
  Value inW = c.tensor("in_proj_weight"), inB = c.tensor("in_proj_bias");
  Value outW = c.tensor("out_proj_weight"), outB = c.tensor("out_proj_bias");
  std::optional<int64_t> heads = c.getInt("num_heads");
  if (!q || !k || !v || !inW || !outW || !heads || !staticTensorType(q) ||
      !staticTensorType(k) || typeOf(q).getRank() != 3)
    return c.fail("expected (L, N, E) tensors, in_proj_weight and num_heads");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  int64_t l = typeOf(q).getDimSize(0), n = typeOf(q).getDimSize(1),
          e = typeOf(q).getDimSize(2), s = typeOf(k).getDimSize(0);
  int64_t h = *heads, hd = e / h;
  if (hd * h != e)
    return c.fail("embed_dim is not divisible by num_heads");
  // The three projections: rows [i*E, (i+1)*E) of the packed weight.
  auto project = [&](Value x, int64_t i, int64_t len) {
    Value w = buildSlice(b, loc, inW, {i * e, 0}, {e, e}, {1, 1});
    Value bias = inB ? buildSlice(b, loc, inB, {i * e}, {e}, {1}) : Value();
    Value y = buildLinear(b, loc, x, w, bias); // (len, N, E)
    // (len, N*H, hd) -> (N*H, len, hd)
    y = buildReshape(b, loc, y, {len, n * h, hd});
    return buildTranspose(b, loc, y, {1, 0, 2});
  };
  Value qh = project(q, 0, l), kh = project(k, 1, s), vh = project(v, 2, s);
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
  if (attnMask || padMask) {
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
      isBool.push_back(c.logicalElementType(attnMask).isInteger(1));
    }
    if (padMask) {
      auto pt = typeOf(padMask);
      if (!staticTensorType(padMask) ||
          pt.getShape() != ArrayRef<int64_t>{n, s})
        return c.fail("key_padding_mask must be (N, S)");
      inputs.push_back(padMask);
      maps.push_back(AffineMap::get(4, 0, {dn, ds}, ctx));
      isBool.push_back(c.logicalElementType(padMask).isInteger(1));
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
    scores = buildReshape(b, loc, masked, {n * h, l, s});
  }
  Value probs = buildSoftmax(b, loc, scores, -1, /*log=*/false);
  Value ctx = buildBatchMatmul(b, loc, probs, vh);           // (NH, L, hd)
  ctx = buildTranspose(b, loc, ctx, {1, 0, 2});              // (L, NH, hd)
  ctx = buildReshape(b, loc, ctx, {l, n, e});
  return buildLinear(b, loc, ctx, outW, outB);
}

void lowering::populateMatmulLowerings(LoweringTable &t) {
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
}
