//===- fuzz-diff.cpp - Interpreter against compiled code, on random graphs ===//
//
// A structure-aware differential fuzzer. The input is a stream of choices
// (FuzzedDataProvider) from which a small, well-typed graph is built out of
// the op library's own table:
//   * 1-3 tensor inputs: dtypes bool, uint8, int32, int64, float16,
//     bfloat16, float32, float64; ranks 0-3, sizes 0-4 drawn from a few
//     shapes so that broadcasts are common;
//   * 1-6 calls of op-library functions whose parameters are tensors,
//     Python numbers, bools, ints or int lists: each argument is an earlier
//     value or a small constant, and a call is kept only when the entry's
//     result rule types it (the verifier's own check), so every graph is one
//     the verifier accepts;
//   * the last calls' tensor results as outputs.
// The graph then runs in the reference interpreter and, compiled by
// traced-cpu-pipeline, as native code, on the same inputs. A graph one of
// them refuses with a diagnostic is skipped when the refusal is expected:
// the verifier's or an interpreter kernel's check (torch's own errors), or
// a compile refusal of a graph holding a call the op library marks
// interpreter-only (OpSpec::interpreterOnly, with its reason). A compile
// refusal of any other graph, outputs that differ beyond the tolerance of
// their dtype, a run-time check that fails compiled only, or any crash,
// are findings. TRACED_FUZZ_VERBOSE=1 prints each graph and its inputs.
//
// Stored graphs. An input that starts with kGraphHeader is not a choice
// stream but a stored graph: MLIR text whose builtin module carries the
// inputs as `fuzz.inputs` (an array of dense elements). test/Fuzz/diff
// keeps every finding so, since a choice stream picks entries by their
// index in the op table and means another graph after any table change.
// TRACED_FUZZ_SAVE_GRAPH=FILE writes the graph of the input (built or
// read) to FILE before running it; run.py does so for each finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/ExecutionEngine/CpuModule.h"
#include "TracedIR/Interpreter/Kernels.h"
#include "TracedIR/Interpreter/Interpreter.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Support/DType.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

#include "TracedIR/Dialect/Traced/BoundOp.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>

using namespace mlir;
using namespace mlir::traced;

namespace {

/// Whether a parameter can be given by this fuzzer.
bool supported(const Param &p) {
  if (p.varargs)
    return false;
  switch (p.type.kind) {
  case ParamType::Tensor:
    return !p.type.isList;
  case ParamType::Int:
    return true; // ints and int lists (dims, sizes)
  case ParamType::Float:
  case ParamType::Bool:
  case ParamType::Scalar:
  case ParamType::TensorOrScalar:
    return !p.type.isList;
  default:
    return false;
  }
}

/// The op-library functions every parameter of which (required ones at
/// least) this fuzzer can give, in table order. TRACED_FUZZ_OPS=FILE takes
/// the entries named in FILE (one a line) in its order instead, filtered
/// alike: with the entry names of an older op table, a choice stream
/// stored then builds the graph it built then (how test/Fuzz/diff's
/// streams became stored graphs).
const std::vector<const OpSpec *> &candidates() {
  static std::vector<const OpSpec *> list = [] {
    std::vector<const OpSpec *> table;
    if (const char *path = std::getenv("TRACED_FUZZ_OPS")) {
      auto buffer = llvm::MemoryBuffer::getFile(path);
      TRACED_FUZZ_CHECK(buffer, std::string("cannot read ") + path);
      SmallVector<StringRef> names;
      (*buffer)->getBuffer().split(names, '\n', -1, /*KeepEmpty=*/false);
      for (StringRef name : names) {
        const OpSpec *spec = OpLibrary::get().lookupFunction(name.trim());
        TRACED_FUZZ_CHECK(spec, "TRACED_FUZZ_OPS names an unknown entry: " +
                                    name.str());
        table.push_back(spec);
      }
    } else {
      for (const OpSpec &spec : OpLibrary::get().getOps())
        table.push_back(&spec);
    }
    std::vector<const OpSpec *> specs;
    for (const OpSpec *entry : table) {
      const OpSpec &spec = *entry;
      if (!lookupKernel(spec.name) || !spec.pure || spec.name.starts_with("Tensor.") ||
          spec.name.contains("random") || spec.name.contains("rand") ||
          spec.name.contains("dropout") || spec.name.contains("empty") ||
          spec.name.contains("bernoulli") || spec.name.contains("multinomial"))
        continue;
      bool ok = !spec.signature.params.empty();
      for (const Param &p : spec.signature.params)
        if (p.defaultValue.empty() && !supported(p))
          ok = false;
      if (ok)
        specs.push_back(&spec);
    }
    return specs;
  }();
  return list;
}

const char *const kElementTypes[] = {"i1",  "ui8", "i32", "i64",
                                     "f16", "bf16", "f32", "f64"};
const int64_t kShapes[][3] = {{2, 3, 4}, {1, 3, 1}, {4, 1, 1},
                              {2, 1, 4}, {0, 3, 1}, {3, 3, 3}};

Type elementType(MLIRContext *ctx, StringRef name) {
  if (name == "i1")
    return IntegerType::get(ctx, 1);
  if (name == "ui8")
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  if (name == "i32")
    return IntegerType::get(ctx, 32);
  if (name == "i64")
    return IntegerType::get(ctx, 64);
  if (name == "f16")
    return Float16Type::get(ctx);
  if (name == "bf16")
    return BFloat16Type::get(ctx);
  if (name == "f32")
    return Float32Type::get(ctx);
  return Float64Type::get(ctx);
}

/// Input tensors: element i is a small pattern value from the fuzz data.
Tensor makeInput(RankedTensorType type, FuzzedDataProvider &fdp) {
  DType dtype = *dtypeFromType(type.getElementType());
  Tensor t(dtype, type.getShape());
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = fdp.ConsumeIntegralInRange<int>(-6, 6);
    if (isFloatingPoint(dtype))
      v *= 0.75;
    t.setDouble(i, v);
  }
  t.roundToDType();
  return t;
}

/// Whether interpreter value `a` and compiled value `b` agree.
bool close(double a, double b, DType dtype) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b))
    return a == b;
  if (!isFloatingPoint(dtype))
    return a == b;
  double tol = dtype == DType::F16 || dtype == DType::BF16 ? 2e-2
               : dtype == DType::F32                      ? 1e-4
                                                          : 1e-9;
  return std::fabs(a - b) <= tol * (1 + std::fabs(a));
}

/// The least precise float dtype among the values `v` is computed from
/// (itself included), or `own` when none is less precise: a float64 result
/// computed from a float32 intermediate can differ in the float32 digits
/// (torch's float32 acosh is not the double one rounded, and the compiled
/// code follows torch), so it is compared at float32's tolerance.
DType coarsestSource(Value v, DType own) {
  auto rank = [](DType d) {
    return d == DType::F16 || d == DType::BF16 ? 0 : d == DType::F32 ? 1 : 2;
  };
  DType coarsest = own;
  llvm::SmallPtrSet<Value, 16> seen;
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto t = dyn_cast<RankedTensorType>(x.getType()))
      if (std::optional<DType> d = dtypeFromType(t.getElementType()))
        if (isFloatingPoint(*d) && rank(*d) < rank(coarsest))
          coarsest = *d;
    if (Operation *def = x.getDefiningOp())
      llvm::append_range(work, def->getOperands());
  }
  return coarsest;
}

struct Graph {
  OwningOpRef<mlir::ModuleOp> module;
  std::vector<Tensor> inputs;
};

/// Builds the graph the fuzz data describes; null when it builds nothing.
Graph build(MLIRContext &ctx, FuzzedDataProvider &fdp) {
  Graph g;
  // The inputs' types, then the skeleton as text.
  unsigned numInputs = fdp.ConsumeIntegralInRange<unsigned>(1, 3);
  std::string text = "traced.module root @M class \"fuzz.M\" {\n"
                     "  graph @forward(%self: !traced.module<@M>";
  SmallVector<RankedTensorType> inputTypes;
  for (unsigned i = 0; i < numInputs; ++i) {
    const int64_t *shape =
        kShapes[fdp.ConsumeIntegralInRange<unsigned>(0, std::size(kShapes) - 1)];
    unsigned rank = fdp.ConsumeIntegralInRange<unsigned>(0, 3);
    StringRef element = kElementTypes[fdp.ConsumeIntegralInRange<unsigned>(
        0, std::size(kElementTypes) - 1)];
    auto type = RankedTensorType::get(ArrayRef<int64_t>(shape + 3 - rank, rank),
                                      elementType(&ctx, element));
    inputTypes.push_back(type);
    std::string s;
    llvm::raw_string_ostream os(s);
    os << ", %x" << i << ": " << type;
    text += s;
  }
  text += ") -> () {\n    output\n  }\n}\n";
  g.module = parseSourceString<mlir::ModuleOp>(text, ParserConfig(&ctx));
  TRACED_FUZZ_CHECK(g.module, "the skeleton does not parse:\n" + text);
  GraphOp graph;
  g.module->walk([&](GraphOp op) { graph = op; });
  Block &body = graph.getBody().front();
  SmallVector<Value> pool(body.getArguments().drop_front());
  for (RankedTensorType t : inputTypes)
    g.inputs.push_back(makeInput(t, fdp));

  OpBuilder b(&ctx);
  b.setInsertionPoint(body.getTerminator());
  SymbolTableCollection symbols;
  Location loc = UnknownLoc::get(&ctx);
  const std::vector<const OpSpec *> &specs = candidates();
  SmallVector<Value> produced;
  unsigned numCalls = fdp.ConsumeIntegralInRange<unsigned>(1, 6);
  for (unsigned c = 0; c < numCalls && fdp.remaining_bytes(); ++c) {
    const OpSpec *spec =
        specs[fdp.ConsumeIntegralInRange<size_t>(0, specs.size() - 1)];
    SmallVector<Value> operands;
    SmallVector<Attribute> arguments;
    SmallVector<StringRef> keywords;
    auto tensorArg = [&]() -> Attribute {
      Value v = pool[fdp.ConsumeIntegralInRange<size_t>(0, pool.size() - 1)];
      operands.push_back(v);
      return OperandAttr::get(&ctx, operands.size() - 1);
    };
    auto smallInt = [&]() {
      return IntegerAttr::get(IntegerType::get(&ctx, 64),
                              fdp.ConsumeIntegralInRange<int64_t>(-2, 3));
    };
    bool ok = true;
    for (const Param &p : spec->signature.params) {
      bool given = p.defaultValue.empty() || fdp.ConsumeIntegralInRange<int>(0, 3) == 0;
      if (!given)
        continue;
      if (!supported(p)) {
        ok = p.defaultValue.size();
        continue;
      }
      Attribute a;
      switch (p.type.kind) {
      case ParamType::Tensor:
        a = tensorArg();
        break;
      case ParamType::Int:
        if (p.type.isList) {
          SmallVector<Attribute> items;
          unsigned n = p.type.listSize ? p.type.listSize
                                       : fdp.ConsumeIntegralInRange<unsigned>(0, 3);
          for (unsigned k = 0; k < n; ++k)
            items.push_back(smallInt());
          a = ArrayAttr::get(&ctx, items);
        } else {
          a = smallInt();
        }
        break;
      case ParamType::Float:
        a = FloatAttr::get(Float64Type::get(&ctx),
                           fdp.ConsumeIntegralInRange<int>(-8, 8) * 0.25);
        break;
      case ParamType::Bool:
        a = BoolAttr::get(&ctx, fdp.ConsumeBool());
        break;
      case ParamType::Scalar:
      case ParamType::TensorOrScalar:
        switch (fdp.ConsumeIntegralInRange<int>(
            0, p.type.kind == ParamType::Scalar ? 2 : 3)) {
        case 0:
          a = smallInt();
          break;
        case 1:
          a = FloatAttr::get(Float64Type::get(&ctx),
                             fdp.ConsumeIntegralInRange<int>(-8, 8) * 0.25);
          break;
        case 2:
          a = BoolAttr::get(&ctx, fdp.ConsumeBool());
          break;
        default:
          a = tensorArg();
        }
        break;
      default:
        ok = false;
      }
      arguments.push_back(a);
      keywords.push_back(p.name);
    }
    if (!ok)
      continue;
    auto create = [&](TypeRange types) {
      return CallFunctionOp::create(b, loc, types, b.getStringAttr(spec->name),
                                    operands, b.getArrayAttr(arguments),
                                    b.getStrArrayAttr(keywords));
    };
    Operation *probe = create({});
    FailureOr<SmallVector<Type>> types = inferCallResultTypes(probe, symbols);
    probe->erase();
    if (failed(types) || types->empty() ||
        llvm::any_of(*types, [](Type t) {
          auto r = dyn_cast_or_null<RankedTensorType>(t);
          return !r || !r.hasStaticShape() || r.getNumElements() > 4096;
        }))
      continue;
    Operation *op = create(*types);
    for (Value r : op->getResults()) {
      pool.push_back(r);
      produced.push_back(r);
    }
  }
  if (produced.empty())
    return Graph();
  // The last one to three results are the outputs.
  unsigned numOutputs = std::min<size_t>(
      produced.size(), fdp.ConsumeIntegralInRange<unsigned>(1, 3));
  SmallVector<Value> outputs(produced.end() - numOutputs, produced.end());
  body.getTerminator()->erase();
  b.setInsertionPointToEnd(&body);
  OutputOp::create(b, loc, outputs);
  graph.setFunctionTypeAttr(TypeAttr::get(FunctionType::get(
      &ctx, body.getArgumentTypes(), ValueRange(outputs).getTypes())));
  return g;
}

/// The first line of a stored graph (see the file comment).
constexpr llvm::StringLiteral kGraphHeader = "// traced-fuzz-diff graph";
/// The builtin module's attribute holding a stored graph's inputs.
constexpr llvm::StringLiteral kInputsAttr = "fuzz.inputs";

/// Reads a stored graph. A file that does not parse or whose inputs do not
/// match the graph's signature is a broken test file: it aborts, with the
/// parser's diagnostics. (The graph is verified by the caller: a call the
/// op library has come to refuse since, as a fix, is a refusal there.)
Graph readGraph(MLIRContext &ctx, StringRef text) {
  Graph g;
  std::string diagnostics;
  {
    ScopedDiagnosticHandler capture(&ctx, [&](Diagnostic &d) {
      llvm::raw_string_ostream os(diagnostics);
      os << d.getLocation() << ": " << d << "\n";
      return success();
    });
    g.module = parseSourceString<mlir::ModuleOp>(
        text, ParserConfig(&ctx, /*verifyAfterParse=*/false), "stored-graph");
  }
  TRACED_FUZZ_CHECK(g.module,
                    "a stored graph does not parse:\n" + diagnostics);
  auto inputs = (*g.module)->getAttrOfType<ArrayAttr>(kInputsAttr);
  TRACED_FUZZ_CHECK(inputs, "a stored graph has no fuzz.inputs array");
  GraphOp graph;
  g.module->walk([&](GraphOp op) {
    if (!graph)
      graph = op;
  });
  TRACED_FUZZ_CHECK(graph, "a stored graph has no traced.graph");
  ArrayRef<Type> params = graph.getFunctionType().getInputs().drop_front();
  TRACED_FUZZ_CHECK(params.size() == inputs.size(),
                    "a stored graph's fuzz.inputs do not match its inputs");
  for (auto [a, param] : llvm::zip(inputs, params)) {
    auto elements = dyn_cast<ElementsAttr>(a);
    TRACED_FUZZ_CHECK(elements && elements.getType() == param,
                      "a stored graph's fuzz.inputs do not match its inputs");
    FailureOr<Tensor> t =
        elements ? tensorFromElements(elements) : FailureOr<Tensor>(failure());
    TRACED_FUZZ_CHECK(succeeded(t), "a stored graph's input is no tensor");
    g.inputs.push_back(std::move(*t));
  }
  (*g.module)->removeAttr(kInputsAttr);
  return g;
}

/// The text of a stored graph: the header, then `g` with its inputs.
std::string graphText(MLIRContext &ctx, Graph &g) {
  SmallVector<Attribute> inputs;
  for (const Tensor &t : g.inputs)
    inputs.push_back(elementsFromTensor(&ctx, t));
  (*g.module)->setAttr(kInputsAttr, ArrayAttr::get(&ctx, inputs));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << kGraphHeader
     << ": replayed by traced-fuzz-diff (interpreter against compiled code)\n"
        "// and by python/tests/test_fuzz_replay.py (against torch too).\n";
  g.module->print(os);
  (*g.module)->removeAttr(kInputsAttr);
  return text;
}

/// Why the compiler may refuse `module`: the op library marks one of its
/// calls interpreter-only. The first such call and its reason, or nullopt.
std::optional<std::string> interpreterOnlyCall(mlir::ModuleOp module) {
  std::optional<std::string> found;
  module.walk([&](Operation *op) {
    if (!isa<CallFunctionOp, CallMethodOp>(op))
      return WalkResult::advance();
    std::optional<BoundOp> bound = bindCall(op, {});
    if (!bound)
      return WalkResult::advance();
    if (std::optional<StringRef> why = interpreterOnlyReason(op)) {
      found = (bound->spec->name + ": " + *why).str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &ctx = traced_fuzz::context(/*allDialects=*/true);
  StringRef bytes(reinterpret_cast<const char *>(data), size);
  bool stored = bytes.starts_with(kGraphHeader);
  Graph g;
  if (stored) {
    g = readGraph(ctx, bytes);
  } else {
    FuzzedDataProvider fdp(data, size);
    g = build(ctx, fdp);
  }
  if (!g.module)
    return 0;
  bool verbose = std::getenv("TRACED_FUZZ_VERBOSE");
  // Each stored graph's outcome line names the input by a hash, so that a
  // count of distinct lines does not depend on how often the driver runs it
  // (libFuzzer runs a file given to it more than once).
  std::string tag = llvm::formatv(" [{0:x16}]", llvm::xxh3_64bits(bytes)).str();
  if (const char *path = std::getenv("TRACED_FUZZ_SAVE_GRAPH")) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    TRACED_FUZZ_CHECK(!ec, std::string("cannot write ") + path + ": " +
                               ec.message());
    os << graphText(ctx, g);
  }
  if (failed(verify(*g.module))) {
    if (stored && verbose)
      llvm::errs() << "the verifier refuses the stored graph" << tag << "\n";
    return 0;
  }
  if (verbose) {
    g.module->print(llvm::errs());
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      llvm::errs() << "input " << i << ":";
      for (int64_t k = 0; k < g.inputs[i].numel(); ++k)
        llvm::errs() << " " << llvm::format("%.17g", g.inputs[i].getDouble(k));
      llvm::errs() << "\n";
    }
  }

  // The oracle.
  std::vector<RtValue> expected;
  {
    Interpreter interpreter(*g.module);
    interpreter.setMemoryLimit(64 << 20);
    GraphOp graph = interpreter.getEntry();
    std::vector<RtValue> inputs(g.inputs.begin(), g.inputs.end());
    FailureOr<std::vector<RtValue>> results = interpreter.run(graph, inputs);
    if (failed(results)) {
      if (stored && verbose)
        llvm::errs() << "the interpreter refuses the stored graph" << tag
                     << "\n";
      return 0;
    }
    expected = std::move(*results);
  }

  // The compiled code.
  CpuPipelineOptions options;
  options.surgery = true;
  // One thread: OpenMP's workers would take libFuzzer's SIGALRM, whose
  // handler ignores it outside the fuzzing thread, so a hang would never
  // time out. (The parallel tiling is tested by the suites.)
  options.threads = false;
  // A refusal is expected only of a graph holding a call the op library
  // marks interpreter-only; any other is a finding, with the compiler's
  // diagnostics.
  std::string diagnostics;
  FailureOr<std::unique_ptr<CpuModule>> compiled = failure();
  {
    ScopedDiagnosticHandler capture(&ctx, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error) {
        llvm::raw_string_ostream os(diagnostics);
        os << "  " << d << "\n";
      }
      return success();
    });
    compiled = CpuModule::compile(*g.module, options);
  }
  if (failed(compiled)) {
    if (std::optional<std::string> why = interpreterOnlyCall(*g.module)) {
      if (verbose)
        llvm::errs() << "compile refused; interpreter-only call" << tag << " "
                     << *why << "\n" << diagnostics;
      return 0;
    }
    std::string s;
    llvm::raw_string_ostream os(s);
    g.module->print(os);
    os << diagnostics;
    TRACED_FUZZ_CHECK(false,
                      "the compiler refuses a graph the interpreter runs, "
                      "and the op library marks none of its calls "
                      "interpreter-only:\n" +
                          s);
  }
  std::vector<std::vector<char>> inputBytes;
  std::vector<void *> inputPtrs;
  for (const Tensor &t : g.inputs) {
    inputBytes.push_back(encodeRaw(t));
    inputBytes.back().resize(std::max<size_t>(inputBytes.back().size(), 1));
    inputPtrs.push_back(inputBytes.back().data());
  }
  std::vector<Tensor> actual;
  std::vector<std::vector<char>> outputBytes;
  std::vector<void *> outputPtrs;
  for (Type type : (*compiled)->getSignature().getResults()) {
    auto tensor = cast<RankedTensorType>(type);
    actual.emplace_back(*dtypeFromType(tensor.getElementType()),
                        tensor.getShape());
    outputBytes.emplace_back(
        std::max<size_t>(encodeRaw(actual.back()).size(), 1));
    outputPtrs.push_back(outputBytes.back().data());
  }
  // A run-time check (an index out of bounds...) the interpreter passed
  // must pass compiled too.
  std::optional<std::string> failedCheck =
      (*compiled)->run(inputPtrs.data(), outputPtrs.data());
  TRACED_FUZZ_CHECK(!failedCheck,
                    "the compiled code fails a run-time check the "
                    "interpreter passes: " +
                        failedCheck.value_or(""));
  TRACED_FUZZ_CHECK(actual.size() == expected.size(),
                    "the compiled graph has another number of outputs");
  traced::OutputOp output;
  g.module->walk([&](traced::OutputOp o) { output = o; });
  for (size_t i = 0; i < actual.size(); ++i) {
    decodeRaw(actual[i], outputBytes[i].data());
    const Tensor &want = expected[i].tensor();
    DType tolerance =
        isFloatingPoint(want.dtype()) && output &&
                i < output->getNumOperands()
            ? coarsestSource(output->getOperand(i), want.dtype())
            : want.dtype();
    TRACED_FUZZ_CHECK(want.shape() == actual[i].shape() &&
                          want.dtype() == actual[i].dtype(),
                      "output type differs");
    for (int64_t k = 0; k < want.numel(); ++k) {
      if (close(want.getDouble(k), actual[i].getDouble(k), tolerance))
        continue;
      std::string s;
      llvm::raw_string_ostream os(s);
      g.module->print(os);
      os << "output " << i << " element " << k << ": interpreter "
         << llvm::format("%.17g", want.getDouble(k)) << ", compiled "
         << llvm::format("%.17g", actual[i].getDouble(k));
      TRACED_FUZZ_CHECK(false, "interpreter and compiled code differ:\n" + s);
    }
  }
  if (stored && verbose)
    llvm::errs() << "the stored graph agrees" << tag << ": " << actual.size()
                 << " output(s)\n";
  return 0;
}
