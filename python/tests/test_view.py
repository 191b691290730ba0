"""The graph explorer (docs/python.md, "Viewing a graph in the browser"):
m.view and `python -m traced view` write one self-contained HTML file, and
in a real headless Chromium (cdp.py drives it over the DevTools protocol)
the page loads without console errors or network requests, a click
expands a group into its children, and search finds and reveals a node."""
import json
import os
import re
import subprocess
import sys
import urllib.request

import pytest
import torch
import torchvision

import cdp
import traced
from traced import view as view_module


@pytest.fixture(scope="module")
def resnet18():
    torch.manual_seed(0)
    return traced.trace(torchvision.models.resnet18().eval(), torch.randn(1, 3, 64, 64))


@pytest.fixture(scope="module")
def page_path(resnet18, tmp_path_factory):
    path = tmp_path_factory.mktemp("view") / "resnet18.html"
    assert resnet18.view(path) == str(path)
    return path


def _data(text):
    found = re.search(r'<script id="traced-data" type="application/json">(.*?)</script>',
                      text, re.S)
    return json.loads(found.group(1).replace("<\\/", "</"))


def test_the_page_is_self_contained(page_path):
    text = page_path.read_text()
    assert text.startswith("<!DOCTYPE html>")
    # Nothing loaded from elsewhere: no src/href to http(s), no external
    # script or stylesheet, no import.
    assert not re.search(r'(src|href)\s*=\s*["\']?\s*(https?:)?//', text, re.I)
    assert not re.search(r"<script[^>]*\bsrc=", text, re.I)
    assert not re.search(r"<link\b", text, re.I)
    assert "@import" not in text and "fetch(" not in text
    assert len(text) < 200_000  # resnet18: about 40 KB


def test_the_data_has_the_tree_types_costs_and_lines(resnet18, page_path):
    data = _data(page_path.read_text())
    s = data["strings"]
    root = data["graphs"][data["root"]]
    calls = {s[op["p"]]: op for op in root["ops"] if op["k"] == "c"}
    assert list(calls) == ["conv1", "bn1", "relu", "maxpool", "layer1", "layer2",
                           "layer3", "layer4", "avgpool", "fc"]
    layer1 = data["graphs"][calls["layer1"]["s"]]
    assert [s[op["p"]] for op in layer1["ops"]] == ["0", "1"]
    summary = resnet18.summary(print=False)
    by_path = {r.path: r for r in summary.rows}
    assert calls["layer1"]["w"] == by_path["layer1"].params
    assert calls["fc"]["x"] == by_path["fc"].macs == 512 * 1000
    assert data["summary"]["params"] == summary.total_params
    conv = calls["conv1"]
    shape, dtype, _, type_text = (s[i] for i in data["types"][conv["r"][0]])
    assert (shape, dtype, type_text) == ("[1, 64, 32, 32]", "float32",
                                         "tensor<1x64x32x32xf32>")
    assert s[conv["t"]] == "torch.nn.modules.conv.Conv2d"
    file, line, _, _, source = data["locs"][conv["l"]]
    assert s[file].endswith("torchvision/models/resnet.py") and line > 0
    assert s[source] == "x = self.conv1(x)"
    flatten = [op for op in root["ops"] if op["k"] == "f"]
    assert [s[op["t"]] for op in flatten] == ["torch.flatten"]


def test_qparams_are_shown():
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    engine = torch.backends.quantized.engine
    torch.backends.quantized.engine = "onednn"
    try:
        model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU()).eval()
        x = torch.randn(1, 3, 8, 8)
        prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), (x,))
        prepared(x)
        m = traced.trace(convert_fx(prepared), x)
    finally:
        torch.backends.quantized.engine = engine
    data = view_module.page_data(m)
    s = data["strings"]
    quantized = [(s[t[1]], s[t[2]]) for t in data["types"] if s[t[2]]]
    assert quantized, "no quantized value in the page's types"
    assert all(re.fullmatch(r"scale=\S+ zero_point=-?\d+|per-channel axis=.*", q)
               for _, q in quantized), quantized
    assert {d for d, _ in quantized} & {"quint8", "qint8"}


def test_command_line(resnet18, tmp_path):
    saved = tmp_path / "r18.mlirbc"
    resnet18.save(saved)
    package = os.path.dirname(os.path.dirname(os.path.abspath(traced.__file__)))
    env = dict(os.environ, PYTHONPATH=package)
    out = tmp_path / "r18.html"
    done = subprocess.run([sys.executable, "-m", "traced", "view", str(saved), "-o", str(out)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout
    # A loaded module keeps the calls' source lines (bytecode has them).
    data = _data(out.read_text())
    assert any(data["strings"][loc[0]].endswith("resnet.py") for loc in data["locs"])

    served = tmp_path / "served.html"
    proc = subprocess.Popen([sys.executable, "-m", "traced", "view", str(saved), "-o",
                             str(served), "--serve"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for line in proc.stdout:
            found = re.search(r"(http://127\.0\.0\.1:\d+/\S+)", line)
            if found:
                url = found.group(1)
                break
        assert url and url.endswith("/served.html"), proc.stderr.read() if proc.poll() else url
        with urllib.request.urlopen(url, timeout=30) as r:
            assert r.read().decode() == served.read_text()
    finally:
        proc.terminate()
        proc.wait(30)


# -- in the browser -------------------------------------------------------------

@pytest.fixture(scope="module")
def page(page_path):
    if cdp.chromium_path() is None:
        pytest.skip("chromium is not installed (the Makefile's BUILD_PACKAGES has it)")
    with cdp.Chromium() as browser:
        yield browser.open(page_path.as_uri())


def paths(page):
    return page.evaluate("Array.from(document.querySelectorAll('.row[data-path]'))"
                         ".map(r => r.dataset.path)")


def click(page, path):
    page.evaluate(f"document.querySelector('.row[data-path=\"{path}\"]').click()")


def test_loads_without_errors_or_requests(page, page_path):
    assert page.errors == []
    assert page.evaluate("window.__viewErrors") == []
    assert page.requests == [page_path.as_uri()]
    # Collapsed: the root's calls, nothing inside the groups in the DOM.
    assert paths(page) == ["conv1", "bn1", "relu", "maxpool", "layer1", "layer2",
                           "layer3", "layer4", "avgpool", "fc"]
    assert page.evaluate("document.querySelectorAll('.row').length") == 13  # + in, flatten, return
    assert page.evaluate("document.querySelectorAll('svg.edges path').length") >= 12


def test_click_expands_a_group(page):
    click(page, "layer1")
    assert paths(page)[4:7] == ["layer1", "layer1.0", "layer1.1"]
    click(page, "layer1.0")
    inside = [p for p in paths(page) if p.startswith("layer1.0.")]
    assert inside == ["layer1.0.conv1", "layer1.0.bn1", "layer1.0.relu", "layer1.0.conv2",
                      "layer1.0.bn2", "layer1.0.relu"]
    row = page.evaluate("document.querySelector('.row[data-path=\"layer1.0.conv1\"]').textContent")
    assert "Conv2d" in row and "[1, 64, 16, 16]" in row and "float32" in row
    assert "resnet.py:" in row
    # The residual add reads the block's input and bn2: two edges end at it.
    assert page.evaluate("""(() => {
        const row = document.querySelector('.row[data-name="add_out"]');
        const nest = row.closest('.nest'); const i = nest._rows.indexOf(row);
        return nest.firstChild.querySelectorAll('path[data-t="' + i + '"]').length; })()""") == 2
    # The details panel: target, location and the source line.
    details = page.evaluate("document.getElementById('tab-node').textContent")
    assert "torchvision.models.resnet.BasicBlock" in details
    click(page, "layer1")  # closes it: its rows leave the DOM
    assert not any(p.startswith("layer1.") for p in paths(page))
    assert page.errors == [] and page.evaluate("window.__viewErrors") == []


def test_search_reveals_a_hit(page):
    found = page.evaluate("""(() => {
        const box = document.getElementById('search');
        box.value = 'layer3.1.conv2';
        box.dispatchEvent(new Event('input'));
        box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}));
        const row = document.querySelector('.row.current');
        return row && [row.dataset.path, row.classList.contains('hit'),
                       document.getElementById('hits').textContent,
                       document.getElementById('tab-node').textContent];
    })()""")
    assert found is not None
    assert found[0] == "layer3.1.conv2" and found[1] and found[2] == "1/1"
    assert "out = self.conv2(out)" in found[3]
    # The groups on the way were opened.
    assert {"layer3", "layer3.1", "layer3.1.conv2"} <= set(paths(page))
    # By target: every BatchNorm2d is a hit.
    count = page.evaluate("""(() => {
        const box = document.getElementById('search');
        box.value = 'BatchNorm2d';
        box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}));
        return document.querySelectorAll('#tab-results li').length; })()""")
    assert count == 20
    assert page.errors == [] and page.evaluate("window.__viewErrors") == []


def test_summary_panel_and_expand_all(page):
    rows = page.evaluate("Array.from(document.querySelectorAll('#tab-summary tr.srow'))"
                         ".map(r => [r.dataset.path, r.children[3].textContent])")
    assert rows[0] == ["", "11,689,512"]
    assert ["layer1", "147,968"] in rows
    page.evaluate("document.getElementById('expand-all').click()")
    assert page.evaluate("document.querySelectorAll('.row[data-id]').length") == page.evaluate(
        "window.__viewReady.instances") - 1
    page.evaluate("document.getElementById('collapse-all').click()")
    assert len(paths(page)) == 10
    assert page.errors == [] and page.evaluate("window.__viewErrors") == []
