//===- RunTranslation.cpp - traced-translate --run and --traced-cpu-object -===//

#include "TracedIR/ExecutionEngine/CpuModule.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/InitAll.h"
#include "TracedIR/Interpreter/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>
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

static void setOptions(CpuPipelineOptions &options) {
  options.entry = entryOption.getValue();
  options.vectorize = vectorizeOption.getValue();
}

/// The interpreter's dtype for a compiled tensor's element type: every one
/// but bfloat16, which .npy files cannot hold.
static std::optional<DType> dtypeOf(Type t) {
  std::optional<DType> d = dtypeFromType(t);
  if (d && *d == DType::BF16)
    return std::nullopt;
  return d;
}

/// Bytes per element in compiled buffers (bool: one byte holding 0 or 1).
static size_t compiledWidth(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
    return 2;
  default:
    return 1;
  }
}

/// `t`'s elements as compiled code reads them. The interpreter stores
/// narrow types widened (float for f16, int64 for integers).
static std::vector<char> pack(const Tensor &t) {
  size_t width = compiledWidth(t.dtype());
  std::vector<char> out(t.numel() * width);
  for (int64_t i = 0; i < t.numel(); ++i) {
    char *dst = out.data() + i * width;
    switch (t.storage()) {
    case Storage::Double:
      std::memcpy(dst, &t.data<double>()[i], 8);
      break;
    case Storage::Float: {
      float v = t.data<float>()[i];
      if (t.dtype() == DType::F32) {
        std::memcpy(dst, &v, 4);
        break;
      }
      llvm::APFloat f(v);
      bool lost;
      f.convert(t.dtype() == DType::BF16 ? llvm::APFloat::BFloat()
                                         : llvm::APFloat::IEEEhalf(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
      uint16_t bits = f.bitcastToAPInt().getZExtValue();
      std::memcpy(dst, &bits, 2);
      break;
    }
    case Storage::Int: {
      int64_t v = t.data<int64_t>()[i];
      std::memcpy(dst, &v, width); // the low bytes (little-endian)
      break;
    }
    case Storage::Bool:
      *dst = t.data<uint8_t>()[i] ? 1 : 0;
      break;
    }
  }
  return out;
}

/// The inverse of `pack`: compiled code's output bytes into `t`.
static void unpack(ArrayRef<char> bytes, Tensor &t) {
  size_t width = compiledWidth(t.dtype());
  for (int64_t i = 0; i < t.numel(); ++i) {
    const char *src = bytes.data() + i * width;
    switch (t.storage()) {
    case Storage::Double:
      std::memcpy(&t.data<double>()[i], src, 8);
      break;
    case Storage::Float: {
      if (t.dtype() == DType::F32) {
        std::memcpy(&t.data<float>()[i], src, 4);
        break;
      }
      uint16_t bits;
      std::memcpy(&bits, src, 2);
      llvm::APFloat f(t.dtype() == DType::BF16 ? llvm::APFloat::BFloat()
                                               : llvm::APFloat::IEEEhalf(),
                      llvm::APInt(16, bits));
      t.data<float>()[i] = f.convertToFloat();
      break;
    }
    case Storage::Int: {
      int64_t v = 0;
      std::memcpy(&v, src, width);
      if (t.dtype() != DType::U8 && width < 8) // sign-extend
        v = llvm::SignExtend64(static_cast<uint64_t>(v), width * 8);
      t.data<int64_t>()[i] = v;
      break;
    }
    case Storage::Bool:
      t.data<uint8_t>()[i] = *src ? 1 : 0;
      break;
    }
  }
}

static LogicalResult run(Operation *op, llvm::raw_ostream &os) {
  auto module = dyn_cast<mlir::ModuleOp>(op);
  if (!module)
    return op->emitError("expected a builtin module");
  CpuPipelineOptions options;
  setOptions(options);
  FailureOr<std::unique_ptr<CpuModule>> compiled =
      CpuModule::compile(module, options);
  if (failed(compiled))
    return failure();
  FunctionType sig = (*compiled)->getSignature();
  Location loc = module.getLoc();
  if (inputOptions.size() != sig.getNumInputs())
    return emitError(loc) << "the compiled graph takes " << sig.getNumInputs()
                          << " inputs; --run-input gave "
                          << inputOptions.size();
  std::vector<Tensor> inputs, outputs;
  for (auto [path, type] : llvm::zip(inputOptions, sig.getInputs())) {
    auto expected = cast<RankedTensorType>(type);
    std::string error;
    FailureOr<Tensor> t = readNpy(path, error);
    if (failed(t))
      return emitError(loc) << error;
    std::optional<DType> dtype = dtypeOf(expected.getElementType());
    if (!dtype || t->dtype() != *dtype ||
        t->shape() != expected.getShape())
      return emitError(loc) << "input '" << path << "' does not match "
                            << expected;
    inputs.push_back(*t);
  }
  for (Type type : sig.getResults()) {
    auto t = cast<RankedTensorType>(type);
    std::optional<DType> dtype = dtypeOf(t.getElementType());
    if (!dtype)
      return emitError(loc) << "unsupported result type " << t
                            << " (.npy files have no bfloat16)";
    outputs.emplace_back(*dtype, t.getShape());
  }
  std::vector<std::vector<char>> inBuffers, outBuffers;
  std::vector<void *> in, out;
  for (Tensor &t : inputs) {
    inBuffers.push_back(pack(t));
    in.push_back(inBuffers.back().data());
  }
  for (Tensor &t : outputs) {
    outBuffers.emplace_back(t.numel() * compiledWidth(t.dtype()));
    out.push_back(outBuffers.back().data());
  }
  std::vector<double> times;
  for (unsigned i = 0; i < std::max(1u, repeatOption.getValue()); ++i) {
    auto start = std::chrono::steady_clock::now();
    (*compiled)->run(in.data(), out.data());
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  for (auto [t, bytes] : llvm::zip(outputs, outBuffers))
    unpack(bytes, t);
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
      run);
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
        if (failed(lowerForCpu(module, options)))
          return failure();
        return writeCpuObject(module, os);
      });
}
