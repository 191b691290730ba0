"""Runs the compiled GPU models on an NVIDIA GPU (run it there).

    python3 bench/gpu/run.py [artifacts_dir] [--runs N]

Needs only numpy, the artifacts from bench/gpu/build.py (the model
libraries and libtraced_cuda_runtime beside them) and the CUDA driver;
with PyTorch (CUDA) and torchvision present it also rebuilds each model with
the same seed, checks that its weights match the compiled ones (checksum)
and compares outputs and latency with torch CUDA. Exit status 1 when an
output differs from the CPU interpreter's by more than 1e-4 of its largest
magnitude.
"""
import ctypes
import json
import pathlib
import statistics
import sys
import time

import numpy as np


def median_ms(fn, runs, sync=lambda: None):
    fn()
    sync()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def torch_models():
    try:
        import torch
        import torchvision
    except ImportError:
        return None, None
    if not torch.cuda.is_available():
        return None, None
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] /
                           "python" / "tests"))
    import torch.nn as nn

    class MLP(nn.Module):  # as in python/tests/models.py
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(16, 32)
            self.fc2 = nn.Linear(32, 4)

        def forward(self, x):
            return self.fc2(nn.functional.gelu(self.fc1(x)))

    torch.manual_seed(0)
    built = {"resnet18": torchvision.models.resnet18().eval()}
    torch.randn(1, 3, 224, 224)
    built["mobilenet_v2"] = torchvision.models.mobilenet_v2().eval()
    torch.randn(1, 3, 224, 224)
    built["mlp"] = MLP().eval()
    return torch, built


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    runs = 20
    if "--runs" in sys.argv:
        runs = int(sys.argv[sys.argv.index("--runs") + 1])
        args = [a for a in args if a != str(runs)]
    art = pathlib.Path(args[0] if args else "build/gpu-artifacts")
    manifest = json.loads((art / "manifest.json").read_text())
    torch, built = torch_models()
    print(f"kernels: {manifest['format']} for {manifest['chip']}; "
          f"torch CUDA: {'yes, ' + torch.__version__ if torch else 'not available'}")
    ok = True
    rows = []
    for name, info in manifest["models"].items():
        lib = ctypes.CDLL(str(art / f"lib{name}.so"))
        entry = lib.traced_forward
        entry.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2
        entry.restype = None
        x = np.ascontiguousarray(np.load(art / f"{name}_input.npy"))
        expected = np.load(art / f"{name}_interpreter.npy")
        out = np.empty(info["output"], np.float32)
        ins = (ctypes.c_void_p * 1)(x.ctypes.data)
        outs = (ctypes.c_void_p * 1)(out.ctypes.data)
        run = lambda: entry(ins, outs)
        run()
        scale = float(np.abs(expected).max())
        err = float(np.abs(out - expected).max()) / scale
        ok &= err <= 1e-4
        ours = median_ms(run, runs)
        row = [name, f"{err:.1e}", f"{ours:.2f} ms", "-", "-"]
        if torch is not None:
            model = built[name].cuda()
            sums = sum(p.detach().double().sum().item()
                       for p in model.state_dict().values()
                       if p.dtype.is_floating_point)
            xt = torch.from_numpy(x).cuda()
            with torch.no_grad():
                ref = model(xt).cpu().numpy()
                eager = median_ms(lambda: model(xt), runs, torch.cuda.synchronize)
            if abs(sums - info["weights_checksum"]) <= 1e-6 * max(1.0, abs(sums)):
                row[3] = f"{float(np.abs(out - ref).max()) / scale:.1e}"
            else:
                row[3] = "weights differ"
            row[4] = f"{eager:.2f} ms"
        rows.append(row)
    header = ["model", "vs interpreter", "traced (gpu)", "vs torch CUDA",
              "torch CUDA eager"]
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(5)]
    for r in [header] + rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    print(f"medians of {runs} runs; traced (gpu) includes copying the "
          "weights into managed memory on every call (docs/gpu.md)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
