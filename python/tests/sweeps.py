"""What the sweeps share (test_dtype_sweep.py, test_special_values.py):
which of an entry's samples they take, and one comparison of torch 1.13,
the interpreter and the entry's decomposition on a sample's inputs."""
import re

import torch

import traced
from models import Call
from opinfo import OPS, Graph
from test_conformance import _first, compare

DECOMPOSED = set(traced._traced.decomposed_targets())


def tensor_samples(entry, accept, limit):
    """(count, sample) for the entry's first `limit` samples whose function
    is a plain callable of tensors only and that `accept(sample)`."""
    seen = 0
    for sample in OPS[entry]():
        if isinstance(sample.fn, (Graph, torch.nn.Module)) or not sample.inputs:
            continue
        if not all(isinstance(x, torch.Tensor) for x in sample.inputs):
            continue
        # (Quantized tensors have their own samples: the sweeps recast and
        # refill float and integer tensors.)
        if any(x.is_quantized for x in sample.inputs):
            continue
        if not accept(sample):
            continue
        seen += 1
        if seen > limit:
            return
        yield seen, sample


class Finding(str):
    """One difference a sweep finds: its text, and `case`, the sample, seed
    or dtype and path it was found at ("[torch.float32 1] seed 2: interp"),
    which the exact known-failure tables list."""

    def __new__(cls, case, text):
        self = super().__new__(cls, text)
        self.case = case
        return self


def check(entry, fn, inputs, where, tol, found, labels=("interp ", "decomp "),
          refusals=True):
    """Runs `fn` on `inputs` in torch, traced in the interpreter and (for a
    decomposed entry) decomposed, appending to `found` what differs: values
    beyond `tol` and, with `refusals`, a refusal on one side only. Returns
    (expected, traced module, interpreted result) when both computed."""
    try:
        with torch.no_grad():
            expected = _first(fn(*[x.clone() for x in inputs]))
        torch_error = None
    except Exception as e:  # noqa: BLE001 - torch's refusal
        torch_error = (str(e).splitlines() or [type(e).__name__])[0][:120]
    try:
        tm = traced.trace(Call(fn), *[x.clone() for x in inputs])
        got = _first(tm.interpret(*[x.clone() for x in inputs]))
        our_error = None
    except Exception as e:  # noqa: BLE001 - our refusal
        our_error = (str(e).splitlines() or [type(e).__name__])[0][:200]
    if torch_error is not None or our_error is not None:
        if refusals and torch_error is not None and our_error is None:
            found.append(Finding(f"{where}: refusal",
                                 f"{where}: torch refuses ({torch_error}) but we compute it"))
        elif refusals and torch_error is None:
            found.append(Finding(f"{where}: refusal",
                                 f"{where}: torch computes it, we refuse: {our_error}"))
        return None
    if not isinstance(expected, (torch.Tensor, bool, int, float)):
        return None
    why = compare(got, expected, tol)
    if why:
        found.append(Finding(f"{where}: interp", f"{where}: {labels[0]}{why}"))
    if entry in DECOMPOSED:
        try:
            decomposed = tm.clone()
            decomposed.run_passes("traced-decompose")
            why = compare(_first(decomposed.interpret(*inputs)), expected, tol)
        except Exception as e:  # noqa: BLE001
            why = f"fails: {(str(e).splitlines() or [type(e).__name__])[0][:200]}"
        if why:
            found.append(Finding(f"{where}: decomp", f"{where}: {labels[1]}{why}"))
    return expected, tm, got


def assert_known(found, known, table):
    """A sweep's findings against its `table` entry `known`: (cases,
    reason), the exact cases (Finding.case) that differ, or (regex, reason)
    over the findings' text (the dtype sweep's). Whatever is not listed
    fails, and so does a listed case that finds nothing (the tables only
    shrink)."""
    if known and not isinstance(known[0], str):
        listed = set(known[0])
        unexpected = [f for f in found if f.case not in listed]
        assert not unexpected, "\n".join(unexpected[:20])
        stale = sorted(listed - {f.case for f in found})
        assert not stale, f"listed in {table} but passing: {stale[:10]} ({known[1]})"
        return
    unexpected = [f for f in found if not (known and re.search(known[0], f))]
    assert not unexpected, "\n".join(unexpected[:20])
    if known:
        assert any(re.search(known[0], f) for f in found), \
            f"listed in {table} but the sweep finds nothing: {known[1]}"
