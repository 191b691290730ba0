"""The on-disk compile cache (docs/cpu.md, "Compile cache"): a second
traced.compile of the same module loads the object the first one stored,
skipping the MLIR pipeline and LLVM; anything that changes the code (a
weight, an option) misses; a damaged entry is compiled again; the cache
stays under its size limit."""
import os

import numpy as np
import pytest
import torch

import traced


class _Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 6 * 6, 5)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def _entries(directory):
    return sorted(p for p in os.listdir(directory) if p.endswith(".tco"))


def test_second_compile_is_a_hit(tmp_path):
    net = _Net().eval()
    x = torch.randn(2, 3, 6, 6)
    tm = traced.trace(net, x)
    first = traced.compile(tm, cache=tmp_path)
    assert not first.from_cache
    assert len(_entries(tmp_path)) == 1
    second = traced.compile(tm, cache=tmp_path)
    assert second.from_cache
    assert len(_entries(tmp_path)) == 1
    with torch.no_grad():
        expected = net(x).numpy()
    np.testing.assert_allclose(first(x), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(second(x), first(x))
    assert second.input_specs == first.input_specs
    assert second.output_specs == first.output_specs
    # A fresh trace of the same model (another context, other blob handles)
    # has the same key.
    third = traced.compile(traced.trace(net, x), cache=str(tmp_path))
    assert third.from_cache


def test_changes_miss(tmp_path):
    net = _Net().eval()
    x = torch.randn(1, 3, 6, 6)
    traced.compile(traced.trace(net, x), cache=tmp_path)
    with torch.no_grad():
        net.fc.weight[0, 0] += 1.0
    changed = traced.compile(traced.trace(net, x), cache=tmp_path)
    assert not changed.from_cache
    with torch.no_grad():
        np.testing.assert_allclose(changed(x), net(x).numpy(), rtol=1e-5, atol=1e-6)
    plain = traced.compile(traced.trace(net, x), cache=tmp_path, vectorize=False)
    assert not plain.from_cache
    assert len(_entries(tmp_path)) == 3


def test_off(tmp_path, monkeypatch):
    net = _Net().eval()
    tm = traced.trace(net, torch.randn(1, 3, 6, 6))
    assert not traced.compile(tm, cache=False).from_cache
    # The default directory comes from the environment; TRACED_CACHE=0
    # (as this suite's conftest sets) turns the default off.
    monkeypatch.setenv("TRACED_CACHE_DIR", str(tmp_path))
    assert not traced.compile(tm).from_cache
    assert _entries(tmp_path) == []
    monkeypatch.setenv("TRACED_CACHE", "1")
    assert not traced.compile(tm).from_cache
    assert len(_entries(tmp_path)) == 1
    assert traced.compile(tm).from_cache


def test_damaged_entry_is_compiled_again(tmp_path):
    net = _Net().eval()
    x = torch.randn(1, 3, 6, 6)
    tm = traced.trace(net, x)
    expected = traced.compile(tm, cache=tmp_path)(x)
    (entry,) = _entries(tmp_path)
    path = tmp_path / entry
    data = path.read_bytes()
    # Cut short, not an entry, a flipped byte near the end (in the weights
    # stored after the object; the checksum catches what the format
    # cannot). The entry written again is the same bytes: a weight's
    # recorded alignment is the code's, not whatever its blob had.
    flipped = bytearray(data)
    flipped[len(data) - 100] ^= 0xFF
    for damaged in (data[: len(data) // 2], b"not a cache entry", bytes(flipped)):
        path.write_bytes(damaged)
        again = traced.compile(tm, cache=tmp_path)
        assert not again.from_cache
        np.testing.assert_array_equal(again(x), expected)
        assert path.read_bytes() == data
    assert path.read_bytes() != b"not a cache entry"
    assert traced.compile(tm, cache=tmp_path).from_cache


def test_size_limit_evicts_least_recent(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACED_CACHE_MAX_MB", "0")
    x = torch.randn(1, 3, 6, 6)
    traced.compile(traced.trace(_Net().eval(), x), cache=tmp_path)
    traced.compile(traced.trace(_Net().eval(), x), cache=tmp_path)
    # Over the limit, only the entry just written stays.
    assert len(_entries(tmp_path)) == 1


class _Gather(torch.nn.Module):
    def forward(self, x, i):
        return x[i] * 2


def test_run_time_checks_and_dynamic_dims_survive(tmp_path):
    x = torch.arange(5, dtype=torch.float32)
    tm = traced.trace(_Gather(), x, torch.tensor([1, -2]))
    traced.compile(tm, cache=tmp_path)
    cached = traced.compile(tm, cache=tmp_path)
    assert cached.from_cache
    with pytest.raises(traced.Error, match="out of bounds for dimension 0 with size 5"):
        cached(x, torch.tensor([1, 5]))
    net = _Net().eval()
    dyn = traced.trace(net, torch.randn(2, 3, 6, 6), dynamic_dims={0: "batch"})
    traced.compile(dyn, cache=tmp_path)
    cached = traced.compile(dyn, cache=tmp_path)
    assert cached.from_cache and cached.dim_names == ["batch"]
    for batch in (1, 4):
        xb = torch.randn(batch, 3, 6, 6)
        with torch.no_grad():
            np.testing.assert_allclose(cached(xb), net(xb).numpy(), rtol=1e-5, atol=1e-6)


class _Layers(torch.nn.Module):
    """Enough generated functions for the LLVM module to be split."""

    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16),
            torch.nn.ReLU(),
            torch.nn.Conv2d(16, 24, 3, stride=2, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(24, 24, 3, padding=1, groups=24), torch.nn.ReLU6(),
            torch.nn.Conv2d(24, 32, 1), torch.nn.MaxPool2d(2))
        self.fc = torch.nn.Linear(32 * 4 * 4, 10)

    def forward(self, x):
        return torch.softmax(self.fc(self.body(x).flatten(1)), -1)


def test_split_compile_is_cached_and_matches_one_part(tmp_path, monkeypatch):
    """A module compiled in parts on several threads (docs/cpu.md, "Compile
    time") links from several objects, stores them all in the cache entry
    and computes what the one-part compile does."""
    torch.manual_seed(0)
    net = _Layers().eval()
    with torch.no_grad():
        net.body[1].running_mean.uniform_(-0.5, 0.5)
        net.body[1].running_var.uniform_(0.5, 2.0)
    x = torch.randn(2, 3, 16, 16)
    tm = traced.trace(net, x)
    monkeypatch.setenv("TRACED_COMPILE_THREADS", "1")
    whole = traced.compile(tm, cache=False, timing=True)
    assert "split the LLVM module" not in whole.timing_report
    monkeypatch.setenv("TRACED_COMPILE_THREADS", "2")
    split = traced.compile(tm, cache=tmp_path, timing=True)
    assert "split the LLVM module" in split.timing_report
    assert "parts on 2 threads" in split.timing_report
    cached = traced.compile(tm, cache=tmp_path)
    assert cached.from_cache
    with torch.no_grad():
        expected = net(x).numpy()
    np.testing.assert_allclose(split(x), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(split(x), whole(x))
    np.testing.assert_array_equal(cached(x), split(x))
