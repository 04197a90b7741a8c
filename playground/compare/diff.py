"""Compare two variants of a kernel: two targets, two configs, or two kernel files.

A variant is what `--a`/`--b` say on top of the command's own options, as a comma list:
`target=sm_80`, `num_warps=8`, `num_stages=4`, `dtype=bf16`, a meta-parameter
(`BLOCK_SIZE_M=64`), a problem dimension (`M=1000`: it changes what the JIT specialises), or
another kernel (`kernel=path.py:name`). Both variants are compiled through the usual
pipeline, so every figure comes from the artefacts: resource usage (cuobjdump / amdgcn
metadata), occupancy (`playground.figures.occupancy`), the performance model's time
(`playground.model.explain`, labelled modelled) and the instruction mix
(`playground.artefact.codeinspect`). A side is read into plain data (`Side`), so one compiled
by another Triton, in another process (compare/tritons.py), is compared the same way.

The stage diff is a unified diff (difflib). Generated code renumbers everything when
anything changes: SASS prints each instruction's address, ptxas and LLVM pick fresh
register and value numbers, MLIR attaches location ids. Left as they are, nearly every
line differs, so by default those numbers are replaced by `#` before diffing, and the
output says so; `raw=True` diffs the exact text.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from ..artefact import codeinspect
from ..artefact.normalise import NORMALISATION, normalise
from ..core import params, registry
from ..core.params import split_items
from ..core.stages import default_for, is_binary
from ..errors import UserError
from ..figures import occupancy

MODELLED_TIME = "time (modelled)"       # the performance model's, on the target's GPU, at the compiled shape

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
    """One side as compared: its figures, its launch and the stage's text, read in the process that compiled it
    (another Triton's, with --triton), so a side is plain data; `request` and `compiled` are there when it was
    this process."""
    label: str                # what --a/--b changed ('base' when nothing), or the Triton that compiled it
    launch: dict              # kernel, file, target, num_warps, num_stages, meta, shape, dtype, hash (None: none)
    where: str                # the kernel, its target and its launch, in words
    code: str                 # where the instruction mix was counted: SASS or amdgcn
    resources: dict = field(default_factory=dict)   # name -> number: resources, occupancy, the model's time
    mix: dict = field(default_factory=dict)         # instruction category -> static count
    text: str = ""            # the stage, as diffed (normalised unless raw)
    figures: dict = field(default_factory=dict)     # resources, then the mix over both sides' categories
    triton: str | None = None     # the Triton that compiled it, when --triton named one
    error: str | None = None      # why it did not compile, in one line
    request: object = None    # request.Request, in this process
    compiled: object = None   # compiler.Compiled, in this process

    @property
    def hash(self) -> str | None:
        return self.launch.get("hash")

    def as_dict(self) -> dict:
        return {"variant": self.label, **self.launch, "figures": self.figures,
                **({"triton": self.triton} if self.triton else {}), **({"error": self.error} if self.error else {})}

    @classmethod
    def from_dict(cls, d: dict) -> Side:
        return cls(**d)

    def plain(self) -> dict:
        """What another process hands back (a child of another Triton): everything but the live objects."""
        return {k: v for k, v in self.__dict__.items() if k not in ("request", "compiled")}


def side(request, c, stage: str, raw: bool, label: str, triton: str | None = None) -> Side:
    """A compiled side, read: its figures, its launch and its stage's text."""
    resources, mix = figures(c, stage)
    text = c.stage(stage)
    return Side(label=label, launch=_launch(request, c.hash), where=_where(request),
                code="SASS" if c.target.is_nvidia else "amdgcn", resources=resources, mix=mix,
                text=text if raw else normalise(text, stage), triton=triton, request=request, compiled=c)


def failed_side(request, error: str, label: str, triton: str | None = None) -> Side:
    """A side that did not compile: its launch, and why, in one line."""
    return Side(label=label, launch=_launch(request, None), where=_where(request),
                code="SASS" if request.target.is_nvidia else "amdgcn", triton=triton, error=error, request=request)


def _launch(request, kernel_hash: str | None) -> dict:
    cfg = request.config
    return {"kernel": request.spec.name, "file": request.spec.source_path, "target": request.target.label,
            "num_warps": cfg.num_warps, "num_stages": cfg.num_stages, "meta": cfg.meta, "shape": cfg.shape,
            "dtype": cfg.dtype, "hash": kernel_hash}


def _where(request) -> str:
    cfg = request.config
    meta = ",".join(f"{k}={v}" for k, v in cfg.meta.items())
    return f"{request.spec.name} on {request.target.label}, num_warps={cfg.num_warps}, num_stages={cfg.num_stages}, {meta}"


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
        if self.a.error or self.b.error:      # one side has no figures: nothing to subtract
            return []
        names = list(dict.fromkeys([*self.a.figures, *self.b.figures]))
        return [(n, self.a.figures.get(n), self.b.figures.get(n)) for n in names
                if self.a.figures.get(n) != self.b.figures.get(n)]

    @property
    def identical(self) -> bool:
        return not self.diff and not (self.a.error or self.b.error)

    def as_dict(self) -> dict:
        return {"kernel": self.kernel, "stage": self.stage, "normalised": self.normalised,
                "normalisation": self.normalisation, "a": self.a.as_dict(), "b": self.b.as_dict(),
                "deltas": [{"name": n, "a": a, "b": b} for n, a, b in self.deltas],
                "identical": self.identical, "diff": "\n".join(self.diff) + ("\n" if self.diff else "")}


def comparison(kernel: str, stage: str, a: Side, b: Side, raw: bool, context: int) -> Comparison:
    """Two sides, read, compared: their figures over the same rows, and the stage's unified diff."""
    # An instruction category only one side has is 0 on the other, so both list the same rows.
    read = [s for s in (a, b) if not s.error]
    categories = sorted(set().union(*(s.mix for s in read)), key=lambda n: (n != "instructions", n))
    for s in read:
        s.figures = s.resources | {n: s.mix.get(n, 0) for n in categories}
    lines = [] if len(read) < 2 else list(difflib.unified_diff(
        a.text.splitlines(), b.text.splitlines(), f"a/{stage} ({a.label})", f"b/{stage} ({b.label})", n=context,
        lineterm=""))
    normalised = not raw and stage in NORMALISATION
    how = NORMALISATION[stage] if normalised else "none: the exact text"
    return Comparison(kernel=kernel, stage=stage, a=a, b=b, normalised=normalised, normalisation=how, diff=lines)


def compare(base, a: str | tuple, b: str | tuple, stage: str | None = None, raw: bool = False,
            context: int = 3) -> Comparison:
    """Compile both variants of the base Request (what --a and --b change) and compare their figures and one stage.

    With no stage: the targets' assembly (stages.default_for), or TTGIR, the last stage both vendors
    share, when one side is NVIDIA and the other AMD.
    """
    if not split_items(a) and not split_items(b):
        raise UserError("say what differs: `a` and `b`, e.g. `a` target=sm_80 `b` target=sm_90")
    check_context(context)
    if stage is not None and is_binary(stage):
        raise UserError(f"{stage} is a binary; diff sass (NVIDIA) or amdgcn (AMD) instead")
    variants = [parse_variant(a, base, "a"), parse_variant(b, base, "b")]
    for request, _ in variants:
        registry.check_one_gpu(request.spec, [request.target.label])
    if stage is None:
        defaults = {default_for(request.target.backend) for request, _ in variants}
        stage = defaults.pop() if len(defaults) == 1 else "ttgir"
    for (request, _), letter in zip(variants, "ab"):
        check_stage(stage, request.target, f" (side {letter})")
    sides = [side(request, request.compile(), stage, raw, text or "base") for request, text in variants]
    return comparison(base.spec.name, stage, sides[0], sides[1], raw, context)


def check_context(context: int) -> None:
    if context < 0:
        raise UserError(f"context {context}: must be 0 or more lines", param="context")


def check_stage(stage: str, target, which: str = "") -> None:
    if is_binary(stage):
        raise UserError(f"{stage} is a binary; diff sass (NVIDIA) or amdgcn (AMD) instead")
    if stage not in target.stages:
        raise UserError(f"stage '{stage}' does not exist for {target.name}{which}; "
                        f"it has: {', '.join(target.stages)}")


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
    seconds = _modelled_seconds(c)
    if seconds is not None:
        out[MODELLED_TIME] = seconds
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


def _modelled_seconds(c) -> float | None:
    """The performance model's typical time at the compiled shape (model/explain.py), or None where it has
    nothing to go on (no FLOP or byte counts, a kernel that cannot launch)."""
    from ..model import explain
    try:
        return explain.explain(c).seconds
    except UserError:
        return None


def _instruction_mix(c) -> dict:
    return codeinspect.instruction_mix(c)
