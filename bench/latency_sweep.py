"""Batch-1 latency of torchvision classification models, compiled
(traced.compile) against torch 1.13 eager, side by side in one process:
issue 17's sweep target (geometric mean of ours / torch at most 1.0, no
model above 1.5). Models are built as bench/models_sweep.py builds them
(random weights, randomized BatchNorm statistics), at 224 x 224 (299 for
inception_v3) unless --size says otherwise.

    PYTHONPATH=build/python /usr/bin/python3 bench/latency_sweep.py [models...]
        [--threads N] [--blocks B] [--runs R] [--block-seconds T]
        [--size S] [--timeout SEC] [--all]

Without model names: the default set below (a spread of the architectures;
`--all` for every classification model). Each model runs in its own
process with N threads (torch's intra-op pool, OpenMP, OpenBLAS; the
compiled code's OpenMP loops; default 2). After warm-up the two sides are
timed in B alternating blocks (default 8) of at least R runs (default 5)
and --block-seconds (default 1), each after a 0.3 s pause: not in
alternating single runs, since two OpenMP runtimes spin-waiting in turn
slow each other. The medians of all runs are compared. Compiles use the compile
cache (docs/cpu.md), so a rerun skips them; the compile column is the
first, cold compile's time, or "cached". Prints a markdown table and the
geometric mean of the ratios.
"""
import argparse
import json
import math
import os
import sys
import time

DEFAULT = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small",
           "googlenet", "squeezenet1_1", "shufflenet_v2_x0_5", "mnasnet0_5",
           "efficientnet_b0", "densenet121", "vgg11_bn", "resnext50_32x4d",
           "regnet_y_400mf", "convnext_tiny", "vit_b_16"]


def one(name, threads, blocks, runs, size, block_s):
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    import numpy as np
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import traced
    from models_sweep import build
    from timing import paired_medians_ms
    torch.set_num_threads(threads)
    row = {"model": name}
    try:
        model, x = build(name)
        if size and name != "inception_v3" and not name.startswith(
                ("vit_", "maxvit_t", "swin_v2_")):
            x = torch.randn(1, 3, size, size)
        elif name == "inception_v3":
            x = torch.randn(1, 3, 299, 299)
        tm = traced.trace(model, x)
        t = time.time()
        compiled = traced.compile(tm)
        row["compile_s"] = "cached" if compiled.from_cache else round(time.time() - t, 1)
        xn = x.numpy()
        with torch.no_grad():
            expected = model(x)
            expected = (expected["out"] if isinstance(expected, dict) else expected).numpy()
            got = compiled(xn)
            got = got[0] if isinstance(got, (list, tuple)) else got
            row["err"] = float(np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-30))
            for _ in range(3):
                model(x)
                compiled(xn)
            row["torch_ms"], row["ours_ms"] = paired_medians_ms(
                lambda: model(x), lambda: compiled(xn), blocks, runs, block_s)
    except Exception as e:  # a survey reports failures and goes on
        row["error"] = str(e).splitlines()[0][:200]
    print(json.dumps(row), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("models", nargs="*")
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--blocks", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--block-seconds", type=float, default=1.0)
    parser.add_argument("--timeout", type=int, default=1800)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args.one, args.threads, args.blocks, args.runs, args.size,
            args.block_seconds)
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from models_sweep import run_row
    names = args.models or DEFAULT
    if args.all:
        import torchvision
        names = torchvision.models.list_models(module=torchvision.models)
    print(f"threads: {args.threads}; {args.blocks} alternating blocks of at "
          f"least {args.runs} runs and {args.block_seconds} s, 0.3 s apart; input 1x3x{args.size}x{args.size}; load "
          f"{os.getloadavg()[0]:.2f}\n")
    print("| model | traced | torch | ratio | compile s | max rel err |")
    print("|---|---|---|---|---|---|", flush=True)
    ratios = []
    for name in names:
        cmd = [sys.executable, os.path.abspath(__file__), "--one", name,
               "--threads", str(args.threads), "--blocks", str(args.blocks),
               "--runs", str(args.runs), "--size", str(args.size),
               "--block-seconds", str(args.block_seconds)]
        row = run_row(cmd, name, args.timeout)
        if "error" in row:
            print(f"| {name} | - | - | - | - | {row['error']} |", flush=True)
            continue
        ratio = row["ours_ms"] / row["torch_ms"]
        ratios.append(ratio)
        print(f"| {name} | {row['ours_ms']:.2f} ms | {row['torch_ms']:.2f} ms | "
              f"{ratio:.2f}x | {row['compile_s']} | {row['err']:.1e} |", flush=True)
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\ngeometric mean of {len(ratios)} ratios: {geo:.2f}x; "
              f"largest {max(ratios):.2f}x")


if __name__ == "__main__":
    main()
