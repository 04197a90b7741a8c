"""Every guard a check has, by name: what it stops (the cheat or the bug), in one place. A finding names its guard
from here (Finding refuses any other name), the report and the JSON schema list these names, and
tests/test_check_registry.py holds the three to one another.

Some are not guards of the code's answer but of the check itself: `load` (the subject could not be loaded),
`reference` (the reference failed on the baseline), `interpreter` (a launch Triton's interpreter could not run: the
case is not judged) and `parameters` (the subject's parameters do not take the reference's: not judged either).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Guard:
    name: str
    stops: str            # the cheat or the bug it stops, in a line


GUARDS = {g.name: g for g in (
    Guard("form", "an output of another shape, dtype or device than the reference's, or not a plain tensor"),
    Guard("memory", "an output element never written: still the poison fresh GPU memory was filled with"),
    Guard("nonfinite", "NaN or Inf where the reference has none, or none where it has them"),
    Guard("tolerance", "an error beyond check/margin.py's rule: K times PyTorch's own error in the same dtype, plus "
                       "a few ulps, and the dtype's element-wise table where PyTorch clears it"),
    Guard("scale", "an answer no closer to the reference than a trivial one (zeros, a constant, an input)"),
    Guard("inputs", "a call that changed its inputs (in place) without --allow-inplace"),
    Guard("sanitizer", "an out-of-bounds access, a race or an uninitialised read the interpreter's sanitizers saw"),
    Guard("masked", "a result that depends on the masked-out lanes of a load with no other=, undefined on a GPU"),
    Guard("work", "no Triton launch completed under --require-triton: PyTorch alone answered"),
    Guard("reach", "the subject replaced a comparison or timing function, or searched the garbage collector"),
    Guard("containment", "a write outside the scratch folder, a socket, a fork or a foreign program"),
    Guard("seeds", "right at the first seed, wrong at another: a cached or hard-coded answer"),
    Guard("replayed", "a module called again on new inputs answering what it answered before"),
    Guard("shapes", "right at the problem's sizes, wrong at unequal, odd ones: a shape-specific answer"),
    Guard("values", "right on N(0, 1), wrong on another input class (x100, all negative, all positive, ...)"),
    Guard("layouts", "right on contiguous tensors, wrong on strided views"),
    Guard("configs", "right under the launch's config, wrong under another of the autotune space"),
    Guard("backward", "a gradient that misses the reference's (--backward)"),
    Guard("load", "the subject could not be loaded (not a guard of the answer)"),
    Guard("reference", "the reference failed on the baseline case (not a guard of the answer)"),
    Guard("interpreter", "a launch Triton's interpreter could not run: the case is not judged"),
    Guard("parameters", "the subject's parameters take none of the reference's by name or by order: not judged"),
)}

# the guards that compare values: an output the kernel never computed sets them all off, saying nothing of the code
VALUE_GUARDS = ("memory", "nonfinite", "tolerance", "scale", "backward", "masked")


@dataclass
class Finding:
    guard: str
    message: str

    def __post_init__(self):
        if self.guard not in GUARDS:
            raise ValueError(f"no guard named {self.guard!r} in check/registry.py")

    def as_dict(self) -> dict:
        return {"guard": self.guard, "message": self.message}
