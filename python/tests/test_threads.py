"""One compiled module, and one traced module's interpreter, called from 8
Python threads at once give each caller its own correct result (issue 55,
docs/reliability.md "Soak and threads")."""
import threading

import numpy as np
import torch

import traced


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(),
                               torch.nn.Linear(64, 8)).eval()


def _hammer(call, model, threads=8, rounds=25):
    errors = []
    barrier = threading.Barrier(threads)

    def work(k):
        rng = np.random.RandomState(k)
        barrier.wait()
        try:
            for _ in range(rounds):
                x = rng.randn(4, 16).astype(np.float32)
                got = np.asarray(call(x))
                expected = model(torch.from_numpy(x)).detach().numpy()
                np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"thread {k}: {e!r}")

    pool = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors, "\n".join(errors)


def test_one_compiled_module_from_8_threads():
    model = _model()
    fn = traced.compile(traced.trace(model, torch.randn(4, 16)))
    _hammer(fn, model)


def test_one_interpreter_from_8_threads():
    model = _model()
    m = traced.trace(model, torch.randn(4, 16))
    _hammer(lambda x: m.interpret(x)[0], model)
