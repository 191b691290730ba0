//===- Value.h - the reference interpreter's values -------------*- C++ -*-===//
//
// The reference interpreter's values: tensors (contiguous, row-major) and
// the Python values traced graphs carry. Kernels read their bound arguments
// through KernelArgs and return one RtValue (a tuple for several results).
// Graph rewrites that compute on weights (conv+bn fusion) use Tensor too,
// which is why this is a library of its own (TracedValue), below both the
// interpreter and the rewrites (docs/overview.md, "Layers").
//
// Storage: f32, f16 and bf16 tensors compute and store in float (f16/bf16
// values are rounded to their type when a kernel says so); f64 in double;
// every integer type in int64_t (values stay in their type's range); bool
// in uint8_t. Kernels never write into their inputs, so tensors may share
// storage (reshape and view do).
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_INTERPRETER_VALUE_H
#define TRACEDIR_INTERPRETER_VALUE_H

#include "TracedIR/OpLibrary/Runtime.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"

#include <memory>
#include <variant>
#include <vector>

namespace mlir::traced {

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

  /// A quantized tensor (docs/quantization.md) holds its storage integers
  /// (dtype() is uint8, int8 or int32) and its quant dialect element type
  /// (scale and zero point, per tensor or per channel); null otherwise.
  Type quantType() const { return quant_; }
  bool isQuantized() const { return bool(quant_); }
  /// The same elements as a quantized tensor of `quantType` (shares
  /// storage; null: the storage integers alone).
  Tensor withQuantType(Type quantType) const {
    Tensor t = *this;
    t.quant_ = quantType;
    return t;
  }

private:
  DType dtype_ = DType::F32;
  Type quant_;
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

#endif // TRACEDIR_INTERPRETER_VALUE_H
