"""Parse and check what the user types: --meta, --shape, --dtype, num_warps and num_stages."""
from __future__ import annotations

import difflib
from typing import Iterable

from ..errors import UserError
from . import dtypes
from .spec import KernelSpec


def parse_assignments(text: str | Iterable[str] | None, name: str, strings: bool = False) -> dict:
    """'A=1,B=2' -> {'A': 1, 'B': 2}; values are ints, floats, or True/False (and, with `strings`,
    any other word as a string: a string or dtype constexpr, `ACTIVATION=leaky_relu`, `OUT_DTYPE=fp16`).

    An option given several times (`--shape M=128 --shape N=64`) arrives as a tuple of strings
    and merges; a name given twice with different values is an error, not a silent override. `name`: the
    parameter the text is for (meta, shape), which an error names first.
    """
    result = {}
    for item in split_items(text):
        key, eq, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if not eq or not key or not raw:
            example = _EXAMPLES.get(name, "BLOCK_SIZE=1024")
            raise UserError(f"{name} '{item}': expected NAME=VALUE, as in `{name}` {example}", param=name)
        merge(result, key, parse_value(raw, f"{name} {key}", strings, param=name), name)
    return result


_EXAMPLES = {"shape": "M=4096", "meta": "BLOCK_SIZE=1024"}   # what each option's NAME=VALUE looks like


def split_items(text: str | Iterable[str] | None) -> list[str]:
    """The comma-separated items of one option's value, or of every time it was given."""
    texts = [text] if isinstance(text, str) or text is None else list(text)
    return [item.strip() for t in texts for item in (t or "").split(",") if item.strip()]


def split_top_level(text: str) -> list[str]:
    """`x=fp32[4,4], n=3` -> ["x=fp32[4,4]", "n=3"]: commas inside brackets or parentheses stay."""
    items, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += ch
    return [i for i in [*items, current.strip()] if i]


def merge(into: dict, key: str, value, name: str) -> None:
    """Set into[key] = value; the same key twice must agree. `name`: the parameter (meta, shape)."""
    if key in into and into[key] != value:
        raise UserError(f"{name} {key}: given twice, as {into[key]} and {value}; say it once", param=name)
    into[key] = value


def doubling(text: str, what: str, param: str | None = None) -> list[int]:
    """`A..B`, the one range grammar of every command: A, 2A, 4A, ... up to B (`32..128` is 32, 64,
    128; `100..800` is 100, 200, 400, 800)."""
    low, _, high = text.partition("..")
    try:
        low, high = int(low), int(high)
    except ValueError:
        raise UserError(f"{what}={text}: a range is two integers, A..B", param=param) from None
    if low < 1 or high < low:
        raise UserError(f"{what}={text}: a range runs from a positive A up to B >= A", param=param)
    out = []
    while low <= high:
        out.append(low)
        low *= 2
    return out


def parse_value(raw: str, what: str, strings: bool = False, param: str | None = None):
    if raw in ("True", "true", "False", "false"):
        return raw.lower() == "true"
    for convert in (int, float):
        try:
            return convert(raw)
        except ValueError:
            pass
    if strings and raw.replace("_", "").replace(".", "").isalnum():
        return raw
    raise UserError(f"{what}={raw}: not a number", param=param)


# Backend options a launch or an autotune Config sets beside the meta-parameters
# (`kernel[grid](..., waves_per_eu=2)`, `triton.Config({...}, maxnreg=128)`): Triton's JIT hands
# them to the backend's options, and so does the binder here (binder.specialize). Which backend has
# which is Triton's to say (CUDAOptions: maxnreg, num_ctas; HIPOptions: waves_per_eu,
# matrix_instr_nonkdim, kpack, num_ctas); one the target lacks is refused there.
LAUNCH_OPTIONS = ("maxnreg", "num_ctas", "waves_per_eu", "matrix_instr_nonkdim", "kpack")


def check_meta(spec: KernelSpec, meta: dict) -> dict:
    known = [p.name for p in spec.kernel.params if p.is_constexpr]
    meta = dict(meta)
    for key, value in meta.items():
        if key in LAUNCH_OPTIONS and key not in known:
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise UserError(f"meta {key}={value}: a backend option, expected a whole number", param="meta")
            continue
        if key in ("num_warps", "num_stages") and key not in known:
            raise UserError(f"meta {key}: a launch setting, not a meta-parameter: use `{key}` {value}", param="meta")
        if key not in known:
            raise UserError(f"meta {key}: {spec.name} has no meta-parameter of that name{_near(key, known)}", param="meta")
        if isinstance(value, str):
            meta[key] = value = _string_constexpr(spec, key, value)
        if isinstance(value, bool) != isinstance(spec.meta.get(key, value), bool):
            raise UserError(f"meta {key}={value}: expected {type(spec.meta[key]).__name__}", param="meta")
        if key.startswith("BLOCK") and not _power_of_two(value):
            raise UserError(f"meta {key}={value}: block sizes feed tl.arange, which needs a power of two", param="meta")
    return meta


def check_shape(spec: KernelSpec, shape: dict) -> dict:
    dims = list(spec.default_shape)
    for key, value in shape.items():
        if key not in dims:
            close = difflib.get_close_matches(key, dims, n=2, cutoff=0.4)
            near = f"; did you mean {' or '.join(close)}?" if close else ""
            raise UserError(f"shape {key}: {spec.name} has dimensions {', '.join(dims)}{near}", param="shape")
        if isinstance(value, float) and value.is_integer() and value >= 1:     # 1e6 parses as a float
            raise UserError(f"shape {key}: sizes are positive integers; write {key}={int(value)}", param="shape")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise UserError(f"shape {key}={value}: sizes are positive integers", param="shape")
    return {**spec.default_shape, **shape}


def check_dtype(spec: KernelSpec, dtype: str | None) -> str:
    if dtype is None:
        return spec.dtype
    dtype = dtypes.canonical(dtype)          # an unknown name is one line naming the known ones
    if dtype not in spec.dtypes:
        raise UserError(f"dtype {dtype}: {spec.name} supports {', '.join(spec.dtypes)}", param="dtype")
    return dtype


def check_num_warps(n) -> int:
    # Triton requires a power of two (CUDAOptions/HIPOptions assert it); 32 warps is 1024 threads.
    if not isinstance(n, int) or not _power_of_two(n) or n > 32:
        raise UserError(f"num_warps={n}: must be a power of two from 1 to 32")
    return n


def check_num_stages(n) -> int:
    if not isinstance(n, int) or n < 1 or n > 8:
        raise UserError(f"num_stages={n}: must be an integer from 1 to 8")
    return n


def _string_constexpr(spec: KernelSpec, key: str, value: str):
    """A dtype constexpr (`OUT_DTYPE=fp16`) as Triton's dtype, when the kernel's default is one or the
    word names one; any other word stays a string constexpr (`ACTIVATION=leaky_relu`)."""
    default = spec.meta.get(key)
    is_dtype_default = type(default).__name__ in ("dtype", "pointer_type") or hasattr(default, "primitive_bitwidth")
    if is_dtype_default or (default is None and value in dtypes.KNOWN):
        import triton.language as tl
        if value in dtypes.KNOWN:
            return getattr(tl, dtypes.KNOWN[value].triton)
        if isinstance(getattr(tl, value, None), tl.dtype):
            return getattr(tl, value)
        raise UserError(f"meta {key}={value}: not a dtype; known: {', '.join(dtypes.KNOWN)}", param="meta")
    if default is not None and not isinstance(default, str):
        raise UserError(f"meta {key}={value}: expected {type(default).__name__}", param="meta")
    return value


def _power_of_two(n) -> bool:
    return isinstance(n, int) and n > 0 and n & (n - 1) == 0


def _near(key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, n=2, cutoff=0.4)
    return f"; did you mean {' or '.join(close)}?" if close else f"; known: {', '.join(known)}"
