"""Module.summary() and Graph.print_tabular(): a torchinfo-style table of a
traced module (docs/python.md, "Summary") and torch.fx's print_tabular
layout of one graph.

Everything here reads the IR: shapes and dtypes are the value types the
tracer recorded on the example inputs, parameter counts come from the
module tree, and MACs are computed from the exprs' shapes (`expr_macs`).
"""
from __future__ import annotations

import hashlib
import math
import re
import sys
from typing import IO, Any, Dict, List, NamedTuple, Optional, Tuple

from . import _traced

# -- types ---------------------------------------------------------------------

_ELEMENT_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4,
                  "i16": 2, "i8": 1, "ui8": 1, "i1": 1}
_TENSOR_TYPE = re.compile(r"^tensor<((?:[0-9]+x)*)([a-z0-9]+)>$")


def _tensor_type(text: str) -> Optional[Tuple[Tuple[int, ...], str]]:
    """(shape, element type) of a ranked static tensor type's text
    ("tensor<64x3x7x7xf32>" -> ((64, 3, 7, 7), "f32")); None otherwise."""
    found = _TENSOR_TYPE.match(text)
    if not found:
        return None
    dims = found.group(1)
    return tuple(int(d) for d in dims.split("x")[:-1]) if dims else (), found.group(2)


def _numel(shape) -> int:
    """Elements of a shape; a dynamic dim (None) counts as 1."""
    return math.prod(_sized(shape)) if shape is not None else 0


def _sized(shape):
    """A shape with each dynamic dim (None) at 1: the MACs of a dynamic
    model are counted at size 1 of every dynamic dim (docs/python.md)."""
    return None if shape is None else tuple(1 if d is None else d for d in shape)


# -- MACs ------------------------------------------------------------------------

def _argument(op, name: str, index: int):
    """The argument `name` of a call (by keyword, else at position `index`)."""
    found = op.arguments
    if found is None:
        return None
    positional, named = found
    if name in named:
        return named[name]
    return positional[index] if index < len(positional) else None


def _mha_macs(op) -> int:
    """F.multi_head_attention_forward: the q/k/v projections, the two
    attention products (L*S*E per batch element for q@k^T and for attn@v,
    summed over heads) and the output projection."""
    q, k, v = (_argument(op, n, i) for i, n in enumerate(("query", "key", "value")))
    if not all(isinstance(x, _traced.Value) and x.shape for x in (q, k, v)):
        return 0
    qs, ks, vs = _sized(q.shape), _sized(k.shape), _sized(v.shape)
    batch = qs[1] if len(qs) == 3 else 1
    length, embed, source = qs[0], qs[-1], ks[0]
    kdim, vdim = ks[-1], vs[-1]
    return batch * (length * embed * embed + source * embed * kdim
                    + source * embed * vdim + 2 * length * source * embed
                    + length * embed * embed)


def _einsum_macs(op, tensors) -> int:
    """Two-operand einsum without `...`: the product of the sizes of all
    its subscripts (each output element sums over the contracted ones)."""
    equation = _argument(op, "equation", 0)
    if not isinstance(equation, str) or "..." in equation or len(tensors) != 2:
        return 0
    inputs = equation.replace(" ", "").split("->")[0].split(",")
    if len(inputs) != 2:
        return 0
    sizes = {}
    for letters, value in zip(inputs, tensors):
        if len(letters) != len(value.shape):
            return 0
        sizes.update(zip(letters, _sized(value.shape)))
    return math.prod(sizes.values())


def _canonical_name(op) -> str:
    """The op library's name of a call ("torch.nn.functional.linear",
    "torch.matmul" for `x.matmul(y)` and `operator.matmul`), or its own."""
    target = op.target if op.kind == "call_function" else f"Tensor.{op.target}"
    try:
        return _traced.canonical_target(target) or target
    except Exception:  # a target the library cannot even look up
        return target


def expr_macs(op) -> int:
    """Multiply-accumulates of one call that is not a module call, from the
    shapes of its operands and results (0 for everything but contractions;
    docs/python.md lists the rules)."""
    if op.kind not in ("call_function", "call_method"):
        return 0
    name = _canonical_name(op).rsplit(".", 1)[-1]
    if name == "multi_head_attention_forward":  # (its result is a tuple)
        return _mha_macs(op)
    tensors = [v for v in op.operands if v.shape is not None]
    results = [v for v in op.results if v.shape is not None]
    if not results:
        return 0
    out = _numel(results[0].shape)
    if name == "einsum":
        return _einsum_macs(op, tensors)
    if len(tensors) < 2:
        return 0
    a, b = _sized(tensors[0].shape), _sized(tensors[1].shape)
    if name == "linear":
        return out * b[-1] if b else 0
    if name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d",
                "conv_transpose2d", "conv_transpose3d", "convolution",
                "_convolution"):
        transposed = name.startswith("conv_transpose") or (
            name.endswith("convolution") and _argument(op, "transposed", 6) is True)
        # weight [out, in/groups, *k] (transposed: [in, out/groups, *k]):
        # every output (input) element meets prod(weight.shape[1:]) weights.
        return (_numel(a) if transposed else out) * _numel(b[1:])
    if name in ("matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "__matmul__"):
        return out * a[-1] if a else 0
    if len(tensors) >= 3 and name in ("addmm", "baddbmm", "addmv", "addbmm"):
        m1 = _sized(tensors[1].shape)
        if name == "addbmm":  # sums the batch too
            return out * m1[0] * m1[-1]
        return out * m1[-1]
    return 0


def _module_macs(class_name: str, info: dict, op) -> int:
    """Multiply-accumulates of a call of a leaf module (no graph), from its
    class, its weight's type and the call's shapes."""
    short = class_name.rsplit(".", 1)[-1]
    weight = None
    for name, kind, detail in info["attributes"]:
        if name == "weight" and kind == "parameter":
            weight = _tensor_type(detail)
    outputs = [v for v in op.results if v.shape is not None]
    inputs = [v for v in op.operands[1:] if v.shape is not None]
    if weight is None or not outputs:
        return 0
    wshape = weight[0]
    out = _numel(outputs[0].shape)
    if re.fullmatch(r"(Lazy)?Conv[123]d", short):
        return out * _numel(wshape[1:])
    if re.fullmatch(r"(Lazy)?ConvTranspose[123]d", short) and inputs:
        return _numel(inputs[0].shape) * _numel(wshape[1:])
    if short.endswith("Linear") and len(wshape) == 2:  # also NonDynamicallyQuantizableLinear
        return out * wshape[1]
    if short == "Bilinear" and len(wshape) == 3:
        return out * wshape[1] * wshape[2]
    return 0


# -- parameters ------------------------------------------------------------------

def _parameter_keys(state, params) -> Dict[Tuple[str, str], Any]:
    """A key per (module symbol, parameter name) that two parameters share
    exactly when they are one tensor: the tracer declares a tensor that
    several modules hold (tied weights) with one `dense_resource` blob.
    The blobs' names are read only when two parameters of one type hold
    the same bytes, the only case where they can share."""
    keys = {p: p for p in params}
    by_type = {}
    for (sym, name), type_text in params.items():
        by_type.setdefault(type_text, []).append((sym, name))
    candidates = False
    for group in by_type.values():
        if len(group) < 2:
            continue
        digests = set()
        for sym, name in group:
            data = state.get_tensor(sym, name)[0]
            digest = hashlib.sha1(data).digest()
            if digest in digests:
                candidates = True
                break
            digests.add(digest)
        if candidates:
            break
    if not candidates:
        return keys
    for key, blob in state.tensor_blobs().items():
        if key in keys:
            keys[key] = ("blob", blob)
    return keys


# -- the summary ------------------------------------------------------------------

class SummaryRow(NamedTuple):
    """One module call of a Summary, in call order.

    `path`: the attribute path from the root ("layer1.0.conv1"; "" for the
    root); `class_name`: the nn.Module class ("torch.nn.modules.conv.Conv2d");
    `depth`: 0 for the root, 1 for its children, ...; `module`: the
    traced.module symbol; `graph`: the graph the call ran ("forward"), None
    for a leaf module (no graph); `output_shapes`, `output_dtypes`: one entry
    per result (None for non-tensor results); `params`: parameters of the
    module and its submodules, each tensor once; `macs`: multiply-accumulates
    of this call (for a traced submodule, of everything its graph runs).
    """
    path: str
    class_name: str
    depth: int
    module: str
    graph: Optional[str]
    output_shapes: List[Optional[Tuple[int, ...]]]
    output_dtypes: List[Optional[str]]
    params: int
    macs: int

    @property
    def is_leaf(self) -> bool:
        """Whether this is a call of a leaf module (one without a graph)."""
        return self.graph is None


def _group(n: int) -> str:
    return f"{n:,}"


def _si(n: float) -> str:
    for unit, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n:g}"


def _shape_text(shapes) -> str:
    return ", ".join("-" if s is None else
                     "[" + ", ".join("?" if d is None else str(d) for d in s) + "]"
                     for s in shapes)


def _dtype_text(dtypes) -> str:
    return ", ".join("-" if d is None else d for d in dtypes)


class Summary:
    """What Module.summary() returns: `rows` (SummaryRow, call order) and
    totals; str() is the table, `as_dicts()` the rows as dicts.

    `total_params`: parameters of the module tree, each tensor once (a
    shared module or tied weight counts once); `total_param_bytes`: their
    size; `total_macs`: multiply-accumulates of one run of the root graph
    (a module called twice counts twice); `total_flops`: 2 * total_macs;
    `input_shapes`, `input_dtypes`: the root graph's inputs (after self);
    `dynamic`: whether a shape has a dynamic dim (None in the shapes, `?`
    in the table): MACs are then counted at size 1 of every dynamic dim.
    """

    def __init__(self, name: str, rows: List[SummaryRow], total_params: int,
                 total_param_bytes: int, total_macs: int,
                 inputs: List[Tuple[Optional[Tuple[int, ...]], Optional[str]]],
                 depth: Optional[int] = None):
        self.name = name
        self.rows = rows
        self.total_params = total_params
        self.total_param_bytes = total_param_bytes
        self.total_macs = total_macs
        self.input_shapes = [s for s, _ in inputs]
        self.input_dtypes = [d for _, d in inputs]
        self.depth = depth
        self.dynamic = any(
            s is not None and None in s
            for s in self.input_shapes + [s for row in rows
                                          for s in row.output_shapes])

    @property
    def total_flops(self) -> int:
        """Floating-point operations, counted as 2 per multiply-accumulate."""
        return 2 * self.total_macs

    def as_dicts(self) -> List[Dict[str, Any]]:
        """The rows as dicts (SummaryRow's fields as keys)."""
        return [row._asdict() for row in self.rows]

    def table(self, depth: Optional[int] = None) -> str:
        """The table; rows deeper than `depth` (default: this summary's
        `depth`, None for all) are left out, their cost stays in their
        parents' rows."""
        depth = self.depth if depth is None else depth
        header = ("Module", "Class", "Output shape", "Dtype", "Params", "MACs")
        lines = []
        for row in self.rows:
            if depth is not None and row.depth > depth:
                continue
            label = row.path.rsplit(".", 1)[-1] if row.path else self.name
            lines.append(("  " * row.depth + (row.path or label),
                          row.class_name.rsplit(".", 1)[-1],
                          _shape_text(row.output_shapes),
                          _dtype_text(row.output_dtypes),
                          _group(row.params), _group(row.macs)))
        widths = [max(len(h), *(len(line[i]) for line in lines))
                  for i, h in enumerate(header)]
        right = (False, False, False, False, True, True)

        def fmt(cells):
            return "  ".join(c.rjust(w) if r else c.ljust(w)
                             for c, w, r in zip(cells, widths, right)).rstrip()

        rule = "=" * len(fmt(["-" * w for w in widths]))
        out = [rule, fmt(header), rule, *(fmt(line) for line in lines), rule]
        inputs = "; ".join(f"{_shape_text([s])} {d or '-'}"
                           for s, d in zip(self.input_shapes, self.input_dtypes))
        out += [f"Input: {inputs or '-'}",
                f"Total params: {_group(self.total_params)} "
                f"({self.total_param_bytes / 2**20:.2f} MiB)",
                f"Total MACs: {_group(self.total_macs)} ({_si(self.total_macs)}MACs); "
                f"FLOPs (2 per MAC): {_si(self.total_flops)}FLOPs"]
        if self.dynamic:
            out.append("MACs at size 1 of every dynamic dim (?); they grow "
                       "with those sizes")
        out.append(rule)
        return "\n".join(out)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return (f"<traced.Summary of {self.name}: {_group(self.total_params)} "
                f"parameters, {_si(self.total_macs)}MACs, {len(self.rows)} rows>")


def _module_path(value, prefix: str) -> Optional[str]:
    """The attribute path of a module value: the getattr chain from the
    graph's `self` (input 0), after `prefix` (the graph's own path)."""
    names = []
    while value.owner is not None:
        op = value.owner
        if op.kind != "getattr":
            return None
        names.append(op.target)
        value = op.operands[0]
    if value.arg_number != 0:
        return None
    parts = ([prefix] if prefix else []) + names[::-1]
    return ".".join(parts)


def _tree_paths(state, root: str) -> Dict[str, str]:
    """Each module symbol's first attribute path from the root."""
    paths = {root: ""}
    queue = [root]
    while queue:
        sym = queue.pop(0)
        for name, kind, detail in state.module_info(sym)["attributes"]:
            if kind == "submodule" and detail not in paths:
                paths[detail] = f"{paths[sym]}.{name}" if paths[sym] else name
                queue.append(detail)
    return paths


def summarize(module, depth: Optional[int] = None) -> Summary:
    """The Summary of a traced Module (see Module.summary)."""
    state = module._state
    root = module.root_name
    infos = {sym: state.module_info(sym) for sym in state.modules()}
    tree = _tree_paths(state, root)

    params = {}
    for sym, info in infos.items():
        for name, kind, detail in info["attributes"]:
            if kind == "parameter":
                params[(sym, name)] = detail
    keys = _parameter_keys(state, params)
    sizes = {}
    for p, type_text in params.items():
        parsed = _tensor_type(type_text)
        numel = _numel(parsed[0]) if parsed else 0
        sizes[keys[p]] = (numel, numel * _ELEMENT_BYTES.get(parsed[1], 0) if parsed else 0)

    subtree_keys: Dict[str, frozenset] = {}

    def keys_of(sym, active=()):
        if sym in subtree_keys:
            return subtree_keys[sym]
        found = set()
        for name, kind, detail in infos[sym]["attributes"]:
            if kind == "parameter":
                found.add(keys[(sym, name)])
            elif kind == "submodule" and detail not in active:
                found |= keys_of(detail, active + (sym,))
        subtree_keys[sym] = frozenset(found)
        return subtree_keys[sym]

    def count(sym):
        return sum(sizes[k][0] for k in keys_of(sym))

    rows: List[Optional[SummaryRow]] = []

    def walk(sym, graph, path, level, active):
        total = 0
        for op in state.graph_ops(sym, graph):
            receiver = op.operands[0].module_name if (
                op.kind == "call_method" and op.operands) else None
            if not receiver:
                total += expr_macs(op)
                continue
            child_path = _module_path(op.operands[0], path)
            if child_path is None:
                child_path = tree.get(receiver, receiver)
            info = infos[receiver]
            index = len(rows)
            rows.append(None)  # this call's row comes before its children's
            if op.target in info["graphs"] and (receiver, op.target) not in active:
                macs = walk(receiver, op.target, child_path, level + 1,
                            active | {(receiver, op.target)})
                called = op.target
            else:
                macs = _module_macs(info["class"], info, op)
                called = None
            rows[index] = SummaryRow(
                child_path, info["class"], level + 1, receiver, called,
                [v.shape for v in op.results], [v.dtype for v in op.results],
                count(receiver), macs)
            total += macs
        return total

    rows.append(None)
    macs = walk(root, "forward", "", 0, frozenset({(root, "forward")}))
    outputs = state.graph_outputs(root, "forward")
    rows[0] = SummaryRow("", infos[root]["class"], 0, root, "forward",
                         [v.shape for v in outputs], [v.dtype for v in outputs],
                         count(root), macs)
    inputs = [(v.shape, v.dtype) for v in state.graph_inputs(root, "forward")[1:]]
    total_keys = keys_of(root)
    return Summary(infos[root]["class"].rsplit(".", 1)[-1], rows,
                   sum(sizes[k][0] for k in total_keys),
                   sum(sizes[k][1] for k in total_keys), macs, inputs, depth)


# -- print_tabular ----------------------------------------------------------------

def _constant_text(value) -> str:
    if isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], bytes):
        return f"tensor({list(value[2])}, {value[1]})"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def tabular(graph) -> str:
    """torch.fx's print_tabular layout of one Graph: a row per node of
    `graph.nodes` (op, name, target, args, kwargs), arguments as Python
    passes them; call_function targets as their dotted names and a
    constant's as its value."""
    rows = []
    for node in graph.nodes:
        target = _constant_text(node.expr._op.value) if node.op == "constant" \
            else node.target_name
        rows.append((node.op, node.name, target, repr(node.args), repr(node.kwargs)))
    header = ("opcode", "name", "target", "args", "kwargs")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    fmt = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    return "\n".join([fmt(header), fmt(["-" * w for w in widths]),
                      *(fmt(r) for r in rows)])


def print_tabular(graph, file: Optional[IO[str]] = None) -> None:
    """Prints `tabular(graph)` to `file` (default sys.stdout)."""
    print(tabular(graph), file=file if file is not None else sys.stdout)
