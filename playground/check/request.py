"""What a check is asked, for a spec's kernels and for real code alike (`playground.check.run` answers it).

`playground check` builds one Request from its options and calls `check.run`; the tests, the lessons and the
notebook call the same. A spec's kernels (`check softmax`) give no `ref`; real code (`check FILE.py:NAME --ref ...`, a
KernelBench solution against its problem) gives the reference. Options that belong to the other kind are refused
in one line, naming them.
"""
from __future__ import annotations

from dataclasses import dataclass, field


DEFAULT_MEMORY_GB = 16.0        # torch, Triton and LLVM reserve about 5 GB of address space before any work


@dataclass
class Request:
    subject: str = ""                     # the one checked: a kernel's name, FILE.py:NAME, package.module:NAME, or a
    #                                       KernelBench SOLUTION.py
    ref: str | None = None                # real code: an expression, FILE.py:NAME or a KernelBench PROBLEM.py
    subjects: list = field(default_factory=list)  # every one named (several solutions against one reference)
    all_kernels: bool = False             # every kernel of kernels/ (--all)
    quick: bool = False
    seed: int = 0
    timeout: float = 600.0
    plain: bool = False                   # the cases as written: no input classes, layouts or configs; for real
    #                                       code the baseline case alone, unsandboxed, no poison (check_cost.py)
    # a spec's kernels
    shape: dict = field(default_factory=dict)     # one shape instead of the cases
    dtype: str | None = None
    meta: dict = field(default_factory=dict)
    num_warps: int | None = None
    num_stages: int | None = None
    interpreter: bool = False             # the interpreter even where a GPU is
    sanitize: bool = True
    # real code
    inputs: list = field(default_factory=list)   # --inputs texts
    shapes: list = field(default_factory=list)   # --shape sets
    init: str | None = None
    sets: dict = field(default_factory=dict)     # --set, for a KernelBench problem
    target: str | None = "sm_90"          # a target label; None: this machine's GPU
    seeds: int | None = None              # None: 2 with quick, else 3
    backward: bool = False
    allow_inplace: bool = False
    require_triton: bool = False
    atol: float | None = None
    rtol: float | None = None
    memory_gb: float = DEFAULT_MEMORY_GB
    contain: bool = True
    jobs: int = 1                         # several solutions: how many at once
    ray: str | None = None                # several solutions: on Ray, at this address

    def __post_init__(self):
        if self.seeds is None:
            self.seeds = 2 if self.quick else 3
        if self.subject and not self.subjects:
            self.subjects = [self.subject]
        if self.subjects and not self.subject:
            self.subject = self.subjects[0]

    @property
    def kernelbench(self) -> bool:
        from .code import problem
        return bool(self.ref) and self.ref.endswith(".py") and ":" not in self.ref and problem.is_problem(self.ref)
