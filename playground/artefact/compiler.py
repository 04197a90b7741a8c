"""The compile pipeline's steps: a Request (request.py) in; every stage of Triton's output out.

No torch here: the compile path must stay fast and work where torch is not installed.

Fidelity: Triton's JIT specialises each launch on its arguments (pointers 16-byte aligned,
integers divisible by 16 or equal to 1) and fills in default options. We ask Triton's own
binder for that specialisation, with stand-in tensors, exactly as `JITFunction.run` does, so
what we compile is what a launch at the same shape would compile. Triton's cache serves
repeats: the same kernel, specialisation and options never run the compiler twice.
"""
from __future__ import annotations

import contextlib
import math
import re
import time
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..core import dtypes, params, stages
from ..errors import KernelFailure, UserError
from ..core.spec import AbstractTensor, KernelSpec
from ..core.targets import Target

# Options the JIT passes to the backend on every launch (JITFunction.run), beside num_warps/stages.
_JIT_RUN_DEFAULTS = ("debug", "instrumentation_mode", "fpsan_homomorphic_casts")


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


@dataclass
class Compiled:
    """Everything one compile produced, with the derived views computed on first use."""
    request: object                # the Request it answers (request.py)
    kernel: object                 # triton's CompiledKernel
    specialization: list[dict]     # per runtime argument: name, type, and what the JIT assumed
    options: dict                  # the backend options the compile used
    compile_seconds: float
    cache_hit: bool
    _derived: dict = field(default_factory=dict, repr=False)

    @property
    def spec(self) -> KernelSpec:
        return self.request.spec

    @property
    def target(self) -> Target:
        return self.request.target

    @property
    def config(self) -> Config:
        return self.request.config

    @property
    def metadata(self):
        return self.kernel.metadata

    @property
    def hash(self) -> str:
        return self.kernel.hash

    @property
    def name(self) -> str:
        return self.kernel.metadata.name

    def stage(self, name: str):
        """One stage's text (bytes for a binary), from the producer stages.py names for it."""
        if name not in self.target.stages:
            raise UserError(f"stage '{name}' does not exist for {self.target.name}; "
                            f"it has: {', '.join(self.target.stages)}")
        producer = stages.STAGES[name].producer
        if producer == "python":
            return self.python_source
        if producer == "nvdisasm":
            from . import disasm
            return disasm.sass(self)
        return self.kernel.asm[name]

    @cached_property
    def python_source(self) -> str:
        return Path(self.spec.source_path).read_text()

    @cached_property
    def resources(self):
        from . import resources
        return resources.of(self)

    def as_dict(self, stages: list[str] = ()) -> dict:
        """What `compile --json` prints: the launch, specialisation, options, resources and occupancy,
        and the text of `stages` (binaries in base64)."""
        from ..report import render
        return render.summary(self, stages)

    def cache_dir(self) -> Path:
        """Triton's cache directory for this kernel: derived artefacts (SASS, resource usage) live beside it."""
        from triton.runtime.cache import get_cache_manager
        return Path(get_cache_manager(self.hash).cache_dir)


def resolve_config(spec: KernelSpec, meta: dict | None = None, num_warps: int | None = None,
                   num_stages: int | None = None, shape: dict | None = None, dtype: str | None = None) -> Config:
    """Defaults, then shape-dependent heuristics, then the user's overrides, validated."""
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
    warps = params.check_num_warps(num_warps if num_warps is not None else warps)
    stages = params.check_num_stages(num_stages if num_stages is not None else stages)
    config = Config(meta=merged, num_warps=warps, num_stages=stages, shape=shape, dtype=dtype)
    why = spec.constraints(shape, dtype, merged) if spec.constraints else None
    if why:   # the kernel's own limits (a head dimension it cannot tile, say): one line, before any work
        raise UserError(f"{spec.name}: {why}")
    return config


def stand_in_args(spec: KernelSpec, config: Config) -> tuple:
    """The kernel's runtime arguments at this shape, with storage-free tensors."""
    tensors = {name: AbstractTensor(t.dims(config.shape), spec.tensor_dtype(name, config.dtype))
               for name, t in spec.tensors.items()}
    return tuple(spec.args(**tensors, **config.shape))


def specialize(spec: KernelSpec, target: Target, config: Config):
    """Ask Triton's own binder what the JIT would specialise for this launch.

    Returns (signature, constexprs, attrs, options, readable specialisation), as
    `JITFunction._pack_args` builds them.
    """
    from triton import knobs
    from triton.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature

    fn = spec.kernel
    backend = make_backend(target.gpu_target())
    kwargs = dict(config.meta, num_warps=config.num_warps, num_stages=config.num_stages)
    run_defaults = {"debug": bool(getattr(fn, "debug", None)) or knobs.runtime.debug,
                    "instrumentation_mode": getattr(knobs.compilation, "instrumentation_mode", ""),
                    "fpsan_homomorphic_casts": getattr(knobs.compilation, "fpsan_homomorphic_casts", False)}
    option_names = set(backend.parse_options({}).__dict__)
    kwargs.update({k: v for k, v in run_defaults.items() if k in option_names})
    args = stand_in_args(spec, config)
    for k in kwargs:
        if k not in option_names and k not in fn.arg_names:
            raise UserError(f"--meta {k}: not a parameter of {fn.__name__}")
    from . import cache
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
    options = backend.parse_options(kwargs)

    names = [p.name for p in fn.params]
    signature = {n: s[0] for n, s in zip(names, specialization)}
    constexprs = {(i,): values[i] for i, s in enumerate(specialization) if s[0] == "constexpr"}
    attrs = {(i,): backend.parse_attr(s[1]) for i, s in enumerate(specialization)
             if s[0] != "constexpr" and isinstance(s[1], str)}
    readable = [_describe_arg(n, s, values[i]) for i, (n, s) in enumerate(zip(names, specialization))]
    return signature, constexprs, attrs, options, readable


def _describe_arg(name: str, spec_entry: tuple, value) -> dict:
    kind, attr = spec_entry[0], spec_entry[1] if len(spec_entry) > 1 else None
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
    from triton.backends.amd.compiler import HIPBackend
    original = HIPBackend.__dict__["is_within_2gb"]
    HIPBackend.is_within_2gb = staticmethod(lambda arg: arg.ptr_range() <= 2**31 - 1
                                            if hasattr(arg, "ptr_range") else original.__func__(arg))
    try:
        yield
    finally:
        HIPBackend.is_within_2gb = original


def build(request, warn=None) -> Compiled:
    """Compile a request (request.py) through Triton's cache, as the JIT would for this launch.

    `warn(message)` hears, on a cache miss before LLVM and ptxas start, of a tile no register file can hold
    (tile_warnings); by default it goes to Python's warnings.
    """
    import triton
    from triton.compiler import ASTSource

    spec, target, config = request.spec, request.target, request.config
    warn = warn or _python_warning
    hits = []
    with _quiet_triton():
        signature, constexprs, attrs, options, readable = specialize(spec, target, config)
    from . import cache
    start = time.perf_counter()
    src = ASTSource(spec.kernel, signature, constexprs, attrs)
    fast_key = None if cache.disabled() else cache.key(src, target.gpu_target(), options)
    kernel = cache.lookup(fast_key, src) if fast_key else None
    if kernel is not None:
        hits.append(True)
    else:
        with _quiet_triton(), _listen_for_cache_hits(hits), _watch_tiles(target, config, warn):
            try:
                kernel = triton.compile(src, target=target.gpu_target(), options=options.__dict__)
            except Exception as e:
                raise compile_failure(spec, config, e) from e
        if fast_key:
            cache.record(fast_key, kernel)
    seconds = time.perf_counter() - start
    return Compiled(request=request, kernel=kernel, specialization=readable,
                    options=_plain(options.__dict__), compile_seconds=seconds, cache_hit=bool(hits and hits[-1]))


def cached_hash(request) -> str | None:
    """The hash of the kernel this request compiles to, when the cache already holds it; else None.

    Asks exactly what build would (the binder's specialisation, then the fast index), so a
    caller can tell a cache hit from a compile without compiling. A request the binder rejects is
    not cached (build will report why).
    """
    import triton  # noqa: F401  (the cache's key reads Triton's installation)
    from triton.compiler import ASTSource

    from . import cache
    if cache.disabled():
        return None
    try:
        with _quiet_triton():
            signature, constexprs, attrs, options, _ = specialize(request.spec, request.target, request.config)
    except Exception:
        return None
    src = ASTSource(request.spec.kernel, signature, constexprs, attrs)
    return cache.lookup_hash(cache.key(src, request.target.gpu_target(), options))


class PlaygroundWarning(UserWarning):
    pass


def _python_warning(message: str) -> None:
    warnings.warn(message, PlaygroundWarning, stacklevel=3)


def shape_warnings(spec: KernelSpec, shape: dict, dtype: str) -> list[str]:
    """A problem larger than the memory of every GPU in the device table can still be compiled
    (the binary does not depend on it), but it cannot run anywhere: say so."""
    from ..core import devices
    from ..units import size
    needed = sum(math.prod(t.dims(shape)) * dtypes.size(spec.tensor_dtype(n, dtype))
                 for n, t in spec.tensors.items())
    largest = max(devices.DEVICES.values(), key=lambda d: d.memory_bytes)
    if needed <= largest.memory_bytes:
        return []
    return [f"at this shape the tensors take {size(needed)}; no GPU in the device table has that much memory "
            f"(the most is {size(largest.memory_bytes)}, {largest.name})"]


# The most register storage one thread has on any target in the device table: 512 VGPRs x 4 bytes
# per lane on CDNA (gfx90a+), against 255 x 4 on NVIDIA. A single tensor value larger than this per
# thread spills on every GPU, and compiling it (LLVM, then ptxas) can take many minutes.
MAX_REGISTER_BYTES_PER_THREAD = 512 * 4
_TENSOR_TYPE = re.compile(r"tensor<((?:\d+x)+)(!tt\.ptr<\w+>|[a-z]+\d*)")


def tile_warnings(ttgir: str, threads: int) -> list[str]:
    """Register-resident tensors (the TTGIR's `tensor<...>` values) too big for any register file."""
    worst = None
    for m in _TENSOR_TYPE.finditer(ttgir):
        elements = math.prod(int(d) for d in m.group(1).rstrip("x").split("x"))
        element = "!tt.ptr" if m.group(2).startswith("!tt.ptr") else m.group(2)
        per_thread = -(-elements * dtypes.IR_BYTES.get(element, 4) // max(threads, 1))
        if worst is None or per_thread > worst[0]:
            worst = (per_thread, m.group(0) + ">")
    if worst is None or worst[0] <= MAX_REGISTER_BYTES_PER_THREAD:
        return []
    return [f"the tile {worst[1]} needs {worst[0]:,} bytes of registers per thread ({threads} threads); no GPU "
            f"holds more than {MAX_REGISTER_BYTES_PER_THREAD:,}, so it will spill heavily and ptxas may take "
            f"minutes (--timeout stops it)"]


@contextlib.contextmanager
def _watch_tiles(target: Target, config: Config, warn):
    """Read the TTGIR as Triton's pipeline makes it, before LLVM and ptxas run, for tile_warnings.

    Only observes: the stage's output, the cache key and every artefact are unchanged (the wrapper
    is installed on the backend class for this compile, not through Triton's inspection hook, which
    would change the cache key).
    """
    from triton.compiler import make_backend
    cls = type(make_backend(target.gpu_target()))
    original = cls.add_stages
    threads = config.num_warps * target.warp_size

    def add_stages(self, stages, *args, **kwargs):
        original(self, stages, *args, **kwargs)
        make_ttgir = stages.get("ttgir")
        if make_ttgir is None:
            return

        def ttgir(src, metadata):
            module = make_ttgir(src, metadata)
            for message in tile_warnings(str(module), threads):
                warn(message)
            return module
        stages["ttgir"] = ttgir

    cls.add_stages = add_stages
    try:
        yield
    finally:
        cls.add_stages = original


@contextlib.contextmanager
def _listen_for_cache_hits(hits: list):
    from triton import knobs
    previous = knobs.compilation.listener

    def listener(*, cache_hit=False, **_):
        hits.append(cache_hit)
        if previous:
            previous(cache_hit=cache_hit, **_)
    knobs.compilation.listener = listener
    try:
        yield
    finally:
        knobs.compilation.listener = previous


@contextlib.contextmanager
def _quiet_triton():
    """Triton 3.9 warns that its fp-fusion default will change; the warning is noise in every command."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*TRITON_DEFAULT_FP_FUSION.*")
        yield


def _plain(options: dict) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in options.items()
            if k != "extern_libs"}


def compile_failure(spec: KernelSpec, config: Config, error: Exception) -> Exception:
    """Turn Triton's exception into one message: file:line, the offending line, Triton's words."""
    from triton.compiler.errors import CompilationError

    outer = error if isinstance(error, CompilationError) else None
    inner = error   # the root cause carries Triton's own words
    while inner.__cause__ is not None:
        inner = inner.__cause__
    message = (getattr(inner, "error_message", None) or str(inner)).strip().splitlines()
    message = message[-1] if message else type(inner).__name__
    # Triton 3.6 gives some messages as the exception's repr, IncompatibleTypeErrorImpl('...'): keep the words.
    wrapped = re.fullmatch(r"\w+\((['\"])(.*)\1\)", message)
    message = wrapped.group(2) if wrapped else message
    if outer is None or not hasattr(outer.node, "lineno"):
        return KernelFailure(f"{spec.name}: Triton failed to compile it: {type(error).__name__}: {message}")
    from .sourcemap import kernel_lines
    _, def_line, _ = kernel_lines(spec.kernel)   # Triton numbers the error from the `def` line
    fn = spec.kernel
    line = def_line + outer.node.lineno - 1
    source_line = outer.src.splitlines()[outer.node.lineno - 1].strip() if outer.src else ""
    where = f"{_short(fn.fn.__code__.co_filename)}:{line}"
    if "power of 2" in message or "power of two" in message:
        meta = ", ".join(f"{k}={v}" for k, v in config.meta.items())
        return UserError(f"{where}: {message} (meta: {meta}) in `{source_line}`")
    return KernelFailure(f"{where}: {message} in `{source_line}`")


def _short(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path
