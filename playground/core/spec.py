"""The kernel spec: one object that says everything the tools need about a Triton kernel.

Every file in `kernels/` ends with `SPEC = KernelSpec(...)`. A user's own file with the
same form works wherever a kernel name does. The spec names the kernel's tensors by their
shape in problem dimensions ("M", "K"), and a function that turns tensors and sizes into
the kernel's runtime arguments. The same function serves a real launch (torch tensors) and
an offline compile (`AbstractTensor` stand-ins), so what `compile` shows is what a launch
at that shape would build.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from . import dtypes


@dataclass(frozen=True)
class Tensor:
    """One tensor argument: its shape in problem dimensions, its dtype, and its role.

    `dtype=None` means "the problem's dtype" (the one `--dtype` picks).
    """
    shape: tuple
    dtype: str | None = None
    output: bool = False

    def dims(self, shape: Mapping[str, int]) -> tuple[int, ...]:
        return tuple(shape[d] if isinstance(d, str) else int(d) for d in self.shape)


@dataclass
class KernelSpec:
    name: str
    kernel: Any                      # the @triton.jit function
    description: str                 # one line, shown by `playground list`
    tensors: dict[str, Tensor]       # every tensor argument, inputs first
    args: Callable[..., tuple]       # (**tensors, **shape) -> the kernel's runtime arguments, in order
    grid: Callable[[dict, dict], tuple]  # (shape, meta) -> launch grid
    meta: dict[str, Any]             # default constexpr meta-parameters
    default_shape: dict[str, int]
    num_warps: int = 4
    num_stages: int = 3
    dtypes: tuple[str, ...] = ("fp32",)
    # --- correctness and throughput (used by check and bench) ---
    reference: Callable | None = None        # (**inputs) -> expected output(s), in torch
    make_inputs: Callable | None = None      # (shape, dtype, seed) -> dict of input tensors
    flops: Callable[[dict], int] | None = None   # (shape) -> floating-point operations
    bytes: Callable[[dict, int], int] | None = None  # (shape, element size) -> minimum DRAM traffic
    # what `bench` times against: an expression over the input names and sizes ("torch.softmax(x, dim=1)"),
    # or a function called with the inputs in order ("torch.matmul")
    torch_baseline: str = ""
    reduction_dim: str | None = None         # the dimension accumulated over (scales atol)
    constraints: Callable[[dict, str, dict], str | None] | None = None  # -> why not, or None
    cases: list[dict] = field(default_factory=list)        # test shapes, as data
    quick_cases: list[dict] = field(default_factory=list)  # the subset the default run uses
    configs: list[dict] = field(default_factory=list)      # the autotune space (meta + num_warps/stages)
    # input classes `check` runs beyond randn (run/inputs.py); empty: the default for the dtypes
    generators: tuple[str, ...] = ()
    # layout variants `check` may run (check/variants.py: "transposed", "sliced", "offset"); None: all the args allow
    layouts: tuple[str, ...] | None = None
    heuristics: Callable[[dict], dict] | None = None  # (shape) -> meta that depends on the shape
    tile_of: Callable[[int, dict, dict], tuple] | None = None  # (pid, shape, meta) -> the tile it owns
    # (shape, meta, element size) -> [(the tile coordinates an input block depends on, its bytes)]: what a
    # CTA reads, for the model's DRAM and L2 traffic (model/traffic.py); None: every byte of `bytes` once
    operands: Callable[[dict, dict, int], list] | None = None
    # (shape, meta, element size) -> [(bytes one CTA reads again, the distinct bytes it touches from its last
    # read of them up to the repeat)]: a program that comes back for data it has read (layernorm's passes over
    # its row). The model serves each repeat from L1, L2, an Infinity Cache or DRAM by how much the CTAs
    # resident beside it touch in that time (model/traffic.py)
    rereads: Callable[[dict, dict, int], list] | None = None
    special: Callable[[dict], int] | None = None     # (shape) -> special-function results (exp, rsqrt, ...)
    # a persistent kernel: (shape, meta) -> the tiles its programs share (program p takes p, p + P, ...), and
    # (tile, shape, meta) -> the tile coordinates of tile number t; None: one tile per program (tile_of)
    work_items: Callable[[dict, dict], int] | None = None
    work_tile_of: Callable[[int, dict, dict], tuple] | None = None
    # compile options the launcher passes besides num_warps/num_stages (Inductor's: debug, sanitize_overflow, ...)
    compile_options: dict = field(default_factory=dict)
    # where `flops` and `bytes` come from when no spec author wrote them (core/work.py): said beside them
    work_basis: str = ""
    # filled in by the registry
    source_path: str = ""
    loaded_from: str = ""    # how registry.load finds it again when that is not a file of specs (trace.json#2)
    imported_as: str = ""    # the dotted name and package root of a file inside a package (core/imports.py)
    launch_args: str = ""    # a bare kernel's --args (core/bare.py): with source_path:name, what rebuilds it
    # filled in from `kernel` (__post_init__): an @triton.autotune and the @triton.heuristics around it
    autotuner: Any = field(default=None, init=False, repr=False)
    heuristics_values: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self):
        """`kernel=` may be the @triton.autotune / @triton.heuristics object itself, as projects write it:
        keep the @triton.jit function as `kernel`, the autotuner and the heuristics beside it, and take the
        autotuner's configs as the space when the spec names none."""
        from ..errors import UserError
        for where, name in [(f"tensor '{n}'", t.dtype) for n, t in self.tensors.items() if t.dtype] + \
                [("dtypes", d) for d in self.dtypes]:
            try:
                dtypes.canonical(name)
            except UserError as e:
                raise UserError(f"{self.name}: {where} names {e}") from None
        # a spec may name a dtype as torch does (float16): the tools go by the short names (fp16)
        self.dtypes = tuple(dtypes.canonical(d) for d in self.dtypes)
        self.tensors = {n: dataclasses.replace(t, dtype=dtypes.canonical(t.dtype)) if t.dtype else t
                        for n, t in self.tensors.items()}
        self.kernel, autotuner, heuristics_values = unwrap(self.kernel)
        self.autotuner = autotuner or self.autotuner
        self.heuristics_values = heuristics_values or self.heuristics_values
        if self.autotuner is not None and not self.configs:
            self.configs = [config_dict(c) for c in self.autotuner.configs]
        if self.autotuner is not None and self.configs:
            first = self.configs[0]          # the autotuned parameters default to the first config
            self.meta = {k: v for k, v in first.items() if k not in LAUNCH_OPTIONS} | dict(self.meta)
            self.num_warps = first.get("num_warps", self.num_warps)
            self.num_stages = first.get("num_stages", self.num_stages)

    def args_for(self, tensors: dict, shape: dict, device=None) -> tuple:
        """`args(**tensors, **shape)`, plus `device=` (the target's device row) for an args function that
        takes one: host-side descriptors or split counts sized by the target."""
        import inspect
        try:
            wants_device = "device" in inspect.signature(self.args).parameters
        except (TypeError, ValueError):
            wants_device = False
        if not wants_device:
            return tuple(self.args(**tensors, **shape))
        return tuple(self.args(**tensors, **shape, device=device if device is not None else _native_device()))

    def grid_for(self, shape: dict, meta: dict, device=None):
        """`grid(shape, meta)`, or `grid(shape, meta, device)` for a grid that asks for the device."""
        import inspect
        try:
            wants_device = len(inspect.signature(self.grid).parameters) >= 3
        except (TypeError, ValueError):
            wants_device = False
        if not wants_device:
            return self.grid(shape, meta)
        return self.grid(shape, meta, device if device is not None else _native_device())

    @property
    def dtype(self) -> str:
        return self.dtypes[0]

    @property
    def inputs(self) -> list[str]:
        return [n for n, t in self.tensors.items() if not t.output]

    @property
    def outputs(self) -> list[str]:
        return [n for n, t in self.tensors.items() if t.output]

    def tensor_dtype(self, name: str, dtype: str) -> str:
        return self.tensors[name].dtype or dtype


LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def _native_device():
    """The device row of this machine's GPU, or of the default target where there is none."""
    from . import devices, targets
    return devices.get(targets.resolve("native"))


def unwrap(kernel) -> tuple:
    """(the @triton.jit function, the Autotuner or None, {name: heuristic} of every @triton.heuristics),
    from the object a kernel file defines; decorators may nest in either order. Projects subclass Triton's
    classes (fla's CachedAutotuner, FlagGems' LibTuner), so they are told apart by isinstance, not by name."""
    from triton.runtime import Autotuner, Heuristics, JITFunction   # here: importing specs loads no triton
    autotuner, values = None, {}
    for _ in range(8):
        if isinstance(kernel, Autotuner):
            autotuner = kernel
        elif isinstance(kernel, Heuristics):
            # Heuristics.run sets its values, then runs what it wraps: an outer @heuristics runs before the
            # inner one, whose functions may read what it set (cut-cross-entropy's BLOCK_D, then EVEN_D); a
            # name both set ends as the inner one's
            values = {k: v for k, v in values.items() if k not in kernel.values} | dict(kernel.values)
        elif isinstance(kernel, JITFunction) or not is_pass_through(kernel):
            return kernel, autotuner, values
        kernel = kernel.fn
    return kernel, autotuner, values


def is_kernel(obj) -> bool:
    """Whether `obj` is a kernel a launch can call: a @triton.jit function (Gluon's too), or an autotune,
    heuristics or pass-through object around one."""
    from triton.runtime import Autotuner, Heuristics, JITFunction
    return isinstance(obj, (JITFunction, Autotuner, Heuristics)) or is_pass_through(obj)


def is_pass_through(obj) -> bool:
    """A KernelInterface of a project's own around a kernel (FlagGems' LibEntry: a cache of launches in front of
    `fn.run`): its first launch hands the arguments to `fn` unchanged, so what it compiles is `fn`'s."""
    from triton.runtime import KernelInterface
    return isinstance(obj, KernelInterface) and isinstance(getattr(obj, "fn", None), KernelInterface)


def config_hook(spec, config) -> object | None:
    """The pre_hook of the @triton.autotune config a resolved Config is (None when there is none): Triton
    calls it on the launch's named arguments before the launch (tutorial 09 sets descriptors' block shapes
    in one)."""
    if spec.autotuner is None:
        return None
    wanted = dict(config.meta, num_warps=config.num_warps, num_stages=config.num_stages)
    for candidate in spec.autotuner.configs:
        if candidate.pre_hook and all(wanted.get(k) == v for k, v in config_dict(candidate).items()):
            return candidate.pre_hook
    return None


def config_dict(config) -> dict:
    """A triton.Config as the plain dict a spec's `configs` holds: its kwargs and its launch options."""
    out = dict(config.kwargs)
    for key in LAUNCH_OPTIONS:
        value = getattr(config, key, None)
        if value is not None and not (key == "num_ctas" and value == 1):
            out[key] = value
    return out


def split_config(config: dict) -> tuple[dict, int | None, int | None]:
    """A config dict -> (meta-parameters, num_warps, num_stages)."""
    meta = {k: v for k, v in config.items() if k not in ("num_warps", "num_stages")}
    return meta, config.get("num_warps"), config.get("num_stages")


class AbstractTensor:
    """A stand-in for a torch tensor with no storage: what the JIT's binder needs to specialise.

    Triton's binder reads `data_ptr()` (for 16-byte alignment) and `dtype`; the kernels'
    `args` functions read `shape`, `stride()` and `numel()`.
    """
    ALIGNED_ADDRESS = 1 << 20   # a fresh CUDA allocation is 256-byte aligned (CUDA C++ Guide, 5.3.2)

    def __init__(self, shape: tuple[int, ...], dtype: str, strides: tuple[int, ...] | None = None):
        import triton.language as tl
        self.shape = tuple(shape)
        self.dtype_name = dtype
        self.dtype = getattr(tl, dtypes.get(dtype).triton)
        self._strides = strides or _contiguous_strides(self.shape)

    def data_ptr(self) -> int:
        return self.ALIGNED_ADDRESS

    def stride(self, dim: int | None = None):
        return self._strides if dim is None else self._strides[dim]

    def numel(self) -> int:
        return math.prod(self.shape)

    def ptr_range(self) -> int:
        """Bytes the buffer spans (its last element's offset + 1, by its strides): Triton's AMD backend asks it to
        decide on 32-bit buffer offsets."""
        last = sum((n - 1) * s for n, s in zip(self.shape, self._strides) if n > 0)
        return (last + 1 if self.numel() else 1) * self.element_size()

    def element_size(self) -> int:
        return dtypes.size(self.dtype_name)

    def size(self, dim: int | None = None):
        return self.shape if dim is None else self.shape[dim]

    def __repr__(self):
        return f"AbstractTensor({self.shape}, {self.dtype_name})"


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def cdiv(a: int, b: int) -> int:
    """Ceiling division, as `triton.cdiv`, without importing triton."""
    return -(-a // b)
