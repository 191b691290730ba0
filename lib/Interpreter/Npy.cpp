//===- Npy.cpp - NumPy .npy files -----------------------------------------===//

#include "TracedIR/Interpreter/Interpreter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::traced;

static std::optional<DType> dtypeFromDescr(StringRef descr) {
  static const std::pair<StringRef, DType> table[] = {
      {"<f4", DType::F32}, {"<f8", DType::F64}, {"<f2", DType::F16},
      {"<i8", DType::I64}, {"<i4", DType::I32}, {"<i2", DType::I16},
      {"|i1", DType::I8},  {"|u1", DType::U8},  {"|b1", DType::Bool}};
  for (auto [d, t] : table)
    if (descr == d)
      return t;
  return std::nullopt;
}

static StringRef descrOf(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::F16:
    return "<f2";
  case DType::I64:
    return "<i8";
  case DType::I32:
    return "<i4";
  case DType::I16:
    return "<i2";
  case DType::I8:
    return "|i1";
  case DType::U8:
    return "|u1";
  case DType::Bool:
    return "|b1";
  case DType::BF16:
    return "";
  }
  return "";
}

/// The value of `'key': value` in a .npy header dict (a Python literal).
static StringRef headerField(StringRef header, StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == StringRef::npos)
    return {};
  StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return {};
  rest = rest.ltrim();
  if (rest.starts_with("'")) {
    size_t end = rest.find('\'', 1);
    return end == StringRef::npos ? StringRef() : rest.slice(1, end);
  }
  if (rest.starts_with("(")) {
    size_t end = rest.find(')');
    return end == StringRef::npos ? StringRef() : rest.slice(1, end);
  }
  return rest.take_while([](char c) { return c != ',' && c != '}'; }).trim();
}

FailureOr<Tensor> traced::readNpy(StringRef path, std::string &error) {
  auto fileOr = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!fileOr) {
    error = "cannot read '" + path.str() + "': " + fileOr.getError().message();
    return failure();
  }
  StringRef data = (*fileOr)->getBuffer();
  if (!data.starts_with("\x93NUMPY") || data.size() < 10) {
    error = "'" + path.str() + "' is not a .npy file";
    return failure();
  }
  unsigned major = static_cast<unsigned char>(data[6]);
  size_t headerLen, offset;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(data[8]) |
                (static_cast<unsigned char>(data[9]) << 8);
    offset = 10;
  } else {
    if (data.size() < 12) {
      error = "'" + path.str() + "' has a truncated header";
      return failure();
    }
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= static_cast<size_t>(static_cast<unsigned char>(data[8 + i]))
                   << (8 * i);
    offset = 12;
  }
  if (offset + headerLen > data.size()) {
    error = "'" + path.str() + "' has a truncated header";
    return failure();
  }
  StringRef header = data.substr(offset, headerLen);
  std::optional<DType> dtype = dtypeFromDescr(headerField(header, "descr"));
  if (!dtype) {
    error = "'" + path.str() + "' has an unsupported dtype '" +
            headerField(header, "descr").str() + "'";
    return failure();
  }
  if (headerField(header, "fortran_order") != "False") {
    error = "'" + path.str() + "' is in Fortran order; only C order is read";
    return failure();
  }
  SmallVector<int64_t> shape;
  SmallVector<StringRef> dims;
  headerField(header, "shape").split(dims, ',', -1, /*KeepEmpty=*/false);
  for (StringRef d : dims) {
    int64_t v;
    if (d.trim().getAsInteger(10, v) || v < 0) {
      error = "'" + path.str() + "' has a malformed shape";
      return failure();
    }
    shape.push_back(v);
  }
  Tensor t(*dtype, shape);
  size_t width = rawElementBytes(*dtype);
  StringRef payload = data.drop_front(offset + headerLen);
  if (payload.size() != t.numel() * width) {
    error = "'" + path.str() + "' holds " + std::to_string(payload.size()) +
            " bytes of data for " + std::to_string(t.numel()) + " elements";
    return failure();
  }
  decodeRaw(t, payload.data());
  return t;
}

LogicalResult traced::writeNpy(StringRef path, const Tensor &t,
                               std::string &error) {
  DType dtype = t.dtype() == DType::BF16 ? DType::F32 : t.dtype();
  Tensor data = t.to(dtype);
  std::string header = "{'descr': '" + descrOf(dtype).str() +
                       "', 'fortran_order': False, 'shape': (";
  for (int64_t d : data.shape())
    header += std::to_string(d) + ", ";
  if (data.rank() == 1)
    header.resize(header.size() - 1);
  else if (data.rank() > 1)
    header.resize(header.size() - 2);
  header += "), }";
  // Pad so that the data starts on a 64-byte boundary; end with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  os << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff)
     << char(header.size() >> 8) << header;
  size_t width = rawElementBytes(dtype);
  for (int64_t i = 0; i < data.numel(); ++i) {
    char buf[8];
    switch (dtype) {
    case DType::F32: {
      float v = data.data<float>()[i];
      std::memcpy(buf, &v, 4);
      break;
    }
    case DType::F64:
      std::memcpy(buf, &data.data<double>()[i], 8);
      break;
    case DType::F16: {
      llvm::APFloat v(data.data<float>()[i]);
      bool lost;
      v.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
      uint16_t bits = v.bitcastToAPInt().getZExtValue();
      std::memcpy(buf, &bits, 2);
      break;
    }
    case DType::Bool:
      buf[0] = data.data<uint8_t>()[i];
      break;
    default: {
      int64_t v = data.data<int64_t>()[i];
      std::memcpy(buf, &v, width); // little-endian truncation
    }
    }
    os.write(buf, width);
  }
  return success();
}
