//===- Import.h - what the ONNX import's op handlers share ------*- C++ -*-===//
//
// The importer walks the ONNX graph's nodes in order (ONNX requires a
// topological order) and hands each to the handler of its op type
// (OnnxImportOps.cpp), which builds op-library calls typed by their result
// rules, exactly as the decompositions build theirs.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_ONNX_IMPORT_H
#define TRACEDIR_LIB_ONNX_IMPORT_H

#include "TracedIR/Dialect/Traced/CallBuilder.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Onnx/OnnxProto.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <map>

namespace mlir::traced::onnx_import {

using Arg = CallArg;
using KwArg = KwCallArg;

/// The element type of ONNX data type `type` (null for those traced
/// tensors cannot hold).
Type elementTypeOf(MLIRContext *ctx, int32_t type);

class Importer;

/// One ONNX node being imported.
class ImportNode {
public:
  ImportNode(Importer &im, const onnx::Node &node) : im(im), n(node) {}

  StringRef opType() const { return n.opType; }
  size_t numInputs() const { return n.inputs.size(); }
  /// Whether input `i` is given (present and not the empty name).
  bool has(unsigned i) const;
  /// The traced value of input `i`; null (after reporting) when missing.
  Value in(unsigned i);
  RankedTensorType type(unsigned i);
  /// Input `i`'s constant value (an initializer, a Constant node's output,
  /// or a graph input given as a constant), as int64s or doubles; nullopt
  /// when it is not a constant.
  std::optional<SmallVector<int64_t>> constInts(unsigned i) const;
  std::optional<SmallVector<double>> constFloats(unsigned i) const;

  bool hasAttr(StringRef name) const { return n.attr(name); }
  int64_t attrInt(StringRef name, int64_t dflt) const;
  double attrFloat(StringRef name, double dflt) const;
  std::optional<SmallVector<int64_t>> attrInts(StringRef name) const;
  std::string attrString(StringRef name, StringRef dflt) const;

  /// Defines output `i`.
  void set(unsigned i, Value v);
  /// Builds a call of op-library entry `target` (`Tensor.x` for a method)
  /// by keyword; null after a reported error.
  Value call(StringRef target, ArrayRef<KwArg> args);
  /// Python values.
  Attribute i64(int64_t v) const;
  Attribute f64(double v) const;
  Attribute boolean(bool v) const;
  Attribute str(StringRef v) const;
  Attribute ints(ArrayRef<int64_t> v) const;
  Attribute none() const;
  Attribute dtype(Type t) const;
  /// `v` as element type `t` (no call when it is).
  Value cast(Value v, Type t);
  /// A reshape of `v` to a static `shape`.
  Value reshape(Value v, ArrayRef<int64_t> shape);
  /// A 0-d tensor constant.
  Value scalar(double v, Type element);

  /// Reports an error at the node: its op type, name and what is wrong.
  LogicalResult fail(const Twine &why);
  /// Whether a table of `n` int64s (indices the importer computes) is
  /// within the tensor-size limit; reports it when not.
  bool withinLimit(int64_t n, const Twine &what);

  Importer &im;
  const onnx::Node &n;
  MLIRContext *ctx() const;
};

/// The first out-of-range axis a handler normalized (OnnxImportOps.cpp's
/// `norm`), empty when none: the driver clears it before each node and
/// fails the node when it is set after.
std::string &axisError();

using ImportFn = LogicalResult (*)(ImportNode &n);
using ImportTable = llvm::StringMap<ImportFn>;
/// Every handler, by ONNX op type (OnnxImportOps.cpp).
const ImportTable &getImportTable();

class Importer {
public:
  Importer(MLIRContext *ctx, StringRef fileName, const onnx::Model &model)
      : ctx(ctx), b(ctx), fileName(fileName.str()), model(model) {}

  OwningOpRef<mlir::ModuleOp> run();

  MLIRContext *ctx;
  OpBuilder b;
  std::string fileName;
  const onnx::Model &model;
  Location loc = UnknownLoc::get(ctx);
  SymbolTableCollection symbols;
  llvm::StringMap<Value> values;
  /// Constant tensors by ONNX name.
  llvm::StringMap<const onnx::Tensor *> constants;
  std::vector<std::unique_ptr<onnx::Tensor>> owned;
  /// Graph inputs the caller gives as constants (the node tests' shapes).
  const std::map<std::string, onnx::Tensor> *constantInputs = nullptr;
  traced::ModuleOp root;
  GraphOp graph;
  Value self;

  /// A traced value for a constant tensor: a `traced.constant` (small) or a
  /// root parameter read by getattr (initializers).
  FailureOr<Value> tensorValue(const onnx::Tensor &t, bool parameter);
  /// `v`'s value when it is computed from constants only (constants, the
  /// inputs given as constants, op-library calls of them), or null.
  DenseElementsAttr evaluate(Value v, unsigned depth);
  InFlightDiagnostic error(const Twine &msg);

private:
  LogicalResult importGraph(mlir::ModuleOp top);
  void foldNode(Block &body, Operation *first, const onnx::Node &node);
};

/// A constant tensor's elements as doubles / int64s (every real type).
std::optional<SmallVector<double>> tensorDoubles(const onnx::Tensor &t);
std::optional<SmallVector<int64_t>> tensorInts(const onnx::Tensor &t);

} // namespace mlir::traced::onnx_import

#endif // TRACEDIR_LIB_ONNX_IMPORT_H
