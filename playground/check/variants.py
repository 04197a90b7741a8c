"""What `check` runs besides each case as written: input classes, layouts and configs.

Every case runs once with N(0, 1) inputs, contiguous tensors and the config a launch would
use: that is what `check` always did. The bugs that survive that (tests/planted/ has one per
class) need other runs. Without --quick they run on the *small* cases (up to
check.SMALL_CASE_ELEMENTS, the probe at least), and the configs also on the larger ones up to
check.EXTRA_CASE_ELEMENTS; with --quick, on one small case, the *probe*, to stay cheap:

- values: each input generator of inputs.py the spec supports, at every dtype; and, for a
  kernel that reduces, the probe with a reduction LONG_REDUCTION long and the other sizes small, at every dtype;
- layouts, where the kernel takes strides (read from the spec's `args`): every 2-D tensor whose
  both strides it takes transposed; every 2-D tensor whose row stride it takes sliced out of
  wider rows; and every tensor starting one element past an aligned address (which changes the
  JIT's specialisation: no 16-byte divisibility on the pointers);
- configs: every config of the spec's autotune space; with --quick, one config per pattern of
  equalities among its parameters (see configs()). A bug that only shows under some tile shapes is reported with
  that config.

Layouts and configs run at the first dtype: the bugs they catch do not depend on it.

Which combinations need the large cases (each a decision, for the interpreter's time: a run costs about one
interpreted step per program and tile, so a 300 x 781 layer norm is a second, its 48 x 200 case 0.03 s):
- the input classes and layouts: the small cases only. What a class exposes is its values against the kernel's
  arithmetic and the dtype's range (exp of x100 overflows fp32; a masked max whose lanes read 0 is wrong on all
  negative rows), and what a layout exposes is the stride and alignment arithmetic; both show on any case with
  a few rows, a masked tail and a ragged last tile, which the small cases have. What a large case adds is
  length, and the long reduction, at every dtype, is the run for length.
- the configs: every one on the small cases; on the larger ones only the QUICK_CONFIGS configs with the largest
  tiles (largest_tiles()). A small tile already spans several tiles and a ragged edge of a small case; a large
  tile needs a large case for that. Small tiles on a large case are the costliest runs of all.
- in the interpreter, a config that differs from another run of the same case only in launch options
  (num_warps, num_stages: no interpreted kernel sees them) is that run: check runs it once (check.py).
"""
from __future__ import annotations

import inspect
import random
import re
from dataclasses import dataclass, field

from ..run import inputs
from ..run.cases import case_elements, split_case

QUICK_CONFIGS = 3
QUICK_MAX = 6
# a long reduction that is not a power of two: a kernel dividing by its padded length shows it
LONG_REDUCTION = 4096 + 17
SLICE_PAD = 3      # elements between rows of a sliced view: row stride = row + 3, never aligned
KINDS = ("values", "layouts", "configs", "sanitizers")
LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")   # a config's entries no kernel parameter takes


@dataclass(frozen=True)
class Variant:
    kind: str                     # "values", "layouts" or "configs"
    name: str                     # "randn", "large", "transposed", "sliced", "offset", "--config 1 (of 6)"
    generator: str = "randn"
    layout: dict = field(default_factory=dict, hash=False)    # merged into the case's layout
    config: dict | None = field(default=None, hash=False)     # one entry of spec.configs


PLAIN = Variant("values", "randn")


def probe_case(spec, cases: list[dict]) -> dict:
    """The sizes of the smallest case among those with the most sizes above 1 (a 1x1 case has no
    rows to get wrong and no masked-out lanes), without its own layout: the runs here set theirs.
    A case with meta of its own is passed over while there is another."""
    candidates = [split_case(c)[0] for c in cases if "meta" not in c] or [split_case(c)[0] for c in cases]
    widest = max(sum(v > 1 for v in c.values()) for c in candidates)
    return min((c for c in candidates if sum(v > 1 for v in c.values()) == widest),
               key=lambda c: case_elements(spec, c))


def extra(spec, probe: dict, dtypes: list[str], kinds: set, fixed_config: bool, quick: bool,
          seed: int = 0, cases: list[dict] | None = None,
          small: list[dict] | None = None) -> list[tuple[dict, str, Variant]]:
    """(case, dtype, variant) for every run beyond the plain ones, in report order.

    `cases`: where the configs run (default: the probe alone, as --quick does); `small`: those
    of them where the input classes, the layouts and every config run (default: all of `cases`;
    the others take largest_tiles()); the long reduction grows from the probe.
    """
    cases = cases or [probe]
    small = small or cases
    runs = []
    if "values" in kinds:
        for dtype in dtypes:
            runs += [(case, dtype, Variant("values", g, generator=g))
                     for case in small for g in inputs.names_for(spec, dtype) if g != "randn"]
        long = long_reduction(spec, probe)
        if long is not None:
            runs += [(long, dtype, Variant("values", "long reduction")) for dtype in dtypes]
    if "layouts" in kinds:
        runs += [(case, dtypes[0], v) for case in small for v in layouts(spec, case)]
    if "configs" in kinds and not fixed_config and spec.configs:
        every = configs(spec, quick, seed)
        large = largest_tiles(every)
        runs += [(case, dtypes[0], v) for case in cases + [c for c in small if c not in cases]
                 for v in (every if case in small else large)]
    return runs


def largest_tiles(chosen: list[Variant]) -> list[Variant]:
    """The QUICK_CONFIGS configs with the largest tiles, by the product of their numeric parameters (launch
    options aside), in their own order; ties go to the earlier config."""
    def tile(v: Variant) -> float:
        size = 1.0
        for k, value in v.config.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and k not in LAUNCH_OPTIONS:
                size *= value
        return size
    ranked = sorted(range(len(chosen)), key=lambda i: (-tile(chosen[i]), i))[:QUICK_CONFIGS]
    return [chosen[i] for i in sorted(ranked)]


def long_reduction(spec, probe: dict) -> dict | None:
    """The probe with its reduction LONG_REDUCTION long and every other size at most 16: an
    intermediate kept in too narrow a type drifts with the length, past the tolerance (which
    grows only linearly), while a correct kernel's error stays inside it. None when the spec
    has no reduction dimension or the probe already reduces over that many."""
    dim = spec.reduction_dim
    if not dim or probe.get(dim, spec.default_shape.get(dim, 0)) >= LONG_REDUCTION:
        return None
    small = {k: min(v, 16) for k, v in probe.items()}
    # the first length from LONG_REDUCTION up that the kernel takes, in every dtype it takes (gemm_tma's
    # descriptors need 16-byte rows: 4120), still not a power of two
    for length in range(LONG_REDUCTION, LONG_REDUCTION + 64):
        long = {**small, dim: length}
        if spec.constraints is None or not any(spec.constraints({**spec.default_shape, **long}, d, spec.meta)
                                               for d in spec.dtypes):
            return long
    return None          # the kernel refuses every such length (flash attention's head dimension)


def layouts(spec, case: dict) -> list[Variant]:
    """The layout variants the kernel's arguments allow (see the module docstring)."""
    strided = strided_dims(spec)
    two_d = [n for n, t in spec.tensors.items() if len(t.shape) == 2]
    taken = {n: strided.get(n, set()) for n in two_d}
    out = []
    both = [n for n in two_d if taken[n] >= {0, 1}]
    if both:
        out.append(Variant("layouts", f"transposed {','.join(both)}", layout={"transpose": both}))
    rows = [n for n in two_d if 0 in taken[n]]
    if rows:
        out.append(Variant("layouts", f"sliced {','.join(rows)}", layout={"pad": {n: SLICE_PAD for n in rows}}))
    out.append(Variant("layouts", "offset by 1 element", layout={"offset": 1}))
    allowed = spec.layouts
    return [v for v in out if not _clashes(v.layout, case) and (allowed is None or v.name.split()[0] in allowed)]


def _clashes(layout: dict, case: dict) -> bool:
    """A case that already sets a layout key keeps its own."""
    return any(k in case for k in layout)


def strided_dims(spec) -> dict[str, set]:
    """Which strides of each tensor the kernel is given, read from the spec's `args` source:
    `x.stride(0)` gives dim 0; `x.stride()` (all of them) gives every dim."""
    try:
        source = inspect.getsource(spec.args)
    except (OSError, TypeError):
        return {}
    found = {}
    for name, t in spec.tensors.items():
        for match in re.finditer(rf"\b{re.escape(name)}\.stride\((\d*)\)", source):
            dims = {int(match.group(1))} if match.group(1) else set(range(len(t.shape)))
            found.setdefault(name, set()).update(dims)
    return found


def configs(spec, quick: bool, seed: int) -> list[Variant]:
    """Every config of the autotune space, or a few with --quick.

    The bugs a config exposes come from parameters that are equal in one config and differ in
    another (BLOCK_SIZE_M written where BLOCK_SIZE_N belongs is right for every square tile). So
    --quick takes one config per pattern of equalities and orderings among the numeric
    parameters (at most QUICK_MAX), then fills up to QUICK_CONFIGS with the configs that cover
    the most values and pairs of values not yet covered; the seed breaks ties."""
    chosen = list(enumerate(spec.configs))
    if quick and len(chosen) > QUICK_CONFIGS:
        pool = chosen[:]
        random.Random(seed).shuffle(pool)
        picked, seen = [], set()
        for ic in pool:
            pattern = _pattern(ic[1])
            if pattern not in seen and len(picked) < QUICK_MAX:
                seen.add(pattern)
                picked.append(ic)
        covered = set().union(*(_combinations(c) for _, c in picked))
        rest = [ic for ic in pool if ic not in picked]
        while len(picked) < QUICK_CONFIGS and rest:
            best = max(rest, key=lambda ic: len(_combinations(ic[1]) - covered))
            picked.append(best)
            covered |= _combinations(best[1])
            rest.remove(best)
        chosen = sorted(picked)
    total = len(spec.configs)
    # named as `--config N` opens it in every command (numbered from 0, as `--config list` shows)
    return [Variant("configs", f"--config {i} (of {total})", config=dict(c)) for i, c in chosen]


def _pattern(config: dict) -> tuple:
    """How a config's numeric parameters compare with one another: (-1, 0, 1) per pair."""
    numbers = sorted((k, v) for k, v in config.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
                     and k not in LAUNCH_OPTIONS)
    return tuple((a > b) - (a < b) for i, (_, a) in enumerate(numbers) for _, b in numbers[i + 1:])


def _combinations(config: dict) -> set:
    """A config's values and pairs of values, for --quick's coverage."""
    items = sorted(config.items(), key=lambda kv: kv[0])
    return set(items) | {(a, b) for i, a in enumerate(items) for b in items[i + 1:]}


def chosen(plain: bool = False, no_sanitize: bool = False) -> tuple:
    """The KINDS that run besides the plain cases: none when only the cases as written are wanted (plain),
    and the sanitizers unless they are turned off."""
    kinds = () if plain else tuple(k for k in KINDS if k != "sanitizers")
    return kinds if no_sanitize else kinds + ("sanitizers",)
