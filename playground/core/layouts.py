"""Gluon layouts written as text, and read back: a layout constexpr in `--args`
(`layout=gl.BlockedLayout([4], [32], [4], [0])`, as Triton's Gluon tutorials pass one) and one kept in a
`run` trace (the layout's repr, which is its constructor call).

One reader serves both, and it runs nothing: an AST walk that accepts only calls of Gluon's layout classes
(gl.BlockedLayout, gl.SliceLayout, gl.NVMMASharedLayout, Blackwell's TensorMemoryLayout, ...), with
numbers, strings, booleans, None, lists, tuples and other layouts as their arguments.
"""
from __future__ import annotations

import ast
from functools import lru_cache

from ..errors import UserError

# the modules Gluon's layout classes live in (imported only when a layout is read)
_MODULES = ("triton.experimental.gluon.language", "triton.experimental.gluon.language.nvidia.blackwell",
            "triton.experimental.gluon.language.amd")
EXAMPLE = "layout=gl.BlockedLayout([4], [32], [4], [0])"


def is_layout(value) -> bool:
    """Whether a constexpr's value is a Gluon layout."""
    kind = type(value)
    return kind.__module__.startswith("triton.experimental.gluon.language") and kind.__name__.endswith("Layout")


def looks_like_one(text: str) -> bool:
    """Whether `--args` text names a layout's constructor (so that it is read as one, not as a word)."""
    head = text.split("(", 1)[0].strip()
    return "(" in text and head.rsplit(".", 1)[-1].endswith("Layout")


def read(text: str):
    """The layout `text` constructs: `gl.BlockedLayout([4], [32], [4], [0])` or a repr,
    `SliceLayout(dim=0, parent=BlockedLayout(size_per_thread=[1, 1], ...))`."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise UserError(f"{text}: not a Gluon layout; write one as its constructor is called: {EXAMPLE}",
                        param="args") from None
    return _value(tree, text)


def _value(node, text: str):
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, int, float, str))):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -_value(node.operand, text)
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_value(item, text) for item in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        cls = _classes().get(name)
        if cls is None:
            raise UserError(f"{text}: {name or 'that call'} is not one of Gluon's layouts "
                            f"({', '.join(sorted(_classes()))})", param="args")
        try:
            return cls(*(_value(a, text) for a in node.args),
                       **{k.arg: _value(k.value, text) for k in node.keywords})
        except (TypeError, ValueError, AssertionError) as e:
            raise UserError(f"{text}: {name} refuses these arguments: {e}", param="args") from None
    raise UserError(f"{text}: only layouts, numbers, strings, lists and tuples may be written in a layout; "
                    f"as in {EXAMPLE}", param="args")


@lru_cache(maxsize=1)
def _classes() -> dict:
    import importlib
    found = {}
    for name in _MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:          # an older Triton without one of them
            continue
        found |= {attr: value for attr, value in vars(module).items()
                  if isinstance(value, type) and attr.endswith("Layout") and not attr.startswith("_")}
    return found
