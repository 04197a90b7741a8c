"""The launch grid's arithmetic: how many CTAs a kernel launches at a shape and which tile each one owns.

The grid comes from the spec's own `grid(shape, meta)`, the function its launcher calls. CTAs are
numbered as CUDA and HIP number blocks, x fastest: pid = x + y*gx + z*gx*gy. A spec with `tile_of`
maps that linear pid to the tile it computes (gemm's grouped ordering); without one, a CTA's tile is
its (x, y, z) index. Occupancy, the roofline and the model count CTAs here; launch.py adds the waves.
"""
from __future__ import annotations

import math

from ..core.spec import KernelSpec
from ..errors import KernelFailure


def spec_grid(spec: KernelSpec, shape: dict, meta: dict, device=None) -> tuple:
    """The grid as the spec's function returns it: 1 to 3 sizes. A grid function with a third
    parameter gets the target's device row (devices.py): a persistent kernel sized by SM count
    follows the target, as its launcher would."""
    g = spec.grid_for(shape, meta, device)
    g = tuple(int(x) for x in (g if isinstance(g, (tuple, list)) else (g,)))
    if not 1 <= len(g) <= 3 or any(x < 0 for x in g):
        raise KernelFailure(f"{spec.name}: its grid function returned {g}; a grid is 1 to 3 non-negative sizes")
    return g


def ctas(compiled) -> int:
    """CTAs in a compiled kernel's launch: the product of its spec's grid at the compiled shape and
    meta. The one count of CTAs that occupancy, the roofline and `grid` all use."""
    cfg = compiled.config
    return math.prod(spec_grid(compiled.spec, cfg.shape, cfg.meta, device_of(compiled)))


def device_of(compiled):
    from ..core import devices
    return devices.get(compiled.target)


def grid_of(spec: KernelSpec, shape: dict, meta: dict, device=None) -> tuple[int, int, int]:
    """The spec's launch grid, padded to (x, y, z)."""
    g = spec_grid(spec, shape, meta, device)
    return g + (1,) * (3 - len(g))


def tile_of(spec: KernelSpec, pid: int, grid: tuple, shape: dict, meta: dict) -> tuple:
    """The tile CTA `pid` (linear, x fastest) owns; `grid` as spec_grid returns it."""
    of = spec.tile_of or spec.work_tile_of          # a persistent kernel: the CTA's first tile
    if of is not None:
        t = of(pid, shape, meta)
        return tuple(int(x) for x in (t if isinstance(t, (tuple, list)) else (t,)))
    gx, gy = grid[0], grid[1] if len(grid) > 1 else 1
    return (pid % gx, pid // gx % gy, pid // (gx * gy))[:len(grid)]


def tiles(spec: KernelSpec, shape: dict, meta: dict, device=None) -> list[tuple]:
    """Every CTA's tile, by pid."""
    grid = spec_grid(spec, shape, meta, device)
    return [tile_of(spec, pid, grid, shape, meta) for pid in range(math.prod(grid))]


def coverage_problems(spec: KernelSpec, shape: dict, meta: dict) -> list[str]:
    """What is wrong with the pid -> tile map: a tile owned twice, or a hole in the tile grid. [] if none.

    The tiles must be exactly the box [0, n0) x [0, n1) ... that they span: each tile once, none missing.
    A persistent kernel's tiles are its work items (`work_tile_of`), shared among the programs.
    """
    owned = work_tiles(spec, shape, meta) or tiles(spec, shape, meta)
    problems = []
    seen = {}
    for pid, t in enumerate(owned):
        if t in seen:
            problems.append(f"tile {t} is owned by pids {seen[t]} and {pid}")
        seen.setdefault(t, pid)
    if not owned:
        return ["the grid is empty"]
    dims = {len(t) for t in owned}
    if len(dims) != 1:
        return problems + [f"tiles have different ranks: {sorted(dims)}"]
    counts = _counts(owned)
    if any(min(t[i] for t in owned) < 0 for i in range(len(counts))):
        problems.append("a tile index is negative")
    missing = math.prod(counts) - len(seen)
    if missing > 0:
        problems.append(f"{missing} tiles of the {' x '.join(map(str, counts))} tile grid have no CTA")
    return problems


def _counts(owned: list[tuple]) -> tuple:
    return tuple(max(t[i] for t in owned) + 1 for i in range(len(owned[0])))


def work_tiles(spec: KernelSpec, shape: dict, meta: dict) -> list[tuple]:
    """A persistent kernel's tiles (all of them, not each CTA's first); [] for any other kernel."""
    if spec.work_items is None:
        return []
    return [tuple(int(x) for x in spec.work_tile_of(t, shape, meta)) for t in range(spec.work_items(shape, meta))]
