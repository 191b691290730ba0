//===- Elementwise.cpp - activations and broadcasting arithmetic ----------===//
//
// Every elementwise target becomes one `linalg.generic` over the result's
// shape, with NumPy broadcasting expressed in the indexing maps and Python
// numbers as constants in the body. Chains of them fuse later
// (`linalg-fuse-elementwise-ops`).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "TracedIR/OpLibrary/Runtime.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

namespace {
/// A tensor operand, or a Python number.
struct Operand {
  Value tensor;
  double scalar = 0;
};
using UnaryFn = Value (*)(OpBuilder &, Location, Value, const LoweringCall &);
/// `uns`: the operands are uint8 (signless i8 with unsigned semantics).
using BinaryFn = Value (*)(OpBuilder &, Location, Value, Value, bool uns);
} // namespace

static FailureOr<Operand> operandOf(const LoweringCall &c, StringRef name) {
  if (Value t = c.tensor(name))
    return Operand{t, 0};
  if (auto b = c.getBool(name))
    return Operand{{}, *b ? 1.0 : 0.0};
  if (auto f = c.getFloat(name))
    return Operand{{}, *f};
  // A Python number known only at run time (a scalar graph input, or one
  // computed from it) is a 0-d tensor operand: the call's result type,
  // which the trace computed with torch's rules for Python numbers, says
  // what it is converted to, as torch converts a wrapped number.
  if (Value v = c.scalar(name)) {
    Location loc = c.loc;
    OpBuilder &b = c.rewriter;
    if (v.getType().isInteger(1)) // bool tensors are stored as i8
      v = arith::ExtUIOp::create(b, loc, b.getI8Type(), v);
    return Operand{
        tensor::FromElementsOp::create(
            b, loc, RankedTensorType::get({}, v.getType()), v),
        0};
  }
  return failure();
}

static bool isFloat(Value v) { return isa<FloatType>(v.getType()); }
static Value cst(OpBuilder &b, Location loc, Value like, double v) {
  return scalarConstant(b, loc, like.getType(), v);
}
static bool isBool(Value v) { return v.getType().isInteger(1); }
static Value add(OpBuilder &b, Location loc, Value x, Value y,
                 bool = false) {
  if (isBool(x)) // True + True is True in PyTorch
    return arith::OrIOp::create(b, loc, x, y);
  return isFloat(x) ? arith::AddFOp::create(b, loc, x, y).getResult()
                    : arith::AddIOp::create(b, loc, x, y).getResult();
}
static Value sub(OpBuilder &b, Location loc, Value x, Value y,
                 bool = false) {
  return isFloat(x) ? arith::SubFOp::create(b, loc, x, y).getResult()
                    : arith::SubIOp::create(b, loc, x, y).getResult();
}
static Value mul(OpBuilder &b, Location loc, Value x, Value y,
                 bool = false) {
  if (isBool(x))
    return arith::AndIOp::create(b, loc, x, y);
  return isFloat(x) ? arith::MulFOp::create(b, loc, x, y).getResult()
                    : arith::MulIOp::create(b, loc, x, y).getResult();
}
static Value div(OpBuilder &b, Location loc, Value x, Value y,
                 bool = false) {
  return arith::DivFOp::create(b, loc, x, y);
}
static Value maxv(OpBuilder &b, Location loc, Value x, Value y,
                  bool uns = false) {
  if (isFloat(x))
    return arith::MaximumFOp::create(b, loc, x, y);
  uns |= isBool(x); // i1 is 0/1, not 0/-1
  return uns ? arith::MaxUIOp::create(b, loc, x, y).getResult()
             : arith::MaxSIOp::create(b, loc, x, y).getResult();
}
static Value minv(OpBuilder &b, Location loc, Value x, Value y,
                  bool uns = false) {
  if (isFloat(x))
    return arith::MinimumFOp::create(b, loc, x, y);
  uns |= isBool(x);
  return uns ? arith::MinUIOp::create(b, loc, x, y).getResult()
             : arith::MinSIOp::create(b, loc, x, y).getResult();
}
/// torch.maximum/minimum (NaN propagates) and fmax/fmin (NaN is skipped)
/// of floats as selects that keep x on a tie, as the interpreter's kernels
/// do: -0.0 against 0.0 gives x's zero. (arith.maximumf orders -0.0 below
/// 0.0, and maxnumf leaves a tie unspecified.)
template <bool Max, bool PropagateNaN>
static Value tieKeepsInput(OpBuilder &b, Location loc, Value x, Value y,
                           bool uns) {
  if (!isFloat(x))
    return Max ? maxv(b, loc, x, y, uns) : minv(b, loc, x, y, uns);
  Value better = arith::CmpFOp::create(
      b, loc, Max ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, y, x);
  Value pick = arith::SelectOp::create(b, loc, better, y, x);
  Value xNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value yNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, y, y);
  pick = arith::SelectOp::create(b, loc, yNaN, PropagateNaN ? y : x, pick);
  return arith::SelectOp::create(b, loc, xNaN, PropagateNaN ? x : y, pick);
}

static Value bitAnd(OpBuilder &b, Location loc, Value x, Value y, bool) {
  return arith::AndIOp::create(b, loc, x, y);
}
static Value bitOr(OpBuilder &b, Location loc, Value x, Value y, bool) {
  return arith::OrIOp::create(b, loc, x, y);
}
static Value bitXor(OpBuilder &b, Location loc, Value x, Value y, bool) {
  return arith::XOrIOp::create(b, loc, x, y);
}
/// Shifts as torch 1.13 computes them on x86 (the interpreter's `shift`):
/// in C++'s promoted type, i32 for narrower integers (extended by their
/// signedness, then truncated back) and i64 for i64, with the amount taken
/// modulo that width. arith's shifts are poison for an amount outside
/// [0, width); the mask keeps it inside.
static Value shiftOp(OpBuilder &b, Location loc, Value x, Value y, bool uns,
                     bool left) {
  Type type = x.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Type wide = width < 32 ? b.getI32Type() : type;
  auto extend = [&](Value v) -> Value {
    if (wide == type)
      return v;
    if (uns)
      return arith::ExtUIOp::create(b, loc, wide, v);
    return arith::ExtSIOp::create(b, loc, wide, v);
  };
  Value wx = extend(x), wy = extend(y);
  unsigned bits = wide.getIntOrFloatBitWidth();
  Value mask = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(wide, static_cast<int64_t>(bits - 1)));
  Value n = arith::AndIOp::create(b, loc, wy, mask);
  Value r;
  if (left)
    r = arith::ShLIOp::create(b, loc, wx, n);
  else if (uns)
    r = arith::ShRUIOp::create(b, loc, wx, n);
  else
    r = arith::ShRSIOp::create(b, loc, wx, n);
  if (wide == type)
    return r;
  return arith::TruncIOp::create(b, loc, type, r);
}
static Value shiftLeft(OpBuilder &b, Location loc, Value x, Value y,
                       bool uns) {
  return shiftOp(b, loc, x, y, uns, /*left=*/true);
}
static Value shiftRight(OpBuilder &b, Location loc, Value x, Value y,
                        bool uns) {
  return shiftOp(b, loc, x, y, uns, /*left=*/false);
}
/// trunc(x) as ceil for negative x, floor otherwise: convert-gpu-to-nvvm
/// has no lowering of math.trunc.
static Value truncOf(OpBuilder &b, Location loc, Value x) {
  Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                         cst(b, loc, x, 0.0));
  return arith::SelectOp::create(b, loc, negative,
                                 math::CeilOp::create(b, loc, x),
                                 math::FloorOp::create(b, loc, x));
}

static Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = cst(b, loc, x, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return div(b, loc, one, add(b, loc, one, e));
}
static Value hardsigmoid(OpBuilder &b, Location loc, Value x) {
  Value t = add(b, loc, x, cst(b, loc, x, 3.0));
  t = minv(b, loc, maxv(b, loc, t, cst(b, loc, x, 0.0)), cst(b, loc, x, 6.0));
  return div(b, loc, t, cst(b, loc, x, 6.0));
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

/// The name of a tensor type's element type, for diagnostics.
static std::string elementName(RankedTensorType type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << type.getElementType();
  return name;
}

static RankedTensorType resultTypeOrNumber(LoweringCall &c, Type &number);
static Value numberOrTensor(LoweringCall &c, Value r, Type number);

static FailureOr<SmallVector<Value>>
lowerUnary(LoweringCall &c, UnaryFn fn, bool floatOnly = true) {
  // (A Python number known only at run time, `-n` of a traced size, is
  // computed as a 0-d tensor, as lowerBinary computes `n + 1`.)
  Type number;
  RankedTensorType type = resultTypeOrNumber(c, number);
  if (!type)
    return c.fail("the result is not a ranked tensor");
  if (floatOnly && !isa<FloatType>(type.getElementType()))
    return c.fail("element type " + elementName(type) +
                  " is not supported (only floating-point tensors)");
  if (number && !number.isInteger(1) && !c.tensor("input"))
    if (Value xs = c.scalar("input")) // (`-n` of a traced size)
      return SmallVector<Value>{
          fn(c.rewriter, c.loc, castScalar(c.rewriter, c.loc, xs, number), c)};
  FailureOr<Operand> x = operandOf(c, "input");
  if (failed(x) || !x->tensor)
    return c.fail("the input is not a tensor");
  Value r = buildElementwise(
      c.rewriter, c.loc, type, x->tensor,
      [&](OpBuilder &b, Location loc, ValueRange a) {
        return fn(b, loc, a[0], c);
      },
      c.logicalElementTypes(x->tensor));
  return SmallVector<Value>{numberOrTensor(c, r, number)};
}

/// Whether the call computes on uint8.
static bool isUnsignedCall(const LoweringCall &c) {
  RankedTensorType type = c.logicalResultType(0, /*dynamic=*/true);
  return type && isUnsignedElement(type.getElementType());
}

#define UNARY(NAME, BODY)                                                      \
  static Value NAME(OpBuilder &b, Location loc, Value x,                       \
                    const LoweringCall &c) {                                   \
    (void)c;                                                                   \
    BODY                                                                       \
  }

// relu, relu6 and hardtanh also take integer tensors (uint8 compares
// unsigned); bounds convert to the element type as torch converts them.
UNARY(reluBody, return maxv(b, loc, x, cst(b, loc, x, 0.0),
                            isUnsignedCall(c));)
UNARY(relu6Body, {
  bool uns = isUnsignedCall(c);
  return minv(b, loc, maxv(b, loc, x, cst(b, loc, x, 0.0), uns),
              cst(b, loc, x, 6.0), uns);
})
UNARY(hardtanhBody, {
  bool uns = isUnsignedCall(c);
  return minv(b, loc,
              maxv(b, loc, x, cst(b, loc, x, *c.getFloat("min_val")), uns),
              cst(b, loc, x, *c.getFloat("max_val")), uns);
})
static Value geluBody(OpBuilder &b, Location loc, Value x,
                      const LoweringCall &c) {
  Value half = cst(b, loc, x, 0.5);
  Value one = cst(b, loc, x, 1.0);
  Attribute approximate = c.value("approximate");
  if (approximate && cast<StringAttr>(approximate).getValue() == "tanh") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Value x3 = mul(b, loc, mul(b, loc, x, x), x);
    Value inner = add(b, loc, x, mul(b, loc, cst(b, loc, x, 0.044715), x3));
    inner = mul(b, loc, cst(b, loc, x, 0.7978845608028654), inner);
    Value t = math::TanhOp::create(b, loc, inner);
    return mul(b, loc, mul(b, loc, half, x), add(b, loc, one, t));
  }
  Value e = math::ErfOp::create(
      b, loc, mul(b, loc, x, cst(b, loc, x, 0.7071067811865476)));
  return mul(b, loc, mul(b, loc, half, x), add(b, loc, one, e));
}
UNARY(siluBody, return mul(b, loc, x, sigmoid(b, loc, x));)
UNARY(hardswishBody, return mul(b, loc, x, hardsigmoid(b, loc, x));)
UNARY(hardsigmoidBody, return hardsigmoid(b, loc, x);)
UNARY(leakyReluBody, {
  Value zero = cst(b, loc, x, 0.0);
  Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
  Value scaled = mul(b, loc, x, cst(b, loc, x, *c.getFloat("negative_slope")));
  return arith::SelectOp::create(b, loc, pos, x, scaled);
})
UNARY(sigmoidBody, return sigmoid(b, loc, x);)
UNARY(tanhBody, return math::TanhOp::create(b, loc, x);)
UNARY(expBody, return math::ExpOp::create(b, loc, x);)
UNARY(logBody, return math::LogOp::create(b, loc, x);)
UNARY(sqrtBody, return math::SqrtOp::create(b, loc, x);)
UNARY(rsqrtBody, return buildRsqrt(b, loc, x);)
/// torch.erf: past |x| = 2 as 1 - erfc(|x|) with x's sign. The CPU
/// pipeline's polynomial erf (kept for GELU's speed) is accurate to about
/// 1e-7 absolute, which near 1 is a few ulps: erf(3.75) came out 1 where
/// torch's is 1 - 2^-23, and acosh of it 0 instead of NaN (a fuzz-diff
/// finding). erfc is accurate relative to its own small value there. A
/// zero gives itself (erf(-0.0) is -0.0; the polynomial gave +0.0).
UNARY(erfBody, {
  Value ax = math::AbsFOp::create(b, loc, x);
  Value tail = sub(b, loc, cst(b, loc, x, 1.0), math::ErfcOp::create(b, loc, ax));
  Value far = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, ax,
                                    cst(b, loc, x, 2.0));
  Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                         cst(b, loc, x, 0.0));
  Value signedTail = arith::SelectOp::create(
      b, loc, negative, arith::NegFOp::create(b, loc, tail), tail);
  Value erf = arith::SelectOp::create(b, loc, far, signedTail,
                                      math::ErfOp::create(b, loc, x));
  Value zero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x,
                                     cst(b, loc, x, 0.0));
  return arith::SelectOp::create(b, loc, zero, x, erf);
})
UNARY(absBody, {
  if (isFloat(x))
    return math::AbsFOp::create(b, loc, x);
  if (isUnsignedCall(c))
    return x;
  // (math.absi has no lowering on the CPU path; abs(min) wraps to min.)
  Value zero = cst(b, loc, x, 0.0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  return arith::SelectOp::create(b, loc, negative, sub(b, loc, zero, x), x);
})
UNARY(negBody, {
  if (isFloat(x))
    return arith::NegFOp::create(b, loc, x);
  return sub(b, loc, cst(b, loc, x, 0.0), x);
})
UNARY(clampBody, {
  Value r = x;
  bool uns = isUnsignedCall(c);
  if (auto lo = c.getFloat("min"))
    r = maxv(b, loc, r, cst(b, loc, x, *lo), uns);
  if (auto hi = c.getFloat("max"))
    r = minv(b, loc, r, cst(b, loc, x, *hi), uns);
  return r;
})
#undef UNARY

/// clamp with a tensor bound: min(max(x, lo), hi) over the broadcast
/// operands, converted to the result's (promoted) type; NaN propagates.
static FailureOr<SmallVector<Value>> lowerClampTensors(LoweringCall &c) {
  RankedTensorType type = c.logicalResultType(0, /*dynamic=*/true);
  if (!type)
    return c.fail("the result is not a ranked tensor");
  // (Bools too: maxv and minv compare i1 unsigned, as torch's clamp of
  // bools with tensor bounds.)
  FailureOr<Operand> x = operandOf(c, "input");
  if (failed(x) || !x->tensor)
    return c.fail("the input is not a tensor");
  std::optional<Operand> bounds[2];
  const char *names[2] = {"min", "max"};
  SmallVector<Value> inputs{x->tensor};
  for (int i = 0; i < 2; ++i) {
    if (c.isNone(names[i]))
      continue;
    FailureOr<Operand> o = operandOf(c, names[i]);
    if (failed(o))
      return c.fail(Twine("'") + names[i] + "' is neither a tensor nor a number");
    bounds[i] = *o;
    if (o->tensor)
      inputs.push_back(o->tensor);
  }
  bool uns = isUnsignedElement(type.getElementType());
  Value r = buildElementwise(
      c.rewriter, c.loc, type, inputs,
      [&](OpBuilder &b, Location loc, ValueRange a) {
        Type et = computeType(type.getElementType());
        unsigned next = 1;
        Value v = a[0];
        for (int i = 0; i < 2; ++i) {
          if (!bounds[i])
            continue;
          Value bound = bounds[i]->tensor
                            ? a[next++]
                            : scalarConstant(b, loc, et, bounds[i]->scalar);
          v = i == 0 ? maxv(b, loc, v, bound, uns) : minv(b, loc, v, bound, uns);
        }
        return v;
      },
      c.logicalElementTypes(inputs));
  return SmallVector<Value>{r};
}

static FailureOr<SmallVector<Value>> lowerClamp(LoweringCall &c) {
  if (c.tensor("min") || c.tensor("max"))
    return lowerClampTensors(c);
  RankedTensorType type = c.logicalResultType(0, /*dynamic=*/true);
  for (StringRef bound : {"min", "max"}) {
    if (!c.isNone(bound) && !c.getFloat(bound))
      return c.fail(Twine("'") + bound + "' must be a number");
    if (type && !isa<FloatType>(type.getElementType()) && c.getFloat(bound) &&
        *c.getFloat(bound) != std::floor(*c.getFloat(bound)))
      return c.fail(Twine("a fractional '") + bound +
                    "' on an integer tensor is not supported");
  }
  if (type && type.getElementType().isInteger(1))
    return c.fail("element type i1 is not supported");
  return lowerUnary(c, clampBody, /*floatOnly=*/false);
}

FailureOr<SmallVector<Value>>
lowering::lowerIdentityUnlessTraining(LoweringCall &c) {
  StringRef flag = c.spec->signature.lookup("train") ? "train" : "training";
  if (c.spec->signature.lookup(flag)) {
    std::optional<bool> training = c.getBool(flag);
    if (!training || *training)
      return c.fail("only eval mode (training=False) can be compiled");
  }
  Value x = c.tensor("input");
  if (!x)
    return c.fail("the input is not a tensor");
  return SmallVector<Value>{x};
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

/// The call's result type; for a Python number known only at run time
/// (`scale * 2`, `n == 3` of a scalar graph input), the 0-d tensor it is
/// computed as, with torch's kernels (Python's and torch's `//`, `%`, `/`
/// and comparisons agree on numbers), and `number` is set to its type.
static RankedTensorType resultTypeOrNumber(LoweringCall &c, Type &number) {
  RankedTensorType type = c.logicalResultType(0, /*dynamic=*/true);
  if (type || c.op->getNumResults() != 1)
    return type;
  Type t = c.op->getResult(0).getType();
  if (!t.isInteger(64) && !t.isInteger(1) && !t.isF64())
    return {};
  number = t;
  return RankedTensorType::get({}, t);
}

/// The result `r` as the call returns it: the number a 0-d tensor holds
/// when `number` is set (bool is stored as i8).
static Value numberOrTensor(LoweringCall &c, Value r, Type number) {
  if (!number)
    return r;
  r = tensor::ExtractOp::create(c.rewriter, c.loc, r, ValueRange{});
  if (r.getType() != number)
    r = arith::CmpIOp::create(
        c.rewriter, c.loc, arith::CmpIPredicate::ne, r,
        arith::ConstantIntOp::create(c.rewriter, c.loc, r.getType(), 0));
  return r;
}

static Type promotedType(const LoweringCall &c, ArrayRef<StringRef> names);

/// `fn(lhs, rhs)` with both operands broadcast; `alpha` scales `rhs`.
static FailureOr<SmallVector<Value>> lowerBinary(LoweringCall &c,
                                                 StringRef lhsName,
                                                 StringRef rhsName, BinaryFn fn,
                                                 bool swap = false,
                                                 bool floatOnly = false) {
  Type number;
  RankedTensorType type = resultTypeOrNumber(c, number);
  if (!type)
    return c.fail("the result is not a ranked tensor");
  if (floatOnly && !isa<FloatType>(type.getElementType()))
    return c.fail("element type " + elementName(type) +
                  " is not supported (only floating-point results)");
  // bool arithmetic other than add (or) and mul (and) is an error in torch.
  if (type.getElementType().isInteger(1) && fn != add && fn != mul &&
      fn != bitAnd && fn != bitOr && fn != bitXor && fn != maxv &&
      fn != minv && fn != tieKeepsInput<true, true> &&
      fn != tieKeepsInput<false, true> && fn != tieKeepsInput<true, false> &&
      fn != tieKeepsInput<false, false>)
    return c.fail("element type i1 is not supported");
  std::optional<double> alpha;
  if (c.spec->signature.lookup("alpha")) {
    alpha = c.getFloat("alpha");
    if (!alpha)
      return c.fail("'alpha' must be a number");
  }
  // Python ints and floats known only at run time (`P + T` of traced
  // sizes): plain scalar arithmetic, which the output-size functions of
  // compiled code can follow (a 0-d tensor in between they could not).
  if (number && !number.isInteger(1) && !c.tensor(lhsName) &&
      !c.tensor(rhsName)) {
    Value xs = c.scalar(lhsName), ys = c.scalar(rhsName);
    if (xs && ys) {
      OpBuilder &b = c.rewriter;
      Value xv = castScalar(b, c.loc, xs, number);
      Value yv = castScalar(b, c.loc, ys, number);
      if (alpha && *alpha != 1.0)
        yv = mul(b, c.loc, yv, scalarConstant(b, c.loc, number, *alpha));
      return SmallVector<Value>{swap ? fn(b, c.loc, yv, xv, false)
                                     : fn(b, c.loc, xv, yv, false)};
    }
  }
  FailureOr<Operand> x = operandOf(c, lhsName), y = operandOf(c, rhsName);
  if (failed(x) || failed(y))
    return c.fail("an operand is neither a tensor nor a number");
  SmallVector<Value> inputs;
  for (const Operand &o : {*x, *y})
    if (o.tensor)
      inputs.push_back(o.tensor);
  bool uns = isUnsignedElement(type.getElementType());
  // An in-place op keeps its input's dtype, but torch computes it in the
  // operands' promoted dtype and rounds once: `x += y` of a float32 x and a
  // float64 y adds in float64. (Only for floats: elsewhere the promoted type
  // is the result's, or the result is a float of integers, `7 / 2`.)
  Type operandType;
  if (Type promoted = promotedType(c, {lhsName, rhsName});
      promoted && isa<FloatType>(promoted) &&
      isa<FloatType>(type.getElementType()) &&
      promoted.getIntOrFloatBitWidth() >
          type.getElementType().getIntOrFloatBitWidth())
    operandType = promoted;
  Value r = buildElementwise(
      c.rewriter, c.loc, type, inputs,
      [&](OpBuilder &b, Location loc, ValueRange a) {
        unsigned next = 0;
        Type et = computeType(operandType ? operandType : type.getElementType());
        Value xv = x->tensor ? a[next++] : scalarConstant(b, loc, et, x->scalar);
        Value yv = y->tensor ? a[next++] : scalarConstant(b, loc, et, y->scalar);
        if (alpha && *alpha != 1.0)
          yv = mul(b, loc, yv, scalarConstant(b, loc, et, *alpha));
        return swap ? fn(b, loc, yv, xv, uns) : fn(b, loc, xv, yv, uns);
      },
      c.logicalElementTypes(inputs), operandType);
  return SmallVector<Value>{numberOrTensor(c, r, number)};
}

/// Integer division rounding toward zero (`floor`: toward negative
/// infinity). The hardware traps where torch raises or overflows, so the
/// generated code never divides by 0 or -1: x / -1 is -x (wrapping, as
/// torch's int8 -128 // -1 gives -128), and x / 0, where torch raises
/// ZeroDivisionError, gives 0 (docs/cpu.md).
static Value intDiv(OpBuilder &b, Location loc, Value x, Value y, bool uns,
                    bool floor) {
  Type t = x.getType();
  Value zero = scalarConstant(b, loc, t, 0), one = scalarConstant(b, loc, t, 1);
  Value isZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  if (uns) {
    Value safe = arith::SelectOp::create(b, loc, isZero, one, y);
    Value q = arith::DivUIOp::create(b, loc, x, safe);
    return arith::SelectOp::create(b, loc, isZero, zero, q);
  }
  Value minusOne = scalarConstant(b, loc, t, -1);
  Value isMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, minusOne);
  Value special = arith::OrIOp::create(b, loc, isZero, isMinusOne);
  Value safe = arith::SelectOp::create(b, loc, special, one, y);
  Value q = arith::DivSIOp::create(b, loc, x, safe);
  if (floor) {
    // One less where the remainder is nonzero and its sign differs from
    // the divisor's.
    Value r = arith::RemSIOp::create(b, loc, x, safe);
    Value rNonzero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
    Value rNeg =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
    Value yNeg =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, safe, zero);
    Value signsDiffer = arith::XOrIOp::create(b, loc, rNeg, yNeg);
    Value adjust = arith::AndIOp::create(b, loc, rNonzero, signsDiffer);
    q = arith::SelectOp::create(b, loc, adjust,
                                arith::SubIOp::create(b, loc, q, one), q);
  }
  Value negated = arith::SubIOp::create(b, loc, zero, x);
  q = arith::SelectOp::create(b, loc, isMinusOne, negated, q);
  return arith::SelectOp::create(b, loc, isZero, zero, q);
}

/// torch's div_floor_floating: the quotient of the exact remainder,
/// rounded, so that floor(7.0 / 0.1) style cases and infinities agree.
static Value floatFloorDiv(OpBuilder &b, Location loc, Value x, Value y) {
  using P = arith::CmpFPredicate;
  Value zero = cst(b, loc, x, 0.0), one = cst(b, loc, x, 1.0),
        half = cst(b, loc, x, 0.5);
  Value mod = arith::RemFOp::create(b, loc, x, y);
  Value q = div(b, loc, arith::SubFOp::create(b, loc, x, mod), y);
  Value modNonzero = arith::CmpFOp::create(b, loc, P::ONE, mod, zero);
  Value yNeg = arith::CmpFOp::create(b, loc, P::OLT, y, zero);
  Value modNeg = arith::CmpFOp::create(b, loc, P::OLT, mod, zero);
  Value adjust = arith::AndIOp::create(
      b, loc, modNonzero, arith::XOrIOp::create(b, loc, yNeg, modNeg));
  q = arith::SelectOp::create(b, loc, adjust,
                              arith::SubFOp::create(b, loc, q, one), q);
  Value floored = math::FloorOp::create(b, loc, q);
  Value up = arith::CmpFOp::create(
      b, loc, P::OGT, arith::SubFOp::create(b, loc, q, floored), half);
  floored = arith::SelectOp::create(
      b, loc, up, arith::AddFOp::create(b, loc, floored, one), floored);
  // A zero quotient keeps the sign of x / y (0 * (x / y): |x / y| < 1
  // there, so the product is a signed zero); a zero divisor gives x / y.
  Value quotient = div(b, loc, x, y);
  Value qZero = arith::CmpFOp::create(b, loc, P::OEQ, q, zero);
  floored = arith::SelectOp::create(
      b, loc, qZero, arith::MulFOp::create(b, loc, zero, quotient), floored);
  Value yZero = arith::CmpFOp::create(b, loc, P::OEQ, y, zero);
  return arith::SelectOp::create(b, loc, yZero, quotient, floored);
}

static Value floorDiv(OpBuilder &b, Location loc, Value x, Value y,
                      bool uns) {
  if (!isFloat(x))
    return intDiv(b, loc, x, y, uns, /*floor=*/true);
  return floatFloorDiv(b, loc, x, y);
}
static Value truncDiv(OpBuilder &b, Location loc, Value x, Value y,
                      bool uns) {
  if (!isFloat(x))
    return intDiv(b, loc, x, y, uns, /*floor=*/false);
  return truncOf(b, loc, div(b, loc, x, y));
}

static FailureOr<SmallVector<Value>> lowerDiv(LoweringCall &c) {
  Attribute mode = c.value("rounding_mode");
  if (!mode || isa<NoneAttr>(mode))
    return lowerBinary(c, "input", "other", div, false, /*floatOnly=*/true);
  StringRef m = cast<StringAttr>(mode).getValue();
  if (m == "floor")
    return lowerBinary(c, "input", "other", floorDiv);
  if (m == "trunc")
    return lowerBinary(c, "input", "other", truncDiv);
  return c.fail("unknown rounding_mode '" + m + "'");
}

// Float-only math (integer inputs arrive converted to the float result
// type) and activations, as formulas over math and arith ops; libm-backed
// math ops go through convert-math-to-libm.
#define UNARY(NAME, BODY)                                                      \
  static Value NAME(OpBuilder &b, Location loc, Value x,                       \
                    const LoweringCall &c) {                                   \
    (void)c;                                                                   \
    BODY                                                                       \
  }
UNARY(reciprocalBody, return div(b, loc, cst(b, loc, x, 1.0), x);)
UNARY(exp2Body, return math::Exp2Op::create(b, loc, x);)
UNARY(expm1Body, return math::ExpM1Op::create(b, loc, x);)
UNARY(log2Body, return math::Log2Op::create(b, loc, x);)
UNARY(log10Body, return math::Log10Op::create(b, loc, x);)
UNARY(log1pBody, return math::Log1pOp::create(b, loc, x);)
UNARY(erfcBody, return math::ErfcOp::create(b, loc, x);)
UNARY(sinBody, return math::SinOp::create(b, loc, x);)
UNARY(cosBody, return math::CosOp::create(b, loc, x);)
UNARY(tanBody, return math::TanOp::create(b, loc, x);)
UNARY(asinBody, return math::AsinOp::create(b, loc, x);)
UNARY(acosBody, return math::AcosOp::create(b, loc, x);)
UNARY(atanBody, return math::AtanOp::create(b, loc, x);)
UNARY(sinhBody, return math::SinhOp::create(b, loc, x);)
UNARY(coshBody, return math::CoshOp::create(b, loc, x);)
UNARY(asinhBody, return math::AsinhOp::create(b, loc, x);)
UNARY(acoshBody, return math::AcoshOp::create(b, loc, x);)
UNARY(atanhBody, return math::AtanhOp::create(b, loc, x);)
UNARY(fracBody, return arith::SubFOp::create(b, loc, x, truncOf(b, loc, x));)
/// softplus(x) = log1p(exp(x * beta)) / beta, x where x * beta > threshold.
UNARY(softplusBody, {
  Value beta = cst(b, loc, x, *c.getFloat("beta"));
  Value scaled = mul(b, loc, x, beta);
  Value soft = div(b, loc,
                   math::Log1pOp::create(b, loc,
                                         math::ExpOp::create(b, loc, scaled)),
                   beta);
  Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, scaled,
                                    cst(b, loc, x, *c.getFloat("threshold")));
  return arith::SelectOp::create(b, loc, big, x, soft);
})
UNARY(softsignBody, return div(b, loc, x,
                               add(b, loc, cst(b, loc, x, 1.0),
                                   math::AbsFOp::create(b, loc, x)));)
/// softsign of an integer input (the interpreter's `softsign`): |x| + 1
/// wraps in the input's width, then x / that in the float result type.
static FailureOr<SmallVector<Value>> lowerSoftsign(LoweringCall &c) {
  RankedTensorType type = c.logicalResultType(0, /*dynamic=*/true);
  FailureOr<Operand> x = operandOf(c, "input");
  if (!type || failed(x) || !x->tensor)
    return c.fail("expected a statically shaped input tensor");
  SmallVector<Type> inputTypes = c.logicalElementTypes(x->tensor);
  Type in = inputTypes.empty()
                ? cast<RankedTensorType>(x->tensor.getType()).getElementType()
                : inputTypes[0];
  if (!isa<IntegerType>(in) || in.isInteger(1))
    return lowerUnary(c, softsignBody);
  bool uns = isUnsignedElement(in);
  Type f = computeType(type.getElementType());
  Value r = buildElementwise(
      c.rewriter, c.loc, type, x->tensor,
      [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
        Value v = a[0];
        Value magnitude = v;
        if (!uns) {
          Value zero = arith::ConstantOp::create(
              b, loc, b.getIntegerAttr(v.getType(), 0));
          Value negative = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::slt, v, zero);
          magnitude = arith::SelectOp::create(
              b, loc, negative, arith::SubIOp::create(b, loc, zero, v), v);
        }
        Value den = arith::AddIOp::create(
            b, loc, magnitude,
            arith::ConstantOp::create(b, loc,
                                      b.getIntegerAttr(v.getType(), 1)));
        return arith::DivFOp::create(b, loc, castScalar(b, loc, v, f, uns),
                                     castScalar(b, loc, den, f, uns));
      },
      inputTypes, in);
  return SmallVector<Value>{r};
}
UNARY(tanhshrinkBody,
      return sub(b, loc, x, math::TanhOp::create(b, loc, x));)
/// elu/selu/celu: scale * (x > 0 ? x : alpha * expm1(x / divisor)), or
/// expm1(x * inputScale) (aten::elu's input_scale), NaN passing through
/// (the comparison is unordered-false).
static Value eluLike(OpBuilder &b, Location loc, Value x, double alpha,
                     double scale, double divisor, double inputScale = 1.0) {
  Value arg = divisor != 1.0      ? div(b, loc, x, cst(b, loc, x, divisor))
              : inputScale != 1.0 ? mul(b, loc, x, cst(b, loc, x, inputScale))
                                  : x;
  Value neg = mul(b, loc, cst(b, loc, x, alpha),
                  math::ExpM1Op::create(b, loc, arg));
  Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGT, x,
                                    cst(b, loc, x, 0.0));
  Value r = arith::SelectOp::create(b, loc, pos, x, neg);
  return scale == 1.0 ? r : mul(b, loc, r, cst(b, loc, x, scale));
}
/// elu: x > 0 ? scale x : scale alpha expm1(input_scale x) (aten::elu's
/// scale and input_scale are 1 from F.elu).
UNARY(eluBody, {
  double alpha = *c.getFloat("alpha");
  double scale = *c.getFloat("scale");
  double inputScale = *c.getFloat("input_scale");
  return eluLike(b, loc, x, alpha, scale, 1.0, inputScale);
})
UNARY(seluBody, return eluLike(b, loc, x, 1.6732632423543772848170429916717,
                               1.0507009873554804934193349852946, 1.0);)
UNARY(celuBody, {
  double alpha = *c.getFloat("alpha");
  return eluLike(b, loc, x, alpha, 1.0, alpha);
})
UNARY(mishBody, {
  Value sp = math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x));
  Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                    cst(b, loc, x, 20.0));
  sp = arith::SelectOp::create(b, loc, big, x, sp);
  return mul(b, loc, x, math::TanhOp::create(b, loc, sp));
})
/// hardshrink: 0 inside [-lambd, lambd]; softshrink shrinks toward 0.
/// threshold(x) = value where x <= threshold, else x (any numeric dtype).
UNARY(thresholdBody, {
  Value t = cst(b, loc, x, *c.getFloat("threshold"));
  Value le = isFloat(x) ? arith::CmpFOp::create(b, loc,
                                                arith::CmpFPredicate::OLE, x, t)
                              .getResult()
                        : arith::CmpIOp::create(b, loc,
                                                isUnsignedCall(c)
                                                    ? arith::CmpIPredicate::ule
                                                    : arith::CmpIPredicate::sle,
                                                x, t)
                              .getResult();
  return arith::SelectOp::create(b, loc, le, cst(b, loc, x, *c.getFloat("value")),
                                 x);
})
/// ~x on integers, `not` on bools.
UNARY(bitwiseNotBody, {
  if (isBool(x))
    return arith::XOrIOp::create(b, loc, x, cst(b, loc, x, 1.0));
  return arith::XOrIOp::create(b, loc, x, cst(b, loc, x, -1.0));
})
UNARY(hardshrinkBody, {
  Value l = cst(b, loc, x, *c.getFloat("lambd"));
  Value inside = arith::AndIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                            arith::NegFOp::create(b, loc, l)),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x, l));
  return arith::SelectOp::create(b, loc, inside, cst(b, loc, x, 0.0), x);
})
UNARY(softshrinkBody, {
  Value l = cst(b, loc, x, *c.getFloat("lambd"));
  Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, l);
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                      arith::NegFOp::create(b, loc, l));
  Value r = arith::SelectOp::create(b, loc, below, add(b, loc, x, l),
                                    cst(b, loc, x, 0.0));
  // (NaN compares false both ways and becomes 0, as in torch.)
  return arith::SelectOp::create(b, loc, above, sub(b, loc, x, l), r);
})
UNARY(rreluBody, {
  double k = (*c.getFloat("lower") + *c.getFloat("upper")) / 2;
  Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                                    cst(b, loc, x, 0.0));
  return arith::SelectOp::create(b, loc, pos, x,
                                 mul(b, loc, x, cst(b, loc, x, k)));
})
/// logsigmoid(x) = min(x, 0) - log1p(exp(-|x|)).
UNARY(logsigmoidBody, {
  Value m = arith::MinimumFOp::create(b, loc, x, cst(b, loc, x, 0.0));
  Value e = math::ExpOp::create(
      b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
  return sub(b, loc, m, math::Log1pOp::create(b, loc, e));
})

#undef UNARY

/// lowerUnary after checking that the parameters `names` are numbers.
static FailureOr<SmallVector<Value>>
lowerUnaryWithNumbers(LoweringCall &c, std::initializer_list<StringRef> names,
                      UnaryFn body) {
  for (StringRef n : names)
    if (!c.getFloat(n))
      return c.fail(("'" + n + "' must be a number").str());
  return lowerUnary(c, body);
}

static Value atan2Fn(OpBuilder &b, Location loc, Value x, Value y, bool) {
  return math::Atan2Op::create(b, loc, x, y);
}

/// |x| with the sign bit of y, on the bits (the CPU pipeline has no
/// lowering for math.copysign; this is what it would become).
static Value copysignFn(OpBuilder &b, Location loc, Value x, Value y, bool) {
  unsigned width = x.getType().getIntOrFloatBitWidth();
  Type bits = b.getIntegerType(width);
  Value xb = arith::BitcastOp::create(b, loc, bits, x);
  Value yb = arith::BitcastOp::create(b, loc, bits, y);
  APInt signMask = APInt::getSignMask(width);
  Value sign = arith::ConstantOp::create(b, loc, b.getIntegerAttr(bits, signMask));
  Value magnitude = arith::ConstantOp::create(b, loc, b.getIntegerAttr(bits, ~signMask));
  Value r = arith::OrIOp::create(b, loc, arith::AndIOp::create(b, loc, xb, magnitude),
                                 arith::AndIOp::create(b, loc, yb, sign));
  return arith::BitcastOp::create(b, loc, x.getType(), r);
}

/// |v| of a signed integer (wrapping at the minimum), v itself unsigned.
static Value magnitude(OpBuilder &b, Location loc, Value v, bool uns) {
  if (uns)
    return v;
  Value zero = scalarConstant(b, loc, v.getType(), 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, zero);
  return arith::SelectOp::create(b, loc, negative,
                                 arith::SubIOp::create(b, loc, zero, v), v);
}

/// torch's calc_gcd in the dtype: Euclid from |x| and |y| wrapped to it
/// (|-128| is -128 in int8), with C++'s truncating remainder, so a result
/// may be negative as torch's is; a remainder by -1 is 0 (the hardware
/// would trap on the minimum). An scf.while.
static Value gcdFn(OpBuilder &b, Location loc, Value x, Value y, bool uns) {
  Type t = x.getType();
  Value zero = scalarConstant(b, loc, t, 0);
  SmallVector<Type> types{t, t};
  auto loop = scf::WhileOp::create(
      b, loc, types,
      ValueRange{magnitude(b, loc, x, uns), magnitude(b, loc, y, uns)});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&loop.getBefore(), {}, types, {loc, loc});
    Value go = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                     before->getArgument(0), zero);
    scf::ConditionOp::create(b, loc, go, before->getArguments());
    Block *after = b.createBlock(&loop.getAfter(), {}, types, {loc, loc});
    Value a = after->getArgument(0), c = after->getArgument(1);
    Value r;
    if (uns) {
      r = arith::RemUIOp::create(b, loc, c, a);
    } else {
      Value minusOne = scalarConstant(b, loc, t, -1);
      Value byMinusOne =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, minusOne);
      Value safe = arith::SelectOp::create(b, loc, byMinusOne,
                                           scalarConstant(b, loc, t, 1), a);
      r = arith::SelectOp::create(b, loc, byMinusOne, zero,
                                  arith::RemSIOp::create(b, loc, c, safe));
    }
    scf::YieldOp::create(b, loc, ValueRange{r, a});
  }
  return loop.getResult(1);
}

/// torch's lcm: |x / gcd * y|, 0 where the gcd is 0, the gcd in the dtype
/// and the rest in C++'s promoted type (i32 for narrower integers, then
/// truncated), wrapping; x / -1 is -x.
static Value lcmFn(OpBuilder &b, Location loc, Value x, Value y, bool uns) {
  Type narrow = x.getType();
  Value g = gcdFn(b, loc, x, y, uns);
  if (narrow.getIntOrFloatBitWidth() < 32) {
    x = castScalar(b, loc, x, b.getI32Type(), uns);
    y = castScalar(b, loc, y, b.getI32Type(), uns);
    g = castScalar(b, loc, g, b.getI32Type(), uns);
  }
  Type t = x.getType();
  Value zero = scalarConstant(b, loc, t, 0), one = scalarConstant(b, loc, t, 1);
  Value gZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, g, zero);
  Value gMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, g,
                                          scalarConstant(b, loc, t, -1));
  Value safe = arith::SelectOp::create(
      b, loc, arith::OrIOp::create(b, loc, gZero, gMinusOne), one, g);
  Value q = uns ? arith::DivUIOp::create(b, loc, x, safe).getResult()
                : arith::DivSIOp::create(b, loc, x, safe).getResult();
  q = arith::SelectOp::create(b, loc, gMinusOne,
                              arith::SubIOp::create(b, loc, zero, x), q);
  Value r = magnitude(b, loc, arith::MulIOp::create(b, loc, q, y), uns);
  r = arith::SelectOp::create(b, loc, gZero, zero, r);
  return t == narrow ? r : arith::TruncIOp::create(b, loc, narrow, r);
}

/// nextafter on the bits: one step of `unit` (1, or 2^16 for bfloat16 held
/// in f32) away from or toward zero; the smallest step with y's sign from a
/// zero; y where x == y; NaN where either is.
static Value nextafterBits(OpBuilder &b, Location loc, Value x, Value y,
                           uint64_t unit) {
  using P = arith::CmpFPredicate;
  unsigned width = x.getType().getIntOrFloatBitWidth();
  Type bits = b.getIntegerType(width);
  Value xb = arith::BitcastOp::create(b, loc, bits, x);
  Value yb = arith::BitcastOp::create(b, loc, bits, y);
  Value step = arith::ConstantOp::create(b, loc, b.getIntegerAttr(bits, unit));
  Value zero = cst(b, loc, x, 0.0);
  Value up = arith::XOrIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, P::OGT, y, x),
      arith::CmpFOp::create(b, loc, P::OLT, x, zero));
  Value moved = arith::SelectOp::create(b, loc, up,
                                        arith::AddIOp::create(b, loc, xb, step),
                                        arith::SubIOp::create(b, loc, xb, step));
  APInt signMask = APInt::getSignMask(width);
  Value sign = arith::AndIOp::create(
      b, loc, yb,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(bits, signMask)));
  Value fromZero = arith::OrIOp::create(b, loc, sign, step);
  Value xZero = arith::CmpFOp::create(b, loc, P::OEQ, x, zero);
  Value r = arith::BitcastOp::create(
      b, loc, x.getType(),
      arith::SelectOp::create(b, loc, xZero, fromZero, moved));
  Value same = arith::CmpFOp::create(b, loc, P::OEQ, x, y);
  r = arith::SelectOp::create(b, loc, same, y, r);
  Value nan = arith::CmpFOp::create(b, loc, P::UNO, x, y);
  return arith::SelectOp::create(
      b, loc, nan, cst(b, loc, x, std::numeric_limits<double>::quiet_NaN()), r);
}
static Value nextafterFn(OpBuilder &b, Location loc, Value x, Value y, bool) {
  return nextafterBits(b, loc, x, y, 1);
}
static Value nextafterBF16Fn(OpBuilder &b, Location loc, Value x, Value y,
                             bool) {
  return nextafterBits(b, loc, x, y, 1 << 16);
}

//===----------------------------------------------------------------------===//
// Comparisons, logical ops and selection: computed in the promoted type
// (torch.result_type of the operands), with bool results.
//===----------------------------------------------------------------------===//

/// torch.result_type of the named operands (tensors by their traced element
/// type and rank, Python numbers by their type); null when one is unknown.
static Type promotedType(const LoweringCall &c, ArrayRef<StringRef> names) {
  SmallVector<PromotionOperand> operands;
  for (StringRef name : names) {
    if (Value t = c.tensor(name)) {
      std::optional<DType> d = dtypeFromType(c.logicalElementType(t));
      if (!d)
        return {};
      operands.push_back({*d, cast<ShapedType>(t.getType()).getRank()
                                  ? PromotionPriority::Tensor
                                  : PromotionPriority::ZeroDim});
      continue;
    }
    Attribute a = c.value(name);
    if (isa_and_nonnull<BoolAttr>(a))
      operands.push_back({DType::Bool, PromotionPriority::Scalar});
    else if (isa_and_nonnull<IntegerAttr>(a))
      operands.push_back({DType::I64, PromotionPriority::Scalar});
    else if (isa_and_nonnull<FloatAttr>(a))
      operands.push_back({DType::F64, PromotionPriority::Scalar});
    else if (Value s = c.scalar(name)) // a number known at run time
      operands.push_back({s.getType().isF64()         ? DType::F64
                          : s.getType().isInteger(1) ? DType::Bool
                                                     : DType::I64,
                          PromotionPriority::Scalar});
    else
      return {};
  }
  return typeFromDType(c.op->getContext(), resultType(operands));
}

using PredicateFn = Value (*)(OpBuilder &, Location, Value, Value, bool);

/// `fn(lhs, rhs)` (an i1) over operands converted to `operandType`
/// (default: their promoted type); the result is the op's (bool) type.
static FailureOr<SmallVector<Value>>
lowerTruth(LoweringCall &c, ArrayRef<StringRef> names, PredicateFn fn,
           Type operandType = {}) {
  Type number;
  RankedTensorType type = resultTypeOrNumber(c, number);
  if (!type)
    return c.fail("the result is not a ranked tensor");
  Type promoted = operandType ? operandType : promotedType(c, names);
  if (!promoted)
    return c.fail("an operand has no known dtype");
  SmallVector<Value> inputs;
  SmallVector<std::optional<double>> scalars;
  for (StringRef name : names) {
    FailureOr<Operand> o = operandOf(c, name);
    if (failed(o))
      return c.fail("an operand is neither a tensor nor a number");
    if (o->tensor)
      inputs.push_back(o->tensor);
    scalars.push_back(o->tensor ? std::nullopt
                                : std::optional<double>(o->scalar));
  }
  bool uns = isUnsignedElement(promoted) || promoted.isInteger(1);
  Type compute = computeType(promoted);
  Value r = buildElementwise(
      c.rewriter, c.loc, type, inputs,
      [&](OpBuilder &b, Location loc, ValueRange a) {
        SmallVector<Value> v;
        unsigned next = 0;
        for (const std::optional<double> &s : scalars)
          v.push_back(s ? scalarConstant(b, loc, compute, *s) : a[next++]);
        return fn(b, loc, v[0], v.size() > 1 ? v[1] : v[0], uns);
      },
      c.logicalElementTypes(inputs), promoted);
  return SmallVector<Value>{numberOrTensor(c, r, number)};
}

template <arith::CmpFPredicate F, arith::CmpIPredicate S,
          arith::CmpIPredicate U>
static Value compare(OpBuilder &b, Location loc, Value x, Value y, bool uns) {
  if (isFloat(x))
    return arith::CmpFOp::create(b, loc, F, x, y);
  return arith::CmpIOp::create(b, loc, uns ? U : S, x, y);
}

/// x != 0 (NaN is true, as bool(NaN) is in torch).
static Value truth(OpBuilder &b, Location loc, Value x) {
  if (isFloat(x))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                 cst(b, loc, x, 0.0));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                               cst(b, loc, x, 0.0));
}
static Value logicalAnd(OpBuilder &b, Location loc, Value x, Value y, bool) {
  return arith::AndIOp::create(b, loc, truth(b, loc, x), truth(b, loc, y));
}
static Value logicalOr(OpBuilder &b, Location loc, Value x, Value y, bool) {
  return arith::OrIOp::create(b, loc, truth(b, loc, x), truth(b, loc, y));
}
static Value logicalXor(OpBuilder &b, Location loc, Value x, Value y, bool) {
  return arith::XOrIOp::create(b, loc, truth(b, loc, x), truth(b, loc, y));
}
static Value logicalNot(OpBuilder &b, Location loc, Value x, Value, bool) {
  Value t = truth(b, loc, x);
  return arith::XOrIOp::create(b, loc, t, scalarConstant(b, loc, t.getType(), 1));
}
static Value isNan(OpBuilder &b, Location loc, Value x, Value, bool) {
  if (!isFloat(x))
    return scalarConstant(b, loc, b.getI1Type(), 0);
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
}
static Value isInf(OpBuilder &b, Location loc, Value x, Value, bool) {
  if (!isFloat(x))
    return scalarConstant(b, loc, b.getI1Type(), 0);
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                               math::AbsFOp::create(b, loc, x),
                               cst(b, loc, x, INFINITY));
}
/// The float's sign bit (-0.0 and a negative NaN set it); x < 0 for signed
/// integers; false for unsigned ones and bool.
static Value signBit(OpBuilder &b, Location loc, Value x, Value, bool uns) {
  Type t = x.getType();
  if (isFloat(x)) {
    Type bits = b.getIntegerType(t.getIntOrFloatBitWidth());
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt,
        arith::BitcastOp::create(b, loc, bits, x),
        arith::ConstantOp::create(b, loc, b.getZeroAttr(bits)));
  }
  if (uns)
    return scalarConstant(b, loc, b.getI1Type(), 0);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x,
                               arith::ConstantOp::create(b, loc, b.getZeroAttr(t)));
}
static Value isFinite(OpBuilder &b, Location loc, Value x, Value, bool) {
  if (!isFloat(x))
    return scalarConstant(b, loc, b.getI1Type(), 1);
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                               math::AbsFOp::create(b, loc, x),
                               cst(b, loc, x, INFINITY));
}

/// where(condition, input, other) and masked_fill(input, mask, value): a
/// select over operands converted to the result type.
static FailureOr<SmallVector<Value>> lowerSelect(LoweringCall &c,
                                                 StringRef cond, StringRef a,
                                                 StringRef b) {
  RankedTensorType type = c.logicalResultType(0, /*dynamic=*/true);
  if (!type)
    return c.fail("the result is not a ranked tensor");
  FailureOr<Operand> oc = operandOf(c, cond), oa = operandOf(c, a),
                     ob = operandOf(c, b);
  if (failed(oc) || failed(oa) || failed(ob) || !oc->tensor)
    return c.fail("an operand is neither a tensor nor a number");
  SmallVector<Value> inputs{oc->tensor};
  for (const Operand &o : {*oa, *ob})
    if (o.tensor)
      inputs.push_back(o.tensor);
  Value r = buildElementwise(
      c.rewriter, c.loc, type, inputs,
      [&](OpBuilder &bb, Location loc, ValueRange v) {
        Type et = computeType(type.getElementType());
        unsigned next = 1;
        Value x = oa->tensor ? v[next++] : scalarConstant(bb, loc, et, oa->scalar);
        Value y = ob->tensor ? v[next++] : scalarConstant(bb, loc, et, ob->scalar);
        return arith::SelectOp::create(bb, loc, truth(bb, loc, v[0]), x, y)
            .getResult();
      },
      c.logicalElementTypes(inputs));
  return SmallVector<Value>{r};
}

//===----------------------------------------------------------------------===//
// Casts, rounding, remainders and integer powers
//===----------------------------------------------------------------------===//

/// A cast: the input converted to the result's element type (buildElementwise
/// converts from the traced input type; floats reach integers through i64,
/// as on x86).
static Value castBody(OpBuilder &, Location, Value x, const LoweringCall &) {
  return x;
}

/// floor, ceil, round (half to even), trunc: integers pass unchanged.
static Value floorBody(OpBuilder &b, Location loc, Value x,
                       const LoweringCall &) {
  return isFloat(x) ? math::FloorOp::create(b, loc, x).getResult() : x;
}
static Value ceilBody(OpBuilder &b, Location loc, Value x,
                      const LoweringCall &) {
  return isFloat(x) ? math::CeilOp::create(b, loc, x).getResult() : x;
}
/// Half to even; with `decimals`, x * 10^d rounded and divided back (for a
/// negative d, x / 10^-d and multiplied back), as torch computes it.
static Value roundBody(OpBuilder &b, Location loc, Value x,
                       const LoweringCall &c) {
  if (!isFloat(x))
    return x;
  int64_t d = c.getInt("decimals").value_or(0);
  if (d == 0)
    return math::RoundEvenOp::create(b, loc, x);
  Value s = cst(b, loc, x, std::pow(10.0, static_cast<double>(std::abs(d))));
  Value scaled = d > 0 ? mul(b, loc, x, s) : div(b, loc, x, s);
  Value r = math::RoundEvenOp::create(b, loc, scaled);
  return d > 0 ? div(b, loc, r, s) : mul(b, loc, r, s);
}
static Value truncBody(OpBuilder &b, Location loc, Value x,
                       const LoweringCall &) {
  return isFloat(x) ? truncOf(b, loc, x) : x;
}
/// sign: -1, 0 or 1 (0 for NaN, as torch's).
static Value signBody(OpBuilder &b, Location loc, Value x,
                      const LoweringCall &c) {
  if (isBool(x))
    return x;
  Value zero = cst(b, loc, x, 0.0), one = cst(b, loc, x, 1.0),
        minusOne = cst(b, loc, x, -1.0);
  Value pos, neg;
  if (isFloat(x)) {
    pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
    neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  } else {
    bool uns = isUnsignedCall(c);
    pos = arith::CmpIOp::create(
        b, loc, uns ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt, x,
        zero);
    neg = arith::CmpIOp::create(
        b, loc, uns ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt, x,
        zero);
  }
  return arith::SelectOp::create(
      b, loc, pos, one, arith::SelectOp::create(b, loc, neg, minusOne, zero));
}
static Value squareBody(OpBuilder &b, Location loc, Value x,
                        const LoweringCall &) {
  return mul(b, loc, x, x);
}

/// Python's `%`: the remainder takes the divisor's sign (C's fmod: the
/// dividend's). Integer division by zero gives 0 here, where torch raises.
static Value remainderOf(OpBuilder &b, Location loc, Value x, Value y,
                         bool uns, bool pythonSign) {
  if (isFloat(x)) {
    Value r = arith::RemFOp::create(b, loc, x, y);
    if (!pythonSign)
      return r;
    Value zero = cst(b, loc, x, 0.0);
    Value rNonzero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, r, zero);
    Value signsDiffer = arith::XOrIOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, zero),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, y, zero));
    Value adjust = arith::AndIOp::create(b, loc, rNonzero, signsDiffer);
    return arith::SelectOp::create(b, loc, adjust,
                                   arith::AddFOp::create(b, loc, r, y), r);
  }
  Type t = x.getType();
  Value zero = scalarConstant(b, loc, t, 0), one = scalarConstant(b, loc, t, 1);
  Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value safe = arith::SelectOp::create(b, loc, isZero, one, y);
  if (uns || isBool(x)) {
    Value r = arith::RemUIOp::create(b, loc, x, safe);
    return arith::SelectOp::create(b, loc, isZero, zero, r);
  }
  // x % -1 is 0 (and avoids the MIN % -1 trap).
  Value minusOne = scalarConstant(b, loc, t, -1);
  Value isMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, safe, minusOne);
  safe = arith::SelectOp::create(b, loc, isMinusOne, one, safe);
  Value r = arith::RemSIOp::create(b, loc, x, safe);
  if (pythonSign) {
    Value rNonzero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
    Value signsDiffer = arith::XOrIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero));
    Value adjust = arith::AndIOp::create(b, loc, rNonzero, signsDiffer);
    r = arith::SelectOp::create(b, loc, adjust,
                                arith::AddIOp::create(b, loc, r, y), r);
  }
  return arith::SelectOp::create(b, loc, isZero, zero, r);
}
static Value remainderFn(OpBuilder &b, Location loc, Value x, Value y,
                         bool uns) {
  return remainderOf(b, loc, x, y, uns, /*pythonSign=*/true);
}
static Value fmodFn(OpBuilder &b, Location loc, Value x, Value y, bool uns) {
  return remainderOf(b, loc, x, y, uns, /*pythonSign=*/false);
}

/// pow: math.powf for floats; integers by squaring, one step per bit of
/// the exponent's width (unrolled), with negative exponents giving 0 (or
/// +-1 for a base of +-1), as torch's integer pow does. An unsigned
/// (uint8) exponent is never negative: 253 is not -3 (fuzz-diff,
/// test/Fuzz/diff/pow-uint8-exponent-above-127).
static Value intPow(OpBuilder &b, Location loc, Value x, Value y,
                    bool isUnsigned) {
  Type t = x.getType();
  Value zero = scalarConstant(b, loc, t, 0), one = scalarConstant(b, loc, t, 1);
  Value result = one, base = x, e = y;
  // 64 squaring steps cover every exponent of every integer width.
  for (int i = 0; i < 64; ++i) {
    Value bit = arith::AndIOp::create(b, loc, e, one);
    Value odd = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bit, zero);
    result = arith::SelectOp::create(
        b, loc, odd, arith::MulIOp::create(b, loc, result, base), result);
    base = arith::MulIOp::create(b, loc, base, base);
    e = arith::ShRUIOp::create(b, loc, e, one);
    if (t.getIntOrFloatBitWidth() <= static_cast<unsigned>(i + 1))
      break;
  }
  if (isUnsigned)
    return result;
  // Negative exponents: 1 for base 1, +-1 for base -1, else 0.
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero);
  Value minusOne = scalarConstant(b, loc, t, -1);
  Value baseOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, one);
  Value baseMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, minusOne);
  Value oddExp = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, arith::AndIOp::create(b, loc, y, one),
      zero);
  Value negResult = arith::SelectOp::create(
      b, loc, baseOne, one,
      arith::SelectOp::create(
          b, loc, baseMinusOne,
          arith::SelectOp::create(b, loc, oddExp, minusOne, one), zero));
  return arith::SelectOp::create(b, loc, negative, negResult, result);
}
static Value powFn(OpBuilder &b, Location loc, Value x, Value y, bool uns) {
  if (isFloat(x)) {
    // torch's tensor ** number: 0.5 and -0.5 are sqrt and rsqrt (so
    // (-inf) ** 0.5 is NaN and (-0.0) ** 0.5 is -0.0, where C's pow gives
    // inf and 0), -1 the reciprocal, 2, 3 and -2 products.
    APFloat e(0.0);
    if (matchPattern(y, m_ConstantFloat(&e))) {
      double v = e.convertToDouble();
      Value one = scalarConstant(b, loc, x.getType(), 1);
      auto div = [&](Value d) { return arith::DivFOp::create(b, loc, one, d).getResult(); };
      auto sq = [&] { return arith::MulFOp::create(b, loc, x, x).getResult(); };
      if (v == 0.5)
        return math::SqrtOp::create(b, loc, x);
      if (v == -0.5)
        return div(math::SqrtOp::create(b, loc, x));
      if (v == -1)
        return div(x);
      if (v == 2)
        return sq();
      if (v == 3)
        return arith::MulFOp::create(b, loc, sq(), x);
      if (v == -2)
        return div(sq());
    }
    return math::PowFOp::create(b, loc, x, y);
  }
  if (isBool(x)) // bool ** n: and over a nonzero exponent
    return arith::OrIOp::create(
        b, loc, x,
        arith::XOrIOp::create(b, loc, y, scalarConstant(b, loc, y.getType(), 1)));
  return intPow(b, loc, x, y, uns);
}

/// The unary math functions and activations, with their number
/// parameters where they have some.
static void populateUnaryMathLowerings(LoweringTable &t) {
#define U(NAME, BODY)                                                          \
  t[NAME] = [](LoweringCall &c) { return lowerUnary(c, BODY); };
  U("torch.nn.functional.gelu", geluBody)
  U("torch.nn.functional.silu", siluBody)
  U("torch.nn.functional.hardswish", hardswishBody)
  U("torch.nn.functional.hardsigmoid", hardsigmoidBody)
  U("torch.sigmoid", sigmoidBody)
  U("torch.tanh", tanhBody)
  U("torch.exp", expBody)
  U("torch.log", logBody)
  U("torch.sqrt", sqrtBody)
  U("torch.rsqrt", rsqrtBody)
  U("torch.erf", erfBody)
  U("torch.reciprocal", reciprocalBody)
  U("torch.exp2", exp2Body)
  U("torch.expm1", expm1Body)
  U("torch.log2", log2Body)
  U("torch.log10", log10Body)
  U("torch.log1p", log1pBody)
  U("torch.erfc", erfcBody)
  U("torch.sin", sinBody)
  U("torch.cos", cosBody)
  U("torch.tan", tanBody)
  U("torch.asin", asinBody)
  U("torch.acos", acosBody)
  U("torch.atan", atanBody)
  U("torch.sinh", sinhBody)
  U("torch.cosh", coshBody)
  U("torch.asinh", asinhBody)
  U("torch.acosh", acoshBody)
  U("torch.atanh", atanhBody)
  U("torch.frac", fracBody)
  U("torch.nn.functional.tanhshrink", tanhshrinkBody)
  U("torch.nn.functional.selu", seluBody)
  U("torch.nn.functional.mish", mishBody)
  U("torch.nn.functional.logsigmoid", logsigmoidBody)
#undef U
  // Activations with number parameters.
  t["torch.nn.functional.elu"] = [](LoweringCall &c) {
    return lowerUnaryWithNumbers(c, {"alpha", "scale", "input_scale"}, eluBody);
  };
  t["torch.nn.functional.celu"] = [](LoweringCall &c) {
    return lowerUnaryWithNumbers(c, {"alpha"}, celuBody);
  };
  t["torch.nn.functional.threshold"] = [](LoweringCall &c) {
    for (StringRef n : {"threshold", "value"})
      if (!c.getFloat(n))
        return FailureOr<SmallVector<Value>>(
            c.fail(("'" + n + "' must be a number").str()));
    return lowerUnary(c, thresholdBody, /*floatOnly=*/false);
  };
  t["torch.nn.functional.softplus"] = [](LoweringCall &c) {
    return lowerUnaryWithNumbers(c, {"beta", "threshold"}, softplusBody);
  };
  t["torch.nn.functional.hardshrink"] = [](LoweringCall &c) {
    return lowerUnaryWithNumbers(c, {"lambd"}, hardshrinkBody);
  };
  t["torch.nn.functional.softshrink"] = [](LoweringCall &c) {
    return lowerUnaryWithNumbers(c, {"lambd"}, softshrinkBody);
  };
  t["torch.nn.functional.rrelu"] = [](LoweringCall &c) {
    if (!c.getFloat("lower") || !c.getFloat("upper"))
      return FailureOr<SmallVector<Value>>(
          c.fail("'lower' and 'upper' must be numbers"));
    if (c.getBool("training").value_or(true))
      return FailureOr<SmallVector<Value>>(
          c.fail("only eval mode (training=False) can be compiled"));
    return lowerUnary(c, rreluBody);
  };
}

/// Comparisons, logical operators, float predicates and selects.
static void populateComparisonLowerings(LoweringTable &t) {
  using FP = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  t["torch.eq"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input", "other"},
                      compare<FP::OEQ, IP::eq, IP::eq>);
  };
  t["torch.ne"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input", "other"},
                      compare<FP::UNE, IP::ne, IP::ne>);
  };
  t["torch.lt"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input", "other"},
                      compare<FP::OLT, IP::slt, IP::ult>);
  };
  t["torch.le"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input", "other"},
                      compare<FP::OLE, IP::sle, IP::ule>);
  };
  t["torch.gt"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input", "other"},
                      compare<FP::OGT, IP::sgt, IP::ugt>);
  };
  t["torch.ge"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input", "other"},
                      compare<FP::OGE, IP::sge, IP::uge>);
  };
  t["torch.logical_and"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input", "other"}, logicalAnd);
  };
  t["torch.logical_or"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input", "other"}, logicalOr);
  };
  t["torch.logical_xor"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input", "other"}, logicalXor);
  };
  t["torch.logical_not"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input"}, logicalNot);
  };
  t["torch.isnan"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input"}, isNan);
  };
  t["torch.isinf"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input"}, isInf);
  };
  t["torch.isfinite"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input"}, isFinite);
  };
  t["torch.signbit"] = [](LoweringCall &c) {
    return lowerTruth(c, {"input"}, signBit);
  };
  t["torch.where"] = [](LoweringCall &c) {
    return lowerSelect(c, "condition", "input", "other");
  };
  t["Tensor.masked_fill"] = [](LoweringCall &c) {
    return lowerSelect(c, "mask", "value", "input");
  };
}

/// Maxima and minima, bitwise operators and shifts, copysign and
/// atan2.
static void populateMinMaxAndBitwiseLowerings(LoweringTable &t) {
  t["torch.maximum"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", tieKeepsInput<true, true>);
  };
  t["torch.minimum"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", tieKeepsInput<false, true>);
  };
  t["torch.fmax"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", tieKeepsInput<true, false>);
  };
  t["torch.fmin"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", tieKeepsInput<false, false>);
  };
  t["torch.bitwise_and"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", bitAnd);
  };
  t["torch.bitwise_or"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", bitOr);
  };
  t["torch.bitwise_xor"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", bitXor);
  };
  t["torch.nn.functional.softsign"] = lowerSoftsign;
  t["torch.bitwise_left_shift"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", shiftLeft);
  };
  t["torch.bitwise_right_shift"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", shiftRight);
  };
  t["torch.bitwise_not"] = [](LoweringCall &c) {
    return lowerUnary(c, bitwiseNotBody, /*floatOnly=*/false);
  };
  t["torch.copysign"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", copysignFn, false,
                       /*floatOnly=*/true);
  };
  t["torch.atan2"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", atan2Fn, false,
                       /*floatOnly=*/true);
  };
  t["torch.gcd"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", gcdFn);
  };
  t["torch.lcm"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", lcmFn);
  };
  t["torch.nextafter"] = [](LoweringCall &c) {
    RankedTensorType type = c.logicalResultType(0, /*dynamic=*/true);
    bool bf16 = type && type.getElementType().isBF16();
    return lowerBinary(c, "input", "other",
                       bf16 ? nextafterBF16Fn : nextafterFn, false,
                       /*floatOnly=*/true);
  };
}

/// abs, neg, clamps and the ReLU family; dropout as the identity.
static void populateSignAndClampLowerings(LoweringTable &t) {
  t["torch.abs"] = [](LoweringCall &c) {
    return lowerUnary(c, absBody, /*floatOnly=*/false);
  };
  t["torch.neg"] = [](LoweringCall &c) {
    return lowerUnary(c, negBody, /*floatOnly=*/false);
  };
  t["torch.clamp"] = lowerClamp;
  t["torch.nn.functional.relu"] = [](LoweringCall &c) {
    return lowerUnary(c, reluBody, /*floatOnly=*/false);
  };
  t["torch.nn.functional.relu6"] = [](LoweringCall &c) {
    return lowerUnary(c, relu6Body, /*floatOnly=*/false);
  };
  t["torch.nn.functional.hardtanh"] = [](LoweringCall &c) {
    if (!c.getFloat("min_val") || !c.getFloat("max_val"))
      return FailureOr<SmallVector<Value>>(
          c.fail("min_val and max_val must be numbers"));
    return lowerUnary(c, hardtanhBody, /*floatOnly=*/false);
  };
  t["torch.nn.functional.leaky_relu"] = [](LoweringCall &c) {
    if (!c.getFloat("negative_slope"))
      return FailureOr<SmallVector<Value>>(
          c.fail("negative_slope must be a number"));
    return lowerUnary(c, leakyReluBody);
  };
  t["torch.nn.functional.dropout"] = lowerIdentityUnlessTraining;
  t["torch.dropout"] = lowerIdentityUnlessTraining;
  t["torchvision.ops.stochastic_depth.stochastic_depth"] =
      lowerIdentityUnlessTraining;
}

/// The arithmetic operators, reflected ones included.
static void populateArithmeticLowerings(LoweringTable &t) {
  t["torch.add"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", add);
  };
  t["torch.sub"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", sub);
  };
  t["Tensor.__rsub__"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", sub, /*swap=*/true);
  };
  t["torch.mul"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", mul);
  };
  t["torch.div"] = lowerDiv;
  t["Tensor.__rtruediv__"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", div, /*swap=*/true,
                       /*floatOnly=*/true);
  };
  t["torch.floor_divide"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", floorDiv);
  };
  t["Tensor.__rfloordiv__"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", floorDiv, /*swap=*/true);
  };
  t["torch.pow"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "exponent", powFn);
  };
  t["Tensor.__rpow__"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", powFn, /*swap=*/true);
  };
  t["torch.remainder"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", remainderFn);
  };
  t["Tensor.__rmod__"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", remainderFn, /*swap=*/true);
  };
  t["torch.fmod"] = [](LoweringCall &c) {
    return lowerBinary(c, "input", "other", fmodFn);
  };
}

/// Casts, rounding, sign and square.
static void populateCastAndRoundingLowerings(LoweringTable &t) {
  for (const char *name :
       {"Tensor.to", "Tensor.type_as", "Tensor.float", "Tensor.double",
        "Tensor.half", "Tensor.bfloat16", "Tensor.long", "Tensor.int",
        "Tensor.short", "Tensor.char", "Tensor.byte", "Tensor.bool"})
    t[name] = [](LoweringCall &c) {
      return lowerUnary(c, castBody, /*floatOnly=*/false);
    };
  t["torch.floor"] = [](LoweringCall &c) {
    return lowerUnary(c, floorBody, /*floatOnly=*/false);
  };
  t["torch.ceil"] = [](LoweringCall &c) {
    return lowerUnary(c, ceilBody, /*floatOnly=*/false);
  };
  t["torch.trunc"] = [](LoweringCall &c) {
    return lowerUnary(c, truncBody, /*floatOnly=*/false);
  };
  t["torch.round"] = [](LoweringCall &c) {
    if (!c.getInt("decimals"))
      return FailureOr<SmallVector<Value>>(c.fail("'decimals' must be an int"));
    return lowerUnary(c, roundBody, /*floatOnly=*/false);
  };
  t["torch.sign"] = [](LoweringCall &c) {
    return lowerUnary(c, signBody, /*floatOnly=*/false);
  };
  t["torch.square"] = [](LoweringCall &c) {
    return lowerUnary(c, squareBody, /*floatOnly=*/false);
  };
}

void lowering::populateElementwiseLowerings(LoweringTable &t) {
  populateSpecialLowerings(t);
  populateUnaryMathLowerings(t);
  populateComparisonLowerings(t);
  populateMinMaxAndBitwiseLowerings(t);
  populateSignAndClampLowerings(t);
  populateArithmeticLowerings(t);
  populateCastAndRoundingLowerings(t);
}
