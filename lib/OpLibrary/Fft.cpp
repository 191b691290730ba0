//===- Fft.cpp - the complex-to-real FFTs' shared parameters --------------===//
//
// decodeFftC2R (OpLibrary.h): the dims, signal sizes, output length and
// scale of torch.fft.irfft/irfft2/irfftn and hfft/hfft2/hfftn, checked as
// torch 1.13 checks them (aten/src/ATen/native/SpectralOps.cpp:
// canonicalize_fft_shape_and_dim_args, canonicalize_fft_c2r_shape_and_dim_args,
// fft_c2r, norm_from_string), for the rules, the kernel and the
// decomposition (docs/fft.md).
//
//===----------------------------------------------------------------------===//

#include "TracedIR/OpLibrary/OpLibrary.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <string>

using namespace mlir;
using namespace mlir::traced;

namespace {
/// `d` wrapped into [0, rank), or false (with torch's message).
bool wrapDim(int64_t &d, int64_t rank, llvm::raw_string_ostream &err) {
  int64_t low = rank > 0 ? -rank : -1, high = rank > 0 ? rank - 1 : 0;
  if (d < low || d > high) {
    err << "Dimension out of range (expected to be in range of [" << low
        << ", " << high << "], but got " << d << ")";
    return false;
  }
  if (d < 0)
    d += std::max<int64_t>(rank, 1);
  return true;
}

/// The dims and signal sizes of an n-D call (canonicalize_fft_shape_and_dim_args).
ConvDecode shapeAndDims(const ArgReader &reader, llvm::ArrayRef<int64_t> input,
                        FftC2R &out, llvm::raw_string_ostream &err) {
  int64_t rank = static_cast<int64_t>(input.size());
  bool hasDim = !reader.isNone("dim"), hasShape = !reader.isNone("s");
  std::optional<llvm::SmallVector<int64_t>> dim, shape;
  if (hasDim && !(dim = reader.ints("dim")))
    return ConvDecode::Unknown;
  if (hasShape && !(shape = reader.ints("s")))
    return ConvDecode::Unknown;
  if (dim) {
    out.dims = *dim;
    for (int64_t &d : out.dims)
      if (!wrapDim(d, rank, err))
        return ConvDecode::Invalid;
    llvm::SmallVector<int64_t> sorted = out.dims;
    llvm::sort(sorted);
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      err << "FFT dims must be unique";
      return ConvDecode::Invalid;
    }
  }
  if (shape) {
    if (dim && dim->size() != shape->size()) {
      err << "When given, dim and shape arguments must have the same length";
      return ConvDecode::Invalid;
    }
    int64_t k = static_cast<int64_t>(shape->size());
    if (k > rank) {
      err << "Got shape with " << k << " values but input tensor only has "
          << rank << " dimensions.";
      return ConvDecode::Invalid;
    }
    if (!dim)
      for (int64_t i = 0; i < k; ++i)
        out.dims.push_back(rank - k + i);
    for (int64_t i = 0; i < k; ++i)
      out.sizes.push_back((*shape)[i] == -1 ? input[out.dims[i]] : (*shape)[i]);
  } else {
    if (!dim)
      for (int64_t i = 0; i < rank; ++i)
        out.dims.push_back(i);
    for (int64_t d : out.dims)
      out.sizes.push_back(input[d]);
  }
  for (int64_t n : out.sizes) {
    if (ShapedType::isDynamic(n))
      return ConvDecode::Unknown;
    if (n <= 0) {
      err << "Invalid number of data points (" << n << ") specified";
      return ConvDecode::Invalid;
    }
  }
  return ConvDecode::Ok;
}
} // namespace

ConvDecode traced::decodeFftC2R(const Signature &sig, const ArgReader &reader,
                                llvm::ArrayRef<int64_t> input, bool hermitian,
                                llvm::StringRef name, FftC2R &out,
                                std::string &error) {
  llvm::raw_string_ostream err(error);
  out = FftC2R();
  int64_t rank = static_cast<int64_t>(input.size());
  if (sig.lookup("n")) {
    // The 1-D form: one dim, n (default 2 (size - 1)).
    std::optional<int64_t> d = reader.integer("dim");
    if (!d)
      return ConvDecode::Unknown;
    int64_t dim = *d;
    if (rank == 0) {
      err << "Dimension specified as " << dim << " but tensor has no dimensions";
      return ConvDecode::Invalid;
    }
    if (!wrapDim(dim, rank, err))
      return ConvDecode::Invalid;
    if (ShapedType::isDynamic(input[dim]))
      return ConvDecode::Unknown;
    int64_t n = 2 * (input[dim] - 1);
    if (!reader.isNone("n")) {
      std::optional<int64_t> given = reader.integer("n");
      if (!given)
        return ConvDecode::Unknown;
      n = *given;
    }
    if (n < 1) {
      err << "Invalid number of data points (" << n << ") specified";
      return ConvDecode::Invalid;
    }
    out.dims = {dim};
    out.sizes = {n / 2 + 1};
    out.lastSize = n;
  } else {
    if (ConvDecode r = shapeAndDims(reader, input, out, err); r != ConvDecode::Ok)
      return r;
    if (out.dims.empty()) {
      err << name << " must transform at least one axis";
      return ConvDecode::Invalid;
    }
    std::optional<llvm::SmallVector<int64_t>> shape;
    if (!reader.isNone("s"))
      shape = reader.ints("s");
    int64_t last = (!shape || shape->back() == -1)
                       ? 2 * (input[out.dims.back()] - 1)
                       : out.sizes.back();
    if (last < 1) {
      err << "Invalid number of data points (" << last << ") specified";
      return ConvDecode::Invalid;
    }
    out.lastSize = last;
    out.sizes.back() = last / 2 + 1;
  }
  // norm_from_string: "backward" (None) scales the inverse by 1/n,
  // "forward" the forward transform, "ortho" both by 1/sqrt(n); hfft is a
  // forward transform.
  std::string norm = "backward";
  if (sig.lookup("norm") && !reader.isNone("norm")) {
    std::optional<std::string> s = reader.str("norm");
    if (!s)
      return ConvDecode::Unknown;
    norm = *s;
  }
  if (norm != "backward" && norm != "forward" && norm != "ortho") {
    err << "Invalid normalization mode: \"" << norm << "\"";
    return ConvDecode::Invalid;
  }
  double points = 1.0;
  for (size_t i = 0; i + 1 < out.sizes.size(); ++i)
    points *= static_cast<double>(out.sizes[i]);
  points *= static_cast<double>(out.lastSize);
  if (norm == "ortho")
    out.scale = 1.0 / std::sqrt(points);
  else if ((norm == "backward") != hermitian)
    out.scale = 1.0 / points;
  out.resultShape.assign(input.begin(), input.end());
  for (size_t i = 0; i < out.dims.size(); ++i)
    out.resultShape[out.dims[i]] = out.sizes[i];
  out.resultShape[out.dims.back()] = out.lastSize;
  return ConvDecode::Ok;
}
