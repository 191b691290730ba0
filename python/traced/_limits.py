"""Resource limits (docs/reliability.md, "Resource limits").

Two process-wide limits bound what the package may be asked to build:

* ``max_tensor_bytes``: the most bytes one tensor may take. The reference
  interpreter checks each op's results before it computes them; compiled
  code checks every temporary when it allocates it, and the compiler
  refuses a static-shape value over the limit before it lowers anything.
  Default: this machine's physical memory.
* ``max_ops``: the most operations a module may hold when it is parsed,
  loaded, traced, imported or compiled. Default: 2**24.

Reaching one raises :class:`traced.ResourceError` (also a MemoryError)
with the limit's name. So does an allocation the system refuses inside
compiled code::

    with traced.limits(max_tensor_bytes=64 << 20):
        fn(x)        # a temporary over 64 MiB: ResourceError, not a crash

The limits are process-wide (not per thread): a ``limits`` block changes
them for every thread while it runs.
"""
from __future__ import annotations

import contextlib
from typing import Dict, Iterator, Optional

from . import _traced

__all__ = ["get_limits", "set_limits", "limits"]

_NAMES = ("max_tensor_bytes", "max_ops")


def get_limits() -> Dict[str, int]:
    """The limits now, by name (the defaults until set_limits)."""
    return dict(zip(_NAMES, _traced.get_limits()))


def set_limits(max_tensor_bytes: Optional[int] = None,
               max_ops: Optional[int] = None) -> Dict[str, int]:
    """Sets the given limits (None keeps a limit as it is; 0 restores its
    default) and returns the previous ones, so that
    ``set_limits(**old)`` restores them."""
    old = get_limits()
    new = dict(old)
    for name, value in (("max_tensor_bytes", max_tensor_bytes),
                        ("max_ops", max_ops)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative int, got {value!r}")
        if value >= 1 << 64:
            raise ValueError(f"{name} must be below 2**64, got {value}")
        new[name] = value
    _traced.set_limits(new["max_tensor_bytes"], new["max_ops"])
    return old


@contextlib.contextmanager
def limits(max_tensor_bytes: Optional[int] = None,
           max_ops: Optional[int] = None) -> Iterator[Dict[str, int]]:
    """Sets limits for the block (as set_limits) and restores the previous
    ones after it; yields the limits in force."""
    old = set_limits(max_tensor_bytes, max_ops)
    try:
        yield get_limits()
    finally:
        _traced.set_limits(old["max_tensor_bytes"], old["max_ops"])
