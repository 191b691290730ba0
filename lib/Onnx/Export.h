//===- Export.h - what the ONNX export's op emitters share ------*- C++ -*-===//
//
// The exporter names every traced value of the flattened root graph and
// hands each call, bound to its op-library signature, to the emitter that
// OnnxExportOps.cpp registers for its canonical target.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_ONNX_EXPORT_H
#define TRACEDIR_LIB_ONNX_EXPORT_H

#include "TracedIR/Dialect/Traced/BoundOp.h"
#include "TracedIR/Onnx/Onnx.h"
#include "TracedIR/Onnx/OnnxProto.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <map>

namespace mlir::traced::onnx_export {

using OnnxAttr = onnx::Attribute;

/// ONNX attributes, built inline: `attrInts("pads", {1, 1, 1, 1})`.
OnnxAttr attrInt(StringRef name, int64_t v);
OnnxAttr attrFloat(StringRef name, double v);
OnnxAttr attrInts(StringRef name, ArrayRef<int64_t> v);
OnnxAttr attrString(StringRef name, StringRef v);

/// The ONNX data type of a traced element type; kUndefined for others.
int32_t onnxDataType(Type elementType);

class Exporter;

/// One call being written.
class ExportCall {
public:
  ExportCall(Exporter &x, BoundOp bound) : x(x), b(std::move(bound)) {}

  StringRef target() const { return b.spec->name; }
  Operation *op() const { return b.op; }

  /// The ONNX name of the tensor passed as parameter `name` (a traced
  /// tensor); empty when it is not one.
  std::string tensor(StringRef name) const;
  /// Whether parameter `name` is a traced tensor.
  bool isTensor(StringRef name) const;
  /// The tensors of a Tensor[] parameter; nullopt if one is not a tensor.
  std::optional<SmallVector<std::string>> tensors(StringRef name) const;
  /// The element type of the tensor passed as `name`, or null.
  Type elementType(StringRef name) const;
  RankedTensorType tensorType(StringRef name) const;

  /// A tensor operand as `name`'s tensor, or a Python number as a 0-d
  /// constant of element type `type`; empty if it is neither.
  std::string operand(StringRef name, Type type);

  /// The Python value of parameter `name` when it is known (constants
  /// looked through), or null.
  Attribute value(StringRef name) const;
  bool isNone(StringRef name) const;
  std::optional<int64_t> getInt(StringRef name) const;
  std::optional<double> getFloat(StringRef name) const;
  std::optional<bool> getBool(StringRef name) const;
  std::optional<SmallVector<int64_t>> getInts(StringRef name,
                                              unsigned size = 0) const;

  /// Result `i`'s ONNX name and type.
  const std::string &out(unsigned i = 0);
  RankedTensorType resultType(unsigned i = 0) const;
  Type resultElement(unsigned i = 0) const;

  /// Appends a node; returns its (first) output's name, `output` when
  /// given, else a fresh name.
  std::string node(StringRef opType, ArrayRef<std::string> inputs,
                   ArrayRef<OnnxAttr> attrs = {}, StringRef output = {});
  /// A node with several outputs (given names).
  void nodeN(StringRef opType, ArrayRef<std::string> inputs,
             ArrayRef<std::string> outputs, ArrayRef<OnnxAttr> attrs = {});
  /// `v` cast to `to` (no node when it already is).
  std::string cast(const std::string &v, Type from, Type to);
  /// 1-D int64 / scalar constants as initializers.
  std::string int64s(ArrayRef<int64_t> values);
  std::string scalar(double v, Type elementType);
  /// Reshape of `v` to result `i`'s shape (static dims, or one dynamic).
  FailureOr<std::string> reshapeToResult(const std::string &v,
                                         unsigned i = 0);
  /// Result `i` as a tuple of already-named values (chunk, split).
  void setTuple(unsigned i, SmallVector<std::string> names);
  /// The dim `d` (possibly negative) of a rank-`rank` tensor, normalized.
  int64_t normDim(int64_t d, int64_t rank) const {
    return d < 0 ? d + rank : d;
  }

  /// Reports that the call has no ONNX form: its target, why, and the
  /// user's source line.
  LogicalResult fail(const Twine &why) const;

  Exporter &x;
  BoundOp b;
};

/// The exporter: the model being written and the names of traced values.
class Exporter {
public:
  Exporter(const OnnxExportOptions &options, MLIRContext *ctx)
      : options(options), ctx(ctx) {}

  LogicalResult run(traced::ModuleOp root, GraphOp graph);

  std::string fresh(StringRef hint) {
    std::string base = hint.empty() ? "t" : hint.str();
    std::string name = base;
    for (unsigned i = 1; !used.insert(name).second; ++i)
      name = base + "_" + std::to_string(i);
    return name;
  }
  std::string addInitializer(StringRef hint, int32_t dataType,
                             ArrayRef<int64_t> dims, std::string raw) {
    onnx::Tensor t;
    t.name = fresh(hint);
    t.dataType = dataType;
    t.dims.assign(dims.begin(), dims.end());
    t.raw = std::move(raw);
    model.graph.initializers.push_back(std::move(t));
    return model.graph.initializers.back().name;
  }
  /// The raw little-endian bytes of a constant tensor.
  LogicalResult elementBytes(ElementsAttr value, Operation *op,
                             std::string &out);
  onnx::TypeInfo typeInfo(RankedTensorType type, ArrayAttr dimNames);
  std::string docString(Operation *op);

  const OnnxExportOptions &options;
  MLIRContext *ctx;
  onnx::Model model;
  llvm::StringSet<> used;
  DenseMap<Value, std::string> names;
  DenseMap<Value, SmallVector<std::string>> tuples;
  /// Tuples inside tuples (an LSTM's (output, (h_n, c_n))): the names of
  /// element `i` of a tuple value.
  std::map<std::pair<void *, unsigned>, SmallVector<std::string>> nested;
  /// The node being written's doc_string.
  std::string doc;
  LogicalResult status = success();

private:
  LogicalResult writeGetAttr(GetAttrOp get, traced::ModuleOp root);
  LogicalResult writeConstant(ConstantOp c, AsmState &state);
  LogicalResult writeCall(Operation *op, AsmState &state);
  std::string valueName(Value v, AsmState &state);
};

using EmitFn = LogicalResult (*)(ExportCall &c);
using EmitTable = llvm::StringMap<EmitFn>;
/// Every emitter, by canonical target (OnnxExportOps.cpp).
const EmitTable &getEmitTable();

} // namespace mlir::traced::onnx_export

#endif // TRACEDIR_LIB_ONNX_EXPORT_H
