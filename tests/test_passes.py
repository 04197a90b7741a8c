"""`compile --passes`: every MLIR pass of Triton's pipeline, its diff, and the pass that introduced a pattern."""
import json
import re

from click.testing import CliRunner

import pytest
from conftest import outcome, run

from playground.cli import main
from playground.artefact import passes
from playground.errors import UserError

pytestmark = pytest.mark.compile   # the compile path alone: CI runs it on the oldest Triton too


@pytest.fixture(scope="module")
def gemm_log(gemm_sm90):
    return passes.log(gemm_sm90)


def test_the_pass_list_is_triton_pipeline_in_order(gemm_log):
    names = [p.argument for p in gemm_log.passes]
    # make_ttir starts with the inliner; TTGIR begins with the conversion; LLVM dialect comes last
    assert names[0] == "inline" and gemm_log.passes[0].pipeline == "make_ttir"
    assert names.index("convert-triton-to-tritongpu") < names.index("tritongpu-accelerate-matmul") \
        < names.index("tritongpu-pipeline") < names.index("convert-triton-gpu-to-llvm")
    assert [p.number for p in gemm_log.passes] == list(range(1, len(names) + 1))
    assert {p.pipeline for p in gemm_log.passes} == {"make_ttir", "make_ttgir", "make_llir"}
    # each pass's output is the next one's input within a pipeline: one chain of module texts
    for before, after in zip(gemm_log.passes, gemm_log.passes[1:]):
        if before.pipeline == after.pipeline:
            assert before.after == after.before


def test_the_last_ttgir_pass_leaves_what_the_ttgir_stage_shows(gemm_sm90, gemm_log):
    from playground.artefact.normalise import normalise
    last = [p for p in gemm_log.passes if p.pipeline == "make_ttgir"][-1]
    assert last.after == normalise(gemm_sm90.stage("ttgir"), "ttgir")


def test_find_names_accelerate_matmul_for_wgmma_and_the_pipeliner_for_async_copies(gemm_log):
    wgmma = gemm_log.find(r"ttng\.warp_group_dot")
    assert wgmma["argument"] == "tritongpu-accelerate-matmul"
    assert any("ttng.warp_group_dot" in line for line in wgmma["lines"])
    assert gemm_log.find("async_copy_global_to_local")["argument"] == "tritongpu-pipeline"
    # tt.dot is in the frontend's IR already; nothing ever makes a "no such op"
    assert gemm_log.find(r"tt\.dot ")["number"] is None and gemm_log.find(r"tt\.dot ")["lines"]
    assert gemm_log.find("no_such_op_anywhere") == {"pattern": "no_such_op_anywhere", "number": None,
                                                   "argument": None, "lines": []}


def test_a_pass_diff_shows_the_dot_becoming_a_warpgroup_dot(gemm_log):
    p = gemm_log.pick("tritongpu-accelerate-matmul")
    diff = p.diff()
    assert diff.startswith("--- before tritongpu-accelerate-matmul\n+++ after tritongpu-accelerate-matmul")
    assert any(line.startswith("-") and "tt.dot" in line for line in diff.splitlines())
    assert any(line.startswith("+") and "ttng.warp_group_dot" in line for line in diff.splitlines())
    assert p.added == sum(1 for l in diff.splitlines() if l.startswith("+") and not l.startswith("+++"))
    assert gemm_log.pick(str(p.number)) is p
    canon = [x for x in gemm_log.passes if x.argument == "canonicalize"]
    assert gemm_log.pick("canonicalize#2") is canon[1]
    with pytest.raises(UserError, match="did you mean tritongpu-pipeline"):
        gemm_log.pick("tritongpu-pipelin")
    with pytest.raises(UserError, match="numbered 1.."):
        gemm_log.pick("9999")


def test_the_cli_lists_finds_and_exits_1_when_no_pass_introduces_it(gemm_log):
    code, out = run("compile", "gemm", "--target", "sm_90", "--passes")
    assert code == 0
    assert out.startswith(f"{len(gemm_log.passes)} MLIR passes for gemm on sm_90")
    assert " tritongpu-accelerate-matmul " in out
    code, out = run("compile", "gemm", "--target", "sm_90", "--passes", "--find", "ttng.warp_group_dot")
    assert code == 0 and "first appears after pass" in out and "tritongpu-accelerate-matmul" in out
    code, out, err = outcome("compile", "gemm", "--target", "sm_90", "--passes", "--find", "no_such_op")
    assert code == 1 and err.strip() == "error: 'no_such_op' appears in no pass's output for gemm on sm_90"
    code, out, err = outcome("compile", "gemm", "--target", "sm_90", "--find", "x")
    assert code == 2 and "add --passes" in err


def test_passes_json_has_the_list_and_the_shown_diff(gemm_log):
    code, out = run("compile", "gemm", "--target", "sm_90", "--passes", "--show-pass", "tritongpu-pipeline", "--json")
    data = json.loads(out)["passes"]
    assert code == 0 and len(data["passes"]) == len(gemm_log.passes)
    assert data["shown"]["number"] == gemm_log.pick("tritongpu-pipeline").number
    assert "async_copy_global_to_local" in data["shown"]["diff"]


def test_parse_files_dumps_under_their_pipeline_and_skips_the_pipeliner_internals():
    from playground.artefact.passes_child import BEGIN, END
    text = "\n".join([
        BEGIN + "make_ttir",
        "// -----// IR Dump Before CSEPass: cse ('builtin.module' operation) //----- //",
        "module {", "  %0 = arith.constant 1 : i32 loc(#loc1)", "}",
        "// -----// IR Dump Before Inliner (inline) ('builtin.module' operation) //----- //",   # Triton 3.6's form
        "module {", "}",
        "// -----// SoftwarePipeliner internal IR Dump After: LowerLoops",
        "module { not a pass }",
        END + "make_ttir",
    ])
    records = passes.parse(text, {"make_ttir": "module {\n}"})
    assert [(r["name"], r["argument"], r["pipeline"]) for r in records] == [
        ("CSEPass", "cse", "make_ttir"), ("Inliner", "inline", "make_ttir")]
    assert records[0]["before"] == "module {\n  %# = arith.constant 1 : i32\n}\n"   # location and number normalised
    assert records[0]["after"] == records[1]["before"] == "module {\n}\n"
    assert records[1]["after"] == "module {\n}\n"       # the pipeline's own final module, not the internal dump


def test_a_cache_hit_from_another_checkout_still_shows_its_passes(tmp_path, monkeypatch):
    """Triton's cache key holds a kernel's source, not its path: the same file in a second checkout hits
    the first one's binary, whose locations name the first directory. --passes compiles afresh in a
    cache of its own, which names the second; the two TTGIRs are the same kernel and must be taken so."""
    from pathlib import Path
    source = (Path(__file__).resolve().parent.parent / "examples" / "my_kernels.py").read_text()
    for checkout in ("first", "second-checkout"):
        (tmp_path / checkout).mkdir()
        (tmp_path / checkout / "mine.py").write_text(source)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    code, out = run("compile", tmp_path / "first" / "mine.py", "--target", "sm_80", "--json")
    assert code == 0 and json.loads(out)["cache_hit"] is False
    code, out = run("compile", tmp_path / "second-checkout" / "mine.py", "--target", "sm_80", "--passes")
    assert code == 0, out
    assert "make_ttgir" in out and "different TTGIR" not in out
    assert passes._without_directories('loc("/a/b/mine.py":12:3) loc("K")') == 'loc("mine.py":12:3) loc("K")'


# ---- time per pass ---------------------------------------------------------------------------------------------
# MLIR's timing report as Triton 3.9 prints it for make_ttir's pass manager (MLIR_ENABLE_TIMING=1), gemm at sm_90
TIMING_REPORT = """\
===-------------------------------------------------------------------------===
                         ... Execution time report ...
===-------------------------------------------------------------------------===
  Total Execution Time: 0.0034 seconds

  ----Wall Time----  ----Name----
    0.0014 ( 41.7%)  InlinerPass
    0.0000 (  1.1%)    (A) CallGraph
    0.0009 ( 25.3%)  'tt.func' Pipeline
    0.0008 ( 25.1%)    CanonicalizerPass
    0.0002 (  5.6%)  CanonicalizerPass
    0.0002 (  4.7%)  TritonCombineOps
    0.0005 ( 16.0%)  TritonReorderBroadcast
    0.0003 (  7.6%)  CSEPass
    0.0000 (  0.0%)    (A) DominanceInfo
    0.0001 (  3.6%)  SymbolDCEPass
    0.0001 (  4.0%)  TritonLoopUnroll
   -0.0003 ( -8.6%)  Rest
    0.0034 (100.0%)  Total
"""


def test_the_timing_report_is_read_pass_by_pass_under_its_pipeline():
    from playground.artefact import passes_child
    text = f"{passes_child.BEGIN}make_ttir\n{TIMING_REPORT}{passes_child.END}make_ttir\n"
    rows = passes.parse_timing(text)
    assert rows == [["make_ttir", "InlinerPass", 0.0014], ["make_ttir", "CanonicalizerPass", 0.0008],
                    ["make_ttir", "CanonicalizerPass", 0.0002], ["make_ttir", "TritonCombineOps", 0.0002],
                    ["make_ttir", "TritonReorderBroadcast", 0.0005], ["make_ttir", "CSEPass", 0.0003],
                    ["make_ttir", "SymbolDCEPass", 0.0001], ["make_ttir", "TritonLoopUnroll", 0.0001]]
    # the dump prints the inliner's canonicalisation once per run; the report has one row for them all
    dumped = [{"pipeline": "make_ttir", "name": n} for n in
              ["InlinerPass"] + ["CanonicalizerPass"] * 6 + ["TritonCombineOps", "TritonReorderBroadcast", "CSEPass",
                                                            "SymbolDCEPass", "TritonLoopUnroll"]]
    passes.attach_times(dumped, rows)
    times = [r.get("seconds") for r in dumped]
    assert times[0] == 0.0014 and times[-5:] == [0.0002, 0.0005, 0.0003, 0.0001, 0.0001]
    assert sorted(t for t in times[1:7] if t is not None) == [0.0002, 0.0008] and times[1:7].count(None) == 4


def test_a_real_log_times_its_passes_and_its_stages(gemm_log):
    assert list(gemm_log.stage_seconds) == ["source", "ttir", "ttgir", "llir", "ptx", "cubin", "store"]
    assert all(s >= 0 for s in gemm_log.stage_seconds.values()) and gemm_log.stage_seconds["cubin"] > 0
    timed = [p for p in gemm_log.passes if p.seconds is not None]
    assert len(timed) >= 0.8 * len(gemm_log.passes)
    names = {p.name for p in gemm_log.passes}
    assert {name for _, name, _ in gemm_log.timings} <= names
    slowest = gemm_log.slowest()
    assert [row[3] for row in slowest] == sorted((row[3] for row in slowest), reverse=True)
    # the MLIR passes of a pipeline run inside its stage: they cannot take longer than it
    mlir = sum(s for p, _, s in gemm_log.timings if p == "make_ttgir")
    assert 0 < mlir <= gemm_log.stage_seconds["ttgir"] * 1.05


def test_the_cli_shows_wall_times_and_sorts_by_them(gemm_log):
    runner = CliRunner()
    listed = runner.invoke(main, ["compile", "gemm", "-t", "sm_90", "--passes"])
    assert listed.exit_code == 0, listed.output
    assert "wall ms" in listed.output and "measured on this machine" in listed.output
    assert re.search(r"^\s+cubin\s+[\d.]+\s+ptxas", listed.output, re.M)
    by_time = runner.invoke(main, ["compile", "gemm", "-t", "sm_90", "--passes", "--by-time"])
    times = [float(m) for m in re.findall(r"^\s*([\d.]+)\s+make_\w+\s+\S+\s+\d+$", by_time.output, re.M)]
    assert len(times) > 20 and times == sorted(times, reverse=True)
    refused = runner.invoke(main, ["compile", "gemm", "-t", "sm_90", "--by-time"])
    assert refused.exit_code == 2 and "add --passes" in refused.output
