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

/// The size of `input` at wrapped dim `d`: a 0-d tensor's one dim (torch
/// wraps dim 0 and -1 of a scalar) has size 1.
int64_t sizeAt(llvm::ArrayRef<int64_t> input, int64_t d) {
  return d < static_cast<int64_t>(input.size()) ? input[d] : 1;
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
      out.sizes.push_back((*shape)[i] == -1 ? sizeAt(input, out.dims[i]) : (*shape)[i]);
  } else {
    if (!dim)
      for (int64_t i = 0; i < rank; ++i)
        out.dims.push_back(i);
    for (int64_t d : out.dims)
      out.sizes.push_back(sizeAt(input, d));
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
                       ? 2 * (sizeAt(input, out.dims.back()) - 1)
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

//===----------------------------------------------------------------------===//
// stft and istft of real tensors
//===----------------------------------------------------------------------===//

namespace {
/// n_fft, center, normalized, hop_length (default n_fft // 4), win_length
/// (default n_fft) and return_complex (refused when true) of either call.
ConvDecode stftCommon(const ArgReader &reader, llvm::StringRef name, Stft &out,
                      llvm::raw_string_ostream &err) {
  std::optional<int64_t> nFft = reader.integer("n_fft");
  std::optional<bool> center = reader.boolean("center"),
                      normalized = reader.boolean("normalized");
  if (!nFft || !center || !normalized)
    return ConvDecode::Unknown;
  out.nFft = *nFft;
  out.center = *center;
  out.normalized = *normalized;
  if (!reader.isNone("return_complex")) {
    std::optional<bool> complex = reader.boolean("return_complex");
    if (!complex)
      return ConvDecode::Unknown;
    if (*complex) {
      err << name << ": return_complex=True returns a complex tensor, and "
          << "complex tensors are not supported (return_complex=False "
          << "gives the real form, real and imaginary parts in a last dim "
          << "of 2)";
      return ConvDecode::Invalid;
    }
  }
  out.hop = out.nFft >> 2;
  out.winLength = out.nFft;
  if (!reader.isNone("hop_length")) {
    std::optional<int64_t> hop = reader.integer("hop_length");
    if (!hop)
      return ConvDecode::Unknown;
    out.hop = *hop;
  }
  if (!reader.isNone("win_length")) {
    std::optional<int64_t> win = reader.integer("win_length");
    if (!win)
      return ConvDecode::Unknown;
    out.winLength = *win;
  }
  return ConvDecode::Ok;
}

bool checkWindow(const Stft &out, std::optional<llvm::ArrayRef<int64_t>> window,
                 llvm::StringRef name, llvm::raw_string_ostream &err) {
  if (!window || (window->size() == 1 && (*window)[0] == out.winLength))
    return true;
  err << name << ": expected a 1D window tensor of size equal to win_length="
      << out.winLength << ", but got window with size [";
  llvm::interleave(*window, err, ", ");
  err << "]";
  return false;
}

bool anyDynamic(llvm::ArrayRef<int64_t> shape) {
  return llvm::any_of(shape, ShapedType::isDynamic);
}
} // namespace

int64_t Stft::source(int64_t p) const {
  int64_t q = p - pad;
  if (q >= 0 && q < length)
    return q;
  if (padMode == "constant")
    return -1;
  if (padMode == "replicate")
    return q < 0 ? 0 : length - 1;
  if (padMode == "circular")
    return ((q % length) + length) % length;
  return q < 0 ? -q : 2 * (length - 1) - q; // reflect
}

ConvDecode traced::decodeStft(const ArgReader &reader,
                              llvm::ArrayRef<int64_t> input,
                              std::optional<llvm::ArrayRef<int64_t>> window,
                              Stft &out, std::string &error) {
  llvm::raw_string_ostream err(error);
  out = Stft();
  if (ConvDecode r = stftCommon(reader, "stft", out, err); r != ConvDecode::Ok)
    return r;
  if (anyDynamic(input) || (window && anyDynamic(*window)))
    return ConvDecode::Unknown;
  int64_t rank = static_cast<int64_t>(input.size());
  if (rank != 1 && rank != 2) {
    err << "stft: expected a 1D or 2D tensor, but got a tensor of " << rank
        << " dimensions";
    return ConvDecode::Invalid;
  }
  if (out.nFft <= 0) {
    err << "stft: expected 0 < n_fft, but got n_fft=" << out.nFft;
    return ConvDecode::Invalid;
  }
  out.length = input.back();
  if (out.center) {
    // torch/functional.py: F.pad(input, [n_fft // 2] * 2, pad_mode).
    if (!reader.isNone("pad_mode")) {
      std::optional<std::string> mode = reader.str("pad_mode");
      if (!mode)
        return ConvDecode::Unknown;
      out.padMode = *mode;
    }
    if (out.padMode != "reflect" && out.padMode != "constant" &&
        out.padMode != "replicate" && out.padMode != "circular") {
      err << "stft: Unrecognised padding mode " << out.padMode;
      return ConvDecode::Invalid;
    }
    out.pad = out.nFft / 2;
    if (out.padMode == "reflect" && out.pad >= out.length) {
      err << "stft: Argument #4: Padding size should be less than the "
          << "corresponding input dimension, but got: padding (" << out.pad
          << ", " << out.pad << ") at dimension " << 2
          << " of the signal of length " << out.length;
      return ConvDecode::Invalid;
    }
    if ((out.padMode == "circular" && out.pad > out.length) ||
        (out.padMode == "replicate" && out.length == 0 && out.pad > 0)) {
      err << "stft: Padding value causes wrapping around more than once "
          << "(padding " << out.pad << " of a signal of length " << out.length
          << ")";
      return ConvDecode::Invalid;
    }
  }
  int64_t len = out.length + 2 * out.pad;
  if (out.nFft > len) {
    err << "stft: expected 0 < n_fft < " << len << ", but got n_fft="
        << out.nFft;
    return ConvDecode::Invalid;
  }
  if (out.hop <= 0) {
    err << "stft: expected hop_length > 0, but got hop_length=" << out.hop;
    return ConvDecode::Invalid;
  }
  if (out.winLength <= 0 || out.winLength > out.nFft) {
    err << "stft: expected 0 < win_length <= n_fft, but got win_length="
        << out.winLength;
    return ConvDecode::Invalid;
  }
  if (!checkWindow(out, window, "stft", err))
    return ConvDecode::Invalid;
  if (!reader.isNone("onesided")) {
    std::optional<bool> onesided = reader.boolean("onesided");
    if (!onesided)
      return ConvDecode::Unknown;
    out.onesided = *onesided;
  }
  out.frames = 1 + (len - out.nFft) / out.hop;
  out.bins = out.onesided ? out.nFft / 2 + 1 : out.nFft;
  if (rank == 2)
    out.resultShape.push_back(input[0]);
  out.resultShape.append({out.bins, out.frames, 2});
  return ConvDecode::Ok;
}

ConvDecode traced::decodeIstft(const ArgReader &reader,
                               llvm::ArrayRef<int64_t> input,
                               std::optional<llvm::ArrayRef<int64_t>> window,
                               Stft &out, std::string &error) {
  llvm::raw_string_ostream err(error);
  out = Stft();
  if (ConvDecode r = stftCommon(reader, "istft", out, err);
      r != ConvDecode::Ok)
    return r;
  if (anyDynamic(input) || (window && anyDynamic(*window)))
    return ConvDecode::Unknown;
  int64_t rank = static_cast<int64_t>(input.size());
  int64_t numel = 1;
  for (int64_t s : input)
    numel *= s;
  if (numel == 0) {
    err << "istft: input tensor cannot be empty.";
    return ConvDecode::Invalid;
  }
  if (rank != 3 && rank != 4) {
    err << "istft: expected a tensor with 3 or 4 dimensions (real and "
        << "imaginary parts in the last), but got " << rank;
    return ConvDecode::Invalid;
  }
  if (input.back() != 2) {
    err << "istft: expected the last dimension to be 2 (corresponding to "
        << "real and imaginary parts), but got " << input.back();
    return ConvDecode::Invalid;
  }
  out.frames = input[rank - 2];
  out.bins = input[rank - 3];
  out.onesided = out.bins != out.nFft;
  if (!reader.isNone("onesided")) {
    std::optional<bool> onesided = reader.boolean("onesided");
    if (!onesided)
      return ConvDecode::Unknown;
    out.onesided = *onesided;
  }
  if (out.onesided && out.nFft / 2 + 1 != out.bins) {
    err << "istft: expected the frequency dimension (3rd to the last) of the "
        << "input tensor to match n_fft / 2 + 1 when onesided=True, but got "
        << out.bins;
    return ConvDecode::Invalid;
  }
  if (!out.onesided && out.nFft != out.bins) {
    err << "istft: expected the frequency dimension (3rd to the last) of the "
        << "input tensor to match n_fft when onesided=False, but got "
        << out.bins;
    return ConvDecode::Invalid;
  }
  if (!(0 < out.hop && out.hop <= out.winLength)) {
    err << "istft expected 0 < hop_length <= win_length";
    return ConvDecode::Invalid;
  }
  if (!(0 < out.winLength && out.winLength <= out.nFft)) {
    err << "istft expected 0 < win_length <= n_fft";
    return ConvDecode::Invalid;
  }
  if (!checkWindow(out, window, "istft", err))
    return ConvDecode::Invalid;
  out.added = out.nFft + out.hop * (out.frames - 1);
  out.start = out.center ? out.nFft / 2 : 0;
  int64_t end = out.center ? -(out.nFft / 2) : out.added;
  if (!reader.isNone("length")) {
    std::optional<int64_t> length = reader.integer("length");
    if (!length)
      return ConvDecode::Unknown;
    end = out.start + *length;
  }
  // y.slice(1, start, end) (end wraps once when negative, both clamp).
  int64_t stop = end < 0 ? end + out.added : end;
  stop = std::clamp<int64_t>(stop, out.start, out.added);
  out.stop = stop;
  if (out.stop == out.start) {
    err << "istft: the window envelope is empty (min(): Expected reduction "
        << "dim to be specified for input.numel() == 0)";
    return ConvDecode::Invalid;
  }
  out.outLength = out.stop - out.start + std::max<int64_t>(0, end - out.added);
  if (!window) {
    // The envelope of a window of ones (torch's window=None) is known here.
    for (int64_t s = out.start; s < out.stop; ++s) {
      bool covered = false;
      for (int64_t f = 0; f < out.frames && !covered; ++f) {
        int64_t t = s - f * out.hop;
        covered = t >= 0 && t < out.nFft && out.inWindow(t);
      }
      if (!covered) {
        err << "istft: window overlap add min: 1 (the overlap-added squared "
            << "window is below 1e-11 at sample " << s << ")";
        return ConvDecode::Invalid;
      }
    }
  }
  if (rank == 4)
    out.resultShape.push_back(input[0]);
  out.resultShape.push_back(out.outLength);
  return ConvDecode::Ok;
}
