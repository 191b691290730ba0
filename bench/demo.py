"""`make demo`: trace torchvision resnet18 (random weights), print its graph,
run it with the reference interpreter and compare with torch eager, fold its
BatchNorms into the convs and compare again, compile the result for this CPU
and run it against torch and the interpreter with the latencies of both sides,
then save it as bytecode and read it back with the weights bit-identical.

The latency line is at 1 thread on both sides (the thread and BLAS
settings of both are printed first: bench/timing.py, describe_environment)
and gives torch eager and torch's frozen model
(torch.jit.optimize_for_inference(torch.jit.trace(model)): bench/timing.py,
torch_frozen), timed interleaved with the compiled code (bench/timing.py,
interleaved_medians_ms), with the ratio against the faster of the two."""
import os
import tempfile
import time

# The latency line names one thread: both sides run at it (compiled code's
# libomp reads OMP_NUM_THREADS when it starts; torch's intra-op pool and
# OpenBLAS are set below and here, before they load).
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import numpy as np
import torch
import torchvision

import traced
from timing import (agreement, describe_environment,  # noqa: E402
                    interleaved_medians_ms, torch_frozen)


def _agreement(got, expected, rtol=1e-4, atol=1e-5):
    """Element by element, as torch.testing.assert_close compares
    (bench/timing.py: agreement, here with atol 1e-5): the largest
    |difference| and whether every element is within
    atol + rtol * |expected|."""
    ok, max_abs, _ = agreement(got, expected, rtol, atol)
    return (f"max |difference| {max_abs:.1e}, "
            f"{'every element' if ok else 'NOT every element'} within "
            f"rtol {rtol:g} / atol {atol:g}")


def main():
    torch.set_num_threads(1)
    describe_environment(1)
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    x = torch.randn(1, 3, 224, 224)
    start = time.perf_counter()
    m = traced.trace(model, x)
    print(f"traced resnet18 in {(time.perf_counter() - start) * 1e3:.0f} ms")
    lines = str(m.graph).splitlines()
    print("\n".join(lines[:8] + ["        ..."] + lines[-3:]))
    print()
    print(m.layer1.__getattr__("0").graph)

    with torch.no_grad():
        start = time.perf_counter()
        expected = model(x).numpy()
        eager = time.perf_counter() - start
    start = time.perf_counter()
    got = m.interpret(x.numpy())[0]
    interpreted = time.perf_counter() - start
    print(f"interpreter vs torch eager: {_agreement(got, expected)} "
          f"(interpreter {interpreted * 1e3:.0f} ms incl. weight decoding, "
          f"torch {eager * 1e3:.0f} ms)")
    surgery = m.clone()
    surgery.run_passes("traced-flatten,traced-normalize,traced-fuse-conv-bn,"
                       "canonicalize,traced-dce")
    fused = surgery.interpret(x.numpy())[0]
    batch_norms = len(surgery.graph.get_function_by_type(
        "torch.nn.functional.batch_norm").as_list())
    print(f"after flatten, normalize, conv+bn fusion and DCE: {batch_norms} "
          f"batch_norm left, {len(surgery.graph.exprs())} exprs; vs the "
          f"unfused interpreter: {_agreement(fused, got)}")

    # Native code: traced-cpu-pipeline (linalg, tiling and vectorization,
    # bufferization, LLVM) and the JIT, on the module after surgery.
    start = time.perf_counter()
    compiled = traced.compile(surgery, target="cpu")
    print(f"compiled for this CPU in {time.perf_counter() - start:.1f} s")
    native = compiled(x.numpy())
    print(f"compiled vs torch eager: {_agreement(native, expected)}; "
          f"vs the interpreter: {_agreement(native, fused)}")

    xn = x.numpy()
    frozen, why = torch_frozen(model, x)
    fns = [lambda: compiled(xn), lambda: model(x)] + (
        [lambda: frozen(x)] if frozen else [])
    with torch.no_grad():
        ms = interleaved_medians_ms(fns, blocks=3, runs=5, block_s=0.5)
    ours, eager_ms = ms[0], ms[1]
    if frozen:
        jit_ms = ms[2]
        best, which = min((eager_ms, "eager"), (jit_ms, "jit"))
        jit = (f"torch.jit.optimize_for_inference {jit_ms:.1f} ms; "
               f"{ours / best:.2f}x of the faster, torch {which}")
    else:
        jit = f"torch.jit.optimize_for_inference failed ({why})"
    print(f"latency, batch 1, 1 thread on both sides, medians of 3 "
          f"interleaved blocks: compiled {ours:.1f} ms, torch eager "
          f"{eager_ms:.1f} ms, {jit}")

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "resnet18.mlirbc")
        m.save(path)
        back = traced.load(path)
        back.verify()
        same = np.array_equal(back.conv1.weight, model.conv1.weight.detach().numpy())
        print(f"saved {os.path.getsize(path) / 1e6:.1f} MB of bytecode; read back, "
              f"verified, conv1.weight bit-identical: {same}")


if __name__ == "__main__":
    main()
