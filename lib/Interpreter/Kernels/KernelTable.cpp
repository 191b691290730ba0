//===- KernelTable.cpp - each op-library entry's interpreter kernel -------===//
//
// The interpreter's kernel for each canonical op-library entry, by name
// (an ATen overload runs its entry's kernel). Each family file names its
// own entries' kernels (populate<Family>Kernels), as the lowerings and the
// decompositions do, and each entry's family is remembered: an entry has
// the same family in every layer (python/tests/test_op_families.py). The
// op library (signatures, result rules) knows nothing of kernels: they
// live here, above it, with the BLAS they call, so that the dialect links
// neither.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Interpreter/Kernels.h"

#include "Kernels.h"
#include "TracedIR/Support/FamilyTable.h"
#include "mlir/IR/MLIRContext.h"

#include <map>
#include <mutex>

using namespace mlir;
using namespace mlir::traced;

static const FamilyTable<Kernel> &getFamilies() {
  static const FamilyTable<Kernel> families = [] {
    FamilyTable<Kernel> f;
    f.add("Backward", kernels::populateBackwardKernels);
    f.add("Elementwise", kernels::populateElementwiseKernels);
    f.add("Factory", kernels::populateFactoryKernels);
    f.add("Index", kernels::populateIndexKernels);
    f.add("Linalg", kernels::populateLinalgKernels);
    f.add("Loss", kernels::populateLossKernels);
    f.add("Norm", kernels::populateNormKernels);
    f.add("Pool", kernels::populatePoolKernels);
    f.add("Quantized", kernels::populateQuantizedKernels);
    f.add("Reduce", kernels::populateReduceKernels);
    f.add("Shape", kernels::populateShapeKernels);
    f.add("Sort", kernels::populateSortKernels);
    return f;
  }();
  return families;
}

const llvm::StringMap<Kernel> &traced::getKernelTable() {
  return getFamilies().table;
}

Kernel traced::lookupKernel(llvm::StringRef entry) {
  return getKernelTable().lookup(entry);
}

Kernel traced::lookupQuantizedKernel(llvm::StringRef entry) {
  static const llvm::StringMap<Kernel> table = [] {
    llvm::StringMap<Kernel> t;
    kernels::populateSameQParamsKernels(t);
    return t;
  }();
  return table.lookup(entry);
}

llvm::StringRef traced::kernelFamily(llvm::StringRef entry) {
  return getFamilies().family.lookup(entry);
}

/// The defaults of `sig`'s parameters as run-time values (None where a
/// parameter has none), parsed once per signature.
static const std::vector<RtValue> &defaultsOf(const Signature &sig) {
  static std::mutex mutex;
  static std::map<const Signature *, std::vector<RtValue>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(&sig);
  if (it != cache.end())
    return it->second;
  static MLIRContext *ctx = [] {
    auto *c = new MLIRContext(MLIRContext::Threading::DISABLED);
    c->loadDialect<TracedDialect>();
    return c;
  }();
  std::vector<RtValue> values;
  for (const Param &p : sig.params) {
    std::optional<RtValue> v;
    if (!p.defaultValue.empty())
      v = rtValueFromAttr(parsePyLiteral(ctx, p.defaultValue));
    values.push_back(v ? *v : RtValue());
  }
  return cache.emplace(&sig, std::move(values)).first->second;
}

FailureOr<RtValue>
kernels::callEntry(const KernelArgs &args, StringRef entry,
                   ArrayRef<std::pair<StringRef, RtValue>> named) {
  const OpSpec *spec = OpLibrary::get().lookupFunction(entry);
  Kernel kernel = spec ? lookupKernel(spec->name) : nullptr;
  if (!kernel)
    return args.emitError() << "no kernel for '" << entry << "'";
  std::vector<RtValue> values = defaultsOf(spec->signature);
  for (const auto &[name, value] : named) {
    std::optional<unsigned> i = spec->signature.lookup(name);
    if (!i)
      return args.emitError() << "'" << entry << "' has no parameter '"
                              << name << "'";
    values[*i] = value;
  }
  KernelArgs call(spec->signature, std::move(values),
                  [&] { return args.emitError(); });
  return kernel(call);
}

FailureOr<Tensor>
kernels::callTensor(const KernelArgs &args, StringRef entry,
                    ArrayRef<std::pair<StringRef, RtValue>> named) {
  FailureOr<RtValue> v = callEntry(args, entry, named);
  if (failed(v))
    return failure();
  if (!v->isTensor())
    return args.emitError() << "'" << entry << "' gave " << v->describe()
                            << ", not a tensor";
  return v->tensor();
}
