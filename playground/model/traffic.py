"""DRAM and L2 traffic from the tile schedule: which operand blocks each wave of CTAs reads, and which
of them the L2 already holds.

A spec with `operands` says, for each input, which tile coordinates pick the block a CTA reads and how
many bytes that block is (gemm: A's row panel depends on the tile's row, B's column panel on its
column). CTAs start in pid order (launch.py), `tile_of` maps each to its tile, and the GPU runs them
a wave of (SMs x CTAs per SM) at a time. Within a wave a block is fetched from DRAM once and served
to every CTA that shares it from L2; across waves a block stays in L2 while the blocks fetched since
fit beside it (least recently used, at block granularity). Outputs are written once. A persistent
kernel (`spec.work_items`) runs its tiles in rounds of one per program, in tile order.

A spec with `rereads` lists what a CTA reads and then reads again (layernorm's passes 2 and 3 over its
row), each repeat with the distinct bytes the CTA touches from its earlier read of them up to the repeat,
its own writes included (its reuse distance). Every CTA resident beside it touches about as much in that
time, so a repeat hits L1 when the SM's resident CTAs' distances fit in the L1 left beside shared memory,
else L2 when the chip's fit in L2, else AMD's Infinity Cache where the part has one, else it goes to DRAM
again (least recently used, the same rule as for the tile schedule: data reused after more than an LRU
cache holds has left it).

What this leaves out: L2 set conflicts, H100's two L2 partitions, CDNA3's L2 per XCD (CTAs are dealt
round-robin to 8 XCDs, each with its own 4 MB L2: modelled here as one L2 of the summed size), AMD's
Infinity Cache behind L2 (used for re-reads only), and
CTAs of one wave drifting apart in time. A spec without `operands` moves `spec.bytes` through both
DRAM and L2: every byte once.
"""
from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

from ..core import dtypes
from ..figures import launch


@dataclass
class Traffic:
    dram_bytes: int              # read from and written to DRAM
    l2_load_bytes: int           # read by CTAs from L2 (each CTA its own blocks)
    output_bytes: int            # written
    from_schedule: bool          # True: the tile schedule; False: spec.bytes, every byte once
    reuse: float = 1.0           # L2 loads / DRAM reads: how often each byte fetched is used


LEVELS = ("L1", "L2", "Infinity Cache", "DRAM")


@dataclass
class Rereads:
    served: dict                 # level (LEVELS) -> bytes it serves again, all CTAs and repeats together
    ctas: int
    distances: tuple             # (least, most) bytes one CTA touches between a read and its repeat
    resident_per_sm: int         # CTAs an SM holds at once, each touching as much in that time
    resident: int                # CTAs the chip holds at once
    l1_room: int | None          # L1 beside the resident CTAs' shared memory; None: no L1 size known
    l2_bytes: int
    memory_side_bytes: int | None = None     # AMD's Infinity Cache (devices.py); None: the part has none

    @property
    def bytes(self) -> int:
        return sum(self.served.values())

    @property
    def beyond_l1(self) -> int:
        """What L1 does not serve: L2 loads (and DRAM reads, for what nothing else holds)."""
        return self.bytes - self.served.get("L1", 0)

    def where(self) -> str:
        """"L2 50%, DRAM 50%": the levels that serve the repeats, nearest first."""
        return ", ".join(f"{level} {100 * self.served[level] / self.bytes:.0f}%" for level in LEVELS
                         if self.served.get(level))


def rereads(compiled, ctas: int, resident_per_sm: int, num_sms: int, l1_room: int | None, l2_bytes: int,
            memory_side_bytes: int | None = None) -> Rereads | None:
    """Where a spec's `rereads` are served from, for `ctas` CTAs, `resident_per_sm` of them on an SM at once."""
    spec, cfg = compiled.spec, compiled.config
    if spec.rereads is None:
        return None
    repeats = [(n, d) for n, d in spec.rereads(cfg.shape, cfg.meta, dtypes.size(cfg.dtype)) if n]
    if not repeats:
        return None
    resident = min(ctas, resident_per_sm * num_sms)

    def level(distance: int) -> str:
        if l1_room is not None and resident_per_sm * distance <= l1_room:
            return "L1"
        if resident * distance <= l2_bytes:
            return "L2"
        if memory_side_bytes and resident * distance <= memory_side_bytes:
            return "Infinity Cache"
        return "DRAM"
    served: dict = {}
    for nbytes, distance in repeats:
        where = level(distance)
        served[where] = served.get(where, 0) + nbytes * ctas
    distances = [d for _, d in repeats]
    return Rereads(served=served, ctas=ctas, distances=(min(distances), max(distances)), resident_per_sm=resident_per_sm,
                   resident=resident, l1_room=l1_room, l2_bytes=l2_bytes, memory_side_bytes=memory_side_bytes)


def output_bytes(spec, shape: dict, elem: int) -> int:
    total = 0
    for t in spec.tensors.values():
        if t.output:
            size = dtypes.size(t.dtype) if t.dtype else elem
            total += math.prod(t.dims(shape)) * size
    return total


def traffic(compiled, ctas_per_wave: int | None, l2_bytes: int) -> Traffic:
    spec, cfg = compiled.spec, compiled.config
    elem = dtypes.size(cfg.dtype)
    minimum = spec.bytes(cfg.shape, elem)
    written = min(output_bytes(spec, cfg.shape, elem), minimum)
    if spec.operands is None or not ctas_per_wave:
        return Traffic(dram_bytes=minimum, l2_load_bytes=minimum - written, output_bytes=written,
                       from_schedule=False)
    blocks = spec.operands(cfg.shape, cfg.meta, elem)
    if spec.work_items is not None:
        # a persistent kernel: its programs, all resident, take the tiles in rounds of one per program
        tiles = launch.work_tiles(spec, cfg.shape, cfg.meta)
        ctas_per_wave = min(ctas_per_wave, launch.ctas(compiled))
    else:
        tiles = launch.tiles(spec, cfg.shape, cfg.meta, launch.device_of(compiled))
    cache: OrderedDict = OrderedDict()       # (operand, key) -> bytes, least recently used first
    held, fetched, served = 0, 0, 0
    for start in range(0, len(tiles), ctas_per_wave):
        wave = tiles[start:start + ctas_per_wave]
        wanted: dict = {}
        for tile in wave:
            for i, (axes, nbytes) in enumerate(blocks):
                key = (i, tuple(tile[a] for a in axes))
                wanted[key] = nbytes
                served += nbytes
        for key, nbytes in wanted.items():
            if key in cache:
                cache.move_to_end(key)
                continue
            fetched += nbytes
            cache[key] = nbytes
            held += nbytes
        while held > l2_bytes and cache:         # a wave larger than L2 keeps only its last blocks
            _, nbytes = cache.popitem(last=False)
            held -= nbytes
    return Traffic(dram_bytes=fetched + written, l2_load_bytes=served, output_bytes=written,
                   from_schedule=True, reuse=served / fetched if fetched else 1.0)
