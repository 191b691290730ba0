//===- fuzz-onnx.cpp - Import ONNX models ---------------------------------===//
//
// Input: the bytes of an ONNX ModelProto (docs/onnx.md). The decoder and
// the importer must refuse what they do not take with a diagnostic; a
// model that imports must verify (the importer verifies it) and export
// without crashing (exporting may refuse calls it has no ONNX form for).
// External data is looked up in a directory that does not exist, so the
// target reads nothing from disk.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "TracedIR/Onnx/Onnx.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &ctx = traced_fuzz::context(/*allDialects=*/true);
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = traced::importOnnx(
      bytes, "fuzz.onnx", "/nonexistent-traced-fuzz-dir", &ctx);
  if (!module)
    return 0;
  std::string exported;
  llvm::raw_string_ostream os(exported);
  (void)traced::exportOnnx(*module, os);
  return 0;
}
