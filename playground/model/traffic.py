"""DRAM and L2 traffic from the tile schedule: which operand blocks each wave of CTAs reads, and which
of them the L2 already holds.

A spec with `operands` says, for each input, which tile coordinates pick the block a CTA reads and how
many bytes that block is (gemm: A's row panel depends on the tile's row, B's column panel on its
column). CTAs start in pid order (launch.py), `tile_of` maps each to its tile, and the GPU runs them
a wave of (SMs x CTAs per SM) at a time. Within a wave a block is fetched from DRAM once and served
to every CTA that shares it from L2; across waves a block stays in L2 while the blocks fetched since
fit beside it (least recently used, at block granularity). Outputs are written once. A persistent
kernel (`spec.work_items`) runs its tiles in rounds of one per program, in tile order.

A spec with `rereads` says what a CTA reads and then comes back for (layernorm's three passes over its
row). Between a CTA's read and its repeat, every CTA resident beside it reads about as much: the repeat
hits L1 when the SM's resident CTAs' blocks fit in the L1 left beside shared memory, else L2 when the
chip's resident CTAs' blocks fit in L2, else in AMD's Infinity Cache where the part has one, else it goes
to DRAM again (least recently used, the same rule as for the tile schedule: a cyclic pattern larger than
an LRU cache misses every time).

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


@dataclass
class Rereads:
    bytes: int                   # read again, all CTAs and repeats together
    served_by: str               # "L1", "L2", "Infinity Cache" or "DRAM"
    block: int                   # what one CTA reads and keeps coming back for
    resident_per_sm: int         # CTAs an SM holds at once: each reads a block between a CTA's read and its repeat
    resident: int                # CTAs the chip holds at once
    l1_room: int | None          # L1 beside the resident CTAs' shared memory; None: no L1 size known
    l2_bytes: int
    memory_side_bytes: int | None = None     # AMD's Infinity Cache; None: the part has none

    @property
    def per_sm(self) -> int:
        return self.resident_per_sm * self.block

    @property
    def chip(self) -> int:
        return self.resident * self.block


def rereads(compiled, ctas: int, blocks: int, num_sms: int, l1_room: int | None, l2_bytes: int,
            memory_side_bytes: int | None = None) -> Rereads | None:
    """Where a spec's `rereads` are served from, for `ctas` CTAs, `blocks` of them resident per SM."""
    spec, cfg = compiled.spec, compiled.config
    if spec.rereads is None:
        return None
    items = spec.rereads(cfg.shape, cfg.meta, dtypes.size(cfg.dtype))
    block = sum(nbytes for nbytes, _ in items)
    again = sum(nbytes * times for nbytes, times in items) * ctas
    if not again:
        return None
    per_sm, resident = min(blocks, math.ceil(ctas / num_sms)), min(ctas, blocks * num_sms)
    served = ("L1" if l1_room is not None and per_sm * block <= l1_room else
              "L2" if resident * block <= l2_bytes else
              "Infinity Cache" if memory_side_bytes and resident * block <= memory_side_bytes else "DRAM")
    return Rereads(bytes=again, served_by=served, block=block, resident_per_sm=per_sm, resident=resident,
                   l1_room=l1_room, l2_bytes=l2_bytes, memory_side_bytes=memory_side_bytes)


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
