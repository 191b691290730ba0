// A splat is a few bytes of IR, but a trace holds every element: exporting
// one of 2^38 float32 elements (1 TiB) is refused at once instead of writing
// for hours (the fuzzers' seeding hung on it).
// RUN: not traced-translate --export-trace %s 2>&1 | FileCheck %s
// CHECK: error: 'traced.constant' op tensor value of type 'tensor<274877906944xf32>' would take 1099511627776 bytes in the trace, more than a quarter of this machine's {{[0-9]+}} bytes of memory
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>) -> tensor<274877906944xf32> {
    %a = constant dense<1.5> : tensor<274877906944xf32>
    output %a : tensor<274877906944xf32>
  }
}
