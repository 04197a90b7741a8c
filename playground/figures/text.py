"""Figures as text, `lines(result)`: a launch (`grid`), an occupancy (`occupancy`) and a roofline model (`bench`
with no GPU). The occupancy's and the roofline's words, with the phrases other commands share, are in
occupancy_text.py and roofline_text.py; a launch's are here."""
from __future__ import annotations

from functools import singledispatch

from . import occupancy_text, roofline_text
from .grid import device_of
from .launch import Launch, loops_over_programs, wave_map
from .occupancy import Occupancy
from .roofline import Model


@singledispatch
def lines(result, *args, **kwargs) -> list[str]:
    raise TypeError(f"no text for {type(result).__name__}")


lines.register(Occupancy, occupancy_text.lines)
lines.register(Model, roofline_text.lines)


@lines.register
def _(launch: Launch, compiled=None, show_map: bool = False) -> list[str]:
    """What `playground grid` prints: the grid, its tiles, the first CTAs, occupancy, and with `show_map` the waves."""
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
        out += occupancy_text.describe(launch.occupancy)
    if show_map and compiled is not None and launch.ctas_per_wave:
        from ..errors import UserError
        picture = wave_map(compiled.spec, launch.shape, launch.meta, launch.ctas_per_wave,
                           device=device_of(compiled))
        if not picture:
            raise UserError("map draws 2-D tile grids; this launch's tiles are "
                            f"{launch.tile_dims}-D", param="map")
        out += [""] + picture
    return out
