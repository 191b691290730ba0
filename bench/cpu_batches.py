"""Batch sizes, throughput, roofline and run-time memory of the compiled CPU
code against torch 1.13, eager and frozen TorchScript (issue 17's batch
1/8/32 table).

    PYTHONPATH=build/python /usr/bin/python3 bench/cpu_batches.py [--batches 1,8,32]
        [--models resnet18,mobilenet_v2,transformer]
    PYTHONPATH=build/python /usr/bin/python3 bench/cpu_batches.py --memory

Threads as bench/cpu.py (TRACED_BENCH_THREADS, default 1), on both sides;
both sides' thread and BLAS settings are printed first (bench/timing.py:
describe_environment). For each model and batch, torch eager, torch frozen
(torch.jit.optimize_for_inference(torch.jit.trace(model)); bench/timing.py:
torch_frozen) and the compiled code are timed in interleaved blocks
(bench/timing.py: interleaved_medians_ms); the table gives the three
latencies, the ratio against the faster torch configuration (named), the
compiled code's and the faster torch's images (or sequences) per second,
the element-wise output check against torch eager (rtol 1e-4, atol 1e-4)
with the largest absolute difference, and the compiled code's
GFLOP/s against the peak of this many cores (bench/fma_peak.c's single-core
figure times the thread count): a roofline line per model. FLOPs count the
multiply-adds of convolutions and Linear layers (and attention's two
matmuls) as 2 each, from forward hooks; the rest of a model is memory
traffic and adds a few percent. A row whose compile or run fails says so
and the last line names every failed row: none is left out silently.

--memory runs each model and batch in a fresh process: what 5 runs add to
the resident set, torch's and then the compiled code's (Linux's VmHWM,
reset through /proc/self/clear_refs before the runs, so the compile's own
peak does not count), against the weights' bytes and the two largest
activations (module outputs seen by the hooks) of the model. Torch's
memory is eager's; the frozen model's is not measured.
"""
import argparse
import json
import os
import subprocess
import sys

THREADS = os.environ.get("TRACED_BENCH_THREADS", "1")
os.environ["OPENBLAS_NUM_THREADS"] = THREADS  # before numpy and torch load
os.environ["OMP_NUM_THREADS"] = THREADS

import ctypes
import gc
import statistics

import torch
import torch.nn as nn
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import traced  # noqa: E402
from timing import (compare_with_torch, describe_environment,  # noqa: E402
                    fma_peak_probe, print_table, tolerance_note)

MODELS = ("resnet18", "mobilenet_v2", "transformer")


def build(name, batch):
    """The model (eval, randomized BatchNorm statistics) and an input."""
    torch.manual_seed(0)
    if name == "transformer":
        model = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True)
        x = torch.randn(batch, 7, 64)
    else:
        model = getattr(torchvision.models, name)()
        x = torch.randn(batch, 3, 224, 224)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    return model.eval(), x


def profile(model, x):
    """(FLOPs, the two largest module outputs in bytes) of one forward."""
    flops, sizes = [0], []

    def hook(module, inputs, output):
        if isinstance(output, torch.Tensor):
            sizes.append(output.numel() * output.element_size())
        if isinstance(module, nn.Conv2d):
            k = module.in_channels // module.groups
            k *= module.kernel_size[0] * module.kernel_size[1]
            flops[0] += 2 * output.numel() * k
        elif isinstance(module, nn.Linear):
            flops[0] += 2 * output.numel() * module.in_features
        elif isinstance(module, nn.MultiheadAttention):
            q = inputs[0]
            e, t = q.shape[-1], q.shape[-2]
            rows = q.numel() // e
            # in_proj (three E x E) plus QK^T and AV; out_proj is a Linear.
            flops[0] += 2 * rows * e * 3 * e + 2 * 2 * rows * t * e

    handles = [m.register_forward_hook(hook) for m in model.modules()]
    with torch.no_grad():
        model(x)
    for h in handles:
        h.remove()
    if isinstance(model, nn.TransformerEncoderLayer):
        # (Its eval fast path runs no submodule, so no hook fired.)
        b, t, e = x.shape
        f = model.linear1.out_features
        flops[0] = (2 * b * t * e * 3 * e + 2 * 2 * b * t * t * e +
                    2 * b * t * e * e + 2 * 2 * b * t * e * f)
    sizes.sort(reverse=True)
    return flops[0], sizes[:2]


def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def run_growth(fn):
    """The peak resident set 5 calls of `fn` add to the process's current
    one (freed heap returned to the system first)."""
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    before = status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    for _ in range(5):
        fn()
    return max(status("VmHWM") - before, 0)


def memory_child(name, batch):
    """Prints one JSON line: this process's memory figures for a model."""
    torch.set_num_threads(int(THREADS))
    model, x = build(name, batch)
    _, largest = profile(model, x)
    weights = sum(p.numel() * p.element_size()
                  for p in list(model.parameters()) + list(model.buffers()))
    with torch.no_grad():
        torch_growth = run_growth(lambda: model(x))
    compiled = traced.compile(traced.trace(model, x), cache=False)
    xn = x.numpy()
    ours_growth = run_growth(lambda: compiled(xn))
    print(json.dumps({"weights": weights, "largest": largest,
                      "torch": torch_growth, "ours": ours_growth}))


def memory_table(models, batches):
    mb = lambda b: f"{b / 2**20:.1f} MB"
    rows = []
    for name in models:
        for batch in batches:
            out = subprocess.run(
                [sys.executable, __file__, "--memory-child", name, str(batch)],
                capture_output=True, text=True, check=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            rows.append((name, batch, mb(r["weights"]),
                         mb(sum(r["largest"])), mb(r["ours"]),
                         mb(r["torch"])))
    header = ("model", "batch", "weights", "two largest activations",
              "traced: 5 runs add", "torch: 5 runs add")
    print_table(header, rows)
    print("\n5 runs add: the peak resident set of 5 calls over the process's "
          "resident set before them (weights already loaded, freed heap "
          "returned with malloc_trim): the temporaries and outputs. The "
          "compiled code frees each temporary after its last use into its "
          "buffer cache, which hands it to the next allocation of about its "
          "size, in this call or the next; no arena is planned, so it holds "
          "more than the largest live set.")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", default="1,8,32")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="a comma-separated subset of " + ",".join(MODELS))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--memory-child", nargs=2)
    args = parser.parse_args()
    if args.memory_child:
        return memory_child(args.memory_child[0], int(args.memory_child[1]))
    batches = [int(b) for b in args.batches.split(",")]
    torch.set_num_threads(int(THREADS))
    describe_environment(int(THREADS))
    if args.memory:
        return memory_table(args.models.split(","), batches)
    with fma_peak_probe() as probe:
        core = (statistics.median(probe()[0] for _ in range(7))
                if probe else float("nan"))
    roof = core * int(THREADS)
    print(f"peak: {core:.1f} GFLOP/s a core (bench/fma_peak.c), "
          f"{roof:.1f} for {THREADS} thread(s)\n")
    rows, failed = [], []
    for name in args.models.split(","):
        for batch in batches:
            try:
                model, x = build(name, batch)
                flops, _ = profile(model, x)
                compiled = traced.compile(traced.trace(model, x), cache=False)
                c = compare_with_torch(model, x, compiled, args.blocks,
                                       args.runs)
            except Exception as e:  # a row, not the end of the table
                why = (str(e).splitlines() or [type(e).__name__])[0][:120]
                failed.append(f"{name} batch {batch}")
                rows.append((name, batch, "FAILED", "-", "-", "-", "-", "-",
                             "-", "-", "-", "-", why))
                continue
            gflops = flops / c.ours / 1e6
            rows.append((name, batch, f"{c.ours:.2f} ms", f"{c.eager:.2f} ms",
                         c.frozen_text(), c.ratio_text(),
                         f"{batch / c.ours * 1e3:.0f}",
                         f"{batch / c.best_ms * 1e3:.0f}",
                         f"{flops / 1e9:.4g}", f"{gflops:.1f}",
                         f"{gflops / roof:.0%}", c.check_text(),
                         c.frozen_why or ""))
            del compiled
            gc.collect()
    header = ("model", "batch", "traced", "torch eager", "torch jit",
              "ratio (vs faster torch)", "traced /s", "torch /s", "GFLOP",
              "traced GFLOP/s", "of peak", "check (max abs diff)", "note")
    print_table(header, rows)
    print("\ntorch jit: torch.jit.optimize_for_inference(torch.jit.trace("
          "model)); ratio: traced time / the faster torch configuration's; "
          "/s: images (sequences) per second, torch's from the faster "
          "configuration; of peak: the traced GFLOP/s against the peak line "
          f"above; {tolerance_note()}.")
    total = len(rows)
    print(f"{len(failed)} of {total} rows failed"
          + (f": {', '.join(failed)}" if failed else ""))

if __name__ == "__main__":
    main()
