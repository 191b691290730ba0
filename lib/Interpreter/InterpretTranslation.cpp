//===- InterpretTranslation.cpp - traced-translate --interpret ------------===//

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/Support/Translation.h"
#include "mlir/IR/DialectRegistry.h"
#include "TracedIR/Interpreter/Interpreter.h"
#include "TracedIR/OpLibrary/OpLibrary.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::traced;

static llvm::cl::OptionCategory
    interpretCategory("traced-translate --interpret");

static llvm::cl::opt<std::string> entryOption(
    "interpret-entry",
    llvm::cl::desc("Graph to run, as Module or Module::graph (default: the "
                   "root module's forward)"),
    llvm::cl::init(""), llvm::cl::cat(interpretCategory));

static llvm::cl::list<std::string> inputOptions(
    "interpret-input",
    llvm::cl::desc("Graph inputs in order: .npy files, or Python numbers "
                   "(3, 0.5, True)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(interpretCategory));

static llvm::cl::opt<std::string> outputOption(
    "interpret-output",
    llvm::cl::desc("Write tensor results to <prefix>0.npy, <prefix>1.npy, ... "
                   "instead of printing them"),
    llvm::cl::init(""), llvm::cl::cat(interpretCategory));

/// Prints a float the shortest way that reads back as the same value.
static void printFloat(llvm::raw_ostream &os, double v, bool single) {
  if (std::isnan(v)) {
    os << "nan";
    return;
  }
  if (std::isinf(v)) {
    os << (v < 0 ? "-inf" : "inf");
    return;
  }
  os << shortestDigits(v, single);
}

static void printTensor(llvm::raw_ostream &os, const Tensor &t) {
  bool single = t.storage() == Storage::Float;
  SmallVector<int64_t> strides = t.strides();
  std::function<void(int64_t, int64_t)> rec = [&](int64_t dim, int64_t base) {
    if (dim == t.rank()) {
      if (t.dtype() == DType::Bool)
        os << (t.getDouble(base) ? "True" : "False");
      else if (isFloatingPoint(t.dtype()))
        printFloat(os, t.getDouble(base), single);
      else
        os << t.getInt(base);
      return;
    }
    os << "[";
    for (int64_t i = 0; i < t.dim(dim); ++i) {
      if (i)
        os << ", ";
      rec(dim + 1, base + i * strides[dim]);
    }
    os << "]";
  };
  rec(0, 0);
}

static void printValue(llvm::raw_ostream &os, const RtValue &v,
                       MLIRContext *ctx) {
  if (v.isTensor()) {
    os << RankedTensorType::get(v.tensor().shape(),
                                typeFromDType(ctx, v.tensor().dtype()))
       << " ";
    printTensor(os, v.tensor());
  } else if (auto *i = std::get_if<int64_t>(&v.v)) {
    os << *i;
  } else if (auto *d = std::get_if<double>(&v.v)) {
    printFloat(os, *d, false);
  } else if (auto *b = std::get_if<bool>(&v.v)) {
    os << (*b ? "True" : "False");
  } else if (const RtValue::List *l = v.list()) {
    os << (l->isTuple ? "(" : "[");
    llvm::interleaveComma(
        l->items, os, [&](const RtValue &item) { printValue(os, item, ctx); });
    if (l->isTuple && l->items.size() == 1)
      os << ",";
    os << (l->isTuple ? ")" : "]");
  } else if (v.isNone()) {
    os << "None";
  } else {
    os << v.describe();
  }
}

static LogicalResult interpret(Operation *op, llvm::raw_ostream &os) {
  auto module = dyn_cast<mlir::ModuleOp>(op);
  if (!module)
    return op->emitError("expected a builtin module");
  Interpreter interpreter(module);
  StringRef entry = entryOption;
  auto [moduleName, graphName] = entry.split("::");
  GraphOp graph = interpreter.getEntry(
      moduleName, graphName.empty() ? "forward" : graphName);
  if (!graph)
    return failure();
  std::vector<RtValue> inputs;
  for (const std::string &input : inputOptions) {
    StringRef text = input;
    if (text.ends_with(".npy")) {
      std::string error;
      FailureOr<Tensor> t = readNpy(text, error);
      if (failed(t))
        return emitError(UnknownLoc::get(op->getContext())) << error;
      inputs.push_back(RtValue(*t));
      continue;
    }
    int64_t i;
    double d;
    if (text == "True" || text == "False")
      inputs.push_back(RtValue::ofBool(text == "True"));
    else if (!text.getAsInteger(10, i))
      inputs.push_back(RtValue::ofInt(i));
    else if (!text.getAsDouble(d))
      inputs.push_back(RtValue::ofFloat(d));
    else
      return emitError(UnknownLoc::get(op->getContext()))
             << "--interpret-input '" << text
             << "' is neither a .npy file nor a Python number";
  }
  FailureOr<std::vector<RtValue>> results = interpreter.run(graph, inputs);
  if (failed(results))
    return failure();
  for (auto [i, result] : llvm::enumerate(*results)) {
    if (!outputOption.empty() && result.isTensor()) {
      std::string path = outputOption + std::to_string(i) + ".npy";
      std::string error;
      if (failed(writeNpy(path, result.tensor(), error)))
        return emitError(UnknownLoc::get(op->getContext())) << error;
      os << "output #" << i << ": " << path << "\n";
      continue;
    }
    os << "output #" << i << ": ";
    printValue(os, result, op->getContext());
    os << "\n";
  }
  return success();
}

void traced::registerInterpretTranslation() {
  static traced::TracedFromMLIRRegistration registration(
      "interpret",
      "run a traced graph with the reference interpreter (inputs from "
      "--interpret-input, outputs printed or written by --interpret-output)",
      interpret,
      registerReaderDialects);
}
