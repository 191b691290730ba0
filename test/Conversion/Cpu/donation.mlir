// A key-value cache written at P:S (sizes as values) and donated by the
// caller (traced.compile(donate=), docs/llm.md "Cache styles").
//
// The item assignment with run-time bounds is one tensor.insert_slice, with
// Python's clamping of the bounds and a run-time check that the value fills
// the window:
// RUN: traced-opt %s --convert-traced-to-linalg --canonicalize | FileCheck %s --check-prefix=LOWER
// LOWER-LABEL: func.func @forward(
// LOWER-SAME:    %[[MASK:[^:]*]]: tensor<1x?xf32>, %[[K:[^:]*]]: tensor<2x?x4xf32>, %[[CACHE:[^:]*]]: tensor<2x16x4xf32>)
// LOWER:         cf.assert %{{.*}}, "{{.*}}:{{[0-9]+}}: 'operator.setitem': shape mismatch: the value cannot be broadcast to the indexed window"
// LOWER:         %[[NEW:.*]] = tensor.insert_slice %[[K]] into %[[CACHE]][0, %{{.*}}, 0] [2, %{{.*}}, 4] [1, 1, 1] : tensor<2x?x4xf32> into tensor<2x16x4xf32>
// LOWER:         tensor.extract_slice %[[NEW]][0, 0, 0] [2, %{{.*}}, 4] [1, 1, 1] : tensor<2x16x4xf32> to tensor<2x?x4xf32>
// LOWER:         return %{{.*}}, %[[NEW]]
//
// Donated (input 2 to output 1), the cache is writable for one-shot
// bufferization and updated in place: no buffer of its size is allocated
// and nothing copies it but the final copy into the output, which is
// skipped when the caller passes the cache's buffer as the output.
// RUN: traced-opt %s --traced-cpu-pipeline="donate=2:1" --mlir-print-ir-after=traced-cpu-check-donations -o /dev/null 2>&1 | FileCheck %s --check-prefix=DONATE
// DONATE-LABEL: func.func @forward(
// DONATE-SAME:    %[[CACHE:[^:]*]]: memref<2x16x4xf32> {traced.aliasing_output = 1 : i64}
// DONATE-SAME:    %[[OUT:[^:]*]]: memref<2x16x4xf32>)
// DONATE-NOT:     memref.alloc() {{.*}} : memref<2x16x4xf32>
// DONATE:         memref.subview %[[CACHE]]
// DONATE:         %[[FROM:.*]] = memref.extract_aligned_pointer_as_index %[[CACHE]]
// DONATE:         %[[TO:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// DONATE:         %[[DIFFER:.*]] = arith.cmpi ne, %[[FROM]], %[[TO]] : index
// DONATE:         scf.if %[[DIFFER]] {
// DONATE-NEXT:      memref.copy %[[CACHE]], %[[OUT]]
// DONATE-NEXT:    }
// DONATE-NEXT:    return
//
// Not donated, the cache is read-only: its update goes into a new buffer.
// RUN: traced-opt %s --traced-cpu-pipeline --mlir-print-ir-after=traced-cpu-check-donations -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func.func @forward(
// KEEP-NOT:     traced.aliasing_output
// KEEP:         memref.copy %arg2,
// KEEP-NOT:     scf.if
//
// The pass alone marks the argument:
// RUN: traced-opt %s --convert-traced-to-linalg --traced-cpu-donate-arguments="donate=2:1" | FileCheck %s --check-prefix=MARK
// MARK: func.func @forward({{.*}}, %{{.*}}: tensor<2x16x4xf32> {bufferization.writable = true, traced.aliasing_output = 1 : i64})
//
// Pairs that name no input or output, of other types, or twice:
// RUN: not traced-opt %s --traced-cpu-pipeline="donate=2:0" -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: error: input 3 ('cache') cannot be donated to output 0: its type 'tensor<2x16x4xf32>' is not the output's, 'tensor<2x4xf32>'
// RUN: not traced-opt %s --traced-cpu-pipeline="donate=2:7" -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: donate: 2:7 names no input and output: the entry has 3 inputs and 2 outputs (numbered from 0)
// RUN: not traced-opt %s --traced-cpu-pipeline="donate=cache" -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=FORM
// FORM: error: donate: 'cache' is not an input:output pair of indices
// RUN: not traced-opt %s --traced-cpu-pipeline="donate=2:1,2:1" -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: donate: 2:1 donates an input or an output twice

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %mask: tensor<1x?xf32> {traced.dim_names = ["", "total"]}, %k: tensor<2x?x4xf32> {traced.dim_names = ["", "seq", ""]}, %cache: tensor<2x16x4xf32>) -> (tensor<2x4xf32>, tensor<2x16x4xf32>) {
    %t = call_method %k["size"](dim=1) : (tensor<2x?x4xf32>) -> i64
    %s = call_method %mask["size"](dim=1) : (tensor<1x?xf32>) -> i64
    %p = call_function "operator.sub"(input=%s, other=%t) : (i64, i64) -> i64
    %new = call_method %cache["__setitem__"](index=(slice(None, None, None), slice(%p, %s, None)), value=%k) : (tensor<2x16x4xf32>, i64, i64, tensor<2x?x4xf32>) -> tensor<2x16x4xf32>
    %seen = call_method %new["__getitem__"](index=(slice(None, None, None), slice(None, %s, None))) : (tensor<2x16x4xf32>, i64) -> tensor<2x?x4xf32>
    %sum = call_method %seen["sum"](dim=[1]) : (tensor<2x?x4xf32>) -> tensor<2x4xf32>
    output %sum, %new : tensor<2x4xf32>, tensor<2x16x4xf32>
  }
}
