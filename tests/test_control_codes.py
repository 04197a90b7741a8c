"""SASS control codes: decoded from the encodings, checked against hand decoding and against what nvdisasm prints.

The layout is published for Volta and Turing only (playground/artefact/control_codes.py names the sources); for
the later targets these tests are what holds it: on every NVIDIA target the playground compiles, the reuse flags
agree with nvdisasm's own `.reuse` marks, every scoreboard waited on is one an instruction sets, and every
variable-latency load into a register sets a write scoreboard.
"""
import re

import pytest
from click.testing import CliRunner

from playground.cli import main
from playground.artefact import control_codes, disasm, schedule
from playground.artefact.request import Request
from playground.tools import tool

pytestmark = pytest.mark.compile

NVIDIA = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120")


# ---- hand decoding: the upper word of real encodings (nvdisasm -hex's second word), bit by bit -----------------
# field = word >> 41 (bit 105 of the instruction); from its low end: stall[0:4] yield[4] write[5:8] read[8:11]
# wait[11:17] reuse[17:21]
HAND_DECODED = [
    # sm_80 MOV R1, c[0x0][0x28]: field 0x7f2 = 111 111 1 0010 -> stall 2, yield bit set (no yield), no scoreboards
    (0x000FE40000000F00, dict(stall=2, yields=False, write_barrier=None, read_barrier=None, waits=(), reuse="")),
    # sm_80 IADD3 R3, R7.reuse, ...: field 0x207f1: reuse bit 17 (slot a), stall 1
    (0x040FE20007FFE0FF, dict(stall=1, yields=False, write_barrier=None, read_barrier=None, waits=(), reuse="a")),
    # sm_80 S2R R5, SR_CTAID.X: field 0x731 = 111 001 1 0001 -> write scoreboard 1
    (0x000E620000002500, dict(stall=1, yields=False, write_barrier=1, read_barrier=None, waits=(), reuse="")),
    # sm_90 LDGSTS.E.BYPASS.128: field 0x1f1 = 001 111 1 0001 -> read scoreboard 1 (its sources), no write one
    (0x0003E20009901C4E, dict(stall=1, yields=False, write_barrier=None, read_barrier=1, waits=(), reuse="")),
    # sm_90 CS2R R42, SRZ: field 0x7e2: yield bit clear -> yields
    (0x000FC4000001FF00, dict(stall=2, yields=True, write_barrier=None, read_barrier=None, waits=(), reuse="")),
    # sm_90 VIADD R0, R3, 0x7f: field 0x17f1: wait bit 12 -> waits on SB1 (set by the LDC.64 that loaded R2, R3)
    (0x002FE20000000000, dict(stall=1, yields=False, write_barrier=None, read_barrier=None, waits=(1,), reuse="")),
    # sm_100 ISETP.GE.U32.AND P0, PT, R5, 0x20, PT: field 0x17ed -> stall 13, yields, waits on SB1
    (0x002FDA0003F06070, dict(stall=13, yields=True, write_barrier=None, read_barrier=None, waits=(1,), reuse="")),
    # sm_120 LOP3.LUT R140, R16.reuse, ...: field 0x287f2 -> waits on SB4, reuses slot a
    (0x050FE400078EC0FF, dict(stall=2, yields=False, write_barrier=None, read_barrier=None, waits=(4,), reuse="a")),
    # sm_89 IMAD.SHL.U32 R156, R150.reuse, 0x10, RZ: field 0x227f1 -> waits on SB2, reuses slot a
    (0x044FE200078E00FF, dict(stall=1, yields=False, write_barrier=None, read_barrier=None, waits=(2,), reuse="a")),
]


@pytest.mark.parametrize("word, expected", HAND_DECODED, ids=[hex(w) for w, _ in HAND_DECODED])
def test_control_codes_decode_as_decoded_by_hand(word, expected):
    control = control_codes.decode(word)
    got = control.as_dict()
    assert {k: got["yield" if k == "yields" else k] for k in expected if k != "waits"} == \
        {k: v for k, v in expected.items() if k != "waits"}
    assert control.waits == expected["waits"]
    assert control.raw == word >> 41


def test_the_text_form_spells_every_field():
    assert control_codes.decode(0x050FE400078EC0FF).text() == "S02 - W- R- B----4- a---"
    assert control_codes.decode(0x000E620000002500).text() == "S01 - W1 R- B------ ----"
    assert control_codes.decode(0x000FC4000001FF00).text() == "S02 Y W- R- B------ ----"


# ---- the binaries ----------------------------------------------------------------------------------------------
KERNELS = ("gemm", "softmax", "flash_attention")


@pytest.fixture(scope="module")
def binaries():
    return {(k, t): Request.of(k, t).compile() for k in KERNELS for t in NVIDIA}


def _hex_words(compiled) -> dict[int, tuple[int, int]]:
    """nvdisasm -hex's encoding of each instruction: its two 64-bit words, by address."""
    out = disasm.run_on_cubin(compiled.kernel.asm["cubin"], [tool("nvdisasm"), "-c", "-hex"]).stdout
    words, lines = {}, out.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/.*/\* (0x[0-9a-f]{16}) \*/\s*$", line)
        if m:
            high = re.search(r"/\* (0x[0-9a-f]{16}) \*/", lines[i + 1])
            words[int(m.group(1), 16)] = (int(m.group(2), 16), int(high.group(1), 16))
    return words


@pytest.mark.parametrize("target", NVIDIA)
def test_the_encodings_read_from_the_cubin_are_nvdisasms(binaries, target):
    c = binaries[("gemm", target)]
    (code,) = control_codes.encodings(c.kernel.asm["cubin"]).values()
    shown = _hex_words(c)
    assert len(shown) == len(code) > 100
    assert all(code[address // 16] == words for address, words in shown.items())


def _instructions(c):
    sass = disasm.sass(c)
    return [(line, control) for line, control in zip(sass.splitlines(), control_codes.by_line(c.kernel.asm["cubin"], sass))
            if control is not None]


@pytest.mark.parametrize("target", NVIDIA)
@pytest.mark.parametrize("kernel", KERNELS)
def test_the_reuse_flags_agree_with_nvdisasms_reuse_marks(binaries, kernel, target):
    instructions = _instructions(binaries[(kernel, target)])
    assert instructions
    disagree = [line.strip() for line, control in instructions
                if sum(control.reuse) != control_codes.reuse_from_text(line)]
    assert not disagree
    if kernel == "gemm":     # the tensor-core loop reuses operands: a layout off by a bit would read none
        assert sum(any(control.reuse) for _, control in instructions) >= 4


@pytest.mark.parametrize("target", NVIDIA)
@pytest.mark.parametrize("kernel", KERNELS)
def test_scoreboards_are_set_by_variable_latency_instructions_alone(binaries, kernel, target):
    """Every scoreboard waited on is one some instruction sets; the loads set write scoreboards (not every one:
    ptxas leaves it off a shared load whose result a later load's scoreboard covers), and no fixed-latency
    arithmetic instruction ever sets one."""
    instructions = _instructions(binaries[(kernel, target)])
    set_ = {b for _, c in instructions for b in (c.write_barrier, c.read_barrier) if b is not None}
    waited = {b for _, c in instructions for b in c.waits}
    assert waited and waited <= set_
    loads = [c for line, c in instructions if re.search(r"\b(LDG|LDS|LDSM|S2R)\b[.A-Z0-9]*\s+R(?!Z)\d+", line)]
    assert loads and any(c.write_barrier is not None for c in loads)
    fixed = [line.strip() for line, c in instructions if c.write_barrier is not None
             and re.search(r"\*/\s+(?:@!?P\w+\s+)?(IADD3|IMAD|FFMA|FADD|FMUL|MOV|LOP3|SHF|ISETP|SEL|LEA)\b", line)]
    assert not fixed
    # and nothing but an unused bit pattern: stall counts fit, barrier indices are 0-5 or none
    assert all(c.raw >> 21 == 0 for _, c in instructions)


def test_annotate_puts_a_column_on_every_instruction_and_leaves_the_rest(binaries):
    c = binaries[("gemm", "sm_90")]
    sass = disasm.sass(c)
    annotated = control_codes.annotate(c.kernel.asm["cubin"], sass).splitlines()
    assert annotated[0] == f"// {control_codes.COLUMNS}"
    column = re.compile(r"^\s*/\*[0-9a-f]{4}\*/  \[S\d\d [Y-] W[0-5-] R[0-5-] B[0-5-]{6} [a-][b-][c-][d-]\] ")
    instructions = [line for line in sass.splitlines() if re.match(r"^\s*/\*[0-9a-f]{4,}\*/", line)]
    assert sum(bool(column.match(line)) for line in annotated) == len(instructions)
    assert [re.sub(r"  \[S[^]]*\]", "", line) for line in annotated[1:]] == sass.splitlines()


def test_compile_control_prints_the_column_and_refuses_without_sass():
    runner = CliRunner()
    shown = runner.invoke(main, ["compile", "gemm", "--target", "sm_90", "--show", "sass", "--control", "--no-header"])
    assert shown.exit_code == 0, shown.output
    assert re.search(r"/\*[0-9a-f]{4}\*/  \[S\d\d [Y-] W. R. B.{6} .{4}\]\s+HGMMA", shown.output)
    refused = runner.invoke(main, ["compile", "gemm", "--target", "sm_90", "--show", "ptx", "--control"])
    assert refused.exit_code == 2 and "--show sass" in refused.output
    amd = runner.invoke(main, ["compile", "gemm", "--target", "gfx942", "--show", "amdgcn", "--control"])
    assert amd.exit_code == 2 and "s_waitcnt" in amd.output


# ---- the main loop -------------------------------------------------------------------------------------------
def test_the_gemm_main_loop_holds_its_mma_and_its_stalls(binaries):
    c = binaries[("gemm", "sm_90")]
    loop = schedule.main_loop(c)
    body = [(line, control) for line, control in _instructions(c)
            if loop.start <= int(re.match(r"\s*/\*([0-9a-f]+)", line).group(1), 16) <= loop.end]
    assert loop.instructions == len(body)
    assert sum("HGMMA" in line for line, _ in body) == 4           # the kernel's four wgmma, all in the K loop
    assert loop.stall_cycles == sum(control.stall for _, control in body) > loop.instructions // 2
    assert re.search(r"\bBRA\b", body[-1][0])                         # it ends on the branch back
    assert [s.stall for s in loop.longest] == sorted((s.stall for s in loop.longest), reverse=True)
    from playground.core import registry
    from playground.artefact import sourcemap
    dot_line = next(n for n, text in enumerate(open(sourcemap.kernel_lines(registry.load("gemm").kernel)[0]), 1)
                    if "tl.dot(" in text)
    assert dot_line in loop.lines
    async_copies = [sb for sb in loop.scoreboards if any(op.startswith("LDGSTS") for op in sb.set_by)]
    assert async_copies and all(sb.waited_by for sb in async_copies)


def test_a_kernel_without_a_loop_has_no_main_loop(binaries):
    """vector_add's SASS ends with EXIT and a branch to itself: that is not a loop."""
    c = Request.of("vector_add", "sm_90").compile()
    assert re.search(r"BRA `\(\.L_x_\d+\)", disasm.sass(c))
    assert schedule.main_loop(c) is None
