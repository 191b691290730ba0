"""Graph pictures (docs/python.md, "Pictures"): m.to_dot / m.draw render
through Graphviz, and the SVG has the structure the options ask for."""
import shutil
import xml.etree.ElementTree as ET

import pytest
import torch
import torchvision

import traced

pytestmark = pytest.mark.skipif(shutil.which("dot") is None,
                                reason="Graphviz's dot is installed by the Makefile")

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def resnet18():
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    return traced.trace(model, torch.randn(1, 3, 224, 224))


def svg_groups(path):
    """{class: [(title, [texts])]} of the SVG's <g> groups."""
    groups = {}
    for g in ET.parse(path).getroot().iter(f"{SVG}g"):
        title = g.find(f"{SVG}title")
        texts = ["".join(t.itertext()) for t in g.iter(f"{SVG}text")]
        groups.setdefault(g.get("class"), []).append(
            (title.text if title is not None else None, texts))
    return groups


def cluster_labels(groups):
    return sorted(texts[0] for _, texts in groups.get("cluster", []))


def test_resnet18_depth_1_2_and_all(resnet18, tmp_path):
    # depth 1: the root graph, layer1..4 as single boxes.
    g1 = svg_groups(resnet18.draw(tmp_path / "d1.svg", depth=1))
    assert "cluster" not in g1
    boxes = {" ".join(texts) for _, texts in g1["node"]}
    assert {"layer1 Sequential", "layer4 Sequential", "conv1 Conv2d",
            "fc Linear", "x", "output"} <= boxes
    # depth 2: the four Sequentials are clusters of BasicBlock boxes.
    g2 = svg_groups(resnet18.draw(tmp_path / "d2.svg", depth=2))
    assert cluster_labels(g2) == ["layer1: Sequential", "layer2: Sequential",
                                  "layer3: Sequential", "layer4: Sequential"]
    blocks = [texts for _, texts in g2["node"] if texts[-1] == "BasicBlock"]
    assert len(blocks) == 8
    # every level: 4 Sequentials, 8 BasicBlocks, 3 downsample Sequentials.
    g = svg_groups(resnet18.draw(tmp_path / "all.svg"))
    labels = cluster_labels(g)
    assert len(labels) == 15
    assert labels.count("layer2.0.downsample: Sequential") == 1
    assert sum(label.endswith(": BasicBlock") for label in labels) == 8
    convs = [texts for _, texts in g["node"] if texts[-1] == "Conv2d"]
    assert len(convs) == 20
    # Edges carry shape and dtype; the residual adds have two inputs.
    edge_labels = [" ".join(texts) for _, texts in g["edge"]]
    assert "[1, 3, 224, 224] float32" in edge_labels
    assert "[1, 1000] float32" in edge_labels
    adds = [title for title, texts in g["node"] if texts == ["add"]]
    assert len(adds) == 8
    into = {}
    for title, _ in g["edge"]:
        src, dst = title.split("->")
        into.setdefault(dst, []).append(src)
    assert all(len(into[a]) == 2 for a in adds)


def test_params_flag(tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval()
    m = traced.trace(model, torch.randn(2, 4))
    hidden = m.to_dot()
    assert "weight" not in hidden
    shown = m.to_dot(params=True)
    assert "weight [3, 4] float32" in shown and "bias [3] float32" in shown
    # After flattening, parameters are reads in the root graph: nodes only
    # with params=True.
    m.run_passes("traced-flatten")
    plain = svg_groups(m.draw(tmp_path / "flat.svg"))
    with_params = svg_groups(m.draw(tmp_path / "flat_params.svg", params=True))
    assert len(with_params["node"]) == len(plain["node"]) + 2
    names = {texts[0] for _, texts in with_params["node"]}
    assert {"0.weight", "0.bias"} <= names, names


def test_formats(resnet18, tmp_path):
    png = resnet18.draw(tmp_path / "m.png", depth=1)
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    pdf = resnet18.draw(tmp_path / "m.pdf", depth=1)
    assert open(pdf, "rb").read(5) == b"%PDF-"
    text = open(resnet18.draw(tmp_path / "m.dot", depth=1)).read()
    assert text == resnet18.to_dot(depth=1) and text.startswith('digraph "ResNet"')
    out = resnet18.draw(tmp_path / "picture", depth=1, format="svg")
    assert ET.parse(out).getroot().tag == f"{SVG}svg"


@pytest.mark.parametrize("kwargs, message", [
    ({"depth": 0}, "depth must be a positive int"),
    ({"depth": -2}, "depth must be a positive int"),
    ({"depth": True}, "depth must be a positive int"),
    ({"format": "gif"}, "unknown picture format 'gif'"),
])
def test_bad_options(resnet18, tmp_path, kwargs, message):
    with pytest.raises(traced.Error, match=message):
        resnet18.draw(tmp_path / "m.svg", **kwargs)


def test_unknown_suffix(resnet18, tmp_path):
    with pytest.raises(traced.Error, match="cannot tell the picture format"):
        resnet18.draw(tmp_path / "m.bmp")


def test_no_root():
    m = traced.parse('traced.module @Leaf class "torch.nn.ReLU" {\n}\n')
    with pytest.raises(traced.Error, match="no root traced.module to draw"):
        m.to_dot()
