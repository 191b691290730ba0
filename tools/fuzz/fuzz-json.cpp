//===- fuzz-json.cpp - Import JSON traces ---------------------------------===//
//
// Input: a JSON trace (docs/trace-format.md). A trace that imports must
// export, and the export must import again to the same module.
// `npy` weight files are looked up in a directory that does not exist, so
// the target reads nothing from disk.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "TracedIR/Translate/JsonTrace.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::unique_ptr<MLIRContext> ctx = traced_fuzz::makeContext(),
                               ctx2 = traced_fuzz::makeContext();
  llvm::StringRef json(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = traced::importTrace(
      json, "fuzz.json", "/nonexistent-traced-fuzz-dir", ctx.get());
  if (!module)
    return 0;
  std::string exported;
  llvm::raw_string_ostream os(exported);
  // Exporting may refuse what the format cannot express; it must not crash.
  if (failed(traced::exportTrace(*module, os)))
    return 0;
  OwningOpRef<ModuleOp> again = traced::importTrace(
      exported, "exported.json", "/nonexistent-traced-fuzz-dir", ctx2.get());
  TRACED_FUZZ_CHECK(again, "an exported trace does not import:\n" + exported);
  TRACED_FUZZ_CHECK(traced_fuzz::print(*again) == traced_fuzz::print(*module),
                    "export and import change the module");
  return 0;
}
