"""Sanitizers for a kernel run in Triton's interpreter: memcheck, racecheck and initcheck.

The interpreter runs one program after another and executes every `tl.load` and `tl.store` as a
call on its builder, with the lanes' addresses as a numpy array. While a `Sanitizer` is active,
those calls are watched (the builder's methods are wrapped once per process, and do nothing
extra when no sanitizer is active):

- memcheck: a lane whose mask is on and whose address is outside every tensor argument, or in a
  sliced view's row padding. The first such lane per kernel line is reported: which program,
  which lane, and where it points (so many elements past the end of 'x'). A lane outside every
  allocation, guards included, is dropped so the interpreter cannot read or write wild memory.
- racecheck: two programs storing to the same element with plain `tl.store`, or one program
  loading an output element that another stores to, with no atomic between them. On a GPU the
  programs run concurrently, so the result depends on their order; the interpreter's sequential
  order hides that. Atomics are recorded as such and never reported. A program that takes a
  lock (a scalar `tl.atomic_cas(lock, 0, 1)` that finds it free, or `tl.atomic_xchg(lock, 1)`
  that finds 0) holds it until its next atomic or store on the lock: two accesses made under
  the same lock are ordered by it, and are not a race (the spin-lock critical section real
  kernels use to merge partial results, as cut-cross-entropy's log-sum-exp does).
- initcheck: a `tl.load` with a mask and no `other=` leaves its masked-out lanes undefined on a
  GPU (the interpreter reads zeros there). The sanitizer poisons them (NaN, the largest value
  and its negative in turn, see _poison); `check` then compares with a run that reads zeros,
  and a difference in any output means undefined values reach it (see check.py).

Each sanitizer keeps the seconds its bookkeeping took (`spent`: memcheck, racecheck, initcheck), so a check
can say what each guard costs beside the interpreter itself.

What each catches and misses, against NVIDIA's compute-sanitizer and triton-viz, is in
docs/sanitizers.md. Every finding names the kernel's line: the innermost frame of the user's
own code (the interpreter runs the kernel's Python, compiled from its own file).
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .. import compat
from ..text import short_path
from .user_code import is_user_file

_ACTIVE: Sanitizer | None = None
MAX_FINDINGS = 5          # per sanitizer: the first few say enough


@dataclass
class Finding:
    sanitizer: str        # "memcheck", "racecheck" or "initcheck"
    where: str            # "kernels/softmax.py:31"
    message: str

    def __str__(self):
        return f"{self.sanitizer}: {self.where}: {self.message}"


@dataclass
class Region:
    """One tensor argument: its allocation (guards excluded) and which of its elements the view covers."""
    name: str
    base: int             # address of the allocation's first element
    esize: int
    covered: np.ndarray   # bool per allocation element
    output: bool
    storage_start: int    # the guarded storage, guards included
    storage_end: int
    view_offset: int      # the view's first element, in allocation elements
    view_strides: tuple
    view_shape: tuple
    _whole: bool | None = field(default=None, repr=False, compare=False)

    @property
    def end(self) -> int:
        """The address one past the allocation's last element."""
        return self.base + self.covered.size * self.esize

    @property
    def whole(self) -> bool:
        """Whether the view covers its whole allocation (no row padding): then any address inside is fine."""
        if self._whole is None:
            self._whole = bool(self.covered.all())
        return self._whole

    def coordinates(self, index: int) -> tuple:
        """The view index of allocation element `index` (a covered one)."""
        rest, coords = index - self.view_offset, [0] * len(self.view_shape)
        for dim in sorted(range(len(self.view_shape)), key=lambda d: -self.view_strides[d]):
            coords[dim], rest = divmod(rest, self.view_strides[dim]) if self.view_strides[dim] else (0, rest)
        return tuple(coords)


@dataclass
class Sanitizer:
    regions: list[Region]
    poison: bool = True                    # masked-out lanes of `other`-less loads read poison
    poison_sites: set | None = None        # only these lines (None: every line)
    findings: list[Finding] = field(default_factory=list)
    uninitialised_sites: dict = field(default_factory=dict)   # line -> masked-out lanes loaded with no other
    _stores: list = field(default_factory=list)     # (addresses, program, line, locks held: an index of _lock_sets)
    _loads: list = field(default_factory=list)      # loads of output elements, the same four
    _reported: set = field(default_factory=set)
    _lock_sets: list = field(default_factory=lambda: [frozenset()])   # each set of lock addresses seen held
    _held: set = field(default_factory=set)         # the lock addresses the running program holds
    _held_by: int = -1                              # which program that is
    spent: dict = field(default_factory=lambda: {"memcheck": 0.0, "racecheck": 0.0, "initcheck": 0.0})

    @classmethod
    def for_buffers(cls, buffers: dict, outputs: set, **kwargs) -> Sanitizer:
        """Regions from runner.allocate's guarded buffers."""
        regions = []
        for name, b in buffers.items():
            esize = b.storage.element_size()
            base = b.storage.data_ptr() + b.start * esize
            regions.append(Region(name, base, esize, b.covered.cpu().numpy(), name in outputs,
                                  b.storage.data_ptr(), b.storage.data_ptr() + b.storage.numel() * esize,
                                  (b.view.data_ptr() - base) // esize, tuple(b.view.stride()),
                                  tuple(b.view.shape)))
        return cls(regions, **kwargs)

    @classmethod
    def for_tensors(cls, tensors: dict, **kwargs) -> Sanitizer:
        """Regions from a launch's own tensor arguments (`run`: a script's tensors, with no guards around them).
        Which of them the kernel writes is not known beforehand: each counts as one it may store to."""
        regions = []
        for name, t in tensors.items():
            storage, esize = t.untyped_storage(), t.element_size()
            base, count = storage.data_ptr(), storage.nbytes() // esize
            if t.is_contiguous() and t.storage_offset() == 0 and t.numel() == count:
                covered = np.ones(count, dtype=bool)
            else:        # a view: only the elements it reaches
                import torch
                covered = np.zeros(count, dtype=bool)
                with compat.disable_torch_function():
                    reached = torch.arange(count).as_strided(t.shape, t.stride(), t.storage_offset())
                covered[reached.reshape(-1).numpy()] = True
            regions.append(Region(name, base, esize, covered, True, base, base + count * esize,
                                  t.storage_offset(), tuple(t.stride()), tuple(t.shape)))
        return cls(regions, **kwargs)

    @contextmanager
    def active(self):
        global _ACTIVE
        install()
        _ACTIVE = self
        try:
            yield self
        finally:
            _ACTIVE = None
        started = _clock()
        self.findings += self._races()
        self.spent["racecheck"] += _clock() - started

    # --- what the wrapped builder calls ---------------------------------------------------------------
    def on_access(self, kind: str, ptrs: np.ndarray, mask: np.ndarray, esize: int) -> np.ndarray:
        """memcheck one access; returns the mask with wild lanes (outside every allocation) turned off."""
        started = _clock()
        try:
            return self._memcheck(kind, ptrs, mask)
        finally:
            self.spent["memcheck"] += _clock() - started

    def _memcheck(self, kind: str, ptrs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = np.broadcast_to(np.asarray(mask, dtype=bool), ptrs.shape)
        if not mask.any():
            return mask
        # Almost every access stays inside one tensor with no row padding: two reductions say so, and the mask
        # stands as it is. Only an access that leaves it (or reaches padding) pays for the lane-by-lane search.
        lo, hi = _span(ptrs, mask)
        if any(r.base <= lo and hi < r.end and r.whole for r in self.regions):
            return mask
        addresses = ptrs.astype(np.int64)
        inside, anywhere = np.zeros(ptrs.shape, bool), np.zeros(ptrs.shape, bool)
        for r in self.regions:
            index = (addresses - r.base) // r.esize
            in_allocation = (index >= 0) & (index < r.covered.size)
            inside |= in_allocation & r.covered[np.clip(index, 0, r.covered.size - 1)]
            anywhere |= (addresses >= r.storage_start) & (addresses < r.storage_end)
        bad = mask & ~inside
        if bad.any():
            self._out_of_bounds(kind, addresses, bad)
        return mask & anywhere

    def on_load(self, ptrs: np.ndarray, mask: np.ndarray, has_other: bool) -> bool:
        """Record an `other`-less masked load; True when its masked-out lanes should read poison."""
        line = None
        started = _clock()
        if self._loads_outputs(ptrs, mask):
            line = _kernel_line()
            self._loads.append((ptrs[mask].astype(np.int64), _program(), line, self._locks_held()))
        recorded = _clock()
        self.spent["racecheck"] += recorded - started
        if has_other or mask.all():
            return False
        line = line or _kernel_line()
        self.uninitialised_sites[line] = self.uninitialised_sites.get(line, 0) + int((~mask).sum())
        self.spent["initcheck"] += _clock() - recorded
        return self.poison and (self.poison_sites is None or line in self.poison_sites)

    def on_store(self, ptrs: np.ndarray, mask: np.ndarray, atomic: bool = False) -> None:
        started = _clock()
        self._record_store(ptrs, mask, atomic)
        self.spent["racecheck"] += _clock() - started

    def _record_store(self, ptrs: np.ndarray, mask: np.ndarray, atomic: bool) -> None:
        if not atomic and mask.any():
            stored = ptrs[mask].astype(np.int64)
            self._stores.append((stored, _program(), _kernel_line(), self._locks_held()))
            held = self._holding()
            if held and stored.size == 1:
                held.discard(int(stored[0]))        # a plain store of the lock's free value releases it

    def on_atomic(self, ptrs: np.ndarray, mask: np.ndarray, old: np.ndarray, taken_when) -> None:
        """Follow locks: an atomic on one address either takes a free lock (`taken_when(old)`: a compare-and-swap
        that found the value it compares with, an exchange that found 0) or, by the program holding it, gives it back.
        An atomic over many addresses is no lock."""
        started = _clock()
        try:
            self._follow_locks(ptrs, mask, old, taken_when)
        finally:
            self.spent["racecheck"] += _clock() - started

    def _follow_locks(self, ptrs: np.ndarray, mask: np.ndarray, old: np.ndarray, taken_when) -> None:
        addresses = np.unique(np.broadcast_to(ptrs, np.shape(old) or ptrs.shape)[np.broadcast_to(mask, ptrs.shape)])
        if addresses.size != 1:
            return
        address, held = int(addresses[0]), self._holding()
        if address in held:
            held.discard(address)
        elif taken_when(np.asarray(old)):
            held.add(address)

    def _holding(self) -> set:
        """The running program's locks: a program starts holding none."""
        program = _program()
        if program != self._held_by:
            self._held, self._held_by = set(), program
        return self._held

    def _locks_held(self) -> int:
        held = frozenset(self._holding())
        if held not in self._lock_sets:
            self._lock_sets.append(held)
        return self._lock_sets.index(held)

    def _ordered(self, a: int, b: int) -> bool:
        """Whether accesses made under lock sets a and b are ordered: both hold one same lock."""
        return bool(self._lock_sets[a] & self._lock_sets[b])

    # --- findings -------------------------------------------------------------------------------------
    def _out_of_bounds(self, kind: str, addresses: np.ndarray, bad: np.ndarray) -> None:
        line = _kernel_line()
        if (kind, line) in self._reported or self._count("memcheck") >= MAX_FINDINGS:
            return
        self._reported.add((kind, line))
        lane = tuple(int(i) for i in np.argwhere(bad)[0])
        address = int(addresses[lane])
        lanes = int(bad.sum())
        self.findings.append(Finding("memcheck", line,
                                     f"{kind} of {lanes} lane(s) outside every tensor, the first "
                                     f"{_lane(lane)} of program {_program_tuple()}: {self._describe(address)}"))

    def _describe(self, address: int) -> str:
        """Where an address points, relative to the nearest tensor."""
        best = None
        for r in self.regions:
            index = (address - r.base) // r.esize
            if 0 <= index < r.covered.size:
                return f"the row padding of '{r.name}' (allocation element {index})"
            distance = index - r.covered.size + 1 if index >= r.covered.size else -index
            if best is None or distance < best[0]:
                best = (distance, r, index)
        distance, r, index = best
        where = "past the end of" if index >= r.covered.size else "before the start of"
        return f"{distance} element(s) {where} '{r.name}'"

    def _loads_outputs(self, ptrs: np.ndarray, mask: np.ndarray) -> bool:
        """Only loads that may touch an output can race with a store; inputs are never stored to."""
        if not mask.any():
            return False
        lo, hi = _span(ptrs, mask)
        return any(r.output and lo < r.storage_end and hi >= r.storage_start for r in self.regions)

    def _races(self) -> list[Finding]:
        if not self._stores:
            return []
        stores = _Stores(self._stores)
        sets = range(len(self._lock_sets))
        found = []
        clashes = [stores.clash(i, j) for i in sets for j in sets if i <= j and not self._ordered(i, j)]
        clashes = [c for c in clashes if c is not None]
        if clashes:
            count = int(np.unique(np.concatenate([addresses for addresses, _ in clashes])).size)
            first, second = (self._stores[r] for r in clashes[0][1])
            found.append(Finding("racecheck", second[2],
                                 f"programs {_unlinear(first[1])} and {_unlinear(second[1])} both store "
                                 f"{self._element(int(clashes[0][0][0]))} with tl.store ({count} element(s) "
                                 f"stored by more than one program; "
                                 f"the other store is at {first[2]}); use an atomic, or one owner per element"))
        for loaded, program, line, held in self._loads:
            hit = next((h for m in sets if not self._ordered(held, m)
                        for h in [stores.stored_by_another(m, loaded, program)] if h is not None), None)
            if hit is not None:
                address, record = hit
                writer, store_line = self._stores[record][1], self._stores[record][2]
                found.append(Finding("racecheck", line,
                                     f"program {_unlinear(program)} loads {self._element(address)}, "
                                     f"which program {_unlinear(writer)} stores at {store_line} "
                                     f"with no atomic between them"))
                break
        return found

    def _element(self, address: int) -> str:
        for r in self.regions:
            index = (address - r.base) // r.esize
            if 0 <= index < r.covered.size and r.covered[index]:
                return f"{r.name}[{', '.join(map(str, r.coordinates(index)))}]"
        return f"address {address:#x}"

    def _count(self, sanitizer: str) -> int:
        return sum(f.sanitizer == sanitizer for f in self.findings)

    def initcheck_finding(self, lines: list[str], outputs: list[str], changed: int) -> Finding:
        lanes = sum(self.uninitialised_sites.get(line, 0) for line in lines)
        return Finding("initcheck", ", ".join(lines),
                       f"masked-out lanes loaded with no `other=` ({lanes} over all programs) reach "
                       f"{', '.join(repr(o) for o in outputs)}: {changed} element(s) change when they "
                       f"hold NaN or +-the largest value instead of the interpreter's zeros; on a GPU "
                       f"they hold whatever was in the registers. Give the load an `other=` the "
                       f"computation tolerates")


class _Stores:
    """Every stored element, grouped by (address, locks held): which programs stored it, and in which records."""

    def __init__(self, stores: list):
        addresses = np.concatenate([a for a, *_ in stores])
        programs = np.concatenate([np.full(a.size, p, np.int64) for a, p, *_ in stores])
        records = np.concatenate([np.full(a.size, i, np.int64) for i, (a, *_) in enumerate(stores)])
        locks = np.concatenate([np.full(a.size, held, np.int64) for a, _, _, held in stores])
        order = np.lexsort((locks, addresses))                  # stable: a group keeps the stores' own order
        self.programs, self.records = programs[order], records[order]
        addresses, locks = addresses[order], locks[order]
        self.start = np.flatnonzero(np.r_[True, (addresses[1:] != addresses[:-1]) | (locks[1:] != locks[:-1])])
        self.end = np.r_[self.start[1:], addresses.size]
        self.address, self.locks = addresses[self.start], locks[self.start]
        self.lowest = np.minimum.reduceat(self.programs, self.start)
        self.highest = np.maximum.reduceat(self.programs, self.start)

    def clash(self, i: int, j: int):
        """Elements stored by two programs, one under lock set i and the other under j: (their addresses, the
        records of a first such pair), or None."""
        gi, gj = np.flatnonzero(self.locks == i), np.flatnonzero(self.locks == j)
        if i == j:
            hit = gi[self.lowest[gi] != self.highest[gi]]
            pairs = [(g, g) for g in hit[:1]]
        else:
            _, at_i, at_j = np.intersect1d(self.address[gi], self.address[gj], assume_unique=True,
                                           return_indices=True)
            gi, gj = gi[at_i], gj[at_j]
            one = (self.lowest[gi] == self.highest[gi]) & (self.lowest[gj] == self.highest[gj]) & \
                  (self.lowest[gi] == self.lowest[gj])
            hit, pairs = gi[~one], list(zip(gi[~one][:1], gj[~one][:1]))
        if not hit.size:
            return None
        a, b = pairs[0]
        first, second = next((x, y) for x in range(self.start[a], self.end[a]) for y in range(self.start[b], self.end[b])
                             if self.programs[x] != self.programs[y])
        first, second = sorted((first, second), key=lambda k: self.records[k])
        return self.address[hit], (int(self.records[first]), int(self.records[second]))

    def stored_by_another(self, locks: int, loaded: np.ndarray, program: int):
        """A loaded element that a program other than `program` stored under lock set `locks`: (its address, the
        record of that store), or None."""
        g = np.flatnonzero(self.locks == locks)
        if not g.size:
            return None
        pos = np.clip(np.searchsorted(self.address[g], loaded), 0, g.size - 1)
        hit = (self.address[g][pos] == loaded) & ((self.lowest[g][pos] != program) | (self.highest[g][pos] != program))
        if not hit.any():
            return None
        group = g[pos[np.argmax(hit)]]
        store = next(k for k in range(self.start[group], self.end[group]) if self.programs[k] != program)
        return int(self.address[group]), int(self.records[store])


_clock = time.perf_counter


def _span(ptrs: np.ndarray, mask: np.ndarray) -> tuple[int, int]:
    """The lowest and highest address of the lanes `mask` turns on (one at least)."""
    if ptrs.size and mask.all():
        return int(ptrs.min()), int(ptrs.max())
    reached = ptrs[mask]
    return int(reached.min()), int(reached.max())


# --- the interpreter's side ---------------------------------------------------------------------------

def _program() -> int:
    b = compat.reach("interpreter").interpreter_builder
    x, y, z = b.grid_idx
    nx, ny, _ = b.grid_dim
    return x + nx * (y + ny * z)


def _program_tuple() -> str:
    return _unlinear(_program())


def _unlinear(linear: int) -> str:
    b = compat.reach("interpreter").interpreter_builder
    nx, ny, _ = b.grid_dim
    x, rest = linear % nx, linear // nx
    return f"({x}, {rest % ny}, {rest // ny})"


def _lane(lane: tuple) -> str:
    return f"lane [{', '.join(map(str, lane))}]" if lane else "lane"


def _kernel_line() -> str:
    """file:line of the innermost frame in the user's code (not triton, numpy or playground/)."""
    frame = sys._getframe(2)
    while frame is not None:
        if _is_user(frame.f_code.co_filename):
            return f"{_short_path(frame.f_code.co_filename)}:{frame.f_lineno}"
        frame = frame.f_back
    return "<kernel>"


@lru_cache(maxsize=None)
def _is_user(path: str) -> bool:
    return is_user_file(path)


_short_path = lru_cache(maxsize=None)(short_path)   # every finding asks; the answer does not change


def _poison(masked_out: np.ndarray, element) -> np.ndarray:
    """What the masked-out lanes hold under initcheck, in turn: NaN, the largest finite value and
    its negative. NaN reaches a sum or a product, but the interpreter's max and min skip NaN
    (np.nanmax), so the largest value reaches a max and its negative a min. Integers: the type's
    largest value, then its smallest. bf16 and fp8 are raw bits in the interpreter."""
    key = (element.name, masked_out.shape, masked_out.tobytes())
    cached = _POISONED.get(key)
    if cached is not None:          # every program of a launch masks the same lanes: the same poison, read-only
        return cached
    if len(_POISONED) > 64:
        _POISONED.clear()
    dtype = np.dtype(compat.reach("interpreter")._get_np_dtype(element))
    name = element.name
    if name in _RAW_BITS:
        turns = _RAW_BITS[name]
    elif dtype.kind == "f":
        top = np.finfo(dtype).max
        turns = (np.nan, top, -top)
    elif dtype.kind == "b":
        turns = (True,)
    else:
        turns = (np.iinfo(dtype).max, np.iinfo(dtype).min)
    out = np.zeros(masked_out.shape, dtype)
    rank = np.cumsum(masked_out.reshape(-1)).reshape(masked_out.shape) - 1      # 0, 1, 2, ... over masked lanes
    for i, value in enumerate(turns):
        out[masked_out & (rank % len(turns) == i)] = value
    out.flags.writeable = False
    _POISONED[key] = out
    return out


_POISONED: dict = {}      # (element type, mask shape, mask bits) -> the poison _poison made for them


# bf16 and fp8 poison as the interpreter stores them: NaN, the largest finite value, its negative
_RAW_BITS = {"bf16": (0x7FC0, 0x7F7F, 0xFF7F), "fp8e4nv": (0x7F, 0x7E, 0xFE), "fp8e5": (0x7E, 0x7B, 0xFB)}


_INSTALLED = False


def install() -> None:
    """Wrap the interpreter builder's memory operations once; they defer to Triton's own when idle."""
    global _INSTALLED
    if _INSTALLED:
        return
    interpreter = compat.reach("interpreter")
    InterpreterBuilder, TensorHandle = interpreter.InterpreterBuilder, interpreter.TensorHandle
    load, store, rmw, cas = (InterpreterBuilder.create_masked_load, InterpreterBuilder.create_masked_store,
                             InterpreterBuilder.create_atomic_rmw, InterpreterBuilder.create_atomic_cas)

    def masked_load(self, ptrs, mask, other, *rest, **named):
        s = _ACTIVE
        if s is None:
            return load(self, ptrs, mask, other, *rest, **named)
        element = ptrs.get_element_ty()
        allowed = s.on_access("load", ptrs.data, mask.data, element.primitive_bitwidth // 8)
        wanted = np.broadcast_to(np.asarray(mask.data, bool), ptrs.data.shape)
        if s.on_load(ptrs.data, wanted, other is not None):
            # poison masked-out lanes: where the interpreter would read zeros, a GPU reads anything
            started = _clock()
            other = TensorHandle(_poison(~wanted, element), element)
            s.spent["initcheck"] += _clock() - started
        return load(self, ptrs, TensorHandle(np.ascontiguousarray(allowed), mask.dtype), other, *rest, **named)

    def masked_store(self, ptrs, value, mask, *rest, **named):
        s = _ACTIVE
        if s is None:
            return store(self, ptrs, value, mask, *rest, **named)
        element = ptrs.get_element_ty()
        allowed = s.on_access("store", ptrs.data, mask.data, element.primitive_bitwidth // 8)
        s.on_store(ptrs.data, allowed)
        return store(self, ptrs, value, TensorHandle(np.ascontiguousarray(allowed), mask.dtype), *rest, **named)

    def atomic_rmw(self, op, ptr, val, mask, *rest, **named):
        s = _ACTIVE
        if s is None:
            return rmw(self, op, ptr, val, mask, *rest, **named)
        element = ptr.get_element_ty()
        allowed = s.on_access("atomic", ptr.data, mask.data, element.primitive_bitwidth // 8)
        old = rmw(self, op, ptr, val, TensorHandle(np.ascontiguousarray(allowed), mask.dtype), *rest, **named)
        exchange = getattr(op, "name", "") == "XCHG"
        s.on_atomic(ptr.data, allowed, old.data,
                    lambda found: exchange and bool(np.all(found == 0)) and bool(np.all(np.asarray(val.data) != 0)))
        return old

    def atomic_cas(self, ptr, cmp, val, *rest, **named):
        s = _ACTIVE
        if s is None:
            return cas(self, ptr, cmp, val, *rest, **named)
        everywhere = np.ones(ptr.data.shape, bool)
        s.on_access("atomic", ptr.data, everywhere, ptr.get_element_ty().primitive_bitwidth // 8)
        old = cas(self, ptr, cmp, val, *rest, **named)
        compared, swapped = np.asarray(cmp.data), np.asarray(val.data)
        s.on_atomic(ptr.data, everywhere, old.data,
                    lambda found: bool(np.all(found == compared)) and bool(np.any(swapped != compared)))
        return old

    InterpreterBuilder.create_masked_load = masked_load
    InterpreterBuilder.create_masked_store = masked_store
    InterpreterBuilder.create_atomic_rmw = atomic_rmw
    InterpreterBuilder.create_atomic_cas = atomic_cas
    _INSTALLED = True
