"""What Triton removed, and in which version: the one table `compile`, `run` and `check` read when a kernel
fails on a feature its Triton no longer has, so that the error says which Triton last had it and how to look at
the file there (`--triton`, triton_envs.py).

A row is found by the words Triton itself raises (`says`), not by reading the user's source: the message is
what every path sees, the compiler's CompilationError and the interpreter's exception alike.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Removed:
    feature: str           # what the user wrote, in their words
    removed_in: str        # the first Triton without it (major.minor)
    last: str              # the last Triton with it
    instead: str           # what replaces it
    says: str              # the words of Triton's own error, which identify it


# Triton 3.9, python/triton/language/core.py: make_block_ptr and advance raise NotImplementedError.
REMOVED = (
    Removed(feature="block pointers (tl.make_block_ptr, tl.advance)", removed_in="3.9", last="3.8",
            instead="tl.make_tensor_descriptor",
            says="Block pointers have been removed in favor of the tensor descriptor API"),
)


def find(message: str) -> Removed | None:
    """The removed feature Triton's error message is about, if it is one."""
    return next((r for r in REMOVED if r.says in message), None)


def reason(removed: Removed) -> str:
    """What happened, in one clause: '... were removed in Triton 3.9; 3.8 was the last with them'."""
    return (f"{removed.feature} were removed in Triton {removed.removed_in}; {removed.last} was the last "
            f"with them ({removed.instead} replaces them)")


def explain(message: str, where: str | None = None) -> str | None:
    """Triton's message about a removed feature, as one line that says which Triton last had it and how to look at
    the kernel there: `--triton 3.8` alone, or with `where` (a kernel's file, FILE.py:NAME) the whole command.
    None when the message is about nothing this table knows."""
    removed = find(message)
    if removed is None:
        return None
    how = (f"`playground compile {where} --triton {removed.last}` compiles it there" if where
           else f"compile with --triton {removed.last} to see it there")
    return f"{reason(removed)}: {how}"
