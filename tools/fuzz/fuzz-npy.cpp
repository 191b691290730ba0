//===- fuzz-npy.cpp - Read .npy files -------------------------------------===//
//
// Input: the bytes of an .npy file. An array that reads must write and
// read back to the same dtype, shape and bytes.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "TracedIR/Support/Npy.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;
using namespace mlir::traced;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Owned exactly-sized storage: a read past the end is a sanitizer report.
  std::string error;
  FailureOr<NpyArray> array = parseNpy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), error);
  if (failed(array)) {
    if (error.empty())
      abort(); // a refusal always says why
    return 0;
  }
  if (array->dtype == DType::BF16)
    return 0; // no .npy descriptor to write it back with
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  writeNpy(os, array->dtype, array->shape,
           ArrayRef<char>(array->data.data(), array->data.size()));
  FailureOr<NpyArray> again = parseNpy(bytes, error);
  if (failed(again) || again->dtype != array->dtype ||
      again->shape != array->shape || again->data != array->data) {
    llvm::errs() << "traced fuzz invariant failed: .npy round trip\n";
    abort();
  }
  return 0;
}
