"""The main loop's schedule, read from the SASS control codes: what one iteration costs the warp scheduler.

A loop is a label and a later branch back to it. The main loop is the innermost loop with the most instructions
(a GEMM's K loop). Over its body this sums the stall counts, the cycles the compiler made the warp wait between
issues whatever the data: a floor on one iteration's issue time for one warp, before the waits on scoreboards,
whose length depends on memory and is not in the binary. Each scoreboard is listed with the instructions that
set it and how many wait on it; the longest stalls are listed with their Python lines.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field

from . import control_codes, disasm, sourcemap

_LABEL = re.compile(r"^\s*(\.L_x_\d+):")
_ADDRESS = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*$")
_BRANCH = re.compile(r"\bBRA(?:\.\S+)?\s+(?:`\()?(\.L_x_\d+)")
_GUARD = re.compile(r"^@!?U?P[T0-9]+\s+")
_DEPBAR = re.compile(r"^DEPBAR(?:\.\S+)?\s+SB(\d)")     # waits until a scoreboard's count falls to a number


@dataclass
class Scoreboard:
    index: int
    set_by: dict[str, int]          # opcode -> instructions in the loop that set it (write or read)
    waited_by: int                  # instructions in the loop whose wait mask has it
    depbar: int = 0                 # DEPBAR instructions that wait for its count to fall (cp.async groups)


@dataclass
class Stall:
    address: int
    stall: int
    instruction: str
    line: int | None                # the Python line


@dataclass
class LoopSchedule:
    start: int                      # the address of the loop's first and last instructions
    end: int
    instructions: int
    stall_cycles: int               # sum of the stall counts over one iteration
    yields: int                     # instructions whose yield hint lets the scheduler switch warps
    lines: list[int]                # the Python lines the body comes from
    scoreboards: list[Scoreboard] = field(default_factory=list)
    longest: list[Stall] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def main_loop(compiled, longest: int = 5) -> LoopSchedule | None:
    """The main loop's schedule, or None when the code has no loop (or the target is not NVIDIA)."""
    if not compiled.target.is_nvidia:
        return None
    text = disasm.sass_with_line_info(compiled)
    file = sourcemap.kernel_lines(compiled.spec.kernel)[0]
    mapped = sourcemap.mapped_lines("sass", text, file, compiled.stage("ptx"))
    controls = control_codes.by_line(compiled.kernel.asm["cubin"], "\n".join(line for line, _ in mapped))
    body, labels, loops = [], {}, []          # body: (address, instruction, python line, control)
    for (line, py), control in zip(mapped, controls):
        if m := _LABEL.match(line):
            labels[m.group(1)] = len(body)
        m = _ADDRESS.match(line)
        if not m or control is None:
            continue
        instruction = _GUARD.sub("", m.group(2))
        body.append((int(m.group(1), 16), instruction, py, control))
        b = _BRANCH.search(instruction)
        if b and b.group(1) in labels and labels[b.group(1)] < len(body) - 1:   # not the BRA-to-itself after EXIT
            loops.append((labels[b.group(1)], len(body) - 1))     # a branch back: [first, last] instruction
    innermost = [(a, b) for a, b in loops if not any(a <= c and d <= b and (c, d) != (a, b) for c, d in loops)]
    if not innermost:
        return None
    first, last = max(innermost, key=lambda span: (span[1] - span[0], -span[0]))
    loop = body[first:last + 1]
    sets: dict[int, Counter] = {}
    waits: Counter = Counter()
    depbars: Counter = Counter()
    for _, instruction, _, control in loop:
        opcode = instruction.split()[0]
        if m := _DEPBAR.match(instruction):
            depbars[int(m.group(1))] += 1
        for index in {control.write_barrier, control.read_barrier} - {None}:
            sets.setdefault(index, Counter())[opcode] += 1
        waits.update(control.waits)
    stalls = sorted(loop, key=lambda i: (-i[3].stall, i[0]))[:longest]
    return LoopSchedule(
        start=loop[0][0], end=loop[-1][0], instructions=len(loop),
        stall_cycles=sum(i[3].stall for i in loop), yields=sum(i[3].yields for i in loop),
        lines=sorted({i[2] for i in loop if i[2] is not None}),
        scoreboards=[Scoreboard(n, dict(sets.get(n, Counter()).most_common()), waits[n], depbars[n])
                     for n in range(control_codes.SCOREBOARDS) if n in sets or n in waits or n in depbars],
        longest=[Stall(a, c.stall, instruction, py) for a, instruction, py, c in stalls])
