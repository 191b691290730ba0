"""What the op library makes of a sample without running torch: the
conformance suite's check of the samples torch rejects (test_conformance.py).

Tracing runs torch, so a sample torch rejects cannot be traced. Here its
calls are recorded by torch.fx, whose Proxies run no kernel, and rebuilt
one by one with the graph-building API (`create_call`, what
Graph.call_function uses) in a module whose inputs have the sample's
types: each call's result types come from the op library's result rule
(the same inferResults the verifier runs), so a call the rule refuses
raises there with the rule's diagnostic. A graph every rule accepts is then
interpreted on the sample's inputs (a refusal that depends on the values:
an index out of range, a division by zero).
"""
import operator
import re

import numpy as np
import torch
import torch.fx as fx

import traced
from models import Call
from traced import _emit
from traced._tracing import qualified_function_name


class Unrecorded(Exception):
    """torch.fx cannot record the sample's calls (or they take a value the
    graph-building API cannot pass: a dtype)."""


def _record(sample):
    """The sample's fx graph and the module it was traced on."""
    names = ", ".join(f"a{i}" for i in range(len(sample.inputs)))
    namespace = {}
    exec(f"def forward(self, {names}):\n    return self.fn({names})", namespace)
    root = type("Recorded", (Call,), {"forward": namespace["forward"]})(sample.fn)
    try:
        return fx.Tracer().trace(root), root
    except Exception as e:  # noqa: BLE001 - fx raises many kinds
        if getattr(sample, "record", None) is None:
            raise Unrecorded(f"torch.fx: {type(e).__name__}: {str(e)[:120]}") from None
    # torch's argument parser refuses some calls before fx sees them (a
    # number first: torch.ge(2, x)); the sample then says what it calls.
    fn, args = sample.record(*[f"%{i}" for i in range(len(sample.inputs))])
    graph = fx.Graph()
    inputs = [graph.placeholder(f"a{i}") for i in range(len(sample.inputs))]
    args = tuple(inputs[int(a[1:])] if isinstance(a, str) and a.startswith("%") else a
                 for a in args)
    graph.output(graph.call_function(fn, args))
    return graph, root


def _tensor_type(x):
    if not isinstance(x, torch.Tensor):
        raise Unrecorded(f"a {type(x).__name__} input")
    return _emit.tensor_type(x)


def build(sample):
    """Builds the sample's calls on its input types. Returns (module text
    with the last call's result as the output, traced.Module state); raises
    the traced.Error of a call the op library refuses, or Unrecorded."""
    graph, root = _record(sample)
    types = [_tensor_type(x) for x in sample.inputs]
    signature = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    text = ('traced.module root @M class "m.M" {\n'
            f'  graph @forward(%self: !traced.module<@M>, {signature}) -> {types[0]} {{\n'
            f'    output %a0 : {types[0]}\n  }}\n}}\n')
    state = traced.parse(text)._state
    module = state.root()
    env = dict(zip([n for n in graph.nodes if n.op == "placeholder"],
                   list(state.graph_inputs(module, "forward"))[1:]))

    def value(a):
        if isinstance(a, fx.Node):
            v = env[a]
            if isinstance(v, list):
                raise Unrecorded("a call's several results used as one value")
            return v
        if isinstance(a, (list, tuple)):
            items = [value(x) for x in a]
            return items if isinstance(a, list) else tuple(items)
        if isinstance(a, (torch.dtype, torch.device, torch.memory_format, torch.layout, dict)):
            raise Unrecorded(f"a {type(a).__name__} argument")
        return a

    last = None
    for node in graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            last = node.args[0]
            break
        if node.op == "call_function" and node.target is operator.getitem and \
                isinstance(env.get(node.args[0]), list) and isinstance(node.args[1], int):
            env[node] = env[node.args[0]][node.args[1]]
            continue
        if node.op == "get_attr" and isinstance(getattr(root, node.target, None), torch.Tensor):
            t = getattr(root, node.target)
            if t.dtype == torch.bfloat16:
                raise Unrecorded("a bfloat16 tensor constant")
            array = np.ascontiguousarray(t.numpy())
            op = state.create_constant(module, "forward", (array.tobytes(), str(t.dtype)[6:],
                                                           list(array.shape)), "tensor", None)
            env[node] = op.results[0]
            continue
        if node.op == "call_function":
            target, receiver, args = qualified_function_name(node.target), None, node.args
        elif node.op == "call_method":
            target, receiver, args = node.target, value(node.args[0]), node.args[1:]
        else:
            raise Unrecorded(f"an fx {node.op} node")
        try:
            op = state.create_call(module, "forward", node.op, target, receiver,
                                   value(list(args)),
                                   [(k, value(v)) for k, v in node.kwargs.items()])
        except traced.Error as e:
            if "cannot be inferred; pass result_types" in str(e):
                # (the rule accepts it, but its type is not static: new_empty)
                raise Unrecorded(f"{target}'s result types are not static") from None
            raise
        env[node] = op.results[0] if len(op.results) == 1 else list(op.results)
    out = env.get(last) if isinstance(last, fx.Node) else None
    if out is None or isinstance(out, list):
        raise Unrecorded("the sample's result is not one value of a call")
    # The last call's result as the graph's output (it was built returning
    # its first input, before any result type was known).
    text = state.to_text()
    header = re.compile(r"(graph @forward\(.*\)) -> [^{]+\{")
    text = header.sub(lambda m: f"{m.group(1)} -> {out.type} {{", text, count=1)
    text = text.replace(f"output %a0 : {types[0]}", f"output %{out.name} : {out.type}", 1)
    return text, state


def verdict(sample):
    """("refused", message) when the op library's rules refuse the calls,
    ("refused at run time", message) when the interpreter refuses the
    graph on the sample's inputs, ("computed", None) when it computes it;
    raises Unrecorded."""
    try:
        text, _ = build(sample)
    except traced.Error as e:
        return "refused", str(e)
    try:
        traced.parse(text).interpret(*sample.inputs)
    except traced.Error as e:
        return "refused at run time", str(e)
    return "computed", None
