"""What `check FILE.py:NAME` is told to call with: `--inputs "x=fp16[M,781], w=fp16[781], eps=1e-6"`,
`--init "hidden_size=781"`, `--set batch_size=4` and `--shape M=1823`, read into plain data (no torch here).

A tensor is `name=DTYPE[D0,D1,...]`, each dimension a number or a name given by `--shape`; anything else is a
Python literal (a number, True, None, a string in quotes). The order given is the order of the call's
positional arguments (an autograd.Function's `apply` takes no keywords).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from ...core import dtypes, params
from ...errors import UserError

_TENSOR = re.compile(r"^(?P<dtype>[A-Za-z_][A-Za-z0-9_]*)\[(?P<dims>[^\]]*)\]$")


@dataclass(frozen=True)
class TensorArg:
    name: str
    dtype: str                  # canonical: fp16, bf16, fp32, i32, ...
    dims: tuple                 # ints, or names --shape gives

    def shape(self, sizes: dict) -> tuple:
        try:
            return tuple(d if isinstance(d, int) else int(sizes[d]) for d in self.dims)
        except KeyError as e:
            raise UserError(f"{self.name}: dimension {e.args[0]} has no size: give it with `shape` "
                            f"{e.args[0]}=N", param="inputs") from None


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
            args.append(TensorArg(name, _dtype(match["dtype"], name), _dims(match["dims"], name)))
        else:
            args.append(ValueArg(name, literal(raw, name, "inputs")))
    if not args:
        raise UserError("no inputs given", param="inputs")
    return Inputs(text, tuple(args))


def parse_keywords(text: str | None, what: str) -> dict:
    """`--init "hidden_size=781, eps=1e-6"` (or `--set`): names to Python literals; a bare name stays a string
    naming a --shape size (`hidden_size=N`)."""
    out = {}
    for item in params.split_top_level(text or ""):
        name, sep, raw = item.partition("=")
        name, raw = name.strip(), raw.strip()
        if not sep or not name.isidentifier():
            raise UserError(f"'{item.strip()}': write NAME=VALUE", param=what)
        out[name] = raw if raw.isidentifier() and raw not in ("True", "False", "None") else literal(raw, name, what)
    return out


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
