"""In-place ops through views, functionalized as torch's functionalization
does (docs/python.md, "In-place ops and views").

A traced graph is SSA: an in-place op is a value, the updated tensor, and
later reads of the tensor read that value. When the written tensor is a
view of another traced tensor (`x[2:6].copy_(y)`, `x.view(-1).mul_(2)`),
its base changes too: the tracker writes the view's new value back into
the base with the inverse ("scatter") of the view step, and so on up to the
tensor that owns the memory. Other views of that memory read later are made
again from the new base (the call that made them is emitted once more).
Whatever the tracker cannot follow exactly is refused with a TraceError at
the user's line, never traced into a silently wrong graph.

The tracers tell the tracker what happens: every tensor a graph defines
(`define`), the tensors a call wrote (`mutated`, `poison`), and every read
goes through `current`. Which tensors share memory, and how a view sits in
its base, is read from the real tensors of the example run (their storage,
sizes, strides and offsets), not from the ops' names."""
import torch

from .errors import TraceError


class Entry:
    """A value already named in the graph, as an argument of an expr the
    tracker emits."""

    def __init__(self, name, type_):
        self.name, self.type = name, type_


def _storage(t):
    """The identity of a tensor's memory (None for a tensor without any)."""
    if not isinstance(t, torch.Tensor) or t.layout != torch.strided or \
            t.is_sparse or t.device.type == "meta":
        return None
    try:
        ptr = t.storage().data_ptr()
    except (RuntimeError, NotImplementedError):
        return None
    return ptr or None


def _extent(t):
    """The storage elements t may touch: [first, last]."""
    last = t.storage_offset() + sum((s - 1) * abs(st) for s, st in
                                    zip(t.shape, t.stride()) if s > 0)
    return t.storage_offset(), last


def _overlap(a, b):
    if a.numel() == 0 or b.numel() == 0:
        return False
    (a0, a1), (b0, b1) = _extent(a), _extent(b)
    return a0 <= b1 and b0 <= a1


def _where_text(where):
    return f" at {where[0]}:{where[1]}" if where else ""


def _positions(t):
    """The storage index of each element of t, in t's shape."""
    size = t.storage().size()
    return torch.arange(size).as_strided(t.shape, t.stride(), t.storage_offset())


def check_overlap(written, read, where):
    """Refuses a write whose input `read` overlaps the written memory in
    another layout (`x[:, 1:].copy_(x[:, :-1])`): torch's copy_ writes
    element by element, so its result depends on the order it goes in,
    which a graph of values does not have. (torch itself refuses most
    such ops; the same elements in the same layout are fine.)"""
    if not isinstance(read, torch.Tensor) or read is written or \
            _storage(read) is None or _storage(read) != _storage(written) or \
            not _overlap(read, written):
        return
    if tuple(read.shape) == tuple(written.shape) and \
            read.stride() == written.stride() and \
            read.storage_offset() == written.storage_offset():
        return
    if torch.isin(_positions(read).reshape(-1),
                  _positions(written).reshape(-1)).any():
        raise TraceError(
            f"in-place write{_where_text(where)} reads memory it writes, "
            f"in another layout: torch's result depends on the order the "
            f"elements are written in; write from a copy (`.clone()`)")


def classify(base, view):
    """How `view` sits in `base`, as a step whose inverse the op library
    has: ("empty",), ("identity",), ("reshape",), ("select", dim, index),
    ("slice", dim, start, end, step), ("slices", [slice, ...]),
    ("permute", dims); None when it is none of them (diagonal, as_strided
    with other strides, expand, unfold, view(dtype)), or when base has
    elements that share memory (torch refuses to write those too).

    Steps are checked, not guessed: each candidate applied to the storage
    positions of base's elements must give the positions of view's."""
    if base.dtype != view.dtype or _storage(base) != _storage(view):
        return None
    overlap = torch._debug_has_internal_overlap(base)  # 0 no, 1 yes, 2 unknown
    B, V = _positions(base), _positions(view)
    if overlap == 1 or (overlap == 2 and B.numel() and
                        torch.unique(B).numel() != B.numel()):
        return None  # (an expanded base)
    if V.numel() == 0:
        return ("empty",)
    if tuple(B.shape) == tuple(V.shape) and torch.equal(B, V):
        return ("identity",)
    if B.numel() == V.numel() and torch.equal(B.reshape(-1), V.reshape(-1)):
        return ("reshape",)
    hits = (B == V.reshape(-1)[0]).nonzero()
    if len(hits) != 1:
        return None
    start = [int(i) for i in hits[0]]
    if V.dim() == B.dim() - 1:
        for d in range(B.dim()):
            got = B.select(d, start[d])
            if tuple(got.shape) == tuple(V.shape) and torch.equal(got, V):
                return ("select", d, start[d])
    if V.dim() == B.dim():
        index, narrowed = [], []
        for d in range(B.dim()):
            n, s = V.shape[d], start[d]
            if n > 1:
                if base.stride(d) == 0 or view.stride(d) % base.stride(d):
                    index = None
                    break
                step = view.stride(d) // base.stride(d)
                if step <= 0:
                    index = None
                    break
            else:
                step = 1
            end = s + (n - 1) * step + 1
            if (s, end, step) != (0, B.shape[d], 1):
                narrowed.append(d)
            index.append(slice(s, end, step))
        if index is not None:
            got = B[tuple(index)]
            if tuple(got.shape) == tuple(V.shape) and torch.equal(got, V):
                if len(narrowed) == 1:
                    d = narrowed[0]
                    return ("slice", d, index[d].start, index[d].stop, index[d].step)
                return ("slices", index)
        # A permutation of base's dims (transpose, permute, movedim, T).
        if B.numel() == V.numel() and start == [0] * B.dim():
            free = list(range(B.dim()))
            perm = []
            for j in range(V.dim()):
                pick = [i for i in free if base.shape[i] == view.shape[j] and
                        (view.shape[j] == 1 or base.stride(i) == view.stride(j))]
                if not pick:
                    break
                perm.append(pick[0])
                free.remove(pick[0])
            if len(perm) == V.dim():
                got = B.permute(perm)
                if torch.equal(got, V):
                    return ("permute", perm)
    return None


class _View:
    """What a tracked tensor is a view of: its base's key, how to make it
    again from the base (`replay`, which emits the call that made it with
    the base's current value), the inverse step (classified when a write
    needs it) and the base's version the value was made from."""

    def __init__(self, base, base_tensor, tensor, replay, where, index=None,
                 what="a view"):
        self.base = base
        self.base_tensor = base_tensor
        self.tensor = tensor
        self.replay = replay
        self.where = where
        self.index = index  # getitem's index: setitem with it is the inverse
        self.what = what
        self.seen = 0
        self._step = False

    def step(self):
        if self._step is False:
            if self.tensor is self.base_tensor and \
                    torch._debug_has_internal_overlap(self.tensor) == 0:
                self._step = ("identity",)  # (the same tensor, another name)
            else:
                self._step = classify(self.base_tensor, self.tensor)
        return self._step


class ViewTracker:
    """The views, versions and memory sharing of one graph's tensors.
    Keys are the tracer's (an fx node, a tensor's id)."""

    def __init__(self, em, tensor_ref, locate=lambda: None):
        self.em = em
        self.tensor_ref = tensor_ref  # the tracer's ref, for index tensors
        self.locate = locate  # the user's line being recorded
        self.tensors = {}     # key -> the example's tensor
        self.views = {}       # key -> _View
        self.version = {}     # key -> how often its value was replaced by a write
        self.poisoned = {}    # key -> why it cannot be read
        self.state = {}       # key -> "parameter"/"buffer" path
        self.frozen = {}      # key -> why no write into its memory is traced
        self.where_made = {}  # key -> the line that made it
        self.by_storage = {}  # storage -> keys
        self.by_object = {}   # id(tensor) -> first key
        self.written = {}     # storage -> the line of a write into it

    # -- registering ------------------------------------------------------------
    def known(self, key):
        return key in self.tensors or key in self.views

    def define(self, key, tensor, bases=(), replay=None, where=None,
               index=None, what="a view", state=None, frozen=None):
        """Registers a tensor the graph defines under `key`. `bases`: the
        (key, tensor) pairs of the call's tensor arguments, in order; the
        first whose memory the tensor shares is its base, which `replay`
        (a function emitting the call again and returning its (name,
        type)) makes it from. `state`: the parameter or buffer it is;
        `frozen`: why no write into it can be traced."""
        if isinstance(tensor, (tuple, list)):
            self._define_tuple(key, tensor, bases, replay, where)
            return
        if not isinstance(tensor, torch.Tensor):
            return
        if self.tensors.get(key) is tensor:
            return  # (a call returning its input: the same tensor)
        self.tensors[key] = tensor
        self.views.pop(key, None)
        self.version.setdefault(key, 0)
        self.where_made[key] = where
        self.poisoned.pop(key, None)
        if state:
            self.state[key] = state
        if frozen:
            self.frozen[key] = frozen
        storage = _storage(tensor)
        if storage is not None:
            keys = self.by_storage.setdefault(storage, [])
            if key not in keys:
                keys.append(key)
        alias = self.by_object.get(id(tensor))
        if alias is not None and alias != key and alias in self.tensors and \
                self.tensors[alias] is tensor:
            # The same tensor under another key (an in-place call's result,
            # `x.contiguous()` returning x, two get_attrs of one buffer).
            self._link(key, _View(alias, tensor, tensor,
                                  lambda a=alias: self.current(a), where,
                                  what="the same tensor"))
            return
        self.by_object.setdefault(id(tensor), key)
        if storage is None:
            return
        for base, base_tensor in bases:
            if base == key or base not in self.tensors or \
                    not isinstance(base_tensor, torch.Tensor) or \
                    _storage(base_tensor) != storage:
                continue
            if base_tensor is tensor:
                replay = lambda b=base: self.current(b)
            if replay is None:
                return
            self._link(key, _View(base, base_tensor, tensor, replay, where,
                                  index, what))
            return
        if storage in self.written and any(
                _overlap(tensor, self.tensors[k]) for k in self.by_storage[storage]
                if k != key):
            # Memory written before, under another name: this value (a
            # constant torch.fx kept) may predate the write.
            self.poisoned[key] = self._stranger(key, self.written[storage])

    def _define_tuple(self, key, value, bases, replay, where):
        """A tuple of views (torch.split's): made again, once, when its
        base is written; its elements are read from it."""
        self.views.pop(key, None)
        if replay is None:
            return
        storages = {_storage(t) for t in value if isinstance(t, torch.Tensor)}
        for base, base_tensor in bases:
            if base in self.tensors and _storage(base_tensor) in storages - {None}:
                self._link(key, _View(base, base_tensor, None, replay, where,
                                      what="a tuple of views"))
                return

    def _link(self, key, view):
        view.seen = self.version.get(view.base, 0)
        self.views[key] = view

    # -- reading ------------------------------------------------------------------
    def current(self, key):
        """(name, type) of `key`'s value now: a view whose base was written
        since it was made is made again from the new base."""
        if key in self.poisoned:
            where = self.locate()
            read = f"; read again{_where_text(where)}" if where else ""
            raise TraceError(self.poisoned[key] + read)
        view = self.views.get(key)
        if view is not None:
            self.current(view.base)
            if view.seen != self.version.get(view.base, 0):
                entry = view.replay()
                self._set(key, entry)
                self.version[key] = self.version.get(key, 0) + 1
                view.seen = self.version.get(view.base, 0)
        return self.em.names[key]

    def _made(self, key):
        where = self.where_made.get(key)
        return f" (made at {where[0]}:{where[1]})" if where else ""

    # -- writing ------------------------------------------------------------------
    def mutated(self, key, entry, where):
        """`key`'s tensor was written in place; `entry` (name, type) is its
        new value. Writes it back into the bases it is a view of."""
        chain, k = [], key
        while k in self.views:
            view = self.views[k]
            step = None if view.index is not None else view.step()
            if view.index is None and step is None:
                raise TraceError(
                    f"in-place write{_where_text(where)} into {view.what} "
                    f"(made{_where_text(view.where)}) whose place in its base "
                    f"the trace cannot express (diagonal, as_strided, expand, "
                    f"unfold, a dtype view): the base would not see the write. "
                    f"Write into a copy (`.clone()`), or build the new value "
                    f"out of place")
            if view.base in self.state:
                raise TraceError(
                    f"in-place write{_where_text(where)} into a view of the "
                    f"{self.state[view.base]} (made{_where_text(view.where)}): "
                    f"torch would change the module's state, which a traced "
                    f"graph does not write; clone it first (`.clone()`) to "
                    f"write a copy")
            chain.append((k, view, step))
            k = view.base
        if k in self.frozen:
            raise TraceError(f"in-place write{_where_text(where)} into "
                             f"{self.frozen[k]}")
        self._replace(key, entry)
        for k, view, step in chain:
            base_entry = self.current(view.base)
            new_base = self._inverse(view, step, base_entry, self.em.names[k],
                                     where)
            self._replace(view.base, new_base)
            view.seen = self.version[view.base]
        self._poison_strangers(self._root(key), where)

    def _set(self, key, entry):
        if isinstance(entry, list):  # a traced module's results
            self.em.define(key, entry)
        else:
            self.em.define(key, *entry)

    def _replace(self, key, entry):
        self.em.define(key, *entry)
        self.version[key] = self.version.get(key, 0) + 1
        self.poisoned.pop(key, None)

    def poison(self, key, message):
        """`key`'s tensor changed in a way the graph cannot express: reading
        it, or anything sharing its memory, again is refused."""
        self.poisoned[key] = message
        if key in self.tensors:
            for other in self._sharing(key):
                self.poisoned[other] = message

    def _root(self, key):
        while key in self.views:
            key = self.views[key].base
        return key

    def _sharing(self, key):
        t = self.tensors[key]
        return [k for k in self.by_storage.get(_storage(t), [])
                if k in self.tensors and _overlap(self.tensors[k], t)]

    def _poison_strangers(self, root, where):
        """Tensors that share memory with the written one but are no views
        the tracker made (aliased inputs, tensors torch.fx kept as
        constants) would read the write in torch; here they cannot."""
        if root not in self.tensors:
            return
        storage = _storage(self.tensors[root])
        if storage is not None:
            self.written[storage] = where
        for other in self._sharing(root):
            if self._root(other) != root and other not in self.poisoned:
                self.poisoned[other] = self._stranger(other, where)

    def _stranger(self, key, where):
        return (f"a tensor{self._made(key)} shares memory with one written "
                f"in place{_where_text(where)}, but the trace cannot tell "
                f"how (no view call of it was recorded): reading it after "
                f"the write is refused")

    def _inverse(self, view, step, base_entry, view_entry, where):
        """Emits the new base: view's new value written into base."""
        em, base_t = self.em, view.base_tensor
        b, v = Entry(*base_entry), Entry(*view_entry)

        def ref(x):
            if isinstance(x, Entry):
                return x.name, x.type
            return self.tensor_ref(x)

        def call(target, args, hint="scatter_out"):
            return em.call("call_function", target, None, args, {}, base_t,
                           ref, hint, where=where)
        if view.index is not None:
            return call("operator.setitem", [b, view.index, v], "setitem_out")
        kind = step[0]
        if kind == "empty":
            return base_entry
        if kind == "identity":
            return view_entry
        if kind == "reshape":
            return em.call("call_method", "reshape_as", view_entry, [b], {},
                           base_t, ref, "reshape_as_out", where=where)
        if kind == "select":
            return call("torch.select_scatter", [b, v, step[1], step[2]],
                        "select_scatter_out")
        if kind == "slice":
            return call("torch.slice_scatter", [b, v] + list(step[1:]),
                        "slice_scatter_out")
        if kind == "slices":
            return call("operator.setitem", [b, tuple(step[1]), v], "setitem_out")
        if kind == "permute":
            inverse = [0] * len(step[1])
            for i, p in enumerate(step[1]):
                inverse[p] = i
            return call("torch.permute", [v, inverse], "permute_out")
        raise AssertionError(step)
