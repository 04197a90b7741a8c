"""LDS bank conflicts on AMD, read from the amdgcn (artefact/lds_banks.py).

Hand-written amdgcn pins each rule: the phases of 32- and 128-bit accesses, a loop's wave-uniform
offset, what stays unknown; then Triton's own kernels for gfx942.
"""
import numpy as np
import pytest

from playground.artefact import lds_banks

WAVE_OF_256 = 256


def _ways(asm: str, threads: int = 64) -> list:
    return [a.ways for a in lds_banks.analyse(asm, threads).accesses]


def test_consecutive_16_byte_lanes_are_conflict_free_and_a_256_byte_stride_is_not():
    asm = """
    v_lshlrev_b32_e32 v1, 4, v0
    ds_write_b128 v1, v[2:5]
    v_lshlrev_b32_e32 v6, 8, v0
    ds_write_b128 v6, v[2:5]
    ds_read_b128 v[2:5], v1
    ds_read_b32 v7, v6
    ds_read_b32 v7, v1 offset:64
    """
    # 8 lanes x 16 B cover the 32 banks once; at a 256-byte stride the 8 lanes of a phase share 4 banks;
    # 32-bit: all 32 lanes of a half-wave in bank 0 (words 0, 64, 128, ...); tid*16 in 32-bit words: 4-way
    assert _ways(asm) == [1, 8, 1, 32, 4]


def test_the_b128_read_phases_are_amds_groups_not_runs_of_eight():
    # lane l reads row (l mod 32) of a 128-byte-wide tile: lanes 0-3 and 20-23 share a phase
    rows = np.arange(64) % 32
    by_groups = lds_banks.phase_ways(rows * 128, 4, lds_banks.READ_B128_PHASES)
    assert by_groups == 8                       # every row starts in bank 0: 8 lanes, 8 words a bank
    swizzled = rows * 128 + (rows % 8) * 16          # 16-byte chunk = row mod 8, as a swizzle would
    assert lds_banks.phase_ways(swizzled, 4, lds_banks.READ_B128_PHASES) == 1
    # chunks 0-3 for rows 0-15, 4-7 for rows 16-31: spread over AMD's groups (rows 0-3 with 20-23), not
    # over runs of eight lanes (rows 0-7 take chunks 0-3 twice)
    grouped = rows * 128 + ((rows % 4) + 4 * ((rows // 16) % 2)) * 16
    assert lds_banks.phase_ways(grouped, 4, lds_banks.READ_B128_PHASES) == 1
    assert lds_banks.phase_ways(grouped, 4, lds_banks.WRITE_B128_PHASES) == 2


def test_a_loops_uniform_offset_keeps_the_analysis_and_an_or_with_it_does_not():
    asm = """
    v_lshlrev_b32_e32 v1, 2, v0
    s_mov_b32 s4, 0
.LBB0_1:
    v_add_u32_e32 v2, s4, v1
    ds_read_b32 v3, v2
    s_add_i32 s4, s4, 0x100
    s_cmp_lg_u32 s4, 0x1000
    s_cbranch_scc1 .LBB0_1
    v_or_b32_e32 v5, s4, v1
    ds_write_b32 v5, v3
    s_endpgm
    """
    read, write = lds_banks.analyse(asm, 64).accesses
    assert read.ways == 1 and read.assumed == lds_banks.ASSUMED_32_BIT
    assert write.ways is None and write.why_not.startswith("with addresses not known")


def test_two_paths_that_disagree_per_lane_make_the_address_unknown():
    asm = """
    v_lshlrev_b32_e32 v1, 2, v0
    s_cbranch_scc1 .LBB0_2
    v_lshlrev_b32_e32 v1, 7, v0
.LBB0_2:
    ds_read_b32 v3, v1
    s_endpgm
    """
    assert _ways(asm) == [None]
    same = asm.replace("v_lshlrev_b32_e32 v1, 7, v0", "v_lshlrev_b32_e32 v1, 2, v0")
    assert _ways(same) == [1]


def test_scalar_registers_are_wave_uniform_and_readfirstlane_takes_lane_0():
    asm = """
    v_readfirstlane_b32 s20, v0
    s_and_b32 s0, s20, 0xc0
    v_and_or_b32 v1, v0, 63, s0
    v_lshlrev_b32_e32 v1, 8, v1
    ds_write_b32 v1, v2
    """
    # the wave's first work-item id (0, 64, 128, 192) ORed back in: still tid * 256, bank 0 for every lane
    assert _ways(asm, WAVE_OF_256) == [32]


def test_unpublished_forms_are_listed_not_counted():
    asm = """
    v_lshlrev_b32_e32 v1, 3, v0
    ds_read_b64 v[2:3], v1
    ds_read2st64_b32 v[2:3], v1 offset1:1
    ds_write_b16 v1, v2
    """
    accesses = lds_banks.analyse(asm, 64).accesses
    assert [a.ways for a in accesses] == [None, None, None]
    assert all("lane phases are unpublished" in a.why_not for a in accesses)


@pytest.mark.parametrize("kernel, meta, loads, stores", [
    ("softmax", None, "2 analysed, all conflict-free", "2 analysed, all conflict-free"),
    ("gemm", {"kpack": 2}, "12 analysed, all conflict-free; 24 with addresses not known",
     "28 analysed: 6 conflict-free, 22 with 2-way conflicts (32-bit: GCN's half-wave phases, assumed)"),
])
def test_tritons_kernels_on_gfx942(kernel, meta, loads, stores):
    from playground.artefact.request import Request
    compiled = Request.of(kernel, "gfx942", meta=meta).compile()
    report = lds_banks.analyse(compiled.stage("amdgcn"), compiled.config.num_warps * 64)
    assert report.summary("load").startswith(loads)
    assert report.summary("store").startswith(stores)
    # the K loop's operand reads are the 128-bit ones, at AMD's published phases
    if kernel == "gemm":
        analysed = [a for a in report.accesses if a.kind == "load" and a.ways is not None]
        assert {a.bits for a in analysed} == {128} and not any(a.assumed for a in analysed)


def test_only_gfx942_is_counted():
    from playground.artefact import codeinspect
    from playground.artefact.request import Request
    assert codeinspect.read(Request.of("softmax", "gfx942").compile()).banks is not None
    assert codeinspect.read(Request.of("softmax", "gfx950").compile()).banks is None
