// RUN: traced-translate --traced-to-dot %s | FileCheck %s
// RUN: traced-translate --traced-to-dot --dot-depth=1 %s | FileCheck %s --check-prefix=DEPTH1
// RUN: traced-translate --traced-to-dot --dot-params %s | FileCheck %s --check-prefix=PARAMS

// The picture of the root's forward graph: a traced submodule call is a
// cluster whose inputs and outputs connect to the caller's values (also a
// list argument, bound by keyword); leaf modules and calls are boxes; edges
// carry shape and dtype; parameters only with --dot-params.

traced.module @Block class "__main__.Block" {
  submodule @fc : @Linear
  parameter @scale : tensor<1xf32> = dense<2.0> : tensor<1xf32>
  graph @forward(%self: !traced.module<@Block>, %xs: !traced.list<tensor<2x4xf32>>) -> tensor<2x5xf32> {
    %x = call_function "operator.getitem"(%xs, 1) : (!traced.list<tensor<2x4xf32>>) -> tensor<2x4xf32>
    %scale = getattr %self["scale"] : !traced.module<@Block> -> tensor<1xf32>
    %m = call_method %x["__mul__"](%scale) : (tensor<2x4xf32>, tensor<1xf32>) -> tensor<2x4xf32>
    %fc = getattr %self["fc"] : !traced.module<@Block> -> !traced.module<@Linear>
    %y = call_method %fc["forward"](%m) : (!traced.module<@Linear>, tensor<2x4xf32>) -> tensor<2x5xf32>
    output %y : tensor<2x5xf32>
  }
}

traced.module @Linear class "torch.nn.Linear" {
  parameter @weight : tensor<5x4xf32> = dense<1.0> : tensor<5x4xf32>
  parameter @bias : tensor<5xf32> = dense<0.0> : tensor<5xf32>
  attribute @in_features : i64 = 4
  attribute @out_features : i64 = 5
}

traced.module root @Net class "__main__.Net" {
  submodule @block : @Block
  graph @forward(%self: !traced.module<@Net>, %a: tensor<2x4xf32>, %b: tensor<2x4xi64>) -> (tensor<2x5xf32>, tensor<2x4xf32>) {
    %r = call_function "torch.nn.functional.relu"(%a) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %f = call_method %b["float"]() : (tensor<2x4xi64>) -> tensor<2x4xf32>
    %block = getattr %self["block"] : !traced.module<@Net> -> !traced.module<@Block>
    %y = call_method %block["forward"](xs=[%r, %f]) : (!traced.module<@Block>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x5xf32>
    output %y, %f : tensor<2x5xf32>, tensor<2x4xf32>
  }
}

// CHECK:       digraph "Net" {
// CHECK:         n0 [label="a", shape=ellipse
// CHECK-NEXT:    n1 [label="b", shape=ellipse
// CHECK-NEXT:    n2 [label="relu", {{.*}}tooltip="torch.nn.functional.relu"];
// CHECK-NEXT:    n3 [label=".float", {{.*}}tooltip="Tensor.float"];
// CHECK-NEXT:    subgraph cluster_0 {
// CHECK-NEXT:      label="block: Block";
// CHECK-NEXT:      n4 [label="getitem", {{.*}}tooltip="operator.getitem"];
// CHECK-NEXT:      n5 [label=".__mul__",
// CHECK-NEXT:      n6 [label="fc\nLinear", {{.*}}tooltip="block.fc: torch.nn.Linear"];
// CHECK-NEXT:    }
// CHECK-NEXT:    n7 [label="output"
// CHECK-NEXT:    n0 -> n2 [label="[2, 4] float32"];
// CHECK-NEXT:    n1 -> n3 [label="[2, 4] int64"];
// The list argument: both elements feed the getitem.
// CHECK-NEXT:    n2 -> n4 [label="[2, 4] float32"];
// CHECK-NEXT:    n3 -> n4 [label="[2, 4] float32"];
// CHECK-NEXT:    n4 -> n5 [label="[2, 4] float32"];
// CHECK-NEXT:    n5 -> n6 [label="[2, 4] float32"];
// The block's output is made inside the cluster.
// CHECK-NEXT:    n6 -> n7 [label="[2, 5] float32"];
// CHECK-NEXT:    n3 -> n7 [label="[2, 4] float32"];
// CHECK-NEXT:  }

// DEPTH1-NOT:   subgraph
// DEPTH1:       n4 [label="block\nBlock", shape=box3d
// DEPTH1:       n2 -> n4 [label="[2, 4] float32"];
// DEPTH1-NEXT:  n3 -> n4 [label="[2, 4] float32"];
// DEPTH1-NEXT:  n4 -> n5 [label="[2, 5] float32"];

// PARAMS:       n5 [label="scale", shape=ellipse
// PARAMS:       [label="fc\nLinear\nweight [5, 4] float32\nbias [5] float32"
// PARAMS:       n5 -> n6 [label="[1] float32"];
