"""The stages of a compile, described once: adding a stage is one entry here plus its producer.

Each entry says which backends have the stage, where its text comes from, its file name for
`compile --out`, whether it is a binary, and its language, which picks its highlighter
(lexers.py), how its lines map back to Python lines (line_info.locate) and how `diff`
normalises it (artefact/normalise.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import UserError


@dataclass(frozen=True)
class Stage:
    name: str
    backends: tuple[str, ...]   # Triton's backend names: "cuda", "hip"
    producer: str               # "python": the kernel's file; "triton": Triton's artefact (kernel.asm);
                                # "nvdisasm": disassembled from the cubin (disasm.py)
    file: str                   # the file `compile --out` writes it to
    language: str | None        # python, mlir, llvm, ptx, sass, amdgcn; None for a binary
    description: str
    default: bool = False       # what `compile` and `diff` show for its backends when --show is not given

    @property
    def binary(self) -> bool:
        return self.language is None


BOTH = ("cuda", "hip")
STAGES = {s.name: s for s in (
    Stage("source", BOTH, "python", "source.py", "python", "the @triton.jit function, as written"),
    Stage("ttir", BOTH, "triton", "ttir.mlir", "mlir", "Triton IR: operations on whole blocks"),
    Stage("ttgir", BOTH, "triton", "ttgir.mlir", "mlir", "TritonGPU IR: layouts, shared memory, pipelining"),
    Stage("llir", BOTH, "triton", "llir.ll", "llvm", "LLVM IR: one thread's program"),
    Stage("ptx", ("cuda",), "triton", "ptx.ptx", "ptx", "PTX, NVIDIA's virtual assembly", default=True),
    Stage("sass", ("cuda",), "nvdisasm", "sass.sass", "sass", "SASS, the machine code, from the cubin"),
    Stage("cubin", ("cuda",), "triton", "kernel.cubin", None, "the NVIDIA binary"),
    Stage("amdgcn", ("hip",), "triton", "amdgcn.s", "amdgcn", "AMDGCN assembly", default=True),
    Stage("hsaco", ("hip",), "triton", "kernel.hsaco", None, "the AMD binary"),
)}


def for_backend(backend: str) -> tuple[str, ...]:
    """The stages a backend's compile produces, in pipeline order."""
    return tuple(name for name, s in STAGES.items() if backend in s.backends)


def default_for(backend: str) -> str:
    """The stage shown when none is asked for: the backend's assembly (PTX, AMDGCN)."""
    return next(name for name in for_backend(backend) if STAGES[name].default)


def get(name: str) -> Stage:
    try:
        return STAGES[name]
    except KeyError:
        raise UserError(f"unknown stage '{name}'; known: {', '.join(STAGES)}") from None


def is_binary(name: str) -> bool:
    return name in STAGES and STAGES[name].binary


def textual(names) -> list[str]:
    """The stages of `names` that are text (everything but the binaries)."""
    return [n for n in names if not is_binary(n)]


VENDORS = {"cuda": "NVIDIA", "hip": "AMD"}


def listing(binaries: bool = True) -> str:
    """The stages by backend, for help text: "source, ttir, ..., sass, cubin (NVIDIA); amdgcn, hsaco (AMD)".
    Stages every backend has are named once, first."""
    names = [n for n, s in STAGES.items() if binaries or not s.binary]
    shared = [n for n in names if set(STAGES[n].backends) == set(VENDORS)]
    own = {b: [n for n in names if STAGES[n].backends == (b,)] for b in VENDORS}
    first, *rest = [b for b in VENDORS if own[b]]
    return "; ".join([", ".join(shared + own[first]) + f" ({VENDORS[first]})",
                      *(", ".join(own[b]) + f" ({VENDORS[b]})" for b in rest)])
