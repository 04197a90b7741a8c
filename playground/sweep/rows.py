"""One row of a sweep: a single compile of one config and the figures read from it.

The same function serves the parent (cache hits) and the workers. A row reads only what its
figures need: registers from `cuobjdump -res-usage`, spills from the SASS only when the binary
has a stack frame, and what the performance model reads (model/program.py: the matrix instructions
from the PTX, tiles from TTGIR, instruction counts from the SASS on NVIDIA). Its figures
are kept in Triton's cache beside the kernel, keyed on everything they depend on, so a rerun
reads them back.
"""
from __future__ import annotations

from pathlib import Path

from .. import versions
from ..artefact import cache
from ..core import devices
from ..errors import KernelFailure, UserError
from ..figures import occupancy


def row(request, config: dict, num_sms: int | None = None, model: bool = True) -> dict:
    """Compile one config's Request and read its figures. Raises on failure.

    `config` is the row's label (the swept names and values). The figures are kept in Triton's
    cache beside the kernel (`stored_figures`), so a rerun of the sweep reads each row back
    instead of reading the binary again. With `model=False` the row stops before the performance
    model and is not kept: `modelled` finishes it.
    """
    warned: list[str] = []
    c = request.compile(warn=warned.append)
    result = figures(c, num_sms, model) | {"warnings": warned}
    if model:
        _store_figures(figures_key(request, c.hash, config, num_sms), result)
    return result


def modelled(unmodelled: list[tuple], num_sms: int | None = None) -> list[dict]:
    """Finish rows read without the model (`row(model=False)`), given as (request, config, row): add the
    model's figures and keep them. The model counts each binary's SASS instructions; here the binaries are
    disassembled together, in one nvdisasm run (disasm.keep_counted), instead of one run each. A row whose
    model fails is that row's failure."""
    from ..artefact import disasm
    gathered = []
    for request, config, result in unmodelled:
        c = None
        if result["status"] == "ok":
            try:
                c = request.compile()       # a cache hit: a worker has just compiled it
            except Exception as e:
                result = failure(one_line(e))
        gathered.append((request, config, result, c))
    try:
        disasm.keep_counted([c for *_, c in gathered if c is not None])
    except Exception:
        pass                                # each row's model reads its binary alone, and fails alone
    out = []
    for request, config, result, c in gathered:
        if c is not None:
            try:
                result = result | _model_unless_unlaunchable(c, result, num_sms)
                _store_figures(figures_key(request, c.hash, config, num_sms), result)
            except Exception as e:
                result = failure(one_line(e))
        out.append(result)
    return out


FIGURES_FILE = "playground-sweep-row.json"


def figures_key(request, kernel_hash: str, config: dict, num_sms) -> str:
    """Everything a row's figures depend on: the binary, the config and problem, the GPU (the target's own or
    another of its architecture: the binary is the same) and its SM count, the spec's file (grid, FLOP and byte
    counts) and the playground code that reads the binary."""
    import hashlib
    cfg = request.config
    parts = ["sweep-row", kernel_hash, repr(sorted(config.items())), repr(sorted(cfg.shape.items())), cfg.dtype,
             request.target.label, repr(num_sms), _digest_file(request.spec.source_path), versions.code_fingerprint()]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _digest_file(path: str) -> str:
    import hashlib
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "no file"


def stored_figures(key: str) -> dict | None:
    return cache.kept_json(key, FIGURES_FILE)


def _store_figures(key: str, result: dict) -> None:
    cache.keep_json(key, FIGURES_FILE, result)


def figures(c, num_sms: int | None = None, model: bool = True) -> dict:
    r = c.resources
    out = {"status": "ok", "error": None, "registers": r.registers,
           "spill_store_bytes": r.spill_store_bytes, "spill_load_bytes": r.spill_load_bytes,
           "shared_bytes": r.shared_total, "num_warps": c.config.num_warps, "num_stages": c.config.num_stages,
           "meta": dict(c.config.meta), "hash": c.hash, "cache_hit": c.cache_hit,
           "compile_seconds": round(c.compile_seconds, 4),
           "stage_seconds": {stage: round(t, 4) for stage, t in c.stage_seconds.items()}}
    out |= _occupancy(c, num_sms)
    return out | _model_unless_unlaunchable(c, out, num_sms) if model else out


def _model_unless_unlaunchable(c, figures_so_far: dict, num_sms) -> dict:
    # A kernel that cannot launch has no running time to model.
    return _model(c, num_sms) if figures_so_far["launchable"] is not False else _NOT_MODELLED


def _occupancy(c, num_sms) -> dict:
    try:
        o = occupancy.of(c, num_sms=num_sms)
    except UserError as e:   # a GPU with no device table (an unlisted native one): figures stay, occupancy unknown
        return {"active_blocks_per_sm": None, "occupancy": None, "limiter": [], "launchable": None,
                "reason": str(e)}
    return {"active_blocks_per_sm": o.active_blocks_per_sm, "occupancy": o.occupancy,
            "limiter": list(o.limiter), "launchable": o.launchable, "reason": o.reason or None,
            "grid": o.grid, "waves": o.waves, "last_wave_ctas": o.last_wave_ctas}


_NOT_MODELLED = {"modelled_seconds": None, "modelled_low": None, "modelled_high": None, "bound": None,
                 "reread_from": None}


def _model(c, num_sms) -> dict:
    """The performance model's time at the sweep's shape (model/explain.py), its band, what bounds it and where
    re-reads come from; None when not modelled."""
    if c.spec.flops is None or c.spec.bytes is None:
        return _NOT_MODELLED                           # the spec gives nothing to model
    try:
        device = devices.with_num_sms(devices.get(c.target), num_sms)
    except UserError:
        return _NOT_MODELLED                           # no device table: nothing to model against
    from ..model import explain
    e = explain.explain(c, device)
    return {"modelled_seconds": e.seconds, "modelled_low": e.low, "modelled_high": e.high,
            "bound": explain.NAMES[e.bound], "reread_from": e.figures.reread_from}


def failure(error: str) -> dict:
    return {"status": "failed", "error": error}


def one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if isinstance(e, (UserError, KernelFailure)) and text else f"{type(e).__name__}: {text}"
