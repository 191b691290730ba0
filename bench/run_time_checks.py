"""The cost of compiled code's run-time checks (docs/reliability.md,
"Run-time checks"): models whose ops torch checks at run time (embedding,
gather, index_put, nll_loss, one_hot), compiled with the checks
(traced.compile's default) and without (checks=False), timed in
interleaved blocks at TRACED_BENCH_THREADS threads (default 1) on both
sides; torch eager beside them.

    PYTHONPATH=build/python /usr/bin/python3 bench/run_time_checks.py [--blocks B]
"""
import argparse
import os

THREADS = os.environ.get("TRACED_BENCH_THREADS", "1")
os.environ["OMP_NUM_THREADS"] = THREADS
os.environ["OPENBLAS_NUM_THREADS"] = THREADS

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import traced  # noqa: E402
from timing import describe_environment, interleaved_medians_ms  # noqa: E402


class Embed(torch.nn.Module):
    """A BERT-base word embedding: 128 ids into a 30522 x 768 table."""

    def __init__(self):
        super().__init__()
        self.e = torch.nn.Embedding(30522, 768)

    def forward(self, ids):
        return self.e(ids)


class Gather(torch.nn.Module):
    def forward(self, x, i):
        return torch.gather(x, 1, i)


class IndexPut(torch.nn.Module):
    def forward(self, x, i, v):
        return x.index_put((i,), v)


class NllLoss(torch.nn.Module):
    def forward(self, x, t):
        return F.nll_loss(F.log_softmax(x, 1), t)


class OneHot(torch.nn.Module):
    def forward(self, t):
        return F.one_hot(t, 1000).float().sum(0)


def cases():
    g = torch.Generator().manual_seed(0)
    yield "embedding 128 of 30522x768", Embed().eval(), (torch.randint(0, 30522, (1, 128), generator=g),)
    yield "gather 512x1024 -> 512x256", Gather(), (torch.randn(512, 1024, generator=g),
                                                   torch.randint(0, 1024, (512, 256), generator=g))
    # (Small: compiled index_put takes about 1.2 ms an index on an 8192 x 64
    # tensor, each index touching the whole tensor; a known performance bug.)
    yield "index_put 64 rows of 1024x64", IndexPut(), (torch.randn(1024, 64, generator=g),
                                                       torch.randint(0, 1024, (64,), generator=g),
                                                       torch.randn(64, 64, generator=g))
    yield "nll_loss 256x1000", NllLoss(), (torch.randn(256, 1000, generator=g),
                                           torch.randint(0, 1000, (256,), generator=g))
    yield "one_hot 4096 of 1000", OneHot(), (torch.randint(0, 1000, (4096,), generator=g),)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(int(THREADS))
    describe_environment(int(THREADS))
    print(flush=True)
    print("| model | checked ms | unchecked ms | checks cost | torch eager ms |")
    print("|---|---|---|---|---|")
    for name, model, inputs in cases():
        m = traced.trace(model, *inputs)
        checked = traced.compile(m, cache=False)
        unchecked = traced.compile(m, cache=False, checks=False)
        arrays = [x.numpy() for x in inputs]
        with torch.no_grad():
            want = model(*inputs).numpy()
        for fn in (checked, unchecked):
            np.testing.assert_allclose(fn(*arrays), want, rtol=1e-4, atol=1e-4)
        with torch.no_grad():
            c, u, t = interleaved_medians_ms(
                [lambda: checked(*arrays), lambda: unchecked(*arrays),
                 lambda: model(*inputs)], blocks=args.blocks, runs=args.runs,
                block_s=0.3)
        print(f"| {name} | {c:.3f} | {u:.3f} | {100 * (c - u) / u:+.1f}% | {t:.3f} |",
              flush=True)


if __name__ == "__main__":
    main()
