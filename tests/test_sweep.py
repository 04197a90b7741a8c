"""`sweep`: an autotune space compiled in parallel processes, read, flagged and ranked, crash-safe and cached."""
import json
import time
from pathlib import Path

import pytest
from conftest import invoke

from playground.core import registry, targets
from playground.artefact.request import Request
from playground.core.spec import split_config
from playground.errors import UserError
from playground.sweep import pool, rows, space, triage
from playground.sweep import text as sweep_text

pytestmark = pytest.mark.compile   # the compile path alone: CI runs it on the oldest Triton too

CRASHY = str(Path(__file__).resolve().parent / "data" / "crashy_kernel.py")
SPACE = {"BLOCK_SIZE_M": [64, 128], "num_stages": [2]}      # two gemm configs


@pytest.fixture(scope="module")
def cold_cache(tmp_path_factory):
    """A Triton cache of our own, so the first sweep really compiles (in the workers)."""
    return tmp_path_factory.mktemp("triton-cache")


@pytest.fixture(scope="module")
def first(cold_cache):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TRITON_CACHE_DIR", str(cold_cache))
        return triage.run(registry.load("gemm"), [targets.resolve("sm_80")], SPACE, jobs=2)


@pytest.fixture
def in_cold_cache(cold_cache, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(cold_cache))


def single(kernel, target, config, shape=None):
    spec = registry.load(kernel)
    meta, warps, stages = split_config(config)
    return Request.of(spec, target, meta, warps, stages, shape).compile()


def test_one_row_per_config_with_the_figures_of_a_single_compile(first, in_cold_cache):
    from playground.figures import occupancy
    from playground.model import explain
    assert first.compiled == 2 and first.workers == 2, "a cold sweep compiles in worker processes"
    assert [r["config"] for r in first.rows] == [{"BLOCK_SIZE_M": 64, "num_stages": 2},
                                                 {"BLOCK_SIZE_M": 128, "num_stages": 2}]
    for r in first.rows:
        c = single("gemm", "sm_80", r["config"])
        occ = occupancy.of(c)
        assert r["status"] == "ok" and r["target"] == "sm_80"
        assert r["hash"] == c.hash
        assert (r["num_warps"], r["num_stages"], r["meta"]["BLOCK_SIZE_M"]) == \
            (c.config.num_warps, 2, r["config"]["BLOCK_SIZE_M"])
        assert r["registers"] == c.resources.registers
        assert (r["spill_store_bytes"], r["spill_load_bytes"]) == (c.resources.spill_store_bytes,
                                                                   c.resources.spill_load_bytes)
        assert r["shared_bytes"] == c.resources.shared_total
        assert (r["active_blocks_per_sm"], r["occupancy"], r["launchable"]) == \
            (occ.active_blocks_per_sm, occ.occupancy, occ.launchable)
        e = explain.explain(c)
        assert (r["modelled_seconds"], r["modelled_low"], r["modelled_high"]) == (e.seconds, e.low, e.high)
        assert r["bound"] == explain.NAMES[e.bound]
    # Both launch, so both are ranked, fastest first.
    ranked = sorted(first.rows, key=lambda r: r["modelled_seconds"])
    assert ranked[0]["rank"] == 1 and ranked[1]["rank"] in (1, 2)


def test_a_worker_that_finds_the_binary_in_tritons_cache_counts_it_as_from_the_cache(first, in_cold_cache,
                                                                                      monkeypatch):
    # The parent cannot tell the binary is cached (here: patched to say so), so workers are sent; each one
    # finds the binary in Triton's cache, and the summary must not call that a compile.
    monkeypatch.setattr(Request, "cached_hash", lambda self: None)
    again = triage.run(registry.load("gemm"), [targets.resolve("sm_80")], SPACE, jobs=2)
    assert again.workers == 2 and all(r["cache_hit"] for r in again.rows)
    assert (again.cached, again.compiled) == (2, 0)


def test_a_rerun_is_served_from_the_cache_without_workers(first, in_cold_cache):
    again = triage.run(registry.load("gemm"), [targets.resolve("sm_80")], SPACE, jobs=2)
    assert again.compiled == 0 and again.workers == 0
    assert all(r["cache_hit"] for r in again.rows)
    volatile = ("cache_hit", "compile_seconds", "stage_seconds")   # measured: not kept with a row
    assert [{k: v for k, v in r.items() if k not in volatile} for r in again.rows] == \
        [{k: v for k, v in r.items() if k not in volatile} for r in first.rows]
    assert again.seconds < first.seconds


def test_concurrent_compiles_of_one_config_share_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    request = Request.of("vector_add", "sm_90", {"BLOCK_SIZE": 256}, shape={"N": 4096})
    task = {"request": request.ref(), "config": {"BLOCK_SIZE": 256}, "num_sms": None}
    results = {}
    pool.in_workers([dict(task, index=0), dict(task, index=1)], 2,
                    lambda done: results.update((t["index"], r) for t, r in done))
    assert results[0]["status"] == results[1]["status"] == "ok"
    assert results[0]["hash"] == results[1]["hash"]
    # Nothing half-written is left, and the entry loads whole in a third process (this one).
    assert not [p for p in tmp_path.rglob("*") if "tmp" in p.name]
    c = single("vector_add", "sm_90", {"BLOCK_SIZE": 256}, {"N": 4096})
    assert c.cache_hit and c.hash == results[0]["hash"]
    assert c.resources.registers == results[0]["registers"]


def test_a_compiler_crash_fails_only_its_config(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    result = triage.run(registry.load(CRASHY), [targets.resolve("sm_90")], jobs=2)
    by_tile = {r["config"]["TILE"]: r for r in result.rows}
    assert list(by_tile) == [32, 48, 64, 128]
    assert by_tile[32]["status"] == by_tile[128]["status"] == "ok"
    assert by_tile[32]["registers"] > 0
    # TILE=48: Triton raises inside triton.compile; TILE=64: the compiling process dies.
    assert by_tile[48]["status"] == "failed" and "power of 2" in by_tile[48]["error"]
    assert by_tile[64]["status"] == "failed" and "died (exit code 7)" in by_tile[64]["error"]
    assert by_tile[64]["flags"] == ["failed"] and by_tile[64]["rank"] is None


# one worker (the others queued behind the hang, run by its replacement) is the slow form; two is the default
@pytest.mark.parametrize("jobs", [2, pytest.param(1, marks=pytest.mark.slow)])
def test_a_hanging_compile_is_stopped_and_the_sweep_goes_on(tmp_path, monkeypatch, jobs):
    # TILE=16 never finishes compiling; with a time limit it fails alone, and TILE=32 and
    # TILE=128 (in flight beside it, or queued after it) still compile. The limit leaves a good
    # compile (about a second alone) room on a loaded 2-core machine.
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    start = time.monotonic()
    result = triage.run(registry.load(CRASHY), [targets.resolve("sm_90")], {"TILE": [16, 32, 128], "num_stages": [1]}, jobs=jobs, timeout=15)
    by_tile = {r["config"]["TILE"]: r for r in result.rows}
    assert by_tile[16]["status"] == "failed" and "still compiling after 15 s" in by_tile[16]["error"]
    assert by_tile[32]["status"] == by_tile[128]["status"] == "ok"
    assert time.monotonic() - start < 120


def test_a_timeout_must_be_positive():
    with pytest.raises(UserError, match="^timeout 0"):
        triage.run(registry.load("gemm"), [targets.resolve("sm_90")], jobs=1, timeout=0)


def test_an_invalid_config_fails_alone_without_a_worker():
    result = triage.run(registry.load("gemm"), [targets.resolve("sm_90")], {"BLOCK_SIZE_M": [48, 128]}, jobs=1)
    bad, good = result.rows
    assert bad["status"] == "failed" and "needs a power of two" in bad["error"]
    assert good["status"] == "ok"


def test_a_config_that_cannot_launch_is_flagged_with_its_reason():
    # 128x256x64 tiles in 5 stages: 4 x (128x64 + 64x256) fp16 in flight, 241 KB of shared
    # memory per block; an H100 block may have at most 227 KB.
    result = triage.run(registry.load("gemm"), [targets.resolve("sm_90")], {"BLOCK_SIZE_N": [256], "num_stages": [5, 2]}, jobs=2)
    five, two = result.rows
    assert five["shared_bytes"] > 227 * 1024
    assert five["launchable"] is False and five["active_blocks_per_sm"] == 0
    assert "shared memory" in five["reason"] and "cannot launch" in five["flags"]
    assert five["rank"] is None and five["modelled_seconds"] is None
    assert two["launchable"] is True and two["rank"] == 1
    text = "\n".join(sweep_text.lines(result))
    assert "CANNOT LAUNCH: " + five["reason"] in text


def test_a_backend_option_sweeps_and_a_ptxas_refusal_fails_its_config_with_ptxas_reason():
    # maxnreg is a triton.Config launch option: 64 registers cannot hold a 128x128 tile's accumulators
    result = triage.run(registry.load("gemm"), [targets.resolve("sm_90")],
                        {"maxnreg": [64, 255], "BLOCK_SIZE_N": [128], "num_warps": [8], "num_stages": [3]}, jobs=1)
    refused, ok = result.rows
    assert refused["status"] == "failed" and "ptxas failed: (C7602) Insufficient registers (64)" in refused["error"]
    assert ok["status"] == "ok" and ok["registers"] <= 255


def test_parse_ranges():
    assert space.parse_ranges(["BLOCK_SIZE_M=64,128", "num_warps=4"]) == {"BLOCK_SIZE_M": [64, 128],
                                                                          "num_warps": [4]}
    assert space.parse_ranges("BLOCK_SIZE_K=32..128 num_stages=2,3") == {"BLOCK_SIZE_K": [32, 64, 128],
                                                                        "num_stages": [2, 3]}
    assert space.parse_ranges(["A=16..16;B=1"]) == {"A": [16], "B": [1]}


@pytest.mark.parametrize("text,message", [
    ("BLOCK_SIZE_M", "expected NAME=V1,V2"),
    ("BLOCK_SIZE_M=", "expected NAME=V1,V2"),
    ("BLOCK_SIZE_M=1+2", "not a number"),
    ("BLOCK_SIZE_M=128..64", "up to B >= A"),
    ("BLOCK_SIZE_M=64 BLOCK_SIZE_M=128", "given twice"),
])
def test_parse_ranges_errors(text, message):
    with pytest.raises(UserError, match=message):
        space.parse_ranges(text)


def test_a_word_is_a_string_constexpr_and_the_kernel_says_whether_it_takes_one():
    assert space.parse_ranges("ACTIVATION=relu,gelu") == {"ACTIVATION": ["relu", "gelu"]}
    with pytest.raises(UserError, match="^meta BLOCK_SIZE_M=big: expected int"):   # the library names its parameter
        space.request_for(registry.load("gemm"), "sm_90", {"BLOCK_SIZE_M": "big"})


def test_space():
    spec = registry.load("gemm")
    assert space.space(spec) == spec.configs and len(spec.configs) == 16
    product = space.space(spec, {"BLOCK_SIZE_M": [64, 128], "num_warps": [4, 8], "num_stages": [3]})
    assert len(product) == 4 and {"BLOCK_SIZE_M": 128, "num_warps": 4, "num_stages": 3} in product
    assert space.space(registry.load("tests/data/broken_compile.py")) == [{}]
    with pytest.raises(UserError, match="not a meta-parameter of gemm"):
        space.space(spec, {"BLOCK_M": [64]})


def test_rank_by_modelled_time_per_target():
    rows = [{"target": "a", "status": "ok", "launchable": True, "modelled_seconds": 2.0},
            {"target": "a", "status": "ok", "launchable": True, "modelled_seconds": 1.0},
            {"target": "a", "status": "ok", "launchable": True, "modelled_seconds": 2.0},
            {"target": "a", "status": "ok", "launchable": False, "modelled_seconds": 0.5},
            {"target": "a", "status": "failed", "error": "x"},
            {"target": "b", "status": "ok", "launchable": True, "modelled_seconds": 9.0,
             "spill_store_bytes": 4}]
    triage.rank(rows)
    assert [r["rank"] for r in rows] == [2, 1, 2, None, None, 1]
    assert [r["flags"] for r in rows] == [[], [], [], ["cannot launch"], ["failed"], ["spills"]]


def run(*args):
    result = invoke(*args)
    return result.exit_code, result.output


def test_help():
    code, out = run("sweep", "--help")
    assert code == 0 and "--jobs" in out and "NAME=V1,V2" in out


def test_cli_json_and_csv():
    code, out = run("sweep", CRASHY, "--target", "sm_90,sm_80", "-m", "TILE=32,128", "--jobs", "2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["targets"] == ["sm_90", "sm_80"] and len(data["rows"]) == 4
    assert {(r["target"], r["config"]["TILE"]) for r in data["rows"]} == \
        {("sm_90", 32), ("sm_90", 128), ("sm_80", 32), ("sm_80", 128)}
    code, out = run("sweep", CRASHY, "--target", "sm_90,sm_80", "-m", "TILE=32,128", "--csv")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("target,TILE,status,error,registers,") and len(lines) == 5
    code, out = run("sweep", CRASHY, "--target", "sm_90", "-m", "TILE=32,128")
    assert code == 0 and "crashy on sm_90: 2 configs" in out and "4 compiles" not in out


@pytest.mark.parametrize("args,message", [
    (["--json", "--csv"], "pick one"),
    (["--target", "sm_99"], "unknown target"),
    (["-m", "NOPE=1"], "not a meta-parameter"),
    (["--jobs", "0"], "at least 1"),
    (["--target", "sm_90,sm_90"], "--target: sm_90 and sm_90 name one target (sm_90); name each once"),
    (["--num-sms", "0"], "positive integer"),
])
def test_cli_errors_are_one_line_exit_2(args, message):
    code, out = run("sweep", "gemm", *args)
    assert code == 2 and message in out and len(out.strip().splitlines()) == 1


def test_a_config_that_spills_is_flagged():
    # One warp holding a whole 8192-wide fp32 row: 256 values per thread, past the 255-register limit.
    result = triage.run(registry.load("softmax"), [targets.resolve("sm_80")], {"num_warps": [1, 8]}, shape={"M": 8, "N": 8192}, jobs=2)
    one, eight = result.rows
    c = single("softmax", "sm_80", {"num_warps": 1}, {"M": 8, "N": 8192})
    assert one["spill_store_bytes"] == c.resources.spill_store_bytes > 0
    assert one["spill_load_bytes"] == c.resources.spill_load_bytes > 0
    assert one["flags"] == ["spills"] and eight["flags"] == []
    assert f"SPILLS {one['spill_store_bytes']} B stored" in "\n".join(sweep_text.lines(result))


def test_sweep_and_diff_import_no_torch():
    import subprocess
    import sys
    root = Path(__file__).resolve().parent.parent
    code = ("import sys; from click.testing import CliRunner; from cli import main; "
            f"r = CliRunner().invoke(main, ['sweep', {CRASHY!r}, '-t', 'sm_90', '-m', 'TILE=32,128']); "
            "assert r.exit_code == 0, r.output; "
            "r = CliRunner().invoke(main, ['diff', 'vector_add', '--a', 'num_warps=2', '--b', 'num_warps=4']); "
            "assert r.exit_code == 0, r.output; "
            "print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_rerun_reads_each_row_back_and_it_is_the_row_a_fresh_read_gives(first, in_cold_cache, monkeypatch):
    """Rows are kept in the cache; the kept row must be the one reading the binary again gives."""
    read = rows.figures
    monkeypatch.setattr(rows, "figures", lambda *a, **k: (_ for _ in ()).throw(AssertionError("read again")))
    again = triage.run(registry.load("gemm"), [targets.resolve("sm_80")], SPACE, jobs=2)
    for kept in again.rows:
        fresh = read(single("gemm", "sm_80", kept["config"]))
        assert {k: v for k, v in kept.items() if k in fresh and k not in ("cache_hit", "compile_seconds")} == \
            {k: v for k, v in fresh.items() if k not in ("cache_hit", "compile_seconds")}


def test_a_kept_row_is_keyed_on_everything_it_depends_on():
    request = Request.of("gemm", "sm_80")
    base = rows.figures_key(request, "h", {"BLOCK_SIZE_M": 64}, None)
    assert base == rows.figures_key(Request.of("gemm", "sm_80"), "h", {"BLOCK_SIZE_M": 64}, None)
    other_shape = request.changed(shape={"M": 128})
    assert len({base, rows.figures_key(request, "h2", {"BLOCK_SIZE_M": 64}, None),
                rows.figures_key(request, "h", {"BLOCK_SIZE_M": 128}, None),
                rows.figures_key(other_shape, "h", {"BLOCK_SIZE_M": 64}, None),
                rows.figures_key(request, "h", {"BLOCK_SIZE_M": 64}, 114),
                # another GPU of the architecture: the same binary (hash), other figures
                rows.figures_key(request.changed(target="a100-pcie"), "h", {"BLOCK_SIZE_M": 64}, None)}) == 6


def test_a_gpu_by_name_is_a_target_of_its_own():
    """sm_89 and the L40S: one binary, two rows, each with its GPU's figures (a stream from DRAM at 1008 GB/s
    against 864)."""
    result = triage.run(registry.load("vector_add"), [targets.resolve("sm_89"), targets.resolve("l40s")],
                        {"BLOCK_SIZE": [1024]}, {"N": 2**26}, jobs=1)
    assert result.targets == ["sm_89", "l40s"]
    (rtx,), (l40s,) = result.by_target("sm_89"), result.by_target("l40s")
    assert rtx["hash"] == l40s["hash"]
    assert l40s["modelled_seconds"] / rtx["modelled_seconds"] == pytest.approx(1008 / 864, rel=0.03)


def test_a_cold_sweep_says_where_its_compile_time_went(first):
    """Each compiled row keeps Triton's CompileTimes by stage; the sweep sums them over the configs it compiled."""
    stages = ["source", "ttir", "ttgir", "llir", "ptx", "cubin", "store"]
    assert all(list(r["stage_seconds"]) == stages for r in first.rows)
    totals, configs = first.stage_seconds()
    assert configs == 2 and list(totals) == stages
    assert totals["cubin"] == pytest.approx(sum(r["stage_seconds"]["cubin"] for r in first.rows)) and totals["cubin"] > 0
    assert sum(totals.values()) <= sum(r["compile_seconds"] for r in first.rows) * 1.05   # inside each compile's time
    line = next(line for line in sweep_text.lines(first) if line.startswith("compile time by stage"))
    assert "summed over the 2 configs compiled in this run" in line and "cubin (ptxas)" in line
    assert "measured on this machine" in line
    assert first.as_dict()["compile_stage_seconds"]["cubin"] == round(totals["cubin"], 4)
