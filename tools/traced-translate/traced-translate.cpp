//===- traced-translate.cpp - translations in and out of traced IR --------===//

#include "TracedIR/InitAll.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::traced::registerAllTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "TracedIR translation driver\n"));
}
