"""`diff`: two variants of a kernel, their figures side by side, and a diff of one stage."""
import json
import re

import pytest
from conftest import run

from playground.artefact.normalise import normalise
from playground.compare import diff
from playground.compare import text as compare_text
from playground.artefact.request import Request
from playground.errors import UserError

pytestmark = pytest.mark.compile   # the compile path alone: CI runs it on the oldest Triton too

_cache = {}


def compare(a, b, stage, target=None, raw=False):
    key = (a, b, stage, target, raw)
    if key not in _cache:
        _cache[key] = diff.compare(Request.of("gemm", target), a, b, stage, raw=raw)
    return _cache[key]


def removed(cmp):
    return [line[1:] for line in cmp.diff if line.startswith("-") and not line.startswith("---")]


def added(cmp):
    return [line[1:] for line in cmp.diff if line.startswith("+") and not line.startswith("+++")]


def test_sm80_vs_sm90_sass_shows_the_mma_change():
    cmp = compare("target=sm_80", "target=sm_90", "sass")
    # Ampere's warp-level HMMA goes, Hopper's warpgroup HGMMA comes.
    assert any(re.search(r"\bHMMA\.", line) for line in removed(cmp))
    assert any(re.search(r"\bHGMMA\.", line) for line in added(cmp))
    assert not any(re.search(r"\bHMMA\.", line) for line in added(cmp))
    assert cmp.normalised and not any("/*0" in line for line in cmp.diff)


def test_sm80_vs_sm90_ptx_shows_the_mma_change():
    cmp = compare("target=sm_80", "target=sm_90", "ptx")
    assert any("mma.sync.aligned" in line for line in removed(cmp))
    assert any("wgmma.mma_async" in line for line in added(cmp))
    assert not any("wgmma" in line for line in removed(cmp))


def test_figures_are_the_artefacts_and_the_deltas_say_what_changed():
    cmp = compare("target=sm_80", "target=sm_90", "sass")
    a, b = cmp.a.compiled, cmp.b.compiled
    assert (a.target.name, b.target.name) == ("sm_80", "sm_90")
    assert cmp.a.figures["registers"] == a.resources.registers
    assert cmp.b.figures["shared memory"] == b.resources.shared_total
    # Tensor-core instruction counts, counted here straight from each side's SASS.
    hmma = len(re.findall(r"^\s*/\*[0-9a-f]+\*/\s+HMMA\.", a.stage("sass"), re.MULTILINE))
    hgmma = len(re.findall(r"^\s*/\*[0-9a-f]+\*/\s+HGMMA\.", b.stage("sass"), re.MULTILINE))
    assert hmma > 0 and hgmma > 0
    assert (cmp.a.figures["mma.sync"], cmp.b.figures.get("mma.sync", 0)) == (hmma, 0)
    assert (cmp.a.figures.get("wgmma", 0), cmp.b.figures["wgmma"]) == (0, hgmma)
    line = compare_text.delta_line(cmp)
    assert f"wgmma 0 → {hgmma}" in line
    assert f"registers {a.resources.registers} → {b.resources.registers}" in line


def test_text_output_deltas_on_top_then_table_then_diff():
    cmp = compare("target=sm_80", "target=sm_90", "sass")
    text = "\n".join(compare_text.lines(cmp, color=False))
    lines = text.splitlines()
    assert lines[0].startswith("a  target=sm_80") and lines[1].startswith("b  target=sm_90")
    assert lines[2].startswith("changed  registers ")
    assert "sass diff, normalised: instruction addresses dropped" in text
    assert text.index("changed") < text.index("registers  ") < text.index("--- a/sass")
    assert "\x1b[" not in text
    assert "\x1b[31m-" in "\n".join(compare_text.lines(cmp, color=True))


def test_num_warps_diff_of_ttgir():
    cmp = compare("num_warps=4", "num_warps=8", "ttgir", target="sm_90")
    assert any("warpsPerCTA = [4, 1]" in line for line in removed(cmp))
    assert any("warpsPerCTA = [8, 1]" in line for line in added(cmp))
    assert any('"ttg.num-warps" = 8' in line for line in added(cmp))
    # Location records would otherwise differ on every line; normalised, none is left.
    assert not any("loc(" in line for line in cmp.diff)


def test_raw_keeps_the_exact_text():
    raw = compare("num_warps=4", "num_warps=8", "sass", target="sm_90", raw=True)
    norm = compare("num_warps=4", "num_warps=8", "sass", target="sm_90")
    assert not raw.normalised and raw.normalisation.startswith("none")
    assert any(re.search(r"/\*[0-9a-f]{4}\*/", line) for line in raw.diff)
    assert len(norm.diff) < len(raw.diff)


@pytest.mark.parametrize("stage,line,expected", [
    ("sass", "        /*0a40*/  @!P1 IMAD.WIDE R24, R3, 0x2, R12 ;", "        @!P# IMAD.WIDE R#, R#, 0x2, R# ;"),
    ("sass", "        /*1530*/  @!P1 BRA `(.L_x_12) ;", "        @!P# BRA `(.L_x_#) ;"),
    ("sass", "        /*0030*/  ULDC UR6, c[0x0][0x234] ;", "        ULDC UR#, c[0x0][0x234] ;"),
    ("ptx", "\tadd.s32 \t%r12, %r3, 127;", "\tadd.s32 \t%r#, %r#, 127;"),
    ("ptx", "\t@%p1 bra \t$L__BB0_3;", "\t@%p# bra \t$L__BB#;"),
    ("ptx", "\t.reg .b32 \t%r<337>;", "\t.reg .b32 \t%r<337>;"),
    ("ttgir", "    %12 = arith.addi %10, %c1_i32 : i32 loc(#loc7)", "    %# = arith.addi %#, %c1_i32 : i32"),
    ("ttgir", "    %cst_3 = arith.constant 0.0 : f32 loc(#loc2)", "    %cst_# = arith.constant 0.0 : f32"),
    ("llir", "  %13 = add i32 %3, 127, !dbg !13", "  %# = add i32 %#, 127, !dbg !#"),
    ("amdgcn", "\tv_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[4:5], a[0:15]",
     "\tv_mfma_f32_32x32x8_f16 a[#], v[#], v[#], a[#]"),
    ("amdgcn", "\ts_cbranch_scc1 .LBB0_3", "\ts_cbranch_scc1 .LBB#"),
])
def test_normalise(stage, line, expected):
    assert normalise(line + "\n", stage).splitlines() == [expected.rstrip()]


def test_normalise_drops_mlir_location_lines():
    text = '#loc = loc("/k.py":18:1)\n#loc12 = loc("a_ptr"(#loc))\nmodule {\n}\n'
    assert normalise(text, "ttir") == "module {\n}\n"


def test_parse_variant():
    base = Request.of("gemm", "sm_90", meta={"GROUP_SIZE_M": 4})
    v, text = diff.parse_variant("target=sm_80,num_warps=8,num_stages=2,BLOCK_SIZE_M=64,M=1000,dtype=bf16", base)
    assert text == "target=sm_80,num_warps=8,num_stages=2,BLOCK_SIZE_M=64,M=1000,dtype=bf16"
    assert (v.target.name, v.config.num_warps, v.config.num_stages, v.config.dtype) == ("sm_80", 8, 2, "bf16")
    assert v.config.meta["GROUP_SIZE_M"] == 4 and v.config.meta["BLOCK_SIZE_M"] == 64
    assert v.config.shape["M"] == 1000
    assert base.config.meta["GROUP_SIZE_M"] == 4 and base.config.meta["BLOCK_SIZE_M"] != 64, "the base is unchanged"


@pytest.mark.parametrize("text,message", [
    ("warps=4", "not one of kernel, target"),
    ("target", "expected NAME=VALUE"),
    ("num_warps=four", "not a number"),
    ("kernel=nope", "unknown kernel"),
])
def test_parse_variant_errors(text, message):
    with pytest.raises(UserError, match=message):
        diff.parse_variant(text, Request.of("gemm", "sm_90"))


def test_two_kernel_files(tmp_path):
    # The same kernel in a second file, with one line changed: the source diff is that line.
    from pathlib import Path
    original = Path(__file__).resolve().parent.parent / "kernels" / "vector_add.py"
    changed = tmp_path / "vector_add_v2.py"
    text = original.read_text()
    line = next(l for l in text.splitlines() if "tl.store(" in l)
    changed.write_text(text.replace(line, line.replace("x + y", "y + x")))
    cmp = diff.compare(Request.of("vector_add", "sm_90"), "", f"kernel={changed}", "source")
    assert removed(cmp) == [line] and added(cmp) == [line.replace("x + y", "y + x")]
    assert cmp.b.compiled.spec.source_path == str(changed)




def test_help():
    code, out = run("diff", "--help")
    assert code == 0 and "--a K=V" in out and "--raw" in out


def test_cli_json():
    code, out = run("diff", "gemm", "--a", "target=sm_80", "--b", "target=sm_90", "--show", "ptx", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["a"]["target"] == "sm_80" and data["b"]["target"] == "sm_90"
    assert data["normalised"] and "wgmma.mma_async" in data["diff"]
    assert {"name": "mma.sync", "a": data["a"]["figures"]["mma.sync"], "b": 0} in data["deltas"]


@pytest.mark.parametrize("args,message", [
    (["--a", "bogus=1", "--b", "target=sm_90"], "bogus: not one of"),
    (["--a", "target=gfx942", "--b", "target=sm_90", "--show", "sass"], "does not exist for gfx942"),
    ([], "say what differs"),
    (["--a", "target=sm_99", "--b", "target=sm_90"], "unknown target"),
])
def test_cli_errors_are_one_line_exit_2(args, message):
    code, out = run("diff", "gemm", *args)
    assert code == 2 and message in out and len(out.strip().splitlines()) == 1
