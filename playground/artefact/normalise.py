"""Stage text with the numbering that changes on every line when anything changes (registers, SSA values,
labels, addresses, locations) replaced, so that `diff` and the pass log compare what a change did."""
from __future__ import annotations

import re

from ..core.stages import STAGES

_NORMALISERS = {      # by the stage's language (stages.py)
    "sass": [
        (re.compile(r"/\*[0-9a-f]{4,}\*/\s*"), ""),                           # instruction addresses
        (re.compile(r"/\* 0x[0-9a-f]+ \*/"), ""),                              # encodings, if printed
        (re.compile(r"\b(U?R|U?P)\d+\b"), r"\1#"),                             # registers, predicates
        (re.compile(r"\.L_x_\d+"), ".L_x_#"),                                  # branch labels
    ],
    "ptx": [
        (re.compile(r"%(r|rd|rs|f|fd|p|h|hh|b)\d+\b"), r"%\1#"),               # virtual registers
        (re.compile(r"\$L__BB\d+_\d+"), "$L__BB#"),                            # block labels
        (re.compile(r"\$L__tmp\d+"), "$L__tmp#"),
    ],
    "llvm": [
        (re.compile(r"%\d+\b"), "%#"),                                          # SSA values
        (re.compile(r"!\d+\b"), "!#"),                                          # metadata ids
    ],
    "amdgcn": [
        (re.compile(r"\b([vsa])\[\d+:\d+\]"), r"\1[#]"),                       # register ranges
        (re.compile(r"\b([vsa])\d+\b"), r"\1#"),                               # registers
        (re.compile(r"\.LBB\d+_\d+"), ".LBB#"),                                # block labels
    ],
}
_MLIR = [
    (re.compile(r"\s*\bloc\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)"), ""),      # locations, inline or trailing
    (re.compile(r"%\d+\b"), "%#"),                                              # SSA values
    (re.compile(r"%([A-Za-z][\w]*?)_\d+\b"), r"%\1_#"),                         # named values: %cst_3
    (re.compile(r"%arg\d+\b"), "%arg#"),
    (re.compile(r"\^bb\d+\b"), "^bb#"),
]
_NORMALISERS["mlir"] = _MLIR
_MLIR_LOC_LINE = re.compile(r"^#loc\d*\s*=\s*loc\(")

_HOW = {
    "sass": "instruction addresses dropped; register, predicate and label numbers shown as #",
    "ptx": "virtual register and label numbers shown as #",
    "llvm": "value and metadata numbers shown as #",
    "mlir": "locations dropped; value numbers shown as #",
    "amdgcn": "register and label numbers shown as #",
}
NORMALISATION = {name: _HOW[s.language] for name, s in STAGES.items() if s.language in _HOW}


def normalise(text: str, stage: str) -> str:
    """The stage's text with the numbering noise replaced, line for line (location lines dropped)."""
    language = STAGES[stage].language if stage in STAGES else None
    rules = _NORMALISERS.get(language)
    if not rules:
        return text
    out = []
    for line in text.splitlines():
        if language == "mlir" and _MLIR_LOC_LINE.match(line):
            continue
        for pattern, repl in rules:
            line = pattern.sub(repl, line)
        out.append(line.rstrip())
    return "\n".join(out) + "\n"
