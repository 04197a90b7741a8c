"""DRAM and L2 traffic from the tile schedule: which operand blocks each wave of CTAs reads, and which
of them the L2 already holds.

A spec with `operands` says, for each input, which tile coordinates pick the block a CTA reads and how
many bytes that block is (gemm: A's row panel depends on the tile's row, B's column panel on its
column). CTAs start in pid order (grid.py), `tile_of` maps each to its tile, and the GPU runs them
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

On CDNA3 and CDNA4 each of the 8 XCDs has its own 4 MB L2, and CTAs are dealt to the XCDs round-robin: each
L2 runs the same rule over its own CTAs, and a block two XCDs read is fetched by both. What the L2s miss passes
AMD's Infinity Cache (memory-side, behind them all), which fetches from DRAM by the same rule at its own size.

What this leaves out: L2 set conflicts, H100's two L2 partitions (one L2 to software, a latency to the model),
and CTAs of one wave drifting apart in time. A spec without `operands` moves `spec.bytes` through both
DRAM and L2: every byte once.
"""
from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

from ..core import dtypes
from ..figures import grid


@dataclass
class Traffic:
    dram_bytes: int              # read from and written to DRAM
    l2_load_bytes: int           # read by CTAs from L2 (each CTA its own blocks)
    output_bytes: int            # written
    from_schedule: bool          # True: the tile schedule; False: spec.bytes, every byte once
    reuse: float = 1.0           # L2 loads / L2 misses: how often each byte an L2 fetches is used
    memory_side_bytes: int = 0   # what passes AMD's Infinity Cache: the L2s' misses and the writes (0: no such cache)


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


def traffic(compiled, ctas_per_wave: int | None, l2_bytes: int, l2_partitions: int = 1,
            memory_side_bytes: int = 0) -> Traffic:
    """The bytes the tile schedule moves, `ctas_per_wave` CTAs at a time. `l2_partitions`: L2s that each serve
    their own share of the SMs (CDNA3 and CDNA4: one per XCD, `l2_bytes` split evenly), with CTAs dealt to them
    round-robin by pid; `memory_side_bytes`: a cache behind them all (AMD's Infinity Cache), which decides what
    the L2s' misses cost in DRAM reads."""
    spec, cfg = compiled.spec, compiled.config
    elem = dtypes.size(cfg.dtype)
    minimum = spec.bytes(cfg.shape, elem)
    written = min(output_bytes(spec, cfg.shape, elem), minimum)
    if spec.operands is None or not ctas_per_wave:
        return Traffic(dram_bytes=minimum, l2_load_bytes=minimum - written, output_bytes=written,
                       from_schedule=False, memory_side_bytes=minimum if memory_side_bytes else 0)
    blocks = spec.operands(cfg.shape, cfg.meta, elem)
    programs = None
    if spec.work_items is not None:
        # a persistent kernel: its programs, all resident, take the tiles in rounds of one per program
        tiles = grid.work_tiles(spec, cfg.shape, cfg.meta)
        programs = grid.ctas(compiled)
        ctas_per_wave = min(ctas_per_wave, programs)
    else:
        tiles = grid.tiles(spec, cfg.shape, cfg.meta, grid.device_of(compiled))
    served = sum(nbytes for _ in tiles for _, nbytes in blocks)
    parts = max(1, l2_partitions)
    # CDNA3 and CDNA4 deal workgroups to their XCDs in turn, workgroup i to XCD i mod 8 (ROCm/composable_kernel
    # #3652, which remaps them; Modular's MAX kernel docs, chiplet_transform_chunked: "WG0->XCD0, WG1->XCD1, ...,
    # WG8->XCD0"); a persistent kernel's tile t runs on program t mod programs
    shares: list = [[] for _ in range(parts)]
    for i, tile in enumerate(tiles):
        shares[(i if programs is None else i % programs) % parts].append(tile)
    missed = sum(_fetched(share, blocks, max(1, ctas_per_wave // parts), l2_bytes // parts) for share in shares)
    # a memory-side cache sees the L2s' misses; what it cannot hold beside the rest comes from DRAM
    fetched = min(missed, _fetched(tiles, blocks, ctas_per_wave, memory_side_bytes)) if memory_side_bytes else missed
    return Traffic(dram_bytes=fetched + written, l2_load_bytes=served, output_bytes=written,
                   from_schedule=True, reuse=served / missed if missed else 1.0,
                   memory_side_bytes=missed + written if memory_side_bytes else 0)


def _fetched(tiles: list, blocks: list, ctas_per_wave: int, capacity: int) -> int:
    """Bytes a cache of `capacity` fetches while the CTAs of `tiles` read their operand blocks a wave at a time:
    within a wave each block once; across waves a block stays while the blocks fetched since fit beside it
    (least recently used, at block granularity)."""
    cache: OrderedDict = OrderedDict()       # (operand, key) -> bytes, least recently used first
    held, fetched = 0, 0
    for start in range(0, len(tiles), ctas_per_wave):
        wanted: dict = {}
        for tile in tiles[start:start + ctas_per_wave]:
            for i, (axes, nbytes) in enumerate(blocks):
                wanted[(i, tuple(tile[a] for a in axes))] = nbytes
        for key, nbytes in wanted.items():
            if key in cache:
                cache.move_to_end(key)
                continue
            fetched += nbytes
            cache[key] = nbytes
            held += nbytes
        while held > capacity and cache:         # a wave larger than the cache keeps only its last blocks
            _, nbytes = cache.popitem(last=False)
            held -= nbytes
    return fetched
