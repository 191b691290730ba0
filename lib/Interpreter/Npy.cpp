//===- Npy.cpp - NumPy .npy files as tensors ------------------------------===//
//
// The interpreter's side of Support/Npy.h: files to and from Tensors.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Support/Npy.h"
#include "TracedIR/Interpreter/Interpreter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::traced;

FailureOr<Tensor> traced::readNpy(StringRef path, std::string &error) {
  FailureOr<std::unique_ptr<llvm::MemoryBuffer>> fileOr =
      readNpyFile(path, error);
  if (failed(fileOr))
    return failure();
  std::string message;
  FailureOr<NpyArray> array = parseNpy((*fileOr)->getBuffer(), message);
  if (failed(array)) {
    error = "'" + path.str() + "' " + message;
    return failure();
  }
  Tensor t(array->dtype, array->shape);
  decodeRaw(t, array->data.data());
  return t;
}

LogicalResult traced::writeNpy(StringRef path, const Tensor &t,
                               std::string &error) {
  // NumPy has no bfloat16: widen it to float32, which holds it exactly.
  Tensor data = t.dtype() == DType::BF16 ? t.to(DType::F32) : t;
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  std::vector<char> raw = encodeRaw(data);
  traced::writeNpy(os, data.dtype(), data.shape(), raw);
  return success();
}
