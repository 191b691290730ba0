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
