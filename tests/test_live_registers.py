"""Register pressure by Python line, from nvdisasm's life ranges, on kernels whose pressure is known.

A GEMM's fp32 accumulator is BLOCK_M x BLOCK_N values spread over the block's threads, live for the whole K
loop: at 128x256 with 8 warps that is 128 registers a thread, at 64x64 16. The profile must see the big tile's
accumulator, see it shrink with the tile, and never exceed what ptxas allocated.
"""
import re
import subprocess

import pytest
from click.testing import CliRunner

from playground.cli import main
from playground.artefact import live_registers
from playground.artefact.request import Request
from playground.tools import tool

pytestmark = pytest.mark.compile


def gemm(target, m, n, warps=8):
    return Request.of("gemm", target, meta={"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n}, num_warps=warps).compile()


def _dot_line(c) -> int:
    from playground.artefact import sourcemap
    file, first, last = sourcemap.kernel_lines(c.spec.kernel)
    return next(n for n, text in enumerate(open(file), 1) if first <= n <= last and "tl.dot(" in text)


@pytest.fixture(scope="module")
def tiles():
    made = {size: gemm("sm_90", *size) for size in ((128, 256), (64, 64))}
    if _old_elf_unreadable(made[(128, 256)]):
        pytest.skip("this Triton's ptxas writes sm_90 in the older ELF layout (Triton 3.8): the sm_80 test covers it")
    return made


def test_the_accumulator_dominates_the_big_tile_and_shrinks_with_it(tiles):
    big, small = (live_registers.pressure(tiles[s]) for s in ((128, 256), (64, 64)))
    accumulator = {s: s[0] * s[1] // 256 for s in tiles}          # fp32 values per thread, 8 warps
    assert accumulator[(128, 256)] <= big.peak <= big.allocated
    assert accumulator[(64, 64)] <= small.peak <= small.allocated
    assert big.peak - small.peak >= accumulator[(128, 256)] - accumulator[(64, 64)] - 16
    dot = _dot_line(tiles[(128, 256)])
    at_dot = next(p for p in big.lines if p.line == dot)
    assert at_dot.peak >= accumulator[(128, 256)]
    assert big.heaviest()[0].peak == big.peak and len(big.heaviest()) == 5
    assert all(p.last <= p.peak for p in big.lines)


def test_the_peak_is_nvdisasms_own_column(tiles):
    c = tiles[(128, 256)]
    from playground.artefact import disasm
    out = disasm.run_on_cubin(c.kernel.asm["cubin"], [tool("nvdisasm"), "-c", "-lrm", "count"]).stdout
    column = [int(m.group(1)) for m in re.finditer(r"\*/.*// \|\s+(\d+)\s+\|", out)]
    assert max(column) == live_registers.pressure(c).peak


def _old_elf_unreadable(c) -> bool:
    """nvdisasm 13's dataflow pass skips the older ELF layout (ABI version 7: Triton 3.9's ptxas for sm_80-sm_89,
    3.8's for sm_90 too); 12.x's reads it."""
    version = subprocess.run([tool("nvdisasm"), "--version"], capture_output=True, text=True).stdout
    return bool(re.search(r"release 1[3-9]\.", version)) and live_registers.elf_abi_version(c.kernel.asm["cubin"]) < 8


@pytest.mark.stack     # the line must be right on the Triton each torch pins (3.8 writes sm_90 in the old layout)
def test_sm80_says_why_or_gives_the_profile():
    c = gemm("sm_80", 128, 128)
    assert live_registers.elf_abi_version(c.kernel.asm["cubin"]) in (7, 8)
    if _old_elf_unreadable(c):
        assert live_registers.pressure(c) is None
        said = live_registers.unavailable(c)
        assert "sm_80's binary: nvdisasm 13." in said and "(ELF ABI version 7)" in said and "TRITON_NVDISASM_PATH" in said
    else:
        p = live_registers.pressure(c)
        assert 64 <= p.peak <= p.allocated


def test_amd_says_it_is_not_available():
    c = Request.of("softmax", "gfx942").compile()
    assert "not available on AMD" in live_registers.unavailable(c)


@pytest.mark.stack
def test_the_header_interleave_and_inspect_show_it():
    if _old_elf_unreadable(gemm("sm_90", 128, 128)):
        pytest.skip("this Triton's ptxas writes sm_90 in the older ELF layout (Triton 3.8): the sm_80 test covers it")
    runner = CliRunner()
    header = runner.invoke(main, ["compile", "gemm", "--target", "sm_90", "--expect", "registers > 0"])
    assert header.exit_code == 0, header.output
    m = re.search(r"// live regs   peak (\d+) of the (\d+) allocated, at lines? ([\d, ]+)", header.output)
    assert m and int(m.group(1)) <= int(m.group(2))
    interleaved = runner.invoke(main, ["compile", "gemm", "--target", "sm_90", "--show", "sass", "--interleave", "--no-header"])
    dot = re.search(r"^\s*(\d+)\s+accumulator = tl\.dot.*# live registers: peak (\d+), (\d+) at its last instruction$",
                    interleaved.output, re.M)
    assert dot and int(dot.group(3)) <= int(dot.group(2)) <= int(m.group(1))
    inspected = runner.invoke(main, ["inspect", "gemm", "--target", "sm_90"])
    assert inspected.exit_code == 0, inspected.output
    rows = re.findall(r"^\s+line\s+\d+: peak\s+\d+,\s+\d+ at its last instruction", inspected.output, re.M)
    assert len(rows) == 5
    assert re.search(r"^main loop .* stall cycles an iteration", inspected.output, re.M)
    amd = runner.invoke(main, ["inspect", "softmax", "--target", "gfx942"])
    assert "registers   not available on AMD" in amd.output


def test_a_binary_using_all_255_registers_is_read_from_a_copy_that_says_254():
    """nvdisasm refuses a function whose register count is 255 (a spilling one, as a rule). The copy changes the
    count record and nothing else, and the code names no R254; the profile says it was read that way."""
    from playground.artefact import cubin, disasm
    spilling = Request.of("softmax", "sm_90", shape={"M": 64, "N": 8192}, num_warps=1).compile()
    original = spilling.kernel.asm["cubin"]
    copy = cubin.with_register_count(original, 254)
    assert len(copy) == len(original) and sum(a != b for a, b in zip(copy, original)) == 1    # 255 -> 254, one byte
    assert cubin.code_sections(copy) == cubin.code_sections(original)
    assert spilling.resources.registers == 255 and spilling.resources.spills
    assert not re.search(r"\bR254\b", disasm.sass(spilling))
    if _old_elf_unreadable(spilling):
        assert "(ELF ABI version 7)" in live_registers.unavailable(spilling)
        pytest.skip("this Triton's ptxas writes sm_90 in the older ELF layout (Triton 3.8): no profile to read")
    p = live_registers.pressure(spilling)
    assert p is not None and p.from_copy and "on a copy" in p.source
    row_share = 8192 // 32                       # fp32 values of the row per thread, more than fit
    spread = live_registers.pressure(Request.of("softmax", "sm_90", shape={"M": 64, "N": 8192}, num_warps=8).compile())
    assert 200 <= p.peak <= 255 < row_share and spread.peak < p.peak // 4 and not spread.from_copy
