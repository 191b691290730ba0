// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// Eval batch_norm: one elementwise generic reading the per-channel
// statistics, weight and bias along dimension 1, in torch's form:
// x * alpha + beta, alpha = weight / sqrt(var + eps), beta = bias - mean * alpha.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
// CHECK-DAG: %[[MEAN:.+]] = arith.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[VAR:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[W:.+]] = arith.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[B:.+]] = arith.constant dense<5.000000e-01> : tensor<3xf32>
// CHECK: %[[Y:.+]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[ID]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%[[X]], %[[MEAN]], %[[VAR]], %[[W]], %[[B]] : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: ^bb0(%[[VX:[a-zA-Z0-9_]+]]: f32, %[[VM:[a-zA-Z0-9_]+]]: f32, %[[VV:[a-zA-Z0-9_]+]]: f32, %[[VW:[a-zA-Z0-9_]+]]: f32, %[[VB:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[EPS:.+]] = arith.constant 1.000000e-03 : f32
// CHECK: %[[VE:.+]] = arith.addf %[[VV]], %[[EPS]] : f32
// CHECK: %[[SQ:.+]] = math.sqrt %[[VE]] : f32
// CHECK: %[[RS:.+]] = arith.divf %{{.+}}, %[[SQ]] : f32
// CHECK: %[[ALPHA:.+]] = arith.mulf %[[RS]], %[[VW]] : f32
// CHECK: %[[MA:.+]] = arith.mulf %[[VM]], %[[ALPHA]] : f32
// CHECK: %[[BETA:.+]] = arith.subf %[[VB]], %[[MA]] : f32
// CHECK: %[[XA:.+]] = arith.mulf %[[VX]], %[[ALPHA]] : f32
// CHECK: %[[R:.+]] = arith.addf %[[XA]], %[[BETA]] : f32
// CHECK: linalg.yield %[[R]] : f32
// CHECK: return %[[Y]] : tensor<2x3x4x4xf32>
traced.module root @M class "m.M" {
  buffer @mean : tensor<3xf32> = dense<[0.0, 1.0, 2.0]> : tensor<3xf32>
  buffer @var : tensor<3xf32> = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  parameter @weight : tensor<3xf32> = dense<2.0> : tensor<3xf32>
  parameter @bias : tensor<3xf32> = dense<0.5> : tensor<3xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {
    %m = getattr %self["mean"] : !traced.module<@M> -> tensor<3xf32>
    %v = getattr %self["var"] : !traced.module<@M> -> tensor<3xf32>
    %w = getattr %self["weight"] : !traced.module<@M> -> tensor<3xf32>
    %b = getattr %self["bias"] : !traced.module<@M> -> tensor<3xf32>
    %y = call_function "torch.nn.functional.batch_norm"(input=%x, running_mean=%m, running_var=%v, weight=%w, bias=%b, training=False, momentum=0.1, eps=0.001) : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
    output %y : tensor<2x3x4x4xf32>
  }
}

// -----

// Without weight and bias (and the default eps), on a 2-D (N, C) input.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[CH:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<5x3xf32>, %[[M:[a-zA-Z0-9_]+]]: tensor<3xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<3xf32>) -> tensor<5x3xf32>
// CHECK: %[[Y:.+]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[ID]]]
// CHECK-SAME: ins(%[[X]], %[[M]], %[[V]] : tensor<5x3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: ^bb0(%[[VX:[a-zA-Z0-9_]+]]: f32, %[[VM:[a-zA-Z0-9_]+]]: f32, %[[VV:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK: arith.addf %[[VV]], %[[EPS]] : f32
// CHECK: %[[RS:.+]] = arith.divf
// CHECK: %[[MA:.+]] = arith.mulf %[[VM]], %[[RS]] : f32
// CHECK: %[[BETA:.+]] = arith.subf %{{.+}}, %[[MA]] : f32
// CHECK: %[[XA:.+]] = arith.mulf %[[VX]], %[[RS]] : f32
// CHECK: %[[R:.+]] = arith.addf %[[XA]], %[[BETA]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: return %[[Y]] : tensor<5x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<5x3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<5x3xf32> {
    %y = call_function "torch.nn.functional.batch_norm"(input=%x, running_mean=%m, running_var=%v) : (tensor<5x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
    output %y : tensor<5x3xf32>
  }
}

// -----

// layer_norm over the last dimension: sum, mean (x 1/8), centered,
// squares, sum, variance (x 1/8), then the normalization with weight and
// bias read along the normalized dimension.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[LEAD:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[TRAIL:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
// CHECK-DAG: %[[W:.+]] = arith.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK-DAG: %[[B:.+]] = arith.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[LEAD]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<2x5x8xf32>) outs(%{{.+}} : tensor<2x5xf32>)
// CHECK: arith.addf
// CHECK: %[[MEAN:.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[SUM]] : tensor<2x5xf32>)
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: %[[CEN:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[LEAD]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MEAN]] : tensor<2x5x8xf32>, tensor<2x5xf32>)
// CHECK: arith.subf
// CHECK: %[[SQ:.+]] = linalg.generic {{.+}} ins(%[[CEN]] : tensor<2x5x8xf32>)
// CHECK: arith.mulf
// CHECK: %[[SQS:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[LEAD]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[SQ]] : tensor<2x5x8xf32>)
// CHECK: %[[VAR:.+]] = linalg.generic {{.+}} ins(%[[SQS]] : tensor<2x5xf32>)
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[LEAD]], #[[TRAIL]], #[[TRAIL]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[CEN]], %[[VAR]], %[[W]], %[[B]] : tensor<2x5x8xf32>, tensor<2x5xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[VC:[a-zA-Z0-9_]+]]: f32, %[[VV:[a-zA-Z0-9_]+]]: f32, %[[VW:[a-zA-Z0-9_]+]]: f32, %[[VB:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[VE:.+]] = arith.addf %[[VV]], %[[EPS]] : f32
// CHECK: %[[S:.+]] = math.sqrt %[[VE]] : f32
// CHECK: %[[R:.+]] = arith.divf %{{.+}}, %[[S]] : f32
// CHECK: %[[N:.+]] = arith.mulf %[[VC]], %[[R]] : f32
// CHECK: %[[NW:.+]] = arith.mulf %[[N]], %[[VW]] : f32
// CHECK: %[[NB:.+]] = arith.addf %[[NW]], %[[VB]] : f32
// CHECK: linalg.yield %[[NB]] : f32
// CHECK: return %[[Y]] : tensor<2x5x8xf32>
traced.module root @M class "m.M" {
  parameter @weight : tensor<8xf32> = dense<1.0> : tensor<8xf32>
  parameter @bias : tensor<8xf32> = dense<0.0> : tensor<8xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x5x8xf32>) -> tensor<2x5x8xf32> {
    %w = getattr %self["weight"] : !traced.module<@M> -> tensor<8xf32>
    %b = getattr %self["bias"] : !traced.module<@M> -> tensor<8xf32>
    %y = call_function "torch.nn.functional.layer_norm"(input=%x, normalized_shape=[8], weight=%w, bias=%b, eps=0.00001) : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
    output %y : tensor<2x5x8xf32>
  }
}

// -----

// layer_norm over the two trailing dimensions, without weight and bias:
// the reductions keep only dimension 0 and scale by 1/40.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[LEAD:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[LEAD]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<2x5x8xf32>) outs(%{{.+}} : tensor<2xf32>)
// CHECK: arith.constant 2.500000e-02 : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[LEAD]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK: arith.constant 2.500000e-02 : f32
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[LEAD]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: tensor<2x5x8xf32>, tensor<2xf32>)
// CHECK: math.sqrt
// CHECK: return %[[Y]] : tensor<2x5x8xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x5x8xf32>) -> tensor<2x5x8xf32> {
    %y = call_function "torch.nn.functional.layer_norm"(input=%x, normalized_shape=(5, 8)) : (tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
    output %y : tensor<2x5x8xf32>
  }
}

// -----

// Training-mode batch_norm: the eval form above by the batch's statistics,
// the mean and the biased variance over every dim but 1 (the variance in
// f64, as torch.var computes it); the running statistics are not read.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x3x5xf32>, %[[M:[a-zA-Z0-9_]+]]: tensor<3xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {{{.*}}iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : tensor<4x3x5xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: %[[SQ:.+]] = linalg.generic {{{.*}}iterator_types = ["reduction", "parallel", "reduction"]} ins(%{{.+}} : tensor<4x3x5xf64>) outs(%{{.+}} : tensor<3xf64>)
// CHECK-NOT: %[[M]]
// CHECK: linalg.generic {{{.*}}iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %{{.+}}, %{{.+}} : tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) outs(%{{.+}} : tensor<4x3x5xf32>)
// CHECK: math.sqrt
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4x3x5xf32>, %m: tensor<3xf32>) -> tensor<4x3x5xf32> {
    %y = call_function "torch.nn.functional.batch_norm"(input=%x, running_mean=%m, running_var=%m, training=True) : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x5xf32>
    output %y : tensor<4x3x5xf32>
  }
}
