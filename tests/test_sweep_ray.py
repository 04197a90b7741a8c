"""`sweep --ray`: the local pool's rows from Ray tasks; a crash or a hang fails one config; nothing left behind.

Each test starts its own local Ray instance (`--ray local`, 2 CPUs; a few seconds) and checks it is
gone afterwards, every process of it. Skipped where Ray is not installed (the Triton 3.6 stage).
"""
import json
import os
import shutil
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
VOLATILE = ("cache_hit", "compile_seconds", "stage_seconds")   # measured, per compile
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


def scratch_dirs(root: Path) -> set[Path]:
    return set(root.glob("playground-ray-*"))


@pytest.fixture
def scratch_root(monkeypatch):
    """A temporary folder of this test's own for Ray's scratch folders: another run on the machine (a second
    suite, a user's sweep) makes `playground-ray-*` folders of its own, which are not this test's leftovers."""
    root = Path(tempfile.mkdtemp(prefix="pgr"))       # short: Ray's socket paths must stay under 108 bytes
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    monkeypatch.setenv("TMPDIR", str(root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def processes_of(scratch: set[Path]) -> list[psutil.Process]:
    """Every process a Ray instance started in these folders runs with its session folder in its
    arguments, wherever it sits in the tree (Ray's agents are the raylet's children)."""
    found = []
    for p in psutil.process_iter(["cmdline"]):
        if any(str(d) in arg for d in scratch for arg in p.info["cmdline"] or ()):
            found.append(p)
    return found


@pytest.fixture
def nothing_left_behind(scratch_root):
    """After the test: Ray is disconnected, none of its processes remain, its scratch folder is gone."""
    import ray
    assert not ray_processes()
    yield
    assert not ray.is_initialized()
    assert not ray_processes()
    assert not scratch_dirs(scratch_root)


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
    assert "2 compiled on ray (local), 2 at once" in "\n".join(sweep_text.lines(on_ray))
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


def test_sigterm_stops_the_sweep_and_its_ray_instance(tmp_path, scratch_root):
    # TILE=16 hangs in the compiler: the sweep is still running when the signal comes.
    env = {**os.environ, "TRITON_CACHE_DIR": str(tmp_path), "TMPDIR": str(scratch_root)}
    command = [sys.executable, str(ROOT / "cli.py"), "sweep", CRASHY, "-t", "sm_90", "-m", "TILE=16,32",
               "--jobs", "2", "--ray", "local"]
    child = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        parent = psutil.Process(child.pid)
        deadline = time.monotonic() + 60
        while "raylet" not in ray_processes(parent) and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.2)
        assert "raylet" in ray_processes(parent), child.communicate()
        time.sleep(1)
        scratch = scratch_dirs(scratch_root)
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
    assert scratch and not scratch_dirs(scratch_root)


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_a_running_cluster_is_reached_by_its_address_and_left_running(tmp_path):
    """What a user with a cluster does: `ray start --head` (here in its own process group, in a folder
    away from this checkout), then `sweep --ray HOST:PORT`. The sweep ships playground and kernels to the
    cluster's workers (runtime_env py_modules), gives the local pool's table, and leaves the cluster
    running: it only disconnects. The cluster's workers compile into the cluster's own Triton cache."""
    ray_cli = Path(sys.executable).with_name("ray")
    port, scratch = _free_port(), Path(tempfile.mkdtemp(prefix="pgc-"))    # short: Ray's socket paths
    away, home = tmp_path / "cluster", tmp_path / "home"       # Ray 2.59+ writes its token under ~/.ray
    away.mkdir()
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RAY_ADDRESS", "RAY_AUTH_MODE")}
    log = open(tmp_path / "head.log", "w")
    head = subprocess.Popen([str(ray_cli), "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
                             f"--temp-dir={scratch}", "--include-dashboard=false", "--disable-usage-stats"],
                            cwd=away, env={**env, "HOME": str(home), "TRITON_CACHE_DIR": str(away / "cache")},
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120          # a hang guard: the head says it started in seconds
        while ("Ray runtime started" not in (tmp_path / "head.log").read_text() and head.poll() is None
               and time.monotonic() < deadline):
            time.sleep(0.5)
        assert "Ray runtime started" in (tmp_path / "head.log").read_text(), (tmp_path / "head.log").read_text()
        local, _ = _sweep_json(tmp_path / "local", "--jobs", "2")
        remote, notices = _sweep_json(tmp_path / "here", "--ray", f"127.0.0.1:{port}", home=home)
        assert not notices.strip(), "Ray's notices (its token authentication's among them) stay quiet"
        assert (local["backend"], remote["backend"]) == ("local pool", f"ray (127.0.0.1:{port})")
        assert remote["compiled"] == 2 and not remote["failed"]
        assert [_stable(r) for r in remote["rows"]] == [_stable(r) for r in local["rows"]]
        # the cluster compiled: its cache holds both binaries; this side's cache holds none of them
        assert len(list((away / "cache").rglob("*.cubin"))) == 2
        assert not list((tmp_path / "here").rglob("*.cubin"))
        assert head.poll() is None, "the sweep leaves the cluster running"
    finally:
        os.killpg(head.pid, signal.SIGTERM)           # `ray start --block` stops the cluster on SIGTERM
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
        _, alive = psutil.wait_procs(processes_of({scratch}), timeout=30)
        for p in alive:
            p.kill()
        import shutil
        shutil.rmtree(scratch, ignore_errors=True)
        log.close()
    assert not alive, f"the cluster left processes behind: {[p.pid for p in alive]}"


def _sweep_json(cache: Path, *options: str, home: Path | None = None) -> tuple[dict, str]:
    env = {**os.environ, "TRITON_CACHE_DIR": str(cache), **({"HOME": str(home)} if home else {})}
    env.pop("RAY_ADDRESS", None)
    env.pop("RAY_AUTH_MODE", None)
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "sweep", "gemm", "-t", "sm_90", "-m",
                           "BLOCK_SIZE_M=64,128", "-m", "num_stages=2", "--json", *options],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def _stable(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in VOLATILE}


def test_an_address_where_no_cluster_answers_is_one_line_exit_2_at_once(tmp_path):
    """The quick form of the cluster test above: Ray itself would retry such an address for minutes, printing
    its C++ warnings, so the address is tried first (a TCP connection, PROBE_S at most)."""
    port = _free_port()                                   # nothing listens there
    env = {**os.environ, "TRITON_CACHE_DIR": str(tmp_path)}         # cold: the sweep has work for Ray
    # a hang guard, not a timing: without the probe this run takes minutes
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "sweep", "vector_add", "-t", "sm_90", "-m",
                           "BLOCK_SIZE=1024", "--ray", f"127.0.0.1:{port}"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and not done.stdout
    assert done.stderr.splitlines() == [f"error: --ray 127.0.0.1:{port}: no Ray cluster answers at 127.0.0.1:{port} "
                                        "(connection refused); start one with `ray start --head`, or use --ray local"]
    code, out, err = outcome("sweep", "vector_add", "-t", "sm_90", "--ray", "cluster-without-port")
    assert code == 2 and err.strip() == ("error: --ray cluster-without-port: not an address: local, auto, "
                                         "ray://HOST:10001 or HOST:6379")
    # `auto` joins RAY_ADDRESS when it is set: that address is tried first as well
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "sweep", "vector_add", "-t", "sm_90", "-m",
                           "BLOCK_SIZE=1024", "--ray", "auto"], cwd=ROOT, env={**env, "RAY_ADDRESS": f"127.0.0.1:{port}"},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.splitlines() == [
        f"error: --ray auto: no Ray cluster answers at 127.0.0.1:{port} (RAY_ADDRESS) (connection refused); start "
        "one with `ray start --head`, or use --ray local"]


def test_auto_with_no_cluster_running_is_one_line_in_playgrounds_words(tmp_path, monkeypatch):
    """Ray's own message names its --address flag, which playground does not have."""
    import ray
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))          # cold: the sweep has work for Ray
    monkeypatch.delenv("RAY_ADDRESS", raising=False)

    def no_cluster(*args, **kwargs):
        raise ConnectionError("Could not find any running Ray instance. Please specify the one to connect to by "
                              "setting `--address` flag or `RAY_ADDRESS` environment variable.")
    monkeypatch.setattr(ray, "init", no_cluster)
    code, out, err = outcome("sweep", "vector_add", "-t", "sm_90", "-m", "BLOCK_SIZE=1024", "--ray", "auto")
    assert code == 2 and not out
    assert err.strip().splitlines() == ["error: --ray auto: no running Ray cluster on this machine; start one with "
                                        "`ray start --head`, or use --ray local"]


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
