//===- Decompose.h - op-library entries written as other entries -*- C++ -*-===//
//
// A decomposition rewrites a call of one op-library entry as calls of other
// entries (`mse_loss(a, b)` as `mean((a - b) ** 2)`), at the traced level,
// in the way PyTorch's decompositions and torch-mlir's DecomposeComplexOps
// do. It is written once and serves every consumer: `traced-decompose` runs
// it for the interpreter and for inspection, and `convert-traced-to-linalg`
// runs it for the calls it has no direct lowering for. The interpreter keeps
// its own kernel for every entry, so the conformance suite checks a
// decomposition against torch and against that kernel independently.
//
// Decompositions live in one file per op family, like the kernels and the
// lowerings, and register themselves in a name-keyed table.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_TRANSFORMS_DECOMPOSE_H
#define TRACEDIR_LIB_TRANSFORMS_DECOMPOSE_H

#include "../Utils.h"

#include "TracedIR/Dialect/Traced/CallBuilder.h"
#include "TracedIR/Dialect/Traced/PyValue.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::traced::decompose {

/// The arguments of the calls a decomposition builds (CallBuilder.h).
using Arg = CallArg;
/// A keyword argument.
using KwArg = KwCallArg;

/// What a decomposition returns: the values replacing the call's results.
using Results = FailureOr<SmallVector<Value>>;

/// One replacement value; failure when the call that built it failed.
inline Results one(Value v) {
  if (!v)
    return failure();
  return SmallVector<Value>{v};
}

/// The ranked tensor type of `v`, or null (also for a null value).
inline RankedTensorType typeOf(Value v) {
  return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

/// Whether every value is a tensor of static shape.
inline bool allStaticShapes(ArrayRef<Value> values) {
  return llvm::all_of(values, [](Value v) {
    return typeOf(v) && typeOf(v).hasStaticShape();
  });
}

/// The call being decomposed, and builders for the calls replacing it.
class Decomposer {
public:
  Decomposer(const BoundOp &bound, OpBuilder &builder,
             SymbolTableCollection &symbols)
      : bound(bound), b(builder), loc(bound.op->getLoc()),
        ctx(builder.getContext()), symbols(symbols) {}

  const BoundOp &bound;
  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;

  StringRef target() const { return bound.spec->name; }

  //===--- Reading the call -------------------------------------------===//

  /// The traced tensor bound to parameter `name`, or null.
  Value tensor(StringRef name) const;
  /// Its ranked type, or null.
  RankedTensorType tensorType(StringRef name) const;
  /// The Python value of parameter `name` when it holds no traced value
  /// (constants defined by traced.constant are looked through), or null.
  Attribute value(StringRef name) const;
  bool isNone(StringRef name) const;
  std::optional<int64_t> getInt(StringRef name) const;
  std::optional<double> getFloat(StringRef name) const;
  std::optional<bool> getBool(StringRef name) const;
  std::optional<std::string> getStr(StringRef name) const;
  std::optional<SmallVector<int64_t>> getInts(StringRef name,
                                              unsigned size = 0) const;
  /// Parameter `name`'s argument as it is, to pass on to another call.
  Arg arg(StringRef name) const;
  /// The type of result `i` of the call.
  Type resultType(unsigned i = 0) const;
  RankedTensorType resultTensorType(unsigned i = 0) const;

  //===--- Building calls ---------------------------------------------===//

  /// A call of entry `target` (a function, or a `Tensor.` method whose
  /// receiver is the first argument) with the arguments by keyword; its
  /// result types come from the entry's result rule. When the new call does
  /// not verify, the error is reported at the call being decomposed, `failed`
  /// is set and the result is empty; a call given a null value (from an
  /// earlier failure) is not built either, so a decomposition can build a
  /// chain and check once, at the end (the driver does).
  /// `refined`, when given, types the results instead: types the rule's
  /// accept that know more (a data-dependent size the traced call being
  /// decomposed declares).
  SmallVector<Value> calls(StringRef target, ArrayRef<KwArg> args,
                           TypeRange refined = {});
  /// Same, for a call with one result (null on failure).
  Value call(StringRef target, ArrayRef<KwArg> args, Type refined = {});
  /// `target(input=a)` and `target(input=a, other=b)`.
  Value unary(StringRef target, Arg a) { return call(target, {{"input", a}}); }
  Value binary(StringRef target, Arg a, Arg b) {
    return call(target, {{"input", a}, {"other", b}});
  }
  /// `a.to(dtype=element)` unless `a` already has that element type.
  Value cast(Value a, Type element);
  /// A traced.constant of Python or tensor value `value` of type `type`.
  Value constant(Attribute value, Type type);
  /// A tensor constant of `type` (static shape) whose elements are `fn` of
  /// their multi-index, computed in double and converted to the element type.
  Value tensorConstant(RankedTensorType type,
                       function_ref<double(ArrayRef<int64_t>)> fn);
  bool failed = false;

  Attribute i64(int64_t v) const;
  Attribute f64(double v) const;
  Attribute boolean(bool v) const;
  Attribute str(StringRef v) const;
  Attribute ints(ArrayRef<int64_t> v) const;
  Attribute none() const;
  /// A torch dtype argument for element type `type` (`torch.float32`).
  Attribute dtype(Type type) const;

  /// Declines this call, saying why: the call stays (a lowering that
  /// needed the decomposition reports `why`).
  FailureOr<SmallVector<Value>> decline(const Twine &why);
  std::string declined;

private:
  SymbolTableCollection &symbols;
};

/// `fn` of an ArgReader over the call's constant arguments (for the op
/// library's decoders, decodeFftC2R and decodeStft, which the rules and the
/// kernels call too, each through its own withArgReader); a single int
/// reads as a one-element list, as the kernels' reader has it.
template <typename Fn> auto withArgReader(Decomposer &d, Fn fn) {
  auto ints = [&](StringRef name) -> std::optional<SmallVector<int64_t>> {
    if (std::optional<int64_t> i = d.getInt(name))
      return SmallVector<int64_t>{*i};
    return d.getInts(name);
  };
  auto integer = [&](StringRef name) { return d.getInt(name); };
  auto boolean = [&](StringRef name) { return d.getBool(name); };
  auto str = [&](StringRef name) { return d.getStr(name); };
  auto isNone = [&](StringRef name) { return d.isNone(name); };
  auto known = [&](StringRef name) { return bool(d.value(name)); };
  ArgReader reader{ints, integer, boolean, str, isNone, known};
  return fn(reader);
}

/// The one-hot mask of class-index targets over an input of `type`
/// ([N, C, ...], or [C] with a 0-d target): mask[n, c, ...] is
/// target[n, ...] == c. `classShape` is how a per-class tensor broadcasts
/// against it ([1, C, 1, ...]). (Loss.cpp; nll_loss and its backward.)
struct ClassMask {
  Value mask;
  int64_t classDim;
  SmallVector<int64_t> classShape;
};
ClassMask classMask(Decomposer &d, RankedTensorType type, Value target);

/// Rewrites one call; returns the values replacing its results (of the same
/// types; for a call whose one result is a tuple, either that tuple or its
/// elements, which then replace the call's constant-index getitems), or fails after `decline` or a reported error (`Decomposer::failed`
/// set by a call that did not verify also fails it).
using DecomposeFn = Results (*)(Decomposer &d);
using DecompositionTable = llvm::StringMap<DecomposeFn>;

/// Each family file names its entries' decompositions.
void populateBackwardDecompositions(DecompositionTable &table);
void populateElementwiseDecompositions(DecompositionTable &table);
void populateFactoryDecompositions(DecompositionTable &table);
void populateIndexDecompositions(DecompositionTable &table);
void populateLinalgDecompositions(DecompositionTable &table);
void populateLossDecompositions(DecompositionTable &table);
void populateNormDecompositions(DecompositionTable &table);
void populatePoolDecompositions(DecompositionTable &table);
void populateReduceDecompositions(DecompositionTable &table);
void populateShapeDecompositions(DecompositionTable &table);
void populateSortDecompositions(DecompositionTable &table);
void populateQuantizedDecompositions(DecompositionTable &table);
const DecompositionTable &getDecompositionTable();

/// The p-norm of `x` over `dim` (an int, a list, or None: all dims):
/// inf/-inf: max/min |x|; 0: the count of non-zeros; 1: sum |x|; 2:
/// sqrt(sum x^2); else (sum |x|^p)^(1/p). `element` is the result's element
/// type (the count of non-zeros is converted to it). Reduce.cpp; the
/// normalizations use it too.
Value vectorNorm(Decomposer &d, Value x, double p, Arg dim, Attribute keepdim,
                 Type element);
/// Shape helpers (Shape.cpp) that other families' decompositions call:
/// `v` reshaped to `shape` (`v` itself when it has it);
Value reshape(Decomposer &d, Value v, ArrayRef<int64_t> shape);
/// `x[:, ..., :, index]` with `index` (an int or a slice) at dim `dim`;
Value window(Decomposer &d, Value x, int64_t dim, Attribute index);
/// the slice `start:stop:step` (None for a missing bound);
Attribute sliceOf(Decomposer &d, std::optional<int64_t> start,
                  std::optional<int64_t> stop, int64_t step);
/// a possibly negative `dim` of a tensor of rank `rank`, normalized.
int64_t normDim(int64_t dim, int64_t rank);
/// `aten.index(x, [None] * dim + [index])` (Index.cpp; resampling and
/// as_strided gather with it too).
Value indexDim(Decomposer &d, Value x, int64_t dim, Value index);
/// A run-time check (a `torch._assert` compiled code evaluates) that every
/// element of integer tensor `index` lies in [low, high], or equals
/// `except` when given (nll_loss's ignore_index); `message` is torch's
/// error (Index.cpp). Where torch raises on a bad index, compiled code
/// must not read or write somewhere else instead.
void assertInRange(Decomposer &d, Value index, int64_t low, int64_t high,
                   const std::string &message,
                   std::optional<int64_t> except = std::nullopt);
/// A gradient's results (convolution_backward, native_group_norm_backward):
/// `out` with a None constant where `mask` is false; failure when a result
/// asked for was not built (Linalg.cpp).
Results maskedResults(Decomposer &d, SmallVector<Value> out, ArrayRef<bool> mask);
/// The call again with its float16/bfloat16 tensors in float32 and its
/// results rounded back once; declines a call without such tensors
/// (Decompose.cpp: what every call whose direct lowering refuses half
/// precision and that has no decomposition of its own becomes).
Results widenToFloat32(Decomposer &d);

} // namespace mlir::traced::decompose

#endif // TRACEDIR_LIB_TRANSFORMS_DECOMPOSE_H
