//===- Common.h - what the result rules share ------------------*- C++ -*-===//
//
// The result rules live by family in lib/OpLibrary/Rules/<Family>.cpp, the
// same families as the interpreter's kernels, the decompositions and the
// lowerings. What more than one family uses is here: RuleHelper, the shape
// and dtype helpers (broadcasting, type promotion, dim normalization,
// reductions' shapes) and the declarations of the rules Rules.def lists.
//
// The rules follow PyTorch's semantics: broadcasting, type promotion between
// tensors and Python numbers, and the output-size formulas of conv and pool.
// A rule that meets an unknown (a dynamic size, a traced int) answers
// "unknown" rather than guessing; the verifier then leaves the types alone.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_OPLIBRARY_RULES_COMMON_H
#define TRACEDIR_LIB_OPLIBRARY_RULES_COMMON_H

#include "../ResultRules.h"
#include "TracedIR/Dialect/Traced/TracedBase.h"
#include "TracedIR/OpLibrary/Runtime.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"

#include <cmath>

namespace mlir::traced::rules {

static constexpr int64_t kDynamic = ShapedType::kDynamic;

/// Small helpers shared by the rules.
///
/// The checks that read arguments and may come back empty (dimArg,
/// gatherIndex and the like) leave the rule's answer to stop(): failure
/// when the check reported an error, else "unknown" (an argument is
/// traced).
struct RuleHelper {
  const BoundCall &call;
  SmallVectorImpl<Type> &results;
  /// Set when a check of this helper reported an error (see stop()).
  bool reported = false;

  /// A ranked tensor argument; null (and the result "unknown") otherwise.
  RankedTensorType tensor(StringRef name) { return call.getTensor(name); }

  LogicalResult unknown() {
    results.clear();
    return success();
  }
  /// A tensor result; "unknown" when `elementType` is null (type promotion
  /// met a dtype it does not know).
  LogicalResult result(ArrayRef<int64_t> shape, Type elementType) {
    if (!elementType)
      return unknown();
    results.push_back(RankedTensorType::get(shape, elementType));
    return success();
  }
  LogicalResult result(Type type) {
    results.push_back(type);
    return success();
  }

  /// A tensor result of `elementType` at the broadcast shape of `a` and
  /// `b` (an error when they do not broadcast).
  LogicalResult broadcastResult(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                                Type elementType);

  /// The rule's answer after a check below came back empty.
  LogicalResult stop() { return reported ? failure() : unknown(); }

  /// Reports an error of the call, as the checks below do.
  InFlightDiagnostic error() {
    reported = true;
    return call.emitError();
  }

  /// Normalizes a possibly negative dimension of a rank-`rank` tensor.
  FailureOr<int64_t> dim(int64_t d, int64_t rank, StringRef what = "dim");

  /// The dim argument `name` of `input`, normalized with torch's rule for
  /// 0-d tensors (they take dim 0 and -1). Empty when `input` is unknown,
  /// the dim traced or out of range; with `scalarError`, a 0-d input is
  /// refused with it first.
  std::optional<int64_t> dimArg(RankedTensorType input, StringRef name = "dim",
                                StringRef scalarError = {});

  /// The shape of `input` reduced over `dimName` (None: all dims; a bool
  /// in its place, as var(x, False) binds it, also means all; `allIfEmpty`:
  /// an empty list means all). Empty when the dims are traced or invalid.
  std::optional<SmallVector<int64_t>> reducedShape(RankedTensorType input,
                                                   StringRef dimName,
                                                   bool keepdim,
                                                   bool allIfEmpty = false);

  /// The shape of input[start:end:step] along `dim`, as aten::slice and
  /// slice_scatter read their arguments. Empty when they are traced or
  /// invalid.
  std::optional<SmallVector<int64_t>> slicedShape(RankedTensorType input);

  /// Whether `input` and `index` are known and `index` is what gather and
  /// scatter (scatter_add, scatter_reduce) take: an int64 tensor with as
  /// many dims as `input` (0-d counting as 1-D), along an in-range `dim` (a
  /// traced one is checked at run time). Else stop() answers.
  bool gatherIndex(RankedTensorType input, RankedTensorType index);

  /// Adds an operand of a broadcasting op: its type (a tensor or a Python
  /// number) to `types`, a tensor's shape to the broadcast `shape`. False
  /// (see stop()) for an unranked tensor or one that does not broadcast.
  bool broadcastOperand(Type operand, SmallVectorImpl<Type> &types,
                        SmallVector<int64_t> &shape);

  /// Whether `a` and `b` are known and of one dtype; else stop() answers
  /// (an error "expects operands of one dtype").
  bool oneDType(RankedTensorType a, RankedTensorType b);

  /// Whether decodeConv, decodePool or decodeUnpool gave Ok; else its
  /// `message` is reported (Invalid) or the arguments are traced (Unknown).
  bool decoded(ConvDecode status, const std::string &message);

  /// The window of a max/avg/lp pooling call on `input` (whose rank
  /// checkPoolInput checks first); empty when an argument is traced or
  /// invalid.
  std::optional<PoolParams> poolWindow(RankedTensorType input,
                                       unsigned spatial);

  /// `input` pooled with `window`: its spatial sizes are the windows'
  /// count (none is negative). `checkOutput`: torch's "output size is too
  /// small" is an error (empty result).
  std::optional<SmallVector<int64_t>> pooledShape(RankedTensorType input,
                                                  const PoolParams &window,
                                                  bool checkOutput);
};

std::string shapeStr(ArrayRef<int64_t> shape);

/// Whether two sizes are both known and differ (a traced size matches
/// anything until run time).
bool dimsDiffer(int64_t a, int64_t b);

int64_t mulDims(int64_t a, int64_t b);

/// An operand's part in type promotion: a tensor type by its rank, or a
/// Python number (i64, f64, i1) by its type; nullopt for other types
/// (quantized, complex, opaque).
std::optional<PromotionOperand> promotionOperand(Type t);

/// torch.result_type of operands given by their Python types (tensors and
/// numbers); null when an operand has no dtype we know, unless all such
/// operands share one element type (kept as it is).
Type resultElementType(ArrayRef<Type> types, MLIRContext *ctx);

FailureOr<SmallVector<int64_t>> broadcastShapes(const BoundCall &call,
                                                ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b);

/// An elementwise op over the tensors and numbers `names`: their
/// broadcast shape and promoted dtype (`toFloat`: integers and bool give
/// float32, as float-only math does).
LogicalResult pointwise(const BoundCall &call, SmallVectorImpl<Type> &results,
                        ArrayRef<StringRef> names, bool toFloat);

/// `fn` of an ArgReader over a bound call's constant arguments (for
/// decodeConv and decodePool).
template <typename Fn>
static ConvDecode withArgReader(const BoundCall &call, Fn fn) {
  auto value = [&](StringRef name) -> Attribute {
    if (!call.getSignature().lookup(name))
      return nullptr;
    return call.get(name).value;
  };
  auto ints = [&](StringRef name) { return getPyInts(value(name)); };
  auto integer = [&](StringRef name) { return call.getInt(name); };
  auto boolean = [&](StringRef name) { return call.getBool(name); };
  auto str = [&](StringRef name) -> std::optional<std::string> {
    if (auto s = dyn_cast_or_null<StringAttr>(value(name)))
      return s.str();
    return std::nullopt;
  };
  auto isNone = [&](StringRef name) { return call.isNone(name); };
  auto known = [&](StringRef name) { return bool(value(name)); };
  ArgReader reader{ints, integer, boolean, str, isNone, known};
  return fn(reader);
}

/// The three flags of a gradient's constant `output_mask` (bool[3]).
LogicalResult outputMask(const BoundCall &call, SmallVectorImpl<bool> &mask);

/// Checks a pooling input's rank (`spatial` + 1 or + 2; channel and
/// spatial dims non-empty, as torch requires).
LogicalResult checkPoolInput(const BoundCall &call, RankedTensorType input,
                             unsigned spatial);

/// A reduction's result: `input` reduced over `dim`, of element type
/// `elt` (null: the input's); `withIndices` adds an int64 tensor of the
/// same shape (a (values, indices) tuple); `pair` a tuple of two `elt`s.
LogicalResult reductionResult(const BoundCall &call,
                              SmallVectorImpl<Type> &results, Type elt,
                              bool allIfEmpty = false, bool withIndices = false,
                              bool pair = false, StringRef dimName = "dim");

LogicalResult reduction(const BoundCall &call, SmallVectorImpl<Type> &results,
                        bool isSum);

/// The `dtype=` argument of a call, or `fallback`.
Type dtypeOr(const BoundCall &call, Type fallback);

/// Refuses a call that computes in `computed`, for which torch 1.13 has no
/// CPU kernel: what a rule says when the dtype table, which reads the
/// promoted operands alone, cannot (a `dtype=` argument, operands not
/// named `input`, a kernel that depends on another argument).
LogicalResult noCpuKernel(const BoundCall &call, Type computed);

/// `t` with dim `d` of size `size` (a 0-d `t`, whose dim 0 torch takes,
/// as it is).
RankedTensorType withDimSize(RankedTensorType t, int64_t d, int64_t size);

/// `t` without dim `d`: select's and unbind's result.
RankedTensorType withoutDim(RankedTensorType t, int64_t d);

/// Ranked tensor element types of a `Tensor[]` argument, or empty.
SmallVector<RankedTensorType> tensorList(const BoundCall &call, StringRef name);

/// A tensor of the shape of the tensor `shapeOf` and the dtype of the
/// tensor `dtypeOf` (view_as and the like; type_as).
LogicalResult shapeAndDType(const BoundCall &call,
                            SmallVectorImpl<Type> &results, StringRef shapeOf,
                            StringRef dtypeOf);

/// The rules of Rules.def, each defined in its family's file. A rule reads
/// `call` and answers through `h`, the helper ruleTable() makes for the call
/// (its `results` are the rule's). sameAsInput, the rule of ops whose
/// result has the input's type (Elementwise.cpp), is where other families'
/// rules end.
#define TRACED_RULE(name)                                                      \
  LogicalResult name(const BoundCall &call, RuleHelper &h);
#include "Rules.def"

/// Elementwise.cpp's casts (Rules.def's TRACED_CAST_RULE): the input's
/// shape in dtype `D`.
template <DType D>
LogicalResult castTo(const BoundCall &call, RuleHelper &h);

} // namespace mlir::traced::rules

#endif // TRACEDIR_LIB_OPLIBRARY_RULES_COMMON_H
