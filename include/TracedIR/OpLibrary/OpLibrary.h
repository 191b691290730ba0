//===- OpLibrary.h - what the known call targets mean -----------*- C++ -*-===//
//
// Each known target (`torch.nn.functional.conv2d`, `Tensor.view`, the leaf
// module classes) is described once, here: its canonical name, its aliases
// (PyTorch and MegEngine spellings), its Python signature with defaults and
// its result rule. The verifier, the parser's normalization and (later) the
// interpreter, folders and lowerings all read the same entry.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_OPLIBRARY_OPLIBRARY_H
#define TRACEDIR_OPLIBRARY_OPLIBRARY_H

#include "TracedIR/OpLibrary/Runtime.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeRange.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/StringMap.h"
#include <optional>
#include <string>
#include <vector>

namespace mlir::traced {

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

/// The declared type of a parameter, in TorchScript schema spelling:
/// `Tensor`, `Tensor?`, `Tensor[]`, `int`, `int?`, `int[]`, `int[2]`, `float`,
/// `bool`, `str`, `Scalar` (int, float or bool), `Tensor|Scalar`, `dtype`,
/// `Any`, and `<type>|str` (conv's `padding`: ints or "same"). As in
/// TorchScript, `int[2]` also accepts one int, meaning it repeated; list
/// lengths are the result rule's to check.
struct ParamType {
  enum Kind {
    Tensor,
    Int,
    Float,
    Bool,
    Str,
    Scalar,
    TensorOrScalar,
    DType,
    Any
  };
  Kind kind = Any;
  bool isList = false;
  unsigned listSize = 0;   // 0: any length.
  bool optional = false;   // also accepts None.
  bool acceptsOne = false; // a list that may be given as one element
  bool orStr = false;      // `int[2]|str`: also accepts a str (conv padding)

  /// Whether a value of Python type `type` may be passed.
  bool accepts(Type type) const;
  std::string str() const;
};

struct Param {
  std::string name;
  ParamType type;
  /// The default in Python syntax (`None`, `1`, `[0, 0]`, `"none"`); empty
  /// when the parameter is required.
  std::string defaultValue;
  bool keywordOnly = false;
  /// `*shape`: takes the remaining positional arguments as one list (or a
  /// single list argument as it is).
  bool varargs = false;
};

/// A parsed Python signature, e.g.
/// `(Tensor input, Tensor? bias=None, int[2] stride=1, *, bool inplace=False)`.
struct Signature {
  std::vector<Param> params;
  std::string text;

  /// Parses `text`; reports malformed schemas (a bug in the table) on stderr.
  static Signature parse(llvm::StringRef text);
  std::optional<unsigned> lookup(llvm::StringRef name) const;
};

//===----------------------------------------------------------------------===//
// Bound calls and result rules
//===----------------------------------------------------------------------===//

/// A call's arguments bound to a signature: one entry per parameter, the
/// argument's Python type and, when it is a constant, its value.
class BoundCall {
public:
  struct Arg {
    Type type;
    /// The constant value (an operand-free Python value), or null when the
    /// argument is a traced value or holds one.
    Attribute value;
    /// The bound argument itself: `value`, or a Python value holding
    /// operand markers (OperandAttr) where the traced values are.
    Attribute slot;
    /// For a list or tuple argument, the type of each element when known.
    llvm::SmallVector<Type> elements;
  };

  BoundCall(MLIRContext *ctx, const Signature &sig, llvm::StringRef target,
            function_ref<InFlightDiagnostic()> emitError)
      : ctx(ctx), sig(sig), target(target), emitErrorFn(emitError),
        args(sig.params.size()) {}

  MLIRContext *getContext() const { return ctx; }
  /// The canonical entry called (`torch.hstack` for
  /// `torch.ops.aten.hstack.default`).
  llvm::StringRef getTarget() const { return target; }
  const Signature &getSignature() const { return sig; }
  Arg &operator[](unsigned i) { return args[i]; }
  const Arg &get(llvm::StringRef name) const;

  Type getType(llvm::StringRef name) const { return get(name).type; }
  bool isNone(llvm::StringRef name) const;
  /// The ranked tensor type of the argument, or null.
  RankedTensorType getTensor(llvm::StringRef name) const;
  std::optional<int64_t> getInt(llvm::StringRef name) const;
  std::optional<double> getFloat(llvm::StringRef name) const;
  std::optional<bool> getBool(llvm::StringRef name) const;
  /// An int list; a single int is repeated `size` times when `size` > 0.
  /// Null when unknown (an element is a traced value).
  std::optional<llvm::SmallVector<int64_t>> getInts(llvm::StringRef name,
                                                    unsigned size = 0) const;

  /// An int list whose elements may be traced ints (sizes as values): those
  /// are ShapedType::kDynamic. Null when an element is neither.
  std::optional<llvm::SmallVector<int64_t>> getSizes(llvm::StringRef name) const;

  /// Reports an error at the call (the caller's emitter names the target).
  InFlightDiagnostic emitError() const;

private:
  MLIRContext *ctx;
  const Signature &sig;
  llvm::StringRef target;
  function_ref<InFlightDiagnostic()> emitErrorFn;
  std::vector<Arg> args;
};

/// What an op-specific fold sees of a call with one result: the traced
/// value bound to a parameter (null when it holds none), the bound argument
/// (a Python value, or a marker), and the result type.
struct FoldCall {
  llvm::function_ref<Value(llvm::StringRef)> value;
  llvm::function_ref<Attribute(llvm::StringRef)> slot;
  Type resultType;
};
/// What the call's result is without running anything (an operand it
/// forwards, or a Python constant: `x * 1`, eval dropout, a static size),
/// or null. Folds are cheap and run no kernels (traced-fold-constants does
/// that).
using FoldFn = OpFoldResult (*)(const FoldCall &call);

/// Computes a target's result types from its bound arguments. On success,
/// `results` holds one type per result; an empty vector means the types
/// cannot be known statically (they are not checked), a null entry means that
/// one result is unknown. On failure the rule has reported the error.
using ResultRule = LogicalResult (*)(const BoundCall &call,
                                     llvm::SmallVectorImpl<Type> &results);

//===----------------------------------------------------------------------===//
// Library entries
//===----------------------------------------------------------------------===//

/// Calls of an entry that the CPU compiler does not compile, on purpose
/// (OpTable.cpp's kInterpreterOnly rows): the interpreter runs them, and
/// the compiler's refusal of such a call quotes `reason`. A compile refusal
/// of a call that no mark covers is a compiler bug, and the differential
/// fuzzer (tools/fuzz/fuzz-diff.cpp) reports it as a finding.
struct OpSpec;

/// A call's arguments as the op library's predicates read them, without
/// naming the dialect's ops: the bound argument of a parameter (a Python
/// value or an operand marker) and the type of the traced value bound to
/// it (null when none). The dialect's BoundOp provides them
/// (`interpreterOnlyReason(Operation *)` in BoundOp.h).
struct BoundArgs {
  llvm::function_ref<Attribute(llvm::StringRef)> slot;
  llvm::function_ref<Type(llvm::StringRef)> valueType;
};

struct InterpreterOnly {
  /// The dtypes (one bit per DType) that make a call interpreter-only when
  /// a tensor operand or result has one; 0: every call of the entry.
  uint16_t dtypes = 0;
  /// And only when this holds of the call, if set (a condition on its
  /// arguments, such as `return_indices=True`).
  bool (*when)(const OpSpec &spec, const BoundArgs &args) = nullptr;
  /// Why, in a few words: what the lowering lacks.
  llvm::StringRef reason;
};

/// What an entry does with quantized tensors (the quant dialect's element
/// types; docs/quantization.md). torch 1.13 runs few ops on them (those
/// with a QuantizedCPU kernel), and computing on their storage integers as
/// if they were values would answer wrongly without a word: a call of an
/// entry that does not say otherwise is an error.
enum class QuantizedUse : uint8_t {
  /// A quantized tensor argument is an error: dequantize it first.
  Refused,
  /// The entry only moves, copies or selects elements (views, reshapes,
  /// concatenation along a dim of equal qparams, max pooling: the order of
  /// quantized values is their storage integers' order). It is computed
  /// on the storage integers, and its results of the storage type are of
  /// the input's quantized type.
  Storage,
  /// Results of the input's quantized type (typed as Storage entries are),
  /// computed by a quantized kernel of the entry's own (the interpreter's
  /// lookupQuantizedKernel): relu, hardtanh, average pooling.
  SameQParams,
  /// Results of fixed parameters whatever the input's (hardsigmoid,
  /// sigmoid: scale 1/256 and zero point 0 for quint8, -128 for qint8, as
  /// torch sets them; fixedQParamsType), computed by a quantized kernel of
  /// the entry's own, typed as Storage entries are otherwise.
  FixedQParams,
  /// The entry's rule and kernel take quantized tensors themselves
  /// (quantize_per_tensor, dequantize, torch.ops.quantized.*, relu).
  Native,
};

/// The quant dialect's per-tensor type of torch dtype `dtype` (a quantized
/// type: its storage width and signedness are read) at `scale` and
/// `zeroPoint`, as torch's quantized tensors hold them (float32 values,
/// the storage type's whole range); null after an error for a zero point
/// out of range or a scale that is not a positive finite number.
Type uniformQuantizedType(Type dtype, double scale, int64_t zeroPoint,
                          function_ref<InFlightDiagnostic()> emitError);

/// The fixed result parameters torch gives hardsigmoid and sigmoid of a
/// quantized tensor of element type `input`: scale 1/256 (2^-32 for
/// qint32), zero point 0 (-128 for qint8).
Type fixedQParamsType(Type input);

/// A known function or Tensor method. Method aliases are spelled
/// `Tensor.<name>`; used as a method, the receiver binds the first parameter.
struct OpSpec {
  llvm::StringRef name;
  std::vector<llvm::StringRef> aliases;
  Signature signature;
  ResultRule resultRule;
  /// The call's fold (Folds.cpp), or null.
  FoldFn fold = nullptr;
  /// Whether a call has no side effects (in-place variants do).
  bool pure = true;
  /// The dtypes torch 1.13 has no CPU kernel for (one bit per DType): a
  /// call that computes in one (torch.result_type of `input` and `other`)
  /// is reported by the verifier.
  uint16_t rejectedDTypes = 0;
  /// Whether an empty `input` skips that check (torch returns early).
  bool emptyShortcut = false;
  /// When nonzero: a floating-point dtype is accepted anyway if the last
  /// this many sizes of the result are all 1 (adaptive average pooling to
  /// 1 is a mean in torch, which has kernels for float16 and bfloat16).
  uint8_t unitOutputDims = 0;
  /// An in-place variant (`Tensor.add_`, `torch.relu_`): the entry's
  /// meaning, written into `input`, so the result has the input's type
  /// (a result dtype that cannot be cast back is an error, as in torch).
  bool inplace = false;
  /// For an ATen overload (`torch.ops.aten.add.Tensor`): its spelling. Its
  /// signature is the overload's schema (generated from torch's registry,
  /// AtenOverloads.inc); `name`, the rule and the kernel are the entry's.
  llvm::StringRef atenSpelling;
  /// The calls of this entry the CPU compiler refuses on purpose.
  std::vector<InterpreterOnly> interpreterOnly;
  /// What a call does with quantized tensors (kQuantizedUse in
  /// OpTable.cpp).
  QuantizedUse quantized = QuantizedUse::Refused;

  /// The reason the op table gives for not compiling `call` (a call of
  /// this entry), or nullopt when no InterpreterOnly mark covers it.
  std::optional<llvm::StringRef>
  interpreterOnlyReason(TypeRange operandTypes, TypeRange resultTypes,
                        const BoundArgs &args) const;

  /// Whether torch computes this entry in `dtype` on the CPU.
  bool acceptsDType(DType dtype) const {
    return !(rejectedDTypes & (1u << static_cast<unsigned>(dtype)));
  }
  /// Checks the bound call's dtypes (rejectedDTypes), then runs the result
  /// rule: what the verifier and the interpreter's planner call.
  LogicalResult inferResults(const BoundCall &call,
                             llvm::SmallVectorImpl<Type> &results) const;
};

/// Where a leaf module's functional argument comes from.
struct ModuleBinding {
  llvm::StringRef param;  // the functional's parameter
  llvm::StringRef source; // "@attr" (module attribute), "@?attr" (one the
                          // module may lack: then the functional's default),
                          // a forward parameter name, or "=<python value>"
};

/// A leaf module class: its forward signature and the functional call it
/// means, e.g. `torch.nn.Conv2d` is `F.conv2d(input, self.weight, ...)`.
struct ModuleSpec {
  llvm::StringRef className;
  std::vector<llvm::StringRef> aliases;
  Signature forward;
  llvm::StringRef functional;
  std::vector<ModuleBinding> bindings;
};

class OpLibrary {
public:
  static const OpLibrary &get();

  /// The entry for a function name or alias (`torch.relu`, `nn.relu`),
  /// including ATen spellings: `torch.ops.aten.relu` (the entry itself),
  /// `torch.ops.aten.relu.default` and `aten::relu.default` (the overload).
  const OpSpec *lookupFunction(llvm::StringRef name) const;
  /// The entry for a Tensor method (`view`, `__add__`).
  const OpSpec *lookupMethod(llvm::StringRef method) const;
  /// The entry for a leaf module class (`torch.nn.Conv2d`).
  const ModuleSpec *lookupModule(llvm::StringRef className) const;

  llvm::ArrayRef<OpSpec> getOps() const { return ops; }
  /// The ATen overloads of the entries (see OpSpec::atenSpelling).
  llvm::ArrayRef<OpSpec> getAtenOverloads() const { return atenOps; }
  llvm::ArrayRef<ModuleSpec> getModules() const { return modules; }

private:
  OpLibrary();
  std::vector<OpSpec> ops;
  std::vector<OpSpec> atenOps;
  std::vector<ModuleSpec> modules;
  llvm::StringMap<const OpSpec *> byName;
  llvm::StringMap<const ModuleSpec *> byClass;
};

/// How torch 1.13 types a pointwise loss's result from its input and
/// target dtypes (each loss has its own, from how ATen writes it).
enum class LossTyping {
  Promoted,      // mse, l1, smooth_l1: the promoted dtype (the operands are
                 // expanded to one shape first, so a 0-d one counts fully)
  ResultType,    // poisson_nll: the dtypes of the tensor ops torch writes
                 // it as (poissonNllDTypes; a 0-d operand gives way)
  AsInput,       // huber, soft_margin: the input's (the promoted dtype must
                 // cast to it: a floating input)
  AsTarget,      // bce_with_logits: the target's (both floating)
  SameDType,     // binary_cross_entropy: input and target of one dtype
  FloatOperands, // kl_div: both floating ("integral inputs not supported"),
                 // then torch.result_type
};
/// The dim torch 1.13's softmax, log_softmax and softmin (and nn.Softmax)
/// choose when `dim` is None (`_get_softmax_dim`, with a deprecation
/// warning): 0 for ranks 0, 1 and 3, else 1.
inline int64_t implicitSoftmaxDim(int64_t rank) {
  return rank == 0 || rank == 1 || rank == 3 ? 0 : 1;
}

/// torch.tensor_split's pieces along a dim of `size`, as [begin, end):
/// `sections` pieces as equal as can be (the first size % sections one
/// longer), or cuts at `indices` (each a slice bound: a negative one wraps
/// once, then it is clamped into [0, size]; a piece ending before it
/// begins is empty). Failure (with `error`) for sections < 1.
FailureOr<llvm::SmallVector<std::pair<int64_t, int64_t>>>
tensorSplitPieces(int64_t size, std::optional<int64_t> sections,
                  llvm::ArrayRef<int64_t> indices, std::string &error);

/// torch.tensordot's contracted dims (normalized) of `a` and `b`: the
/// last `count` of a's with the first `count` of b's, or the lists
/// `dimsA` and `dimsB` (when `count` is none); failure with torch's
/// message in `error` (a negative count, lists of other lengths, a dim out
/// of range or named twice, contracted sizes that differ).
FailureOr<std::pair<llvm::SmallVector<int64_t>, llvm::SmallVector<int64_t>>>
tensordotDims(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
              std::optional<int64_t> count, llvm::ArrayRef<int64_t> dimsA,
              llvm::ArrayRef<int64_t> dimsB, std::string &error);

/// tensordotDims of a `dims` argument given as a Python value (an int, or
/// two ints or int lists); nullopt when it is not such a constant.
std::optional<FailureOr<
    std::pair<llvm::SmallVector<int64_t>, llvm::SmallVector<int64_t>>>>
tensordotDimsOf(Attribute dims, llvm::ArrayRef<int64_t> a,
                llvm::ArrayRef<int64_t> b, std::string &error);

/// torch.gradient's dims (normalized: `dims` none means all) and the
/// spacing of each (`spacing`: none is 1, one number is every dim's, else
/// one per dim), checked against `shape` for `edgeOrder`; failure with
/// torch's message in `error`.
FailureOr<std::pair<llvm::SmallVector<int64_t>, llvm::SmallVector<double>>>
gradientDims(llvm::ArrayRef<int64_t> shape,
             std::optional<llvm::ArrayRef<int64_t>> dims,
             llvm::ArrayRef<double> spacing, int64_t edgeOrder,
             std::string &error);

/// The typing of pointwise loss entry `name` (its canonical name).
LossTyping lossTyping(llvm::StringRef name);
/// The result dtype of a loss typed `typing`, or nullopt with `error` set
/// to torch's complaint (a floating result is required in every case).
std::optional<DType> lossResultDType(LossTyping typing,
                                     PromotionOperand input,
                                     PromotionOperand target,
                                     std::string &error);

/// poisson_nll_loss as torch 1.13 composes it of tensor ops, each typed
/// by torch.result_type: `term` is exp(input) (log_input) or log(input +
/// eps), `product` target * input (log_input) or target * term, `result`
/// term - product (log_input) or input - product. (`full`'s Stirling term
/// is added in place, so it keeps the result's dtype.)
struct PoissonNllDTypes {
  DType term, product, result;
};
PoissonNllDTypes poissonNllDTypes(PromotionOperand input,
                                  PromotionOperand target, bool logInput);

/// A tensor operand of a margin or embedding loss: its dtype, static shape
/// and part in type promotion.
struct LossOperand {
  DType dtype;
  llvm::SmallVector<int64_t> shape;
  PromotionPriority priority() const {
    return shape.empty() ? PromotionPriority::ZeroDim : PromotionPriority::Tensor;
  }
};
/// The unreduced result of a margin or embedding loss: its dtype and shape.
struct MarginLossType {
  DType dtype;
  llvm::SmallVector<int64_t> shape;
};
/// margin_ranking, hinge_embedding, cosine_embedding, gaussian_nll,
/// multilabel_soft_margin, triplet_margin, multi_margin and
/// multilabel_margin losses (entry `name`, canonical) as torch 1.13 computes
/// them, their tensor operands given by parameter name (nullopt: None):
/// the dtype and shape of the loss before its reduction, or nullopt with
/// `error` set to torch's complaint. `p` is multi_margin's p. A reduction
/// other than 'none' makes the result 0-d; 'mean' of an integer loss
/// (hinge_embedding's) is refused (meanOfIntegersError).
std::optional<MarginLossType>
marginLossType(llvm::StringRef name,
               llvm::function_ref<std::optional<LossOperand>(llvm::StringRef)> operand,
               std::string &error);
/// torch's complaint about the mean of an integer dtype.
std::string meanOfIntegersError(DType dtype);

/// torch.searchsorted's checks of a sorted sequence of `sequence` shape,
/// values of `values` shape (nullopt: a number) and its `side`/`right`
/// arguments (side nullopt: None): whether it searches to the right, or
/// nullopt with `error` set to torch's complaint.
std::optional<bool> searchsortedSide(llvm::ArrayRef<int64_t> sequence,
                                     std::optional<llvm::ArrayRef<int64_t>> values,
                                     std::optional<std::string> side, bool right,
                                     std::string &error);

/// torch.movedim's permutation (`result dim i` = `input dim perm[i]`) for
/// a tensor of `rank`; on failure, `error` says why.
FailureOr<llvm::SmallVector<int64_t>>
movedimPermutation(llvm::ArrayRef<int64_t> source,
                   llvm::ArrayRef<int64_t> destination, int64_t rank,
                   std::string &error);

/// The dims a reduction's `dim` argument names, normalized: None or an empty
/// list mean all of them (and a 0-d tensor has none to name); nullopt when
/// `dim` is not a constant int or list of ints.
std::optional<llvm::SmallVector<int64_t>> reductionDims(Attribute dim,
                                                        int64_t rank);

/// The ints of a Python int, list or tuple of ints (one int is repeated
/// `size` times when `size` > 0); nullopt for anything else.
std::optional<llvm::SmallVector<int64_t>> getPyInts(Attribute value,
                                                    unsigned size = 0);
/// A Python int (not a bool); nullopt for anything else.
std::optional<int64_t> getPyInt(Attribute value);
/// A Python number as a float (True is 1.0, as in Python).
std::optional<double> getPyFloat(Attribute value);
std::optional<bool> getPyBool(Attribute value);

//===----------------------------------------------------------------------===//
// Pooling windows (shared by the result rules, the kernels and the lowering)
//===----------------------------------------------------------------------===//

/// The window of a max or average pooling call over 1-3 spatial dims, as
/// torch reads its arguments. The caller fills the fields from the call
/// (lists as given, a single int already repeated; an empty or absent
/// stride left empty, an absent dilation empty) and `complete` checks them
/// the way torch does, so that rule, kernel and lowering agree.
struct PoolParams {
  llvm::SmallVector<int64_t> kernel, stride, padding, dilation;
  bool ceilMode = false;

  /// Defaults stride to the kernel and dilation to 1, repeats one-element
  /// lists as torch does, then checks the list lengths against `spatial`
  /// and the values. Returns an error message,
  /// empty when the window is valid.
  std::string complete(unsigned spatial);
  /// The output size along spatial dim `i` for an input of `size` (dynamic
  /// stays dynamic); PyTorch's pooling_output_shape.
  int64_t outputSize(unsigned i, int64_t size) const;
  /// Checks the output sizes of `inputShape`'s trailing spatial dims as
  /// torch does ("output size is too small"); empty when fine.
  std::string checkOutput(llvm::ArrayRef<int64_t> inputShape) const;
};

/// PyTorch's pooled size of one dimension (pooling_output_shape): with
/// ceil_mode the last window must still start inside the input or its
/// left padding.
int64_t pooledSize(int64_t size, int64_t kernel, int64_t stride,
                   int64_t padding, int64_t dilation, bool ceilMode);

/// PyTorch's avg_pool divisor over the spatial dims: per dim, the window
/// of the output position starting at `start` (= index * stride -
/// padding), clipped to the padded input for `count_include_pad`, else to
/// the input; the divisor is the product.
struct PoolWindow {
  int64_t start, kernel, size, padding;
};
int64_t avgPoolDivisor(llvm::ArrayRef<PoolWindow> dims, bool countIncludePad);

/// The input window [first, second) of adaptive pooling's output `o` along
/// a dim of `in` elements pooled to `out`: [floor(o*in/out),
/// ceil((o+1)*in/out)).
inline std::pair<int64_t, int64_t> adaptiveWindow(int64_t o, int64_t in,
                                                  int64_t out) {
  return {(o * in) / out, ((o + 1) * in + out - 1) / out};
}

/// F.interpolate's modes, as one spatial dim is resampled.
enum class ResampleMode { Nearest, NearestExact, Linear, Cubic, Area };
/// The input positions and weights output `j` of `out` reads along a dim of
/// `size` (torch's upsample kernels: `scale` is in / out, or 1 /
/// scale_factor when the factor is used as given). The interpreter's kernel
/// and the interpolate decomposition both read these.
///
/// `channelsLast`: torch resamples a 4-D or 5-D input with one channel by
/// its channels-last kernel (a contiguous (N, 1, ...) tensor is
/// channels-last contiguous too), whose "nearest" keeps nearest_idx's
/// special cases: an equal size copies, twice the size halves the index,
/// whatever the scale.
llvm::SmallVector<std::pair<int64_t, double>, 4>
resampleTaps(ResampleMode mode, int64_t size, int64_t out, int64_t j,
             double scale, bool alignCorners, bool channelsLast = false);

/// aten::upsample_nearest{1,2,3}d's scale parameter for spatial dim `d` of
/// `spatial` ("scales"; "scales_h", "scales_w"; "scales_d", ...).
llvm::StringRef upsampleScaleParam(int64_t spatial, int64_t d);
/// The scale a dim's source indices use (torch's compute_scales_value):
/// 1 / scale for a positive one given, else size / out.
inline double upsampleScale(std::optional<double> given, int64_t size,
                            int64_t out) {
  return given && *given > 0 ? 1.0 / *given : double(size) / out;
}

/// Whether torch resamples an input of `shape` with its channels-last
/// kernel (see resampleTaps): 4-D or 5-D with one channel.
inline bool resamplesChannelsLast(llvm::ArrayRef<int64_t> shape) {
  return shape.size() >= 4 && shape[1] == 1;
}

/// Python's `x[start:end:step]` along a dimension of `size` (aten::slice):
/// bounds clamped into [0, size], None meaning the whole dimension. The
/// first element and the number taken; step must be positive.
struct SliceBounds {
  int64_t begin, length;
};
inline SliceBounds clampSlice(int64_t size, std::optional<int64_t> start,
                              std::optional<int64_t> end, int64_t step) {
  auto clamp = [&](int64_t i) {
    if (i < 0)
      i += size;
    return i < 0 ? 0 : (i > size ? size : i);
  };
  int64_t b = start ? clamp(*start) : 0, e = end ? clamp(*end) : size;
  return {b, e > b ? (e - b + step - 1) / step : 0};
}

/// The number of sliding blocks along one spatial dim of `size` (F.unfold,
/// F.fold, convolution): floor((size + 2p - d(k - 1) - 1) / s) + 1.
inline int64_t slidingBlocks(int64_t size, int64_t kernel, int64_t dilation,
                             int64_t padding, int64_t stride) {
  int64_t span = size + 2 * padding - dilation * (kernel - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

/// The parameters of one convolution-family call (conv1d/2d/3d,
/// conv_transpose1d/2d/3d, torch.convolution and their modules and ATen
/// overloads), decoded and checked once, the way ATen's
/// ConvParams/_convolution does, for the result rule, the interpreter
/// kernel and the lowering. Lists are expanded to one value per spatial dim.
struct ConvParams {
  unsigned spatial = 0; // 1, 2 or 3
  bool transposed = false;
  bool batched = true;
  int64_t groups = 1;
  llvm::SmallVector<int64_t> stride, dilation;
  /// Zeros added before and after each spatial dim of a convolution's input
  /// (padding="same" puts the odd one after, as torch does); for a
  /// transposed convolution both are `padding`, cropped off the full output.
  llvm::SmallVector<int64_t> padBefore, padAfter;
  /// Extra output size of a transposed convolution (zeros otherwise).
  llvm::SmallVector<int64_t> outputPadding;
  /// What the padding holds (nn.Conv*d's padding_mode): zeros, or the
  /// input mirrored without its edge, its edge repeated, or wrapped around.
  enum class PadMode { Zeros, Reflect, Replicate, Circular };
  PadMode padMode = PadMode::Zeros;
  /// The result shape (dynamic sizes stay dynamic).
  llvm::SmallVector<int64_t> resultShape;
};

/// How a caller reads a conv-family call's arguments: each accessor answers
/// nullopt when the argument is not of that kind or not known.
struct ArgReader {
  llvm::function_ref<std::optional<llvm::SmallVector<int64_t>>(llvm::StringRef)>
      ints;
  llvm::function_ref<std::optional<int64_t>(llvm::StringRef)> integer;
  llvm::function_ref<std::optional<bool>(llvm::StringRef)> boolean;
  llvm::function_ref<std::optional<std::string>(llvm::StringRef)> str;
  llvm::function_ref<bool(llvm::StringRef)> isNone;
  /// Whether the argument's value is known (a constant).
  llvm::function_ref<bool(llvm::StringRef)> known;
};

enum class ConvDecode { Ok, Unknown, Invalid };
/// Decodes and checks the call of an entry with signature `sig` on tensors of
/// shape `input` and `weight` (and `bias`, when not None). The number of
/// spatial dims is the signature's (`int[2] stride`), else the weight's
/// rank - 2. On Invalid, `error` says why, naming the argument.
ConvDecode decodeConv(const Signature &sig, const ArgReader &reader,
                      llvm::ArrayRef<int64_t> input,
                      llvm::ArrayRef<int64_t> weight,
                      std::optional<llvm::ArrayRef<int64_t>> bias,
                      ConvParams &params, std::string &error);

/// linalg.tensorinv's and linalg.tensorsolve's one square matrix (torch
/// 1.13's reshape): `perm` orders A's dims (tensorsolve's `dims` moved
/// last; the identity otherwise), the matrix is (size, size), and the
/// result has `resultShape` (A[ind:] + A[:ind] for tensorinv, A'[B.ndim:]
/// for tensorsolve).
struct TensorInverse {
  llvm::SmallVector<int64_t> perm;
  int64_t size = 0;
  llvm::SmallVector<int64_t> resultShape;
};
/// Decodes tensorinv (`other` nullopt, `ind`) or tensorsolve (`other` B's
/// shape, `dims` when not None) over A's static shape `a`; nullopt with
/// torch's `error` where torch refuses.
std::optional<TensorInverse>
decodeTensorInverse(llvm::ArrayRef<int64_t> a, int64_t ind,
                    std::optional<llvm::ArrayRef<int64_t>> other,
                    std::optional<llvm::ArrayRef<int64_t>> dims,
                    std::string &error);

/// Reads and completes the window of a pooling call of an entry with
/// signature `sig` over `spatial` dims: kernel_size, stride (None or empty:
/// the kernel), padding and dilation where the signature has them (else 0
/// and 1), ceil_mode. Unknown when one of them is not a constant; Invalid,
/// with `error`, when torch would refuse them. The result rules, the
/// kernels and the lowering all decode pooling calls through this.
ConvDecode decodePool(const Signature &sig, const ArgReader &reader,
                      unsigned spatial, PoolParams &out, std::string &error);

/// The output size of a max unpooling call, its last `spatial` dims
/// (aten::max_unpool2d/3d's `output_size`; for F.max_unpool1d/2d/3d,
/// torch's _unpool_output_size of kernel_size, stride, padding and
/// output_size), checked as torch checks the call: the input's rank, the
/// list lengths, aten::max_unpool3d's positive strides, F's output_size
/// range. `input` is the input's shape.
ConvDecode decodeUnpool(const Signature &sig, const ArgReader &reader,
                        llvm::ArrayRef<int64_t> input, unsigned &spatial,
                        llvm::SmallVectorImpl<int64_t> &size,
                        std::string &error);

/// A complex-to-real FFT of real input (torch.fft.irfft, irfft2, irfftn,
/// hfft, hfft2, hfftn), decoded and checked as torch 1.13's
/// canonicalize_fft_c2r_shape_and_dim_args and fft_c2r do, for the result
/// rule, the kernel and the decomposition alike (docs/fft.md). The input is
/// cropped or zero-padded to `sizes` along `dims`; an inverse DFT runs over
/// every dim but the last of `dims` (for real input, hfftn's forward DFT
/// followed by the conjugate is the same), then a Hermitian (c2r) one of
/// `lastSize` points over the last; the result is scaled by `scale`.
struct FftC2R {
  /// The transformed dims, normalized, in the call's order.
  llvm::SmallVector<int64_t> dims;
  /// The signal size along each of `dims` (the last: lastSize / 2 + 1).
  llvm::SmallVector<int64_t> sizes;
  int64_t lastSize = 0;
  double scale = 1.0;
  llvm::SmallVector<int64_t> resultShape;
};
/// Decodes a c2r FFT call of an entry with signature `sig` (`n` and `dim`:
/// the 1-D form; `s` and `dim`: the 2-D and n-D forms) on a real input of
/// shape `input`. `hermitian`: hfft's normalization (the forward one);
/// `name` is torch's function name for errors ("irfftn"). Unknown when an
/// argument or a size it needs is not known.
ConvDecode decodeFftC2R(const Signature &sig, const ArgReader &reader,
                        llvm::ArrayRef<int64_t> input, bool hermitian,
                        llvm::StringRef name, FftC2R &out, std::string &error);

/// torch.stft and torch.istft of real tensors (docs/fft.md): the frames,
/// the bins and the result's shape, checked as torch 1.13 checks them
/// (torch/functional.py's stft pads the signal when `center`; ATen's stft and
/// istft in SpectralOps.cpp). Complex results (return_complex=True) are
/// refused: complex tensors are out of scope.
struct Stft {
  int64_t nFft = 0, hop = 0, winLength = 0, frames = 0;
  /// The bins of the spectrum: stft's output (n_fft / 2 + 1 onesided, else
  /// n_fft); istft's input (only the first n_fft / 2 + 1 are read).
  int64_t bins = 0;
  bool center = true, normalized = false, onesided = true;
  /// stft: the signal's length, its padding on each side and pad_mode.
  int64_t length = 0, pad = 0;
  std::string padMode = "reflect";
  /// istft: the overlap-added signal's length n_fft + hop (frames - 1), the
  /// part of it kept [start, stop) and the result's length (zeros past it).
  int64_t added = 0, start = 0, stop = 0, outLength = 0;
  llvm::SmallVector<int64_t> resultShape;
  /// The window padded to n_fft (centred) at t, for a window of ones
  /// (torch's window=None).
  bool inWindow(int64_t t) const {
    int64_t left = (nFft - winLength) / 2;
    return t >= left && t < left + winLength;
  }
  /// stft: the signal's sample at position p of the padded signal, or -1
  /// for a zero (pad_mode 'constant').
  int64_t source(int64_t p) const;
};
/// `window`: the window's shape, or none for window=None.
ConvDecode decodeStft(const ArgReader &reader, llvm::ArrayRef<int64_t> input,
                      std::optional<llvm::ArrayRef<int64_t>> window, Stft &out,
                      std::string &error);
ConvDecode decodeIstft(const ArgReader &reader, llvm::ArrayRef<int64_t> input,
                       std::optional<llvm::ArrayRef<int64_t>> window,
                       Stft &out, std::string &error);

/// Parses a default or binding constant written in Python syntax.
Attribute parsePyLiteral(MLIRContext *ctx, llvm::StringRef text);

//===----------------------------------------------------------------------===//
// Binding arguments to signatures
//===----------------------------------------------------------------------===//

/// Binds call arguments to `sig` the way Python does: `arguments` are the
/// positional arguments followed by the keyword arguments named by
/// `keywords`. The first `skip` parameters are already bound (a method's
/// receiver). On success `slots` holds one value per parameter (defaults
/// filled in); slots before `skip` stay null.
LogicalResult bindArguments(MLIRContext *ctx, const Signature &sig,
                            unsigned skip, ArrayRef<Attribute> arguments,
                            ArrayRef<llvm::StringRef> keywords,
                            function_ref<InFlightDiagnostic()> emitError,
                            SmallVectorImpl<Attribute> &slots);

/// A call's arguments in normalized form: every argument after the first
/// `skip` parameters by keyword, in signature order, leaving out those equal
/// to their parameter's default. `permutation` maps each new operand index
/// to the old one.
struct NormalizedCall {
  SmallVector<Attribute> arguments;
  SmallVector<llvm::StringRef> keywords;
  SmallVector<unsigned> permutation;
};
FailureOr<NormalizedCall>
normalizeArguments(MLIRContext *ctx, const Signature &sig, unsigned skip,
                   ArrayRef<Attribute> arguments,
                   ArrayRef<llvm::StringRef> keywords,
                   function_ref<InFlightDiagnostic()> emitError);

/// Checks bound slots against the parameter types and fills `call` from
/// them. `operandTypes` are the types of the call's argument operands.
LogicalResult checkArguments(const Signature &sig, unsigned skip,
                             ArrayRef<Attribute> slots, TypeRange operandTypes,
                             BoundCall &call);

/// Compares the types a result rule inferred (see ResultRule: empty means
/// unknown, null entries too) with the declared `resultTypes`.
LogicalResult checkResults(ArrayRef<Type> inferred, TypeRange resultTypes,
                           function_ref<InFlightDiagnostic()> emitError);

/// An einsum equation resolved against its operands' shapes: each operand's
/// label per dim (ellipsis dims get labels of their own, aligned from the
/// right), every label's size (broadcast from 1), and the output's labels.
/// Labels are indices into `sizes`.
struct EinsumPlan {
  llvm::SmallVector<llvm::SmallVector<int64_t>> operandLabels;
  llvm::SmallVector<int64_t> sizes;
  llvm::SmallVector<int64_t> outputLabels;
};
/// An einsum equation's two sides without their spaces: the operands'
/// terms (comma-separated) and, after "->", the output's (none: the output
/// is implicit). planEinsum and the einsum decomposition read it.
struct EinsumSides {
  std::string inputs;
  std::optional<std::string> output;
};
EinsumSides splitEinsum(llvm::StringRef equation);
/// Parses `equation` for operands of `shapes` (dynamic sizes are taken as
/// they are); on failure, `error` says why.
FailureOr<EinsumPlan> planEinsum(llvm::StringRef equation,
                                 llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                                 std::string &error);

/// Writes a Markdown table of the library (docs/reference/OpLibrary.md):
/// each entry with its dtypes and whether it is in `kernels` (what the
/// interpreter runs), `lowered` (what convert-traced-to-linalg compiles)
/// and `decomposed` (what traced-decompose rewrites), and its `family`
/// (the family file that names it in those layers); all of them live in
/// layers above.
void printOpLibraryMarkdown(
    llvm::raw_ostream &os, llvm::ArrayRef<std::string> kernels,
    llvm::ArrayRef<std::string> lowered,
    llvm::ArrayRef<std::string> decomposed,
    llvm::function_ref<llvm::StringRef(llvm::StringRef)> family);

/// Whether linalg.solve's B (shape `b`) is a batch of vectors for an A of
/// shape `a` (torch's rule: B is 1-D, or A's shape without its last dim);
/// the rule, the kernel and the lowering read it.
bool solveTakesVector(ArrayRef<int64_t> a, ArrayRef<int64_t> b);

} // namespace mlir::traced

#endif // TRACEDIR_OPLIBRARY_OPLIBRARY_H
