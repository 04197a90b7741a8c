"""The performance model: what it reads from the binary, the traffic of a tile schedule, the time's terms
checked against their formulas by hand, the band, and a sweep that separates what a GPU would separate."""
import math
from dataclasses import replace

import pytest

from playground.core import devices, registry, targets
from playground.artefact.request import Request
from playground.figures import grid, roofline, roofline_text
from playground.model import constants as K
from playground.model import caveats, explain, program, ranking, traffic
from playground.model import text as model_text
from playground.sweep import triage
from playground.sweep.space import request_for

pytestmark = pytest.mark.compile

GEMM_128 = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8}


def _gemm(target, shape=None, **config):
    spec = registry.load("gemm")
    cfg = {**GEMM_128, "num_warps": 8, "num_stages": 3, **config}
    return request_for(spec, targets.resolve(target), cfg,
                       shape or dict(spec.default_shape), None).compile()


def test_the_program_is_read_from_the_binary_wgmma_on_hopper_mma_sync_on_ampere():
    hopper = program.read(_gemm("sm_90"))
    assert hopper.mma_family == "wgmma" and hopper.async_copy == "cp.async"
    # one trip of the K loop loads a 128x64 tile of A and a 64x128 tile of B, fp16
    assert hopper.load_bytes_per_round == (128 * 64 + 64 * 128) * 2 and hopper.load_lines == 2
    assert hopper.dot_tile == (128, 128) and (hopper.warps_m, hopper.warps_n) == (8, 1)
    assert hopper.rounds_in_flight == 2                      # a ring of 3 buffers, one being read
    ampere = program.read(_gemm("sm_80"))
    assert ampere.mma_family == "mma.sync" and (ampere.warps_m, ampere.warps_n) == (2, 4)
    # shared traffic per trip: the copies write A and B; mma.sync reads A once per warp column, B per warp row
    a, b = 128 * 64 * 2, 64 * 128 * 2
    # (issued by threads, issued by the copy and matrix engines)
    assert ampere.shared_bytes_per_round(2, 64) == (a * 4 + b * 2, a + b)
    # wgmma reads B once per 64 rows of the tile, A once, itself
    assert hopper.shared_bytes_per_round(2, 64) == (0, (a + b) + a + b * 2)


def test_amds_direct_to_lds_loads_are_counted_and_cdna4s_shared_rate_is_said_to_be_cdna3s():
    """gfx950's buffer_load_to_local names its result bare (`-> <128x64xf16, #shared, ...>`): its tiles are read
    as any other load's. The LDS rate used there is CDNA3's, and the explanation says so."""
    p = program.read(_gemm("gfx950", num_warps=4))
    assert p.load_lines == 2 and p.load_bytes_per_round == (128 * 64 + 64 * 128) * 2
    e = explain.explain(_gemm("gfx950", num_warps=4))
    assert e.figures.shared_traffic_threads + e.figures.shared_traffic_engines > 0
    assert K.SHARED_RATE_NOTES["gfx950"] in e.notes
    assert not any(n.startswith("shared memory: CDNA4") for n in explain.explain(_gemm("gfx942", num_warps=4)).notes)
    # Triton 3.9 loads straight into LDS there (3.6 goes through registers): the copy engines' share
    assert p.async_copy != "direct-to-LDS" or e.figures.shared_traffic_engines > 0


def test_gemm_traffic_follows_the_tile_schedule():
    c = _gemm("sm_90", shape={"M": 2048, "N": 2048, "K": 1024})
    ctas, elem, (m, n, k) = 16 * 16, 2, (2048, 2048, 1024)
    # every CTA reads its A row panel and B column panel from L2
    big = traffic.traffic(c, 132, 10**12)
    assert big.l2_load_bytes == ctas * (128 + 128) * k * elem
    # an L2 that holds everything fetches each panel once: the compulsory traffic, plus C written once
    assert big.dram_bytes == (m * k + k * n) * elem + m * n * elem and big.from_schedule
    # a small L2 refetches panels wave after wave; grouped ordering refetches fewer than row-major
    assert traffic.traffic(c, 132, 4 * 2**20).dram_bytes > big.dram_bytes
    wide = {"M": 8192, "N": 8192, "K": 1024}
    # with B's 64 column panels (16 MiB) larger than an 8 MiB L2, row-major order refetches all of B every
    # wave; grouped order keeps 8 row panels and a quarter of B per wave, and refetches B once per group
    grouped = traffic.traffic(_gemm("sm_90", shape=wide), 132, 8 * 2**20)
    row_major = traffic.traffic(_gemm("sm_90", shape=wide, GROUP_SIZE_M=1), 132, 8 * 2**20)
    assert row_major.dram_bytes > 1.5 * grouped.dram_bytes and grouped.reuse > row_major.reuse


def test_the_l2_rate_follows_the_xcds_a_part_has():
    """Each CDNA3 XCD's L2 has 16 channels of 128 bytes a clock (CDNA3 white paper): the MI300X's 8 give 16 KB a
    clock, and 38 CUs (one XCD: a CPX partition, or --num-sms 38) one eighth of it, with the same bytes to move."""
    c = _gemm("gfx942")
    mi300x = devices.get("gfx942")
    assert K.l2_bytes_per_clock("gfx942", mi300x) == 8 * 16 * 128 == K.L2_BYTES_PER_CLOCK["gfx942"]
    whole, one_xcd = explain.explain(c), explain.explain(c, devices.with_num_sms(mi300x, 38))
    assert K.l2_bytes_per_clock("gfx942", devices.with_num_sms(mi300x, 38)) == 16 * 128
    assert one_xcd.figures.l2_traffic == whole.figures.l2_traffic
    for name in K.SCENARIOS:
        ratio = one_xcd.scenarios[name].terms["l2"] / whole.scenarios[name].terms["l2"]
        assert ratio == pytest.approx(8 * whole.figures.clock_share[K.SCENARIOS.index(name)]
                                      / one_xcd.figures.clock_share[K.SCENARIOS.index(name)], rel=1e-9)
    assert K.l2_bytes_per_clock("sm_90", devices.with_num_sms(devices.get("sm_90"), 66)) == K.L2_BYTES_PER_CLOCK["sm_90"]


def test_each_xcd_has_its_own_l2_and_the_infinity_cache_behind_them_fetches_from_dram():
    """CDNA3 deals CTAs to its 8 XCDs round-robin, each with its own L2: in grouped order XCD x gets tile rows
    x and 8 + x of the 16, and every one of the 16 column panels, so each XCD fetches 18 panels where one L2
    would fetch each of the 32 once. The Infinity Cache behind them holds all 32: DRAM reads them once."""
    c = _gemm("gfx942", shape={"M": 2048, "N": 2048, "K": 1024}, num_warps=4)
    panel, written = 128 * 1024 * 2, 2048 * 2048 * 2
    one = traffic.traffic(c, 10**6, 10**12)
    assert one.dram_bytes - written == 32 * panel and one.memory_side_bytes == 0
    per_xcd = traffic.traffic(c, 10**6, 10**12, l2_partitions=8)
    assert per_xcd.dram_bytes - written == 8 * 18 * panel          # no cache behind the L2s: every miss is DRAM's
    assert per_xcd.l2_load_bytes == one.l2_load_bytes == 256 * 2 * panel
    # each XCD's L2 holds its share: with room for 2 of the 18 panels and one CTA at a time, XCD x keeps its row's
    # A panel and fetches the 16 B panels in turn, for each of its two rows: 34 fetches an XCD
    small = traffic.traffic(c, 8, 18 * panel, l2_partitions=8)
    assert small.dram_bytes - written == 8 * 34 * panel
    behind = traffic.traffic(c, 10**6, 10**12, l2_partitions=8, memory_side_bytes=256 * 2**20)
    assert behind.dram_bytes - written == 32 * panel and behind.memory_side_bytes == 8 * 18 * panel + written
    assert behind.reuse == pytest.approx(512 / 144)                 # 512 panel loads over 144 fetched by the L2s
    # a cache behind the L2s never makes DRAM send more than the L2s fetch: one panel of room, 8 CTAs a wave, would
    # fetch 258 panels on its own; the L2s (room for all) fetch 144, and DRAM sends those
    tiles = grid.tiles(c.spec, c.config.shape, c.config.meta, grid.device_of(c))
    assert traffic._fetched(tiles, c.spec.operands(c.config.shape, c.config.meta, 2), 8, panel) == 258 * panel
    tiny = traffic.traffic(c, 8, 10**12, l2_partitions=8, memory_side_bytes=panel)
    assert tiny.dram_bytes - written == 144 * panel
    # the model times what passes the Infinity Cache at the CDNA3 white paper's 17.2 TB/s (MI300X's L2s: 8 of 4 MB)
    mi300x = devices.get("gfx942")
    assert (mi300x.l2_partitions, mi300x.l2_bytes, mi300x.infinity_cache_gbs) == (8, 32 * 2**20, 17200.0)
    e = explain.explain(c)
    for name, sc in e.scenarios.items():
        assert sc.terms["infinity_cache"] == pytest.approx(
            e.figures.memory_side_traffic / (17200e9 * K.L2_EFFICIENCY.at(name)), rel=1e-12)
    assert "Infinity Cache" in model_text.busy_phrase(e) and "Infinity Cache" in model_text.rows(e)[3][1]
    # MI355X has 8 XCDs and a 256 MB Infinity Cache too, but no published bandwidth for it: untimed, and said so
    e950 = explain.explain(_gemm("gfx950", num_warps=4))
    assert "infinity_cache" not in e950.busy and e950.figures.memory_side_traffic > 0
    assert any(n.startswith("Infinity Cache: no published bandwidth for gfx950") for n in e950.notes)
    # a spec without operand blocks, and a captured launch, pass all their bytes through the Infinity Cache
    soft = Request.of("softmax", "gfx942", shape={"M": 4096, "N": 1024}).compile()
    assert explain.explain(soft).figures.memory_side_traffic == 2 * 4096 * 1024 * 4
    assert explain.explain(soft, work=(1e9, 10**8, 4096)).figures.memory_side_traffic == 10**8
    # one L2 and no Infinity Cache on NVIDIA: unchanged
    assert explain.explain(_gemm("sm_90")).figures.memory_side_traffic == 0


def test_a_spec_without_operands_moves_its_byte_count_once():
    c = Request.of("softmax", "sm_80", shape={"M": 4096, "N": 1024}).compile()
    t = traffic.traffic(c, 1728, devices.get("sm_80").l2_bytes)
    assert (t.dram_bytes, t.output_bytes, t.from_schedule) == (2 * 4096 * 1024 * 4, 4096 * 1024 * 4, False)


def _layernorm(target, num_warps, n):
    spec = registry.load("layernorm")
    return request_for(spec, targets.resolve(target), {"num_warps": num_warps}, {"M": 4096, "N": n}, "fp32").compile()


def test_layernorms_repeats_are_its_rows_chunks_each_with_what_the_program_touches_before_it():
    """N=16384 in chunks of 4096: pass 2 reads each chunk again after touching the row (64 KB); pass 3's chunk j
    after touching the row and the j chunks of y written since (64 to 112 KB)."""
    rereads = registry.load("layernorm").rereads
    chunk, row = 4096 * 4, 16384 * 4
    assert rereads({"M": 4096, "N": 16384}, {"BLOCK_SIZE": 4096}, 4) == \
        [(chunk, row)] * 4 + [(chunk, row + j * chunk) for j in range(4)]
    # a row in one chunk: pass 3 comes back before anything is written; a ragged last chunk keeps its size
    assert rereads({"M": 1, "N": 1000}, {"BLOCK_SIZE": 1024}, 2) == [(2000, 2000), (2000, 2000)]
    assert rereads({"M": 1, "N": 1000}, {"BLOCK_SIZE": 512}, 4) == \
        [(2048, 4000), (1952, 4000), (2048, 4000), (1952, 4000 + 2048)]


def test_layernorms_repeats_come_from_l1_l2_or_dram_by_what_the_resident_ctas_touch_in_between():
    """Each repeat is served by L1 while the SM's resident CTAs' reuse distances fit beside shared memory, by L2
    while the chip's do, by DRAM otherwise; every case checked by hand from the binary's occupancy."""
    a100, chunk, ctas = devices.get("sm_80"), 4096 * 4, 4096
    once = registry.load("layernorm").bytes({"M": 4096, "N": 16384}, 4)
    # reuse distances, in 16 KB chunks: 4, 4, 4, 4 (pass 2) and 4, 5, 6, 7 (pass 3). A repeat hits L2 while the
    # chip's resident CTAs x its distance fit in 40 MB. With Triton 3.9's registers: 4 warps, 8 per SM: 864 x 64 KB
    # = 54 MB, every repeat misses; 8 warps, 5 per SM: 540 x 64 KB = 33.75 MB fits, 540 x 80 KB does not: 3 miss;
    # 16 warps, 4 per SM: 432 CTAs, up to 96 KB fits: 2 miss. (Other Triton versions' registers may differ.)
    distances = [4, 4, 4, 4, 4, 5, 6, 7]
    for warps in (4, 8, 16):
        c = _layernorm("sm_80", warps, 16384)
        blocks, _ = roofline.active_blocks(c)
        resident = blocks * a100.num_sms
        misses = sum(resident * d * chunk > a100.l2_bytes for d in distances)
        assert misses == 8 if warps == 4 else 0 < misses < 8
        again = traffic.rereads(c, ctas, blocks, a100.num_sms, explain.l1_room(c, a100, blocks), a100.l2_bytes)
        assert again.bytes == 8 * chunk * ctas and again.resident == resident
        expected = {"DRAM": misses * chunk * ctas, "L2": (8 - misses) * chunk * ctas}
        assert again.served == {k: v for k, v in expected.items() if v}
        assert again.resident_per_sm * 4 * chunk > again.l1_room         # 4 or more 64 KB rows: over any L1 left
        e = explain.explain(c)
        f = e.figures
        assert f.dram_traffic == once + misses * chunk * ctas
        # every repeat passes through L2 (none is in L1); L2 loads over DRAM reads is the reuse
        written = traffic.output_bytes(c.spec, c.config.shape, 4)
        assert f.l2_traffic == once + 8 * chunk * ctas
        assert f.reuse == pytest.approx((once - written + 8 * chunk * ctas) / (once - written + misses * chunk * ctas))
        # 4 chunks, three passes, wherever the repeats come from (w and b, read once, add a little)
        assert f.rounds_per_cta == pytest.approx(12, rel=1e-3)
        assert caveats.reread_note(again) in e.notes and f.reread_from == again.where()
    # an 8 KB row: every resident CTA's row fits in L1 beside the little shared memory a reduction takes
    small = explain.explain(_layernorm("sm_80", 4, 2048))
    assert small.figures.reread_from == "L1 100%"
    assert small.figures.dram_traffic == registry.load("layernorm").bytes({"M": 4096, "N": 2048}, 4)
    assert small.figures.rounds_per_cta == pytest.approx(3, rel=1e-3)
    # AMD's Infinity Cache sits behind L2: the MI300X's resident rows overflow its 32 MB of L2, and the 256 MB cache
    # holds the repeats whose distance fits (with Triton 3.9, 8 CTAs on each of 304 CUs: all but pass 3's last
    # chunk, 2432 x 112 KB = 266 MB): L2 traffic, and DRAM reads only for the rest
    c = _layernorm("gfx942", 4, 16384)
    mi300x, resident = explain.explain(c), roofline.active_blocks(c)[0] * devices.get("gfx942").num_sms
    assert devices.get("gfx942").infinity_cache_bytes == 256 * 2**20 and not devices.get("sm_90").infinity_cache_bytes
    assert resident * 4 * chunk > devices.get("gfx942").l2_bytes
    misses = sum(resident * d * chunk > 256 * 2**20 for d in distances)
    assert misses < 8 and mi300x.figures.dram_traffic == once + misses * chunk * ctas
    assert mi300x.figures.reread_from.startswith(f"Infinity Cache {100 * (8 - misses) / 8:.0f}%")
    assert mi300x.figures.l2_traffic == once + 8 * chunk * ctas
    # a kernel that reads nothing twice has no such figure
    assert explain.explain(Request.of("softmax", "sm_80", shape={"M": 4096, "N": 1024}).compile()).figures.reread_from == ""


def test_layernorm_welford_at_atens_launch_reads_its_row_again_from_l1_l2_or_dram_by_the_rows_in_flight():
    """kernels/layernorm_welford.py, PyTorch's layer norm's structure, at ATen's launch (512-element chunks, 4
    warps: benchmarks/model_accuracy.py's stand-in): one repeat per chunk, after the row and the chunks of y
    written since. On an H100, 128-thread CTAs with Triton's 32 registers a thread (nvcc's build of ATen's kernel
    may take more: an assumption model_accuracy states): 16 per SM, 2112 on the chip. Checked by hand:
    a 4 KB row comes back from L1; at 4096 columns the distances are 16 + 2j KB (j = 0..7) and 2112 of them fit
    the 50 MB L2 up to 24.8 KB: 5 of 8 hit; at 8192, 2112 x 32 KB = 69 MB: every repeat is DRAM's."""
    spec = registry.load("layernorm_welford")
    assert spec.rereads({"M": 1, "N": 1300}, {"BLOCK_SIZE": 512}, 4) == [(2048, 5200), (2048, 7248), (1104, 9296)]
    h100 = devices.get("sm_90")

    def at_atens_launch(n):
        return request_for(spec, targets.resolve("sm_90"), {"BLOCK_SIZE": 512, "num_warps": 4}, {"M": 4096, "N": n},
                           "fp32").compile()
    c = at_atens_launch(1024)
    assert c.resources.registers <= 32 and roofline.active_blocks(c)[0] == 16       # 2048 threads, 64K registers
    served = {1024: "L1 100%", 2048: "L1 100%", 4096: "L2 62%, DRAM 38%", 8192: "DRAM 100%", 16384: "DRAM 100%"}
    dram_repeats = {1024: 0, 2048: 0, 4096: 3 / 8, 8192: 1, 16384: 1}
    for n in served:
        e = explain.explain(at_atens_launch(n), h100)
        once = spec.bytes({"M": 4096, "N": n}, 4)
        assert e.figures.reread_from == served[n], n
        assert e.figures.dram_traffic == once + dram_repeats[n] * 4096 * n * 4, n
        assert e.figures.rounds_per_cta == pytest.approx(2 * n / 512, rel=0.01)    # two passes, w and b beside
    # the three-pass tutorial kernel at the same launch reads the row twice again, and misses twice as often
    tutorial = request_for(registry.load("layernorm"), targets.resolve("sm_90"), {"BLOCK_SIZE": 512, "num_warps": 4},
                           {"M": 4096, "N": 16384}, "fp32").compile()
    assert explain.explain(tutorial, h100).figures.dram_traffic == \
        registry.load("layernorm").bytes({"M": 4096, "N": 16384}, 4) + 2 * 4096 * 16384 * 4


def test_sweep_layernorm_sets_apart_the_configs_whose_rereads_go_to_dram():
    """At N=16384 in fp32 on an A100, 1 to 4 warps leave 6 to 8 CTAs on an SM and every repeat misses L2; 8 and 16
    warps leave 5 and 4, and most repeats hit. The sweep's table says where they come from."""
    from playground.sweep import text
    s = triage.run(registry.load("layernorm"), [targets.resolve("sm_80")], {"num_warps": [1, 2, 4, 8, 16]},
                   {"M": 4096, "N": 16384}, "fp32", jobs=1)
    rows = {r["config"]["num_warps"]: r for r in s.rows}
    assert {w for w, r in rows.items() if r["reread_from"] == "DRAM 100%"} == {1, 2, 4}
    assert rows[8]["reread_from"] == "L2 62%, DRAM 38%" and rows[16]["reread_from"] == "L2 75%, DRAM 25%"
    assert rows[16]["modelled_seconds"] < rows[8]["modelled_seconds"] < 0.75 * rows[4]["modelled_seconds"]
    assert rows[16]["rank"] == 1
    table = "\n".join(text.lines(s))
    assert "re-reads: L2 75%, DRAM 25%" in table and "re-reads: DRAM 100%" in table
    assert "reread_from" in text.csv(s).splitlines()[0]


def test_the_terms_are_their_formulas():
    """vector_add on A100, by hand: DRAM, latency (Little's law), launch and fill, at each scenario."""
    n = 1 << 24
    c = Request.of("vector_add", "sm_80", shape={"N": n}).compile()
    e = explain.explain(c)
    d = devices.get("sm_80")
    block = c.config.meta["BLOCK_SIZE"]
    ctas = n // block
    blocks = e.figures.ctas_per_sm
    groups = math.ceil(math.ceil(ctas / d.num_sms) / blocks)      # CTAs an SM works through, `blocks` at once
    assert e.figures.bytes_per_round == 2 * block * 4 and e.figures.rounds_per_cta == 1
    for name, s in e.scenarios.items():
        clock = d.clock_ghz * 1e9 * K.CLOCK_SHARE.at(name)
        latency = K.dram_latency(c.target.name).at(name) / clock
        # DRAM streams at the chip's rate however the grid falls into waves (the latency term is its limit)
        dram = 3 * n * 4 / (d.mem_bandwidth_gbs * 1e9 * K.DRAM_EFFICIENCY.at(name))
        assert s.terms["dram"] == pytest.approx(dram, rel=1e-12)
        # a round waits the load's latency (every byte is read once: an L2 miss, DRAM's), then its bytes at the
        # 128 per clock one SM takes in
        round_latency = latency + 2 * block * 4 / 128 / clock
        assert s.terms["latency"] == pytest.approx(groups * 1 * round_latency / 1, rel=1e-12)
        assert s.bound == "dram"
        assert s.seconds == pytest.approx(dram + 2 * latency + K.LAUNCH_SECONDS.at(name), rel=1e-12)
    assert e.low < e.seconds < e.high
    assert sum(e.shares.values()) == pytest.approx(1.0) and e.busy["dram"] == 1.0


def test_load_latencies_are_the_pointer_chase_figures_where_one_was_measured():
    """gpu-benches' pointer chases (constants.py): DRAM 570, 631 and 650 clocks on an A100, L40 and H100 PCIe, 1.3x
    when queued; L2 hits from the near partition to the far one on the A100 and H100, their mean typical; the L40's
    measured spread. A part with no measurement keeps the assumed span, and its note says so."""
    assert [(t, K.dram_latency(t).typical) for t in ("sm_80", "sm_89", "sm_90")] == \
        [("sm_80", 570), ("sm_89", 631), ("sm_90", 650)]
    assert K.dram_latency("sm_90").pessimistic == pytest.approx(845)
    assert K.dram_latency("sm_100") == K.DRAM_LATENCY_UNMEASURED == K.Span(400, 500, 650)
    assert K.L2_HIT_LATENCY_CYCLES["sm_80"] == K.Span(211, 317.5, 424)
    assert K.L2_HIT_LATENCY_CYCLES["sm_90"] == K.Span(265, 370, 475)
    # a latency-bound launch on each says where its figure comes from
    assert any("measured by pointer chase" in n for n in explain.explain(_gemm("sm_80", num_stages=2)).notes)
    assert any("500 clocks, no measurement found for this part: an assumed figure" in n
               for n in explain.explain(_gemm("sm_100", num_stages=2)).notes)


def test_matrix_code_on_mi300x_runs_at_amds_measured_dense_gemm_clock():
    """AMD's ROCm blog (core/devices.py): under dense GEMM an MI300X holds 1115 MHz (fp16), 1207 (bf16) and 1230
    (fp8) of its 2100 MHz; matrix code runs at the precision's clock, its band spans the other precisions'. Code
    without matrix instructions, a precision with no measurement, and NVIDIA keep the general clock span."""
    mi300x = devices.get("gfx942")
    assert mi300x.matrix_clock_ghz == {"fp16": 1.115, "bf16": 1.207, "fp8": 1.230}
    assert explain.clock_share(mi300x, "fp16") == K.Span(1.230 / 2.1, 1.115 / 2.1, 1.115 / 2.1)
    assert explain.clock_share(mi300x, "bf16").typical == pytest.approx(1.207 / 2.1)
    assert explain.clock_share(mi300x, None) is K.CLOCK_SHARE
    assert explain.clock_share(devices.get("sm_90"), "fp16") is K.CLOCK_SHARE

    c = _gemm("gfx942", num_warps=4)
    e = explain.explain(c)
    for name, s in e.scenarios.items():
        share = explain.clock_share(mi300x, "fp16").at(name)
        tensor = e.figures.flops / (1307.4e12 * K.TENSOR_EFFICIENCY.at(name) * share) / _sm_fill(e)
        assert s.terms["tensor"] == pytest.approx(tensor, rel=1e-12)
    assert e.bound == "tensor"
    assert ("clock: Instinct MI300X runs dense fp16 matrix work at 1115 MHz, 53% of the 2100 MHz its peaks assume "
            "(the vendor's measurement: core/devices.py); the band spans its measured 1115 to 1230 MHz; load latencies stay "
            "at the usual clock") in e.notes
    # a load's latency stays at the usual clock; the round's bytes into the CU come at the matrix clock
    for name, sc in e.scenarios.items():
        usual, matrix = 2.1e9 * K.CLOCK_SHARE.at(name), 2.1e9 * explain.clock_share(mi300x, "fp16").at(name)
        assert sc.fill == pytest.approx(2 * K.dram_latency("gfx942").at(name) / usual, rel=1e-12)
        assert e.figures.bytes_per_round / 128 / matrix > e.figures.bytes_per_round / 128 / usual
    # a precision AMD did not measure takes the lowest measured clock; a grid smaller than the chip the usual span
    assert explain.clock_share(mi300x, "tf32").typical == pytest.approx(1.115 / 2.1)
    assert explain.clock_share(mi300x, "fp16", fills_chip=False) is K.CLOCK_SHARE
    tiny = explain.explain(_gemm("gfx942", shape={"M": 128, "N": 128, "K": 4096}, num_warps=4))
    assert tiny.figures.clock_share == [K.CLOCK_SHARE.optimistic, K.CLOCK_SHARE.typical, K.CLOCK_SHARE.pessimistic]
    assert not any(n.startswith("clock:") for n in tiny.notes)
    # the same binary on a part that clocks higher under load (MI325X: 1354 MHz fp16) is modelled faster
    mi325x = replace(mi300x, name="Instinct MI325X", matrix_clock_ghz={"fp16": 1.354, "bf16": 1.447, "fp8": 1.464})
    assert explain.explain(c, mi325x).scenarios["typical"].terms["tensor"] == \
        pytest.approx(e.scenarios["typical"].terms["tensor"] * 1.115 / 1.354, rel=1e-12)
    # memory-bound code without matrix instructions: the general span, and no clock note
    add = explain.explain(Request.of("vector_add", "gfx942").compile())
    assert add.figures.clock_share == [K.CLOCK_SHARE.optimistic, K.CLOCK_SHARE.typical, K.CLOCK_SHARE.pessimistic]
    assert not any(n.startswith("clock:") for n in add.notes)


def test_a_ring_of_one_buffer_waits_out_every_load_in_series_with_its_work():
    """num_stages=2 on Ada's cp.async path: the pipeliner keeps one buffer per operand, so the next round's
    copy starts only once this round's operands are read and lands before the next round begins. The model
    reads no round in flight from that ring, and adds each round's wait to the CTA's own work; 3 stages (a
    ring of two) keep one round in flight and leave the kernel tensor-bound. Ada's L2 hit latency (279 clocks
    on an L40, constants.L2_HIT_LATENCY_CYCLES) and DRAM's mix by how often a DRAM byte is read again."""
    shape = {"M": 2048, "N": 2048, "K": 2048}
    two, three = (_gemm("sm_89", shape=shape, BLOCK_SIZE_K=32, num_warps=8, num_stages=s) for s in (2, 3))
    assert program.read(two).rounds_in_flight == 0 and program.read(three).rounds_in_flight == 1
    e = explain.explain(two)
    f, d = e.figures, devices.get("sm_89")
    s = e.scenarios["typical"]
    clock = f.clock_ghz * 1e9 * K.CLOCK_SHARE.typical
    per_sm = math.ceil(f.ctas / d.num_sms)
    groups = math.ceil(per_sm / f.ctas_per_sm)
    hit = 279 * (1 - 1 / f.reuse) + K.dram_latency("sm_89").typical / f.reuse
    round_latency = (hit + (128 * 32 + 32 * 128) * 2 / 128) / clock
    assert f.bytes_per_round == (128 * 32 + 32 * 128) * 2 and f.reuse > 10
    work = max(s.terms[r] for r in ("tensor", "issue", "shared"))
    assert s.terms["latency"] == pytest.approx(groups * f.rounds_per_cta * round_latency + groups * work / per_sm,
                                               rel=1e-12)
    assert explain.explain(three).bound == "tensor"
    if f.ctas_per_sm == 1:
        # alone on its SM (Triton 3.9: 174 registers a thread), nothing covers the wait: 17% slower on an RTX
        # 4090, the sm_89 default
        assert e.bound == "latency" and e.seconds > 1.15 * explain.explain(three).seconds
    else:
        # two CTAs an SM (Triton 3.6: 128 registers): one's math covers the other's wait, as Hong and Kim have it
        assert e.bound == "tensor" and s.terms["latency"] < s.terms["tensor"]


def test_a_ring_of_one_buffer_adds_its_wait_to_an_attention_kernels_serial_softmax_too():
    """One attention CTA per SM runs its matrix products and its softmax in turn ("tensor + special"); with
    num_stages=2 each round's wait comes on top of both, so two stages model slower than three."""
    def attention(stages):
        return explain.explain(Request.of("flash_attention", "sm_80", num_stages=stages, num_warps=8,
                                          meta={"BLOCK_M": 128, "BLOCK_N": 64, "HEAD_DIM": 128},
                                          shape={"Z": 4, "H": 16, "N_CTX": 2048, "D": 128}).compile())
    two, three = attention(2), attention(3)
    assert two.figures.rounds_in_flight == 0 and two.figures.serial_special
    t = two.scenarios["typical"].terms
    assert two.bound == "latency" and t["latency"] > t["tensor + special"]
    assert three.bound == "tensor + special" and two.seconds > 1.1 * three.seconds


def test_a_grid_on_few_sms_streams_at_the_chips_rate_and_its_bytes_in_flight_limit_it():
    """32 CTAs on an A100's 108 SMs: DRAM is not cut to 32/108 of its rate (an even share per SM, which
    the validation set's L40S rows contradict); the latency term, Little's law, is what grows."""
    d = devices.get("sm_80")
    few, many = (explain.explain(Request.of("vector_add", "sm_80", shape={"N": n}).compile()) for n in (1 << 15, 1 << 24))
    assert few.figures.ctas == 32 < d.num_sms and many.figures.ctas > d.num_sms
    for e, n in ((few, 1 << 15), (many, 1 << 24)):
        typical = e.scenarios["typical"]
        assert typical.terms["dram"] == pytest.approx(3 * n * 4 / (d.mem_bandwidth_gbs * 1e9 * K.DRAM_EFFICIENCY.typical))
    # per byte, the few CTAs wait longer on latency than the many: fewer bytes in flight across the chip
    latency_per_byte = [e.scenarios["typical"].terms["latency"] / n for e, n in ((few, 1 << 15), (many, 1 << 24))]
    assert latency_per_byte[0] > 10 * latency_per_byte[1]


def test_special_functions_count_on_nvidia_only_when_the_spec_gives_them():
    fa = explain.explain(Request.of("flash_attention", "sm_90").compile())
    s = fa.scenarios["typical"]
    # at the clock H100's tensor peak assumes: 989.4 TFLOPS / (132 SMs x 4096 FLOP per clock) = 1.83 GHz
    assert explain.model_clock(devices.get("sm_90"), "sm_90") == pytest.approx(989.4e12 / (132 * 4096) / 1e9)
    clock = explain.model_clock(devices.get("sm_90"), "sm_90") * 1e9 * K.CLOCK_SHARE.typical
    special = [v for k, v in s.terms.items() if "special" in k]
    assert s.terms.get("special") == pytest.approx(4 * 16 * 2048 * 2048 / (16 * clock * 132) / _sm_fill(fa), rel=1e-9)
    assert special
    assert "special" not in explain.explain(Request.of("flash_attention", "gfx942").compile()).busy


def _sm_fill(e):
    blocks, sms, ctas = e.figures.ctas_per_sm, e.figures.num_sms, e.figures.ctas
    full, last = divmod(ctas, blocks * sms)
    return ctas / (full * blocks * sms + (math.ceil(last / sms) * sms if last else 0))


def test_every_line_says_modelled_and_the_breakdown_names_the_bound():
    e = explain.explain(_gemm("sm_80"))
    text = model_text.lines(e)
    assert all(line.startswith("modelled") for line in text)
    assert e.bound == "tensor" and text[1].startswith("modelled  bound     the kernel's body by tensor-core issue; time goes to")
    assert "band" in text[0]


def test_same_time_ties_within_the_resolution_or_when_the_band_flips_the_order():
    row = lambda t, lo, hi: {"modelled_seconds": t, "modelled_low": lo, "modelled_high": hi}   # noqa: E731
    assert ranking.same_time(row(100, 90, 120), row(101.9, 92, 122))          # within 2%
    assert not ranking.same_time(row(100, 90, 120), row(110, 99, 132))        # same bound, apart everywhere
    assert ranking.same_time(row(100, 90, 120), row(110, 85, 125))            # faster at the optimistic end
    rows = [{"target": "a", "status": "ok", "launchable": True, **row(t, lo, hi)}
            for t, lo, hi in ((100, 90, 120), (101, 91, 121), (150, 140, 160), (150, 140, 160))]
    triage.rank(rows)
    assert [(r["rank"], r["tie"]) for r in rows] == [(1, False), (1, True), (3, False), (3, True)]


def test_ranked_shares_a_rank_on_a_tie_and_puts_what_has_no_time_last():
    times = lambda item: None if item[1] is None else {"modelled_seconds": item[1]}   # noqa: E731
    items = [("c", 130), ("untimed", None), ("a", 100), ("b", 101)]
    assert [(name, place, tie) for (name, _), place, tie in ranking.ranked(items, times)] == \
        [("a", 1, False), ("b", 1, True), ("c", 3, False), ("untimed", 4, False)]


def test_sweep_gemm_separates_tile_shapes_on_hopper():
    """The issue's complaint: 14 of 16 configs shared rank 1. Now the tile decides, and stages alone tie."""
    spec = registry.load("gemm")
    result = triage.run(spec, [targets.resolve("sm_90")], jobs=1,
                        ranges={"BLOCK_SIZE_M": [64, 128], "BLOCK_SIZE_N": [128, 256], "num_stages": [3, 4]})
    ok = [r for r in result.rows if r["rank"] is not None]
    tile = lambda r: (r["meta"]["BLOCK_SIZE_M"], r["meta"]["BLOCK_SIZE_N"])   # noqa: E731
    best = min(ok, key=lambda r: r["modelled_seconds"])
    assert tile(best) == (128, 256) and best["rank"] == 1
    assert len({r["rank"] for r in ok}) >= 3
    assert all(r["modelled_low"] < r["modelled_seconds"] < r["modelled_high"] and r["bound"] for r in ok)
    assert all(r["rank"] > 1 for r in ok if tile(r) == (64, 128))
    # stages alone change nothing the model sees here: those pairs tie
    pairs = {}
    for r in ok:
        pairs.setdefault(tile(r), []).append(r)
    assert any(len(p) == 2 and p[0]["rank"] == p[1]["rank"] for p in pairs.values())


def test_a_persistent_kernel_has_the_tail_of_its_uneven_last_round():
    """512 tiles over 132 programs: the slowest take 4, as the fourth wave of the ordinary launch."""
    wide = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256}
    ordinary = explain.explain(Request.of("gemm", "sm_90", meta=wide, num_warps=8, num_stages=3).compile())
    persistent = explain.explain(Request.of("gemm_persistent", "sm_90", meta=wide, num_warps=8,
                                            num_stages=3).compile())
    assert persistent.figures.ctas == 132 and persistent.figures.work_items == 512
    assert persistent.figures.dram_traffic == ordinary.figures.dram_traffic
    assert persistent.figures.l2_traffic == ordinary.figures.l2_traffic
    assert persistent.seconds == pytest.approx(ordinary.seconds, rel=1e-9)
    # one program per SM where two CTAs fit: the same throughput, but half the loads in flight
    square = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128}
    one = explain.explain(Request.of("gemm_persistent", "sm_90", meta=square, num_warps=8, num_stages=3).compile())
    two = explain.explain(Request.of("gemm", "sm_90", meta=square, num_warps=8, num_stages=3).compile())
    assert one.figures.ctas_per_sm == 2
    t1, t2 = one.scenarios["typical"].terms, two.scenarios["typical"].terms
    # 8 tiles of 64 rounds in turn on one CTA, against 8 CTAs of 64 rounds two at a time
    assert t1["latency"] == pytest.approx(2 * t2["latency"], rel=1e-9)
    assert one.seconds >= two.seconds


SASS = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_TID.X ;
.L_x_0:
        /*0020*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
        /*0030*/                   IADD3 R2, R2, 0x1, RZ ;
.L_x_1:
        /*0040*/                   FFMA R5, R5, R6, R7 ;
        /*0050*/                   FFMA R5, R5, R6, R7 ;
        /*0060*/                   FFMA R5, R5, R6, R7 ;
        /*0070*/               @P0 BRA `(.L_x_1) ;
        /*0080*/                   HGMMA.64x128x16.F32 R24, gdesc[UR4], R24 ;
        /*0090*/                   NOP ;
        /*00a0*/              @!P1 BRA `(.L_x_0) ;
        /*00b0*/                   EXIT ;
.L_x_2:
        /*00c0*/                   BRA `(.L_x_2);
        /*00d0*/                   NOP ;
"""


def test_sass_instructions_take_the_innermost_loop_with_the_most_instructions():
    # the inner loop .L_x_1: 3 FFMA and its branch; outside it: the rest, NOPs left out, the final
    # self-branch included (an upper bound); no matrix instruction in the inner body
    assert program.sass_instructions(SASS) == (4, 0, 2 + 4 + 1 + 1)
    flat = SASS.replace("@P0 BRA `(.L_x_1) ;", "ISETP.GE.AND P0, PT, R2, 0x8, PT ;")
    # with the inner branch gone, the outer loop is the main one: HMMA and HGMMA are its matrix instructions
    assert program.sass_instructions(flat) == (8, 2, 2 + 1 + 1)


def test_local_memory_bytes_are_split_between_the_main_loop_and_the_rest():
    sass = """
        /*0000*/                   LDL R2, [R1+0x4] ;
.L_x_0:
        /*0010*/                   STL.64 [R1], R4 ;
        /*0020*/                   LDL.128 R8, [R1+0x10] ;
        /*0030*/               @P0 BRA `(.L_x_0) ;
        /*0040*/                   STL.U8 [R1+0x20], R3 ;
        /*0050*/                   EXIT ;
"""
    assert program.sass_local_bytes(sass) == (8 + 16, 4 + 1)
    assert program.sass_local_bytes(SASS) == (0, 0)


def test_spills_are_local_memory_served_by_l1_then_l2_then_dram():
    # a 128x256 tile in 8 warps held to 96 registers a thread: ptxas spills inside the K loop
    big = {"M": 4096, "N": 4096, "K": 4096}
    compiled = _gemm("sm_80", shape=big, BLOCK_SIZE_N=256, maxnreg=96)
    prog, r = program.read(compiled), compiled.resources
    assert prog.loop_local_bytes > 0 and r.stack_bytes > 0
    e = explain.explain(compiled)
    f, threads, sms = e.figures, 256, 108
    # every STL and LDL moves a warp's words (coalesced), the loop's once per trip
    assert f.local_bytes == pytest.approx(
        (prog.loop_local_bytes * f.rounds_per_cta + prog.other_local_bytes) * threads * f.ctas)
    assert f.local_frame == r.stack_bytes
    # L1 holds what the SM's 192 KB leaves beside the smallest shared-memory carveout the CTAs fit in (A100:
    # 0, 8, ..., 100, 132 or 164 KB), over their threads' frames
    blocks = f.ctas_per_sm
    needed = blocks * (r.shared_total + 1024)
    carveout = min(kb * 1024 for kb in (0, 8, 16, 32, 64, 100, 132, 164) if kb * 1024 >= needed)
    room = K.L1_BYTES_PER_SM["sm_80"] - carveout
    assert 0 < room < r.stack_bytes * threads * blocks
    assert f.local_l1 == pytest.approx(f.local_bytes * room / (r.stack_bytes * threads * blocks))
    # the rest goes to L2, which holds 40 MB of the whole chip's frames; what it cannot hold, DRAM serves
    # (Triton 3.9's frame is larger than 40 MB across the chip; 3.6's is not, and L2 holds it all)
    assert f.local_l2 == pytest.approx(f.local_bytes - f.local_l1)
    chip = r.stack_bytes * threads * min(f.ctas, blocks * sms)
    assert f.local_dram == pytest.approx(f.local_l2 * (1 - min(1.0, 40 * 2**20 / chip)))
    typical = e.scenarios["typical"]
    clock = f.clock_ghz * 1e9 * K.CLOCK_SHARE.typical
    # L2 and DRAM serve the chip at their full rate, whatever the grid's waves
    assert typical.terms["l2"] == pytest.approx((f.l2_traffic + f.local_l2) / (
        K.L2_BYTES_PER_CLOCK["sm_80"] * clock * K.L2_EFFICIENCY.typical))
    assert typical.terms["dram"] == pytest.approx(
        (f.dram_traffic + f.local_dram) / (2039e9 * K.DRAM_EFFICIENCY.typical))
    text = "\n".join(model_text.lines(e))
    assert "of its bytes are spills" in text and f"({r.stack_bytes} B frame per thread)" in text
    # the spilling config is modelled several times slower, not tied with the same tile unconstrained
    free = explain.explain(_gemm("sm_80", shape=big, BLOCK_SIZE_N=256))
    assert free.figures.local_bytes == 0 and e.seconds > 3 * free.seconds


def test_spills_that_fit_in_l1_cost_only_its_bandwidth():
    # an 8192-wide softmax row in one warp: 255 registers and a small frame, which L1 holds whole
    compiled = request_for(registry.load("softmax"), targets.resolve("sm_90"), {"num_warps": 1, "BLOCK_SIZE": 8192},
                           {"M": 4096, "N": 8192}, "fp32").compile()
    r = compiled.resources
    assert r.spill_store_bytes > 0
    e = explain.explain(compiled)
    f = e.figures
    assert f.local_bytes == (r.spill_store_bytes + r.spill_load_bytes) * 32 * 4096   # no loop: each once
    assert f.local_l1 == f.local_bytes and f.local_l2 == f.local_dram == 0
    assert "100% served by L1" in "\n".join(model_text.lines(e))
    clock = f.clock_ghz * 1e9 * K.CLOCK_SHARE.typical
    full = e.scenarios["typical"].terms["local"] * K.SHARED_BYTES_PER_CLOCK * clock * 132 / f.local_l1
    assert full >= 1.0               # the bytes over the SMs' L1 path, then wave-quantised


def test_instruction_issue_is_the_sass_count_over_four_per_clock_per_sm():
    compiled = Request.of("flash_attention", "sm_90").compile()
    prog = program.read(compiled)
    e = explain.explain(compiled)
    f = e.figures
    assert (prog.loop_instructions, prog.loop_mma) == program.sass_instructions(compiled.stage("sass"))[:2]
    per_warp = prog.loop_instructions * f.rounds_per_cta + prog.other_instructions
    assert f.issued == f.ctas * compiled.config.num_warps * per_warp
    typical = e.scenarios["typical"]
    clock = f.clock_ghz * 1e9 * K.CLOCK_SHARE.typical
    assert "issue" in typical.terms and e.busy["issue"] > 0.5          # attention issues many non-MMA ops
    full_waves = typical.terms["issue"] * K.ISSUE_PER_CLOCK_NVIDIA * clock * f.num_sms / f.issued
    assert full_waves >= 1.0                    # the term is the count over the rate, then wave-quantised
    assert "issue" not in explain.explain(Request.of("softmax", "gfx942").compile()).scenarios["typical"].terms


def test_with_a_launchs_own_bytes_a_round_counts_what_one_trip_loads_and_stores():
    # the virtual GPU's path: `work` bytes are loads and stores together, so one trip's share is both
    compiled = Request.of("vector_add", "sm_90").compile()
    prog = program.read(compiled)
    assert (prog.load_bytes_per_round, prog.store_bytes_per_round) == (2 * 1024 * 4, 1024 * 4)
    n = compiled.config.shape["N"]
    ctas = math.ceil(n / 1024)
    e = explain.explain(compiled, work=(n, 3 * n * 4, ctas))
    assert e.figures.rounds_per_cta == 1.0          # one block of each array per program, not 1.5


def test_hopper_and_ada_l2_rates_are_the_a100s_white_paper_rate_scaled_by_one_microbenchmark():
    """NVIDIA publishes no L2 bandwidth for Hopper or Ada. gpu-benches measured an A100, an H200 and an L40
    with one kernel: 5411, 10080 and 5188 GB/s (medians of the data sets all three hold in L2). At the A100's
    1410 MHz that is 75% of its 5120 bytes/clk; the same share at the H200's 1980 MHz gives 6792 bytes/clk
    (51 per SM), at the L40's 2490 MHz 2780 (20 per SM), against the A100's 47."""
    assert K.A100_SHARE_OF_PEAK == pytest.approx(0.7495, abs=1e-4)
    assert K.L2_BYTES_PER_CLOCK["sm_80"] == 5120
    assert K.L2_BYTES_PER_CLOCK["sm_90"] == 6792 == round(10079.65 / K.A100_SHARE_OF_PEAK / 1.98)
    assert K.L2_BYTES_PER_CLOCK["sm_89"] == 2780 == round(5188.15 / K.A100_SHARE_OF_PEAK / 2.49)
    assert (round(6792 / 132), round(2780 / 142), round(5120 / 108)) == (51, 20, 47)
    hopper = explain.explain(_gemm("sm_90"))
    assert K.L2_RATE_NOTES["sm_90"] in hopper.notes
    ampere = explain.explain(_gemm("sm_80"))
    assert not any(n.startswith("L2 bandwidth") for n in ampere.notes)      # the A100's is NVIDIA's own
    e = explain.explain(_gemm("sm_89", num_warps=4))
    typical, f = e.scenarios["typical"], e.figures
    clock = f.clock_ghz * 1e9 * K.CLOCK_SHARE.typical
    assert f.clock_ghz == 2.52         # the RTX 4090's boost: sm_89 has no tensor rate per clock to lower it
    assert typical.terms["l2"] == pytest.approx((f.l2_traffic + f.local_l2) / (
        2780 * clock * K.L2_EFFICIENCY.typical))
    assert K.L2_RATE_NOTES["sm_89"] in e.notes
    assert not any("no published L2 bandwidth" in n for n in e.notes)
    # a target with no L2 figure at all still says so, and has no L2 term
    ampere_gaming = explain.explain(_gemm("sm_86", num_warps=4))
    assert "no published L2 bandwidth for sm_86: L2 is not modelled" in ampere_gaming.notes
    assert "l2" not in ampere_gaming.scenarios["typical"].terms


# ---- a GPU by name: the architecture's binary, the part's row, the architecture's constants -----------------

def test_a_named_gpu_is_modelled_on_its_own_row_with_its_architectures_constants():
    """The label ("l40s") is what the user named; the model's constants are keyed on the architecture
    (sm_89), so a spilling kernel keeps its spills row, and the time is the L40S's (142 SMs, 864 GB/s)."""
    spilling = dict(meta={"BLOCK_SIZE_M": 256, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32}, num_warps=4, num_stages=2)
    rtx = explain.explain(Request.of("gemm", "sm_89", **spilling).compile())
    l40s = explain.explain(Request.of("gemm", "l40s", **spilling).compile())
    assert (l40s.target, l40s.device, rtx.device) == ("l40s", "L40S", "GeForce RTX 4090")
    spills = [dict(model_text.rows(e)).get("spills", "") for e in (rtx, l40s)]
    assert all("served by L1" in s for s in spills)
    # a stream from DRAM: the L40S's 864 GB/s against the RTX 4090's 1008
    rtx, l40s = (explain.explain(Request.of("vector_add", t, shape={"N": 2**26}).compile()) for t in ("sm_89", "l40s"))
    assert l40s.seconds / rtx.seconds == pytest.approx(1008 / 864, rel=0.03)
    assert roofline.model(Request.of("vector_add", "l40s").compile()).num_sms == 142      # the roofline's too


def test_an_amd_gpu_by_name_counts_cus():
    for target in ("gfx942", "mi325x"):
        waves = next(line for line in roofline_text.lines(roofline.model(Request.of("vector_add", target).compile()))
                     if line.startswith("modelled  waves"))
        assert "x 304 CUs)" in waves, waves
