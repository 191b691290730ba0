// Seed 000's SimpleModule, as TracedModule records it:
//
//   class SimpleModule(M.Module):
//       def __init__(self):
//           super().__init__()
//           self.linear = M.Linear(4, 5)
//           self.param = mge.Parameter([1])
//
//       def forward(self, x):
//           x = x + mge.Tensor([1])
//           x = F.relu(x)
//           return self.linear(x + self.param)
//
// traced on an input of shape (3, 4). The weights are the blobs at the end.

traced.module root @SimpleModule class "__main__.SimpleModule" {
  submodule @linear : @Linear
  parameter @param : tensor<1xf32> = dense_resource<param> : tensor<1xf32>
  graph @forward(%self: !traced.module<@SimpleModule>, %x: tensor<3x4xf32>) -> tensor<3x5xf32> {
    %const_tensor = constant dense<1.0> : tensor<1xf32>
    %add_out = call_method %x["__add__"](%const_tensor) : (tensor<3x4xf32>, tensor<1xf32>) -> tensor<3x4xf32>
    %relu_out = call_function "nn.relu"(%add_out) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %linear = getattr %self["linear"] : !traced.module<@SimpleModule> -> !traced.module<@Linear>
    %param = getattr %self["param"] : !traced.module<@SimpleModule> -> tensor<1xf32>
    %add_out_1 = call_method %relu_out["__add__"](%param) : (tensor<3x4xf32>, tensor<1xf32>) -> tensor<3x4xf32>
    %linear_out = call_method %linear["forward"](%add_out_1) : (!traced.module<@Linear>, tensor<3x4xf32>) -> tensor<3x5xf32>
    output %linear_out : tensor<3x5xf32>
  }
}

traced.module @Linear class "megengine.module.Linear" {
  parameter @weight : tensor<5x4xf32> = dense_resource<linear_weight> : tensor<5x4xf32>
  parameter @bias : tensor<5xf32> = dense_resource<linear_bias> : tensor<5xf32>
  attribute @in_features : i64 = 4
  attribute @out_features : i64 = 5
}

{-#
  dialect_resources: {
    builtin: {
      param: "0x040000000000803F",
      linear_weight: "0x040000000000803F0000003F000080BE0000803E0000003F000080BF0000803E0000003F000000BF0000003E000080BF0000803F0000803E000000BF0000003F000080BE0000803F0000003E0000003F0000803E",
      linear_bias: "0x040000000000803F000000BF00000000000000BF0000803E"
    }
  }
#-}
