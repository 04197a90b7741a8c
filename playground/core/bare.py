"""A bare kernel, no spec: `playground compile file.py:kernel --args "x=fp32[98432], n=98432, BLOCK=1024"`.

Each `NAME=VALUE` is one argument of the kernel, as a launch would pass it:
  NAME=fp16[4096,4096]   a tensor of that dtype and shape (contiguous, 16-byte aligned)
  NAME=fp16[4096]+2      the same, its data 2 elements past an aligned address (a view one step in)
  NAME=98432             an integer, a float or true/false: a scalar, or a constexpr's value
  grid=97 / grid=32x32   the launch grid (default 1), for `grid` and `occupancy`
`num_warps` and `num_stages` come from --num-warps / --num-stages (or a config, for an autotuned
kernel). The JIT's binder then specialises these stand-ins exactly as it would the real arguments.
"""
from __future__ import annotations

import re

from ..errors import UserError
from . import dtypes, work
from .spec import AbstractTensor, KernelSpec, Tensor, unwrap

_TENSOR = re.compile(r"^(\w+)\[([\d,\s]*)\](?:\+(\d+))?$")


def parse(text: str) -> dict:
    """`--args` -> {name: ("tensor", dtype, shape, offset) | ("value", v)}, plus "grid"."""
    from .params import parse_value, split_top_level
    out = {}
    for item in split_top_level(text):
        name, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not name or not value:
            raise UserError(f"args '{item}': expected NAME=VALUE, as in x=fp32[1024] or n=1024", param="args")
        if name in out:
            raise UserError(f"args {name}: given twice", param="args")
        if name == "grid":
            try:
                out[name] = tuple(int(g) for g in value.lower().split("x"))
            except ValueError:
                raise UserError(f"args grid={value}: expected N, NxM or NxMxK", param="args") from None
            continue
        tensor = _TENSOR.match(value)
        if tensor:
            dtype, dims, offset = tensor.groups()
            dtypes.get(dtype)
            shape = tuple(int(d) for d in dims.split(",") if d.strip())
            out[name] = ("tensor", dtype, shape, int(offset or 0))
        else:
            out[name] = ("value", parse_value(value, f"args {name}", param="args"))
    return out


class _OffsetTensor(AbstractTensor):
    """A stand-in whose data starts `offset` elements past an aligned address."""

    def __init__(self, shape, dtype, offset: int):
        super().__init__(shape, dtype)
        self.offset_bytes = offset * dtypes.size(dtype)

    def data_ptr(self) -> int:
        return self.ALIGNED_ADDRESS + self.offset_bytes


def spec_for(kernel, name: str, source_path: str, args_text: str) -> KernelSpec:
    """A KernelSpec for a bare @triton.jit (or autotune / heuristics) kernel from its `--args`."""
    jit, _, _ = unwrap(kernel)
    given = parse(args_text)
    grid = given.pop("grid", (1,))
    params = jit.params
    names = [p.name for p in params]
    unknown = [n for n in given if n not in names]
    if unknown:
        raise UserError(f"args {unknown[0]}: {name} has no parameter of that name; it has {', '.join(names)}", param="args")
    runtime = [p for p in params if not p.is_constexpr]
    missing = [p.name for p in runtime if p.name not in given and not p.has_default]
    if missing:
        raise UserError(f"args: {name} needs {', '.join(missing)} (e.g. {missing[0]}=fp32[1024] or "
                        f"{missing[0]}=1024)", param="args")
    for p in params:
        kind = given.get(p.name, ("value",))[0]
        if p.is_constexpr and kind == "tensor":
            raise UserError(f"args {p.name}: a constexpr takes a value, not a tensor", param="args")
    meta = {p.name: given[p.name][1] for p in params if p.is_constexpr and p.name in given}
    last = max((i for i, p in enumerate(params) if not p.is_constexpr and p.name in given), default=-1)
    positional = params[:last + 1]
    tensors = {n: Tensor(v[2], v[1]) for n, v in given.items() if v[0] == "tensor"}

    def stand_in(value):
        return _OffsetTensor(value[2], value[1], value[3]) if value[0] == "tensor" else value[1]

    def runtime_args(**_):
        return tuple(p.default if p.name not in given else stand_in(given[p.name]) for p in positional)

    constexpr_before = {p.name for p in positional if p.is_constexpr}
    spec = KernelSpec(name=name, kernel=kernel, description=f"{name} with --args {args_text}", tensors=tensors,
                      args=runtime_args, grid=lambda shape, m: grid,
                      meta={k: v for k, v in meta.items() if k not in constexpr_before}, default_shape={},
                      source_path=source_path,
                      dtypes=tuple(dict.fromkeys(t.dtype for t in tensors.values())) or ("fp32",))
    # no spec counts its work: the kernel's launch_metadata does, or else its tensors' bytes (core/work.py)
    arguments = {p.name: stand_in(given[p.name]) for p in params if p.name in given}
    work.fill_spec(spec, work.of_arguments(jit, grid, arguments, name))
    return spec
