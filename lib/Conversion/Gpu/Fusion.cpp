//===- Fusion.cpp - What a GPU contraction kernel absorbs -----------------===//
//
// The buffer-order helpers of traced-gpu-tile-contractions, and the padded
// inputs and elementwise epilogues its kernels take in (Fusion.h).
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace mlir::traced::gpu_fusion {

/// Every buffer that may alias `v`: the root it is a view of, and the views
/// of that root, transitively.
SmallVector<Value> aliases(Value v) {
  SmallVector<Value> out{rootOf(v)};
  for (size_t i = 0; i < out.size(); ++i)
    for (Operation *user : out[i].getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == out[i])
        out.push_back(view->getResult(0));
  return out;
}

/// Whether `op` (or an op nested in it) may write one of `values`.
bool mayWrite(Operation *op, ArrayRef<Value> values) {
  WalkResult walk = op->walk([&](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects) {
      if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
          isPure(nested))
        return WalkResult::advance();
      // Unknown effects: a write to any of its buffer operands.
      for (Value operand : nested->getOperands())
        if (llvm::is_contained(values, operand))
          return WalkResult::interrupt();
      return WalkResult::advance();
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (auto &effect : list)
      if (isa<MemoryEffects::Write>(effect.getEffect()) &&
          (!effect.getValue() || llvm::is_contained(values, effect.getValue())))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Whether `op` or an op nested in it has one of `values` as an operand.
bool uses(Operation *op, ArrayRef<Value> values) {
  return op
      ->walk([&](Operation *nested) {
        return llvm::any_of(
                   nested->getOperands(),
                   [&](Value v) { return llvm::is_contained(values, v); })
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether an op strictly between `first` and `last` (later in the same
/// block) writes a buffer that may alias `x` or `y`, or with `anyUse`
/// uses one at all.
bool touchedBetween(Operation *first, Operation *last, Value x, Value y,
                    bool anyUse) {
  SmallVector<Value> watched = aliases(x);
  llvm::append_range(watched, aliases(y));
  for (Operation *between = first->getNextNode(); between != last;
       between = between->getNextNode())
    if (anyUse ? uses(between, watched) : mayWrite(between, watched))
      return true;
  return false;
}

/// The fill of `c` with +0.0 before `op` in its block, with nothing between
/// them touching `c`.
linalg::FillOp zeroFillBefore(Value c, Operation *op) {
  SmallVector<Value> watched = aliases(c);
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (fill && fill.getDpsInits()[0] == c)
      return matchPattern(fill.getDpsInputs()[0], m_PosZeroFloat())
                 ? fill
                 : linalg::FillOp();
    if (uses(prev, watched))
      return {};
  }
  return {};
}

Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

namespace {

/// The constant `op` fills all of `buffer` with: `linalg.fill` of a
/// constant, or a `linalg.map` with no inputs yielding one.
TypedAttr fillValue(Operation *op, Value buffer) {
  Value value;
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    if (fill.getDpsInits()[0] != buffer)
      return {};
    value = fill.getDpsInputs()[0];
  } else if (auto map = dyn_cast<linalg::MapOp>(op)) {
    if (!map.getInputs().empty() || map.getInit() != buffer)
      return {};
    value = cast<linalg::YieldOp>(map.getMapper().front().getTerminator())
                .getOperand(0);
  } else {
    return {};
  }
  TypedAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !isa<FloatAttr>(attr))
    return {};
  return attr;
}

/// Whether `v` is defined before `op` (or outside its block), or can be by
/// moving its definition there: an allocation without operands, a global,
/// or a view of those, defined after `op` in its block. The definitions to
/// move are appended to `hoist`, operands first.
bool definedBefore(Value v, Operation *op,
                   SmallVectorImpl<Operation *> &hoist) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != op->getBlock() || def->isBeforeInBlock(op) ||
      llvm::is_contained(hoist, def))
    return true;
  bool movable =
      (isa<memref::AllocOp>(def) && def->getNumOperands() == 0) ||
      isa<memref::GetGlobalOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
          memref::SubViewOp, memref::ReinterpretCastOp, memref::CastOp>(def);
  if (!movable || def == op)
    return false;
  for (Value operand : def->getOperands())
    if (!definedBefore(operand, op, hoist))
      return false;
  hoist.push_back(def);
  return true;
}

} // namespace

std::optional<PaddedInput> paddedInput(Value input, Operation *reader) {
  auto alloc = input.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != reader->getBlock())
    return std::nullopt;
  PaddedInput pad;
  pad.alloc = alloc;
  for (OpOperand &use : input.getUses()) {
    Operation *user = use.getOwner();
    if (user == reader) {
      // Read only: the reader's only operand that is `input` is an input.
      auto dps = dyn_cast<DestinationStyleOpInterface>(reader);
      if (!dps || !dps.isDpsInput(&use))
        return std::nullopt;
      continue;
    }
    if (isa<memref::DeallocOp>(user))
      continue;
    if (isa<memref::SubViewOp>(user) && !pad.subview) {
      pad.subview = user;
      continue;
    }
    if (!pad.fill && (pad.padding = fillValue(user, input))) {
      pad.fill = user;
      continue;
    }
    return std::nullopt;
  }
  if (!pad.fill || !pad.subview)
    return std::nullopt;
  auto subview = cast<memref::SubViewOp>(pad.subview);
  if (!subview->hasOneUse() ||
      !llvm::all_of(subview.getStaticStrides(),
                    [](int64_t s) { return s == 1; }) ||
      !subview.getOffsets().empty() || !subview.getSizes().empty())
    return std::nullopt;
  auto copy = dyn_cast<linalg::CopyOp>(*subview->user_begin());
  if (!copy || copy.getDpsInits()[0] != subview.getResult())
    return std::nullopt;
  pad.copy = copy;
  pad.source = copy.getDpsInputs()[0];
  auto sourceType = dyn_cast<MemRefType>(pad.source.getType());
  if (!sourceType || !sourceType.hasStaticShape() ||
      sourceType.getShape() != subview.getType().getShape() ||
      sourceType.getElementType() != pad.padding.getType())
    return std::nullopt;
  pad.offsets = llvm::to_vector(subview.getStaticOffsets());
  // Filled, then copied, then read, in one block; the source unchanged
  // between the copy and the read.
  if (pad.fill->getBlock() != reader->getBlock() ||
      copy->getBlock() != reader->getBlock() ||
      !pad.fill->isBeforeInBlock(copy) || !copy->isBeforeInBlock(reader) ||
      touchedBetween(copy, reader, pad.source, pad.source, /*anyUse=*/false))
    return std::nullopt;
  return pad;
}

void replacePaddedRead(const PaddedInput &pad, Operation *reader) {
  SmallVector<Value> source = aliases(pad.source);
  for (Operation *op = pad.copy->getNextNode(); op && op != reader;) {
    Operation *next = op->getNextNode();
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op);
        dealloc && llvm::is_contained(source, dealloc.getMemref()))
      op->moveBefore(reader);
    op = next;
  }
  reader->erase();
  pad.copy->erase();
  pad.subview->erase();
  pad.fill->erase();
  for (Operation *user : llvm::make_early_inc_range(pad.alloc->getUsers()))
    user->erase();
  pad.alloc->erase();
}

std::optional<Epilogue> epilogueAfter(Value c, Operation *op,
                                      linalg::FillOp fill,
                                      ArrayRef<Value> reads) {
  if (!fill || !c.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  linalg::GenericOp generic;
  for (Operation *user : c.getUsers()) {
    if (user == op || user == fill.getOperation() ||
        isa<memref::DeallocOp>(user))
      continue;
    auto found = dyn_cast<linalg::GenericOp>(user);
    if (!found || generic)
      return std::nullopt;
    generic = found;
  }
  if (!generic || generic->getBlock() != op->getBlock() ||
      !op->isBeforeInBlock(generic) || generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return std::nullopt;
  Value out = generic.getDpsInits()[0];
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!outType || !outType.hasStaticShape() || out == c)
    return std::nullopt;
  // The generic's element at C's indices: C and `out` at the identity, the
  // others at dims or constants.
  Value outRoot = rootOf(out);
  for (OpOperand &operand : generic->getOpOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(&operand);
    Value v = operand.get();
    if (v == c || generic.isDpsInit(&operand)) {
      if (!map.isIdentity() || (v == c && generic.isDpsInit(&operand)))
        return std::nullopt;
      continue;
    }
    if (!llvm::all_of(map.getResults(), [](AffineExpr e) {
          return isa<AffineDimExpr, AffineConstantExpr>(e);
        }))
      return std::nullopt;
    // An input overlapping `out` only as `out` itself, element for element.
    if (rootOf(v) == outRoot && (v != out || !map.isIdentity()))
      return std::nullopt;
  }
  for (Value read : reads)
    if (rootOf(read) == outRoot)
      return std::nullopt;
  Block &body = generic.getRegion().front();
  for (Operation &nested : body.without_terminator())
    if (!isPure(&nested) || nested.getNumRegions() ||
        isa<linalg::IndexOp>(nested))
      return std::nullopt;
  // The kernel computes the generic where `op` is: what it uses must be
  // defined there, and nothing in between may change its inputs or touch
  // its output or C.
  SmallVector<Operation *> hoist;
  for (Value v : generic->getOperands())
    if (v != c && !definedBefore(v, op, hoist))
      return std::nullopt;
  SmallVector<Value> written = aliases(out);
  llvm::append_range(written, aliases(c));
  SmallVector<Value> readOnly;
  for (Value v : generic.getDpsInputs())
    if (v != c)
      llvm::append_range(readOnly, aliases(v));
  for (Operation *between = op->getNextNode(); between != generic;
       between = between->getNextNode())
    if (!llvm::is_contained(hoist, between) &&
        (uses(between, written) || mayWrite(between, readOnly)))
      return std::nullopt;
  for (Operation *def : hoist)
    def->moveBefore(op);
  return Epilogue{generic, c, out};
}

void emitEpilogue(OpBuilder &b, Location loc, const Epilogue &epilogue,
                  Value value, ValueRange indices) {
  linalg::GenericOp generic = epilogue.generic;
  Block &body = generic.getRegion().front();
  IRMapping mapping;
  for (OpOperand &operand : generic->getOpOperands()) {
    BlockArgument arg = body.getArgument(operand.getOperandNumber());
    if (operand.get() == epilogue.c) {
      mapping.map(arg, value);
      continue;
    }
    if (arg.use_empty())
      continue;
    SmallVector<Value> at;
    for (AffineExpr e : generic.getMatchingIndexingMap(&operand).getResults())
      at.push_back(isa<AffineDimExpr>(e)
                       ? indices[cast<AffineDimExpr>(e).getPosition()]
                       : arith::ConstantIndexOp::create(
                             b, loc, cast<AffineConstantExpr>(e).getValue()));
    mapping.map(arg, memref::LoadOp::create(b, loc, operand.get(), at));
  }
  for (Operation &nested : body.without_terminator())
    b.clone(nested, mapping);
  Value result = mapping.lookupOrDefault(body.getTerminator()->getOperand(0));
  memref::StoreOp::create(b, loc, result, epilogue.out, indices);
}

void absorbEpilogue(const Epilogue &epilogue) {
  epilogue.generic->erase();
  Operation *alloc = epilogue.c.getDefiningOp();
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
    user->erase();
  alloc->erase();
}

} // namespace mlir::traced::gpu_fusion
