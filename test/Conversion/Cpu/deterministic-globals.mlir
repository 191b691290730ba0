// The CPU pipeline prints the same IR every run (NumberConstantGlobals,
// lib/Conversion/Cpu/Pipeline.cpp): one-shot bufferization creates the
// constant globals of functions that do not call each other in an order
// that depends on pointers, and the names and order followed it. Split
// into one function per op, eight matmuls reading eight weights are
// lowered five times; every output must be the first.
// RUN: traced-opt %s --traced-cpu-pipeline=split-ops=1 -o %t.0
// RUN: traced-opt %s --traced-cpu-pipeline=split-ops=1 -o %t.1
// RUN: traced-opt %s --traced-cpu-pipeline=split-ops=1 -o %t.2
// RUN: traced-opt %s --traced-cpu-pipeline=split-ops=1 -o %t.3
// RUN: traced-opt %s --traced-cpu-pipeline=split-ops=1 -o %t.4
// RUN: cmp %t.0 %t.1
// RUN: cmp %t.0 %t.2
// RUN: cmp %t.0 %t.3
// RUN: cmp %t.0 %t.4
// The globals are numbered in the order the parts read them.
// RUN: FileCheck %s --input-file=%t.0
// CHECK: llvm.mlir.global private constant @__constant_4x4xf32_0(dense<[0.000000e+00, 1.000000e+00,
// CHECK-NEXT: llvm.mlir.global private constant @__constant_4x4xf32_1(dense<[1.000000e+00, 2.000000e+00,

traced.module root @M class "m.M" {
  parameter @w0 : tensor<4x4xf32> = dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]> : tensor<4x4xf32>
  parameter @w1 : tensor<4x4xf32> = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]> : tensor<4x4xf32>
  parameter @w2 : tensor<4x4xf32> = dense<[[2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0], [14.0, 15.0, 16.0, 17.0]]> : tensor<4x4xf32>
  parameter @w3 : tensor<4x4xf32> = dense<[[3.0, 4.0, 5.0, 6.0], [7.0, 8.0, 9.0, 10.0], [11.0, 12.0, 13.0, 14.0], [15.0, 16.0, 17.0, 18.0]]> : tensor<4x4xf32>
  parameter @w4 : tensor<4x4xf32> = dense<[[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0]]> : tensor<4x4xf32>
  parameter @w5 : tensor<4x4xf32> = dense<[[5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0], [17.0, 18.0, 19.0, 20.0]]> : tensor<4x4xf32>
  parameter @w6 : tensor<4x4xf32> = dense<[[6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0], [14.0, 15.0, 16.0, 17.0], [18.0, 19.0, 20.0, 21.0]]> : tensor<4x4xf32>
  parameter @w7 : tensor<4x4xf32> = dense<[[7.0, 8.0, 9.0, 10.0], [11.0, 12.0, 13.0, 14.0], [15.0, 16.0, 17.0, 18.0], [19.0, 20.0, 21.0, 22.0]]> : tensor<4x4xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %w0 = getattr %self["w0"] : !traced.module<@M> -> tensor<4x4xf32>
    %w1 = getattr %self["w1"] : !traced.module<@M> -> tensor<4x4xf32>
    %w2 = getattr %self["w2"] : !traced.module<@M> -> tensor<4x4xf32>
    %w3 = getattr %self["w3"] : !traced.module<@M> -> tensor<4x4xf32>
    %w4 = getattr %self["w4"] : !traced.module<@M> -> tensor<4x4xf32>
    %w5 = getattr %self["w5"] : !traced.module<@M> -> tensor<4x4xf32>
    %w6 = getattr %self["w6"] : !traced.module<@M> -> tensor<4x4xf32>
    %w7 = getattr %self["w7"] : !traced.module<@M> -> tensor<4x4xf32>
    %r0 = call_function "torch.matmul"(input=%x, other=%w0) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %r1 = call_function "torch.matmul"(input=%r0, other=%w1) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %r2 = call_function "torch.matmul"(input=%r1, other=%w2) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %r3 = call_function "torch.matmul"(input=%r2, other=%w3) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %r4 = call_function "torch.matmul"(input=%r3, other=%w4) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %r5 = call_function "torch.matmul"(input=%r4, other=%w5) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %r6 = call_function "torch.matmul"(input=%r5, other=%w6) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %r7 = call_function "torch.matmul"(input=%r6, other=%w7) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    output %r7 : tensor<4x4xf32>
  }
}
