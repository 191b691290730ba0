// RUN: traced-opt %s -canonicalize | FileCheck %s
// NO-ROUND-TRIP: the input holds a call in non-normalized (generic) form on
// purpose; the custom parser would normalize it.

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> tensor<2xf32> {
    // A call built in another form (here: generic, positional) folds into
    // the normalized form.
    // CHECK: %[[R:.*]] = call_function "torch.nn.functional.relu"(input=%x) : (tensor<2xf32>) -> tensor<2xf32>
    %0 = "traced.call_function"(%x) <{callee = "torch.nn.functional.relu", arguments = [#traced.operand<0>, false]}> : (tensor<2xf32>) -> tensor<2xf32>
    // Unused calls of pure targets go away...
    // CHECK-NOT: "torch.sigmoid"
    %1 = call_function "torch.sigmoid"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    // ...but not in-place calls, nor calls of unknown targets.
    // CHECK: call_function "torch.nn.functional.relu"(input=%x, inplace=True)
    %2 = call_function "torch.nn.functional.relu"(%x, inplace=True) : (tensor<2xf32>) -> tensor<2xf32>
    // CHECK: call_function "mylib.log"(%x)
    %3 = call_function "mylib.log"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    // Unused constants go away too.
    // CHECK-NOT: constant
    %4 = constant dense<1.0> : tensor<2xf32>
    // CHECK: output %[[R]]
    output %0 : tensor<2xf32>
  }
}

// Identities disappear and sizes of static shapes become constants.
traced.module @Identities class "__main__.Identities" {
  // CHECK-LABEL: graph @forward(%self: !traced.module<@Identities>, %x: tensor<2x3xf32>)
  graph @forward(%self: !traced.module<@Identities>, %x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tuple<i64, i64>, i64, tensor<2x3xf32>) {
    %0 = call_function "torch.nn.functional.dropout"(%x, 0.1, False) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = call_method %0["contiguous"]() : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = call_method %1["__mul__"](1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %sd = call_function "torchvision.ops.stochastic_depth.stochastic_depth"(%2, 0.2, "row", False) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = call_function "operator.sub"(%sd, 0.0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    // CHECK-DAG: %[[S:.*]] = constant (2, 3) : tuple<i64, i64>
    // CHECK-DAG: %[[N:.*]] = constant 3 : i64
    %4 = call_method %3["size"]() : (tensor<2x3xf32>) -> tuple<i64, i64>
    %5 = call_method %3["size"](-1) : (tensor<2x3xf32>) -> i64
    // Training-mode dropout is no identity.
    // CHECK: %[[D:.*]] = call_function "torch.nn.functional.dropout"(input=%x, p=0.1)
    %6 = call_function "torch.nn.functional.dropout"(%x, 0.1, True) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    // CHECK: output %x, %[[S]], %[[N]], %[[D]]
    output %3, %4, %5, %6 : tensor<2x3xf32>, tuple<i64, i64>, i64, tensor<2x3xf32>
  }
}

// getattr of a plain attribute folds to its value; repeated getattrs merge.
traced.module @Attrs class "__main__.Attrs" {
  attribute @eps : f64 = 0.5
  parameter @w : tensor<2xf32> = dense<1.0> : tensor<2xf32>
  // CHECK-LABEL: graph @forward(%self: !traced.module<@Attrs>
  graph @forward(%self: !traced.module<@Attrs>, %x: tensor<2xf32>) -> (f64, tensor<2xf32>, tensor<2xf32>) {
    // CHECK-DAG: %[[E:.*]] = constant 0.5 : f64
    // CHECK-DAG: %[[W:.*]] = getattr %self["w"]
    // CHECK-NOT: getattr %self["w"]
    %0 = getattr %self["eps"] : !traced.module<@Attrs> -> f64
    %1 = getattr %self["w"] : !traced.module<@Attrs> -> tensor<2xf32>
    %2 = getattr %self["w"] : !traced.module<@Attrs> -> tensor<2xf32>
    // CHECK: output %[[E]], %[[W]], %[[W]]
    output %0, %1, %2 : f64, tensor<2xf32>, tensor<2xf32>
  }
}
