//===- SizeProbes.cpp - the shapes of a traced module at sample sizes -----===//
//
// A trace with dynamic dims records two runs; the result rules know more:
// every size of the graph, at any size of its dynamic dims, whenever they
// can compute it from the operands' shapes and the traced ints. This file
// evaluates the rules at sample sizes of the named dims (probes), from the
// root graph through the submodule graphs it calls, and fits each size
// that every probe knows to an affine expression of the names: `past +
// seq` for a cache concatenated with a step's keys, `1` for the rows of
// `mask[P:S]` where P = S - 1, a size that varies but is not affine
// (`math.ceil(n / 2)`) as such.
//
// Ints are evaluated as Python evaluates them (size reads, + - * // %,
// true division, max, min, math.ceil/floor/trunc); tensor shapes by the op
// library's result rules on static shapes, the traced ints passed as
// constants. A size a rule cannot compute at some probe is unknown there.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Transforms/DynamicDims.h"

#include "TracedIR/Dialect/Traced/BoundOp.h"
#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ScopeExit.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;

namespace {

/// A value at one probe: a tensor's shape, an int, a float, or a tuple's
/// parts; `known` false where the rules could not tell.
struct Sample {
  enum Kind { Unknown, Shape, Int, Float, Parts } kind = Unknown;
  SmallVector<int64_t> shape;
  int64_t i = 0;
  double f = 0;
  std::vector<Sample> parts;

  static Sample ofInt(int64_t v) {
    Sample s;
    s.kind = Int;
    s.i = v;
    return s;
  }
  static Sample ofFloat(double v) {
    Sample s;
    s.kind = Float;
    s.f = v;
    return s;
  }
  /// A static type's sample (tensors and tuples of them), else unknown.
  static Sample ofType(Type t) {
    Sample s;
    if (auto r = dyn_cast<RankedTensorType>(t); r && r.hasStaticShape()) {
      s.kind = Shape;
      s.shape.assign(r.getShape().begin(), r.getShape().end());
    } else if (auto tuple = dyn_cast<TupleType>(t)) {
      s.kind = Parts;
      for (Type part : tuple.getTypes())
        s.parts.push_back(ofType(part));
    }
    return s;
  }
  /// `t` with this sample's sizes (tensors and tuples), or null.
  Type typed(Type t) const {
    if (auto r = dyn_cast<RankedTensorType>(t))
      return kind == Shape && static_cast<int64_t>(shape.size()) == r.getRank()
                 ? r.clone(shape)
                 : Type();
    if (auto tuple = dyn_cast<TupleType>(t)) {
      if (kind != Parts || parts.size() != tuple.size())
        return Type();
      SmallVector<Type> types;
      for (auto [p, part] : llvm::zip(parts, tuple.getTypes()))
        if (Type x = p.typed(part))
          types.push_back(x);
        else
          return Type();
      return TupleType::get(t.getContext(), types);
    }
    return t; // modules, None: as they are
  }
};

/// `+`, `-` and `*` (torch.add, torch.sub, torch.mul) of two Python
/// numbers of one kind, as Python computes them; nullopt for other targets.
template <typename T>
std::optional<T> ringOp(StringRef name, T x, T y) {
  if (name == "torch.add")
    return x + y;
  if (name == "torch.sub")
    return x - y;
  if (name == "torch.mul")
    return x * y;
  return std::nullopt;
}

/// Evaluates the module's graphs at one probe.
class Evaluator {
public:
  explicit Evaluator(SymbolTableCollection &symbols) : symbols(symbols) {}

  /// Runs `graph` on `args` (one sample per block argument), recording
  /// every value's sample; returns the outputs' samples.
  SmallVector<Sample> run(GraphOp graph, ArrayRef<Sample> args) {
    ++graphRuns[graph];
    Block &body = graph.getBody().front();
    for (auto [arg, s] : llvm::zip(body.getArguments(), args))
      at[arg] = s;
    for (Operation &op : body) {
      if (auto output = dyn_cast<OutputOp>(op)) {
        SmallVector<Sample> out;
        for (Value v : output->getOperands())
          out.push_back(get(v));
        return out;
      }
      evaluate(&op);
    }
    return {};
  }

  Sample get(Value v) const {
    auto it = at.find(v);
    return it == at.end() ? Sample::ofType(v.getType()) : it->second;
  }

  llvm::DenseMap<Value, Sample> at;
  /// How often each graph ran (a module called twice: its values' samples
  /// are the last call's, so they say nothing of the first).
  llvm::DenseMap<Operation *, int> graphRuns;

private:
  void evaluate(Operation *op) {
    if (!isa<CallFunctionOp, CallMethodOp>(op))
      return; // getattr, constants: their static types
    if (GraphOp callee = lookupCalleeGraph(op, symbols)) {
      SmallVector<Sample> args{Sample()}; // self
      for (Value v : cast<CallMethodOp>(op).getArgs())
        args.push_back(get(v));
      SmallVector<Sample> out = run(callee, args);
      for (auto [r, s] : llvm::zip(op->getResults(), out))
        at[r] = s;
      return;
    }
    if (op->getNumResults() == 1 && !isa<TensorType, TupleType>(
                                        op->getResult(0).getType())) {
      at[op->getResult(0)] = number(op);
      return;
    }
    SmallVector<Type> types = inferAtSamples(op);

    for (auto [i, r] : llvm::enumerate(op->getResults()))
      at[r] = i < types.size() ? Sample::ofType(types[i]) : Sample();
  }

  /// A Python number a call computes from sizes and other numbers.
  Sample number(Operation *op) {
    std::optional<BoundOp> bound = bindCall(op, {});
    if (!bound)
      return Sample();
    auto arg = [&](StringRef name) -> Sample {
      if (!bound->spec->signature.lookup(name))
        return Sample();
      if (Value v = bound->value(name))
        return get(v);
      Attribute slot = bound->slot(name);
      if (!slot)
        return Sample();
      if (auto i = dyn_cast<IntegerAttr>(slot))
        return isa<BoolAttr>(slot) ? Sample() : Sample::ofInt(i.getInt());
      if (auto f = dyn_cast<FloatAttr>(slot))
        return Sample::ofFloat(f.getValueAsDouble());
      return Sample();
    };
    StringRef name = bound->spec->name;
    if (name == "Tensor.size") {
      Sample in = arg("input"), dim = arg("dim");
      if (in.kind != Sample::Shape || dim.kind != Sample::Int)
        return Sample();
      int64_t rank = in.shape.size(), d = dim.i < 0 ? dim.i + rank : dim.i;
      return d >= 0 && d < rank ? Sample::ofInt(in.shape[d]) : Sample();
    }
    if (name == "torch.numel") {
      Sample in = arg("input");
      if (in.kind != Sample::Shape)
        return Sample();
      int64_t n = 1;
      for (int64_t s : in.shape)
        n *= s;
      return Sample::ofInt(n);
    }
    if (name == "math.ceil" || name == "math.floor" || name == "math.trunc") {
      Sample x = arg("x");
      if (x.kind == Sample::Int)
        return x;
      if (x.kind != Sample::Float || !std::isfinite(x.f))
        return Sample();
      double r = name == "math.ceil"    ? std::ceil(x.f)
                 : name == "math.floor" ? std::floor(x.f)
                                        : std::trunc(x.f);
      return std::fabs(r) < 9e18 ? Sample::ofInt(static_cast<int64_t>(r))
                                 : Sample();
    }
    bool extreme = name == "torch.ops.prim.max" || name == "torch.ops.prim.min";
    Sample a = arg(extreme ? "a" : "input"), b = arg(extreme ? "b" : "other");
    if (name == "torch.neg" && a.kind == Sample::Int)
      return Sample::ofInt(-a.i);
    if (name == "torch.neg" && a.kind == Sample::Float)
      return Sample::ofFloat(-a.f);
    if ((a.kind != Sample::Int && a.kind != Sample::Float) ||
        (b.kind != Sample::Int && b.kind != Sample::Float))
      return Sample();
    if (a.kind == Sample::Int && b.kind == Sample::Int) {
      int64_t x = a.i, y = b.i;
      if (std::optional<int64_t> r = ringOp(name, x, y))
        return Sample::ofInt(*r);
      if (name == "torch.floor_divide" && y != 0) {
        int64_t q = x / y;
        return Sample::ofInt((x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q);
      }
      if (name == "torch.remainder" && y != 0) {
        int64_t r = x % y;
        return Sample::ofInt(r != 0 && ((r < 0) != (y < 0)) ? r + y : r);
      }
      if (name == "torch.ops.prim.max")
        return Sample::ofInt(std::max(x, y));
      if (name == "torch.ops.prim.min")
        return Sample::ofInt(std::min(x, y));
    }
    double x = a.kind == Sample::Int ? a.i : a.f;
    double y = b.kind == Sample::Int ? b.i : b.f;
    if (name == "torch.div" && y != 0)
      return Sample::ofFloat(x / y);
    if (std::optional<double> r = ringOp(name, x, y))
      return Sample::ofFloat(*r);
    return Sample();
  }

  /// The call's result types with its operands at their samples: tensors
  /// retyped to their shapes and traced numbers passed as constants, for
  /// the time of the rule (then put back). Empty when an operand is
  /// unknown or the rule cannot tell.
  SmallVector<Type> inferAtSamples(Operation *op) {
    SmallVector<std::pair<Value, Type>> restore;
    auto putBack = llvm::scope_exit([&] {
      for (auto [v, t] : restore)
        v.setType(t);
    });
    ArrayAttr arguments = op->getAttrOfType<ArrayAttr>("arguments");
    unsigned first = isa<CallMethodOp>(op) ? 1 : 0; // the receiver
    SmallVector<Attribute> numbers(op->getNumOperands());
    bool hasNumbers = false;
    for (auto [i, v] : llvm::enumerate(op->getOperands())) {
      Sample s = get(v);
      Type t = v.getType();
      if (isa<TensorType, TupleType>(t)) {
        Type typed = s.typed(t);
        if (!typed)
          return {};
        if (typed != t) {
          restore.emplace_back(v, t);
          v.setType(typed);
        }
      } else if (t.isInteger(64) || t.isF64()) {
        if (i < first)
          continue;
        Builder b(op->getContext());
        if (s.kind == Sample::Int)
          numbers[i - first] = b.getI64IntegerAttr(s.i);
        else if (s.kind == Sample::Float)
          numbers[i - first] = b.getF64FloatAttr(s.f);
        else
          return {};
        hasNumbers = true;
      }
    }
    // Traced numbers become constants of a copy of the call (inserted
    // for the time of the rule, so that receivers resolve), which keeps
    // the other operands.
    Operation *call = op;
    if (hasNumbers && arguments) {
      MLIRContext *ctx = op->getContext();
      ValueRange args = op->getOperands().drop_front(first);
      SmallVector<Value> kept;
      SmallVector<int64_t> renumbered(args.size(), -1);
      for (auto [i, v] : llvm::enumerate(args))
        if (!numbers[i]) {
          renumbered[i] = kept.size();
          kept.push_back(v);
        }
      auto newArguments = cast<ArrayAttr>(
          replaceOperandMarkers(arguments, [&](OperandAttr m) -> Attribute {
            unsigned i = m.getIndex();
            if (i >= numbers.size())
              return m;
            return numbers[i] ? numbers[i]
                              : OperandAttr::get(ctx, renumbered[i]);
          }));
      auto keywords = op->getAttrOfType<ArrayAttr>("keywords");
      OpBuilder b(op);
      if (auto f = dyn_cast<CallFunctionOp>(op))
        call = CallFunctionOp::create(b, op->getLoc(), op->getResultTypes(),
                                      f.getCalleeAttr(), kept, newArguments,
                                      keywords);
      else
        call = CallMethodOp::create(
            b, op->getLoc(), op->getResultTypes(),
            cast<CallMethodOp>(op).getReceiver(),
            cast<CallMethodOp>(op).getMethodAttr(), kept, newArguments,
            keywords);
    }
    auto eraseCopy = llvm::scope_exit([&] {
      if (call != op)
        call->erase();
    });
    ScopedDiagnosticHandler silence(op->getContext(),
                                    [](Diagnostic &) { return success(); });
    FailureOr<SmallVector<Type>> types = inferCallResultTypes(call, symbols);
    return succeeded(types) ? *types : SmallVector<Type>{};
  }

  SymbolTableCollection &symbols;
};

} // namespace

SizeRelations mlir::traced::probeSizes(mlir::ModuleOp module, GraphOp root,
                                        ArrayRef<NamedDimExample> dims) {
  SizeRelations relations;
  MLIRContext *ctx = module.getContext();
  // The names, in order of first appearance, and their example sizes.
  SmallVector<std::string> names;
  SmallVector<int64_t> examples;
  for (const NamedDimExample &d : dims)
    if (!llvm::is_contained(names, d.name)) {
      names.push_back(d.name);
      examples.push_back(d.example);
    }
  relations.names.assign(names.begin(), names.end());
  size_t k = names.size();
  // Probes: the example, each name one larger alone (the affine fit),
  // then all one larger (the second trace), all two larger, and an uneven
  // step (checks of the fit).
  SmallVector<SmallVector<int64_t>> probes;
  probes.push_back(examples);
  for (size_t i = 0; i < k; ++i) {
    probes.push_back(examples);
    probes.back()[i] += 1;
  }
  for (int64_t step : {1, 2}) {
    probes.push_back(examples);
    for (int64_t &v : probes.back())
      v += step;
  }
  probes.push_back(examples);
  for (size_t i = 0; i < k; ++i)
    probes.back()[i] += 3 + 2 * static_cast<int64_t>(i);

  SymbolTableCollection symbols;
  Block &entry = root.getBody().front();
  SmallVector<Evaluator> runs;
  for (ArrayRef<int64_t> probe : probes) {
    SmallVector<Sample> args{Sample()};
    for (BlockArgument arg : entry.getArguments().drop_front()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      auto named = root.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(),
                                                    kDimNamesAttr);
      if (!type) {
        args.push_back(Sample::ofType(arg.getType()));
        continue;
      }
      Sample s;
      s.kind = Sample::Shape;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        int64_t size = type.getDimSize(d);
        if (ShapedType::isDynamic(size)) {
          StringRef name;
          if (named && d < static_cast<int64_t>(named.size()))
            name = cast<StringAttr>(named[d]).getValue();
          auto it = llvm::find(names, name);
          if (it == names.end()) {
            s = Sample();
            break;
          }
          size = probe[it - names.begin()];
        }
        s.shape.push_back(size);
      }
      args.push_back(s);
    }
    runs.emplace_back(symbols);
    runs.back().run(root, args);
  }

  // Fits one size across the probes: an affine expression of the names
  // (the example and each name's unit step give its coefficients, the
  // other probes check it), or a marker that it varies otherwise.
  auto fit = [&](ArrayRef<int64_t> values) -> SizeRelations::Fit {
    SizeRelations::Fit f;
    int64_t base = values[0];
    AffineExpr e = getAffineConstantExpr(base, ctx);
    SmallVector<int64_t> coeff(k);
    for (size_t i = 0; i < k; ++i) {
      coeff[i] = values[1 + i] - base;
      e = e + getAffineSymbolExpr(i, ctx) * coeff[i] -
          getAffineConstantExpr(coeff[i] * examples[i], ctx);
    }
    bool affine = true;
    for (size_t p = k + 1; p < probes.size(); ++p) {
      int64_t want = base;
      for (size_t i = 0; i < k; ++i)
        want += coeff[i] * (probes[p][i] - examples[i]);
      affine = affine && want == values[p];
    }
    f.varies = llvm::any_of(values, [&](int64_t v) { return v != base; });
    if (affine)
      f.expr = simplifyAffineExpr(e, 0, k);
    return f;
  };

  module.walk([&](Operation *op) {
    auto graph = op->getParentOfType<GraphOp>();
    bool once = graph && runs.front().graphRuns.lookup(graph) == 1;
    for (Value r : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(r.getType());
      if (!type || !once)
        continue;
      SmallVector<SizeRelations::Fit> fits;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        SmallVector<int64_t> values;
        for (Evaluator &run : runs) {
          auto it = run.at.find(r);
          if (it == run.at.end() || it->second.kind != Sample::Shape ||
              d >= static_cast<int64_t>(it->second.shape.size()))
            break;
          values.push_back(it->second.shape[d]);
        }
        SizeRelations::Fit f;
        if (values.size() == probes.size())
          f = fit(values);
        else
          f.known = false;
        fits.push_back(f);
      }
      relations.dims[r] = fits;
    }
  });
  return relations;
}

std::string SizeRelations::print(AffineExpr e) const {
  // Symbols by name; `s0 * 2` as `2 * past`.
  std::string text;
  llvm::raw_string_ostream os(text);
  std::function<void(AffineExpr, bool)> emit = [&](AffineExpr x, bool paren) {
    if (auto c = dyn_cast<AffineConstantExpr>(x)) {
      os << c.getValue();
      return;
    }
    if (auto s = dyn_cast<AffineSymbolExpr>(x)) {
      os << names[s.getPosition()];
      return;
    }
    auto bin = cast<AffineBinaryOpExpr>(x);
    if (paren)
      os << "(";
    if (x.getKind() == AffineExprKind::Add) {
      AffineExpr rhs = bin.getRHS();
      emit(bin.getLHS(), false);
      auto c = dyn_cast<AffineConstantExpr>(rhs);
      auto mul = dyn_cast<AffineBinaryOpExpr>(rhs);
      auto factor = mul && mul.getKind() == AffineExprKind::Mul
                        ? dyn_cast<AffineConstantExpr>(mul.getRHS())
                        : AffineConstantExpr();
      if (c && c.getValue() < 0) {
        os << " - " << -c.getValue();
      } else if (factor && factor.getValue() == -1) {
        os << " - ";
        emit(mul.getLHS(), true);
      } else if (factor && factor.getValue() < 0) {
        os << " - " << -factor.getValue() << " * ";
        emit(mul.getLHS(), true);
      } else {
        os << " + ";
        emit(rhs, false);
      }
    } else if (x.getKind() == AffineExprKind::Mul) {
      auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
      if (c) {
        os << c.getValue() << " * ";
        emit(bin.getLHS(), true);
      } else {
        emit(bin.getLHS(), true);
        os << " * ";
        emit(bin.getRHS(), true);
      }
    } else {
      emit(bin.getLHS(), true);
      os << " ? ";
      emit(bin.getRHS(), true);
    }
    if (paren)
      os << ")";
  };
  emit(e, false);
  return text;
}
