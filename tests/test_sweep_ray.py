"""`sweep --ray`: the local pool's rows from Ray tasks; a crash or a hang fails one config; nothing left behind.

Each test starts its own local Ray instance (`--ray local`, 2 CPUs; a few seconds) and checks it is
gone afterwards, every process of it. Skipped where Ray is not installed (the Triton 3.6 stage).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest
from conftest import outcome

from playground.core import registry, targets
from playground.sweep import text as sweep_text
from playground.sweep import triage

pytest.importorskip("ray")
pytestmark = pytest.mark.compile

ROOT = Path(__file__).resolve().parent.parent
CRASHY = str(ROOT / "tests" / "data" / "crashy_kernel.py")
SPACE = {"BLOCK_SIZE_M": [64, 128], "num_stages": [2]}      # two gemm configs
VOLATILE = ("cache_hit", "compile_seconds")
RAY_PROCESSES = ("raylet", "gcs_server", "ray::")


def ray_processes(of: psutil.Process | None = None) -> list[str]:
    """Ray's processes among this one's descendants (or `of`'s), by name."""
    try:
        children = (of or psutil.Process()).children(recursive=True)
    except psutil.Error:
        return []
    names = []
    for p in children:
        try:
            names.append(p.name())
        except psutil.Error:
            pass
    return [n for n in names if n.startswith(RAY_PROCESSES)]


def scratch_dirs() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("playground-ray-*"))


def processes_of(scratch: set[Path]) -> list[psutil.Process]:
    """Every process a Ray instance started in these folders runs with its session folder in its
    arguments, wherever it sits in the tree (Ray's agents are the raylet's children)."""
    found = []
    for p in psutil.process_iter(["cmdline"]):
        if any(str(d) in arg for d in scratch for arg in p.info["cmdline"] or ()):
            found.append(p)
    return found


@pytest.fixture
def nothing_left_behind():
    """After the test: Ray is disconnected, none of its processes remain, its scratch folder is gone."""
    import ray
    before = scratch_dirs()
    assert not ray_processes()
    yield
    assert not ray.is_initialized()
    assert not ray_processes()
    assert not scratch_dirs() - before


def test_ray_gives_the_local_pools_rows(tmp_path, monkeypatch, nothing_left_behind):
    spec, tgt = registry.load("gemm"), targets.resolve("sm_90")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "local"))
    local = triage.run(spec, [tgt], SPACE, jobs=2)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "ray"))       # cold again: Ray's workers compile
    progress = []
    on_ray = triage.run(spec, [tgt], SPACE, jobs=2, ray="local", on_row=lambda done, total, _: progress.append(done))
    assert (local.backend, on_ray.backend) == ("local pool", "ray (local)")
    assert local.compiled == on_ray.compiled == 2 and on_ray.workers == 2
    assert progress == [0, 1, 2], "each row is delivered as it completes"
    assert [{k: v for k, v in r.items() if k not in VOLATILE} for r in on_ray.rows] == \
        [{k: v for k, v in r.items() if k not in VOLATILE} for r in local.rows]
    assert sweep_text.table_rows(on_ray, "sm_90") == sweep_text.table_rows(local, "sm_90")
    assert "2 compiled on ray (local), 2 at once" in sweep_text.format_text(on_ray)
    # The workers compiled into this process's cache: a rerun is served from it, starting nothing.
    again = triage.run(spec, [tgt], SPACE, jobs=2, ray="local")
    assert again.cached == 2 and again.compiled == 0 and again.workers == 0


def test_a_crash_fails_only_its_config_on_ray(tmp_path, monkeypatch, nothing_left_behind):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    code, out, err = outcome("sweep", CRASHY, "-t", "sm_90", "--jobs", "2", "--ray", "local", "--json")
    assert code == 0, err
    data = json.loads(out)            # nothing of Ray's on stdout
    assert data["backend"] == "ray (local)"
    by_tile = {r["config"]["TILE"]: r for r in data["rows"]}
    assert by_tile[32]["status"] == by_tile[128]["status"] == "ok"
    # TILE=48: Triton raises inside triton.compile; TILE=64: the compiling process dies.
    assert by_tile[48]["status"] == "failed" and "power of 2" in by_tile[48]["error"]
    assert by_tile[64]["status"] == "failed" and "the compiler process died" in by_tile[64]["error"]
    assert "WorkerCrashedError" in by_tile[64]["error"] and by_tile[64]["rank"] is None
    assert not err.strip(), "Ray's own notices stay quiet"


@pytest.mark.slow
def test_a_hanging_compile_is_stopped_on_ray(tmp_path, monkeypatch, nothing_left_behind):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    result = triage.run(registry.load(CRASHY), [targets.resolve("sm_90")], {"TILE": [16, 32, 128], "num_stages": [1]},
                        jobs=2, timeout=15, ray="local")
    by_tile = {r["config"]["TILE"]: r for r in result.rows}
    assert by_tile[16]["status"] == "failed" and "still compiling after 15 s" in by_tile[16]["error"]
    assert by_tile[32]["status"] == by_tile[128]["status"] == "ok"


def test_sigterm_stops_the_sweep_and_its_ray_instance(tmp_path):
    # TILE=16 hangs in the compiler: the sweep is still running when the signal comes.
    env = {**os.environ, "TRITON_CACHE_DIR": str(tmp_path)}
    command = [sys.executable, str(ROOT / "cli.py"), "sweep", CRASHY, "-t", "sm_90", "-m", "TILE=16,32",
               "--jobs", "2", "--ray", "local"]
    before = scratch_dirs()
    child = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        parent = psutil.Process(child.pid)
        deadline = time.monotonic() + 60
        while "raylet" not in ray_processes(parent) and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.2)
        assert "raylet" in ray_processes(parent), child.communicate()
        time.sleep(1)
        scratch = scratch_dirs() - before
        seen = parent.children(recursive=True) + processes_of(scratch)
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 143, err
    assert err.strip().splitlines() == ["error: interrupted (SIGTERM); stopped with every process it started"]
    _, alive = psutil.wait_procs(seen, timeout=5)
    assert not alive and not processes_of(scratch), f"left running: {[p.pid for p in alive]}"
    assert not scratch_dirs() - before


def test_without_ray_installed_ray_is_one_line_exit_2(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)      # `import ray` raises ImportError
    code, out, err = outcome("sweep", "vector_add", "-t", "sm_90", "--ray", "local")
    assert code == 2 and not out
    assert err.strip().splitlines() == ["error: --ray needs Ray, which is not installed: "
                                        "pip install 'triton-playground[ray]'"]


def test_only_sweep_ray_imports_ray(tmp_path):
    code = ("import sys; from click.testing import CliRunner; from cli import main; "
            "from playground.sweep import pool, rows, text, triage; "
            "r = CliRunner().invoke(main, ['compile', 'vector_add', '-t', 'sm_90']); "
            "assert r.exit_code == 0, r.output; "
            "r = CliRunner().invoke(main, ['sweep', '--help']); assert '--ray ADDRESS' in r.output, r.output; "
            "print('ray' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "TRITON_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
