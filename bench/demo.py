"""`make demo`: trace torchvision resnet18 (random weights), print its graph,
run it with the reference interpreter and compare with torch eager, fold its
BatchNorms into the convs and compare again, compile the result for this CPU
and run it against torch and the interpreter with both latencies, then save
it as bytecode and read it back with the weights bit-identical."""
import os
import tempfile
import time

import numpy as np
import torch
import torchvision

import traced
from timing import median_ms


def main():
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
    scale = np.abs(expected).max()
    print(f"interpreter vs torch eager: max |difference| / max |output| = "
          f"{np.abs(got - expected).max() / scale:.1e} "
          f"(interpreter {interpreted * 1e3:.0f} ms incl. weight decoding, "
          f"torch {eager * 1e3:.0f} ms)")
    surgery = m.clone()
    surgery.run_passes("traced-flatten,traced-normalize,traced-fuse-conv-bn,"
                       "canonicalize,traced-dce")
    fused = surgery.interpret(x.numpy())[0]
    batch_norms = len(surgery.graph.get_function_by_type(
        "torch.nn.functional.batch_norm").as_list())
    print(f"after flatten, normalize, conv+bn fusion and DCE: {batch_norms} "
          f"batch_norm left, {len(surgery.graph.exprs())} exprs, outputs "
          f"differ by {np.abs(fused - got).max() / scale:.1e}")

    # Native code: traced-cpu-pipeline (linalg, tiling and vectorization,
    # bufferization, LLVM) and the JIT, on the module after surgery.
    torch.set_num_threads(1)
    start = time.perf_counter()
    compiled = traced.compile(surgery, target="cpu")
    print(f"compiled for this CPU in {time.perf_counter() - start:.1f} s")
    native = compiled(x.numpy())
    print(f"compiled vs torch eager: {np.abs(native - expected).max() / scale:.1e}"
          f"; compiled vs interpreter: {np.abs(native - fused).max() / scale:.1e}"
          f" (max |difference| / max |output|)")

    xn = x.numpy()
    ours = median_ms(lambda: compiled(xn))
    with torch.no_grad():
        eager_ms = median_ms(lambda: model(x))
    print(f"latency, batch 1, 1 thread, median of 10: compiled {ours:.1f} ms, "
          f"torch eager {eager_ms:.1f} ms ({ours / eager_ms:.2f}x)")

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
