"""SASS from the cubin, through the disassembler that ships inside the triton wheel.

nvdisasm takes about half a second on a GEMM, so the result is kept in Triton's cache
directory beside the cubin it came from; a cache hit never runs the tool again.
"""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

from .. import compat
from ..files import write_atomically
from ..tools import tool
from . import cubin

# With nvdisasm's line info: `//## File "kernel.py", line N [inlined at ...]` from .debug_line and
# `//## File ".nv_debug_ptx_txt", line M` (the PTX line) from .nv_debug_line_sass.
SASS_FILE = "playground-v2.sass"


RES_USAGE_FILE = "playground-res-usage.txt"
# Without line info or nvdisasm's dataflow pass (-ndf): for counting instructions, not for reading.
COUNTED_FILE = "playground-counted.sass"


def sass_with_line_info(compiled) -> str:
    return _cached(compiled, SASS_FILE, [tool("nvdisasm"), "-c", "--print-line-info-inline", "--print-line-info-ptx"])


def _cached(compiled, name: str, command: list[str]) -> str:
    """A tool's output on the cubin, kept beside it in Triton's cache: a warm run starts no process."""
    cached = compiled.cache_dir() / name
    if cached.exists():
        return cached.read_text()
    text = _run_on_cubin(compiled.kernel.asm["cubin"], command)
    write_atomically(cached, text)   # concurrent compiles share the cache
    return text


def sass(compiled) -> str:
    """SASS as a reader wants it: instructions and labels, without the line-info comments."""
    return "\n".join(line for line in sass_with_line_info(compiled).splitlines()
                     if not line.lstrip().startswith("//##")) + "\n"


def instructions(compiled) -> str:
    """The SASS instructions, for counting them (the performance model, a sweep's rows): the reader's SASS when
    it is already kept, else the counted SASS (`keep_counted`). Both list the same instructions in the same
    order (tests/test_resources.py); a branch in the counted SASS names its target by address, in the reader's
    by label."""
    if (compiled.cache_dir() / SASS_FILE).exists():
        return sass(compiled)
    keep_counted([compiled])
    return (compiled.cache_dir() / COUNTED_FILE).read_text()


def keep_counted(compileds) -> None:
    """Keep the counted SASS of every NVIDIA binary in `compileds` that has none yet, reading them all in one
    nvdisasm run per architecture.

    nvdisasm spends about 0.3 s starting, whatever it reads, and then reads a GEMM's 13 KB of code in about
    0.02 s (measured with Triton 3.9's nvdisasm; benchmarks/sweep_parallel.py shows what it saves a sweep). So
    the code sections are laid end to end and disassembled raw (`-b`, no ELF), without the dataflow pass
    (-ndf), which takes a third less time and only adds labels no count reads; each binary's lines are then
    given back their own addresses. A binary raw reading cannot serve (more than one function, code patched
    at load time, an architecture `-b` does not name) is read whole, on its own."""
    pending = [c for c in compileds if c.target.is_nvidia and not (c.cache_dir() / COUNTED_FILE).exists()
               and not (c.cache_dir() / SASS_FILE).exists()]
    by_arch: dict[str, list] = {}
    alone = []
    for c in pending:
        code = cubin.code_sections(c.kernel.asm["cubin"])
        if len(code) == 1 and not cubin.code_is_relocated(c.kernel.asm["cubin"]):
            by_arch.setdefault(_raw_arch(c), []).append((c, *code.items()))
        else:
            alone.append(c)
    for arch, batch in by_arch.items():
        try:
            texts = _disassemble_raw(arch, [(name, code) for _, (name, code) in batch])
        except RuntimeError:          # an architecture nvdisasm's -b does not take
            alone += [c for c, _ in batch]
            continue
        for (c, _), text in zip(batch, texts):
            write_atomically(c.cache_dir() / COUNTED_FILE, text)
    for c in alone:
        _cached(c, COUNTED_FILE, [tool("nvdisasm"), "-c", "-ndf"])


def _raw_arch(compiled) -> str:
    """nvdisasm's name for the binary's architecture (`SM90a`), from the one Triton compiled it for."""
    return "SM" + compat.reach("sm_arch_from_capability")(compiled.kernel.metadata.target.arch).removeprefix("sm_")


_ADDRESS = re.compile(r"^(\s*/\*)([0-9a-f]+)(\*/)")
_FUNCTION = re.compile(r"^\.text\.(\S+):")


def addresses(lines) -> list[tuple[str | None, int | None]]:
    """Each line of an nvdisasm listing as (its function, its instruction's address), the address None for a line
    that is not an instruction: what joins a listing to the cubin's code and to nvdisasm's other printouts."""
    out, function = [], None
    for line in lines:
        if m := _FUNCTION.match(line.strip()):
            function = m.group(1)
        m = _ADDRESS.match(line)
        out.append((function, int(m.group(2), 16) if m else None))
    return out
# The instructions whose operand is a code address: nvdisasm names it by label in a whole binary and prints
# it as an address (from where the code starts) in raw code. BRA, BRA.U, BSSY(.RECONVERGENT), CALL.REL.NOINC
# and RET.REL.NODEC are the ones the shipped kernels use on sm_80, sm_90, sm_100 and sm_120.
_CODE_TARGET = re.compile(r"(\b(?:BRA|BSSY|CALL\.REL|RET\.REL)\b[^;]*?)0x([0-9a-f]+)")


def _disassemble_raw(arch: str, code: list[tuple[str, bytes]]) -> list[str]:
    """Each function's SASS, from one raw nvdisasm run over their code laid end to end, its addresses (and the
    targets of its branches) counted from the start of its own code."""
    starts, at = [], 0
    for _, data in code:
        starts.append(at)
        at += len(data)
    with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
        f.write(b"".join(data for _, data in code))
    try:
        done = subprocess.run([tool("nvdisasm"), "-ndf", "-b", arch, f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if done.returncode != 0:
        raise RuntimeError(f"nvdisasm -b {arch} failed: {done.stderr.strip()}")
    out = [[f"// {name}: nvdisasm -ndf -b {arch}, raw code; addresses, a branch's target too, from its start\n"]
           for name, _ in code]
    which = 0
    for line in done.stdout.splitlines():
        address = _ADDRESS.match(line)
        if not address:
            continue                  # the raw listing's header: no instruction
        where = int(address.group(2), 16)
        while which + 1 < len(starts) and where >= starts[which + 1]:
            which += 1
        base = starts[which]
        line = f"{address.group(1)}{where - base:04x}{address.group(3)}{line[address.end():]}"
        line = _CODE_TARGET.sub(lambda m: f"{m.group(1)}0x{int(m.group(2), 16) - base:x}", line)
        out[which].append(line + "\n")
    return ["".join(lines) for lines in out]


def run_on_cubin(cubin: bytes, command: list[str]) -> subprocess.CompletedProcess:
    """A tool run on the cubin, written to a temporary file for it; its exit code and output, whatever they are."""
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(cubin)
    try:
        return subprocess.run(command + [f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)


def _run_on_cubin(cubin: bytes, command: list[str]) -> str:
    done = run_on_cubin(cubin, command)
    if done.returncode != 0:
        raise RuntimeError(f"{Path(command[0]).name} failed: {done.stderr.strip()}")
    return done.stdout


def resource_usage_dump(cubin: bytes) -> str:
    """`cuobjdump -res-usage`: registers, stack, shared and local memory, as ptxas recorded them."""
    return _run_on_cubin(cubin, [tool("cuobjdump"), "-res-usage"])


def resource_usage(compiled) -> str:
    """resource_usage_dump of a compiled kernel's cubin, kept in Triton's cache beside it."""
    return _cached(compiled, RES_USAGE_FILE, [tool("cuobjdump"), "-res-usage"])


