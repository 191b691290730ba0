// bool, uint8, int16, float16 and bfloat16 tensors, a 0-d tensor and empty
// ones through every path: JSON import from .npy files (weights) and inline
// base64 (constants, bfloat16), interpretation with .npy inputs and outputs,
// and export. Inputs/make-npy.py writes the weights.

// RUN: traced-translate --import-trace %S/Inputs/json-dtypes.json | FileCheck %s
// RUN: traced-translate --import-trace %S/Inputs/json-dtypes.json -o %t.mlir
// RUN: %python -c "import numpy as np; np.save('%t.m.npy', np.array([True, False, False])); np.save('%t.p.npy', np.array([250, 128, 1], np.uint8)); np.save('%t.s.npy', np.array([32767, -5], np.int16)); np.save('%t.h.npy', np.array([1, 2], np.float16)); np.save('%t.z.npy', np.array(2, np.float32))"
// RUN: traced-translate --interpret %t.mlir --interpret-input=%t.m.npy,%t.p.npy,%t.s.npy,%t.h.npy,%t.z.npy | FileCheck %s --check-prefix=OUT
// RUN: traced-translate --interpret %t.mlir --interpret-input=%t.m.npy,%t.p.npy,%t.s.npy,%t.h.npy,%t.z.npy --interpret-output=%t.out
// RUN: %python -c "import numpy as np; [print(a.dtype, a.shape, a.tolist()) for a in (np.load('%t.out%%d.npy' %% i) for i in range(7))]" | FileCheck %s --check-prefix=NPY
// RUN: traced-translate --export-trace %t.mlir | FileCheck %s --check-prefix=EXPORT
// RUN: traced-translate --export-trace %t.mlir | traced-translate --import-trace | diff %t.mlir -

// CHECK:      buffer @flags : tensor<3xi1> = dense_resource<Dtypes_flags> : tensor<3xi1>
// CHECK-NEXT: buffer @pixels : tensor<3xui8> = dense_resource<Dtypes_pixels> : tensor<3xui8>
// CHECK-NEXT: buffer @shift : tensor<2xi16> = dense_resource<Dtypes_shift> : tensor<2xi16>
// CHECK-NEXT: parameter @half : tensor<2xf16> = dense_resource<Dtypes_half> : tensor<2xf16>
// CHECK-NEXT: parameter @scale : tensor<f32> = dense_resource<Dtypes_scale> : tensor<f32>
// CHECK-NEXT: buffer @empty : tensor<2x0xf32> = dense_resource<Dtypes_empty> : tensor<2x0xf32>
// CHECK-NEXT: buffer @none : tensor<0xi16> = dense_resource<Dtypes_none> : tensor<0xi16>
// CHECK-NEXT: parameter @brain : tensor<2xbf16> = dense_resource<Dtypes_brain> : tensor<2xbf16>
// CHECK:      constant dense<false> : tensor<3xi1>
// CHECK-NEXT: constant dense<[1, 2, 3]> : tensor<3xui8>
// CHECK-NEXT: constant dense<[-1, 2]> : tensor<2xi16>
// CHECK-NEXT: constant dense<[2.500000e-01, 1.000000e+00]> : tensor<2xf16>
// CHECK-NEXT: constant dense<5.000000e-01> : tensor<f32>
// The .npy payloads byte for byte: a byte per bool, [10, 128, 255],
// [1, 3], f16 [0.5, -3], a 0-d 1.5, no bytes for the empty tensors.
// CHECK:      Dtypes_flags: "0x01000000000100",
// CHECK-NEXT: Dtypes_pixels: "0x010000000A80FF",
// CHECK-NEXT: Dtypes_shift: "0x0200000001000300",
// CHECK-NEXT: Dtypes_half: "0x02000000003800C2",
// CHECK-NEXT: Dtypes_scale: "0x040000000000C03F",
// CHECK-NEXT: Dtypes_empty: "0x04000000",
// CHECK-NEXT: Dtypes_none: "0x02000000",
// CHECK-NEXT: Dtypes_brain: "0x02000000803F00C0"

// Integers wrap to their width; bool addition is a logical or.
// OUT:      output #0: tensor<3xi1> [True, True, False]
// OUT-NEXT: output #1: tensor<3xui8> [5, 2, 3]
// OUT-NEXT: output #2: tensor<2xi16> [32767, 0]
// OUT-NEXT: output #3: tensor<2xf16> [0.75, -5]
// OUT-NEXT: output #4: tensor<f32> 3.5
// OUT-NEXT: output #5: tensor<2x0xf32> {{\[\[}}], []]
// OUT-NEXT: output #6: tensor<2xbf16> [1, -2]

// The .npy outputs keep their dtypes and shapes; NumPy has no bfloat16, so
// bfloat16 results are written as float32 (exactly).
// NPY:      bool (3,) [True, True, False]
// NPY-NEXT: uint8 (3,) [5, 2, 3]
// NPY-NEXT: int16 (2,) [32767, 0]
// NPY-NEXT: float16 (2,) [0.75, -5.0]
// NPY-NEXT: float32 () 3.5
// NPY-NEXT: float32 (2, 0) {{\[\[}}], []]
// NPY-NEXT: float32 (2,) [1.0, -2.0]

// EXPORT:      "name": "flags",
// EXPORT:        "dtype": "bool",
// EXPORT-NEXT:   "shape": [3],
// EXPORT-NEXT:   "base64": "AAEA"
// EXPORT:      "name": "pixels",
// EXPORT:        "dtype": "uint8",
// EXPORT-NEXT:   "shape": [3],
// EXPORT-NEXT:   "base64": "CoD/"
// EXPORT:      "name": "shift",
// EXPORT:        "dtype": "int16",
// EXPORT-NEXT:   "shape": [2],
// EXPORT-NEXT:   "base64": "AQADAA=="
// EXPORT:      "name": "half",
// EXPORT:        "dtype": "float16",
// EXPORT-NEXT:   "shape": [2],
// EXPORT-NEXT:   "base64": "ADgAwg=="
// EXPORT:      "name": "scale",
// EXPORT:        "dtype": "float32",
// EXPORT-NEXT:   "shape": [],
// EXPORT-NEXT:   "base64": "AADAPw=="
// EXPORT:      "name": "empty",
// EXPORT:        "dtype": "float32",
// EXPORT-NEXT:   "shape": [2, 0],
// EXPORT-NEXT:   "base64": ""
// EXPORT:      "name": "none",
// EXPORT:        "dtype": "int16",
// EXPORT-NEXT:   "shape": [0],
// EXPORT-NEXT:   "base64": ""
// EXPORT:      "name": "brain",
// EXPORT:        "dtype": "bfloat16",
// EXPORT-NEXT:   "shape": [2],
// EXPORT-NEXT:   "base64": "gD8AwA=="
// The bool splat constant comes out a byte per element.
// EXPORT:      "kind": "Constant",
// EXPORT:        "dtype": "bool",
// EXPORT-NEXT:   "shape": [3],
// EXPORT-NEXT:   "base64": "AAAA"
// EXPORT:      "kind": "Constant",
// EXPORT:        "dtype": "uint8",
// EXPORT-NEXT:   "shape": [3],
// EXPORT-NEXT:   "base64": "AQID"
// EXPORT:      "kind": "Constant",
// EXPORT:        "dtype": "int16",
// EXPORT-NEXT:   "shape": [2],
// EXPORT-NEXT:   "base64": "//8CAA=="
// EXPORT:      "kind": "Constant",
// EXPORT:        "dtype": "float16",
// EXPORT-NEXT:   "shape": [2],
// EXPORT-NEXT:   "base64": "ADQAPA=="
// EXPORT:      "kind": "Constant",
// EXPORT:        "dtype": "float32",
// EXPORT-NEXT:   "shape": [],
// EXPORT-NEXT:   "base64": "AAAAPw=="
