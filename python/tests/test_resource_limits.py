"""Resource limits and allocation failures (docs/reliability.md, "Resource
limits"): max_tensor_bytes and max_ops, set from Python or the environment,
and compiled code whose temporary cannot be allocated. Each is a
traced.ResourceError (also a MemoryError) naming the limit; the process,
the compiled module and its buffer cache stay usable."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import traced


class Outer(torch.nn.Module):
    """A [n, 1024, 1024] temporary (the outer products) that compiled code
    allocates at run time: the matmul reads it, so it cannot fuse away."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.linspace(-1, 1, 1024 * 4).reshape(1024, 4))

    def forward(self, x):
        y = (x.unsqueeze(2) * x.unsqueeze(1)) @ self.w
        return y.sum(dim=(1, 2))


@pytest.fixture(scope="module")
def outer():
    m = traced.trace(Outer(), torch.ones(2, 1024), dynamic_dims={0: "n"})
    return m, traced.compile(m)


def _x(n):
    return np.random.default_rng(n).standard_normal((n, 1024)).astype(np.float32)


def test_defaults_and_set_limits():
    d = traced.get_limits()
    assert set(d) == {"max_tensor_bytes", "max_ops"}
    assert d["max_ops"] == 1 << 24 and d["max_tensor_bytes"] > 1 << 20
    with traced.limits(max_ops=100) as now:
        assert now["max_ops"] == 100
        assert now["max_tensor_bytes"] == d["max_tensor_bytes"]
        old = traced.set_limits(max_tensor_bytes=12345)
        assert old["max_ops"] == 100
        assert traced.get_limits()["max_tensor_bytes"] == 12345
        traced.set_limits(max_tensor_bytes=0)  # 0: the default again
        assert traced.get_limits()["max_tensor_bytes"] == d["max_tensor_bytes"]
    assert traced.get_limits() == d
    for bad in (-1, 1.5, True, "1", 1 << 64):
        with pytest.raises(ValueError):
            traced.set_limits(max_ops=bad)
    assert traced.get_limits() == d


def test_error_class():
    assert issubclass(traced.ResourceError, traced.Error)
    assert issubclass(traced.ResourceError, MemoryError)


def test_compiled_temporary_over_the_limit(outer):
    m, fn = outer
    x = _x(2)
    expected = fn(x)
    torch.testing.assert_close(torch.from_numpy(expected),
                               Outer().forward(torch.from_numpy(x)),
                               rtol=1e-4, atol=1e-3)
    with traced.limits(max_tensor_bytes=1 << 20):
        with pytest.raises(traced.ResourceError,
                           match=r"out of memory: compiled code could not allocate "
                                 r"\d+ bytes for a temporary, more than the limit "
                                 r"max_tensor_bytes \(1048576 bytes"):
            fn(x)
    # The module and the cache are unharmed.
    np.testing.assert_array_equal(fn(x), expected)


def test_interpreter_over_the_limit(outer):
    m, _ = outer
    with traced.limits(max_tensor_bytes=1 << 20):
        with pytest.raises(traced.ResourceError, match=r"max_tensor_bytes"):
            m.interpret(torch.ones(2, 1024))
    m.interpret(torch.ones(2, 1024))


def test_compile_refuses_a_static_value_over_the_limit():
    m = traced.trace(Outer(), torch.ones(2, 1024))
    with traced.limits(max_tensor_bytes=1 << 20):
        with pytest.raises(traced.ResourceError,
                           match=r"a compiled tensor<2x1024x1024xf32> would take "
                                 r"8388608 bytes, more than the limit max_tensor_bytes"):
            traced.compile(m)


def test_output_over_the_limit():
    class Expand(torch.nn.Module):
        def forward(self, x):
            return x.unsqueeze(1) * x.unsqueeze(0)
    m = traced.trace(Expand(), torch.ones(4), dynamic_dims={0: "n"})
    fn = traced.compile(m)
    with traced.limits(max_tensor_bytes=1 << 16):
        with pytest.raises(traced.ResourceError,
                           match=r"an output of shape \[200, 200\] would take 160000 bytes"):
            fn(np.ones(200, np.float32))
        assert fn(np.ones(100, np.float32)).shape == (100, 100)


def test_failed_calls_return_their_blocks(outer):
    """A call that fails after allocating gives its blocks back: 300 failed
    calls hold the resident size to about what one call holds."""
    class TwoTemps(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w1 = torch.nn.Parameter(torch.ones(1024, 2048) / 1024)
            self.w2 = torch.nn.Parameter(torch.ones(2048, 4))

        def forward(self, x):
            a = x @ self.w1                                   # [n, 2048]: 8 KiB a row
            b = (a.unsqueeze(2) * a.unsqueeze(1)) @ self.w2   # a [n, 2048, 2048] temporary
            return a.sum() + b.sum()
    m = traced.trace(TwoTemps(), torch.ones(2, 1024), dynamic_dims={0: "n"})
    fn = traced.compile(m)
    x = np.ones((64, 1024), np.float32)

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    with traced.limits(max_tensor_bytes=8 << 20):
        for _ in range(5):
            with pytest.raises(traced.ResourceError):
                fn(x)
        before = rss()
        for _ in range(300):
            with pytest.raises(traced.ResourceError):
                fn(x)
        grown = rss() - before
    # Without the unwinding's frees each call would keep its 512 KiB `a`:
    # 150 MiB.
    assert grown < 64 << 20, grown


def test_system_refusal_is_a_resource_error():
    """malloc itself fails (an address-space limit below the request): the
    call raises, and the process goes on. In a child, so that the limit
    binds nobody else."""
    code = textwrap.dedent(r"""
        import resource, numpy as np, torch, traced
        import test_resource_limits as t
        m = traced.trace(t.Outer(), torch.ones(2, 1024), dynamic_dims={0: "n"})
        fn = traced.compile(m)
        x = t._x(2)
        want = fn(x)
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (size + (2 << 30),) * 2)
        traced.set_limits(max_tensor_bytes=1 << 62)
        try:
            fn(np.ones((1024, 1024), np.float32))   # a 4 GiB temporary
        except traced.ResourceError as e:
            print("raised:", e)
        np.testing.assert_array_equal(fn(x), want)
        print("usable")
    """)
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([os.path.dirname(__file__)] + sys.path))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "raised: out of memory: compiled code could not allocate 4294967360 bytes" \
        in r.stdout, r.stdout
    assert "usable" in r.stdout


def test_max_ops():
    m = traced.trace(Outer(), torch.ones(2, 1024))
    text = str(m)
    with traced.limits(max_ops=5):
        with pytest.raises(traced.ResourceError, match=r"holds more than 5 operations, "
                                                       r"the limit max_ops"):
            traced.parse(text)
        with pytest.raises(traced.ResourceError, match="max_ops"):
            traced.trace(Outer(), torch.ones(2, 1024))
        with pytest.raises(traced.ResourceError, match="max_ops"):
            traced.compile(m)
    assert str(traced.parse(text)) == text


def test_environment_sets_the_defaults():
    code = "import traced; print(traced.get_limits())"
    env = dict(os.environ, TRACED_MAX_TENSOR_BYTES="4096", TRACED_MAX_OPS="77")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.stdout.strip() == "{'max_tensor_bytes': 4096, 'max_ops': 77}", r.stderr
