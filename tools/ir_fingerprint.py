#!/usr/bin/env python3
"""Fingerprints of the IR the compilers generate, for refactorings that
must not change it (issue 54: "byte-identical before and after").

Traces resnet18 and vit_b_16 (seeded random weights), lowers each with
`traced-opt --traced-cpu-pipeline`, lowers test/Conversion/Gpu/matmul.mlir
with the GPU pipeline, and prints the SHA-256 of each output. Run it on
both sides of a change and compare:

    PYTHONPATH=build/python /usr/bin/python3 tools/ir_fingerprint.py [--build build]
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lower(opt, path, pipeline):
    r = subprocess.run([opt, path, pipeline], capture_output=True, timeout=1800)
    if r.returncode != 0:
        sys.exit(f"{opt} {path} {pipeline} failed:\n{r.stderr.decode()[-2000:]}")
    # (gpu.binary records how long LLVM took: not part of the IR's meaning.)
    out = re.sub(rb"LLVMIRToISATimeInMs = \d+ : i64, ", b"", r.stdout)
    return hashlib.sha256(out).hexdigest(), len(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--models", default="resnet18,vit_b_16")
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "traced-opt")
    import torch
    import torchvision
    import traced
    with tempfile.TemporaryDirectory() as tmp:
        for name in filter(None, args.models.split(",")):
            torch.manual_seed(0)
            model = getattr(torchvision.models, name)().eval()
            path = os.path.join(tmp, name + ".mlir")
            traced.trace(model, torch.randn(1, 3, 224, 224)).save(path)
            digest, size = lower(opt, path, "--traced-cpu-pipeline")
            print(f"{name:12s} cpu {digest} ({size} bytes)", flush=True)
        gpu = os.path.join(ROOT, "test", "Conversion", "Gpu", "matmul.mlir")
        digest, size = lower(opt, gpu, "--traced-gpu-pipeline")
        print(f"{'gpu matmul':12s} gpu {digest} ({size} bytes)")


if __name__ == "__main__":
    main()
