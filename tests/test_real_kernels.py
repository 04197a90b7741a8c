"""Kernels written the way real projects write them (tests/data/real/), through every command.

Each of these once failed: an @triton.autotune or @triton.heuristics object as the kernel, a bare
kernel with no spec, a grid sized by the SM count, a constexpr named num_stages, a dtype constexpr,
a helper module beside the kernel file, boolean tensors, a warp-specialised kernel on sm_100.
"""
import importlib.util
import json
import re
from pathlib import Path

import pytest
from conftest import invoke

from playground.core import registry
from playground.artefact.request import Request
from playground.sweep import space

REAL = Path(__file__).resolve().parent / "data" / "real"
HAS_TORCH = importlib.util.find_spec("torch") is not None
KERNELS = ["autotuned_scale", "row_sum", "persistent_copy", "stage_constexpr", "dtype_constexpr", "bool_mask",
           "device_descriptors", "atomic_sum", "persistent_gemm"]


def path(name: str) -> str:
    return str(REAL / f"{name}.py")


def header(*args) -> dict:
    """The compile header's lines by their first word."""
    result = invoke("compile", *args)
    assert result.exit_code == 0, result.stderr
    return {line[3:15].strip(): line[15:] for line in result.stdout.splitlines() if line.startswith("// ")}


@pytest.mark.compile
@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("command", ["compile", "grid", "occupancy", "inspect"])
def test_every_offline_command_takes_the_kernel_as_written(name, command):
    result = invoke(command, path(name), "--target", "sm_90")
    assert result.exit_code == 0, result.stderr


@pytest.mark.compile
def test_an_autotuned_kernel_takes_its_configs_and_its_heuristics():
    spec = registry.load(path("autotuned_scale"))
    assert type(spec.kernel).__name__ == "JITFunction" and len(spec.configs) == 8
    assert spec.configs[5] == {"BLOCK": 1024, "num_warps": 4, "num_stages": 3}
    # the first config by default, the heuristic on top: 2048 divides 64, 1000 does not
    assert Request.of(spec, "sm_90").config.meta == {"BLOCK": 64, "EVEN": True}
    assert Request.of(spec, "sm_90", shape={"N": 1000}).config.meta == {"BLOCK": 64, "EVEN": False}
    listed = invoke("compile", path("autotuned_scale"), "--config", "list")
    assert listed.exit_code == 0 and "8 configs, from its @triton.autotune" in listed.stdout
    picked = header(path("autotuned_scale"), "-t", "sm_90", "--config", "5")
    assert picked["launch"].startswith("num_warps=4 ") and picked["meta"] == "BLOCK=1024, EVEN=True"


@pytest.mark.compile
def test_sweep_prunes_as_the_autotuner_prunes():
    spec = registry.load(path("autotuned_scale"))
    assert len(space.space(spec, shape={"N": 4096})) == 8
    small = space.space(spec, shape={"N": 200})                 # blocks larger than the problem are pruned
    assert small == [{"BLOCK": 64, "num_warps": 2, "num_stages": 3}, {"BLOCK": 64, "num_warps": 4, "num_stages": 3}]


@pytest.mark.compile
def test_heuristics_set_the_block_from_the_row():
    assert header(path("row_sum"), "-t", "sm_90")["meta"] == "BLOCK=1024"
    assert header(path("row_sum"), "-t", "sm_90", "--shape", "N=100")["meta"] == "BLOCK=128"


@pytest.mark.compile
@pytest.mark.parametrize("kernel", ["persistent_copy", "persistent_gemm"])
@pytest.mark.parametrize("target, sms", [("sm_90", 132), ("sm_80", 108), ("gfx942", 304)])
def test_a_persistent_grid_follows_the_target(kernel, target, sms):
    result = invoke("grid", path(kernel), "--target", target, "--json")
    assert json.loads(result.stdout)["grid"] == [sms, 1, 1]


@pytest.mark.compile
def test_grid_says_when_each_cta_owns_many_tiles():
    persistent = invoke("grid", path("persistent_copy"), "--target", "sm_80").stdout
    assert "persistent  the kernel reads tl.num_programs: each CTA loops over several tiles" in persistent
    assert "persistent" not in invoke("grid", "vector_add", "--target", "sm_80").stdout


@pytest.mark.compile
def test_a_constexpr_named_num_stages_is_the_launch_option():
    shown = header(path("stage_constexpr"), "-t", "sm_90")
    assert shown["launch"].endswith("num_stages=4") and shown["meta"] == "BLOCK=256, num_stages=4"
    shown = header(path("stage_constexpr"), "-t", "sm_90", "--num-stages", "2")
    assert shown["launch"].endswith("num_stages=2") and shown["meta"] == "BLOCK=256, num_stages=2"


@pytest.mark.compile
def test_string_and_dtype_constexprs_are_set_with_meta():
    ttir = invoke("compile", path("dtype_constexpr"), "-t", "sm_90", "--meta", "OUT_DTYPE=bf16", "--show", "ttir",
                  "--no-header")
    assert ttir.exit_code == 0 and re.search(r"truncf .* to tensor<256xbf16>", ttir.stdout)
    default = invoke("compile", path("dtype_constexpr"), "-t", "sm_90", "--show", "ttir", "--no-header")
    assert "bf16" not in default.stdout and re.search(r"truncf .* to tensor<256xf16>", default.stdout)
    bad = invoke("compile", path("dtype_constexpr"), "-t", "sm_90", "--meta", "OUT_DTYPE=fp17")
    assert bad.exit_code == 2 and "--meta OUT_DTYPE=fp17: not a dtype" in bad.stderr


@pytest.mark.compile
def test_a_kernel_file_imports_the_helpers_beside_it():
    assert registry.load(path("dtype_constexpr")).name == "convert"     # `from real_helpers import doubled`


@pytest.mark.compile
def test_boolean_tensors_compile():
    assert "keep_ptr: 16-byte aligned" in header(path("bool_mask"), "-t", "sm_90")["specialised"]


@pytest.mark.compile
def test_a_warp_specialised_kernel_counts_the_warps_its_binary_runs():
    shown = header(path("warp_specialized"), "-t", "sm_100")
    assert shown["launch"].startswith("num_warps=4 (256 threads in the binary: warp-specialised, 8 warps)")
    occupancy = json.loads(invoke("occupancy", path("warp_specialized"), "-t", "sm_100", "--json").stdout)
    assert occupancy["threads"] == 256


@pytest.mark.compile
def test_global_scratch_is_in_the_header():
    assert header(path("device_descriptors"), "-t", "sm_90")["scratch"].startswith("256 B of global memory")


@pytest.mark.compile
def test_show_source_is_the_file_the_kernel_lives_in():
    source = invoke("compile", path("spec_elsewhere"), "-t", "sm_90", "--show", "source", "--no-header")
    assert source.exit_code == 0 and "def add_kernel(" in source.stdout and "KernelSpec" not in source.stdout


@pytest.mark.compile
def test_a_bare_kernel_compiles_with_args_and_the_jit_specialisation():
    args = "x_ptr=fp32[98432], y_ptr=fp32[98432], out_ptr=fp32[98432], n_elements=98432, BLOCK_SIZE=1024, grid=97"
    aligned = header(f"{path('bare_add')}:add_kernel", "-t", "sm_90", "--args", args)
    assert aligned["specialised"] == ("x_ptr: 16-byte aligned; y_ptr: 16-byte aligned; out_ptr: 16-byte aligned; "
                                      "n_elements: divisible by 16")
    shifted = header(f"{path('bare_add')}:add_kernel", "-t", "sm_90", "--args",
                     args.replace("x_ptr=fp32[98432]", "x_ptr=fp32[98432]+1").replace("=98432,", "=98431,"))
    assert shifted["specialised"] == "y_ptr: 16-byte aligned; out_ptr: 16-byte aligned"
    grid = invoke("grid", f"{path('bare_add')}:add_kernel", "-t", "sm_80", "--args", args, "--json")
    assert json.loads(grid.stdout)["ctas"] == 97
    missing = invoke("compile", f"{path('bare_add')}:add_kernel", "--args", "x_ptr=fp32[8]")
    assert missing.exit_code == 2 and "needs y_ptr, out_ptr, n_elements" in missing.stderr
    no_args = invoke("compile", f"{path('bare_add')}:add_kernel")
    assert no_args.exit_code == 2 and "pass its arguments (--args" in no_args.stderr


@pytest.mark.compile
def test_bench_models_a_bare_kernel_from_its_tensors_and_says_so():
    """No spec counts a bare kernel's work: bench models it with each tensor argument's bytes once and no
    FLOPs (the rule `run` uses for a live launch), and every output says that is what it stands on."""
    args = "x_ptr=fp16[98432], y_ptr=fp16[98432], out_ptr=fp16[98432], n_elements=98432, BLOCK_SIZE=1024, grid=97"
    done = invoke("bench", f"{path('bare_add')}:add_kernel", "-t", "sm_90", "--args", args, "--json")
    assert done.exit_code == 0, done.stderr
    point = json.loads(done.stdout)["points"][0]
    assert (point["estimate"]["flops"], point["estimate"]["bytes"]) == (0, 3 * 98432 * 2)
    assert point["dtype"] == "fp16"                        # the tensors' dtype, not the fp32 default
    basis = "FLOPs and bytes: its tensor arguments' bytes, each read or written once; no FLOPs"
    assert any(n.startswith(basis) for n in point["notes"])
    assert point["explained"]["figures"]["dram_traffic"] == 3 * 98432 * 2
    assert any(n.startswith(basis) for n in point["explained"]["notes"])
    text = invoke("bench", f"{path('bare_add')}:add_kernel", "-t", "sm_90", "--args", args)
    assert text.exit_code == 0 and text.stdout.count(basis) == 1          # said once, on a modelled line
    assert text.stdout.splitlines()[0] == "modelled  kernel    add_kernel on sm_90 (H100 SXM5 80GB), fp16"


@pytest.mark.compile
def test_bench_takes_a_bare_kernels_own_launch_metadata():
    """Tutorial 09's way to count work, a launch_metadata hook, is asked before the tensors are."""
    args = ("a_ptr=fp16[512,512], b_ptr=fp16[512,512], c_ptr=fp16[512,512], M=512, N=512, K=512, "
            "BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, grid=8x8")
    done = invoke("bench", f"{path('bare_matmul_metadata')}:matmul_kernel", "-t", "sm_80", "--args", args, "--json")
    assert done.exit_code == 0, done.stderr
    point = json.loads(done.stdout)["points"][0]
    assert (point["estimate"]["flops"], point["estimate"]["bytes"]) == (2 * 512**3, 2 * 3 * 512 * 512)
    assert "FLOPs and bytes: the kernel's launch_metadata (no KernelSpec counts them)" in point["notes"]
    assert point["explained"]["bound"] in {"tensor", "latency", "l2", "dram"}


@pytest.mark.skipif(not HAS_TORCH, reason="bench's measured path imports torch")
def test_a_bare_kernel_is_never_timed_on_its_stand_ins():
    """Its arguments are storage-free stand-ins: a GPU would be handed no data, so measuring is refused
    before anything runs."""
    from playground.bench import measured
    from playground.errors import UserError
    spec = registry.load(f"{path('bare_add')}:add_kernel",
                         args="x_ptr=fp32[64], y_ptr=fp32[64], out_ptr=fp32[64], n_elements=64, BLOCK_SIZE=64")
    with pytest.raises(UserError, match="only a kernel with a KernelSpec"):
        measured.measure(Request.of(spec, "sm_90"))


@pytest.mark.compile
def test_a_bare_autotuned_kernel_takes_args_and_a_config():
    args = "x_ptr=fp32[2048], y_ptr=fp32[2048], n=2048"
    assert header(f"{path('autotuned_scale')}:scale", "-t", "sm_90", "--args", args)["meta"] == "BLOCK=64, EVEN=True"
    shown = header(f"{path('autotuned_scale')}:scale", "-t", "sm_90", "--args", args, "--config", "6")
    assert shown["meta"] == "BLOCK=4096, EVEN=False"


@pytest.mark.skipif(not HAS_TORCH, reason="check runs kernels through torch")
@pytest.mark.parametrize("name", ["autotuned_scale", "row_sum", "persistent_copy", "stage_constexpr",
                                  "dtype_constexpr", "bool_mask", "atomic_sum", "persistent_gemm"])
def test_check_runs_the_kernel_as_written(name):
    """atomic_sum accumulates into its output: it passes only because check zeroes what the autotuner's
    reset_to_zero names, as the autotuner does before a launch."""
    small = ("--meta", "BLOCK_M=32,BLOCK_N=32,BLOCK_K=32") if name == "persistent_gemm" else ()
    result = invoke("check", path(name), "--quick", *small)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith("passed")


@pytest.mark.skipif(not HAS_TORCH, reason="check runs kernels through torch")
def test_a_kernel_the_interpreter_cannot_run_is_one_named_failure():
    assert invoke("compile", path("inline_asm"), "-t", "sm_90").exit_code == 0
    result = invoke("check", path("inline_asm"))
    assert result.exit_code == 1
    assert "ERROR asm_copy [N=1000] i32" in result.stdout
    assert "inline_asm.py:12: NotImplementedError: inline_asm not supported in interpreter mode" in result.stdout
    assert "Traceback" not in result.output


@pytest.mark.compile
def test_args_can_see_the_target_device():
    import dataclasses

    from playground.artefact import binder
    from playground.core import targets
    spec = registry.load(path("persistent_copy"))
    # the number of tiles each program walks, sized by the SM count, as a launcher might pass it
    sized = dataclasses.replace(spec, args=lambda x, y, N, device: (x, y, N // 256 // device.num_sms))
    for target, sms in (("sm_90", 132), ("sm_80", 108)):
        request = Request.of(sized, target)
        assert binder.stand_in_args(sized, request.config, targets.resolve(target))[2] == (1 << 20) // 256 // sms
        assert request.compile().hash
    # a @triton.heuristics value sees the same arguments: the target's, not this machine's device
    sized.heuristics_values = {"BLOCK": lambda named: 256 if named["n_tiles"] < 35 else 512}
    assert (1 << 20) // 256 // 132 == 31 and (1 << 20) // 256 // 108 == 37
    assert Request.of(sized, "sm_90").config.meta["BLOCK"] == 256
    assert Request.of(sized, "sm_80").config.meta["BLOCK"] == 512


@pytest.mark.compile
@pytest.mark.parametrize("name", ["autotuned_scale", "row_sum", "stage_constexpr", "dtype_constexpr", "bool_mask",
                                  "persistent_copy"])
def test_diff_takes_the_kernel_as_written(name):
    result = invoke("diff", path(name), "--target", "sm_90", "--a", "num_warps=4", "--b", "num_warps=8")
    assert result.exit_code == 0, result.stderr
    assert any(line.startswith("blocks per SM") for line in result.stdout.splitlines())


@pytest.mark.compile
@pytest.mark.parametrize("name, configs", [("autotuned_scale", 2), ("row_sum", 1), ("persistent_copy", 1)])
def test_sweep_takes_the_kernel_as_written(name, configs):
    shape = ("--shape", "N=200") if name == "autotuned_scale" else ()
    result = invoke("sweep", path(name), "--target", "sm_90", "--jobs", "1", "--json", *shape)
    assert result.exit_code == 0, result.stderr
    rows = json.loads(result.stdout)["rows"]
    assert len(rows) == configs and all(r["status"] == "ok" for r in rows)


@pytest.mark.compile
@pytest.mark.parametrize("config, block", [("0", 16), ("1", 32)])
def test_a_configs_pre_hook_runs_before_the_launch_as_the_autotuner_runs_it(config, block):
    """descriptor_hook.py makes its descriptors with a dummy 1x1 block; each config's pre_hook sets the tile."""
    ttir = invoke("compile", path("descriptor_hook"), "-t", "sm_90", "--config", config, "--show", "ttir",
                  "--no-header").stdout
    # Triton 3.9 spells it tensordesc<16x32xf32>, 3.6 tensordesc<tensor<16x32xf32>>
    assert re.search(rf"%x_desc: !tt\.tensordesc<(tensor<)?{block}x32xf32>", ttir) and "1x1x" not in ttir


@pytest.mark.skipif(not HAS_TORCH, reason="check runs kernels through torch")
def test_check_runs_the_configs_pre_hook():
    result = invoke("check", path("descriptor_hook"), "--quick")
    assert result.exit_code == 0 and result.stdout.strip().endswith("7 passed, 1 skipped"), result.output
    # a host-side TMA descriptor refuses a misaligned base: that layout is skipped, not failed
    assert "SKIP 1 case(s): does not apply: the kernel needs 16-byte aligned tensors" in result.output
