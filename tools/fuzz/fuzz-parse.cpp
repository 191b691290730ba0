//===- fuzz-parse.cpp - Parse, verify and round-trip traced IR text -------===//
//
// Input: MLIR text. A module that parses and verifies must print, its
// printed form must parse and verify again, and printing that must be a
// fixed point: a custom assembly format that prints what it cannot read
// back, or reads back as something else, is a finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Fresh contexts for each parse: a reparse must not see the names an
  // earlier parse gave (blob resources are uniqued per context).
  std::unique_ptr<MLIRContext> ctx = traced_fuzz::makeContext();
  OwningOpRef<ModuleOp> module = traced_fuzz::parse(*ctx, data, size);
  if (!module || failed(verify(*module)))
    return 0;
  // The first print may differ from the input's spelling (the parser
  // normalizes call arguments the generic form leaves as given); printing
  // what that parses must then be a fixed point.
  std::string first = traced_fuzz::print(*module);
  auto reparse = [&](const std::string &text) {
    std::unique_ptr<MLIRContext> fresh = traced_fuzz::makeContext();
    OwningOpRef<ModuleOp> again = traced_fuzz::parse(
        *fresh, reinterpret_cast<const uint8_t *>(text.data()), text.size());
    TRACED_FUZZ_CHECK(again, "the printed module does not parse:\n" + text);
    TRACED_FUZZ_CHECK(succeeded(verify(*again)),
                      "the printed module does not verify:\n" + text);
    return traced_fuzz::print(*again);
  };
  std::string second = reparse(first);
  TRACED_FUZZ_CHECK(reparse(second) == second,
                    "printing is not a fixed point:\n" + second);
  return 0;
}
