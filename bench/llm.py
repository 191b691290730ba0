"""Language-model prefill and decode (issue 50, docs/llm.md): GPT-2 small
(124M parameters, float32, random weights) from python/tests/llm_models.py,
traced once with dynamic "seq" and "past" dims and compiled once, beside
torch eager in the same process, at 1 and 2 threads; and the same weights
with a preallocated cache written in place (GPTStaticCache, compiled with
donate=), traced once with dynamic "seq" and "total" dims.

    PYTHONPATH=build/python /usr/bin/python3 bench/llm.py [--threads 1,2]
        [--model gpt2|tiny] [--past 16,256,900]

Each thread count runs in a child process (threads are set before numpy,
OpenMP and torch load). Per row: the median time of one call, ours and
torch eager's, timed in interleaved blocks (bench/timing.py:
interleaved_medians_ms), and tokens/s for decode. The memory-bandwidth
bound of a decode step is the bytes it must read (every weight once: the
LM head reads the whole token embedding; the K and V caches of every
layer) over this machine's read bandwidth, measured here as torch's sum of
a 512 MiB float32 tensor at the same thread count, timed in the same
interleaved blocks as the row's calls; "of bound" is that time
over ours. Outputs are checked against torch element by element (rtol and
atol 1e-4).
"""
import argparse
import os
import subprocess
import sys


def child(threads, model_name, pasts):
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    import time

    import numpy as np
    import torch

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "python", "tests"))
    sys.path.insert(0, here)
    import traced
    import llm_models as L
    from timing import agreement, describe_environment, interleaved_medians_ms

    torch.set_num_threads(threads)
    describe_environment(threads)
    if model_name == "gpt2":
        cfg = L.GPTConfig()
    else:
        cfg = L.GPTConfig(vocab=512, ctx=1024, layers=2, heads=4, dim=64)
    model = L.randomize(L.GPT(cfg))
    params = sum(p.numel() for p in model.parameters())
    # The same weights with the preallocated cache written in place
    # (GPTStaticCache, compiled with donate=; docs/llm.md "KV caches").
    static = L.GPTStaticCache(cfg)
    static.load_state_dict(model.state_dict())
    static.eval()

    def cache(past, seed=1):
        k, v = model.empty_cache()
        if past:
            g = torch.Generator().manual_seed(seed)
            with torch.no_grad():
                _, k, v = model(torch.randint(0, cfg.vocab, (1, past), generator=g), k, v)
        return k, v

    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, cfg.vocab, (1, 5), generator=g)
    k3, v3 = cache(3)
    t0 = time.perf_counter()
    tm = traced.trace(model, ids, k3, v3,
                      dynamic_dims=[{1: "seq"}, {3: "past"}, {3: "past"}])
    t1 = time.perf_counter()
    compiled = traced.compile(tm)
    t2 = time.perf_counter()
    ks, vs = static.static_cache()
    tms = traced.trace(static, ids, torch.ones(1, 5), ks, vs,
                       dynamic_dims={"ids": {1: "seq"}, "attention_mask": {1: "total"}})
    in_place = traced.compile(tms, donate={"k_cache": 1, "v_cache": 2})
    t3 = time.perf_counter()
    print(f"\nGPT ({params / 1e6:.1f}M parameters, {cfg.layers} layers, "
          f"dim {cfg.dim}), {threads} thread(s): trace {t1 - t0:.1f} s, "
          f"compile {t2 - t1:.1f} s (one compile serves every row); the "
          f"in-place cache model: trace and compile {t3 - t2:.1f} s")

    # The read bandwidth, timed in the same interleaved blocks as each
    # row's calls (this machine's bandwidth drifts from minute to minute:
    # one figure taken before the rows read 38 GB/s in one run and 80 in
    # the next): torch's sum of 512 MiB of float32, as big as GPT-2
    # small's weights and far past the caches.
    big = torch.ones(128 * 1024 * 1024)
    big.sum()

    def read_big():
        big.sum()
    print(f"read bandwidth: torch's sum of 512 MiB at {threads} thread(s), "
          f"timed beside each row (the bound column uses that row's)")

    print("\n| step | tokens in | past | ours ms | ours in place ms | torch eager ms "
          "| ours/torch | ours tokens/s | in place tokens/s | torch tokens/s "
          "| of bandwidth bound (in place) | check |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = [("prefill", 128, 0)] + [("decode", 1, p) for p in pasts]
    for kind, n, past in rows:
        x = torch.randint(0, cfg.vocab, (1, n), generator=g)
        k, v = cache(past)
        xn, kn, vn = x.numpy(), k.numpy(), v.numpy()
        with torch.no_grad():
            want = model(x, k, v)
        got = compiled(xn, kn, vn)
        ok = all(agreement(np.asarray(a), b.numpy())[0] for a, b in zip(got, want))
        # The static caches hold the same past; each call writes its rows
        # at `past` (the same rows every call) in place.
        sk, sv = (c.numpy() for c in static.static_cache())
        sk[:, :, :, :past], sv[:, :, :, :past] = kn, vn
        mask = np.ones((1, past + n), np.float32)
        got = in_place(xn, mask, sk, sv)
        ok = ok and agreement(np.asarray(got[0]), want[0].numpy())[0] and got[1] is sk

        def ours():
            compiled(xn, kn, vn)

        def ours_in_place():
            in_place(xn, mask, sk, sv)

        def eager():
            with torch.no_grad():
                model(x, k, v)
        o, oi, e, r = interleaved_medians_ms(
            [ours, ours_in_place, eager, read_big], blocks=4, runs=5,
            block_s=0.5)
        bandwidth = big.numel() * 4 / (r * 1e-3)
        # Bytes a decode step must read: the weights once (less the
        # position embedding, read one row) and both caches.
        cache_bytes = 2 * cfg.layers * (past + n) * cfg.dim * 4
        weight_bytes = (params - cfg.ctx * cfg.dim) * 4
        bound_ms = (weight_bytes + cache_bytes) / bandwidth * 1e3
        tok = lambda ms: n / ms * 1e3
        print(f"| {kind} | {n} | {past} | {o:.2f} | {oi:.2f} | {e:.2f} | "
              f"{o / e:.2f} | {tok(o):.1f} | {tok(oi):.1f} | {tok(e):.1f} | "
              f"{bound_ms / o * 100:.0f}% ({bound_ms / oi * 100:.0f}%, "
              f"{bound_ms:.2f} ms at {bandwidth / 1e9:.1f} GB/s) | "
              f"{'ok' if ok else 'WRONG'} |", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--model", default="gpt2", choices=["gpt2", "tiny"])
    parser.add_argument("--past", default="16,256,900")
    parser.add_argument("--child", type=int)
    args = parser.parse_args()
    pasts = [int(p) for p in args.past.split(",")]
    if args.child:
        child(args.child, args.model, pasts)
        return
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    for t in args.threads.split(","):
        subprocess.run([sys.executable, __file__, "--child", t, "--model",
                        args.model, "--past", args.past], check=True)


if __name__ == "__main__":
    main()
