//===- Lowering.h - what the per-family lowerings share ---------*- C++ -*-===//
//
// `convert-traced-to-linalg` binds every call to its op-library signature and
// hands it, as a `LoweringCall`, to the lowering function registered for its
// canonical target. The functions live in one file per op family and build
// linalg on tensors with the helpers declared here.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_CONVERSION_LOWERING_H
#define TRACEDIR_LIB_CONVERSION_LOWERING_H

#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/OpLibrary/OpLibrary.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringMap.h"
#include <array>
#include <functional>

namespace mlir::traced::lowering {

/// A call of a known target with its arguments bound to the signature, and
/// the lowered values of its operands.
class LoweringCall {
public:
  LoweringCall(Operation *op, const OpSpec *spec, SmallVector<Attribute> slots,
               ValueRange operands, RewriterBase &rewriter)
      : op(op), spec(spec), slots(std::move(slots)), operands(operands),
        rewriter(rewriter), loc(op->getLoc()) {}

  Operation *op;
  const OpSpec *spec;
  SmallVector<Attribute> slots;
  /// The lowered operands: the receiver first for a method call.
  ValueRange operands;
  RewriterBase &rewriter;
  Location loc;

  /// The lowered value of an operand of another (already visited) op; set
  /// by the conversion pattern.
  std::function<Value(Value)> remap;

  StringRef target() const { return spec->name; }
  /// The lowered tensor passed as parameter `name`, or null (None, a
  /// constant, or a Python value).
  Value tensor(StringRef name) const;
  /// The Python number passed as parameter `name` as a value (i64, f64 or
  /// i1): a traced number's lowered value, or a constant materialized;
  /// null for anything else.
  Value scalar(StringRef name) const;
  /// The tensors of a `Tensor[]` parameter; failure if one is not a tensor.
  FailureOr<SmallVector<Value>> tensors(StringRef name) const;
  /// The Python value of parameter `name` when it is known at compile time
  /// (operands defined by traced.constant or getattr of plain attributes are
  /// looked through), or null.
  Attribute value(StringRef name) const;
  bool isNone(StringRef name) const;
  std::optional<int64_t> getInt(StringRef name) const;
  std::optional<double> getFloat(StringRef name) const;
  std::optional<bool> getBool(StringRef name) const;
  /// An int-list parameter as sizes (`torch.full((T, S), ...)`): constants
  /// as index attributes, traced ints (sizes as values) as `index` values;
  /// nullopt when an element is neither.
  std::optional<SmallVector<OpFoldResult>> sizeList(StringRef name) const;
  /// An int list (one int is repeated `size` times when `size` > 0).
  std::optional<SmallVector<int64_t>> getInts(StringRef name,
                                              unsigned size = 0) const;

  /// The type of result `i` as the lowered code stores it (`storageType`):
  /// a statically shaped tensor, or null. With `dynamic`, a ranked tensor
  /// with dynamic dims too: lowerings that take dynamic dims (sizes from
  /// `tensor.dim` of their operands, never from static shape arithmetic)
  /// ask for it; the others refuse dynamic dims by getting null.
  RankedTensorType resultType(unsigned i = 0, bool dynamic = false) const;
  /// The traced type of result `i` (bool as i1, uint8 as ui8), or null.
  RankedTensorType logicalResultType(unsigned i = 0,
                                     bool dynamic = false) const;
  /// The traced element type of a lowered operand `v` of this call (bool as
  /// i1, uint8 as ui8); `v`'s own element type when it is not an operand.
  Type logicalElementType(Value v) const;
  SmallVector<Type> logicalElementTypes(ValueRange values) const;

  /// Reports that this call cannot be lowered, naming the target.
  LogicalResult fail(const Twine &why) const;
  /// A run-time check: compiled code whose `ok` (an i1) is false at run
  /// time reports "<file>:<line>: '<target>': <what>" instead of returning
  /// its outputs (a `cf.assert` here; traced-cpu-lower-checks turns it into
  /// the entry point's status).
  void check(Value ok, const Twine &what) const;

  /// The original (traced) operand a marker slot stands for, and its
  /// lowered value; null for a slot that is not a marker.
  Value original(Attribute slot) const;
  Value lowered(Attribute slot) const;
};

/// Whether `target` is a convolution (Linalg.cpp).
bool isConvTarget(StringRef target);

/// Why the direct lowering of `target` does not handle the element types of
/// call `op`'s tensors, or nothing when it does: elementwise, shape, sum and
/// mean lowerings take every element type, average pooling also int64, the
/// others f32 and f64 only. A call it refuses is decomposed instead when its
/// entry has a decomposition that applies.
std::optional<std::string> elementTypeError(StringRef target, Operation *op);

/// Refuses, naming the target and the element type, a call whose tensors'
/// element types its lowering does not handle (`elementTypeError`).
/// (The conversion pattern checks every call; `operator.getitem` checks the
/// call whose element it lowers.)
LogicalResult checkElementTypes(LoweringCall &c);

/// `fn` of an ArgReader over a call's constant arguments (for the op
/// library's decodeConv and decodePool, which the rules and the kernels
/// call too).
template <typename Fn> auto withArgReader(LoweringCall &c, Fn fn) {
  auto ints = [&](StringRef name) { return getPyInts(c.value(name)); };
  auto integer = [&](StringRef name) { return c.getInt(name); };
  auto boolean = [&](StringRef name) { return c.getBool(name); };
  auto str = [&](StringRef name) -> std::optional<std::string> {
    if (auto s = dyn_cast_or_null<StringAttr>(c.value(name)))
      return s.str();
    return std::nullopt;
  };
  auto isNone = [&](StringRef name) { return c.isNone(name); };
  auto known = [&](StringRef name) { return bool(c.value(name)); };
  ArgReader reader{ints, integer, boolean, str, isNone, known};
  return fn(reader);
}

/// Lowers one call; returns the values replacing its results.
using LowerFn = FailureOr<SmallVector<Value>> (*)(LoweringCall &call);
using LoweringTable = llvm::StringMap<LowerFn>;

/// Element `index` of multi_head_attention_forward's result for the bound
/// call `mha`: the attention output (0) or, with need_weights, the
/// attention weights (1; averaged over the heads with
/// average_attn_weights).
FailureOr<Value> lowerAttentionElement(LoweringCall &mha, int64_t index);
/// Whether `target` is a max pooling call whose result may be a (values,
/// indices) tuple, and element `index` of that tuple, of type `type`.
bool isMaxPoolWithIndices(StringRef target);
FailureOr<Value> lowerMaxPoolElement(LoweringCall &c, int64_t index,
                                     RankedTensorType type);

/// Eval-mode dropout and stochastic depth, and copies (clone, contiguous,
/// detach): the input (Elementwise.cpp).
FailureOr<SmallVector<Value>> lowerIdentityUnlessTraining(LoweringCall &c);

/// Each family file names its entries' lowerings.
void populateElementwiseLowerings(LoweringTable &table);
/// The special functions (SpecialMath.cpp), part of the Elementwise family.
void populateSpecialLowerings(LoweringTable &table);
void populateFactoryLowerings(LoweringTable &table);
void populateLinalgLowerings(LoweringTable &table);
void populateLossLowerings(LoweringTable &table);
void populatePoolLowerings(LoweringTable &table);
void populateNormLowerings(LoweringTable &table);
void populateReduceLowerings(LoweringTable &table);
void populateShapeLowerings(LoweringTable &table);
void populateIndexLowerings(LoweringTable &table);
void populateSortLowerings(LoweringTable &table);
void populateQuantizedLowerings(LoweringTable &table);
/// Whether `target` is traced.nn.rnn or traced.nn.rnn_cell, whose tuple
/// results are lowered where getitem reads them, and the element at `path`
/// (indices from the call's result: {0} the output, {1, 0} an LSTM's h_n),
/// of type `type` (Linalg.cpp).
bool isRecurrentTarget(StringRef target);
FailureOr<Value> lowerRecurrentElement(LoweringCall &c, ArrayRef<int64_t> path,
                                       RankedTensorType type);
/// Whether `target` is sort, topk or kthvalue, whose (values, indices)
/// tuples are lowered where getitem reads them, and element `index` of one
/// (Sort.cpp).
bool isSortTarget(StringRef target);
FailureOr<Value> lowerSortElement(LoweringCall &c, int64_t index,
                                  RankedTensorType type);
/// Element `index` (0: the mantissa, 1: the int32 exponent) of a
/// torch.frexp call, lowered where getitem reads it (SpecialMath.cpp).
FailureOr<Value> lowerFrexpElement(LoweringCall &c, int64_t index,
                                   RankedTensorType type);
/// Whether `target` is a factorization over the linear-algebra runtime
/// (cholesky, lu_factor, solve, qr, svd, eigh, ...), and element `index` of
/// its results (0 for a single result), lowered to a call of the runtime
/// (Linalg.cpp, docs/linalg-runtime.md).
bool isLapackTarget(StringRef target);
FailureOr<Value> lowerLapackElement(LoweringCall &c, int64_t index);
/// A call of a CPU runtime function (docs/linalg-runtime.md): its results
/// and its status (an i32, 0 on success).
struct RuntimeCall {
  SmallVector<Value> results;
  Value status;
};
/// One call of `traced_linalg_<routine>_<f32|f64|i64>` (by `element`), by
/// buildRuntimeCall (below); the status is the first nonzero LAPACK info
/// (Linalg.cpp).
RuntimeCall callRuntime(LoweringCall &c, StringRef routine, Type element,
                        ArrayRef<Value> inputs,
                        ArrayRef<RankedTensorType> outputs,
                        ArrayRef<int64_t> ints);
/// Element `index` of torch.mode's (values, indices), `type` the traced
/// type of that element: the runtime's traced_linalg_mode_f64/_i64 over the
/// dim moved last and widened (Reduce.cpp).
FailureOr<Value> lowerModeElement(LoweringCall &c, int64_t index,
                                  RankedTensorType type);
/// `x[index]` where the index holds tensors (Index.cpp).
FailureOr<SmallVector<Value>> lowerAdvancedGetitem(LoweringCall &call, Value x);
const LoweringTable &getLoweringTable();

//===----------------------------------------------------------------------===//
// Builders shared across families
//===----------------------------------------------------------------------===//

using ScalarFn =
    function_ref<Value(OpBuilder &b, Location loc, ValueRange args)>;

/// How the lowered code stores elements of traced type `type`: bool (i1)
/// as i8 holding 0 or 1 (numpy's layout, and vectors of i1 would be
/// bit-packed in memory), uint8 (ui8) as signless i8. Tensor types map
/// their element type; other types are unchanged.
Type storageType(Type type);
/// The type a scalar of traced element type `type` is computed in inside a
/// generic body: f16 and bf16 in f32 (rounded back once per op, as torch's
/// CPU kernels do), ui8 as signless i8 (unsigned ops chosen by the caller),
/// bool as i1, others as themselves.
Type computeType(Type type);
/// Whether traced element type `type` has unsigned semantics (ui8).
bool isUnsignedElement(Type type);
/// An `arith.constant` of `value` (a traced tensor constant) in its storage
/// type. dense_resource blobs are shared, not copied, except for tensors of
/// at most one element, which become dense attributes: upstream reads 0-d
/// globals as splats and translates empty ones by dividing by their size,
/// neither of which works on a resource.
Value buildConstant(OpBuilder &b, Location loc, ElementsAttr value);

/// A scalar of type `type` with value `v`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double v);
/// 1 / sqrt(x) (libm has no rsqrtf for math-to-libm to call).
Value buildRsqrt(OpBuilder &b, Location loc, Value x);
/// `v` converted to signless element type `to` the way torch converts:
/// int/float extension and truncation, ints to floats (unsigned when
/// `fromUnsigned` or i1), floats to ints through i64 (so that a negative
/// float wraps into uint8 as on x86), and anything to i1 as `!= 0`.
Value castScalar(OpBuilder &b, Location loc, Value v, Type to,
                 bool fromUnsigned = false);

/// A `linalg.generic` computing `fn` elementwise over `inputs` (lowered
/// tensors, in storage types), broadcast NumPy-style to `resultType`'s shape.
/// `resultType` is the traced (logical) type; the generic produces its
/// storage type. `fn` receives the inputs' elements converted to
/// `computeType` of the result's element type and returns a value of that
/// type. `inputTypes`, when given, are the inputs' traced element types
/// (needed for uint8 inputs; default: their storage element types).
/// `operandType`, when given, is the type the inputs are converted to
/// instead (comparisons compute in the promoted type, not in bool).
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarFn fn,
                       ArrayRef<Type> inputTypes = {}, Type operandType = {});
/// The same with the inputs' indexing maps given.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ArrayRef<AffineMap> maps,
                       ScalarFn fn, ArrayRef<Type> inputTypes = {},
                       Type operandType = {});
/// An i1 that is true when every element of integer tensor `t` (a lowered
/// tensor) lies in [low, high].
Value buildAllInRange(OpBuilder &b, Location loc, Value t, int64_t low,
                      int64_t high);
/// The positions of the nonzero elements of `mask` (a lowered bool or
/// uint8 tensor), in row-major order, as one int64 index tensor of
/// `count` elements per mask dim (torch's `mask.nonzero().unbind(1)`), for
/// a count known from the trace; a run-time check of `c` reports a mask
/// with another count ("<what> than the <count> of the trace ...").
SmallVector<Value> buildMaskIndices(
    LoweringCall &c, Value mask, int64_t count,
    StringRef what = "a boolean mask selects another number of elements");
/// `tensor.empty` filled with `v`, for a statically shaped `type`.
Value buildFilled(OpBuilder &b, Location loc, RankedTensorType type, double v);
/// The same for any `type`, its dynamic dims' sizes taken from `sizes` (one
/// per dim; the static ones are not read).
Value buildFilled(OpBuilder &b, Location loc, RankedTensorType type,
                  ArrayRef<OpFoldResult> sizes, double v);
/// `v`'s type when it is a ranked tensor (dynamic dims allowed), else null.
RankedTensorType rankedTensorType(Value v);
/// The sizes of tensor `v`'s dims: static ones as attributes, dynamic ones
/// as `tensor.dim`.
SmallVector<OpFoldResult> dimSizes(OpBuilder &b, Location loc, Value v);
/// `tensor.empty` of `type`, its dynamic dims' sizes taken from `sizes` (one
/// per dim; the static ones are not read).
Value buildEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                 ArrayRef<OpFoldResult> sizes);
/// A run-time check's message: `what`, after the user's file:line when
/// `loc` holds one.
std::string checkMessage(Location loc, const Twine &what);
/// A run-time check (`cf.assert`, traced-cpu-lower-checks) that two sizes
/// are equal; nothing when both are constants.
void checkSameSize(OpBuilder &b, Location loc, OpFoldResult a, OpFoldResult c,
                   const Twine &what);
/// `v` cast to `type` (the same rank; static where `v` may be dynamic): each
/// dim `type` holds static and `v` computes at run time is checked equal to
/// it first, with `what` as the message (a trace can see a size as static by
/// coincidence of its two traced sizes: checked, never assumed). `v` itself
/// when the types agree.
Value castChecked(OpBuilder &b, Location loc, Value v, RankedTensorType type,
                  const Twine &what);
/// `input` reshaped to `shape` when a dim of either is dynamic: a leading
/// run of equal dims keeps its groups, the rest goes through one dim. The
/// target's dynamic sizes come from `targetSizes` (one per dim) or, for a
/// single dynamic dim, from the element count. Null when they cannot be
/// known.
Value buildDynamicReshape(OpBuilder &b, Location loc, Value input,
                          ArrayRef<int64_t> shape,
                          ArrayRef<OpFoldResult> targetSizes = {});
/// The identity of max (`isMax`) or min over compute type `type`: -inf or
/// +inf for floats, else the lowest or highest integer of its width
/// (unsigned for `isUnsigned` and for i1).
double extremeIdentity(Type type, bool isMax, bool isUnsigned);
/// max or min of `a` and `b`: NaN-propagating for floats (torch's amax and
/// scatter_reduce), unsigned compares for `isUnsigned`.
Value buildExtreme(OpBuilder &b, Location loc, Value a, Value c, bool isMax,
                   bool isUnsigned);
/// A reduction of `input` over `dims` with `combine`, starting from `init`;
/// the result drops the reduced dimensions.
Value buildReduce(OpBuilder &b, Location loc, Value input,
                  ArrayRef<int64_t> dims, double init, ScalarFn combine);
/// `input` reshaped to `shape` (same element count).
Value buildReshape(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> shape);
/// `input` with its dimensions permuted (`result[i] = input[perm[i]]`).
Value buildTranspose(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> perm);
/// `a @ b` for 2-D `a` (M x K) and `b` (K x N).
Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs);
/// `a @ b` for 3-D `a` (B x M x K) and `b` (B x K x N).
Value buildBatchMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs);
/// `weight.T` for a 2-D `arith.constant` weight, computed at compile time
/// into a new blob; null when `weight` is not such a constant.
Value transposedConstant(OpBuilder &b, Location loc, Value weight);
/// The tensor a `linalg.fill` of zero fills, when `init` is that fill's
/// result (a convolution's output as the lowering builds it); null
/// otherwise. A rewrite that writes every element may start from it.
Value zeroFilledDestination(Value init);
/// The row-major bytes of the elements of an `arith.constant` of static
/// shape (seen through reshapes); empty when `weight` is not one. `storage`
/// holds them where they had to be expanded (a splat).
ArrayRef<char> constantBytes(Value weight, std::vector<char> &storage);
/// A dense_resource attribute of `type` holding `blob`, named `hint` and a
/// hash of the bytes: the CPU pipeline makes such constants (packed panels,
/// Winograd filters) in function passes that run on several threads, where
/// a counter (the blob manager uniques names) would number them in the
/// threads' order and the IR would differ from run to run.
DenseResourceElementsAttr contentNamedResource(ShapedType type, StringRef hint,
                                               AsmResourceBlob blob);
/// The elements of an `arith.constant` (seen through reshapes) read as a
/// row-major tensor of `shape`, permuted by `perm` (`result[i] =
/// input[perm[i]]`), computed at compile time into a new blob; null when
/// `weight` is not such a constant. `name` names the blob.
Value permutedConstant(OpBuilder &b, Location loc, Value weight,
                       ArrayRef<int64_t> shape, ArrayRef<int64_t> perm,
                       StringRef name);
/// `x @ weight.T + bias` over the last dimension of `x` (bias may be null).
Value buildLinear(OpBuilder &b, Location loc, Value x, Value weight,
                  Value bias);
/// Softmax (or log-softmax) along `dim`.
Value buildSoftmax(OpBuilder &b, Location loc, Value input, int64_t dim,
                   bool log);
/// `input` zero- (or `value`-) padded by `low`/`high` per dimension.
/// Reflect, replicate or circular padding of dims firstDim, firstDim + 1,
/// ... (F.pad's modes, conv's padding_mode); Linalg.cpp.
Value padByMode(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> before,
                ArrayRef<int64_t> after, ConvParams::PadMode mode,
                unsigned firstDim = 2);
Value buildPad(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> low,
               ArrayRef<int64_t> high, double value);
/// A static slice: offsets, sizes and strides per dimension.
Value buildSlice(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                 ArrayRef<int64_t> strides);

/// What an index selects before its tensor parts: the window of x its ints,
/// slices, None and Ellipsis select (extract_slice offsets, sizes and
/// strides; an int is a size-1 window) and the view's shape (ints' dims
/// dropped, None's inserted). Items `isAdvanced` accepts (index tensors,
/// lists) take their whole dim and are kept per view dim in `advanced`
/// (null elsewhere); without `isAdvanced` only basic items are accepted.
struct IndexView {
  SmallVector<int64_t> offsets, sizes, strides, shape;
  SmallVector<Attribute> advanced;
};
FailureOr<IndexView> indexView(LoweringCall &c, RankedTensorType xType,
                               ArrayRef<Attribute> items,
                               function_ref<bool(Attribute)> isAdvanced = nullptr);

/// The view a basic index (ints, slices, None, Ellipsis with constant
/// bounds) selects: the call's `index` over an `x` of type `xType`
/// (getitem's and setitem's; Shape.cpp).
FailureOr<IndexView> basicIndexView(LoweringCall &c, RankedTensorType xType);

/// The same window when bounds or dims of `x` are known at run time only
/// (sizes as values, docs/llm.md): offsets, sizes and strides for
/// extract_slice or insert_slice over `x` (one per dim of `x`) and the
/// view's shape, as run-time values where they are not constants. Slice
/// bounds are clamped as Python clamps them; an int index is checked in
/// range at run time.
struct DynamicIndexView {
  SmallVector<OpFoldResult> offsets, sizes, strides, shape;
};
FailureOr<DynamicIndexView> dynamicIndexView(LoweringCall &c, Value x);

/// Python's bounds of slice `s` (constant parts) over a dim of `size`:
/// the first element, the number taken and the (positive) step.
FailureOr<std::array<int64_t, 3>> sliceBounds(SliceAttr s, int64_t size);

/// One call of the external function `symbol` (declared once per module
/// that holds `anchor`): each tensor of `inputs` is copied into a fresh
/// contiguous buffer (memref.alloc, then
/// bufferization.materialize_in_destination), each of `outputs` is a fresh
/// buffer the routine writes and bufferization.to_tensor (restrict) reads;
/// all of them pass as memref<?xT> (MLIR expands a memref argument of an
/// external function into base, aligned, offset, size and stride: the
/// runtime's ABI), then `ints` as i64. The call is the last user of every
/// buffer, so the deallocation pipeline frees them after it. Without
/// `copyInputs`, the inputs pass as their own buffers
/// (bufferization.to_buffer, read_only): for a routine that only reads
/// them (a constant weight is then not copied at every call).
RuntimeCall buildRuntimeCall(OpBuilder &b, Location loc, Operation *anchor,
                             StringRef symbol, ArrayRef<Value> inputs,
                             ArrayRef<RankedTensorType> outputs,
                             ArrayRef<int64_t> ints, bool copyInputs = true);
/// The statically shaped ranked tensor type of `v`, or null.
RankedTensorType staticTensorType(Value v);
/// Normalizes a possibly negative dimension index for rank `rank`.
int64_t normalizeDim(int64_t dim, int64_t rank);

} // namespace mlir::traced::lowering

#endif // TRACEDIR_LIB_CONVERSION_LOWERING_H
