"""The compile pipeline: a Request (request.py) in; every stage of Triton's output out.

No torch here: the compile path must stay fast and work where torch is not installed. What the
JIT would specialise comes from binder.py; warnings before the slow steps from compile_warnings.py.
Triton's cache serves repeats (through cache.py's index): the same kernel, specialisation and
options never run the compiler twice.
"""
from __future__ import annotations

import contextlib
import io
import re
import sys
import time
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .. import compat
from ..core import stages
from ..core.config import Config
from ..core.spec import KernelSpec
from ..core.targets import Target
from ..errors import KernelFailure, UserError
from .binder import specialize
from .compile_warnings import python_warning, watch_tiles
from ..text import short_path
from .. import removed_features


@dataclass
class Compiled:
    """Everything one compile produced, with the derived views computed on first use."""
    request: object                # the Request it answers (request.py)
    kernel: object                 # triton's CompiledKernel
    specialization: list[dict]     # per runtime argument: name, type, and what the JIT assumed
    options: dict                  # the backend options the compile used
    compile_seconds: float
    cache_hit: bool
    # wall seconds of each of Triton's steps in this compile, as its CompileTimes reported them (make_ir as
    # "source", then each lowering stage by its extension, then "store"); empty on a cache hit
    stage_seconds: dict = field(default_factory=dict)
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
        if name == "ttir" and is_gluon(self.spec.kernel):
            raise UserError(f"{self.name} is a Gluon kernel (@gluon.jit): Triton lowers it straight to TTGIR, with the "
                            f"layouts its author wrote, so it has no TTIR; its stages start at ttgir")
        if producer == "nvdisasm":
            from . import disasm
            return disasm.sass(self)
        return self.kernel.asm[name]

    @property
    def first_ir(self) -> str:
        """The first IR Triton made of the kernel: TTIR, or TTGIR for a Gluon kernel (which has no TTIR)."""
        return self.stage("ttgir" if is_gluon(self.spec.kernel) else "ttir")

    @cached_property
    def threads_per_block(self) -> int:
        """Threads a block of this binary runs, read from the binary's own launch bounds: PTX `.reqntid`
        (a warp-specialised kernel on sm_90/sm_100 adds warps beyond num_warps), else num_warps x warp size."""
        if self.target.is_nvidia:
            found = re.search(r"\.reqntid\s+(\d+)", self.kernel.asm.get("ptx", ""))
            if found:
                return int(found.group(1))
        return self.config.num_warps * self.target.warp_size

    @cached_property
    def python_source(self) -> str:
        """The file the @triton.jit function lives in (a spec may import its kernel from another file)."""
        return Path(self.spec.kernel.fn.__code__.co_filename).read_text()

    @cached_property
    def resources(self):
        from . import resources
        return resources.of(self)

    def _repr_html_(self) -> str | None:
        """In a notebook: the explorer's linked view of every stage (views.py), no server needed."""
        from . import views
        return views.notebook(self)

    def cache_dir(self) -> Path:
        """Triton's cache directory for this kernel: derived artefacts (SASS, resource usage) live beside it."""
        return Path(compat.reach("get_cache_manager")(self.hash).cache_dir)


def build(request, warn=None) -> Compiled:
    """Compile a request (request.py) through Triton's cache, as the JIT would for this launch.

    `warn(message)` hears, on a cache miss before LLVM and ptxas start, of a tile no register file can hold
    (tile_warnings); by default it goes to Python's warnings.
    """
    import triton

    compat.check("triton", triton.__version__)
    spec, target, config = request.spec, request.target, request.config
    warn = warn or python_warning
    hits, times = [], []
    with _quiet_triton():
        signature, constexprs, attrs, options, readable = specialize(spec, target, config)
    from . import cache
    start = time.perf_counter()
    src = source(spec.kernel, signature, constexprs, attrs)
    fast_key = None if cache.disabled() else cache.key(src, target.gpu_target(), options)
    kernel = cache.lookup(fast_key, src) if fast_key else None
    if kernel is not None:
        hits.append(True)
    else:
        with _quiet_triton(), _listen_for_cache_hits(hits, times), watch_tiles(target, config, warn), \
                _stdout_to_stderr():
            try:
                kernel = triton.compile(src, target=target.gpu_target(), options=options.__dict__)
            except Exception as e:
                raise compile_failure(spec, config, e) from e
        if fast_key:
            cache.record(fast_key, kernel)
    seconds = time.perf_counter() - start
    hit = bool(hits and hits[-1])
    return Compiled(request=request, kernel=kernel, specialization=readable,
                    options=_plain(options.__dict__), compile_seconds=seconds, cache_hit=hit,
                    stage_seconds={} if hit or not times or times[-1] is None else _stage_seconds(times[-1]))


def _stage_seconds(times) -> dict:
    """Triton's CompileTimes (microseconds) as seconds by step."""
    return {"source": times.ir_initialization / 1e6, **{ext: us / 1e6 for ext, us in times.lowering_stages},
            "store": times.store_results / 1e6}


def source(jit, signature, constexprs, attrs):
    """What triton.compile takes for this kernel, as its JIT builds it: a Gluon kernel (@gluon.jit) is a
    GluonASTSource, which Triton lowers straight to TTGIR (the author chose the layouts); any other an ASTSource."""
    if is_gluon(jit):
        GluonASTSource = compat.reach("GluonASTSource")
        return GluonASTSource(jit, signature, constexprs, attrs)
    from triton.compiler import ASTSource
    return ASTSource(jit, signature, constexprs, attrs)


def is_gluon(jit) -> bool:
    return type(jit).__name__ == "GluonJITFunction"


def cached_hash(request) -> str | None:
    """The hash of the kernel this request compiles to, when the cache already holds it; else None.

    Asks exactly what build would (the binder's specialisation, then the fast index), so a
    caller can tell a cache hit from a compile without compiling. A request the binder rejects is
    not cached (build will report why).
    """
    import triton  # noqa: F401  (the cache's key reads Triton's installation)

    from . import cache
    if cache.disabled():
        return None
    try:
        with _quiet_triton():
            signature, constexprs, attrs, options, _ = specialize(request.spec, request.target, request.config)
    except Exception:
        return None
    src = source(request.spec.kernel, signature, constexprs, attrs)
    return cache.lookup_hash(cache.key(src, request.target.gpu_target(), options))


@contextlib.contextmanager
def _listen_for_cache_hits(hits: list, stage_times: list):
    from triton import knobs
    previous = knobs.compilation.listener

    def listener(*, cache_hit=False, times=None, **rest):
        hits.append(cache_hit)
        stage_times.append(times)
        if previous:
            previous(cache_hit=cache_hit, times=times, **rest)
    knobs.compilation.listener = listener
    try:
        yield
    finally:
        knobs.compilation.listener = previous


@contextlib.contextmanager
def _stdout_to_stderr():
    """Keep stdout for the command's own output (--json above all): what Triton prints while it compiles
    (tl.static_print, TRITON_DUMP_PTXAS_LOG's log) goes to stderr instead. The one exception is the banner a
    ptxas failure prints, the whole PTX and a plea to report it: the error says what ptxas said."""
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            yield buffer
    finally:
        kept = _PTXAS_BANNER.sub("", buffer.getvalue())
        if kept:
            sys.stderr.write(kept)


@contextlib.contextmanager
def _quiet_triton():
    """Triton 3.9 warns that its fp-fusion default will change; the warning is noise in every command."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*TRITON_DEFAULT_FP_FUSION.*")
        yield


def _plain(options: dict) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in options.items()
            if k != "extern_libs"}


# "ptxas-blackwell fatal   : (C7602) Insufficient registers ..." or "ptxas /tmp/x.ptx, line 6; error   : ..."
_PTXAS_SAYS = re.compile(r"^\s*ptxas[\w-]*(?:\s+\S+, line \d+;)?\s+(?:fatal|error)\s*:\s*")
# what triton/backends/nvidia/compiler.py (make_cubin) prints on a ptxas failure, from its rule to its plea
_PTXAS_BANNER = re.compile(r"\n\n={64}\n.*?please share the reproducer above with Triton project\.\n\n?", re.DOTALL)


def kernel_ref(spec: KernelSpec) -> str:
    """The kernel as a command names it: a built-in's name, or FILE.py[:NAME] relative to here."""
    from ..core import registry
    path, colon, name = registry.ref(spec).rpartition(":")
    return f"{short_path(path)}{colon}{name}" if colon and path else name


def compile_failure(spec: KernelSpec, config: Config, error: Exception) -> Exception:
    """Turn Triton's exception into one message: file:line, the offending line, Triton's words."""
    from triton.compiler.errors import CompilationError

    outer = error if isinstance(error, CompilationError) else None
    inner = error   # the root cause carries Triton's own words
    while inner.__cause__ is not None:
        inner = inner.__cause__
    message = (getattr(inner, "error_message", None) or str(inner)).strip().splitlines()
    if type(inner).__name__ == "PTXASError":
        # ptxas's own diagnosis ("(C7602) Insufficient registers (64) ... register target of 90 or higher"),
        # not the reproducer command Triton appends last
        said = [_PTXAS_SAYS.sub("", line).strip() for line in message if _PTXAS_SAYS.search(line)]
        said = [line for line in said if not line.startswith("Ptx assembly aborted")]
        return KernelFailure(f"{spec.name}: ptxas failed: {'; '.join(said) or message[0]}")
    message = message[-1] if message else type(inner).__name__
    # Triton 3.6 gives some messages as the exception's repr, IncompatibleTypeErrorImpl('...'): keep the words.
    wrapped = re.fullmatch(r"\w+\((['\"])(.*)\1\)", message)
    message = wrapped.group(2) if wrapped else message
    removed = removed_features.explain(message, kernel_ref(spec))   # a feature this Triton no longer has
    if outer is None or not hasattr(outer.node, "lineno"):
        return KernelFailure(f"{spec.name}: {removed}" if removed else
                             f"{spec.name}: Triton failed to compile it: {type(error).__name__}: {message}")
    from .sourcemap import kernel_lines
    _, def_line, _ = kernel_lines(spec.kernel)   # Triton numbers the error from the `def` line
    fn = spec.kernel
    line = def_line + outer.node.lineno - 1
    source_line = outer.src.splitlines()[outer.node.lineno - 1].strip() if outer.src else ""
    where = f"{short_path(fn.fn.__code__.co_filename)}:{line}"
    if removed:
        return KernelFailure(f"{where}: `{source_line}`: {removed}")
    if "power of 2" in message or "power of two" in message:
        meta = ", ".join(f"{k}={v}" for k, v in config.meta.items())
        return UserError(f"{where}: {message} (meta: {meta}) in `{source_line}`")
    return KernelFailure(f"{where}: {message} in `{source_line}`")


