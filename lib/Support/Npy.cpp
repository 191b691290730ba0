//===- Npy.cpp - NumPy .npy files -----------------------------------------===//

#include "TracedIR/Support/Npy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"

#include <cassert>

using namespace mlir;
using namespace mlir::traced;

namespace {
/// What an .npy header declares.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  SmallVector<int64_t> shape;
  size_t dataOffset = 0;
};
} // namespace

/// Parses the header of an .npy file (format versions 1 to 3): the magic, the
/// header length, and the Python dict literal
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`.
static LogicalResult parseNpyHeader(StringRef file, NpyHeader &header,
                                    std::string &error) {
  auto fail = [&](const Twine &message) {
    error = message.str();
    return failure();
  };
  if (!file.starts_with("\x93NUMPY") || file.size() < 10)
    return fail("is not a NumPy .npy file (bad magic)");
  unsigned major = static_cast<unsigned char>(file[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(file[8]) |
                static_cast<unsigned char>(file[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12)
      return fail("has a truncated header");
    headerLen = 0;
    for (int i = 3; i >= 0; --i)
      headerLen = headerLen << 8 | static_cast<unsigned char>(file[8 + i]);
    headerStart = 12;
  } else {
    return fail("has unsupported .npy format version " + Twine(major));
  }
  if (headerLen > file.size() - headerStart)
    return fail("has a truncated header");
  header.dataOffset = headerStart + headerLen;
  StringRef dict = file.substr(headerStart, headerLen).trim();

  // A tiny reader for the dict literal NumPy writes.
  auto skip = [&]() { dict = dict.ltrim(); };
  auto quoted = [&](std::string &out) -> bool {
    skip();
    if (dict.empty() || (dict.front() != '\'' && dict.front() != '"'))
      return false;
    char quote = dict.front();
    size_t end = dict.find(quote, 1);
    if (end == StringRef::npos)
      return false;
    out = dict.slice(1, end).str();
    dict = dict.drop_front(end + 1);
    return true;
  };
  skip();
  if (!dict.consume_front("{"))
    return fail("has a malformed header: expected '{'");
  bool sawDescr = false, sawShape = false;
  while (true) {
    skip();
    if (dict.consume_front("}"))
      break;
    std::string key;
    if (!quoted(key))
      return fail("has a malformed header: expected a key");
    skip();
    if (!dict.consume_front(":"))
      return fail("has a malformed header: expected ':' after '" + key + "'");
    skip();
    if (key == "descr") {
      if (!quoted(header.descr))
        return fail("has an unsupported dtype (a structured dtype?)");
      sawDescr = true;
    } else if (key == "fortran_order") {
      if (dict.consume_front("True"))
        header.fortranOrder = true;
      else if (!dict.consume_front("False"))
        return fail("has a malformed header: bad 'fortran_order'");
    } else if (key == "shape") {
      if (!dict.consume_front("("))
        return fail("has a malformed header: expected a tuple for 'shape'");
      while (true) {
        skip();
        if (dict.consume_front(")"))
          break;
        size_t digits = dict.find_first_not_of("0123456789");
        int64_t dim;
        if (digits == 0 || dict.take_front(digits).getAsInteger(10, dim))
          return fail("has a malformed header: bad 'shape'");
        header.shape.push_back(dim);
        dict = dict.drop_front(digits);
        skip();
        dict.consume_front(",");
      }
      sawShape = true;
    } else {
      return fail("has a malformed header: unknown key '" + key + "'");
    }
    skip();
    dict.consume_front(",");
  }
  if (!sawDescr || !sawShape)
    return fail("has a malformed header: needs 'descr' and 'shape'");
  return success();
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::interleave(
      shape, [&](int64_t d) { s += std::to_string(d); }, [&] { s += ", "; });
  return s + "]";
}

FailureOr<std::unique_ptr<llvm::MemoryBuffer>>
traced::readNpyFile(StringRef path, std::string &error) {
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status)) {
    error = "cannot read '" + path.str() + "': " + ec.message();
    return failure();
  }
  if (status.type() != llvm::sys::fs::file_type::regular_file) {
    error = "cannot read '" + path.str() +
            "': not a regular file (devices, FIFOs and directories are "
            "refused)";
    return failure();
  }
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    error = "cannot read '" + path.str() + "': " + file.getError().message();
    return failure();
  }
  return std::move(*file);
}

FailureOr<NpyArray> traced::parseNpy(StringRef contents, std::string &error) {
  NpyHeader header;
  if (failed(parseNpyHeader(contents, header, error)))
    return failure();
  std::optional<DType> dtype = dtypeFromNpyDescr(header.descr);
  if (!dtype) {
    error = "has dtype '" + header.descr + "', which is not a little-endian " +
            dtypeNameList();
    return failure();
  }
  // Fortran order only changes the layout of matrices and beyond.
  if (header.fortranOrder && header.shape.size() > 1) {
    error = "is in Fortran order; expected C order";
    return failure();
  }
  // Shapes come from the file: compute the size without overflowing.
  int64_t bytes = rawElementBytes(*dtype);
  for (int64_t dim : header.shape) {
    if (llvm::MulOverflow(bytes, dim, bytes)) {
      error = "has shape " + formatShape(header.shape) + ", which is too large";
      return failure();
    }
  }
  StringRef data = contents.drop_front(header.dataOffset);
  if (data.size() != static_cast<uint64_t>(bytes)) {
    error = "holds " + std::to_string(data.size()) + " bytes of data, but " +
            dtypeName(*dtype).str() + " of shape " + formatShape(header.shape) +
            " needs " + std::to_string(bytes);
    return failure();
  }
  return NpyArray{*dtype, std::move(header.shape), data};
}

void traced::writeNpy(raw_ostream &os, DType dtype, ArrayRef<int64_t> shape,
                      ArrayRef<char> data) {
  StringRef descr = npyDescr(dtype);
  assert(!descr.empty() && "dtype has no .npy descriptor");
  // A 1-tuple keeps its comma, as Python writes it: (3,).
  std::string header =
      "{'descr': '" + descr.str() + "', 'fortran_order': False, 'shape': (";
  for (int64_t d : shape)
    header += std::to_string(d) + ", ";
  if (shape.size() == 1)
    header.pop_back();
  else if (shape.size() > 1)
    header.resize(header.size() - 2);
  header += "), }";
  // Pad so that the data starts on a 64-byte boundary; end with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  os << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff)
     << char(header.size() >> 8) << header;
  os.write(data.data(), data.size());
}
