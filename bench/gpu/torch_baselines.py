"""torch's own figures for the GPU issue's must-show models, on the GPU
machine (torch 2.x with CUDA; no TracedIR needed):

    python3 bench/gpu/torch_baselines.py [--compile] [--deadline SECONDS]

* resnet50, batch 32, bfloat16 (torchvision, random weights): images/s in
  eager NCHW, eager channels_last, and torch.compile (--compile);
* a BERT-base encoder (12 layers, d 768, 12 heads, FFN 3072, GELU; the
  nn.TransformerEncoder torch's eager fast path serves), batch 32,
  sequence 128, bfloat16: sequences/s, eager and torch.compile;
* GPT-2 small decode (python/tests/llm_models.py's GPT, 124M parameters,
  the cache grown by concatenation as the traced model does), batch 1,
  bfloat16: tokens/s at 128 and 512 cached tokens, and the fraction of
  HBM bandwidth that is (every weight and the cache read once per token
  over the measured device-to-device copy bandwidth, and over the H200's
  4.8 TB/s datasheet figure).

Every figure is the median of timed calls after warm-up, CUDA-synchronized.
The deadline (default 240 s) skips what is left once it has passed, so that
the script fits a device-tool call.
"""
import argparse
import os
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "tests"))


def median_ms(fn, runs, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def copy_bandwidth():
    """Bytes read and written per second by a device-to-device copy."""
    a = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    ms = median_ms(lambda: b.copy_(a), 20)
    return 2 * a.numel() / (ms / 1e3)


def eager_and_compiled(report, what, model, x, compile_too, per_call="", runs=30):
    """Times `model(x)` in eager mode and, with `compile_too`, compiled by
    torch.compile; `per_call` (items, unit) adds a throughput."""
    def rate(ms):
        return f"{per_call[0] * 1e3 / ms:.0f} {per_call[1]}/s" if per_call else ""
    with torch.no_grad():
        ms = median_ms(lambda: model(x), runs)
        report(f"{what}, eager", ms, rate(ms))
        if compile_too:
            start = time.time()
            compiled = torch.compile(model)
            ms = median_ms(lambda: compiled(x), runs)
            report(f"{what}, torch.compile (compiled in {time.time() - start:.0f} s)",
                   ms, rate(ms))


def resnet50(report, compile_too):
    import torchvision
    model = torchvision.models.resnet50().eval().cuda().to(torch.bfloat16)
    x = torch.randn(32, 3, 224, 224, device="cuda", dtype=torch.bfloat16)
    eager_and_compiled(report, "resnet50 b32 bf16, NCHW", model, x, compile_too,
                       (32, "images"))
    # channels_last (cuDNN's faster layout), eager only.
    eager_and_compiled(report, "resnet50 b32 bf16, channels_last",
                       model.to(memory_format=torch.channels_last),
                       x.to(memory_format=torch.channels_last), False, (32, "images"))


def resnet18_b1(report, compile_too):
    import torchvision
    model = torchvision.models.resnet18().eval().cuda()
    x = torch.randn(1, 3, 224, 224, device="cuda")
    eager_and_compiled(report, "resnet18 b1 float32", model, x, compile_too, runs=100)


def bert_base(report, compile_too):
    # 12 layers (BERT-base), and the 2 layers bench/gpu/build.py compiles.
    for layers in (12, 2):
        layer = torch.nn.TransformerEncoderLayer(768, 12, 3072, activation="gelu",
                                                 batch_first=True, dropout=0.0)
        model = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        model = model.eval().cuda().to(torch.bfloat16)
        x = torch.randn(32, 128, 768, device="cuda", dtype=torch.bfloat16)
        eager_and_compiled(report, f"BERT-base encoder, {layers} layers, b32 s128 bf16",
                           model, x, compile_too, (32, "sequences"))


def gpt2_decode(report, compile_too, bandwidth):
    import llm_models as L
    cfg = L.GPTConfig()
    model = L.randomize(L.GPT(cfg)).cuda().to(torch.bfloat16)
    # Every weight is read once per token but the position embedding (one
    # row gathered); the token embedding is the tied LM head's matrix.
    weights = sum(p.numel() * p.element_size() for n, p in model.named_parameters()
                  if not n.startswith("wpe"))
    for past in (128, 512):
        k, v = model.empty_cache()
        k = torch.randn(k.shape[:-2] + (past, k.shape[-1]), device="cuda",
                        dtype=torch.bfloat16)
        v = torch.randn_like(k)
        ids = torch.tensor([[7]], device="cuda")
        # The model makes its position ids with torch.arange.
        with torch.no_grad(), torch.device("cuda"):
            ms = median_ms(lambda: model(ids, k, v), 50)
        cache = 2 * k.numel() * k.element_size()
        moved = weights + cache
        report(f"GPT-2 small decode bf16, eager, {past} cached", ms,
               f"{1e3 / ms:.0f} tokens/s; {moved / 1e6:.0f} MB read per token = "
               f"{moved / (ms / 1e3) / bandwidth:.1%} of measured copy bandwidth, "
               f"{moved / (ms / 1e3) / 4.8e12:.1%} of 4.8 TB/s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--deadline", type=float, default=240)
    args = parser.parse_args()
    start = time.time()
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}", flush=True)
    bandwidth = copy_bandwidth()
    print(f"device-to-device copy: {bandwidth / 1e12:.2f} TB/s (read + written)", flush=True)

    def report(what, ms, extra):
        print(f"| {what} | {ms:.3f} ms | {extra} |", flush=True)

    for step in (lambda: resnet18_b1(report, args.compile),
                 lambda: resnet50(report, args.compile),
                 lambda: bert_base(report, args.compile),
                 lambda: gpt2_decode(report, args.compile, bandwidth)):
        if time.time() - start > args.deadline:
            print("deadline passed: the rest skipped", flush=True)
            break
        try:
            step()
        except Exception as e:  # noqa: BLE001 (report and go on)
            print(f"FAILED: {type(e).__name__}: {e}"[:300], flush=True)


if __name__ == "__main__":
    main()
