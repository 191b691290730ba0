"""The torch.fx API beside TracedModule's (docs/python.md, "For torch.fx
users"): graph.nodes as fx nodes, Node.op/target/args/kwargs/users,
replace_all_uses_with, lint, m(x), the nn.Module introspection
(parameters, state_dict, named_modules), queries that match the op
library's aliases, and replace_node refusing what it cannot do."""
import operator
import pathlib
import re

import numpy as np
import pytest
import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
import torchvision

import traced
from models import BoxHead, SimpleModule

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


class Small(nn.Module):
    """Flat (no traced submodules), so that torch.fx's graph and the root
    graph have the same nodes."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 4)
        self.scale = nn.Parameter(torch.full((1,), 2.0))

    def forward(self, x):
        y = F.relu(self.bn(self.conv(x))) * self.scale
        y = torch.flatten(F.adaptive_avg_pool2d(y, 1), 1)
        return self.fc(y).softmax(-1)


@pytest.fixture(scope="module")
def small():
    torch.manual_seed(0)
    model = Small().eval()
    x = torch.randn(2, 3, 8, 8)
    return model, x, traced.trace(model, x, mode="symbolic")


@pytest.fixture(scope="module")
def resnet18():
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    with torch.no_grad():  # statistics away from their defaults
        for bn in (m for m in model.modules() if isinstance(m, nn.BatchNorm2d)):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.uniform_(0.5, 1.5)
    x = torch.randn(1, 3, 64, 64)
    return model, x, traced.trace(model, x)


# -- graph.nodes -----------------------------------------------------------------------

def test_graph_nodes_are_torch_fx_nodes(small):
    model, x, m = small
    fx_nodes = list(torch.fx.symbolic_trace(model).graph.nodes)
    nodes = list(m.graph.nodes)
    # The same operations as torch.fx's graph, in the same order, with fx's
    # opcodes and targets (functions as the Python objects, modules and
    # attributes as paths, methods as names).
    assert [(n.op, n.target) for n in nodes] == [(n.op, n.target) for n in fx_nodes]
    assert [n.op for n in nodes] == [
        "placeholder", "call_module", "call_module", "call_function", "get_attr",
        "call_function", "call_function", "call_function", "call_module",
        "call_method", "output"]
    # Arguments as Python passes them, nodes as FxNodes.
    by_name = {n.name: n for n in nodes}
    flatten = next(n for n in nodes if n.target is torch.flatten)
    pool = next(n for n in nodes if n.target is F.adaptive_avg_pool2d)
    assert flatten.args == (pool, 1) and flatten.kwargs == {}
    fx_flatten = next(n for n in fx_nodes if n.target is torch.flatten)
    assert len(fx_flatten.args) == 2 and fx_flatten.args[1] == 1
    mul = next(n for n in nodes if n.target is operator.mul)
    assert [a.op for a in mul.args] == ["call_function", "get_attr"]
    assert mul.args[1].target == "scale" and mul.args[0].target is F.relu
    softmax = next(n for n in nodes if n.op == "call_method")
    assert softmax.target == "softmax" and softmax.args[0].target == "fc"
    assert softmax.args[1:] + tuple(softmax.kwargs.values()) == (-1,)
    conv = by_name["conv_out"]
    assert conv.op == "call_module" and conv.args == (nodes[0],) and conv.kwargs == {}
    output = nodes[-1]
    assert output.op == "output" and output.name == "output"
    assert output.args == (softmax,)
    # users (fx's dict), all_input_nodes, prev/next.
    assert list(conv.users) == [by_name["bn_out"]] and conv.users[by_name["bn_out"]] is None
    assert mul.all_input_nodes == list(mul.args)
    assert conv.prev == nodes[0] and conv.next == by_name["bn_out"]
    assert nodes[0].prev is None and output.next is None
    assert len(m.graph.nodes) == len(nodes) and conv in m.graph.nodes
    assert list(reversed(m.graph.nodes))[0] == output
    # Placeholders; shapes and dtypes as recorded.
    assert nodes[0].target == "x" and nodes[0].args == () and nodes[0].shape == (2, 3, 8, 8)
    assert conv.shape == (2, 8, 8, 8) and conv.dtype == "float32"


def test_both_vocabularies_lead_to_each_other(small):
    _, _, m = small
    graph = m.graph
    # TracedModule's graph.nodes() (values) is the same call as before.
    values = graph.nodes()
    assert isinstance(values, traced.ExprList)
    assert [v.name for v in values][:3] == ["self", "x", "conv"]
    assert all(isinstance(v, traced.Node) for v in values)
    for node in graph.nodes:
        assert isinstance(node, traced.FxNode)
        if node.op == "placeholder":
            assert node.expr is None and node.result == graph.inputs[1]
        elif node.op == "output":
            assert node.result is None and node.expr.kind == "Output"
        else:
            assert node.expr.fx_node == node
            assert node.result.fx_node == node
            assert node.result in node.expr.outputs
    relu = graph.get_function_by_type(F.relu).as_unique()
    assert relu.fx_node.target is F.relu and relu.target == "torch.nn.functional.relu"
    assert relu.fx_node.target_name == "torch.nn.functional.relu"


def test_module_getattr_is_folded_unless_used_otherwise():
    class Chain(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = nn.Sequential(nn.Linear(4, 4), nn.ReLU())

        def forward(self, x):
            return self.block[0](x) + self.block[0].weight.sum()

    m = traced.trace(Chain(), torch.randn(2, 4), mode="concrete")
    nodes = list(m.graph.nodes)
    calls = [n for n in nodes if n.op == "call_module"]
    assert [n.target for n in calls] == ["block.0"]
    weight = next(n for n in nodes if n.op == "get_attr")
    assert weight.target == "block.0.weight"
    assert not any(n.op == "get_attr" and n.target in ("block", "block.0") for n in nodes)


# -- editing in fx's vocabulary ----------------------------------------------------------

def test_fx_style_insert_and_replace_all_uses_with(small):
    model, x, original = small
    m = original.clone()
    graph = m.graph
    relu = next(n for n in graph.nodes if n.target is F.relu)
    (user,) = relu.users
    with graph.inserting_after(relu):
        gelu = graph.call_function(F.gelu, (relu,))
        doubled = graph.call_method("mul", (gelu, 2.0))
    assert gelu.prev == relu and doubled.prev == gelu      # in creation order
    assert gelu.op == "call_function" and gelu.target is F.gelu
    assert gelu.args == (relu,) and doubled.args == (gelu, 2.0)
    changed = relu.replace_all_uses_with(doubled)
    # fx's idiom needs `new.args = (relu,)` afterwards; here the users that
    # the replacement is computed from keep the old node.
    assert changed == [user] and gelu.args == (relu,)
    assert list(relu.users) == [gelu] and user.args[0] == doubled
    graph.lint()
    # As fx code writes it: `m.graph` is a new Graph object on each access,
    # and the insertion point is the graph's.
    with m.graph.inserting_before(doubled):
        tanh = m.graph.call_function(torch.tanh, (gelu,))
    assert tanh.next == doubled
    m.graph.erase_node(tanh)
    with torch.no_grad():
        y = F.gelu(F.relu(model.bn(model.conv(x)))) * 2.0 * model.scale
        expected = model.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1)).softmax(-1)
    assert torch.allclose(m(x), expected, atol=1e-6)


def test_fx_style_create_node_get_attr_call_module_and_erase_node(small):
    model, x, original = small
    m = original.clone()
    graph = m.graph
    nodes = list(graph.nodes)
    output = nodes[-1]
    softmax = output.args[0]
    with graph.inserting_before(output):
        scale = graph.get_attr("scale")
        fc = graph.create_node("call_module", "fc", (softmax.args[0].args[0],))
        plus = graph.create_node("call_function", operator.add, (softmax, scale))
    assert (scale.op, scale.target) == ("get_attr", "scale")
    assert (fc.op, fc.target) == ("call_module", "fc")
    assert plus.target is operator.add and plus.args == (softmax, scale)
    softmax.replace_all_uses_with(plus)
    assert output.args == (plus,)
    # A node that is still used cannot go; an unused call_module goes with
    # the getattr of its module.
    with pytest.raises(traced.SurgeryError, match="still used"):
        graph.erase_node(softmax)
    before = str(graph).count('getattr(self, "fc")')
    graph.erase_node(fc)
    assert str(graph).count('getattr(self, "fc")') == before - 1
    with pytest.raises(traced.SurgeryError, match="inputs are fixed"):
        graph.erase_node(nodes[0])
    with pytest.raises(traced.SurgeryError, match="output"):
        graph.erase_node(output)
    with pytest.raises(traced.SurgeryError, match="placeholder"):
        graph.create_node("placeholder", "y")
    with pytest.raises(traced.SurgeryError, match="no attribute 'nothing'"):
        graph.get_attr("nothing")
    graph.lint()
    with torch.no_grad():
        expected = model(x) + model.scale
    assert torch.allclose(m(x), expected, atol=1e-6)
    assert graph.eliminate_dead_code() is False


# -- replace_node refuses what it cannot do -------------------------------------------

def test_replace_node_refuses_a_replacement_defined_after_the_users():
    m = traced.trace(SimpleModule().eval(), torch.zeros(3, 4))
    graph = m.graph
    relu = graph.get_function_by_type(F.relu).as_unique().outputs[0]
    with graph.insert_exprs() as b:  # before the output: after relu's user
        later = b.call_function(torch.sigmoid, graph.inputs[1])
    text = str(m)
    with pytest.raises(traced.SurgeryError, match=r"'sigmoid_out' is defined at %\d+, "
                       r"after %6, which use 'relu_out'"):
        graph.replace_node({relu: later})
    with pytest.raises(traced.SurgeryError, match="after"):
        relu.fx_node.replace_all_uses_with(later.fx_node)
    assert isinstance(traced.SurgeryError("x"), traced.Error)
    assert str(m) == text                      # nothing changed
    # Only users that the replacement is computed from: nothing to replace.
    (add,) = relu.users
    add_out = add.outputs[0]
    with pytest.raises(traced.SurgeryError, match="only users .* are what"):
        graph.replace_node({relu: add_out})
    with pytest.raises(traced.SurgeryError, match="with itself"):
        graph.replace_node({relu: relu})
    with pytest.raises(traced.SurgeryError, match="of type"):
        graph.replace_node({relu: graph.inputs[0]})
    # Nodes of two graphs.
    inner = traced.trace(nn.Sequential(nn.Sequential(nn.ReLU())), torch.zeros(3, 4))
    outer_x = inner.graph.inputs[1]
    inner_x = inner.get_submodule("0").graph.inputs[1]
    with pytest.raises(traced.SurgeryError, match="two graphs"):
        inner.graph.replace_node({outer_x: inner_x})
    inner.verify()
    # What it can do still works, and says what changed.
    with graph.insert_exprs(relu.expr) as b:
        gelu = b.call_function(F.gelu, relu)
    assert graph.replace_node({relu: gelu}) == [add]
    m.verify()


def test_an_expr_created_after_a_removal_is_usable():
    # A new op may be allocated where a removed one was: handles remember
    # which op they were made for (the bindings count erasures by address).
    m = traced.trace(SimpleModule().eval(), torch.zeros(3, 4))
    graph = m.graph
    with graph.insert_exprs() as b:
        sigmoid = b.call_function(torch.sigmoid, graph.inputs[1])
    old = sigmoid.expr
    graph.compile()                            # removes the unused sigmoid
    with graph.insert_exprs() as b:
        tanh = b.call_function(torch.tanh, graph.inputs[1])
    assert tanh.shape == (3, 4)
    with pytest.raises(traced.Error, match="removed from its graph"):
        old.target                             # the old handle stays stale


def test_lint_raises_on_a_broken_graph():
    m = traced.trace(nn.Sequential(nn.Sequential(nn.ReLU())), torch.zeros(3, 4))
    m.graph.lint()
    # Below the API (which refuses this): a use of another graph's input.
    outer_x = m.graph.inputs[1]
    inner_x = m.get_submodule("0").graph.inputs[1]
    outer_x._value.replace_all_uses_with(inner_x._value)
    with pytest.raises(traced.VerifyError, match="defined outside the region"):
        m.graph.lint()


# -- calling and introspecting the module ------------------------------------------------

def test_calling_the_module_runs_the_interpreter(small):
    model, x, m = small
    with torch.no_grad():
        expected = model(x)
    out = m(x)
    assert isinstance(out, torch.Tensor) and torch.allclose(out, expected, atol=1e-6)
    out = m(x.numpy())
    assert isinstance(out, np.ndarray) and np.allclose(out, expected.numpy(), atol=1e-6)
    assert torch.allclose(m(x=x), expected, atol=1e-6)
    assert torch.allclose(m.forward(x), expected, atol=1e-6)
    with pytest.raises(traced.InterpretError, match="no input 'y'"):
        m(y=x)
    with pytest.raises(traced.InterpretError, match="missing input 'x'"):
        m()

    class TwoOut(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 4), nn.Tanh())

        def forward(self, x, mask=None):
            y = self.body(x)
            return y, y.sum()

    model2 = TwoOut().eval()
    a = torch.randn(2, 4)
    m2 = traced.trace(model2, a)
    y, total = m2(a)                      # a tuple, mask=None filled in
    with torch.no_grad():
        assert torch.allclose(y, model2(a)[0], atol=1e-6)
        # A traced submodule runs its own graph.
        assert torch.allclose(m2.body(a), model2.body(a), atol=1e-6)
    assert torch.allclose(total, y.sum(), atol=1e-5)
    with pytest.raises(traced.InterpretError, match="no forward graph"):
        m2.get_submodule("body.0")(a)


def test_parameters_buffers_state_dict_and_modules_match_torch(resnet18):
    model, x, m = resnet18
    theirs = model.state_dict()
    ours = m.state_dict()
    assert list(ours) == list(theirs)
    assert "layer1.0.conv1.weight" in ours and "bn1.num_batches_tracked" in ours
    for key, value in theirs.items():
        assert ours[key].dtype == value.dtype and torch.equal(ours[key], value), key
    assert [k for k, _ in m.named_parameters()] == [k for k, _ in model.named_parameters()]
    assert sum(p.numel() for p in m.parameters()) == \
        sum(p.numel() for p in model.parameters()) == 11_689_512
    assert [k for k, _ in m.named_buffers()] == [k for k, _ in model.named_buffers()]
    assert len(m.buffers()) == len(list(model.buffers()))
    assert [k for k, _ in m.named_modules()] == [k for k, _ in model.named_modules()]
    assert len(m.modules()) == len(list(model.modules())) == 68
    assert [v.class_name for v in m.modules()][:2] == [
        "torchvision.models.resnet.ResNet", "torch.nn.modules.conv.Conv2d"]
    assert [k for k, _ in m.named_children()] == [k for k, _ in model.named_children()]
    assert [k for k, _ in m.layer1.named_parameters(prefix="layer1")] == \
        [k for k, _ in model.layer1.named_parameters(prefix="layer1")]
    assert list(m.layer2.state_dict()) == list(model.layer2.state_dict())
    assert [k for k, _ in m.named_parameters(recurse=False)] == []
    assert m.get_submodule("layer2.0.downsample.0").class_name == \
        "torch.nn.modules.conv.Conv2d"
    with pytest.raises(AttributeError):
        m.get_submodule("layer9")
    # A fresh torch model takes the state_dict, strictly.
    fresh = torchvision.models.resnet18().eval()
    fresh.load_state_dict(ours)
    with torch.no_grad():
        assert torch.allclose(fresh(x), model(x), atol=1e-5)
    # After traced-flatten the parameters live on the root under the same
    # names (parameters first, then buffers).
    flat = m.clone()
    flat.run_passes("traced-flatten")
    assert set(flat.state_dict()) == set(theirs)


def test_load_state_dict_writes_the_ir(small):
    model, x, original = small
    m = original.clone()
    other = Small().eval()
    with torch.no_grad():
        other.bn.running_mean.uniform_(-1, 1)
    result = m.load_state_dict(other.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    with torch.no_grad():
        assert torch.allclose(m(x), other(x), atol=1e-6)
    assert np.array_equal(m.bn.running_mean, other.bn.running_mean.numpy())
    with pytest.raises(traced.Error, match="unexpected keys \\['nothing'\\]"):
        m.load_state_dict({**other.state_dict(), "nothing": torch.zeros(1)})
    # Cast to the declared dtype, as torch's copy_ does.
    m.load_state_dict({"scale": torch.tensor([3.0], dtype=torch.float64)}, strict=False)
    assert m.scale.dtype == np.float32 and m.scale[0] == 3.0


def test_tied_weights_count_once_as_in_torch():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 4)
            self.head = nn.Linear(4, 10, bias=False)
            self.head.weight = self.emb.weight

        def forward(self, ids):
            return self.head(self.emb(ids))

    model = Tied().eval()
    m = traced.trace(model, torch.tensor([[1, 2, 3]]))
    assert [k for k, _ in m.named_parameters()] == [k for k, _ in model.named_parameters()]
    assert list(m.state_dict()) == list(model.state_dict())


# -- queries match the op library's aliases -----------------------------------------------

class Aliases(nn.Module):
    def forward(self, x):
        a = F.relu(x)
        b = torch.relu(x)
        c = x.relu()
        d = (x + 1).relu_()
        return a * b, c.mul(d), torch.mul(a, 2)


@pytest.mark.parametrize("mode", ["symbolic", "concrete"])
def test_queries_match_every_alias(mode):
    m = traced.trace(Aliases(), torch.randn(3, 4), mode=mode)
    graph = m.graph
    for query in ("__mul__", "mul", "Tensor.mul", torch.Tensor.mul, torch.Tensor.__mul__):
        assert len(graph.get_method_by_type(query)) == 3, query
    for query in (operator.mul, torch.mul, "torch.mul", "operator.mul"):
        assert len(graph.get_function_by_type(query)) == 3, query
    for query in (torch.relu, F.relu, "torch.nn.functional.relu", torch.relu_):
        assert len(graph.get_function_by_type(query)) == 4, query
    assert len(graph.get_method_by_type("relu")) == 4
    assert len(graph.get_method_by_type("__add__")) == 1
    assert len(graph.get_function_by_type(torch.sigmoid)) == 0
    # A target the library does not know matches its own spelling.
    with graph.insert_exprs() as b:
        b.call_function("mylib.op", graph.inputs[1], result_types=["tensor<3x4xf32>"])
    assert len(graph.get_function_by_type("mylib.op")) == 1
    assert len(graph.get_method_by_type("op")) == 0


@pytest.mark.parametrize("mode", ["auto", "symbolic", "concrete"])
def test_box_head_query_finds_the_product_in_every_mode(mode):
    head = BoxHead().eval()
    x = torch.randn(1, 8, 10, 10)
    m = traced.trace(head, x, mode=mode)
    graph = m.graph
    mul = graph.get_method_by_type("__mul__").as_unique()
    div = graph.get_method_by_type("__truediv__").as_unique()
    assert graph.get_function_by_type(operator.mul).as_unique() == mul
    assert graph.get_function_by_type(torch.div).as_unique() == div


def test_module_queries_take_aliases_and_subclasses(resnet18):
    _, _, m = resnet18
    graph = m.graph
    convs = graph.get_module_by_type(nn.Conv2d)
    assert len(convs) == 20
    for query in ("torch.nn.Conv2d", "torch.nn.modules.conv.Conv2d", "Conv2d"):
        assert graph.get_module_by_type(query) == convs
    assert len(graph.get_module_by_type(nn.modules.conv._ConvNd)) == 20
    assert len(graph.get_module_by_type(nn.Module, recursive=False)) == 10


# -- the docs --------------------------------------------------------------------------------

def _docs_block(after):
    text = DOCS.read_text()
    start = text.index(after)
    found = re.search(r"```python\n(.*?)```", text[start:], re.S)
    return found.group(1)


def test_docs_box_head_example_runs_as_written():
    code = _docs_block("Seed 001's box head")
    assert 'get_method_by_type("__mul__").as_unique()' in code
    exec(compile(code, str(DOCS), "exec"), {})


def test_docs_fx_example_runs_as_written():
    code = _docs_block("## For torch.fx users")
    assert "for node in graph.nodes" in code
    exec(compile(code, str(DOCS), "exec"), {})


def test_docs_have_no_merge_leftovers_and_a_separate_summary_header():
    text = DOCS.read_text()
    assert not re.search(r"^(=======|<<<<<<<.*|>>>>>>>.*)$", text, re.M)
    assert not re.search(r"=Module +Class", text)
