"""A compiled module outlives the traced module it came from (issue 55):
its signature used to be read from types owned by the traced module's
MLIR context, so `fn._cpu.signature` after `del m` read freed memory."""
import gc

import numpy as np
import torch

import traced


def test_compiled_module_outlives_its_traced_module():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    x = torch.randn(3, 4)
    m = traced.trace(model, x)
    fn = traced.compile(m)
    cpu = fn._cpu
    del m
    gc.collect()
    assert cpu.signature == ([([3, 4], "f32")], [([3, 2], "f32")])
    torch.testing.assert_close(torch.as_tensor(np.asarray(fn(x.numpy()))),
                               model(x).detach())
    del fn
    gc.collect()
    assert cpu.signature[1] == [([3, 2], "f32")]


def test_tracing_leaves_no_generated_code_in_torch_fx_caches():
    """torch.fx caches each GraphModule's source for the life of the
    process; the tracer's own GraphModules are forgotten after the trace
    (the soak's 0.7 KB a cycle, docs/reliability.md)."""
    import linecache

    import torch.fx.graph_module as fx_graph_module
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    traced.trace(model, torch.ones(1, 4), mode="symbolic")  # warm
    cache = fx_graph_module._loader.eval_cache
    before_cache, before_lines = set(cache), set(linecache.cache)
    for _ in range(3):
        traced.trace(model, torch.ones(1, 4), mode="symbolic")
    assert set(cache) - before_cache == set()
    assert {k for k in set(linecache.cache) - before_lines
            if k.startswith("<eval_with_key>")} == set()
