// A graph over narrow dtypes for run-dtypes.test: bool + bool (or),
// uint8 * 3 (wraps), int8 // int8 (floor), float16 * 1.5.
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %b: tensor<4xi1>, %u: tensor<4xui8>, %i: tensor<4xi8>, %h: tensor<4xf16>) -> (tensor<4xi1>, tensor<4xui8>, tensor<4xi8>, tensor<4xf16>) {
    %or = call_function "torch.add"(input=%b, other=%b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %u3 = call_function "torch.mul"(input=%u, other=3) : (tensor<4xui8>) -> tensor<4xui8>
    %q = call_function "torch.floor_divide"(input=%i, other=-3) : (tensor<4xi8>) -> tensor<4xi8>
    %h2 = call_function "torch.mul"(input=%h, other=1.5) : (tensor<4xf16>) -> tensor<4xf16>
    output %or, %u3, %q, %h2 : tensor<4xi1>, tensor<4xui8>, tensor<4xi8>, tensor<4xf16>
  }
}
