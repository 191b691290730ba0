//===- Kernels.h - the interpreter kernels of the op library ----*- C++ -*-===//
//
// One kernel per op-library entry, named in OpTable.cpp beside the entry's
// signature and result rule. Families live in one file each:
// KernelsElementwise.cpp, KernelsLinalg.cpp, KernelsNorm.cpp,
// KernelsPool.cpp, KernelsReduce.cpp, KernelsShape.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_OPLIBRARY_KERNELS_H
#define TRACEDIR_LIB_OPLIBRARY_KERNELS_H

#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/OpLibrary/Runtime.h"

namespace mlir::traced::kernels {

#define TRACED_KERNEL(name) FailureOr<RtValue> name(const KernelArgs &args);

// Elementwise (KernelsElementwise.cpp): `input` (and `other`/`exponent`).
TRACED_KERNEL(relu)
TRACED_KERNEL(relu6)
TRACED_KERNEL(hardtanh)
TRACED_KERNEL(gelu)
TRACED_KERNEL(silu)
TRACED_KERNEL(hardswish)
TRACED_KERNEL(hardsigmoid)
TRACED_KERNEL(leakyRelu)
TRACED_KERNEL(sigmoid)
TRACED_KERNEL(tanh)
TRACED_KERNEL(clamp)
TRACED_KERNEL(exp)
TRACED_KERNEL(log)
TRACED_KERNEL(sqrt)
TRACED_KERNEL(rsqrt)
TRACED_KERNEL(abs)
TRACED_KERNEL(erf)
TRACED_KERNEL(neg)
TRACED_KERNEL(add)
TRACED_KERNEL(sub)
TRACED_KERNEL(rsub)
TRACED_KERNEL(mul)
TRACED_KERNEL(div)
TRACED_KERNEL(rtruediv)
TRACED_KERNEL(floorDivide)
TRACED_KERNEL(remainder)
TRACED_KERNEL(fmod)
TRACED_KERNEL(rfloordiv)
TRACED_KERNEL(rpow)
TRACED_KERNEL(rremainder)
TRACED_KERNEL(pow)
TRACED_KERNEL(eq)
TRACED_KERNEL(ne)
TRACED_KERNEL(lt)
TRACED_KERNEL(le)
TRACED_KERNEL(gt)
TRACED_KERNEL(ge)
TRACED_KERNEL(logicalAnd)
TRACED_KERNEL(logicalOr)
TRACED_KERNEL(logicalXor)
TRACED_KERNEL(logicalNot)
TRACED_KERNEL(bitwiseAnd)
TRACED_KERNEL(bitwiseOr)
TRACED_KERNEL(bitwiseXor)
TRACED_KERNEL(leftShift)
TRACED_KERNEL(rightShift)
TRACED_KERNEL(bitwiseNot)
TRACED_KERNEL(maximum)
TRACED_KERNEL(minimum)
TRACED_KERNEL(fmax)
TRACED_KERNEL(fmin)
TRACED_KERNEL(where)
TRACED_KERNEL(maskedFill)
TRACED_KERNEL(isnan)
TRACED_KERNEL(isinf)
TRACED_KERNEL(isfinite)
TRACED_KERNEL(reciprocal)
TRACED_KERNEL(exp2)
TRACED_KERNEL(expm1)
TRACED_KERNEL(log2)
TRACED_KERNEL(log10)
TRACED_KERNEL(log1p)
TRACED_KERNEL(erfc)
TRACED_KERNEL(sin)
TRACED_KERNEL(cos)
TRACED_KERNEL(tan)
TRACED_KERNEL(asin)
TRACED_KERNEL(acos)
TRACED_KERNEL(atan)
TRACED_KERNEL(sinh)
TRACED_KERNEL(cosh)
TRACED_KERNEL(asinh)
TRACED_KERNEL(acosh)
TRACED_KERNEL(atanh)
TRACED_KERNEL(logsigmoid)
TRACED_KERNEL(softsign)
TRACED_KERNEL(tanhshrink)
TRACED_KERNEL(mish)
TRACED_KERNEL(selu)
TRACED_KERNEL(erfinv)
TRACED_KERNEL(sign)
TRACED_KERNEL(floor)
TRACED_KERNEL(ceil)
TRACED_KERNEL(trunc)
TRACED_KERNEL(round)
TRACED_KERNEL(frac)
TRACED_KERNEL(square)
TRACED_KERNEL(atan2)
TRACED_KERNEL(elu)
TRACED_KERNEL(celu)
TRACED_KERNEL(softplus)
TRACED_KERNEL(hardshrink)
TRACED_KERNEL(softshrink)
TRACED_KERNEL(threshold)
TRACED_KERNEL(rrelu)

// Contractions (KernelsLinalg.cpp).
TRACED_KERNEL(conv)
TRACED_KERNEL(linear)
TRACED_KERNEL(matmul)
TRACED_KERNEL(bmm)
TRACED_KERNEL(mm)
TRACED_KERNEL(baddbmm)
TRACED_KERNEL(multiHeadAttention)

// Normalization and softmax (KernelsNorm.cpp).
TRACED_KERNEL(batchNorm)
TRACED_KERNEL(layerNorm)
TRACED_KERNEL(dropout)
TRACED_KERNEL(stochasticDepth)
TRACED_KERNEL(softmax)
TRACED_KERNEL(logSoftmax)

// Pooling (KernelsPool.cpp).
TRACED_KERNEL(maxPool2d)
TRACED_KERNEL(avgPool2d)
TRACED_KERNEL(adaptiveAvgPool2d)

// Reductions (KernelsReduce.cpp).
TRACED_KERNEL(mean)
TRACED_KERNEL(sum)
TRACED_KERNEL(amax)
TRACED_KERNEL(amin)
TRACED_KERNEL(argmax)
TRACED_KERNEL(argmin)
TRACED_KERNEL(max)
TRACED_KERNEL(min)
TRACED_KERNEL(all)
TRACED_KERNEL(any)
TRACED_KERNEL(prod)
TRACED_KERNEL(var)
TRACED_KERNEL(std)
TRACED_KERNEL(varMean)
TRACED_KERNEL(stdMean)
TRACED_KERNEL(logsumexp)
TRACED_KERNEL(cumsum)
TRACED_KERNEL(cumprod)

// Shapes (KernelsShape.cpp).
TRACED_KERNEL(identity)
TRACED_KERNEL(flatten)
TRACED_KERNEL(reshape)
TRACED_KERNEL(permute)
TRACED_KERNEL(transpose)
TRACED_KERNEL(unsqueeze)
TRACED_KERNEL(squeeze)
TRACED_KERNEL(unflatten)
TRACED_KERNEL(expand)
TRACED_KERNEL(cat)
TRACED_KERNEL(stack)
TRACED_KERNEL(chunk)
TRACED_KERNEL(getitem)
TRACED_KERNEL(size)
TRACED_KERNEL(dim)
TRACED_KERNEL(getattr)
TRACED_KERNEL(assertTrue)

#undef TRACED_KERNEL

} // namespace mlir::traced::kernels

#endif // TRACEDIR_LIB_OPLIBRARY_KERNELS_H
