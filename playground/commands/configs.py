"""`--config N|list` (compile, bench): a kernel's autotune space by number, under the user's other options."""
from __future__ import annotations

from .common import kernel_args


def spec_of(kernel: str, target: str):
    """The kernel's spec as the command's target would load it (a captured launch: its own target)."""
    from ..core import registry
    from ..core.targets import resolve
    return registry.load(kernel, resolve(registry.trace_target(kernel) or target).label, kernel_args())


def with_config(spec, index: str, meta, num_warps, num_stages):
    """`--config N`: config N of the spec, with the user's --meta, --num-warps and --num-stages over it."""
    picked, warps, stages = _config_meta(spec, index)
    return ((picked, *meta) if picked else meta, num_warps if num_warps is not None else warps,
            num_stages if num_stages is not None else stages)


def _config_meta(spec, index: str) -> tuple[str, int | None, int | None]:
    """Config N of the spec: its meta-parameters as a --meta string, its num_warps and num_stages."""
    from ..core.spec import split_config
    from ..errors import UserError
    if not spec.configs:
        raise UserError(f"--config: {spec.name} has no configs (neither an @triton.autotune nor a spec's `configs`)")
    try:
        config = spec.configs[int(index)]
    except (ValueError, IndexError):
        raise UserError(f"--config {index}: expected `list` or 0..{len(spec.configs) - 1}") from None
    meta, num_warps, num_stages = split_config(config)
    return ",".join(f"{k}={v}" for k, v in meta.items()), num_warps, num_stages


def table(spec) -> str:
    """`--config list`: the spec's configs, numbered, and where they come from."""
    from ..inductor import saved_plans
    from ..text import table
    names = list(dict.fromkeys(k for c in spec.configs for k in c))
    source = "its @triton.autotune" if spec.autotuner is not None else \
        "Inductor's heuristics for the target" if spec.loaded_from and saved_plans.is_plan(spec.loaded_from) else "its spec"
    rows = [[str(i), *(str(c.get(k, "")) for k in names)] for i, c in enumerate(spec.configs)]
    return "\n".join([f"{spec.name}: {len(spec.configs)} configs, from {source}; compile one with --config N", ""]
                     + table(["config", *names], rows, align="r" * (len(names) + 1)))
