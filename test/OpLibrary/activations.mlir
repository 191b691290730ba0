// RUN: traced-opt %s | FileCheck %s

// Activations keep their input's type; PyTorch and MegEngine spellings are
// aliases of one entry each.

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x8xf32>) {
    // CHECK: call_function "torch.nn.functional.relu"(input=%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %0 = call_function "torch.nn.functional.relu"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "megengine.functional.nn.relu"(input=%x)
    %1 = call_function "megengine.functional.nn.relu"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_method %x["relu"]() : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %2 = call_method %x["relu"]() : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "torch.nn.functional.relu6"(input=%x, inplace=True)
    %3 = call_function "torch.nn.functional.relu6"(%x, True) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "torch.nn.functional.hardtanh"(input=%x, min_val=0.0, max_val=6.0)
    %4 = call_function "torch.nn.functional.hardtanh"(%x, 0.0, 6.0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "torch.nn.functional.gelu"(input=%x, approximate="tanh")
    %5 = call_function "torch.nn.functional.gelu"(%x, approximate="tanh") : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "torch.nn.functional.silu"(input=%x)
    %6 = call_function "torch.nn.functional.silu"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "torch.nn.functional.hardswish"(input=%x)
    %7 = call_function "torch.nn.functional.hardswish"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "nn.hsigmoid"(input=%x)
    %8 = call_function "nn.hsigmoid"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_method %x["sigmoid"]()
    %9 = call_method %x["sigmoid"]() : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "torch.tanh"(input=%x)
    %10 = call_function "torch.tanh"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "torch.nn.functional.softmax"(input=%x, dim=-1)
    %11 = call_function "torch.nn.functional.softmax"(%x, -1) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_method %x["softmax"](dim=1)
    %12 = call_method %x["softmax"](1) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "torch.nn.functional.log_softmax"(input=%x, dim=1)
    %13 = call_function "torch.nn.functional.log_softmax"(%x, dim=1) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "torch.nn.functional.leaky_relu"(input=%x, negative_slope=0.2)
    %14 = call_function "torch.nn.functional.leaky_relu"(%x, 0.2) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "torch.clamp"(input=%x, min=0, max=6)
    %15 = call_function "torch.clamp"(%x, 0, 6) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_method %x["clamp"](min=0.0)
    %16 = call_method %x["clamp"](min=0.0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "torch.exp"(input=%x)
    %17 = call_function "torch.exp"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_method %x["rsqrt"]()
    %18 = call_method %x["rsqrt"]() : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // CHECK: call_function "torch.erf"(input=%x)
    %19 = call_function "torch.erf"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    output
  }
}
