"""A Gluon kernel (@gluon.jit) through the commands: every stage it has (TTGIR onwards), the figures read from
its binary, and one line where a stage or the interpreter is not there for it."""
import json
from pathlib import Path

import pytest
from conftest import invoke

from playground.artefact.request import Request

pytestmark = pytest.mark.compile

GLUON = Path(__file__).resolve().parent / "data" / "gluon_copy.py"
REF = f"{GLUON}:copy_kernel"
ARGS = "in_ptr=fp32[4096], out_ptr=fp32[4096], n=4096, XBLOCK=128, grid=32"


def test_a_gluon_kernel_compiles_through_its_own_source_to_every_stage_from_ttgir():
    compiled = Request.of(REF, "sm_90", args=ARGS).compile()
    assert type(compiled.kernel.src).__name__ == "GluonASTSource"       # what Triton's own gluon JIT builds
    ttgir = compiled.stage("ttgir")
    assert "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>" in ttgir
    assert compiled.first_ir == ttgir
    assert ".target sm_90a" in compiled.stage("ptx") and "LDG.E" in compiled.stage("sass")
    assert compiled.resources.registers > 0
    shown = invoke("compile", REF, "--args", ARGS, "-t", "sm_90", "--show", "ttir")
    assert shown.exit_code == 2 and shown.stderr.strip().splitlines() == [
        "error: copy_kernel is a Gluon kernel (@gluon.jit): Triton lowers it straight to TTGIR, with the layouts its "
        "author wrote, so it has no TTIR; its stages start at ttgir"]


def test_grid_occupancy_inspect_and_diff_read_a_gluon_binary():
    grid = invoke("grid", REF, "--args", ARGS, "-t", "sm_90", "--json")
    assert grid.exit_code == 0 and json.loads(grid.stdout)["ctas"] == 32
    occupancy = invoke("occupancy", REF, "--args", ARGS, "-t", "sm_80", "--json")
    assert occupancy.exit_code == 0 and json.loads(occupancy.stdout)["warps_per_block"] == 4
    inspected = invoke("inspect", REF, "--args", ARGS, "-t", "sm_90", "--json")
    assert inspected.exit_code == 0, inspected.stderr
    assert json.loads(inspected.stdout)["mix"]["global_load"] == 1
    diff = invoke("diff", REF, "--args", ARGS, "--a", "target=sm_80", "--b", "target=sm_90", "--show", "ttgir")
    assert diff.exit_code == 0, diff.stderr
    assert '-module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80"' in \
        diff.stdout


LAYOUTS = Path(__file__).resolve().parent / "data" / "gluon_layouts.py"


def test_a_layout_constexpr_is_written_in_args_as_its_constructor_is_called():
    """Triton's Gluon tutorials pass the layout to the kernel: `--args` takes it as written in Python, and each
    layout is its own binary."""
    ref = f"{LAYOUTS}:copy_in_layout"
    wide = "in_ptr=fp32[8192], out_ptr=fp32[8192], n=8192, XBLOCK=512, layout=gl.BlockedLayout([4], [32], [4], [0]), grid=16"
    compiled = Request.of(ref, "sm_90", args=wide).compile()
    assert "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>" in \
        compiled.stage("ttgir")
    narrow = Request.of(ref, "sm_90", args=wide.replace("[4], [32]", "[1], [32]")).compile()
    assert "sizePerThread = [1]" in narrow.stage("ttgir") and narrow.hash != compiled.hash
    refused = invoke("compile", ref, "--args", wide.replace("gl.BlockedLayout", "gl.MadeUpLayout"), "-t", "sm_90")
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "MadeUpLayout is not one of Gluon's layouts (" in refused.stderr and "BlockedLayout" in refused.stderr
    listed = invoke("compile", ref, "--args", wide.replace("[4], [32], [4], [0]", "[4], [32], [4], order={0}"),
                    "-t", "sm_90")
    assert listed.exit_code == 2 and "only layouts, numbers, strings, lists and tuples" in listed.stderr
    code = invoke("compile", ref, "--args", wide.replace("gl.BlockedLayout([4], [32], [4], [0])",
                                                         "gl.BlockedLayout(__import__('os').getcwd())"), "-t", "sm_90")
    assert code.exit_code == 2 and code.stderr.startswith("error: --args layout=gl.BlockedLayout(__import__('os')"
                                                          ".getcwd()): getcwd is not one of Gluon's layouts")
