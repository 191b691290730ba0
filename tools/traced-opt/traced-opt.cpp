//===- traced-opt.cpp - the traced optimizer driver -----------------------===//
//
// mlir-opt with the traced dialect and passes: parses, verifies, runs pass
// pipelines and prints traced IR.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::traced::registerAllDialects(registry);
  mlir::traced::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "TracedIR optimizer driver\n", registry));
}
