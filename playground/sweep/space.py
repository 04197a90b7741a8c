"""The space a sweep compiles: `-m NAME=V1,V2` ranges (A..B doubles), their product over the spec's
defaults or the spec's own configs, and the Request each config compiles."""
from __future__ import annotations

import itertools

from ..core import params
from ..artefact.request import Request
from ..core.spec import config_dict, split_config
from ..errors import UserError

LAUNCH_KEYS = ("num_warps", "num_stages")


def parse_ranges(items: list[str] | tuple[str, ...] | str | None) -> dict[str, list]:
    """`["BLOCK_SIZE_M=64,128", "num_warps=4,8"]` -> {name: [values]}.

    Each item is NAME=V1,V2,... ; several may share one string, separated by spaces or ';'.
    `A..B` doubles from A up to B (params.doubling): `BLOCK_SIZE_K=32..128` is 32, 64, 128.
    """
    if isinstance(items, str):
        items = [items]
    ranges: dict[str, list] = {}
    for item in items or ():
        for part in item.replace(";", " ").split():
            name, eq, values = part.partition("=")
            if not eq or not name or not values.strip(","):
                raise UserError(f"meta '{part}': expected NAME=V1,V2,..., as in `meta` BLOCK_SIZE_M=64,128", param="meta")
            listed = []
            for value in filter(None, values.split(",")):
                if ".." in value:
                    listed += params.doubling(value, f"meta {name}", param="meta")
                else:
                    listed.append(params.parse_assignments(f"{name}={value}", "meta", strings=True)[name])
            if name in ranges and ranges[name] != listed:
                raise UserError(f"meta {name}: given twice, as {ranges[name]} and {listed}; say it once", param="meta")
            ranges[name] = listed
    return ranges


def space(spec, ranges: dict[str, list] | None = None, shape: dict | None = None,
          dtype: str | None = None, target=None) -> list[dict]:
    """The configs to compile: the product of `ranges` over the spec's defaults, else spec.configs
    (an @triton.autotune kernel's own configs, pruned at `shape` as its autotuner prunes them).

    A kernel with neither gets its one default config.
    """
    if ranges:
        known = [p.name for p in spec.kernel.params if p.is_constexpr]
        for name in ranges:
            if name not in known and name not in LAUNCH_KEYS and name not in params.LAUNCH_OPTIONS:
                raise UserError(f"meta {name}: not a meta-parameter of {spec.name} ({', '.join(known)}), "
                                f"num_warps, num_stages nor a backend option ({', '.join(params.LAUNCH_OPTIONS)})", param="meta")
        names = list(ranges)
        return [dict(zip(names, values)) for values in itertools.product(*ranges.values())]
    if spec.autotuner is not None and spec.configs == [config_dict(c) for c in spec.autotuner.configs]:
        return pruned(spec, shape, dtype, target)
    if spec.configs:
        return [dict(c) for c in spec.configs]
    return [{}]


def pruned(spec, shape: dict | None, dtype: str | None, target=None) -> list[dict]:
    """The autotuner's configs after its own `prune_configs_by` (Triton's Autotuner.prune_configs), with
    the launch's arguments as stand-ins at the problem shape (on `target`'s device, for an args function
    that asks for one)."""
    from ..artefact.binder import stand_in_args
    tuner = spec.autotuner
    if not (getattr(tuner, "early_config_prune", None) or getattr(tuner, "perf_model", None)):
        return [config_dict(c) for c in tuner.configs]
    request = Request.of(spec, target, shape=shape or None, dtype=dtype)
    saved = getattr(tuner, "nargs", None)
    tuner.nargs = dict(zip(spec.kernel.arg_names, stand_in_args(spec, request.config, request.target)))
    try:
        kept = tuner.prune_configs({})
    except Exception as e:
        raise UserError(f"{spec.name}: the autotuner's prune_configs_by failed at this shape: "
                        f"{type(e).__name__}: {e}") from e
    finally:
        tuner.nargs = saved
    return [config_dict(c) for c in kept]


def request_for(spec, target, config: dict, shape: dict | None = None, dtype: str | None = None):
    """The Request one config of the space compiles (UserError for a config that is not valid input)."""
    meta, warps, stages = split_config(config)
    return Request.of(spec, target, meta or None, warps, stages, shape or None, dtype)
