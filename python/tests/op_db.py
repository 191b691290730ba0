"""PyTorch's own op and module databases as conformance samples (issue 52).

torch.testing._internal.common_methods_invocations.op_db describes each of
torch's operators with sample inputs for every dtype it supports: samples
nobody here wrote. This module turns them into calls TracedIR traces, and
runs them on the reference interpreter ("interp") and compiled for the CPU
("cpu"), comparing every output with torch's element by element at
`torch.testing.assert_close`'s default tolerances for the dtype.

In scope: entries with samples in float32, float64, int64 or bool (those
dtypes only); not random ops or ones whose values are undefined (empty);
not sparse layouts. module_db (common_modules) likewise: each module built
from its constructor input in eval mode, traced as a submodule, called on
its forward input's tensors (float32 and float64). KNOWN lists, per path, the entries known to fail and
why; test_op_db.py holds every other entry to passing all its samples, and
a listed entry to failing one (a fixed entry must leave the list).

    /usr/bin/python3 python/tests/op_db.py --sweep [--paths interp,cpu]
        runs every in-scope entry and prints each failing one with its
        first failure (the material for KNOWN);
    /usr/bin/python3 python/tests/op_db.py --table
        prints docs/reference/op_db.md (make docs writes it, make check
        checks it is current).

The database needs the `expecttest` module, which Debian does not package;
a stub that provides what op_db's import touches is installed if it is
missing (op_db's own tests are not run here).
"""
import argparse
import os
import sys
import types
import unittest

import torch
import torch.utils._pytree as pytree

import traced

#: Samples per entry and dtype (the first ones op_db gives).
SAMPLES_PER_DTYPE = 2

DTYPES = (torch.float32, torch.float64, torch.int64, torch.bool)

#: torch.testing.assert_close's default (rtol, atol) per dtype.
TORCH_TOLERANCES = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5),
                    torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7)}

#: Entries whose values are random or undefined: out of scope.
RANDOM = {
    "bernoulli", "multinomial", "normal", "uniform", "exponential", "geometric",
    "cauchy", "log_normal", "rand_like", "randn_like", "randint_like", "randint",
    "randn", "rand", "empty", "empty_like", "new_empty", "new_empty_strided",
    "empty_strided", "svd_lowrank", "pca_lowrank", "nn.functional.dropout",
    "nn.functional.dropout2d", "nn.functional.dropout3d",
    "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
    "nn.functional.rrelu", "nn.functional.gumbel_softmax",
    "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d",
    "nn.functional.multi_head_attention_forward",
}


def load():
    """op_db, with a stub `expecttest` when the real one is missing."""
    try:
        import expecttest  # noqa: F401
    except ImportError:
        stub = types.ModuleType("expecttest")
        stub.TestCase = unittest.TestCase
        stub.ACCEPT = False
        sys.modules["expecttest"] = stub
    from torch.testing._internal.common_methods_invocations import op_db
    return op_db


def key(op):
    """The entry's name: op_db's name, with its variant after a dot."""
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def dtypes(op):
    """The in-scope dtypes the entry supports on the CPU."""
    supported = op.supported_dtypes("cpu")
    return [d for d in DTYPES if d in supported]


def in_scope(op):
    return (op.name not in RANDOM and "sparse" not in op.name
            and bool(dtypes(op)))


def entries():
    """{key: OpInfo} of the in-scope entries."""
    return {key(op): op for op in load() if in_scope(op)}


class Case:
    """One sample: the call with its tensor leaves as the graph's inputs
    (everything else a constant of the trace)."""

    def __init__(self, op, dtype, index, sample):
        self.name = f"{dtype} #{index}"
        self.dtype = dtype
        leaves, self.spec = pytree.tree_flatten(
            (sample.input, tuple(sample.args), dict(sample.kwargs)))
        self.slots = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
        self.leaves = leaves
        self.inputs = [leaves[i].detach().clone() for i in self.slots]
        self.op = op

    def fn(self, *tensors):
        leaves = list(self.leaves)
        for slot, t in zip(self.slots, tensors):
            leaves[slot] = t
        x, args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return self.op.op(x, *args, **kwargs)


def cases(op, per_dtype=SAMPLES_PER_DTYPE):
    """The entry's first samples per dtype (made by op_db's generators from
    torch's random numbers, seeded per entry: the same on every run and in
    every pytest worker)."""
    torch.manual_seed(0)
    out = []
    for dtype in dtypes(op):
        try:
            samples = op.sample_inputs("cpu", dtype, requires_grad=False)
            for i, sample in zip(range(per_dtype), samples):
                out.append(Case(op, dtype, i, sample))
        except Exception:  # noqa: BLE001 (op_db's own sample generator failed)
            continue
    return out


#: Inputs per dtype of a module_db entry (RNN and LSTM have 32 in all).
MODULE_INPUTS_PER_DTYPE = 4


def module_entries():
    """{name: ModuleInfo} of module_db (float32 and float64)."""
    load()
    from torch.testing._internal.common_modules import module_db
    return {m.name: m for m in module_db}


class Called(torch.nn.Module):
    """The module under test as a submodule `m`, called on the tensor
    leaves of one forward input (its other arguments constants)."""

    def __init__(self, module, spec, leaves, slots):
        super().__init__()
        self.m = module
        self.spec, self.leaves, self.slots = spec, leaves, slots

    def forward(self, *tensors):
        leaves = list(self.leaves)
        for slot, t in zip(self.slots, tensors):
            leaves[slot] = t
        args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return self.m(*args, **kwargs)


class ModuleCase:
    """One module_db input: the module built from its constructor input,
    in eval mode, and the call of its forward input."""

    def __init__(self, info, dtype, index, module_input):
        self.name = f"{dtype} #{index}"
        self.info, self.dtype, self.input = info, dtype, module_input

    def build(self):
        cons, fwd = self.input.constructor_input, self.input.forward_input
        torch.manual_seed(0)
        module = self.info.module_cls(*cons.args, **cons.kwargs).to(self.dtype).eval()
        leaves, spec = pytree.tree_flatten((tuple(fwd.args), dict(fwd.kwargs)))
        slots = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
        inputs = [leaves[i].detach().clone() for i in slots]
        return Called(module, spec, leaves, slots), inputs


def module_cases(info, per_dtype=MODULE_INPUTS_PER_DTYPE):
    torch.manual_seed(0)
    out = []
    for dtype in (torch.float32, torch.float64):
        if dtype not in info.dtypes:
            continue
        try:
            inputs = info.module_inputs_func(info, device="cpu", dtype=dtype,
                                             requires_grad=False, training=False)
        except Exception:  # noqa: BLE001 (module_db's own generator failed)
            continue
        out += [ModuleCase(info, dtype, i, x) for i, x in zip(range(per_dtype), inputs)]
    return out


def _leaves(x):
    return pytree.tree_flatten(x)[0] if isinstance(x, (tuple, list)) else [x]


def _first_line(e):
    return (str(e).splitlines() or [type(e).__name__])[0][:200]


def run(case, paths):
    """{path: None (passed) | why it failed}; None for the whole case when
    torch refuses it."""
    from test_conformance import compare, float64_answer
    from models import Call
    if isinstance(case, ModuleCase):
        try:
            module, inputs = case.build()
        except Exception:  # noqa: BLE001 (torch cannot build it)
            return None
    else:
        module, inputs = Call(case.fn), case.inputs
    with torch.no_grad():
        try:  # (this also materializes lazy modules)
            expected = _leaves(module(*[t.clone() for t in inputs]))
        except Exception:  # noqa: BLE001 (torch refuses the sample)
            return None
    result = {}
    exact = float64_answer(module, inputs)
    try:
        tm = traced.trace(module, *[t.clone() for t in inputs])
    except Exception as e:  # noqa: BLE001
        return {p: f"trace: {_first_line(e)}" for p in paths}

    def check(got):
        got = _leaves(got)
        if len(got) != len(expected):
            return f"{len(got)} outputs, expected {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            if isinstance(e, torch.Tensor) and e.is_complex():
                return "a complex output"
            why = compare(g, e, TORCH_TOLERANCES, exact if len(expected) == 1 else None)
            if why:
                return f"output {i}: {why}" if len(expected) > 1 else why
        return None

    for path in paths:
        try:
            if path == "interp":
                got = tm.interpret(*[t.clone() for t in inputs])
            else:
                got = traced.compile(tm)(*[t.clone() for t in inputs])
            result[path] = check(got)
        except Exception as e:  # noqa: BLE001
            result[path] = f"error: {_first_line(e)}"
    return result


def run_entry(op, paths):
    """{path: [failures]} and the number of samples torch computes (an
    entry none of whose samples torch computes is listed in NO_SAMPLES).
    `op`: an OpInfo, or a ModuleInfo of module_db."""
    failures = {p: [] for p in paths}
    ran = 0
    from torch.testing._internal.common_modules import ModuleInfo
    for case in (module_cases(op) if isinstance(op, ModuleInfo) else cases(op)):
        outcome = run(case, paths)
        if outcome is None:
            continue
        ran += 1
        for path, why in outcome.items():
            if why:
                failures[path].append(f"{case.name}: {why}")
    return failures, ran


from op_db_known import KNOWN, MODULE_KNOWN, NO_SAMPLES  # noqa: E402  (generated by --sweep)


def table():
    """docs/reference/op_db.md: each in-scope entry and its status."""
    lines = [
        "# PyTorch's op_db: what passes",
        "",
        "Generated by `python3 python/tests/op_db.py --table` (`make docs`);",
        "`make check` fails when it is stale. Each in-scope entry of torch",
        "1.13's `op_db` (float32, float64, int64 and bool samples; random",
        "ops, undefined values and sparse layouts out of scope) runs its first",
        f"{SAMPLES_PER_DTYPE} samples per dtype interpreted and compiled for",
        "the CPU (`make check`), compared element by",
        "element with torch at `assert_close`'s default tolerances",
        "(python/tests/test_op_db.py). Entries not listed as failing pass",
        "every sample; the reasons are the first failure seen.",
        "",
    ]
    ops = entries()
    counts = {p: sum(1 for k in ops if k not in KNOWN[p]) for p in ("interp", "cpu")}
    # Entries whose samples compute on complex tensors (the tracer refuses
    # complex dtypes; issue 52 leaves them out of scope), by their failure.
    complex_ = sorted(k for k in ops if "dtype torch.complex" in
                      (KNOWN["interp"].get(k) or "") + (KNOWN["cpu"].get(k) or ""))
    real = len(ops) - len(complex_)
    real_counts = {p: counts[p] - sum(1 for k in complex_ if k not in KNOWN[p])
                   for p in counts}
    lines += [f"In scope: {len(ops)} entries. Passing: {counts['interp']} interpreted "
              f"({100 * counts['interp'] / len(ops):.1f}%), {counts['cpu']} compiled "
              f"({100 * counts['cpu'] / len(ops):.1f}%).", "",
              f"{len(complex_)} of them compute on complex tensors, which TracedIR "
              f"does not represent: {', '.join(f'`{k}`' for k in complex_)}. "
              f"Of the other {real}: {real_counts['interp']} pass interpreted "
              f"({100 * real_counts['interp'] / real:.1f}%), {real_counts['cpu']} "
              f"compiled ({100 * real_counts['cpu'] / real:.1f}%).", "",
              "| entry | interpreted | compiled |", "|---|---|---|"]
    for k in sorted(ops):
        cells = []
        for p in ("interp", "cpu"):
            why = KNOWN[p].get(k)
            cells.append("pass" if why is None else why.replace("|", "\\|"))
        if k in NO_SAMPLES:
            cells = ["(torch computes none of its samples)"] * 2
        lines.append(f"| `{k}` | {cells[0]} | {cells[1]} |")
    modules = module_entries()
    counts = {p: sum(1 for k in modules if k not in MODULE_KNOWN[p])
              for p in ("interp", "cpu")}
    lines += ["", "## module_db", "",
              f"torch 1.13's `module_db`: {len(modules)} modules, the first "
              f"{MODULE_INPUTS_PER_DTYPE} inputs per dtype (float32, float64), "
              "built in eval mode and traced with the module as a submodule. "
              f"Passing: {counts['interp']} interpreted, {counts['cpu']} compiled.",
              "", "| module | interpreted | compiled |", "|---|---|---|"]
    for k in sorted(modules):
        cells = [MODULE_KNOWN[p].get(k) for p in ("interp", "cpu")]
        cells = ["pass" if c is None else c.replace("|", "\\|") for c in cells]
        lines.append(f"| `{k}` | {cells[0]} | {cells[1]} |")
    return "\n".join(lines) + "\n"


def _reason(why):
    """A failure as the known list keeps it: no paths, one line, short."""
    import re
    why = re.sub(r"(/[\w.+-]+)+\.py:\d+:\d+: (error: )?", "", why)
    return why if len(why) <= 160 else why[:157] + "..."


def write_known(results, path):
    """op_db_known.py from a sweep's {path: {entry: why}} (and "modules":
    the same for module_db) and entries with no sample torch computes."""
    out = ['"""Entries of op_db and module_db known to fail, per path, with the',
           'first failure seen (op_db.py). Generated by `op_db.py --sweep',
           '--write-known`; test_op_db.py fails when a listed entry passes."""']
    for name, table in (("KNOWN", results), ("MODULE_KNOWN", results["modules"])):
        out += ["", f"{name} = {{"]
        for p in ("interp", "cpu"):
            out.append(f"    {p!r}: {{")
            for k, why in sorted(table[p].items()):
                out.append(f"        {k!r}: {_reason(why)!r},")
            out.append("    },")
        out.append("}")
    out += ["", "NO_SAMPLES = {"]
    out += [f"    {k!r}," for k in sorted(results["none"])]
    out += ["}", ""]
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    # As the test suite runs (conftest.py): the verifier after every pass,
    # no compile cache.
    os.environ.setdefault("TRACED_VERIFY_EACH", "1")
    os.environ.setdefault("TRACED_CACHE", "0")
    parser = argparse.ArgumentParser()
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--paths", default="interp,cpu")
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--write-known", action="store_true",
                        help="rewrite op_db_known.py from this sweep")
    args = parser.parse_args()
    if args.table:
        sys.stdout.write(table())
        return
    paths = args.paths.split(",")
    results = {"interp": {}, "cpu": {}, "none": set(),
               "modules": {"interp": {}, "cpu": {}}}
    for table_, found, prefix in ((module_entries(), results["modules"], "module "),
                                  (entries(), results, "")):
        for k, info in sorted(table_.items()):
            if args.only and k not in args.only:
                continue
            failures, ran = run_entry(info, paths)
            for p in paths:
                if failures[p]:
                    found[p][k] = failures[p][0]
                    print(f"{prefix}{p}\t{k}\t{failures[p][0]}", flush=True)
            if not ran and not prefix:
                results["none"].add(k)
                print(f"none\t{k}\ttorch computes none of its samples", flush=True)
    if args.write_known:
        write_known(results, os.path.join(os.path.dirname(__file__), "op_db_known.py"))


if __name__ == "__main__":
    main()
