//===- DType.cpp - the tensor dtypes of traced graphs ---------------------===//

#include "TracedIR/Support/DType.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <iterator>

#include <unistd.h>

using namespace mlir;
using namespace mlir::traced;

namespace {
/// One dtype's spellings; its element type is typeFromDType's.
struct DTypeInfo {
  DType dtype;
  StringRef name;
  size_t bytes;
  /// The .npy descriptor; empty for none.
  StringRef npyDescr;
};
} // namespace

static constexpr DTypeInfo kTable[] = {
    {DType::F32, "float32", 4, "<f4"}, {DType::F64, "float64", 8, "<f8"},
    {DType::F16, "float16", 2, "<f2"}, {DType::BF16, "bfloat16", 2, ""},
    {DType::I64, "int64", 8, "<i8"},   {DType::I32, "int32", 4, "<i4"},
    {DType::I16, "int16", 2, "<i2"},   {DType::I8, "int8", 1, "|i1"},
    {DType::U8, "uint8", 1, "|u1"},    {DType::Bool, "bool", 1, "|b1"},
};

static constexpr bool isInEnumOrder() {
  for (size_t i = 0; i < std::size(kTable); ++i)
    if (static_cast<size_t>(kTable[i].dtype) != i ||
        kTable[i].dtype != kAllDTypes[i])
      return false;
  return std::size(kTable) == std::size(kAllDTypes);
}
static_assert(isInEnumOrder(), "one entry per dtype, in the enum's order");

static const DTypeInfo &info(DType dtype) {
  return kTable[static_cast<size_t>(dtype)];
}

StringRef traced::dtypeName(DType dtype) { return info(dtype).name; }

std::optional<DType> traced::dtypeFromName(StringRef name) {
  for (const DTypeInfo &entry : kTable)
    if (entry.name == name)
      return entry.dtype;
  return std::nullopt;
}

std::string traced::dtypeNameList() {
  std::string list;
  for (const DTypeInfo &entry : kTable) {
    if (!list.empty())
      list += &entry == &kTable[std::size(kTable) - 1] ? " or " : ", ";
    list += entry.name;
  }
  return list;
}

std::optional<DType> traced::dtypeFromType(Type t) {
  if (t.isF32())
    return DType::F32;
  if (t.isF64())
    return DType::F64;
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isInteger(1))
    return DType::Bool;
  if (t.isUnsignedInteger(8))
    return DType::U8;
  if (auto i = dyn_cast<IntegerType>(t)) {
    switch (i.getWidth()) {
    case 64:
      return DType::I64;
    case 32:
      return DType::I32;
    case 16:
      return DType::I16;
    case 8:
      return DType::I8;
    }
  }
  return std::nullopt;
}

Type traced::typeFromDType(MLIRContext *ctx, DType dtype) {
  Builder b(ctx);
  switch (dtype) {
  case DType::F32:
    return b.getF32Type();
  case DType::F64:
    return b.getF64Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::I64:
    return b.getI64Type();
  case DType::I32:
    return b.getI32Type();
  case DType::I16:
    return b.getI16Type();
  case DType::I8:
    return b.getI8Type();
  case DType::U8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case DType::Bool:
    return b.getI1Type();
  }
  return {};
}

/// Whether quantized type `q` stores as one of torch's quantized dtypes:
/// quint8 (unsigned 8 bits), qint8 (signed 8 bits) or qint32 (signed 32
/// bits), of float32 values.
static bool isTorchStorage(quant::QuantizedType q) {
  unsigned width = q.getStorageTypeIntegralWidth();
  return q.getExpressedType() && q.getExpressedType().isF32() &&
         (width == 8 || (width == 32 && q.isSigned()));
}

bool traced::isQuantizedElement(Type elementType) {
  // Torch's: uniform per tensor or per axis, of its storage types; any
  // other quant dialect type is an element type the project does not take.
  auto q = dyn_cast_or_null<quant::QuantizedType>(elementType);
  return q && isa<quant::UniformQuantizedType, quant::UniformQuantizedPerAxisType>(q) &&
         isTorchStorage(q);
}

bool traced::isQuantizedDType(Type dtype) {
  auto q = dyn_cast_or_null<quant::AnyQuantizedType>(dtype);
  return q && isTorchStorage(q);
}

bool traced::isQuantizedTensor(Type type) {
  auto shaped = dyn_cast_or_null<TensorType>(type);
  return shaped && isQuantizedElement(shaped.getElementType());
}

Type traced::quantStorageElement(Type elementType) {
  if (!isQuantizedElement(elementType))
    return elementType;
  auto q = cast<quant::QuantizedType>(elementType);
  return IntegerType::get(q.getContext(), q.getStorageTypeIntegralWidth(),
                          q.isSigned() ? IntegerType::Signless
                                       : IntegerType::Unsigned);
}

Type traced::quantStorageType(Type type) {
  auto tensor = dyn_cast_or_null<TensorType>(type);
  if (!tensor || !isQuantizedElement(tensor.getElementType()))
    return type;
  return tensor.clone(quantStorageElement(tensor.getElementType()));
}

StringRef traced::quantizedDTypeName(Type elementType) {
  auto q = dyn_cast_or_null<quant::QuantizedType>(elementType);
  if (!q)
    return {};
  if (q.getStorageTypeIntegralWidth() == 32)
    return "qint32";
  return q.isSigned() ? "qint8" : "quint8";
}

Type traced::quantizedDTypeFromName(MLIRContext *ctx, StringRef name) {
  unsigned width = name == "qint32" ? 32 : 8;
  bool isSigned = name != "quint8";
  if (name != "quint8" && name != "qint8" && name != "qint32")
    return {};
  return quant::AnyQuantizedType::get(
      isSigned ? quant::QuantizationFlags::Signed : 0,
      IntegerType::get(ctx, width), Float32Type::get(ctx),
      isSigned ? -(int64_t(1) << (width - 1)) : 0,
      isSigned ? (int64_t(1) << (width - 1)) - 1 : (int64_t(1) << width) - 1);
}

std::optional<DType> traced::storageDTypeFromType(Type elementType) {
  return dtypeFromType(quantStorageElement(elementType));
}

size_t traced::rawElementBytes(DType dtype) { return info(dtype).bytes; }

std::optional<uint64_t> traced::tensorBytes(ArrayRef<int64_t> shape,
                                            uint64_t elementBytes) {
  uint64_t bytes = elementBytes;
  for (int64_t d : shape)
    if (d >= 0 && __builtin_mul_overflow(bytes, uint64_t(d), &bytes))
      return std::nullopt;
  return bytes;
}

std::optional<uint64_t> traced::physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || size <= 0)
    return std::nullopt;
  return uint64_t(pages) * uint64_t(size);
}

StringRef traced::npyDescr(DType dtype) { return info(dtype).npyDescr; }

std::optional<DType> traced::dtypeFromNpyDescr(StringRef descr) {
  // NumPy writes '|' for one-byte types and '<' on little-endian machines;
  // '=' (native order) is little-endian on every machine this runs on.
  if (descr.size() < 2 || !StringRef("<|=").contains(descr.front()))
    return std::nullopt;
  for (const DTypeInfo &entry : kTable)
    if (!entry.npyDescr.empty() &&
        entry.npyDescr.drop_front() == descr.drop_front())
      return entry.dtype;
  return std::nullopt;
}
