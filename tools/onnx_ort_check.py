#!/usr/bin/env python3
"""ONNX Runtime as an independent check of `Module.to_onnx` (docs/onnx.md,
"Conformance"; `make check-onnx-ort`): models are traced, exported, run by
ONNX Runtime (npm's onnxruntime-node, run through node: no PyPI here) and
compared with torch eager element by element (rtol/atol 1e-4).

    /usr/bin/python3 tools/onnx_ort_check.py --ort DIR [--only NAME ...]

DIR holds node_modules/onnxruntime-node (`make check-onnx-ort` installs it
into build/ort with npm). Exits non-zero if a model fails.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import torch
import torchvision

import traced

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from onnx_round_trip import randomized as _randomized  # noqa: E402


def randomized(model):
    return _randomized(model, torch)



class LanguageModel(torch.nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 16)
        self.rnn = getattr(torch.nn, kind)(16, 32, num_layers=2,
                                           bidirectional=True, batch_first=True)
        self.head = torch.nn.Linear(64, 50)

    def forward(self, ids):
        out, _ = self.rnn(self.emb(ids))
        return self.head(out)


def cases():
    torch.manual_seed(0)  # (the inputs: the same on every run)
    x = torch.randn(1, 3, 224, 224)
    out = {name: (lambda n=name: randomized(torchvision.models.get_model(n)), (x,))
           for name in ["resnet18", "mobilenet_v3_small", "efficientnet_b0",
                        "shufflenet_v2_x0_5", "densenet121", "googlenet",
                        "convnext_tiny", "vit_b_16", "swin_t", "regnet_y_400mf"]}
    ids = torch.randint(0, 50, (3, 7))
    for kind in ("LSTM", "GRU", "RNN"):
        out[f"lm_{kind.lower()}"] = (lambda k=kind: randomized(LanguageModel(k)), (ids,))
    return out


def run_ort(ort_dir, model_path, inputs, names, tmp):
    spec = {"inputs": {}}
    for i, (name, value) in enumerate(zip(names, inputs)):
        a = value.numpy()
        f = os.path.join(tmp, f"in_{i}.bin")
        a.astype(a.dtype.newbyteorder("<")).tofile(f)
        spec["inputs"][name] = {"dims": list(a.shape), "type": str(a.dtype), "file": f}
    spec_path = os.path.join(tmp, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    env = dict(os.environ, NODE_PATH=os.path.join(ort_dir, "node_modules"))
    subprocess.run(["node", os.path.join(HERE, "ort", "run.js"), model_path,
                    spec_path, tmp], check=True, env=env, capture_output=True,
                   text=True)
    with open(os.path.join(tmp, "outputs.json")) as f:
        outs = json.load(f)
    result = []
    for info in outs.values():
        dtype = {"float32": np.float32, "float64": np.float64,
                 "int64": np.int64}[info["type"]]
        result.append(torch.from_numpy(np.fromfile(info["file"], dtype=dtype)
                                       .reshape(info["dims"])))
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ort", required=True)
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    failed = []
    print("| model | ONNX Runtime vs torch: max abs diff |")
    print("|---|---|")
    all_cases = cases()
    for name, (make, inputs) in all_cases.items():
        if args.only and name not in args.only:
            continue
        with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                torch.manual_seed(0)
                model = make()
                with torch.no_grad():
                    ref = model(*inputs)
                m = traced.trace(model, *inputs)
                path = os.path.join(tmp, "model.onnx")
                m.to_onnx(path)
                names = [n.name for n in m.graph.inputs[1:]]
                got = run_ort(args.ort, path, inputs, names, tmp)[0]
                torch.testing.assert_close(got, ref, rtol=1e-4, atol=1e-4)
                print(f"| {name} | {float((got - ref).abs().max()):.1e} |", flush=True)
            except Exception as e:  # noqa: BLE001  (every failure is reported)
                failed.append(name)
                msg = (getattr(e, "stderr", None) or str(e)).strip().splitlines()
                print(f"| {name} | FAILED: {type(e).__name__}: {msg[-1] if msg else ''} |",
                      flush=True)
    print(f"\n{len(all_cases) if not args.only else len(args.only)} models, "
          f"{len(failed)} failed" + (f": {', '.join(failed)}" if failed else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
