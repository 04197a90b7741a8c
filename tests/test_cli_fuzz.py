"""Fuzz the CLI's options with Hypothesis: whatever the values, valid or not, every command ends
with exit 0, 1 or 2, never a traceback, an error as one line on stderr, and no file written
outside the directory it was told to write to.

Seeded and bounded (derandomize, a fixed example count, no deadline per example), so CI sees the
same examples every run. The kernel is vector_add, the quickest to compile; the values lean to
invalid ones, which are what the parsers must survive, with enough valid ones to reach the compiler.
"""
import os
from pathlib import Path

import pytest
from conftest import invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.compile

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = ["compile", "grid", "occupancy", "inspect", "diff", "sweep", "bench"]
TEXT = st.text(alphabet="ABCKMNSZ_=,.-0123456789 xe*", max_size=12)

shapes = st.one_of(st.sampled_from(["N=4096", "N=1", "N=17", "N=0", "N=-3", "N=1.5", "M=4", "N=", "=4", "N==2",
                                    "N=4096,N=4096", "N=10**12", "N=99999999999999999999"]), TEXT)
metas = st.one_of(st.sampled_from(["BLOCK_SIZE=256", "BLOCK_SIZE=48", "BLOCK_SIZE=0", "BLOCK_SIZE=True",
                                   "BLOCK_SIZE=1e3", "NOPE=1", "BLOCK_SIZE", "BLOCK_SIZE=64,BLOCK_SIZE=128"]), TEXT)
target_names = st.one_of(st.sampled_from(["sm_90", "sm_80", "gfx942", "gfx1100", "native", "", "sm_99", "SM90",
                                          "sm_90,sm_80", "cuda"]), TEXT)
counts = st.one_of(st.sampled_from(["1", "2", "4", "8", "3", "0", "-1", "64", "x", "1.5"]), TEXT)


@st.composite
def invocations(draw):
    command = draw(st.sampled_from(COMMANDS))
    args = [command, "vector_add"]
    for flag, values in (("--shape", shapes), ("--meta", metas), ("--target", target_names),
                         ("--num-warps", counts), ("--num-stages", counts)):
        if command == "sweep" and flag in ("--num-warps", "--num-stages"):
            continue
        for _ in range(draw(st.integers(0, 2 if flag in ("--shape", "--meta") else 1))):
            args += [flag, draw(values)]
    if command == "diff":
        args += ["--a", draw(st.sampled_from(["num_warps=2", "num_warps=3", "target=sm_80", "x", ""])),
                 "--b", draw(st.sampled_from(["num_warps=4", "BLOCK_SIZE=512", "", "N=5"]))]
    if command == "sweep":
        args += ["--jobs", "1"]
    return args


@settings(max_examples=60, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(args=invocations())
def test_any_options_end_cleanly(args, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("fuzz")
    before = _snapshot(ROOT)
    here = os.getcwd()
    os.chdir(workdir)          # the command's own output directory: anything it writes lands here
    try:
        result = invoke(*(args + ["--json"] if args[0] != "diff" else args))
    finally:
        os.chdir(here)
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.stderr, result.exception)
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, args
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{args}: {result.exception!r}")
    if result.exit_code:
        errors = [line for line in result.stderr.splitlines() if not line.startswith("warning: ")]
        assert len(errors) == 1 and errors[0].startswith("error: "), (args, result.stderr)
    assert _snapshot(ROOT) == before, f"{args} changed files outside its output directory"


def _snapshot(root: Path) -> dict:
    """Every file of the checkout (no caches, no virtual environments) with its mtime."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
        for name in filenames:
            path = Path(dirpath) / name
            out[str(path)] = path.stat().st_mtime_ns
    return out
