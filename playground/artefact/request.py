"""What to compile: a kernel, a target and the user's overrides. The one place the pipeline is put together.

Every command and library function that compiles builds a Request and calls `compile()`; none of
them loads a spec, resolves a target or a config on its own. A Request keeps the overrides as the
user gave them beside the config they resolve to, so `changed(num_warps=8)` re-resolves from the
spec (the shape's heuristics included) exactly as a fresh command line would.

Where a Request comes from: a kernel spec by name or file (`of`); a plain description another
process can rebuild it from (`ref` / `from_ref`, for sweep workers). Later sources (a launch captured
on the virtual GPU, a kernel from torch.compile's plan, source edited in the web page) become a
KernelSpec first, and from there a Request like any other.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..core import params, registry, targets
from ..core.config import Config, resolve_config
from ..core.spec import KernelSpec
from ..core.targets import Target
from . import compiler
from .compile_warnings import shape_warnings
from .compiler import Compiled

OVERRIDES = ("meta", "num_warps", "num_stages", "shape", "dtype")


@dataclass(frozen=True)
class Request:
    spec: KernelSpec
    target: Target
    config: Config                                   # resolved: defaults, heuristics, overrides, constraints
    overrides: dict = field(default_factory=dict)    # what the caller set, by OVERRIDES name

    @classmethod
    def of(cls, kernel: str | KernelSpec, target: str | Target | None = "native", meta: dict | None = None,
           num_warps: int | None = None, num_stages: int | None = None, shape: dict | None = None,
           dtype: str | None = None, args: str | None = None) -> Request:
        """A kernel (spec, or name / file as `registry.load` takes) for a target (name or Target).

        Raises UserError for anything the user got wrong: an unknown kernel or target, a bad
        override, a config the kernel's own constraints reject.
        """
        if target in (None, "native") and not isinstance(kernel, KernelSpec):
            target = registry.trace_target(kernel) or target   # a captured launch: its own target by default
        tgt = target if isinstance(target, Target) else targets.resolve(target)
        spec = kernel if isinstance(kernel, KernelSpec) else registry.load(kernel, tgt.label, args)
        overrides = {k: v for k, v in zip(OVERRIDES, (meta, num_warps, num_stages, shape, dtype)) if v is not None}
        config = resolve_config(spec, meta, num_warps, num_stages, shape, dtype, tgt)
        return cls(spec, tgt, config, overrides)

    @classmethod
    def from_options(cls, kernel: str, target: str | None, meta=(), num_warps: int | None = None,
                     num_stages: int | None = None, shape=(), dtype: str | None = None,
                     args: str | None = None) -> Request:
        """From a command line's strings: repeated `--meta K=V,...` and `--shape D=N,...` items, and a bare
        kernel's `--args` (core/bare.py)."""
        return cls.of(kernel, target, params.parse_assignments(meta, "meta", strings=True) or None, num_warps,
                      num_stages, params.parse_assignments(shape, "shape") or None, dtype, args)

    def changed(self, *, kernel: str | KernelSpec | None = None, target: str | Target | None = None,
                meta: dict | None = None, shape: dict | None = None, **overrides) -> Request:
        """This request with more overrides on top (meta-parameters and dimensions merge), resolved
        again from the spec."""
        unknown = set(overrides) - set(OVERRIDES)
        if unknown:
            raise TypeError(f"unknown override {', '.join(sorted(unknown))}")
        given = dict(self.overrides)
        for name, more in (("meta", meta), ("shape", shape)):
            if more:
                given[name] = {**given.get(name, {}), **more}
        given.update({k: v for k, v in overrides.items() if v is not None})
        return Request.of(kernel if kernel is not None else self.spec,
                          target if target is not None else self.target, **given)

    def compile(self, warn=None) -> Compiled:
        """Compile as Triton's JIT would for this launch, through Triton's cache (compiler.build)."""
        return compiler.build(self, warn=warn)

    def cached_hash(self) -> str | None:
        """The kernel's hash when Triton's cache already holds this compile, without compiling; else None."""
        return compiler.cached_hash(self)

    def shape_warnings(self) -> list[str]:
        """What the problem size says before any compile: tensors no GPU could hold."""
        return shape_warnings(self.spec, self.config.shape, self.config.dtype)

    def ref(self) -> dict:
        """A plain description (strings and numbers) another process rebuilds this request from."""
        bare = {"args": self.spec.launch_args} if self.spec.launch_args else {}
        return {"kernel": registry.ref(self.spec), "target": self.target.label, **self.overrides, **bare}

    @classmethod
    def from_ref(cls, ref: dict) -> Request:
        ref = dict(ref)
        return cls.of(ref.pop("kernel"), ref.pop("target"), **ref)
