"""Every interrupt, hang and bad input ends cleanly: signals, time limits, exit codes, repeated
options, sizes beyond any GPU. Signals go to the main process alone, and the process table is
read afterwards: nothing the command started may still be running.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from conftest import invoke

from playground.artefact import compile_warnings, disasm, sourcemap
from playground.core import registry, targets
from playground.artefact.request import Request
from playground.errors import UserError
from playground.report import render
from playground.check import kernel as check
from playground.sweep import text as sweep_text
from playground.sweep import triage

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SLOW = str(DATA / "slow_kernel.py")
BROKEN = str(DATA / "broken_compile.py")
# A loaded 2-core machine can take a while to start Python and Triton; the bound on stopping is
# the 2 s plus that margin, measured from the signal, not from the start.
STOP_WITHIN_S = 10


def cli(*args, env=None):
    result = invoke(*args, env=env)
    return result.exit_code, result.stdout, result.stderr


def start(*args, cache_dir=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if cache_dir:
        env["TRITON_CACHE_DIR"] = str(cache_dir)
    return subprocess.Popen([sys.executable, "-c", "from cli import main; main()", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_children(proc, count=1, within=120):
    """The descendants of `proc` once it has started at least `count` of them (its workers)."""
    parent = psutil.Process(proc.pid)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        kids = parent.children(recursive=True)
        if len(kids) >= count:
            time.sleep(1.0)            # let them get to work
            return parent.children(recursive=True)
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError(f"no worker started within {within} s")


def still_running(processes) -> list:
    alive = []
    for p in processes:
        try:
            if p.status() != psutil.STATUS_ZOMBIE:   # a zombie has ended; only its parent's reaping is missing
                alive.append(p)
        except psutil.NoSuchProcess:
            pass
    return alive


def stop(proc, signum):
    sent = time.monotonic()
    os.kill(proc.pid, signum)          # the main process alone, not its process group
    out, err = proc.communicate(timeout=60)
    return proc.returncode, time.monotonic() - sent, err


# ---- signals -------------------------------------------------------------------------------------

@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_the_main_process_stops_a_sweep_and_its_workers(tmp_path, signum):
    proc = start("sweep", "gemm", "--target", "sm_90", "--jobs", "2", cache_dir=tmp_path)
    workers = wait_for_children(proc, 2)
    code, seconds, err = stop(proc, signum)
    assert code == 128 + signum
    assert seconds < STOP_WITHIN_S
    assert err.strip().splitlines() == [f"error: interrupted ({signal.Signals(signum).name}); stopped with every "
                                        f"process it started"]
    time.sleep(0.5)
    assert not still_running(workers)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_a_check_and_its_interpreter_worker(signum):
    proc = start("check", SLOW)
    workers = wait_for_children(proc, 1)
    code, seconds, err = stop(proc, signum)
    assert code == 128 + signum and seconds < STOP_WITHIN_S
    assert "Traceback" not in err
    time.sleep(0.5)
    assert not still_running(workers)


def test_a_second_signal_ends_at_once_even_when_cleanup_hangs():
    # A first SIGINT starts the cleanup; here the cleanup hangs, as a stuck pool would. The second ends it.
    # 'ready' is printed inside the try: a signal that arrives as the print returns is still caught there
    code = ("import time\nfrom playground import lifecycle\nlifecycle.install_handlers()\n"
            "try:\n    print('ready', flush=True)\n    time.sleep(60)\nexcept KeyboardInterrupt:\n"
            "    print('cleaning', flush=True)\n    time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGINT)
    assert proc.stdout.readline().strip() == "cleaning"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=30) == 130 and time.monotonic() - sent < STOP_WITHIN_S


# ---- time limits -------------------------------------------------------------------------------

def test_check_stops_a_case_past_its_timeout_and_reports_it():
    code, out, err = cli("check", SLOW, "--timeout", "2", "--json", "--plain")
    data = json.loads(out)
    assert code == 1
    (case,) = data["results"]
    assert case["status"] == "error" and "still running after 2 s: stopped (--timeout)" in case["problems"][0]


def test_compile_warns_of_a_huge_tile_then_stops_at_its_timeout(tmp_path):
    proc = start("compile", "vector_add", "--target", "sm_90", "--meta", "BLOCK_SIZE=1048576", "--timeout", "3",
                 cache_dir=tmp_path)
    family = []
    try:
        while proc.poll() is None:        # what it starts (ptxas) must be gone afterwards too
            family += psutil.Process(proc.pid).children(recursive=True)
            time.sleep(0.2)
    except psutil.NoSuchProcess:
        pass
    out, err = proc.communicate(timeout=120)
    lines = err.strip().splitlines()
    assert proc.returncode == 1, err
    assert lines[0].startswith("warning: the tile tensor<1048576x!tt.ptr<f32>>") and "no GPU holds more than 2,048" in lines[0]
    assert lines[-1] == "error: compiling vector_add: still running after 3 s; stopped (--timeout)"
    assert not still_running(family)


def test_tile_warnings_read_the_ttgir():
    small = "%0 = tt.make_range {end = 1024 : i32} : tensor<1024xi32, #blocked>"
    huge = "%1 = tt.splat %a : !tt.ptr<f32> -> tensor<1048576x!tt.ptr<f32>, #blocked>"
    assert compile_warnings.tile_warnings(small, 128) == []
    (message,) = compile_warnings.tile_warnings(small + "\n" + huge, 128)
    assert "65,536 bytes of registers per thread (128 threads)" in message   # 2^20 pointers x 8 B / 128
    # 512 fp32 per thread is exactly the most a CDNA lane holds (512 VGPRs): not yet a warning.
    assert compile_warnings.tile_warnings("tensor<65536xf32, #blocked>", 128) == []
    assert compile_warnings.tile_warnings("tensor<65537xf32, #blocked>", 128) != []


@pytest.mark.parametrize("command", ["compile", "grid", "inspect", "occupancy", "diff"])
def test_timeout_must_be_positive(command):
    extra = ["--a", "num_warps=2", "--b", "num_warps=4"] if command == "diff" else []
    code, out, err = cli(command, "vector_add", "--timeout", "0", *extra)
    assert code == 2 and err.strip() == "error: --timeout 0: must be a positive number of seconds"


# ---- check's cases and sizes -------------------------------------------------------------------

def test_quick_without_quick_cases_takes_the_smallest_case():
    import dataclasses
    spec = registry.load("gemm")
    cases = [{"M": 512, "N": 512, "K": 512}, {"M": 33, "N": 17, "K": 65}, {"M": 128, "N": 64, "K": 32}]
    only_cases = dataclasses.replace(spec, cases=cases, quick_cases=[])
    assert check.cases_for(only_cases, quick=True) == [{"M": 33, "N": 17, "K": 65}]
    assert check.cases_for(only_cases) == cases
    assert check.cases_for(spec, quick=True) == spec.quick_cases


def test_no_cases_never_hands_the_interpreter_a_benchmark_shape():
    import dataclasses
    no_cases = dataclasses.replace(registry.load("gemm"), cases=[], quick_cases=[])
    with pytest.raises(UserError, match=r"no cases, and its default shape \(M=4096, N=4096, K=4096\) holds "
                                        r"50,331,648 elements"):
        check.cases_for(no_cases, quick=True)
    small = dataclasses.replace(no_cases, default_shape={"M": 64, "N": 64, "K": 64})
    assert check.cases_for(small) == [{"M": 64, "N": 64, "K": 64}]


def test_check_refuses_a_case_larger_than_memory_in_one_line():
    code, out, err = cli("check", "vector_add", "--shape", "N=1000000000000", "--dtype", "fp32")
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    # 3 tensors x 4 TB, plus the fp64 reference's 8 TB a tensor and the 4 TB of each input's values.
    assert line.startswith("error: vector_add at N=1000000000000: the case needs 44.0 TB")
    assert "available on this machine" in line


def test_compile_warns_when_no_gpu_has_the_memory():
    code, out, err = cli("compile", "vector_add", "--shape", "N=1000000000000", "--no-header")
    assert code == 0
    assert err.strip() == ("warning: at this shape the tensors take 12.0 TB; no GPU in the device table has that "
                           "much memory (the most is 288.0 GB, Instinct MI355X)")


# ---- options given twice -----------------------------------------------------------------------

def test_repeated_shape_and_meta_merge():
    code, out, _ = cli("grid", "gemm", "--target", "sm_90", "--shape", "M=128", "--shape", "N=64",
                       "-m", "BLOCK_SIZE_M=64", "-m", "BLOCK_SIZE_N=64", "--json")
    assert code == 0
    plan = json.loads(out)
    assert plan["shape"] == {"M": 128, "N": 64, "K": 4096}
    assert plan["meta"]["BLOCK_SIZE_M"] == 64 and plan["meta"]["BLOCK_SIZE_N"] == 64


@pytest.mark.parametrize("args,message", [
    (["compile", "gemm", "--shape", "M=128", "--shape", "M=64"], "--shape M: given twice, as 128 and 64"),
    (["compile", "gemm", "-m", "BLOCK_SIZE_M=64,BLOCK_SIZE_M=128"], "--meta BLOCK_SIZE_M: given twice"),
    (["diff", "gemm", "--a", "num_warps=4", "--a", "num_warps=8", "--b", "num_warps=2"], "--a num_warps: given twice"),
    (["sweep", "gemm", "-m", "num_warps=4", "-m", "num_warps=8"], "--meta num_warps: given twice"),
])
def test_a_key_given_twice_with_different_values_is_an_error(args, message):
    code, out, err = cli(*args)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_the_same_key_twice_with_the_same_value_is_fine():
    code, _, _ = cli("compile", "vector_add", "--target", "sm_90", "-s", "N=4096", "-s", "N=4096", "--no-header")
    assert code == 0


# ---- sweep's outcome ---------------------------------------------------------------------------

def test_a_sweep_whose_every_config_is_invalid_exits_2_and_counts_it_as_failed():
    result = triage.run(registry.load("gemm"), [targets.resolve("sm_90")], {"num_warps": [3]}, jobs=1)
    assert (result.cached, result.compiled, result.failed, result.rejected) == (0, 0, 1, 1)
    assert result.exit_code == 2
    assert "0 from the cache, 0 compiled, 1 failed (1 rejected before compiling)" in "\n".join(sweep_text.lines(result))
    code, out, err = cli("sweep", "gemm", "-m", "num_warps=3")
    assert code == 2 and err.strip() == "error: every config is invalid; the table says why for each"


def test_a_sweep_whose_every_config_fails_to_compile_exits_1(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    result = triage.run(registry.load(str(DATA / "crashy_kernel.py")), [targets.resolve("sm_90")], {"TILE": [64]}, jobs=1)
    assert (result.compiled, result.failed, result.rejected, result.exit_code) == (0, 1, 0, 1)


# ---- the README's exit codes ---------------------------------------------------------------------

@pytest.mark.parametrize("args,code", [
    (["compile", "vector_add", "--target", "sm_90", "--no-header"], 0),               # ok
    (["compile", BROKEN, "--target", "sm_90"], 1),                                     # a kernel that fails
    (["compile", "no_such_kernel"], 2),                                                # bad input
    (["compile", "vector_add", "--target", ""], 2),                                    # an empty target
    (["compile", "vector_add", "--bogus-option"], 2),                                  # click's usage error
    (["bogus-command"], 2),
])
def test_exit_codes_as_documented_and_debug_changes_only_the_traceback(args, code):
    plain = cli(*args)
    debug_after = cli(*args, "--debug")
    debug_before = cli("--debug", *args)
    assert plain[0] == debug_after[0] == debug_before[0] == code
    if code:
        assert len(plain[2].strip().splitlines()) == 1 and plain[2].startswith("error: ")
        assert "Traceback" not in plain[2]
    if code and "bogus" not in " ".join(args):
        assert "Traceback" in debug_after[2] and "Traceback" in debug_before[2]


def test_out_into_a_place_that_cannot_be_written_is_bad_input(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("mine")
    code, out, err = cli("compile", "vector_add", "--target", "sm_90", "--out", str(blocker / "sub"))
    assert code == 2 and err.startswith(f"error: --out {blocker / 'sub'}: cannot write")
    assert len(err.strip().splitlines()) == 1
    assert blocker.read_text() == "mine"


def test_no_color_counts_only_when_not_empty(monkeypatch):
    class Tty:
        def isatty(self):
            return True
    monkeypatch.setenv("NO_COLOR", "")
    assert render.use_color(stream=Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not render.use_color(stream=Tty())


# ---- --interleave's order ----------------------------------------------------------------------

@pytest.mark.parametrize("stage,ending", [("ttir", "tt.return"), ("ptx", "ret;"), ("sass", "EXIT")])
def test_interleave_shows_the_return_after_the_body(stage, ending):
    spec = registry.load("vector_add")
    c = Request.of(spec, "sm_90").compile()
    text = disasm.sass_with_line_info(c) if stage == "sass" else c.stage(stage)
    groups = [g for g in sourcemap.interleave(stage, text, *sourcemap.kernel_lines(spec.kernel), c.stage("ptx"))
              if g.stage_lines and g.line is not None]
    body = [i for i, g in enumerate(groups) if g.python != sourcemap.END_OF_KERNEL and g.line != groups[0].line]
    # The last one: SASS also exits early, under a body line, for threads with nothing to do (`@P0 EXIT`).
    ending_at = max(i for i, g in enumerate(groups) if any(ending in line for line in g.stage_lines))
    assert groups[ending_at].python == sourcemap.END_OF_KERNEL
    assert ending_at > max(body)


# ---- signs of life -----------------------------------------------------------------------------

def test_a_slow_step_shows_a_spinner_on_a_terminal_and_nothing_elsewhere(monkeypatch):
    import io

    from playground import lifecycle

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    monkeypatch.setattr(lifecycle, "SPINNER_AFTER_S", 0.2)
    for stream, shown in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        assert lifecycle.run_blocking(lambda: time.sleep(1.5) or 42, label="compiling gemm") == 42
        assert ("compiling gemm…" in stream.getvalue()) == shown
    quick = Terminal()
    monkeypatch.setattr(sys, "stderr", quick)
    assert lifecycle.run_blocking(lambda: 7, label="compiling gemm") == 7 and quick.getvalue() == ""


def test_a_step_past_its_time_limit_raises_and_its_error_passes_through():
    from playground import lifecycle
    with pytest.raises(lifecycle.TimedOut, match="still running after 0.3 s"):
        lifecycle.run_blocking(lambda: time.sleep(2), timeout=0.3, label="compiling")
    with pytest.raises(UserError, match="mine"):
        lifecycle.run_blocking(lambda: (_ for _ in ()).throw(UserError("mine")))


def test_a_sweep_row_carries_its_tile_warning_and_the_shape_warning_comes_once(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    result = triage.run(registry.load("vector_add"), [targets.resolve("sm_90")], {"BLOCK_SIZE": [65536, 1024]}, shape={"N": 10 ** 12}, jobs=2)
    huge, plain = result.rows
    (warning,) = huge["warnings"]
    # 65536 pointers, or 64-bit offsets (n_elements is an i64 at this size), 8 bytes each over 128 threads.
    assert re.match(r"the tile tensor<65536x(!tt\.ptr<f32>|i64)> needs 4,096 bytes of registers per thread", warning)
    assert plain["warnings"] == []
    assert f"WARNING: {warning}" in "\n".join(sweep_text.lines(result))
    assert result.warnings == [compile_warnings.shape_warnings(registry.load("vector_add"), {"N": 10 ** 12}, "fp32")[0]]
