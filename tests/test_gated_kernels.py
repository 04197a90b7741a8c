"""Modules that define their kernels only when a GPU is present (issue 52, point 5): torchao's `if has_triton():`,
`if torch.cuda.is_available():`, a package's own cached `is_triton_available()`. They open on the virtual GPU of
--target (core/gated.py finds the conditions, registry.py reads the file there); when no kernel appears, or not the
one named, the message says which condition was false, or that the file defines no @triton.jit function at all.

The fixtures in tests/data/gated/ are written as the real packages write them; each command runs as its own
process (reading on a virtual GPU patches torch in that process), and the user's file is never changed.
"""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
GATED = ROOT / "tests" / "data" / "gated"
ARGS = "x_ptr=fp32[4096], out_ptr=fp32[4096], n=4096, BLOCK=1024, grid=4"


def cli(*args, before: str = ""):
    """The CLI in a process of its own, in the fixtures' folder; `before`: Python run first in that process."""
    code = f"{before}\nimport sys\nfrom playground.cli import main\nsys.argv[0] = 'playground'\nmain()"
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, cwd=GATED,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)


def digests() -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in GATED.glob("*.py")}


def warnings_of(done) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.startswith("warning:")]


def test_a_module_behind_torchs_has_triton_opens_on_the_virtual_gpu_though_has_triton_said_no_first():
    """has_triton is functools.cache'd: asked on the CPU before the file is read (as torch or a package's __init__
    may), it would keep saying False; the read asks it again on the virtual GPU."""
    before = digests()
    done = cli("compile", "has_triton_gate.py:_scale_kernel", "--args",
               "x_ptr=fp32[4096], out_ptr=fp32[4096], scale=2.0, n=4096, BLOCK_SIZE=256, grid=16", "-t", "sm_90",
               "--show", "ttir", before="from torch.utils._triton import has_triton\nassert not has_triton()")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("// kernel      _scale_kernel (")
    assert warnings_of(done) == ["warning: has_triton_gate.py defines its kernels only when a GPU is present "
                                 "(`if has_triton():` (line 6)): read its definitions on a virtual sm_90, without "
                                 "running its top-level demo code"]
    assert digests() == before


def test_a_module_behind_torch_cuda_is_available_opens_on_the_target_asked_for():
    done = cli("compile", "cuda_gate.py:relu_kernel", "--args", ARGS, "-t", "sm_80", "--json")
    assert done.returncode == 0, done.stderr
    assert '"target": "sm_80"' in done.stdout
    assert "`if torch.cuda.is_available():` (line 4)" in warnings_of(done)[0]


def test_a_kernel_for_another_generation_is_named_with_the_condition_that_kept_it_out():
    """On sm_90 the file defines copy_kernel but not its Blackwell kernel: the message says why, in one line,
    exit 2; on sm_100 the same kernel compiles."""
    done = cli("compile", "blackwell_only.py:tcgen05_copy_kernel", "--args", ARGS, "-t", "sm_90")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (error,) = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert error.endswith("kernels there: copy_kernel; tcgen05_copy_kernel (line 33) is defined only under "
                          "`if _is_sm100():` (line 30), false on a virtual sm_90"), error
    named = cli("compile", "blackwell_only.py:tcgen05_copy_kernel", "-t", "sm_90")
    assert named.returncode == 2 and named.stderr.strip().endswith(
        "blackwell_only.py has no kernel named 'tcgen05_copy_kernel'; tcgen05_copy_kernel (line 33) is defined only "
        "under `if _is_sm100():` (line 30), false on a virtual sm_90")
    blackwell = cli("compile", "blackwell_only.py:tcgen05_copy_kernel", "--args", ARGS, "-t", "sm_100",
                    "--show", "ttir")
    assert blackwell.returncode == 0, blackwell.stderr
    assert "// target      sm_100 (" in blackwell.stdout


def test_no_kernel_at_all_says_which_condition_was_false():
    done = cli("compile", "rocm_only.py:wave64_sum_kernel", "--args", ARGS, "-t", "sm_90")
    assert done.returncode == 2
    assert done.stderr.strip().endswith(
        "kernels there: none (its kernels are defined only under `if torch.version.hip is not None and "
        "torch.cuda.is_available():` (line 4), false on a virtual sm_90)"), done.stderr


def test_a_module_that_only_imports_its_kernels_says_so_and_where_they_are():
    done = cli("compile", "wrappers_only.py")
    assert done.returncode == 2 and not warnings_of(done)        # it imports as it is: no virtual GPU needed
    assert done.stderr.strip().endswith(
        "wrappers_only.py defines no KernelSpec and no kernel (wrappers_only.py defines no @triton.jit function "
        "itself; it imports add_kernel from plain_kernels: open the module that defines them)"), done.stderr


def test_a_script_that_imports_a_gated_module_launches_its_kernel_under_run(tmp_path):
    script = tmp_path / "use_gated.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(GATED)!r})\nimport torch\nimport has_triton_gate\n"
                      "x = torch.randn(5000, device='cuda')\n"
                      "print('max difference', (has_triton_gate.scale(x, 3.0) - x * 3).abs().max().item())\n")
    done = cli("run", "-t", "sm_90", script)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "max difference 0.0" in done.stdout
    assert "_scale_kernel  has_triton_gate.py:20" in done.stdout + done.stderr


def test_gates_are_read_from_the_text_without_running_it():
    from playground.core import gated
    assert [g.describe() for g in gated.gates(GATED / "blackwell_only.py")] == [
        "`if is_triton_available():` (line 21)", "`if _is_sm100():` (line 30)"]
    assert gated.gates(GATED / "plain_kernels.py") == gated.gates(GATED / "wrappers_only.py") == []
    assert [(k.name, k.inside) for k in gated.kernels(GATED / "cuda_gate.py")] == [("relu_kernel", None)]
