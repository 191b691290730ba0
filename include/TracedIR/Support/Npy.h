//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// The one reader and writer of NumPy's .npy format (versions 1.0 to 3.0)
// for the interpreter's inputs and outputs, `traced-translate --run` and the
// `npy` weights of JSON traces: little-endian data of the dtypes in
// DType.h, C order, any rank (0-d arrays and empty ones included).
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_SUPPORT_NPY_H
#define TRACEDIR_SUPPORT_NPY_H

#include "TracedIR/Support/DType.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace mlir::traced {

/// The array an .npy file holds.
struct NpyArray {
  DType dtype;
  llvm::SmallVector<int64_t> shape;
  /// The elements in C order, raw little-endian (rawElementBytes(dtype)
  /// each); a view into the file's contents.
  llvm::StringRef data;
};

/// Reads the contents of an .npy file. Refuses, with `error` set to a
/// message that completes a sentence naming the file ("has a truncated
/// header"), a malformed header, a dtype DType.h does not name as a
/// little-endian one (big-endian data, structured dtypes), Fortran order for
/// more than one dimension, and data of another size than the shape's.
FailureOr<NpyArray> parseNpy(llvm::StringRef contents, std::string &error);

/// The contents of the .npy file at `path`, or failure with `error` set to
/// a full sentence naming the file. Only regular files are read: a device
/// (/dev/zero) would be read without end and a FIFO would block.
FailureOr<std::unique_ptr<llvm::MemoryBuffer>>
readNpyFile(llvm::StringRef path, std::string &error);

/// Writes an .npy file (format 1.0) holding `data`, the raw little-endian
/// elements of `dtype` in C order for `shape`. `dtype` must have an .npy
/// descriptor (not bfloat16).
void writeNpy(llvm::raw_ostream &os, DType dtype, ArrayRef<int64_t> shape,
              ArrayRef<char> data);

} // namespace mlir::traced

#endif // TRACEDIR_SUPPORT_NPY_H
