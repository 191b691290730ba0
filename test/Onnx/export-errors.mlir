// A call with no ONNX form is an error naming the target and the user's
// line; nothing is written.
// RUN: not traced-translate --export-onnx %s -o %t.onnx 2>&1 | FileCheck %s
// RUN: not test -e %t.onnx
// RUN: not traced-translate --export-onnx --onnx-opset=11 %s 2>&1 | FileCheck %s --check-prefix=OPSET

// CHECK: model.py:7:3: error: cannot export 'torch.linalg.det' to ONNX: no ONNX form is known for it (docs/onnx.md lists the exported targets) (called at model.py:7)
// OPSET: error: cannot export to ONNX opset 11: TracedIR writes opsets 13 to 17

traced.module root @M class "M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x3xf32>) -> tensor<f32> {
    %d = call_function "torch.linalg.det"(input=%x) : (tensor<3x3xf32>) -> tensor<f32> loc("model.py":7:3)
    output %d : tensor<f32>
  }
}
