"""The compile pipeline: every kernel on every family of target, what the hardware dictates, and fidelity to the JIT."""
import re

import pytest

from playground.artefact import binder
from playground.core.config import resolve_config
from playground.core import registry, targets
from playground.artefact.request import Request
from playground.errors import UserError

pytestmark = pytest.mark.compile

TARGETS = ["sm_80", "sm_90", "sm_100", "gfx942"]
_compiled = {}


def compiled(kernel: str, target: str, **overrides):
    key = (kernel, target, tuple(sorted((k, str(v)) for k, v in overrides.items())))
    if key not in _compiled:
        _compiled[key] = Request.of(kernel, target, **overrides).compile()
    return _compiled[key]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kernel", registry.kernel_names())
def test_every_stage_is_produced(kernel, target):
    c = compiled(kernel, target)
    for stage in c.target.stages:
        value = c.stage(stage)
        assert len(value) > 100, f"{kernel} {target} {stage} is (nearly) empty"
    if c.target.is_nvidia:
        assert re.search(r"^\s+/\*[0-9a-f]{4}\*/\s+\S+", c.stage("sass"), re.MULTILINE), "SASS has no instructions"
        assert f".target sm_{c.target.arch}" in c.stage("ptx")
    else:
        assert "gfx942" in c.stage("amdgcn")


# Tensor cores, as each generation exposes them: mma.sync (Ampere/Ada), wgmma (Hopper),
# tcgen05 (Blackwell datacenter), MFMA (CDNA).
@pytest.mark.parametrize("target,stage,hallmark", [
    ("sm_80", "ptx", "mma.sync.aligned"),
    ("sm_80", "sass", "HMMA"),
    ("sm_90", "ptx", "wgmma.mma_async"),
    ("sm_90", "sass", "HGMMA"),
    ("sm_100", "ptx", "tcgen05.mma"),
    ("gfx942", "amdgcn", "v_mfma"),
])
def test_gemm_uses_the_tensor_cores_of_each_generation(target, stage, hallmark):
    assert hallmark in compiled("gemm", target).stage(stage)


def test_gemm_on_sm80_does_not_use_hopper_instructions():
    assert "wgmma" not in compiled("gemm", "sm_80").stage("ptx")


@pytest.mark.parametrize("target", ["sm_80", "sm_90", "sm_100"])
def test_vector_add_loads_128_bits_at_a_time(target):
    ptx = compiled("vector_add", target).stage("ptx")
    assert re.search(r"ld\.global(\.\w+)*\.v4\.b32", ptx), "expected 128-bit vector loads"


def test_specialisation_is_the_jits_and_it_matters():
    # At N=98432 (divisible by 16) the JIT marks n_elements divisible by 16 and the pointers
    # 16-byte aligned, so the masked loads can be 128 bits wide. At N=98431 the mask can end
    # mid-vector and the loads shrink: what a real launch at that size would compile.
    even = compiled("vector_add", "sm_90")
    odd = compiled("vector_add", "sm_90", shape={"N": 98431})
    assumed = {a["name"]: a["assumed"] for a in even.specialization}
    assert assumed["x_ptr"] == ["16-byte aligned"]
    assert assumed["n_elements"] == ["divisible by 16"]
    assert {a["name"]: a["assumed"] for a in odd.specialization}["n_elements"] == []
    assert re.search(r"ld\.global(\.\w+)*\.v4\.b32", even.stage("ptx"))
    assert not re.search(r"ld\.global(\.\w+)*\.v4\.b32", odd.stage("ptx"))


def test_size_one_becomes_a_constant_as_in_the_jit():
    c = compiled("vector_add", "sm_90", shape={"N": 1})
    assert {a["name"]: a["type"] for a in c.specialization}["n_elements"] == "constexpr"


def test_options_are_the_jits_defaults():
    c = compiled("gemm", "sm_90")
    assert c.options["num_warps"] == 8 and c.options["num_stages"] == 3
    assert c.options["debug"] is False
    assert c.options["arch"] == "sm90"


def test_num_warps_and_stages_reach_the_binary():
    c = compiled("gemm", "sm_80", num_warps=4, num_stages=4)
    assert c.metadata.num_warps == 4 and c.metadata.num_stages == 4
    assert ".reqntid 128" in c.stage("ptx")


def test_second_compile_is_served_from_the_cache():
    request = Request.of("softmax", "sm_90")
    request.compile()
    again = request.compile()
    assert again.cache_hit


def test_cache_fast_path_returns_the_same_kernel_as_triton(monkeypatch):
    from playground.artefact import cache
    spec = registry.load("relu_matmul")
    first = Request.of(spec, "sm_80").compile()
    monkeypatch.setattr(cache, "lookup", lambda *a: None)   # force Triton's own cache lookup
    second = Request.of(spec, "sm_80").compile()
    assert second.hash == first.hash and second.cache_hit
    assert second.stage("ptx") == first.stage("ptx")


def test_user_file_with_several_specs():
    spec = registry.load("tests/data/my_kernels.py:scale")
    assert spec.name == "scale"
    c = Request.of(spec, "sm_90").compile()
    assert "mul.f32" in c.stage("ptx")
    with pytest.raises(UserError, match="several kernels"):
        registry.load("tests/data/my_kernels.py")


def test_unknown_kernel_suggests_the_nearest_name():
    with pytest.raises(UserError, match="did you mean 'gemm'"):
        registry.load("gem")


def test_stage_the_target_lacks():
    with pytest.raises(UserError, match="does not exist for gfx942"):
        compiled("vector_add", "gfx942").stage("ptx")


@pytest.mark.parametrize("meta,message", [
    ({"BLOCK_SIZ": 128}, "did you mean BLOCK_SIZE"),
    ({"BLOCK_SIZE": 1000}, "power of two"),
])
def test_bad_meta(meta, message):
    with pytest.raises(UserError, match=message):
        resolve_config(registry.load("vector_add"), meta=meta)


def test_targets_by_name():
    assert targets.resolve("sm_90").arch == 90
    assert targets.resolve("SM90").name == "sm_90"
    assert targets.resolve("gfx942").warp_size == 64
    assert targets.resolve("gfx1100").warp_size == 32
    with pytest.raises(UserError, match="unknown target"):
        targets.resolve("sm_75x")


def test_a_named_gpu_compiles_its_architectures_binary_and_reads_its_own_row():
    """--target l40s: sm_89's binary from the same cache entry; occupancy, waves and a persistent grid on the
    L40S's 142 SMs; the name kept wherever the request travels (another process, the page, a trace)."""
    from playground.figures import grid, occupancy
    from playground.report import render
    rtx, l40s = Request.of("gemm_persistent", "sm_89").compile(), Request.of("gemm_persistent", "L40S").compile()
    assert rtx.hash == l40s.hash and rtx.stage("sass") == l40s.stage("sass")
    assert (occupancy.of(rtx).num_sms, occupancy.of(l40s).num_sms) == (128, 142)
    assert grid.ctas(l40s) == 142 and grid.ctas(rtx) == 128        # one program per SM
    assert "; the GPU is the L40S (l40s): sm_89's binary" in render.header_lines(l40s)[1]
    ref = l40s.request.ref()
    assert ref["target"] == "l40s" and Request.from_ref(ref).target == l40s.request.target


@pytest.mark.parametrize("kernel,target,shape", [
    ("vector_add", "sm_90", {"N": 98432}), ("vector_add", "sm_90", {"N": 98431}), ("vector_add", "gfx942", {"N": 1}),
    ("gemm", "sm_80", {"M": 1000, "N": 64, "K": 17}), ("softmax", "gfx1100", {"M": 3, "N": 781}),
])
def test_the_kept_binder_answer_is_the_binders(kernel, target, shape, tmp_path, monkeypatch):
    """A warm run takes the specialisation from the cache: it must equal a fresh answer of Triton's binder,
    and the binder must not run again."""
    import triton.runtime.jit as jit

    from playground.artefact import cache
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    spec, tgt = registry.load(kernel), targets.resolve(target)
    config = resolve_config(spec, shape=shape)
    fresh = binder.specialize(spec, tgt, config)               # the binder runs, and its answer is kept
    assert list(tmp_path.rglob(cache.BINDER_FILE))
    monkeypatch.setattr(jit, "create_function_from_signature",
                        lambda *a: (_ for _ in ()).throw(AssertionError("the binder ran on a warm run")))
    kept = binder.specialize(spec, tgt, config)
    assert kept[:3] == fresh[:3] and kept[4] == fresh[4]
    assert kept[3].__dict__ == fresh[3].__dict__


@pytest.mark.compile
def test_backend_options_go_through_meta_as_a_launch_passes_them():
    """`kernel[grid](..., waves_per_eu=2)` and `triton.Config(..., maxnreg=96)` set backend options."""
    from playground.artefact.request import Request
    amd = Request.of("gemm", "gfx942", meta={"waves_per_eu": 2}).compile()
    assert amd.options["waves_per_eu"] == 2 and "; Occupancy: 2" in amd.stage("amdgcn")
    mfma = Request.of("gemm", "gfx942", meta={"matrix_instr_nonkdim": 16}).compile().stage("amdgcn")
    assert "v_mfma_f32_16x16x16_f16" in mfma and "v_mfma_f32_32x32x8_f16" not in mfma
    capped = Request.of("gemm", "sm_90", meta={"maxnreg": 96}).compile()
    assert capped.options["maxnreg"] == 96 and capped.resources.registers <= 96
    from playground.report import render
    assert "maxnreg=96" in next(l for l in render.header_lines(capped) if l.startswith("options"))
    from playground.errors import UserError
    with pytest.raises(UserError, match="not an option of Triton's cuda backend"):
        Request.of("gemm", "sm_90", meta={"kpack": 2}).compile()
    with pytest.raises(UserError, match="expected a whole number"):
        Request.of("gemm", "gfx942", meta={"waves_per_eu": "lots"})
