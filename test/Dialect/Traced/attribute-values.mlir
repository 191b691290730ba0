// RUN: traced-opt %s | FileCheck %s

// Plain attributes hold Python values, written in Python syntax.

// CHECK-LABEL: traced.module @Values
traced.module @Values class "__main__.Values" {
  // CHECK: attribute @int : i64 = -3
  attribute @int : i64 = -3
  // CHECK: attribute @float : f64 = 0.1
  attribute @float : f64 = 0.1
  // CHECK: attribute @exp : f64 = 1.0e-05
  attribute @exp : f64 = 1.0e-05
  // CHECK: attribute @whole : f64 = 2.0
  attribute @whole : f64 = 2.0
  // CHECK: attribute @inf : f64 = float("inf")
  attribute @inf : f64 = float("inf")
  // CHECK: attribute @ninf : f64 = float("-inf")
  attribute @ninf : f64 = float("-inf")
  // CHECK: attribute @nan : f64 = float("nan")
  attribute @nan : f64 = float("nan")
  // CHECK: attribute @yes : i1 = True
  attribute @yes : i1 = True
  // CHECK: attribute @str : !traced.str = "a \22quoted\22\0Astring"
  attribute @str : !traced.str = "a \"quoted\"\nstring"
  // CHECK: attribute @none : !traced.none = None
  attribute @none : !traced.none = None
  // CHECK: attribute @list : !traced.list<i64> = [1, 2, 3]
  attribute @list : !traced.list<i64> = [1, 2, 3]
  // CHECK: attribute @empty : !traced.list<i64> = []
  attribute @empty : !traced.list<i64> = []
  // CHECK: attribute @nested : !traced.list<!traced.list<f64>> = {{\[}}[1.5], [2.5]]
  attribute @nested : !traced.list<!traced.list<f64>> = [[1.5], [2.5]]
  // CHECK: attribute @mixed : !traced.list<!traced.object> = [1, "a"]
  attribute @mixed : !traced.list<!traced.object> = [1, "a"]
  // CHECK: attribute @one : tuple<i64> = (1,)
  attribute @one : tuple<i64> = (1,)
  // CHECK: attribute @unit : tuple<> = ()
  attribute @unit : tuple<> = ()
  // CHECK: attribute @pair : tuple<i64, !traced.none> = (7, None)
  attribute @pair : tuple<i64, !traced.none> = (7, None)
  // CHECK: attribute @dtype : !traced.object = dtype(f16)
  attribute @dtype : !traced.object = dtype(f16)
  // CHECK: attribute @device : !traced.object = object("device(type='cpu')")
  attribute @device : !traced.object = object("device(type='cpu')")
  // CHECK: attribute @any : !traced.object = 3
  attribute @any : !traced.object = 3
}

// The int64 range, both ends.
traced.module @Limits class "__main__.Limits" {
  // CHECK: attribute @min : i64 = -9223372036854775808
  attribute @min : i64 = -9223372036854775808
  // CHECK: attribute @max : i64 = 9223372036854775807
  attribute @max : i64 = 9223372036854775807
}
