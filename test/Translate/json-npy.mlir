// Weights from .npy side files (paths relative to the JSON file; index.npy
// is .npy format 2.0), every dtype family, every Python value and type form.
// RUN: traced-translate --import-trace %S/Inputs/json-npy.json | FileCheck %s
// Inputs/make-npy.py writes the .npy files.

// CHECK-LABEL: traced.module root @Net class "__main__.Net" {
// CHECK-NEXT:    submodule @bn : @BatchNorm2d
// CHECK-NEXT:    buffer @mask : tensor<4xi1> = dense_resource<Net_mask> : tensor<4xi1>
// CHECK-NEXT:    buffer @index : tensor<2x2xi64> = dense_resource<Net_index> : tensor<2x2xi64>
// CHECK-NEXT:    buffer @pixels : tensor<3xui8> = dense_resource<Net_pixels> : tensor<3xui8>
// CHECK-NEXT:    parameter @half : tensor<2xf16> = dense_resource<Net_half> : tensor<2xf16>
// CHECK-NEXT:    parameter @brain : tensor<2xbf16> = dense_resource<Net_brain> : tensor<2xbf16>
// CHECK-NEXT:    attribute @stride : tuple<i64, i64> = (1, 1)
// CHECK-NEXT:    attribute @tag : !traced.str = "net \22v1\22\0A"
// CHECK-NEXT:    attribute @enabled : i1 = True
// CHECK-NEXT:    attribute @scale : f64 = 1.0e-05
// CHECK-NEXT:    attribute @limit : f64 = float("-inf")
// CHECK-NEXT:    attribute @nothing : !traced.none = None
// CHECK-NEXT:    attribute @sizes : !traced.list<i64> = [1, 2, 3]
// CHECK-NEXT:    attribute @device : !traced.object = object("device(type='cpu')")
// CHECK-NEXT:    graph @forward(%self: !traced.module<@Net>, %x: tensor<2x4x3x3xf32>) -> (tensor<?x72xf16>, tuple<i64, !traced.str, !traced.list<!traced.object>>, i64) {
// CHECK-NEXT:      %bn = getattr %self["bn"] : !traced.module<@Net> -> !traced.module<@BatchNorm2d>
// CHECK-NEXT:      %bn_out = call_method %bn["forward"](%x) : (!traced.module<@BatchNorm2d>, tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
// CHECK-NEXT:      %const = constant 2 : i64
// CHECK-NEXT:      %view_out = call_method %bn_out["view"](size=[%const, -1]) : (tensor<2x4x3x3xf32>, i64) -> tensor<2x36xf32>
// CHECK-NEXT:      %cat_out = call_function "torch.cat"(tensors=[%view_out, %view_out], dim=1) : (tensor<2x36xf32>, tensor<2x36xf32>) -> tensor<2x72xf32>
// CHECK-NEXT:      %const_tensor = constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-NEXT:      %const_tensor_0 = constant dense<{{\[\[}}1, 2], [3, -4]]> : tensor<2x2xi64>
// CHECK-NEXT:      %custom_out:2 = call_function "mylib.custom"(%cat_out, (slice(0, None, 2), ...), dtype=dtype(f16), alpha=0.5, beta=3.0, name="s", flag=False, low=float("nan"), where=object("device(type='cpu')"), none=None, mixed=[1, 2.5, %const_tensor]) : (tensor<2x72xf32>, tensor<3xi1>) -> (tensor<?x72xf16>, tuple<i64, !traced.str, !traced.list<!traced.object>>)
// CHECK-NEXT:      output %custom_out#0, %custom_out#1, %const : tensor<?x72xf16>, tuple<i64, !traced.str, !traced.list<!traced.object>>, i64
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  traced.module @BatchNorm2d class "torch.nn.BatchNorm2d" {
// CHECK-NEXT:    parameter @weight : tensor<4xf32> = dense_resource<BatchNorm2d_weight> : tensor<4xf32>
// CHECK-NEXT:    parameter @bias : tensor<4xf32> = dense_resource<BatchNorm2d_bias> : tensor<4xf32>
// CHECK-NEXT:    buffer @running_mean : tensor<4xf32> = dense_resource<BatchNorm2d_running_mean> : tensor<4xf32>
// CHECK-NEXT:    buffer @running_var : tensor<4xf32> = dense_resource<BatchNorm2d_running_var> : tensor<4xf32>
// CHECK-NEXT:    attribute @training : i1 = False
// CHECK-NEXT:    attribute @momentum : f64 = 0.1
// CHECK-NEXT:    attribute @eps : f64 = 1.0e-05
// CHECK-NEXT:  }

// The .npy payloads, byte for byte, aligned to their element size: bools
// and uint8 one byte each, int64 [[1, 2], [3, -4]], f16 [1, -2], f32.
// CHECK:      Net_mask: "0x0100000001000101",
// CHECK-NEXT: Net_index: "0x08000000010000000000000002000000000000000300000000000000FCFFFFFFFFFFFFFF",
// CHECK-NEXT: Net_pixels: "0x010000000080FF",
// CHECK-NEXT: Net_half: "0x02000000003C00C0",
// CHECK-NEXT: Net_brain: "0x02000000803F00C0",
// CHECK-NEXT: BatchNorm2d_weight: "0x040000000000803F0000003F000080BE00000040",
// CHECK-NEXT: BatchNorm2d_bias: "0x04000000000000000000003E000080BF00008040",
// CHECK-NEXT: BatchNorm2d_running_mean: "0x040000000000003F0000003F0000003F0000003F",
// CHECK-NEXT: BatchNorm2d_running_var: "0x040000000000803F000000400000404000008040"
