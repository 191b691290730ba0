"""Module.summary(), print_tabular() and Node.shape/dtype."""
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import traced
from models import SimpleModule, real_models


def torch_reference(model, x):
    """Per-module call order, classes, output shapes and MACs from torch
    itself (forward hooks), independent of the traced IR: a Conv (any
    dims, groups) costs out.numel() * in_channels / groups * prod(kernel),
    a Linear out.numel() * in_features."""
    calls, macs = [], {}
    names = {m: n for n, m in model.named_modules()}
    handles = []

    def pre(module, inputs):
        calls.append(names[module])

    def post(module, inputs, out):
        if isinstance(module, nn.modules.conv._ConvNd) and not module.transposed:
            cost = out.numel() * module.in_channels // module.groups * \
                math.prod(module.kernel_size)
        elif isinstance(module, nn.Linear):
            cost = out.numel() * module.in_features
        else:
            cost = 0
        macs.setdefault(names[module], []).append((tuple(out.shape), cost))

    for m in model.modules():
        if m is not model:
            handles.append(m.register_forward_pre_hook(pre))
            handles.append(m.register_forward_hook(post))
    with torch.no_grad():
        model(x)
    for h in handles:
        h.remove()
    return calls, macs


@pytest.fixture(scope="module")
def resnet18():
    model, x = real_models()["resnet18"]
    return model, x, traced.trace(model, x)


def test_resnet18_totals(resnet18):
    model, x, tm = resnet18
    s = tm.summary(print=False)
    assert s.total_params == 11_689_512
    assert s.total_params == sum(p.numel() for p in model.parameters())
    assert s.total_param_bytes == 4 * 11_689_512
    _, macs = torch_reference(model, x)
    expected = sum(cost for calls in macs.values() for _, cost in calls)
    assert s.total_macs == expected == 1_814_073_344   # 1.81 GMACs
    assert s.total_flops == 2 * expected
    assert s.input_shapes == [(1, 3, 224, 224)] and s.input_dtypes == ["float32"]


@pytest.mark.parametrize("mode", ["symbolic", "concrete"])
def test_rows_match_the_module_tree(mode):
    model, x = real_models()["resnet18"]
    tm = traced.trace(model, x, mode=mode)
    rows = tm.summary(print=False).rows
    calls, macs = torch_reference(model, x)
    root = rows[0]
    assert (root.path, root.depth, root.class_name) == \
        ("", 0, "torchvision.models.resnet.ResNet")
    # One row per module call, in torch's call order, depth = path length.
    assert [r.path for r in rows[1:]] == calls
    modules = dict(model.named_modules())
    seen = {}
    for r in rows[1:]:
        m = modules[r.path]
        assert r.depth == r.path.count(".") + 1
        assert r.class_name == f"{type(m).__module__}.{type(m).__qualname__}"
        assert r.params == sum(p.numel() for p in m.parameters())
        shape, cost = macs[r.path][seen.get(r.path, 0)]
        seen[r.path] = seen.get(r.path, 0) + 1
        assert r.output_shapes == [shape] and r.output_dtypes == ["float32"]
        if r.is_leaf:
            assert r.macs == cost, r.path
    # A traced submodule's MACs are those of everything it runs.
    layer1 = next(r for r in rows if r.path == "layer1")
    assert layer1.graph == "forward" and not layer1.is_leaf
    assert layer1.macs == sum(r.macs for r in rows
                              if r.path.startswith("layer1.") and r.is_leaf)


def test_grouped_and_depthwise_convolutions():
    model, x = real_models()["mobilenet_v2"]
    s = traced.trace(model, x).summary(print=False)
    _, macs = torch_reference(model, x)
    assert s.total_macs == sum(c for calls in macs.values() for _, c in calls)
    assert s.total_params == sum(p.numel() for p in model.parameters())


class Contractions(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(5, 4))
        self.cw = nn.Parameter(torch.randn(6, 2, 3))     # conv1d, groups=2
        self.tw = nn.Parameter(torch.randn(4, 3, 3))     # conv_transpose1d
        self.conv3d = nn.Conv3d(2, 4, (1, 2, 3), groups=2)
        self.deconv = nn.ConvTranspose2d(4, 6, 3)

    def forward(self, x, y, v):
        a = F.linear(x, self.w)                 # [4, 5] * 4
        b = torch.matmul(x, y) + x @ y + x.matmul(y) + torch.mm(x, y)  # 4 x 64
        c = torch.bmm(x[None], y[None])         # 64
        d = torch.addmm(x, x, y)                # 64
        e = torch.einsum("ij,jk->ik", x, y)     # 64
        f = F.conv1d(x[None], self.cw, groups=2)    # out [1, 6, 2] * 2*3
        g = F.conv_transpose1d(x[None], self.tw)    # in [1, 4, 4] * 3*3
        h = self.conv3d(v)                      # out [1, 4, 3, 2, 2] * 1*1*2*3
        k = self.deconv(x[None, None].expand(1, 4, 4, 4))  # in 64 * 6*3*3
        return a, b, c, d, e, f, g, h, k


@pytest.mark.parametrize("mode", ["symbolic", "concrete"])
def test_contraction_rules(mode):
    x, y, v = torch.randn(4, 4), torch.randn(4, 4), torch.randn(1, 2, 3, 3, 4)
    s = traced.trace(Contractions(), x, y, v, mode=mode).summary(print=False)
    expected = {"conv3d": 4 * 3 * 2 * 2 * 6, "deconv": 64 * 6 * 9}
    assert {r.path: r.macs for r in s.rows[1:]} == expected
    functional = 20 * 4 + 4 * 64 + 64 + 64 + 64 + 12 * 6 + 16 * 9
    assert s.total_macs == functional + sum(expected.values())


def test_attention_macs():
    model, x = real_models()["transformer_encoder_layer"]   # E=64, ff=128
    s = traced.trace(model, x).summary(print=False)
    n, l, e = 2, 7, 64
    attention = n * (4 * l * e * e + 2 * l * l * e)
    feedforward = 2 * n * l * 64 * 128
    assert s.total_macs == attention + feedforward
    rows = {r.path: r for r in s.rows}
    assert rows["self_attn"].macs == attention
    assert rows["self_attn"].output_shapes[1] is None   # (output, None)
    assert s.total_params == sum(p.numel() for p in model.parameters())


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.b.weight = self.a.weight          # tied weight
        self.c = self.a                        # shared module
        self.d = nn.Linear(4, 4)
        self.e = nn.Linear(4, 4)
        for m in (self.d, self.e):             # equal bytes, not tied
            nn.init.zeros_(m.weight)
            nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.a(x) + self.b(x) + self.c(x) + self.d(x) + self.e(x)


@pytest.mark.parametrize("mode", ["symbolic", "concrete"])
def test_tied_and_shared_parameters_count_once(mode, tmp_path):
    model = Tied()
    tm = traced.trace(model, torch.randn(2, 4), mode=mode)
    s = tm.summary(print=False)
    assert s.total_params == sum(p.numel() for p in model.parameters()) == 4 * 20 - 16
    # `c` is `a` (torch's named_modules says "a" too); tracers call it as a.
    assert [r.path for r in s.rows[1:]] == ["a", "b", "a", "d", "e"]
    assert [r.path for r in s.rows[1:]] == torch_reference(model, torch.randn(2, 4))[0]
    assert [r.params for r in s.rows[1:]] == [20] * 5
    assert s.total_macs == 5 * 2 * 16
    # The tie survives text and bytecode (one dense_resource blob).
    for suffix in ("mlir", "mlirbc"):
        tm.save(tmp_path / f"t.{suffix}")
        assert traced.load(tmp_path / f"t.{suffix}").summary(
            print=False).total_params == 64


def test_summary_object_prints_unless_told(capsys, resnet18):
    _, _, tm = resnet18
    s = tm.summary()
    printed = capsys.readouterr().out
    assert printed == str(s) + "\n"
    assert "Total params: 11,689,512" in printed
    assert "Total MACs: 1,814,073,344" in printed
    assert tm.summary(print=False) is not None
    assert capsys.readouterr().out == ""
    lines = str(s).splitlines()
    assert lines[1].split() == ["Module", "Class", "Output", "shape", "Dtype",
                                "Params", "MACs"]
    assert "    layer1.0" in str(s)            # indented by depth
    assert any(l.startswith("      layer1.0.conv1 ") for l in lines)
    shallow = s.table(depth=1)
    assert "layer1.0" not in shallow and "  layer1 " in shallow
    dicts = s.as_dicts()
    assert dicts[1]["path"] == "conv1" and dicts[1]["macs"] == 118_013_952
    assert len(dicts) == len(s.rows) == 76
    assert "11,689,512 parameters" in repr(s)


def test_print_tabular_has_fx_columns_and_a_row_per_node(capsys, resnet18):
    _, _, tm = resnet18
    tm.print_tabular()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["opcode", "name", "target", "args", "kwargs"]
    assert set(lines[1]) == {"-", " "}
    body = lines[2:]
    graph = tm.graph
    nodes = list(graph.nodes)
    # A row per fx node: the placeholder, a call_module per module call
    # (the IR's getattr of the module is folded into it, as fx has no node
    # for it), the output.
    assert len(body) == len(nodes) == 1 + 11 + 1
    assert [l.split()[:2] for l in body] == [[n.op, n.name] for n in nodes]
    assert body[0].split()[:2] == ["placeholder", "x"]
    assert body[1].split() == ["call_module", "conv1_out", "conv1", "(x,)", "{}"]
    assert body[-1].split() == ["output", "output", "output", "(fc_out,)", "{}"]
    assert "get_attr" not in "\n".join(body)
    # Positional arguments are args, as torch.fx shows `torch.flatten(x, 1)`.
    flatten = next(l for l in body if "flatten_out" in l.split()[1:2])
    assert flatten.split() == ["call_function", "flatten_out", "torch.flatten",
                               "(avgpool_out,", "1)", "{}"]
    # Tensor methods take their receiver as args[0], as in torch.fx.
    tm2 = traced.trace(SimpleModule(), torch.zeros(3, 4), mode="concrete")
    out = []
    tm2.graph.print_tabular(file=type("F", (), {"write": lambda self, t: out.append(t)})())
    rows = "".join(out).splitlines()
    assert rows[4].split() == ["call_method", "add_out", "add", "(x,", "const_tensor)", "{}"]
    assert rows[3].split()[:3] == ["constant", "const_tensor", "tensor([1],"]


class Kinds(nn.Module):
    def forward(self, x, xs, mask=None):
        n = x.size(0)
        y = x.view(n, -1).to(torch.float64)
        parts = torch.split(x, 2, 1)
        return (y.sum(), y > 0, x.to(torch.bfloat16), xs[0].to(torch.int8), n,
                parts[1])


def test_node_shape_and_dtype_for_every_value_kind():
    x = torch.randn(3, 4)
    tm = traced.trace(Kinds(), x, [x, x], mode="symbolic")
    graph = tm.graph
    by_type = {}
    for node in graph.nodes():
        by_type.setdefault(str(node.type).split("<")[0], []).append(node)
        if str(node.type).startswith("tensor<"):
            assert node.shape is not None and node.dtype is not None
            assert str(node.type).startswith("tensor<" + "".join(
                f"{d}x" for d in node.shape))
        else:
            assert node.shape is None and node.dtype is None, node
    self_node, x_node, xs_node, mask_node = graph.inputs
    assert (self_node.shape, self_node.dtype) == (None, None)      # module
    assert (x_node.shape, x_node.dtype) == ((3, 4), "float32")
    assert str(xs_node.type).startswith("!traced.list") and xs_node.shape is None
    assert str(mask_node.type) == "!traced.none" and mask_node.dtype is None
    outputs = graph.outputs
    assert [(o.shape, o.dtype) for o in outputs] == [
        ((), "float64"), ((3, 4), "bool"), ((3, 4), "bfloat16"),
        ((3, 4), "int8"), (None, None), ((3, 2), "float32")]
    assert str(outputs[-2].type) == "i64"  # a Python int stays a number
    assert {"!traced.module", "!traced.list", "!traced.none", "i64", "tuple",
            "tensor"} <= set(by_type)
    assert all(n.shape is None for n in by_type["tuple"])   # split's result
    for dtype in (torch.float16, torch.uint8, torch.int16, torch.int32, torch.int64):
        t = traced.trace(nn.Identity(), torch.ones(2, dtype=dtype)).graph.inputs[1]
        assert t.dtype == str(dtype).split(".")[1] and t.shape == (2,)
