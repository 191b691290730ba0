"""Quantized models (issue 51): torchvision's resnet18 and mobilenet_v2
quantized with torch.fx (`get_default_qconfig_mapping("onednn")`, three
calibration batches of random data), traced and compiled, beside torch's
int8 model (the onednn engine) and beside TracedIR's own float32 compile of
the float model, in one process at 1 and 2 threads; then an int8 GEMM of
1024^3 (a quantized Linear on 1024 rows) beside torch's and beside our
float32 GEMM.

    PYTHONPATH=build/python /usr/bin/python3 bench/quantized.py
        [--threads 2,1] [--models resnet18,mobilenet_v2]

Each thread count runs in a child process (threads are set before numpy,
OpenMP and torch load). Per row: the median time of one batch-1 call,
timed in interleaved blocks (bench/timing.py: interleaved_medians_ms), and
the agreement of our int8 logits with torch's in quantization steps
(docs/quantization.md, "Numerics").
"""
import argparse
import os
import subprocess
import sys


def child(threads, models):
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    import time

    import torch
    import torchvision
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import traced
    from quantized_models import randomize
    from timing import describe_environment, interleaved_medians_ms

    torch.set_num_threads(threads)
    torch.backends.quantized.engine = "onednn"
    describe_environment(threads)
    print(f"\n{threads} thread(s), batch 1, 224x224:\n")
    print("| model | ours int8 ms | torch int8 ms | ours/torch int8 | ours float32 ms "
          "| int8/float32 | within 1 step | top-1 |")
    print("|---|---|---|---|---|---|---|---|")
    for name in models:
        torch.manual_seed(0)
        model = randomize(getattr(torchvision.models, name)().eval())
        x = torch.randn(1, 3, 224, 224)
        t0 = time.perf_counter()
        float_compiled = traced.compile(traced.trace(model, x))
        prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), (x,))
        with torch.no_grad():
            for _ in range(3):
                prepared(torch.randn(1, 3, 224, 224))
        quantized = convert_fx(prepared)
        tm = traced.trace(quantized, x)
        t1 = time.perf_counter()
        compiled = traced.compile(tm)
        t2 = time.perf_counter()
        with torch.no_grad():
            want = quantized(x)
        got = compiled(x)
        step = want.unique().sort().values.diff().min()
        steps = ((got - want).abs() / step).round()
        within = (steps <= 1).float().mean().item()
        top1 = bool(got.argmax() == want.argmax())

        def ours():
            compiled(x)

        def torch_int8():
            with torch.no_grad():
                quantized(x)

        def ours_float():
            float_compiled(x)
        o, t, f = interleaved_medians_ms([ours, torch_int8, ours_float],
                                         blocks=4, runs=5, block_s=0.5)
        print(f"| {name} | {o:.2f} | {t:.2f} | {o / t:.2f} | {f:.2f} | {o / f:.2f} "
              f"| {within:.1%} | {'same' if top1 else 'DIFFERS'} |", flush=True)
        print(f"  ({name}: float compile, quantization and trace {t1 - t0:.1f} s, "
              f"int8 compile {t2 - t1:.1f} s)", file=sys.stderr)
    gemm(traced, interleaved_medians_ms)


def gemm(traced, interleaved_medians_ms, n=1024):
    """A quantized Linear on n rows (an int8 GEMM of n^3: traced.int8.linear)
    beside torch's quantized Linear and our float32 compile of the float
    Linear, in GOP/s (2 n^3 operations)."""
    import torch
    import torch.ao.nn.quantized as nnq

    class Call(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)

    torch.manual_seed(0)
    lin = nnq.Linear(n, n)
    lin.set_weight_bias(torch.quantize_per_tensor(torch.randn(n, n) * 0.05, 0.002, 0,
                                                  torch.qint8), torch.randn(n))
    lin.scale, lin.zero_point = 0.5, 128
    xq = torch.quantize_per_tensor(torch.rand(n, n) * 4, 0.02, 10, torch.quint8)
    qmod = Call(lin)
    ours = traced.compile(traced.trace(qmod, xq))
    flin, xf = torch.nn.Linear(n, n), torch.randn(n, n)
    ours_float = traced.compile(traced.trace(flin, xf))
    assert torch.equal(ours(xq).int_repr(), traced.trace(qmod, xq).interpret(xq)[0].int_repr())

    def torch_int8():
        with torch.no_grad():
            qmod(xq)
    o, t, f = interleaved_medians_ms([lambda: ours(xq), torch_int8, lambda: ours_float(xf)],
                                     blocks=4, runs=5, block_s=0.5)
    g = 2 * n ** 3 / 1e6
    print(f"\nGEMM {n}^3 (a quantized Linear on {n} rows): ours int8 {o:.2f} ms "
          f"({g / o:.0f} GOP/s), torch int8 {t:.2f} ms ({g / t:.0f} GOP/s), "
          f"ours float32 {f:.2f} ms ({g / f:.0f} GFLOP/s); int8 / float32 throughput "
          f"{f / o:.2f}x", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", default="2,1")
    p.add_argument("--models", default="resnet18,mobilenet_v2")
    p.add_argument("--child", type=int)
    a = p.parse_args()
    models = a.models.split(",")
    if a.child:
        child(a.child, models)
        return
    for t in a.threads.split(","):
        subprocess.run([sys.executable, __file__, "--child", t, "--models",
                        a.models], check=True)


if __name__ == "__main__":
    main()
