//===- fuzz-bytecode.cpp - Read traced IR bytecode ------------------------===//
//
// Input: MLIR bytecode (the seeds are test/'s modules written with
// --emit-bytecode, weights as dense_resource blobs included). A module that
// reads and verifies must write bytecode that reads back and prints the
// same.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "mlir/Bytecode/BytecodeWriter.h"

#include <cstring>
#include "mlir/IR/Verifier.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Text is the parse target's; only inputs with bytecode's magic number.
  if (size < 4 || std::memcmp(data, "ML\xEFR", 4) != 0)
    return 0;
  std::unique_ptr<MLIRContext> ctx = traced_fuzz::makeContext(),
                               ctx2 = traced_fuzz::makeContext();
  OwningOpRef<ModuleOp> module = traced_fuzz::parse(*ctx, data, size);
  if (!module || failed(verify(*module)))
    return 0;
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  TRACED_FUZZ_CHECK(succeeded(writeBytecodeToFile(*module, os)),
                    "a verified module does not write as bytecode");
  OwningOpRef<ModuleOp> again = traced_fuzz::parse(
      *ctx2, reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  TRACED_FUZZ_CHECK(again, "written bytecode does not read back");
  TRACED_FUZZ_CHECK(traced_fuzz::print(*again) == traced_fuzz::print(*module),
                    "bytecode round trip changes the module");
  return 0;
}
