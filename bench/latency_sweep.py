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
slow each other. Torch is timed in its two configurations, eager and
frozen (torch.jit.optimize_for_inference of torch.jit.trace, bench/
timing.py: torch_frozen), interleaved with the compiled code in the same
blocks; the ratio is the compiled code's median over the faster torch
configuration's, which the ratio column names. The medians of all runs are
compared. Compiles use the compile cache (docs/cpu.md), so a rerun skips
them; the compile column is the first, cold compile's time, or "cached".

Prints both sides' thread and BLAS settings (bench/timing.py:
describe_environment, in the first model's process), a markdown table, and
a summary line: the geometric mean of the ratios over the models that ran,
with the models that failed (a compile, run or torch error, a crash, a
timeout) counted and named beside it: a failed model has no ratio, and it
is never silently left out. The check column is element-wise against torch
eager (rtol 1e-4, atol 1e-4, torch.testing.assert_close's rule; bench/
timing.py: agreement) with the largest absolute difference; models outside
it are timed, in the mean, and named in the summary too, as are those whose
check is WEAK (outputs all below 1e-2, which atol alone lets through) and
those where torch's frozen model failed (their ratio is against eager).
"""
import argparse
import json
import os
import sys
import time

DEFAULT = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small",
           "googlenet", "squeezenet1_1", "shufflenet_v2_x0_5", "mnasnet0_5",
           "efficientnet_b0", "densenet121", "vgg11_bn", "resnext50_32x4d",
           "regnet_y_400mf", "convnext_tiny", "vit_b_16"]


def one(name, threads, blocks, runs, size, block_s, environment=False):
    os.environ["OMP_NUM_THREADS"] = str(threads)  # before numpy and torch load
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import traced
    from models_sweep import build
    from timing import compare_with_torch, describe_environment
    torch.set_num_threads(threads)
    row = {"model": name}
    if environment:
        row["environment"] = describe_environment(threads, file=sys.stderr)
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
        c = compare_with_torch(model, x, compiled, blocks, runs, block_s)
        row.update(torch_ms=c.eager, jit_ms=c.frozen, ours_ms=c.ours,
                   ratio=c.ratio, best=c.best, ok=c.ok, max_abs=c.max_abs,
                   scale=c.scale)
        if c.frozen_why:
            row["jit_error"] = c.frozen_why
    except Exception as e:  # a survey reports failures and goes on
        row["error"] = (str(e).splitlines() or [type(e).__name__])[0][:200]
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
    parser.add_argument("--environment", action="store_true",
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args.one, args.threads, args.blocks, args.runs, args.size,
            args.block_seconds, args.environment)
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from models_sweep import run_row
    names = args.models or DEFAULT
    if args.all:
        import torchvision
        names = torchvision.models.list_models(module=torchvision.models)
    print(f"threads: {args.threads} on both sides; {args.blocks} interleaved "
          f"blocks (torch eager, compiled, torch jit) of at least {args.runs} "
          f"runs and {args.block_seconds} s, 0.3 s apart; input "
          f"1x3x{args.size}x{args.size}\n")
    from timing import check_text, geomean_summary, tolerance_note
    ratios, failed, wrong, weak, eager_only = {}, {}, [], [], []
    for i, name in enumerate(names):
        cmd = [sys.executable, os.path.abspath(__file__), "--one", name,
               "--threads", str(args.threads), "--blocks", str(args.blocks),
               "--runs", str(args.runs), "--size", str(args.size),
               "--block-seconds", str(args.block_seconds)]
        if i == 0:
            cmd.append("--environment")
        row = run_row(cmd, name, args.timeout)
        if i == 0:
            print("\n".join(row.get("environment", [
                "environment: not reported (the first model's process died)"])))
            print("\n| model | traced | torch eager | torch jit | ratio (vs faster "
                  "torch) | compile s | check (max abs diff) |")
            print("|---|---|---|---|---|---|---|", flush=True)
        if "error" in row:
            failed[name] = row["error"]
            print(f"| {name} | FAILED | - | - | - | - | {row['error']} |",
                  flush=True)
            continue
        ratios[name] = row["ratio"]
        check = check_text(row["ok"], row["max_abs"], row["scale"])
        if not row["ok"]:
            wrong.append(name)
        elif check.startswith("WEAK"):
            weak.append(name)
        if row["jit_ms"] is None:
            eager_only.append(name)
        jit = (f"{row['jit_ms']:.2f} ms" if row["jit_ms"] is not None
               else f"failed: {row.get('jit_error', '')}")
        print(f"| {name} | {row['ours_ms']:.2f} ms | {row['torch_ms']:.2f} ms | "
              f"{jit} | {row['ratio']:.2f}x ({row['best']}) | "
              f"{row['compile_s']} | {check} |", flush=True)
    print(f"\nratio: traced / the faster of torch eager and torch jit "
          f"(torch.jit.optimize_for_inference(torch.jit.trace(model))), "
          f"which it names; {tolerance_note()}.")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(geomean_summary(ratios, failed, wrong=wrong, weak=weak,
                          eager_only=eager_only))


if __name__ == "__main__":
    main()
