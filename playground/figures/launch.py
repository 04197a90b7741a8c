"""The launch grid: how many CTAs a kernel launches at a shape, which tile each one owns, and how they
fill the GPU in waves.

The grid comes from the spec's own `grid(shape, meta)`, the function its launcher calls. CTAs are
numbered as CUDA and HIP number blocks, x fastest: pid = x + y*gx + z*gx*gy. A spec with `tile_of`
maps that linear pid to the tile it computes (gemm's grouped ordering); without one, a CTA's tile is
its (x, y, z) index.

Waves: with B CTAs resident per SM (occupancy.py) and S SMs, B*S CTAs run at once. A launch of N
CTAs takes ceil(N / (B*S)) waves, and the last one runs N - (waves-1)*B*S CTAs while the rest of
the GPU idles: the tail effect. The wave a CTA runs in assumes CTAs start in pid order, which the
hardware's block scheduler roughly follows but does not promise.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..core.spec import KernelSpec
from ..errors import KernelFailure


@dataclass
class Launch:
    kernel: str
    target: str
    shape: dict
    meta: dict
    grid: tuple                  # (x, y, z)
    ctas: int
    warps_per_cta: int
    threads_per_cta: int
    tile_dims: int               # how many numbers name a tile
    tile_counts: tuple           # tiles along each of those, from the tiles the CTAs own
    mapping: str                 # where the pid -> tile map comes from
    occupancy: object = None     # occupancy.Occupancy, when a compiled kernel was given
    first_tiles: list = field(default_factory=list)   # (pid, tile) for the first CTAs

    @property
    def ctas_per_wave(self):
        return self.occupancy.ctas_per_wave if self.occupancy else None

    @property
    def waves(self):
        return self.occupancy.waves if self.occupancy else None

    @property
    def last_wave_ctas(self):
        return self.occupancy.last_wave_ctas if self.occupancy else None

    def as_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k != "occupancy"}
        out["grid"] = list(self.grid)
        out["tile_counts"] = list(self.tile_counts)
        out["first_tiles"] = [[pid, list(tile)] for pid, tile in self.first_tiles]
        out |= {"ctas_per_wave": self.ctas_per_wave, "waves": self.waves, "last_wave_ctas": self.last_wave_ctas}
        out["occupancy"] = self.occupancy.as_dict() if self.occupancy else None
        return out


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


def plan(compiled, num_sms: int | None = None, first: int = 16) -> Launch:
    """The launch of a compiled kernel at its shape and meta, with its occupancy on the target."""
    from . import occupancy
    spec, cfg = compiled.spec, compiled.config
    grid = grid_of(spec, cfg.shape, cfg.meta, device_of(compiled))
    owned = tiles(spec, cfg.shape, cfg.meta, device_of(compiled))
    threads = compiled.threads_per_block
    return Launch(kernel=spec.name, target=compiled.target.label, shape=dict(cfg.shape), meta=dict(cfg.meta),
                  grid=grid, ctas=math.prod(grid), warps_per_cta=threads // compiled.target.warp_size, threads_per_cta=threads,
                  tile_dims=len(owned[0]) if owned else 0,
                  tile_counts=_counts(work_tiles(spec, cfg.shape, cfg.meta) or owned) if owned else (),
                  mapping=(f"{spec.name}'s tile_of" if spec.tile_of else f"{spec.name}'s work_tile_of"
                           if spec.work_tile_of else "the CTA's (x, y, z) index"),
                  occupancy=occupancy.of(compiled, num_sms), first_tiles=list(enumerate(owned[:first])))


def wave_map(spec: KernelSpec, shape: dict, meta: dict, ctas_per_wave: int, max_side: int = 64,
             device=None) -> list[str]:
    """A picture of a 2-D tile grid: each tile shows the wave its CTA runs in (0-9, then a-z, then +).

    Rows are the first tile index, columns the second; grids larger than max_side are cut.
    """
    owned = tiles(spec, shape, meta, device)
    if not owned or len(owned[0]) != 2 or not ctas_per_wave:
        return []
    rows, cols = _counts(owned)
    picture = [["."] * min(cols, max_side) for _ in range(min(rows, max_side))]
    symbols = "0123456789abcdefghijklmnopqrstuvwxyz"
    for pid, (r, c) in enumerate(owned):
        if r < max_side and c < max_side:
            w = pid // ctas_per_wave
            picture[r][c] = symbols[w] if w < len(symbols) else "+"
    cut = " (cut)" if rows > max_side or cols > max_side else ""
    return [f"wave of each tile, {rows} x {cols} tiles{cut}:"] + ["".join(row) for row in picture]


def work_tiles(spec: KernelSpec, shape: dict, meta: dict) -> list[tuple]:
    """A persistent kernel's tiles (all of them, not each CTA's first); [] for any other kernel."""
    if spec.work_items is None:
        return []
    return [tuple(int(x) for x in spec.work_tile_of(t, shape, meta)) for t in range(spec.work_items(shape, meta))]


def loops_over_programs(compiled) -> bool:
    """Whether the kernel asks how many programs there are (TTIR `tt.get_num_programs`): the mark of a
    persistent kernel, whose CTAs each own many tiles."""
    return "tt.get_num_programs" in compiled.stage("ttir")


def lines(launch: Launch, compiled=None, show_map: bool = False) -> list[str]:
    """What `playground grid` prints."""
    from .occupancy_text import describe
    grid = " x ".join(map(str, launch.grid))
    shape = ", ".join(f"{k}={v}" for k, v in launch.shape.items())
    meta = ", ".join(f"{k}={v}" for k, v in launch.meta.items())
    at = f" at {shape}" if shape else ""
    out = [f"{launch.kernel} on {launch.target}{at}" + (f" ({meta})" if meta else ""),
           f"grid        ({grid}) = {launch.ctas} CTAs of {launch.warps_per_cta} warps "
           f"({launch.threads_per_cta} threads)",
           f"tiles       {' x '.join(map(str, launch.tile_counts))}, pid -> tile by {launch.mapping}"]
    shown = ", ".join(f"{pid}->{tuple(t) if len(t) > 1 else t[0]}" for pid, t in launch.first_tiles)
    more = f", ... {launch.ctas - len(launch.first_tiles)} more" if launch.ctas > len(launch.first_tiles) else ""
    out.append(f"first CTAs  {shown}{more}")
    if compiled is not None and loops_over_programs(compiled):
        out.append("persistent  the kernel reads tl.num_programs: each CTA loops over several tiles, striding by "
                   "the grid; the tiles above are each CTA's first")
        spec, ctas = compiled.spec, launch.ctas
        if spec.work_items is not None and ctas:
            items = spec.work_items(launch.shape, launch.meta)
            rounds, rest = divmod(items, ctas)
            last = f", the last {rest} of {ctas} CTAs busy" if rest else ""
            out.append(f"work        {items} tiles over {ctas} CTAs: {rounds + (1 if rest else 0)} rounds{last}")
    if launch.occupancy is not None:
        out += describe(launch.occupancy)
    if show_map and compiled is not None and launch.ctas_per_wave:
        from ..errors import UserError
        picture = wave_map(compiled.spec, launch.shape, launch.meta, launch.ctas_per_wave,
                           device=device_of(compiled))
        if not picture:
            raise UserError("--map draws 2-D tile grids; this launch's tiles are "
                            f"{launch.tile_dims}-D")
        out += [""] + picture
    return out
