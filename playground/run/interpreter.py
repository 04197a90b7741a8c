"""Triton's interpreter made to compute as a GPU would, installed wherever kernels run on the CPU (`check`,
`run`, `fuse --run`).

- bf16 arithmetic in fp32, rounded as the hardware rounds (bf16_interpreter.py);
- libdevice's functions, which it cannot call, computed by torch's of the same name (libdevice_shim.py);
- grid dependency control (`tl.extra.cuda.gdc_wait`, `gdc_launch_dependents`: programmatic dependent launch,
  PTX ISA "griddepcontrol"): they only say when the next launch may start, or wait for the one before to
  finish. The interpreter has no builder operation for them (its kernels fail with an AttributeError), yet
  it runs launches one after another, each to its end, so both are already true: they run as nothing.
- a float argument reaches the kernel as the fp32 scalar the compiled kernel receives (Triton's JIT types a
  Python float "fp32"), so `eps.to(tl.float32)` works as on a GPU; the interpreter passed the bare Python
  float, which has no `.to` (Liger-Kernel's RMSNorm fails on it).
- a loop's induction variable (`for k in range(n)`, `tl.range`) answers `.to(dtype)` and `.dtype` as the
  compiled kernel's int32 scalar does: the interpreter counts with Python ints, which have neither, so
  `(k * BLOCK_K).to(tl.int32)` failed (FlagGems' Hopper GEMM). It stays an int (LoopIndex), so everything an
  int did still works; `tl.static_range` keeps plain ints, as its values are constants in the compiled kernel.
- integer overflow checks that cannot fire: the interpreter's options ask for them (`sanitize_overflow`) with
  `debug` off, so every int32 add, subtract and multiply also computed itself in int64, compared it with the
  limits and handed the answer to a `device_assert` that returns without looking (semantic.device_assert
  drops it unless `debug`): about a quarter of an interpreted layer norm's time, for nothing. With debug off
  they are off, as a GPU compile without debug has no assert to keep them for either.
- a reduction with a combine function of its own (`tl.reduce((mean, m2, count), 0, welford_merge)`): the
  interpreter called it once per element, on scalars, one after another (2048 calls a row: 11 s for a 9-row
  layer norm). A combine function is elementwise (compiled, it runs on one lane's values), so it is called
  on halves instead, the first half of the axis against the second, log2(n) times: the tree a GPU reduces
  in (whose order of additions differs from the sequential one just as much). A combine function that will
  not take vectors (an `if` on its arguments) is run the interpreter's way.
Any other operation it lacks still fails, and `run` names it in one line.
"""
from __future__ import annotations

from functools import lru_cache

from .. import compat

# builder operations whose meaning holds already when launches run one after another, each to its end
ALREADY_TRUE = ("create_grid_dependency_wait", "create_grid_dependency_launch_dependents")


def install() -> None:
    from . import bf16_interpreter
    interpreter = compat.reach("interpreter")
    bf16_interpreter.install()
    for name in ALREADY_TRUE:
        if not hasattr(interpreter.InterpreterBuilder, name):
            setattr(interpreter.InterpreterBuilder, name, lambda self, *args, **kwargs: None)
    if not getattr(interpreter._patch_lang, "with_cuda_extras", False):
        interpreter._patch_lang = _with_cuda_extras(interpreter._patch_lang)
    if not getattr(interpreter._implicit_cvt, "floats_as_fp32", False):
        interpreter._implicit_cvt = _floats_as_fp32(interpreter._implicit_cvt)
    if not getattr(interpreter.ReduceOps.generic_reduce, "by_halves", False):
        interpreter.ReduceOps.generic_reduce = _by_halves(interpreter.ReduceOps.generic_reduce)
    options = interpreter.interpreter_builder.options
    if options.sanitize_overflow and not options.debug:      # checks whose assert is dropped (docstring)
        import dataclasses
        interpreter.interpreter_builder.options = dataclasses.replace(options, sanitize_overflow=False)


def _by_halves(original):
    """ReduceOps.generic_reduce as a tree: the combine function on the axis's two halves, until one is left."""
    import numpy as np
    import triton.language as tl

    def generic_reduce(self, input):
        try:
            out = _reduce_by_halves(self, input, np, tl)
        except Exception:            # a combine function that only takes scalars: element by element
            out = None
        return out if out is not None else original(self, input)

    generic_reduce.by_halves = True
    return generic_reduce


def _reduce_by_halves(self, input, np, tl):
    original_axis = self.axis
    input, axis = self.unravel(input, self.axis)
    data = [arg.handle.data for arg in input]
    shape = data[0].shape
    if shape[axis] == 0 or any(d.shape != shape for d in data):
        return None
    while data[0].shape[axis] > 1:
        n = data[0].shape[axis]
        half = n // 2
        first = [np.take(d, range(half), axis=axis) for d in data]
        second = [np.take(d, range(half, 2 * half), axis=axis) for d in data]
        combined = self.combine_fn.fn(*(self.to_tensor(d, arg.dtype) for d, arg in zip(first, input)),
                                      *(self.to_tensor(d, arg.dtype) for d, arg in zip(second, input)))
        combined = combined if isinstance(combined, tuple) else (combined,)
        if len(combined) != len(data) or not all(isinstance(c, tl.core.tensor) and c.handle.data.shape ==
                                                 first[0].shape for c in combined):
            return None            # scalars, or another shape: not an elementwise combine
        # stored in each input's type after every step, as the interpreter's own loop does
        combined = [c.handle.data.astype(d.dtype, copy=False) for c, d in zip(combined, data)]
        if n % 2:                  # the odd one out joins the next round
            combined = [np.concatenate([c, np.take(d, [n - 1], axis=axis)], axis=axis) for c, d in zip(combined, data)]
        data = combined
    out = []
    for d, arg in zip(data, input):
        d = np.squeeze(d, axis=axis)
        if self.keep_dims:
            if original_axis is not None:
                d = np.expand_dims(d, axis)
            else:
                for _ in range(len(shape)):
                    d = np.expand_dims(d, 0)
        elif original_axis is None:
            d = d.item()
        out.append(self.to_tensor(d, arg.dtype))
    return out


def _floats_as_fp32(original):
    import numpy as np
    import triton.language as tl
    TensorHandle = compat.reach("interpreter").TensorHandle

    def implicit_cvt(arg):
        if isinstance(arg, float):
            return tl.tensor(TensorHandle(np.array([arg], dtype=np.float32), tl.float32), tl.float32)
        return original(arg)

    implicit_cvt.floats_as_fp32 = True
    return implicit_cvt


def _with_cuda_extras(original):
    """The interpreter hands its builder to triton.language's builtins for the time of a launch (a scope it
    undoes afterwards, so compiling is untouched); `tl.extra.cuda`'s (gdc_wait, ...) are left out, and fail
    asking for `_semantic`. This hands it to them too, and, for the same time, gives libdevice's functions
    (which the interpreter cannot call) their stand-ins computed by torch (libdevice_shim.py).

    Triton patches again at every nested @triton.jit call (`tl.sum`, a helper), in every program: 2-3 ms each
    (inspect.getmembers over triton.language), most of an interpreted layer norm's time, and never undone.
    Within a launch, a nested call whose modules this launch has patched already does nothing here; one that
    brings new ones (`triton.language.core` seen from `standard.py`, another package's `range`) patches them
    into the launch's own scope, undone with it at the launch's end."""
    interpreter = compat.reach("interpreter")

    def patch_lang(fn):
        launch = _LAUNCH[-1] if _LAUNCH else None
        if launch is not None and not _called_by_launch():
            key = _patch_key(fn)
            if key is not None and key in launch.done:
                return interpreter._LangPatchScope()        # nothing to undo: the launch's scope holds it
            nested = patch_lang_fully(fn)
            if key is not None:
                launch.done.add(key)
                launch.scope._changes.extend(nested._changes)   # undone, in reverse, before the launch's own
                nested._changes = []
            return nested
        scope = patch_lang_fully(fn)
        if _called_by_launch():
            _LAUNCH.append(_Launch(scope, {_patch_key(fn)}))
            restore = scope.restore

            def restore_and_end():
                if _LAUNCH and _LAUNCH[-1].scope is scope:
                    _LAUNCH.pop()
                restore()
            scope.restore = restore_and_end
        return scope

    def patch_lang_fully(fn):
        scope = original(fn)
        from triton.language.extra import cuda, libdevice

        from .libdevice_shim import libdevice as stand_ins
        for module in (cuda, getattr(cuda, "gdc", None)):
            if module is not None:
                interpreter._patch_builtin(module, interpreter.interpreter_builder, scope)
        imported = _imported_by_name(fn, stand_ins)       # while libdevice's own names still hold its stubs
        for module in {libdevice, getattr(cuda, "libdevice", libdevice)}:
            for name in dir(module):
                if not name.startswith("_") and name in vars(type(stand_ins)) | vars(stand_ins):
                    scope.set_attr(module, name, getattr(stand_ins, name))
        for module, name, stand_in in imported:
            scope.set_attr(module, name, stand_in)
        import triton.language as tl
        # a scalar as an index (`tl.range(tl.program_id(0), n, step)`): Triton 3.6's interpreter converts it with
        # int(data), which NumPy 2.4 refuses for its one-element array; Triton 3.8 and 3.9 squeeze it first, as here
        scope.set_attr(tl.tensor, "__index__", lambda self: int(self.handle.data.squeeze()))
        scope.set_attr(tl, "range", _counting(tl.range))
        for module in _package_modules(fn):
            scope.set_attr(module, "range", _counting(range))
        return scope

    patch_lang.with_cuda_extras = True
    return patch_lang


class _Launch:
    """The patch scope of the launch running now, and which (modules, package) keys it has patched."""

    def __init__(self, scope, done: set):
        self.scope, self.done = scope, done


_LAUNCH: list = []       # the launch in progress (GridExecutor.__call__ patched for it), if any


def _called_by_launch() -> bool:
    """Whether patch_lang's caller is the interpreter's GridExecutor starting a launch (not a nested call)."""
    import sys
    return sys._getframe(2).f_code is compat.reach("interpreter").GridExecutor.__call__.__code__


def _patch_key(fn):
    """What a patch for `fn` depends on: which triton.language modules its globals hold, and its package (whose
    modules' `range` and libdevice names are patched). None where Triton itself would refuse (no such module).
    Kept per function and size of its globals (a module still importing could add one)."""
    globals_ = getattr(fn, "__globals__", {})
    cached = _KEYS.get(id(fn))
    if cached is not None and cached[0] is fn and cached[1] == len(globals_):
        return cached[2]
    import triton.language as tl
    langs = frozenset(id(v) for v in globals_.values() if v is tl or v is tl.core)
    key = (langs, (getattr(fn, "__module__", None) or "").split(".")[0]) if langs else None
    _KEYS[id(fn)] = (fn, len(globals_), key)
    return key


_KEYS: dict = {}         # id(fn) -> (fn, len(fn.__globals__), its _patch_key)


def _imported_by_name(fn, stand_ins) -> list:
    """libdevice functions a kernel's package imported by name (`from triton.language.extra.libdevice import
    rsqrt`, as Liger-Kernel does): the module attribute patched above is not what those names hold, so each
    such name in a module of the kernel's own package gets its stand-in too, for the launch's time."""
    stubs = _stubs(stand_ins)
    return [(module, name, stubs[id(value)]) for module, bound in _package(fn)[1]
            for name, value in bound if id(value) in stubs]


def _package_modules(fn) -> list:
    """The loaded modules of the kernel's own package (its helper @triton.jit functions live there)."""
    return _package(fn)[0]


@lru_cache(maxsize=1)
def _stubs(stand_ins) -> dict:
    """id of each libdevice stub that has a stand-in, and of the stand-in itself -> the stand-in: a name bound to
    either is one to patch, whether or not a launch has patched it already. Read at the first launch, before any
    launch has patched libdevice's names (stubs and stand-ins live as long as the process)."""
    from triton.language.extra import cuda, libdevice
    shimmed = vars(type(stand_ins)) | vars(stand_ins)
    stubs = {id(getattr(module, name)): getattr(stand_ins, name)
             for module in {libdevice, getattr(cuda, "libdevice", libdevice)}
             for name in dir(module) if not name.startswith("_") and name in shimmed}
    return stubs | {id(stand_in): stand_in for stand_in in stubs.values()}


_PACKAGES: dict = {}     # (package, how many modules are loaded) -> its modules, and their public names


def _package(fn) -> tuple:
    """The kernel's package as loaded: its modules, and each module's (name, value) pairs. Asked at every launch
    and every nested @triton.jit call, so kept until a module is loaded or dropped. None for Triton's own
    functions (tl.cdiv and the like are interpreted too), whose package holds triton.language, nor for torch's
    (Inductor's kernels), whose modules do not all take attributes."""
    import sys
    import types
    package = (getattr(fn, "__module__", None) or "").split(".")[0]
    if package in ("", "triton", "torch"):
        return [], []
    key = (package, len(sys.modules))
    if key not in _PACKAGES:
        modules = [module for name, module in list(sys.modules.items())
                   if type(module) is types.ModuleType and (name == package or name.startswith(package + "."))]
        _PACKAGES[key] = (modules, [(m, [(k, v) for k, v in vars(m).items() if not k.startswith("__")])
                                    for m in modules])
    return _PACKAGES[key]


def _counting(make_range):
    """`range` (Python's, or the interpreter's tl.range) whose values are LoopIndex."""
    if getattr(make_range, "counts_loop_indices", False):
        return make_range

    def counting(*args, **kwargs):
        return map(LoopIndex, make_range(*args, **kwargs))

    counting.counts_loop_indices = True
    return counting


def _plain(value):
    import triton.language as tl
    return value.value if isinstance(value, tl.constexpr) else value


class LoopIndex(int):
    """A loop's induction variable in the interpreter: an int (it indexes, counts and compares as Python's ints do)
    that also answers `.to(dtype)` and `.dtype` as the compiled kernel's int32 scalar, and stays one through integer
    arithmetic with ints and constexprs."""

    @property
    def dtype(self):
        import triton.language as tl
        return tl.int32

    def to(self, dtype, *args, **kwargs):
        import numpy as np
        import triton.language as tl
        TensorHandle = compat.reach("interpreter").TensorHandle
        scalar = tl.tensor(TensorHandle(np.array([int(self)], dtype=np.int32), tl.int32), tl.int32)
        return scalar.to(dtype, *args, **kwargs)


def _arithmetic(name):
    method = getattr(int, name)

    def op(self, other=None, *rest):
        other = _plain(other)
        result = method(self) if name == "__neg__" else method(self, other, *rest)
        return LoopIndex(result) if type(result) is int else result
    return op


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__floordiv__",
              "__rfloordiv__", "__mod__", "__rmod__", "__neg__", "__lshift__", "__rshift__", "__and__", "__or__"):
    setattr(LoopIndex, _name, _arithmetic(_name))
