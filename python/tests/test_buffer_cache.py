"""Temporaries are kept between calls (lib/ExecutionEngine/BufferCache.h):
with glibc told to mmap every block over 64 KiB (so a freed temporary goes
back to the kernel at once), a compiled model still page-faults almost
never after its first call, through the JIT and through save_library's
library. Without the cache each call faulted its temporaries in again
(ResNet-18 in bench/cpu.py's process: 14,635 faults a call, +30 ms)."""
import subprocess
import sys

SCRIPT = r"""
import ctypes, resource, sys
import numpy as np, torch, traced
libc = ctypes.CDLL("libc.so.6")
M_MMAP_THRESHOLD, M_TRIM_THRESHOLD = -3, -1
assert libc.mallopt(M_MMAP_THRESHOLD, 65536) == 1
assert libc.mallopt(M_TRIM_THRESHOLD, 65536) == 1
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(),
    torch.nn.Conv2d(32, 32, 3, padding=1), torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten()).eval()
x = torch.randn(1, 3, 128, 128)
tm = traced.trace(model, x)
want = model(x).detach().numpy()
xn = x.numpy()

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

if sys.argv[1] == "jit":
    compiled = traced.compile(tm, progress=False)
    run = lambda: compiled(xn)
else:
    traced.save_library(tm, sys.argv[2], progress=False)
    lib = ctypes.CDLL(sys.argv[2])
    out = np.empty((1, 32), np.float32)
    ins = (ctypes.c_void_p * 1)(xn.ctypes.data)
    outs = (ctypes.c_void_p * 1)(out.ctypes.data)
    def run():
        assert lib.traced_forward(ins, outs) == 0
        return out
got = run()
assert np.abs(got - want).max() < 1e-4
start = faults()
for _ in range(10):
    run()
print((faults() - start) / 10)
"""


def faults_per_call(*args):
    done = subprocess.run([sys.executable, "-c", SCRIPT, *args],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return float(done.stdout.split()[-1])


def test_jit_keeps_temporaries():
    # Its im2col buffer alone is 18 MiB: 4,600 pages a call without the cache.
    assert faults_per_call("jit") < 50


def test_library_keeps_temporaries(tmp_path):
    assert faults_per_call("library", str(tmp_path / "model.so")) < 50
