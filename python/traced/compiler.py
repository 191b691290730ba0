"""traced.compile: native code for traced modules (docs/cpu.md)."""
import os
import shutil
import subprocess
import tempfile

import numpy as np

from . import _traced
from ._traced import Error

_DTYPES = {"f32": np.float32, "f64": np.float64, "i64": np.int64}


def _numpy_dtype(name):
    if name not in _DTYPES:
        raise Error(f"compiled models take f32, f64 and i64 tensors, not {name}")
    return np.dtype(_DTYPES[name])


class CompiledModule:
    """A traced module compiled once for the CPU; call it many times.

    Calling it with numpy arrays (or anything np.asarray accepts) of the
    traced shapes and dtypes returns the outputs as new numpy arrays: one
    array for a single output, a tuple otherwise.
    """

    def __init__(self, cpu, entry):
        self._cpu = cpu
        self.entry = entry
        inputs, outputs = cpu.signature
        self.input_specs = [(tuple(s), _numpy_dtype(d)) for s, d in inputs]
        self.output_specs = [(tuple(s), _numpy_dtype(d)) for s, d in outputs]

    def __call__(self, *inputs):
        if len(inputs) != len(self.input_specs):
            raise Error(f"the compiled graph takes {len(self.input_specs)} "
                        f"inputs, got {len(inputs)}")
        arrays = []
        for i, (x, (shape, dtype)) in enumerate(zip(inputs, self.input_specs)):
            if hasattr(x, "detach"):  # a torch tensor
                x = x.detach().cpu().numpy()
            a = np.asarray(x)
            if a.shape != shape:
                raise Error(f"input {i} has shape {a.shape}; the compiled "
                            f"graph takes {shape}")
            if a.dtype != dtype:
                if not np.can_cast(a.dtype, dtype, casting="same_kind"):
                    raise Error(f"input {i} has dtype {a.dtype}; the compiled "
                                f"graph takes {dtype}")
                a = a.astype(dtype)
            arrays.append(np.ascontiguousarray(a))
        outputs = [np.empty(shape, dtype) for shape, dtype in self.output_specs]
        self._cpu.run([a.ctypes.data for a in arrays],
                      [o.ctypes.data for o in outputs])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


def compile(module, target="cpu", entry="forward", vectorize=True, tile_n=0,
            surgery=True, pack_rhs=True):
    """Compiles a traced.Module's root graph for `target` ("cpu") and returns
    a CompiledModule, with traced-cpu-pipeline on a copy (`module` itself is
    not changed). `surgery`: run traced-flatten, traced-normalize,
    traced-fuse-conv-bn and canonicalize first (off: the root graph must
    already be flat and is lowered call by call); `vectorize`: tile and
    vectorize (off: plain loops); `tile_n`: register tile columns (32 for
    AVX-512, 16 for AVX2; 0 picks by this CPU); `pack_rhs`: copy matmul
    right-hand sides into contiguous column panels first (docs/cpu.md)."""
    if target != "cpu":
        raise Error(f"unknown target '{target}' (known: cpu)")
    return CompiledModule(
        _traced.compile_cpu(module._state, entry, vectorize, tile_n, surgery,
                            pack_rhs),
        entry)


def _find_linker():
    for name in ("clang-22", "clang", "cc", "gcc"):
        path = shutil.which(name) or (
            f"/usr/lib/llvm-22/bin/{name}"
            if os.path.exists(f"/usr/lib/llvm-22/bin/{name}") else None)
        if path:
            return path
    raise Error("no C compiler driver (clang-22, cc) to link the library")


#: Where Debian's libomp-22-dev puts the OpenMP runtime parallel loops call.
_LIBOMP_DIR = "/usr/lib/llvm-22/lib"


def save_library(module, path, entry="forward", vectorize=True):
    """Compiles `module` ahead of time into a shared library at `path`
    exporting `void traced_<entry>(void **inputs, void **outputs)`; it
    depends only on libc, libm and, when a contraction runs on several
    threads, libomp. Returns the path."""
    path = os.fspath(path)
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "model.o")
        _traced.write_cpu_object(module._state, obj, entry, vectorize)
        subprocess.run([_find_linker(), "-shared", "-o", path, obj,
                        f"-L{_LIBOMP_DIR}", "-Wl,--as-needed", "-lomp", "-lm",
                        f"-Wl,-rpath,{_LIBOMP_DIR}"], check=True)
    return path
