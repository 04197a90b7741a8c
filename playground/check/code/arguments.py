"""What `check FILE.py:NAME` is told to call with: `--inputs "x=fp16[M,781], w=fp16[781], eps=1e-6"`,
`--init "hidden_size=781"`, `--set batch_size=4` and `--shape M=1823`, read into plain data (no torch here).

A tensor is `name=DTYPE[D0,D1,...]`, each dimension a number or a name given by `--shape`, then optionally how
its values are drawn (draws.py draws them):
- an integer tensor's range, `ids=int64[2,300] in [0,12)`: half-open or closed as written (`[0,11]` is the
  same), each bound a number or a `--shape` name (`in [0,V)`); without one, INT_DEFAULT;
- a bool tensor's density, `mask=bool[64,128] p=0.1`: the probability of True; without one, BOOL_DEFAULT.
Anything else is a value: a Python literal (a number, True, None, a tuple, a string in quotes), one of torch's
dtypes (`dtype=torch.float32`), or a bare name: the `--shape` size of that name, else the name as a string (as
--init reads one). The order given is the order of the call's positional arguments (an autograd.Function's
`apply` takes no keywords).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from ...core import dtypes, params
from ...errors import UserError

_TENSOR = re.compile(r"^(?P<dtype>[A-Za-z_][A-Za-z0-9_]*)\[(?P<dims>[^\]]*)\](?P<how>.*)$")
_RANGE = re.compile(r"^in\s*(?P<open>[\[(])\s*(?P<low>[^,\s]+)\s*,\s*(?P<high>[^\])\s]+)\s*(?P<close>[\])])$")
_DENSITY = re.compile(r"^p\s*=\s*(?P<p>\S+)$")

# The draws when --inputs does not say. Integers: non-negative, so an integer tensor used as indices is never
# negative; below 100, so they are in range of a dimension of at least 100 (give `in [0,N)` for a smaller one).
# Bools: True and False alike.
INT_DEFAULT = (0, 100)          # [low, high)
BOOL_DEFAULT = 0.5


@dataclass(frozen=True)
class TensorArg:
    name: str
    dtype: str                  # canonical: fp16, bf16, fp32, i32, ...
    dims: tuple                 # ints, or names --shape gives
    low: int | str | None = None     # an integer tensor's range, [low, high): ints or --shape names; the high
    high: int | str | None = None    # bound of a closed range is kept as (name, 1): one past it
    p: float | None = None           # a bool tensor's probability of True

    def shape(self, sizes: dict) -> tuple:
        return tuple(_size(d, sizes, self.name, "dimension") for d in self.dims)

    def bounds(self, sizes: dict) -> tuple[int, int]:
        """[low, high) of an integer tensor's values at these sizes."""
        if self.low is None:
            return INT_DEFAULT
        low, high = _size(self.low, sizes, self.name, "bound"), _size(self.high, sizes, self.name, "bound")
        if low >= high:
            raise UserError(f"{self.name}: the range [{low},{high}) is empty", param="inputs")
        return low, high


@dataclass(frozen=True)
class TorchDType:
    """A value that is one of torch's dtypes (`dtype=torch.float32`): its short name (fp32), made torch's in
    draws.py."""
    name: str


def _size(d, sizes: dict, name: str, what: str) -> int:
    if isinstance(d, tuple):                 # (bound, 1): a closed range's high bound, one past it
        return _size(d[0], sizes, name, what) + d[1]
    if isinstance(d, int):
        return d
    if d not in sizes:
        raise UserError(f"{name}: {what} {d} has no size: give it with `shape` {d}=N", param="inputs")
    return int(sizes[d])


@dataclass(frozen=True)
class ValueArg:
    name: str
    value: object


@dataclass(frozen=True)
class Inputs:
    """One `--inputs` set: the arguments in call order."""
    text: str
    args: tuple = field(default_factory=tuple)

    def names(self) -> list[str]:
        return [a.name for a in self.args]

    def dimension_names(self) -> set[str]:
        return {d for a in self.args if isinstance(a, TensorArg) for d in a.dims if isinstance(d, str)}


def parse_inputs(text: str) -> Inputs:
    args, seen = [], set()
    for item in params.split_top_level(text):
        name, sep, raw = item.partition("=")
        name, raw = name.strip(), raw.strip()
        if not sep or not name.isidentifier():
            raise UserError(f"'{item.strip()}': write NAME=DTYPE[DIMS] or NAME=VALUE", param="inputs")
        if name in seen:
            raise UserError(f"{name} is given twice", param="inputs")
        seen.add(name)
        match = _TENSOR.match(raw)
        if match:
            args.append(_tensor(name, _dtype(match["dtype"], name), _dims(match["dims"], name),
                                match["how"].strip()))
        else:
            args.append(ValueArg(name, value(raw, name, "inputs")))
    if not args:
        raise UserError("no inputs given", param="inputs")
    return Inputs(text, tuple(args))


def parse_keywords(text: str | None, what: str) -> dict:
    """`--init "hidden_size=781, eps=1e-6, dtype=torch.bfloat16"`: names to values (`value`); a bare name stays a
    string, the --shape size of that name where there is one (`hidden_size=N`)."""
    out = {}
    for item in params.split_top_level(text or ""):
        name, sep, raw = item.partition("=")
        name, raw = name.strip(), raw.strip()
        if not sep or not name.isidentifier():
            raise UserError(f"'{item.strip()}': write NAME=VALUE", param=what)
        out[name] = value(raw, name, what)
    return out


def value(raw: str, name: str, what: str):
    """A value given as text: one of torch's dtypes (TorchDType), a bare name (a string: the --shape size of
    that name where there is one), or a Python literal."""
    if raw.startswith("torch."):
        try:
            return TorchDType(dtypes.canonical(raw))
        except UserError:
            raise UserError(f"{name}={raw}: of torch's names, only dtypes are values (torch.float32, torch.int64, "
                            f"torch.bool, ...)", param=what) from None
    if raw.isidentifier() and raw not in ("True", "False", "None"):
        return raw
    return literal(raw, name, what)


def literal(raw: str, name: str, what: str):
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        raise UserError(f"{name}={raw}: not a tensor (DTYPE[DIMS]) nor a Python literal", param=what) from None


def _dtype(text: str, name: str) -> str:
    try:
        return dtypes.canonical(text)
    except (KeyError, UserError):
        raise UserError(f"{name}: unknown dtype '{text}' (fp16, bf16, fp32, i32, ...)", param="inputs") from None


def _tensor(name: str, dtype: str, dims: tuple, how: str) -> TensorArg:
    """The tensor, with its range (`in [0,12)`) or its density (`p=0.1`) when `how` gives one."""
    if not how:
        return TensorArg(name, dtype, dims)
    integer, boolean = is_integer(dtype), dtype == "i1"
    ranged, density = _RANGE.match(how), _DENSITY.match(how)
    if ranged and integer:
        low, high = _bound(ranged["low"], name), _bound(ranged["high"], name)
        low = low if ranged["open"] == "[" else (low + 1 if isinstance(low, int) else (low, 1))
        high = high if ranged["close"] == ")" else (high + 1 if isinstance(high, int) else (high, 1))
        if isinstance(low, int) and isinstance(high, int):
            if low >= high:
                raise UserError(f"{name}: the range {how[2:].strip()} holds no integer", param="inputs")
            least, most = _limits(dtype)
            if low < least or high - 1 > most:
                raise UserError(f"{name}: the range {how[2:].strip()} does not fit {dtype} ({least} to {most})",
                                param="inputs")
        return TensorArg(name, dtype, dims, low=low, high=high)
    if density and boolean:
        try:
            p = float(density["p"])
        except ValueError:
            p = -1.0
        if not 0.0 <= p <= 1.0:
            raise UserError(f"{name}: p={density['p']}: the probability of True is a number from 0 to 1",
                            param="inputs")
        return TensorArg(name, dtype, dims, p=p)
    if ranged or density:
        kind = "a range is for integer tensors" if ranged else "a probability of True is for bool tensors"
        raise UserError(f"{name}: `{how}`: {kind}; {name} is {dtype}", param="inputs")
    raise UserError(f"{name}: '{how}' after the dimensions: write `in [LOW,HIGH)` (an integer tensor's range) or "
                    f"`p=P` (a bool tensor's probability of True)", param="inputs")


def _bound(text: str, name: str) -> int | str:
    try:
        return int(text)
    except ValueError:
        if text.isidentifier():
            return text
        raise UserError(f"{name}: range bound '{text}' is neither an integer nor a --shape name",
                        param="inputs") from None


def is_integer(dtype: str) -> bool:
    return dtype.startswith(("i", "u")) and dtype != "i1"


def _limits(dtype: str) -> tuple[int, int]:
    bits = dtypes.KNOWN[dtype].bytes * 8
    return (0, (1 << bits) - 1) if dtype.startswith("u") else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def _dims(text: str, name: str) -> tuple:
    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        if part.isdigit():
            out.append(int(part))
        elif part.isidentifier():
            out.append(part)
        else:
            raise UserError(f"{name}: dimension '{part}' is neither a number nor a name", param="inputs")
    return tuple(out)
