"""The exceptions the `traced` package raises (docs/python.md, "Errors").

`traced.Error` is the C++ extension's exception (pybind11 registers it as
`_traced.Error`); every error the package raises is one. Where the Python
layer knows which step failed it raises a subclass::

    Error
    ├── TraceError      traced.trace(): the model cannot be recorded
    ├── ParseError      traced.parse() / traced.load(): bad text, bytecode or JSON
    ├── VerifyError     Module.verify(): the verifier's diagnostics
    ├── PassError       Module.run_passes(): unknown pipeline, or a pass failed
    ├── InterpretError  Module.interpret(): the reference interpreter refused or failed
    ├── CompileError    traced.compile() / traced.save_library(): lowering or linking failed
    ├── SurgeryError    graph surgery the IR cannot do (replace_node, erase_node, create_node)
    ├── InputError      a call of a traced graph (Module.interpret, a compiled
    │                   module) given inputs of the wrong number, dtype or shape;
    │                   from Module.interpret an InterpretInputError, which is
    │                   an InterpretError too
    └── ResourceError   a resource limit reached (traced.set_limits) or memory
                        run out, in any step; also a MemoryError

Other misuse (graph surgery on removed exprs, assigning a non-parameter, an
unknown suffix for Module.save) raises `traced.Error` itself.
"""
from __future__ import annotations

import contextlib
from typing import Iterator, Type

from ._traced import Error, ResourceError

Error.__doc__ = """The base of every error the traced package raises (registered by
the C++ extension as `_traced.Error`); its message holds the MLIR
diagnostics with their source locations. Subclasses: TraceError,
ParseError, VerifyError, PassError, InterpretError, CompileError,
InputError, SurgeryError."""
ResourceError.__doc__ = """A resource limit was reached (max_tensor_bytes or max_ops,
see traced.set_limits; the message names the limit) or memory ran out: an
op the interpreter would compute, a temporary compiled code allocates at
run time, a value compiled code would allocate, a module with too many
operations. Raised by whichever step met it (parse, trace, interpret,
compile, a compiled call) in place of that step's own error class. It is
also a MemoryError."""
__all__ = ["Error", "TraceError", "ParseError", "VerifyError", "PassError",
           "InterpretError", "CompileError", "InputError",
           "InterpretInputError", "ResourceError", "SurgeryError"]


class TraceError(Error):
    """traced.trace() could not record the model: torch.fx refused it in
    symbolic mode, a value has no dialect type (complex tensors), a bad
    `mode` or `leaf_functions` argument, or the recorded IR did not verify."""


class ParseError(Error):
    """traced.parse() or traced.load() was given text, bytecode or JSON that
    does not parse, or that parses to IR the verifier rejects."""


class VerifyError(Error):
    """Module.verify() found the IR invalid; the message holds the verifier's
    diagnostics with their source locations."""


class PassError(Error):
    """Module.run_passes() was given a pipeline it cannot parse, or one of
    its passes failed."""


class InterpretError(Error):
    """Module.interpret() failed: an input it cannot take, a graph or module
    that does not exist, or a call the reference interpreter has no kernel
    for."""


class CompileError(Error):
    """traced.compile() or traced.save_library() failed: an unknown target,
    a graph the CPU pipeline cannot lower, or no linker."""


class SurgeryError(Error):
    """Graph surgery that cannot be done as asked, refused before anything
    changes: `replace_node` / `replace_all_uses_with` with a replacement
    defined after a user it would have to reach, or nodes of two graphs;
    `erase_node` of a used node, an input or the output; `create_node`
    of an op the IR cannot add (a placeholder, an output)."""


class InputError(Error):
    """A traced graph was called with inputs it does not take: the wrong
    number, a name that is no input, a dtype other than the graph's (pass
    `cast=True` to convert), a shape other than the graph's, something
    other than None where the trace saw None. Module.interpret, compiled
    modules and the C entry point check the same rules and number the
    inputs alike: `input 2 ('scale')`, from 1, after self."""


class InterpretInputError(InputError, InterpretError):
    """The InputError Module.interpret raises: also an InterpretError."""


@contextlib.contextmanager
def raising(cls: Type[Error]) -> Iterator[None]:
    """Re-raises a plain traced.Error from the block as `cls` (same message,
    chained); subclasses of Error pass through unchanged."""
    try:
        yield
    except Error as exc:
        if type(exc) is not Error:
            raise
        raise cls(*exc.args) from exc
