//===- OpTable.cpp - the known targets, each described once ---------------===//
//
// Each target has one row here: canonical name, aliases, signature and
// result rule; kRejectedDTypes says which dtypes torch has no CPU kernel
// for. The layers above name what they do with an entry in their own
// family files (its kernel, its lowering or decomposition);
// docs/adding-an-op.md lists every place a new op touches. Signatures use TorchScript's schema spelling; see ParamType in
// OpLibrary.h. Method aliases are `Tensor.<name>`; MegEngine spellings
// (`nn.relu`, `F.relu`) are aliases like any other.
//
//===----------------------------------------------------------------------===//

#include "ResultRules.h"

#include "TracedIR/OpLibrary/OpLibrary.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::traced;

namespace {
struct OpRow {
  const char *name;
  std::vector<llvm::StringRef> aliases;
  const char *signature;
  const char *rule; // a name in rules::ruleTable()
  bool pure = true;
};

struct ModuleRow {
  const char *className;
  std::vector<llvm::StringRef> aliases;
  const char *forward;
  const char *functional;
  std::vector<ModuleBinding> bindings;
};
} // namespace

using namespace mlir::traced::rules;

// clang-format off
static const OpRow kOps[] = {
  // Activations.
  {"torch.nn.functional.relu",
   {"torch.relu", "Tensor.relu", "F.relu", "nn.relu",
    "megengine.functional.nn.relu", "megengine.functional.relu"},
   "(Tensor input, bool inplace=False)", "sameAsInput"},
  {"torch.nn.functional.relu6",
   {"F.relu6", "nn.relu6", "megengine.functional.nn.relu6"},
   "(Tensor input, bool inplace=False)", "sameAsInput"},
  {"torch.nn.functional.hardtanh",
   {"F.hardtanh", "torch._C._nn.hardtanh"},
   "(Tensor input, float min_val=-1.0, float max_val=1.0, bool inplace=False)",
   "sameAsInput"},
  {"torch.nn.functional.gelu",
   {"torch._C._nn.gelu", "F.gelu", "nn.gelu", "megengine.functional.nn.gelu"},
   "(Tensor input, *, str approximate=\"none\")", "sameAsInput"},
  {"torch.nn.functional.silu",
   {"F.silu", "nn.silu", "megengine.functional.nn.silu"},
   "(Tensor input, bool inplace=False)", "sameAsInput"},
  {"torch.nn.functional.hardswish",
   {"torch._C._nn.hardswish", "F.hardswish", "nn.hswish",
    "megengine.functional.nn.hswish"},
   "(Tensor input, bool inplace=False)", "sameAsInput"},
  {"torch.nn.functional.hardsigmoid",
   {"torch._C._nn.hardsigmoid", "F.hardsigmoid", "nn.hsigmoid",
    "megengine.functional.nn.hsigmoid"},
   "(Tensor input, bool inplace=False)", "sameAsInput"},
  {"torch.nn.functional.leaky_relu",
   {"F.leaky_relu", "nn.leaky_relu", "torch._C._nn.leaky_relu"},
   "(Tensor input, float negative_slope=0.01, bool inplace=False)",
   "sameAsInput"},
  {"torch.sigmoid",
   {"torch.nn.functional.sigmoid", "Tensor.sigmoid", "F.sigmoid",
    "nn.sigmoid", "megengine.functional.sigmoid"},
   "(Tensor input)", "floatUnary"},
  {"torch.tanh",
   {"torch.nn.functional.tanh", "Tensor.tanh", "F.tanh"},
   "(Tensor input)", "floatUnary"},
  {"torch.nn.functional.softmax",
   {"torch.softmax", "Tensor.softmax", "F.softmax", "nn.softmax",
    "megengine.functional.nn.softmax"},
   "(Tensor input, int? dim=None, int _stacklevel=3, *, dtype? dtype=None)",
   "softmax"},
  {"torch.nn.functional.log_softmax",
   {"torch.log_softmax", "Tensor.log_softmax", "F.log_softmax"},
   "(Tensor input, int? dim=None, int _stacklevel=3, *, dtype? dtype=None)",
   "softmax"},
  {"torch.clamp",
   {"torch.clip", "Tensor.clamp", "Tensor.clip", "F.clip",
    "megengine.functional.clip"},
   "(Tensor input, Tensor|Scalar? min=None, Tensor|Scalar? max=None)", "clamp"},

  // (scale and input_scale are aten::elu's, which F.elu passes as 1:
  // keyword-only here, so that ATen's elu binds.)
  {"torch.nn.functional.elu", {"F.elu", "torch._C._nn.elu", "nn.elu"},
   "(Tensor input, float alpha=1.0, bool inplace=False, *, float scale=1.0, float input_scale=1.0)",
   "sameAsInput"},
  {"torch.nn.functional.selu", {"torch.selu", "F.selu"},
   "(Tensor input, bool inplace=False)", "sameAsInput"},
  {"torch.nn.functional.celu", {"torch.celu", "F.celu"},
   "(Tensor input, float alpha=1.0, bool inplace=False)", "celu"},
  {"torch.nn.functional.softplus", {"torch._C._nn.softplus", "F.softplus", "nn.softplus"},
   "(Tensor input, float beta=1, float threshold=20)", "sameAsInput"},
  {"torch.nn.functional.softsign", {"F.softsign"},
   "(Tensor input)", "floatUnary"},
  {"torch.nn.functional.mish", {"torch._C._nn.mish", "F.mish"},
   "(Tensor input, bool inplace=False)", "sameAsInput"},
  {"torch.nn.functional.hardshrink", {"torch.hardshrink", "Tensor.hardshrink", "F.hardshrink"},
   "(Tensor input, float lambd=0.5)", "sameAsInput"},
  {"torch.nn.functional.softshrink", {"torch._C._nn.softshrink", "F.softshrink"},
   "(Tensor input, float lambd=0.5)", "sameAsInput"},
  {"torch.nn.functional.tanhshrink", {"F.tanhshrink"},
   "(Tensor input)", "floatUnary"},
  {"torch.nn.functional.threshold", {"torch.threshold", "torch.nn.functional._threshold", "F.threshold"},
   "(Tensor input, float threshold, float value, bool inplace=False)", "sameAsInput"},
  {"torch.nn.functional.rrelu", {"torch.rrelu", "F.rrelu"},
   "(Tensor input, float lower=0.125, float upper=0.3333333333333333, bool training=False, bool inplace=False)", "sameAsInput"},
  {"torch.nn.functional.logsigmoid", {"torch._C._nn.log_sigmoid", "F.logsigmoid", "nn.logsigmoid"},
   "(Tensor input)", "sameAsInput"},

  {"torch.nn.functional.softmin", {"F.softmin"},
   "(Tensor input, int? dim=None, int _stacklevel=3, *, dtype? dtype=None)",
   "softmax"},
  {"torch.nn.functional.glu", {"F.glu", "torch._C._nn.glu"},
   "(Tensor input, int dim=-1)",
   "glu"},
  {"torch.nn.functional.prelu", {"F.prelu", "torch.prelu", "torch._C._nn.prelu"},
   "(Tensor input, Tensor weight)",
   "prelu"},
  // Weight normalization (nn.utils.weight_norm's pre-hook): v scaled to
  // the norm g along `dim` (the norm over every other dim; -1: over all).
  {"torch._weight_norm", {},
   "(Tensor v, Tensor g, int dim=0)", "weightNorm"},
  {"torch.ops.aten._weight_norm_interface.default",
   {"torch.ops.aten._weight_norm_interface", "torch._weight_norm_interface"},
   "(Tensor v, Tensor g, int dim=0)", "weightNorm"},
  {"torch.nn.functional.normalize", {"F.normalize"},
   "(Tensor input, float p=2.0, int dim=1, float eps=1e-12, Tensor? out=None)",
   "sameAsInput"},
  // Each element divided by (k + alpha * the mean square over a window of
  // `size` channels) ** beta.
  {"torch.nn.functional.local_response_norm", {"F.local_response_norm"},
   "(Tensor input, int size, float alpha=0.0001, float beta=0.75, float k=1.0)",
   "localResponseNorm"},
  {"torch.nn.functional.group_norm", {"F.group_norm", "torch.group_norm"},
   "(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05)",
   "groupNorm"},
  // (torch.instance_norm, the binding, orders its parameters otherwise.)
  {"torch.nn.functional.instance_norm", {"F.instance_norm"},
   "(Tensor input, Tensor? running_mean=None, Tensor? running_var=None, Tensor? weight=None, "
   "Tensor? bias=None, bool use_input_stats=True, float momentum=0.1, float eps=1e-05)",
   "instanceNorm"},

  // Elementwise math.
  {"torch.exp", {"Tensor.exp", "F.exp"}, "(Tensor input)", "floatUnary"},
  {"torch.log", {"Tensor.log", "F.log"}, "(Tensor input)", "floatUnary"},
  {"torch.sqrt", {"Tensor.sqrt", "F.sqrt"}, "(Tensor input)", "floatUnary"},
  {"torch.rsqrt", {"Tensor.rsqrt"}, "(Tensor input)", "floatUnary"},
  {"torch.abs", {"Tensor.abs", "Tensor.__abs__", "F.abs", "torch.absolute",
    "Tensor.absolute"}, "(Tensor input)",
   "sameAsInput"},
  {"torch.erf", {"Tensor.erf"}, "(Tensor input)", "floatUnary"},
  {"torch.neg", {"Tensor.neg", "Tensor.__neg__", "operator.neg", "F.neg",
    "torch.negative", "Tensor.negative"},
   "(Tensor|Scalar input)", "sameAsInput"},

  // Float-only math: integers and bools become float32.
  {"torch.reciprocal", {"Tensor.reciprocal"},
   "(Tensor input)", "floatUnary"},
  {"torch.exp2", {"Tensor.exp2", "torch.special.exp2"},
   "(Tensor input)", "floatUnary"},
  {"torch.expm1", {"Tensor.expm1", "torch.special.expm1"},
   "(Tensor input)", "floatUnary"},
  {"torch.log2", {"Tensor.log2"},
   "(Tensor input)", "floatUnary"},
  {"torch.log10", {"Tensor.log10"},
   "(Tensor input)", "floatUnary"},
  {"torch.log1p", {"Tensor.log1p", "torch.special.log1p"},
   "(Tensor input)", "floatUnary"},
  {"torch.erfc", {"Tensor.erfc", "torch.special.erfc"},
   "(Tensor input)", "floatUnary"},
  {"torch.erfinv", {"Tensor.erfinv", "torch.special.erfinv"},
   "(Tensor input)", "floatUnary"},
  // Special functions (lib/Interpreter/Kernels/SpecialMath.cpp).
  {"torch.lgamma", {"Tensor.lgamma", "torch.special.gammaln"},
   "(Tensor input)", "floatUnary"},
  {"torch.digamma",
   {"Tensor.digamma", "torch.special.digamma", "torch.special.psi"},
   "(Tensor input)", "floatUnary"},
  {"torch.polygamma", {"torch.special.polygamma"},
   "(int n, Tensor input)", "floatUnary"},
  // x.polygamma(n): its receiver is the input, after n in torch.polygamma.
  {"Tensor.polygamma", {}, "(Tensor input, int n)", "floatUnary"},
  {"torch.mvlgamma", {"Tensor.mvlgamma", "torch.special.multigammaln"},
   "(Tensor input, int p)", "floatUnary"},
  {"torch.i0", {"Tensor.i0", "torch.special.i0"}, "(Tensor input)",
   "floatUnary"},
  {"torch.special.i0e", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.i1", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.i1e", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.ndtr", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.ndtri", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.log_ndtr", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.erfcx", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.zeta", {},
   "(Tensor|Scalar input, Tensor|Scalar other)", "floatPointwise"},
  {"torch.special.entr", {}, "(Tensor input)", "floatUnary"},
  // Orthogonal polynomials of (x, n); n is truncated to an integer.
  {"torch.special.chebyshev_polynomial_t", {},
   "(Tensor|Scalar input, Tensor|Scalar n)", "polynomial"},
  {"torch.special.chebyshev_polynomial_u", {},
   "(Tensor|Scalar input, Tensor|Scalar n)", "polynomial"},
  {"torch.special.chebyshev_polynomial_v", {},
   "(Tensor|Scalar input, Tensor|Scalar n)", "polynomial"},
  {"torch.special.chebyshev_polynomial_w", {},
   "(Tensor|Scalar input, Tensor|Scalar n)", "polynomial"},
  {"torch.special.shifted_chebyshev_polynomial_t", {},
   "(Tensor|Scalar input, Tensor|Scalar n)", "polynomial"},
  {"torch.special.shifted_chebyshev_polynomial_u", {},
   "(Tensor|Scalar input, Tensor|Scalar n)", "polynomial"},
  {"torch.special.shifted_chebyshev_polynomial_v", {},
   "(Tensor|Scalar input, Tensor|Scalar n)", "polynomial"},
  {"torch.special.shifted_chebyshev_polynomial_w", {},
   "(Tensor|Scalar input, Tensor|Scalar n)", "polynomial"},
  {"torch.special.hermite_polynomial_h", {},
   "(Tensor|Scalar input, Tensor|Scalar n)", "polynomial"},
  {"torch.special.hermite_polynomial_he", {},
   "(Tensor|Scalar input, Tensor|Scalar n)", "polynomial"},
  {"torch.special.laguerre_polynomial_l", {},
   "(Tensor|Scalar input, Tensor|Scalar n)", "polynomial"},
  {"torch.special.legendre_polynomial_p", {},
   "(Tensor|Scalar input, Tensor|Scalar n)", "polynomial"},
  {"torch.special.modified_bessel_i0", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.modified_bessel_i1", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.spherical_bessel_j0", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.airy_ai", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.bessel_j0", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.bessel_j1", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.bessel_y0", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.bessel_y1", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.modified_bessel_k0", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.modified_bessel_k1", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.scaled_modified_bessel_k0", {}, "(Tensor input)", "floatUnary"},
  {"torch.special.scaled_modified_bessel_k1", {}, "(Tensor input)", "floatUnary"},
  {"torch.nextafter", {"Tensor.nextafter"}, "(Tensor input, Tensor other)",
   "arithmetic"},
  {"torch.frexp", {"Tensor.frexp"}, "(Tensor input)", "frexp"},
  {"torch.gcd", {"Tensor.gcd"}, "(Tensor input, Tensor other)", "arithmetic"},
  {"torch.lcm", {"Tensor.lcm"}, "(Tensor input, Tensor other)", "arithmetic"},
  {"torch.special.xlog1py", {},
   "(Tensor|Scalar input, Tensor|Scalar other)", "floatPointwise"},
  {"torch.sin", {"Tensor.sin"},
   "(Tensor input)", "floatUnary"},
  {"torch.cos", {"Tensor.cos"},
   "(Tensor input)", "floatUnary"},
  {"torch.tan", {"Tensor.tan"},
   "(Tensor input)", "floatUnary"},
  {"torch.asin", {"Tensor.asin", "torch.arcsin", "Tensor.arcsin"},
   "(Tensor input)", "floatUnary"},
  {"torch.acos", {"Tensor.acos", "torch.arccos", "Tensor.arccos"},
   "(Tensor input)", "floatUnary"},
  {"torch.atan", {"Tensor.atan", "torch.arctan", "Tensor.arctan"},
   "(Tensor input)", "floatUnary"},
  {"torch.sinh", {"Tensor.sinh"},
   "(Tensor input)", "floatUnary"},
  {"torch.cosh", {"Tensor.cosh"},
   "(Tensor input)", "floatUnary"},
  {"torch.asinh", {"Tensor.asinh", "torch.arcsinh", "Tensor.arcsinh"},
   "(Tensor input)", "floatUnary"},
  {"torch.acosh", {"Tensor.acosh", "torch.arccosh", "Tensor.arccosh"},
   "(Tensor input)", "floatUnary"},
  {"torch.atanh", {"Tensor.atanh", "torch.arctanh", "Tensor.arctanh"},
   "(Tensor input)", "floatUnary"},
  // Losses (inference-time functions of the outputs and targets).
  {"torch.nn.functional.mse_loss", {"F.mse_loss"},
   "(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction=\"mean\")", "pointwiseLoss"},
  {"torch.nn.functional.l1_loss", {"F.l1_loss"},
   "(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction=\"mean\")", "pointwiseLoss"},
  {"torch.nn.functional.smooth_l1_loss", {"F.smooth_l1_loss"},
   "(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction=\"mean\", float beta=1.0)", "pointwiseLoss"},
  {"torch.nn.functional.huber_loss", {"F.huber_loss"},
   "(Tensor input, Tensor target, str reduction=\"mean\", float delta=1.0)",
   "pointwiseLoss"},
  {"torch.nn.functional.soft_margin_loss", {"F.soft_margin_loss"},
   "(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction=\"mean\")", "pointwiseLoss"},
  {"torch.nn.functional.binary_cross_entropy", {"F.binary_cross_entropy"},
   "(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, bool? reduce=None, str reduction=\"mean\")", "pointwiseLoss"},
  {"torch.nn.functional.binary_cross_entropy_with_logits",
   {"F.binary_cross_entropy_with_logits"},
   "(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, bool? reduce=None, str reduction=\"mean\", Tensor? pos_weight=None)",
   "pointwiseLoss"},
  {"torch.nn.functional.kl_div", {"F.kl_div"},
   "(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction=\"mean\", bool log_target=False)",
   "pointwiseLoss"},
  {"torch.nn.functional.nll_loss", {"F.nll_loss"},
   "(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, int ignore_index=-100, bool? reduce=None, str reduction=\"mean\")",
   "classLoss"},
  {"torch.nn.functional.cross_entropy", {"F.cross_entropy"},
   "(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, int ignore_index=-100, bool? reduce=None, str reduction=\"mean\", float label_smoothing=0.0)",
   "classLoss"},
  // The margin and embedding losses (their dtypes and shapes:
  // marginLossType).
  {"torch.nn.functional.margin_ranking_loss", {"F.margin_ranking_loss"},
   "(Tensor input1, Tensor input2, Tensor target, float margin=0, bool? size_average=None, bool? reduce=None, str reduction=\"mean\")",
   "marginLoss"},
  {"torch.nn.functional.hinge_embedding_loss", {"F.hinge_embedding_loss"},
   "(Tensor input, Tensor target, float margin=1.0, bool? size_average=None, bool? reduce=None, str reduction=\"mean\")",
   "marginLoss"},
  {"torch.nn.functional.cosine_embedding_loss", {"F.cosine_embedding_loss"},
   "(Tensor input1, Tensor input2, Tensor target, float margin=0, bool? size_average=None, bool? reduce=None, str reduction=\"mean\")",
   "marginLoss"},
  {"torch.nn.functional.gaussian_nll_loss", {"F.gaussian_nll_loss"},
   "(Tensor input, Tensor target, Tensor var, bool full=False, float eps=1e-06, str reduction=\"mean\")",
   "marginLoss"},
  {"torch.nn.functional.multilabel_soft_margin_loss", {"F.multilabel_soft_margin_loss"},
   "(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, bool? reduce=None, str reduction=\"mean\")",
   "marginLoss"},
  {"torch.nn.functional.triplet_margin_loss", {"F.triplet_margin_loss"},
   "(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, float p=2, float eps=1e-06, bool swap=False, bool? size_average=None, bool? reduce=None, str reduction=\"mean\")",
   "marginLoss"},
  {"torch.nn.functional.multi_margin_loss", {"F.multi_margin_loss"},
   "(Tensor input, Tensor target, Scalar p=1, float margin=1.0, Tensor? weight=None, bool? size_average=None, bool? reduce=None, str reduction=\"mean\")",
   "marginLoss"},
  {"torch.nn.functional.multilabel_margin_loss", {"F.multilabel_margin_loss"},
   "(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction=\"mean\")",
   "marginLoss"},
  // The lengths are both tensors or both int lists, as torch takes them.
  {"torch.nn.functional.ctc_loss", {"F.ctc_loss"},
   "(Tensor log_probs, Tensor targets, Any input_lengths, Any target_lengths, "
   "int blank=0, str reduction=\"mean\", bool zero_infinity=False)",
   "ctcLoss"},
  // Norms.
  {"torch.linalg.vector_norm", {},
   "(Tensor input, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, dtype? dtype=None)",
   "norm"},
  {"torch.norm", {"Tensor.norm", "torch.functional.norm"},
   "(Tensor input, Any p=\"fro\", int[1]? dim=None, bool keepdim=False, Any out=None, dtype? dtype=None)",
   "norm"},
  {"torch.linalg.norm", {},
   "(Tensor input, Any ord=None, int[1]? dim=None, bool keepdim=False, *, dtype? dtype=None)",
   "norm"},
  {"torch.linalg.matrix_norm", {},
   "(Tensor input, Any ord=\"fro\", int[] dim=[-2, -1], bool keepdim=False, *, dtype? dtype=None)",
   "norm"},
  {"torch.nn.functional.cosine_similarity",
   {"F.cosine_similarity", "torch.cosine_similarity"},
   "(Tensor x1, Tensor x2, int dim=1, float eps=1e-08)", "pairDistance"},
  {"torch.nn.functional.pairwise_distance",
   {"F.pairwise_distance", "torch.pairwise_distance"},
   "(Tensor x1, Tensor x2, float p=2.0, float eps=1e-06, bool keepdim=False)",
   "pairDistance"},
  // Distances between the rows of one matrix (pdist: the pairs i < j) or
  // of two (cdist, batched).
  {"torch.pdist", {"torch.nn.functional.pdist", "F.pdist"},
   "(Tensor input, float p=2)", "pdist"},
  {"torch.cdist", {"torch.functional.cdist"},
   "(Tensor x1, Tensor x2, float p=2., str compute_mode=\"use_mm_for_euclid_dist_if_necessary\")",
   "cdist"},
  // Shape ops that pick, stack and rearrange.
  {"torch.unbind", {"Tensor.unbind"}, "(Tensor input, int dim=0)", "unbind"},
  {"torch.diagonal", {"Tensor.diagonal"},
   "(Tensor input, int offset=0, int dim1=0, int dim2=1)", "diagonal"},
  {"torch.diag", {"Tensor.diag"}, "(Tensor input, int diagonal=0)", "diag"},
  {"torch.trace", {"Tensor.trace"}, "(Tensor input)", "trace"},
  {"torch.nn.functional.pixel_shuffle",
   {"torch.pixel_shuffle", "F.pixel_shuffle"},
   "(Tensor input, int upscale_factor)", "pixelShuffle"},
  {"torch.nn.functional.pixel_unshuffle",
   {"torch.pixel_unshuffle", "F.pixel_unshuffle"},
   "(Tensor input, int downscale_factor)", "pixelShuffle"},
  {"torch.nn.functional.channel_shuffle",
   {"torch.channel_shuffle", "torch.native_channel_shuffle"},
   "(Tensor input, int groups)", "channelShuffle"},
  {"torch.repeat_interleave", {"Tensor.repeat_interleave"},
   "(Tensor input, Any repeats, int? dim=None, *, int? output_size=None)",
   "repeatInterleave"},
  // (torch.repeat_interleave(repeats), whose Python signature the entry
  // above takes otherwise.)
  {"torch.ops.aten.repeat_interleave.Tensor", {},
   "(Tensor repeats, *, int? output_size=None)", "repeatInterleaveCounts"},
  {"torch.take_along_dim", {"Tensor.take_along_dim"},
   "(Tensor input, Tensor indices, int? dim=None)", "takeAlongDim"},
  {"torch.hstack", {}, "(Tensor[] tensors)", "stackLike"},
  {"torch.vstack", {"torch.row_stack"}, "(Tensor[] tensors)", "stackLike"},
  {"torch.dstack", {}, "(Tensor[] tensors)", "stackLike"},
  {"torch.column_stack", {}, "(Tensor[] tensors)", "stackLike"},
  {"torch.meshgrid", {"torch.functional.meshgrid"},
   "(Tensor[] *tensors, str? indexing=None)", "meshgrid"},
  // Three-operand pointwise ops and more binary math.
  {"torch.lerp", {"Tensor.lerp"},
   "(Tensor input, Tensor end, Tensor|Scalar weight)", "lerp"},
  {"torch.addcmul", {"Tensor.addcmul"},
   "(Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1)",
   "addcmul"},
  {"torch.addcdiv", {"Tensor.addcdiv"},
   "(Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1)",
   "addcdiv"},
  {"torch.xlogy", {"Tensor.xlogy", "torch.special.xlogy"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "floatPointwise"},
  {"torch.hypot", {"Tensor.hypot"}, "(Tensor input, Tensor other)",
   "floatPointwise"},
  {"torch.logaddexp", {"Tensor.logaddexp"}, "(Tensor input, Tensor other)",
   "floatPointwise"},
  {"torch.logaddexp2", {"Tensor.logaddexp2"}, "(Tensor input, Tensor other)",
   "floatPointwise"},
  {"torch.ldexp", {"Tensor.ldexp"},
   "(Tensor input, Tensor other)", "ldexp"},
  {"torch.copysign", {"Tensor.copysign"},
   "(Tensor input, Tensor|Scalar other)", "floatPointwise"},
  {"torch.float_power", {"Tensor.float_power"},
   "(Tensor|Scalar input, Tensor|Scalar exponent)", "floatPower"},
  {"torch.rsub", {}, "(Tensor input, Tensor|Scalar other, *, Scalar alpha=1)",
   "rsub"},
  {"torch.nan_to_num", {"Tensor.nan_to_num"},
   "(Tensor input, float? nan=0.0, float? posinf=None, float? neginf=None)",
   "sameAsInput"},
  {"torch.logit", {"Tensor.logit", "torch.special.logit"},
   "(Tensor input, float? eps=None)", "floatUnary"},
  {"torch.sinc", {"Tensor.sinc", "torch.special.sinc"}, "(Tensor input)",
   "floatUnary"},
  {"torch.deg2rad", {"Tensor.deg2rad"}, "(Tensor input)", "floatUnary"},
  // A real tensor's angle: pi where it is negative, else 0 (NaN stays).
  {"torch.angle", {"Tensor.angle"}, "(Tensor input)", "floatUnary"},
  {"torch.positive", {"Tensor.positive"}, "(Tensor input)", "positive"},
  {"torch.rad2deg", {"Tensor.rad2deg"}, "(Tensor input)", "floatUnary"},
  {"torch.heaviside", {"Tensor.heaviside"}, "(Tensor input, Tensor values)",
   "heaviside"},
  {"torch.isposinf", {"Tensor.isposinf"}, "(Tensor input)", "predicate"},
  {"torch.isneginf", {"Tensor.isneginf"}, "(Tensor input)", "predicate"},
  {"torch.signbit", {"Tensor.signbit"}, "(Tensor input)", "predicate"},
  // clamp with one bound: the bound comes first, the other is None.
  {"torch.clamp_min", {"Tensor.clamp_min"},
   "(Tensor input, Tensor|Scalar min)", "clamp"},
  {"torch.clamp_max", {"Tensor.clamp_max"},
   "(Tensor input, Tensor|Scalar max)", "clamp"},
  {"torch.numel", {"Tensor.numel", "Tensor.nelement"}, "(Tensor input)", "numel"},
  {"Tensor.view_as", {}, "(Tensor input, Tensor other)", "shapeAs"},
  {"Tensor.reshape_as", {}, "(Tensor input, Tensor other)", "shapeAs"},
  {"Tensor.resize_", {}, "(Tensor input, int[] *size, *, Any memory_format=None)",
   "resize"},
  {"torch.resize_as_", {"Tensor.resize_as_"},
   "(Tensor input, Tensor the_template, *, Any memory_format=None)", "resize"},
  {"Tensor.expand_as", {}, "(Tensor input, Tensor other)", "shapeAs"},
  {"torch.atan2", {"torch.arctan2", "Tensor.atan2", "Tensor.arctan2"},
   "(Tensor input, Tensor other)", "floatBinary"},
  // Integer-preserving math.
  {"torch.sign", {"Tensor.sign", "torch.sgn", "Tensor.sgn"},
   "(Tensor input)", "sameAsInput"},
  {"torch.floor", {"Tensor.floor"},
   "(Tensor input)", "sameAsInput"},
  {"torch.ceil", {"Tensor.ceil"},
   "(Tensor input)", "sameAsInput"},
  {"torch.trunc", {"Tensor.trunc", "torch.fix", "Tensor.fix"},
   "(Tensor input)", "sameAsInput"},
  {"torch.round", {"Tensor.round"},
   "(Tensor input, *, int decimals=0)", "sameAsInput"},
  {"torch.frac", {"Tensor.frac"},
   "(Tensor input)", "sameAsInput"},
  {"torch.square", {"Tensor.square"},
   "(Tensor input)", "square"},
  // Predicates.
  {"torch.isnan", {"Tensor.isnan"},
   "(Tensor input)", "predicate"},
  {"torch.isinf", {"Tensor.isinf"},
   "(Tensor input)", "predicate"},
  {"torch.isfinite", {"Tensor.isfinite"},
   "(Tensor input)", "predicate"},
  // Comparisons (bool results).
  {"torch.eq", {"Tensor.eq", "Tensor.__eq__", "operator.eq"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "comparison"},
  {"torch.ne", {"torch.not_equal", "Tensor.ne", "Tensor.not_equal", "Tensor.__ne__", "operator.ne"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "comparison"},
  {"torch.lt", {"torch.less", "Tensor.lt", "Tensor.less", "Tensor.__lt__", "operator.lt"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "comparison"},
  {"torch.le", {"torch.less_equal", "Tensor.le", "Tensor.less_equal", "Tensor.__le__", "operator.le"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "comparison"},
  {"torch.gt", {"torch.greater", "Tensor.gt", "Tensor.greater", "Tensor.__gt__", "operator.gt"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "comparison"},
  {"torch.ge", {"torch.greater_equal", "Tensor.ge", "Tensor.greater_equal", "Tensor.__ge__", "operator.ge"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "comparison"},
  // Logical and bitwise ops.
  {"torch.logical_and", {"Tensor.logical_and"},
   "(Tensor input, Tensor other)", "comparison"},
  {"torch.logical_or", {"Tensor.logical_or"},
   "(Tensor input, Tensor other)", "comparison"},
  {"torch.logical_xor", {"Tensor.logical_xor"},
   "(Tensor input, Tensor other)", "comparison"},
  {"torch.logical_not", {"Tensor.logical_not"},
   "(Tensor input)", "predicate"},
  {"torch.bitwise_and", {"Tensor.bitwise_and", "Tensor.__and__", "Tensor.__rand__", "operator.and_"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "bitwise"},
  {"torch.bitwise_or", {"Tensor.bitwise_or", "Tensor.__or__", "Tensor.__ror__", "operator.or_"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "bitwise"},
  {"torch.bitwise_xor", {"Tensor.bitwise_xor", "Tensor.__xor__", "Tensor.__rxor__", "operator.xor"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "bitwise"},
  {"torch.bitwise_left_shift", {"Tensor.bitwise_left_shift", "Tensor.__lshift__", "operator.lshift"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "bitwise"},
  {"torch.bitwise_right_shift", {"Tensor.bitwise_right_shift", "Tensor.__rshift__", "operator.rshift"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "bitwise"},
  {"torch.bitwise_not", {"Tensor.bitwise_not", "Tensor.__invert__", "operator.invert", "operator.inv"},
   "(Tensor input)", "sameAsInput"},
  // Selection.
  {"torch.maximum", {"Tensor.maximum"},
   "(Tensor input, Tensor other)", "arithmetic"},
  {"torch.minimum", {"Tensor.minimum"},
   "(Tensor input, Tensor other)", "arithmetic"},
  {"torch.fmax", {"Tensor.fmax"},
   "(Tensor input, Tensor other)", "arithmetic"},
  {"torch.fmin", {"Tensor.fmin"},
   "(Tensor input, Tensor other)", "arithmetic"},
  {"torch.where", {},
   "(Tensor condition, Tensor|Scalar input, Tensor|Scalar other)", "where"},
  // x.where(condition, y): the same, its receiver the values where true.
  {"Tensor.where", {},
   "(Tensor input, Tensor condition, Tensor|Scalar other)", "where"},
  {"torch.masked_scatter", {"Tensor.masked_scatter"},
   "(Tensor input, Tensor mask, Tensor source)", "maskedScatter"},
  {"Tensor.masked_fill", {"torch.masked_fill"},
   "(Tensor input, Tensor mask, Tensor|Scalar value)", "maskedFill"},

  // Broadcasting arithmetic (tensors and Python numbers).
  {"torch.add",
   {"Tensor.add", "Tensor.__add__", "Tensor.__radd__", "operator.add",
    "F.add", "megengine.functional.add"},
   "(Tensor|Scalar input, Tensor|Scalar other, *, Scalar alpha=1)",
   "arithmetic"},
  {"torch.sub",
   {"torch.subtract", "Tensor.sub", "Tensor.__sub__", "operator.sub", "F.sub",
    "megengine.functional.sub"},
   "(Tensor|Scalar input, Tensor|Scalar other, *, Scalar alpha=1)",
   "arithmetic"},
  {"Tensor.__rsub__", {}, "(Tensor input, Tensor|Scalar other)", "arithmetic"},
  {"torch.mul",
   {"torch.multiply", "Tensor.mul", "Tensor.__mul__", "Tensor.__rmul__",
    "operator.mul", "F.mul", "megengine.functional.mul"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "arithmetic"},
  {"torch.div",
   {"torch.divide", "torch.true_divide", "Tensor.div", "Tensor.__truediv__",
    "operator.truediv", "F.div", "megengine.functional.div"},
   "(Tensor|Scalar input, Tensor|Scalar other, *, str? rounding_mode=None)",
   "trueDivide"},
  {"Tensor.__rtruediv__", {"Tensor.__rdiv__"}, "(Tensor input, Tensor|Scalar other)",
   "trueDivide"},
  {"torch.floor_divide",
   {"Tensor.floor_divide", "Tensor.__floordiv__", "operator.floordiv",
    "F.floor_div"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "arithmetic"},
  {"torch.pow",
   {"Tensor.pow", "Tensor.__pow__", "operator.pow", "F.pow"},
   "(Tensor|Scalar input, Tensor|Scalar exponent)", "power"},
  {"Tensor.__rfloordiv__", {}, "(Tensor input, Tensor|Scalar other)",
   "arithmetic"},
  {"Tensor.__rpow__", {}, "(Tensor input, Tensor|Scalar other)", "arithmetic"},
  {"Tensor.__rmod__", {}, "(Tensor input, Tensor|Scalar other)", "arithmetic"},
  {"torch.remainder",
   {"Tensor.remainder", "Tensor.__mod__", "operator.mod"},
   "(Tensor|Scalar input, Tensor|Scalar other)", "arithmetic"},
  {"torch.fmod", {"Tensor.fmod"}, "(Tensor input, Tensor|Scalar other)",
   "arithmetic"},

  // Contractions.
  // The convolution family: one rule and one kernel, both reading the
  // arguments through decodeConv. `padding` is ints or "same"/"valid".
  // The keyword-only `padding_mode` is nn.Conv*d's attribute (torch's
  // functional lacks it: the module pads with F.pad first); conv_transpose's keyword-only `output_size` is
  // nn.ConvTranspose*d's forward argument (torch's functional lacks it).
  {"torch.nn.functional.conv1d",
   {"torch.conv1d", "F.conv1d", "nn.conv1d", "megengine.functional.nn.conv1d"},
   "(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
   "int[1]|str padding=0, int[1] dilation=1, int groups=1, *, "
   "str padding_mode=\"zeros\")", "conv"},
  {"torch.nn.functional.conv2d",
   {"torch.conv2d", "F.conv2d", "nn.conv2d", "megengine.functional.nn.conv2d"},
   "(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
   "int[2]|str padding=0, int[2] dilation=1, int groups=1, *, "
   "str padding_mode=\"zeros\")", "conv"},
  {"torch.nn.functional.conv3d",
   {"torch.conv3d"},
   "(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, "
   "int[3]|str padding=0, int[3] dilation=1, int groups=1, *, "
   "str padding_mode=\"zeros\")", "conv"},
  {"torch.nn.functional.conv_transpose1d",
   {"torch.conv_transpose1d"},
   "(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
   "int[1] padding=0, int[1] output_padding=0, int groups=1, "
   "int[1] dilation=1, *, int[]? output_size=None)", "conv"},
  {"torch.nn.functional.conv_transpose2d",
   {"torch.conv_transpose2d"},
   "(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
   "int[2] padding=0, int[2] output_padding=0, int groups=1, "
   "int[2] dilation=1, *, int[]? output_size=None)", "conv"},
  {"torch.nn.functional.conv_transpose3d",
   {"torch.conv_transpose3d"},
   "(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, "
   "int[3] padding=0, int[3] output_padding=0, int groups=1, "
   "int[3] dilation=1, *, int[]? output_size=None)", "conv"},
  {"torch.convolution", {},
   "(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
   "int[] dilation, bool transposed, int[] output_padding, int groups)",
   "conv"},
  {"torch.ops.aten.convolution_backward.default",
   {"torch.ops.aten.convolution_backward"},
   "(Tensor grad_output, Tensor input, Tensor weight, int[]? bias_sizes, "
   "int[] stride, int[] padding, int[] dilation, bool transposed, "
   "int[] output_padding, int groups, bool[3] output_mask)",
   "convolutionBackward"},
  {"torch.conv_tbc", {},
   "(Tensor input, Tensor weight, Tensor bias, int pad=0)", "convTbc"},
  {"torch.nn.functional.linear",
   {"torch._C._nn.linear", "F.linear", "nn.linear",
    "megengine.functional.nn.linear"},
   "(Tensor input, Tensor weight, Tensor? bias=None)", "linear"},
  {"torch.matmul",
   {"Tensor.matmul", "Tensor.__matmul__", "operator.matmul", "F.matmul",
    "megengine.functional.matmul"},
   "(Tensor input, Tensor other)", "matmul"},
  {"torch.bmm", {"Tensor.bmm"}, "(Tensor input, Tensor mat2)", "bmm"},
  {"torch.mm", {"Tensor.mm"}, "(Tensor input, Tensor mat2)", "mm"},
  {"torch.baddbmm", {"Tensor.baddbmm"},
   "(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, "
   "Scalar alpha=1)", "baddbmm"},

  {"torch.einsum", {"torch.functional.einsum"},
   "(str equation, Tensor[] *operands)", "einsum"},
  {"torch.addmm", {"Tensor.addmm"},
   "(Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1)",
   "addmm"},
  {"torch.addmv", {"Tensor.addmv"},
   "(Tensor input, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1)",
   "addmv"},
  {"torch.mv", {"Tensor.mv"},
   "(Tensor input, Tensor vec)",
   "vectorProduct"},
  {"torch.dot", {"Tensor.dot"},
   "(Tensor input, Tensor other)",
   "vectorProduct"},
  {"torch.outer", {"Tensor.outer", "torch.ger", "Tensor.ger"},
   "(Tensor input, Tensor vec2)",
   "vectorProduct"},
  // Products that are formulas of other products.
  {"Tensor.__rmatmul__", {}, "(Tensor input, Tensor other)", "rmatmul"},
  {"torch.addr", {"Tensor.addr"},
   "(Tensor input, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1)",
   "addr"},
  {"torch.inner", {"Tensor.inner"}, "(Tensor input, Tensor other)", "inner"},
  {"torch.kron", {"Tensor.kron"}, "(Tensor input, Tensor other)", "kron"},
  {"torch.tensordot", {"torch.functional.tensordot"},
   "(Tensor a, Tensor b, Any dims=2, Any out=None)", "tensordot"},
  {"torch.linalg.vecdot", {}, "(Tensor x, Tensor y, *, int dim=-1)",
   "vecdot"},
  {"torch.linalg.multi_dot", {}, "(Tensor[] tensors)", "multiDot"},
  {"torch.linalg.matrix_power", {"torch.matrix_power", "Tensor.matrix_power"},
   "(Tensor input, int n)", "matrixPower"},
  {"torch.dist", {"Tensor.dist"},
   "(Tensor input, Tensor other, Scalar p=2)", "dist"},

  // Multi-head attention as one call: what a hook-based tracer that records
  // only the outermost call sees inside nn.MultiheadAttention.
  {"torch.nn.functional.multi_head_attention_forward", {},
   "(Tensor query, Tensor key, Tensor value, int embed_dim_to_check, "
   "int num_heads, Tensor? in_proj_weight, Tensor? in_proj_bias, "
   "Tensor? bias_k, Tensor? bias_v, bool add_zero_attn, float dropout_p, "
   "Tensor out_proj_weight, Tensor? out_proj_bias, bool training=True, "
   "Tensor? key_padding_mask=None, bool need_weights=True, "
   "Tensor? attn_mask=None, bool use_separate_proj_weight=False, "
   "Tensor? q_proj_weight=None, Tensor? k_proj_weight=None, "
   "Tensor? v_proj_weight=None, Tensor? static_k=None, "
   "Tensor? static_v=None, bool average_attn_weights=True)",
   "multiHeadAttention"},

  // Recurrent networks as their leaf modules compute them (nn.RNN, nn.LSTM,
  // nn.GRU and the cells): torch has no functional of this meaning, so the
  // entries are named traced.nn.*. `params` are the module's parameters in
  // declaration order (torch's _flat_weights); `hx` is None, a tensor or,
  // for LSTM, the tuple (h0, c0). The results are the module's: (output,
  // h_n), (output, (h_n, c_n)) for LSTM; h, or (h, c) for LSTMCell.
  {"traced.nn.rnn", {},
   "(Tensor input, Any hx, Tensor[] params, str mode, int input_size, "
   "int hidden_size, int num_layers=1, bool bias=True, "
   "bool batch_first=False, float dropout=0.0, bool training=False, "
   "bool bidirectional=False, int proj_size=0)",
   "recurrent"},
  {"traced.nn.rnn_cell", {},
   "(Tensor input, Any hx, Tensor[] params, str mode, int input_size, "
   "int hidden_size, bool bias=True)",
   "recurrentCell"},

  // Normalization.
  {"torch.nn.functional.batch_norm",
   {"F.batch_norm", "nn.batch_norm", "megengine.functional.nn.batch_norm"},
   "(Tensor input, Tensor? running_mean, Tensor? running_var, "
   "Tensor? weight=None, Tensor? bias=None, bool training=False, "
   "float? momentum=0.1, float eps=1e-05)", "batchNorm"},
  {"torch.nn.functional.layer_norm",
   {"F.layer_norm", "nn.layer_norm", "torch.layer_norm"},
   "(Tensor input, int[1] normalized_shape, Tensor? weight=None, "
   "Tensor? bias=None, float eps=1e-05)", "layerNorm"},
  {"torch.nn.functional.dropout",
   {"F.dropout", "nn.dropout"},
   "(Tensor input, float p=0.5, bool training=True, bool inplace=False)",
   "sameAsInput"},
  // torchvision's stochastic depth (EfficientNet, ConvNeXt): the identity
  // in eval mode.
  {"torchvision.ops.stochastic_depth.stochastic_depth",
   {"torchvision.ops.stochastic_depth"},
   "(Tensor input, float p, str mode, bool training=True)", "sameAsInput"},
  {"torch.dropout", {"Tensor.dropout"},
   "(Tensor input, float p, bool train)", "sameAsInput"},
  // aten::native_dropout: (output, keep mask); deterministic in eval mode
  // and with p = 0.
  {"torch.ops.aten.native_dropout.default",
   {"torch.ops.aten.native_dropout", "torch.native_dropout"},
   "(Tensor input, float p, bool? train)", "nativeDropout"},
  // Channel-wise and alpha dropout: the identity in eval mode too.
  {"torch.nn.functional.dropout1d", {"F.dropout1d"},
   "(Tensor input, float p=0.5, bool training=True, bool inplace=False)",
   "sameAsInput"},
  {"torch.nn.functional.dropout2d", {"F.dropout2d"},
   "(Tensor input, float p=0.5, bool training=True, bool inplace=False)",
   "sameAsInput"},
  {"torch.nn.functional.dropout3d", {"F.dropout3d"},
   "(Tensor input, float p=0.5, bool training=True, bool inplace=False)",
   "sameAsInput"},
  {"torch.nn.functional.alpha_dropout", {"F.alpha_dropout"},
   "(Tensor input, float p=0.5, bool training=False, bool inplace=False)",
   "sameAsInput"},
  {"torch.nn.functional.feature_alpha_dropout", {"F.feature_alpha_dropout"},
   "(Tensor input, float p=0.5, bool training=False, bool inplace=False)",
   "sameAsInput"},

  // Pooling. Max pooling over N dims, and its *_with_indices twins (what
  // F.max_poolNd(return_indices=True) calls, and the ATen ops), which
  // always return (values, indices).
  {"torch.nn.functional.max_pool1d",
   {"torch.max_pool1d", "F.max_pool1d", "nn.max_pool1d"},
   "(Tensor input, int[1] kernel_size, int[1]? stride=None, "
   "int[1] padding=0, int[1] dilation=1, bool ceil_mode=False, "
   "bool return_indices=False)", "maxPool1d"},
  // Max unpooling: the ATen ops take the output size; the functionals
  // compute it from the window (decodeUnpool).
  {"torch.ops.aten.max_unpool2d.default",
   {"torch.ops.aten.max_unpool2d", "torch._C._nn.max_unpool2d"},
   "(Tensor input, Tensor indices, int[2] output_size)", "maxUnpool"},
  {"torch.ops.aten.max_unpool3d.default",
   {"torch.ops.aten.max_unpool3d", "torch._C._nn.max_unpool3d"},
   "(Tensor input, Tensor indices, int[3] output_size, int[3] stride, "
   "int[3] padding)", "maxUnpool"},
  {"torch.nn.functional.max_unpool1d", {"F.max_unpool1d"},
   "(Tensor input, Tensor indices, int[1] kernel_size, int[1]? stride=None, "
   "int[1] padding=0, int[]? output_size=None)", "maxUnpool"},
  {"torch.nn.functional.max_unpool2d", {"F.max_unpool2d"},
   "(Tensor input, Tensor indices, int[2] kernel_size, int[2]? stride=None, "
   "int[2] padding=0, int[]? output_size=None)", "maxUnpool"},
  {"torch.nn.functional.max_unpool3d", {"F.max_unpool3d"},
   "(Tensor input, Tensor indices, int[3] kernel_size, int[3]? stride=None, "
   "int[3] padding=0, int[]? output_size=None)", "maxUnpool"},
  {"torch.nn.functional.max_pool2d",
   {"torch.max_pool2d", "F.max_pool2d", "nn.max_pool2d"},
   "(Tensor input, int[2] kernel_size, int[2]? stride=None, "
   "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, "
   "bool return_indices=False)", "maxPool2d"},
  {"torch.nn.functional.max_pool3d",
   {"torch.max_pool3d", "F.max_pool3d", "nn.max_pool3d"},
   "(Tensor input, int[3] kernel_size, int[3]? stride=None, "
   "int[3] padding=0, int[3] dilation=1, bool ceil_mode=False, "
   "bool return_indices=False)", "maxPool3d"},
  {"torch.nn.functional.max_pool1d_with_indices",
   {"torch.max_pool1d_with_indices", "F.max_pool1d_with_indices"},
   "(Tensor input, int[1] kernel_size, int[1]? stride=None, "
   "int[1] padding=0, int[1] dilation=1, bool ceil_mode=False, "
   "bool return_indices=False)",
   "maxPool1dWithIndices"},
  {"torch.nn.functional.max_pool2d_with_indices",
   {"torch._C._nn.max_pool2d_with_indices", "F.max_pool2d_with_indices"},
   "(Tensor input, int[2] kernel_size, int[2]? stride=None, "
   "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, "
   "bool return_indices=False)",
   "maxPool2dWithIndices"},
  {"torch.nn.functional.max_pool3d_with_indices",
   {"torch._C._nn.max_pool3d_with_indices", "F.max_pool3d_with_indices"},
   "(Tensor input, int[3] kernel_size, int[3]? stride=None, "
   "int[3] padding=0, int[3] dilation=1, bool ceil_mode=False, "
   "bool return_indices=False)",
   "maxPool3dWithIndices"},
  {"torch.nn.functional.avg_pool1d",
   {"torch.avg_pool1d", "F.avg_pool1d", "nn.avg_pool1d"},
   "(Tensor input, int[1] kernel_size, int[1]? stride=None, "
   "int[1] padding=0, bool ceil_mode=False, bool count_include_pad=True)",
   "avgPool1d"},
  {"torch.nn.functional.avg_pool2d",
   {"torch._C._nn.avg_pool2d", "F.avg_pool2d", "nn.avg_pool2d"},
   "(Tensor input, int[2] kernel_size, int[2]? stride=None, "
   "int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, "
   "int? divisor_override=None)", "avgPool2d"},
  {"torch.nn.functional.avg_pool3d",
   {"torch._C._nn.avg_pool3d", "F.avg_pool3d", "nn.avg_pool3d"},
   "(Tensor input, int[3] kernel_size, int[3]? stride=None, "
   "int[3] padding=0, bool ceil_mode=False, bool count_include_pad=True, "
   "int? divisor_override=None)", "avgPool3d"},
  {"torch.nn.functional.adaptive_avg_pool1d",
   {"torch.adaptive_avg_pool1d", "F.adaptive_avg_pool1d",
    "nn.adaptive_avg_pool1d"},
   "(Tensor input, Any output_size)", "adaptiveAvgPool1d"},
  {"torch.nn.functional.adaptive_avg_pool2d",
   {"torch._C._nn.adaptive_avg_pool2d", "F.adaptive_avg_pool2d",
    "nn.adaptive_avg_pool2d"},
   "(Tensor input, Any output_size)", "adaptiveAvgPool2d"},
  {"torch.nn.functional.adaptive_avg_pool3d",
   {"torch._C._nn.adaptive_avg_pool3d", "F.adaptive_avg_pool3d",
    "nn.adaptive_avg_pool3d"},
   "(Tensor input, Any output_size)", "adaptiveAvgPool3d"},
  {"torch.nn.functional.adaptive_max_pool1d",
   {"F.adaptive_max_pool1d", "nn.adaptive_max_pool1d"},
   "(Tensor input, Any output_size, bool return_indices=False)",
   "adaptiveMaxPool1d"},
  {"torch.nn.functional.adaptive_max_pool2d",
   {"F.adaptive_max_pool2d", "nn.adaptive_max_pool2d"},
   "(Tensor input, Any output_size, bool return_indices=False)",
   "adaptiveMaxPool2d"},
  {"torch.nn.functional.adaptive_max_pool3d",
   {"F.adaptive_max_pool3d", "nn.adaptive_max_pool3d"},
   "(Tensor input, Any output_size, bool return_indices=False)",
   "adaptiveMaxPool3d"},
  // torch.adaptive_max_pool1d and torch._C._nn.adaptive_max_pool2d/3d (and
  // the ATen ops) always return (values, indices).
  {"torch.nn.functional.adaptive_max_pool1d_with_indices",
   {"torch.adaptive_max_pool1d", "F.adaptive_max_pool1d_with_indices"},
   "(Tensor input, Any output_size, bool return_indices=False)",
   "adaptiveMaxPool1dWithIndices"},
  {"torch.nn.functional.adaptive_max_pool2d_with_indices",
   {"torch._C._nn.adaptive_max_pool2d", "F.adaptive_max_pool2d_with_indices"},
   "(Tensor input, Any output_size, bool return_indices=False)",
   "adaptiveMaxPool2dWithIndices"},
  {"torch.nn.functional.adaptive_max_pool3d_with_indices",
   {"torch._C._nn.adaptive_max_pool3d", "F.adaptive_max_pool3d_with_indices"},
   "(Tensor input, Any output_size, bool return_indices=False)",
   "adaptiveMaxPool3dWithIndices"},
  {"torch.nn.functional.lp_pool1d", {"F.lp_pool1d", "nn.lp_pool1d"},
   "(Tensor input, float norm_type, int[1] kernel_size, int[1]? stride=None, "
   "bool ceil_mode=False)", "lpPool1d"},
  {"torch.nn.functional.lp_pool2d", {"F.lp_pool2d", "nn.lp_pool2d"},
   "(Tensor input, float norm_type, int[2] kernel_size, int[2]? stride=None, "
   "bool ceil_mode=False)", "lpPool2d"},

  // ATen's nearest upsampling with both an output size and the scales
  // its source indices use (F.interpolate never gives both).
  {"torch.ops.aten.upsample_nearest1d.default",
   {"torch._C._nn.upsample_nearest1d"},
   "(Tensor input, int[1] output_size, float? scales=None)", "upsampleNearest"},
  {"torch.ops.aten.upsample_nearest2d.default",
   {"torch._C._nn.upsample_nearest2d"},
   "(Tensor input, int[2] output_size, float? scales_h=None, float? scales_w=None)",
   "upsampleNearest"},
  {"torch.ops.aten.upsample_nearest3d.default",
   {"torch._C._nn.upsample_nearest3d"},
   "(Tensor input, int[3] output_size, float? scales_d=None, float? scales_h=None, float? scales_w=None)",
   "upsampleNearest"},
  // Their gradients: each input position sums the output positions that
  // read it (nearest_idx, with its equal-size and double-size cases).
  {"torch.ops.aten.upsample_nearest1d_backward.default",
   {"torch.ops.aten.upsample_nearest1d_backward"},
   "(Tensor grad_output, int[1] output_size, int[3] input_size, float? scales=None)",
   "upsampleNearestBackward"},
  {"torch.ops.aten.upsample_nearest2d_backward.default",
   {"torch.ops.aten.upsample_nearest2d_backward"},
   "(Tensor grad_output, int[2] output_size, int[4] input_size, "
   "float? scales_h=None, float? scales_w=None)",
   "upsampleNearestBackward"},
  {"torch.ops.aten.upsample_nearest3d_backward.default",
   {"torch.ops.aten.upsample_nearest3d_backward"},
   "(Tensor grad_output, int[3] output_size, int[5] input_size, "
   "float? scales_d=None, float? scales_h=None, float? scales_w=None)",
   "upsampleNearestBackward"},
  {"torch.nn.functional.interpolate",
   {"F.interpolate", "torch.nn.functional.upsample", "nn.interpolate",
    "megengine.functional.nn.interpolate"},
   "(Tensor input, Any size=None, Any scale_factor=None, "
   "str mode=\"nearest\", bool? align_corners=None, "
   "bool? recompute_scale_factor=None, bool antialias=False)",
   "interpolate"},

  // Reductions.
  {"torch.mean", {"Tensor.mean", "F.mean"},
   "(Tensor input, int[1]? dim=None, bool keepdim=False, *, "
   "dtype? dtype=None)", "reduce"},
  {"torch.sum", {"Tensor.sum", "F.sum"},
   "(Tensor input, int[1]? dim=None, bool keepdim=False, *, "
   "dtype? dtype=None)", "sum"},
  // NaN counts as 0; nanmean divides by the count of the others.
  {"torch.nansum", {"Tensor.nansum"},
   "(Tensor input, int[1]? dim=None, bool keepdim=False, *, "
   "dtype? dtype=None)", "sum"},
  {"torch.nanmean", {"Tensor.nanmean"},
   "(Tensor input, int[1]? dim=None, bool keepdim=False, *, "
   "dtype? dtype=None)", "reduce"},

  {"torch.aminmax", {"Tensor.aminmax"},
   "(Tensor input, *, int? dim=None, bool keepdim=False)", "aminmax"},
  {"torch.amax", {"Tensor.amax"},
   "(Tensor input, int[1] dim=[], bool keepdim=False)",
   "amaxAmin"},
  {"torch.amin", {"Tensor.amin"},
   "(Tensor input, int[1] dim=[], bool keepdim=False)",
   "amaxAmin"},
  {"torch.argmax", {"Tensor.argmax"},
   "(Tensor input, int? dim=None, bool keepdim=False)",
   "argExtreme"},
  {"torch.argmin", {"Tensor.argmin"},
   "(Tensor input, int? dim=None, bool keepdim=False)",
   "argExtreme"},
  {"torch.max", {"Tensor.max"},
   "(Tensor input, Any dim=None, bool keepdim=False)",
   "maxMin"},
  {"torch.min", {"Tensor.min"},
   "(Tensor input, Any dim=None, bool keepdim=False)",
   "maxMin"},
  {"torch.all", {"Tensor.all"},
   "(Tensor input, int? dim=None, bool keepdim=False)",
   "allAny"},
  {"torch.any", {"Tensor.any"},
   "(Tensor input, int? dim=None, bool keepdim=False)",
   "allAny"},
  {"torch.prod", {"Tensor.prod"},
   "(Tensor input, int? dim=None, bool keepdim=False, *, dtype? dtype=None)",
   "prod"},
  {"torch.var", {"Tensor.var"},
   "(Tensor input, Any dim=None, bool? unbiased=None, bool keepdim=False, *, int? correction=None)",
   "moments"},
  {"torch.std", {"Tensor.std"},
   "(Tensor input, Any dim=None, bool? unbiased=None, bool keepdim=False, *, int? correction=None)",
   "moments"},
  {"torch.var_mean", {},
   "(Tensor input, Any dim=None, bool? unbiased=None, bool keepdim=False, *, int? correction=None)",
   "momentsWithMean"},
  {"torch.std_mean", {},
   "(Tensor input, Any dim=None, bool? unbiased=None, bool keepdim=False, *, int? correction=None)",
   "momentsWithMean"},
  {"torch.logsumexp", {"Tensor.logsumexp", "torch.special.logsumexp"},
   "(Tensor input, int[1] dim, bool keepdim=False)",
   "logsumexp"},
  {"torch.cummax", {"Tensor.cummax"}, "(Tensor input, int dim)",
   "cumulativeExtreme"},
  {"torch.cummin", {"Tensor.cummin"}, "(Tensor input, int dim)",
   "cumulativeExtreme"},
  // The lower median (of the other elements for nanmedian); a dim gives
  // (values, indices).
  {"torch.median", {"Tensor.median"},
   "(Tensor input, int? dim=None, bool keepdim=False)", "maxMin"},
  {"torch.nanmedian", {"Tensor.nanmedian"},
   "(Tensor input, int? dim=None, bool keepdim=False)", "maxMin"},
  // The q-th quantiles along dim (None: of every element), interpolated
  // between the sorted elements' ranks; nanquantile of the non-NaN ones.
  {"torch.quantile", {"Tensor.quantile"},
   "(Tensor input, Tensor|Scalar q, int? dim=None, bool keepdim=False, *, str interpolation=\"linear\")",
   "quantile"},
  {"torch.nanquantile", {"Tensor.nanquantile"},
   "(Tensor input, Tensor|Scalar q, int? dim=None, bool keepdim=False, *, str interpolation=\"linear\")",
   "quantile"},
  // The most frequent value along dim (the smallest of the most frequent
  // ones) and an index of it, as torch's CPU kernel picks them.
  {"torch.mode", {"Tensor.mode"}, "(Tensor input, int dim=-1, bool keepdim=False)", "mode"},
  // Counts of equal bins between min and max (equal: the data's range);
  // histogram also takes the edges as a tensor, and weights.
  {"torch.histc", {"Tensor.histc"}, "(Tensor input, int bins=100, Scalar min=0, Scalar max=0)",
   "histc"},
  {"torch.histogram", {"Tensor.histogram"},
   "(Tensor input, Tensor|Scalar bins=100, *, float[2]? range=None, Tensor? weight=None, bool density=False)",
   "histogram"},
  // Reductions of consecutive segments along axis, by their lengths or
  // offsets (empty ones give `initial`, else the reduction's identity).
  {"torch.segment_reduce", {},
   "(Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None, Tensor? offsets=None, int axis=0, bool unsafe=False, Scalar? initial=None)",
   "segmentReduce"},
  // The slices of source reduced into the input's slices that the index
  // names (prod, mean, amax, amin), the input's own counted unless
  // include_self=False.
  {"torch.index_reduce", {"Tensor.index_reduce"},
   "(Tensor input, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True)",
   "indexReduce"},
  {"torch.cumsum", {"Tensor.cumsum"},
   "(Tensor input, int dim, *, dtype? dtype=None)",
   "scan"},
  {"torch.cumprod", {"Tensor.cumprod"},
   "(Tensor input, int dim, *, dtype? dtype=None)",
   "scan"},
  // The trapezoid rule along dim, over sample points x or a spacing dx
  // (torch's two overloads in one).
  {"torch.trapezoid", {"torch.trapz"},
   "(Tensor y, Tensor? x=None, *, Scalar? dx=None, int dim=-1)", "trapezoid"},
  {"torch.cumulative_trapezoid", {},
   "(Tensor y, Tensor? x=None, *, Scalar? dx=None, int dim=-1)", "trapezoid"},
  {"torch.linalg.vander", {}, "(Tensor x, *, int? N=None)", "vander"},
  // The covariance of the rows (variables) over the columns
  // (observations), as torch composes it; no weights here.
  {"torch.cov", {"Tensor.cov"},
   "(Tensor input, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None)",
   "covariance"},
  {"torch.corrcoef", {"Tensor.corrcoef"}, "(Tensor input)", "covariance"},

  // Casts (devices are the CPU's).
  {"Tensor.to", {},
   "(Tensor input, Any a=None, Any b=None, bool non_blocking=False, "
   "bool copy=False, *, dtype? dtype=None, Any device=None, "
   "Any memory_format=None)", "to"},
  {"Tensor.type_as", {}, "(Tensor input, Tensor other)", "typeAs"},
  {"Tensor.float", {}, "(Tensor input, Any memory_format=None)",
   "castTo<DType::F32>"},
  {"Tensor.double", {}, "(Tensor input, Any memory_format=None)",
   "castTo<DType::F64>"},
  {"Tensor.half", {}, "(Tensor input, Any memory_format=None)",
   "castTo<DType::F16>"},
  {"Tensor.bfloat16", {}, "(Tensor input, Any memory_format=None)",
   "castTo<DType::BF16>"},
  {"Tensor.long", {}, "(Tensor input, Any memory_format=None)",
   "castTo<DType::I64>"},
  {"Tensor.int", {}, "(Tensor input, Any memory_format=None)",
   "castTo<DType::I32>"},
  {"Tensor.short", {}, "(Tensor input, Any memory_format=None)",
   "castTo<DType::I16>"},
  {"Tensor.char", {}, "(Tensor input, Any memory_format=None)",
   "castTo<DType::I8>"},
  {"Tensor.byte", {}, "(Tensor input, Any memory_format=None)",
   "castTo<DType::U8>"},
  {"Tensor.bool", {}, "(Tensor input, Any memory_format=None)",
   "castTo<DType::Bool>"},

  // Indexing with tensors, and shape ops that copy.
  {"torch.index_select", {"Tensor.index_select"},
   "(Tensor input, int dim, Tensor index)",
   "indexSelect"},
  {"torch.gather", {"Tensor.gather"},
   "(Tensor input, int dim, Tensor index, *, bool sparse_grad=False)",
   "gather"},
  // Data-dependent sizes: a traced call declares its trace's; the
  // interpreter and compiled code check that an input gives the same.
  {"torch.nonzero", {"Tensor.nonzero"},
   "(Tensor input, *, bool as_tuple=False)", "nonzero"},
  {"torch.argwhere", {"Tensor.argwhere"}, "(Tensor input)", "nonzero"},
  {"torch.masked_select", {"Tensor.masked_select"},
   "(Tensor input, Tensor mask)", "maskedSelect"},
  {"torch.functional.unique_consecutive",
   {"torch.unique_consecutive", "Tensor.unique_consecutive"},
   "(Tensor input, bool return_inverse=False, bool return_counts=False, int? dim=None)",
   "uniqueConsecutive"},
  {"torch.bincount", {"Tensor.bincount"},
   "(Tensor input, Tensor? weights=None, int minlength=0)", "bincount"},
  {"torch.nn.functional.embedding", {"F.embedding", "torch.embedding"},
   "(Tensor input, Tensor weight, int? padding_idx=None, float? max_norm=None, float norm_type=2.0, bool scale_grad_by_freq=False, bool sparse=False)",
   "embedding"},
  // ATen-only ops that traces of lowered programs hold (aot_autograd,
  // torch.ops.aten code): their schema is their Python signature.
  {"torch.ops.aten.threshold_backward.default",
   {"torch.ops.aten.threshold_backward"},
   "(Tensor grad_output, Tensor input, Scalar threshold)", "thresholdGrad"},
  {"torch.ops.aten._softmax_backward_data.default",
   {"torch.ops.aten._softmax_backward_data"},
   "(Tensor grad_output, Tensor output, int dim, dtype input_dtype)",
   "softmaxBackwardData"},
  {"torch.ops.aten._log_softmax_backward_data.default",
   {"torch.ops.aten._log_softmax_backward_data"},
   "(Tensor grad_output, Tensor output, int dim, dtype input_dtype)",
   "softmaxBackwardData"},
  {"torch.ops.aten.tanh_backward.default", {"torch.ops.aten.tanh_backward"},
   "(Tensor grad_output, Tensor output)", "activationGrad"},
  {"torch.ops.aten.sigmoid_backward.default",
   {"torch.ops.aten.sigmoid_backward"},
   "(Tensor grad_output, Tensor output)", "activationGrad"},
  {"torch.ops.aten.leaky_relu_backward.default",
   {"torch.ops.aten.leaky_relu_backward"},
   "(Tensor grad_output, Tensor input, Scalar negative_slope, bool self_is_result)",
   "activationGrad"},
  {"torch.ops.aten.rrelu_with_noise_backward.default",
   {"torch.ops.aten.rrelu_with_noise_backward"},
   "(Tensor grad_output, Tensor input, Tensor noise, Scalar lower, "
   "Scalar upper, bool training, bool self_is_result)",
   "rreluNoiseGrad"},
  {"torch.ops.aten.hardtanh_backward.default",
   {"torch.ops.aten.hardtanh_backward"},
   "(Tensor grad_output, Tensor input, Scalar min_val, Scalar max_val)",
   "activationGrad"},
  {"torch.ops.aten.gelu_backward.default", {"torch.ops.aten.gelu_backward"},
   "(Tensor grad_output, Tensor input, *, str approximate=\"none\")",
   "geluGrad"},
  {"torch.ops.aten.softplus_backward.default",
   {"torch.ops.aten.softplus_backward"},
   "(Tensor grad_output, Tensor input, Scalar beta, Scalar threshold)",
   "activationGrad"},
  {"torch.ops.aten.elu_backward.default", {"torch.ops.aten.elu_backward"},
   "(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, bool is_result, Tensor self_or_result)",
   "activationGrad"},
  {"torch.ops.aten.slice.Tensor", {"torch.ops.aten.slice"},
   "(Tensor input, int dim=0, int? start=None, int? end=None, int step=1)",
   "atenSlice"},
  {"torch.ops.aten.index.Tensor", {"torch.ops.aten.index"},
   "(Tensor input, Any indices)", "atenIndex"},
  {"torch.ops.aten._trilinear.default", {"torch.ops.aten._trilinear"},
   "(Tensor i1, Tensor i2, Tensor i3, int[] expand1, int[] expand2, int[] expand3, int[] sumdim, int unroll_dim=1)",
   "trilinear"},
  {"torch.nn.functional.bilinear", {"F.bilinear", "torch.bilinear"},
   "(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None)",
   "bilinear"},
  {"torch.linalg.det", {"torch.det", "Tensor.det"}, "(Tensor input)",
   "squareMatrices"},
  {"torch.linalg.slogdet", {"torch.slogdet", "Tensor.slogdet"},
   "(Tensor input)", "squareMatrices"},
  {"torch.linalg.inv", {"torch.inverse", "Tensor.inverse"}, "(Tensor input)",
   "squareMatrices"},
  {"torch.logdet", {"Tensor.logdet"}, "(Tensor input)", "squareMatrices"},
  // Factorizations over LAPACK (docs/linalg-runtime.md).
  {"torch.linalg.cholesky", {}, "(Tensor A, *, bool upper=False)", "lapack"},
  {"torch.linalg.cholesky_ex", {},
   "(Tensor A, *, bool upper=False, bool check_errors=False)", "lapack"},
  {"torch.cholesky", {"Tensor.cholesky"}, "(Tensor input, bool upper=False)",
   "lapack"},
  {"torch.linalg.lu_factor", {}, "(Tensor A, *, bool pivot=True)", "lapack"},
  {"torch.linalg.lu_factor_ex", {},
   "(Tensor A, *, bool pivot=True, bool check_errors=False)", "lapack"},
  {"torch.linalg.solve", {}, "(Tensor A, Tensor B, *, bool left=True)",
   "lapack"},
  {"torch.linalg.solve_ex", {},
   "(Tensor A, Tensor B, *, bool left=True, bool check_errors=False)",
   "lapack"},
  {"torch.linalg.inv_ex", {}, "(Tensor A, *, bool check_errors=False)",
   "lapack"},
  {"torch.linalg.qr", {}, "(Tensor A, str mode=\"reduced\")", "lapack"},
  {"torch.qr", {"Tensor.qr"}, "(Tensor input, bool some=True)", "lapack"},
  {"torch.linalg.svd", {},
   "(Tensor A, bool full_matrices=True, *, str? driver=None)", "lapack"},
  {"torch.svd", {"Tensor.svd"},
   "(Tensor input, bool some=True, bool compute_uv=True)", "lapack"},
  {"torch.linalg.svdvals", {}, "(Tensor A, *, str? driver=None)", "lapack"},
  {"torch.linalg.eigh", {}, "(Tensor A, str UPLO=\"L\")", "lapack"},
  {"torch.linalg.eigvalsh", {}, "(Tensor A, str UPLO=\"L\")", "lapack"},
  {"torch.linalg.solve_triangular", {},
   "(Tensor A, Tensor B, *, bool upper, bool left=True, bool unitriangular=False)",
   "lapack"},
  {"torch.linalg.lu_solve", {},
   "(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False)",
   "lapack"},
  {"torch.lu_solve", {"Tensor.lu_solve"},
   "(Tensor input, Tensor LU_data, Tensor LU_pivots)", "lapack"},
  {"torch.cholesky_solve", {"Tensor.cholesky_solve"},
   "(Tensor input, Tensor input2, bool upper=False)", "lapack"},
  {"torch.cholesky_inverse", {"Tensor.cholesky_inverse"},
   "(Tensor input, bool upper=False)", "lapack"},
  {"torch.lu_unpack", {},
   "(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True)",
   "lapack"},
  {"torch.linalg.lu", {}, "(Tensor A, *, bool pivot=True)", "lapack"},
  {"torch.functional.lu", {"torch.lu", "Tensor.lu"},
   "(Tensor A, bool pivot=True, bool get_infos=False, Any out=None)",
   "lapack"},
  {"torch.symeig", {"Tensor.symeig"},
   "(Tensor input, bool eigenvectors=False, bool upper=True)", "lapack"},
  {"torch.geqrf", {"Tensor.geqrf"}, "(Tensor input)", "lapack"},
  {"torch.linalg.householder_product", {}, "(Tensor A, Tensor tau)",
   "lapack"},
  {"torch.ormqr", {"Tensor.ormqr"},
   "(Tensor input, Tensor input2, Tensor input3, bool left=True, bool transpose=False)",
   "lapack"},
  // Compositions of the factorizations (lib/Transforms/Decompose/Linalg.cpp).
  {"torch.linalg.matrix_rank", {},
   "(Tensor A, *, float? atol=None, float? rtol=None, bool hermitian=False)",
   "lapack"},
  {"torch.linalg.cond", {}, "(Tensor A, Any p=None)", "lapack"},
  {"torch.linalg.pinv", {},
   "(Tensor A, float? rcond=None, bool hermitian=False, *, float? atol=None, float? rtol=None)",
   "lapack"},
  {"torch.pinverse", {"Tensor.pinverse"}, "(Tensor input, float rcond=1e-15)",
   "lapack"},
  {"torch.triangular_solve", {"Tensor.triangular_solve"},
   "(Tensor input, Tensor A, bool upper=True, bool transpose=False, bool unitriangular=False)",
   "lapack"},
  {"torch.linalg.tensorinv", {}, "(Tensor A, int ind=2)", "lapack"},
  {"torch.linalg.tensorsolve", {}, "(Tensor A, Tensor B, int[]? dims=None)",
   "lapack"},
  {"torch.linalg.lstsq", {},
   "(Tensor A, Tensor B, float? rcond=None, *, str? driver=None)", "lapack"},
  {"torch.linalg.ldl_factor", {}, "(Tensor A, *, bool hermitian=False)",
   "lapack"},
  {"torch.linalg.ldl_factor_ex", {},
   "(Tensor A, *, bool hermitian=False, bool check_errors=False)", "lapack"},
  {"torch.linalg.ldl_solve", {},
   "(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False)", "lapack"},
  {"torch.linalg.matrix_exp", {"torch.matrix_exp", "Tensor.matrix_exp"},
   "(Tensor A)", "lapack"},
  {"torch.nn.functional.poisson_nll_loss", {"F.poisson_nll_loss"},
   "(Tensor input, Tensor target, bool log_input=True, bool full=False, bool? size_average=None, float eps=1e-08, bool? reduce=None, str reduction=\"mean\")",
   "pointwiseLoss"},
  {"torch.is_floating_point", {"Tensor.is_floating_point"},
   "(Tensor input)", "isFloatingPoint"},
  {"torch.broadcast_tensors", {"torch.functional.broadcast_tensors"},
   "(Tensor[] *tensors)", "broadcastTensors"},
  // Fake quantization (quantization-aware training's forward): round to
  // the int grid of `scale` and `zero_point`, clamp, and back.
  {"torch.fake_quantize_per_tensor_affine", {},
   "(Tensor input, float scale, int zero_point, int quant_min, int quant_max)",
   "fakeQuantize"},
  {"torch.ops.aten.fake_quantize_per_tensor_affine_cachemask.default",
   {"torch.ops.aten.fake_quantize_per_tensor_affine_cachemask"},
   "(Tensor input, float scale, int zero_point, int quant_min, int quant_max)",
   "fakeQuantize"},
  {"torch.isclose", {"Tensor.isclose"},
   "(Tensor input, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False)",
   "isclose"},
  {"torch.addbmm", {"Tensor.addbmm"},
   "(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1)",
   "addbmm"},
  {"torch.logcumsumexp", {"Tensor.logcumsumexp"},
   "(Tensor input, int dim)", "sameAsInput"},
  {"torch.fill", {"Tensor.fill"}, "(Tensor input, Tensor|Scalar value)",
   "fillValue"},
  {"torch.ops.aten.copy.default", {"torch.ops.aten.copy"},
   "(Tensor input, Tensor src, bool non_blocking=False)", "copyInto"},
  {"torch.ops.aten.native_layer_norm.default",
   {"torch.ops.aten.native_layer_norm", "torch.native_layer_norm"},
   "(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps)",
   "nativeLayerNorm"},
  {"torch.ops.aten.native_group_norm.default",
   {"torch.ops.aten.native_group_norm", "torch.native_group_norm"},
   "(Tensor input, Tensor? weight, Tensor? bias, int N, int C, int HxW, int group, float eps)",
   "nativeGroupNorm"},
  // Its gradient: (grad_input, grad_weight, grad_bias), None where
  // output_mask is false.
  {"torch.ops.aten.native_group_norm_backward.default",
   {"torch.ops.aten.native_group_norm_backward"},
   "(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight, "
   "int N, int C, int HxW, int group, bool[3] output_mask)",
   "nativeGroupNormBackward"},
  {"torch.ops.aten.native_batch_norm.default",
   {"torch.ops.aten.native_batch_norm", "torch.native_batch_norm"},
   "(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps)",
   "nativeBatchNorm"},
  {"torch.ops.aten.nll_loss_forward.default",
   {"torch.ops.aten.nll_loss_forward"},
   "(Tensor input, Tensor target, Tensor? weight, int reduction, int ignore_index)",
   "nllLossForward"},
  {"torch.ops.aten.max_pool2d_with_indices_backward.default",
   {"torch.ops.aten.max_pool2d_with_indices_backward"},
   "(Tensor grad_output, Tensor input, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices)",
   "maxPoolGrad"},
  {"torch.ops.aten.max_pool3d_with_indices_backward.default",
   {"torch.ops.aten.max_pool3d_with_indices_backward"},
   "(Tensor grad_output, Tensor input, int[3] kernel_size, int[3] stride, int[3] padding, int[3] dilation, bool ceil_mode, Tensor indices)",
   "maxPoolGrad"},
  {"torch.ops.aten.nll_loss_backward.default",
   {"torch.ops.aten.nll_loss_backward"},
   "(Tensor grad_output, Tensor input, Tensor target, Tensor? weight, int reduction, int ignore_index, Tensor total_weight)",
   "nllLossBackward"},
  {"torch.ops.aten._index_put_impl.default",
   {"torch.ops.aten._index_put_impl", "torch._index_put_impl_"},
   "(Tensor input, Any indices, Tensor values, bool accumulate=False, bool unsafe=False)",
   "indexPut"},
  {"torch.nn.functional.embedding_bag", {"F.embedding_bag"},
   "(Tensor input, Tensor weight, Tensor? offsets=None, float? max_norm=None, float norm_type=2, bool scale_grad_by_freq=False, str mode=\"mean\", bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False, int? padding_idx=None)",
   "embeddingBag"},
  // ATen's embedding_bag: F.embedding_bag's output with the offset2bag,
  // bag_size and max_indices tensors torch's CPU kernel returns beside it
  // (`scale_grad_by_freq` and `sparse` only matter to the gradient).
  {"torch.ops.aten.embedding_bag.padding_idx",
   {"torch.ops.aten.embedding_bag", "torch.ops.aten.embedding_bag.default",
    "torch.embedding_bag"},
   "(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, "
   "int mode=0, bool sparse=False, Tensor? per_sample_weights=None, "
   "bool include_last_offset=False, int? padding_idx=None)",
   "atenEmbeddingBag"},
  // (Its padding_idx is not wrapped: a negative one means none.)
  {"torch.ops.aten._embedding_bag.default",
   {"torch.ops.aten._embedding_bag", "torch._embedding_bag",
    "torch.ops.aten._embedding_bag_forward_only.default",
    "torch.ops.aten._embedding_bag_forward_only",
    "torch._embedding_bag_forward_only"},
   "(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, "
   "int mode=0, bool sparse=False, Tensor? per_sample_weights=None, "
   "bool include_last_offset=False, int padding_idx=-1)",
   "atenEmbeddingBag"},
  {"torch.nn.functional.grid_sample", {"F.grid_sample"},
   "(Tensor input, Tensor grid, str mode=\"bilinear\", str padding_mode=\"zeros\", bool? align_corners=None)",
   "gridSample"},
  {"torch.ops.aten.grid_sampler.default",
   {"torch.ops.aten.grid_sampler", "torch.grid_sampler",
    "torch.ops.aten.grid_sampler_2d.default", "torch.ops.aten.grid_sampler_2d",
    "torch.grid_sampler_2d"},
   "(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners)",
   "gridSample"},
  {"torch.nn.functional.affine_grid", {"F.affine_grid"},
   "(Tensor theta, int[] size, bool? align_corners=None)", "affineGrid"},
  {"torch.nn.functional.unfold", {"F.unfold"},
   "(Tensor input, int[2] kernel_size, int[2] dilation=1, int[2] padding=0, int[2] stride=1)",
   "im2col"},
  {"torch.nn.functional.fold", {"F.fold"},
   "(Tensor input, int[2] output_size, int[2] kernel_size, int[2] dilation=1, int[2] padding=0, int[2] stride=1)",
   "col2im"},
  {"torch.kthvalue", {"Tensor.kthvalue"},
   "(Tensor input, int k, int dim=-1, bool keepdim=False)", "kthvalue"},
  {"Tensor.unfold", {},
   "(Tensor input, int dimension, int size, int step)", "unfoldWindows"},
  {"torch.bucketize", {},
   "(Tensor input, Tensor boundaries, *, bool out_int32=False, bool right=False)",
   "bucketize"},
  {"torch.searchsorted", {},
   "(Tensor sorted_sequence, Tensor|Scalar input, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None)",
   "searchsorted"},
  {"torch.isin", {},
   "(Tensor|Scalar elements, Tensor|Scalar test_elements, *, bool assume_unique=False, bool invert=False)",
   "isin"},
  {"torch.renorm", {"Tensor.renorm"},
   "(Tensor input, Scalar p, int dim, Scalar maxnorm)", "renorm"},
  {"torch.select_scatter", {"Tensor.select_scatter"},
   "(Tensor input, Tensor src, int dim, int index)", "selectScatter"},
  {"torch.slice_scatter", {"Tensor.slice_scatter"},
   "(Tensor input, Tensor src, int dim=0, int? start=None, int? end=None, int step=1)",
   "sliceScatter"},
  {"torch.diag_embed", {"Tensor.diag_embed"},
   "(Tensor input, int offset=0, int dim1=-2, int dim2=-1)", "diagEmbed"},
  {"torch.rot90", {"Tensor.rot90"},
   "(Tensor input, int k=1, int[] dims=[0, 1])", "rot90"},
  {"torch.count_nonzero", {"Tensor.count_nonzero"},
   "(Tensor input, int[1]? dim=None)", "countNonzero"},
  {"torch.linalg.cross", {},
   "(Tensor input, Tensor other, *, int dim=-1)", "cross"},
  {"torch.cross", {"Tensor.cross"},
   "(Tensor input, Tensor other, int? dim=None)", "cross"},
  {"torch.as_strided", {"Tensor.as_strided"},
   "(Tensor input, int[] size, int[] stride, int? storage_offset=None)",
   "asStrided"},
  {"torch.empty_like", {},
   "(Tensor input, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False, Any memory_format=None)",
   "fullLike"},
  // (start may be a 0-d integer tensor, as torch's narrow.Tensor.)
  // (narrow_copy: the same values; the IR has no views to copy.)
  {"torch.narrow", {"Tensor.narrow", "torch.narrow_copy", "Tensor.narrow_copy"},
   "(Tensor input, int dim, Tensor|Scalar start, int length)",
   "narrow"},
  {"torch.flip", {"Tensor.flip"},
   "(Tensor input, int[] *dims)",
   "sameAsInput"},
  {"torch.roll", {"Tensor.roll"},
   "(Tensor input, int[1] shifts, int[1]? dims=None)",
   "sameAsInput"},
  {"Tensor.repeat", {},
   "(Tensor input, int[] *repeats)",
   "repeat"},
  {"torch.tile", {"Tensor.tile"},
   "(Tensor input, int[] *dims)",
   "repeat"},
  {"torch.zeros_like", {},
   "(Tensor input, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False, Any memory_format=None)",
   "fullLike"},
  {"torch.ones_like", {},
   "(Tensor input, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False, Any memory_format=None)",
   "fullLike"},
  {"torch.full_like", {},
   "(Tensor input, Scalar fill_value, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False, Any memory_format=None)",
   "fullLike"},
  {"torch.tril", {"Tensor.tril"},
   "(Tensor input, int diagonal=0)",
   "triangle"},
  {"torch.triu", {"Tensor.triu"},
   "(Tensor input, int diagonal=0)",
   "triangle"},
  {"torch.nn.functional.one_hot", {"F.one_hot", "torch._C._nn.one_hot"},
   "(Tensor input, int num_classes=-1)",
   "oneHot"},
  {"torch.nn.functional.pad", {"F.pad", "torch._C._nn.pad"},
   "(Tensor input, int[] pad, str mode=\"constant\", float? value=None)",
   "pad"},
  // F.pad's constant mode under ATen's signature.
  {"torch.constant_pad_nd", {}, "(Tensor input, int[] pad, Scalar value=0)",
   "pad"},
  {"torch.split", {"Tensor.split", "torch.functional.split"},
   "(Tensor input, Any split_size_or_sections, int dim=0)",
   "split"},

  {"torch.select", {"Tensor.select"},
   "(Tensor input, int dim, int index)",
   "select"},
  {"torch.movedim", {"Tensor.movedim", "torch.moveaxis", "Tensor.moveaxis"},
   "(Tensor input, int[1] source, int[1] destination)",
   "movedim"},
  {"torch.sort", {"Tensor.sort"},
   "(Tensor input, int dim=-1, bool descending=False, *, bool? stable=None)",
   "sortLike"},
  {"torch.argsort", {"Tensor.argsort"},
   "(Tensor input, int dim=-1, bool descending=False)",
   "sortLike"},
  // The values of sort along dim 0.
  {"torch.msort", {"Tensor.msort"}, "(Tensor input)", "sameAsInput"},
  {"torch.topk", {"Tensor.topk"},
   "(Tensor input, int k, int dim=-1, bool largest=True, bool sorted=True)",
   "sortLike"},
  {"torch.scatter", {"Tensor.scatter"},
   "(Tensor input, int dim, Tensor index, Tensor|Scalar src, *, str? reduce=None)",
   "scatter"},
  {"torch.scatter_add", {"Tensor.scatter_add"},
   "(Tensor input, int dim, Tensor index, Tensor src)",
   "scatter"},
  {"torch.scatter_reduce", {"Tensor.scatter_reduce"},
   "(Tensor input, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True)",
   "scatter"},
  {"torch.index_add", {"Tensor.index_add"},
   "(Tensor input, int dim, Tensor index, Tensor source, *, Scalar alpha=1)",
   "sameAsInput"},
  {"torch.index_copy", {"Tensor.index_copy"},
   "(Tensor input, int dim, Tensor index, Tensor source)", "sameAsInput"},
  {"torch.index_fill", {"Tensor.index_fill"},
   "(Tensor input, int dim, Tensor index, Tensor|Scalar value)", "indexFill"},
  {"torch.take", {"Tensor.take"}, "(Tensor input, Tensor index)", "take"},
  {"torch.put", {"Tensor.put"},
   "(Tensor input, Tensor index, Tensor source, bool accumulate=False)", "put"},
  {"torch.diagonal_scatter", {"Tensor.diagonal_scatter"},
   "(Tensor input, Tensor src, int offset=0, int dim1=0, int dim2=1)",
   "diagonalScatter"},
  {"torch.as_strided_scatter", {"Tensor.as_strided_scatter"},
   "(Tensor input, Tensor src, int[] size, int[] stride, int? storage_offset=None)",
   "asStridedScatter"},

  // Shapes.
  // PyTorch primitives that decomposed programs call: views whose shapes
  // the prims' own checks fix (no negative dims).
  {"torch.ops.prims.squeeze.default", {"torch.ops.prims.squeeze"},
   "(Tensor a, int[] dimensions)", "primsView"},
  // prims.prod: torch.prod over each dim, the largest first (as torch
  // 1.13's reference implementation calls it).
  {"torch.ops.prims.prod.default", {"torch.ops.prims.prod"},
   "(Tensor inp, int[] dims, *, dtype? output_dtype=None)", "primsProd"},
  {"torch.ops.prims.split_dim.default", {"torch.ops.prims.split_dim"},
   "(Tensor a, int dim, int outer_length)", "primsView"},
  {"torch.atleast_1d", {"torch.functional.atleast_1d"}, "(Tensor input)", "atleast"},
  {"torch.atleast_2d", {"torch.functional.atleast_2d"}, "(Tensor input)", "atleast"},
  {"torch.atleast_3d", {"torch.functional.atleast_3d"}, "(Tensor input)", "atleast"},
  {"torch.flatten", {"Tensor.flatten", "F.flatten", "torch.ravel", "Tensor.ravel"},
   "(Tensor input, int start_dim=0, int end_dim=-1)", "flatten"},
  {"torch.reshape", {"Tensor.reshape"}, "(Tensor input, int[] *shape)",
   "reshape"},
  {"Tensor.view", {}, "(Tensor input, int[] *size)", "reshape"},
  {"torch.permute", {"Tensor.permute"}, "(Tensor input, int[] *dims)",
   "permute"},
  {"torch.transpose", {"Tensor.transpose", "torch.swapaxes", "torch.swapdims",
    "Tensor.swapaxes", "Tensor.swapdims"},
   "(Tensor input, int dim0, int dim1)", "transpose"},
  {"Tensor.contiguous", {}, "(Tensor input, Any memory_format=None)",
   "sameAsInput"},
  // On real tensors (the only ones the IR has) conj, conj_physical,
  // resolve_conj, resolve_neg and real are the input's values.
  {"torch.clone", {"Tensor.clone", "torch.conj", "Tensor.conj",
                   "torch.conj_physical", "Tensor.conj_physical",
                   "torch.resolve_conj", "Tensor.resolve_conj",
                   "torch.resolve_neg", "Tensor.resolve_neg", "torch.real"},
   "(Tensor input, *, Any memory_format=None)",
   "sameAsInput"},
  {"Tensor.detach", {"torch.detach"}, "(Tensor input)", "sameAsInput"},
  {"torch.t", {"Tensor.t"}, "(Tensor input)", "t"},
  // Factories (recorded when a size or bound is traced).
  {"torch.zeros", {}, "(int[] *size, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False, Any out=None)",
   "factory"},
  {"torch.ones", {}, "(int[] *size, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False, Any out=None)",
   "factory"},
  // (empty's elements are unspecified in torch; zeros here, deterministic.)
  {"torch.empty", {}, "(int[] *size, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False, Any out=None, Any memory_format=None)",
   "factory"},
  {"torch.full", {}, "(int[] size, Scalar fill_value, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False, Any out=None)",
   "full"},
  {"torch.arange", {}, "(Scalar start, Scalar? end=None, Scalar step=1, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False, Any out=None)",
   "arange"},
  {"torch.linspace", {}, "(Scalar start, Scalar end, int steps, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False, Any out=None)",
   "linspace"},
  {"torch.eye", {}, "(int n, int? m=None, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False, Any out=None)",
   "eye"},
  {"Tensor.new_empty", {},
   "(Tensor input, int[] *size, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False)", "newFilled"},
  {"Tensor.new_zeros", {},
   "(Tensor input, int[] *size, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False)", "newFilled"},
  {"Tensor.new_ones", {},
   "(Tensor input, int[] *size, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False)", "newFilled"},
  {"Tensor.new_full", {},
   "(Tensor input, int[] size, Scalar fill_value, *, dtype? dtype=None, Any layout=None, Any device=None, bool? pin_memory=None, bool requires_grad=False)", "newFilled"},
  {"torch.unsqueeze", {"Tensor.unsqueeze"}, "(Tensor input, int dim)",
   "unsqueeze"},
  {"torch.squeeze", {"Tensor.squeeze"}, "(Tensor input, int? dim=None)",
   "squeeze"},
  {"Tensor.unflatten", {"torch.unflatten"},
   "(Tensor input, int dim, int[] sizes)", "unflatten"},
  {"Tensor.expand", {"torch.broadcast_to", "Tensor.broadcast_to"},
   "(Tensor input, int[] *size)", "expand"},
  {"torch.cat", {"torch.concat", "torch.concatenate"},
   "(Tensor[] tensors, int dim=0)", "cat"},
  {"torch.stack", {}, "(Tensor[] tensors, int dim=0)", "stack"},
  // The n-th forward difference along dim of prepend, input and append
  // (concatenated as torch.cat, which promotes); bools by logical xor.
  {"torch.diff", {"Tensor.diff"},
   "(Tensor input, int n=1, int dim=-1, Tensor? prepend=None, "
   "Tensor? append=None)",
   "diff"},
  {"torch.chunk", {"Tensor.chunk"}, "(Tensor input, int chunks, int dim=0)",
   "chunk"},
  // torch's three overloads in one: a number of sections or a list of
  // cuts, positionally or by their keywords (tensor_split(x, indices=(1,),
  // dim=2) in torchvision's MViT); a tensor of either must be a constant.
  {"torch.tensor_split", {"Tensor.tensor_split"},
   "(Tensor input, Any indices_or_sections=None, int dim=0, *, Any sections=None, "
   "Any indices=None, Any tensor_indices_or_sections=None)",
   "tensorSplit"},
  {"operator.getitem", {"Tensor.__getitem__"}, "(Any input, Any index)",
   "getitem"},
  // tensor_split along dim 1 (0 for a vector), 0 and 2, whose size a
  // number of sections must divide.
  {"torch.hsplit", {"Tensor.hsplit"}, "(Tensor input, Any indices_or_sections)",
   "directionalSplit"},
  {"torch.vsplit", {"Tensor.vsplit"}, "(Tensor input, Any indices_or_sections)",
   "directionalSplit"},
  {"torch.dsplit", {"Tensor.dsplit"}, "(Tensor input, Any indices_or_sections)",
   "directionalSplit"},
  {"torch.diagflat", {"Tensor.diagflat"}, "(Tensor input, int offset=0)",
   "diagflat"},
  // Central differences over the spacing, one-sided at the edges.
  {"torch.gradient", {}, "(Tensor input, *, Any spacing=None, Any dim=None, int edge_order=1)",
   "gradient"},
  {"torch.block_diag", {"torch.functional.block_diag"}, "(Tensor[] *tensors)",
   "blockDiag"},
  {"torch.cartesian_prod", {"torch.functional.cartesian_prod"},
   "(Tensor[] *tensors)", "cartesianProd"},
  {"torch.combinations", {},
   "(Tensor input, int r=2, bool with_replacement=False)", "combinations"},
  {"Tensor.sum_to_size", {}, "(Tensor input, int[] *size)", "sumToSize"},
  // Rolls by half of each dim (fftshift rounds down, ifftshift up).
  {"torch.fft.fftshift", {"torch._C._fft.fft_fftshift"},
   "(Tensor input, int[1]? dim=None)", "fftShift"},
  {"torch.fft.ifftshift", {"torch._C._fft.fft_ifftshift"},
   "(Tensor input, int[1]? dim=None)", "fftShift"},

  // Complex-to-real FFTs of real input (docs/fft.md): an inverse DFT over
  // every transformed dim but the last, a Hermitian one over the last
  // (hfft*: scaled as a forward transform). Complex tensors are out of
  // scope; these take real ones and return real ones.
  {"torch.fft.irfft", {"torch._C._fft.fft_irfft"},
   "(Tensor input, int? n=None, int dim=-1, str? norm=None)", "irfft"},
  {"torch.fft.irfft2", {"torch._C._fft.fft_irfft2"},
   "(Tensor input, int[1]? s=None, int[1] dim=[-2, -1], str? norm=None)",
   "irfft"},
  {"torch.fft.irfftn", {"torch._C._fft.fft_irfftn"},
   "(Tensor input, int[1]? s=None, int[1]? dim=None, str? norm=None)",
   "irfft"},
  {"torch.fft.hfft", {"torch._C._fft.fft_hfft"},
   "(Tensor input, int? n=None, int dim=-1, str? norm=None)", "hfft"},
  {"torch.fft.hfft2", {"torch._C._fft.fft_hfft2"},
   "(Tensor input, int[1]? s=None, int[1] dim=[-2, -1], str? norm=None)",
   "hfft"},
  {"torch.fft.hfftn", {"torch._C._fft.fft_hfftn"},
   "(Tensor input, int[1]? s=None, int[1]? dim=None, str? norm=None)",
   "hfft"},
  // Short-time Fourier transforms of real tensors in their real forms
  // (docs/fft.md): stft's spectrum with real and imaginary parts in a last
  // dim of 2, and istft of such a spectrum; return_complex=True is refused.
  {"torch.functional.stft", {"torch.stft", "Tensor.stft"},
   "(Tensor input, int n_fft, int? hop_length=None, int? win_length=None, "
   "Tensor? window=None, bool center=True, str pad_mode=\"reflect\", "
   "bool normalized=False, bool? onesided=None, bool? return_complex=None)",
   "stft"},
  {"torch.istft", {"Tensor.istft"},
   "(Tensor input, int n_fft, int? hop_length=None, int? win_length=None, "
   "Tensor? window=None, bool center=True, bool normalized=False, "
   "bool? onesided=None, int? length=None, bool return_complex=False)",
   "istft"},
  // The regularized incomplete gamma functions P(a, x) and Q(a, x), through
  // the scalar special-function runtime (docs/special-runtime.md).
  {"torch.igamma", {"Tensor.igamma", "torch.special.gammainc"},
   "(Tensor input, Tensor other)", "arithmetic"},
  {"torch.igammac", {"Tensor.igammac", "torch.special.gammaincc"},
   "(Tensor input, Tensor other)", "arithmetic"},
  // torch 1.13's private attention function: (output, weights) of
  // softmax(q k^T / sqrt(E) + mask) v; 0 < dropout_p < 1 is refused (random).
  {"torch.nn.functional._scaled_dot_product_attention",
   {"torch._C._nn._scaled_dot_product_attention",
    "F._scaled_dot_product_attention"},
   "(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
   "float dropout_p=0.0, bool need_attn_weights=False, bool is_causal=False)",
   "scaledDotProductAttention"},
  // `x[index] = value` and index_put are values here: a copy of the input
  // with the indexed elements replaced (the tracers rebind the mutated
  // tensor to the result).
  {"operator.setitem", {"Tensor.__setitem__"},
   "(Tensor input, Any index, Tensor|Scalar value)",
   "sameAsInput"},
  {"torch.index_put", {"Tensor.index_put"},
   "(Tensor input, Any indices, Tensor values, bool accumulate=False)",
   "indexPut"},
  {"Tensor.size", {}, "(Tensor input, int? dim=None)", "size"},
  // Python numbers from tensors and numbers: ATen's conversions, which
  // TorchScript-style code calls (`torch.ops.aten.Int(x)`), and prim's
  // min and max of two numbers.
  {"torch.ops.aten.ScalarImplicit.default", {"torch.ops.aten.ScalarImplicit"},
   "(Tensor a)", "pythonNumber"},
  {"torch.ops.aten.Float", {}, "(Tensor|Scalar a)", "pythonNumber"},
  {"torch.ops.aten.Int", {}, "(Tensor|Scalar a)", "pythonNumber"},
  {"torch.ops.aten.Bool", {}, "(Tensor|Scalar a)", "pythonNumber"},
  {"torch.ops.prim.min", {}, "(Scalar a, Scalar b)", "primExtreme"},
  {"torch.ops.prim.max", {}, "(Scalar a, Scalar b)", "primExtreme"},
  // Python's rounding of a number to an int (`math.ceil(n / 2)` on sizes:
  // torch.fx records them, and so does the concrete tracer's SymFloat).
  {"math.ceil", {}, "(Scalar x)", "pythonRounding"},
  {"math.floor", {}, "(Scalar x)", "pythonRounding"},
  {"math.trunc", {}, "(Scalar x)", "pythonRounding"},
  {"Tensor.dim", {"Tensor.ndimension"}, "(Tensor input)", "dim"},
  {"builtins.getattr", {"getattr"}, "(Any input, str name)", "getattr"},
  // Checks traced code makes (torchvision's ViT checks the image size).
  {"torch._assert", {}, "(Any condition, str message)", "none", /*pure=*/false},
  // Quantized tensors (Rules/Quantized.cpp, docs/quantization.md).
  {"torch.quantize_per_tensor", {},
   "(Tensor input, Any scale, Any zero_point, dtype dtype)",
   "quantizePerTensor"},
  {"torch.quantize_per_channel", {},
   "(Tensor input, Tensor scales, Tensor zero_points, int axis, dtype dtype)",
   "quantizePerChannel"},
  {"torch.dequantize", {"Tensor.dequantize"}, "(Tensor input)", "dequantize"},
  {"torch.ops.quantized.add", {}, "(Tensor qa, Tensor qb, Any scale, Any zero_point)", "quantizedBinary"},
  {"torch.ops.quantized.add_relu", {}, "(Tensor qa, Tensor qb, Any scale, Any zero_point)", "quantizedBinary"},
  {"torch.ops.quantized.mul", {}, "(Tensor qa, Tensor qb, Any scale, Any zero_point)", "quantizedBinary"},
  {"torch.ops.quantized.mul_relu", {}, "(Tensor qa, Tensor qb, Any scale, Any zero_point)", "quantizedBinary"},
  {"torch.ops.quantized.cat", {},
   "(Tensor[] qx, int dim, Any scale=None, Any zero_point=None)", "quantizedCat"},
  {"torch.ops.quantized.hardswish", {"torch.ao.nn.quantized.functional.hardswish"},
   "(Tensor input, float output_scale, int output_zero_point)",
   "quantizedActivation"},
  {"torch.ops.quantized.leaky_relu", {},
   "(Tensor qx, float negative_slope, bool inplace, Any output_scale, "
   "Any output_zero_point)",
   "quantizedActivation"},
  {"torch.ops.quantized.elu", {},
   "(Tensor self, Any output_scale, Any output_zero_point, float alpha=1.0, "
   "float scale=1.0, float input_scale=1.0)",
   "quantizedActivation"},
  {"torch.ao.nn.quantized.functional.conv1d", {"torch.nn.quantized.functional.conv1d"},
   "(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
   "int[1] padding=0, int[1] dilation=1, int groups=1, "
   "str padding_mode=\"zeros\", float scale=1.0, int zero_point=0, "
   "dtype? dtype=None)", "quantizedConv"},
  {"traced.quantized.conv_relu1d", {},
   "(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
   "int[1] padding=0, int[1] dilation=1, int groups=1, "
   "str padding_mode=\"zeros\", float scale=1.0, int zero_point=0, "
   "dtype? dtype=None)", "quantizedConv"},
  {"torch.ao.nn.quantized.functional.conv2d", {"torch.nn.quantized.functional.conv2d"},
   "(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
   "int[2] padding=0, int[2] dilation=1, int groups=1, "
   "str padding_mode=\"zeros\", float scale=1.0, int zero_point=0, "
   "dtype? dtype=None)", "quantizedConv"},
  {"traced.quantized.conv_relu2d", {},
   "(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
   "int[2] padding=0, int[2] dilation=1, int groups=1, "
   "str padding_mode=\"zeros\", float scale=1.0, int zero_point=0, "
   "dtype? dtype=None)", "quantizedConv"},
  {"torch.ao.nn.quantized.functional.conv3d", {"torch.nn.quantized.functional.conv3d"},
   "(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, "
   "int[3] padding=0, int[3] dilation=1, int groups=1, "
   "str padding_mode=\"zeros\", float scale=1.0, int zero_point=0, "
   "dtype? dtype=None)", "quantizedConv"},
  {"traced.quantized.conv_relu3d", {},
   "(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, "
   "int[3] padding=0, int[3] dilation=1, int groups=1, "
   "str padding_mode=\"zeros\", float scale=1.0, int zero_point=0, "
   "dtype? dtype=None)", "quantizedConv"},
  {"torch.ao.nn.quantized.functional.linear", {"torch.nn.quantized.functional.linear"},
   "(Tensor input, Tensor weight, Tensor? bias=None, Any scale=None, "
   "Any zero_point=None)", "quantizedLinear"},
  {"traced.quantized.linear_relu", {},
   "(Tensor input, Tensor weight, Tensor? bias=None, Any scale=None, "
   "Any zero_point=None)", "quantizedLinear"},
  // Quantization-aware training's fake quantization (FusedMovingAvgObs-
  // FakeQuantize) with its observer off, as an exported model runs it.
  {"torch.fused_moving_avg_obs_fake_quant", {},
   "(Tensor input, Tensor observer_on, Tensor fake_quant_on, "
   "Tensor running_min, Tensor running_max, Tensor scale, Tensor zero_point, "
   "float averaging_const, int quant_min, int quant_max, int ch_axis, "
   "bool per_row_fake_quant=False, bool symmetric_quant=False)",
   "sameAsInput"},
  {"traced.quantized.linear_dynamic", {},
   "(Tensor input, Tensor weight, Tensor? bias=None, bool reduce_range=True)",
   "quantizedLinearDynamic"},
  // traced-lower-quantized's int8 contractions (docs/quantization.md,
  // "int8 code"): storage integers in, requantized storage integers out;
  // with a residual, the quantized add of the output (at output_scale and
  // output_zero_point) and the residual, at sum_scale and sum_zero_point.
  {"traced.int8.conv2d", {},
   "(Tensor input, Tensor weight, Tensor multiplier, Tensor offset, "
   "Tensor compensation, int[2] kernel_size, int[2] stride=1, int[2] padding=0, "
   "int[2] dilation=1, int groups=1, int input_zero_point=0, "
   "int output_zero_point=0, bool relu=False, Tensor? residual=None, "
   "float output_scale=1.0, float residual_scale=1.0, int residual_zero_point=0, "
   "float sum_scale=1.0, int sum_zero_point=0, bool sum_relu=False)",
   "int8Conv2d"},
  {"traced.int8.linear", {},
   "(Tensor input, Tensor weight, Tensor multiplier, Tensor offset, "
   "Tensor compensation, int input_zero_point=0, int output_zero_point=0, bool relu=False, "
   "Tensor? residual=None, float output_scale=1.0, float residual_scale=1.0, "
   "int residual_zero_point=0, float sum_scale=1.0, int sum_zero_point=0, "
   "bool sum_relu=False)",
   "int8Linear"},
};

// nn.RNN, nn.LSTM and nn.GRU bind alike: their `mode` and sizes, and
// every parameter in declaration order (torch's _flat_weights).
static const std::vector<ModuleBinding> kRecurrentBindings = {
    {"input", "input"}, {"hx", "hx"}, {"params", "@*"}, {"mode", "@mode"},
    {"input_size", "@input_size"}, {"hidden_size", "@hidden_size"},
    {"num_layers", "@num_layers"}, {"bias", "@bias"},
    {"batch_first", "@batch_first"}, {"dropout", "@dropout"},
    {"training", "@training"}, {"bidirectional", "@bidirectional"},
    {"proj_size", "@proj_size"}};

static const ModuleRow kModules[] = {
  {"torch.ao.nn.quantized.modules.conv.Conv1d",
   {"torch.nn.quantized.modules.conv.Conv1d"}, "(Tensor input)",
   "torch.ao.nn.quantized.functional.conv1d",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"dilation", "@dilation"}, {"groups", "@groups"},
    {"padding_mode", "@?padding_mode"}, {"scale", "@scale"},
    {"zero_point", "@zero_point"}}},
  {"torch.nn.intrinsic.quantized.modules.conv_relu.ConvReLU1d",
   {"torch.ao.nn.intrinsic.quantized.modules.conv_relu.ConvReLU1d"},
   "(Tensor input)", "traced.quantized.conv_relu1d",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"dilation", "@dilation"}, {"groups", "@groups"},
    {"padding_mode", "@?padding_mode"}, {"scale", "@scale"},
    {"zero_point", "@zero_point"}}},
  {"torch.ao.nn.quantized.modules.conv.Conv2d",
   {"torch.nn.quantized.modules.conv.Conv2d"}, "(Tensor input)",
   "torch.ao.nn.quantized.functional.conv2d",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"dilation", "@dilation"}, {"groups", "@groups"},
    {"padding_mode", "@?padding_mode"}, {"scale", "@scale"},
    {"zero_point", "@zero_point"}}},
  {"torch.nn.intrinsic.quantized.modules.conv_relu.ConvReLU2d",
   {"torch.ao.nn.intrinsic.quantized.modules.conv_relu.ConvReLU2d"},
   "(Tensor input)", "traced.quantized.conv_relu2d",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"dilation", "@dilation"}, {"groups", "@groups"},
    {"padding_mode", "@?padding_mode"}, {"scale", "@scale"},
    {"zero_point", "@zero_point"}}},
  {"torch.ao.nn.quantized.modules.conv.Conv3d",
   {"torch.nn.quantized.modules.conv.Conv3d"}, "(Tensor input)",
   "torch.ao.nn.quantized.functional.conv3d",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"dilation", "@dilation"}, {"groups", "@groups"},
    {"padding_mode", "@?padding_mode"}, {"scale", "@scale"},
    {"zero_point", "@zero_point"}}},
  {"torch.nn.intrinsic.quantized.modules.conv_relu.ConvReLU3d",
   {"torch.ao.nn.intrinsic.quantized.modules.conv_relu.ConvReLU3d"},
   "(Tensor input)", "traced.quantized.conv_relu3d",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"dilation", "@dilation"}, {"groups", "@groups"},
    {"padding_mode", "@?padding_mode"}, {"scale", "@scale"},
    {"zero_point", "@zero_point"}}},
  {"torch.ao.nn.quantized.modules.linear.Linear",
   {"torch.nn.quantized.modules.linear.Linear"}, "(Tensor input)",
   "torch.ao.nn.quantized.functional.linear",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"scale", "@scale"}, {"zero_point", "@zero_point"}}},
  {"torch.nn.intrinsic.quantized.modules.linear_relu.LinearReLU",
   {"torch.ao.nn.intrinsic.quantized.modules.linear_relu.LinearReLU"},
   "(Tensor input)", "traced.quantized.linear_relu",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"scale", "@scale"}, {"zero_point", "@zero_point"}}},
  {"torch.ao.nn.quantized.modules.Quantize",
   {"torch.nn.quantized.modules.Quantize"}, "(Tensor X)",
   "torch.quantize_per_tensor",
   {{"input", "X"}, {"scale", "@scale"}, {"zero_point", "@zero_point"},
    {"dtype", "@dtype"}}},
  {"torch.ao.nn.quantized.dynamic.modules.linear.Linear",
   {"torch.nn.quantized.dynamic.modules.linear.Linear"}, "(Tensor x)",
   "traced.quantized.linear_dynamic",
   {{"input", "x"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"reduce_range", "=True"}}},
  {"torch.ao.nn.quantized.modules.activation.Hardswish",
   {"torch.nn.quantized.modules.activation.Hardswish"}, "(Tensor input)",
   "torch.ops.quantized.hardswish",
   {{"input", "input"}, {"output_scale", "@scale"},
    {"output_zero_point", "@zero_point"}}},
  {"torch.ao.nn.quantized.modules.activation.LeakyReLU",
   {"torch.nn.quantized.modules.activation.LeakyReLU"}, "(Tensor input)",
   "torch.ops.quantized.leaky_relu",
   {{"qx", "input"}, {"negative_slope", "@negative_slope"},
    {"inplace", "=False"}, {"output_scale", "@scale"},
    {"output_zero_point", "@zero_point"}}},
  {"torch.ao.nn.quantized.modules.activation.ELU",
   {"torch.nn.quantized.modules.activation.ELU"}, "(Tensor input)",
   "torch.ops.quantized.elu",
   {{"self", "input"}, {"output_scale", "@scale"},
    {"output_zero_point", "@zero_point"}, {"alpha", "@alpha"}}},
  {"torch.ao.nn.quantized.modules.DeQuantize",
   {"torch.nn.quantized.modules.DeQuantize"}, "(Tensor Xq)",
   "torch.dequantize", {{"input", "Xq"}}},
  {"torch.nn.Conv1d", {"torch.nn.modules.conv.Conv1d",
    "megengine.module.Conv1d"},
   "(Tensor input)",
   "torch.nn.functional.conv1d",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"dilation", "@dilation"}, {"groups", "@groups"},
    {"padding_mode", "@?padding_mode"}}},
  {"torch.nn.Conv2d", {"torch.nn.modules.conv.Conv2d",
    "megengine.module.Conv2d"},
   "(Tensor input)",
   "torch.nn.functional.conv2d",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"dilation", "@dilation"}, {"groups", "@groups"},
    {"padding_mode", "@?padding_mode"}}},
  {"torch.nn.Conv3d", {"torch.nn.modules.conv.Conv3d"},
   "(Tensor input)",
   "torch.nn.functional.conv3d",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"dilation", "@dilation"}, {"groups", "@groups"},
    {"padding_mode", "@?padding_mode"}}},
  {"torch.nn.ConvTranspose1d", {"torch.nn.modules.conv.ConvTranspose1d"},
   "(Tensor input, int[]? output_size=None)",
   "torch.nn.functional.conv_transpose1d",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"output_padding", "@output_padding"}, {"groups", "@groups"},
    {"dilation", "@dilation"}, {"output_size", "output_size"}}},
  {"torch.nn.ConvTranspose2d", {"torch.nn.modules.conv.ConvTranspose2d"},
   "(Tensor input, int[]? output_size=None)",
   "torch.nn.functional.conv_transpose2d",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"output_padding", "@output_padding"}, {"groups", "@groups"},
    {"dilation", "@dilation"}, {"output_size", "output_size"}}},
  {"torch.nn.ConvTranspose3d", {"torch.nn.modules.conv.ConvTranspose3d"},
   "(Tensor input, int[]? output_size=None)",
   "torch.nn.functional.conv_transpose3d",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"output_padding", "@output_padding"}, {"groups", "@groups"},
    {"dilation", "@dilation"}, {"output_size", "output_size"}}},
  {"torch.nn.Linear", {"torch.nn.modules.linear.Linear",
    "megengine.module.Linear"},
   "(Tensor input)",
   "torch.nn.functional.linear",
   {{"input", "input"}, {"weight", "@weight"}, {"bias", "@bias"}}},
  {"torch.nn.BatchNorm1d", {"torch.nn.modules.batchnorm.BatchNorm1d",
    "megengine.module.BatchNorm1d"},
   "(Tensor input)", "torch.nn.functional.batch_norm",
   {{"input", "input"}, {"running_mean", "@running_mean"},
    {"running_var", "@running_var"}, {"weight", "@weight"},
    {"bias", "@bias"}, {"training", "@training"},
    {"momentum", "@momentum"}, {"eps", "@eps"}}},
  {"torch.nn.BatchNorm2d", {"torch.nn.modules.batchnorm.BatchNorm2d",
    "megengine.module.BatchNorm2d"},
   "(Tensor input)", "torch.nn.functional.batch_norm",
   {{"input", "input"}, {"running_mean", "@running_mean"},
    {"running_var", "@running_var"}, {"weight", "@weight"},
    {"bias", "@bias"}, {"training", "@training"},
    {"momentum", "@momentum"}, {"eps", "@eps"}}},
  {"torch.nn.BatchNorm3d", {"torch.nn.modules.batchnorm.BatchNorm3d"},
   "(Tensor input)", "torch.nn.functional.batch_norm",
   {{"input", "input"}, {"running_mean", "@running_mean"},
    {"running_var", "@running_var"}, {"weight", "@weight"},
    {"bias", "@bias"}, {"training", "@training"},
    {"momentum", "@momentum"}, {"eps", "@eps"}}},
  {"torch.nn.LayerNorm", {"torch.nn.modules.normalization.LayerNorm",
    "megengine.module.LayerNorm"},
   "(Tensor input)",
   "torch.nn.functional.layer_norm",
   {{"input", "input"}, {"normalized_shape", "@normalized_shape"},
    {"weight", "@weight"}, {"bias", "@bias"}, {"eps", "@eps"}}},
  {"torch.nn.ReLU", {"torch.nn.modules.activation.ReLU",
    "megengine.module.ReLU"},
   "(Tensor input)",
   "torch.nn.functional.relu",
   {{"input", "input"}, {"inplace", "@inplace"}}},
  {"torch.nn.ReLU6", {"torch.nn.modules.activation.ReLU6"},
   "(Tensor input)", "torch.nn.functional.relu6",
   {{"input", "input"}, {"inplace", "@inplace"}}},
  {"torch.nn.Hardtanh", {"torch.nn.modules.activation.Hardtanh"},
   "(Tensor input)", "torch.nn.functional.hardtanh",
   {{"input", "input"}, {"min_val", "@min_val"}, {"max_val", "@max_val"},
    {"inplace", "@inplace"}}},
  {"torch.nn.GELU", {"torch.nn.modules.activation.GELU",
    "megengine.module.GELU"},
   "(Tensor input)",
   "torch.nn.functional.gelu",
   {{"input", "input"}, {"approximate", "@approximate"}}},
  {"torch.nn.SiLU", {"torch.nn.modules.activation.SiLU",
    "megengine.module.SiLU"},
   "(Tensor input)",
   "torch.nn.functional.silu",
   {{"input", "input"}, {"inplace", "@inplace"}}},
  {"torch.nn.Hardswish", {"torch.nn.modules.activation.Hardswish"},
   "(Tensor input)",
   "torch.nn.functional.hardswish",
   {{"input", "input"}, {"inplace", "@inplace"}}},
  {"torch.nn.Hardsigmoid", {"torch.nn.modules.activation.Hardsigmoid"},
   "(Tensor input)",
   "torch.nn.functional.hardsigmoid",
   {{"input", "input"}, {"inplace", "@inplace"}}},
  {"torch.nn.LeakyReLU", {"torch.nn.modules.activation.LeakyReLU",
    "megengine.module.LeakyReLU"},
   "(Tensor input)",
   "torch.nn.functional.leaky_relu",
   {{"input", "input"}, {"negative_slope", "@negative_slope"},
    {"inplace", "@inplace"}}},
  {"torch.nn.ELU", {"torch.nn.modules.activation.ELU"},
   "(Tensor input)", "torch.nn.functional.elu",
   {{"input", "input"}, {"alpha", "@alpha"}, {"inplace", "@inplace"}}},
  {"torch.nn.SELU", {"torch.nn.modules.activation.SELU"},
   "(Tensor input)", "torch.nn.functional.selu",
   {{"input", "input"}, {"inplace", "@inplace"}}},
  {"torch.nn.CELU", {"torch.nn.modules.activation.CELU"},
   "(Tensor input)", "torch.nn.functional.celu",
   {{"input", "input"}, {"alpha", "@alpha"}, {"inplace", "@inplace"}}},
  {"torch.nn.Softplus", {"torch.nn.modules.activation.Softplus"},
   "(Tensor input)", "torch.nn.functional.softplus",
   {{"input", "input"}, {"beta", "@beta"}, {"threshold", "@threshold"}}},
  {"torch.nn.Softsign", {"torch.nn.modules.activation.Softsign"},
   "(Tensor input)", "torch.nn.functional.softsign",
   {{"input", "input"}}},
  {"torch.nn.Mish", {"torch.nn.modules.activation.Mish"},
   "(Tensor input)", "torch.nn.functional.mish",
   {{"input", "input"}, {"inplace", "@inplace"}}},
  {"torch.nn.Hardshrink", {"torch.nn.modules.activation.Hardshrink"},
   "(Tensor input)", "torch.nn.functional.hardshrink",
   {{"input", "input"}, {"lambd", "@lambd"}}},
  {"torch.nn.Softshrink", {"torch.nn.modules.activation.Softshrink"},
   "(Tensor input)", "torch.nn.functional.softshrink",
   {{"input", "input"}, {"lambd", "@lambd"}}},
  {"torch.nn.Tanhshrink", {"torch.nn.modules.activation.Tanhshrink"},
   "(Tensor input)", "torch.nn.functional.tanhshrink",
   {{"input", "input"}}},
  {"torch.nn.Threshold", {"torch.nn.modules.activation.Threshold"},
   "(Tensor input)", "torch.nn.functional.threshold",
   {{"input", "input"}, {"threshold", "@threshold"}, {"value", "@value"}, {"inplace", "@inplace"}}},
  {"torch.nn.RReLU", {"torch.nn.modules.activation.RReLU"},
   "(Tensor input)", "torch.nn.functional.rrelu",
   {{"input", "input"}, {"lower", "@lower"}, {"upper", "@upper"}, {"training", "@training"}, {"inplace", "@inplace"}}},
  {"torch.nn.LogSigmoid", {"torch.nn.modules.activation.LogSigmoid"},
   "(Tensor input)", "torch.nn.functional.logsigmoid",
   {{"input", "input"}}},
  {"torch.nn.LogSoftmax", {"torch.nn.modules.activation.LogSoftmax"},
   "(Tensor input)", "torch.nn.functional.log_softmax",
   {{"input", "input"}, {"dim", "@dim"}}},
  {"torch.nn.Embedding", {"torch.nn.modules.sparse.Embedding",
    "megengine.module.Embedding"},
   "(Tensor input)", "torch.nn.functional.embedding",
   {{"input", "input"}, {"weight", "@weight"}, {"padding_idx", "@padding_idx"},
    {"max_norm", "@max_norm"}, {"norm_type", "@norm_type"},
    {"scale_grad_by_freq", "@scale_grad_by_freq"}, {"sparse", "@sparse"}}},
  {"torch.nn.MSELoss", {"torch.nn.modules.loss.MSELoss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.mse_loss",
   {{"input", "input"}, {"target", "target"}, {"reduction", "@reduction"}}},
  {"torch.nn.L1Loss", {"torch.nn.modules.loss.L1Loss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.l1_loss",
   {{"input", "input"}, {"target", "target"}, {"reduction", "@reduction"}}},
  {"torch.nn.SmoothL1Loss", {"torch.nn.modules.loss.SmoothL1Loss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.smooth_l1_loss",
   {{"input", "input"}, {"target", "target"}, {"reduction", "@reduction"}, {"beta", "@beta"}}},
  {"torch.nn.HuberLoss", {"torch.nn.modules.loss.HuberLoss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.huber_loss",
   {{"input", "input"}, {"target", "target"}, {"reduction", "@reduction"}, {"delta", "@delta"}}},
  {"torch.nn.SoftMarginLoss", {"torch.nn.modules.loss.SoftMarginLoss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.soft_margin_loss",
   {{"input", "input"}, {"target", "target"}, {"reduction", "@reduction"}}},
  {"torch.nn.BCELoss", {"torch.nn.modules.loss.BCELoss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.binary_cross_entropy",
   {{"input", "input"}, {"target", "target"}, {"reduction", "@reduction"}, {"weight", "@weight"}}},
  {"torch.nn.BCEWithLogitsLoss", {"torch.nn.modules.loss.BCEWithLogitsLoss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.binary_cross_entropy_with_logits",
   {{"input", "input"}, {"target", "target"}, {"reduction", "@reduction"}, {"weight", "@weight"}, {"pos_weight", "@pos_weight"}}},
  {"torch.nn.KLDivLoss", {"torch.nn.modules.loss.KLDivLoss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.kl_div",
   {{"input", "input"}, {"target", "target"}, {"reduction", "@reduction"}, {"log_target", "@log_target"}}},
  {"torch.nn.NLLLoss", {"torch.nn.modules.loss.NLLLoss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.nll_loss",
   {{"input", "input"}, {"target", "target"}, {"reduction", "@reduction"}, {"weight", "@weight"}, {"ignore_index", "@ignore_index"}}},
  {"torch.nn.CrossEntropyLoss", {"torch.nn.modules.loss.CrossEntropyLoss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.cross_entropy",
   {{"input", "input"}, {"target", "target"}, {"reduction", "@reduction"}, {"weight", "@weight"}, {"ignore_index", "@ignore_index"}, {"label_smoothing", "@label_smoothing"}}},
  {"torch.nn.LocalResponseNorm", {"torch.nn.modules.normalization.LocalResponseNorm"},
   "(Tensor input)", "torch.nn.functional.local_response_norm",
   {{"input", "input"}, {"size", "@size"}, {"alpha", "@alpha"}, {"beta", "@beta"}, {"k", "@k"}}},
  {"torch.nn.MarginRankingLoss", {"torch.nn.modules.loss.MarginRankingLoss"},
   "(Tensor input1, Tensor input2, Tensor target)", "torch.nn.functional.margin_ranking_loss",
   {{"input1", "input1"}, {"input2", "input2"}, {"target", "target"}, {"margin", "@margin"}, {"reduction", "@reduction"}}},
  {"torch.nn.HingeEmbeddingLoss", {"torch.nn.modules.loss.HingeEmbeddingLoss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.hinge_embedding_loss",
   {{"input", "input"}, {"target", "target"}, {"margin", "@margin"}, {"reduction", "@reduction"}}},
  {"torch.nn.CosineEmbeddingLoss", {"torch.nn.modules.loss.CosineEmbeddingLoss"},
   "(Tensor input1, Tensor input2, Tensor target)", "torch.nn.functional.cosine_embedding_loss",
   {{"input1", "input1"}, {"input2", "input2"}, {"target", "target"}, {"margin", "@margin"}, {"reduction", "@reduction"}}},
  {"torch.nn.GaussianNLLLoss", {"torch.nn.modules.loss.GaussianNLLLoss"},
   "(Tensor input, Tensor target, Tensor var)", "torch.nn.functional.gaussian_nll_loss",
   {{"input", "input"}, {"target", "target"}, {"var", "var"}, {"full", "@full"}, {"eps", "@eps"}, {"reduction", "@reduction"}}},
  {"torch.nn.MultiLabelSoftMarginLoss", {"torch.nn.modules.loss.MultiLabelSoftMarginLoss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.multilabel_soft_margin_loss",
   {{"input", "input"}, {"target", "target"}, {"weight", "@weight"}, {"reduction", "@reduction"}}},
  {"torch.nn.TripletMarginLoss", {"torch.nn.modules.loss.TripletMarginLoss"},
   "(Tensor anchor, Tensor positive, Tensor negative)", "torch.nn.functional.triplet_margin_loss",
   {{"anchor", "anchor"}, {"positive", "positive"}, {"negative", "negative"}, {"margin", "@margin"}, {"p", "@p"}, {"eps", "@eps"}, {"swap", "@swap"}, {"reduction", "@reduction"}}},
  {"torch.nn.MultiMarginLoss", {"torch.nn.modules.loss.MultiMarginLoss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.multi_margin_loss",
   {{"input", "input"}, {"target", "target"}, {"p", "@p"}, {"margin", "@margin"}, {"weight", "@weight"}, {"reduction", "@reduction"}}},
  {"torch.nn.MultiLabelMarginLoss", {"torch.nn.modules.loss.MultiLabelMarginLoss"},
   "(Tensor input, Tensor target)", "torch.nn.functional.multilabel_margin_loss",
   {{"input", "input"}, {"target", "target"}, {"reduction", "@reduction"}}},
  {"torch.nn.MaxUnpool1d", {"torch.nn.modules.pooling.MaxUnpool1d"},
   "(Tensor input, Tensor indices, int[]? output_size=None)",
   "torch.nn.functional.max_unpool1d",
   {{"input", "input"}, {"indices", "indices"}, {"output_size", "output_size"},
    {"kernel_size", "@kernel_size"}, {"stride", "@stride"}, {"padding", "@padding"}}},
  {"torch.nn.MaxUnpool2d", {"torch.nn.modules.pooling.MaxUnpool2d"},
   "(Tensor input, Tensor indices, int[]? output_size=None)",
   "torch.nn.functional.max_unpool2d",
   {{"input", "input"}, {"indices", "indices"}, {"output_size", "output_size"},
    {"kernel_size", "@kernel_size"}, {"stride", "@stride"}, {"padding", "@padding"}}},
  {"torch.nn.MaxUnpool3d", {"torch.nn.modules.pooling.MaxUnpool3d"},
   "(Tensor input, Tensor indices, int[]? output_size=None)",
   "torch.nn.functional.max_unpool3d",
   {{"input", "input"}, {"indices", "indices"}, {"output_size", "output_size"},
    {"kernel_size", "@kernel_size"}, {"stride", "@stride"}, {"padding", "@padding"}}},
  {"torch.nn.GLU", {"torch.nn.modules.activation.GLU"},
   "(Tensor input)", "torch.nn.functional.glu",
   {{"input", "input"}, {"dim", "@dim"}}},
  {"torch.nn.PReLU", {"torch.nn.modules.activation.PReLU"},
   "(Tensor input)", "torch.nn.functional.prelu",
   {{"input", "input"}, {"weight", "@weight"}}},
  {"torch.nn.Softmin", {"torch.nn.modules.activation.Softmin"},
   "(Tensor input)", "torch.nn.functional.softmin",
   {{"input", "input"}, {"dim", "@dim"}}},
  {"torch.nn.GroupNorm", {"torch.nn.modules.normalization.GroupNorm",
    "megengine.module.GroupNorm"},
   "(Tensor input)", "torch.nn.functional.group_norm",
   {{"input", "input"}, {"num_groups", "@num_groups"}, {"weight", "@weight"},
    {"bias", "@bias"}, {"eps", "@eps"}}},
  {"torch.nn.Upsample", {"torch.nn.modules.upsampling.Upsample"},
   "(Tensor input)", "torch.nn.functional.interpolate",
   {{"input", "input"}, {"size", "@size"}, {"scale_factor", "@scale_factor"},
    {"mode", "@mode"}, {"align_corners", "@align_corners"},
    {"recompute_scale_factor", "@recompute_scale_factor"}}},
  {"torch.nn.UpsamplingNearest2d",
   {"torch.nn.modules.upsampling.UpsamplingNearest2d"},
   "(Tensor input)", "torch.nn.functional.interpolate",
   {{"input", "input"}, {"size", "@size"}, {"scale_factor", "@scale_factor"},
    {"mode", "=\"nearest\""}}},
  {"torch.nn.UpsamplingBilinear2d",
   {"torch.nn.modules.upsampling.UpsamplingBilinear2d"},
   "(Tensor input)", "torch.nn.functional.interpolate",
   {{"input", "input"}, {"size", "@size"}, {"scale_factor", "@scale_factor"},
    {"mode", "=\"bilinear\""}, {"align_corners", "=True"}}},
  {"torch.nn.Sigmoid", {"torch.nn.modules.activation.Sigmoid",
    "megengine.module.Sigmoid"},
   "(Tensor input)",
   "torch.sigmoid", {{"input", "input"}}},
  {"torch.nn.Tanh", {"torch.nn.modules.activation.Tanh"},
   "(Tensor input)", "torch.tanh", {{"input", "input"}}},
  {"torch.nn.Softmax", {"torch.nn.modules.activation.Softmax",
    "megengine.module.Softmax"},
   "(Tensor input)",
   "torch.nn.functional.softmax", {{"input", "input"}, {"dim", "@dim"}}},
  {"torch.nn.Dropout1d", {"torch.nn.modules.dropout.Dropout1d"}, "(Tensor input)",
   "torch.nn.functional.dropout1d",
   {{"input", "input"}, {"p", "@p"}, {"training", "@training"}, {"inplace", "@inplace"}}},
  {"torch.nn.Dropout2d", {"torch.nn.modules.dropout.Dropout2d"}, "(Tensor input)",
   "torch.nn.functional.dropout2d",
   {{"input", "input"}, {"p", "@p"}, {"training", "@training"}, {"inplace", "@inplace"}}},
  {"torch.nn.Dropout3d", {"torch.nn.modules.dropout.Dropout3d"}, "(Tensor input)",
   "torch.nn.functional.dropout3d",
   {{"input", "input"}, {"p", "@p"}, {"training", "@training"}, {"inplace", "@inplace"}}},
  {"torch.nn.AlphaDropout", {"torch.nn.modules.dropout.AlphaDropout"}, "(Tensor input)",
   "torch.nn.functional.alpha_dropout",
   {{"input", "input"}, {"p", "@p"}, {"training", "@training"}, {"inplace", "@inplace"}}},
  {"torch.nn.FeatureAlphaDropout", {"torch.nn.modules.dropout.FeatureAlphaDropout"}, "(Tensor input)",
   "torch.nn.functional.feature_alpha_dropout",
   {{"input", "input"}, {"p", "@p"}, {"training", "@training"}, {"inplace", "@inplace"}}},
  {"torch.nn.CosineSimilarity", {"torch.nn.modules.distance.CosineSimilarity"},
   "(Tensor x1, Tensor x2)", "torch.nn.functional.cosine_similarity",
   {{"x1", "x1"}, {"x2", "x2"}, {"dim", "@dim"}, {"eps", "@eps"}}},
  {"torch.nn.PairwiseDistance", {"torch.nn.modules.distance.PairwiseDistance"},
   "(Tensor x1, Tensor x2)", "torch.nn.functional.pairwise_distance",
   {{"x1", "x1"}, {"x2", "x2"}, {"p", "@norm"}, {"eps", "@eps"},
    {"keepdim", "@keepdim"}}},
  {"torch.nn.EmbeddingBag", {"torch.nn.modules.sparse.EmbeddingBag"},
   "(Tensor input, Tensor? offsets=None, Tensor? per_sample_weights=None)",
   "torch.nn.functional.embedding_bag",
   {{"input", "input"}, {"weight", "@weight"}, {"offsets", "offsets"},
    {"max_norm", "@max_norm"}, {"norm_type", "@norm_type"},
    {"scale_grad_by_freq", "@scale_grad_by_freq"}, {"mode", "@mode"},
    {"sparse", "@sparse"}, {"per_sample_weights", "per_sample_weights"},
    {"include_last_offset", "@include_last_offset"},
    {"padding_idx", "@padding_idx"}}},
  {"torch.nn.Bilinear", {"torch.nn.modules.linear.Bilinear"},
   "(Tensor input1, Tensor input2)", "torch.nn.functional.bilinear",
   {{"input1", "input1"}, {"input2", "input2"}, {"weight", "@weight"},
    {"bias", "@bias"}}},
  {"torch.nn.PoissonNLLLoss", {"torch.nn.modules.loss.PoissonNLLLoss"},
   "(Tensor log_input, Tensor target)", "torch.nn.functional.poisson_nll_loss",
   {{"input", "log_input"}, {"target", "target"}, {"log_input", "@log_input"},
    {"full", "@full"}, {"eps", "@eps"}, {"reduction", "@reduction"}}},
  {"torch.nn.Unfold", {"torch.nn.modules.fold.Unfold"},
   "(Tensor input)", "torch.nn.functional.unfold",
   {{"input", "input"}, {"kernel_size", "@kernel_size"},
    {"dilation", "@dilation"}, {"padding", "@padding"}, {"stride", "@stride"}}},
  {"torch.nn.Fold", {"torch.nn.modules.fold.Fold"},
   "(Tensor input)", "torch.nn.functional.fold",
   {{"input", "input"}, {"output_size", "@output_size"},
    {"kernel_size", "@kernel_size"}, {"dilation", "@dilation"},
    {"padding", "@padding"}, {"stride", "@stride"}}},
  {"torch.nn.RNN", {"torch.nn.modules.rnn.RNN"},
   "(Tensor input, Any hx=None)", "traced.nn.rnn",
   kRecurrentBindings},
  {"torch.nn.LSTM", {"torch.nn.modules.rnn.LSTM"},
   "(Tensor input, Any hx=None)", "traced.nn.rnn",
   kRecurrentBindings},
  {"torch.nn.GRU", {"torch.nn.modules.rnn.GRU"},
   "(Tensor input, Any hx=None)", "traced.nn.rnn",
   kRecurrentBindings},
  {"torch.nn.RNNCell", {"torch.nn.modules.rnn.RNNCell"},
   "(Tensor input, Any hx=None)", "traced.nn.rnn_cell",
   {{"input", "input"}, {"hx", "hx"}, {"params", "@*"}, {"mode", "@nonlinearity"},
    {"input_size", "@input_size"}, {"hidden_size", "@hidden_size"},
    {"bias", "@bias"}}},
  {"torch.nn.LSTMCell", {"torch.nn.modules.rnn.LSTMCell"},
   "(Tensor input, Any hx=None)", "traced.nn.rnn_cell",
   {{"input", "input"}, {"hx", "hx"}, {"params", "@*"}, {"mode", "=\"LSTM\""},
    {"input_size", "@input_size"}, {"hidden_size", "@hidden_size"},
    {"bias", "@bias"}}},
  {"torch.nn.GRUCell", {"torch.nn.modules.rnn.GRUCell"},
   "(Tensor input, Any hx=None)", "traced.nn.rnn_cell",
   {{"input", "input"}, {"hx", "hx"}, {"params", "@*"}, {"mode", "=\"GRU\""},
    {"input_size", "@input_size"}, {"hidden_size", "@hidden_size"},
    {"bias", "@bias"}}},
  {"torch.nn.PixelShuffle", {"torch.nn.modules.pixelshuffle.PixelShuffle"},
   "(Tensor input)", "torch.nn.functional.pixel_shuffle",
   {{"input", "input"}, {"upscale_factor", "@upscale_factor"}}},
  {"torch.nn.PixelUnshuffle", {"torch.nn.modules.pixelshuffle.PixelUnshuffle"},
   "(Tensor input)", "torch.nn.functional.pixel_unshuffle",
   {{"input", "input"}, {"downscale_factor", "@downscale_factor"}}},
  {"torch.nn.ChannelShuffle", {"torch.nn.modules.channelshuffle.ChannelShuffle"},
   "(Tensor input)", "torch.nn.functional.channel_shuffle",
   {{"input", "input"}, {"groups", "@groups"}}},
  {"torch.nn.Softmax2d", {"torch.nn.modules.activation.Softmax2d"},
   "(Tensor input)", "torch.nn.functional.softmax",
   {{"input", "input"}, {"dim", "=-3"}}},
  {"torch.nn.Unflatten", {"torch.nn.modules.flatten.Unflatten"},
   "(Tensor input)", "Tensor.unflatten",
   {{"input", "input"}, {"dim", "@dim"}, {"sizes", "@unflattened_size"}}},
  {"torch.nn.Dropout", {"torch.nn.modules.dropout.Dropout",
    "megengine.module.Dropout"},
   "(Tensor input)",
   "torch.nn.functional.dropout",
   {{"input", "input"}, {"p", "@p"}, {"training", "@training"},
    {"inplace", "@inplace"}}},
  {"torch.nn.MaxPool1d", {"torch.nn.modules.pooling.MaxPool1d"},
   "(Tensor input)", "torch.nn.functional.max_pool1d",
   {{"input", "input"}, {"kernel_size", "@kernel_size"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"dilation", "@dilation"}, {"ceil_mode", "@ceil_mode"},
    {"return_indices", "@return_indices"}}},
  {"torch.nn.MaxPool2d", {"torch.nn.modules.pooling.MaxPool2d",
    "megengine.module.MaxPool2d"},
   "(Tensor input)", "torch.nn.functional.max_pool2d",
   {{"input", "input"}, {"kernel_size", "@kernel_size"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"dilation", "@dilation"}, {"ceil_mode", "@ceil_mode"},
    {"return_indices", "@return_indices"}}},
  {"torch.nn.MaxPool3d", {"torch.nn.modules.pooling.MaxPool3d"},
   "(Tensor input)", "torch.nn.functional.max_pool3d",
   {{"input", "input"}, {"kernel_size", "@kernel_size"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"dilation", "@dilation"}, {"ceil_mode", "@ceil_mode"},
    {"return_indices", "@return_indices"}}},
  {"torch.nn.AvgPool1d", {"torch.nn.modules.pooling.AvgPool1d"},
   "(Tensor input)", "torch.nn.functional.avg_pool1d",
   {{"input", "input"}, {"kernel_size", "@kernel_size"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"ceil_mode", "@ceil_mode"}, {"count_include_pad", "@count_include_pad"}}},
  {"torch.nn.AvgPool2d", {"torch.nn.modules.pooling.AvgPool2d",
    "megengine.module.AvgPool2d"},
   "(Tensor input)", "torch.nn.functional.avg_pool2d",
   {{"input", "input"}, {"kernel_size", "@kernel_size"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"ceil_mode", "@ceil_mode"}, {"count_include_pad", "@count_include_pad"},
    {"divisor_override", "@divisor_override"}}},
  {"torch.nn.AvgPool3d", {"torch.nn.modules.pooling.AvgPool3d"},
   "(Tensor input)", "torch.nn.functional.avg_pool3d",
   {{"input", "input"}, {"kernel_size", "@kernel_size"},
    {"stride", "@stride"}, {"padding", "@padding"},
    {"ceil_mode", "@ceil_mode"}, {"count_include_pad", "@count_include_pad"},
    {"divisor_override", "@divisor_override"}}},
  {"torch.nn.AdaptiveAvgPool1d", {"torch.nn.modules.pooling.AdaptiveAvgPool1d"},
   "(Tensor input)", "torch.nn.functional.adaptive_avg_pool1d",
   {{"input", "input"}, {"output_size", "@output_size"}}},
  {"torch.nn.AdaptiveAvgPool2d", {"torch.nn.modules.pooling.AdaptiveAvgPool2d",
    "megengine.module.AdaptiveAvgPool2d"},
   "(Tensor input)", "torch.nn.functional.adaptive_avg_pool2d",
   {{"input", "input"}, {"output_size", "@output_size"}}},
  {"torch.nn.AdaptiveAvgPool3d", {"torch.nn.modules.pooling.AdaptiveAvgPool3d"},
   "(Tensor input)", "torch.nn.functional.adaptive_avg_pool3d",
   {{"input", "input"}, {"output_size", "@output_size"}}},
  {"torch.nn.AdaptiveMaxPool1d", {"torch.nn.modules.pooling.AdaptiveMaxPool1d"},
   "(Tensor input)", "torch.nn.functional.adaptive_max_pool1d",
   {{"input", "input"}, {"output_size", "@output_size"},
    {"return_indices", "@return_indices"}}},
  {"torch.nn.AdaptiveMaxPool2d", {"torch.nn.modules.pooling.AdaptiveMaxPool2d"},
   "(Tensor input)", "torch.nn.functional.adaptive_max_pool2d",
   {{"input", "input"}, {"output_size", "@output_size"},
    {"return_indices", "@return_indices"}}},
  {"torch.nn.AdaptiveMaxPool3d", {"torch.nn.modules.pooling.AdaptiveMaxPool3d"},
   "(Tensor input)", "torch.nn.functional.adaptive_max_pool3d",
   {{"input", "input"}, {"output_size", "@output_size"},
    {"return_indices", "@return_indices"}}},
  {"torch.nn.LPPool1d", {"torch.nn.modules.pooling.LPPool1d"},
   "(Tensor input)", "torch.nn.functional.lp_pool1d",
   {{"input", "input"}, {"norm_type", "@norm_type"},
    {"kernel_size", "@kernel_size"}, {"stride", "@stride"},
    {"ceil_mode", "@ceil_mode"}}},
  {"torch.nn.LPPool2d", {"torch.nn.modules.pooling.LPPool2d"},
   "(Tensor input)", "torch.nn.functional.lp_pool2d",
   {{"input", "input"}, {"norm_type", "@norm_type"},
    {"kernel_size", "@kernel_size"}, {"stride", "@stride"},
    {"ceil_mode", "@ceil_mode"}}},
  {"torch.nn.Flatten", {"torch.nn.modules.flatten.Flatten"},
   "(Tensor input)", "torch.flatten",
   {{"input", "input"}, {"start_dim", "@start_dim"},
    {"end_dim", "@end_dim"}}},
};
// clang-format on

namespace {
/// Dtype sets of kRejectedDTypes, one bit per DType.
constexpr uint16_t bit(DType d) { return 1u << static_cast<unsigned>(d); }
constexpr uint16_t kBool = bit(DType::Bool);
constexpr uint16_t kF16 = bit(DType::F16);
constexpr uint16_t kInts = bit(DType::U8) | bit(DType::I8) | bit(DType::I16) |
                           bit(DType::I32) | bit(DType::I64);
constexpr uint16_t kBF16 = bit(DType::BF16);
/// The integer types but int64.
constexpr uint16_t kNarrowInts =
    bit(DType::U8) | bit(DType::I8) | bit(DType::I16) | bit(DType::I32);
constexpr uint16_t kFloats =
    bit(DType::F16) | bit(DType::BF16) | bit(DType::F32) | bit(DType::F64);

/// What torch 1.13 has no CPU kernel for, by entry (the dispatch macros of
/// its kernels: many float ops skip float16 on the CPU; activations take
/// floating point only). The conformance suite checks this table against
/// torch (test_conformance.py).
struct RejectedDTypes {
  const char *entry;
  uint16_t dtypes;
  /// Whether torch returns before dispatching on the dtype when the input
  /// is empty (so an empty input of a rejected dtype is accepted).
  bool emptyShortcut = false;
  /// OpSpec::unitOutputDims.
  uint8_t unitOutputDims = 0;
};
const RejectedDTypes kRejectedDTypes[] = {
    // nanmean(): expected input to have floating point dtype.
    {"torch.nanmean", kBool | kInts},
    // The c2r FFTs: "Unsupported dtype Half" (and BFloat16).
    {"torch.fft.irfft", kF16 | kBF16},  {"torch.fft.irfft2", kF16 | kBF16},
    {"torch.fft.irfftn", kF16 | kBF16}, {"torch.fft.hfft", kF16 | kBF16},
    {"torch.fft.hfft2", kF16 | kBF16},  {"torch.fft.hfftn", kF16 | kBF16},
    // stft: "expected a tensor of floating point or complex values" (and
    // float16's complex FFT is missing); istft: view_as_complex of float
    // types only, and col2im has no float16.
    {"torch.functional.stft", kBool | kInts | kF16 | kBF16},
    {"torch.istft", kBool | kInts | kF16 | kBF16},
    // "igamma_cpu" not implemented for 'Long' (and bool, the other ints).
    {"torch.igamma", kBool | kInts},    {"torch.igammac", kBool | kInts},
    // "unique" not implemented for 'Half'.
    {"torch.functional.unique_consecutive", kF16},
    // Convolutions: no bool or float16; transposed ones only float32,
    // float64 and int64 (slow_conv_transpose2d/3d; bfloat16 fails a channel
    // check). torch.convolution's transposed case is its rule's.
    {"torch.nn.functional.conv1d", kBool | kF16},
    // upsample_nearest*d: uint8, float32, float64, bfloat16.
    {"torch.ops.aten.upsample_nearest1d.default",
     kBool | (kInts & ~bit(DType::U8)) | kF16},
    {"torch.ops.aten.upsample_nearest2d.default",
     kBool | (kInts & ~bit(DType::U8)) | kF16},
    {"torch.ops.aten.upsample_nearest3d.default",
     kBool | (kInts & ~bit(DType::U8)) | kF16},
    // "aminmax_cpu" not implemented for 'Half'.
    {"torch.aminmax", kF16},
    {"torch.nn.functional.conv2d", kBool | kF16},
    {"torch.nn.functional.conv3d", kBool | kF16},
    {"torch.convolution", kBool | kF16},
    {"torch.conv_tbc", kBool | kF16},
    {"torch.nn.functional.conv_transpose1d",
     kBool | kF16 | bit(DType::BF16) | (kInts & ~bit(DType::I64))},
    {"torch.nn.functional.conv_transpose2d",
     kBool | kF16 | bit(DType::BF16) | (kInts & ~bit(DType::I64))},
    {"torch.nn.functional.conv_transpose3d",
     kBool | kF16 | bit(DType::BF16) | (kInts & ~bit(DType::I64))},
    // Activations: floating point, no float16.
    {"torch.nn.functional.relu", kBool | kF16},
    {"torch.nn.functional.relu6", kBool | kF16},
    {"torch.nn.functional.hardtanh", kBool | kF16 | bit(DType::U8)},
    {"torch.nn.functional.threshold", kBool | kF16 | bit(DType::U8)},
    {"torch.nn.functional.gelu", kBool | kInts | kF16},
    {"torch.nn.functional.silu", kBool | kInts | kF16},
    {"torch.nn.functional.hardswish", kBool | kInts | kF16},
    {"torch.nn.functional.hardsigmoid", kBool | kInts | kF16},
    {"torch.nn.functional.leaky_relu", kBool | kInts | kF16},
    {"torch.nn.functional.elu", kBool | kInts | kF16},
    {"torch.nn.functional.selu", kBool | kInts | kF16},
    {"torch.nn.functional.celu", kBool | kInts | kF16},
    {"torch.nn.functional.softplus", kBool | kInts | kF16},
    {"torch.nn.functional.mish", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.nn.functional.hardshrink", kBool | kInts | kF16},
    {"torch.nn.functional.softshrink", kBool | kInts | kF16},
    {"torch.nn.functional.rrelu", kBool | kInts | kF16},
    {"torch.nn.functional.logsigmoid", kBool | kInts | kF16},
    {"torch.nn.functional.softsign", kBool},
    {"torch.nn.functional.glu", kBool | kInts | kF16},
    {"torch.nn.functional.prelu", kBool | kInts | kF16},
    {"torch.nn.functional.group_norm", kBool | kInts | kF16},
    // "LayerNormKernelImpl" has no float16, even for an empty input.
    {"torch.nn.functional.layer_norm", kF16},
    {"torch.ops.aten.native_layer_norm.default", kF16},
    {"torch.nn.functional.instance_norm", kBool | kInts | kF16},
    // (its clamp_min has no float16 kernel)
    {"torch.nn.functional.normalize", kBool | kInts | kF16},
    {"torch.bincount", kBool | kFloats},
    // Activation gradients (ATen): in the promoted dtype of grad_output and
    // the forward's value.
    {"torch.ops.aten.threshold_backward.default", kBool | kF16},
    {"torch.ops.aten.tanh_backward.default", kBool | kInts | kF16},
    {"torch.ops.aten.sigmoid_backward.default", kBool | kInts},
    {"torch.ops.aten.leaky_relu_backward.default", kBool | kInts | kF16},
    {"torch.ops.aten.hardtanh_backward.default",
     kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.ops.aten.gelu_backward.default", kBool | kInts | kF16},
    {"torch.ops.aten.softplus_backward.default", kBool | kInts | kF16},
    {"torch.ops.aten.elu_backward.default", kBool | kInts | kF16},
    // Matrix products: no float16 (addmm_impl_cpu_, bmm, addmv, dot), but
    // an empty product returns first; matmul of two empty vectors is a dot,
    // which does not (so matmul refuses empty float16 operands too).
    {"torch.bmm", kBool | kF16, /*emptyShortcut=*/true},
    {"torch.mm", kBool | kF16, /*emptyShortcut=*/true},
    {"torch.matmul", kBool | kF16},
    {"Tensor.__rmatmul__", kBool | kF16},
    {"torch.diagflat", kF16},
    {"torch.addmm", kBool | kF16, /*emptyShortcut=*/true},
    {"torch.nn.functional.linear", kBool | kF16},
    {"torch.mv", kBool | kF16, /*emptyShortcut=*/true},
    {"torch.dot", kBool | kF16},
    {"torch.linalg.cross", kBool | kF16},
    {"torch.kthvalue", kBool | kF16},
    {"torch.logcumsumexp", kBool | kInts | kF16},
    {"torch.addbmm", kBool | kF16},
    // (bilinear: its rule, since its operands are not named `input`)
    {"torch.linalg.det", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.slogdet", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.inv", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.logdet", kBool | kInts | kF16 | bit(DType::BF16)},
    // (LAPACK has float32 and float64 kernels only.)
    {"torch.linalg.cholesky", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.cholesky_ex", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.cholesky", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.lu_factor", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.lu_factor_ex", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.solve", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.solve_ex", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.inv_ex", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.qr", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.qr", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.svd", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.svd", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.svdvals", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.eigh", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.eigvalsh", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.solve_triangular", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.triangular_solve", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.cummax", kF16},
    {"torch.cummin", kF16},
    {"torch.median", kBool | kF16},
    {"torch.nanmedian", kBool | kF16},
    {"torch.cholesky_solve", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.cholesky_inverse", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.symeig", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.geqrf", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.ormqr", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.matrix_rank", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.cond", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.pinv", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.pinverse", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.tensorinv", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.tensorsolve", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.lstsq", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.ldl_factor", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.ldl_factor_ex", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.ldl_solve", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.linalg.matrix_exp", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.nn.functional.poisson_nll_loss", kF16},
    {"torch.nn.functional.unfold", kBool | kInts},
    {"torch.nn.functional.grid_sample", kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.ops.aten.grid_sampler.default",
     kBool | kInts | kF16 | bit(DType::BF16)},
    {"torch.nn.functional.fold", kBool | kInts},
    {"torch.bucketize", kBool},
    {"torch.renorm", kBool | kInts},
    {"torch.cross", kBool | kF16},
    {"torch.nn.functional.tanhshrink", kBool | kF16},
    // Float math: integers promote, float16 has no CPU kernel.
    {"torch.sigmoid", kF16},       {"torch.tanh", kF16},
    {"torch.exp", kF16},           {"torch.log", kF16},
    {"torch.sqrt", kF16},          {"torch.rsqrt", kF16},
    {"torch.erf", kF16},           {"torch.erfc", kF16},
    {"torch.erfinv", kF16},        {"torch.expm1", kF16},
    // Special functions: float16 has no CPU kernel, and bfloat16 none
    // for i1, i1e, ndtri, log_ndtr, erfcx and zeta.
    {"torch.lgamma", kF16},        {"torch.digamma", kF16},
    {"torch.polygamma", kF16},     {"Tensor.polygamma", kF16},
    {"torch.mvlgamma", kF16},      {"torch.i0", kF16},
    {"torch.special.i0e", kF16},   {"torch.special.ndtr", kF16},
    {"torch.special.i1", kF16 | kBF16},
    {"torch.special.i1e", kF16 | kBF16},
    {"torch.special.ndtri", kF16 | kBF16},
    {"torch.special.log_ndtr", kF16 | kBF16},
    {"torch.special.erfcx", kF16 | kBF16},
    {"torch.special.zeta", kF16 | kBF16},
    {"torch.special.entr", kF16},
    {"torch.special.airy_ai", kF16 | kBF16},
    {"torch.special.bessel_j0", kF16 | kBF16},
    {"torch.special.bessel_j1", kF16 | kBF16},
    {"torch.special.bessel_y0", kF16 | kBF16},
    {"torch.special.bessel_y1", kF16 | kBF16},
    {"torch.special.modified_bessel_k0", kF16 | kBF16},
    {"torch.special.modified_bessel_k1", kF16 | kBF16},
    {"torch.special.scaled_modified_bessel_k0", kF16 | kBF16},
    {"torch.special.scaled_modified_bessel_k1", kF16 | kBF16},
    {"torch.special.chebyshev_polynomial_t", kF16 | kBF16},
    {"torch.special.chebyshev_polynomial_u", kF16 | kBF16},
    {"torch.special.chebyshev_polynomial_v", kF16 | kBF16},
    {"torch.special.chebyshev_polynomial_w", kF16 | kBF16},
    {"torch.special.shifted_chebyshev_polynomial_t", kF16 | kBF16},
    {"torch.special.shifted_chebyshev_polynomial_u", kF16 | kBF16},
    {"torch.special.shifted_chebyshev_polynomial_v", kF16 | kBF16},
    {"torch.special.shifted_chebyshev_polynomial_w", kF16 | kBF16},
    {"torch.special.hermite_polynomial_h", kF16 | kBF16},
    {"torch.special.hermite_polynomial_he", kF16 | kBF16},
    {"torch.special.laguerre_polynomial_l", kF16 | kBF16},
    {"torch.special.legendre_polynomial_p", kF16 | kBF16},
    {"torch.special.modified_bessel_i0", kF16 | kBF16},
    {"torch.special.modified_bessel_i1", kF16 | kBF16},
    {"torch.special.spherical_bessel_j0", kF16 | kBF16},
    {"torch.nextafter", kBool | kInts | kF16},
    {"torch.frexp", kBool | kInts},
    {"torch.gcd", kBool | kFloats},
    {"torch.lcm", kBool | kFloats},
    {"torch.log2", kF16},          {"torch.log10", kF16},
    {"torch.log1p", kF16},         {"torch.sin", kF16},
    {"torch.cos", kF16},           {"torch.tan", kF16},
    {"torch.asin", kF16},          {"torch.acos", kF16},
    {"torch.atan", kF16},          {"torch.sinh", kF16},
    {"torch.cosh", kF16},          {"torch.asinh", kF16},
    {"torch.acosh", kF16},         {"torch.atanh", kF16},
    {"torch.atan2", kF16},         {"torch.clamp", kF16},
    {"torch.clamp_min", kF16},     {"torch.clamp_max", kF16},
    {"torch.logaddexp", kBool | kInts | kF16},
    {"torch.logaddexp2", kBool | kInts | kF16},
    {"torch.logit", kF16},         {"torch.fmod", kBool},
    {"torch.sinc", kF16},          {"torch.floor_divide", kBool},
    {"torch.remainder", kBool},    {"torch.hypot", kF16},
    // ("pow" not implemented for 'Bool': bool ** int computes in int64)
    {"torch.pow", kBool},          {"Tensor.__rpow__", kBool},
    {"torch.nn.functional.cosine_similarity", kF16},
    // (clamp_min has no float16 kernel; log_softmax neither)
    {"torch.nn.functional.binary_cross_entropy_with_logits", kF16},
    {"torch.nn.functional.cross_entropy", kF16},
    // (torch computes it as exp, log1p... in the dtype: no float16 exp)
    {"torch.nn.functional.soft_margin_loss", kF16},
    // Integer-preserving math.
    {"torch.positive", kBool},
    {"torch.abs", kBool},          {"torch.neg", kBool},
    {"torch.floor", kBool | kF16}, {"torch.ceil", kBool | kF16},
    {"torch.trunc", kBool | kF16}, {"torch.round", kBool | kF16},
    {"torch.frac", kBool | kInts},
    // Bitwise ops: bool and integers.
    {"torch.bitwise_and", kFloats},
    {"torch.bitwise_or", kFloats},
    {"torch.bitwise_xor", kFloats},
    {"torch.bitwise_left_shift", kFloats | kBool},
    {"torch.bitwise_right_shift", kFloats | kBool},
    {"torch.bitwise_not", kFloats},
    // Pooling: float kernels only, except that average pooling (and
    // lp_pool, through it) has an int64 one; no float16 but in
    // adaptive_avg_pool3d, no bfloat16 in the 3-D ones but that.
    {"torch.nn.functional.max_pool1d", kBool | kInts | kF16},
    {"torch.nn.functional.max_pool2d", kBool | kInts | kF16},
    {"torch.nn.functional.max_pool3d", kBool | kInts | kF16 | kBF16},
    {"torch.nn.functional.max_pool1d_with_indices", kBool | kInts | kF16},
    {"torch.nn.functional.max_pool2d_with_indices", kBool | kInts | kF16},
    {"torch.nn.functional.max_pool3d_with_indices",
     kBool | kInts | kF16 | kBF16},
    {"torch.nn.functional.avg_pool1d", kBool | kNarrowInts | kF16},
    {"torch.nn.functional.avg_pool2d", kBool | kNarrowInts | kF16},
    {"torch.nn.functional.avg_pool3d", kBool | kNarrowInts | kF16 | kBF16},
    // (To an output of all ones they are a mean: float16 and bfloat16 too.)
    {"torch.nn.functional.adaptive_avg_pool1d", kBool | kInts | kF16, false, 1},
    {"torch.nn.functional.adaptive_avg_pool2d", kBool | kInts | kF16, false, 2},
    {"torch.nn.functional.adaptive_avg_pool3d", kBool | kInts | kBF16, false, 3},
    {"torch.nn.functional.adaptive_max_pool1d", kBool | kInts | kF16},
    {"torch.nn.functional.adaptive_max_pool2d", kBool | kInts | kF16},
    {"torch.nn.functional.adaptive_max_pool3d", kBool | kInts | kF16 | kBF16},
    {"torch.nn.functional.adaptive_max_pool1d_with_indices",
     kBool | kInts | kF16},
    {"torch.nn.functional.adaptive_max_pool2d_with_indices",
     kBool | kInts | kF16},
    {"torch.nn.functional.adaptive_max_pool3d_with_indices",
     kBool | kInts | kF16 | kBF16},
    // lp_pool: x ** p in float16 has no avg_pool; the integer types but
    // int64 have none either unless a float p makes x ** p float32, which
    // the result rule checks.
    {"torch.nn.functional.lp_pool1d", kF16},
    {"torch.nn.functional.lp_pool2d", kF16},
    // Reductions.
    {"torch.argmax", kBool},
    {"torch.argmin", kBool},
    {"torch.prod", kF16 | bit(DType::BF16), /*emptyShortcut=*/true},
    // (cumsum and cumprod: their rule, which reads dtype=)
    // logsumexp: an exp in the input's dtype ("exp_vml_cpu").
    {"torch.logsumexp", kF16},
};

/// In-place spellings of entries: `Tensor.add_` means `torch.add` written
/// into its input (the tracer points later uses at the call's result).
struct InplaceRow {
  const char *spelling;
  const char *entry;
};
const InplaceRow kInplace[] = {
    {"Tensor.add_", "torch.add"},
    // (ATen's packets only: an overload's name does not end in `_`, and
    // the tracers tell in-place calls by that.)
    {"torch.ops.aten.add_", "torch.add"},
    {"torch.ops.aten.sub_", "torch.sub"},
    {"torch.ops.aten.mul_", "torch.mul"},
    {"torch.ops.aten.div_", "torch.div"},
    {"Tensor.scatter_", "torch.scatter"},
    {"Tensor.scatter_add_", "torch.scatter_add"},
    {"Tensor.scatter_reduce_", "torch.scatter_reduce"},
    {"Tensor.index_add_", "torch.index_add"},
    {"Tensor.index_copy_", "torch.index_copy"},
    {"Tensor.index_fill_", "torch.index_fill"},
    {"Tensor.put_", "torch.put"},
    {"Tensor.__iadd__", "torch.add"},
    {"Tensor.__isub__", "torch.sub"},
    {"Tensor.__imul__", "torch.mul"},
    {"Tensor.__itruediv__", "torch.div"},
    {"Tensor.zero_", "torch.zeros_like"},
    {"torch.zero_", "torch.zeros_like"},
    {"torch.ops.aten.zero_", "torch.zeros_like"},
    {"torch.ops.aten.zero_.default", "torch.zeros_like"},
    {"Tensor.fill_", "torch.fill"},
    {"torch.fill_", "torch.fill"},
    {"torch.ops.aten.fill_", "torch.fill"},
    {"torch.ops.aten.fill_.Scalar", "torch.fill"},
    {"torch.ops.aten.fill_.Tensor", "torch.fill"},
    {"Tensor.copy_", "torch.ops.aten.copy.default"},
    {"torch.ops.aten._index_put_impl_", "torch.ops.aten._index_put_impl.default"},
    {"torch.ops.aten._index_put_impl_.default",
     "torch.ops.aten._index_put_impl.default"},
    {"torch.ops.aten.copy_", "torch.ops.aten.copy.default"},
    {"torch.ops.aten.copy_.default", "torch.ops.aten.copy.default"},
    {"Tensor.lerp_", "torch.lerp"},
    {"Tensor.addcmul_", "torch.addcmul"},
    {"Tensor.addcdiv_", "torch.addcdiv"},
    {"Tensor.clamp_max_", "torch.clamp_max"},
    {"Tensor.nan_to_num_", "torch.nan_to_num"},
    {"Tensor.copysign_", "torch.copysign"},
    {"Tensor.index_put_", "torch.index_put"},
    {"torch.index_put_", "torch.index_put"},
    {"Tensor.sub_", "torch.sub"},
    {"Tensor.mul_", "torch.mul"},
    {"Tensor.div_", "torch.div"},
    {"Tensor.pow_", "torch.pow"},
    {"Tensor.remainder_", "torch.remainder"},
    {"Tensor.fmod_", "torch.fmod"},
    {"Tensor.clamp_", "torch.clamp"},
    {"Tensor.clip_", "torch.clamp"},
    {"Tensor.clamp_min_", "torch.clamp_min"},
    {"Tensor.relu_", "torch.nn.functional.relu"},
    {"torch.relu_", "torch.nn.functional.relu"},
    {"torch._C._nn.hardtanh_", "torch.nn.functional.hardtanh"},
    {"torch._C._nn.leaky_relu_", "torch.nn.functional.leaky_relu"},
    {"torch._C._nn.elu_", "torch.nn.functional.elu"},
    {"torch.selu_", "torch.nn.functional.selu"},
    {"torch.celu_", "torch.nn.functional.celu"},
    {"Tensor.sigmoid_", "torch.sigmoid"},
    {"torch.sigmoid_", "torch.sigmoid"},
    {"Tensor.tanh_", "torch.tanh"},
    {"Tensor.exp_", "torch.exp"},
    {"Tensor.log_", "torch.log"},
    {"Tensor.sqrt_", "torch.sqrt"},
    {"Tensor.rsqrt_", "torch.rsqrt"},
    {"Tensor.abs_", "torch.abs"},
    {"Tensor.neg_", "torch.neg"},
    {"Tensor.floor_", "torch.floor"},
    {"Tensor.ceil_", "torch.ceil"},
    {"Tensor.round_", "torch.round"},
    {"Tensor.trunc_", "torch.trunc"},
    {"Tensor.sign_", "torch.sign"},
    {"Tensor.reciprocal_", "torch.reciprocal"},
    {"Tensor.masked_fill_", "Tensor.masked_fill"},
    {"Tensor.bitwise_and_", "torch.bitwise_and"},
    {"Tensor.bitwise_or_", "torch.bitwise_or"},
    {"Tensor.bitwise_xor_", "torch.bitwise_xor"},
    {"Tensor.logical_not_", "torch.logical_not"},
    {"Tensor.maximum_", "torch.maximum"},
    {"Tensor.minimum_", "torch.minimum"},
};

/// The calls the CPU compiler does not compile, on purpose, by entry
/// (OpSpec::interpreterOnly): the interpreter runs them, the compiler's
/// refusal quotes the reason, and the differential fuzzer takes a compile
/// refusal of a graph none of whose calls is marked here for a compiler
/// bug. An entry with a kernel but no lowering or decomposition must have
/// an unconditional row (test_fuzz_replay.py checks it both ways).
struct InterpreterOnlyRow {
  const char *entry;
  InterpreterOnly mark;
};

/// A call whose `training` (or `train`) flag is not the constant False.
bool training(const OpSpec &spec, const BoundArgs &args) {
  StringRef flag = spec.signature.lookup("train") ? "train" : "training";
  if (!spec.signature.lookup(flag))
    return false;
  auto value = dyn_cast_or_null<BoolAttr>(args.slot(flag));
  return !value || value.getValue();
}

/// A call whose `input` is not a static square matrix (or batch of them)
/// of 1 to 16 rows.
bool notSmallSquare(const OpSpec &, const BoundArgs &args) {
  auto type = dyn_cast_or_null<RankedTensorType>(args.valueType("input"));
  if (!type || !type.hasStaticShape() || type.getRank() < 2)
    return true;
  int64_t rows = type.getShape()[type.getRank() - 2];
  return rows != type.getShape().back() || rows > 16 || rows == 0;
}

/// A call given an `out=` tensor.
bool outGiven(const OpSpec &spec, const BoundArgs &args) {
  return spec.signature.lookup("out") && args.valueType("out");
}

constexpr llvm::StringLiteral kRandomTraining =
    "training mode draws random numbers; only eval mode (training=False) "
    "is compiled";
constexpr llvm::StringLiteral kSmallSquare =
    "unrolled Gaussian elimination, for static square matrices of 1 to 16 "
    "rows only";

const InterpreterOnlyRow kInterpreterOnly[] = {
    {"torch.nn.functional.dropout", {0, training, kRandomTraining}},
    {"torch.dropout", {0, training, kRandomTraining}},
    {"torchvision.ops.stochastic_depth.stochastic_depth",
     {0, training, kRandomTraining}},
    {"torch.nn.functional.dropout1d", {0, training, kRandomTraining}},
    {"torch.nn.functional.dropout2d", {0, training, kRandomTraining}},
    {"torch.nn.functional.dropout3d", {0, training, kRandomTraining}},
    {"torch.nn.functional.alpha_dropout", {0, training, kRandomTraining}},
    {"torch.nn.functional.feature_alpha_dropout",
     {0, training, kRandomTraining}},
    {"torch.nn.functional.rrelu",
     {0, training, "training mode draws random slopes; only eval mode "
                   "(training=False) is compiled"}},
    {"torch.nn.functional.normalize",
     {0, outGiven, "the result written into out= is not compiled (its "
                   "decomposition takes out=None)"}},
    {"torch.linalg.det", {0, notSmallSquare, kSmallSquare}},
    {"torch.linalg.slogdet", {0, notSmallSquare, kSmallSquare}},
    {"torch.logdet", {0, notSmallSquare, kSmallSquare}},
    {"torch.linalg.inv", {0, notSmallSquare, kSmallSquare}},
};

/// The entries that take quantized tensors (OpSpec::quantized); every other
/// entry refuses them. Storage entries compute on the storage integers.
struct QuantizedRow {
  const char *entry;
  QuantizedUse use;
};
constexpr QuantizedUse kStorage = QuantizedUse::Storage,
                       kSameQParams = QuantizedUse::SameQParams,
                       kNative = QuantizedUse::Native;
const QuantizedRow kQuantizedUse[] = {
    // Elements moved, copied or selected.
    {"torch.flatten", kStorage},
    {"Tensor.view", kStorage},
    {"torch.reshape", kStorage},
    {"torch.permute", kStorage},
    {"torch.transpose", kStorage},
    {"Tensor.contiguous", kStorage},
    {"torch.squeeze", kStorage},
    {"torch.unsqueeze", kStorage},
    {"torch.clone", kStorage},
    {"torch.chunk", kStorage},
    {"torch.split", kStorage},
    {"operator.getitem", kStorage},
    {"torch.nn.functional.dropout", kStorage},
    {"torch.nn.functional.max_pool1d", kStorage},
    {"torch.nn.functional.max_pool2d", kStorage},
    {"torch.nn.functional.max_pool3d", kStorage},
    {"Tensor.size", kStorage},
    {"Tensor.dim", kStorage},
    // Their own quantized semantics.
    // The quantized ops themselves.
    {"torch.quantize_per_tensor", kNative},
    {"torch.quantize_per_channel", kNative},
    {"torch.dequantize", kNative},
    {"torch.ops.quantized.add", kNative},
    {"torch.ops.quantized.add_relu", kNative},
    {"torch.ops.quantized.mul", kNative},
    {"torch.ops.quantized.mul_relu", kNative},
    {"torch.ops.quantized.cat", kNative},
    {"torch.ops.quantized.hardswish", kNative},
    {"torch.ops.quantized.leaky_relu", kNative},
    {"torch.ops.quantized.elu", kNative},
    {"torch.ao.nn.quantized.functional.conv1d", kNative},
    {"torch.ao.nn.quantized.functional.conv2d", kNative},
    {"torch.ao.nn.quantized.functional.conv3d", kNative},
    {"traced.quantized.conv_relu1d", kNative},
    {"traced.quantized.conv_relu2d", kNative},
    {"traced.quantized.conv_relu3d", kNative},
    {"torch.ao.nn.quantized.functional.linear", kNative},
    {"traced.quantized.linear_relu", kNative},
    {"traced.quantized.linear_dynamic", kNative},
    // Their own quantized kernels, results of the input's quantization.
    {"torch.nn.functional.relu", kSameQParams},
    {"torch.nn.functional.relu6", kSameQParams},
    {"torch.nn.functional.hardtanh", kSameQParams},
    {"torch.nn.functional.adaptive_avg_pool2d", kSameQParams},
    {"torch.nn.functional.avg_pool2d", kSameQParams},
    {"torch.mean", kSameQParams},
    // (Requantized to the first tensor's parameters, as torch does.)
    {"torch.cat", kSameQParams},
    // Their own quantized kernels, results of fixed parameters.
    {"torch.nn.functional.hardsigmoid", QuantizedUse::FixedQParams},
    {"torch.sigmoid", QuantizedUse::FixedQParams},
};

/// An ATen spelling of an entry: the overload packet (`torch.ops.aten.add`,
/// signature null: the entry's own) or one overload with its schema.
struct AtenRow {
  const char *spelling;
  const char *entry;
  const char *signature;
};
} // namespace

static const AtenRow kAtenOverloads[] = {
#include "AtenOverloads.inc"
};

OpLibrary::OpLibrary() {
  ops.reserve(std::size(kOps));
  for (const OpRow &row : kOps) {
    ResultRule rule = rules::ruleTable().lookup(row.rule);
    if (!rule)
      llvm::report_fatal_error(llvm::Twine("op table: '") + row.name +
                               "' names the unknown result rule '" + row.rule +
                               "'");
    ops.push_back(OpSpec{row.name, row.aliases, Signature::parse(row.signature),
                         rule, nullptr, row.pure, 0, false, 0, false, {}, {}});
  }
  modules.reserve(std::size(kModules));
  for (const ModuleRow &row : kModules)
    modules.push_back(ModuleSpec{row.className, row.aliases,
                                 Signature::parse(row.forward), row.functional,
                                 row.bindings});
  // Index by every spelling; a spelling may name one target only.
  auto add = [](auto &map, llvm::StringRef key, auto *value) {
    if (!map.try_emplace(key, value).second)
      llvm::report_fatal_error("op library: '" + key + "' is listed twice");
  };
  for (const RejectedDTypes &row : kRejectedDTypes) {
    auto it = llvm::find_if(
        ops, [&](const OpSpec &op) { return op.name == row.entry; });
    if (it == ops.end())
      llvm::report_fatal_error(llvm::Twine("op library: dtype row names "
                                           "unknown entry '") +
                               row.entry + "'");
    it->rejectedDTypes = row.dtypes;
    it->emptyShortcut = row.emptyShortcut;
    it->unitOutputDims = row.unitOutputDims;
  }
  for (const InterpreterOnlyRow &row : kInterpreterOnly) {
    auto it = llvm::find_if(
        ops, [&](const OpSpec &op) { return op.name == row.entry; });
    if (it == ops.end())
      llvm::report_fatal_error(llvm::Twine("op library: interpreter-only "
                                           "row names unknown entry '") +
                               row.entry + "'");
    if (row.mark.reason.empty())
      llvm::report_fatal_error(llvm::Twine("op library: interpreter-only "
                                           "row of '") +
                               row.entry + "' gives no reason");
    it->interpreterOnly.push_back(row.mark);
  }
  for (const QuantizedRow &row : kQuantizedUse) {
    auto it = llvm::find_if(
        ops, [&](const OpSpec &op) { return op.name == row.entry; });
    if (it == ops.end())
      llvm::report_fatal_error(llvm::Twine("op library: quantized row names "
                                           "unknown entry '") +
                               row.entry + "'");
    it->quantized = row.use;
  }
  attachFolds(ops);
  for (const OpSpec &op : ops) {
    add(byName, op.name, &op);
    for (llvm::StringRef alias : op.aliases)
      add(byName, alias, &op);
  }
  // ATen spellings and in-place variants. Pointers into atenOps stay
  // valid: it is sized first.
  atenOps.reserve(std::size(kAtenOverloads) + std::size(kInplace));
  for (const InplaceRow &row : kInplace) {
    const OpSpec *entry = byName.lookup(row.entry);
    if (!entry)
      llvm::report_fatal_error(llvm::Twine("op library: in-place spelling '") +
                               row.spelling + "' names unknown entry '" +
                               row.entry + "'");
    OpSpec spec = *entry;
    spec.aliases.clear();
    spec.inplace = true;
    spec.pure = false;
    atenOps.push_back(std::move(spec));
    add(byName, row.spelling, &atenOps.back());
  }
  for (const AtenRow &row : kAtenOverloads) {
    const OpSpec *entry = byName.lookup(row.entry);
    if (!entry)
      llvm::report_fatal_error(llvm::Twine("op library: ATen spelling '") +
                               row.spelling + "' names unknown entry '" +
                               row.entry + "'");
    if (!row.signature) {
      add(byName, row.spelling, entry);
      continue;
    }
    OpSpec spec = *entry;
    spec.aliases.clear();
    spec.signature = Signature::parse(row.signature);
    spec.atenSpelling = row.spelling;
    atenOps.push_back(std::move(spec));
    add(byName, row.spelling, &atenOps.back());
  }
  for (const ModuleSpec &m : modules) {
    add(byClass, m.className, &m);
    for (llvm::StringRef alias : m.aliases)
      add(byClass, alias, &m);
    const OpSpec *functional = lookupFunction(m.functional);
    if (!functional)
      llvm::report_fatal_error("op library: module '" + m.className +
                               "' maps to unknown '" + m.functional + "'");
    for (const ModuleBinding &b : m.bindings)
      if (!functional->signature.lookup(b.param))
        llvm::report_fatal_error("op library: module '" + m.className +
                                 "' binds unknown parameter '" + b.param + "'");
  }
}

/// The dtype a call of `input` (and `other`) computes in: torch.result_type
/// of the tensors and numbers given; nullopt when none has a known dtype.
/// The dtype an entry computes in, for its dtype table: its promoted
/// operands (`input`, `other`; an activation gradient's `grad_output` and
/// forward value; `bucketize`'s boundaries; the orthogonal polynomials'
/// `n`), as torch promotes them before
/// it picks a kernel. `first` names the first tensor operand.
static std::optional<DType> computeDType(const OpSpec &spec,
                                         const BoundCall &call,
                                         StringRef &first) {
  SmallVector<PromotionOperand> operands;
  for (StringRef name : {"input", "other", "grad_output", "output",
                         "self_or_result", "boundaries", "x1", "x2",
                         "exponent", "n"}) {
    if (!spec.signature.lookup(name))
      continue;
    Type t = call.getType(name);
    if (auto tensor = dyn_cast_or_null<RankedTensorType>(t)) {
      std::optional<DType> d = dtypeFromType(tensor.getElementType());
      if (!d)
        return std::nullopt;
      if (first.empty())
        first = name;
      operands.push_back({*d, tensor.getRank() ? PromotionPriority::Tensor
                                               : PromotionPriority::ZeroDim});
    } else if (t && (t.isInteger(1) || t.isInteger(64) || t.isF64())) {
      operands.push_back({t.isInteger(1)    ? DType::Bool
                          : t.isInteger(64) ? DType::I64
                                            : DType::F64,
                          PromotionPriority::Scalar});
    }
  }
  if (operands.empty() || llvm::all_of(operands, [](PromotionOperand o) {
        return o.priority == PromotionPriority::Scalar;
      }))
    return std::nullopt;
  return resultType(operands);
}

/// The first quantized tensor type among the call's arguments (list
/// elements too), and the parameter holding it; null when none.
static std::pair<TensorType, StringRef> firstQuantized(const OpSpec &spec,
                                                       const BoundCall &call) {
  for (const Param &p : spec.signature.params) {
    const BoundCall::Arg &arg = call.get(p.name);
    if (isQuantizedTensor(arg.type))
      return {cast<TensorType>(arg.type), p.name};
    for (Type t : arg.elements)
      if (isQuantizedTensor(t))
        return {cast<TensorType>(t), p.name};
  }
  return {};
}

/// A Storage entry's results on quantized tensors: its rule on the storage
/// types, then the results of the storage type are of the quantized type.
/// (SameQParams and FixedQParams entries, whose quantized kernels compute
/// values, are typed with float32 in the place of the quantized type: their
/// rules may refuse integers, as mean's does.) Its quantized tensor
/// arguments must share one quantized type.
static LogicalResult inferOnStorage(const OpSpec &spec, const BoundCall &call,
                                    TensorType quantized,
                                    SmallVectorImpl<Type> &results) {
  Type qtype = quantized.getElementType();
  Type standIn = spec.quantized == QuantizedUse::Storage
                     ? quantStorageElement(qtype)
                     : Float32Type::get(call.getContext());
  BoundCall storage = call;
  for (auto [i, p] : llvm::enumerate(spec.signature.params)) {
    BoundCall::Arg &arg = storage[i];
    SmallVector<Type *> types{&arg.type};
    for (Type &e : arg.elements)
      types.push_back(&e);
    for (Type *t : types) {
      // A value-computing entry takes quantized tensors only: torch has no
      // QuantizedCPU kernel of a quantized and a float tensor (cat).
      if (spec.quantized != QuantizedUse::Storage &&
          isa_and_nonnull<TensorType>(*t) && !isQuantizedTensor(*t))
        return call.emitError()
               << "takes quantized tensors only, but argument '" << p.name
               << "' is " << *t << " where another is " << quantized;
      if (isQuantizedTensor(*t)) {
        // (A SameQParams entry takes the first quantized tensor's
        // parameters: torch.cat requantizes the others.)
        if (spec.quantized == QuantizedUse::Storage &&
            cast<TensorType>(*t).getElementType() != qtype)
          return call.emitError()
                 << "takes quantized tensors of one quantization, but "
                    "argument '"
                 << p.name << "' is " << *t << " where another is "
                 << quantized;
        *t = cast<TensorType>(*t).clone(standIn);
      }
    }
  }
  if (failed(spec.resultRule(storage, results)))
    return failure();
  Type storageElement = standIn;
  if (spec.quantized == QuantizedUse::FixedQParams)
    qtype = fixedQParamsType(qtype);
  // (Tuples too: chunk and split give one.)
  std::function<Type(Type)> requantize = [&](Type t) -> Type {
    // (A fixed-parameter entry's rule may type its result float: sigmoid.)
    if (auto tensor = dyn_cast_or_null<TensorType>(t);
        tensor && (tensor.getElementType() == storageElement ||
                   spec.quantized == QuantizedUse::FixedQParams))
      return tensor.clone(qtype);
    if (auto tuple = dyn_cast_or_null<TupleType>(t)) {
      SmallVector<Type> elements;
      for (Type e : tuple.getTypes())
        elements.push_back(requantize(e));
      return TupleType::get(t.getContext(), elements);
    }
    if (auto list = dyn_cast_or_null<ListType>(t))
      return ListType::get(t.getContext(), requantize(list.getElementType()));
    return t;
  };
  for (Type &r : results)
    r = requantize(r);
  return success();
}

LogicalResult OpSpec::inferResults(const BoundCall &call,
                                   SmallVectorImpl<Type> &results) const {
  if (auto [quantizedArg, param] = firstQuantized(*this, call); quantizedArg) {
    if (quantized == QuantizedUse::Refused)
      return call.emitError()
             << "does not take quantized tensors (argument '" << param
             << "' is " << quantizedArg
             << "): torch 1.13 has no quantized CPU kernel for it; "
                "dequantize() it first";
    if (quantized != QuantizedUse::Native)
      return inferOnStorage(*this, call, quantizedArg, results);
    return resultRule(call, results);
  }
  RankedTensorType input =
      signature.lookup("input") ? call.getTensor("input") : RankedTensorType();
  bool empty = input && input.hasStaticShape() && input.getNumElements() == 0;
  StringRef first;
  std::optional<DType> rejected;
  if (rejectedDTypes && !(emptyShortcut && empty))
    if (std::optional<DType> dtype = computeDType(*this, call, first))
      if (!acceptsDType(*dtype))
        rejected = dtype;
  auto refuse = [&]() {
    return call.emitError()
           << "computes in " << dtypeName(*rejected)
           << ", which is not supported: torch 1.13 has no CPU kernel "
              "for it (argument '"
           << first << "' is " << call.getType(first) << ")";
  };
  if (rejected && !(unitOutputDims && isFloatingPoint(*rejected)))
    return refuse();
  if (failed(resultRule(call, results)))
    return failure();
  if (rejected) {
    // Accepted only when the result's last unitOutputDims sizes are 1.
    auto out = results.empty()
                   ? RankedTensorType()
                   : dyn_cast_or_null<RankedTensorType>(results[0]);
    if (!out || out.getRank() < unitOutputDims ||
        llvm::any_of(out.getShape().take_back(unitOutputDims),
                     [](int64_t d) { return d != 1; }))
      return refuse();
  }
  if (!inplace || results.size() != 1 || !results[0] || !input)
    return success();
  // Written into `input`: its shape and dtype stay; the computed dtype must
  // cast to it the way torch allows (no float into integers, nothing but
  // bool into bool).
  auto computed = dyn_cast<RankedTensorType>(results[0]);
  if (!computed)
    return success();
  std::optional<DType> from = dtypeFromType(computed.getElementType()),
                       to = dtypeFromType(input.getElementType());
  if (from && to &&
      ((isFloatingPoint(*from) && !isFloatingPoint(*to)) ||
       (*to == DType::Bool && *from != DType::Bool)))
    return call.emitError() << "result type " << dtypeName(*from)
                            << " can't be cast to the desired output type "
                            << dtypeName(*to) << " of the in-place call";
  if (computed.getShape() != input.getShape())
    return call.emitError() << "output with shape " << input
                            << " doesn't match the broadcast shape "
                            << computed;
  results[0] = input;
  return success();
}

const OpLibrary &OpLibrary::get() {
  static const OpLibrary library;
  return library;
}

const OpSpec *OpLibrary::lookupFunction(llvm::StringRef name) const {
  // `aten::add.Tensor` (TorchScript and JSON traces) is
  // `torch.ops.aten.add.Tensor`.
  if (name.consume_front("aten::"))
    return byName.lookup(("torch.ops.aten." + name).str());
  return byName.lookup(name);
}

const OpSpec *OpLibrary::lookupMethod(llvm::StringRef method) const {
  return byName.lookup(("Tensor." + method).str());
}

const ModuleSpec *OpLibrary::lookupModule(llvm::StringRef className) const {
  return byClass.lookup(className);
}

void traced::printOpLibraryMarkdown(
    llvm::raw_ostream &os, ArrayRef<std::string> kernels,
    ArrayRef<std::string> lowered, ArrayRef<std::string> decomposed,
    llvm::function_ref<llvm::StringRef(llvm::StringRef)> family) {
  const OpLibrary &lib = OpLibrary::get();
  llvm::StringSet<> kernelSet, loweredSet, decomposedSet;
  for (const std::string &name : kernels)
    kernelSet.insert(name);
  for (const std::string &name : lowered)
    loweredSet.insert(name);
  for (const std::string &name : decomposed)
    decomposedSet.insert(name);
  auto dtypes = [](const OpSpec &op) {
    if (!op.rejectedDTypes)
      return std::string("all");
    std::string s = "all but ";
    bool first = true;
    for (DType d : {DType::Bool, DType::U8, DType::I8, DType::I16, DType::I32,
                    DType::I64, DType::F16, DType::BF16, DType::F32,
                    DType::F64})
      if (!op.acceptsDType(d)) {
        s += (first ? "" : ", ") + dtypeName(d).str();
        first = false;
      }
    return s;
  };
  os << "# The op library\n\n"
     << "Generated by `traced-translate --traced-op-library-doc`; do not "
        "edit. Each target is described once in `lib/OpLibrary/OpTable.cpp`; "
        "docs/adding-an-op.md walks through adding one. *dtypes*: what the "
        "call may compute in (torch 1.13's CPU kernels; others are "
        "rejected by the verifier); *kernel*: the reference interpreter "
        "runs it; *lowering*: `convert-traced-to-linalg` lowers it (for "
        "the dtypes its diagnostics do not refuse): *yes* directly, "
        "*decomposition* through the calls `traced-decompose` writes it "
        "as (lib/Transforms/Decompose); *family*: the file `<Family>.cpp` "
        "that names its kernel, lowering and decomposition in each layer "
        "(the same in all three)."
        "\n\n## Functions and Tensor methods\n\n"
     << "| target | aliases | signature | dtypes | kernel | lowering | "
        "family |\n"
     << "|---|---|---|---|---|---|---|\n";
  for (const OpSpec &op : lib.getOps()) {
    os << "| `" << op.name << "` | ";
    llvm::interleave(
        op.aliases, os, [&](llvm::StringRef a) { os << "`" << a << "`"; },
        ", ");
    os << " | `" << op.signature.text << "` | " << dtypes(op) << " | "
       << (kernelSet.contains(op.name) ? "yes" : "no") << " | "
       << (decomposedSet.contains(op.name)
               ? "decomposition"
               : (loweredSet.contains(op.name) ? "yes" : "no"))
       << " | " << family(op.name) << " |\n";
  }
  os << "\n## ATen overloads\n\n"
     << "Generated from torch's schema registry into "
        "`lib/OpLibrary/AtenOverloads.inc` by `gen_aten_overloads.py` "
        "(`make aten`). Each is also reachable as `aten::<op>.<overload>`; "
        "the packet `torch.ops.aten.<op>` binds like the entry itself.\n\n"
     << "| ATen overload | entry | signature |\n|---|---|---|\n";
  for (const OpSpec &op : lib.getAtenOverloads())
    os << "| `" << op.atenSpelling << "` | `" << op.name << "` | `"
       << op.signature.text << "` |\n";
  os << "\n## Leaf modules\n\n"
     << "| class | aliases | forward | means |\n|---|---|---|---|\n";
  for (const ModuleSpec &m : lib.getModules()) {
    os << "| `" << m.className << "` | ";
    llvm::interleave(
        m.aliases, os, [&](llvm::StringRef a) { os << "`" << a << "`"; }, ", ");
    os << " | `" << m.forward.text << "` | `" << m.functional << "(";
    llvm::interleave(
        m.bindings, os,
        [&](const ModuleBinding &b) {
          os << b.param << "=";
          if (b.source.starts_with("@?"))
            os << "getattr(self, \"" << b.source.drop_front(2) << "\", "
               << "default)";
          else if (b.source.starts_with("@"))
            os << "self." << b.source.drop_front();
          else
            os << b.source;
        },
        ", ");
    os << ")` |\n";
  }
}

std::optional<llvm::StringRef>
OpSpec::interpreterOnlyReason(TypeRange operandTypes, TypeRange resultTypes,
                              const BoundArgs &args) const {
  for (const InterpreterOnly &mark : interpreterOnly) {
    if (mark.dtypes) {
      auto has = [&](Type t) {
        auto tensor = dyn_cast<ShapedType>(t);
        if (!tensor)
          return false;
        std::optional<DType> d = dtypeFromType(tensor.getElementType());
        return d && (mark.dtypes & bit(*d));
      };
      if (!llvm::any_of(operandTypes, has) && !llvm::any_of(resultTypes, has))
        continue;
    }
    if (mark.when && !mark.when(*this, args))
      continue;
    return mark.reason;
  }
  return std::nullopt;
}
