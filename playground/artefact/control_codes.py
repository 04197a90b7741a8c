"""The scheduling control codes in every SASS instruction, read from its 128-bit encoding in the cubin.

Since Volta each instruction is one 128-bit little-endian word whose top bits tell the warp scheduler how to
issue it; nvdisasm decodes the instruction but prints none of them. The layout, from the least significant bit
of the field at bit 105 of the word (bits 126 and 127 are zero):

    bits  0-3   stall: cycles the scheduler waits before this warp's next instruction may issue
    bit   4     yield hint, stored inverted: clear means the scheduler may switch to another warp
    bits  5-7   write scoreboard (0-5; 7 = none): set until this variable-latency instruction writes its result
    bits  8-10  read scoreboard (0-5; 7 = none): set until it has read its source registers
    bits 11-16  wait mask: the scoreboards (bit i = SB i) that must clear before this instruction issues
    bits 17-20  reuse flags: keep source operand slot a, b, c, d in the operand reuse cache

Published for Volta by Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking"
(arXiv:1804.06826, §2.1, the field widths 4-6-3-3-1-4 from the top), for Turing by the same authors
(arXiv:1903.07486), with maxas's wiki ("Control-Codes", Maxwell's field order and the inverted yield) and
CuAssembler's CuControlCode.py (sm_70 to sm_86, the bit masks above). For sm_89, sm_90, sm_100 and sm_120 no
source publishes it: the layout is inferred, and held by tests/test_control_codes.py on every shipped kernel
and every NVIDIA target: the reuse flags agree with the `.reuse` operands nvdisasm prints, every scoreboard
waited on is one some instruction sets, and no fixed-latency arithmetic instruction sets one.
CuAssembler notes that a few opcodes (HMMA.SP, TEXS, BRA) use the reuse bits for other fields: where the
flags and nvdisasm's `.reuse` disagree, `reuse_from_text` is the one to believe.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from . import cubin as cubin_reader
from . import disasm

CONTROL_SHIFT = 105           # where the field starts in the 128-bit word
NO_SCOREBOARD = 7
SCOREBOARDS = 6

_ADDRESS = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/")


@dataclass(frozen=True)
class Control:
    raw: int                              # the 23-bit field as it lies in the word
    stall: int
    yields: bool
    write_barrier: int | None
    read_barrier: int | None
    waits: tuple[int, ...]                # scoreboards waited on, ascending
    reuse: tuple[bool, bool, bool, bool]  # operand slots a, b, c, d

    def text(self) -> str:
        """`S04 Y W1 R- B0-2--- a---`: stall, yield, write and read scoreboard, wait mask, reuse slots."""
        wait = "".join(str(i) if i in self.waits else "-" for i in range(SCOREBOARDS))
        reuse = "".join(slot if on else "-" for slot, on in zip("abcd", self.reuse))
        return (f"S{self.stall:02d} {'Y' if self.yields else '-'} W{_sb(self.write_barrier)} "
                f"R{_sb(self.read_barrier)} B{wait} {reuse}")

    def as_dict(self) -> dict:
        return {"stall": self.stall, "yield": self.yields, "write_barrier": self.write_barrier,
                "read_barrier": self.read_barrier, "waits": list(self.waits), "reuse": "".join(
                    slot for slot, on in zip("abcd", self.reuse) if on), "raw": self.raw}


COLUMNS = ("control: S stall cycles before the warp's next issue, Y yield hint, W/R the scoreboard set until the "
           "result is written / the sources are read, B the scoreboards waited on, a-d operand reuse slots")


def _sb(index: int | None) -> str:
    return "-" if index is None else str(index)


def decode(high_word: int) -> Control:
    """The control codes of one instruction, from the upper 64 bits of its encoding (the second word nvdisasm's
    -hex prints)."""
    field = (high_word >> (CONTROL_SHIFT - 64)) & ((1 << 23) - 1)
    write, read = (field >> 5) & 7, (field >> 8) & 7
    return Control(raw=field, stall=field & 0xF, yields=not (field >> 4) & 1,
                   write_barrier=None if write == NO_SCOREBOARD else write,
                   read_barrier=None if read == NO_SCOREBOARD else read,
                   waits=tuple(i for i in range(SCOREBOARDS) if (field >> (11 + i)) & 1),
                   reuse=tuple(bool((field >> (17 + i)) & 1) for i in range(4)))


def encodings(cubin: bytes) -> dict[str, list[tuple[int, int]]]:
    """Each function's instructions as (low, high) 64-bit words, in address order: `.text.<function>` read
    16 bytes at a time, little-endian, as the hardware fetches it."""
    out = {}
    for section, code in cubin_reader.code_sections(cubin).items():
        out[section.removeprefix(".text.")] = [struct.unpack_from("<QQ", code, at) for at in range(0, len(code) - 15, 16)]
    return out


def by_line(cubin: bytes, sass: str) -> list[Control | None]:
    """The control codes of each line of nvdisasm's SASS (None for a line that is not an instruction): a line's
    `/*addr*/` indexes its function's code section."""
    words = encodings(cubin)
    first = next(iter(words), None)
    out: list[Control | None] = []
    for function, address in disasm.addresses(sass.splitlines()):
        code = words.get(function or first, []) if address is not None else []
        index = address // 16 if address is not None else -1
        out.append(decode(code[index][1]) if 0 <= index < len(code) else None)
    return out


_REUSED = re.compile(r"\.reuse\b")


def reuse_from_text(instruction: str) -> int:
    """How many source operands nvdisasm marks `.reuse` in one SASS line."""
    return len(_REUSED.findall(instruction))


def annotate(cubin: bytes, sass: str) -> str:
    """The SASS with each instruction's control codes in a column after its address."""
    controls = by_line(cubin, sass)
    out = [f"// {COLUMNS}"]
    for line, control in zip(sass.splitlines(), controls):
        address = _ADDRESS.match(line)
        if control is None or not address:
            out.append(line)
            continue
        out.append(f"{line[:address.end()]}  [{control.text()}]{line[address.end():]}")
    return "\n".join(out) + "\n"
