// Every import error is a diagnostic at file:line:column of the JSON element
// at fault. The inputs are in Inputs/ (lit runs .mlir and .test files only).

// Malformed JSON: llvm::json::parse's error, at the character it rejected.
// RUN: not traced-translate --import-trace %S/Inputs/json-error-truncated.json 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TRUNCATED
// TRUNCATED:      json-error-truncated.json:6:83: error: malformed JSON: unexpected EOF
// TRUNCATED-NEXT:      "attributes": [{"name": "k", "kind": "attribute", "type": "int", "value": 3},
// TRUNCATED-NEXT: {{^}}                                                                                  ^

// RUN: not traced-translate --import-trace %S/Inputs/json-error-trailing-comma.json 2>&1 | FileCheck %s --strict-whitespace --check-prefix=COMMA
// COMMA:      json-error-trailing-comma.json:5:55: error: malformed JSON: expected object key
// COMMA-NEXT:     {"name": "M", "class": "__main__.M", "graphs": [],}
// COMMA-NEXT: {{^}}                                                      ^

// RUN: not traced-translate --import-trace %S/Inputs/json-error-trailing-comma-array.json 2>&1 | FileCheck %s --check-prefix=COMMA-ARRAY
// COMMA-ARRAY: json-error-trailing-comma-array.json:6:3: error: malformed JSON: invalid JSON value

// What llvm::json lets through: duplicate keys, absurd nesting.
// RUN: not traced-translate --import-trace %S/Inputs/json-error-duplicate-key.json 2>&1 | FileCheck %s --check-prefix=DUP-KEY
// DUP-KEY: json-error-duplicate-key.json:4:42: error: duplicate key 'name' in object
// RUN: not traced-translate --import-trace %S/Inputs/json-error-nesting.json 2>&1 | FileCheck %s --check-prefix=NESTING
// NESTING: json-error-nesting.json:1:257: error: JSON nested more than 256 levels deep

// The schema: fields, kinds, names.
// RUN: not traced-translate --import-trace %S/Inputs/json-error-version.json 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: json-error-version.json:1:39: error: unsupported trace format version 2; this reader knows 1

// RUN: not traced-translate --import-trace %S/Inputs/json-error-missing-field.json 2>&1 | FileCheck %s --strict-whitespace --check-prefix=MISSING
// MISSING:      json-error-missing-field.json:10:11: error: missing field 'func' in CallFunction expr
// MISSING-NEXT:           {"kind": "CallFunction", "args": [{"node": "x"}],
// MISSING-NEXT: {{^}}          ^

// RUN: not traced-translate --import-trace %S/Inputs/json-error-field-type.json 2>&1 | FileCheck %s --check-prefix=FIELD-TYPE
// FIELD-TYPE: json-error-field-type.json:10:63: error: field 'args' of CallFunction expr must be an array, got an object

// RUN: not traced-translate --import-trace %S/Inputs/json-error-unknown-field.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-FIELD
// UNKNOWN-FIELD: json-error-unknown-field.json:4:42: error: unknown field 'grpahs' in module 'M'

// RUN: not traced-translate --import-trace %S/Inputs/json-error-unknown-node.json 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNKNOWN-NODE
// UNKNOWN-NODE:      json-error-unknown-node.json:10:90: error: unknown node 'y' in argument 2 of CallFunction "torch.add"
// UNKNOWN-NODE-NEXT:           {"kind": "CallFunction", "func": "torch.add", "args": [{"node": "x"}, {"node": "y"}],
// UNKNOWN-NODE-NEXT: {{^}}                                                                                         ^

// RUN: not traced-translate --import-trace %S/Inputs/json-error-duplicate-node.json 2>&1 | FileCheck %s --check-prefix=DUP-NODE
// DUP-NODE: json-error-duplicate-node.json:11:33: error: duplicate node name 'x'
// DUP-NODE: json-error-duplicate-node.json:8:29: note: 'x' first defined here

// RUN: not traced-translate --import-trace %S/Inputs/json-error-node-in-attribute.json 2>&1 | FileCheck %s --check-prefix=NODE-IN-ATTR
// NODE-IN-ATTR: json-error-node-in-attribute.json:6:81: error: a node reference cannot appear in the value of attribute 'k'; nodes are only allowed in call arguments

// RUN: not traced-translate --import-trace %S/Inputs/json-error-unknown-type.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-TYPE
// UNKNOWN-TYPE: json-error-unknown-type.json:8:42: error: unknown type 'Tensor'; expected int, float, bool, str, none, object, {"tensor": ...}, {"list": ...}, {"tuple": [...]} or {"module": ...}

// RUN: not traced-translate --import-trace %S/Inputs/json-error-unknown-dtype.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-DTYPE
// UNKNOWN-DTYPE: json-error-unknown-dtype.json:7:29: error: unknown dtype 'float8'; expected float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8 or bool

// Weights.
// RUN: not traced-translate --import-trace %S/Inputs/json-error-base64.json 2>&1 | FileCheck %s --check-prefix=BASE64
// BASE64: json-error-base64.json:7:64: error: tensor data holds 4 bytes, but 'tensor<2xf32>' needs 8 (4 per element, row-major)

// RUN: not traced-translate --import-trace %S/Inputs/json-error-npy-shape.json 2>&1 | FileCheck %s --strict-whitespace --check-prefix=NPY-SHAPE
// NPY-SHAPE:      json-error-npy-shape.json:7:64: error: npy file 'weights/bn_running_mean.npy' has shape [4], but the tensor declares shape [2, 2]
// NPY-SHAPE-NEXT:         "tensor": {"dtype": "float32", "shape": [2, 2], "npy": "weights/bn_running_mean.npy"}}]}]
// NPY-SHAPE-NEXT: {{^}}                                                               ^

// RUN: not traced-translate --import-trace %S/Inputs/json-error-npy-dtype.json 2>&1 | FileCheck %s --check-prefix=NPY-DTYPE
// NPY-DTYPE: json-error-npy-dtype.json:7:59: error: npy file 'weights/mask.npy' holds bool data, but the tensor declares uint8

// RUN: not traced-translate --import-trace %S/Inputs/json-error-npy-endian.json 2>&1 | FileCheck %s --check-prefix=NPY-ENDIAN
// NPY-ENDIAN: json-error-npy-endian.json:7:61: error: npy file 'weights/big_endian.npy' has dtype '>f4', which is not a little-endian float32, {{.*}} or bool

// RUN: not traced-translate --import-trace %S/Inputs/json-error-npy-fortran.json 2>&1 | FileCheck %s --check-prefix=NPY-FORTRAN
// NPY-FORTRAN: json-error-npy-fortran.json:7:64: error: npy file 'weights/fortran.npy' is in Fortran order; expected C order

// RUN: not traced-translate --import-trace %S/Inputs/json-error-npy-size.json 2>&1 | FileCheck %s --check-prefix=NPY-SIZE
// NPY-SIZE: json-error-npy-size.json:7:61: error: npy file 'weights/truncated.npy' holds 14 bytes of data, but float32 of shape [4] needs 16

// RUN: not traced-translate --import-trace %S/Inputs/json-error-npy-file.json 2>&1 | FileCheck %s --check-prefix=NPY-FILE
// NPY-FILE: json-error-npy-file.json:7:64: error: npy file: cannot read '{{.*}}Inputs{{/|\\}}weights{{/|\\}}no-such-file.npy'

// The verifier's errors point into the JSON too: ops are located at their
// expr.
// RUN: not traced-translate --import-trace %S/Inputs/json-error-verifier.json 2>&1 | FileCheck %s --check-prefix=VERIFIER
// VERIFIER: json-error-verifier.json:10:11: error: 'traced.getattr' op module @M (class '__main__.M') has no attribute 'kk'
