"""An LSTM language model (issue 52): embedding, 2-layer LSTM, linear head,
batch-first, traced once with a dynamic sequence length and compiled once,
beside torch eager in the same process at 1 and 2 threads.

    PYTHONPATH=build/python /usr/bin/python3 bench/rnn.py [--threads 2,1]
        [--vocab 1000] [--dim 256] [--hidden 512] [--seqs 1,32,128]

Each thread count runs in a child process (threads are set before numpy,
OpenMP and torch load). Per row: the median time of one call, ours and
torch eager's (under no_grad), timed in interleaved blocks
(bench/timing.py: interleaved_medians_ms); outputs are checked against
torch element by element (rtol and atol 1e-4).
"""
import argparse
import os
import subprocess
import sys


def child(threads, vocab, dim, hidden, seqs):
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    import time

    import numpy as np
    import torch
    from torch import nn

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import traced
    from timing import agreement, describe_environment, interleaved_medians_ms

    torch.set_num_threads(threads)
    describe_environment(threads)

    class LanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, dim)
            self.lstm = nn.LSTM(dim, hidden, num_layers=2, batch_first=True)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, ids):
            out, _ = self.lstm(self.embed(ids))
            return self.head(out)

    torch.manual_seed(0)
    model = LanguageModel().eval()
    t0 = time.perf_counter()
    tm = traced.trace(model, torch.randint(0, vocab, (1, 5)),
                      dynamic_dims={"ids": {1: "seq"}})
    t1 = time.perf_counter()
    compiled = traced.compile(tm)
    t2 = time.perf_counter()
    print(f"LSTM LM (vocab {vocab}, dim {dim}, 2 x LSTM {hidden}), {threads} "
          f"thread(s): trace {t1 - t0:.1f} s, compile {t2 - t1:.1f} s (one "
          f"compile serves every length)")
    print("\n| tokens | ours ms | torch eager ms | ours/torch | check |")
    print("|---|---|---|---|---|")
    for n in seqs:
        ids = torch.randint(0, vocab, (1, n))
        with torch.no_grad():
            want = model(ids)
        ok = agreement(np.asarray(compiled(ids)), want.numpy(), 1e-4, 1e-4)[0]

        def ours():
            compiled(ids)

        def eager():
            with torch.no_grad():
                model(ids)
        o, e = interleaved_medians_ms([ours, eager], blocks=4, runs=5,
                                      block_s=0.5)
        print(f"| {n} | {o:.3f} | {e:.3f} | {o / e:.2f} | "
              f"{'ok' if ok else 'WRONG'} |", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", default="2,1")
    p.add_argument("--vocab", type=int, default=1000)
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--seqs", default="1,32,128")
    p.add_argument("--child", type=int)
    a = p.parse_args()
    seqs = [int(s) for s in a.seqs.split(",")]
    if a.child:
        child(a.child, a.vocab, a.dim, a.hidden, seqs)
        return
    for t in a.threads.split(","):
        subprocess.run([sys.executable, __file__, "--child", t, "--vocab",
                        str(a.vocab), "--dim", str(a.dim), "--hidden",
                        str(a.hidden), "--seqs", a.seqs], check=True)


if __name__ == "__main__":
    main()
