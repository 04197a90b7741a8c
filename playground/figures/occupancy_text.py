"""Occupancy in words: the compile header's lines, the `occupancy` command's table and report, and the
one wording of waves (`waves_phrase`) that compile, grid, bench and the roofline share."""
from __future__ import annotations

from ..core.spec import cdiv
from ..errors import UserError
from ..text import table
from ..units import count, kib, pct
from .occupancy import Occupancy, of, round_up, unit_names


def header_lines(compiled) -> list[str]:
    try:
        occ = of(compiled)
    except UserError as e:
        return [f"occupancy   not computed: {e}"]
    return describe(occ)



def describe(occ: Occupancy) -> list[str]:
    """The few lines that say whether it launches, how full an SM gets, and the waves."""
    d = occ.device_table
    sm, block, warp = unit_names(d)
    sms = f"{occ.num_sms} {sm}s"
    where = f"on {occ.device}" if sms in occ.device else f"on {occ.device} ({sms})"   # --num-sms names them already
    if not occ.launchable:
        lines = [f"occupancy   CANNOT LAUNCH {where}: {occ.reason}"]
    else:
        limited = ", ".join(LIMITER_WORDS[d.is_nvidia][k] for k in occ.limiter)
        plural = "s" if occ.active_blocks_per_sm != 1 else ""
        per_simd = f", {occ.waves_per_simd} per SIMD" if occ.waves_per_simd is not None else ""
        lines = [f"occupancy   {occ.active_blocks_per_sm} {block}{plural}/{sm} x {count(occ.warps_per_block, warp)} = "
                 f"{occ.active_warps_per_sm} of {occ.max_warps_per_sm} {warp} ({pct(occ.occupancy)}{per_simd}) "
                 f"{where}; limited by {limited}"]
    lines += [f"            {n}" for n in occ.notes]
    if occ.grid is not None and occ.launchable:
        lines.append("waves       " + waves_phrase(occ.grid, occ.active_blocks_per_sm, occ.num_sms, sm))
    lines += [f"what-if     {h}" for h in occ.hints]
    return lines


def waves_phrase(ctas: int, blocks_per_sm: int, num_sms: int, sm: str = "SM") -> str:
    """The one wording of a grid's waves, for every command: CTA slots per wave and the last wave's share.

    `bench` and `sweep` add the roofline's own fill after it (roofline_text.lines), which for a
    memory-bound kernel counts SMs rather than slots; both figures are then on one line.
    """
    per_wave = blocks_per_sm * num_sms
    waves = cdiv(ctas, per_wave)
    last = ctas - (waves - 1) * per_wave
    return (f"{ctas} CTAs, {per_wave} per wave ({blocks_per_sm} x {num_sms} {sm}s): {waves} "
            f"wave{'s' if waves != 1 else ''}, last wave {last} of {per_wave} ({pct(last / per_wave)})")


LIMITER_WORDS = {True: {"warps": "warps", "registers": "registers", "shared_memory": "shared memory",
                        "blocks": "the block limit"},
                 False: {"warps": "wave slots", "registers": "registers", "shared_memory": "LDS",
                         "blocks": "the workgroup (barrier) limit"}}


def table_lines(occ: Occupancy) -> list[str]:
    """Each limit: what one block needs, what the SM has, and how many blocks that allows."""
    d = occ.device_table
    sm, block, warp = unit_names(d)
    by = {k: ("no limit" if v is None else str(v)) for k, v in occ.blocks_by.items()}
    if d.is_nvidia:
        per_warp = round_up(occ.registers * d.warp_size, d.reg_alloc_unit)
        rows = [
            ("warps", count(occ.warps_per_block, "warps"), f"{d.max_warps_per_sm} warps"),
            ("registers", f"{occ.registers}/thread -> {per_warp}/warp x {occ.warps_per_block}",
             f"{d.regs_per_sm} ({d.warp_alloc_granularity} x {d.regs_per_sm // d.warp_alloc_granularity})"),
            ("shared_memory", f"{kib(occ.shared_memory)} + {kib(d.shared_reserved_per_block)} reserved -> "
                              f"{kib(occ.shared_allocated)}", f"{kib(d.shared_per_sm)}"),
            ("blocks", f"1 {block}", f"{d.max_blocks_per_sm} {block}s"),
        ]
    else:
        vgprs = round_up(occ.registers, d.vgpr_alloc_granule) if occ.registers >= d.vgpr_alloc_granule else occ.registers
        sgprs = f", {occ.sgprs} SGPRs" if occ.sgprs is not None else ""
        rows = [
            ("warps", count(occ.warps_per_block, "waves"), f"{d.max_waves_per_simd} per SIMD x {d.simds_per_cu}"),
            ("registers", f"{occ.registers} VGPRs -> {vgprs}{sgprs}",
             f"{d.vgprs_per_simd} VGPRs/SIMD: {occ.register_waves_per_simd} waves/SIMD"),
            ("shared_memory", f"{kib(occ.shared_memory)} -> {kib(occ.shared_allocated)}", f"{kib(d.lds_per_cu)}"),
            ("blocks", f"1 {block} of {count(occ.warps_per_block, 'waves')}",
             f"{d.max_workgroups_per_cu} {block}s" if occ.warps_per_block > 1 else "wave slots only"),
        ]
    head = ["limit", f"one {block} needs", f"one {sm} has", f"{block}s/{sm}"]
    return table(head, [[_ROW_NAMES[d.is_nvidia][k], need, has, by[k]] for k, need, has in rows])


_ROW_NAMES = {True: {"warps": "warps", "registers": "registers", "shared_memory": "shared memory", "blocks": "blocks"},
              False: {"warps": "wave slots", "registers": "registers", "shared_memory": "LDS", "blocks": "barriers"}}


def lines(occ: Occupancy, compiled=None) -> list[str]:
    """What `playground occupancy` prints (text.lines for an Occupancy)."""
    out = []
    if compiled is not None:
        cfg, r = compiled.config, compiled.resources
        meta = ", ".join(f"{k}={v}" for k, v in cfg.meta.items())
        out.append(f"{compiled.spec.name} on {compiled.target.label}: num_warps={cfg.num_warps} ({occ.threads} threads), "
                   f"num_stages={cfg.num_stages}{', ' + meta if meta else ''}")
        spills = f"{r.spill_store_bytes} B spill stores, {r.spill_load_bytes} B spill loads" if r.spills else "no spills"
        out.append(f"resources   {occ.registers} {'registers per thread' if compiled.target.is_nvidia else 'VGPRs'}; "
                   f"{kib(r.shared_total)} {'shared memory' if compiled.target.is_nvidia else 'LDS'} per block "
                   f"({kib(r.static_shared)} static + {kib(r.dynamic_shared)} dynamic); {spills}")
    else:
        out.append(f"{occ.target} ({occ.device}): {occ.threads} threads, {occ.registers} "
                   f"{'registers' if occ.device_table.is_nvidia else 'VGPRs'}, {kib(occ.shared_memory)} "
                   f"{'shared memory' if occ.device_table.is_nvidia else 'LDS'} per block")
    return out + [""] + table_lines(occ) + [""] + describe(occ)

