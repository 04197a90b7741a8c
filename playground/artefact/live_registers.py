"""Register pressure: how many registers are live at each SASS instruction, and which Python line holds the most.

nvdisasm's dataflow pass prints the live count at every instruction (`--print-life-ranges`, `-lrm count`: one
column each for general registers, predicates, uniform registers and uniform predicates). Joined by address with
the line map (`sourcemap`), it becomes a profile per Python line: the peak over the line's instructions and the
count at its last one. The counts are nvdisasm's, not a model; the general-register count is what the allocation
(`registers` in the header) has to hold, so the peak is at most that.

nvdisasm 13.1 (Triton 3.8's and 3.9's) runs no dataflow pass on the older ELF layout, ELF ABI version 7 in the
cubin's header ("Dataflow analysis disabled"): the layout Triton 3.9's ptxas writes for sm_80 to sm_89, and
Triton 3.8's for sm_90 too. Those binaries have no profile unless TRITON_NVDISASM_PATH names an nvdisasm that
reads them (12.8, Triton 3.6's, does); `unavailable` says which layout the binary has, read from it. On AMD, LLVM's assembly states only the totals
(`.vgpr_count`, `; NumVgprs`), nothing per instruction: `unavailable` says so. And nvdisasm (13.1 and 12.8)
refuses a binary that uses all 255 registers ("Invalid register count"), a spilling one as a rule. When its code
names no R254, the count is read from a copy whose register-count record (`.nv.info` EIATTR_REGCOUNT) says 254,
and the profile says so; otherwise `unavailable` quotes what nvdisasm said.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from ..files import write_atomically
from ..tools import tool
from . import cubin, disasm, sourcemap

LIVE_FILE = "playground-live-registers.sass"
# an instruction and its columns: `/*0010*/  LDC.64 R2, c[0x0][0x228] ;  // |    3  |        |    1   |         |`;
# nvdisasm prints as many columns as the architecture has register files (12.8 prints no UPRED one for sm_80)
_ROW = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/.*?//\s*\|((?:\s*\d*\s*\|)+)\s*$")


@dataclass(frozen=True)
class Live:
    registers: int            # general registers (R0..R254) live across this instruction
    predicates: int
    uniform: int              # uniform registers (UR), one per warp
    uniform_predicates: int


@dataclass
class LineProfile:
    line: int                 # the Python line
    source: str
    peak: int                 # the most general registers live at any of its instructions
    last: int                 # live at its last instruction (in address order)
    instructions: int

    def as_dict(self) -> dict:
        return {"line": self.line, "source": self.source, "peak": self.peak, "last": self.last,
                "instructions": self.instructions}


@dataclass
class Pressure:
    allocated: int                        # registers per thread, as ptxas allocated them
    peak: int
    peak_line: int | None                 # the Python line of the first instruction at the peak
    peak_source: str
    lines: list[LineProfile] = field(default_factory=list)   # in line order
    by_address: dict[int, int] = field(default_factory=dict)  # general registers live, per instruction
    source: str = "nvdisasm --print-life-ranges"

    @property
    def from_copy(self) -> bool:
        """Read from a copy whose register-count record says 254 (nvdisasm refuses 255)."""
        return "on a copy" in self.source

    @property
    def peak_lines(self) -> list[int]:
        """Every Python line with an instruction at the peak: a value live across a loop (a GEMM's accumulator)
        holds the peak over all the loop's lines."""
        return [p.line for p in self.lines if p.peak == self.peak]

    def heaviest(self, n: int = 5) -> list[LineProfile]:
        """The n lines that hold the most registers, the highest peak first (then the earlier line)."""
        return sorted(self.lines, key=lambda p: (-p.peak, p.line))[:n]

    def as_dict(self) -> dict:
        return {"allocated": self.allocated, "peak": self.peak, "peak_line": self.peak_line,
                "peak_lines": self.peak_lines,
                "peak_source": self.peak_source, "lines": [p.as_dict() for p in self.lines], "source": self.source}


def unavailable(compiled) -> str | None:
    """Why `compiled` has no register profile, in one line, or None when it has one."""
    if not compiled.target.is_nvidia:
        return ("live registers: not available on AMD: LLVM's amdgcn states the totals (VGPRs, SGPRs), not the "
                "live count at each instruction")
    text, said = _life_ranges(compiled)
    if text is not None:
        return None
    if "Dataflow analysis disabled" in said:
        return (f"live registers: not available for {compiled.target.name}'s binary: nvdisasm {nvdisasm_release()} "
                f"runs no dataflow pass on the older ELF layout ptxas wrote it in (ELF ABI version "
                f"{elf_abi_version(compiled.kernel.asm['cubin'])}); TRITON_NVDISASM_PATH may name one that does "
                f"(CUDA 12.8's, in Triton 3.6's wheel)")
    last = next((line.strip() for line in reversed(said.splitlines()) if line.strip()), "no output")
    return f"live registers: not available: nvdisasm printed no life ranges for this binary ({last})"


def elf_abi_version(binary: bytes) -> int:
    """EI_ABIVERSION, byte 8 of the ELF header: 7 in the layout nvdisasm 13's dataflow pass skips, 8 in the newer."""
    return binary[8]


def nvdisasm_release() -> str:
    """'13.1' for the nvdisasm in use (`--version`'s "release 13.1")."""
    import subprocess
    said = subprocess.run([tool("nvdisasm"), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release ([\d.]+)", said)
    return m.group(1) if m else "?"


def counts(compiled) -> dict[tuple[str, int], Live] | None:
    """The live counts at each instruction, keyed (function, address), or None where nvdisasm gives none."""
    text = _life_ranges(compiled)[0]
    if text is None:
        return None
    lines = text.splitlines()
    out = {}
    for (function, address), line in zip(disasm.addresses(lines), lines):
        if address is not None and (m := _ROW.match(line)):
            columns = [int(v.strip() or 0) for v in m.group(2).split("|")[:-1]]
            out[(function, address)] = Live(*(columns + [0, 0, 0, 0])[:4])
    return out


def by_line(compiled, sass_lines: list[str]) -> list[int | None]:
    """The general registers live at each line of a SASS listing (None for a line that is not an instruction,
    or for every line where nvdisasm gives no counts)."""
    live = counts(compiled) or {}
    return [live[key].registers if key in live else None for key in disasm.addresses(sass_lines)]


def pressure(compiled) -> Pressure | None:
    """The register profile by Python line, or None (`unavailable` says why). Kept with the Compiled: the header,
    the JSON summary, inspect and the page all ask."""
    if "pressure" not in compiled._derived:
        compiled._derived["pressure"] = _pressure(compiled) if compiled.target.is_nvidia else None
    return compiled._derived["pressure"]


def _pressure(compiled) -> Pressure | None:
    text = _life_ranges(compiled)[0]
    if text is None:
        return None
    file, first, last = sourcemap.kernel_lines(compiled.spec.kernel)
    source = open(file, encoding="utf-8", errors="replace").read().splitlines()
    mapped = sourcemap.mapped_lines("sass", disasm.sass_with_line_info(compiled), file, compiled.stage("ptx"))
    live = by_line(compiled, [line for line, _ in mapped])
    grouped, by_address, peak = {}, {}, (0, None)
    for (_, address), (_, py), here in zip(disasm.addresses(line for line, _ in mapped), mapped, live):
        if here is None:
            continue
        by_address[address] = here
        if here > peak[0]:
            peak = (here, py)
        if py is not None:
            grouped.setdefault(py, []).append(here)
    lines = [LineProfile(n, source[n - 1].strip() if 0 < n <= len(source) else "", max(v), v[-1], len(v))
             for n, v in sorted(grouped.items())]
    peak_line = peak[1]
    return Pressure(compiled.resources.registers, peak[0], peak_line,
                    source[peak_line - 1].strip() if peak_line and 0 < peak_line <= len(source) else "",
                    lines, by_address, "nvdisasm --print-life-ranges" + (
                        ", on a copy whose register-count record says 254 (nvdisasm refuses 255; the code names no "
                        "R254)" if text.startswith(PATCHED) else ""))


def _life_ranges(compiled) -> tuple[str | None, str]:
    """nvdisasm's SASS with the life-range columns, kept beside the cubin, and what nvdisasm said; the text is
    None when it printed none. Asked once per Compiled: a refusal is not kept on disk (TRITON_NVDISASM_PATH may
    name another nvdisasm next time), so it would otherwise run nvdisasm again."""
    if "life_ranges" in compiled._derived:
        return compiled._derived["life_ranges"]
    nvdisasm = tool("nvdisasm")
    # keyed on the tool too: another nvdisasm (TRITON_NVDISASM_PATH) may read what this one cannot
    cached = compiled.cache_dir() / f"{LIVE_FILE}.{hashlib.sha1(nvdisasm.encode()).hexdigest()[:8]}"
    if cached.exists():
        answer = (cached.read_text(), "")
    else:
        answer = _run(compiled, nvdisasm)
        if answer[0] is not None:
            write_atomically(cached, answer[0])
    compiled._derived["life_ranges"] = answer
    return answer


def _run(compiled, nvdisasm: str) -> tuple[str | None, str]:
    command = [nvdisasm, "-c", "-lrm", "count"]
    binary = compiled.kernel.asm["cubin"]
    done = disasm.run_on_cubin(binary, command)
    prefix = ""
    if "Invalid register count : '255'" in done.stderr and not re.search(r"\bR254\b", disasm.sass(compiled)):
        # The same code, its register-count record saying 254: nvdisasm's dataflow reads the instructions, and
        # none of them names R254, so the count it refused bounds nothing the code uses.
        done = disasm.run_on_cubin(cubin.with_register_count(binary, 254), command)
        prefix = PATCHED + "\n"
    if done.returncode != 0 or "GPR" not in done.stdout:
        return None, done.stderr
    return prefix + done.stdout, done.stderr


PATCHED = ("// playground: read from a copy whose EIATTR_REGCOUNT record says 254: nvdisasm refuses 255, and the code "
           "names no R254")
