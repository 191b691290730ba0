//===- fuzz-interpret.cpp - Run small parsed graphs in the interpreter ----===//
//
// Input: MLIR text. A module that parses and verifies runs its root
// module's `forward` in the reference interpreter, on inputs made from the
// graph's signature (tensors of small static shapes filled with a fixed
// pattern, Python numbers). A kernel may refuse what it is given with a
// diagnostic; a crash, a sanitizer report, a hang, or a result that does
// not match the op's declared type is a finding (the interpreter checks
// the last itself, as an error).
//
// The interpreter's memory limit is set to 256 MiB here, so that a graph
// asking for a huge tensor must be refused with a diagnostic rather than
// hit libFuzzer's malloc limit.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "TracedIR/Interpreter/Interpreter.h"
#include "TracedIR/Support/DType.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::traced;

/// An input for a graph argument of type `type`; None when it takes
/// nothing this target can make.
static RtValue makeInput(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    std::optional<DType> dtype = dtypeFromType(tensor.getElementType());
    if (!dtype || !tensor.hasStaticShape() || tensor.getNumElements() > 4096)
      return RtValue();
    Tensor t(*dtype, tensor.getShape());
    for (int64_t i = 0; i < t.numel(); ++i)
      t.setDouble(i, static_cast<double>((i * 7919) % 17) - 8.0 +
                         (isFloatingPoint(*dtype) ? 0.25 : 0.0));
    t.roundToDType();
    return RtValue(t);
  }
  if (type.isInteger(1))
    return RtValue::ofBool(true);
  if (type.isInteger(64))
    return RtValue::ofInt(3);
  if (type.isF64())
    return RtValue::ofFloat(0.5);
  return RtValue();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &ctx = traced_fuzz::context();
  OwningOpRef<mlir::ModuleOp> module = traced_fuzz::parse(ctx, data, size);
  if (!module || failed(verify(*module)))
    return 0;
  Interpreter interpreter(*module);
  interpreter.setMemoryLimit(256 << 20);
  GraphOp graph = interpreter.getEntry();
  if (!graph)
    return 0;
  std::vector<RtValue> inputs;
  for (Type type : graph.getArgumentTypes().drop_front())
    inputs.push_back(makeInput(type));
  (void)interpreter.run(graph, inputs);
  return 0;
}
