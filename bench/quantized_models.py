"""torchvision's quantizable models (torchvision.models.quantization)
quantized through eager mode and through torch.fx, each with three
calibration batches of random data and randomized BatchNorm statistics,
then traced, interpreted and compiled, against torch's int8 model (onednn):
the share of logits within one quantization step, the largest difference
in steps, and whether the top-1 class agrees, on two random inputs.

    PYTHONPATH=build/python /usr/bin/python3 bench/quantized_models.py
        [--models resnet18,...] [--flows eager,fx]
"""
import argparse
import os
import sys
import time

import torch
import torchvision
import torchvision.models.quantization as tq

import traced

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "tests"))
import host  # noqa: E402  (the CPU's flags, shared with the tests)

MODELS = ["resnet18", "resnet50", "resnext101_32x8d", "mobilenet_v2",
          "mobilenet_v3_large", "googlenet", "inception_v3", "shufflenet_v2_x1_0"]


def randomize(model):
    gen = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.rand(n, generator=gen) - 0.5)
            m.running_var.copy_(torch.rand(n, generator=gen) * 1.5 + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=gen) + 0.5)
            m.bias.data.copy_(torch.rand(n, generator=gen) - 0.5)
    return model


# torch's "onednn" qconfig where the CPU has VNNI; its "x86" qconfig (7-bit
# activations) elsewhere: without VNNI torch 1.13's oneDNN int8 sums
# saturate in int16 on 8-bit activations, so torch would not be the
# reference (docs/quantization.md, "Numerics").
BACKEND = "onednn" if host.VNNI else "x86"


def quantized(name, flow, size):
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    torch.manual_seed(0)
    kwargs = {"aux_logits": False, "init_weights": True} \
        if name in ("googlenet", "inception_v3") else {}
    calib = [torch.randn(1, 3, size, size) for _ in range(3)]
    if flow == "eager":
        model = randomize(getattr(tq, name)(quantize=False, **kwargs).eval())
        model.fuse_model(is_qat=False)
        model.qconfig = torch.ao.quantization.get_default_qconfig(BACKEND)
        torch.ao.quantization.prepare(model, inplace=True)
        with torch.no_grad():
            for x in calib:
                model(x)
        return torch.ao.quantization.convert(model, inplace=True)
    model = randomize(getattr(torchvision.models, name)(**kwargs).eval())
    prepared = prepare_fx(model, get_default_qconfig_mapping(BACKEND), (calib[0],))
    with torch.no_grad():
        for x in calib:
            prepared(x)
    return convert_fx(prepared)


def agreement(got, want):
    step = want.unique().sort().values.diff().min()
    steps = ((got - want).abs() / step).round()
    return (steps <= 1).float().mean().item(), int(steps.max()), bool(got.argmax() == want.argmax())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--flows", default="eager,fx")
    a = p.parse_args()
    torch.backends.quantized.engine = "onednn"
    print(f"qconfig: {BACKEND} (VNNI: {host.VNNI}); quantized engine onednn")
    print("| model | flow | interpreted: within 1 step, max steps, top-1 | "
          "compiled: within 1 step, max steps, top-1 | seconds |")
    print("|---|---|---|---|---|")
    for name in a.models.split(","):
        size = 299 if name == "inception_v3" else 224
        for flow in a.flows.split(","):
            t0 = time.time()
            try:
                model = quantized(name, flow, size)
            except Exception as e:  # noqa: BLE001 - torch's own quantization fails
                print(f"| {name} | {flow} | torch cannot quantize it: {type(e).__name__}: "
                      f"{str(e).splitlines()[0][:100]} | | {time.time() - t0:.0f} |", flush=True)
                continue
            try:
                x = torch.randn(1, 3, size, size)
                tm = traced.trace(model, x)
                compiled = traced.compile(tm)
                rows = {"interp": [], "cpu": []}
                for seed in range(2):
                    x = torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(seed))
                    with torch.no_grad():
                        want = model(x)
                    rows["interp"].append(agreement(tm.interpret(x)[0], want))
                    rows["cpu"].append(agreement(compiled(x), want))
                cells = []
                for path in ("interp", "cpu"):
                    r = rows[path]
                    cells.append(f"{min(w for w, _, _ in r):.1%}, {max(m for _, m, _ in r)}, "
                                 f"{'same' if all(t for _, _, t in r) else 'DIFFERS'}")
                print(f"| {name} | {flow} | {cells[0]} | {cells[1]} | {time.time() - t0:.0f} |",
                      flush=True)
            except Exception as e:  # noqa: BLE001 - reported per model
                print(f"| {name} | {flow} | {type(e).__name__}: "
                      f"{str(e).splitlines()[0][:160]} | | {time.time() - t0:.0f} |", flush=True)


if __name__ == "__main__":
    main()
