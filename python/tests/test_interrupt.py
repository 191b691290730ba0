"""Ctrl-C during a compile (docs/reliability.md, "Ctrl-C"): the compile
stops at the next pass or LLVM stage and raises KeyboardInterrupt; nothing
is stored in the compile cache, and the process compiles and runs models
afterwards. In a child process, which a shell sends SIGINT to as a
terminal would (a Python thread could not: the compile holds the GIL)."""
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(r"""
    import os, subprocess, sys, tempfile
    import numpy as np, torch, torchvision, traced
    torch.manual_seed(0)
    m = traced.trace(torchvision.models.resnet18().eval(),
                     torch.randn(1, 3, 224, 224))
    cache = tempfile.mkdtemp()
    # SIGINT 0.5 s into the compile, which takes seconds.
    subprocess.Popen(["sh", "-c", f"sleep 0.5; kill -INT {os.getpid()}"])
    try:
        traced.compile(m, cache=cache)
        print("completed")
    except KeyboardInterrupt:
        print("interrupted; cache entries:", len(os.listdir(cache)))
    fn = traced.compile(m, cache=cache)
    x = torch.randn(1, 3, 224, 224)
    (want,) = m.interpret(x)
    torch.testing.assert_close(torch.as_tensor(fn(x.numpy())), want,
                               rtol=1e-4, atol=1e-4)
    print("usable; cache entries:", len(os.listdir(cache)))
""")


def test_ctrl_c_during_compile_leaves_the_process_usable():
    r = subprocess.run([sys.executable, "-c", CHILD], capture_output=True,
                       text=True, timeout=600, env=dict(os.environ))
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.splitlines()
    assert lines == ["interrupted; cache entries: 0",
                     "usable; cache entries: 1"], r.stdout + r.stderr[-2000:]
