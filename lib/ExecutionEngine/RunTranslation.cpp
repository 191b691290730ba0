//===- RunTranslation.cpp - traced-translate --run and --traced-cpu-object -===//

#include "TracedIR/ExecutionEngine/CpuModule.h"
#include "TracedIR/Support/Progress.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/Support/Translation.h"
#include "TracedIR/Interpreter/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace mlir::traced;

static llvm::cl::OptionCategory runCategory("traced-translate --run");
static llvm::cl::opt<std::string>
    entryOption("run-entry", llvm::cl::desc("The root graph to compile"),
                llvm::cl::init("forward"), llvm::cl::cat(runCategory));
static llvm::cl::list<std::string>
    inputOptions("run-input", llvm::cl::desc("Inputs in order, as .npy files"),
                 llvm::cl::CommaSeparated, llvm::cl::cat(runCategory));
static llvm::cl::opt<std::string> outputOption(
    "run-output",
    llvm::cl::desc("Write results to <prefix>0.npy, <prefix>1.npy, ..."),
    llvm::cl::init("out"), llvm::cl::cat(runCategory));
static llvm::cl::opt<unsigned> repeatOption(
    "run-repeat",
    llvm::cl::desc("Run this many times and print the median latency"),
    llvm::cl::init(1), llvm::cl::cat(runCategory));
static llvm::cl::opt<bool> vectorizeOption(
    "run-vectorize", llvm::cl::desc("Tile and vectorize (default on)"),
    llvm::cl::init(true), llvm::cl::cat(runCategory));
static llvm::cl::opt<int64_t> splitOpsOption(
    "run-split-ops",
    llvm::cl::desc("Split functions of more top-level ops into parts of at "
                   "most this many (traced-cpu-pipeline's split-ops)"),
    llvm::cl::init(CpuPipelineOptions().splitOps), llvm::cl::cat(runCategory));

static void setOptions(CpuPipelineOptions &options) {
  options.entry = entryOption.getValue();
  options.vectorize = vectorizeOption.getValue();
  options.splitOps = splitOpsOption.getValue();
}

/// The interpreter's dtype for a compiled tensor's element type: every one
/// but bfloat16, which .npy files cannot hold.
static std::optional<DType> dtypeOf(Type t) {
  std::optional<DType> d = dtypeFromType(t);
  if (d && *d == DType::BF16)
    return std::nullopt;
  return d;
}

static LogicalResult run(Operation *op, llvm::raw_ostream &os) {
  auto module = dyn_cast<mlir::ModuleOp>(op);
  if (!module)
    return op->emitError("expected a builtin module");
  CpuPipelineOptions options;
  setOptions(options);
  CompileMonitor monitor;
  monitor.progress = progressWanted();
  FailureOr<std::unique_ptr<CpuModule>> compiled =
      CpuModule::compile(module, options, monitor);
  if (failed(compiled))
    return failure();
  FunctionType sig = (*compiled)->getSignature();
  Location loc = module.getLoc();
  if (inputOptions.size() != sig.getNumInputs())
    return emitError(loc) << "the compiled graph takes " << sig.getNumInputs()
                          << " inputs; --run-input gave "
                          << inputOptions.size();
  std::vector<Tensor> inputs, outputs;
  // Dynamic dims: each `?` of the inputs has a name; the sizes the compiled
  // code takes are the distinct names', as the inputs give them.
  ArrayRef<std::string> dimNames = (*compiled)->getDimNames();
  size_t nextName = 0;
  std::vector<std::string> sizeNames;
  std::vector<int64_t> sizes;
  for (auto [path, type] : llvm::zip(inputOptions, sig.getInputs())) {
    auto expected = cast<RankedTensorType>(type);
    std::string error;
    FailureOr<Tensor> t = readNpy(path, error);
    if (failed(t))
      return emitError(loc) << error;
    std::optional<DType> dtype = dtypeOf(expected.getElementType());
    bool fits = dtype && t->dtype() == *dtype &&
                t->shape().size() == size_t(expected.getRank());
    for (int64_t d = 0; fits && d < expected.getRank(); ++d) {
      int64_t got = t->shape()[d];
      if (!expected.isDynamicDim(d)) {
        fits = got == expected.getDimSize(d);
        continue;
      }
      if (nextName >= dimNames.size())
        return emitError(loc) << "the compiled code names fewer dynamic dims "
                                 "than its signature has";
      const std::string &name = dimNames[nextName++];
      auto it = llvm::find(sizeNames, name);
      if (it == sizeNames.end()) {
        sizeNames.push_back(name);
        sizes.push_back(got);
      } else if (sizes[it - sizeNames.begin()] != got) {
        return emitError(loc)
               << "input '" << path << "' has " << got << " in dim " << d
               << " ('" << name << "'), but an earlier input has "
               << sizes[it - sizeNames.begin()] << " there";
      }
    }
    if (!fits)
      return emitError(loc) << "input '" << path << "' does not match "
                            << expected;
    inputs.push_back(*t);
  }
  std::vector<int64_t> outShapes = (*compiled)->outputShapes(sizes.data());
  size_t nextDim = 0;
  for (Type type : sig.getResults()) {
    auto t = cast<RankedTensorType>(type);
    std::optional<DType> dtype = dtypeOf(t.getElementType());
    if (!dtype)
      return emitError(loc) << "unsupported result type " << t
                            << " (.npy files have no bfloat16)";
    SmallVector<int64_t> shape(t.getShape());
    if ((*compiled)->isDynamic())
      for (int64_t &d : shape)
        d = outShapes[nextDim++];
    outputs.emplace_back(*dtype, shape);
  }
  std::vector<std::vector<char>> inBuffers, outBuffers;
  std::vector<void *> in, out;
  // Compiled code reads and writes raw elements (see rawElementBytes); the
  // interpreter's tensors store narrow types widened.
  for (Tensor &t : inputs) {
    inBuffers.push_back(encodeRaw(t));
    in.push_back(inBuffers.back().data());
  }
  for (Tensor &t : outputs) {
    outBuffers.emplace_back(t.numel() * rawElementBytes(t.dtype()));
    out.push_back(outBuffers.back().data());
  }
  std::vector<double> times;
  for (unsigned i = 0; i < std::max(1u, repeatOption.getValue()); ++i) {
    auto start = std::chrono::steady_clock::now();
    if (std::optional<std::string> failedCheck =
            (*compiled)->run(in.data(), out.data(), sizes.data()))
      return emitError(loc) << *failedCheck;
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  for (auto [t, bytes] : llvm::zip(outputs, outBuffers))
    decodeRaw(t, bytes.data());
  for (auto [i, t] : llvm::enumerate(outputs)) {
    std::string path = outputOption + std::to_string(i) + ".npy";
    std::string error;
    if (failed(writeNpy(path, t, error)))
      return emitError(loc) << error;
    os << "output #" << i << ": " << path << "\n";
  }
  if (repeatOption > 1) {
    std::sort(times.begin(), times.end());
    os << "median latency: " << times[times.size() / 2] << " ms over "
       << times.size() << " runs\n";
  }
  return success();
}

void traced::registerRunTranslations() {
  static traced::TracedFromMLIRRegistration runRegistration(
      "run",
      "compile the root graph for this CPU, run it on --run-input .npy files "
      "and write its outputs as .npy",
      run, registerCompilerDialects);
  static traced::TracedFromMLIRRegistration objectRegistration(
      "traced-cpu-object",
      "compile the root graph for this CPU into an object file exporting "
      "traced_<entry>(void **inputs, void **outputs)",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<mlir::ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin module");
        CpuPipelineOptions options;
        setOptions(options);
        CompileMonitor monitor;
        monitor.progress = progressWanted();
        if (failed(lowerForCpu(module, options, monitor)))
          return failure();
        return writeCpuObject(module, os, monitor);
      },
      registerCompilerDialects);
}
