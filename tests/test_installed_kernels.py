"""Real projects' kernels where pip puts them, named by module (issue 40, items 2 and 11): 32 kernels of 8 projects
installed from the package index (tests/third_party/packages.txt pins each file by sha256; INSTALLED.json beside it
lists the kernels, each with the launch its project's own wrapper makes, and where that wrapper is).

For each kernel, `compile --show sass`, `grid`, `occupancy`, `inspect` and `diff` run as a user types them, in one
process of their own (a package that asks the GPU as it loads opens on the virtual GPU, which patches torch in that
process). The figures must agree across the commands: `grid`'s CTAs are the launch's, `occupancy` reads the
registers `compile` shows. `sweep` runs on one kernel of each project; on every kernel in the slow run.
"""
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import invoke

ROOT = Path(__file__).resolve().parent.parent
THIRD_PARTY = ROOT / "tests" / "third_party"
KERNELS = json.loads((THIRD_PARTY / "INSTALLED.json").read_text())
PINNED = {line.split("==")[0]: line.split("==")[1].split()[0]
          for line in (THIRD_PARTY / "packages.txt").read_text().splitlines() if "==" in line and line[0] != "#"}
PERMISSIVE = {"MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "AML"}   # AML: Apple's sample-code licence

# the four commands in one process: each through click as the console script runs it
FOUR_COMMANDS = """
import json, sys
from click.testing import CliRunner
from playground.cli import main
ref, options = sys.argv[1], json.loads(sys.argv[2])
out = {}
for command, extra in (("compile", ["--show", "sass"]), ("grid", ["--json"]), ("occupancy", ["--json"]),
                       ("inspect", ["--json"]), ("diff", ["--a", "num_stages=2", "--b", "num_stages=4", "--json"])):
    done = CliRunner().invoke(main, [command, ref, *options, *extra])
    out[command] = {"exit": done.exit_code, "stdout": done.stdout, "stderr": done.stderr}
print("FOUR" + json.dumps(out))
"""


def test_the_list_names_at_least_20_kernels_of_8_projects_each_pinned_and_permissive():
    assert len(KERNELS) >= 20 and len({k["package"] for k in KERNELS}) >= 8
    for kernel in KERNELS:
        assert kernel["licence"] in PERMISSIVE, kernel
        assert PINNED.get(kernel["package"], "0.8.5" if kernel["package"] == "liger-kernel" else None) \
            == kernel["version"], kernel
        assert re.fullmatch(r"[\w/.]+\.py:\w+ line \d+", kernel["launched_by"]), kernel["launched_by"]


def installed_or_skip(module: str):
    if importlib.util.find_spec(module.split(".")[0]) is None:
        pytest.skip(f"{module.split('.')[0]} is not installed (scripts/test.sh installs tests/third_party/packages.txt)")


@pytest.mark.parametrize("kernel", KERNELS, ids=[f"{k['package']}:{k['kernel']}" for k in KERNELS])
def test_an_installed_kernel_opens_by_module_name_in_compile_grid_occupancy_and_inspect(kernel):
    installed_or_skip(kernel["module"])
    ref = f"{kernel['module']}:{kernel['kernel']}"
    options = ["--args", kernel["args"], "-t", "sm_90", *kernel["options"]]
    env = {**os.environ, "PYTHONPATH": str(ROOT), **kernel["env"]}
    done = subprocess.run([sys.executable, "-c", FOUR_COMMANDS, ref, json.dumps(options)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "FOUR" in done.stdout, done.stderr[-3000:]
    out = json.loads(done.stdout.split("FOUR", 1)[1])
    for command, result in out.items():
        assert result["exit"] == 0, (command, result["stderr"][-2000:])

    shown = out["compile"]["stdout"]
    assert shown.startswith(f"// kernel      {kernel['kernel']} (")
    assert f", imported as {kernel['module']} (installed module, root " in shown.splitlines()[0]
    registers = int(re.search(r"// registers   (\d+) per thread", shown).group(1))
    assert registers == kernel["registers"]            # as recorded when the list was made: the same binary
    assert re.search(r"^\s+/\*[0-9a-f]{4}\*/\s+\S+", shown, re.M), "no SASS instruction shown"

    ctas = 1
    for n in re.search(r"grid=\(?([\d, ]+)\)?", kernel["args"]).group(1).split(","):
        ctas *= int(n)
    assert json.loads(out["grid"]["stdout"])["ctas"] == ctas
    figures = json.loads(out["occupancy"]["stdout"])
    assert figures["registers"] == registers and 0 < figures["occupancy"] <= 1
    assert json.loads(out["inspect"]["stdout"])["mix"]["instructions"] > 0
    sides = json.loads(out["diff"]["stdout"])
    stages = HEURISTIC_STAGES.get(kernel["kernel"])
    assert (sides["a"]["num_stages"], sides["b"]["num_stages"]) == ((stages, stages) if stages else (2, 4))
    assert isinstance(sides["identical"], bool)


# cut-cross-entropy's @triton.heuristics set num_stages (and num_warps) for the launch, over what the caller asked,
# as Triton's Heuristics.run does: diff's two sides are the heuristic's, not --a's and --b's
HEURISTIC_STAGES = {"_cce_lse_forward_kernel": 3, "_indexed_neg_dot_forward_kernel": 4}


FIRST_OF_EACH = {k["package"]: k for k in reversed(KERNELS)}       # the first kernel listed for each project


@pytest.mark.parametrize("kernel", [
    pytest.param(k, marks=() if FIRST_OF_EACH[k["package"]] is k else pytest.mark.slow) for k in KERNELS],
    ids=[f"{k['package']}:{k['kernel']}" for k in KERNELS])
def test_sweep_compiles_and_ranks_an_installed_kernels_configs(kernel):
    installed_or_skip(kernel["module"])
    options = dict(zip(kernel["options"][::2], kernel["options"][1::2]))     # sweep takes the launch's as ranges
    warps = ["-m", f"num_warps={options['--num-warps']}"] if "--num-warps" in options else []
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "sweep", f"{kernel['module']}:{kernel['kernel']}",
                           "--args", kernel["args"], "-t", "sm_90", *warps, "-m", "num_stages=2,3",
                           "--jobs", "1", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **kernel["env"]})
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout)["rows"]
    assert len(rows) == 2 and all(r["status"] == "ok" for r in rows), rows
    assert sorted(r["rank"] for r in rows if r["rank"])[0] == 1


def test_flag_gems_enable_sends_plain_pytorch_through_its_triton_kernels_on_the_virtual_gpu():
    """`import flag_gems` asks nvidia-smi which GPU it is on (the virtual GPU's stand-in answers); `enable()`
    registers its kernels for torch's CUDA key, and the virtual GPU's tensors dispatch to them."""
    installed_or_skip("flag_gems")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("GEMS_VENDOR", None)
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "run", "-t", "sm_90", "--json",
                           str(ROOT / "tests" / "data" / "scripts" / "flag_gems_ops.py")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    for name in ("softmax", "sum", "layer_norm"):
        difference = float(re.search(rf"^{name} cuda:0 max difference (\S+)$", done.stderr, re.M).group(1))
        assert difference < 1e-5, (name, difference)
    launches = json.loads(done.stdout)["launches"]
    ran = [launch["kernel"] for launch in launches if launch["executed"]]
    assert ran == ["softmax_kernel_inner", "sum_dim_kernel_inner", "layer_norm_persistent_kernel"]
    assert all("error" not in launch and launch["file"].endswith(".py") and "/flag_gems/" in launch["file"]
               for launch in launches)


GLUON = next(k for k in KERNELS if k["kernel"] == "cross_entropy_fwd_kernel_gluon")   # fla's, written in Gluon

GLUON_VIEWS = """
import json, sys
from click.testing import CliRunner
from playground.cli import main
from playground.web.workspace import Workspace
ref, args = sys.argv[1], sys.argv[2]
ttir = CliRunner().invoke(main, ["compile", ref, "--args", args, "-t", "sm_90", "--show", "ttir"])
ttgir = CliRunner().invoke(main, ["compile", ref, "--args", args, "-t", "sm_90", "--show", "ttgir"])
diff = CliRunner().invoke(main, ["diff", ref, "--args", args, "--a", "target=sm_80", "--b", "target=sm_90", "--json"])
page = Workspace(ref, "sm_90", args).compile({"stages": ["ttgir", "sass"]})
print("VIEWS" + json.dumps({"ttir": [ttir.exit_code, ttir.stderr], "ttgir": [ttgir.exit_code, ttgir.stdout],
                            "diff": [diff.exit_code, diff.stdout], "page": sorted(page["stages"])}))
"""


def test_a_real_gluon_kernel_has_every_stage_from_ttgir_in_compile_diff_and_the_page():
    installed_or_skip(GLUON["module"])
    ref = f"{GLUON['module']}:{GLUON['kernel']}"
    done = subprocess.run([sys.executable, "-c", GLUON_VIEWS, ref, GLUON["args"]], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and "VIEWS" in done.stdout, done.stderr[-3000:]
    views = json.loads(done.stdout.split("VIEWS", 1)[1])
    code, said = views["ttir"]
    assert code == 2 and said.strip().endswith("is a Gluon kernel (@gluon.jit): Triton lowers it straight to TTGIR, "
                                               "with the layouts its author wrote, so it has no TTIR; its stages "
                                               "start at ttgir"), said
    code, ttgir = views["ttgir"]
    assert code == 0 and "#ttg.blocked<{sizePerThread = [8]" in ttgir      # the author's BlockedLayout([R], ...)
    code, diff = views["diff"]
    sides = json.loads(diff)
    assert code == 0 and not sides["identical"] and (sides["a"]["target"], sides["b"]["target"]) == ("sm_80", "sm_90")
    assert {"ttgir", "sass"} <= set(views["page"]) and "ttir" not in views["page"]


def test_a_package_whose_init_fails_is_skipped_with_a_one_line_warning():
    """FlagGems' __init__ asks nvidia-smi for the GPU when nothing says which vendor it runs on; a plain import
    fails with its two-line RuntimeError. The kernel module opens without the __init__, said in one line."""
    installed_or_skip("flag_gems")
    kernel = next(k for k in KERNELS if k["kernel"] == "topk_gating_softmax_kernel")
    env = {k: v for k, v in os.environ.items() if k not in kernel["env"]} | {"PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "compile", f"{kernel['module']}:{kernel['kernel']}",
                           "--args", kernel["args"], "-t", "sm_90", *kernel["options"]],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    (warning,) = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert "imported as flag_gems.fused.topk_softmax without running flag_gems/__init__.py (RuntimeError: No " \
           "device were detected on your machine ! Please check that your driver is complete. )" in warning


def test_liger_rms_norm_backward_launches_one_program_per_sm_as_on_a_gpu():
    """Its backward asks whether its saved input is on CUDA to size its grid by the SM count: on the virtual H100 it
    must launch 132 programs, as on a real one (it launched 1 while backward saw CPU tensors)."""
    installed_or_skip("liger_kernel")
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "run", "-t", "sm_90", "--json",
                           str(ROOT / "tests" / "data" / "scripts" / "liger_rms_norm_backward.py")],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    launches = json.loads(done.stdout)["launches"]
    assert [(launch["kernel"], launch["grid"]) for launch in launches] == [
        ("_rms_norm_forward_kernel", [256, 1, 1]), ("_rms_norm_backward_kernel", [132, 1, 1])]
    assert float(re.search(r"grad max difference (\S+)", done.stderr).group(1)) < 1e-5


def test_a_misspelt_kernel_of_an_installed_module_is_met_with_the_kernels_it_defines():
    """Liger-Kernel's kernels are all underscored, and cut-cross-entropy's modules import helpers of others: the
    list names the module's own kernels, underscored too."""
    installed_or_skip("liger_kernel")
    typo = invoke("compile", "liger_kernel.ops.geglu:_geglu_tanh_backwrd_kernel", "-t", "sm_90")
    assert typo.exit_code == 2 and typo.stderr.strip().endswith(
        "geglu.py has no kernel named '_geglu_tanh_backwrd_kernel'; did you mean '_geglu_tanh_backward_kernel' or "
        "'_geglu_tanh_forward_kernel'?")
    listed = invoke("compile", "liger_kernel.ops.geglu:nope", "--args", "a=fp32[4]", "-t", "sm_90")
    assert listed.exit_code == 2 and listed.stderr.strip().endswith(
        "kernels there: _geglu_tanh_backward_kernel, _geglu_tanh_forward_kernel")


def test_sweep_shows_the_stages_a_kernels_heuristics_built_with_not_those_asked_for():
    """cut-cross-entropy's heuristics set num_stages=4 whatever is asked: both rows are that binary, and say so."""
    installed_or_skip("cut_cross_entropy")
    kernel = next(k for k in KERNELS if k["kernel"] == "_indexed_neg_dot_forward_kernel")
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "sweep", f"{kernel['module']}:{kernel['kernel']}",
                           "--args", kernel["args"], "-t", "sm_90", "-m", "num_stages=2,3", "--jobs", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert ", shape the launch's own arguments, dtype bf16;" in lines[0]
    rows = [line for line in lines[2:4]]
    assert rows[0].split()[0] == rows[1].split()[0] == "4"
    assert rows[0].endswith("the kernel's heuristics set num_stages=4 (asked 2)")
    assert rows[1].endswith("the kernel's heuristics set num_stages=4 (asked 3)")


# --- a sample of further packages (issue 52, point 5): one kernel of each, compiled as a new user would ----------
SAMPLED = json.loads((THIRD_PARTY / "SAMPLED.json").read_text())

# every sampled kernel in one process (on sm_90: the files read on a virtual GPU are read on that one), each result
# apart: its exit status, the header's first line, and the warnings
SAMPLED_COMPILES = """
import json, sys
from click.testing import CliRunner
from playground.cli import main
out = {}
for kernel in json.loads(sys.argv[1]):
    ref = f"{kernel['module']}:{kernel['kernel']}"
    done = CliRunner().invoke(main, ["compile", ref, "--args", kernel["args"], "-t", "sm_90", *kernel["options"],
                                     "--show", "ttir"])
    out[ref] = {"exit": done.exit_code, "first": (done.stdout.splitlines() or [""])[0],
                "warnings": [l for l in done.stderr.splitlines() if l.startswith("warning:")],
                "error": done.stderr[-1500:] if done.exit_code else ""}
print("SAMPLED" + json.dumps(out))
"""


def test_the_sample_is_ten_further_packages_each_pinned_and_permissive():
    assert len({k["package"] for k in SAMPLED}) >= 10
    assert not {k["package"] for k in SAMPLED} & {k["package"] for k in KERNELS}     # not covered before
    for kernel in SAMPLED:
        assert kernel["licence"] in PERMISSIVE, kernel
        assert PINNED.get(kernel["package"]) == kernel["version"], kernel


@pytest.fixture(scope="module")
def sampled_compiles():
    present = [k for k in SAMPLED if importlib.util.find_spec(k["module"].split(".")[0]) is not None]
    if not present:
        return {}
    done = subprocess.run([sys.executable, "-c", SAMPLED_COMPILES, json.dumps(present)], cwd=ROOT,
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])})
    assert done.returncode == 0 and "SAMPLED" in done.stdout, done.stderr[-3000:]
    return json.loads(done.stdout.split("SAMPLED", 1)[1])


@pytest.mark.parametrize("kernel", SAMPLED, ids=[f"{k['package']}:{k['kernel']}" for k in SAMPLED])
def test_a_sampled_packages_kernel_opens_by_module_name_and_compiles(kernel, sampled_compiles):
    installed_or_skip(kernel["module"])
    result = sampled_compiles[f"{kernel['module']}:{kernel['kernel']}"]
    assert result["exit"] == 0, result["error"]
    assert result["first"].startswith(f"// kernel      {kernel['kernel']} (")
    assert f", imported as {kernel['module']} (installed module, root " in result["first"]
    if "if _TRITON:" in kernel["opens"]:        # torchnorm: its kernels only when a GPU is present
        assert any("defines its kernels only when a GPU is present (`if _TRITON:` (line 29)" in w
                   for w in result["warnings"]), result["warnings"]
    elif "asks torch for CUDA" in kernel["opens"]:      # read on the virtual GPU; or, once an earlier kernel's
        assert all("does not import as it is (AssertionError: Torch not compiled with CUDA enabled)" in w   # read
                   for w in result["warnings"]), result["warnings"]       # installed it, imported under it as it is
    else:
        assert not result["warnings"], result["warnings"]
