"""A case as the specs write it: problem sizes, plus how the tensors are laid out.

A case dict mixes both (`{"M": 273, "N": 145, "transpose": "a"}`); the runner, the check and its
variants all split it the same way, so the split lives here, below all three.
"""
from __future__ import annotations

import math

LAYOUT_KEYS = ("transpose", "pad", "offset", "meta")   # case keys that are not problem sizes


def split_case(case: dict) -> tuple[dict, dict]:
    """A case dict -> (sizes, layout): layout holds "transpose", "pad", "offset" and "meta"."""
    sizes = {k: v for k, v in case.items() if k not in LAYOUT_KEYS}
    layout = {k: v for k, v in case.items() if k in LAYOUT_KEYS}
    return sizes, layout


def describe_case(case: dict) -> str:
    """'M=273, N=145, K=81, transpose=a' for reports and test ids."""
    sizes, layout = split_case(case)
    parts = [f"{k}={v}" for k, v in sizes.items()]
    if "transpose" in layout:
        parts.append(f"transpose={','.join(tensor_names(layout['transpose']))}")
    if "pad" in layout:
        pad = layout["pad"]
        parts.append(f"pad={','.join(f'{k}:{v}' for k, v in pad.items()) if isinstance(pad, dict) else pad}")
    if "offset" in layout:
        parts.append(f"offset={layout['offset']}")
    parts += [f"{k}={v}" for k, v in layout.get("meta", {}).items()]
    return ", ".join(parts)


def tensor_names(value) -> list[str]:
    """A layout entry's tensors ("a" or ["a", "b"]) as a list."""
    return [value] if isinstance(value, str) else list(value)


def case_elements(spec, case: dict) -> int:
    """Elements in all of a case's tensors: the size measure for picking the smallest case."""
    sizes, _ = split_case(case)
    shape = {**spec.default_shape, **sizes}
    return sum(math.prod(t.dims(shape)) for t in spec.tensors.values())
