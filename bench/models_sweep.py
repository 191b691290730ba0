"""Every torchvision 0.14 classification builder (torchvision.models.
list_models), three segmentation models and r3d_18, with random weights and
randomized BatchNorm statistics: trace, interpret, compile for the CPU
(traced.compile), and compare both with torch eager. An error is the largest
absolute difference relative to the largest output magnitude; the target is
1e-4. A survey, not a test: it prints a markdown table (docs/models.md keeps
the last run).

    PYTHONPATH=build/python /usr/bin/python3 bench/models_sweep.py            # all
    PYTHONPATH=build/python /usr/bin/python3 bench/models_sweep.py resnet18 ...
    ... --no-compile     interpret only
    ... --skip-large     leave out models above 150M parameters

Each model runs in its own process (a crash or an out-of-memory kill is a
row, not the end of the sweep), with a time limit (--timeout, seconds).
"""
import argparse
import json
import os
import subprocess
import sys
import time


SEGMENTATION = ["fcn_resnet50", "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"]
VIDEO = ["r3d_18"]
# Models whose architecture fixes the input size.
FIXED_224 = ("vit_", "maxvit_t", "swin_v2_")


def build(name):
    import torch
    import torchvision
    from torchvision.models import segmentation, video
    torch.manual_seed(0)
    if name in SEGMENTATION:
        model = getattr(segmentation, name)(weights=None, weights_backbone=None)
        x = torch.randn(1, 3, 64, 64)
    elif name in VIDEO:
        model = getattr(video, name)()
        x = torch.randn(1, 3, 4, 32, 32)
    else:
        model = getattr(torchvision.models, name)()
        size = 224 if name.startswith(FIXED_224) else (299 if name == "inception_v3" else 96)
        x = torch.randn(1, 3, size, size)
    # Random statistics: with the defaults (mean 0, var 1) some models'
    # outputs collapse to a constant and a comparison proves nothing; so do
    # zero-initialized layers (ViT's head), which get random weights.
    for p in model.parameters():
        if p.dim() > 1 and not p.detach().any():
            with torch.no_grad():
                p.normal_(0, 0.02)
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
    return model.eval(), x


def relative(a, b):
    import numpy as np
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30))


def one(name, compile_too, compile_only=False):
    """Runs one model; prints one JSON line."""
    import numpy as np
    import torch
    import traced
    row = {"model": name}
    try:
        model, x = build(name)
        row["params_m"] = round(sum(p.numel() for p in model.parameters()) / 1e6, 1)
        with torch.no_grad():
            out = model(x)
        expected = (out["out"] if isinstance(out, dict) else out).numpy()
        t = time.time()
        tm = traced.trace(model, x)
        row["trace_s"] = round(time.time() - t, 1)
        got = None
        if not compile_only:
            t = time.time()
            got = tm.interpret(x.numpy())[0]
            row["interp_s"] = round(time.time() - t, 1)
            row["interp_err"] = relative(got, expected)
        if compile_too:
            # The torch model's weights are not needed any more: free them
            # before compiling (the compiler holds several copies of the
            # weights; see docs/models.md on regnet_y_128gf).
            del model, out, got
            import gc
            gc.collect()
            t = time.time()
            compiled = traced.compile(tm)
            row["compile_s"] = round(time.time() - t, 1)
            row["cpu_err"] = relative(compiled(x.numpy())[0], expected)
    except Exception as e:  # a survey reports failures and goes on
        row["error"] = str(e).splitlines()[0][:240]
    import resource
    row["peak_gb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 1)
    print(json.dumps(row), flush=True)


def run_row(cmd, name, timeout):
    """Runs one model's `--one` process and returns the JSON row it printed
    last, or a row whose "error" says how the process died or timed out."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ))
    except subprocess.TimeoutExpired:
        return {"model": name, "error": f"over {timeout} s"}
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    return json.loads(lines[-1]) if lines else {
        "model": name, "error": f"died (exit {proc.returncode}): "
                                f"{(proc.stderr.strip().splitlines() or [''])[-1][:200]}"}


def main():
    # Compile times here are cold compiles, not compile-cache hits (set
    # here, not on import: bench/latency_sweep.py imports `build`).
    os.environ.setdefault("TRACED_CACHE", "0")
    parser = argparse.ArgumentParser()
    parser.add_argument("models", nargs="*")
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--timeout", type=int, default=1800)
    parser.add_argument("--compile-only", action="store_true",
                        help="skip the interpreter (its constant caches count "
                             "against the compiler's memory)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args.one, not args.no_compile, args.compile_only)
        return
    import torchvision
    names = args.models or (torchvision.models.list_models(module=torchvision.models)
                            + SEGMENTATION + VIDEO)
    large = {"vit_h_14", "regnet_y_128gf", "vit_l_16", "vit_l_32", "regnet_y_32gf",
             "regnet_x_32gf", "efficientnet_v2_l", "convnext_large"}
    if args.skip_large:
        names = [n for n in names if n not in large]
    print("| model | params (M) | interpreter vs torch | compiled vs torch | trace s | interpret s | compile s | peak GB | note |")
    print("|---|---|---|---|---|---|---|---|---|", flush=True)
    for name in names:
        cmd = [sys.executable, __file__, "--one", name] + (["--no-compile"] if args.no_compile else []) + \
            (["--compile-only"] if args.compile_only else [])
        row = run_row(cmd, name, args.timeout)
        fmt = lambda k: f"{row[k]:.1e}" if k in row else "-"
        note = row.get("error", "")
        for k in ("interp_err", "cpu_err"):
            if k in row and row[k] > 1e-4:
                note = (note + " " if note else "") + f"{k} above 1e-4"
        print(f"| {name} | {row.get('params_m', '-')} | {fmt('interp_err')} | {fmt('cpu_err')} | "
              f"{row.get('trace_s', '-')} | {row.get('interp_s', '-')} | {row.get('compile_s', '-')} | "
              f"{row.get('peak_gb', '-')} | {note} |", flush=True)


if __name__ == "__main__":
    main()
