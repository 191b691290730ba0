// Runs an ONNX model with ONNX Runtime (npm's onnxruntime-node) on inputs
// written by tools/onnx_ort_check.py: `node run.js MODEL SPEC OUTDIR`.
// SPEC is a JSON file {"inputs": {name: {"dims": [...], "type": "float32",
// "file": path}}}; each input file holds the raw little-endian elements.
// Writes OUTDIR/outputs.json ({name: {"dims", "type", "file"}}) and the raw
// output files beside it.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int64: BigInt64Array,
  int32: Int32Array, int8: Int8Array, uint8: Uint8Array, bool: Uint8Array,
};

async function main() {
  const [model, specPath, outDir] = process.argv.slice(2);
  const spec = JSON.parse(fs.readFileSync(specPath, 'utf8'));
  const session = await ort.InferenceSession.create(model);
  const feeds = {};
  for (const [name, info] of Object.entries(spec.inputs)) {
    const bytes = fs.readFileSync(info.file);
    const Arr = ARRAYS[info.type];
    const data = new Arr(bytes.buffer.slice(bytes.byteOffset,
                                            bytes.byteOffset + bytes.length));
    feeds[name] = new ort.Tensor(info.type, data, info.dims);
  }
  const results = await session.run(feeds);
  const out = {};
  for (const [name, tensor] of Object.entries(results)) {
    const file = path.join(outDir, `out_${Object.keys(out).length}.bin`);
    fs.writeFileSync(file, Buffer.from(tensor.data.buffer,
                                       tensor.data.byteOffset,
                                       tensor.data.byteLength));
    out[name] = {dims: tensor.dims, type: tensor.type, file};
  }
  fs.writeFileSync(path.join(outDir, 'outputs.json'), JSON.stringify(out));
}

main().catch((e) => { console.error(String(e)); process.exit(1); });
