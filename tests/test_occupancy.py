"""The occupancy calculator against answers worked out by hand from the published rules, every
rounding edge included; AMD against the compiler's own `; Occupancy:` comment; and the command.

NVIDIA rules (cuda_occupancy.h): regs/warp = roundup(regs x 32, 256); a sub-partition (4 per SM)
holds 16384 // regs/warp warps; blocks by registers = 4 x that // warps per block. Shared memory per
block = roundup(smem + 1024 reserved, 128); blocks = shared per SM // that; a block above the opt-in
maximum cannot launch. Blocks by warps = max warps // warps per block. The least of the four wins.
"""
import dataclasses
import json

import pytest
from conftest import invoke

from playground.core import devices, registry
from playground.artefact.request import Request
from playground.errors import UserError
from playground.figures import occupancy

W, R, S, B = "warps", "registers", "shared_memory", "blocks"

# (target, threads, regs, smem) -> (active blocks per SM, active warps per SM, limiters), by hand.
NVIDIA_CASES = [
    # sm_80: 64 warps, 32 blocks, 164 KB (167936 B) per SM, 163 KB (166912 B) per block opted in.
    # 8 warps x 32 regs: 1024/warp, 16/partition -> 64 warps -> 8 blocks; warps 64 // 8 = 8: a tie.
    ("sm_80", 256, 32, 0, 8, 64, [W, R]),
    # 64 regs: 2048/warp, 8/partition -> 32 warps -> 4 blocks.
    ("sm_80", 256, 64, 0, 4, 32, [R]),
    # 65 regs, just over a multiple of 8: 2080 -> 2304/warp, 16384 // 2304 = 7 -> 28 warps -> 3 blocks.
    ("sm_80", 256, 65, 0, 3, 24, [R]),
    # 72 regs is the same 2304/warp: still 3 blocks.
    ("sm_80", 256, 72, 0, 3, 24, [R]),
    # 4 warps x 16 regs: 512/warp -> 32 blocks by registers; warps 16. Shared 40960 + 1024 = 41984 (a multiple of
    # 128) -> 167936 // 41984 = 4 blocks.
    ("sm_80", 128, 16, 40960, 4, 16, [S]),
    # One byte more: 41985 -> 42112 -> 167936 // 42112 = 3 blocks.
    ("sm_80", 128, 16, 40961, 3, 12, [S]),
    # The opt-in maximum exactly: 166912 + 1024 = 167936 fits once.
    ("sm_80", 128, 16, 166912, 1, 4, [S]),
    # One warp: warps allow 64, registers 128, shared 164; the 32-block cap binds.
    ("sm_80", 32, 16, 0, 32, 32, [B]),
    # 255 regs: 8160 -> 8192/warp, 2/partition -> 8 warps -> 1 block of 8 warps.
    ("sm_80", 256, 255, 0, 1, 8, [R]),
    # 32 warps x 64 regs = 65536 registers: exactly the per-block limit; 8/partition -> 32 warps -> 1 block;
    # warps 64 // 32 = 2.
    ("sm_80", 1024, 64, 0, 1, 32, [R]),
    # sm_86: 48 warps, 16 blocks, 100 KB (102400 B) per SM, 99 KB (101376 B) opted in.
    # The example: 96 regs: 3072/warp, 5/partition -> 20 warps -> 2 blocks; 65536 + 1024 = 66560
    # -> 102400 // 66560 = 1 block; warps 6.
    ("sm_86", 256, 96, 65536, 1, 8, [S]),
    # 32 warps x 32 regs: 1024/warp -> 64 warps -> 2 blocks; warps 48 // 32 = 1.
    ("sm_86", 1024, 32, 0, 1, 32, [W]),
    # 2 warps x 32 regs: registers 32 blocks, warps 24; the 16-block cap binds.
    ("sm_86", 64, 32, 0, 16, 32, [B]),
    ("sm_86", 128, 16, 101376, 1, 4, [S]),
    # sm_89: 48 warps, 24 blocks, 100 KB per SM.
    # 2 warps: warps 24, the cap 24: a tie; registers 1024/warp -> 32 blocks.
    ("sm_89", 64, 32, 0, 24, 48, [W, B]),
    # 33024 + 1024 = 34048 (a multiple of 128) -> 102400 // 34048 = 3 blocks.
    ("sm_89", 128, 16, 33024, 3, 12, [S]),
    # One byte more: 34049 -> 34176 -> 2 blocks.
    ("sm_89", 128, 16, 33025, 2, 8, [S]),
    # sm_90: 64 warps, 32 blocks, 228 KB (233472 B) per SM, 227 KB (232448 B) opted in.
    # The default gemm: 122 regs: 3904 -> 4096/warp, 4/partition -> 16 warps -> 2 blocks; 98304 + 1024 = 99328
    # -> 233472 // 99328 = 2 blocks: registers and shared memory tie.
    ("sm_90", 256, 122, 98304, 2, 16, [R, S]),
    # 40 regs: 1280/warp, 12/partition -> 48 warps -> 12 blocks of 4 warps.
    ("sm_90", 128, 40, 0, 12, 48, [R]),
    # 41 regs: 1312 -> 1536/warp, 10/partition -> 40 warps -> 10 blocks.
    ("sm_90", 128, 41, 0, 10, 40, [R]),
    ("sm_90", 128, 16, 232448, 1, 4, [S]),
    # sm_100: the same limits as sm_90.
    # 16 warps x 32 regs: 1024/warp -> 64 warps -> 4 blocks; warps 64 // 16 = 4: a tie.
    ("sm_100", 512, 32, 0, 4, 64, [W, R]),
    # 233472 // 5 = 46694 -> 46592 (a multiple of 128) - 1024 = 45568 B fits 5 blocks of 2 warps.
    ("sm_100", 64, 16, 45568, 5, 10, [S]),
    # One byte more: 46593 -> 46720 -> 233472 // 46720 = 4 blocks.
    ("sm_100", 64, 16, 45569, 4, 8, [S]),
    # sm_120: 48 warps, 24 blocks (cuda_occupancy.h, CUDA 13.0), 100 KB per SM.
    ("sm_120", 32, 16, 0, 24, 24, [B]),
    # 33 regs: 1056 -> 1280/warp, 12/partition -> 48 warps -> 1 block of 32 warps; warps 48 // 32 = 1: a tie.
    ("sm_120", 1024, 33, 0, 1, 32, [W, R]),
    ("sm_120", 128, 16, 101376, 1, 4, [S]),
]


@pytest.mark.parametrize("target,threads,regs,smem,blocks,warps,limiter", NVIDIA_CASES)
def test_nvidia_known_answers(target, threads, regs, smem, blocks, warps, limiter):
    d = devices.get(target)
    occ = occupancy.compute(d, threads, regs, smem)
    assert (occ.active_blocks_per_sm, occ.active_warps_per_sm, occ.limiter) == (blocks, warps, limiter)
    assert occ.launchable and occ.reason == ""
    assert occ.max_warps_per_sm == d.max_warps_per_sm
    assert occ.occupancy == warps / d.max_warps_per_sm


# (target, threads, regs, smem) -> which limit is at 0, and words the reason must contain.
CANNOT_LAUNCH = [
    # The example: 263 KB on sm_89, which allows 99 KB opted in: 164 KB over.
    ("sm_89", 256, 100, 263 * 1024, [S], "needs 263 KB of shared memory per block; sm_89 allows 99 KB (164 KB over)"),
    # One byte over the opt-in maximum: 101377 + 1024 -> 102528 > 101376 + 1024.
    ("sm_86", 128, 16, 101377, [S], "sm_86 allows 99 KB"),
    ("sm_80", 128, 16, 166913, [S], "sm_80 allows 163 KB"),
    ("sm_90", 128, 16, 232449, [S], "sm_90 allows 227 KB"),
    ("sm_100", 128, 16, 232449, [S], "sm_100 allows 227 KB"),
    ("sm_120", 128, 16, 101377, [S], "sm_120 allows 99 KB"),
    # 256 registers per thread: over the 255 any thread may have.
    ("sm_90", 128, 256, 0, [R], "uses 256 registers per thread; sm_90 allows 255"),
    # 1000 threads x 65 regs = 65000 <= 65536 counted per thread, but registers go by warps: 32 warps x 2304
    # = 73728 > 65536 registers per block.
    ("sm_86", 1000, 65, 0, [R], "needs 73728 registers per block"),
]


@pytest.mark.parametrize("target,threads,regs,smem,limiter,words", CANNOT_LAUNCH)
def test_nvidia_cannot_launch(target, threads, regs, smem, limiter, words):
    occ = occupancy.compute(devices.get(target), threads, regs, smem, grid=100)
    assert not occ.launchable and occ.active_blocks_per_sm == 0 and occ.active_warps_per_sm == 0
    assert occ.limiter == limiter and occ.occupancy == 0
    assert words in occ.reason
    assert (occ.waves, occ.last_wave_ctas, occ.ctas_per_wave) == (0, 0, 0)


def test_fits_registers_per_sm_but_not_per_block():
    """Every target here has 64K registers per block and per SM, so take a part with 32K per block (the
    CUDA Guide lists 32K for 5.3, 6.2 and 7.2): 14 warps x 72 regs = 14 x 2304 = 32256 registers fit in
    32768, but the hardware check rounds the warps up to 16: 36864 > 32768. By SM the block would fit:
    16384 // 2304 = 7 per partition -> 28 warps -> 2 blocks."""
    small = dataclasses.replace(devices.get("sm_86"), regs_per_block=32768)
    occ = occupancy.compute(small, 14 * 32, 72, 0)
    assert not occ.launchable and occ.limiter == [R]
    assert "needs 36864 registers per block (2304 per warp x 16 warps (rounded up to a multiple of 4))" in occ.reason
    assert occupancy.compute(devices.get("sm_86"), 14 * 32, 72, 0).active_blocks_per_sm == 2


def test_waves_and_the_tail():
    # The default gemm on H100: 2 blocks/SM x 132 SMs = 264 CTAs a wave; 1024 CTAs -> 4 waves, the last with
    # 1024 - 3 x 264 = 232.
    occ = occupancy.compute(devices.get("sm_90"), 256, 122, 98304, grid=1024)
    assert (occ.ctas_per_wave, occ.waves, occ.last_wave_ctas) == (264, 4, 232)
    assert occ.last_wave_fill == 232 / 264
    # On a 114-SM part: 228 a wave, 5 waves, 1024 - 4 x 228 = 112 in the last.
    part = devices.with_num_sms(devices.get("sm_90"), 114)
    occ = occupancy.compute(part, 256, 122, 98304, grid=1024)
    assert (occ.ctas_per_wave, occ.waves, occ.last_wave_ctas) == (228, 5, 112)
    # A grid that fills its only wave exactly.
    occ = occupancy.compute(devices.get("sm_90"), 256, 122, 98304, grid=264)
    assert (occ.waves, occ.last_wave_ctas) == (1, 264)


def test_the_calculator_takes_a_gpu_by_name():
    """--arch l40s: Ada's limits per SM, the L40S's 142 SMs for the waves."""
    occ = occupancy.question("l40s", 256, 128, 49152, grid=1024)
    assert (occ.device, occ.num_sms, occ.active_blocks_per_sm, occ.ctas_per_wave) == ("L40S", 142, 2, 284)


def test_hints_name_the_nearest_change():
    # sm_90, 2 blocks tied between registers and shared memory: 3 blocks need 24 warps = 6 per partition, so
    # <= 16384 // 6 = 2730 -> 2560 registers a warp = 80 per thread; and 233472 // 3 = 77824 - 1024 = 76800 B
    # = 75 KB. Then 3 blocks x 8 warps = 24 of 64 warps: 25% -> 37.5%.
    occ = occupancy.question("sm_90", 256, 122, 98304)
    assert occ.hints == ["at ≤ 80 registers and ≤ 75 KB of shared memory: 3 blocks per SM, 25% → 37.5%"]
    # The calculator example: shared memory alone limits to 1 block; 2 need 102400 // 2 = 51200
    # - 1024 = 50176 B = 49 KB.
    assert occupancy.question("sm_86", 256, 96, 65536).hints == \
        ["at ≤ 49 KB of shared memory: 2 blocks per SM, 16.7% → 33.3%"]
    # sm_80, 4 warps x 200 regs: 6400/warp, 2/partition -> 8 warps -> 2 blocks; 3 need 12 warps = 3 per
    # partition: 16384 // 3 = 5461 -> 5376 a warp = 168 per thread.
    assert occupancy.question("sm_80", 128, 200, 0).hints == ["at ≤ 168 registers: 3 blocks per SM, 12.5% → 18.8%"]
    # At the warp limit no register or shared-memory change helps.
    assert occupancy.question("sm_86", 1024, 32, 0).hints == []


# AMD. gfx9 (CDNA): 8 waves per SIMD, 4 SIMDs, 512 VGPRs in granules of 8, 64 KB LDS in 512-byte blocks,
# 16 multi-wave workgroups per CU. (target, threads, vgprs, lds, sgprs) -> (workgroups, waves per CU,
# limiters, waves per SIMD by registers alone).
AMD_CASES = [
    # 4 waves, 118 VGPRs -> 120: 512 // 120 = 4 per SIMD -> 16 waves -> 4 workgroups; slots 32 // 4 = 8.
    ("gfx942", 256, 118, 0, 40, 4, 16, [R], 4),
    # The default gemm: 8 waves, 64 KB LDS -> 1 workgroup; registers 16 // 8 = 2.
    ("gfx942", 512, 118, 65536, 40, 1, 8, [S], 4),
    # 64 VGPRs: 512 // 64 = 8 per SIMD, every slot: registers do not limit. One-wave workgroups use no
    # barrier, so the cap is the 32 wave slots too: slots and the cap tie.
    ("gfx942", 64, 64, 0, 20, 32, 32, [W, B], 8),
    # 65 VGPRs, just over a multiple of 8: 72 -> 512 // 72 = 7 per SIMD -> 28 workgroups.
    ("gfx942", 64, 65, 0, 20, 28, 28, [R], 7),
    # 101 SGPRs on gfx9: 7 waves per SIMD; 100 SGPRs: 8.
    ("gfx90a", 64, 16, 0, 101, 28, 28, [R], 7),
    ("gfx90a", 64, 16, 0, 100, 32, 32, [W, B], 8),
    # 8 waves, 16 KB LDS: 65536 // 16384 = 4 workgroups, slots 32 // 8 = 4: a tie (16 VGPRs use no slot up).
    ("gfx942", 512, 16, 16384, 20, 4, 32, [W, S], 8),
    # One byte more: 16385 -> 16896 -> 3 workgroups.
    ("gfx942", 512, 16, 16385, 20, 3, 24, [S], 8),
    # gfx950: 160 KB of LDS: 163840 // 65536 = 2 workgroups of 8 waves.
    ("gfx950", 512, 16, 65536, 20, 2, 16, [S], 8),
    # gfx1100, wave32, WGP mode: 16 waves per SIMD, 1536 VGPRs in granules of 24, 128 KB LDS per WGP.
    # 175 VGPRs -> 192: 1536 // 192 = 8 per SIMD -> 32 waves -> 8 workgroups of 4; slots 64 // 4 = 16.
    ("gfx1100", 128, 175, 0, 32, 8, 32, [R], 8),
    # 51 VGPRs -> 72: 21 per SIMD, over the cap of 16: slots alone limit, to 64 // 4 = 16 workgroups.
    ("gfx1100", 128, 51, 0, 32, 16, 64, [W], 16),
    # 8 waves x 64 KB: 131072 // 65536 = 2 workgroups.
    ("gfx1100", 256, 24, 65536, 32, 2, 16, [S], 16),
]


@pytest.mark.parametrize("target,threads,vgprs,lds,sgprs,groups,waves,limiter,simd_waves", AMD_CASES)
def test_amd_known_answers(target, threads, vgprs, lds, sgprs, groups, waves, limiter, simd_waves):
    occ = occupancy.compute(devices.get(target), threads, vgprs, lds, sgprs=sgprs)
    assert (occ.active_blocks_per_sm, occ.active_warps_per_sm, occ.limiter) == (groups, waves, limiter)
    assert occ.register_waves_per_simd == simd_waves
    assert occ.waves_per_simd == -(-waves // 4)


@pytest.mark.parametrize("target,lds,words", [("gfx942", 65537, "gfx942 allows 64 KB"),
                                              ("gfx1100", 65537, "gfx1100 allows 64 KB"),
                                              ("gfx950", 160 * 1024 + 1, "gfx950 allows 160 KB")])
def test_amd_lds_over_the_workgroup_limit(target, lds, words):
    occ = occupancy.compute(devices.get(target), 256, 32, lds)
    assert not occ.launchable and occ.limiter == [S] and words in occ.reason


# ---- against the compiler's own `; Occupancy:` comment, on kernels compiled here ----

AMD_TARGETS = ["gfx90a", "gfx942", "gfx950", "gfx1100"]


@pytest.fixture(scope="module")
def amd_compiles():
    out = {}
    for name in ("softmax", "gemm"):
        spec = registry.load(name)
        for t in AMD_TARGETS:
            out[name, t] = Request.of(spec, t).compile()
    return out


@pytest.mark.compile
@pytest.mark.parametrize("kernel", ["softmax", "gemm"])
@pytest.mark.parametrize("target", AMD_TARGETS)
def test_register_waves_agree_with_the_compiler(amd_compiles, kernel, target):
    c = amd_compiles[kernel, target]
    occ = occupancy.of(c)
    assert c.resources.compiler_occupancy is not None
    assert occ.register_waves_per_simd == c.resources.compiler_occupancy
    assert occ.compiler_occupancy == c.resources.compiler_occupancy


@pytest.mark.compile
@pytest.mark.parametrize("target", ["gfx90a", "gfx942"])
def test_the_compiler_comment_does_not_see_tritons_lds(amd_compiles, target):
    """Triton's LDS is dynamic: the assembly declares none and the comment counts registers only; 64 KB
    per workgroup lets one workgroup of 8 waves onto a 64 KB CU, which the comment cannot know."""
    c = amd_compiles["gemm", target]
    asm = c.kernel.asm["amdgcn"]
    assert ".amdhsa_group_segment_fixed_size 0" in asm and "; LDSByteSize: 0 bytes/workgroup" in asm
    assert c.metadata.shared == 65536 and c.resources.shared_total == 65536
    occ = occupancy.of(c)
    assert occ.limiter == [S] and occ.active_blocks_per_sm == 1 and occ.waves_per_simd == 2
    assert occ.waves_per_simd < c.resources.compiler_occupancy
    assert any("does not see Triton's 64 KB of dynamic LDS" in n for n in occ.notes)


@pytest.mark.compile
def test_of_a_compiled_kernel_counts_the_reserved_kilobyte_once(gemm_sm90):
    c = gemm_sm90
    occ = occupancy.of(c)
    r = c.resources
    assert r.reserved_shared == 1024 and r.static_shared == 0          # cuobjdump says SHARED:1024
    assert occ.shared_memory == c.metadata.shared
    assert occ.shared_allocated == -(-(c.metadata.shared + 1024) // 128) * 128
    assert occ.threads == 256 and occ.grid == (4096 // 128) ** 2
    assert occ.ctas_per_wave == occ.active_blocks_per_sm * 132


@pytest.mark.compile
def test_compile_header_says_it_cannot_launch():
    result = invoke("compile", "gemm", "--target", "sm_89", "--meta",
                                       "BLOCK_SIZE_M=256,BLOCK_SIZE_N=256", "--show", "ttir")
    assert result.exit_code == 0
    assert "// occupancy   CANNOT LAUNCH on GeForce RTX 4090 (128 SMs): needs 128 KB of shared memory per " \
           "block; sm_89 allows 99 KB (29 KB over)" in result.output


@pytest.mark.compile
def test_compile_header_and_json_show_occupancy(gemm_sm90):
    result = invoke("compile", "gemm", "--target", "sm_90", "--show", "ttir")
    assert result.exit_code == 0
    occ = occupancy.of(gemm_sm90)
    assert f"// occupancy   {occ.active_blocks_per_sm} blocks/SM x 8 warps" in result.output
    assert "// waves       1024 CTAs" in result.output
    data = json.loads(invoke("compile", "gemm", "--target", "sm_90", "--json").output)
    assert data["occupancy"]["active_blocks_per_sm"] == occ.active_blocks_per_sm
    assert data["occupancy"]["launchable"] is True


# ---- the command ----

def run(*args):
    result = invoke("occupancy", *args)
    return result.exit_code, result.stdout, result.stderr


def test_help():
    code, out, _ = run("--help")
    assert code == 0 and "--arch" in out and "--num-sms" in out


def test_calculator_json_contract():
    code, out, _ = run("--arch", "sm_86", "--threads", "256", "--regs", "96", "--smem", "65536", "--json")
    assert code == 0
    data = json.loads(out)
    assert {k: data[k] for k in ("active_blocks_per_sm", "active_warps_per_sm", "max_warps_per_sm", "occupancy",
                                 "limiter", "launchable")} == \
        {"active_blocks_per_sm": 1, "active_warps_per_sm": 8, "max_warps_per_sm": 48, "occupancy": 0.166667,
         "limiter": ["shared_memory"], "launchable": True}


def test_calculator_with_grid_and_num_sms():
    # 2 blocks x 114 SMs = 228 a wave; 1000 CTAs -> 5 waves, 1000 - 4 x 228 = 88 in the last.
    code, out, _ = run("--arch", "sm_90", "--threads", "256", "--regs", "122", "--smem", "98304", "--grid", "1000",
                       "--num-sms", "114", "--json")
    data = json.loads(out)
    assert code == 0 and (data["waves"], data["last_wave_ctas"], data["num_sms"]) == (5, 88, 114)


def test_calculator_cannot_launch_is_an_answer():
    code, out, _ = run("--arch", "sm_89", "--threads", "256", "--regs", "96", "--smem", str(263 * 1024), "--json")
    data = json.loads(out)
    assert code == 0 and data["launchable"] is False and data["active_blocks_per_sm"] == 0
    assert "needs 263 KB" in data["reason"]


def test_calculator_human_output():
    code, out, _ = run("--arch", "sm_86", "--threads", "256", "--regs", "96", "--smem", "65536", "--grid", "1000")
    assert code == 0
    assert "occupancy   1 block/SM x 8 warps = 8 of 48 warps (16.7%)" in out
    assert "shared memory  64 KB + 1 KB reserved -> 65 KB" in out
    # 82 SMs x 1 block: 1000 CTAs -> 13 waves, 1000 - 12 x 82 = 16 in the last.
    assert "waves       1000 CTAs, 82 per wave (1 x 82 SMs): 13 waves, last wave 16 of 82 (19.5%)" in out


@pytest.mark.parametrize("args,words", [
    (["--arch", "sm_86", "--threads", "256", "--regs", "-1", "--smem", "0"], "--regs -1: must not be negative"),
    (["--arch", "sm_86", "--threads", "1025", "--regs", "32", "--smem", "0"], "at most 1024 threads"),
    (["--arch", "sm_86", "--threads", "0", "--regs", "32", "--smem", "0"], "at least one thread"),
    (["--arch", "sm_75", "--threads", "256", "--regs", "32", "--smem", "0"], "unknown target 'sm_75'"),
    (["--arch", "sm_86", "--threads", "256", "--regs", "lots", "--smem", "0"], "--regs lots: not an integer"),
    (["--arch", "gfx942", "--threads", "256", "--regs", "32", "--smem", "0", "--sgprs", "2000"], "a gfx942 SIMD has 800 SGPRs"),
    (["--arch", "sm_90", "--threads", "256", "--regs", "32", "--smem", "0", "--sgprs", "20"], "scalar registers are AMD's"),
    (["--arch", "sm_86", "--threads", "256", "--smem", "0"], "missing --regs"),
    (["--arch", "sm_86", "--threads", "256", "--regs", "32", "--smem", "0", "--grid", "0"], "at least one CTA"),
    (["gemm", "--arch", "sm_86"], "--arch: these describe a block without a kernel"),
])
def test_malformed_input_is_one_line_and_exit_2(args, words):
    code, out, err = run(*args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


@pytest.mark.compile
def test_kernel_report(gemm_sm90):
    code, out, _ = run("gemm", "--target", "sm_90", "--num-warps", "8")
    assert code == 0
    occ = occupancy.of(gemm_sm90)
    assert f"resources   {gemm_sm90.resources.registers} registers per thread" in out
    assert f"{occ.active_blocks_per_sm} blocks/SM x 8 warps" in out
    # Shared memory limits the default gemm on sm_90, so the report recompiles with fewer stages. Each stage
    # buffers a 128 x 64 tile of A and a 64 x 128 tile of B in fp16: 2 x 16 KB; 3 stages 96 KB, 2 stages 64 KB.
    assert "what-if     with num_stages=2: shared memory 96 KB → 64 KB" in out


@pytest.mark.compile
def test_kernel_report_amd_json(amd_compiles):
    code, out, _ = run("softmax", "--target", "gfx942", "--json")
    data = json.loads(out)
    c = amd_compiles["softmax", "gfx942"]
    assert code == 0 and data["register_waves_per_simd"] == c.resources.compiler_occupancy
    assert data["sgprs"] == c.resources.sgprs and data["target"] == "gfx942"


def test_question_rejects_bad_numbers_in_the_library():
    with pytest.raises(UserError):
        occupancy.compute(devices.get("sm_90"), 256, 32, -1)
