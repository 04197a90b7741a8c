"""Compare two variants of a kernel: two targets, two configs, or two kernel files.

A variant is what `--a`/`--b` say on top of the command's own options, as a comma list:
`target=sm_80`, `num_warps=8`, `num_stages=4`, `dtype=bf16`, a meta-parameter
(`BLOCK_SIZE_M=64`), a problem dimension (`M=1000`: it changes what the JIT specialises), or
another kernel (`kernel=path.py:name`). Both variants are compiled through the usual
pipeline, so every figure comes from the artefacts: resource usage (cuobjdump / amdgcn
metadata), occupancy (`playground.figures.occupancy`) and the instruction mix
(`playground.artefact.codeinspect`).

The stage diff is a unified diff (difflib). Generated code renumbers everything when
anything changes: SASS prints each instruction's address, ptxas and LLVM pick fresh
register and value numbers, MLIR attaches location ids. Left as they are, nearly every
line differs, so by default those numbers are replaced by `#` before diffing, and the
output says so; `raw=True` diffs the exact text.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

from ..artefact import codeinspect
from ..artefact.normalise import NORMALISATION, normalise
from ..core import params, registry
from ..core.params import split_items
from ..core.stages import default_for, is_binary
from ..errors import UserError
from ..figures import occupancy

# Keys a variant may set besides meta-parameters and problem dimensions.
VARIANT_KEYS = ("kernel", "target", "num_warps", "num_stages", "dtype")


def parse_variant(text: str, base, side: str = "a"):
    """`target=sm_80,num_warps=8,BLOCK_SIZE_M=64` on top of the base Request -> (Request, the text, tidied).
    `side`: the parameter it was given as (a or b), which an error names first."""
    given: dict = {}
    for item in params.split_items(text):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not value:
            raise UserError(f"{side} '{item}': expected NAME=VALUE, as in target=sm_80", param=side)
        params.merge(given, key, value, side)
    text = ",".join(f"{k}={v}" for k, v in given.items())
    # The kernel first: the other names are checked against the kernel this side compiles.
    spec = registry.load(given["kernel"]) if "kernel" in given else base.spec
    dims = list(spec.default_shape)
    meta_names = [p.name for p in spec.kernel.params if p.is_constexpr]
    changes: dict = {"kernel": spec, "meta": {}, "shape": {}}
    for key, value in given.items():
        if key == "kernel":
            continue
        if key in ("target", "dtype"):
            changes[key] = value
            continue
        number = params.parse_assignments(f"{key}={value}", side, strings=key not in ("num_warps", "num_stages"))[key]
        if key in ("num_warps", "num_stages"):
            changes[key] = number
        elif key in meta_names:
            changes["meta"][key] = number
        elif key in dims:
            changes["shape"][key] = number
        else:
            raise UserError(f"{side} {key}: not one of {', '.join(VARIANT_KEYS)}, a meta-parameter of {spec.name} "
                            f"({', '.join(meta_names) or 'none'}) or a dimension ({', '.join(dims)})", param=side)
    return base.changed(**changes), text


# ---- the comparison ----

@dataclass
class Side:
    request: object           # request.Request
    compiled: object          # compiler.Compiled
    figures: dict             # name -> number, in display order: resources, then the instruction mix
    label: str


@dataclass
class Comparison:
    kernel: str
    stage: str
    a: Side
    b: Side
    normalised: bool
    normalisation: str
    diff: list[str]           # unified diff lines, no trailing newlines

    @property
    def deltas(self) -> list[tuple[str, object, object]]:
        names = list(dict.fromkeys([*self.a.figures, *self.b.figures]))
        return [(n, self.a.figures.get(n), self.b.figures.get(n)) for n in names
                if self.a.figures.get(n) != self.b.figures.get(n)]

    @property
    def identical(self) -> bool:
        return not self.diff

    def as_dict(self) -> dict:
        def side(s: Side) -> dict:
            c = s.compiled
            return {"variant": s.label, "kernel": c.spec.name, "file": c.spec.source_path, "target": c.target.label,
                    "num_warps": c.config.num_warps, "num_stages": c.config.num_stages, "meta": c.config.meta,
                    "shape": c.config.shape, "dtype": c.config.dtype, "hash": c.hash, "figures": s.figures}
        return {"kernel": self.kernel, "stage": self.stage, "normalised": self.normalised,
                "normalisation": self.normalisation, "a": side(self.a), "b": side(self.b),
                "deltas": [{"name": n, "a": a, "b": b} for n, a, b in self.deltas],
                "identical": self.identical, "diff": "\n".join(self.diff) + ("\n" if self.diff else "")}


def compare(base, a: str | tuple, b: str | tuple, stage: str | None = None, raw: bool = False,
            context: int = 3) -> Comparison:
    """Compile both variants of the base Request (what --a and --b change) and compare their figures and one stage.

    With no stage: the targets' assembly (stages.default_for), or TTGIR, the last stage both vendors
    share, when one side is NVIDIA and the other AMD.
    """
    if not split_items(a) and not split_items(b):
        raise UserError("say what differs: `a` and `b`, e.g. `a` target=sm_80 `b` target=sm_90")
    if context < 0:
        raise UserError(f"context {context}: must be 0 or more lines", param="context")
    if stage is not None and is_binary(stage):
        raise UserError(f"{stage} is a binary; diff sass (NVIDIA) or amdgcn (AMD) instead")
    variants = [parse_variant(a, base, "a"), parse_variant(b, base, "b")]
    for request, _ in variants:
        registry.check_one_gpu(request.spec, [request.target.label])
    if stage is None:
        defaults = {default_for(request.target.backend) for request, _ in variants}
        stage = defaults.pop() if len(defaults) == 1 else "ttgir"
    for (request, _), letter in zip(variants, "ab"):
        if stage not in request.target.stages:
            raise UserError(f"stage '{stage}' does not exist for {request.target.name} (side {letter}); "
                            f"it has: {', '.join(request.target.stages)}")
    compiled = [request.compile() for request, _ in variants]
    read = [figures(c, stage) for c in compiled]
    # An instruction category only one side has is 0 on the other, so both list the same rows.
    categories = sorted(set().union(*(mix for _, mix in read)), key=lambda n: (n != "instructions", n))
    sides = [Side(request=request, compiled=c, label=text or "base",
                  figures=resources | {n: mix.get(n, 0) for n in categories})
             for (request, text), c, (resources, mix) in zip(variants, compiled, read)]
    texts = [c.stage(stage) if raw else normalise(c.stage(stage), stage) for c in compiled]
    lines = list(difflib.unified_diff(texts[0].splitlines(), texts[1].splitlines(),
                                      f"a/{stage} ({sides[0].label})", f"b/{stage} ({sides[1].label})",
                                      n=context, lineterm=""))
    normalised = not raw and stage in NORMALISATION
    how = NORMALISATION[stage] if normalised else "none: the exact text"
    return Comparison(kernel=base.spec.name, stage=stage, a=sides[0], b=sides[1], normalised=normalised,
                      normalisation=how, diff=lines)


def figures(c, stage: str | None = None) -> tuple[dict, dict]:
    """The numbers worth comparing, each read from the compiled artefact: (resources, instruction mix)."""
    r = c.resources
    out = {"registers": r.registers}
    if not c.target.is_nvidia:
        out |= {"VGPRs": r.vgprs, "AGPRs": r.agprs, "SGPRs": r.sgprs}
    out |= {"spill stores": r.spill_store_bytes, "spill loads": r.spill_load_bytes,
            "shared memory": r.shared_total}
    occ = _occupancy(c)
    if occ is not None:
        out |= {"blocks per SM": occ.active_blocks_per_sm, "occupancy": occ.occupancy,
                "launchable": occ.launchable}
    if stage and not is_binary(stage):
        out[f"{stage} lines"] = len(c.stage(stage).splitlines())
    # codeinspect names tensor-core families "mma.<family>"; the family alone reads better: "wgmma 0 → 8".
    mix = {name.removeprefix("mma."): count for name, count in _instruction_mix(c).items()}
    return out, mix


def _occupancy(c):
    try:
        return occupancy.of(c)
    except UserError:      # a GPU with no device table (an unlisted native one): no occupancy rows
        return None


def _instruction_mix(c) -> dict:
    return codeinspect.instruction_mix(c)
