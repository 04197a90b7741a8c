"""The launch grid: every kernel's CTAs own every tile exactly once at awkward shapes, the wave
arithmetic on a compiled kernel, and the `grid` command."""
import json

import pytest
from conftest import outcome

from playground.core.config import resolve_config
from playground.core import registry
from playground.core.spec import cdiv
from playground.figures import grid, launch

SPECS = registry.load_all()


def awkward_shapes(spec):
    """The default shape with 17 added to every size the kernel allows to vary freely (a multiple of
    no block), and the kernel's quick cases. A size the kernel constrains (flash attention's head
    dimension) keeps its default."""
    grown = dict(spec.default_shape)
    for d, v in spec.default_shape.items():
        trial = {**grown, d: v + 17}
        if not (spec.constraints and spec.constraints(trial, spec.dtype, spec.meta)):
            grown = trial
    shapes = [grown]
    for case in spec.quick_cases:
        shapes.append(({d: v for d, v in case.items() if d in spec.default_shape}, case.get("meta") or {}))
    return [(s, {}) if isinstance(s, dict) else s for s in shapes]


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_every_tile_exactly_once(spec):
    for shape, meta in awkward_shapes(spec):
        cfg = resolve_config(spec, meta=meta, shape=shape)
        assert grid.coverage_problems(spec, cfg.shape, cfg.meta) == [], (shape, cfg.meta)


# The tile grid each kernel's docstring describes: tiles along each axis the program index walks.
EXPECTED_TILES = {
    "gemm": lambda s, m: (cdiv(s["M"], m["BLOCK_SIZE_M"]), cdiv(s["N"], m["BLOCK_SIZE_N"])),
    "relu_matmul": lambda s, m: (cdiv(s["M"], m["BLOCK_SIZE_M"]), cdiv(s["N"], m["BLOCK_SIZE_N"])),
    "vector_add": lambda s, m: (cdiv(s["N"], m["BLOCK_SIZE"]),),
    "softmax": lambda s, m: (s["M"],),
    "layernorm": lambda s, m: (s["M"],),
    "transpose": lambda s, m: (cdiv(s["M"], m["BLOCK_M"]), cdiv(s["N"], m["BLOCK_N"])),
    "flash_attention": lambda s, m: (cdiv(s["N_CTX"], m["BLOCK_M"]), s["Z"] * s["H"]),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_TILES))
def test_tile_grid_matches_the_problem(name):
    try:
        spec = registry.load(name)
    except Exception:
        pytest.skip(f"{name} is not in kernels/")
    for shape, meta in awkward_shapes(spec):
        cfg = resolve_config(spec, meta=meta, shape=shape)
        owned = grid.tiles(spec, cfg.shape, cfg.meta)
        expected = EXPECTED_TILES[name](cfg.shape, cfg.meta)
        assert len(owned) == len(set(owned))
        assert set(owned) == _box(expected), (shape, cfg.meta)


def _box(counts):
    import itertools
    return set(itertools.product(*(range(n) for n in counts)))


def test_a_wrong_tile_map_is_caught():
    """Grouped ordering without the min() for the last, short group: with 9 rows of tiles and groups of 8,
    the 9th row's tiles get rows 8..15 and columns walked too slowly, so tiles go missing."""
    spec = registry.load("gemm")

    def broken(pid, shape, meta):
        n = cdiv(shape["N"], meta["BLOCK_SIZE_N"])
        group = meta["GROUP_SIZE_M"]
        first = pid // (group * n) * group
        return first + (pid % (group * n)) % group, (pid % (group * n)) // group

    import dataclasses
    wrong = dataclasses.replace(spec, tile_of=broken)
    shape = {"M": 9 * 128 - 5, "N": 3 * 128 + 1, "K": 64}
    problems = grid.coverage_problems(wrong, shape, spec.meta)
    assert problems and any("have no CTA" in p or "owned by" in p for p in problems)
    assert grid.coverage_problems(spec, shape, spec.meta) == []


def test_grouped_ordering_walks_down_a_group_first():
    # gemm at 4096 with 128 x 128 tiles and GROUP_SIZE_M=8: pids 0..7 go down column 0, pid 8 starts column 1.
    spec = registry.load("gemm")
    owned = grid.tiles(spec, {"M": 4096, "N": 4096, "K": 4096}, spec.meta)
    assert owned[:9] == [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0), (0, 1)]
    assert owned[8 * 32] == (8, 0)          # the second group starts after 8 rows x 32 columns


def test_two_dimensional_grid_numbers_x_fastest():
    spec = registry.load("transpose") if "transpose" in {s.name for s in SPECS} else None
    if spec is None or spec.tile_of is not None:
        pytest.skip("needs a 2-D grid without tile_of")
    shape = {"M": 64 * 3 + 1, "N": 64 * 2 + 1}
    padded = grid.grid_of(spec, shape, spec.meta)
    assert padded == (4, 3, 1)
    assert grid.tiles(spec, shape, spec.meta)[:5] == [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1)]


@pytest.mark.compile
def test_plan_of_a_compiled_gemm(gemm_sm90):
    plan = launch.plan(gemm_sm90)
    # 4096 / 128 = 32 tiles a side: 1024 CTAs of 8 warps in a 1-D grid.
    assert (plan.grid, plan.ctas, plan.warps_per_cta, plan.threads_per_cta) == ((1024, 1, 1), 1024, 8, 256)
    assert plan.tile_counts == (32, 32) and plan.tile_dims == 2
    per_wave = plan.occupancy.active_blocks_per_sm * 132
    assert plan.ctas_per_wave == per_wave
    assert plan.waves == cdiv(1024, per_wave) and plan.last_wave_ctas == 1024 - (plan.waves - 1) * per_wave
    lines = launch.wave_map(gemm_sm90.spec, plan.shape, plan.meta, per_wave)
    assert lines[0] == "wave of each tile, 32 x 32 tiles:" and len(lines) == 33
    assert lines[1] == "0" * 32            # the first wave takes the first groups' rows whole




def test_help():
    code, out, _ = outcome("grid", "--help")
    assert code == 0 and "--map" in out and "--num-sms" in out


@pytest.mark.compile
def test_grid_command(gemm_sm90):
    code, out, _ = outcome("grid", "gemm", "--shape", "M=4096,N=4096,K=4096", "--target", "sm_90")
    assert code == 0
    assert "grid        (1024 x 1 x 1) = 1024 CTAs of 8 warps (256 threads)" in out
    assert "tiles       32 x 32, pid -> tile by gemm's tile_of" in out
    assert "first CTAs  0->(0, 0), 1->(1, 0)" in out
    assert "waves       1024 CTAs" in out
    code, out, _ = outcome("grid", "gemm", "--shape", "M=4096,N=4096,K=4096", "--target", "sm_90", "--num-sms", "114", "--json")
    data = json.loads(out)
    assert code == 0 and data["ctas"] == 1024 and data["occupancy"]["num_sms"] == 114
    assert data["ctas_per_wave"] == data["occupancy"]["active_blocks_per_sm"] * 114


@pytest.mark.compile
def test_grid_map_needs_a_2d_tile_grid():
    code, out, err = outcome("grid", "vector_add", "--target", "sm_90", "--map")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--map draws 2-D tile grids" in err
