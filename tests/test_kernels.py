"""Every kernel x case x dtype against its PyTorch reference, through the function `playground check` uses.

Quick cases run by default (Triton's interpreter on a CPU); the rest are marked slow
(`pytest -m slow`). `pytest -k gemm` runs one kernel's cases. On a CUDA machine the same test
runs natively. Also: the kernels added for correctness work compile for every target family.
"""
import pytest

from playground.core.config import resolve_config
from playground.core import registry
from playground.artefact.request import Request
from playground.check import kernel as check
from playground.run.cases import describe_case, split_case

SPECS = registry.load_all()


def _params():
    for spec in SPECS:
        quick = spec.quick_cases
        slow = [c for c in spec.cases if c not in quick]
        for cases, marks in ((quick, ()), (slow, (pytest.mark.slow,))):
            for case in cases:
                for dtype in spec.dtypes:
                    yield pytest.param(spec.name, case, dtype, marks=marks,
                                       id=f"{spec.name}-{describe_case(case).replace(', ', ',')}-{dtype}")


@pytest.mark.parametrize("name,case,dtype", list(_params()))
def test_kernel_matches_reference(name, case, dtype):
    result = check.check_case(registry.load(name), case, dtype)
    if result.status == "skip":
        pytest.skip(result.problems[0])
    assert result.status == "pass", result.summary()
    assert result.outputs and all(o.total > 0 and o.worst is not None and o.worst <= 1 for o in result.outputs)


@pytest.mark.compile
def test_every_kernel_has_reference_cases_and_counts():
    for spec in SPECS:
        assert spec.reference is not None and spec.quick_cases and spec.cases, spec.name
        assert spec.flops is not None and spec.bytes is not None, spec.name
        for case in spec.cases + spec.quick_cases:
            sizes, _ = split_case(case)
            assert set(sizes) == set(spec.default_shape), (spec.name, case)
            config = resolve_config(spec, split_case(case)[1].get("meta"), shape=sizes)
            if spec.constraints:
                assert spec.constraints(config.shape, config.dtype, config.meta) is None, (spec.name, case)


def test_cases_cover_awkward_sizes():
    # Every kernel has a case with a size of 1 (batch and head counts aside) and a case that is not a
    # multiple of 16 (powers of two plus 17).
    for spec in SPECS:
        sizes = [split_case(c)[0] for c in spec.cases]
        assert any(min(v for k, v in s.items() if k not in ("Z", "H")) == 1 for s in sizes), spec.name
        assert any(any(v % 16 for v in s.values()) for s in sizes), spec.name


# ---- the new kernels compile for every target family, within its shared memory ------------------------------

# Shared memory a block may use: sm_80 163 KB, sm_86/89 99 KB, sm_90/100 227 KB (CUDA C++ Programming
# Guide, "Compute Capabilities" table); gfx942 64 KB of LDS (AMD CDNA3 ISA guide). The defaults must fit
# the smallest of these that each target family has.
SHARED_LIMIT = {"sm_80": 99 * 1024, "sm_90": 227 * 1024, "sm_100": 227 * 1024, "gfx942": 64 * 1024}


@pytest.mark.compile
@pytest.mark.parametrize("target", list(SHARED_LIMIT))
@pytest.mark.parametrize("name", ["layernorm", "flash_attention", "transpose", "gemm_tma"])
def test_new_kernels_compile(name, target):
    spec = registry.load(name)
    c = Request.of(spec, target).compile()
    assert c.resources.shared_total <= SHARED_LIMIT[target]
    assert c.stage("amdgcn" if target.startswith("gfx") else "ptx")


@pytest.mark.compile
def test_transpose_coalesced_goes_through_shared_memory_and_naive_does_not():
    # What the memory tutorial says: tl.trans makes the compiler stage the tile in shared memory (a
    # 64x64 fp32 tile is 16 KB); the naive copy uses none.
    spec = registry.load("transpose")
    coalesced = Request.of(spec, "sm_90", shape={"M": 4096, "N": 4096}).compile()
    naive = Request.of(spec, "sm_90", {"COALESCED": False}, shape={"M": 4096, "N": 4096}).compile()
    assert coalesced.resources.shared_total == 64 * 64 * 4
    assert naive.resources.shared_total == 0


def test_flash_attention_head_dim_constraint_names_the_rule():
    from playground.errors import UserError
    spec = registry.load("flash_attention")
    with pytest.raises(UserError, match=r"head dimension D=48 is not supported: D must be one of 16, 32, 64, 128"):
        check.check_case(spec, {"Z": 1, "H": 1, "N_CTX": 16, "D": 48}, "fp16")


@pytest.mark.compile
def test_gemm_tma_moves_tiles_with_the_tma_on_sm90_and_with_cp_async_on_sm80():
    import re
    ptx = Request.of("gemm_tma", "sm_90").compile().stage("ptx")
    # Triton 3.9 writes the state spaces ::cta; 3.6 wrote ::cluster and a bare .shared
    loads = re.findall(r"cp\.async\.bulk\.tensor\.2d\.shared::(?:cta|cluster)\.global\.mbarrier::complete_tx::bytes", ptx)
    assert len(loads) == 6                  # two tiles per stage: two stages in the prologue, one in the loop
    # each stage's barrier expects one K step of A and B: (128*64 + 64*128) * 2 bytes
    expected = re.findall(r"mbarrier\.arrive\.expect_tx\.shared(?:::cta)?\.b64 _, \[%r\d+\], (\d+);", ptx)
    assert expected == ["32768"] * 3
    assert ptx.count("mbarrier.init.shared::cta.b64") == 3 and "cp.async.cg" not in ptx
    assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in ptx     # C goes out the same way
    old = Request.of("gemm_tma", "sm_80").compile().stage("ptx")
    assert "cp.async.bulk" not in old and old.count("cp.async.cg.shared.global") == 24


@pytest.mark.compile
def test_gemm_tma_warp_specialised_on_sm100_splits_loader_mma_and_epilogue():
    plain = Request.of("gemm_tma", "sm_100").compile()
    split = Request.of("gemm_tma", "sm_100", meta={"WARP_SPECIALIZE": True}).compile()
    assert plain.threads_per_block == 256 and split.threads_per_block == 384
    ttgir = split.stage("ttgir")
    assert "ttg.warp_specialize" in ttgir and "ttng.tc_gen5_mma" in ttgir
    assert "requestedRegisters = array<i32: 24, 24>" in ttgir
    assert "setmaxnreg.dec.sync.aligned.u32 \t24;" in split.stage("ptx")
