"""Which of several equal elements comes first: sort (stable=False),
argsort, topk and kthvalue leave ties in the order of torch 1.13's CPU
algorithms (introsort, partial_sort / nth_element, quickselect), not the
input's. The interpreter and compiled code both call the sort runtime
(docs/linalg-runtime.md, "The sort runtime"), so both give torch's indices
exactly, on inputs long enough for those algorithms to move ties."""
import numpy as np
import pytest
import torch

import traced
from models import Call


def _inputs():
    g = torch.Generator().manual_seed(0)
    ints = torch.randint(0, 4, (3, 300), generator=g)
    floats = ints.float()
    floats[0, ::7] = float("nan")
    return {
        "bool": (ints > 1),
        "int64": ints,
        "uint8": ints.to(torch.uint8),
        "float32 with NaN": floats,
        "float64": ints.double(),
    }


CALLS = {
    "sort": lambda x: torch.sort(x, dim=-1),
    "sort descending dim 0": lambda x: torch.sort(x, dim=0, descending=True),
    "sort stable": lambda x: torch.sort(x, dim=-1, stable=True),
    "argsort": lambda x: torch.argsort(x, dim=-1, descending=True),
    "topk": lambda x: torch.topk(x.to(torch.float32) if x.dtype == torch.bool else x,
                                 50, dim=-1),
    "topk small k": lambda x: torch.topk(x.to(torch.float32) if x.dtype == torch.bool else x,
                                         3, dim=-1, largest=False),
    "topk unsorted": lambda x: torch.topk(x.to(torch.float32) if x.dtype == torch.bool else x,
                                          40, dim=-1, sorted=False),
    "kthvalue": lambda x: torch.kthvalue(x.to(torch.float32) if x.dtype == torch.bool else x,
                                         100, dim=-1),
}


def _outputs(r):
    return [t.numpy() for t in (r if isinstance(r, tuple) else (r,))]


@pytest.mark.parametrize("dtype", sorted(_inputs()))
@pytest.mark.parametrize("name", sorted(CALLS))
def test_ties_come_out_in_torchs_order(name, dtype):
    x = _inputs()[dtype]
    fn = CALLS[name]
    expected = _outputs(fn(x))
    tm = traced.trace(Call(fn), x)
    interpreted = tm.interpret(x)
    compiled = traced.compile(tm, target="cpu", cache=False)(x.numpy())
    for path, got in (("interpreted", interpreted), ("compiled", compiled)):
        got = [np.asarray(g.numpy() if isinstance(g, torch.Tensor) else g)
               for g in (got if isinstance(got, (tuple, list)) else (got,))]
        assert len(got) == len(expected), path
        for g, e in zip(got, expected):
            # Indices exactly; values exactly too (NaN where torch's is).
            np.testing.assert_array_equal(g, e, err_msg=f"{name} {dtype} {path}")


def test_ties_would_differ_from_a_stable_order():
    """The inputs above do test tie order: torch's unstable sort of them
    differs from the stable one (else any stable lowering would pass)."""
    x = _inputs()["int64"]
    unstable = torch.sort(x, dim=-1).indices
    stable = torch.sort(x, dim=-1, stable=True).indices
    assert not torch.equal(unstable, stable)


def test_shared_library_sorts_through_the_runtime(tmp_path):
    """A saved library of a sort carries the sort runtime (it is in the
    same archive as the linear-algebra runtime) without OpenBLAS: loaded on
    its own with ctypes it gives torch's indices, ties included."""
    import ctypes
    import subprocess
    x = _inputs()["int64"]
    tm = traced.trace(Call(lambda t: torch.argsort(t, dim=-1)), x)
    lib_path = traced.save_library(tm, tmp_path / "libargsort.so")
    deps = subprocess.run(["ldd", str(lib_path)], capture_output=True,
                          text=True).stdout
    assert "libMLIR" not in deps and "libstdc++" not in deps
    lib = ctypes.CDLL(str(lib_path))
    entry = lib.traced_forward
    entry.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2
    entry.restype = ctypes.c_int
    inp = np.ascontiguousarray(x.numpy())
    out = np.empty(x.shape, np.int64)
    ins = (ctypes.c_void_p * 1)(inp.ctypes.data)
    outs = (ctypes.c_void_p * 1)(out.ctypes.data)
    assert entry(ins, outs) == 0
    np.testing.assert_array_equal(out, torch.argsort(x, dim=-1).numpy())
