"""A launch: its grid (grid.py counts CTAs and their tiles), and how they fill the GPU in waves.

Waves: with B CTAs resident per SM (occupancy.py) and S SMs, B*S CTAs run at once. A launch of N
CTAs takes ceil(N / (B*S)) waves, and the last one runs N - (waves-1)*B*S CTAs while the rest of
the GPU idles: the tail effect. The wave a CTA runs in assumes CTAs start in pid order, which the
hardware's block scheduler roughly follows but does not promise.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..core.spec import KernelSpec
from . import occupancy
from .grid import _counts, device_of, grid_of, tiles, work_tiles


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


def plan(compiled, num_sms: int | None = None, first: int = 16) -> Launch:
    """The launch of a compiled kernel at its shape and meta, with its occupancy on the target."""
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


def loops_over_programs(compiled) -> bool:
    """Whether the kernel asks how many programs there are (TTIR `tt.get_num_programs`): the mark of a
    persistent kernel, whose CTAs each own many tiles."""
    return "tt.get_num_programs" in compiled.first_ir

