#!/usr/bin/env python3
"""Screenshots of the graph explorer for docs/python.md (`make screenshots`),
and its size and load time on a large model.

    PYTHONPATH=build/python /usr/bin/python3 tools/view_screenshots.py [--out docs/images]
        resnet18 (64x64 input) collapsed, resnet18 with layer1 and layer1.0
        open, vit_b_16 with its first encoder layer open: view_*.png
    PYTHONPATH=build/python /usr/bin/python3 tools/view_screenshots.py --measure vit_h_14 [--size 224]
        traces the torchvision model, writes its page, prints the file's
        size, the time until the page is ready in headless Chromium, and the
        time of "expand all" and of a search

Chromium is driven over the DevTools protocol by python/tests/cdp.py.
"""
import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))

import cdp  # noqa: E402


def _trace(name, size):
    import torch
    import torchvision
    import traced
    torch.manual_seed(0)
    return traced.trace(getattr(torchvision.models, name)().eval(),
                        torch.randn(1, 3, size, size))


def _click(page, path):
    page.evaluate(f"document.querySelector('.row[data-path=\"{path}\"]').click()")


def _fit(page, width, height):
    page.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
              deviceScaleFactor=1, mobile=False)


def screenshots(out):
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, cdp.Chromium() as browser:
        r18 = os.path.join(tmp, "resnet18.html")
        _trace("resnet18", 64).view(r18)
        page = browser.open("file://" + r18)
        _fit(page, 1300, 420)
        page.screenshot(os.path.join(out, "view_resnet18.png"))
        _click(page, "layer1")
        _click(page, "layer1.0")
        page.evaluate("document.querySelector('.row[data-path=\"layer1.0.conv2\"]').click()")
        _fit(page, 1300, 720)
        page.screenshot(os.path.join(out, "view_resnet18_layer1.png"))
        vit = os.path.join(tmp, "vit_b_16.html")
        _trace("vit_b_16", 224).view(vit)
        page.navigate("file://" + vit)
        _click(page, "encoder")
        _click(page, "encoder.layers")
        _click(page, "encoder.layers.encoder_layer_0")
        page.evaluate("document.querySelector('.row[data-path=\"encoder.layers.encoder_layer_0.self_attention\"]').click()")
        page.evaluate("document.querySelector('aside nav button[data-tab=summary]').click()")
        _fit(page, 1300, 720)
        page.screenshot(os.path.join(out, "view_vit_b_16.png"))
        assert not page.errors, page.errors
    for name in ("view_resnet18.png", "view_resnet18_layer1.png", "view_vit_b_16.png"):
        path = os.path.join(out, name)
        print(f"wrote {path} ({os.path.getsize(path) / 1024:.0f} KiB)")


def measure(name, size):
    start = time.time()
    m = _trace(name, size)
    print(f"{name}: traced in {time.time() - start:.1f} s", flush=True)
    with tempfile.TemporaryDirectory() as tmp, cdp.Chromium() as browser:
        path = os.path.join(tmp, f"{name}.html")
        start = time.time()
        m.view(path)
        print(f"m.view: {time.time() - start:.2f} s, {os.path.getsize(path) / 1024:.0f} KiB",
              flush=True)
        del m
        start = time.time()
        page = browser.open("file://" + path)
        ready = page.evaluate("window.__viewReady")
        print(f"page ready {time.time() - start:.2f} s after navigating (its script: "
              f"{ready['ms']:.0f} ms, {ready['instances'] - 1} ops in the call tree, "
              f"{ready['rows']} rows in the DOM)")
        ms = page.evaluate("(() => { const t = performance.now(); "
                           "document.getElementById('expand-all').click(); "
                           "document.body.offsetHeight; return performance.now() - t; })()")
        rows = page.evaluate("document.querySelectorAll('.row').length")
        print(f"expand all: {ms:.0f} ms, {rows} rows in the DOM")
        ms = page.evaluate("(() => { const box = document.getElementById('search'); "
                           "const t = performance.now(); box.value = 'linear'; "
                           "box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); "
                           "return performance.now() - t; })()")
        print(f"search 'linear' and reveal the first hit: {ms:.0f} ms")
        errors = page.errors + page.evaluate("window.__viewErrors")
        print(f"console errors: {errors or 'none'}")
        return 1 if errors else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.path.join(ROOT, "docs", "images"))
    p.add_argument("--measure", metavar="MODEL", help="a torchvision model to measure")
    p.add_argument("--size", type=int, default=224, help="with --measure: input size")
    args = p.parse_args()
    if args.measure:
        return measure(args.measure, args.size)
    screenshots(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
