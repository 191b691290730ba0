// import | export | import prints exactly what the first import printed, and
// the weights come back bit-identical (the blob hex is part of the print).
// Exporting the re-imported IR gives the same JSON again.

// RUN: traced-translate --import-trace %S/Inputs/json-simple-module.json -o %t.simple.mlir
// RUN: traced-translate --import-trace %S/Inputs/json-simple-module.json | traced-translate --export-trace | traced-translate --import-trace -o %t.simple-again.mlir
// RUN: diff %t.simple.mlir %t.simple-again.mlir
// RUN: FileCheck %s --check-prefix=SIMPLE < %t.simple-again.mlir

// The .npy weights come back as base64 with the same bytes.
// RUN: traced-translate --import-trace %S/Inputs/json-npy.json -o %t.npy.mlir
// RUN: traced-translate --import-trace %S/Inputs/json-npy.json | traced-translate --export-trace | traced-translate --import-trace -o %t.npy-again.mlir
// RUN: diff %t.npy.mlir %t.npy-again.mlir
// RUN: FileCheck %s --check-prefix=NPY < %t.npy-again.mlir
// RUN: traced-translate --export-trace %t.npy.mlir -o %t.npy.json
// RUN: traced-translate --export-trace %t.npy-again.mlir | diff %t.npy.json -

// What the export writes for seed 000: keywords as the IR stores them.
// RUN: traced-translate --export-trace %t.simple.mlir | FileCheck %s --check-prefix=EXPORT

// SIMPLE:      SimpleModule_param: "0x040000000000803F",
// SIMPLE-NEXT: Linear_weight: "0x040000000000803F0000003F000080BE0000803E0000003F000080BF0000803E0000003F000000BF0000003E000080BF0000803F0000803E000000BF0000003F000080BE0000803F0000003E0000003F0000803E",
// SIMPLE-NEXT: Linear_bias: "0x040000000000803F000000BF00000000000000BF0000803E"

// NPY:      Net_mask: "0x0100000001000101",
// NPY-NEXT: Net_index: "0x08000000010000000000000002000000000000000300000000000000FCFFFFFFFFFFFFFF",
// NPY-NEXT: Net_pixels: "0x010000000080FF",
// NPY-NEXT: Net_half: "0x02000000003C00C0",
// NPY-NEXT: Net_brain: "0x02000000803F00C0",
// NPY-NEXT: BatchNorm2d_weight: "0x040000000000803F0000003F000080BE00000040",
// NPY-NEXT: BatchNorm2d_bias: "0x04000000000000000000003E000080BF00008040",
// NPY-NEXT: BatchNorm2d_running_mean: "0x040000000000003F0000003F0000003F0000003F",
// NPY-NEXT: BatchNorm2d_running_var: "0x040000000000803F000000400000404000008040"

// EXPORT:      {
// EXPORT-NEXT:   "format": "traced-trace",
// EXPORT-NEXT:   "version": 1,
// EXPORT-NEXT:   "root": "SimpleModule",
// EXPORT-NEXT:   "modules": [
// EXPORT-NEXT:     {
// EXPORT-NEXT:       "name": "SimpleModule",
// EXPORT-NEXT:       "class": "__main__.SimpleModule",
// EXPORT-NEXT:       "attributes": [
// EXPORT-NEXT:         {
// EXPORT-NEXT:           "name": "linear",
// EXPORT-NEXT:           "kind": "submodule",
// EXPORT-NEXT:           "module": "Linear"
// EXPORT-NEXT:         },
// EXPORT-NEXT:         {
// EXPORT-NEXT:           "name": "param",
// EXPORT-NEXT:           "kind": "parameter",
// EXPORT-NEXT:           "tensor": {
// EXPORT-NEXT:             "dtype": "float32",
// EXPORT-NEXT:             "shape": [1],
// EXPORT-NEXT:             "base64": "AACAPw=="
// EXPORT-NEXT:           }
// EXPORT-NEXT:         }
// EXPORT-NEXT:       ],
// EXPORT-NEXT:       "graphs": [
// EXPORT-NEXT:         {
// EXPORT-NEXT:           "name": "forward",
// EXPORT-NEXT:           "inputs": [
// EXPORT-NEXT:             {
// EXPORT-NEXT:               "name": "self",
// EXPORT-NEXT:               "type": {
// EXPORT-NEXT:                 "module": "SimpleModule"
// EXPORT-NEXT:               }
// EXPORT-NEXT:             },
// EXPORT-NEXT:             {
// EXPORT-NEXT:               "name": "x",
// EXPORT-NEXT:               "type": {
// EXPORT-NEXT:                 "tensor": {
// EXPORT-NEXT:                   "dtype": "float32",
// EXPORT-NEXT:                   "shape": [3, 4]
// EXPORT-NEXT:                 }
// EXPORT-NEXT:               }
// EXPORT-NEXT:             }
// EXPORT-NEXT:           ],
// EXPORT-NEXT:           "exprs": [
// EXPORT-NEXT:             {
// EXPORT-NEXT:               "kind": "Constant",
// EXPORT-NEXT:               "value": {
// EXPORT-NEXT:                 "tensor": {
// EXPORT-NEXT:                   "dtype": "float32",
// EXPORT-NEXT:                   "shape": [1],
// EXPORT-NEXT:                   "base64": "AACAPw=="
// EXPORT-NEXT:                 }
// EXPORT-NEXT:               },
// EXPORT-NEXT:               "outputs": [
// EXPORT-NEXT:                 {
// EXPORT-NEXT:                   "name": "const_tensor",
// EXPORT:                    "kind": "CallMethod",
// EXPORT-NEXT:               "self": "x",
// EXPORT-NEXT:               "method": "__add__",
// EXPORT-NEXT:               "args": [],
// EXPORT-NEXT:               "kwargs": {
// EXPORT-NEXT:                 "other": {
// EXPORT-NEXT:                   "node": "const_tensor"
// EXPORT-NEXT:                 }
// EXPORT-NEXT:               },
// EXPORT:                    "kind": "CallMethod",
// EXPORT-NEXT:               "self": "relu_out",
// EXPORT:                    "kind": "CallMethod",
// EXPORT-NEXT:               "self": "linear",
// EXPORT-NEXT:               "method": "forward",
// EXPORT-NEXT:               "args": [
// EXPORT-NEXT:                 {
// EXPORT-NEXT:                   "node": "add_out_0"
// EXPORT-NEXT:                 }
// EXPORT-NEXT:               ],
// EXPORT-NEXT:               "kwargs": {},
// EXPORT:                ],
// EXPORT-NEXT:           "outputs": [
// EXPORT-NEXT:             "linear_out"
// EXPORT-NEXT:           ]
// EXPORT-NEXT:         }
// EXPORT-NEXT:       ]
// EXPORT:            "name": "Linear",
// EXPORT-NEXT:       "class": "megengine.module.Linear",
// EXPORT:                "name": "in_features",
// EXPORT-NEXT:           "kind": "attribute",
// EXPORT-NEXT:           "type": "int",
// EXPORT-NEXT:           "value": 4
// EXPORT:            "graphs": []
