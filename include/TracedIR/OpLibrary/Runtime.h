//===- Runtime.h - values the op library's kernels compute on ---*- C++ -*-===//
//
// The reference interpreter's values: tensors (contiguous, row-major) and
// the Python values traced graphs carry. Kernels read their bound arguments
// through KernelArgs and return one RtValue (a tuple for several results).
//
// Storage: f32, f16 and bf16 tensors compute and store in float (f16/bf16
// values are rounded to their type when a kernel says so); f64 in double;
// every integer type in int64_t (values stay in their type's range); bool
// in uint8_t. Kernels never write into their inputs, so tensors may share
// storage (reshape and view do).
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_OPLIBRARY_RUNTIME_H
#define TRACEDIR_OPLIBRARY_RUNTIME_H

#include <array>
#include <optional>
#include <string>
#include "TracedIR/Support/DType.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace mlir::traced {
struct Signature;

/// How a dtype is stored: float, double, int64_t or uint8_t.
enum class Storage { Float, Double, Int, Bool };

Storage storageOf(DType dtype);
/// The dtype whose raw elements are laid out like `dtype`'s storage
/// (float32, float64, int64 or bool), as arrays of it are handed out.
DType storageDType(DType dtype);
bool isFloatingPoint(DType dtype);
/// PyTorch's promotion of two tensor dtypes (torch.promote_types).
DType promoteDTypes(DType a, DType b);
/// torch's name of a dtype in its messages: "Float", "Char", "Bool".
llvm::StringRef torchTypeName(DType dtype);
/// The shape of `x.view(to)` for x of dtype `from` and shape `shape` (the
/// same bytes: a different element size scales the last dim), or torch's
/// error. Dynamic dims stay dynamic.
std::optional<std::string> viewDTypeShape(DType from, DType to,
                                          llvm::ArrayRef<int64_t> shape,
                                          llvm::SmallVectorImpl<int64_t> &out);

/// How an operand takes part in PyTorch's type promotion
/// (torch.result_type): tensors with dimensions first, then 0-d tensors,
/// then Python numbers. A lower priority changes the result only when its
/// category (bool < integer < floating) is higher.
enum class PromotionPriority { Tensor, ZeroDim, Scalar };
struct PromotionOperand {
  /// A Python number's dtype is Bool, I64 or F64 by its type.
  DType dtype;
  PromotionPriority priority;
};
/// The default floating dtype (torch.get_default_dtype()).
constexpr DType kDefaultFloat = DType::F32;
/// torch.result_type over `operands` (at least one).
DType resultType(llvm::ArrayRef<PromotionOperand> operands);
/// The dtype of float-only ops (sqrt, exp, sigmoid, true division): floating
/// dtypes stay, bool and integers become the default float.
DType toFloatingDType(DType dtype);
/// Whether `dtype` is bool or an integer type.
inline bool isIntegral(DType dtype, bool includeBool = true) {
  return dtype == DType::Bool ? includeBool
                              : storageOf(dtype) == Storage::Int;
}
/// Wraps an int64 into the range of the integer dtype `dtype` (two's
/// complement, as a C cast to the narrower type does); bool becomes 0/1.
int64_t wrapToDType(int64_t value, DType dtype);
/// A floating value converted to the integer dtype `dtype` as torch does on
/// x86 (truncation; NaN and out-of-range values as the hardware gives them).
int64_t floatToInt(double value, DType dtype);

class Tensor {
public:
  Tensor() = default;
  /// A zero-filled contiguous tensor.
  Tensor(DType dtype, llvm::ArrayRef<int64_t> shape);

  DType dtype() const { return dtype_; }
  Storage storage() const { return storageOf(dtype_); }
  llvm::ArrayRef<int64_t> shape() const { return shape_; }
  int64_t rank() const { return shape_.size(); }
  int64_t dim(int64_t i) const { return shape_[i]; }
  int64_t numel() const { return numel_; }
  bool defined() const { return bool(buffer_); }

  /// Typed access to the elements (the storage type must match).
  template <typename T> T *data() {
    return reinterpret_cast<T *>(buffer_->data());
  }
  template <typename T> const T *data() const {
    return reinterpret_cast<const T *>(buffer_->data());
  }
  /// Element i converted to/from double, whatever the storage (slow path).
  double getDouble(int64_t i) const;
  void setDouble(int64_t i, double v);
  int64_t getInt(int64_t i) const;

  /// The same elements with another shape (shares storage).
  Tensor reshaped(llvm::ArrayRef<int64_t> shape) const;
  /// The elements converted to `dtype` (a copy; shares when equal).
  Tensor to(DType dtype) const;
  /// Rounds float storage to the precision of f16/bf16 tensors, and wraps
  /// integer storage into the range of narrow integer types (bool: 0/1).
  void roundToDType();

  /// Row-major strides of the shape.
  llvm::SmallVector<int64_t> strides() const;

private:
  DType dtype_ = DType::F32;
  llvm::SmallVector<int64_t> shape_;
  int64_t numel_ = 0;
  std::shared_ptr<std::vector<char>> buffer_;
};

/// A runtime value: None, a tensor, a Python int/float/bool/str, a list or
/// tuple of values, a module instance, or an opaque object.
struct RtValue {
  struct None {};
  struct List {
    std::vector<RtValue> items;
    bool isTuple = false;
  };
  struct Module {
    Operation *module = nullptr; // a traced.module
  };
  struct Object {
    std::string repr;
  };
  std::variant<None, Tensor, int64_t, double, bool, std::string,
               std::shared_ptr<List>, Module, Object, Attribute>
      v;
  // (Attribute: a Python value kept as it is: a slice, Ellipsis, a dtype.)

  RtValue() : v(None{}) {}
  RtValue(Tensor t) : v(std::move(t)) {}
  static RtValue ofInt(int64_t i) {
    RtValue r;
    r.v = i;
    return r;
  }
  static RtValue ofFloat(double d) {
    RtValue r;
    r.v = d;
    return r;
  }
  static RtValue ofBool(bool b) {
    RtValue r;
    r.v = b;
    return r;
  }
  static RtValue ofList(std::vector<RtValue> items, bool isTuple);

  bool isNone() const { return std::holds_alternative<None>(v); }
  bool isTensor() const { return std::holds_alternative<Tensor>(v); }
  const Tensor &tensor() const { return std::get<Tensor>(v); }
  const List *list() const {
    auto *p = std::get_if<std::shared_ptr<List>>(&v);
    return p ? p->get() : nullptr;
  }
  /// A Python number (int, float or bool) as double, if it is one.
  std::optional<double> number() const;
  std::string describe() const; // for diagnostics: "a tensor of shape [2, 3]"
};

/// Converts an operand-free Python value attribute (see PyValue.h) into a
/// runtime value; null for what has no runtime meaning.
std::optional<RtValue> rtValueFromAttr(Attribute attr);
/// The runtime value of a bound call argument (a Python value attribute),
/// its operand markers replaced by `operands`.
RtValue resolveArgument(Attribute slot, llvm::ArrayRef<RtValue> operands,
                        MLIRContext *ctx);
/// The attribute a constant runtime value folds to, or null when it has
/// none (modules, objects).
Attribute attrFromRtValue(MLIRContext *ctx, const RtValue &value);
/// Fills `t` from raw little-endian elements of its dtype (one element
/// repeated when `splat`; see rawElementBytes).
void decodeRaw(Tensor &t, const char *data, bool splat = false);
/// The raw little-endian elements of `t` (f16 and bf16 rounded to their
/// type; bool one byte, 0 or 1): the inverse of decodeRaw.
std::vector<char> encodeRaw(const Tensor &t);
/// A tensor holding an elements attribute's data.
FailureOr<Tensor> tensorFromElements(ElementsAttr attr);
/// An elements attribute holding a tensor (for folding).
ElementsAttr elementsFromTensor(MLIRContext *ctx, const Tensor &t);

/// The arguments of one call, bound to the target's signature with defaults
/// filled in: one value per parameter.
class KernelArgs {
public:
  KernelArgs(const Signature &sig, std::vector<RtValue> values,
             std::function<InFlightDiagnostic()> emitError)
      : sig(sig), values(std::move(values)), emitErrorFn(std::move(emitError)) {
  }

  const RtValue &get(llvm::StringRef name) const;
  /// Whether the target's signature has a parameter `name`.
  bool has(llvm::StringRef name) const;
  const Signature &signature() const { return sig; }
  bool isNone(llvm::StringRef name) const { return get(name).isNone(); }
  /// The tensor argument, or an error (reported) when it is not a tensor.
  FailureOr<Tensor> tensor(llvm::StringRef name) const;
  FailureOr<int64_t> getInt(llvm::StringRef name) const;
  FailureOr<double> getFloat(llvm::StringRef name) const;
  FailureOr<bool> getBool(llvm::StringRef name) const;
  FailureOr<std::string> getStr(llvm::StringRef name) const;
  /// A `dtype` argument (a torch.dtype), or `fallback` when it is None.
  FailureOr<DType> getDType(llvm::StringRef name, DType fallback) const;
  /// An int list; a single int is repeated `size` times when `size` > 0.
  FailureOr<llvm::SmallVector<int64_t>> getInts(llvm::StringRef name,
                                                unsigned size = 0) const;

  /// Reports an error at the call, naming the target.
  InFlightDiagnostic emitError() const { return emitErrorFn(); }

private:
  const Signature &sig;
  std::vector<RtValue> values;
  std::function<InFlightDiagnostic()> emitErrorFn;
};

/// A kernel computes a target's one result (a tuple for several) from its
/// bound arguments; on failure it has reported why.
using Kernel = FailureOr<RtValue> (*)(const KernelArgs &args);

//===----------------------------------------------------------------------===//
// Helpers shared by kernels
//===----------------------------------------------------------------------===//

/// Calls `fn(T{})` with T the storage type of `dtype` (float, double,
/// int64_t or uint8_t).
template <typename Fn> auto dispatchStorage(DType dtype, Fn &&fn) {
  switch (storageOf(dtype)) {
  case Storage::Float:
    return fn(float{});
  case Storage::Double:
    return fn(double{});
  case Storage::Int:
    return fn(int64_t{});
  case Storage::Bool:
    return fn(uint8_t{});
  }
  return fn(float{});
}

/// aten::_trilinear's shapes: each input unsqueezed at its `expand` dims
/// (ascending) to `total` dims, and the product's shape before the sum over
/// `sumdim`; nullopt with `error` set when torch refuses them (the ranks do
/// not add up, a dim is out of range, sizes differ where no input was
/// expanded).
struct TrilinearShapes {
  int64_t total = 0;
  std::array<llvm::SmallVector<int64_t>, 3> unsqueezed;
  llvm::SmallVector<int64_t> product; // before the sum
  llvm::SmallVector<int64_t> sumdims; // normalized, ascending
  /// (A dim that all three inputs expand is 0 here, as torch sizes it.)
  llvm::SmallVector<int64_t> result;
  /// torch's steps: i1 * i2 summed over `sums12` (the summed dims, but
  /// unroll_dim, where i3 is expanded), times i3 summed over `sums23` (the
  /// others), then over unroll_dim when it is summed (`sumsUnroll`). A
  /// step that sums is a batched product, which takes one dtype.
  llvm::SmallVector<int64_t> sums12, sums23;
  bool sumsUnroll = false;
};

/// The dtypes of aten::_trilinear's steps, as torch 1.13 computes it: the
/// product i1 * i2 (`first`; promoted, or i1's dtype, which i2 must share,
/// when it sums), times i3 (`product`; likewise), added into a result of
/// i1's dtype (returned), which the product must cast to. nullopt with
/// `error` set when torch refuses.
std::optional<DType> trilinearDTypes(DType i1, DType i2, DType i3,
                                     const TrilinearShapes &shapes,
                                     DType &first, DType &product,
                                     std::string &error);
std::optional<TrilinearShapes>
trilinearShapes(std::array<llvm::ArrayRef<int64_t>, 3> shapes,
                std::array<llvm::ArrayRef<int64_t>, 3> expands,
                llvm::ArrayRef<int64_t> sumdim, int64_t unrollDim,
                std::string &error);

/// prims.squeeze's shape: `shape` without `dims` (each in range, of size
/// 1); nullopt with `error` set otherwise.
std::optional<llvm::SmallVector<int64_t>>
primsSqueezeShape(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> dims,
                  std::string &error);
/// prims.split_dim's shape: dim `dim` (in range) of `shape` split into
/// [outer, size / outer]; nullopt with `error` set when outer does not
/// divide it.
std::optional<llvm::SmallVector<int64_t>>
primsSplitDimShape(llvm::ArrayRef<int64_t> shape, int64_t dim, int64_t outer,
                   std::string &error);

/// torch.atleast_{1,2,3}d's shape for `rank`: a 0-d input becomes all
/// ones; a 1-D [n] becomes [1, n] (2-D) or [1, n, 1] (3-D); a 2-D [m, n]
/// becomes [m, n, 1] (3-D); others stay.
llvm::SmallVector<int64_t> atleastShape(llvm::ArrayRef<int64_t> shape,
                                        int64_t rank);

/// The broadcast shape of two shapes, or failure; a dynamic size
/// (ShapedType::kDynamic) broadcasts with anything.
FailureOr<llvm::SmallVector<int64_t>> broadcastShape(llvm::ArrayRef<int64_t> a,
                                                     llvm::ArrayRef<int64_t> b);
/// Copies the elements at `offset + sum(index[d] * strides[d])` of `x` into a
/// new contiguous tensor of `shape`: permutations, slices and expansions
/// (a stride of 0 repeats an element).
Tensor gatherStrided(const Tensor &x, llvm::ArrayRef<int64_t> shape,
                     int64_t offset, llvm::ArrayRef<int64_t> strides);
/// `t` expanded to `shape` (a copy), for broadcasting.
Tensor broadcastTo(const Tensor &t, llvm::ArrayRef<int64_t> shape);
/// A normalized dimension index, or failure (reported through `args`).
FailureOr<int64_t> normalizeDim(const KernelArgs &args, int64_t dim,
                                int64_t rank);

} // namespace mlir::traced

#endif // TRACEDIR_OPLIBRARY_RUNTIME_H
