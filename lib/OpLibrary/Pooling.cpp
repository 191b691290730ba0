//===- Pooling.cpp - the pooling family's shared parameters ---------------===//
//
// What the pooling and resampling rules, kernels and lowerings all read,
// written once: a window's completed parameters (PoolParams: stride None
// is the kernel, one int is every dim, torch's checks), output sizes,
// average pooling's divisor, and F.interpolate's taps.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/OpLibrary/OpLibrary.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <string>

using namespace mlir;
using namespace mlir::traced;

int64_t mlir::traced::pooledSize(int64_t size, int64_t kernel, int64_t stride,
                                 int64_t padding, int64_t dilation,
                                 bool ceilMode) {
  if (ShapedType::isDynamic(size))
    return ShapedType::kDynamic;
  int64_t numerator = size + 2 * padding - dilation * (kernel - 1) - 1 +
                      (ceilMode ? stride - 1 : 0);
  // Python's floor division: a window larger than the padded input gives
  // a negative size, which checkOutput reports.
  int64_t out = (numerator >= 0 ? numerator / stride
                                : -((-numerator + stride - 1) / stride)) +
                1;
  // The last window must start inside the input or its left padding.
  if (ceilMode && (out - 1) * stride >= size + padding)
    --out;
  return out;
}

std::string PoolParams::complete(unsigned spatial) {
  if (stride.empty())
    stride = kernel;
  if (dilation.empty())
    dilation.assign(spatial, 1);
  const char *count[] = {"", "one int", "two ints", "three ints"};
  std::pair<const char *, SmallVector<int64_t> *> lists[] = {
      {"kernel_size", &kernel},
      {"stride", &stride},
      {"padding", &padding},
      {"dilation", &dilation}};
  for (auto [name, list] : lists) {
    // torch repeats a one-element list (MaxPool2d(kernel_size=(3,))).
    if (list->size() == 1)
      list->assign(spatial, list->front());
    if (list->size() != spatial)
      return (Twine(name) + " must be a single int or a tuple of " +
              count[spatial] + ", got " + Twine(list->size()) + " values")
          .str();
  }
  for (unsigned i = 0; i < spatial; ++i) {
    if (kernel[i] <= 0)
      return "kernel size should be greater than zero, but got " +
             std::to_string(kernel[i]);
    if (stride[i] <= 0)
      return "stride should be greater than zero, but got " +
             std::to_string(stride[i]);
    if (dilation[i] <= 0)
      return "dilation should be greater than zero, but got " +
             std::to_string(dilation[i]);
    if (padding[i] < 0)
      return "pad must be non-negative, but got pad: " +
             std::to_string(padding[i]);
    if (padding[i] > kernel[i] / 2)
      return "pad should be at most half of kernel size, but got pad=" +
             std::to_string(padding[i]) +
             " and kernel_size=" + std::to_string(kernel[i]);
  }
  return "";
}

int64_t PoolParams::outputSize(unsigned i, int64_t size) const {
  return pooledSize(size, kernel[i], stride[i], padding[i], dilation[i],
                    ceilMode);
}

std::string PoolParams::checkOutput(ArrayRef<int64_t> inputShape) const {
  unsigned spatial = kernel.size();
  ArrayRef<int64_t> sizes = inputShape.take_back(spatial);
  bool tooSmall = false;
  std::string given, calculated;
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t o = outputSize(i, sizes[i]);
    tooSmall |= !ShapedType::isDynamic(o) && o < 1;
    given += (i ? "x" : "") + std::to_string(sizes[i]);
    calculated += (i ? "x" : "") + std::to_string(o);
  }
  if (!tooSmall)
    return "";
  return "given input size (" + given + "), the calculated output size (" +
         calculated + ") is too small";
}

int64_t mlir::traced::avgPoolDivisor(ArrayRef<PoolWindow> dims,
                                     bool countIncludePad) {
  // PyTorch's window: clipped to input+padding for the divisor with
  // count_include_pad, to the input without.
  int64_t divisor = 1;
  for (const PoolWindow &w : dims) {
    int64_t begin = w.start,
            end = std::min(w.start + w.kernel, w.size + w.padding);
    divisor *= countIncludePad
                   ? end - begin
                   : std::min(end, w.size) - std::max<int64_t>(begin, 0);
  }
  return divisor;
}

SmallVector<std::pair<int64_t, double>, 4>
mlir::traced::resampleTaps(ResampleMode mode, int64_t size, int64_t out,
                           int64_t j, double scale, bool alignCorners,
                           bool channelsLast) {
  SmallVector<std::pair<int64_t, double>, 4> taps;
  switch (mode) {
  case ResampleMode::Cubic: {
    // Keys' kernel, A = -0.75, border taps clamped.
    double src = alignCorners
                     ? (out > 1 ? j * double(size - 1) / (out - 1) : 0.0)
                     : (j + 0.5) * scale - 0.5;
    int64_t i = static_cast<int64_t>(std::floor(src));
    double t = src - i, A = -0.75;
    auto near = [&](double v) { return ((A + 2) * v - (A + 3)) * v * v + 1; };
    auto far = [&](double v) {
      return ((A * v - 5 * A) * v + 8 * A) * v - 4 * A;
    };
    double w[4] = {far(t + 1), near(t), near(1 - t), far(2 - t)};
    for (int k = 0; k < 4; ++k)
      taps.push_back({std::clamp<int64_t>(i - 1 + k, 0, size - 1), w[k]});
    return taps;
  }
  case ResampleMode::Area: {
    // The window [floor(j * size / out), ceil((j + 1) * size / out))
    // averaged, as adaptive average pooling does.
    auto [start, end] = adaptiveWindow(j, size, out);
    for (int64_t i = start; i < end; ++i)
      taps.push_back({i, 1.0 / double(end - start)});
    return taps;
  }
  case ResampleMode::Linear: {
    double src = alignCorners
                     ? (out > 1 ? j * double(size - 1) / (out - 1) : 0.0)
                     : std::max(0.0, (j + 0.5) * scale - 0.5);
    int64_t i0 =
        std::min<int64_t>(static_cast<int64_t>(std::floor(src)), size - 1);
    int64_t i1 = std::min<int64_t>(i0 + 1, size - 1);
    double lambda = src - i0;
    taps.push_back({i0, 1 - lambda});
    taps.push_back({i1, lambda});
    return taps;
  }
  case ResampleMode::Nearest:
  case ResampleMode::NearestExact: {
    // As torch 1.13's CPU kernels (nearest_neighbor_compute_source_index
    // and its exact variant): in float arithmetic, the scale rounded to
    // float, floorf(j * scale) for "nearest" (so 1 / 1.1 maps output 1 of
    // 2 to input 0) and floorf((j + 0.5) * scale) for "nearest-exact".
    float s = static_cast<float>(scale);
    float at = static_cast<float>(j) + (mode == ResampleMode::Nearest ? 0.0f : 0.5f);
    int64_t src = static_cast<int64_t>(std::floor(at * s));
    if (mode == ResampleMode::Nearest && channelsLast && out == size)
      src = j;
    else if (mode == ResampleMode::Nearest && channelsLast && out == 2 * size)
      src = j >> 1;
    taps.push_back({std::min<int64_t>(src, size - 1), 1.0});
    return taps;
  }
  }
  return taps;
}

StringRef traced::upsampleScaleParam(int64_t spatial, int64_t d) {
  static const char *const names[3][3] = {
      {"scales"}, {"scales_h", "scales_w"}, {"scales_d", "scales_h", "scales_w"}};
  return names[spatial - 1][d];
}

ConvDecode traced::decodePool(const Signature &sig, const ArgReader &reader,
                              unsigned spatial, PoolParams &out,
                              std::string &error) {
  PoolParams w;
  auto list = [&](StringRef name) -> std::optional<SmallVector<int64_t>> {
    std::optional<SmallVector<int64_t>> v = reader.ints(name);
    // One int is every dim's.
    if (v && v->size() == 1 && spatial > 1)
      v->assign(spatial, v->front());
    return v;
  };
  std::optional<SmallVector<int64_t>> kernel = list("kernel_size");
  // lp_pool has no padding; average pooling no dilation.
  std::optional<SmallVector<int64_t>> padding =
      sig.lookup("padding") ? list("padding")
                            : SmallVector<int64_t>(spatial, 0);
  std::optional<bool> ceil = reader.boolean("ceil_mode");
  if (!kernel || !padding || !ceil)
    return ConvDecode::Unknown;
  w.kernel = *kernel;
  w.padding = *padding;
  w.ceilMode = *ceil;
  if (!reader.isNone("stride")) {
    std::optional<SmallVector<int64_t>> stride = list("stride");
    if (!stride)
      return ConvDecode::Unknown;
    w.stride = *stride; // empty (torch.max_pool2d's []) means the kernel
  }
  if (sig.lookup("dilation")) {
    std::optional<SmallVector<int64_t>> dilation = list("dilation");
    if (!dilation)
      return ConvDecode::Unknown;
    w.dilation = *dilation;
  }
  error = w.complete(spatial);
  if (!error.empty())
    return ConvDecode::Invalid;
  out = std::move(w);
  return ConvDecode::Ok;
}

ConvDecode traced::decodeUnpool(const Signature &sig, const ArgReader &reader,
                                ArrayRef<int64_t> input, unsigned &spatial,
                                SmallVectorImpl<int64_t> &size,
                                std::string &error) {
  llvm::raw_string_ostream err(error);
  bool functional = sig.lookup("kernel_size").has_value();
  std::optional<unsigned> sizeParam =
      sig.lookup(functional ? "kernel_size" : "output_size");
  if (!sizeParam)
    return ConvDecode::Invalid;
  unsigned k = sig.params[*sizeParam].type.listSize;
  spatial = k;
  // F.max_unpool1d runs max_unpool2d on the input with a trailing 1.
  unsigned atenK = std::max(k, 2u);
  int64_t rank = static_cast<int64_t>(input.size()) + (atenK - k);
  if (rank != atenK + 1 && rank != atenK + 2) {
    err << "Input to max_unpooling" << atenK << "d should be a " << atenK + 1
        << "d or " << atenK + 2 << "d Tensor, but got a tensor with " << rank
        << " dimensions.";
    return ConvDecode::Invalid;
  }
  // A list argument as given (nullopt: unknown).
  auto raw = [&](StringRef name) { return reader.ints(name); };
  static const char *names[] = {"", "", "(height, width)",
                                "(depth, height, width)"};
  if (!functional) {
    std::optional<SmallVector<int64_t>> out = raw("output_size");
    if (!out)
      return reader.known("output_size") ? ConvDecode::Invalid
                                         : ConvDecode::Unknown;
    if (out->size() != k) {
      err << "There should be exactly " << (k == 2 ? "two" : "three")
          << " elements " << names[k] << " in output_size, but got "
          << out->size() << " elements.";
      return ConvDecode::Invalid;
    }
    if (sig.lookup("stride")) {
      std::optional<SmallVector<int64_t>> stride = raw("stride"),
                                          padding = raw("padding");
      if (!stride || !padding)
        return ConvDecode::Unknown;
      for (auto [name, v] : {std::pair<StringRef, SmallVector<int64_t> &>{
                                 "stride", *stride},
                             {"padding", *padding}})
        if (v.size() != k) {
          err << "There should be exactly three elements " << names[k]
              << " in " << name << ", but got: " << v.size() << " elements.";
          return ConvDecode::Invalid;
        }
      if (llvm::any_of(*stride, [](int64_t s) { return s <= 0; })) {
        err << "strides should be greater than zero, but got stride: [";
        llvm::interleave(*stride, err, ", ");
        err << "]";
        return ConvDecode::Invalid;
      }
    }
    size.assign(out->begin(), out->end());
    return ConvDecode::Ok;
  }
  // torch.nn.functional's _unpool_output_size.
  auto list = [&](StringRef name) -> std::optional<SmallVector<int64_t>> {
    std::optional<SmallVector<int64_t>> v = raw(name);
    if (v && v->size() == 1)
      v->assign(k, v->front());
    return v;
  };
  std::optional<SmallVector<int64_t>> kernel = list("kernel_size"),
                                      padding = list("padding");
  std::optional<SmallVector<int64_t>> stride =
      reader.isNone("stride") ? kernel : list("stride");
  if (!kernel || !padding || !stride)
    return ConvDecode::Unknown;
  if (kernel->size() != k || padding->size() != k || stride->size() != k) {
    err << "kernel_size, stride and padding need " << k << " values each";
    return ConvDecode::Invalid;
  }
  ArrayRef<int64_t> in = input.take_back(k);
  SmallVector<int64_t> defaults;
  for (unsigned d = 0; d < k; ++d) {
    if (ShapedType::isDynamic(in[d]))
      return ConvDecode::Unknown;
    defaults.push_back((in[d] - 1) * (*stride)[d] + (*kernel)[d] -
                       2 * (*padding)[d]);
  }
  if (reader.isNone("output_size")) {
    size.assign(defaults.begin(), defaults.end());
  } else {
    std::optional<SmallVector<int64_t>> out = raw("output_size");
    if (!out)
      return ConvDecode::Unknown;
    SmallVector<int64_t> given = *out;
    if (given.size() == k + 2)
      given.erase(given.begin(), given.begin() + 2);
    if (given.size() != k) {
      err << "output_size should be a sequence containing " << k << " or "
          << k + 2 << " elements, but it has a length of '" << out->size()
          << "'";
      return ConvDecode::Invalid;
    }
    for (unsigned d = 0; d < k; ++d) {
      int64_t lo = defaults[d] - (*stride)[d], hi = defaults[d] + (*stride)[d];
      if (!(lo < given[d] && given[d] < hi)) {
        err << "invalid output_size \"[";
        llvm::interleave(given, err, ", ");
        err << "]\" (dim " << d << " must be between " << lo << " and " << hi
            << ")";
        return ConvDecode::Invalid;
      }
    }
    size.assign(given.begin(), given.end());
  }
  if (sig.lookup("stride") && k == 3 &&
      llvm::any_of(*stride, [](int64_t s) { return s <= 0; })) {
    err << "strides should be greater than zero, but got stride: [";
    llvm::interleave(*stride, err, ", ");
    err << "]";
    return ConvDecode::Invalid;
  }
  return ConvDecode::Ok;
}
