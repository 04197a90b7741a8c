"""Launches that have nothing left to change: run once, counted and modelled each time.

A timing loop written by hand (`for _ in range(1000): kernel[grid](...)` between `time.time()` calls, as
lightllm's self-test does) repeats one launch. In Triton's interpreter each repeat costs what the first did,
yet it computes what the first computed when
- it is the same launch again: the same kernel, grid and arguments (each tensor the same memory, shape,
  strides and dtype), and
- no tensor argument has changed since that launch ended (torch counts every change to a tensor's data in
  its `_version`), and
- that launch read nothing it wrote, used no atomic, and read only memory inside its tensor arguments, so
  its result depends on its inputs alone, and these are as they were.

`Accesses` watches what a launch reads and writes through the interpreter's builder (loads, stores,
descriptor copies, atomics: address ranges), and `Repeats` keeps the last launch's key, its tensors'
versions after it, and whether it may be repeated. The capture then skips running such a repeat, and says
so in the launch table; every launch is still compiled, captured and modelled.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from .. import compat

_READS = ("create_load", "create_masked_load")
_WRITES = ("create_store", "create_masked_store")
_ATOMICS = ("create_atomic_cas", "create_atomic_rmw", "create_atomic_load", "create_atomic_store",
            "create_atomic_poll")
_DESCRIPTORS = ("create_descriptor_load", "create_descriptor_store")


@dataclass
class Accesses:
    """The address ranges a launch loads and stores, while it runs in the interpreter (a context manager)."""
    read: list = field(default_factory=list)
    written: list = field(default_factory=list)
    unknown: bool = False          # an atomic, or a tensor descriptor: not followed, so never repeated

    def __enter__(self):
        InterpreterBuilder = compat.reach("interpreter").InterpreterBuilder
        self._saved = {name: getattr(InterpreterBuilder, name) for name in (*_READS, *_WRITES, *_ATOMICS, *_DESCRIPTORS)
                       if hasattr(InterpreterBuilder, name)}
        for name, original in self._saved.items():
            setattr(InterpreterBuilder, name, self._watch(name, original))
        return self

    def __exit__(self, *exc):
        InterpreterBuilder = compat.reach("interpreter").InterpreterBuilder
        for name, original in self._saved.items():
            setattr(InterpreterBuilder, name, original)
        return False

    def _watch(self, name, original):
        accesses = self

        def watched(builder, *args, **kwargs):
            if name in _READS or name in _WRITES:
                span = _span(args[0], args[1] if "masked" in name else None)
                if span:
                    (accesses.read if name in _READS else accesses.written).append(span)
            else:
                accesses.unknown = True
            return original(builder, *args, **kwargs)
        return watched


def _span(pointers, mask) -> tuple[int, int] | None:
    """The [lowest, highest] address a load or store touches (under its mask), or None when it touches none."""
    import numpy as np
    addresses = np.asarray(pointers.data)
    if mask is not None:
        addresses = addresses[np.asarray(mask.data).astype(bool)]
    if addresses.size == 0:
        return None
    return int(addresses.min()), int(addresses.max())


class Repeats:
    """The last launch the interpreter ran, and whether the next may skip running."""

    def __init__(self):
        self.last_key = None
        self.last_versions = None
        self.last_tensors: list = []
        self.last_index: int | None = None
        self.repeatable = False

    def repeat_of(self, key, values) -> int | None:
        """The index of the launch this one repeats exactly (nothing left to change), else None. The tensors must
        be the very objects the last launch had: a new tensor at a freed one's address, its version count starting
        over, holds other data under the same key (one case's inputs after another's, in `check`)."""
        if self.repeatable and key == self.last_key and _versions(values) == self.last_versions and \
                _same_objects(self.last_tensors, values):
            return self.last_index
        return None

    def ran(self, index: int, key, values, accesses: Accesses) -> None:
        """Launch `index` has just run, with these accesses: may the same launch be skipped next?"""
        spans = _tensor_spans(values)
        read = _touched(accesses.read, spans)
        written = _touched(accesses.written, spans)
        outside = read is None or written is None          # memory beyond its tensor arguments
        self.last_key, self.last_versions, self.last_index = key, _versions(values), index
        self.last_tensors = [weakref.ref(v) for v in values if hasattr(v, "data_ptr") and hasattr(v, "stride")]
        self.repeatable = key is not None and not accesses.unknown and not outside and not (read & written)

    def forget(self) -> None:
        self.repeatable = False


def _same_objects(refs: list, values) -> bool:
    tensors = [v for v in values if hasattr(v, "data_ptr") and hasattr(v, "stride")]
    return len(refs) == len(tensors) and all(ref() is v for ref, v in zip(refs, tensors))


def key(jit, grid, values):
    """What makes two launches the same launch; None when an argument cannot be compared (then never repeated)."""
    parts = [id(jit), tuple(grid)]
    for value in values:
        if hasattr(value, "data_ptr") and hasattr(value, "stride"):
            parts.append(("tensor", value.data_ptr(), tuple(value.shape), tuple(value.stride()), str(value.dtype)))
        elif value is None or isinstance(value, (bool, int, float, str)):
            parts.append(value)
        else:
            try:
                hash(value)
            except TypeError:
                return None
            parts.append(value)
    return tuple(parts)


def _versions(values) -> tuple:
    return tuple(value._version for value in values if hasattr(value, "_version") and hasattr(value, "data_ptr"))


def _tensor_spans(values) -> list[tuple[int, int]]:
    spans = []
    for i, value in enumerate(values):
        if hasattr(value, "data_ptr") and hasattr(value, "untyped_storage"):
            storage = value.untyped_storage()
            spans.append((i, storage.data_ptr(), storage.data_ptr() + storage.nbytes()))
    return spans


def _touched(ranges: list[tuple[int, int]], spans) -> set | None:
    """The arguments (by position) whose storage the address ranges fall in; None if one falls in none."""
    found = set()
    for low, high in ranges:
        owners = [i for i, start, end in spans if start <= low and high < end]
        if not owners:
            return None
        found.update(owners)
    return found
