//===- DynamicDims.cpp - merging two traces into one with `?` dims -------===//
//
// The two traces live in different contexts (each Python traced.Module has
// its own), so they are compared through what is context-free: op names,
// the printed form of attributes and types, the bytes of dense_resource
// blobs, and where each operand comes from (the pre-order index of its
// defining op, or of the op whose block holds the argument).
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Transforms/DynamicDims.h"

#include "TracedIR/Dialect/Traced/TracedOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::traced;

namespace {

std::string printed(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string printed(Attribute a) {
  std::string s;
  llvm::raw_string_ostream os(s);
  a.print(os);
  return s;
}

/// `a` with `?` wherever it differs from `b` (types of `module`'s context);
/// null when they differ in more than sizes.
Type mergeTypes(Type a, Type b) {
  auto ta = dyn_cast<RankedTensorType>(a);
  auto tb = dyn_cast<RankedTensorType>(b);
  if (ta && tb) {
    if (ta.getRank() != tb.getRank() ||
        printed(ta.getElementType()) != printed(tb.getElementType()))
      return {};
    SmallVector<int64_t> shape(ta.getShape());
    for (auto [d, other] : llvm::zip(shape, tb.getShape()))
      if (d != other)
        d = ShapedType::kDynamic;
    return RankedTensorType::get(shape, ta.getElementType(), ta.getEncoding());
  }
  auto tupA = dyn_cast<TupleType>(a);
  auto tupB = dyn_cast<TupleType>(b);
  if (tupA && tupB) {
    if (tupA.size() != tupB.size())
      return {};
    SmallVector<Type> types;
    for (auto [x, y] : llvm::zip(tupA.getTypes(), tupB.getTypes())) {
      types.push_back(mergeTypes(x, y));
      if (!types.back())
        return {};
    }
    return TupleType::get(a.getContext(), types);
  }
  auto listA = dyn_cast<ListType>(a);
  auto listB = dyn_cast<ListType>(b);
  if (listA && listB) {
    Type element = mergeTypes(listA.getElementType(), listB.getElementType());
    return element ? ListType::get(a.getContext(), element) : Type();
  }
  return printed(a) == printed(b) ? a : Type();
}

/// Where a value comes from: the pre-order index of its defining op, or of
/// the op whose (single-block) region holds it as an argument, and which
/// result or argument it is.
struct Origin {
  int64_t op = -1;
  unsigned number = 0;
  bool isArgument = false;
  bool operator==(const Origin &o) const {
    return op == o.op && number == o.number && isArgument == o.isArgument;
  }
};

struct Walk {
  SmallVector<Operation *> ops;
  DenseMap<Operation *, int64_t> index;

  explicit Walk(mlir::ModuleOp m) {
    m->walk<WalkOrder::PreOrder>([&](Operation *op) {
      index[op] = ops.size();
      ops.push_back(op);
    });
  }
  Origin origin(Value v) const {
    if (auto r = dyn_cast<OpResult>(v))
      return {index.lookup(r.getOwner()), r.getResultNumber(), false};
    auto arg = cast<BlockArgument>(v);
    return {index.lookup(arg.getOwner()->getParentOp()), arg.getArgNumber(),
            true};
  }
};

/// The names of the dims, for messages: "'batch'" or "'batch', 'seq'".
std::string dimNames(ArrayRef<DynamicDim> dims) {
  SmallVector<std::string> names;
  for (const DynamicDim &d : dims)
    if (!llvm::is_contained(names, "'" + d.name + "'"))
      names.push_back("'" + d.name + "'");
  return llvm::join(names, ", ");
}

/// Whether two attributes hold the same value: dense_resource blobs by
/// their bytes (the two contexts may name them alike), the rest as printed.
bool sameAttribute(Attribute a, Attribute b) {
  auto ra = dyn_cast<DenseResourceElementsAttr>(a);
  auto rb = dyn_cast<DenseResourceElementsAttr>(b);
  if (ra && rb) {
    if (printed(ra.getType()) != printed(rb.getType()))
      return false;
    AsmResourceBlob *blobA = ra.getRawHandle().getBlob();
    AsmResourceBlob *blobB = rb.getRawHandle().getBlob();
    if (!blobA || !blobB)
      return blobA == blobB;
    return blobA->getData() == blobB->getData();
  }
  return printed(a) == printed(b);
}

} // namespace

/// `declared` with `?` at each static dim where `inferred` has one and
/// `widens(dim)` says so (tensors, and tuples of them: split's pieces,
/// whose dims count on from `base` across the tuple); `declared` itself
/// when nothing changes.
static Type widenType(Type declared, Type inferred,
                      function_ref<bool(int64_t)> widens, int64_t base = 0) {
  if (auto tuple = dyn_cast<TupleType>(declared)) {
    auto other = dyn_cast_or_null<TupleType>(inferred);
    if (!other || other.size() != tuple.size())
      return declared;
    SmallVector<Type> parts;
    for (auto [d, i] : llvm::zip(tuple.getTypes(), other.getTypes())) {
      parts.push_back(widenType(d, i, widens, base));
      if (auto r = dyn_cast<RankedTensorType>(d))
        base += r.getRank();
    }
    return TupleType::get(declared.getContext(), parts);
  }
  auto d = dyn_cast<RankedTensorType>(declared);
  auto i = dyn_cast_or_null<RankedTensorType>(inferred);
  if (!d || !i || d.getRank() != i.getRank())
    return declared;
  SmallVector<int64_t> shape(d.getShape());
  for (int64_t k = 0; k < d.getRank(); ++k)
    if (!d.isDynamicDim(k) && i.isDynamicDim(k) && widens(base + k))
      shape[k] = ShapedType::kDynamic;
  return d.clone(shape);
}

/// Whether dim `k` of `t` (a tensor, or the flattened dims of a tuple's
/// tensors, in order) is static.
static bool staticDim(Type t, int64_t &k) {
  if (auto tuple = dyn_cast_or_null<TupleType>(t)) {
    for (Type part : tuple.getTypes()) {
      auto r = dyn_cast<RankedTensorType>(part);
      int64_t rank = r ? r.getRank() : 0;
      if (k < rank)
        return staticDim(part, k);
      k -= rank;
    }
    return false;
  }
  auto r = dyn_cast_or_null<RankedTensorType>(t);
  return r && k < r.getRank() && !r.isDynamicDim(k);
}

/// Sizes the two traces agreed on by coincidence. A dim computed from a
/// traced int (`x[:, :math.ceil(n / 2)]`: 3 at both n = 5 and n = 6) is
/// static in both traces: where the rules' samples (`relations`) know it,
/// it becomes `?` if it varies between them; where they do not (a graph
/// called twice, a rule that cannot tell at some sample), it becomes `?`
/// where the op takes a traced int and its rule cannot know the size
/// without that int's value. Every dim computed from a widened one
/// follows (the rules knew it before and no longer do). A dim the rules
/// could not know without a traced int (a constant slice of a dynamic dim,
/// clamped to it) keeps its traced size, which the interpreter and
/// compiled code check at run time.
static void widenComputedSizes(mlir::ModuleOp module,
                               const SizeRelations &relations) {
  MLIRContext *ctx = module.getContext();
  SymbolTableCollection symbols;
  auto infer = [&](Operation *op) -> SmallVector<Type> {
    ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
    FailureOr<SmallVector<Type>> types = inferCallResultTypes(op, symbols);
    return succeeded(types) ? *types : SmallVector<Type>{};
  };
  SmallVector<Operation *> calls;
  module.walk([&](Operation *op) {
    if (isa<CallFunctionOp, CallMethodOp>(op))
      calls.push_back(op);
  });
  llvm::DenseMap<Operation *, SmallVector<Type>> baseline;
  for (Operation *op : calls)
    baseline[op] = infer(op);
  auto updateGraphTypes = [&] {
    module.walk([&](GraphOp graph) {
      Block &body = graph.getBody().front();
      graph.setFunctionType(FunctionType::get(
          ctx, body.getArgumentTypes(),
          body.getTerminator()->getOperandTypes()));
    });
  };
  // Graph calls carry a widened operand into the callee's input, and the
  // callee's widened outputs back: repeated until nothing changes (each
  // round only turns static dims into `?`).
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *op : calls) {
      if (GraphOp callee = lookupCalleeGraph(op, symbols)) {
        Block &body = callee.getBody().front();
        auto args = cast<CallMethodOp>(op).getArgs();
        for (auto [operand, arg] :
             llvm::zip(args, body.getArguments().drop_front())) {
          Type widened = widenType(arg.getType(), operand.getType(),
                                   [](int64_t) { return true; });
          if (widened != arg.getType()) {
            arg.setType(widened);
            changed = true;
          }
        }
        // (The callee's inputs only: its outputs follow at the end of the
        // round, from its body.)
        callee.setFunctionType(FunctionType::get(
            ctx, body.getArgumentTypes(),
            callee.getFunctionType().getResults()));
      }
      SmallVector<Type> now = infer(op);
      if (now.size() != op->getNumResults())
        continue;
      bool computed = llvm::any_of(op->getOperands(), [](Value v) {
        return v.getType().isInteger(64) || v.getType().isF64();
      });
      const SmallVector<Type> &before = baseline[op];
      for (auto [i, result] : llvm::enumerate(op->getResults())) {
        Type was = i < before.size() ? before[i] : Type();
        // Where the rules knew the size at every probe, it varies or not;
        // elsewhere the rule's `?` decides, as above.
        auto fits = relations.dims.find(result);
        auto widens = [&](int64_t k) {
          if (fits != relations.dims.end() &&
              k < static_cast<int64_t>(fits->second.size()) &&
              fits->second[k].known)
            return fits->second[k].varies;
          return computed || staticDim(was, k);
        };
        Type widened = widenType(result.getType(), now[i], widens);
        if (widened != result.getType()) {
          result.setType(widened);
          changed = true;
        }
      }
    }
    updateGraphTypes();
  }
}

/// Names each `?` dim of a call's results that the relations give as an
/// affine expression of the input dims' names (`traced.dim_names`, one
/// array per result, "" for static dims and sizes of no such expression):
/// the cache a step concatenates is `past + seq` long, the rows of
/// `mask[P:S]` are `seq`.
static void annotateRelations(mlir::ModuleOp module,
                              const SizeRelations &relations) {
  Builder b(module.getContext());
  module.walk([&](Operation *op) {
    if (!isa<CallFunctionOp, CallMethodOp>(op))
      return;
    SmallVector<Attribute> perResult;
    bool any = false;
    for (Value r : op->getResults()) {
      SmallVector<StringRef> names;
      SmallVector<std::string> storage;
      auto type = dyn_cast<RankedTensorType>(r.getType());
      auto fits = relations.dims.find(r);
      if (type && fits != relations.dims.end())
        for (int64_t d = 0; d < type.getRank(); ++d) {
          const SizeRelations::Fit *f =
              d < static_cast<int64_t>(fits->second.size()) ? &fits->second[d]
                                                            : nullptr;
          storage.push_back(type.isDynamicDim(d) && f && f->known && f->expr
                                ? relations.print(f->expr)
                                : "");
          any |= !storage.back().empty();
        }
      for (const std::string &s : storage)
        names.push_back(s);
      perResult.push_back(b.getStrArrayAttr(names));
    }
    if (any)
      op->setAttr(kDimNamesAttr, b.getArrayAttr(perResult));
  });
}

LogicalResult mlir::traced::mergeDynamicTrace(mlir::ModuleOp module,
                                              mlir::ModuleOp other,
                                              ArrayRef<DynamicDim> dims) {
  Walk a(module), b(other);
  std::string names = dimNames(dims);
  auto differ = [&](Operation *op) {
    InFlightDiagnostic diag = op->emitError();
    diag << "the trace depends on the size of the dynamic dim"
         << (dims.size() > 1 ? "s " : " ") << names
         << ": traced at two sizes, ";
    return diag;
  };
  if (a.ops.size() != b.ops.size()) {
    // The first op where the two walks part says where.
    for (size_t i = 0; i < std::min(a.ops.size(), b.ops.size()); ++i)
      if (a.ops[i]->getName().getStringRef() !=
          b.ops[i]->getName().getStringRef())
        return differ(a.ops[i]) << "this expr is '" << a.ops[i]->getName()
                                << "' in one trace and '" << b.ops[i]->getName()
                                << "' in the other";
    Operation *last = a.ops.size() < b.ops.size() ? a.ops.back() : b.ops.back();
    Operation *at = a.ops.size() < b.ops.size() ? last : a.ops[b.ops.size()];
    return differ(at) << "the graphs hold " << a.ops.size() << " and "
                      << b.ops.size() << " ops";
  }

  // Checks everything first; changes nothing until all of it agrees.
  SmallVector<std::pair<Value, Type>> retype;
  auto merge = [&](Operation *op, Value va, Value vb,
                   StringRef what) -> LogicalResult {
    Type merged = mergeTypes(va.getType(), vb.getType());
    if (!merged)
      return differ(op) << what << " has type " << va.getType() << " in one "
                        << "trace and " << printed(vb.getType())
                        << " in the other";
    if (merged != va.getType())
      retype.emplace_back(va, merged);
    return success();
  };
  for (auto [opA, opB] : llvm::zip(a.ops, b.ops)) {
    if (opA->getName().getStringRef() != opB->getName().getStringRef())
      return differ(opA) << "this expr is '" << opA->getName()
                         << "' in one trace and '" << opB->getName()
                         << "' in the other";
    if (opA->getNumOperands() != opB->getNumOperands() ||
        opA->getNumResults() != opB->getNumResults() ||
        opA->getNumRegions() != opB->getNumRegions())
      return differ(opA) << "this expr has other operands or results";
    for (auto [x, y] : llvm::zip(opA->getOperands(), opB->getOperands()))
      if (!(a.origin(x) == b.origin(y)))
        return differ(opA) << "this expr reads other values";
    // Attributes: the same names and values, but for the graphs' function
    // types (rebuilt from the merged argument and output types below).
    DictionaryAttr attrsA = opA->getAttrDictionary();
    DictionaryAttr attrsB = opB->getAttrDictionary();
    if (attrsA.size() != attrsB.size())
      return differ(opA) << "this expr has other attributes";
    for (auto [x, y] : llvm::zip(attrsA, attrsB)) {
      if (x.getName().getValue() != y.getName().getValue())
        return differ(opA) << "this expr has other attributes";
      if (isa<GraphOp>(opA) && x.getName() == GraphOp::getFunctionTypeAttrName(
                                                   opA->getName()))
        continue;
      if (!sameAttribute(x.getValue(), y.getValue()))
        return differ(opA) << "its '" << x.getName().getValue()
                           << "' is " << x.getValue() << " in one trace and "
                           << printed(y.getValue()) << " in the other";
    }
    for (auto [i, pair] :
         llvm::enumerate(llvm::zip(opA->getResults(), opB->getResults())))
      if (failed(merge(opA, std::get<0>(pair), std::get<1>(pair),
                       "result #" + std::to_string(i))))
        return failure();
    for (auto [ra, rb] : llvm::zip(opA->getRegions(), opB->getRegions())) {
      if (ra.getBlocks().size() != rb.getBlocks().size())
        return differ(opA) << "this expr has other regions";
      for (auto [ba, bb] : llvm::zip(ra, rb)) {
        if (ba.getNumArguments() != bb.getNumArguments())
          return differ(opA) << "this graph has other inputs";
        for (auto [i, pair] : llvm::enumerate(
                 llvm::zip(ba.getArguments(), bb.getArguments())))
          if (failed(merge(opA, std::get<0>(pair), std::get<1>(pair),
                           "input " + std::to_string(i))))
            return failure();
      }
    }
  }

  // The root forward and its named dims.
  GraphOp root;
  module.walk([&](traced::ModuleOp m) {
    if (m.getRoot() && !root)
      root = m.lookupSymbol<GraphOp>("forward");
  });
  if (!root)
    return module.emitError("no root traced.module with a 'forward' graph");
  Block &entry = root.getBody().front();
  llvm::DenseMap<Value, Type> newTypes(retype.begin(), retype.end());
  SmallVector<SmallVector<std::string>> dimNamesOf(entry.getNumArguments());
  for (const DynamicDim &d : dims) {
    unsigned arg = d.input + 1;
    if (arg >= entry.getNumArguments())
      return root.emitError() << "no input " << d.input + 1 << " to make dynamic";
    Value v = entry.getArgument(arg);
    auto type = dyn_cast<RankedTensorType>(newTypes.lookup(v) ? newTypes.lookup(v)
                                                              : v.getType());
    if (!type || d.dim < 0 || d.dim >= type.getRank())
      return root.emitError()
             << "input " << d.input << " ('" << root.getArgName(arg)
             << "') has no dim " << d.dim;
    if (!type.isDynamicDim(d.dim))
      return root.emitError()
             << "dim " << d.dim << " of input " << d.input << " ('"
             << root.getArgName(arg) << "') did not change between the traces";
    auto &names = dimNamesOf[arg];
    names.resize(type.getRank());
    names[d.dim] = d.name;
  }
  for (unsigned arg = 1; arg < entry.getNumArguments(); ++arg) {
    Value v = entry.getArgument(arg);
    auto type = dyn_cast<RankedTensorType>(newTypes.lookup(v) ? newTypes.lookup(v)
                                                              : v.getType());
    if (!type)
      continue;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d) &&
          (dimNamesOf[arg].empty() || dimNamesOf[arg][d].empty()))
        return root.emitError()
               << "dim " << d << " of input " << arg - 1 << " ('"
               << root.getArgName(arg)
               << "') changed between the traces but is not declared dynamic";
  }

  // The example's sizes of the names, before the types get their `?`.
  SmallVector<NamedDimExample> examples;
  for (const DynamicDim &d : dims)
    examples.push_back(
        {d.name, cast<RankedTensorType>(entry.getArgument(d.input + 1).getType())
                     .getDimSize(d.dim)});
  for (auto [value, type] : retype)
    value.setType(type);
  module.walk([&](GraphOp graph) {
    Block &body = graph.getBody().front();
    auto output = cast<OutputOp>(body.getTerminator());
    graph.setFunctionType(FunctionType::get(module.getContext(),
                                            body.getArgumentTypes(),
                                            output->getOperandTypes()));
  });
  Builder builder(module.getContext());
  for (auto [arg, names] : llvm::enumerate(dimNamesOf))
    if (!names.empty())
      root.setArgAttr(arg, kDimNamesAttr,
                      builder.getStrArrayAttr(SmallVector<StringRef>(
                          names.begin(), names.end())));
  SizeRelations relations = probeSizes(module, root, examples);
  widenComputedSizes(module, relations);
  annotateRelations(module, relations);
  return success();
}
