// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// Elementwise targets become one all-parallel linalg.generic over the
// result's shape; broadcasting is in the indexing maps, Python numbers are
// constants in the body.

// The entry graph becomes a func.func without `self`; the traced modules
// are gone.
// CHECK-NOT: traced.module
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-SAME: traced.entry = (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[R:.+]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[ID]], #[[ID]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[X]] : tensor<3x4xf32>) outs(%[[INIT]] : tensor<3x4xf32>)
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[MAX:.+]] = arith.maximumf %[[IN]], %[[ZERO]] : f32
// CHECK: linalg.yield %[[MAX]] : f32
// CHECK: return %[[R]] : tensor<3x4xf32>
// CHECK-NOT: traced.
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %y = call_function "torch.nn.functional.relu"(input=%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    output %y : tensor<3x4xf32>
  }
}

// -----

// gelu: exact (erf) and approximate="tanh".
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<3x4xf32>)
// CHECK: %[[ERF:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<3x4xf32>)
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK-DAG: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[RSQRT2:.+]] = arith.constant 0.70710{{[0-9]+}} : f32
// CHECK: %[[S:.+]] = arith.mulf %[[IN]], %[[RSQRT2]] : f32
// CHECK: %[[E:.+]] = math.erf %[[S]] : f32
// CHECK: %[[HX:.+]] = arith.mulf %[[HALF]], %[[IN]] : f32
// CHECK: %[[P:.+]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK: %[[G:.+]] = arith.mulf %[[HX]], %[[P]] : f32
// CHECK: linalg.yield %[[G]] : f32
// CHECK: %[[TANH:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<3x4xf32>)
// CHECK-NOT: math.erf
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: arith.constant 0.79788{{[0-9]+}} : f32
// CHECK: math.tanh
// CHECK: linalg.yield
// CHECK: return %[[ERF]], %[[TANH]] : tensor<3x4xf32>, tensor<3x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
    %a = call_function "torch.nn.functional.gelu"(input=%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %b = call_function "torch.nn.functional.gelu"(input=%x, approximate="tanh") : (tensor<3x4xf32>) -> tensor<3x4xf32>
    output %a, %b : tensor<3x4xf32>, tensor<3x4xf32>
  }
}

// -----

// Broadcasting: a tensor<1xf32> is read at index 0 for every element; a
// Python number is a constant in the body.
// CHECK-DAG: #[[ZERO:.+]] = affine_map<(d0, d1) -> (0)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<3x4xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<1xf32>)
// CHECK: %[[R0:.+]] = linalg.generic {indexing_maps = [#[[ZERO]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[B]], %[[X]] : tensor<1xf32>, tensor<3x4xf32>)
// CHECK-SAME: outs(%{{.+}} : tensor<3x4xf32>)
// CHECK: ^bb0(%[[L:[a-zA-Z0-9_]+]]: f32, %[[R:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[SUM:.+]] = arith.addf %[[L]], %[[R]] : f32
// CHECK: linalg.yield %[[SUM]] : f32
// CHECK: %[[R1:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<3x4xf32>)
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[C:.+]] = arith.constant 2.500000e+00 : f32
// CHECK: %[[SUM2:.+]] = arith.addf %[[IN]], %[[C]] : f32
// CHECK: linalg.yield %[[SUM2]] : f32
// CHECK: return %[[R0]], %[[R1]]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>, %b: tensor<1xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
    %y = call_function "torch.add"(input=%b, other=%x) : (tensor<1xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %z = call_function "torch.add"(input=%x, other=2.5) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    output %y, %z : tensor<3x4xf32>, tensor<3x4xf32>
  }
}

// -----

// add with alpha: other * alpha + input; a rank-1 operand is broadcast
// along the leading dimension.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<3x4xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[Y]] : tensor<3x4xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[ALPHA:.+]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[SCALED:.+]] = arith.mulf %[[B]], %[[ALPHA]] : f32
// CHECK: %[[SUM:.+]] = arith.addf %[[A]], %[[SCALED]] : f32
// CHECK: linalg.yield %[[SUM]] : f32
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>, %r: tensor<4xf32>) -> tensor<3x4xf32> {
    %y = call_function "torch.add"(input=%x, other=%r, alpha=2) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    output %y : tensor<3x4xf32>
  }
}

// -----

// sub, mul and div.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<3x4xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<3x4xf32>)
// CHECK: %[[SUB:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[Y]] :
// CHECK: ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: %[[MUL:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[Y]] :
// CHECK: ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: %[[DIV:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[Y]] :
// CHECK: ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.divf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: return %[[SUB]], %[[MUL]], %[[DIV]]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>, %y: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
    %a = call_function "torch.sub"(input=%x, other=%y) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %b = call_function "torch.mul"(input=%x, other=%y) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %c = call_function "torch.div"(input=%x, other=%y) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    output %a, %b, %c : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  }
}

// -----

// sigmoid = 1 / (1 + exp(-x)); clamp = min(max(x, lo), hi).
// CHECK-LABEL: func.func @forward(
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[NEG:.+]] = arith.negf %[[IN]] : f32
// CHECK: %[[EXP:.+]] = math.exp %[[NEG]] : f32
// CHECK: %[[DEN:.+]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK: %[[SIG:.+]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK: linalg.yield %[[SIG]] : f32
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK-DAG: %[[LO:.+]] = arith.constant -1.000000e+00 : f32
// CHECK-DAG: %[[HI:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG: %[[MAX:.+]] = arith.maximumf %[[IN]], %[[LO]] : f32
// CHECK: %[[MIN:.+]] = arith.minimumf %[[MAX]], %[[HI]] : f32
// CHECK: linalg.yield %[[MIN]] : f32
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
    %a = call_function "torch.sigmoid"(input=%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %b = call_function "torch.clamp"(input=%x, min=-1.0, max=2.0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    output %a, %b : tensor<3x4xf32>, tensor<3x4xf32>
  }
}

// -----

// hardswish = x * min(max(x + 3, 0), 6) / 6; leaky_relu selects x or
// x * negative_slope.
// CHECK-LABEL: func.func @forward(
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[THREE:.+]] = arith.constant 3.000000e+00 : f32
// CHECK: %[[T:.+]] = arith.addf %[[IN]], %[[THREE]] : f32
// CHECK: %[[M0:.+]] = arith.maximumf %[[T]], %{{.+}} : f32
// CHECK: %[[M1:.+]] = arith.minimumf %[[M0]], %{{.+}} : f32
// CHECK: %[[SIX:.+]] = arith.constant 6.000000e+00 : f32
// CHECK: %[[HS:.+]] = arith.divf %[[M1]], %[[SIX]] : f32
// CHECK: %[[R:.+]] = arith.mulf %[[IN]], %[[HS]] : f32
// CHECK: linalg.yield %[[R]] : f32
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[POS:.+]] = arith.cmpf ogt, %[[IN]], %[[ZERO]] : f32
// CHECK: %[[SLOPE:.+]] = arith.constant 2.000000e-01 : f32
// CHECK: %[[NEG:.+]] = arith.mulf %[[IN]], %[[SLOPE]] : f32
// CHECK: %[[SEL:.+]] = arith.select %[[POS]], %[[IN]], %[[NEG]] : f32
// CHECK: linalg.yield %[[SEL]] : f32
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
    %a = call_function "torch.nn.functional.hardswish"(input=%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %b = call_function "torch.nn.functional.leaky_relu"(input=%x, negative_slope=0.2) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    output %a, %b : tensor<3x4xf32>, tensor<3x4xf32>
  }
}

// -----

// Eval-mode dropout is the identity.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: return %[[X]] : tensor<3x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %y = call_function "torch.nn.functional.dropout"(input=%x, p=0.1, training=False) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    output %y : tensor<3x4xf32>
  }
}

// -----

// Integer tensors: a float Python number promotes the result to float; an
// int number stays an integer op; clamp uses the signed integer max.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xi32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<2x3xi32>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: i32, %{{.+}}: f32):
// CHECK: %[[F:.+]] = arith.sitofp %[[IN]] : i32 to f32
// CHECK: arith.addf %[[F]], %{{.+}} : f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<2x3xi32>) outs(%{{.+}} : tensor<2x3xi32>)
// CHECK: %[[THREE:.+]] = arith.constant 3 : i32
// CHECK: arith.muli %{{.+}}, %[[THREE]] : i32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<2x3xi32>) outs(%{{.+}} : tensor<2x3xi32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: arith.maxsi %{{.+}}, %[[ZERO]] : i32
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>) {
    %y = call_function "torch.add"(input=%x, other=0.5) : (tensor<2x3xi32>) -> tensor<2x3xf32>
    %z = call_function "torch.mul"(input=%x, other=3) : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %w = call_function "torch.clamp"(input=%x, min=0) : (tensor<2x3xi32>) -> tensor<2x3xi32>
    output %y, %z, %w : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>
  }
}
