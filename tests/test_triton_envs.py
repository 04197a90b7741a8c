"""`--triton VERSION`: the Triton a file was written for. compile, inspect and diff run in a side environment of
that Triton (playground/triton_envs.py), made once and kept in the user's cache; `diff --triton 3.8,3.9` shows what
an upgrade changed; a feature Triton removed says which Triton last had it (playground/removed_features.py), in
compile, check and run.

The tests marked side_triton use Triton 3.8's side environment, made once (about 250 MB to download) under
~/.cache/playground/triton and reused by every later run; `-m 'not side_triton'` leaves them out on a machine with
no package index. The others use no network: pip is pointed at an empty folder, or at a server that never answers.
"""
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import jsonschema
import pytest
from conftest import outcome, run

from playground import removed_features, report, triton_envs

ROOT = Path(__file__).resolve().parents[1]
BLOCK_POINTERS = str(ROOT / "examples" / "block_pointers.py")
INSTALLED = triton_envs.installed()
ON_39 = INSTALLED.startswith("3.9.")
HAS_TORCH = importlib.util.find_spec("torch") is not None
PLAYGROUND = Path(sys.executable).parent / "playground"       # the console script, as a user types it
side_triton = pytest.mark.side_triton


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty user cache: whatever a test makes there goes with it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "playground" / "triton"


@pytest.fixture
def no_index(tmp_path, monkeypatch):
    """pip with nothing to install from: no configured index, no links but an empty folder."""
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    for name, value in {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(empty)}.items():
        monkeypatch.setenv(name, value)


# ---- versions, and what is refused --------------------------------------------------------------------------------

def test_versions_are_read_and_checked():
    assert triton_envs.parse("3.8") == ["3.8"]
    assert triton_envs.parse("3.8.0, 3.9", most=2) == ["3.8.0", "3.9"]
    assert triton_envs.matches("3.9", "3.9.0") and triton_envs.matches("3.9.0", "3.9.0")
    assert not triton_envs.matches("3.9", "3.10.0") and not triton_envs.matches("3.9.1", "3.9.0")
    for text, words in [("3.5", "takes 3.6 to 3.9"), ("4.0", "takes 3.6 to 3.9"), ("three", "not a supported"),
                        ("3.8,3.9", "one version here"), ("", "expected a version")]:
        with pytest.raises(triton_envs.UserError, match=words):
            triton_envs.parse(text)
    with pytest.raises(triton_envs.UserError, match="the same Triton twice"):
        triton_envs.parse("3.8,3.8", most=2)
    with pytest.raises(triton_envs.UserError, match="at most 2"):
        triton_envs.parse("3.7,3.8,3.9", most=2)


@pytest.mark.parametrize("args,words", [
    (["compile", "vector_add", "--triton", "3.5"], "--triton 3.5: not a supported Triton; --triton takes 3.6 to 3.9"),
    (["inspect", "vector_add", "--triton", "2.3"], "--triton 2.3: not a supported Triton"),
    (["diff", "vector_add", "--triton", "3.10,3.9"], "--triton 3.10: not a supported Triton"),
    (["compile", "vector_add", "--triton", "3.8,3.9"], "one version here; `diff --triton 3.8,3.9` compares two"),
    (["diff", "vector_add", "--triton", "3.8,3.9", "--a", "N=4096"], "give one or the other"),
])
def test_a_bad_version_is_one_line_exit_2(args, words, cache):
    code, out = run(*args)
    assert code == 2 and out.strip().splitlines() == [f"error: {out.strip().removeprefix('error: ')}"]
    assert words in out and "Traceback" not in out
    assert not cache.exists()          # nothing was installed for it


@pytest.mark.parametrize("command", ["compile", "inspect", "diff"])
def test_help_names_the_option(command):
    code, out = run(command, "--help")
    assert code == 0 and "--triton VERSION" in out and "3.6 to 3.9" in " ".join(out.split())
    if command == "diff":
        assert "VERSION,VERSION" in out and "what an upgrade changes" in " ".join(out.split())


def test_the_installed_triton_needs_no_side_environment(cache):
    version = ".".join(INSTALLED.split(".")[:2])
    code, out = run("compile", "vector_add", "-t", "sm_90", "--triton", version, "--expect", "registers < 100")
    assert code == 0 and f"triton {INSTALLED}" in out
    assert not cache.exists()


# ---- making a side environment ------------------------------------------------------------------------------------

def test_no_package_index_is_one_line_and_leaves_nothing(cache, no_index):
    code, stdout, stderr = outcome("compile", "vector_add", "--triton", "3.7", "--json")
    assert code == 2 and stdout == ""
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert errors == [stderr.strip().splitlines()[-1]] and "Traceback" not in stderr
    assert "--triton 3.7: pip could not install triton==3.7.*" in errors[0]
    assert "Could not find a version that satisfies the requirement" in errors[0]
    assert list(cache.iterdir()) == []     # the half-made folder went with the failure


def test_a_stopped_install_leaves_nothing_that_is_taken_as_complete(cache, monkeypatch):
    """Ctrl-C while pip writes: the folder is removed, and none is found for that version afterwards."""
    def pip_stopped(command, **_):
        target = Path(command[command.index("--target") + 1])
        (target / "triton").mkdir()
        (target / "triton" / "__init__.py").write_text("")      # as far as pip got
        raise KeyboardInterrupt
    monkeypatch.setattr(triton_envs.subprocess, "run", pip_stopped)
    with pytest.raises(KeyboardInterrupt):
        triton_envs.ensure("3.7")
    assert list(cache.iterdir()) == [] and triton_envs.find("3.7") is None


def test_what_a_killed_install_left_is_removed_by_the_next(cache, monkeypatch, no_index):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    left = cache / f".partial-{dead}-abc"
    (left / "triton").mkdir(parents=True)
    (left / "triton" / "__init__.py").write_text("")
    assert triton_envs.find("3.7") is None          # never taken as complete
    with pytest.raises(triton_envs.UserError):
        triton_envs.ensure("3.7")
    assert not left.exists()


def test_ctrl_c_while_pip_waits_on_the_network(tmp_path):
    """The real thing: SIGINT while pip waits on an index that never answers ends the command (130) with pip, and
    the user's cache holds nothing."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    connected = threading.Event()
    held = []

    def accept():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)          # read nothing, answer nothing
            connected.set()
    threading.Thread(target=accept, daemon=True).start()
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), PIP_CONFIG_FILE=os.devnull,
               PIP_INDEX_URL=f"http://127.0.0.1:{server.getsockname()[1]}/simple", PIP_FIND_LINKS=str(empty),
               PIP_DEFAULT_TIMEOUT="60", PIP_RETRIES="0")
    child = subprocess.Popen([str(PLAYGROUND), "compile", "vector_add", "--triton", "3.7"], cwd=ROOT,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert connected.wait(60), "pip never asked the index"
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=30)
    finally:
        child.kill()
        server.close()
        for conn in held:
            conn.close()
    assert child.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("error: interrupted")
    assert list((tmp_path / "cache" / "playground" / "triton").iterdir()) == []


# ---- features Triton removed --------------------------------------------------------------------------------------

def test_the_table_names_the_last_triton_with_block_pointers():
    said = removed_features.explain("Block pointers have been removed in favor of the tensor descriptor API",
                                    "examples/block_pointers.py")
    assert said == ("block pointers (tl.make_block_ptr, tl.advance) were removed in Triton 3.9; 3.8 was the last "
                    "with them (tl.make_tensor_descriptor replaces them): `playground compile "
                    "examples/block_pointers.py --triton 3.8` compiles it there")
    assert removed_features.explain("some other error") is None


@pytest.mark.skipif(not ON_39, reason=f"block pointers compile on Triton {INSTALLED}")
def test_compile_on_39_says_block_pointers_were_removed_and_where_to_look():
    code, out = run("compile", BLOCK_POINTERS, "-t", "sm_90")
    assert code == 1 and len(out.strip().splitlines()) == 1
    assert out.startswith("error: examples/block_pointers.py:37: `a_block = tl.make_block_ptr(")
    assert "were removed in Triton 3.9; 3.8 was the last with them" in out
    assert "--triton 3.8` compiles it there" in out


@pytest.mark.skipif(not (ON_39 and HAS_TORCH), reason="check on Triton 3.9, with torch")
def test_check_says_which_triton_last_had_block_pointers():
    code, out = run("check", BLOCK_POINTERS, "--quick")
    assert code == 1
    assert ("examples/block_pointers.py:37: NotImplementedError: block pointers (tl.make_block_ptr, tl.advance) were "
            "removed in Triton 3.9; 3.8 was the last with them") in " ".join(out.split())
    assert "playground compile examples/block_pointers.py:block_ptr_gemm --triton 3.8" in " ".join(out.split())


@pytest.mark.skipif(not (ON_39 and HAS_TORCH), reason="check on Triton 3.9, with torch")
def test_check_ref_says_which_triton_last_had_block_pointers(tmp_path):
    """Real code calling a block-pointer kernel, checked against PyTorch: each case's error names the last Triton."""
    (tmp_path / "user.py").write_text(f"""import sys
sys.path.insert(0, {str(ROOT / 'examples')!r})
import torch
from block_pointers import block_ptr_gemm_kernel

def matmul(a, b):
    c = torch.empty((64, 64), device=a.device, dtype=torch.float32)
    block_ptr_gemm_kernel[(4,)](a, b, c, 64, 64, 64, 64, 1, 64, 1, 64, 1, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32)
    return c
""")
    code, out = run("check", f"{tmp_path / 'user.py'}:matmul", "--ref", "a.float() @ b.float()",
                    "--inputs", "a=fp16[64,64], b=fp16[64,64]", "--quick", "--seeds", "1")
    assert code == 1
    assert ("CompilationError: block pointers (tl.make_block_ptr, tl.advance) were removed in Triton 3.9; 3.8 was "
            "the last with them") in out and "--triton 3.8" in out


@pytest.mark.skipif(not (ON_39 and HAS_TORCH), reason="run on Triton 3.9, with torch")
def test_run_says_which_triton_last_had_block_pointers(tmp_path):
    script = tmp_path / "uses_block_pointers.py"
    script.write_text(f"""import sys
sys.path.insert(0, {str(ROOT / 'examples')!r})
import torch
from block_pointers import block_ptr_gemm_kernel
a = torch.randn(64, 64, device="cuda", dtype=torch.float16)
c = torch.empty_like(a)
block_ptr_gemm_kernel[(1,)](a, a, c, 64, 64, 64, 64, 1, 64, 1, 64, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32)
""")
    # a process of its own: the script's child writes to the terminal's stderr, which click's runner does not hold
    done = subprocess.run([str(PLAYGROUND), "run", str(script), "-t", "sm_90"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 1
    line = next(l for l in done.stderr.splitlines() if "were removed in Triton" in l)
    assert line.startswith("playground: block pointers (tl.make_block_ptr, tl.advance) were removed in Triton 3.9; "
                           "3.8 was the last with them")
    assert line.endswith("`playground compile examples/block_pointers.py:block_ptr_gemm --triton 3.8` compiles it there")


# ---- Triton 3.8's side environment (made once, in the user's cache) ------------------------------------------------

@pytest.fixture(scope="module")
def triton_38():
    return triton_envs.ensure("3.8", say=print)


@side_triton
def test_compile_on_38_runs_the_whole_command_there(triton_38):
    assert triton_38.name.startswith("3.8.")
    code, stdout, stderr = outcome("compile", "vector_add", "-t", "sm_90", "--triton", "3.8", "--json")
    assert code == 0, stderr
    data = json.loads(stdout)
    assert data["triton_version"] == triton_38.name
    code, out = run("compile", "vector_add", "-t", "sm_90", "--triton", "3.8.0", "--expect", "registers < 100")
    assert code == 0 and f"triton {triton_38.name}" in out


@side_triton
def test_a_block_pointer_file_compiles_on_38(triton_38):
    code, out = run("compile", BLOCK_POINTERS, "-t", "sm_90", "--triton", "3.8", "--show", "ttir", "--no-header")
    assert code == 0, out
    # Triton 3.8 rewrites block pointers into plain ones before its TTIR is printed: the K loop's loads and dot
    assert "tt.dot" in out and out.count("tt.load") == 2 and "make_block_ptr" not in out


@side_triton
def test_inspect_on_38(triton_38):
    code, out = run("inspect", "gemm", "-t", "sm_90", "--triton", "3.8")
    assert code == 0 and out.startswith("kernel      gemm on sm_90")


@side_triton
def test_diff_38_39_of_a_block_pointer_kernel(triton_38):
    """The 3.8 side compiled, with its figures; the 3.9 side the one-line reason."""
    if not ON_39:
        pytest.skip(f"the installed Triton is {INSTALLED}")
    code, stdout, stderr = outcome("diff", BLOCK_POINTERS, "-t", "sm_90", "--triton", "3.8,3.9", "--json")
    assert code == 0, stderr
    data = json.loads(stdout)
    jsonschema.validate(data, report.schema("diff"))
    a, b = data["a"], data["b"]
    assert (a["triton"], a["variant"]) == (triton_38.name, f"triton {triton_38.name}")
    assert a["hash"] and a["figures"]["registers"] > 0 and a["figures"]["wgmma"] > 0 and "error" not in a
    assert (b["triton"], b["hash"], b["figures"]) == (INSTALLED, None, {})
    assert "were removed in Triton 3.9; 3.8 was the last with them" in b["error"]
    assert data["deltas"] == [] and not data["identical"]
    code, out = run("diff", BLOCK_POINTERS, "-t", "sm_90", "--triton", "3.8,3.9")
    assert code == 0
    lines = out.splitlines()
    reason = next(l for l in lines if l.startswith("changed"))
    assert reason.startswith(f"changed  triton {INSTALLED} does not compile: examples/block_pointers.py:37: ")
    registers = next(l for l in lines if l.startswith("registers")).split()
    assert registers == ["registers", str(a["figures"]["registers"]), "-"]
    code, _ = run("diff", BLOCK_POINTERS, "-t", "sm_90", "--triton", "3.8,3.9", "--exit-code")
    assert code == 1


@side_triton
def test_diff_38_39_shows_what_the_upgrade_changed(triton_38):
    """Each side's figures are what that Triton's own compile reports."""
    code, stdout, stderr = outcome("diff", "gemm", "-t", "sm_90", "--triton", "3.8,3.9", "--show", "ttgir", "--json")
    assert code == 0, stderr
    data = json.loads(stdout)
    jsonschema.validate(data, report.schema("diff"))
    assert [data["a"]["triton"], data["b"]["triton"]] == [triton_38.name, INSTALLED]
    for side, version in (("a", "3.8"), ("b", INSTALLED)):
        code, stdout, _ = outcome("compile", "gemm", "-t", "sm_90", "--triton", version, "--json")
        compiled = json.loads(stdout)
        figures = data[side]["figures"]
        assert data[side]["hash"] == compiled["hash"]
        assert figures["registers"] == compiled["resources"]["registers"]
        assert figures["shared memory"] == compiled["resources"]["shared_total"]
        assert figures["time (modelled)"] > 0
    assert data["stage"] == "ttgir" and data["diff"].startswith(f"--- a/ttgir (triton {triton_38.name})")
