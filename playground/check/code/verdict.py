"""The verdict of a check of real code, as data: each case's findings (check/registry.Finding), its comparisons and
launches, and the check's own (reach, containment, work), with the protections that were in force."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

@dataclass
class CaseVerdict:
    id: str
    label: str
    stands_for: str | None            # the guard this case stands for (cases.py); None: the baseline
    status: str                       # "pass", "fail", "error" (the call raised, or a launch could not run in the
    #                                     interpreter: guards.unrun) or "skip"
    findings: list = field(default_factory=list)     # guards.Finding
    outputs: list = field(default_factory=list)      # closeness.OutputCheck
    launches: list = field(default_factory=list)     # {"kernel", "grid", "variant", "executed", ...}
    note: str | None = None           # why skipped, or the error
    seconds: float = 0.0              # the subject's call, in its process
    parameters: dict | None = None    # KernelBench: how the subject's parameters took the reference's
    #                                   (draws.match_parameters)

    @property
    def guards(self) -> list[str]:
        return list(dict.fromkeys(f.guard for f in self.findings))

    def as_dict(self) -> dict:
        return {"id": self.id, "label": self.label, "stands_for": self.stands_for, "status": self.status,
                "guards": self.guards, "findings": [f.as_dict() for f in self.findings],
                "outputs": [asdict(o) for o in self.outputs], "launches": self.launches, "note": self.note,
                "seconds": self.seconds, "parameters": self.parameters}


@dataclass
class Verdict:
    subject: str
    reference: str
    kind: str                         # "function", "module", "autograd", "kernelbench", or "" when it never loaded
    mode: str                         # the virtual GPU's name, or this machine's GPU
    cases: list = field(default_factory=list)
    findings: list = field(default_factory=list)     # the check's own: reach, containment, work, loading
    protections: dict = field(default_factory=dict)
    sizes: list = field(default_factory=list)        # [{"label", "sizes"}]: the sizes each case ran at
    launches: int = 0
    completed: int = 0
    kernels: list = field(default_factory=list)      # the kernels that did the work, by name
    variants: list = field(default_factory=list)     # {"id", "kernel", ...}: `compile TRACE#N` opens each
    trace: dict | None = None
    seconds: dict = field(default_factory=dict)      # where the time went: "subject", "reference", "guards", "all"

    @property
    def ok(self) -> bool:
        return not self.findings and all(c.status in ("pass", "skip") for c in self.cases)

    @property
    def guards(self) -> list[str]:
        return list(dict.fromkeys([f.guard for f in self.findings] + [g for c in self.cases for g in c.guards]))

    @property
    def exit_code(self) -> int:
        """0 pass, 1 a failing check, 2 when the subject could not even be loaded (bad input: a missing name, a
        file that does not import)."""
        if any(f.guard == "load" for f in self.findings) and not self.cases:
            return 2
        return 0 if self.ok else 1

    def as_dict(self) -> dict:
        return {"subject": self.subject, "reference": self.reference, "kind": self.kind, "mode": self.mode,
                "ok": self.ok, "guards_fired": self.guards, "findings": [f.as_dict() for f in self.findings],
                "cases": [c.as_dict() for c in self.cases], "protections": self.protections, "sizes": self.sizes,
                "launches": self.launches, "completed": self.completed, "kernels": self.kernels,
                "variants": self.variants, "seconds": self.seconds}


@dataclass
class Verdicts:
    """Many solutions against one reference: one verdict each, in the order given."""
    verdicts: list

    @property
    def exit_code(self) -> int:
        return 0 if all(v.ok for v in self.verdicts) else 1

    def as_dict(self) -> dict:
        return {"solutions": [v.as_dict() for v in self.verdicts],
                "passed": sum(v.ok for v in self.verdicts), "total": len(self.verdicts)}
