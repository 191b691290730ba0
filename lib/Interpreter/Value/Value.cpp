//===- Value.cpp - the reference interpreter's values ---------------------===//
//
// Tensor, RtValue and KernelArgs (TracedIR/Interpreter/Value.h): storage,
// conversions to and from attributes and raw bytes, and argument access.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Interpreter/Value.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedBase.h"
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
    return withQuantType(nullptr);
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
  std::optional<DType> dtype = storageDTypeFromType(type.getElementType());
  if (!dtype || !type.hasStaticShape())
    return failure();
  Tensor t(*dtype, type.getShape());
  if (isQuantizedElement(type.getElementType()))
    t = t.withQuantType(type.getElementType());
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
