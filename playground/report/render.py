"""Turn compile results into what a person reads: a header, highlighted stages, JSON, files."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
from pathlib import Path

from ..artefact.compiler import Compiled
from ..core import devices
from ..core import stages as stage_table
from ..errors import UserError
from ..units import kib
from ..text import paint, short_path


def use_color(no_color: bool = False, stream=None) -> bool:
    """Colour only on a terminal, and never when --no-color or NO_COLOR says no (https://no-color.org:
    a NO_COLOR that is present and not empty)."""
    stream = stream or sys.stdout
    return not no_color and not os.environ.get("NO_COLOR") and hasattr(stream, "isatty") and stream.isatty()


def highlight(text: str, stage: str, color: bool) -> str:
    if not color:
        return text
    from pygments import highlight as pyg_highlight
    from pygments.formatters import TerminalFormatter

    from .lexers import lexer_for     # colour only: a plain stage never loads the lexers
    lexer = lexer_for(stage)
    return pyg_highlight(text, lexer, TerminalFormatter()) if lexer else text


def header_lines(c: Compiled, stage: str | None = None) -> list[str]:
    r = c.resources
    cfg = c.config
    meta = ", ".join(f"{k}={v}" for k, v in cfg.meta.items()) or "none"
    shape = ", ".join(f"{k}={v}" for k, v in cfg.shape.items())
    # Meta-parameters are constexprs by definition; what matters is what the JIT assumed of the rest.
    assumed = "; ".join(f"{a['name']}: {', '.join(a['assumed'])}" for a in c.specialization
                        if a["assumed"] and a["name"] not in cfg.meta)
    regs = f"{r.registers} per thread" if c.target.is_nvidia else \
        f"{r.vgprs} VGPRs + {r.agprs} AGPRs per lane, {r.sgprs} SGPRs per wave"
    spills = f"{r.spill_store_bytes} B stored, {r.spill_load_bytes} B loaded" if r.spills else "none"
    shared = f"{kib(r.shared_total)} per block ({kib(r.static_shared)} static + {kib(r.dynamic_shared)} dynamic)"
    when = "cache hit" if c.cache_hit else "compiled"
    lines = [
        f"kernel      {c.spec.name} ({c.name}) from {short_path(c.spec.source_path)}"
        + (f", opened as {c.spec.loaded_from}" if c.spec.loaded_from else "")
        + (f", imported as {c.spec.imported_as}" if c.spec.imported_as else ""),
        f"target      {c.target.name} ({c.target.backend}, warp size {c.target.warp_size})"
        + (f"; the GPU is the {devices.get(c.target).name} ({c.target.gpu}): {c.target.name}'s binary" if c.target.gpu else ""),
        f"launch      num_warps={cfg.num_warps} ({_threads(c)}), "
        f"num_stages={cfg.num_stages}",
        f"meta        {meta}",
        f"shape       {shape}, dtype {cfg.dtype}" if cfg.shape
        else "shape       the launch's own arguments (no named dimensions)",
        f"specialised {assumed or 'nothing (no argument divisible by 16 or aligned)'}",
        f"options     {_options_line(c)}",
        f"registers   {regs}",
        f"spills      {spills}" + (f"; {r.local_bytes} B local memory per thread" if r.local_bytes else ""),
        f"shared mem  {shared}",
        f"live regs   {_live_line(c)}",
    ]
    scratch = getattr(c.metadata, "global_scratch_size", 0) or 0
    if scratch:   # device-side descriptors and the like: the launcher asks triton.set_allocator for it
        lines.append(f"scratch     {kib(scratch)} of global memory per program, from the allocator "
                     f"(triton.set_allocator), aligned to {c.metadata.global_scratch_align} B")
    lines += _launch_lines(c)
    lines.append(f"compile     {c.compile_seconds * 1000:.0f} ms ({when}), triton {_triton_version()}")
    if stage and not stage_table.is_binary(stage):
        lines.append(f"stage       {stage}: {len(c.stage(stage).splitlines())} lines")
    return lines


def _live_line(c: Compiled) -> str:
    """The peak of live registers and the Python line that reaches it, from nvdisasm's life ranges."""
    from ..artefact import live_registers
    pressure = live_registers.pressure(c) if c.target.is_nvidia else None
    if pressure is None:
        return live_registers.unavailable(c).removeprefix("live registers: ")
    at = pressure.peak_lines
    one = next((p for p in pressure.lines if len(at) == 1 and p.line == at[0]), None)
    where = (f", at line {one.line} ({one.source})" if one
             else f", at lines {', '.join(map(str, at))}" if at else ", at an instruction no Python line claims")
    copy = (", read from a copy whose register-count record says 254 (nvdisasm refuses 255; the code names no R254)"
            if pressure.from_copy else "")
    return f"peak {pressure.peak} of the {pressure.allocated} allocated{where}; nvdisasm's life ranges{copy}"


def _threads(c: Compiled) -> str:
    threads = c.threads_per_block
    if threads == c.config.num_warps * c.target.warp_size:
        return f"{threads} threads"
    return f"{threads} threads in the binary: warp-specialised, {threads // c.target.warp_size} warps"


def _launch_lines(c: Compiled) -> list[str]:
    """Whether this config can launch on the target, and its occupancy, when that module is present."""
    try:
        from ..figures import occupancy_text
    except ImportError:
        return []
    return occupancy_text.header_lines(c)


def _options_line(c: Compiled) -> str:
    o = c.options
    keys = ("enable_fp_fusion", "default_dot_input_precision", "debug", "arch", "waves_per_eu", "matrix_instr_nonkdim")
    shown = [f"{k}={o[k]}" for k in keys if k in o]
    # the options a launch may set (params.LAUNCH_OPTIONS), shown when they differ from Triton's default
    shown += [f"{k}={o[k]}" for k, default in (("maxnreg", None), ("num_ctas", 1), ("kpack", 1))
              if k in o and o[k] != default]
    return ", ".join(shown)


def _triton_version() -> str:
    import triton
    return triton.__version__




def stage_text(c: Compiled, stage: str) -> str:
    if stage_table.is_binary(stage):
        raise UserError(f"{stage} is a binary; write it with `out` DIR, or read it as "
                        f"{'sass' if stage == 'cubin' else 'amdgcn'}")
    return c.stage(stage)


def interleaved_text(c: Compiled, stage: str, color: bool = False, control: bool = False) -> str:
    """Each Python line of the kernel, then the stage's lines generated from it; on NVIDIA each Python line
    says how many registers are live at its instructions (peak, and at its last one)."""
    from ..artefact import disasm, live_registers, sourcemap   # only --interleave maps lines
    mappable = [s for s in stage_table.textual(c.target.stages) if stage_table.STAGES[s].language != "python"]
    if stage not in mappable:
        raise UserError(f"interleave maps a compiled stage to the Python source; pick one of {', '.join(mappable)}", param="interleave")
    text = disasm.sass_with_line_info(c) if stage == "sass" else c.stage(stage)
    if control and stage == "sass":
        text = _with_control(c, text)
    file, first, last = sourcemap.kernel_lines(c.spec.kernel)
    pressure = live_registers.pressure(c) if c.target.is_nvidia else None
    live = {p.line: p for p in pressure.lines} if pressure else {}
    out = [] if pressure or not c.target.is_nvidia else [paint(f"{'':>5}  # {live_registers.unavailable(c)}",
                                                              "bold yellow", color)]
    ptx = c.stage("ptx") if stage == "sass" else None
    for group in sourcemap.interleave(stage, text, file, first, last, ptx):
        if group.line is None:
            out.append(paint(f"{'':>5}  # no Python line: {len(group.stage_lines)} lines of declarations, "
                             f"labels and metadata", "bold yellow", color))
        else:
            here = live.get(group.line) if group.python != sourcemap.END_OF_KERNEL else None
            regs = f"    # live registers: peak {here.peak}, {here.last} at its last instruction" if here else ""
            out.append(paint(f"{group.line:>5}  {group.python}{regs}", "bold yellow", color))
        body = "".join(f"{'':>7}{line.strip()}\n" for line in group.stage_lines)
        if body:
            out.append(highlight(body, stage, color).rstrip("\n"))
    return "\n".join(out) + "\n"


def _with_control(c: Compiled, text: str) -> str:
    from ..artefact import control_codes
    return control_codes.annotate(c.kernel.asm["cubin"], text)


def summary(c: Compiled, stages: list[str] = ()) -> dict:
    cfg = c.config
    data = {
        "kernel": c.spec.name, "function": c.name, "file": c.spec.source_path,
        "imported_as": c.spec.imported_as or None, "target": c.target.label, "backend": c.target.backend, "warp_size": c.target.warp_size,
        "num_warps": cfg.num_warps, "num_stages": cfg.num_stages, "meta": cfg.meta,
        "shape": cfg.shape, "dtype": cfg.dtype, "specialization": c.specialization, "options": c.options,
        "resources": c.resources.as_dict(), "compile_seconds": round(c.compile_seconds, 4),
        "cache_hit": c.cache_hit, "hash": c.hash, "triton_version": _triton_version(),
    }
    if c.target.is_nvidia:
        from ..artefact import live_registers
        pressure = live_registers.pressure(c)
        data["live_registers"] = pressure.as_dict() if pressure else {"unavailable": live_registers.unavailable(c)}
    try:
        from ..figures import occupancy
        data["occupancy"] = occupancy.summary(c)
    except ImportError:
        pass
    if stages:
        data["stages"] = {}
        for s in stages:
            value = c.stage(s)
            data["stages"][s] = base64.b64encode(value).decode() if isinstance(value, bytes) else value
        if any(stage_table.is_binary(s) for s in stages):
            data["binary_encoding"] = "base64"
    return data


MANIFEST = ".playground-manifest.json"


def write_out(c: Compiled, directory: str, stages: list[str], force: bool = False) -> list[Path]:
    """Write each stage to its own file plus summary.json.

    Never overwrite a file this tool did not write (or that was edited since) unless `force`:
    the manifest keeps the hash of every file we wrote.
    """
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise UserError(f"out {directory}: exists and is not a directory", param="out")
    manifest_path = out / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    except (OSError, ValueError):
        manifest = {}       # unreadable: every existing file counts as not ours
    files = {stage_table.STAGES[s].file: c.stage(s) for s in stages}
    files["summary.json"] = json.dumps(summary(c), indent=2, default=str) + "\n"
    if not force:
        foreign = [name for name in files if (out / name).exists()
                   and manifest.get(name) != _digest((out / name).read_bytes())]
        if foreign:
            raise UserError(f"out {directory}: would overwrite {', '.join(foreign)}, which playground did not "
                            f"write (or which changed since); use `force` to replace", param="out")
    written = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            data = content if isinstance(content, bytes) else content.encode()
            (out / name).write_bytes(data)
            manifest[name] = _digest(data)
            written.append(out / name)
        manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    except OSError as e:     # read-only, full, no permission: the user's directory, so bad input
        raise UserError(f"out {directory}: cannot write {e.filename or directory}: {e.strerror or e}", param="out") from e
    return written


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pick_stages(show: str, target) -> list[str]:
    """`show` (a stage, several with commas, or all) as the target's stages; a stage it lacks is an error."""
    if show == "all":
        return list(target.stages)
    names = [s.strip() for s in show.split(",") if s.strip()]
    for name in names:
        if name not in target.stages:
            raise UserError(f"stage '{name}' does not exist for {target.name}; it has: {', '.join(target.stages)}")
    return names


def text(c: Compiled, stages: list[str], header: bool = True, interleave: bool = False, color: bool = False,
         outcomes=(), control: bool = False) -> str:
    """What `compile` prints: the header (launch, specialisation, resources, occupancy, each expectation's
    verdict), then each stage, interleaved with the Python lines when asked. Binaries are not printed."""
    if interleave and len(stages) != 1:
        raise UserError("interleave shows one stage at a time; pick it with `show`", param="interleave")
    out = []
    if header:
        lines = header_lines(c, stages[0] if len(stages) == 1 else None)
        lines += [f"expect      {o.expectation}: {o.shown}, {'holds' if o.holds else 'DOES NOT HOLD'}"
                  for o in outcomes]
        out.append("\n".join(("// " + line) for line in lines) + "\n")
    for stage in stages:
        if len(stages) > 1:
            if stage_table.is_binary(stage):
                continue
            out.append(f"\n// ===== {stage} " + "=" * 60 + "\n")
        if interleave:
            out.append(interleaved_text(c, stage, color, control))
        else:
            shown = _with_control(c, stage_text(c, stage)) if control and stage == "sass" else stage_text(c, stage)
            out.append(highlight(shown, stage, color))
    return "".join(out)
