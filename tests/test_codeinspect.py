"""The static read: instruction mix, access widths, spills and pipelining, from real compiled kernels.

Parser tests use short SASS/amdgcn/TTGIR excerpts copied from kernels this project compiles; the
rest compile the kernels (module-scoped fixtures, Triton's cache makes reruns cheap) and assert
what their code must contain on each target.
"""
from pathlib import Path

import pytest

from playground.artefact import codeinspect, instruction_mix, text
from playground.core import registry
from playground.artefact.request import Request

DATA = Path(__file__).parent / "data"


def compile_(kernel, target, **overrides):
    return Request.of(kernel, target, **overrides).compile()


# ---- parsers on excerpts -----------------------------------------------------------------------

SASS = """
        /*0180*/              @!P0 LDG.E.128 R16, desc[UR4][R2.64] ;
        /*0190*/              @!P0 LDG.E R12, desc[UR4][R20.64] ;
        /*01a0*/                   LDG.E.U16 R4, desc[UR4][R2.64+0x800] ;
        /*01b0*/                   STG.E.64 desc[UR4][R16.64], R12 ;
        /*0f10*/                   LDGSTS.E.BYPASS.LTC128B.128 [R175], [R30.64], P0 ;
        /*1950*/                   HMMA.16816.F32 R4, R68.reuse, R2, R4 ;
        /*1d60*/                   HGMMA.64x128x16.F32 R24, gdesc[UR8].tnspB, R24 ;
        /*18e0*/                   UTCHMMA gdesc[UR4], gdesc[UR14], tmem[UR9], tmem[UR30], idesc[UR31], !UPT ;
        /*0200*/                   LDSM.16.M88.4 R8, [R3] ;
        /*0210*/                   LDS.128 R8, [R3] ;
        /*0220*/                   STS.128 [R3], R8 ;
        /*0230*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0240*/                   F2FP.F16.F32.PACK_AB R0, R1, R2 ;
        /*0250*/                   STL.64 [R1], R4 ;
        /*0260*/                   LDL R4, [R1+0x8] ;
        /*0270*/                   UTMALDG.2D [UR8], [UR4] ;
        /*0280*/                   SYNCS.EXCH.64 URZ, [UR5], UR6 ;
        .section	.text.gemm_kernel,"ax",@progbits
"""


def test_sass_mix_counts_each_category_and_width():
    mix, mma, conversions = instruction_mix.sass_mix(SASS)
    assert mix["instructions"] == 17
    assert (mix["global_load"], mix["global_load.128"], mix["global_load.32"], mix["global_load.16"]) == (3, 1, 1, 1)
    assert (mix["global_store"], mix["global_store.64"]) == (1, 1)
    assert (mix["async_copy"], mix["async_copy.128"]) == (1, 1)      # LTC128B is a cache hint, not the width
    assert (mix["mma"], mix["mma.mma.sync"], mix["mma.wgmma"], mix["mma.tcgen05"]) == (3, 1, 1, 1)
    assert mma == {"HMMA.16816.F32": 1, "HGMMA.64x128x16.F32": 1, "UTCHMMA": 1}
    assert (mix["shared_load"], mix["ldmatrix"], mix["shared_store"]) == (2, 1, 1)
    assert (mix["barrier"], mix["mbarrier"], mix["tma"]) == (1, 1, 1)
    assert conversions == {"F2FP": 1}
    assert (mix["spill_store"], mix["spill_load"]) == (1, 1)


AMDGCN = """
gemm_kernel:                            ; @gemm_kernel
	s_load_dwordx8 s[4:11], s[0:1], 0x8
	buffer_load_dwordx4 v[8:11], v17, s[24:27], 0 offen
	global_load_dword v2, v[0:1], off
	buffer_load_dword v1, v2, s[0:3], 0 offen lds
	v_mfma_f32_32x32x8_f16 v[0:15], v[94:95], v[50:51], v[0:15]
	ds_read2st64_b64 v[0:3], v4 offset1:1
	ds_write_b32 v5, v6
	s_barrier
	v_cvt_f16_f32_e32 v1, v2
	buffer_store_dwordx2 v[0:1], v3, s[8:11], 0 offen
	scratch_store_dword off, v0, s32
	.p2align	8
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
"""


def test_amdgcn_mix_counts_each_category_and_width():
    mix, mma, conversions = instruction_mix.gcn_mix(AMDGCN)
    assert mix["instructions"] == 11                                 # the scalar argument load counts, unsorted
    assert (mix["global_load"], mix["global_load.128"], mix["global_load.32"]) == (2, 1, 1)
    assert (mix["async_copy"], mix["async_copy.32"]) == (1, 1)      # `... lds`: straight into LDS
    assert (mix["global_store"], mix["global_store.64"]) == (1, 1)
    assert mma == {"v_mfma_f32_32x32x8_f16": 1} and mix["mma.mfma"] == 1
    assert (mix["shared_load"], mix["shared_store"], mix["barrier"]) == (1, 1, 1)
    assert conversions == {"v_cvt_f16_f32": 1}
    assert mix["spill_store"] == 1


TTGIR_PIPELINED = """
    %a = ttg.local_alloc : () -> !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable> loc(#loc84)
    %bar = ttg.local_alloc : () -> !ttg.memdesc<2x1xi64, #shared, #smem, mutable> loc(#loc106)
    %acc:3 = scf.for %k = %c0_i32 to %1 step %c1_i32 iter_args(%x = %cst) -> (tensor<128x128xf32, #mma>) : i32 {
      %a_108 = ttg.async_wait %a_99, %b_101 {num = 2 : i32} loc(#loc84)
      %d = ttng.warp_group_dot %a, %b, %x {inputPrecision = 0 : i32} : !ttg.memdesc<128x64xf16> loc(#loc1)
      %c = ttg.async_copy_global_to_local %p, %a mask %m : tensor<128x64x!tt.ptr<f16>> loc(#loc2)
      scf.yield %d : tensor<128x128xf32, #mma>
    } loc(#loc3)
"""


def test_pipeline_reads_the_ring_depth_and_ignores_mbarrier_rings():
    p = codeinspect.pipeline(TTGIR_PIPELINED)
    assert (p.has_loop, p.dot_in_loop, p.buffers, p.pipelined) == (True, True, 3, True)
    assert p.ring_shapes == ["3x128x64xf16"] and p.async_copy == "cp.async"


def test_pipeline_names_amd_direct_to_lds_copies():
    # gfx950 in Triton 3.9: `amdg.buffer_load_to_local` (the dialect was `amdgpu` before)
    text = TTGIR_PIPELINED.replace("ttg.async_copy_global_to_local", "amdg.buffer_load_to_local")
    assert codeinspect.pipeline(text).async_copy == "direct-to-LDS"


def test_pipeline_single_buffer_is_not_pipelined():
    text = TTGIR_PIPELINED.replace("3x128x64xf16", "128x64xf16")
    p = codeinspect.pipeline(text)
    assert (p.dot_in_loop, p.buffers, p.pipelined) == (True, 0, False)


# ---- compiled kernels --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gemm_reads():
    return {t: codeinspect.read(compile_("gemm", t)) for t in ("sm_80", "sm_90", "sm_100", "gfx942")}


@pytest.mark.parametrize("target, family, opcode_prefix", [
    ("sm_80", "mma.sync", "HMMA.16816.F32"),      # mma.sync.m16n8k16
    ("sm_90", "wgmma", "HGMMA.64x128x16.F32"),    # wgmma.m64n128k16: one warpgroup, 64 rows of the 128-row tile
    ("sm_100", "tcgen05", "UTC"),                 # tcgen05.mma: UTCHMMA
    ("gfx942", "mfma", "v_mfma_f32_32x32x8_f16"),
])
def test_gemm_uses_the_targets_tensor_core_instructions(gemm_reads, target, family, opcode_prefix):
    r = gemm_reads[target]
    assert r.mix["mma"] > 0 and r.mix[f"mma.{family}"] == r.mix["mma"]
    assert all(op.startswith(opcode_prefix) for op in r.mma_opcodes), r.mma_opcodes
    assert r.has_dot and not any("tensor cores" in h for h in r.hints)


def test_gemm_k_loop_is_pipelined_with_async_copies(gemm_reads):
    # num_stages=3 on sm_90: a ring of three 128x64 A tiles and three 64x128 B tiles, filled by cp.async
    # (16-byte LDGSTS), as the TTGIR allocates them.
    r = gemm_reads["sm_90"]
    assert r.pipeline.pipelined and r.pipeline.buffers == 3
    assert r.pipeline.ring_shapes == ["3x128x64xf16", "3x64x128xf16"]
    assert r.mix["async_copy.128"] == r.mix["async_copy"] > 0
    assert "loop not pipelined" not in " ".join(r.hints)


def test_one_stage_leaves_the_loop_unpipelined_and_says_so():
    r = codeinspect.read(compile_("gemm", "sm_90", num_stages=1))
    assert r.pipeline.dot_in_loop and not r.pipeline.pipelined
    assert "async_copy" not in r.mix and r.mix["global_load.128"] > 0   # plain LDG, then STS
    assert any(h.startswith("loop not pipelined") for h in r.hints)
    assert "num_stages >= 2" in " ".join(r.hints)


def test_two_stages_on_the_cp_async_path_keep_one_buffer_and_the_hint_says_what_that_costs():
    # num_stages=2 on sm_89 (Triton keeps num_stages - 1 buffers there): one 128x32 A and one 32x128 B tile,
    # copied by cp.async into the buffer the last trip read; advising num_stages >= 2 would be advice taken
    r = codeinspect.read(compile_("gemm", "sm_89", num_stages=2,
                                  meta={"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32}))
    assert r.pipeline.dot_in_loop and not r.pipeline.pipelined and r.pipeline.buffers == 1
    assert r.pipeline.async_copy == "cp.async" and r.mix["async_copy"] > 0
    [hint] = [h for h in r.hints if h.startswith("loop not pipelined")]
    assert "one shared-memory buffer per operand" in hint and "num_stages >= 2" not in hint


def test_amds_two_stages_prefetch_through_registers_into_one_buffer():
    # gfx942's stream pipeliner at num_stages=2 (the default there): the next trip's tiles are loaded into
    # registers before this trip's dot and stored to the one LDS buffer after it; no "not pipelined" advice
    r = codeinspect.read(compile_("gemm", "gfx942", num_stages=2))
    assert r.pipeline.buffers == 1 and not r.pipeline.async_copy and r.pipeline.prefetched
    assert not any(h.startswith("loop not pipelined") for h in r.hints)
    assert any(line.startswith("K loop      software-pipelined through registers")
               for line in text.lines(r))
    one = codeinspect.read(compile_("gemm", "gfx942", num_stages=1))
    assert not one.pipeline.prefetched and any(h.startswith("loop not pipelined") for h in one.hints)


def test_vector_add_loads_and_stores_128_bits():
    # BLOCK_SIZE=1024 over 4 warps: 8 fp32 per thread, as two 128-bit loads per operand.
    for target in ("sm_90", "gfx942"):
        r = codeinspect.read(compile_("vector_add", target))
        assert r.mix["global_load"] == r.mix["global_load.128"] > 0, (target, r.mix)
        assert r.mix["global_store"] == r.mix["global_store.128"] > 0, (target, r.mix)
        assert r.hints == [] and "mma" not in r.mix


def test_unaligned_rows_get_no_128_bit_loads_hint():
    # N=781: the row stride is not divisible by 16, so the JIT cannot promise alignment: 32-bit loads.
    r = codeinspect.read(compile_("softmax", "sm_90", shape={"M": 64, "N": 781}))
    assert r.mix["global_load"] == r.mix["global_load.32"] > 0
    assert any(h.startswith("no 128-bit global loads") for h in r.hints)


def test_planted_spill_is_reported_in_bytes():
    # One warp holding a whole 8192-wide fp32 row: 256 values per thread, past the 255-register limit.
    c = compile_("softmax", "sm_80", shape={"M": 8, "N": 8192}, num_warps=1)
    r = codeinspect.read(c)
    assert r.mix["spill_store"] > 0 and r.mix["spill_load"] > 0
    assert r.spill_store_bytes == c.resources.spill_store_bytes > 0
    assert r.spill_load_bytes == c.resources.spill_load_bytes > 0
    assert f"{r.spill_store_bytes} bytes spilled" in " ".join(r.hints)
    assert "spills" in "\n".join(text.lines(r))


def test_ieee_fp32_dot_has_no_tensor_cores_on_nvidia():
    c = Request.of(registry.load(f"{DATA / 'fp32_dot.py'}:fp32_dot"), "sm_90").compile()
    r = codeinspect.read(c)
    assert r.has_dot and "mma" not in r.mix
    assert any(h.startswith("tl.dot lowered without tensor cores") for h in r.hints)


def test_instruction_mix_is_the_reads_mix(gemm_reads):
    c = compile_("gemm", "sm_90")
    assert codeinspect.instruction_mix(c) == gemm_reads["sm_90"].mix


def test_lines_and_json_shape(gemm_reads):
    r = gemm_reads["sm_90"]
    shown = "\n".join(text.lines(r))
    assert "HGMMA.64x128x16.F32 x" in shown and "software-pipelined: 3 shared-memory buffers" in shown
    d = r.as_dict()
    assert d["pipeline"]["pipelined"] is True and d["mix"]["mma"] == r.mix["mma"]


def test_inspect_explain_names_the_instruction_and_its_document():
    from click.testing import CliRunner
    from playground.cli import main
    runner = CliRunner()
    shown = runner.invoke(main, ["inspect", "--explain", "LDGSTS.E.BYPASS.LTC128B.128"])
    assert shown.exit_code == 0, shown.output
    first = shown.output.splitlines()[0]
    assert first.startswith("LDGSTS.E.BYPASS.LTC128B.128 (sass, entry LDGSTS): ") and "shared memory" in first
    assert "see CUDA Binary Utilities" in shown.output and ".BYPASS: " in shown.output
    ptx = runner.invoke(main, ["inspect", "--explain", "cp.async.bulk.tensor.2d.shared::cluster.global"])
    assert "(ptx, entry cp.async.bulk.tensor)" in ptx.output and "see PTX ISA" in ptx.output
    unknown = runner.invoke(main, ["inspect", "--explain", "NOTANOPCODE"])
    assert unknown.exit_code == 2 and "no entry" in unknown.output
    bare = runner.invoke(main, ["inspect"])
    assert bare.exit_code == 2 and "--explain" in bare.output
