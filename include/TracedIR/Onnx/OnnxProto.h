//===- OnnxProto.h - ONNX models in memory, and their wire format -*- C++ -*-===//
//
// The parts of onnx.proto (ONNX 1.12, IR version 8) that TracedIR reads and
// writes, as plain structs, with a protobuf wire-format codec of their own:
// a ModelProto is a few nested messages of strings, varints and packed
// arrays, and writing the ~200 lines that encode and decode them keeps
// protobuf's runtime (and its version pinning against libonnx) out of the
// libraries. Field numbers are onnx.proto's; fields this file does not
// model are skipped on reading (and their presence reported where it
// changes the meaning: sparse initializers, training info, functions).
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_ONNX_ONNXPROTO_H
#define TRACEDIR_ONNX_ONNXPROTO_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlir::traced::onnx {

/// TensorProto.DataType.
enum DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};

/// onnx.proto's name of a data type ("FLOAT", "INT64"), "type N" otherwise.
std::string dataTypeName(int32_t type);
/// Bytes per element in raw_data (bool: 1); 0 for strings and unknowns.
size_t dataTypeBytes(int32_t type);

/// A TensorProto. `raw` always holds the elements as raw_data does (little
/// endian, one byte per bool) however the message stored them.
struct Tensor {
  std::string name;
  std::vector<int64_t> dims;
  int32_t dataType = kUndefined;
  std::string raw;
  /// External data (data_location EXTERNAL): the file, relative to the
  /// model's directory, its offset and length (-1: to the end). On
  /// reading, `raw` is filled from the file by readExternalData.
  std::string location;
  int64_t offset = 0, length = -1;
  bool external = false;

  /// The product of the dims (INT64_MAX past it, or for a negative dim).
  int64_t numElements() const;
};

/// TensorShapeProto.Dimension: a value, a symbolic name, or unknown.
struct Dim {
  int64_t value = -1;
  std::string param;
};

/// TypeProto (tensor types only; `isTensor` is false for sequences, maps,
/// optionals and sparse tensors).
struct TypeInfo {
  bool isTensor = true;
  int32_t elemType = kUndefined;
  bool hasShape = false;
  std::vector<Dim> shape;
};

struct ValueInfo {
  std::string name;
  TypeInfo type;
};

struct Graph;

/// AttributeProto.AttributeType.
enum AttrType : int32_t {
  kAttrUndefined = 0,
  kAttrFloat = 1,
  kAttrInt = 2,
  kAttrString = 3,
  kAttrTensor = 4,
  kAttrGraph = 5,
  kAttrFloats = 6,
  kAttrInts = 7,
  kAttrStrings = 8,
  kAttrTensors = 9,
  kAttrGraphs = 10,
  kAttrSparseTensor = 11,
  kAttrSparseTensors = 12,
  kAttrTypeProto = 13,
  kAttrTypeProtos = 14,
};

struct Attribute {
  std::string name;
  int32_t type = kAttrUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::vector<Tensor> tensors; // t (one) or tensors
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  /// Subgraphs (g or graphs): only counted, TracedIR imports none.
  int numGraphs = 0;
  /// ref_attr_name (attributes of function bodies).
  std::string refName;
};

struct Node {
  std::vector<std::string> inputs, outputs;
  std::string name, opType, domain, docString;
  std::vector<Attribute> attributes;

  const Attribute *attr(llvm::StringRef name) const;
};

struct Graph {
  std::string name, docString;
  std::vector<Node> nodes;
  std::vector<Tensor> initializers;
  std::vector<ValueInfo> inputs, outputs, valueInfo;
  int numSparseInitializers = 0;
};

struct OpsetId {
  std::string domain;
  int64_t version = 0;
};

struct Model {
  int64_t irVersion = 8;
  std::vector<OpsetId> opsets;
  std::string producerName, producerVersion, docString;
  Graph graph;
  std::vector<std::pair<std::string, std::string>> metadata;
  int numFunctions = 0, numTrainingInfos = 0;

  /// The version of the default ("" or "ai.onnx") opset, 0 if absent.
  int64_t defaultOpset() const;
};

/// The wire format of a ModelProto / TensorProto.
std::string serializeModel(const Model &model);
std::string serializeTensor(const Tensor &tensor);

/// Decodes a ModelProto; an error says which field of which message is
/// malformed. External tensor data is left to readExternalData.
llvm::Expected<Model> parseModel(llvm::StringRef bytes);
/// Decodes a TensorProto (the node tests' input_N.pb / output_N.pb).
llvm::Expected<Tensor> parseTensor(llvm::StringRef bytes);
/// Fills the `raw` bytes of every external initializer of `model` from the
/// files next to the model (`directory`), checking offsets and lengths and
/// refusing locations that leave the directory.
llvm::Error readExternalData(Model &model, llvm::StringRef directory);

} // namespace mlir::traced::onnx

#endif // TRACEDIR_ONNX_ONNXPROTO_H
