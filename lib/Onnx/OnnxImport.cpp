//===- OnnxImport.cpp - ONNX models as traced IR --------------------------===//
//
// The driver of `--import-onnx`: a root module `traced.module root @<graph>`
// whose parameters are the model's initializers and whose forward graph
// takes the model's inputs (initializers named as inputs are not inputs)
// and calls op-library entries for each node. Locations are
// `<file>:<node index>` named by the node, so that diagnostics point at
// the node.
//
//===----------------------------------------------------------------------===//

#include "Import.h"

#include "TracedIR/Dialect/Traced/ConstantEvaluator.h"
#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Onnx/Onnx.h"
#include "TracedIR/Support/Blobs.h"
#include "TracedIR/Support/DType.h"
#include "TracedIR/Support/Limits.h"
#include "llvm/Support/MathExtras.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"

#include <cstring>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::onnx_import;

Type onnx_import::elementTypeOf(MLIRContext *ctx, int32_t type) {
  std::optional<DType> d;
  switch (type) {
  case onnx::kFloat:
    d = DType::F32;
    break;
  case onnx::kDouble:
    d = DType::F64;
    break;
  case onnx::kFloat16:
    d = DType::F16;
    break;
  case onnx::kBFloat16:
    d = DType::BF16;
    break;
  case onnx::kInt64:
    d = DType::I64;
    break;
  case onnx::kInt32:
    d = DType::I32;
    break;
  case onnx::kInt16:
    d = DType::I16;
    break;
  case onnx::kInt8:
    d = DType::I8;
    break;
  case onnx::kUInt8:
    d = DType::U8;
    break;
  case onnx::kBool:
    d = DType::Bool;
    break;
  default:
    return {};
  }
  return typeFromDType(ctx, *d);
}

template <typename T>
static void readAs(const std::string &raw, size_t i, T &out) {
  std::memcpy(&out, raw.data() + i * sizeof(T), sizeof(T));
}

/// Whether `t`'s bytes are its elements (external data not read, a size
/// that does not match: nothing to read).
static bool hasElements(const onnx::Tensor &t) {
  size_t width = onnx::dataTypeBytes(t.dataType);
  uint64_t bytes;
  return !t.external && width &&
         !__builtin_mul_overflow(uint64_t(t.numElements()), uint64_t(width),
                                 &bytes) &&
         bytes == t.raw.size();
}

std::optional<SmallVector<double>>
onnx_import::tensorDoubles(const onnx::Tensor &t) {
  if (!hasElements(t) || t.numElements() > (int64_t(1) << 24))
    return std::nullopt;
  SmallVector<double> out;
  int64_t n = t.numElements();
  for (int64_t i = 0; i < n; ++i) {
    double v;
    switch (t.dataType) {
    case onnx::kFloat: {
      float f;
      readAs(t.raw, i, f);
      v = f;
      break;
    }
    case onnx::kDouble:
      readAs(t.raw, i, v);
      break;
    case onnx::kFloat16:
    case onnx::kBFloat16: {
      uint16_t bits;
      readAs(t.raw, i, bits);
      APFloat f(t.dataType == onnx::kFloat16 ? APFloat::IEEEhalf()
                                             : APFloat::BFloat(),
                APInt(16, bits));
      v = f.convertToDouble();
      break;
    }
    default: {
      std::optional<SmallVector<int64_t>> ints = tensorInts(t);
      if (!ints)
        return std::nullopt;
      for (int64_t x : *ints)
        out.push_back(static_cast<double>(x));
      return out;
    }
    }
    out.push_back(v);
  }
  return out;
}

std::optional<SmallVector<int64_t>>
onnx_import::tensorInts(const onnx::Tensor &t) {
  if (!hasElements(t) || t.numElements() > (int64_t(1) << 24))
    return std::nullopt;
  SmallVector<int64_t> out;
  int64_t n = t.numElements();
  for (int64_t i = 0; i < n; ++i) {
    int64_t v;
    switch (t.dataType) {
    case onnx::kInt64:
      readAs(t.raw, i, v);
      break;
    case onnx::kInt32: {
      int32_t x;
      readAs(t.raw, i, x);
      v = x;
      break;
    }
    case onnx::kInt16: {
      int16_t x;
      readAs(t.raw, i, x);
      v = x;
      break;
    }
    case onnx::kInt8: {
      int8_t x;
      readAs(t.raw, i, x);
      v = x;
      break;
    }
    case onnx::kUInt8:
    case onnx::kBool: {
      uint8_t x;
      readAs(t.raw, i, x);
      v = x;
      break;
    }
    case onnx::kUInt16: {
      uint16_t x;
      readAs(t.raw, i, x);
      v = x;
      break;
    }
    case onnx::kUInt32: {
      uint32_t x;
      readAs(t.raw, i, x);
      v = x;
      break;
    }
    case onnx::kUInt64: {
      uint64_t x;
      readAs(t.raw, i, x);
      v = static_cast<int64_t>(x);
      break;
    }
    default:
      return std::nullopt;
    }
    out.push_back(v);
  }
  return out;
}

InFlightDiagnostic Importer::error(const Twine &msg) {
  return mlir::emitError(loc) << msg;
}

FailureOr<Value> Importer::tensorValue(const onnx::Tensor &t,
                                       bool parameter) {
  Type element = elementTypeOf(ctx, t.dataType);
  if (!element)
    return error("tensor '" + t.name + "' has data type " +
                 onnx::dataTypeName(t.dataType) +
                 ", which traced tensors cannot hold"),
           failure();
  if (!hasElements(t))
    return error("tensor '" + t.name + "' holds " + Twine(t.raw.size()) +
                 " bytes, not the elements of its shape"),
           failure();
  auto type = RankedTensorType::get(t.dims, element);
  ArrayRef<char> data(t.raw.data(), t.raw.size());
  if (element.isInteger(1) &&
      llvm::any_of(t.raw, [](char c) { return c != 0 && c != 1; }))
    return error("bool tensor '" + t.name + "' holds bytes other than 0 and "
                 "1"),
           failure();
  if (parameter && root && graph) {
    // The model's weights: parameters of the root module, in blobs.
    std::string name = t.name.empty() ? "initializer" : t.name;
    for (unsigned i = 1; root.lookupSymbol(name); ++i)
      name = t.name + "_" + std::to_string(i);
    ElementsAttr value;
    if (element.isInteger(1)) {
      SmallVector<bool> bools(t.raw.begin(), t.raw.end());
      value = DenseElementsAttr::get(type, bools);
    } else {
      size_t width = onnx::dataTypeBytes(t.dataType);
      value = DenseResourceElementsAttr::get(
          type, name, copyToBlob(data, std::max<size_t>(width, 1)));
    }
    OpBuilder declare(graph);
    ParameterOp::create(declare, loc, name, type, value);
    return GetAttrOp::create(b, loc, type, self, name).getResult();
  }
  ElementsAttr value;
  if (element.isInteger(1)) {
    SmallVector<bool> bools(t.raw.begin(), t.raw.end());
    value = DenseElementsAttr::get(type, bools);
  } else {
    value = DenseElementsAttr::getFromRawBuffer(type, data);
  }
  return ConstantOp::create(b, loc, type, value).getResult();
}

//===----------------------------------------------------------------------===//
// ImportNode
//===----------------------------------------------------------------------===//

MLIRContext *ImportNode::ctx() const { return im.ctx; }

bool ImportNode::has(unsigned i) const {
  return i < n.inputs.size() && !n.inputs[i].empty();
}

bool ImportNode::withinLimit(int64_t count, const Twine &what) {
  uint64_t bytes;
  if (count >= 0 && !__builtin_mul_overflow(uint64_t(count), uint64_t(8), &bytes) &&
      bytes <= getResourceLimits().maxTensorBytes)
    return true;
  emitTensorBytesLimit(im.loc, "ONNX node " + n.opType + ": " + what,
                       count < 0 ? ~uint64_t(0) : uint64_t(count) * 8);
  return false;
}

LogicalResult ImportNode::fail(const Twine &why) {
  im.error("cannot import ONNX node " +
           (n.name.empty() ? "" : "'" + n.name + "' ") + "(" + n.opType +
           "): " + why);
  return failure();
}

Value ImportNode::in(unsigned i) {
  if (!has(i)) {
    (void)fail("input #" + Twine(i) + " is missing");
    return {};
  }
  auto it = im.values.find(n.inputs[i]);
  if (it != im.values.end())
    return it->second;
  if (auto c = im.constants.find(n.inputs[i]); c != im.constants.end()) {
    // A constant read as a tensor: materialize it once.
    FailureOr<Value> v = im.tensorValue(*c->second, /*parameter=*/false);
    if (failed(v))
      return {};
    im.values[n.inputs[i]] = *v;
    return *v;
  }
  (void)fail("input '" + n.inputs[i] + "' is not defined before the node");
  return {};
}

RankedTensorType ImportNode::type(unsigned i) {
  Value v = in(i);
  return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

static std::optional<onnx::Tensor> toTensor(DenseElementsAttr dense,
                                            StringRef name);

/// Input `i`'s value as a constant tensor: a known constant, or one
/// computed from constants (`Importer::evaluate`).
static const onnx::Tensor *constantInput(Importer &im, const onnx::Node &n,
                                         unsigned i) {
  if (i >= n.inputs.size() || n.inputs[i].empty())
    return nullptr;
  auto c = im.constants.find(n.inputs[i]);
  if (c != im.constants.end())
    return c->second;
  auto v = im.values.find(n.inputs[i]);
  if (v == im.values.end())
    return nullptr;
  DenseElementsAttr dense = im.evaluate(v->second, /*depth=*/0);
  if (!dense)
    return nullptr;
  std::optional<onnx::Tensor> t = toTensor(dense, n.inputs[i]);
  if (!t)
    return nullptr;
  im.owned.push_back(std::make_unique<onnx::Tensor>(std::move(*t)));
  im.constants[n.inputs[i]] = im.owned.back().get();
  return im.owned.back().get();
}

std::optional<SmallVector<int64_t>> ImportNode::constInts(unsigned i) const {
  const onnx::Tensor *t = constantInput(im, n, i);
  if (!t)
    return std::nullopt;
  return tensorInts(*t);
}

std::optional<SmallVector<double>> ImportNode::constFloats(unsigned i) const {
  const onnx::Tensor *t = constantInput(im, n, i);
  if (!t)
    return std::nullopt;
  return tensorDoubles(*t);
}

DenseElementsAttr Importer::evaluate(Value v, unsigned depth) {
  if (depth > 64)
    return {};
  if (auto c = v.getDefiningOp<ConstantOp>())
    return dyn_cast<DenseElementsAttr>(c.getValue());
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // An input the caller gave as a constant.
    if (!constantInputs || !graph || arg.getOwner() != &graph.getBody().front())
      return {};
    ArrayAttr names = graph.getArgNamesAttr();
    if (!names || arg.getArgNumber() >= names.size())
      return {};
    auto it = constantInputs->find(
        cast<StringAttr>(names[arg.getArgNumber()]).getValue().str());
    if (it == constantInputs->end())
      return {};
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape() ||
        it->second.raw.size() !=
            type.getNumElements() * onnx::dataTypeBytes(it->second.dataType) ||
        elementTypeOf(ctx, it->second.dataType) != type.getElementType() ||
        type.getElementType().isInteger(1))
      return {};
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(it->second.raw.data(), it->second.raw.size()));
  }
  Operation *op = v.getDefiningOp();
  const ConstantEvaluatorInterface *evaluator = getConstantEvaluator(ctx);
  if (!op || !evaluator || !isa<CallFunctionOp, CallMethodOp>(op) ||
      op->getNumResults() != 1)
    return {};
  // A copy of the call over constants of its operands' values, evaluated
  // and erased: the graph keeps computing the tensor where it is one.
  OpBuilder tb(op);
  SmallVector<Operation *> temps;
  IRMapping map;
  for (Value operand : op->getOperands()) {
    DenseElementsAttr c = evaluate(operand, depth + 1);
    if (!c) {
      for (Operation *t : temps)
        t->erase();
      return {};
    }
    auto k = ConstantOp::create(tb, op->getLoc(), operand.getType(), c);
    temps.push_back(k);
    map.map(operand, k.getResult());
  }
  Operation *copy = tb.clone(*op, map);
  Attribute folded = evaluator->evaluate(copy, /*maxElements=*/1 << 16);
  copy->erase();
  for (Operation *t : temps)
    t->erase();
  return dyn_cast_or_null<DenseElementsAttr>(folded);
}

int64_t ImportNode::attrInt(StringRef name, int64_t dflt) const {
  const onnx::Attribute *a = n.attr(name);
  return a ? a->i : dflt;
}

double ImportNode::attrFloat(StringRef name, double dflt) const {
  const onnx::Attribute *a = n.attr(name);
  return a ? a->f : dflt;
}

std::optional<SmallVector<int64_t>>
ImportNode::attrInts(StringRef name) const {
  const onnx::Attribute *a = n.attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints.begin(), a->ints.end());
}

std::string ImportNode::attrString(StringRef name, StringRef dflt) const {
  const onnx::Attribute *a = n.attr(name);
  return a ? a->s : dflt.str();
}

void ImportNode::set(unsigned i, Value v) {
  if (i < n.outputs.size() && !n.outputs[i].empty() && v)
    im.values[n.outputs[i]] = v;
}

Attribute ImportNode::i64(int64_t v) const {
  return IntegerAttr::get(IntegerType::get(ctx(), 64), v);
}
Attribute ImportNode::f64(double v) const {
  return FloatAttr::get(Float64Type::get(ctx()), v);
}
Attribute ImportNode::boolean(bool v) const { return BoolAttr::get(ctx(), v); }
Attribute ImportNode::str(StringRef v) const {
  return StringAttr::get(ctx(), v);
}
Attribute ImportNode::ints(ArrayRef<int64_t> v) const {
  SmallVector<Attribute> elements;
  for (int64_t x : v)
    elements.push_back(i64(x));
  return ArrayAttr::get(ctx(), elements);
}
Attribute ImportNode::none() const { return NoneAttr::get(ctx()); }
Attribute ImportNode::dtype(Type t) const { return DTypeAttr::get(ctx(), t); }

Value ImportNode::call(StringRef target, ArrayRef<KwArg> args) {
  LibraryCall call(ctx(), target, args);
  if (call.incomplete())
    return {};
  if (!call.spec()) {
    (void)fail("the importer calls an unknown entry '" + target + "'");
    return {};
  }
  // Typed by the entry's rule: build untyped, infer, rebuild.
  FailureOr<SmallVector<Type>> types =
      call.inferTypes(im.b, im.loc, im.symbols);
  if (failed(types)) {
    (void)fail("its translation to '" + target + "' does not type");
    return {};
  }
  if (types->empty() || llvm::any_of(*types, [](Type t) { return !t; })) {
    (void)fail("the result types of '" + target +
               "' are not known statically");
    return {};
  }
  // A shape from the file past the tensor-size limit (or past 2^64 bytes)
  // is refused here, before anything computes on it.
  for (Type t : *types) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    std::optional<DType> dtype =
        tensor ? storageDTypeFromType(tensor.getElementType()) : std::nullopt;
    if (!tensor || !dtype)
      continue;
    uint64_t bytes = rawElementBytes(*dtype);
    for (int64_t d : tensor.getShape())
      if (!ShapedType::isDynamic(d) &&
          __builtin_mul_overflow(bytes, uint64_t(d), &bytes))
        bytes = ~uint64_t(0);
    if (bytes > getResourceLimits().maxTensorBytes) {
      emitTensorBytesLimit(im.loc, "the result of '" + target + "' (ONNX " +
                                       n.opType + ")",
                           bytes);
      return {};
    }
  }
  Operation *op = call.build(im.b, im.loc, *types);
  return op->getNumResults() ? op->getResult(0) : Value();
}

Value ImportNode::cast(Value v, Type t) {
  if (!v || llvm::cast<RankedTensorType>(v.getType()).getElementType() == t)
    return v;
  return call("Tensor.to", {{"input", v}, {"dtype", dtype(t)}});
}

Value ImportNode::reshape(Value v, ArrayRef<int64_t> shape) {
  if (!v)
    return v;
  if (llvm::cast<RankedTensorType>(v.getType()).getShape() == shape)
    return v;
  return call("torch.reshape", {{"input", v}, {"shape", ints(shape)}});
}

Value ImportNode::scalar(double v, Type element) {
  auto type = RankedTensorType::get({}, element);
  Attribute value;
  if (auto f = dyn_cast<FloatType>(element))
    value = DenseElementsAttr::get(type, FloatAttr::get(f, v));
  else if (element.isInteger(1))
    value = DenseElementsAttr::get(type, v != 0);
  else
    value = DenseElementsAttr::get(
        type, IntegerAttr::get(element, static_cast<int64_t>(v)));
  return ConstantOp::create(im.b, im.loc, type, value).getResult();
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

/// A dense constant as an ONNX tensor (for the shape inputs of later
/// nodes); nullopt for types ONNX constants here do not take.
static std::optional<onnx::Tensor> toTensor(DenseElementsAttr dense,
                                            StringRef name) {
  auto type = dyn_cast<RankedTensorType>(dense.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  onnx::Tensor t;
  t.name = name.str();
  t.dims.assign(type.getShape().begin(), type.getShape().end());
  Type e = type.getElementType();
  if (e.isInteger(64)) {
    t.dataType = onnx::kInt64;
    for (int64_t v : dense.getValues<int64_t>())
      t.raw.append(reinterpret_cast<const char *>(&v), 8);
  } else if (e.isInteger(32)) {
    t.dataType = onnx::kInt32;
    for (int32_t v : dense.getValues<int32_t>())
      t.raw.append(reinterpret_cast<const char *>(&v), 4);
  } else if (e.isF32()) {
    t.dataType = onnx::kFloat;
    for (float v : dense.getValues<float>())
      t.raw.append(reinterpret_cast<const char *>(&v), 4);
  } else if (e.isF64()) {
    t.dataType = onnx::kDouble;
    for (double v : dense.getValues<double>())
      t.raw.append(reinterpret_cast<const char *>(&v), 8);
  } else if (e.isInteger(1)) {
    t.dataType = onnx::kBool;
    for (bool v : dense.getValues<bool>())
      t.raw.push_back(v);
  } else {
    return std::nullopt;
  }
  return t;
}

/// Folds the calls a node of constant inputs built (`first` onward): shape
/// arithmetic (Shape, Gather, Concat, Div of sizes) must be constants for
/// the nodes that read it as shapes, as torch.onnx.export writes it.
void Importer::foldNode(Block &body, Operation *first,
                        const onnx::Node &node) {
  const ConstantEvaluatorInterface *evaluator = getConstantEvaluator(ctx);
  SmallVector<Operation *> ops;
  for (Operation *op = first; op; op = op->getNextNode())
    ops.push_back(op);
  for (Operation *op : ops) {
    if (!evaluator || !isa<CallFunctionOp, CallMethodOp>(op) ||
        op->getNumResults() != 1)
      continue;
    Attribute folded = evaluator->evaluate(op, /*maxElements=*/1 << 16);
    if (!folded || !isa<ElementsAttr>(folded))
      continue;
    OpBuilder fb(op);
    Value c = ConstantOp::create(fb, op->getLoc(), op->getResult(0).getType(),
                                 folded)
                  .getResult();
    op->getResult(0).replaceAllUsesWith(c);
    for (auto &[name, v] : values)
      if (v == op->getResult(0))
        v = c;
    op->erase();
  }
  for (const std::string &out : node.outputs) {
    auto it = values.find(out);
    if (out.empty() || it == values.end())
      continue;
    auto c = it->second.getDefiningOp<ConstantOp>();
    auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue())
                   : DenseElementsAttr();
    if (!dense || constants.count(out))
      continue;
    if (std::optional<onnx::Tensor> t = toTensor(dense, out)) {
      owned.push_back(std::make_unique<onnx::Tensor>(std::move(*t)));
      constants[out] = owned.back().get();
    }
  }
}

/// A symbol for the root module from the graph's name.
static std::string moduleName(StringRef graphName) {
  std::string s;
  for (char c : graphName)
    s.push_back(llvm::isAlnum(c) || c == '_' ? c : '_');
  if (s.empty() || llvm::isDigit(s[0]))
    s = "OnnxModel" + s;
  return s;
}

LogicalResult Importer::importGraph(mlir::ModuleOp top) {
  const onnx::Graph &g = model.graph;
  b.setInsertionPointToEnd(top.getBody());
  std::string name = moduleName(g.name);
  root = traced::ModuleOp::create(b, loc, name, "onnx." + g.name,
                                  /*root=*/true);
  for (const onnx::Tensor &t : g.initializers)
    constants[t.name] = &t;
  if (constantInputs)
    for (const auto &[n, t] : *constantInputs)
      constants[n] = &t;
  // Inputs: those that are not initializers (IR < 4 lists weights as
  // inputs too).
  SmallVector<Type> inputTypes = {
      ModuleType::get(ctx, FlatSymbolRefAttr::get(ctx, name))};
  SmallVector<std::string> argNames = {"self"};
  SmallVector<ArrayAttr> dimNames = {ArrayAttr()};
  SmallVector<const onnx::ValueInfo *> inputs;
  for (const onnx::ValueInfo &in : g.inputs) {
    if (llvm::any_of(g.initializers,
                     [&](const onnx::Tensor &t) { return t.name == in.name; }))
      continue;
    if (!in.type.isTensor)
      return error("graph input '" + in.name +
                   "' is not a tensor (sequences, maps and optionals are "
                   "not imported)");
    Type element = elementTypeOf(ctx, in.type.elemType);
    if (!element)
      return error("graph input '" + in.name + "' has element type " +
                   onnx::dataTypeName(in.type.elemType) +
                   ", which traced tensors cannot hold");
    if (!in.type.hasShape)
      return error("graph input '" + in.name +
                   "' has no shape; give the model a rank");
    SmallVector<int64_t> shape;
    SmallVector<Attribute> names;
    bool named = false;
    for (const onnx::Dim &d : in.type.shape) {
      shape.push_back(d.value >= 0 && d.param.empty() ? d.value
                                                      : ShapedType::kDynamic);
      names.push_back(StringAttr::get(ctx, d.param));
      named |= !d.param.empty();
    }
    // (A static shape past the tensor-size limit could never run; its
    // element count would overflow the arithmetic of shapes.)
    uint64_t bytes = rawElementBytes(*dtypeFromType(element));
    for (int64_t d : shape)
      if (!ShapedType::isDynamic(d) &&
          __builtin_mul_overflow(bytes, uint64_t(d), &bytes))
        bytes = ~uint64_t(0);
    if (bytes > getResourceLimits().maxTensorBytes)
      return emitTensorBytesLimit(loc, "graph input '" + in.name + "'",
                                  bytes);
    inputTypes.push_back(RankedTensorType::get(shape, element));
    argNames.push_back(in.name);
    dimNames.push_back(named ? ArrayAttr::get(ctx, names) : ArrayAttr());
    inputs.push_back(&in);
  }
  SmallVector<StringRef> argNameRefs(argNames.begin(), argNames.end());
  b.setInsertionPointToEnd(&root.getBody().front());
  graph = GraphOp::create(b, loc, "forward",
                               b.getFunctionType(inputTypes, {}), argNameRefs);
  for (auto [i, names] : llvm::enumerate(dimNames))
    if (names)
      graph.setArgAttr(i, kDimNamesAttr, names);
  Block &body = graph.getBody().front();
  self = body.getArgument(0);
  for (auto [i, in] : llvm::enumerate(inputs))
    values[in->name] = body.getArgument(i + 1);
  b.setInsertionPointToEnd(&body);
  // Initializers that are not only read as constants become parameters.
  for (const onnx::Tensor &t : g.initializers) {
    loc = NameLoc::get(StringAttr::get(ctx, t.name),
                       FileLineColLoc::get(ctx, fileName, 0, 0));
    if (t.numElements() <= 16)
      continue; // shapes, axes, scalars: constants where they are read
    FailureOr<Value> v = tensorValue(t, /*parameter=*/true);
    if (failed(v))
      return failure();
    values[t.name] = *v;
  }
  const ImportTable &table = getImportTable();
  for (auto [i, node] : llvm::enumerate(g.nodes)) {
    loc = NameLoc::get(
        StringAttr::get(ctx, node.name.empty() ? node.opType : node.name),
        FileLineColLoc::get(ctx, fileName, i + 1, 0));
    if (!node.domain.empty() && node.domain != "ai.onnx")
      return error("cannot import ONNX node '" + node.name + "' (" +
                   node.opType + ") of domain '" + node.domain +
                   "': only the default domain is imported");
    auto it = table.find(node.opType);
    if (it == table.end())
      return error("cannot import ONNX op type '" + node.opType +
                   "' (node '" + node.name +
                   "'): it has no traced form yet (docs/onnx.md lists the "
                   "imported ops)");
    if (llvm::all_of(node.outputs,
                     [](const std::string &o) { return o.empty(); }))
      return error("ONNX node '" + node.name + "' (" + node.opType +
                   ") has no output");
    ImportNode n(*this, node);
    // (Inputs the caller gives as constants stay inputs where they are
    // read as tensors: what reads them is computed, not folded.)
    bool constantInputs = llvm::all_of(node.inputs, [&](const std::string &i) {
      return i.empty() ||
             (constants.count(i) &&
              !(this->constantInputs && this->constantInputs->count(i)));
    });
    // The ranks ONNX requires of the inputs whose dims the handlers index.
    static const llvm::StringMap<SmallVector<std::pair<unsigned, int64_t>>>
        minRanks = {
            {"GatherND", {{0, 1}, {1, 1}}},  {"ScatterND", {{0, 1}, {1, 1}}},
            {"Slice", {{0, 1}}},             {"Resize", {{0, 1}}},
            {"Upsample", {{0, 1}}},          {"ReverseSequence", {{0, 2}}},
            {"BatchNormalization", {{0, 2}}},
            {"InstanceNormalization", {{0, 3}}},
            {"LRN", {{0, 3}}},               {"ScatterElements", {{0, 1}}},
            {"GatherElements", {{0, 1}}},    {"LayerNormalization", {{0, 1}}},
        };
    if (auto it = minRanks.find(node.opType); it != minRanks.end())
      for (auto [i, rank] : it->second) {
        RankedTensorType t = n.has(i) ? n.type(i) : RankedTensorType();
        if (n.has(i) && !t)
          return failure();
        if (t && t.getRank() < rank)
          return n.fail("input #" + Twine(i) + " has rank " +
                        Twine(t.getRank()) + "; ONNX requires " +
                        Twine(rank) + " or more");
      }
    Operation *last = body.empty() ? nullptr : &body.back();
    axisError().clear();
    if (failed(it->second(n)))
      return failure();
    if (!axisError().empty())
      return n.fail(axisError());
    if (constantInputs && !node.inputs.empty()) {
      Operation *first = last ? last->getNextNode()
                              : (body.empty() ? nullptr : &body.front());
      // (No new op: the node forwarded an input, which may be a constant.)
      foldNode(body, first, node);
    }
    for (const std::string &out : node.outputs)
      if (!out.empty() && !values.count(out) && !constants.count(out))
        return n.fail("its output '" + out + "' is not imported");
  }
  SmallVector<Value> results;
  for (const onnx::ValueInfo &out : g.outputs) {
    auto it = values.find(out.name);
    Value v = it == values.end() ? Value() : it->second;
    if (!v) {
      if (auto c = constants.find(out.name); c != constants.end()) {
        FailureOr<Value> cv = tensorValue(*c->second, false);
        if (failed(cv))
          return failure();
        v = *cv;
      }
    }
    if (!v)
      return error("graph output '" + out.name + "' is not defined");
    results.push_back(v);
  }
  loc = FileLineColLoc::get(ctx, fileName, g.nodes.size() + 1, 0);
  OutputOp::create(b, loc, results);
  // Inputs given as constants that nothing reads as a tensor leave.
  for (int i = body.getNumArguments() - 1; i >= 1; --i) {
    BlockArgument arg = body.getArgument(i);
    if (arg.use_empty() && constantInputs &&
        constantInputs->count(argNames[i])) {
      body.eraseArgument(i);
      argNames.erase(argNames.begin() + i);
      if (graph.getArgAttrsAttr()) {
        SmallVector<Attribute> attrs(graph.getArgAttrsAttr().getValue());
        attrs.erase(attrs.begin() + i);
        graph.setArgAttrsAttr(b.getArrayAttr(attrs));
      }
    }
  }
  SmallVector<StringRef> finalNames(argNames.begin(), argNames.end());
  graph.setArgNamesAttr(b.getStrArrayAttr(finalNames));
  graph.setFunctionTypeAttr(TypeAttr::get(b.getFunctionType(
      body.getArgumentTypes(), ValueRange(results).getTypes())));
  return success();
}

OwningOpRef<mlir::ModuleOp> Importer::run() {
  OwningOpRef<mlir::ModuleOp> top =
      mlir::ModuleOp::create(FileLineColLoc::get(ctx, fileName, 0, 0));
  if (failed(importGraph(*top)))
    return nullptr;
  if (failed(mlir::verify(*top)))
    return nullptr;
  return top;
}

OwningOpRef<mlir::ModuleOp>
traced::importOnnx(StringRef bytes, StringRef name, StringRef baseDir,
                   MLIRContext *ctx,
                   const std::map<std::string, std::string> &constantInputs) {
  ctx->getOrLoadDialect<TracedDialect>();
  Location fileLoc = FileLineColLoc::get(ctx, name, 0, 0);
  llvm::Expected<onnx::Model> model = onnx::parseModel(bytes);
  if (!model) {
    mlir::emitError(fileLoc) << "cannot read the ONNX model: "
                             << llvm::toString(model.takeError());
    return nullptr;
  }
  if (llvm::Error e = onnx::readExternalData(*model, baseDir)) {
    mlir::emitError(fileLoc) << llvm::toString(std::move(e));
    return nullptr;
  }
  int64_t opset = model->defaultOpset();
  if (opset > 17) {
    mlir::emitError(fileLoc)
        << "cannot import an ONNX model of opset " << opset
        << ": TracedIR reads opsets 1 to 17 (ONNX 1.12)";
    return nullptr;
  }
  if (model->graph.numSparseInitializers) {
    mlir::emitError(fileLoc) << "cannot import sparse initializers";
    return nullptr;
  }
  if (model->numFunctions) {
    mlir::emitError(fileLoc) << "cannot import model-local functions";
    return nullptr;
  }
  std::map<std::string, onnx::Tensor> constants;
  for (const auto &[k, v] : constantInputs) {
    llvm::Expected<onnx::Tensor> t = onnx::parseTensor(v);
    if (!t) {
      mlir::emitError(fileLoc) << "constant input '" << k
                               << "': " << llvm::toString(t.takeError());
      return nullptr;
    }
    constants[k] = std::move(*t);
  }
  Importer importer(ctx, name, *model);
  importer.constantInputs = &constants;
  return importer.run();
}
