//===- DType.h - the tensor dtypes of traced graphs -------------*- C++ -*-===//
//
// The ten PyTorch dtypes traced graphs compute on, and every spelling of
// them, in one table: the name ("float32", as torch and JSON traces spell
// it), the builtin element type (f32), the width of one element in raw
// little-endian data (dense_resource blobs, JSON trace data, .npy files; a
// bool takes one byte) and the NumPy .npy descriptor ("<f4").
//
// NumPy has no bfloat16: it has no descriptor, so .npy readers refuse it
// and writers widen it to float32 (exactly) first.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_SUPPORT_DTYPE_H
#define TRACEDIR_SUPPORT_DTYPE_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

#include <optional>
#include <string>

namespace mlir::traced {

enum class DType { F32, F64, F16, BF16, I64, I32, I16, I8, U8, Bool };

/// Every dtype, in the order above.
inline constexpr DType kAllDTypes[] = {
    DType::F32, DType::F64, DType::F16, DType::BF16, DType::I64,
    DType::I32, DType::I16, DType::I8,  DType::U8,   DType::Bool};

/// The dtype's name: "float32", "float64", "float16", "bfloat16", "int64",
/// "int32", "int16", "int8", "uint8", "bool".
llvm::StringRef dtypeName(DType dtype);
std::optional<DType> dtypeFromName(llvm::StringRef name);
/// Every name, for diagnostics: "float32, float64, ..., uint8 or bool".
std::string dtypeNameList();

/// The dtype of a builtin element type: f32, f64, f16, bf16, i64, i32, i16,
/// i8, ui8 and i1 (integers of those widths and another signedness map like
/// the signless ones); nullopt for other types.
std::optional<DType> dtypeFromType(Type elementType);
/// The builtin element type of `dtype` (signless integers, ui8 for uint8).
Type typeFromDType(MLIRContext *ctx, DType dtype);

/// Quantized tensors (docs/quantization.md) have the quant dialect's
/// element types: `!quant.uniform<u8:f32, scale:zero_point>` per tensor,
/// `!quant.uniform<i8:f32:axis, {...}>` per channel; torch's quint8, qint8
/// and qint32 are stored as uint8, int8 and int32. Whether `elementType`
/// is one of them (uniform, per tensor or per axis, of float32 values
/// stored as u8, i8 or i32; other quant dialect types are not taken).
bool isQuantizedElement(Type elementType);
/// Whether `dtype` is a quantized dtype argument's type: the quant
/// dialect's `!quant.any` of one of those storage types.
bool isQuantizedDType(Type dtype);
/// Whether `type` is a tensor type of quantized elements.
bool isQuantizedTensor(Type type);
/// The storage element type of a quantized element type (ui8, i8, i32);
/// other types are returned as they are.
Type quantStorageElement(Type elementType);
/// A tensor type with its quantized elements replaced by their storage
/// type; other types are returned as they are.
Type quantStorageType(Type type);
/// torch's name of a quantized element type's dtype: "quint8", "qint8" or
/// "qint32"; empty for other types.
llvm::StringRef quantizedDTypeName(Type elementType);
/// The quant dialect's type of torch dtype `name` ("quint8", "qint8",
/// "qint32"): `!quant.any<u8:f32>` and so on, as `dtype` arguments hold
/// them; null for other names.
Type quantizedDTypeFromName(MLIRContext *ctx, llvm::StringRef name);
/// The dtype elements of `elementType` are stored in (a quantized type's
/// storage dtype, else dtypeFromType's).
std::optional<DType> storageDTypeFromType(Type elementType);

/// The width of one element in raw little-endian data (bool: one byte).
size_t rawElementBytes(DType dtype);

/// The bytes of a tensor of `shape` at `elementBytes` an element (dynamic
/// dims count as 1), or nullopt when the count overflows 64 bits. The
/// verifier, the interpreter and the CPU compiler size tensors with it.
std::optional<uint64_t> tensorBytes(llvm::ArrayRef<int64_t> shape,
                                    uint64_t elementBytes);
/// This machine's physical memory in bytes, or nullopt when it is unknown.
std::optional<uint64_t> physicalMemoryBytes();

/// NumPy's descriptor of `dtype` as np.save writes it on a little-endian
/// machine ("<f4", "|i1", "|b1"); empty for bfloat16, which NumPy lacks.
llvm::StringRef npyDescr(DType dtype);
/// The dtype of a little-endian .npy descriptor ('<', '|' or '=' and the
/// type code: "<f4", "|u1"); nullopt for big-endian data and other types.
std::optional<DType> dtypeFromNpyDescr(llvm::StringRef descr);

} // namespace mlir::traced

#endif // TRACEDIR_SUPPORT_DTYPE_H
