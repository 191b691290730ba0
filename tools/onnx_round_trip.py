#!/usr/bin/env python3
"""Every torchvision classification model through ONNX, both ways
(docs/onnx.md, "Conformance"; `make check-onnx-models`):

- traced here, exported with Module.to_onnx (ONNX's checker with full
  shape inference passes), imported back with traced.from_onnx and
  interpreted;
- exported by torch.onnx.export (opset 17), imported with traced.from_onnx
  and interpreted;

each against torch eager within rtol/atol 1e-4, on random weights with
randomized BatchNorm statistics and no all-zero parameters, batch 1 at
224x224 (inception_v3: 299). Where float32 itself cannot meet that (deep
networks whose random logits reach 1e3: a small logit is a difference of
large sums), the output is checked against the model run in float64
instead: it passes when its largest error from the float64 result is no
larger than torch's own float32 result's (marked "f64" in the table).
Exits non-zero if any model fails.

    /usr/bin/python3 tools/onnx_round_trip.py [--only resnet18 vit_b_16] [--out DIR]
"""
import argparse
import os
import sys
import tempfile
import time
import traceback
import warnings


def randomized(model, torch):
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.running_mean.uniform_(-0.1, 0.1, generator=g)
                m.running_var.uniform_(1.0, 2.0, generator=g)
        for p in model.parameters():
            if p.numel() and bool((p == 0).all()):
                p.uniform_(-0.1, 0.1, generator=g)
    return model.eval()


def register_missing_symbolics(torch):
    """torch 1.13's exporter has no symbolic for `aten::zero` (swin_v2's
    `zero_()` of a bias slice); torch.onnx.register_custom_op_symbolic
    gives it one: zeros of the input's shape and dtype (ConstantOfShape,
    then a Cast to the input's type)."""
    from torch.onnx import symbolic_helper

    def zero(g, self):
        shape = g.op("Shape", self)
        zeros = g.op("ConstantOfShape", shape,
                     value_t=torch.tensor([0.0], dtype=torch.float32))
        dtype = symbolic_helper._try_get_scalar_type(self)
        if dtype is None or dtype == "Float":
            return zeros
        return g.op("CastLike", zeros, self)

    torch.onnx.register_custom_op_symbolic("aten::zero", zero, 17)


def check(got, ref, model, x, torch, truth):
    """assert_close at 1e-4, or no farther from the float64 result than
    torch's float32 output is; returns the mark for the table."""
    try:
        torch.testing.assert_close(got, ref, rtol=1e-4, atol=1e-4)
        return ""
    except AssertionError:
        if truth[0] is None:
            with torch.no_grad():
                truth[0] = model.double()(x.double())
                model.float()
        t = truth[0]
        ours = float((got.double() - t).abs().max())
        theirs = float((ref.double() - t).abs().max())
        if ours > theirs:
            raise
        return f" (f64: {ours:.1e} vs torch's {theirs:.1e})"


def run(name, out):
    import onnx
    import torch
    import torchvision
    import traced
    torch.manual_seed(0)
    model = randomized(torchvision.models.get_model(name), torch)
    size = 299 if name == "inception_v3" else 224
    x = torch.randn(1, 3, size, size)
    with torch.no_grad():
        ref = model(x)
    result = {}
    ours = os.path.join(out, f"{name}.onnx")
    t = time.time()
    m = traced.trace(model, x)
    direct = m.interpret(x)[0]
    m.to_onnx(ours)
    # (The path form: models past 2 GiB keep their weights outside.)
    onnx.checker.check_model(ours, full_check=True)
    got = traced.from_onnx(ours).interpret(x)[0]
    result["direct"] = float((direct - ref).abs().max())
    truth = [None]
    mark = check(got, ref, model, x, torch, truth)
    result["ours"] = (f"{float((got - ref).abs().max()):.1e}{mark}",
                      time.time() - t)
    theirs = os.path.join(out, f"{name}_torch.onnx")
    t = time.time()
    try:
        register_missing_symbolics(torch)
        torch.onnx.export(model, x, theirs, opset_version=17)
    except Exception as e:  # noqa: BLE001  (torch's exporter, not ours)
        result["torch"] = ("torch.onnx.export refuses: " +
                           str(e).strip().splitlines()[0][:80], 0.0)
        return result
    got = traced.from_onnx(theirs).interpret(x)[0]
    mark = check(got, ref, model, x, torch, truth)
    result["torch"] = (f"{float((got - ref).abs().max()):.1e}{mark}",
                       time.time() - t)
    for f in (ours, theirs):
        for p in (f, f + ".data"):
            if os.path.exists(p):
                os.remove(p)
    return result


def main():
    import torchvision
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--out")
    args = parser.parse_args()
    names = args.only or torchvision.models.list_models(module=torchvision.models)
    out = args.out or tempfile.mkdtemp(prefix="onnx-round-trip-")
    failed = []
    print("| model | traced, interpreted | to_onnx -> from_onnx | "
          "torch.onnx.export -> from_onnx | seconds |")
    print("|---|---|---|---|---|")
    # (Largest absolute difference from torch eager of each path's output.)
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = run(name, out)
            except Exception as e:  # noqa: BLE001  (every failure is reported)
                failed.append(name)
                msg = str(e).strip().splitlines()
                print(f"| {name} | | FAILED: {type(e).__name__}: "
                      f"{msg[-1] if msg else ''} | | |", flush=True)
                traceback.print_exc(file=sys.stderr)
                continue
        print(f"| {name} | {r['direct']:.1e} | {r['ours'][0]} | {r['torch'][0]} | "
              f"{r['ours'][1] + r['torch'][1]:.0f} |", flush=True)
    print(f"\n{len(names) - len(failed)} of {len(names)} models pass both ways"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
