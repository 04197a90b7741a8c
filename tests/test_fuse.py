"""`playground fuse`: what torch.compile's Inductor launches for a line of PyTorch, planned for a CUDA target
on a CPU-only machine (each plan is made in its own process, about ten seconds)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", autouse=True)
def own_cache(tmp_path_factory):
    """This file's plans go to a cache of its own: `fuse#N` means the last plan in the cache, and lesson 12's
    blocks, which may run beside these tests (pytest -n), reopen theirs from the default one."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TRITON_CACHE_DIR", str(tmp_path_factory.mktemp("fuse-cache")))
        yield


def fuse(*args, env=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), "fuse", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=ROOT)


def test_relu_of_a_matmul_is_a_library_gemm_then_one_fused_kernel():
    done = fuse("torch.relu(a @ b + 1)", "--shape", "a=4096x4096,b=4096x4096", "--target", "sm_90", "--json")
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    gemm, fused = plan["steps"]
    assert (gemm["kind"], gemm["name"], gemm["aten"]) == ("library", "extern_kernels.mm", ["aten.mm"])
    assert fused["kind"] == "Triton pointwise" and fused["name"] == "triton_poi_fused_add_relu_0"
    assert fused["aten"] == ["aten.add", "aten.relu"] and fused["numels"] == [4096 * 4096]
    assert fused["signature"]["in_out_ptr0"] == "*fp16" and "@triton.jit" in fused["source"]
    # the add's output never reaches DRAM: written once and read once as separate kernels, 2 bytes an element
    assert fused["saved_bytes"] == 2 * 4096 * 4096 * 2 == plan["saved_bytes_modelled"]
    # memory in use: the plan holds one 32 MiB buffer (the GEMM's output, reused in place for the result);
    # eager PyTorch holds the GEMM's and the add's outputs at once, then the add's and the relu's
    assert plan["peak_bytes"] == 4096 * 4096 * 2 and plan["eager_peak_bytes"] == 2 * 4096 * 4096 * 2
    jsonschema = pytest.importorskip("jsonschema")
    from playground import report
    jsonschema.Draft202012Validator(report.schema("fuse")).validate(plan)


def test_layer_norm_then_gelu_is_one_reduction_kernel_and_the_table_says_so():
    done = fuse("F.gelu(F.layer_norm(x, x.shape[-1:]))", "--shape", "x=8192x1024", "--target", "sm_80")
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith("1 ")]
    assert rows and rows[0][1:4] == ["Triton", "persistent", "reduction"]
    assert "triton_per_fused_gelu_native_layer_norm_0" in rows[0] and "on sm_80 (A100 SXM4 80GB)" in done.stdout


@pytest.mark.parametrize("expr, message", [("torch.relu(a @ c)", "NameError: name 'c' is not defined"),
                                           ("torch.relu(a @ b", "not a Python expression")])
def test_bad_expressions_are_one_line_and_exit_2(expr, message):
    done = fuse(expr, "--shape", "a=8x8,b=8x8")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and message in done.stderr


@pytest.mark.parametrize("given, message", [
    (",", "--target: name at least one target"),
    ("sm_90,h100", "--target: sm_90 and h100 name one target (sm_90); name each once"),
    ("l40s,L40S", "--target: l40s and L40S name one target (l40s); name each once")])
def test_targets_named_twice_or_not_at_all_are_one_line_and_exit_2(given, message):
    """Two names of one GPU would plan it twice and compare the plan with itself."""
    done = fuse("a + 1", "--shape", "a=8", "--target", given)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [f"error: {message}"]


def test_a_saved_plan_opens_its_generated_kernel_in_every_command(tmp_path):
    plan_file = tmp_path / "plan.json"
    cache = {"TRITON_CACHE_DIR": str(tmp_path / "cache")}      # fuse#N is the last plan in this cache
    env = {**os.environ, "PYTHONPATH": str(ROOT), **cache}

    def cli(*args):
        return subprocess.run([sys.executable, str(ROOT / "cli.py"), *map(str, args)], capture_output=True,
                              text=True, env=env, cwd=ROOT)
    none_yet = cli("compile", "fuse#2")
    assert none_yet.returncode == 2 and "fuse#2: no plan yet; run playground fuse EXPR first" in none_yet.stderr
    done = fuse("torch.relu(a @ b + 1)", "--shape", "a=4096x4096,b=4096x4096", "--target", "sm_80",
                "--save", plan_file, env=cache)
    assert done.returncode == 0, done.stderr
    assert f"open a generated kernel in any command as fuse#N (this plan, until the next one) or {plan_file}#N, " \
           "e.g. playground compile fuse#2 --show sass" in done.stdout
    kernels = json.loads(plan_file.read_text())["kernels"]["triton_poi_fused_add_relu_0"]
    assert kernels["grid_type"] == "Grid1D" and kernels["configs"][0]["XBLOCK"] >= 256

    shown = cli("compile", f"{plan_file}#2", "--json")
    assert shown.returncode == 0, shown.stderr
    compiled = json.loads(shown.stdout)
    assert compiled["target"] == "sm_80" and compiled["meta"] == {"XBLOCK": kernels["configs"][0]["XBLOCK"]}
    assert {s["name"]: s["assumed"] for s in compiled["specialization"]}["xnumel"] == ["divisible by 16"]
    grid = json.loads(cli("grid", f"{plan_file}#2", "--json").stdout)
    assert grid["ctas"] == 4096 * 4096 // kernels["configs"][0]["XBLOCK"]
    assert "SHI_REGISTERS" in cli("compile", f"{plan_file}#2", "--show", "sass").stdout
    listed = cli("compile", f"{plan_file}#2", "--config", "list")
    assert listed.returncode == 0 and f"{len(kernels['configs'])} configs" in listed.stdout
    library = cli("compile", f"{plan_file}#1")
    assert library.returncode == 2 and "the plan's generated kernels are step 2" in library.stderr
    # fuse#2, the last plan, is the same kernel: the same binary as the saved plan's step 2
    last = json.loads(cli("compile", "fuse#2", "--json").stdout)
    assert last["hash"] == compiled["hash"] and last["target"] == "sm_80"
    assert cli("compile", "fuse#1").returncode == 2


def test_a_plan_is_kept_and_read_back_but_a_run_is_not(tmp_path):
    # the same question again is answered from Triton's cache directory, not by a second Inductor process:
    # an answer altered there is what the second plan prints
    cache = {"TRITON_CACHE_DIR": str(tmp_path)}
    first = fuse("x.relu() * 2", "--shape", "x=64x64", "--target", "sm_80", env=cache)
    assert first.returncode == 0, first.stderr
    [kept] = tmp_path.rglob("playground-fuse-plan.json")
    answer = json.loads(kept.read_text())
    kept.write_text(json.dumps(answer | {"torch": "9.9.9-kept"}))
    again = fuse("x.relu() * 2", "--shape", "x=64x64", "--target", "sm_80", env=cache)
    assert again.returncode == 0 and "as torch 9.9.9-kept's Inductor plans it" in again.stdout
    assert first.stdout.replace(answer["torch"], "9.9.9-kept") == again.stdout
    # not kept: a --run (it executes), a plan for this machine's GPU, a file's function (its imports may change)
    from playground.inductor import plan
    asked = {"expr": "x.relu() * 2", "shapes": {"x": [64, 64]}, "torch_dtype": "float16", "target": "sm_80"}
    assert plan._plan_key(asked) is not None and plan._plan_key(asked) == plan._plan_key(dict(asked))
    assert plan._plan_key(asked | {"target": "sm_90"}) != plan._plan_key(asked)
    assert plan._plan_key(asked | {"run": True}) is None and plan._plan_key(asked | {"real_device": True}) is None
    assert plan._plan_key(asked | {"expr": f"{ROOT / 'tests' / 'data' / 'fuse_model.py'}:Block"}) is None


def test_a_function_or_a_module_class_in_a_file():
    model = ROOT / "tests" / "data" / "fuse_model.py"
    done = fuse(f"{model}:gelu_mlp_tail", "--shape", "x=4096x1024,w=1024x1024", "--json")
    assert done.returncode == 0, done.stderr
    assert [s["name"] for s in json.loads(done.stdout)["steps"]] == ["extern_kernels.mm", "triton_poi_fused_gelu_mul_0"]
    missing = fuse(f"{model}:nothing", "--shape", "x=8x8")
    assert missing.returncode == 2 and "expected a function or an nn.Module class" in missing.stderr


@pytest.mark.slow      # another Inductor plan (15 s); the module class is planned in the default run by --run's test
def test_a_module_class_plans_its_forward():
    model = ROOT / "tests" / "data" / "fuse_model.py"
    done = fuse(f"{model}:Block", "--shape", "x=4096x1024", "--dtype", "fp32", "--json")
    assert done.returncode == 0, done.stderr
    steps = json.loads(done.stdout)["steps"]
    assert [s["kind"] for s in steps] == ["Triton persistent reduction", "library", "Triton pointwise"]
    assert steps[2]["aten"] == ["aten.addmm", "aten.gelu"]      # the bias add fused with the GELU


@pytest.mark.slow      # 27 s; in the default run the ROCm test below shows a plan that differs by target
def test_the_same_line_planned_for_two_targets_differs_where_inductor_reads_the_device():
    # 240 row sums of 65536: an A100's 108 SMs count 240 outputs as enough parallelism (at least 2 per SM),
    # an H100's 132 do not, so Inductor splits each row in four and adds a second kernel to finish
    done = fuse("x.sum(dim=-1)", "--shape", "x=240x65536", "--dtype", "fp32", "--target", "sm_80,sm_90", "--json")
    assert done.returncode == 0, done.stderr
    both = json.loads(done.stdout)
    assert both["targets"] == ["sm_80", "sm_90"]
    a100, h100 = ([(s["name"], s["numels"]) for s in p["steps"]] for p in both["plans"])
    assert a100 == [("triton_red_fused_sum_0", [240, 65536])]
    assert h100 == [("triton_red_fused_sum_0", [960, 16384]), ("triton_per_fused_sum_1", [240, 4])]
    assert both["differences"][:2] == ["launches: sm_80 1, sm_90 2", "step 1 loop sizes: sm_80 240x65536; sm_90 960x16384"]
    assert [s["differs"] for s in both["steps"]] == [True, True] and both["steps"][1]["by_target"]["sm_80"] is None
    jsonschema = pytest.importorskip("jsonschema")
    from playground import report
    jsonschema.Draft202012Validator(report.schema("fuse")).validate(both)
    refused = fuse("x.sum()", "--shape", "x=8x8", "--target", "sm_80,sm_90", "--show-kernel", "1")
    assert refused.returncode == 2 and "--show-kernel, --save and --run take one --target" in refused.stderr


def test_run_executes_the_plan_in_the_interpreter_and_checks_it_against_eager():
    done = fuse("torch.relu(a @ b + 1)", "--shape", "a=4096x4096,b=4096x4096", "--run", "--json")
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    run = plan["run"]
    # Inductor's plan at 64x64 (scaled down), the GEMM on the CPU, the fused kernel interpreted once per config
    assert run["shapes"] == {"a": [64, 64], "b": [64, 64]} and run["chosen"] == "scaled"
    assert run["library_calls"] == ["extern_kernels.mm"] and list(run["kernels"]) == ["triton_poi_fused_add_relu_0"]
    assert len(run["runs"]) == run["kernels"]["triton_poi_fused_add_relu_0"] >= 1
    out = run["runs"][0]["outputs"][0]
    assert out["ok"] and out["shape"] == [64, 64] and out["dtype"] == "fp16" and out["total"] == 4096
    assert 0 < out["max_abs"] < 0.05 and run["ok"]
    jsonschema = pytest.importorskip("jsonschema")
    from playground import report
    jsonschema.Draft202012Validator(report.schema("fuse")).validate(plan)


def test_run_catches_a_wrong_kernel():
    # relu's zero made a one: max(1, x + 1) is wrong wherever x + 1 < 1
    broken = {"PLAYGROUND_FUSE_MUTATE": "tl.full([1], 0, tl.int32)=>tl.full([1], 1, tl.int32)"}
    done = fuse("torch.relu(a @ b + 1)", "--shape", "a=32x32,b=32x32", "--run", env=broken)
    assert done.returncode == 1 and done.stderr.strip() == "error: fuse --run: the plan's outputs differ from eager PyTorch's"
    assert "output 0 32x32 fp16 against eager PyTorch in fp64" in done.stdout and "WRONG" in done.stdout


def test_run_handles_libdevice_and_a_module_at_the_shapes_given():
    # the GELU's erf is a libdevice call, which Triton's interpreter cannot make itself (libdevice_shim.py)
    model = ROOT / "tests" / "data" / "fuse_model.py"
    done = fuse(f"{model}:Block", "--shape", "x=4096x1024", "--dtype", "fp32", "--run", "--run-shape", "x=16x1024")
    assert done.returncode == 0, done.stderr
    assert "at x=16x1024 (--run-shape)" in done.stdout and "triton_poi_fused_addmm_gelu_1" in done.stdout
    assert done.stdout.count(": correct") >= 1 and "WRONG" not in done.stdout


@pytest.mark.slow      # a second Inductor plan of the same model (20 s); the test above is its quick form
def test_a_module_that_cannot_run_at_the_scaled_down_shape_says_to_give_one():
    model = ROOT / "tests" / "data" / "fuse_model.py"
    scaled = fuse(f"{model}:Block", "--shape", "x=4096x1024", "--dtype", "fp32", "--run")
    assert scaled.returncode == 2 and "give others with --run-shape" in scaled.stderr


OUR_DIGESTS = """
import hashlib, json, sys
from playground.core import registry
from playground.artefact.request import Request
spec = registry.load(sys.argv[1])
out = []
for config in spec.configs:
    meta = {n: v for n, v in config.items() if n not in ("num_warps", "num_stages")}
    compiled = Request.of(spec, "sm_80", meta=meta, num_warps=config["num_warps"],
                          num_stages=config["num_stages"]).compile()
    out.append(hashlib.sha256(compiled.kernel.asm["cubin"]).hexdigest())
print(json.dumps(out))
"""


def test_a_plan_kernel_compiles_to_inductors_own_binary_byte_for_byte(tmp_path):
    # Inductor's CachingAutotuner compiles with its own options (debug=True, sanitize_overflow=False, ...);
    # the plan keeps them, so `compile PLAN#N --config K` builds the cubin Inductor builds for config K
    plan_file = tmp_path / "plan.json"
    done = fuse("torch.relu(a @ b + 1)", "--shape", "a=4096x4096,b=4096x4096", "--target", "sm_80", "--save", plan_file)
    assert done.returncode == 0, done.stderr
    module = tmp_path / "plan.kernels" / "triton_poi_fused_add_relu_0.py"
    from playground.core import registry
    spec = registry.load(f"{plan_file}#2")          # writes the kernel's module beside the plan

    def digests(script, cache):
        # each side compiles afresh in its own cache: a cubin carries its source file's path, and a cache
        # hit from another test's plan (the same kernel text elsewhere) would carry that one
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TRITON_CACHE_DIR": str(tmp_path / cache)}
        done = subprocess.run([sys.executable, *script], capture_output=True, text=True, env=env, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)
    theirs = digests([str(ROOT / "tests" / "data" / "inductor_precompile.py"), str(module),
                      "triton_poi_fused_add_relu_0", "sm_80"], "inductor-cache")
    ours = digests(["-c", OUR_DIGESTS, f"{plan_file}#2"], "our-cache")
    assert len(theirs) == len(spec.configs) >= 2
    assert ours == theirs
    assert spec.compile_options["debug"] is True and spec.compile_options["sanitize_overflow"] is False


def test_max_autotune_lists_the_gemm_candidates_ranked_by_the_model_and_shows_the_fused_template():
    done = fuse("torch.relu(a @ b + 1)", "--shape", "a=4096x4096,b=4096x4096", "--target", "sm_90",
                "--max-autotune", "--json")
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    (gemm,) = plan["autotune"]
    assert (gemm["op"], gemm["m"], gemm["n"], gemm["k"], gemm["batch"]) == ("mm", 4096, 4096, 4096, 1)
    by_name = {c["name"]: c for c in gemm["candidates"]}
    # torch 2.13's list for an fp16 4096^3 mm on sm_90: the library GEMM and 21 Triton template configs
    assert len(by_name) == 22 and by_name["mm"]["kind"] == "library"
    # the library at the roofline: max(2·4096³ / 989.4 TFLOP/s, 3·4096²·2 B / 3352 GB/s) = 138.9 us
    assert by_name["mm"]["modelled_us"] == pytest.approx(2 * 4096 ** 3 / 989.4e12 * 1e6)
    big = by_name["triton_mm_20"]
    assert big["config"]["BLOCK_M"] == 128 and big["config"]["BLOCK_N"] == 256 and big["config"]["BLOCK_K"] == 64
    # Inductor's shared-memory estimate: 2 B x (128·64 + 256·64) x 4 stages + 128; 32 x 16 CTAs
    assert big["smem_bytes"] == 2 * (128 * 64 + 256 * 64) * 4 + 128 and big["ctas"] == 512
    templates = [c for c in gemm["candidates"] if c["kind"] != "library" and c["modelled_us"] is not None]
    assert gemm["taken"] == min(templates, key=lambda c: c["modelled_us"])["name"] == "triton_mm_20"
    # each template by the performance model on kernels/gemm.py compiled with its config: the same binary
    # `playground compile gemm` builds, whose shared memory Inductor's estimate matches here (196608 B)
    from playground.artefact.request import Request
    stand_in = Request.of("gemm", "sm_90", meta={"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64,
                                                  "GROUP_SIZE_M": 8}, num_warps=8, num_stages=4,
                          shape={"M": 4096, "N": 4096, "K": 4096}, dtype="fp16").compile()
    assert big["shared_bytes"] == stand_in.resources.shared_total == 196608
    assert big["registers"] == stand_in.resources.registers and big["blocks_per_sm"] == 1
    assert big["modelled_low_us"] <= big["modelled_us"] <= big["modelled_high_us"] and big["bound"]
    # 128x128x128 with 4 stages asks for 256 KB: no launch on an H100 (227 KB a block at most)
    assert by_name["triton_mm_19"]["modelled_us"] is None and "cannot launch" in by_name["triton_mm_19"]["basis"]
    # ranks follow the modelled time; a tie shares the rank of the candidate above it, and differs from it by
    # at most 2% or swaps order at an end of the band
    ranked = sorted(gemm["candidates"], key=lambda c: (c["rank_modelled"], c["tie"]))   # a rank's leader first
    assert [c["rank_modelled"] for c in ranked][:2] == [1, 2] and ranked[-1]["rank_modelled"] == 22
    for above, c in zip(ranked, ranked[1:]):
        if c["tie"]:
            assert c["rank_modelled"] == above["rank_modelled"]
        else:
            assert c["rank_modelled"] == ranked.index(c) + 1
    assert sum(c["tie"] for c in ranked) >= 5          # the model cannot split stage counts of one tile
    # the plan took that template: one kernel with the bias add and the relu fused into the GEMM's epilogue
    (step,) = plan["steps"]
    assert (step["kind"], step["name"]) == ("Triton template", "triton_tem_fused_add_mm_relu_0")
    assert step["aten"] == ["aten.mm", "aten.add", "aten.relu"]
    jsonschema = pytest.importorskip("jsonschema")
    from playground import report
    jsonschema.Draft202012Validator(report.schema("fuse")).validate(plan)
    # the text `fuse --max-autotune` prints, from the same plan (a second run of Inductor would add nothing)
    from types import SimpleNamespace

    from playground.inductor import text as fuse_text
    shown = "\n".join(fuse_text.autotune_lines(SimpleNamespace(autotune=plan["autotune"])))
    assert "ranked by a model (modelled, not measured" in shown and "This is the model's pick, not Inductor's" in shown
    assert "3 tie  triton_mm_16" in shown and "us (modelled)  bound" in shown


def test_a_rocm_target_plans_with_hipblas_and_wavefront_64_and_differs_from_sm_90():
    # torch reports a ROCm build for it (fakes.ROCM_RELEASE); the MI300X's 304 CUs split 240 rows in two
    done = fuse("x.sum(dim=-1)", "--shape", "x=240x65536", "--dtype", "fp32", "--target", "sm_90,gfx942", "--json")
    assert done.returncode == 0, done.stderr
    h100, mi300 = ([(s["name"], s["numels"]) for s in p["steps"]] for p in json.loads(done.stdout)["plans"])
    assert h100 == [("triton_red_fused_sum_0", [960, 16384]), ("triton_per_fused_sum_1", [240, 4])]
    assert mi300 == [("triton_red_fused_sum_0", [480, 32768]), ("triton_per_fused_sum_1", [240, 2])]
    gemm = fuse("torch.relu(a @ b + 1)", "--shape", "a=4096x4096,b=4096x4096", "--target", "gfx942")
    assert gemm.returncode == 0, gemm.stderr
    assert "plans it as a ROCm 6.4.0 build: 2 launches" in gemm.stdout and "library: hipBLAS GEMM" in gemm.stdout


def _torch_fuse_reads() -> bool:
    from playground import compat
    try:
        compat.check("torch")
    except compat.UnsupportedVersion:
        return False
    return True


@pytest.mark.gpu
@pytest.mark.skipif(not __import__("playground.core.targets", fromlist=["native"]).native(), reason="needs a CUDA device")
@pytest.mark.skipif(not _torch_fuse_reads(), reason="fuse reads only the torch versions it supports (a GPU machine "
                                                    "may carry another)")
def test_on_a_gpu_machine_fuse_plans_for_that_gpu_and_run_uses_it():
    # no --target: Inductor plans for the GPU itself (no stand-ins), and --run is torch.compile on it at full size
    done = fuse("torch.relu(a @ b + 1)", "--shape", "a=1024x1024,b=1024x1024", "--run", "--json")
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)["run"]
    assert run["shapes"] == {"a": [1024, 1024], "b": [1024, 1024]} and run["chosen"] == "as asked"
    assert run["executed_by"].startswith("torch.compile on ") and run["ok"]
    assert run["runs"][0]["outputs"][0]["total"] == 1024 * 1024


def test_a_template_without_a_stand_in_keeps_the_tile_traffic_estimate():
    # fp32 has no stand-in (kernels/gemm.py is fp16 and bf16): the roofline over the tile traffic, as before
    from playground.core import devices
    from playground.inductor import autotune
    config = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "num_warps": 4, "num_stages": 2}
    figures = autotune.model("Triton template", config, 1024, 1024, 1024, 1, 4, devices.get("sm_90"), None,
                             "sm_90")
    # 16 x 16 CTAs, each reading 64 rows of A and 64 columns of B over K, plus the output, in fp32
    assert figures["ctas"] == 256 and figures["dram_bytes"] == (256 * 128 * 1024 + 1024 * 1024) * 4
    assert figures["basis"].startswith("roofline over wave fill") and "shared_bytes" not in figures
    # the stand-in's figures in fp16, where it applies
    fp16 = autotune.model("Triton template", config, 1024, 1024, 1024, 1, 2, devices.get("sm_90"), "fp16", "sm_90")
    assert fp16["basis"].startswith("performance model on kernels/gemm.py") and fp16["shared_bytes"] > 0


def test_a_gpu_by_name_is_planned_with_its_own_sm_count():
    """An H100 PCIe's 114 SMs take 240 row sums at two a SM, as an A100's 108 do: one kernel where the SXM part
    splits each row; the plan keeps the name given (its target, and what `fuse#N` reopens)."""
    done = fuse("x.sum(dim=-1)", "--shape", "x=240x65536", "--dtype", "fp32", "--target", "sm_90,h100-pcie", "--json")
    assert done.returncode == 0, done.stderr
    both = json.loads(done.stdout)
    assert both["targets"] == ["sm_90", "h100-pcie"]
    assert [p["device"] for p in both["plans"]] == ["H100 SXM5 80GB", "H100 PCIe"]
    assert both["differences"][0] == "launches: sm_90 2, h100-pcie 1"
