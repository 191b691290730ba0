//===- OnnxProto.cpp - the protobuf wire format of ONNX models ------------===//
//
// Encoder and decoder for the messages of OnnxProto.h. The wire format: each
// field is a varint key (field number << 3 | wire type) and a payload: a
// varint (type 0), 8 bytes (1), a varint length and that many bytes (2: a
// string, a nested message or a packed array) or 4 bytes (5). Readers must
// accept repeated scalars both packed and one per key.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Onnx/OnnxProto.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir::traced::onnx;
using llvm::StringRef;

std::string mlir::traced::onnx::dataTypeName(int32_t type) {
  static const char *const names[] = {
      "UNDEFINED", "FLOAT",  "UINT8",  "INT8",      "UINT16",     "INT16",
      "INT32",     "INT64",  "STRING", "BOOL",      "FLOAT16",    "DOUBLE",
      "UINT32",    "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"};
  if (type >= 0 && type < static_cast<int32_t>(std::size(names)))
    return names[type];
  return "type " + std::to_string(type);
}

size_t mlir::traced::onnx::dataTypeBytes(int32_t type) {
  switch (type) {
  case kBool:
  case kUInt8:
  case kInt8:
    return 1;
  case kUInt16:
  case kInt16:
  case kFloat16:
  case kBFloat16:
    return 2;
  case kFloat:
  case kInt32:
  case kUInt32:
    return 4;
  case kInt64:
  case kDouble:
  case kUInt64:
  case kComplex64:
    return 8;
  case kComplex128:
    return 16;
  default:
    return 0;
  }
}

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return std::numeric_limits<int64_t>::max();
  return n;
}

const Attribute *Node::attr(StringRef name) const {
  for (const Attribute &a : attributes)
    if (a.name == name)
      return &a;
  return nullptr;
}

int64_t Model::defaultOpset() const {
  for (const OpsetId &id : opsets)
    if (id.domain.empty() || id.domain == "ai.onnx")
      return id.version;
  return 0;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {
class Writer {
public:
  std::string out;

  void varint(uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
  void key(int field, int wireType) { varint(uint64_t(field) << 3 | wireType); }
  void int64(int field, int64_t v) {
    key(field, 0);
    varint(static_cast<uint64_t>(v));
  }
  void bytes(int field, StringRef s) {
    key(field, 2);
    varint(s.size());
    out.append(s.data(), s.size());
  }
  /// A string field, left out when empty (proto2 optional, unset).
  void str(int field, StringRef s) {
    if (!s.empty())
      bytes(field, s);
  }
  void float32(int field, float f) {
    key(field, 5);
    char b[4];
    std::memcpy(b, &f, 4);
    out.append(b, 4);
  }
  template <typename Fn> void message(int field, Fn fn) {
    Writer inner;
    fn(inner);
    bytes(field, inner.out);
  }
  void packedInt64(int field, const std::vector<int64_t> &values) {
    if (values.empty())
      return;
    Writer inner;
    for (int64_t v : values)
      inner.varint(static_cast<uint64_t>(v));
    bytes(field, inner.out);
  }
  void packedFloat(int field, const std::vector<float> &values) {
    if (values.empty())
      return;
    std::string raw(values.size() * 4, '\0');
    std::memcpy(raw.data(), values.data(), raw.size());
    bytes(field, raw);
  }
};
} // namespace

static void writeTensor(Writer &w, const Tensor &t) {
  w.packedInt64(1, t.dims);
  w.int64(2, t.dataType);
  w.str(8, t.name);
  if (t.external) {
    auto entry = [&](StringRef k, StringRef v) {
      w.message(13, [&](Writer &e) {
        e.str(1, k);
        e.str(2, v);
      });
    };
    entry("location", t.location);
    entry("offset", std::to_string(t.offset));
    if (t.length >= 0)
      entry("length", std::to_string(t.length));
    w.int64(14, 1); // EXTERNAL
  } else {
    w.bytes(9, t.raw);
  }
}

static void writeType(Writer &w, const TypeInfo &type) {
  w.message(1, [&](Writer &tensor) {
    tensor.int64(1, type.elemType);
    if (type.hasShape)
      tensor.message(2, [&](Writer &shape) {
        for (const Dim &d : type.shape)
          shape.message(1, [&](Writer &dim) {
            if (!d.param.empty())
              dim.bytes(2, d.param);
            else if (d.value >= 0)
              dim.int64(1, d.value);
          });
      });
  });
}

static void writeValueInfo(Writer &w, int field, const ValueInfo &info) {
  w.message(field, [&](Writer &v) {
    v.str(1, info.name);
    v.message(2, [&](Writer &type) { writeType(type, info.type); });
  });
}

static void writeAttribute(Writer &w, const Attribute &a) {
  w.str(1, a.name);
  w.int64(20, a.type);
  switch (a.type) {
  case kAttrFloat:
    w.float32(2, a.f);
    break;
  case kAttrInt:
    w.int64(3, a.i);
    break;
  case kAttrString:
    w.bytes(4, a.s);
    break;
  case kAttrTensor:
    w.message(5, [&](Writer &t) { writeTensor(t, a.tensors.front()); });
    break;
  case kAttrFloats:
    w.packedFloat(7, a.floats);
    break;
  case kAttrInts:
    w.packedInt64(8, a.ints);
    break;
  case kAttrStrings:
    for (const std::string &s : a.strings)
      w.bytes(9, s);
    break;
  case kAttrTensors:
    for (const Tensor &t : a.tensors)
      w.message(10, [&](Writer &m) { writeTensor(m, t); });
    break;
  default:
    break;
  }
}

static void writeGraph(Writer &w, const Graph &g) {
  for (const Node &n : g.nodes)
    w.message(1, [&](Writer &m) {
      for (const std::string &s : n.inputs)
        m.bytes(1, s);
      for (const std::string &s : n.outputs)
        m.bytes(2, s);
      m.str(3, n.name);
      m.str(4, n.opType);
      for (const Attribute &a : n.attributes)
        m.message(5, [&](Writer &attr) { writeAttribute(attr, a); });
      m.str(6, n.docString);
      m.str(7, n.domain);
    });
  w.str(2, g.name);
  for (const Tensor &t : g.initializers)
    w.message(5, [&](Writer &m) { writeTensor(m, t); });
  w.str(10, g.docString);
  for (const ValueInfo &v : g.inputs)
    writeValueInfo(w, 11, v);
  for (const ValueInfo &v : g.outputs)
    writeValueInfo(w, 12, v);
  for (const ValueInfo &v : g.valueInfo)
    writeValueInfo(w, 13, v);
}

std::string mlir::traced::onnx::serializeModel(const Model &model) {
  Writer w;
  w.int64(1, model.irVersion);
  w.str(2, model.producerName);
  w.str(3, model.producerVersion);
  w.str(6, model.docString);
  w.message(7, [&](Writer &g) { writeGraph(g, model.graph); });
  for (const OpsetId &id : model.opsets)
    w.message(8, [&](Writer &m) {
      m.str(1, id.domain);
      m.int64(2, id.version);
    });
  for (const auto &entry : model.metadata)
    w.message(14, [&](Writer &m) {
      m.str(1, entry.first);
      m.str(2, entry.second);
    });
  return std::move(w.out);
}

std::string mlir::traced::onnx::serializeTensor(const Tensor &tensor) {
  Writer w;
  writeTensor(w, tensor);
  return std::move(w.out);
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {
/// One field: its number, wire type, and payload (a varint's value, or the
/// bytes of a fixed-width or length-delimited field).
struct Field {
  int number = 0;
  int wireType = 0;
  uint64_t value = 0;
  StringRef bytes;
};

class Reader {
public:
  Reader(StringRef data, StringRef message) : data(data), message(message) {}

  /// The next field into `f`; false at the end or on an error (`error`).
  bool next(Field &f) {
    if (pos >= data.size() || error)
      return false;
    uint64_t key;
    if (!varint(key))
      return false;
    f.number = static_cast<int>(key >> 3);
    f.wireType = static_cast<int>(key & 7);
    if (f.number == 0)
      return fail("a field numbered 0");
    switch (f.wireType) {
    case 0:
      return varint(f.value);
    case 1:
      return fixed(f, 8);
    case 5:
      return fixed(f, 4);
    case 2: {
      uint64_t n;
      if (!varint(n))
        return false;
      if (n > data.size() - pos)
        return fail("a length-delimited field longer than its message");
      f.bytes = data.substr(pos, n);
      pos += n;
      return true;
    }
    default:
      return fail("wire type " + std::to_string(f.wireType) +
                  " (groups are not used by onnx.proto)");
    }
  }

  bool varint(uint64_t &v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= data.size())
        return fail("a truncated varint");
      uint8_t b = static_cast<uint8_t>(data[pos++]);
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80))
        return true;
    }
    return fail("a varint longer than 10 bytes");
  }

  bool fail(const std::string &what) {
    if (!error)
      error = "malformed " + message.str() + ": " + what + " at byte " +
              std::to_string(pos);
    return false;
  }

  StringRef data, message;
  size_t pos = 0;
  std::optional<std::string> error;

private:
  bool fixed(Field &f, size_t n) {
    if (n > data.size() - pos)
      return fail("a truncated fixed-width field");
    f.bytes = data.substr(pos, n);
    f.value = 0;
    std::memcpy(&f.value, f.bytes.data(), n);
    pos += n;
    return true;
  }
};

/// Errors propagate as the first message set; the parse functions return
/// false once one is set.
struct Status {
  std::optional<std::string> error;
  bool take(Reader &r) {
    if (r.error && !error)
      error = r.error;
    return !error;
  }
  bool fail(const std::string &what) {
    if (!error)
      error = what;
    return false;
  }
};
} // namespace

/// A repeated integer field, packed (wire type 2) or not (type 0).
static bool readInts(const Field &f, std::vector<int64_t> &out, Status &s,
                     StringRef message) {
  if (f.wireType == 0) {
    out.push_back(static_cast<int64_t>(f.value));
    return true;
  }
  if (f.wireType != 2)
    return s.fail("malformed " + message.str() + ": an integer list field " +
                  "of wire type " + std::to_string(f.wireType));
  Reader r(f.bytes, message);
  while (r.pos < r.data.size()) {
    uint64_t v;
    if (!r.varint(v))
      return s.take(r);
    out.push_back(static_cast<int64_t>(v));
  }
  return true;
}

/// A repeated fixed-width field (float: 4 bytes, double: 8), appended to
/// `raw` as bytes.
static bool readFixed(const Field &f, size_t width, std::string &raw,
                      Status &s, StringRef message) {
  if ((width == 4 && f.wireType == 5) || (width == 8 && f.wireType == 1)) {
    raw.append(f.bytes.data(), f.bytes.size());
    return true;
  }
  if (f.wireType != 2 || f.bytes.size() % width)
    return s.fail("malformed " + message.str() +
                  ": a packed fixed-width list of the wrong length or type");
  raw.append(f.bytes.data(), f.bytes.size());
  return true;
}

static bool expectType(const Field &f, int wireType, Status &s,
                       StringRef message) {
  if (f.wireType == wireType)
    return true;
  return s.fail("malformed " + message.str() + ": field " +
                std::to_string(f.number) + " has wire type " +
                std::to_string(f.wireType) + ", expected " +
                std::to_string(wireType));
}

static bool parseTensorInto(StringRef bytes, Tensor &t, Status &s) {
  Reader r(bytes, "TensorProto");
  Field f;
  std::vector<int64_t> int32Data, int64Data, uint64Data;
  std::string floatData, doubleData;
  bool hasRaw = false;
  int64_t location = 0;
  while (r.next(f)) {
    switch (f.number) {
    case 1:
      if (!readInts(f, t.dims, s, "TensorProto.dims"))
        return false;
      break;
    case 2:
      t.dataType = static_cast<int32_t>(f.value);
      break;
    case 4:
      if (!readFixed(f, 4, floatData, s, "TensorProto.float_data"))
        return false;
      break;
    case 5:
      if (!readInts(f, int32Data, s, "TensorProto.int32_data"))
        return false;
      break;
    case 6:
      return s.fail("string tensors are not supported (TensorProto '" +
                    t.name + "' has string_data)");
    case 7:
      if (!readInts(f, int64Data, s, "TensorProto.int64_data"))
        return false;
      break;
    case 8:
      if (!expectType(f, 2, s, "TensorProto.name"))
        return false;
      t.name = f.bytes.str();
      break;
    case 9:
      if (!expectType(f, 2, s, "TensorProto.raw_data"))
        return false;
      t.raw = f.bytes.str();
      hasRaw = true;
      break;
    case 10:
      if (!readFixed(f, 8, doubleData, s, "TensorProto.double_data"))
        return false;
      break;
    case 11:
      if (!readInts(f, uint64Data, s, "TensorProto.uint64_data"))
        return false;
      break;
    case 13: {
      if (!expectType(f, 2, s, "TensorProto.external_data"))
        return false;
      Reader e(f.bytes, "StringStringEntryProto");
      Field g;
      std::string k, v;
      while (e.next(g))
        (g.number == 1 ? k : v) = g.bytes.str();
      if (!s.take(e))
        return false;
      if (k == "location")
        t.location = v;
      else if (k == "offset")
        t.offset = std::strtoll(v.c_str(), nullptr, 10);
      else if (k == "length")
        t.length = std::strtoll(v.c_str(), nullptr, 10);
      break;
    }
    case 14:
      location = static_cast<int64_t>(f.value);
      break;
    default:
      break;
    }
  }
  if (!s.take(r))
    return false;
  for (int64_t d : t.dims)
    if (d < 0)
      return s.fail("TensorProto '" + t.name + "' has a negative dim " +
                    std::to_string(d));
  t.external = location == 1;
  if (t.external)
    return true;
  size_t width = dataTypeBytes(t.dataType);
  if (!width || t.dataType == kString)
    return s.fail("TensorProto '" + t.name + "' has data type " +
                  dataTypeName(t.dataType) + ", which TracedIR does not read");
  // Move whichever typed field holds the data into raw bytes.
  if (!hasRaw) {
    if (!floatData.empty())
      t.raw = std::move(floatData);
    else if (!doubleData.empty())
      t.raw = std::move(doubleData);
    else if (!int64Data.empty() || !uint64Data.empty()) {
      const auto &v = int64Data.empty() ? uint64Data : int64Data;
      if (width == 8) {
        t.raw.resize(v.size() * 8);
        std::memcpy(t.raw.data(), v.data(), t.raw.size());
      } else {
        // uint32 elements live in uint64_data.
        for (int64_t x : v) {
          uint32_t u = static_cast<uint32_t>(x);
          t.raw.append(reinterpret_cast<const char *>(&u), 4);
        }
      }
    } else if (!int32Data.empty()) {
      // int32_data carries every narrower type, one element per value
      // (float16 and bfloat16 as their bits).
      for (int64_t x : int32Data) {
        uint32_t u = static_cast<uint32_t>(x);
        if (t.dataType == kBool)
          u = u != 0;
        t.raw.append(reinterpret_cast<const char *>(&u),
                     std::min<size_t>(width, 4));
      }
    }
  }
  uint64_t expected;
  if (__builtin_mul_overflow(static_cast<uint64_t>(t.numElements()),
                             static_cast<uint64_t>(width), &expected))
    expected = std::numeric_limits<uint64_t>::max();
  if (t.raw.size() != expected)
    return s.fail("TensorProto '" + t.name + "' holds " +
                  std::to_string(t.raw.size()) + " bytes of data for " +
                  std::to_string(t.numElements()) + " " +
                  dataTypeName(t.dataType) + " elements (" +
                  std::to_string(expected) + " bytes)");
  return true;
}

static bool parseType(StringRef bytes, TypeInfo &type, Status &s) {
  Reader r(bytes, "TypeProto");
  Field f;
  bool sawTensor = false;
  while (r.next(f)) {
    if (f.number != 1) {
      if (f.number != 6) // denotation
        type.isTensor = false;
      continue;
    }
    sawTensor = true;
    Reader t(f.bytes, "TypeProto.Tensor");
    Field g;
    while (t.next(g)) {
      if (g.number == 1) {
        type.elemType = static_cast<int32_t>(g.value);
      } else if (g.number == 2) {
        type.hasShape = true;
        Reader shape(g.bytes, "TensorShapeProto");
        Field d;
        while (shape.next(d)) {
          if (d.number != 1)
            continue;
          Dim dim;
          Reader dr(d.bytes, "TensorShapeProto.Dimension");
          Field x;
          while (dr.next(x)) {
            if (x.number == 1)
              dim.value = static_cast<int64_t>(x.value);
            else if (x.number == 2)
              dim.param = x.bytes.str();
          }
          if (!s.take(dr))
            return false;
          type.shape.push_back(dim);
        }
        if (!s.take(shape))
          return false;
      }
    }
    if (!s.take(t))
      return false;
  }
  if (!sawTensor)
    type.isTensor = false;
  return s.take(r);
}

static bool parseValueInfo(StringRef bytes, ValueInfo &info, Status &s) {
  Reader r(bytes, "ValueInfoProto");
  Field f;
  bool typed = false;
  while (r.next(f)) {
    if (f.number == 1)
      info.name = f.bytes.str();
    else if (f.number == 2) {
      typed = true;
      if (!parseType(f.bytes, info.type, s))
        return false;
    }
  }
  if (!typed)
    info.type.isTensor = false;
  return s.take(r);
}

static bool parseAttribute(StringRef bytes, Attribute &a, Status &s) {
  Reader r(bytes, "AttributeProto");
  Field f;
  while (r.next(f)) {
    switch (f.number) {
    case 1:
      a.name = f.bytes.str();
      break;
    case 20:
      a.type = static_cast<int32_t>(f.value);
      break;
    case 2: {
      uint32_t bits = static_cast<uint32_t>(f.value);
      std::memcpy(&a.f, &bits, 4);
      break;
    }
    case 3:
      a.i = static_cast<int64_t>(f.value);
      break;
    case 4:
      a.s = f.bytes.str();
      break;
    case 5:
    case 10: {
      Tensor t;
      if (!parseTensorInto(f.bytes, t, s))
        return false;
      a.tensors.push_back(std::move(t));
      break;
    }
    case 6:
    case 11:
      ++a.numGraphs;
      break;
    case 7: {
      std::string raw;
      if (!readFixed(f, 4, raw, s, "AttributeProto.floats"))
        return false;
      size_t n = raw.size() / 4;
      size_t old = a.floats.size();
      a.floats.resize(old + n);
      std::memcpy(a.floats.data() + old, raw.data(), raw.size());
      break;
    }
    case 8:
      if (!readInts(f, a.ints, s, "AttributeProto.ints"))
        return false;
      break;
    case 9:
      a.strings.push_back(f.bytes.str());
      break;
    case 21:
      a.refName = f.bytes.str();
      break;
    default:
      break;
    }
  }
  return s.take(r);
}

static bool parseNode(StringRef bytes, Node &n, Status &s) {
  Reader r(bytes, "NodeProto");
  Field f;
  while (r.next(f)) {
    switch (f.number) {
    case 1:
      n.inputs.push_back(f.bytes.str());
      break;
    case 2:
      n.outputs.push_back(f.bytes.str());
      break;
    case 3:
      n.name = f.bytes.str();
      break;
    case 4:
      n.opType = f.bytes.str();
      break;
    case 5:
      n.attributes.emplace_back();
      if (!parseAttribute(f.bytes, n.attributes.back(), s))
        return false;
      break;
    case 6:
      n.docString = f.bytes.str();
      break;
    case 7:
      n.domain = f.bytes.str();
      break;
    default:
      break;
    }
  }
  return s.take(r);
}

static bool parseGraph(StringRef bytes, Graph &g, Status &s) {
  Reader r(bytes, "GraphProto");
  Field f;
  while (r.next(f)) {
    if (f.wireType != 2)
      continue;
    switch (f.number) {
    case 1:
      g.nodes.emplace_back();
      if (!parseNode(f.bytes, g.nodes.back(), s))
        return false;
      break;
    case 2:
      g.name = f.bytes.str();
      break;
    case 5:
      g.initializers.emplace_back();
      if (!parseTensorInto(f.bytes, g.initializers.back(), s))
        return false;
      break;
    case 10:
      g.docString = f.bytes.str();
      break;
    case 11:
    case 12:
    case 13: {
      auto &list = f.number == 11   ? g.inputs
                   : f.number == 12 ? g.outputs
                                    : g.valueInfo;
      list.emplace_back();
      if (!parseValueInfo(f.bytes, list.back(), s))
        return false;
      break;
    }
    case 15:
      ++g.numSparseInitializers;
      break;
    default:
      break;
    }
  }
  return s.take(r);
}

llvm::Expected<Model> mlir::traced::onnx::parseModel(StringRef bytes) {
  Model model;
  model.irVersion = 0;
  Status s;
  Reader r(bytes, "ModelProto");
  Field f;
  bool sawGraph = false;
  while (r.next(f)) {
    switch (f.number) {
    case 1:
      model.irVersion = static_cast<int64_t>(f.value);
      break;
    case 2:
      model.producerName = f.bytes.str();
      break;
    case 3:
      model.producerVersion = f.bytes.str();
      break;
    case 6:
      model.docString = f.bytes.str();
      break;
    case 7:
      if (!expectType(f, 2, s, "ModelProto.graph") ||
          !parseGraph(f.bytes, model.graph, s))
        return llvm::createStringError(*s.error);
      sawGraph = true;
      break;
    case 8: {
      if (!expectType(f, 2, s, "ModelProto.opset_import"))
        return llvm::createStringError(*s.error);
      OpsetId id;
      Reader o(f.bytes, "OperatorSetIdProto");
      Field g;
      while (o.next(g)) {
        if (g.number == 1)
          id.domain = g.bytes.str();
        else if (g.number == 2)
          id.version = static_cast<int64_t>(g.value);
      }
      if (!s.take(o))
        return llvm::createStringError(*s.error);
      model.opsets.push_back(id);
      break;
    }
    case 14: {
      Reader e(f.bytes, "StringStringEntryProto");
      Field g;
      std::string k, v;
      while (e.next(g))
        (g.number == 1 ? k : v) = g.bytes.str();
      if (!s.take(e))
        return llvm::createStringError(*s.error);
      model.metadata.emplace_back(k, v);
      break;
    }
    case 20:
      ++model.numTrainingInfos;
      break;
    case 25:
      ++model.numFunctions;
      break;
    default:
      break;
    }
  }
  if (!s.take(r))
    return llvm::createStringError(*s.error);
  if (!sawGraph)
    return llvm::createStringError(
        "not an ONNX model: the ModelProto has no graph");
  return model;
}

llvm::Expected<Tensor> mlir::traced::onnx::parseTensor(StringRef bytes) {
  Tensor t;
  Status s;
  if (!parseTensorInto(bytes, t, s))
    return llvm::createStringError(*s.error);
  return t;
}

llvm::Error mlir::traced::onnx::readExternalData(Model &model,
                                                 StringRef directory) {
  for (Tensor &t : model.graph.initializers) {
    if (!t.external)
      continue;
    StringRef loc = t.location;
    if (loc.empty() || llvm::sys::path::is_absolute(loc) ||
        llvm::is_contained(llvm::make_range(llvm::sys::path::begin(loc),
                                            llvm::sys::path::end(loc)),
                           ".."))
      return llvm::createStringError(
          "initializer '" + t.name + "': external data location '" + loc +
          "' must be a relative path inside the model's directory");
    llvm::SmallString<256> path(directory);
    llvm::sys::path::append(path, loc);
    auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!file)
      return llvm::createStringError("initializer '" + t.name +
                                     "': cannot read external data '" + path +
                                     "': " + file.getError().message());
    StringRef data = (*file)->getBuffer();
    uint64_t expected;
    if (__builtin_mul_overflow(uint64_t(t.numElements()),
                               uint64_t(dataTypeBytes(t.dataType)), &expected))
      expected = std::numeric_limits<uint64_t>::max();
    uint64_t length = t.length >= 0 ? uint64_t(t.length) : expected;
    if (t.offset < 0 || uint64_t(t.offset) > data.size() ||
        length > data.size() - t.offset || length != expected)
      return llvm::createStringError(
          "initializer '" + t.name + "': external data at offset " +
          std::to_string(t.offset) + ", length " + std::to_string(length) +
          " does not fit '" + path + "' (" + std::to_string(data.size()) +
          " bytes) or is not the " + std::to_string(expected) +
          " bytes its shape needs");
    t.raw = data.substr(t.offset, length).str();
    t.external = false;
  }
  return llvm::Error::success();
}
