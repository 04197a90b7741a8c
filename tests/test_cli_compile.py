"""The `list` and `compile` commands as a user meets them: output, errors, files, and no torch."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run

from playground.artefact.request import Request

pytestmark = pytest.mark.compile
ROOT = Path(__file__).resolve().parent.parent




@pytest.mark.parametrize("command", [[], ["list"], ["compile"]])
def test_help(command):
    code, out = run(*command, "--help")
    assert code == 0 and "Usage:" in out


def test_list_names_the_kernels():
    code, out = run("list")
    assert code == 0
    for name in ("vector_add", "softmax", "gemm", "relu_matmul"):
        assert name in out


def test_compile_prints_header_and_ptx():
    code, out = run("compile", "vector_add", "--target", "sm_90", "--show", "ptx")
    assert code == 0
    assert "// target      sm_90" in out
    assert "// meta        BLOCK_SIZE=1024" in out
    assert "// registers   " in out and "per thread" in out
    assert "n_elements: divisible by 16" in out
    assert ".target sm_90a" in out


def test_header_registers_are_the_cubins():
    from playground.artefact import disasm
    from playground.core import registry
    c = Request.of(registry.load("gemm"), "sm_80").compile()
    dump = disasm.resource_usage_dump(c.kernel.asm["cubin"])
    code, out = run("compile", "gemm", "--target", "sm_80", "--show", "ptx")
    assert f"REG:{c.resources.registers} " in dump
    assert f"// registers   {c.resources.registers} per thread" in out


@pytest.mark.parametrize("ref", ["./examples/my_kernels.py:my_kernel", "examples/my_kernels.py"])
def test_a_users_own_file_compiles(ref, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out = run("compile", ref, "--target", "sm_90", "--show", "ptx")
    assert code == 0, out
    assert "// kernel      my_kernel (axpy_kernel)" in out
    assert "fma.rn.f32" in out   # alpha * x + y, fused


def test_no_color_off_a_terminal():
    code, out = run("compile", "vector_add", "--show", "ptx")
    assert "\x1b[" not in out


def test_json_is_one_object():
    code, out = run("compile", "gemm", "--target", "sm_90", "--show", "ptx", "--json")
    data = json.loads(out)
    assert data["target"] == "sm_90" and data["num_warps"] == 8
    assert "wgmma" in data["stages"]["ptx"]
    assert data["resources"]["registers"] > 0


def test_amd_target():
    code, out = run("compile", "softmax", "--target", "gfx942", "--show", "amdgcn")
    assert code == 0 and "gfx942" in out and "VGPRs" in out


def test_interleave_prints_python_lines_then_instructions():
    code, out = run("compile", "vector_add", "--target", "sm_90", "--show", "ptx", "--interleave", "--no-header")
    assert code == 0
    lines = out.splitlines()
    load = next(i for i, l in enumerate(lines) if "x = tl.load(x_ptr + offsets, mask=mask)" in l)
    following = lines[load + 1:]
    block = following[:next(i for i, l in enumerate(following) if "y = tl.load(" in l)]
    assert block and all(l.startswith("       ") for l in block)   # indented under the Python line
    assert any("ld.global.v4.b32" in l for l in block)


def test_out_writes_every_stage_and_refuses_to_clobber(tmp_path):
    out = tmp_path / "va"
    code, _ = run("compile", "vector_add", "--show", "all", "--out", str(out))
    assert code == 0
    names = {p.name for p in out.iterdir()}
    assert {"ttir.mlir", "ttgir.mlir", "llir.ll", "ptx.ptx", "sass.sass", "kernel.cubin", "summary.json"} <= names
    assert json.loads((out / "summary.json").read_text())["kernel"] == "vector_add"
    # Our own files may be rewritten...
    code, _ = run("compile", "vector_add", "--out", str(out))
    assert code == 0
    # ...but not one the user edited, unless --force.
    (out / "ptx.ptx").write_text("my notes\n")
    code, output = run("compile", "vector_add", "--out", str(out))
    assert code == 2 and "ptx.ptx" in output and "--force" in output
    assert (out / "ptx.ptx").read_text() == "my notes\n"
    code, _ = run("compile", "vector_add", "--out", str(out), "--force")
    assert code == 0 and (out / "ptx.ptx").read_text() != "my notes\n"


def test_compile_out_writes_files_without_printing_the_stages(tmp_path):
    code, out = run("compile", "vector_add", "--show", "all", "--out", str(tmp_path / "o"))
    assert code == 0 and "wrote 8 files" in out
    assert "ld.global" not in out
    assert (tmp_path / "o" / "ptx.ptx").exists()


def test_out_refuses_a_foreign_file(tmp_path):
    (tmp_path / "summary.json").write_text("{}")
    code, output = run("compile", "vector_add", "--out", str(tmp_path))
    assert code == 2 and "summary.json" in output
    assert (tmp_path / "summary.json").read_text() == "{}"


@pytest.mark.parametrize("args,code,message", [
    (["compile", "gem"], 2, "unknown kernel 'gem'; did you mean 'gemm'"),
    (["compile", "nonexistent"], 2, "unknown kernel 'nonexistent'; known kernels: "),
    (["compile", "vector_add", "--meta", "BLOCK_SIZE=abc"], 2, "--meta BLOCK_SIZE=abc: expected int"),
    (["compile", "vector_add", "--meta", "BLOCK=64"], 2, "has no meta-parameter of that name"),
    (["compile", "vector_add", "--meta", "num_warps=8"], 2, "a launch setting, not a meta-parameter: use --num-warps 8"),
    (["compile", "vector_add", "--meta", "BLOCK_SIZE=100"], 2, "power of two"),
    (["compile", "vector_add", "--meta", "BLOCK_SIZE"], 2, "expected NAME=VALUE, as in --meta BLOCK_SIZE=1024"),
    (["compile", "vector_add", "--shape", "N4096"], 2, "expected NAME=VALUE, as in --shape M=4096"),
    (["compile", "vector_add", "--shape", "N=-4"], 2, "positive integers"),
    (["compile", "vector_add", "--shape", "N=1e6"], 2, "--shape N: sizes are positive integers; write N=1000000"),
    (["compile", "vector_add", "--shape", "M=4"], 2, "has dimensions N"),
    (["compile", "vector_add", "--num-warps", "3"], 2, "power of two"),
    (["compile", "vector_add", "--target", "sm_75x"], 2, "unknown target 'sm_75x'"),
    (["compile", "vector_add", "--target", "gfx942", "--show", "ptx"], 2, "stage 'ptx' does not exist for gfx942"),
    (["compile", "vector_add", "--show", "cubin"], 2, "binary"),
    (["compile", "tests/data/missing.py"], 2, "no such kernel file"),
    (["compile", "tests/data/my_kernels.py:scal"], 2, "did you mean 'scale'"),
    (["compile", "flash_attention", "--shape", "D=48"], 2, "head dimension D=48 is not supported"),
    (["compile", "tests/data/broken_compile.py"], 1, "tests/data/broken_compile.py:11: invalid operands of type pointer<fp32> and triton.language.float32 in `x = tl.load(x_ptr + offs * 0.5)`"),
])
def test_errors_are_one_line(args, code, message):
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], capture_output=True, text=True, cwd=ROOT,
                          env=env)
    assert done.returncode == code, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ")
    assert len(done.stderr.strip().splitlines()) == 1   # compile failures too: where, Triton's words, the line


def test_debug_shows_the_traceback():
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "--debug", "compile", "gem"], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode != 0 and "Traceback" in done.stderr


def test_compile_path_imports_no_torch():
    code = ("import sys; from click.testing import CliRunner; from cli import main; "
            "r = CliRunner().invoke(main, ['compile', 'gemm', '--show', 'sass', '--target', 'sm_90']); "
            "assert r.exit_code == 0, r.output; "
            "r = CliRunner().invoke(main, ['compile', 'gemm', '--show', 'amdgcn', '--target', 'gfx942']); "
            "assert r.exit_code == 0, r.output; "
            "print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_version_names_triton_and_torch():
    code, out = run("--version")
    assert code == 0 and "triton" in out and "torch" in out


def test_amd_header_counts_vgprs_per_lane_and_sgprs_per_wave():
    from playground.core import registry
    from playground.report import render
    spec = registry.load("vector_add")
    c = Request.of(spec, "gfx942").compile()
    (line,) = [l for l in render.header_lines(c) if l.startswith("registers")]
    r = c.resources
    assert line == f"registers   {r.vgprs} VGPRs + {r.agprs} AGPRs per lane, {r.sgprs} SGPRs per wave"


def test_a_ptxas_failure_is_one_line_with_ptxas_own_reason_and_stdout_stays_clean():
    # 64 registers cannot hold a 128x256 tile's accumulators: ptxas refuses. Triton prints the whole PTX and a
    # reproducer banner to stdout as it raises; none of it may reach --json's stdout.
    from conftest import outcome
    code, out, err = outcome("compile", "gemm", "--target", "sm_90", "--meta", "maxnreg=64", "--json")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: gemm: ptxas failed: (C7602) Insufficient registers (64)")
    assert "register target of" in err and "Repro command" not in err


def test_ptxas_lines_tied_to_a_ptx_line_are_the_reason_and_only_tritons_banner_is_dropped(capsys):
    from triton.runtime.errors import PTXASError

    from playground.artefact import compiler
    from playground.core import registry
    from playground.artefact.request import Request
    spec = registry.load("vector_add")
    log = ("Internal Triton PTX codegen error\n`ptxas` stderr:\n"
           "ptxas /tmp/x.ptx, line 6; error   : Not a name of any known instruction: 'bogus'\n"
           "ptxas fatal   : Ptx assembly aborted due to errors\n\nRepro command: ptxas -v /tmp/x.ptx\n")
    failure = compiler.compile_failure(spec, Request.of(spec, "sm_90").config, PTXASError(log))
    assert str(failure) == "vector_add: ptxas failed: Not a name of any known instruction: 'bogus'"
    # what Triton prints while compiling goes to stderr (tl.static_print, a ptxas log), except its failure banner
    with compiler._stdout_to_stderr():
        print("x: 3")
        print(f"\n\n{'=' * 64}\nInternal Triton PTX codegen error\n\n.version 9.4\n{'=' * 64}\n"
              "please share the reproducer above with Triton project.\n")
        print("after")
    out, err = capsys.readouterr()
    assert out == "" and err == "x: 3\nafter\n"
