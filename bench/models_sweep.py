"""Traces torchvision classification models (random weights, 96x96 input),
interprets them against torch eager, runs the surgery pipeline and checks
the interpreter's outputs again, then compiles the model for the CPU
(traced.compile) and checks the compiled outputs against torch eager. A
survey, not a test.

    PYTHONPATH=build/python /usr/bin/python3 bench/models_sweep.py [model ...]
"""
import sys

import numpy as np
import torch
import torchvision

import traced

PIPELINE = "traced-flatten,traced-normalize,traced-fuse-conv-bn,canonicalize,traced-dce"
DEFAULT = ["resnet18", "mobilenet_v2", "shufflenet_v2_x0_5", "mobilenet_v3_small",
           "efficientnet_b0", "squeezenet1_0", "mnasnet0_5", "regnet_x_400mf",
           "googlenet", "resnet50", "densenet121", "convnext_tiny"]


def relative(a, b):
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30))


def main(names):
    torch.manual_seed(0)
    for name in names:
        try:
            model = getattr(torchvision.models, name)().eval()
            x = torch.randn(1, 3, 96, 96)
            tm = traced.trace(model, x)
            got = tm.interpret(x.numpy())[0]
            with torch.no_grad():
                expected = model(x).numpy()
            tm.run_passes(PIPELINE)
            tm.verify()
            after = tm.interpret(x.numpy())[0]
            line = (f"{name:20s} interpreter vs torch {relative(got, expected):.1e}   "
                    f"after the pipeline {relative(after, got):.1e}")
            try:
                compiled = traced.compile(tm)(x.numpy())
                line += f"   compiled vs torch {relative(compiled, expected):.1e}"
            except traced.Error as e:
                line += f"   compile FAIL {str(e).splitlines()[0][:160]}"
            with torch.no_grad():
                spread = relative(model(torch.randn(1, 3, 96, 96)).numpy(), expected)
            if spread < 1e-4:
                # googlenet with random weights: every input gives nearly
                # the fc bias, so the comparisons above say little.
                line += f"   (another input moves the output by only {spread:.0e})"
            print(line, flush=True)
        except Exception as e:  # a survey reports failures and goes on
            print(f"{name:20s} FAIL {str(e).splitlines()[0][:200]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT)
