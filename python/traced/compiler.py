"""traced.compile: native code for traced modules (docs/cpu.md)."""
from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import tempfile
import weakref

from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _calls, _tools, _traced
from ._traced import Error
from .errors import CompileError, InputError, ResourceError, raising
from .module import Module

#: The element types compiled graphs take and return, by their MLIR
#: spelling. bfloat16 has no numpy dtype: its buffers hold the raw bits as
#: uint16 (see `_calls.tensor_array` and `_from_array`).
_DTYPES = {
    "i1": np.bool_, "ui8": np.uint8, "i8": np.int8, "i16": np.int16,
    "i32": np.int32, "i64": np.int64, "f16": np.float16, "bf16": np.uint16,
    "f32": np.float32, "f64": np.float64,
}


#: torch's names of the compiled element types (inputs are checked against
#: them; CUDA tensor outputs are made with them).
_TORCH_DTYPES = {
    "i1": "bool", "ui8": "uint8", "i8": "int8", "i16": "int16", "i32": "int32",
    "i64": "int64", "f16": "float16", "bf16": "bfloat16", "f32": "float32",
    "f64": "float64",
}


def _numpy_dtype(name):
    if name not in _DTYPES:
        raise Error(f"compiled models cannot take or return {name} tensors "
                    f"(supported: {', '.join(_DTYPES)})")
    return np.dtype(_DTYPES[name])


def _shape_text(shape):
    """(3, -1) as "(3, ?)": a signature's shape, `?` for a dynamic dim."""
    return _calls.shape_text(shape)


def _from_array(a, bf16):
    """An output buffer as what the caller gets: the array itself, or for
    bfloat16 a torch.bfloat16 tensor sharing its bits."""
    if not bf16:
        return a
    import torch
    return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)


def _same_memory(x, a) -> bool:
    """Whether the caller's argument `x` is the memory of buffer `a`."""
    if x is a:
        return True
    import torch
    return isinstance(x, torch.Tensor) and x.numel() > 0 and \
        x.data_ptr() == a.ctypes.data


def _output_array(shape, dtype, allocate=np.empty):
    """A compiled call's output array (or what `allocate(shape, dtype)`
    makes), held to max_tensor_bytes like the temporaries compiled code
    allocates (traced.set_limits); an out-of-memory error becomes a
    ResourceError."""
    count = 1
    for d in shape:
        count *= int(d)
    size = count * np.dtype(dtype).itemsize
    if size > _traced.get_limits()[0]:
        raise ResourceError(
            f"an output of shape {list(shape)} would take {size} bytes, more "
            f"than {_traced.describe_tensor_bytes_limit()}")
    try:
        return allocate(shape, dtype)
    except (MemoryError, RuntimeError) as e:
        if isinstance(e, RuntimeError) and "alloc" not in str(e).lower():
            raise
        raise ResourceError(f"out of memory: an output of shape {list(shape)} "
                            f"needs {size} bytes") from None


class CompiledModule:
    """A traced module compiled once for the CPU; call it many times.

    It takes the traced forward's inputs as `Module.interpret` does, by
    the same rules (docs/python.md, "Calling a traced module"):
    positionally or by the forward's parameter names; numpy arrays, torch
    tensors or anything np.asarray accepts, of the graph's dtypes
    (`cast=True` converts others) and shapes; trailing inputs the trace
    saw as None may be left out. Bad inputs raise traced.InputError. It
    returns one output, or a tuple: torch tensors when an input is a torch
    tensor, else new numpy arrays; Python numbers for the graph's scalar
    outputs. Every dtype but complex and quantized ones compiles: bool
    (one byte), uint8, int8/16/32/64, float16/32/64 and bfloat16, which
    numpy lacks: bfloat16 inputs are torch.bfloat16 tensors or uint16
    arrays of the raw bits (other values with cast=True); bfloat16 outputs
    come back as torch.bfloat16 tensors.
    """

    def __init__(self, cpu: Any, entry: str, none_inputs=(), scalar_outputs=None,
                 input_names: Optional[List[Optional[str]]] = None,
                 where: Optional[str] = None, number_inputs=None,
                 donations=()):
        # (Set by compile(): graph inputs and outputs of quantized types,
        # by index, with their parameters.)
        self._quantized_inputs: Dict[int, Any] = {}
        self._quantized_outputs: Dict[int, Any] = {}
        self._cpu = cpu
        # (compiled input index, output index): the donated inputs.
        self._donations = list(donations)
        self.entry = entry
        # How messages name the graph: "@Model::forward".
        self._where = where or f"the compiled {entry}"
        # Whether traced.compile found the object in the compile cache.
        self.from_cache = bool(getattr(cpu, "from_cache", False))
        # The thread count the last call used (traced.set_num_threads);
        # None before the first call.
        self.last_threads: Optional[int] = None
        inputs, outputs = cpu.signature
        self.input_specs = [(tuple(s), _numpy_dtype(d)) for s, d in inputs]
        self.output_specs = [(tuple(s), _numpy_dtype(d)) for s, d in outputs]
        self._output_bf16 = [d == "bf16" for _, d in outputs]
        # One InputSpec per graph input (after self), in order: "tensor"
        # for those the compiled code takes (cpu.signature's inputs), "none"
        # for those the trace saw as None (a forward's `mask=None`): the
        # compiled code does not take them; callers may pass None there or
        # leave trailing ones out, as with Module.interpret.
        none_inputs = frozenset(none_inputs)
        count = len(inputs) + len(none_inputs)
        names = list(input_names or [])
        names += [None] * (count - len(names))
        tensors = iter(inputs)
        self._inputs: List[_calls.InputSpec] = []
        for i in range(count):
            if i in none_inputs:
                self._inputs.append(_calls.InputSpec(i + 1, names[i], "none"))
                continue
            shape, dtype = next(tensors)
            # A Python number the graph takes (`forward(x, scale=1.0)`,
            # traced symbolically) is a 0-d buffer of the compiled code.
            kind = "number" if i in (number_inputs or {}) else "tensor"
            self._inputs.append(_calls.InputSpec(
                i + 1, names[i], kind,
                tuple(None if d == -1 else d for d in shape),
                _TORCH_DTYPES[dtype]))
        # Outputs the graph returns as Python numbers (`x.numel()`, a
        # `float(t)` the trace recorded): the compiled code writes them as
        # 0-d int64/float64/bool tensors, and the call gives numbers back.
        self._scalar_outputs = dict(scalar_outputs or {})
        # Dynamic dims (traced.trace(..., dynamic_dims=)): each `?` of the
        # inputs has a name; the compiled code takes the distinct names'
        # sizes and says what the outputs' shapes are for them.
        self.dynamic = any(-1 in s for s, _ in self.input_specs +
                           self.output_specs)
        self._dim_slots, self._size_names = [], []
        if self.dynamic:
            names = iter(list(cpu.dim_names))
            self._dim_slots = [[(d, next(names)) for d, s in enumerate(shape)
                                if s == -1] for shape, _ in self.input_specs]
            self._size_names = list(dict.fromkeys(
                n for slots in self._dim_slots for _, n in slots))

    @property
    def input_names(self) -> List[Optional[str]]:
        """The graph's input names (the traced forward's parameters), one
        per input after self, None-only inputs included."""
        return [spec.name for spec in self._inputs]

    def _arrays(self, inputs, named, cast, given=None):
        """The buffers the compiled code takes, one per "tensor" input, from
        the call's arguments (bound and checked by the call-path rules);
        `given`, a list, gets the argument each buffer came from."""
        bound = _calls.bind(self._inputs, inputs, named, self._where)
        arrays = []
        for spec, x in zip(self._inputs, bound):
            array = self._convert(spec, x, cast)
            if array is not None:
                arrays.append(array)
                if given is not None:
                    given.append(x)
        return arrays

    def _convert(self, spec, x, cast):
        """One input as the compiled code's buffer, by its spec's kind; None
        for an input the compiled code does not take."""
        if spec.kind == "none":
            _calls.check_none(spec, x, self._where)
            return None
        if spec.kind == "number":
            return _calls.number_array(spec, x, cast, self._where)
        qparams = self._quantized_inputs.get(spec.position - 1)
        if qparams is not None:
            x = _calls.quantized_storage(spec.label, x, qparams, self._where)
        return _calls.tensor_array(spec, x, cast, self._where)

    def __call__(self, *inputs: Any, cast: bool = False, **named: Any) -> Any:
        """Runs the compiled code on `inputs` (numpy arrays, torch tensors;
        by position or by the forward's parameter names) and returns the
        outputs: one, or a tuple; torch tensors when an input is a torch
        tensor, else numpy arrays. `cast=True` converts inputs of other
        dtypes. Inputs of the wrong number, shape or dtype raise
        traced.InputError."""
        given = []
        arrays = self._arrays(inputs, named, cast, given)
        sizes, shapes = self._sizes_and_shapes(arrays)
        outputs = [None] * len(shapes)
        # A donated input's buffer is its output's too (compile(donate=)):
        # the compiled code updated it in place. The caller's own tensor
        # or array is updated and returned when the buffer is its memory.
        returned = {}
        for j, k in self._donations:
            a = arrays[j]
            if a.flags.writeable and a.shape == tuple(shapes[k]):
                outputs[k] = a
                if _same_memory(given[j], a):
                    returned[k] = given[j]
        # A quantized output is a torch quantized tensor the compiled code
        # writes the storage integers of.
        quantized = {}
        for k, qparams in self._quantized_outputs.items():
            if outputs[k] is None:
                quantized[k] = _output_array(
                    shapes[k], self.output_specs[k][1],
                    lambda shape, _, q=qparams: _calls.empty_quantized(shape, q))
                outputs[k] = _calls.storage_view(quantized[k])
        outputs = [o if o is not None else _output_array(shape, dtype)
                   for o, shape, (_, dtype) in
                   zip(outputs, shapes, self.output_specs)]
        # (Zero-size arrays may share an address or have none; the compiled
        # code reads and writes nothing there.)
        self.last_threads = _traced.enter_call()
        self._cpu.run([a.ctypes.data for a in arrays],
                      [o.ctypes.data for o in outputs], sizes)
        results = [_from_array(o, bf16)
                   for o, bf16 in zip(outputs, self._output_bf16)]
        for i, kind in self._scalar_outputs.items():
            results[i] = kind(results[i].item())
        if _calls.wants_torch(list(inputs) + list(named.values())):
            results = _calls.to_torch(results)
        for i, qparams in self._quantized_outputs.items():
            if i in quantized:
                results[i] = quantized[i]
                continue
            from .module import quantized_from_ints
            results[i] = quantized_from_ints(np.asarray(results[i]), qparams)
        for k, x in returned.items():
            results[k] = x
        if self._nesting is not None:
            results = _nest(results, self._nesting)
        return results[0] if len(results) == 1 else tuple(results)

    #: The graph's outputs nested as its output types say (None when no
    #: output is a tuple): the compiled code returns the tuples' leaves.
    _nesting = None

    def _sizes_and_shapes(self, arrays):
        """The named dynamic sizes the inputs give (dims of one name must
        agree) and the output shapes for them."""
        if not self.dynamic:
            return [], [shape for shape, _ in self.output_specs]
        tensors = [spec for spec in self._inputs if spec.kind == "tensor"]
        sizes = _calls.check_dim_names(tensors, [a.shape for a in arrays],
                                       self._dim_slots)
        values = [sizes[n] for n in self._size_names]
        flat = list(self._cpu.output_shapes(values))
        shapes = []
        for shape, _ in self.output_specs:
            shapes.append(tuple(flat[:len(shape)]))
            del flat[:len(shape)]
        for i, shape in enumerate(shapes):
            if any(d < 0 for d in shape):
                # (Sizes computed from the inputs, `narrow(x, 1, 1, n - 2)` at
                # n = 1: torch refuses such inputs where the size is used;
                # Module.interpret names that op and line.)
                named = ", ".join(f"{n}={v}" for n, v in zip(self._size_names, values))
                raise InputError(
                    f"{self._where}: at {named}, output {i} would have shape "
                    f"{list(shape)}: a size computed from the inputs is "
                    f"negative, which torch refuses at the op that uses it "
                    f"(Module.interpret names it)")
        return values, shapes

    @property
    def dim_names(self) -> List[str]:
        """The names of the dynamic dims the compiled code takes, in the
        order of their first appearance in the inputs (empty when every
        shape is static)."""
        return list(self._size_names)


def compile(module: Module, target: str = "cpu", entry: str = "forward",
            vectorize: bool = True, tile_n: int = 0, surgery: bool = True,
            pack_rhs: bool = True, winograd: bool = True,
            progress: Optional[bool] = None,
            timing: bool = False,
            cache: Union[bool, str, "os.PathLike[str]", None] = None,
            checks: bool = True,
            donate: Union[Sequence[Union[str, int]],
                          Dict[Union[str, int], int], None] = None
            ) -> CompiledModule:
    """Compiles a traced.Module's root graph for `target` ("cpu", or "cuda":
    see `compile_cuda`) and returns a CompiledModule, with traced-cpu-pipeline on a copy (`module` itself is
    not changed). `surgery`: run traced-flatten, traced-normalize,
    traced-fuse-conv-bn and canonicalize first (off: the root graph must
    already be flat and is lowered call by call); `vectorize`: tile and
    vectorize (off: plain loops); `tile_n`: register tile columns (32 for
    AVX-512, 16 for AVX2; 0 picks by this CPU); `pack_rhs`: copy matmul
    right-hand sides into contiguous column panels first (docs/cpu.md);
    `winograd`: compute f32 3x3 convolutions of unit stride and constant
    weights as Winograd F(2x2, 3x3) (off: im2col; docs/cpu.md).

    `progress`: show the running pass on stderr (None: when stderr is a
    terminal; TRACED_PROGRESS=1/0 overrides that). `timing`: print the time
    of each pass and LLVM stage to stderr when done, as a tree; the report
    stays in the result's `timing_report`.

    `cache`: the on-disk compile cache (docs/cpu.md), keyed by a hash of
    the module (weights included), the options, this CPU and the compiler's
    build: None uses TRACED_CACHE_DIR, else ~/.cache/traced (TRACED_CACHE=0
    turns it off); False compiles without it; a path names the directory.
    A hit skips the MLIR pipeline and LLVM (the result's `from_cache`).

    `checks`: keep the run-time checks torch makes (an index out of range
    in embedding, gather, index_put, one_hot, nll_loss; a mask count) and
    the trace's guards, each a traced.Error when it fails. False erases them
    for deployment: a bad index then reads or writes out of bounds, and a
    guard no longer stops an input the trace did not see
    (docs/reliability.md, "Run-time checks" has their cost).

    `donate`: inputs whose buffers the compiled code updates in place, as
    JAX's donate_argnums (docs/llm.md, "Cache styles"): a dict from an input
    (its name, or its index among the forward's inputs after self) to the
    output computed from it, or a list of inputs, each paired with the one
    output of its type. The output is written into the input's buffer: a
    key-value cache updated with `index_copy_`, `slice_scatter` or an item
    assignment then costs the rows written, not a copy of the cache. The
    call updates the caller's tensor or array (when it has the graph's
    dtype and is contiguous; else a converted copy) and returns it as that
    output. CompileError when an input cannot be updated in place (its old
    value is read after the write).

    Raises CompileError (a traced.Error) when the graph cannot be compiled."""
    if target == "cuda":
        return compile_cuda(module, entry=entry, surgery=surgery)
    if target != "cpu":
        raise CompileError(f"unknown target '{target}' (known: cpu, cuda)")
    if cache is None or cache is True:
        cache_dir = None
    elif cache is False:
        cache_dir = ""
    else:
        cache_dir = os.fspath(cache)
    with raising(CompileError):
        graph = module.module(module.root_name).graph_named(entry)
        graph_inputs = graph.inputs[1:]
        # Tuple outputs (a call's, as an LSTM's (h, c)) are compiled as
        # their leaves, depth first (convert-traced-to-linalg), and nested
        # again by the call.
        nesting = [_tuple_nesting(str(n.type)) for n in graph.outputs]
        graph_outputs = [leaf for n, nest in zip(graph.outputs, nesting)
                         for leaf in ([n] if nest is None else _leaf_nodes(n, nest))]
        donations = _donations(donate, graph_inputs, graph_outputs)
        compiled, report = _traced.compile_cpu(
            module._state, entry, vectorize, tile_n, surgery, pack_rhs,
            winograd, None if progress is None else bool(progress), bool(timing),
            cache_dir, bool(checks), [f"{j}:{k}" for j, k in donations])
    if timing:
        import sys
        sys.stderr.write(report)
    none_inputs = [i for i, n in enumerate(graph_inputs)
                   if str(n.type) == "!traced.none"]
    scalars = {"i64": int, "f64": float, "i1": bool}
    scalar_outputs = {i: scalars[str(n.type)] for i, n in enumerate(graph_outputs)
                      if str(n.type) in scalars}
    number_inputs = {i: scalars[str(n.type)] for i, n in enumerate(graph_inputs)
                     if str(n.type) in scalars}
    result = CompiledModule(compiled, entry, none_inputs, scalar_outputs,
                            [n.name for n in graph_inputs],
                            f"@{module.root_name}::{entry}", number_inputs,
                            donations)
    # Quantized inputs and outputs: the compiled code takes and returns their
    # storage integers (traced-lower-quantized); the call converts them.
    result._quantized_inputs = {i: n.qparams for i, n in enumerate(graph_inputs)
                                if n.qparams is not None}
    result._quantized_outputs = {i: n.qparams for i, n in enumerate(graph_outputs)
                                 if n.qparams is not None}
    result.timing_report = report if timing else None
    if any(n is not None for n in nesting):
        result._nesting = nesting
    return result


def _split_types(text):
    """The comma-separated types of `text` at the top level of its <>."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def _tuple_nesting(type_text):
    """For a `tuple<...>` type, its elements' nestings (a leaf's is its
    type text); None for any other type."""
    if not (type_text.startswith("tuple<") and type_text.endswith(">")):
        return None
    return [n if n is not None else t
            for t in _split_types(type_text[len("tuple<"):-1])
            for n in [_tuple_nesting(t)]]


class _Leaf:
    """An element of a tuple output, as compile() reads outputs (type,
    qparams, name)."""

    def __init__(self, type_text, name):
        self.type, self.qparams, self.name = type_text, None, name


def _leaf_nodes(node, nest, path=()):
    out = []
    for i, n in enumerate(nest):
        if isinstance(n, list):
            out += _leaf_nodes(node, n, path + (i,))
        else:
            out.append(_Leaf(n, f"{node.name}{''.join(f'[{j}]' for j in path + (i,))}"))
    return out


def _nest(flat, nesting):
    """The compiled code's flat results nested as `nesting` (per output:
    None for a leaf, else the tuple's element nestings)."""
    it = iter(flat)

    def build(nest):
        if not isinstance(nest, list):
            return next(it)
        return tuple(build(n) for n in nest)
    return [next(it) if n is None else build(n) for n in nesting]


def _donations(donate, graph_inputs, graph_outputs):
    """compile(donate=) as (compiled input index, output index) pairs: the
    compiled code takes no input the trace saw as None."""
    if not donate:
        return []
    names = [n.name for n in graph_inputs]
    pairs = donate.items() if isinstance(donate, dict) else \
        [(x, None) for x in donate]
    result = []
    for x, k in pairs:
        if isinstance(x, str):
            if x not in names:
                raise CompileError(f"donate: no input is named '{x}' (the "
                                   f"inputs: {', '.join(map(str, names))})")
            i = names.index(x)
        elif isinstance(x, int) and 0 <= x < len(names):
            i = x
        else:
            raise CompileError(f"donate: {x!r} names no input (give a name or "
                               f"an index below {len(names)})")
        t = str(graph_inputs[i].type)
        if t == "!traced.none":
            raise CompileError(f"donate: input '{names[i]}' was None when traced")
        if k is None:
            same = [o for o, v in enumerate(graph_outputs) if str(v.type) == t]
            if len(same) != 1:
                raise CompileError(
                    f"donate: input '{names[i]}' ({t}) matches "
                    f"{len(same)} outputs of its type; say which with a dict, "
                    f"donate={{'{names[i]}': output_index}}")
            k = same[0]
        elif not (isinstance(k, int) and 0 <= k < len(graph_outputs)):
            raise CompileError(f"donate: output {k!r} of input '{names[i]}' "
                               f"is not an output index below "
                               f"{len(graph_outputs)}")
        j = i - sum(str(v.type) == "!traced.none" for v in graph_inputs[:i])
        result.append((j, k))
    return result


def _find_linker():
    for name in ("clang-22", "clang", "cc", "gcc"):
        path = shutil.which(name) or (
            f"/usr/lib/llvm-22/bin/{name}"
            if os.path.exists(f"/usr/lib/llvm-22/bin/{name}") else None)
        if path:
            return path
    raise CompileError("no C compiler driver (clang-22, cc) to link the library")


def _builtins_archive(linker):
    """compiler-rt's builtins archive of the clang driver `linker`, or None:
    compiled code truncating to bfloat16 on a CPU without AVX-512 BF16
    calls `__truncsfbf2`, which libgcc 12 lacks (the JIT defines its own)."""
    try:
        found = subprocess.run([linker, "--rtlib=compiler-rt", "-print-libgcc-file-name"],
                               capture_output=True, text=True)
    except OSError:
        return None
    path = found.stdout.strip()
    return path if found.returncode == 0 and os.path.exists(path) else None


#: Where Debian's libomp-22-dev puts the OpenMP runtime parallel loops call.
_LIBOMP_DIR = "/usr/lib/llvm-22/lib"


#: The temporaries' allocator a library links (lib/ExecutionEngine/
#: BufferCache.h is the JIT's): a freed block serves the next allocation
#: it holds that is at least half its size, in this call or the next (up
#: to 1 GiB kept), so a model's temporaries are not
#: page-faulted in again on every call. Strong definitions of the functions
#: the object defines weakly as malloc and free.
_BUFFER_CACHE_C = r"""
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct Block { uint64_t size; struct Block *next; } Block;
typedef struct Bucket { uint64_t size; Block *head; struct Bucket *next; } Bucket;
enum { HEADER = 64 };  /* keeps the blocks 64-byte aligned */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Bucket *buckets;
static uint64_t cached, limit = (uint64_t)1 << 30;

void *_mlir_memref_to_llvm_alloc(uint64_t size) {
  pthread_mutex_lock(&lock);
  /* The smallest free block that holds size bytes, at most twice that. */
  Bucket *best = 0;
  for (Bucket *b = buckets; b; b = b->next)
    if (b->head && b->size >= size && b->size / 2 <= size &&
        (!best || b->size < best->size))
      best = b;
  if (best) {
    Block *block = best->head;
    best->head = block->next;
    cached -= best->size;
    pthread_mutex_unlock(&lock);
    return (char *)block + HEADER;
  }
  pthread_mutex_unlock(&lock);
  Block *block = aligned_alloc(64, (size + HEADER + 63) / 64 * 64);
  if (!block) {
    /* A C caller has no exception to catch: a clear end, not a write
       through a null pointer (docs/reliability.md, "Resource limits"). */
    fprintf(stderr, "traced: out of memory: compiled code could not "
                    "allocate %llu bytes\n", (unsigned long long)size);
    abort();
  }
  block->size = size;
  return (char *)block + HEADER;
}

void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  Block *block = (Block *)((char *)ptr - HEADER);
  pthread_mutex_lock(&lock);
  if (cached + block->size <= limit) {
    Bucket *b = buckets;
    while (b && b->size != block->size)
      b = b->next;
    if (!b && (b = malloc(sizeof *b))) {
      b->size = block->size;
      b->head = 0;
      b->next = buckets;
      buckets = b;
    }
    if (b) {
      block->next = b->head;
      b->head = block;
      cached += block->size;
      pthread_mutex_unlock(&lock);
      return;
    }
  }
  pthread_mutex_unlock(&lock);
  free(block);
}
"""


def save_library(module: Module, path: Union[str, "os.PathLike[str]"],
                 entry: str = "forward", vectorize: bool = True,
                 progress: Optional[bool] = None) -> str:
    """Compiles `module` ahead of time into a shared library at `path`
    exporting `int traced_<entry>(void **inputs, void **outputs)`; it
    depends only on libc, libm, when a contraction runs on several
    threads, libomp, and, when it factorizes matrices (cholesky, lu, qr,
    svd, eigh, ...), OpenBLAS's LAPACK (docs/linalg-runtime.md). Its temporaries are kept between calls (up to 1 GiB).
    `progress` as for `compile`. Returns the path. Raises CompileError when
    the graph cannot be compiled or the linker fails."""
    path = os.fspath(path)
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "model.o")
        with raising(CompileError):
            _traced.write_cpu_object(module._state, obj, entry, vectorize,
                                     None if progress is None else bool(progress))
        runtime = os.path.join(tmp, "traced_buffers.c")
        with open(runtime, "w") as f:
            f.write(_BUFFER_CACHE_C)
        linker = _find_linker()
        builtins = _builtins_archive(linker)
        # The linear-algebra runtime's archive (docs/linalg-runtime.md):
        # its members come in only when the model calls them, and with them
        # OpenBLAS's LAPACK (--as-needed: no dependency otherwise).
        linalg = _tools.library_path("libtraced_linalg_runtime.a")
        if not os.path.exists(linalg):
            raise CompileError(f"no linear-algebra runtime at {linalg}")
        linked = subprocess.run([linker, "-shared", "-fPIC", "-O2",
                                 "-o", path, obj, runtime, linalg]
                                + ([builtins] if builtins else [])
                                + ["-Wl,--as-needed", "-lopenblas",
                                   f"-L{_LIBOMP_DIR}", "-lomp",
                                   "-lm", "-lpthread", f"-Wl,-rpath,{_LIBOMP_DIR}"],
                                capture_output=True, text=True)
        if linked.returncode != 0:
            raise CompileError(f"linking {path} failed: {linked.stderr.strip()}")
    return path


def _cuda_runtime() -> str:
    """The path of libtraced_cuda_runtime.so: $TRACED_CUDA_RUNTIME, the
    package's lib/ folder (`pip install .`), or the build's lib/ folder
    (beside python/ in the build tree)."""
    path = os.environ.get("TRACED_CUDA_RUNTIME") or _tools.library_path(
        "libtraced_cuda_runtime.so")
    if not os.path.exists(path):
        raise CompileError(
            f"no CUDA runtime library at {path}: the build found no CUDA "
            f"toolkit (cuda.h), or set TRACED_CUDA_RUNTIME")
    return path


def _parse_signature(text):
    """'(tensor<1x3xf32>, tensor<i64>) -> tensor<1xf32>' -> ([(shape,
    dtype)], [(shape, dtype)]), as CpuModule.signature gives them."""
    inputs, _, outputs = text.partition(" -> ")
    def specs(part):
        out = []
        for inner in re.findall(r"tensor<([^>]*)>", part):
            *dims, element = inner.split("x")
            out.append(([int(d) for d in dims], element))
        return out
    return specs(inputs), specs(outputs)


class _CudaLibrary:
    """A compiled GPU model library loaded with ctypes, with CpuModule's
    `signature` and `run`; CUDA errors the runtime recorded (no driver, no
    device, a failed launch) raise traced.Error with CUDA's message."""

    def __init__(self, path: str, runtime: str, entry: str):
        try:
            self._runtime = ctypes.CDLL(runtime)
            self._runtime.traced_cuda_last_error.restype = ctypes.c_char_p
            self._lib = ctypes.CDLL(path)  # loads the kernels (constructor)
        except OSError as e:  # no libcuda.so.1 on this machine
            raise Error(f"cannot load the compiled GPU library: {e}") from None
        self._check("loading the GPU kernels")
        name = f"traced_{entry}_signature"
        text = ctypes.cast(ctypes.addressof(ctypes.c_char.in_dll(self._lib, name)),
                           ctypes.c_char_p).value.decode()
        self.signature = _parse_signature(text)
        self._entry = getattr(self._lib, f"traced_{entry}")
        self._entry.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2
        self._entry.restype = ctypes.c_int
        vp, u64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64)
        graph_call = self._runtime.traced_gpu_graph_call
        graph_call.argtypes = [vp, ctypes.POINTER(vp), u64p, ctypes.c_int32,
                               ctypes.POINTER(vp), u64p, ctypes.c_int32, vp]
        graph_call.restype = ctypes.c_int32
        self._runtime.traced_gpu_graph_release.argtypes = [vp]
        self._entry_address = ctypes.cast(self._entry, vp)
        # The entry's CUDA graph (its buffers, its capture's blocks) goes
        # with this library object; not at interpreter exit, where the
        # driver may already be shutting down.
        release = weakref.finalize(self, self._runtime.traced_gpu_graph_release,
                                   self._entry_address)
        release.atexit = False

    def _check(self, what):
        message = self._runtime.traced_cuda_last_error()
        if message:
            self._runtime.traced_cuda_clear_error()
            raise Error(f"{what}: {message.decode()}")

    def run(self, inputs, outputs, sizes=(), stream=None, graph_bytes=None):
        # (`sizes`: CpuModule.run's dynamic sizes; GPU code has none.)
        # `stream`: a CUstream (an int; 0 is CUDA's default stream) the
        # call's work is queued on instead of the runtime's own streams
        # (traced_gpu_set_stream); the call then returns without waiting
        # for its kernels. `graph_bytes`: (input sizes, output sizes) in
        # bytes of device-memory arguments: the call goes through
        # traced_gpu_graph_call (a CUDA graph after the first call).
        ins = (ctypes.c_void_p * max(1, len(inputs)))(*inputs)
        outs = (ctypes.c_void_p * max(1, len(outputs)))(*outputs)
        if graph_bytes is not None and stream is not None:
            u64 = ctypes.c_uint64
            in_bytes, out_bytes = graph_bytes
            status = self._runtime.traced_gpu_graph_call(
                self._entry_address, ins,
                (u64 * max(1, len(in_bytes)))(*in_bytes), len(inputs), outs,
                (u64 * max(1, len(out_bytes)))(*out_bytes), len(outputs),
                ctypes.c_void_p(stream))
        elif stream is None:
            status = self._entry(ins, outs)
        else:
            self._runtime.traced_gpu_set_stream(ctypes.c_void_p(stream))
            try:
                status = self._entry(ins, outs)
            finally:
                self._runtime.traced_gpu_unset_stream()
        self._check("running the compiled GPU code")
        if status != 0:
            raise Error(f"the compiled GPU code failed a run-time check "
                        f"(status {status})")


class CudaCompiledModule(CompiledModule):
    """A CompiledModule running on an NVIDIA GPU (`compile_cuda`). Besides
    numpy arrays and CPU tensors it takes torch CUDA tensors: when every
    input is one, the kernels read their device memory in place (an input
    the compiled code would write, or a view not 256-byte aligned, is
    copied device to device on the call's stream instead), the outputs are
    torch CUDA tensors on the same device that the kernels write directly,
    and nothing goes through host memory. The call's work is queued on
    torch's current stream, after what torch queued there before it, and
    the call returns without waiting for it (as a torch op does).
    With `cuda_graph` (compile_cuda's option, on by default) calls on CUDA
    tensors run as one CUDA graph from the second call on: the arguments
    are copied into the graph's own buffers and the results out of them,
    device to device, so the caller's tensors may change address between
    calls and results never alias."""

    cuda_graph = False

    def __call__(self, *inputs: Any, cast: bool = False, **named: Any) -> Any:
        """As CompiledModule's call; when every tensor input is a torch CUDA
        tensor, on the GPU without host copies (CUDA tensors out)."""
        bound = _calls.bind(self._inputs, inputs, named, self._where)
        tensors = [x for spec, x in zip(self._inputs, bound)
                   if spec.kind == "tensor"]
        on_gpu = bool(tensors) and all(
            getattr(getattr(x, "device", None), "type", None) == "cuda"
            for x in tensors)
        if not on_gpu:
            return super().__call__(*inputs, cast=cast, **named)
        import torch
        args = []
        for spec, x in zip(self._inputs, bound):
            if spec.kind == "none":
                _calls.check_none(spec, x, self._where)
                continue
            got = str(x.dtype).replace("torch.", "")
            if got != spec.dtype:
                if not cast:
                    raise _calls._dtype_error(spec, got, self._where)
                x = x.to(getattr(torch, spec.dtype))
            _calls.check_shape(spec, tuple(x.shape), self._where)
            args.append(x.detach().contiguous())
        specs = self._cpu.signature
        device = args[0].device
        outputs = [torch.empty(tuple(shape), dtype=getattr(torch, _TORCH_DTYPES[d]),
                               device=device) for shape, d in specs[1]]
        if device.index not in (None, 0):
            raise Error(f"{self._where}: the compiled GPU code runs on CUDA "
                        f"device 0; the inputs are on {device}")
        # On torch's current stream: ordered after the work that produced
        # the inputs, before the work that reads the outputs; with
        # cuda_graph, one graph launch between copies of the arguments.
        graph_bytes = None
        if self.cuda_graph:
            graph_bytes = ([a.numel() * a.element_size() for a in args],
                           [o.numel() * o.element_size() for o in outputs])
        self._cpu.run([a.data_ptr() for a in args],
                      [o.data_ptr() for o in outputs],
                      stream=torch.cuda.current_stream(device).cuda_stream,
                      graph_bytes=graph_bytes)
        if self._nesting is not None:
            outputs = _nest(outputs, self._nesting)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


def compile_cuda(module: Module, entry: str = "forward", surgery: bool = True,
                 chip: str = "sm_90", format: Optional[str] = None,
                 library: Optional[Union[str, "os.PathLike[str]"]] = None,
                 allow_tf32: bool = False,
                 fuse_epilogues: bool = True,
                 cuda_graph: bool = True) -> CompiledModule:
    """Compiles `module` for an NVIDIA GPU with traced-gpu-pipeline
    (docs/gpu.md) and returns a CudaCompiledModule: it takes numpy arrays
    and CPU tensors (outputs as CompiledModule gives them) or torch CUDA tensors
    (outputs are CUDA tensors, nothing goes through host memory).

    The host code and kernels go into a shared library (`library`, or one in
    a temporary folder) linked against libtraced_cuda_runtime; loading it
    loads the kernels on the GPU. `chip`: the target (sm_90: H100/H200,
    portable to later GPUs; sm_90a: H100/H200 only, with warpgroup MMAs
    for bfloat16/float16 matmuls);
    `format`: "fatbin" (cubin and PTX; needs ptxas, the default when
    /usr/local/cuda/bin/ptxas or ptxas on PATH exists) or "isa" (PTX the
    driver compiles at load). `allow_tf32`: float32 matmuls multiply on
    tensor cores in TF32 (10-bit mantissas, like torch's
    `torch.backends.cuda.matmul.allow_tf32`; sm_80 and later), about 1.7x
    faster on an H200 and accurate to about 1e-3 relative; off by default.
    `fuse_epilogues`: the float32 convolution and matmul kernels take in
    the padding of their input, the zero fill of their output and the
    elementwise op after them (bias, activation, residual add); on by
    default (False: separate kernels, docs/gpu.md). `cuda_graph`: calls
    on torch CUDA tensors run as one CUDA graph launch from the second
    call on (the first uploads the weights; the graph keeps its own
    intermediate buffers until the compiled module is collected,
    docs/gpu.md).
    Weights are uploaded on the first call and stay on the device.

    Raises CompileError when the graph cannot be compiled or linked, and
    traced.Error with CUDA's error string when the library cannot be loaded
    on this machine's GPU (no driver, no device) or a call fails."""
    runtime = _cuda_runtime()
    env = dict(os.environ)
    env["PATH"] = "/usr/local/cuda/bin:" + env.get("PATH", "")
    if format is None:
        format = "fatbin" if shutil.which("ptxas", path=env["PATH"]) else "isa"
    tmp = tempfile.mkdtemp(prefix="traced-cuda-")
    path = os.fspath(library) if library else os.path.join(tmp, f"lib{entry}.so")
    obj = os.path.join(tmp, "model.o")
    old_path = os.environ.get("PATH", "")
    os.environ["PATH"] = env["PATH"]  # gpu-module-to-binary runs ptxas
    try:
        with raising(CompileError):
            _traced.write_gpu_object(module._state, obj, entry, chip, format,
                                     surgery, allow_tf32, fuse_epilogues)
    finally:
        os.environ["PATH"] = old_path
    linked = subprocess.run(
        [_find_linker(), "-shared", "-o", path, obj,
         f"-L{os.path.dirname(runtime)}", "-ltraced_cuda_runtime",
         f"-Wl,-rpath,{os.path.dirname(os.path.abspath(runtime))}"],
        capture_output=True, text=True)
    os.unlink(obj)
    if linked.returncode != 0:
        raise CompileError(f"linking {path} failed: {linked.stderr.strip()}")
    with raising(CompileError):
        graph = module.module(module.root_name).graph_named(entry)
        graph_inputs = graph.inputs[1:]
    none_inputs = [i for i, n in enumerate(graph_inputs)
                   if str(n.type) == "!traced.none"]
    result = CudaCompiledModule(_CudaLibrary(path, runtime, entry), entry,
                                none_inputs, None,
                                [n.name for n in graph_inputs],
                                f"@{module.root_name}::{entry}")
    result.library = path
    result.cuda_graph = cuda_graph
    result.timing_report = None
    nesting = [_tuple_nesting(str(n.type)) for n in graph.outputs]
    if any(n is not None for n in nesting):
        result._nesting = nesting
    return result
