// RUN: traced-opt %s --traced-decompose --split-input-file --verify-diagnostics | FileCheck %s

// A loss becomes its pointwise formula and its reduction; addmm becomes
// beta * input + alpha * mm; narrow becomes a getitem window.
// CHECK-LABEL: graph @forward
// CHECK: %[[D:.+]] = call_function "torch.sub"(input=%a, other=%b)
// CHECK: %[[SQ:.+]] = call_function "torch.mul"(input=%[[D]], other=%[[D]])
// CHECK: call_function "torch.mean"(input=%[[SQ]]) : (tensor<4x3xf32>) -> tensor<f32>
// CHECK: %[[MM:.+]] = call_function "torch.mm"(input=%a, mat2=%m)
// CHECK: %[[AL:.+]] = call_function "torch.mul"(input=%[[MM]], other=2.0{{.*}})
// CHECK: call_function "torch.add"(input=%c, other=%[[AL]])
// CHECK: call_function "operator.getitem"(input=%a, index=(slice(None, None, None), slice(1, 3, 1)))
// CHECK-NOT: mse_loss
// CHECK-NOT: addmm
// CHECK-NOT: narrow
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<4x3xf32>, %b: tensor<4x3xf32>, %m: tensor<3x5xf32>, %c: tensor<5xf32>) -> (tensor<f32>, tensor<4x5xf32>, tensor<4x2xf32>) {
    %0 = call_function "torch.nn.functional.mse_loss"(input=%a, target=%b) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f32>
    %1 = call_function "torch.addmm"(input=%c, mat1=%a, mat2=%m, alpha=2.0) : (tensor<5xf32>, tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
    %2 = call_function "torch.narrow"(input=%a, dim=1, start=1, length=2) : (tensor<4x3xf32>) -> tensor<4x2xf32>
    output %0, %1, %2 : tensor<f32>, tensor<4x5xf32>, tensor<4x2xf32>
  }
}

// -----

// einsum contracts pairwise through bmm: "bij,bjk->bik" is one bmm, and an
// ellipsis becomes fresh batch labels.
// CHECK-LABEL: graph @forward
// CHECK: call_function "torch.bmm"(input=%x, mat2=%y) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK: call_function "torch.bmm"
// CHECK-NOT: einsum
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4xf32>, %y: tensor<2x4x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
    %0 = call_function "torch.einsum"(equation="bij,bjk->bik", operands=[%x, %y]) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    %1 = call_function "torch.einsum"(equation="...ij,...jk", operands=[%x, %y]) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    output %0, %1 : tensor<2x3x5xf32>, tensor<2x3x5xf32>
  }
}

// -----

// A decomposition that needs a constant argument leaves a call with a
// traced one as it is.
// CHECK-LABEL: graph @forward
// CHECK: call_function "torch.logit"(input=%x, eps=%e)
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xf32>, %e: f64) -> tensor<3xf32> {
    %0 = call_function "torch.logit"(input=%x, eps=%e) : (tensor<3xf32>, f64) -> tensor<3xf32>
    output %0 : tensor<3xf32>
  }
}

// -----

// `x[i, j] = v` with index tensors is index_put, and index_put with two
// leading index tensors one scatter along a flattened row dim: the indices
// wrapped by remainder and combined as i * 4 + j; a basic index stays for
// the direct lowering.
// CHECK-LABEL: graph @forward
// CHECK-NOT: index_put
// CHECK: %[[I:.*]] = call_function "torch.remainder"(input=%i, other=3)
// CHECK: %[[J:.*]] = call_function "torch.remainder"(input=%j, other=4)
// CHECK: %[[M:.*]] = call_function "torch.mul"(input=%[[I]], other=4)
// CHECK: call_function "torch.add"(input=%[[M]], other=%[[J]])
// CHECK: call_function "torch.reshape"(input=%x, shape=[12])
// CHECK: call_function "torch.scatter"(input=%{{.*}}, dim=0, index=%{{.*}}, src=%{{.*}}) : (tensor<12xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<12xf32>
// CHECK: call_function "operator.setitem"(input=%x, index=(0, slice(None, None, None)), value=%b)
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>, %i: tensor<2xi64>, %j: tensor<2xi64>, %v: tensor<f32>, %b: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
    %0 = call_function "operator.setitem"(%x, (%i, %j), %v) : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<f32>) -> tensor<3x4xf32>
    %1 = call_function "operator.setitem"(%x, (0, slice(None, None, None)), %b) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    output %0, %1 : tensor<3x4xf32>, tensor<3x4xf32>
  }
}

// -----

// A complex-to-real FFT of real input (docs/fft.md): the inverse DFT over
// dim 0 as products with constant cosine and sine matrices (dim 0 permuted
// last and back; the input's 2 rows padded to 4 by the matrices' rows),
// then the Hermitian DFT over the last dim (3 bins of 4 points, 1/16
// folded in), in float64, rounded once.
// CHECK-LABEL: graph @forward
// CHECK: %[[X:.+]] = call_method %x["to"](dtype=dtype(f64))
// CHECK: call_function "torch.permute"(input=%[[X]], dims=[1, 0])
// CHECK: constant dense<{{.+}}> : tensor<2x4xf64>
// CHECK: call_function "torch.matmul"
// CHECK: constant dense<{{\[\[}}6.250000e-02, 6.250000e-02, 6.250000e-02, 6.250000e-02], [1.250000e-01, {{.+}} : tensor<3x4xf64>
// CHECK: call_function "torch.add"
// CHECK: call_method %{{.+}}["to"](dtype=dtype(f32)) : (tensor<4x4xf64>) -> tensor<4x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> tensor<4x4xf32> {
    %y = call_function "torch.fft.irfft2"(input=%x, s=[4, 4]) : (tensor<2x3xf32>) -> tensor<4x4xf32>
    output %y : tensor<4x4xf32>
  }
}
