// RUN: traced-opt %s -traced-normalize | FileCheck %s


traced.module root @M class "m.M" {
  submodule @fc : @Fc
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x4xf32>) -> tensor<2x3xf32> {
    // Aliases become the canonical target; Tensor methods with a functional
    // form become call_function.
    // CHECK: %[[A:.*]] = call_function "torch.add"(input=%x, other=%x)
    %0 = call_method %x["__add__"](%x) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    // CHECK: %[[B:.*]] = call_function "torch.add"(input=%[[A]], other=1)
    %1 = call_function "operator.add"(%0, 1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    // CHECK: %[[C:.*]] = call_function "torch.nn.functional.relu"(input=%[[B]])
    %2 = call_function "nn.relu"(%1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    // Methods without a functional form stay methods.
    // CHECK: %[[D:.*]] = call_method %[[C]]["view"](size=[2, 4])
    %3 = call_method %2["view"](2, 4) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    // A leaf module's call becomes its functional with the parameters.
    // CHECK: %[[FC:.*]] = getattr %self["fc"]
    // CHECK: %[[W:.*]] = getattr %[[FC]]["weight"] : !traced.module<@Fc> -> tensor<3x4xf32>
    // CHECK: %[[BIAS:.*]] = getattr %[[FC]]["bias"] : !traced.module<@Fc> -> tensor<3xf32>
    // CHECK: call_function "torch.nn.functional.linear"(input=%[[D]], weight=%[[W]], bias=%[[BIAS]]) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %fc = getattr %self["fc"] : !traced.module<@M> -> !traced.module<@Fc>
    %4 = call_method %fc["forward"](%3) : (!traced.module<@Fc>, tensor<2x4xf32>) -> tensor<2x3xf32>
    output %4 : tensor<2x3xf32>
  }
}

traced.module @Fc class "torch.nn.modules.linear.Linear" {
  parameter @weight : tensor<3x4xf32> = dense<0.5> : tensor<3x4xf32>
  parameter @bias : tensor<3xf32> = dense<1.0> : tensor<3xf32>
}
