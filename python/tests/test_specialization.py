"""Guards, not silent specialization (docs/python.md, "Guards"): what a
trace fixes (a data-dependent branch, a tensor read as a Python number, a
Python-number argument) is checked on every call by the interpreter and by
compiled code, or is a real input of the graph.
"""
import warnings

import numpy as np
import pytest
import torch

import traced


class Branch(torch.nn.Module):
    """Python control flow on a tensor: torch.fx refuses it."""

    def forward(self, x):
        y = x * 3
        if x.sum() > 0:
            y = y * 2
        else:
            y = y - 1
        return y


class Where(torch.nn.Module):
    """The same model without Python control flow."""

    def forward(self, x):
        y = x * 3
        return torch.where(x.sum() > 0, y * 2, y - 1)


def _trace_quietly(module, *inputs, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", traced.TracerWarning)
        return traced.trace(module, *inputs, **kwargs)


def _callers(tm):
    return {"interpret": lambda *a: tm.interpret(*a)[0],
            "compile": traced.compile(tm)}


def test_auto_warns_when_it_falls_back_to_concrete():
    with pytest.warns(traced.TracerWarning,
                      match="symbolically traced variables cannot be used as "
                            "inputs to control flow") as seen:
        tm = traced.trace(Branch(), torch.ones(4))
    # The warning points at the user's call of traced.trace.
    assert seen[0].filename == __file__
    assert tm.trace_mode == "concrete"
    with warnings.catch_warnings():
        warnings.simplefilter("error", traced.TracerWarning)
        assert traced.trace(Where(), torch.ones(4)).trace_mode == "symbolic"
    assert traced.trace(Branch(), torch.ones(4), mode="concrete").trace_mode \
        == "concrete"
    assert traced.parse(str(tm)).trace_mode is None


@pytest.mark.parametrize("how", ["interpret", "compile"])
def test_a_branch_the_trace_did_not_see_raises(how):
    tm = _trace_quietly(Branch(), torch.ones(4))
    call = _callers(tm)[how]
    ones = np.ones(4, np.float32)
    # The traced branch still answers, as torch does.
    torch.testing.assert_close(torch.as_tensor(np.asarray(call(ones))),
                               Branch()(torch.from_numpy(ones)))
    other = np.ones(4, np.float32) * 0.5  # the same branch: no error
    torch.testing.assert_close(torch.as_tensor(np.asarray(call(other))),
                               Branch()(torch.from_numpy(other)))
    line = Branch.forward.__code__.co_firstlineno + 2
    with pytest.raises(traced.Error,
                       match=rf"this input takes a branch the trace did not "
                             rf"see \(test_specialization.py:{line}\); trace again"):
        call(-np.ones(4, np.float32))


def test_the_false_branch_is_guarded_too():
    tm = _trace_quietly(Branch(), -torch.ones(4))
    assert "torch.logical_not" in str(tm)
    for how, call in _callers(tm).items():
        torch.testing.assert_close(
            torch.as_tensor(np.asarray(call(-np.ones(4, np.float32)))),
            Branch()(-torch.ones(4)))
        with pytest.raises(traced.Error, match="takes a branch the trace did not see"):
            call(np.ones(4, np.float32))


@pytest.mark.parametrize("how", ["interpret", "compile"])
def test_where_needs_no_guard(how):
    tm = traced.trace(Where(), torch.ones(4))
    assert "torch._assert" not in str(tm)
    call = _callers(tm)[how]
    for x in (torch.ones(4), -torch.ones(4), torch.randn(4)):
        torch.testing.assert_close(
            torch.as_tensor(np.asarray(call(x.numpy()))), Where()(x))


class Reads(torch.nn.Module):
    """A tensor's data read as Python numbers, which the trace inlines."""

    def forward(self, x):
        k = int(x.max())            # truncates: 2.5 and 2.9 read the same
        s = x.mean().item()
        return x * k + s


@pytest.mark.parametrize("how", ["interpret", "compile"])
def test_values_read_as_python_numbers_are_guarded(how):
    x = torch.tensor([0.5, 2.5, 1.0, -1.0])
    tm = _trace_quietly(Reads(), x, mode="concrete")
    call = _callers(tm)[how]
    torch.testing.assert_close(torch.as_tensor(call(x.numpy())), Reads()(x))
    with pytest.raises(traced.Error, match="read as a Python number"):
        call((x * 2).numpy())  # another max and mean
    # int() of 2.9 is int() of 2.5; the mean still differs.
    y = torch.tensor([0.5, 2.9, 1.0, -1.4])
    torch.testing.assert_close(torch.as_tensor(call(y.numpy())), Reads()(y))


def test_float_guards_allow_the_rounding_of_compiled_sums():
    # A long reduction read as a number: compiled code sums in another order
    # than torch, which an exact comparison would refuse.
    torch.manual_seed(0)
    x = torch.randn(4096) * 100 + 3

    class Scale(torch.nn.Module):
        def forward(self, x):
            return x / x.sum().item()
    tm = _trace_quietly(Scale(), x, mode="concrete")
    for how, call in _callers(tm).items():
        torch.testing.assert_close(torch.as_tensor(np.asarray(call(x.numpy()))),
                                   Scale()(x))


def test_tolist_is_guarded():
    class Sizes(torch.nn.Module):
        def forward(self, x, n):
            return x.repeat(*n.tolist())
    n = torch.tensor([2, 1])
    tm = _trace_quietly(Sizes(), torch.ones(2, 3), n, mode="concrete")
    assert tm.interpret(np.ones((2, 3), np.float32), n.numpy())[0].shape == (4, 3)
    with pytest.raises(traced.InterpretError, match="read as a Python number"):
        tm.interpret(np.ones((2, 3), np.float32), np.array([3, 1]))


def test_data_reads_the_op_library_does_not_describe_warn():
    class Equal(torch.nn.Module):
        def forward(self, x, y):
            if torch.equal(x, y):
                return x
            return x + y
    with pytest.warns(traced.TracerWarning,
                      match="equal reads tensor data as a Python value"):
        traced.trace(Equal(), torch.ones(3), torch.ones(3), mode="concrete")


class Scaled(torch.nn.Module):
    def forward(self, x, scale: float = 1.0, n: int = 2, flag: bool = True):
        y = x * scale + n // 2
        return y * (scale * 2) * flag


@pytest.mark.parametrize("how", ["interpret", "compile"])
def test_python_number_arguments_are_graph_inputs(how):
    # torch.fx records them as placeholders: ops read them, and compiled
    # code takes them as 0-d int64/float64/bool values.
    tm = traced.trace(Scaled(), torch.ones(3), 2.0, 3, True, mode="symbolic")
    call = _callers(tm)[how]
    x = torch.randn(3)
    for scale, n, flag in ((2.0, 3, True), (3.0, 5, False), (-0.5, -7, True)):
        got = call(x.numpy(), scale, n, flag)
        torch.testing.assert_close(torch.as_tensor(np.asarray(got)),
                                   Scaled()(x, scale, n, flag))


def test_compiled_python_number_inputs_have_0d_specs():
    tm = traced.trace(Scaled(), torch.ones(3), 2.0, 3, True, mode="symbolic")
    c = traced.compile(tm)
    assert [spec for spec in c.input_specs] == [
        ((3,), np.dtype(np.float32)), ((), np.dtype(np.float64)),
        ((), np.dtype(np.int64)), ((), np.dtype(np.bool_))]


@pytest.mark.parametrize("how", ["interpret", "compile"])
def test_concrete_traces_guard_python_number_arguments(how):
    tm = traced.trace(Scaled(), torch.ones(3), 2.0, 3, True, mode="concrete")
    call = _callers(tm)[how]
    x = torch.randn(3)
    torch.testing.assert_close(
        torch.as_tensor(np.asarray(call(x.numpy(), 2.0, 3, True))),
        Scaled()(x, 2.0, 3, True))
    with pytest.raises(traced.Error,
                       match="input 'scale' was 2.0 when traced.*mode='symbolic'"):
        call(x.numpy(), 3.0, 3, True)
    with pytest.raises(traced.Error, match="input 'flag' was True when traced"):
        call(x.numpy(), 2.0, 3, False)


def test_compiled_python_number_inputs_follow_pythons_conversions():
    tm = traced.trace(Scaled(), torch.ones(3), 2.0, 3, True, mode="symbolic")
    c = traced.compile(tm)
    x = torch.randn(3)
    # An int where the graph takes a float, as Python converts it; numpy
    # scalars and 0-d tensors too.
    torch.testing.assert_close(c(x, 3, np.int64(5), np.bool_(True)),
                               Scaled()(x, 3.0, 5, True))
    torch.testing.assert_close(c(x, torch.tensor(0.5, dtype=torch.float64), 2, False),
                               Scaled()(x, 0.5, 2, False))
    with pytest.raises(traced.InputError, match=r"input 3 \('n'\) is a float; "
                       r".* takes a Python int there \(pass cast=True"):
        c(x, 1.0, 2.5, True)
    with pytest.raises(traced.InputError, match=r"input 2 \('scale'\) is a str"):
        c(x, "2", 2, True)
    with pytest.raises(traced.InputError, match=r"has shape \(2,\)"):
        c(x, np.ones(2), 2, True)


def test_python_number_inputs_beside_dynamic_dims():
    tm = traced.trace(Scaled(), torch.ones(2, 3), 2.0, 3, True, mode="symbolic",
                      dynamic_dims=[{0: "batch"}, None, None, None])
    c = traced.compile(tm)
    x = torch.randn(5, 3)
    torch.testing.assert_close(c(x, 0.5, 4, True), Scaled()(x, 0.5, 4, True))


class OneHot(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.one_hot(x) * 2


class SplitAt(torch.nn.Module):
    def forward(self, x, at):
        return x.tensor_split(at)[1] + 1


@pytest.mark.parametrize("path", ["interpret", "compiled"])
def test_result_sizes_read_from_data_are_guarded(path):
    """one_hot(x) (num_classes=-1) sizes its result by x.max() + 1, and
    tensor_split by a tensor of indices: the trace reads them as Python
    numbers (`int(x.max()) + 1`, `t.tolist()`), so the result shape is
    static, and a guard refuses an input that would size it otherwise."""
    x = torch.tensor([0, 3, 1])
    tm = traced.trace(OneHot(), x)
    run = tm.interpret if path == "interpret" else traced.compile(tm, cache=False)
    same_max = torch.tensor([2, 3, 3, 0][:3])
    got = run(same_max)
    got = got[0] if isinstance(got, list) else got
    np.testing.assert_array_equal(np.asarray(got), OneHot()(same_max).numpy())
    with pytest.raises(Exception, match="trace again"):
        run(torch.tensor([2, 1, 0]))

    a, at = torch.randn(5, 4), torch.tensor([1, 3])
    tm = traced.trace(SplitAt(), a, at)
    run = tm.interpret if path == "interpret" else traced.compile(tm, cache=False)
    b = torch.randn(5, 4)
    got = run(b, at)
    got = got[0] if isinstance(got, list) else got
    np.testing.assert_allclose(np.asarray(got), SplitAt()(b, at).numpy())
    with pytest.raises(Exception, match="trace again"):
        run(b, torch.tensor([1, 2]))
