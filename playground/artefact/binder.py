"""What Triton's JIT would specialise for a launch, asked of Triton's own binder.

Fidelity: Triton's JIT specialises each launch on its arguments (pointers 16-byte aligned,
integers divisible by 16 or equal to 1) and fills in default options. We ask Triton's own
binder for that specialisation, with storage-free stand-in tensors at the request's shape,
exactly as `JITFunction.run` does, so what we compile is what a launch at the same shape would
compile. Its answer is kept per launch shape (cache.py).
"""
from __future__ import annotations

import contextlib

from .. import compat
from ..core.spec import KernelSpec
from ..core.config import Config, stand_in_args
from ..core.targets import Target
from ..errors import UserError
from . import cache



# Options the JIT passes to the backend on every launch (JITFunction.run), beside num_warps/stages.
_JIT_RUN_DEFAULTS = ("debug", "instrumentation_mode", "fpsan_homomorphic_casts")


def specialize(spec: KernelSpec, target: Target, config: Config):
    """Ask Triton's own binder what the JIT would specialise for this launch.

    Returns (signature, constexprs, attrs, options, readable specialisation), as
    `JITFunction._pack_args` builds them.
    """
    from triton import knobs
    from triton.compiler import make_backend
    create_function_from_signature = compat.reach("create_function_from_signature")

    fn = spec.kernel
    backend = make_backend(target.gpu_target())
    kwargs = dict(config.meta, num_warps=config.num_warps, num_stages=config.num_stages)
    run_defaults = {"debug": bool(getattr(fn, "debug", None)) or knobs.runtime.debug,
                    "instrumentation_mode": getattr(knobs.compilation, "instrumentation_mode", ""),
                    "fpsan_homomorphic_casts": getattr(knobs.compilation, "fpsan_homomorphic_casts", False)}
    option_names = set(backend.parse_options({}).__dict__)
    kwargs.update({k: v for k, v in run_defaults.items() if k in option_names})
    kwargs.update({k: v for k, v in spec.compile_options.items() if k in option_names})   # as its launcher passes them
    args = stand_in_args(spec, config, target)
    for k in kwargs:
        if k not in option_names and k not in fn.arg_names:
            from ..core.params import LAUNCH_OPTIONS
            if k in LAUNCH_OPTIONS:
                raise UserError(f"meta {k}: not an option of Triton's {target.backend} backend ({target.name}); "
                                f"it has: {', '.join(o for o in LAUNCH_OPTIONS if o in option_names)}", param="meta")
            raise UserError(f"meta {k}: not a parameter of {fn.__name__}", param="meta")
    memo = None if cache.disabled() else cache.binder_key(fn, target.gpu_target(), args, kwargs)
    answer = cache.binder_lookup(memo) if memo else None
    if answer is None:
        binder = create_function_from_signature(fn.signature, fn.params, backend)
        with _no_torch_in_amd_binder(target):
            try:
                bound, specialization, _ = binder(*args, **kwargs)
            except TypeError as e:
                raise UserError(f"{spec.name}: the spec's args do not match the kernel's parameters: {e}") from e
        values = list(bound.values())
        answer = (specialization, [v if s[0] == "constexpr" else None for v, s in zip(values, specialization)])
        if memo:
            cache.binder_record(memo, answer)
    specialization, values = answer
    # Triton's own packing (JITFunction._pack_args), so the signature, constexprs and attrs (constexprs
    # included, as ''-attributes) and hence the kernel's hash are the JIT's, byte for byte.
    names = [p.name for p in fn.params]
    options, signature, constexprs, attrs = fn._pack_args(
        backend, kwargs, dict(zip(names, values)), [tuple(s) for s in specialization], None)
    readable = [_describe_arg(n, s, values[i]) for i, (n, s) in enumerate(zip(names, specialization))]
    return signature, constexprs, attrs, options, readable


def _describe_arg(name: str, spec_entry: tuple, value) -> dict:
    kind, attr = spec_entry[0], spec_entry[1] if len(spec_entry) > 1 else None
    if isinstance(kind, tuple):        # a tuple argument: its items' kinds and attributes, side by side
        items = [_describe_arg(f"[{i}]", (k, a), None) for i, (k, a) in enumerate(zip(kind, attr))]
        return {"name": name, "type": f"({', '.join(str(i['type']) for i in items)})",
                "assumed": [f"{i['name']} {', '.join(i['assumed'])}" for i in items if i["assumed"]]}
    assumed = []
    if kind == "constexpr":
        assumed.append(f"= {value}")
    elif isinstance(attr, str):
        if "D" in attr:
            assumed.append("16-byte aligned" if kind.startswith("*") else "divisible by 16")
        if "S" in attr:
            assumed.append("within 2 GB (buffer ops)")
    return {"name": name, "type": kind, "assumed": assumed}


@contextlib.contextmanager
def _no_torch_in_amd_binder(target: Target):
    """The HIP backend imports torch to ask a tensor's storage size; stand-ins answer `ptr_range()`.

    Triton's own check tries `ptr_range()` first for objects that have it; we make it the only
    path, so the answer is unchanged and torch stays unimported.
    """
    if target.is_nvidia:
        yield
        return
    HIPBackend = compat.reach("HIPBackend")
    original = HIPBackend.__dict__["is_within_2gb"]
    HIPBackend.is_within_2gb = staticmethod(lambda arg: arg.ptr_range() <= 2**31 - 1
                                            if hasattr(arg, "ptr_range") else original.__func__(arg))
    try:
        yield
    finally:
        HIPBackend.is_within_2gb = original
