"""A launch's configuration: the spec's defaults, its shape heuristics, the user's overrides and the kernel's
@triton.heuristics, resolved and validated into one Config; and the storage-free arguments of that launch.

Core, not the compile layer: resolving needs the spec and its stand-in tensors, never the compiler.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import UserError
from . import devices, params
from .spec import AbstractTensor, KernelSpec, config_hook
from .targets import Target


@dataclass
class Config:
    """One fully resolved launch configuration."""
    meta: dict
    num_warps: int
    num_stages: int
    shape: dict
    dtype: str

    def describe(self) -> str:
        meta = ", ".join(f"{k}={v}" for k, v in self.meta.items())
        return f"num_warps={self.num_warps}, num_stages={self.num_stages}, {meta}"


def resolve_config(spec: KernelSpec, meta: dict | None = None, num_warps: int | None = None,
                   num_stages: int | None = None, shape: dict | None = None, dtype: str | None = None,
                   target=None) -> Config:
    """Defaults, then shape-dependent heuristics, then the user's overrides, validated. `target`: the
    device an args function that asks for one sees while @triton.heuristics are evaluated."""
    shape = params.check_shape(spec, shape or {})
    dtype = params.check_dtype(spec, dtype)
    merged = dict(spec.meta)
    warps, stages = spec.num_warps, spec.num_stages
    if spec.heuristics:
        derived = dict(spec.heuristics(shape))
        warps = derived.pop("num_warps", warps)
        stages = derived.pop("num_stages", stages)
        merged.update(derived)
    merged.update(params.check_meta(spec, meta or {}))
    # A constexpr named like a launch option (tutorial 02's `num_stages`) is that option: the JIT binds
    # one keyword to both, so one value serves both, the --num-stages / --meta the user gave first.
    for name, given in (("num_warps", num_warps), ("num_stages", num_stages)):
        if name in spec.kernel.arg_names:
            value = given if given is not None else (meta or {}).get(name, merged.get(name))
            if name == "num_warps":
                warps = value if value is not None else warps
            else:
                stages = value if value is not None else stages
            merged[name] = warps if name == "num_warps" else stages
    warps = params.check_num_warps(num_warps if num_warps is not None else warps)
    stages = params.check_num_stages(num_stages if num_stages is not None else stages)
    config = Config(meta=merged, num_warps=warps, num_stages=stages, shape=shape, dtype=dtype)
    if spec.heuristics_values:   # @triton.heuristics, as Heuristics.run applies them: last, over everything
        derived = triton_heuristics(spec, config, target)
        # Heuristics.run hands its values to JITFunction.run as keywords, where num_warps and num_stages are
        # the launch's (cut-cross-entropy's heuristic picks 16 warps); a constexpr of that name keeps it too.
        # Backend options (maxnreg, num_ctas) stay in meta, which the binder passes on as a launch does.
        for name, given in (("num_warps", num_warps), ("num_stages", num_stages)):
            if name in derived:
                value = derived[name] if name in spec.kernel.arg_names else derived.pop(name)
                if given is not None and given != value:
                    import warnings
                    warnings.warn(f"{spec.name}: its @triton.heuristics set {name}={value} over the {given} asked "
                                  f"for, as Triton's launch does")
                if name == "num_warps":
                    config.num_warps = params.check_num_warps(value)
                else:
                    config.num_stages = params.check_num_stages(value)
        config.meta = {**merged, **derived}
    why = spec.constraints(shape, dtype, merged) if spec.constraints else None
    if why:   # the kernel's own limits (a head dimension it cannot tile, say): one line, before any work
        raise UserError(f"{spec.name}: {why}")
    return config


def triton_heuristics(spec: KernelSpec, config: Config, target=None) -> dict:
    """The values of the kernel's @triton.heuristics for this launch: each function gets the launch's
    arguments by name (stand-ins at the shape, then the meta-parameters and launch options), as
    triton's Heuristics.run passes them."""
    named = dict(zip(spec.kernel.arg_names, stand_in_args(spec, config, target)))
    named.update(config.meta, num_warps=config.num_warps, num_stages=config.num_stages)
    values = {}
    for name, heuristic in spec.heuristics_values.items():
        try:
            values[name] = heuristic({**named, **values})
        except Exception as e:
            raise UserError(f"{spec.name}: its @triton.heuristics for {name} failed on this launch: "
                            f"{type(e).__name__}: {e}") from e
        named[name] = values[name]
    return values


def stand_in_args(spec: KernelSpec, config: Config, target: Target | None = None) -> tuple:
    """The kernel's runtime arguments at this shape, with storage-free tensors (and the target's device
    for an args function that asks for it)."""
    tensors = {name: AbstractTensor(t.dims(config.shape), spec.tensor_dtype(name, config.dtype))
               for name, t in spec.tensors.items()}
    args = spec.args_for(tensors, config.shape, devices.get(target) if target is not None else None)
    hook = config_hook(spec, config)
    if hook is not None:        # as Triton's Autotuner does before it launches this config
        hook({**dict(zip(spec.kernel.arg_names, args)), **config.meta})
    return args
