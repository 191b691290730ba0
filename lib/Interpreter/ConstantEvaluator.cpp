//===- ConstantEvaluator.cpp - the traced dialect's constant evaluator ----===//
//
// ConstantEvaluatorInterface (Dialect/Traced/ConstantEvaluator.h) with the
// interpreter's kernels: traced-fold-constants and the decompositions run
// a call on constant operands through it.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Dialect/Traced/ConstantEvaluator.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Interpreter/Interpreter.h"
#include "TracedIR/Interpreter/Kernels.h"
#include "TracedIR/OpLibrary/OpLibrary.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::traced;

namespace {
SmallVector<StringRef> keywordNames(ArrayAttr keywords) {
  SmallVector<StringRef> names;
  for (Attribute k : keywords)
    names.push_back(cast<StringAttr>(k).getValue());
  return names;
}

} // namespace

/// The constant a call evaluates to, or null: `call` is a pure known call
/// with one result whose operands are all constants within `maxElements`.
static Attribute evaluateWithKernels(Operation *call, int64_t maxElements) {
  const OpSpec *spec = lookupKnownCallee(call);
  Kernel kernel = spec ? lookupKernel(spec->name) : nullptr;
  if (!spec || !kernel || !spec->pure || spec->inplace ||
      call->getNumResults() != 1 || passesInplaceTrue(call))
    return {};
  bool isMethod = isa<CallMethodOp>(call);
  // Operand values in the order the arguments' markers count them: a
  // method's receiver goes after its argument operands.
  SmallVector<Value> operands;
  ArrayAttr arguments, keywords;
  if (auto fn = dyn_cast<CallFunctionOp>(call)) {
    llvm::append_range(operands, fn.getArgs());
    arguments = fn.getArgumentsAttr();
    keywords = fn.getKeywordsAttr();
  } else {
    auto method = cast<CallMethodOp>(call);
    llvm::append_range(operands, method.getArgs());
    operands.push_back(method.getReceiver());
    arguments = method.getArgumentsAttr();
    keywords = method.getKeywordsAttr();
  }
  // Sizes are checked before anything is built: a splat of 2^38 elements
  // is a few bytes of IR but a terabyte as a tensor, and so is the result
  // of a factory call (`torch.ones(2**38)`) that has no tensor operand.
  // Operands are held to `maxElements`; results (which the factories'
  // decompositions fold with a limit of 0 operand elements) to at least
  // 2^24 elements.
  auto tooBig = [](Type t, int64_t limit) {
    auto shaped = dyn_cast<ShapedType>(t);
    if (!shaped)
      return false;
    if (!shaped.hasStaticShape())
      return true;
    // (Counted with overflow checks: getNumElements wraps for shapes
    // past 2^63 elements.)
    int64_t n = 1;
    for (int64_t d : shaped.getShape())
      if (llvm::MulOverflow(n, d, n) || n > limit)
        return true;
    return false;
  };
  if (auto result = dyn_cast<ShapedType>(call->getResult(0).getType());
      result && result.hasStaticShape() &&
      tooBig(result, std::max<int64_t>(maxElements, int64_t(1) << 24)))
    return {};
  std::vector<RtValue> values;
  for (Value v : operands) {
    auto constant = v.getDefiningOp<ConstantOp>();
    if (!constant)
      return {};
    if (auto elements = dyn_cast<ElementsAttr>(constant.getValue()))
      if (tooBig(elements.getType(), maxElements))
        return {};
    std::optional<RtValue> rt = rtValueFromAttr(constant.getValue());
    if (!rt || (rt->isTensor() && rt->tensor().numel() > maxElements))
      return {};
    values.push_back(std::move(*rt));
  }
  MLIRContext *ctx = call->getContext();
  // Invalid calls are the verifier's and the interpreter's to report.
  ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
  Location loc = call->getLoc();
  auto emit = [loc]() { return mlir::emitError(loc); };
  SmallVector<Attribute> slots;
  if (failed(bindArguments(ctx, spec->signature, isMethod ? 1 : 0,
                           arguments.getValue(), keywordNames(keywords), emit,
                           slots)))
    return {};
  if (isMethod)
    slots[0] = OperandAttr::get(ctx, values.size() - 1);
  std::vector<RtValue> bound;
  for (Attribute slot : slots)
    bound.push_back(resolveArgument(slot, values, ctx));
  KernelArgs args(spec->signature, std::move(bound), emit);
  FailureOr<RtValue> result = kernel(args);
  if (failed(result))
    return {};
  Attribute attr = attrFromRtValue(ctx, *result);
  if (!attr || !ConstantOp::isValidValue(attr, call->getResult(0).getType()))
    return {};
  return attr;
}

namespace {
struct KernelConstantEvaluator : ConstantEvaluatorInterface {
  using ConstantEvaluatorInterface::ConstantEvaluatorInterface;
  Attribute evaluate(Operation *call, int64_t maxElements) const override {
    return evaluateWithKernels(call, maxElements);
  }
};
} // namespace

void traced::registerConstantEvaluator(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, TracedDialect *dialect) {
    dialect->addInterfaces<KernelConstantEvaluator>();
  });
}
