"""A bare kernel, no spec: `playground compile file.py:kernel --args "x=fp32[98432], n=98432, BLOCK=1024"`.

Each `NAME=VALUE` is one argument of the kernel, written as a launch passes it:
  x=fp16[4096,4096]          a tensor of that dtype and shape (contiguous, 16-byte aligned); a dtype by its
  x=float16[4096,4096]       short name or as torch spells it (float16, bfloat16, bool, int32, float8_e4m3fn)
  x=fp16[4096]+2             the same, its data 2 elements past an aligned address (a view one step in)
  w=fp16[512,1024].T         the transpose of a contiguous [512,1024] tensor: shape [1024,512], strides (1,1024)
  x=fp16[1024,512](1,1024)   a tensor of that shape and those strides, in elements (torch.empty_strided's order)
  n=98432, p=0.5, flag=true  a scalar, or a constexpr's value
  bias=None                  an optional tensor not given, or a None constexpr
  MODE='none', MODE=none     a string constexpr, quoted or bare
  OUT_DTYPE=tl.float32       a dtype constexpr (tl. or torch. spellings)
  layout=gl.BlockedLayout([4], [32], [4], [0])   a Gluon layout constexpr, as its constructor is called
  grid=97, grid=32x32, grid=(4, 8, 2)   the launch grid, of 1 to 3 dimensions (default 1, with a warning)
  num_warps=8, enable_fp_fusion=False    the launch's own keywords, as `kernel[grid](..., num_warps=8)` passes them
`num_warps` and `num_stages` may also come from --num-warps / --num-stages, which win (or a config, for an
autotuned kernel). The JIT's binder then specialises these stand-ins exactly as it would the real arguments.
"""
from __future__ import annotations

import re

from ..errors import UserError
from . import dtypes, layouts, work
from .params import LAUNCH_OPTIONS, split_top_level
from .spec import AbstractTensor, KernelSpec, Tensor, unwrap

_TENSOR = re.compile(r"^([\w.]+)\[([\d,\s]*)\](\.T)?(?:\(([\d,\s]*)\))?(?:\+(\d+))?$")
_GRID = re.compile(r"^\(?\s*(\d+(?:\s*[x,]\s*\d+){0,2})\s*,?\s*\)?$")
_WORD = re.compile(r"^[A-Za-z_][\w.]*$")
# keywords a launch passes beside the kernel's arguments: Triton's JIT hands them to the backend's options
# (CUDAOptions, HIPOptions); one a backend lacks is left out for it, as the JIT's own launcher leaves it out
LAUNCH_KEYWORDS = ("num_warps", "num_stages", *LAUNCH_OPTIONS, "enable_fp_fusion", "launch_cooperative_grid",
                   "launch_pdl")
EXAMPLES = ("x=fp16[1024,64], w=float16[64,1024].T, y=fp32[1024,512](1,1024), n=1024, p=0.5, bias=None, "
            "MODE='none', OUT_DTYPE=tl.float32, grid=(8,4)")


def parse(text: str) -> dict:
    """`--args` -> {name: ("tensor", dtype, shape, offset, strides) | ("value", v)}, plus "grid"."""
    out = {}
    for item in split_top_level(text):
        name, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not name or not value:
            raise UserError(f"args '{item}': expected NAME=VALUE, as in {EXAMPLES}", param="args")
        if name in out:
            raise UserError(f"args {name}: given twice", param="args")
        out[name] = _grid(value) if name == "grid" else _argument(name, value)
    return out


def _grid(value: str) -> tuple[int, ...]:
    match = _GRID.match(value.lower())
    if not match:
        raise UserError(f"args grid={value}: expected 1 to 3 whole numbers: grid=97, grid=32x32, grid=(4, 8, 2)",
                        param="args")
    return tuple(int(g) for g in re.split(r"\s*[x,]\s*", match.group(1)))


def _argument(name: str, value: str):
    tensor = _TENSOR.match(value)
    if tensor:
        dtype, dims, transposed, strides, offset = tensor.groups()
        dtype = _dtype(name, value, dtype)
        shape = tuple(int(d) for d in dims.split(",") if d.strip())
        if transposed:
            if len(shape) < 2:
                raise UserError(f"args {name}={value}: .T transposes the last two dimensions; give at least two",
                                param="args")
            contiguous = _contiguous(shape)
            shape = shape[:-2] + (shape[-1], shape[-2])
            strides = contiguous[:-2] + (contiguous[-1], contiguous[-2])
        elif strides is not None:
            strides = tuple(int(d) for d in strides.split(",") if d.strip())
            if len(strides) != len(shape):
                raise UserError(f"args {name}={value}: {len(shape)} dimensions but {len(strides)} strides",
                                param="args")
        return ("tensor", dtype, shape, int(offset or 0), strides or None)
    if value == "None":
        return ("value", None)
    if value in ("True", "true", "False", "false"):
        return ("value", value.lower() == "true")
    for convert in (int, float):
        try:
            return ("value", convert(value))
        except ValueError:
            pass
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return ("value", value[1:-1])
    if layouts.looks_like_one(value):
        try:
            return ("value", layouts.read(value))
        except UserError as e:
            raise UserError(f"args {name}={e}", param="args") from None
    if value.startswith(("tl.", "triton.language.", "torch.")):
        import triton.language as tl
        return ("value", getattr(tl, dtypes.get(_dtype(name, value, value)).triton))
    if _WORD.match(value):
        return ("value", value)
    raise UserError(f"args {name}={value}: not a tensor, number, None, string or dtype; as in {EXAMPLES}",
                    param="args")


def _dtype(name: str, value: str, dtype: str) -> str:
    try:
        return dtypes.canonical(dtype)
    except UserError as e:
        raise UserError(f"args {name}={value}: {str(e).removeprefix(f'dtype {dtype}: ')}", param="args") from None


def _contiguous(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.insert(0, step)
        step *= n
    return tuple(strides)


class _OffsetTensor(AbstractTensor):
    """A stand-in whose data starts `offset` elements past an aligned address."""

    def __init__(self, shape, dtype, offset: int, strides=None):
        super().__init__(shape, dtype, strides)
        self.offset_bytes = offset * dtypes.size(dtype)

    def data_ptr(self) -> int:
        return self.ALIGNED_ADDRESS + self.offset_bytes


def spec_for(kernel, name: str, source_path: str, args_text: str) -> KernelSpec:
    """A KernelSpec for a bare @triton.jit (or autotune / heuristics) kernel from its `--args`."""
    jit, autotuner, heuristics = unwrap(kernel)
    given = parse(args_text)
    named_grid = "grid" in given
    grid = given.pop("grid", (1,))
    params = jit.params
    names = [p.name for p in params]
    # the launch's own keywords (`kernel[grid](..., num_warps=8, enable_fp_fusion=False)`), unless the kernel has a
    # parameter of that name (tutorial 02's num_stages is both)
    launch = {n: given.pop(n)[1] for n in list(given) if n in LAUNCH_KEYWORDS and n not in names}
    unknown = [n for n in given if n not in names]
    if unknown:
        raise UserError(f"args {unknown[0]}: {name} has no parameter of that name; it has {', '.join(names)}", param="args")
    # a constexpr an autotune config or a heuristic sets is not the launch's to give
    chosen = set(heuristics) | {k for c in getattr(autotuner, "configs", []) for k in c.kwargs}
    missing = [p.name for p in params if p.name not in given and not p.has_default and p.name not in chosen]
    if missing:
        example = "MODE=1" if next(p for p in params if p.name == missing[0]).is_constexpr else \
            f"{missing[0]}=fp32[1024] or {missing[0]}=1024"
        raise UserError(f"args: {name} needs {', '.join(missing)} (e.g. {example.replace('MODE', missing[0])})",
                        param="args")
    for p in params:
        kind = given.get(p.name, ("value",))[0]
        if p.is_constexpr and kind == "tensor":
            raise UserError(f"args {p.name}: a constexpr takes a value, not a tensor", param="args")
    meta = {p.name: given[p.name][1] for p in params if p.is_constexpr and p.name in given}
    last = max((i for i, p in enumerate(params) if not p.is_constexpr and p.name in given), default=-1)
    positional = params[:last + 1]
    tensors = {n: Tensor(v[2], v[1]) for n, v in given.items() if v[0] == "tensor"}

    def stand_in(value):
        return _OffsetTensor(value[2], value[1], value[3], value[4]) if value[0] == "tensor" else value[1]

    def runtime_args(**_):
        return tuple(p.default if p.name not in given else stand_in(given[p.name]) for p in positional)

    constexpr_before = {p.name for p in positional if p.is_constexpr}
    if not named_grid:          # said once the launch is otherwise whole
        import warnings
        warnings.warn(f"{name}: --args names no grid=: one program (grid=1), so waves and the model see one CTA")
    spec = KernelSpec(name=name, kernel=kernel, description=f"{name} with --args {args_text}", tensors=tensors,
                      args=runtime_args, grid=lambda shape, m: grid,
                      meta={k: v for k, v in meta.items() if k not in constexpr_before}, default_shape={},
                      source_path=source_path, launch_args=args_text,
                      dtypes=tuple(dict.fromkeys(t.dtype for t in tensors.values())) or ("fp32",),
                      num_warps=launch.pop("num_warps", 4), num_stages=launch.pop("num_stages", 3),
                      compile_options=launch)
    # no spec counts its work: the kernel's launch_metadata does, or else its tensors' bytes (core/work.py)
    arguments = {p.name: stand_in(given[p.name]) for p in params if p.name in given}
    work.fill_spec(spec, work.of_arguments(jit, grid, arguments, name))
    return spec
