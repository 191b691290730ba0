"""Graph surgery with the TracedModule-style API (seeds 000 and 001)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import traced
from models import BoxHead, SimpleModule


def test_seed000_nodes_and_exprs():
    tm = traced.trace(SimpleModule().eval(), torch.zeros(3, 4))
    graph = tm.graph
    self_node, x = graph.inputs
    assert self_node.name == "self" and x.name == "x"
    linear_out = graph.outputs[0]
    assert linear_out.name == "linear_out"
    assert linear_out.shape == (3, 5) and linear_out.dtype == "float32"
    assert repr(linear_out.expr).startswith("%8:")
    assert linear_out.expr.kind == "CallMethod"
    assert linear_out.expr.target == "forward"
    # self's users are the two getattrs, as in seed 000.
    users = self_node.users
    assert [u.kind for u in users] == ["GetAttr", "GetAttr"]
    assert sorted(u.target for u in users) == ["linear", "param"]
    exprs = graph.exprs(recursive=False).as_dict()
    assert exprs[5].target == "param"
    assert [n.name for n in exprs[6].inputs] == ["relu_out", "param"]
    assert graph.get_node_by_name("relu_out").as_unique().expr.target == \
        "torch.nn.functional.relu"
    assert len(graph.get_function_by_type(F.relu).as_list()) == 1
    assert len(graph.get_module_by_type(torch.nn.Linear).as_list()) == 1
    assert graph.get_method_by_type("forward").as_unique() == linear_out.expr
    assert len(graph.nodes()) == 2 + 7


def test_seed001_absorb_scale_and_stride_into_conv():
    head = BoxHead().eval()
    x = torch.randn(1, 8, 10, 10)
    expected = head(x)
    tm = traced.trace(head, x)
    graph = tm.graph
    text = str(graph)
    assert ".__mul__" in text or "operator.mul" in text

    # Absorb scale and stride into the conv's weight and bias ...
    k = tm.scale / tm.stride
    tm.conv.weight *= k
    tm.conv.bias *= k
    # ... then remove the mul and the div from the graph. "__mul__" finds
    # the product however the tracer spelled it (operator.mul here).
    mul_expr = graph.get_method_by_type("__mul__").as_unique()
    assert graph.get_expr_by_id(mul_expr.id).as_unique() == mul_expr
    graph.replace_node({mul_expr.outputs[0]: mul_expr.inputs[0]})
    div_expr = graph.get_method_by_type("__truediv__").as_unique()
    graph.replace_node({div_expr.outputs[0]: div_expr.inputs[0]})
    removed = graph.compile()
    assert removed >= 2
    tm.verify()

    text = str(graph)
    assert "mul" not in text and "truediv" not in text
    assert "relu_out = torch.nn.functional.relu(input=conv_out)" in text
    assert "return relu_out" in text
    # The surgery is exact: a conv with the new weights and no scaling
    # computes what the original head did.
    conv = torch.nn.Conv2d(8, 4, 3, padding=1)
    conv.weight.data = torch.from_numpy(tm.conv.weight)
    conv.bias.data = torch.from_numpy(tm.conv.bias)
    assert torch.allclose(F.relu(conv(x)), expected, rtol=1e-5, atol=1e-6)
    # The edit survives a round trip.
    back = traced.parse(tm.to_bytecode())
    assert np.array_equal(back.conv.weight, tm.conv.weight)


def test_insert_exprs():
    tm = traced.trace(SimpleModule().eval(), torch.zeros(3, 4))
    graph = tm.graph
    relu = graph.get_function_by_type("torch.nn.functional.relu").as_unique()
    with graph.insert_exprs(relu) as b:
        doubled = b.call_method(relu.outputs[0], "__mul__", 2.0)
        gelu = b.call_function("torch.nn.functional.gelu", doubled,
                               approximate="tanh")
    assert doubled.shape == (3, 4) and gelu.shape == (3, 4)
    add = graph.get_node_by_name("add_out_0").as_unique().expr
    graph.replace_node({relu.outputs[0]: gelu})
    tm.verify()
    assert gelu in add.inputs
    text = str(graph)
    assert "mul_out = relu_out.__mul__(other=2.0)" in text
    assert 'gelu_out = torch.nn.functional.gelu(input=mul_out, approximate="tanh")' in text
    # A constant and a getattr can be inserted too.
    with graph.insert_exprs() as b:
        c = b.constant(np.ones((3, 5), np.float32))
        p = b.getattr(graph.inputs[0], "param")
    assert c.shape == (3, 5) and p.shape == (1,)
    assert graph.compile() == 2


def test_surgery_misuse_raises_errors():
    tm = traced.trace(SimpleModule().eval(), torch.zeros(3, 4))
    graph = tm.graph
    with pytest.raises(traced.Error, match="exactly one"):
        graph.get_expr_by_id(999).as_unique()
    relu = graph.get_function_by_type("torch.nn.functional.relu").as_unique()
    # Replacing a node by one of another type.
    with pytest.raises(traced.Error, match="cannot replace a node of type"):
        graph.replace_node({relu.outputs[0]: graph.inputs[0]})
    # Removing an expr whose outputs are used.
    with pytest.raises(traced.Error, match="still used"):
        relu._op.erase()
    # A call the op library rejects.
    with pytest.raises(traced.Error, match="takes 2 positional argument"):
        with graph.insert_exprs() as b:
            b.call_function("torch.nn.functional.relu", graph.inputs[1], 1, 2)
    # An unknown target needs its result types.
    with pytest.raises(traced.Error, match="cannot be inferred"):
        with graph.insert_exprs() as b:
            b.call_function("mylib.op", graph.inputs[1])
    with graph.insert_exprs() as b:
        out = b.call_function("mylib.op", graph.inputs[1],
                              result_types=["tensor<3x4xf32>"])
    assert out.shape == (3, 4)
    # Assigning a weight of the wrong shape.
    with pytest.raises(traced.Error, match="declared"):
        tm.linear.weight = np.zeros((2, 2), np.float32)
    with pytest.raises(traced.Error, match="only parameters and buffers"):
        tm.linear.in_features = 3
    with pytest.raises(AttributeError):
        tm.linear.nothing
    # The module is still intact.
    tm.verify()
    # Using an expr after removing it.
    dead = out.expr
    graph.compile()
    with pytest.raises(traced.Error, match="removed"):
        dead.kind
