// Exprs carry the user's source location through JSON traces: `"loc"` is
// read as file:line:column inside a NameLoc of the module path (`scope`),
// so diagnostics after the import point at the user's line, and
// --export-locations writes it back.

// RUN: traced-translate --import-trace %S/Inputs/json-locations.json --mlir-print-debuginfo | FileCheck %s
// CHECK: call_function "torch.relu"{{.*}} loc(#[[RELU:loc[0-9]*]])
// CHECK: call_function "torch.mul"{{.*}} loc(#[[MUL:loc[0-9]*]])
// CHECK-DAG: #[[MUL]] = loc("model.py":14:8)
// CHECK-DAG: #[[RELU]] = loc("block.0"(#loc{{[0-9]*}}))
// CHECK-DAG: = loc("model.py":12:19)

// The verifier's error after the import (a matmul of [2, 3] by [2, 3]) is
// at the user's line, not the JSON's.
// RUN: sed 's/torch.mul"/torch.matmul"/' %S/Inputs/json-locations.json > %t.json
// RUN: not traced-translate --import-trace %t.json 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: model.py:14:8: error: 'traced.call_function' op 'torch.matmul' cannot multiply 'tensor<2x3xf32>' and 'tensor<2x3xf32>'
// ERR-NOT: json

// Round trip (the printed IR carries its locations): export with
// locations, import again, same locations.
// RUN: traced-translate --import-trace %S/Inputs/json-locations.json --mlir-print-debuginfo | traced-translate --export-trace --export-locations | FileCheck %s --check-prefix=EXPORT
// EXPORT:      "loc": {
// EXPORT-NEXT:   "file": "model.py",
// EXPORT-NEXT:   "line": 12,
// EXPORT-NEXT:   "col": 19,
// EXPORT-NEXT:   "scope": "block.0"
// EXPORT-NEXT: },
// EXPORT:      "loc": {
// EXPORT-NEXT:   "file": "model.py",
// EXPORT-NEXT:   "line": 14,
// EXPORT-NEXT:   "col": 8
// EXPORT-NEXT: },
// RUN: traced-translate --import-trace %S/Inputs/json-locations.json --mlir-print-debuginfo | traced-translate --export-trace --export-locations | traced-translate --import-trace --mlir-print-debuginfo | FileCheck %s

// Without the flag, nothing: locations of IR parsed from a file would be
// the file's own positions.
// RUN: traced-translate --import-trace %S/Inputs/json-locations.json | traced-translate --export-trace | FileCheck %s --check-prefix=PLAIN --implicit-check-not='"loc"'
// PLAIN: "format": "traced-trace"
// PLAIN: "exprs": [
// PLAIN: "outputs"

// A malformed loc is an import error at its field.
// RUN: not traced-translate --import-trace %S/Inputs/json-error-loc.json 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: json-error-loc.json:11:48: error: expected 'line' of the expr's loc to be a non-negative 32-bit integer, got -3
