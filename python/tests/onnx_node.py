"""The ONNX backend node tests (Debian's libonnx-testdata: ONNX 1.12's
932 cases, each a one-node model with inputs and expected outputs) run
through traced.from_onnx, interpreted and compiled for the CPU.

A case is in scope when its model is of the default domain and every graph
input and output is a tensor of a dtype traced tensors hold (torch 1.13's
real dtypes: float16/32/64, bfloat16, int8/16/32/64, uint8, bool) and the
node is not random. Integer inputs (int64/int32) are offered to the
importer as constants: those a node needs as shapes, axes or sizes leave
the graph's inputs; the others stay inputs. Outputs are compared element
by element at rtol 1e-3, atol 1e-5 (ONNX's own runner uses rtol 1e-3,
atol 1e-7; float32 results of float64 references need the absolute
slack), exactly for integers and bools, NaNs equal.

    /usr/bin/python3 python/tests/onnx_node.py --sweep [--write-known]
    /usr/bin/python3 python/tests/onnx_node.py --table
"""
import argparse
import glob
import os
import sys
import warnings

import numpy as np

DATA = "/usr/share/libonnx-testdata/data/node"

# Element types traced tensors hold (TensorProto.DataType).
_REAL = {1: "float32", 2: "uint8", 3: "int8", 5: "int16", 6: "int32",
         7: "int64", 9: "bool", 10: "float16", 11: "float64", 16: "bfloat16"}
# Nodes whose outputs are random draws: nothing to compare exactly.
_RANDOM = {"Bernoulli", "RandomNormal", "RandomNormalLike", "RandomUniform",
           "RandomUniformLike", "Multinomial"}


def available():
    return os.path.isdir(DATA)


def cases():
    """Every case directory's name, sorted."""
    return sorted(os.path.basename(d) for d in glob.glob(os.path.join(DATA, "*"))
                  if os.path.isfile(os.path.join(d, "model.onnx")))


def _load(name):
    import onnx
    return onnx.load(os.path.join(DATA, name, "model.onnx"))


def scope(name):
    """None when the case is in scope, else why not."""
    model = _load(name)
    g = model.graph
    domains = {n.domain for n in g.node} - {"", "ai.onnx"}
    if domains:
        return f"domain {sorted(domains)[0]}"
    ops = {n.op_type for n in g.node}
    if ops & _RANDOM:
        return "random"
    # Dropout in training mode with a non-zero ratio draws its mask.
    if name.startswith("test_training_dropout") and "zero_ratio" not in name:
        return "random"
    inits = {t.name for t in g.initializer}
    for vi in list(g.input) + list(g.output):
        if vi.name in inits:
            continue
        t = vi.type
        if t.WhichOneof("value") != "tensor_type":
            return f"{vi.name} is a {t.WhichOneof('value')}"
        if t.tensor_type.elem_type not in _REAL:
            return f"{vi.name} has element type {t.tensor_type.elem_type}"
    return None


def op_of(name):
    """The case's op type (the first node's; node tests have one node or a
    function's expansion)."""
    g = _load(name).graph
    return g.node[0].op_type if g.node else "?"


def _bf16(elem_type, a):
    """numpy_helper gives bfloat16 data as uint16 bits: as float32."""
    if elem_type == 16 and a.dtype == np.uint16:
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a


def _data(name):
    """(inputs by graph input name, expected outputs in order) of
    test_data_set_0; bfloat16 data as float32 (exact)."""
    import onnx
    from onnx import numpy_helper
    model = _load(name)
    inits = {t.name for t in model.graph.initializer}
    ins = [i for i in model.graph.input if i.name not in inits]
    in_names = [i.name for i in ins]
    out_types = [o.type.tensor_type.elem_type for o in model.graph.output]
    d = os.path.join(DATA, name, "test_data_set_0")
    inputs, outputs = {}, []
    for i, n in enumerate(in_names):
        p = os.path.join(d, f"input_{i}.pb")
        if os.path.exists(p):
            t = onnx.TensorProto()
            with open(p, "rb") as f:
                t.ParseFromString(f.read())
            inputs[n] = _bf16(ins[i].type.tensor_type.elem_type,
                              numpy_helper.to_array(t))
    i = 0
    while os.path.exists(os.path.join(d, f"output_{i}.pb")):
        t = onnx.TensorProto()
        with open(os.path.join(d, f"output_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        outputs.append(_bf16(out_types[i] if i < len(out_types) else 0,
                             numpy_helper.to_array(t)))
        i += 1
    return inputs, outputs


def _compare(got, want):
    """None when `got` matches `want`, else a description."""
    import torch
    if hasattr(got, "detach"):
        got = got.detach()
        if got.dtype == torch.bfloat16:
            got = got.float()
        got = got.numpy()
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if want.dtype.kind in "fc":
        try:
            torch.testing.assert_close(torch.from_numpy(got.astype(np.float64)),
                                       torch.from_numpy(want.astype(np.float64)),
                                       rtol=1e-3, atol=1e-5, equal_nan=True)
        except AssertionError as e:
            return str(e).splitlines()[0] + " " + " ".join(str(e).split()[5:20])
        return None
    if got.dtype != want.dtype and want.dtype != np.bool_:
        return f"dtype {got.dtype}, expected {want.dtype}"
    if not np.array_equal(got.astype(want.dtype), want):
        return f"values differ at {int((got.astype(want.dtype) != want).sum())} elements"
    return None


def run_case(name, paths=("interp", "cpu")):
    """{path: first failure or None} for an in-scope case."""
    import traced
    inputs, expected = _data(name)
    # Every input is offered: one a node reads as a shape, axes, sizes or
    # scalars leaves the graph, the others stay inputs.
    constants = dict(inputs)
    result = {p: None for p in paths}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = traced.from_onnx(os.path.join(DATA, name, "model.onnx"),
                                 constant_inputs=constants)
    except traced.Error as e:
        why = "import: " + str(e).strip().splitlines()[-1][:300]
        return {p: why for p in paths}
    try:
        args = _inputs_of(m, inputs)
    except Exception as e:  # noqa: BLE001
        return {p: f"inputs: {type(e).__name__}: {e}"[:300] for p in paths}
    for p in paths:
        try:
            if p == "interp":
                outs = m.interpret(*args)
            else:
                outs = traced.compile(m)(*args)
                if not isinstance(outs, (list, tuple)):
                    outs = [outs]
        except Exception as e:  # noqa: BLE001  (every failure is a result)
            result[p] = f"{type(e).__name__}: " + str(e).strip().splitlines()[-1][:300]
            continue
        if len(outs) != len(expected):
            result[p] = f"{len(outs)} outputs, expected {len(expected)}"
            continue
        for i, (g, w) in enumerate(zip(outs, expected)):
            why = _compare(g, w)
            if why:
                result[p] = f"output {i}: {why}"
                break
    return result


def _inputs_of(m, inputs):
    """The graph's remaining inputs, in order, as numpy arrays."""
    import torch
    args = []
    for node in m.graph.inputs[1:]:
        a = torch.from_numpy(np.array(inputs[node.name]))
        if node.dtype == "bfloat16":
            a = a.to(torch.bfloat16)
        args.append(a)
    return args


try:
    from onnx_node_known import KNOWN  # noqa: E402  (generated by --sweep)
except ImportError:  # before the first sweep
    KNOWN = {"interp": {}, "cpu": {}}


def write_known(results, path):
    lines = ['"""ONNX node test cases in scope that fail, per path, with the',
             'first failure seen (onnx_node.py). Generated by `onnx_node.py',
             '--sweep --write-known`; test_onnx_node.py fails when a listed',
             'case passes."""', "", "KNOWN = {"]
    for p in ("interp", "cpu"):
        lines.append(f"    {p!r}: {{")
        for k, why in sorted(results[p].items()):
            lines.append(f"        {k!r}:")
            lines.append(f"            {why[:200]!r},")
        lines.append("    },")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def table():
    scoped = [c for c in cases() if scope(c) is None]
    out_of_scope = len(cases()) - len(scoped)
    by_op = {}
    for c in scoped:
        by_op.setdefault(op_of(c), []).append(c)
    counts = {p: sum(1 for c in scoped if c not in KNOWN[p]) for p in ("interp", "cpu")}
    lines = [
        "# ONNX node tests",
        "",
        "Generated by `python3 python/tests/onnx_node.py --table` (`make docs`);",
        "do not edit. The ONNX backend node tests of ONNX 1.12 (Debian's",
        "`libonnx-testdata`, 932 cases) through `traced.from_onnx`, interpreted",
        "and compiled for the CPU, compared element by element with the expected",
        "outputs (rtol 1e-3, atol 1e-5; integers and bools exactly).",
        "python/tests/test_onnx_node.py runs them; onnx_node_known.py lists the",
        "failing cases with their first failure.",
        "",
        f"In scope: {len(scoped)} cases ({out_of_scope} out of scope: other "
        "domains, random ops, non-tensor or non-real inputs and outputs). "
        f"Passing: {counts['interp']} interpreted "
        f"({100 * counts['interp'] / max(len(scoped), 1):.1f}%), {counts['cpu']} "
        f"compiled ({100 * counts['cpu'] / max(len(scoped), 1):.1f}%).",
        "",
        "| op | cases | interpreted | compiled |",
        "|---|---|---|---|",
    ]
    for op in sorted(by_op):
        cs = by_op[op]
        i = sum(1 for c in cs if c not in KNOWN["interp"])
        k = sum(1 for c in cs if c not in KNOWN["cpu"])
        lines.append(f"| {op} | {len(cs)} | {i} | {k} |")
    return "\n".join(lines) + "\n"


def main():
    os.environ.setdefault("TRACED_CACHE", "0")
    parser = argparse.ArgumentParser()
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--paths", default="interp,cpu")
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--write-known", action="store_true")
    args = parser.parse_args()
    if args.table:
        sys.stdout.write(table())
        return
    paths = args.paths.split(",")
    results = {"interp": {}, "cpu": {}}
    for c in cases():
        if args.only and not any(c.startswith(o) for o in args.only):
            continue
        if scope(c) is not None:
            continue
        r = run_case(c, paths)
        for p in paths:
            if r[p]:
                results[p][c] = r[p]
                print(f"{p}\t{c}\t{r[p]}", flush=True)
    for p in paths:
        print(f"# {p}: {len(results[p])} failing", flush=True)
    if args.write_known:
        write_known(results, os.path.join(os.path.dirname(__file__), "onnx_node_known.py"))


if __name__ == "__main__":
    main()
