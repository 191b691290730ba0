"""Builds what bench/gpu/run.py needs on a GPU machine (run it here).

    PYTHONPATH=build/python /usr/bin/python3 bench/gpu/build.py [out_dir]

For resnet18, mobilenet_v2 and the MLP (torch.manual_seed(0) weights): a
shared library per model compiled by traced-gpu-pipeline for sm_90 (cubin
and PTX in a fatbin when ptxas is on PATH, else PTX the driver JIT-compiles)
linked against libtraced_cuda_runtime, which is copied beside it; the input
and the reference interpreter's output as .npy; and a manifest with shapes
and a checksum of each model's weights, so that run.py can rebuild the same
torch model there and compare with torch CUDA. Default out_dir:
build/gpu-artifacts (about 62 MB: the weights are inside the libraries).
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import torch
import torchvision

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "tests"))
import traced  # noqa: E402
from models import MLP  # noqa: E402


def models():
    torch.manual_seed(0)
    return {
        "resnet18": (torchvision.models.resnet18().eval(),
                     torch.randn(1, 3, 224, 224)),
        "mobilenet_v2": (torchvision.models.mobilenet_v2().eval(),
                         torch.randn(1, 3, 224, 224)),
        "mlp": (MLP().eval(), torch.randn(8, 16)),
    }


def checksum(model):
    return float(sum(p.detach().double().sum() for p in model.state_dict().values()
                     if p.dtype.is_floating_point))


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1
                       else ROOT / "build" / "gpu-artifacts")
    out.mkdir(parents=True, exist_ok=True)
    build = ROOT / "build"
    runtime = build / "lib" / "libtraced_cuda_runtime.so"
    if not runtime.exists():
        sys.exit("build/lib/libtraced_cuda_runtime.so is missing: the CUDA "
                 "toolkit (cuda.h) was not found at configure time")
    shutil.copy(runtime, out / runtime.name)
    env = dict(os.environ)
    env["PATH"] = "/usr/local/cuda/bin:" + env.get("PATH", "")
    fmt = "fatbin" if shutil.which("ptxas", path=env["PATH"]) else "isa"
    linker = shutil.which("clang-22") or "/usr/lib/llvm-22/bin/clang"
    manifest = {"format": fmt, "chip": "sm_90", "models": {}}
    for name, (model, x) in models().items():
        tm = traced.trace(model, x)
        mlir = out / f"{name}.mlir"
        tm.save(mlir)
        reference = tm.interpret(x.numpy())[0]
        np.save(out / f"{name}_input.npy", x.numpy())
        np.save(out / f"{name}_interpreter.npy", reference)
        obj = out / f"{name}.o"
        subprocess.run([str(build / "bin" / "traced-translate"),
                        "--traced-gpu-object", f"--gpu-format={fmt}",
                        "--gpu-chip=sm_90", str(mlir), "-o", str(obj)],
                       check=True, env=env)
        subprocess.run([linker, "-shared", str(obj), "-o",
                        str(out / f"lib{name}.so"), f"-L{out}",
                        "-ltraced_cuda_runtime", "-Wl,-rpath,$ORIGIN"],
                       check=True)
        obj.unlink()
        mlir.unlink()
        manifest["models"][name] = {
            "input": list(x.shape), "output": list(reference.shape),
            "weights_checksum": checksum(model),
        }
        print(f"{name}: lib{name}.so ({(out / f'lib{name}.so').stat().st_size / 1e6:.1f} MB, {fmt})",
              flush=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    print(f"artifacts in {out}")


if __name__ == "__main__":
    main()
