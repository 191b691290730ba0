//===- Runtime.cpp - values the op library's kernels compute on -----------===//

#include "TracedIR/OpLibrary/Runtime.h"

#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/OpLibrary/OpLibrary.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::traced;

Storage traced::storageOf(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::F16:
  case DType::BF16:
    return Storage::Float;
  case DType::F64:
    return Storage::Double;
  case DType::Bool:
    return Storage::Bool;
  default:
    return Storage::Int;
  }
}

DType traced::storageDType(DType dtype) {
  switch (storageOf(dtype)) {
  case Storage::Float:
    return DType::F32;
  case Storage::Double:
    return DType::F64;
  case Storage::Int:
    return DType::I64;
  case Storage::Bool:
    return DType::Bool;
  }
  return DType::F32;
}

bool traced::isFloatingPoint(DType dtype) {
  Storage s = storageOf(dtype);
  return s == Storage::Float || s == Storage::Double;
}

static int rankOf(DType d) {
  // Category first (bool < int < float), then width.
  switch (d) {
  case DType::Bool:
    return 0;
  case DType::U8:
    return 10;
  case DType::I8:
    return 11;
  case DType::I16:
    return 12;
  case DType::I32:
    return 13;
  case DType::I64:
    return 14;
  case DType::F16:
    return 20;
  case DType::BF16:
    return 21;
  case DType::F32:
    return 22;
  case DType::F64:
    return 23;
  }
  return 0;
}

StringRef traced::torchTypeName(DType d) {
  switch (d) {
  case DType::F32: return "Float";
  case DType::F64: return "Double";
  case DType::F16: return "Half";
  case DType::BF16: return "BFloat16";
  case DType::I64: return "Long";
  case DType::I32: return "Int";
  case DType::I16: return "Short";
  case DType::I8: return "Char";
  case DType::U8: return "Byte";
  case DType::Bool: return "Bool";
  }
  llvm_unreachable("unknown dtype");
}

std::optional<std::string>
traced::viewDTypeShape(DType from, DType to, ArrayRef<int64_t> shape,
                       SmallVectorImpl<int64_t> &out) {
  out.assign(shape.begin(), shape.end());
  int64_t a = rawElementBytes(from), b = rawElementBytes(to);
  if (a == b)
    return std::nullopt;
  std::string what = ("to view " + torchTypeName(from) + " as " +
                      torchTypeName(to) + " (different element sizes)")
                         .str();
  if (out.empty())
    return "self.dim() cannot be 0 " + what;
  int64_t &last = out.back();
  if (ShapedType::isDynamic(last))
    return std::nullopt;
  if (a > b) {
    last *= a / b;
  } else {
    if (last % (b / a))
      return "self.size(-1) must be divisible by " + std::to_string(b / a) +
             " " + what + ", but got " + std::to_string(last);
    last /= b / a;
  }
  return std::nullopt;
}

DType traced::promoteDTypes(DType a, DType b) {
  if (a == b)
    return a;
  if ((a == DType::F16 && b == DType::BF16) ||
      (a == DType::BF16 && b == DType::F16))
    return DType::F32;
  if ((a == DType::U8 && b == DType::I8) || (a == DType::I8 && b == DType::U8))
    return DType::I16;
  return rankOf(a) > rankOf(b) ? a : b;
}

static bool isFloatCategory(DType d) { return isFloatingPoint(d); }

// torch's combine_categories: a lower-priority dtype counts only when its
// category is higher (float over int, int over bool).
static std::optional<DType> combineCategories(std::optional<DType> higher,
                                              std::optional<DType> lower) {
  if (!higher)
    return lower;
  if (!lower)
    return higher;
  if (isFloatCategory(*higher))
    return higher;
  if (*higher == DType::Bool || isFloatCategory(*lower))
    return promoteDTypes(*higher, *lower);
  return higher;
}

DType traced::resultType(ArrayRef<PromotionOperand> operands) {
  std::optional<DType> dims, zeroDim, scalars;
  for (const PromotionOperand &o : operands) {
    std::optional<DType> *slot = o.priority == PromotionPriority::Tensor
                                     ? &dims
                                 : o.priority == PromotionPriority::ZeroDim
                                     ? &zeroDim
                                     : &scalars;
    DType d = o.dtype;
    // A Python float counts as the default float dtype.
    if (o.priority == PromotionPriority::Scalar && isFloatingPoint(d))
      d = kDefaultFloat;
    *slot = *slot ? promoteDTypes(**slot, d) : d;
  }
  std::optional<DType> r =
      combineCategories(dims, combineCategories(zeroDim, scalars));
  return r ? *r : kDefaultFloat;
}

DType traced::toFloatingDType(DType dtype) {
  return isFloatingPoint(dtype) ? dtype : kDefaultFloat;
}

int64_t traced::floatToInt(double v, DType dtype) {
  // x86's truncating conversions, which torch's C casts compile to: int64
  // converts directly, narrower types through int32; NaN and out-of-range
  // values give the "integer indefinite" (the minimum) of that width.
  if (dtype == DType::I64) {
    if (!(v >= -0x1p63 && v < 0x1p63))
      return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(v);
  }
  if (dtype == DType::Bool)
    return v != 0;
  if (!(v >= -0x1p31 && v < 0x1p31))
    return wrapToDType(std::numeric_limits<int32_t>::min(), dtype);
  return wrapToDType(static_cast<int32_t>(v), dtype);
}

int64_t traced::wrapToDType(int64_t v, DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return v != 0;
  case DType::U8:
    return static_cast<uint8_t>(v);
  case DType::I8:
    return static_cast<int8_t>(v);
  case DType::I16:
    return static_cast<int16_t>(v);
  case DType::I32:
    return static_cast<int32_t>(v);
  default:
    return v;
  }
}

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

static size_t elementBytes(DType dtype) {
  switch (storageOf(dtype)) {
  case Storage::Float:
    return sizeof(float);
  case Storage::Double:
    return sizeof(double);
  case Storage::Int:
    return sizeof(int64_t);
  case Storage::Bool:
    return 1;
  }
  return 1;
}

Tensor::Tensor(DType dtype, ArrayRef<int64_t> shape)
    : dtype_(dtype), shape_(shape.begin(), shape.end()) {
  numel_ = 1;
  for (int64_t d : shape)
    numel_ *= d;
  buffer_ = std::make_shared<std::vector<char>>(numel_ * elementBytes(dtype));
}

double Tensor::getDouble(int64_t i) const {
  switch (storage()) {
  case Storage::Float:
    return data<float>()[i];
  case Storage::Double:
    return data<double>()[i];
  case Storage::Int:
    return static_cast<double>(data<int64_t>()[i]);
  case Storage::Bool:
    return data<uint8_t>()[i] ? 1.0 : 0.0;
  }
  return 0;
}

int64_t Tensor::getInt(int64_t i) const {
  switch (storage()) {
  case Storage::Float:
    return static_cast<int64_t>(data<float>()[i]);
  case Storage::Double:
    return static_cast<int64_t>(data<double>()[i]);
  case Storage::Int:
    return data<int64_t>()[i];
  case Storage::Bool:
    return data<uint8_t>()[i];
  }
  return 0;
}

void Tensor::setDouble(int64_t i, double v) {
  switch (storage()) {
  case Storage::Float:
    data<float>()[i] = static_cast<float>(v);
    return;
  case Storage::Double:
    data<double>()[i] = v;
    return;
  case Storage::Int:
    data<int64_t>()[i] = floatToInt(v, dtype_);
    return;
  case Storage::Bool:
    data<uint8_t>()[i] = v != 0;
    return;
  }
}

Tensor Tensor::reshaped(ArrayRef<int64_t> shape) const {
  Tensor t = *this;
  t.shape_.assign(shape.begin(), shape.end());
  return t;
}

Tensor Tensor::to(DType dtype) const {
  if (dtype == dtype_)
    return *this;
  Tensor out(dtype, shape_);
  if (storage() == Storage::Int && out.storage() == Storage::Int) {
    std::memcpy(out.data<int64_t>(), data<int64_t>(), numel_ * 8);
  } else {
    for (int64_t i = 0; i < numel_; ++i)
      out.setDouble(i, getDouble(i));
  }
  out.roundToDType();
  return out;
}

void Tensor::roundToDType() {
  if (dtype_ == DType::Bool) {
    uint8_t *p = data<uint8_t>();
    for (int64_t i = 0; i < numel_; ++i)
      p[i] = p[i] != 0;
    return;
  }
  if (storage() == Storage::Int) {
    if (dtype_ == DType::I64)
      return;
    int64_t *p = data<int64_t>();
    for (int64_t i = 0; i < numel_; ++i)
      p[i] = wrapToDType(p[i], dtype_);
    return;
  }
  if (dtype_ != DType::F16 && dtype_ != DType::BF16)
    return;
  const llvm::fltSemantics &sem = dtype_ == DType::F16
                                      ? llvm::APFloat::IEEEhalf()
                                      : llvm::APFloat::BFloat();
  float *p = data<float>();
  for (int64_t i = 0; i < numel_; ++i) {
    // A float result stored as bfloat16 goes through c10::BFloat16's
    // conversion in torch, which writes every NaN as 0x7FC0 (positive);
    // MLIR's truncf expansion does the same. (float16's keeps the sign.)
    if (dtype_ == DType::BF16 && std::isnan(p[i])) {
      p[i] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    llvm::APFloat v(p[i]);
    bool lost;
    v.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
    v.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    p[i] = v.convertToFloat();
  }
}

SmallVector<int64_t> Tensor::strides() const {
  SmallVector<int64_t> s(shape_.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape_.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape_[i + 1];
  return s;
}

//===----------------------------------------------------------------------===//
// RtValue
//===----------------------------------------------------------------------===//

RtValue RtValue::ofList(std::vector<RtValue> items, bool isTuple) {
  RtValue r;
  auto list = std::make_shared<List>();
  list->items = std::move(items);
  list->isTuple = isTuple;
  r.v = std::move(list);
  return r;
}

std::optional<double> RtValue::number() const {
  if (auto *i = std::get_if<int64_t>(&v))
    return static_cast<double>(*i);
  if (auto *d = std::get_if<double>(&v))
    return *d;
  if (auto *b = std::get_if<bool>(&v))
    return *b ? 1.0 : 0.0;
  return std::nullopt;
}

std::string RtValue::describe() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (isNone())
    os << "None";
  else if (isTensor()) {
    os << "a " << dtypeName(tensor().dtype()) << " tensor of shape [";
    llvm::interleaveComma(tensor().shape(), os);
    os << "]";
  } else if (auto *i = std::get_if<int64_t>(&v))
    os << "the int " << *i;
  else if (auto *d = std::get_if<double>(&v))
    os << "the float " << *d;
  else if (auto *b = std::get_if<bool>(&v))
    os << (*b ? "True" : "False");
  else if (auto *str = std::get_if<std::string>(&v))
    os << "the str \"" << *str << "\"";
  else if (auto *l = list())
    os << "a " << (l->isTuple ? "tuple" : "list") << " of " << l->items.size();
  else if (std::holds_alternative<Module>(v))
    os << "a module";
  else
    os << "an object";
  return s;
}

std::optional<RtValue> traced::rtValueFromAttr(Attribute attr) {
  if (!attr || isa<NoneAttr>(attr))
    return RtValue();
  if (auto b = dyn_cast<BoolAttr>(attr))
    return RtValue::ofBool(b.getValue());
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return RtValue::ofInt(i.getValue().getSExtValue());
  if (auto f = dyn_cast<FloatAttr>(attr))
    return RtValue::ofFloat(f.getValueAsDouble());
  if (auto s = dyn_cast<StringAttr>(attr)) {
    RtValue r;
    r.v = s.getValue().str();
    return r;
  }
  auto seq = [&](ArrayRef<Attribute> elems,
                 bool isTuple) -> std::optional<RtValue> {
    std::vector<RtValue> items;
    for (Attribute e : elems) {
      std::optional<RtValue> item = rtValueFromAttr(e);
      if (!item)
        return std::nullopt;
      items.push_back(std::move(*item));
    }
    return RtValue::ofList(std::move(items), isTuple);
  };
  if (auto l = dyn_cast<ArrayAttr>(attr))
    return seq(l.getValue(), false);
  if (auto t = dyn_cast<TupleAttr>(attr))
    return seq(t.getElements().getValue(), true);
  if (auto e = dyn_cast<ElementsAttr>(attr)) {
    FailureOr<Tensor> t = tensorFromElements(e);
    if (failed(t))
      return std::nullopt;
    return RtValue(*t);
  }
  if (auto o = dyn_cast<ObjectAttr>(attr)) {
    RtValue r;
    r.v = RtValue::Object{o.getRepr().str()};
    return r;
  }
  if (isa<SliceAttr, EllipsisAttr, DTypeAttr>(attr)) {
    RtValue r;
    r.v = attr;
    return r;
  }
  return std::nullopt;
}

RtValue traced::resolveArgument(Attribute slot, ArrayRef<RtValue> operands,
                                MLIRContext *ctx) {
  if (auto marker = dyn_cast<OperandAttr>(slot))
    return operands[marker.getIndex()];
  auto seq = [&](ArrayRef<Attribute> elems, bool isTuple) {
    std::vector<RtValue> items;
    for (Attribute e : elems)
      items.push_back(resolveArgument(e, operands, ctx));
    return RtValue::ofList(std::move(items), isTuple);
  };
  if (auto l = dyn_cast<ArrayAttr>(slot))
    return seq(l.getValue(), false);
  if (auto t = dyn_cast<TupleAttr>(slot))
    return seq(t.getElements().getValue(), true);
  if (auto s = dyn_cast<SliceAttr>(slot)) {
    // A slice with traced bounds: rebuild it with the bounds' values.
    auto part = [&](Attribute a) -> Attribute {
      RtValue v = resolveArgument(a, operands, ctx);
      if (auto *i = std::get_if<int64_t>(&v.v))
        return IntegerAttr::get(IntegerType::get(ctx, 64), *i);
      return NoneAttr::get(ctx);
    };
    RtValue r;
    r.v = SliceAttr::get(ctx, part(s.getStart()), part(s.getStop()),
                         part(s.getStep()));
    return r;
  }
  std::optional<RtValue> v = rtValueFromAttr(slot);
  return v ? *v : RtValue();
}

Attribute traced::attrFromRtValue(MLIRContext *ctx, const RtValue &value) {
  Builder b(ctx);
  if (value.isNone())
    return NoneAttr::get(ctx);
  if (value.isTensor())
    return elementsFromTensor(ctx, value.tensor());
  if (auto *i = std::get_if<int64_t>(&value.v))
    return b.getI64IntegerAttr(*i);
  if (auto *d = std::get_if<double>(&value.v))
    return b.getF64FloatAttr(*d);
  if (auto *flag = std::get_if<bool>(&value.v))
    return b.getBoolAttr(*flag);
  if (auto *s = std::get_if<std::string>(&value.v))
    return b.getStringAttr(*s);
  if (const RtValue::List *l = value.list()) {
    SmallVector<Attribute> items;
    for (const RtValue &item : l->items) {
      Attribute a = attrFromRtValue(ctx, item);
      // Tensors inside tuples have no Python-value attribute.
      if (!a || isa<ElementsAttr>(a))
        return {};
      items.push_back(a);
    }
    ArrayAttr array = b.getArrayAttr(items);
    return l->isTuple ? Attribute(TupleAttr::get(ctx, array)) : array;
  }
  return {};
}

void traced::decodeRaw(Tensor &t, const char *data, bool splat) {
  size_t width = rawElementBytes(t.dtype());
  int64_t n = t.numel();
  if (!splat && n > 0 && (t.dtype() == DType::F32 || t.dtype() == DType::F64)) {
    // (Stored as they are encoded.)
    std::memcpy(t.data<char>(), data, n * width);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const char *p = data + (splat ? 0 : i * width);
    switch (t.dtype()) {
    case DType::F32: {
      float v;
      std::memcpy(&v, p, 4);
      t.data<float>()[i] = v;
      break;
    }
    case DType::F64: {
      double v;
      std::memcpy(&v, p, 8);
      t.data<double>()[i] = v;
      break;
    }
    case DType::F16:
    case DType::BF16: {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      llvm::APFloat v(t.dtype() == DType::F16 ? llvm::APFloat::IEEEhalf()
                                              : llvm::APFloat::BFloat(),
                      llvm::APInt(16, bits));
      bool lost;
      v.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
      t.data<float>()[i] = v.convertToFloat();
      break;
    }
    case DType::Bool:
      t.data<uint8_t>()[i] = *p != 0;
      break;
    case DType::U8:
      t.data<int64_t>()[i] = static_cast<uint8_t>(*p);
      break;
    default: {
      int64_t v = 0;
      switch (width) {
      case 1:
        v = static_cast<int8_t>(*p);
        break;
      case 2: {
        int16_t x;
        std::memcpy(&x, p, 2);
        v = x;
        break;
      }
      case 4: {
        int32_t x;
        std::memcpy(&x, p, 4);
        v = x;
        break;
      }
      default:
        std::memcpy(&v, p, 8);
      }
      t.data<int64_t>()[i] = v;
    }
    }
  }
}

std::vector<char> traced::encodeRaw(const Tensor &t) {
  size_t width = rawElementBytes(t.dtype());
  if (t.dtype() == DType::F32 || t.dtype() == DType::F64) {
    // (Stored as they are encoded.)
    const char *data = t.data<char>();
    return std::vector<char>(data, data + t.numel() * width);
  }
  std::vector<char> out(t.numel() * width);
  for (int64_t i = 0; i < t.numel(); ++i) {
    char *p = out.data() + i * width;
    switch (t.dtype()) {
    case DType::F32:
      std::memcpy(p, &t.data<float>()[i], 4);
      break;
    case DType::F64:
      std::memcpy(p, &t.data<double>()[i], 8);
      break;
    case DType::F16:
    case DType::BF16: {
      llvm::APFloat v(t.data<float>()[i]);
      bool lost;
      v.convert(t.dtype() == DType::F16 ? llvm::APFloat::IEEEhalf()
                                        : llvm::APFloat::BFloat(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
      uint16_t bits = v.bitcastToAPInt().getZExtValue();
      std::memcpy(p, &bits, 2);
      break;
    }
    case DType::Bool:
      *p = t.data<uint8_t>()[i] != 0;
      break;
    default: {
      // Little-endian truncation to the integer type's width.
      int64_t v = t.data<int64_t>()[i];
      std::memcpy(p, &v, width);
    }
    }
  }
  return out;
}

FailureOr<Tensor> traced::tensorFromElements(ElementsAttr attr) {
  ShapedType type = attr.getShapedType();
  std::optional<DType> dtype = dtypeFromType(type.getElementType());
  if (!dtype || !type.hasStaticShape())
    return failure();
  Tensor t(*dtype, type.getShape());
  int64_t n = t.numel();
  auto fill = [&](ArrayRef<char> raw, bool splat) -> LogicalResult {
    if (!splat && raw.size() != n * rawElementBytes(*dtype))
      return failure();
    decodeRaw(t, raw.data(), splat);
    return success();
  };
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || failed(fill(blob->getData(), false)))
      return failure();
    return t;
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (type.getElementType().isInteger(1)) {
      int64_t i = 0;
      for (bool v : dense.getValues<bool>())
        t.data<uint8_t>()[i++] = v;
      return t;
    }
    if (failed(fill(dense.getRawData(), dense.isSplat())))
      return failure();
    return t;
  }
  return failure();
}

ElementsAttr traced::elementsFromTensor(MLIRContext *ctx, const Tensor &t) {
  auto type = RankedTensorType::get(t.shape(), typeFromDType(ctx, t.dtype()));
  switch (t.dtype()) {
  case DType::F32:
    return DenseElementsAttr::get(type,
                                  ArrayRef<float>(t.data<float>(), t.numel()));
  case DType::F64:
    return DenseElementsAttr::get(
        type, ArrayRef<double>(t.data<double>(), t.numel()));
  case DType::Bool: {
    SmallVector<bool> v(t.data<uint8_t>(), t.data<uint8_t>() + t.numel());
    return DenseElementsAttr::get(type, v);
  }
  case DType::F16:
  case DType::BF16: {
    SmallVector<APFloat> v;
    for (int64_t i = 0; i < t.numel(); ++i) {
      APFloat f(t.data<float>()[i]);
      bool lost;
      f.convert(cast<FloatType>(type.getElementType()).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &lost);
      v.push_back(f);
    }
    return DenseElementsAttr::get(type, v);
  }
  default: {
    unsigned width = type.getElementType().getIntOrFloatBitWidth();
    SmallVector<APInt> v;
    for (int64_t i = 0; i < t.numel(); ++i)
      v.push_back(APInt(width, t.data<int64_t>()[i], /*isSigned=*/true,
                        /*implicitTrunc=*/true));
    return DenseElementsAttr::get(type, v);
  }
  }
}

//===----------------------------------------------------------------------===//
// KernelArgs
//===----------------------------------------------------------------------===//

const RtValue &KernelArgs::get(StringRef name) const {
  std::optional<unsigned> index = sig.lookup(name);
  if (!index)
    llvm::report_fatal_error("kernel reads unknown parameter '" + name + "'");
  return values[*index];
}

bool KernelArgs::has(StringRef name) const {
  return sig.lookup(name).has_value();
}

FailureOr<Tensor> KernelArgs::tensor(StringRef name) const {
  const RtValue &v = get(name);
  if (!v.isTensor())
    return emitError() << "argument '" << name << "' must be a tensor, got "
                       << v.describe();
  return v.tensor();
}

FailureOr<int64_t> KernelArgs::getInt(StringRef name) const {
  const RtValue &v = get(name);
  if (auto *i = std::get_if<int64_t>(&v.v))
    return *i;
  if (auto *b = std::get_if<bool>(&v.v))
    return static_cast<int64_t>(*b);
  return emitError() << "argument '" << name << "' must be an int, got "
                     << v.describe();
}

FailureOr<double> KernelArgs::getFloat(StringRef name) const {
  if (std::optional<double> d = get(name).number())
    return *d;
  return emitError() << "argument '" << name << "' must be a number, got "
                     << get(name).describe();
}

FailureOr<bool> KernelArgs::getBool(StringRef name) const {
  const RtValue &v = get(name);
  if (auto *b = std::get_if<bool>(&v.v))
    return *b;
  if (auto *i = std::get_if<int64_t>(&v.v))
    return *i != 0;
  return emitError() << "argument '" << name << "' must be a bool, got "
                     << v.describe();
}

FailureOr<DType> KernelArgs::getDType(StringRef name, DType fallback) const {
  const RtValue &v = get(name);
  if (v.isNone())
    return fallback;
  if (auto *attr = std::get_if<Attribute>(&v.v))
    if (auto d = dyn_cast<DTypeAttr>(*attr))
      if (std::optional<DType> dtype = dtypeFromType(d.getType()))
        return *dtype;
  return emitError() << "unsupported '" << name << "' argument";
}

FailureOr<std::string> KernelArgs::getStr(StringRef name) const {
  const RtValue &v = get(name);
  if (auto *s = std::get_if<std::string>(&v.v))
    return *s;
  return emitError() << "argument '" << name << "' must be a str, got "
                     << v.describe();
}

FailureOr<SmallVector<int64_t>> KernelArgs::getInts(StringRef name,
                                                    unsigned size) const {
  const RtValue &v = get(name);
  if (auto *i = std::get_if<int64_t>(&v.v))
    return SmallVector<int64_t>(size ? size : 1, *i);
  if (const RtValue::List *l = v.list()) {
    SmallVector<int64_t> out;
    for (const RtValue &item : l->items) {
      if (auto *i = std::get_if<int64_t>(&item.v))
        out.push_back(*i);
      else if (item.isTensor() && item.tensor().numel() == 1 &&
               !isFloatingPoint(item.tensor().dtype()))
        out.push_back(item.tensor().getInt(0));
      else
        return emitError() << "argument '" << name << "' must hold ints, got "
                           << item.describe();
    }
    return out;
  }
  return emitError() << "argument '" << name << "' must be an int list, got "
                     << v.describe();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::optional<TrilinearShapes>
traced::trilinearShapes(std::array<ArrayRef<int64_t>, 3> shapes,
                        std::array<ArrayRef<int64_t>, 3> expands,
                        ArrayRef<int64_t> sumdim, int64_t unrollDim,
                        std::string &error) {
  TrilinearShapes r;
  r.total = static_cast<int64_t>(shapes[0].size() + expands[0].size());
  auto wrap = [&](int64_t d) -> std::optional<int64_t> {
    int64_t n = d < 0 ? d + r.total : d;
    if (n < 0 || n >= r.total) {
      error = "dimension " + std::to_string(d) + " is out of range for " +
              std::to_string(r.total) + " dims";
      return std::nullopt;
    }
    return n;
  };
  llvm::SmallBitVector i3Expanded(r.total), allExpanded(r.total, true);
  for (int k = 0; k < 3; ++k) {
    if (static_cast<int64_t>(shapes[k].size() + expands[k].size()) != r.total) {
      error = "the inputs' ranks and their expanded dims do not add up to "
              "the same number of dims";
      return std::nullopt;
    }
    llvm::SmallBitVector expanded(r.total);
    for (int64_t d : expands[k]) {
      std::optional<int64_t> n = wrap(d);
      if (!n)
        return std::nullopt;
      expanded.set(*n);
    }
    if (k == 2)
      i3Expanded = expanded;
    allExpanded &= expanded;
    size_t next = 0;
    for (int64_t d = 0; d < r.total; ++d)
      r.unsqueezed[k].push_back(expanded.test(d) || next >= shapes[k].size()
                                    ? 1
                                    : shapes[k][next++]);
    if (next != shapes[k].size()) {
      error = "an input lists a dim to expand twice";
      return std::nullopt;
    }
  }
  if (unrollDim < 0 || unrollDim >= std::max<int64_t>(r.total, 0) ||
      r.total == 0) {
    error = "unroll_dim must be in [0," + std::to_string(r.total - 1) + "]";
    return std::nullopt;
  }
  for (int64_t d = 0; d < r.total; ++d) {
    int64_t size = 1;
    for (int k = 0; k < 3; ++k) {
      int64_t s = r.unsqueezed[k][d];
      if (s == 1)
        continue;
      if (size != 1 && s != size) {
        error = "the inputs' sizes differ in dim " + std::to_string(d);
        return std::nullopt;
      }
      size = s;
    }
    r.product.push_back(size);
  }
  llvm::SmallBitVector summed(r.total);
  for (int64_t d : sumdim) {
    std::optional<int64_t> n = wrap(d);
    if (!n)
      return std::nullopt;
    summed.set(*n);
  }
  for (int64_t d = 0; d < r.total; ++d) {
    // (torch sizes a dim every input expands as 0.)
    if (summed.test(d))
      r.sumdims.push_back(d);
    else
      r.result.push_back(allExpanded.test(d) ? 0 : r.product[d]);
    // (Where i3 is expanded, torch sums in its first step.)
    if (summed.test(d) && d != unrollDim)
      (i3Expanded.test(d) ? r.sums12 : r.sums23).push_back(d);
  }
  r.sumsUnroll = summed.test(unrollDim);
  return r;
}

std::optional<DType> traced::trilinearDTypes(DType i1, DType i2, DType i3,
                                             const TrilinearShapes &shapes,
                                             DType &first, DType &product,
                                             std::string &error) {
  auto refuse = [&](DType want, DType got) -> std::optional<DType> {
    error = "expected scalar type " + dtypeName(want).str() +
            " but found " + dtypeName(got).str();
    return std::nullopt;
  };
  bool sum12 = !shapes.sums12.empty(), sum23 = !shapes.sums23.empty();
  if (sum12 && i1 != i2)
    return refuse(i1, i2);
  first = sum12 ? i1 : promoteDTypes(i1, i2);
  if (sum23 && first != i3)
    return refuse(first, i3);
  product = sum23 ? first : promoteDTypes(first, i3);
  if ((isFloatingPoint(product) && !isFloatingPoint(i1)) ||
      (i1 == DType::Bool && product != DType::Bool)) {
    error = "result type " + dtypeName(product).str() +
            " can't be cast to the desired output type " +
            dtypeName(i1).str();
    return std::nullopt;
  }
  return i1;
}

std::optional<SmallVector<int64_t>>
traced::primsSqueezeShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims,
                          std::string &error) {
  int64_t rank = static_cast<int64_t>(shape.size());
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      error = "dimension " + std::to_string(d) + " is out of range for rank " +
              std::to_string(rank);
      return std::nullopt;
    }
    if (shape[d] != 1) {
      error = "dimension " + std::to_string(d) + " has size " +
              std::to_string(shape[d]) + ", not 1";
      return std::nullopt;
    }
  }
  SmallVector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      out.push_back(shape[d]);
  return out;
}

std::optional<SmallVector<int64_t>>
traced::primsSplitDimShape(ArrayRef<int64_t> shape, int64_t dim, int64_t outer,
                           std::string &error) {
  int64_t rank = static_cast<int64_t>(shape.size());
  if (dim < 0 || dim >= rank) {
    error = "dimension " + std::to_string(dim) + " is out of range for rank " +
            std::to_string(rank);
    return std::nullopt;
  }
  if (outer <= 0 || shape[dim] % outer != 0) {
    error = "attempting to split dimension of length " +
            std::to_string(shape[dim]) + ", but outer length of " +
            std::to_string(outer) + " divides it with a remainder";
    return std::nullopt;
  }
  SmallVector<int64_t> out(shape.take_front(dim));
  out.push_back(outer);
  out.push_back(shape[dim] / outer);
  llvm::append_range(out, shape.drop_front(dim + 1));
  return out;
}

SmallVector<int64_t> traced::atleastShape(ArrayRef<int64_t> shape,
                                          int64_t rank) {
  if (static_cast<int64_t>(shape.size()) >= rank)
    return SmallVector<int64_t>(shape);
  if (shape.empty())
    return SmallVector<int64_t>(rank, 1);
  if (shape.size() == 1)
    return rank == 2 ? SmallVector<int64_t>{1, shape[0]}
                     : SmallVector<int64_t>{1, shape[0], 1};
  return {shape[0], shape[1], 1};
}

FailureOr<SmallVector<int64_t>> traced::broadcastShape(ArrayRef<int64_t> a,
                                                       ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1)
      out[i] = db;
    else if (db == 1)
      out[i] = da;
    else if (ShapedType::isDynamic(da) || ShapedType::isDynamic(db))
      out[i] = ShapedType::isDynamic(da) ? db : da;
    else if (da == db)
      out[i] = da;
    else
      return failure();
  }
  return out;
}

Tensor traced::gatherStrided(const Tensor &x, ArrayRef<int64_t> shape,
                             int64_t offset, ArrayRef<int64_t> strides) {
  Tensor out(x.dtype(), shape);
  int64_t rank = shape.size();
  SmallVector<int64_t> index(rank, 0);
  dispatchStorage(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *in = x.template data<T>();
    T *o = out.template data<T>();
    int64_t pos = offset;
    for (int64_t n = 0; n < out.numel(); ++n) {
      o[n] = in[pos];
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < shape[d]) {
          pos += strides[d];
          break;
        }
        pos -= strides[d] * (shape[d] - 1);
        index[d] = 0;
      }
    }
    return 0;
  });
  return out;
}

Tensor traced::broadcastTo(const Tensor &t, ArrayRef<int64_t> shape) {
  if (t.shape() == shape)
    return t;
  int64_t rank = shape.size(), offset = rank - t.rank();
  SmallVector<int64_t> inStrides = t.strides();
  // The source stride of each output dimension (0 where broadcast).
  SmallVector<int64_t> src(rank, 0);
  for (int64_t i = 0; i < t.rank(); ++i)
    src[offset + i] = t.dim(i) == 1 ? 0 : inStrides[i];
  return gatherStrided(t, shape, 0, src);
}

FailureOr<int64_t> traced::normalizeDim(const KernelArgs &args, int64_t dim,
                                        int64_t rank) {
  int64_t n = dim < 0 ? dim + rank : dim;
  if (n < 0 || n >= rank)
    return args.emitError()
           << "dim " << dim << " is out of range for a tensor of rank " << rank;
  return n;
}
