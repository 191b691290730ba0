//===- ResultRules.h - shape and dtype rules of the op library --*- C++ -*-===//
//
// One rule per family of targets; the table in OpTable.cpp names them.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_OPLIBRARY_RESULTRULES_H
#define TRACEDIR_LIB_OPLIBRARY_RESULTRULES_H

#include "TracedIR/OpLibrary/OpLibrary.h"


namespace mlir::traced::rules {

#define TRACED_RULE(name)                                                      \
  LogicalResult name(const BoundCall &call, SmallVectorImpl<Type> &results);

// Elementwise and normalization: the result is `input`'s type.
TRACED_RULE(sameAsInput)
TRACED_RULE(norm)
TRACED_RULE(pairDistance)
TRACED_RULE(stackLike)
TRACED_RULE(atenSlice)
TRACED_RULE(copyInto)
TRACED_RULE(fillValue)
TRACED_RULE(isFloatingPoint)
TRACED_RULE(broadcastTensors)
TRACED_RULE(isclose)
TRACED_RULE(addbmm)
TRACED_RULE(bilinear)
TRACED_RULE(squareMatrices)
TRACED_RULE(kthvalue)
TRACED_RULE(im2col)
TRACED_RULE(gridSample)
TRACED_RULE(nativeLayerNorm)
TRACED_RULE(nativeBatchNorm)
TRACED_RULE(nllLossForward)
TRACED_RULE(nllLossBackward)
TRACED_RULE(embeddingBag)
TRACED_RULE(affineGrid)
TRACED_RULE(col2im)
TRACED_RULE(unfoldWindows)
TRACED_RULE(bucketize)
TRACED_RULE(diagEmbed)
TRACED_RULE(rot90)
TRACED_RULE(countNonzero)
TRACED_RULE(cross)
TRACED_RULE(sliceScatter)
TRACED_RULE(asStrided)
TRACED_RULE(atenIndex)
TRACED_RULE(unbind)
TRACED_RULE(diagonal)
TRACED_RULE(diag)
TRACED_RULE(trace)
TRACED_RULE(pixelShuffle)
TRACED_RULE(channelShuffle)
TRACED_RULE(repeatInterleave)
TRACED_RULE(takeAlongDim)
TRACED_RULE(meshgrid)
TRACED_RULE(pointwiseLoss)
TRACED_RULE(classLoss)
TRACED_RULE(lerp)
TRACED_RULE(addcmul)
TRACED_RULE(addcdiv)
TRACED_RULE(floatPointwise)
TRACED_RULE(floatPower)
TRACED_RULE(rsub)
TRACED_RULE(heaviside)
TRACED_RULE(shapeAs)
TRACED_RULE(numel)
TRACED_RULE(floatUnary)
TRACED_RULE(addmm)
TRACED_RULE(vectorProduct)
TRACED_RULE(select)
TRACED_RULE(movedim)
TRACED_RULE(sortLike)
TRACED_RULE(scatter)
TRACED_RULE(interpolate)
TRACED_RULE(newFilled)
TRACED_RULE(factory)
TRACED_RULE(full)
TRACED_RULE(arange)
TRACED_RULE(linspace)
TRACED_RULE(eye)
TRACED_RULE(t)
TRACED_RULE(glu)
TRACED_RULE(einsum)
TRACED_RULE(groupNorm)
TRACED_RULE(indexSelect)
TRACED_RULE(gather)
TRACED_RULE(embedding)
TRACED_RULE(narrow)
TRACED_RULE(repeat)
TRACED_RULE(fullLike)
TRACED_RULE(triangle)
TRACED_RULE(oneHot)
TRACED_RULE(pad)
TRACED_RULE(split)
TRACED_RULE(to)
TRACED_RULE(typeAs)
template <DType D>
LogicalResult castTo(const BoundCall &call, SmallVectorImpl<Type> &results);
TRACED_RULE(amaxAmin)
TRACED_RULE(argExtreme)
TRACED_RULE(maxMin)
TRACED_RULE(allAny)
TRACED_RULE(prod)
TRACED_RULE(moments)
TRACED_RULE(momentsWithMean)
TRACED_RULE(logsumexp)
TRACED_RULE(scan)
TRACED_RULE(comparison)
TRACED_RULE(bitwise)
TRACED_RULE(predicate)
TRACED_RULE(square)
TRACED_RULE(floatBinary)
TRACED_RULE(where)
TRACED_RULE(maskedFill)
TRACED_RULE(softmax)
TRACED_RULE(clamp)
TRACED_RULE(batchNorm)
TRACED_RULE(layerNorm)
// Broadcasting arithmetic on tensors and Python numbers.
TRACED_RULE(arithmetic)
TRACED_RULE(activationGrad)
TRACED_RULE(geluGrad)
TRACED_RULE(trueDivide)
TRACED_RULE(power)
// Contractions.
TRACED_RULE(conv)
TRACED_RULE(convTbc)
TRACED_RULE(linear)
TRACED_RULE(matmul)
TRACED_RULE(bmm)
TRACED_RULE(baddbmm)
TRACED_RULE(mm)
TRACED_RULE(multiHeadAttention)
// Pooling.
#define TRACED_POOL_RULES(N)                                                   \
  TRACED_RULE(maxPool##N##d)                                                   \
  TRACED_RULE(maxPool##N##dWithIndices)                                        \
  TRACED_RULE(avgPool##N##d)                                                   \
  TRACED_RULE(adaptiveAvgPool##N##d)                                           \
  TRACED_RULE(adaptiveMaxPool##N##d)                                           \
  TRACED_RULE(adaptiveMaxPool##N##dWithIndices)
TRACED_POOL_RULES(1)
TRACED_POOL_RULES(2)
TRACED_POOL_RULES(3)
#undef TRACED_POOL_RULES
TRACED_RULE(lpPool1d)
TRACED_RULE(lpPool2d)
// Reductions.
TRACED_RULE(reduce)
TRACED_RULE(sum)
// Shapes.
TRACED_RULE(flatten)
TRACED_RULE(reshape)
TRACED_RULE(permute)
TRACED_RULE(transpose)
TRACED_RULE(unsqueeze)
TRACED_RULE(squeeze)
TRACED_RULE(unflatten)
TRACED_RULE(expand)
TRACED_RULE(cat)
TRACED_RULE(stack)
TRACED_RULE(chunk)
TRACED_RULE(getitem)
TRACED_RULE(indexPut)
TRACED_RULE(size)
TRACED_RULE(dim)
TRACED_RULE(getattr)
TRACED_RULE(none)

#undef TRACED_RULE

} // namespace mlir::traced::rules

namespace mlir::traced {
/// Sets OpSpec::fold on the entries Folds.cpp has a fold for.
void attachFolds(std::vector<OpSpec> &ops);
} // namespace mlir::traced

#endif // TRACEDIR_LIB_OPLIBRARY_RESULTRULES_H
