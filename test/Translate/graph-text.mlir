// RUN: traced-translate --traced-to-graph-text %s | FileCheck %s

// TracedModule-style printing of every kind of expr; the root module's
// graphs come first.

traced.module @Child class "__main__.Child" {
  graph @forward(%self: !traced.module<@Child>, %x: tensor<2x3xf32>) -> tuple<i64, i64> {
    %0 = call_method %x["size"]() : (tensor<2x3xf32>) -> tuple<i64, i64>
    output %0 : tuple<i64, i64>
  }
}

traced.module root @Net class "__main__.Net" {
  submodule @child : @Child
  attribute @k : i64 = 3
  graph @forward(%self: !traced.module<@Net>, %x: tensor<2x3xf32>) -> (tensor<6xf32>, i64) {
    %c = constant [1, 2] : !traced.list<i64>
    %k = getattr %self["k"] : !traced.module<@Net> -> i64
    %child = getattr %self["child"] : !traced.module<@Net> -> !traced.module<@Child>
    %s = call_method %child["forward"](%x) : (!traced.module<@Child>, tensor<2x3xf32>) -> tuple<i64, i64>
    %n = call_function "operator.getitem"(%s, 0) : (tuple<i64, i64>) -> i64
    %v = call_method %x["view"](-1) : (tensor<2x3xf32>) -> tensor<6xf32>
    %cat = call_function "torch.cat"([%v], dim=0) : (tensor<6xf32>) -> tensor<6xf32>
    %a, %b = call_function "mylib.pair"(%v, scale=0.5) : (tensor<6xf32>) -> (i64, i64)
    output %cat, %n : tensor<6xf32>, i64
  }
}

// CHECK:      Net.Graph (self, x) {
// CHECK-NEXT:   %2: const = Constant([1, 2]) -> (!traced.list<i64>)
// CHECK-NEXT:   %3: k = getattr(self, "k") -> (i64)
// CHECK-NEXT:   %4: child = getattr(self, "child") -> (Child)
// CHECK-NEXT:   %5: child_out = child(x)
// CHECK-NEXT:   %6: getitem_out = operator.getitem(input=child_out, index=0)
// CHECK-NEXT:   %7: view_out = x.view(size=[-1])
// CHECK-NEXT:   %8: cat_out = torch.cat(tensors=[view_out])
// CHECK-NEXT:   %9: pair_out#0, pair_out#1 = mylib.pair(view_out, scale=0.5)
// CHECK-NEXT:   return cat_out, getitem_out
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: Child.Graph (self, x) {
// CHECK-NEXT:   %2: size_out = x.size()
// CHECK-NEXT:   return size_out
// CHECK-NEXT: }
