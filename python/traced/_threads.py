"""The thread count of compiled calls (docs/cpu.md, "Threads").

Compiled code's parallel loops and the int8 runtime run on LLVM's OpenMP
runtime (libomp), not on torch's thread pool, so ``torch.set_num_threads``
does not reach them. ``set_num_threads`` does, as torch's does for torch:
one process-wide count, applied to the calling thread at the start of
every compiled CPU call, whichever thread makes it::

    traced.set_num_threads(1)
    compiled(x)
    compiled.last_threads    # 1: the count that call used

Until it is set (or after ``set_num_threads(0)``) calls use libomp's
default: ``OMP_NUM_THREADS``, else one per core. A C program calling a
saved library sets the count with libomp's ``omp_set_num_threads`` on its
own thread.
"""
from __future__ import annotations

from . import _traced

__all__ = ["get_num_threads", "set_num_threads"]


def set_num_threads(n: int) -> None:
    """Sets the thread count of compiled CPU calls (0: libomp's default)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"the thread count must be a non-negative int, got {n!r}")
    _traced.set_num_threads(min(n, 1 << 30))


def get_num_threads() -> int:
    """The thread count the next compiled CPU call on this thread uses."""
    return _traced.get_num_threads()
