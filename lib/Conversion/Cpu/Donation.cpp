//===- Donation.cpp - inputs whose buffers the caller lends to outputs ----===//
//
// traced-cpu-donate-arguments marks the entry arguments the caller donates
// (writable, with the output they alias); traced-cpu-check-donations checks
// after bufferization that each was updated in place, and lets a caller
// that passes one buffer for the input and its output skip the final copy.
// Together they are the compiled form of a key-value cache updated in
// place (docs/llm.md, "Cache styles").
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Pass/Pass.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDCPUDONATEARGUMENTS
#define GEN_PASS_DEF_TRACEDCPUCHECKDONATIONS
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

static constexpr StringLiteral kAliasingOutput = "traced.aliasing_output";

/// How diagnostics name entry input `i`: its label from
/// convert-traced-to-linalg ("input 1 ('cache')"), else "input <i + 1>",
/// as traced-emit-entry's checks name inputs.
static std::string inputName(func::FuncOp f, unsigned i) {
  if (auto labels = f->getAttrOfType<ArrayAttr>("traced.input_labels"))
    if (i < labels.size())
      if (auto label = dyn_cast<StringAttr>(labels[i]))
        return label.str();
  return "input " + std::to_string(i + 1);
}

namespace {
struct DonateArgumentsPass
    : traced::impl::TracedCpuDonateArgumentsBase<DonateArgumentsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (donate.empty())
      return;
    getOperation().walk([&](func::FuncOp f) {
      if (f->hasAttr("traced.entry") && !f.isExternal() &&
          failed(mark(f)))
        signalPassFailure();
    });
  }

  LogicalResult mark(func::FuncOp f) {
    Builder b(f.getContext());
    llvm::SmallDenseSet<unsigned> outputs;
    for (StringRef pair : donate) {
      auto [in, out] = pair.split(':');
      unsigned i, k;
      if (in.trim().getAsInteger(10, i) || out.trim().getAsInteger(10, k))
        return f.emitError() << "donate: '" << pair
                             << "' is not an input:output pair of indices";
      if (i >= f.getNumArguments() || k >= f.getNumResults())
        return f.emitError()
               << "donate: " << pair << " names no input and output: the "
               << "entry has " << f.getNumArguments() << " inputs and "
               << f.getNumResults() << " outputs (numbered from 0)";
      Type from = f.getArgument(i).getType(), to = f.getResultTypes()[k];
      if (!isa<TensorType>(from) || from != to)
        return f.emitError() << inputName(f, i)
                             << " cannot be donated to output " << k
                             << ": its type " << from
                             << " is not the output's, " << to;
      if (f.getArgAttr(i, kAliasingOutput) || !outputs.insert(k).second)
        return f.emitError() << "donate: " << pair
                             << " donates an input or an output twice";
      f.setArgAttr(i, kAliasingOutput, b.getI64IntegerAttr(k));
      f.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                   b.getBoolAttr(true));
    }
    return success();
  }
};

/// `v` without the memref.casts around it (dynamic dims of an argument
/// returned as the function's static or dynamic result type).
static Value stripCasts(Value v) {
  while (auto cast = v.getDefiningOp<memref::CastOp>())
    v = cast.getSource();
  return v;
}

/// The copy that is the only use of `out` (through casts), or null.
static memref::CopyOp onlyWriter(Value out) {
  memref::CopyOp copy;
  SmallVector<Value> worklist{out};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto cast = dyn_cast<memref::CastOp>(user)) {
        worklist.push_back(cast.getResult());
        continue;
      }
      auto c = dyn_cast<memref::CopyOp>(user);
      if (!c || c.getTarget() != v || (copy && copy != c))
        return {};
      copy = c;
    }
  }
  return copy;
}

struct CheckDonationsPass
    : traced::impl::TracedCpuCheckDonationsBase<CheckDonationsPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp f) {
      if (failed(check(f)))
        signalPassFailure();
    });
  }

  LogicalResult check(func::FuncOp f) {
    auto entry = f->getAttrOfType<TypeAttr>("traced.entry");
    if (!entry || f.isExternal())
      return success();
    unsigned inputs = cast<FunctionType>(entry.getValue()).getNumInputs();
    for (unsigned i = 0; i < inputs && i < f.getNumArguments(); ++i) {
      auto k = f.getArgAttrOfType<IntegerAttr>(i, kAliasingOutput);
      if (!k)
        continue;
      unsigned outIndex = inputs + k.getInt();
      // The out-parameters follow the inputs, one per result, in order
      // (buffer-results-to-out-params).
      // In place, the output's buffer is written once, by a copy of the
      // argument at the end. (Computed into its own buffer, which the
      // out-parameter conversion replaced by the output's, it is written
      // by the computation too, after a copy of the argument at the start:
      // aliased, the old value read later would be gone.)
      memref::CopyOp copy;
      if (outIndex < f.getNumArguments())
        copy = onlyWriter(f.getArgument(outIndex));
      if (copy && stripCasts(copy.getSource()) != f.getArgument(i))
        copy = {};
      if (!copy)
        return f.emitError()
               << inputName(f, i) << " is donated to output " << k.getInt()
               << ", but bufferization could not update it in place: its "
                  "old value is read after the write, or the output is not "
                  "computed from it (compile without donating it)";
      // The one copy of the updated input into the output: nothing to do
      // when the caller passed one buffer for both.
      OpBuilder b(copy);
      Location loc = copy.getLoc();
      Value from = memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, copy.getSource());
      Value to = memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, copy.getTarget());
      Value differ =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, from, to);
      auto guard = scf::IfOp::create(b, loc, differ, /*withElseRegion=*/false);
      copy->moveBefore(guard.thenBlock()->getTerminator());
    }
    return success();
  }
};
} // namespace

namespace {
/// Reads of a slice's value after it was written back into its tensor go
/// through the written tensor instead. A write through a view
/// (`cache[i][:, :, P:S] = k`, which the tracer records as an update of
/// `cache[i]` inserted back into `cache`) followed by a read of the view
/// (`cache[i][:, :, :S]`) lowers to
///
///   %view = tensor.extract_slice %cache[i]
///   %new = tensor.insert_slice %k into %view[.., P, ..]
///   %cache2 = tensor.insert_slice %new into %cache[i]
///   ... = tensor.extract_slice %cache2[i] ...
///
/// and the canonicalizer folds the last extract_slice to %new itself. Then
/// one-shot bufferization sees %new read after %cache2 wrote the memory it
/// lives in, and copies the whole view out of place each call (a layer's
/// whole cache, in a language model). Reading it as
/// `tensor.extract_slice %cache2[i]` again (through the reshapes between
/// them, inverted) is the same value, and keeps the update in place.
/// Internal to the CPU pipeline; runs right before bufferization.
struct RereadWrittenSlices
    : PassWrapper<RereadWrittenSlices, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RereadWrittenSlices)
  StringRef getArgument() const final {
    return "traced-cpu-reread-written-slices";
  }
  void runOnOperation() override {
    DominanceInfo dom(getOperation());
    SmallVector<tensor::InsertSliceOp> inserts;
    getOperation().walk([&](tensor::InsertSliceOp op) {
      inserts.push_back(op);
    });
    for (tensor::InsertSliceOp op : inserts)
      reread(op, dom);
  }

  /// The reads of `op`'s source (or of what it was reshaped from) that
  /// `op` dominates, rebuilt from `op`'s result.
  static void reread(tensor::InsertSliceOp op, DominanceInfo &dom) {
    Value v = op.getSource();
    // What to apply to a fresh extract_slice to get each value of the chain
    // back: the inverse of the reshapes from it to the source.
    SmallVector<Operation *> reshapes;
    while (true) {
      rereadUses(op, v, reshapes, dom);
      Operation *def = v.getDefiningOp();
      if (!isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
        return;
      reshapes.push_back(def);
      v = def->getOperand(0);
    }
  }

  static void rereadUses(tensor::InsertSliceOp op, Value v,
                         ArrayRef<Operation *> reshapes, DominanceInfo &dom) {
    SmallVector<OpOperand *> later;
    for (OpOperand &use : v.getUses())
      if (use.getOwner() != op && !llvm::is_contained(reshapes, use.getOwner()) &&
          dom.properlyDominates(op.getOperation(), use.getOwner()))
        later.push_back(&use);
    if (later.empty())
      return;
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    Location loc = op.getLoc();
    Value again = tensor::ExtractSliceOp::create(
        b, loc, op.getSourceType(), op.getResult(), op.getMixedOffsets(),
        op.getMixedSizes(), op.getMixedStrides());
    // Undo the reshapes, last first: an expand_shape made the next value
    // from this one, so a collapse_shape with its groups gives it back.
    for (Operation *r : reshapes) {
      if (auto expand = dyn_cast<tensor::ExpandShapeOp>(r))
        again = tensor::CollapseShapeOp::create(
            b, loc, expand.getSrcType(), again,
            expand.getReassociationIndices());
      else {
        auto collapse = cast<tensor::CollapseShapeOp>(r);
        again = tensor::ExpandShapeOp::create(
            b, loc, collapse.getSrcType(), again,
            collapse.getReassociationIndices(),
            tensor::getMixedSizes(b, loc, collapse.getSrc()));
      }
    }
    for (OpOperand *use : later)
      use->set(again);
  }
};
} // namespace

std::unique_ptr<Pass> traced::detail::createRereadWrittenSlices() {
  return std::make_unique<RereadWrittenSlices>();
}

namespace {
/// Erases the copies of a buffer onto itself that one-shot bufferization
/// leaves when a slice written in place is inserted back where it was
/// extracted from (`memref.copy %sv, %sv2` of two identical subviews of
/// one buffer): a layer's whole key-value cache copied onto itself each
/// call, in a language model. Internal to the CPU pipeline.
struct DropSelfCopies
    : PassWrapper<DropSelfCopies, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropSelfCopies)
  StringRef getArgument() const final { return "traced-cpu-drop-self-copies"; }
  void runOnOperation() override {
    SmallVector<memref::CopyOp> selfCopies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (sameView(copy.getSource(), copy.getTarget()))
        selfCopies.push_back(copy);
    });
    for (memref::CopyOp copy : selfCopies)
      copy.erase();
  }

  static bool sameView(Value a, Value b) {
    if (a == b)
      return true;
    auto x = a.getDefiningOp<memref::SubViewOp>(),
         y = b.getDefiningOp<memref::SubViewOp>();
    return x && y && x.getType() == y.getType() &&
           sameView(x.getSource(), y.getSource()) &&
           x.getMixedOffsets() == y.getMixedOffsets() &&
           x.getMixedSizes() == y.getMixedSizes() &&
           x.getMixedStrides() == y.getMixedStrides();
  }
};
} // namespace

std::unique_ptr<Pass> traced::detail::createDropSelfCopies() {
  return std::make_unique<DropSelfCopies>();
}
