"""What a check runs: the cases, each a seed, an input set at its sizes, an input class and a layout.

The first case is the baseline (the first input set, the first seed, N(0, 1), contiguous). Every other case
changes one thing, and is named for the guard it stands for, so a subject right on the baseline and wrong on a
case is told which assumption it made:
- seeds: the same inputs drawn again under other seeds (a cached, replayed or hard-coded answer fails); the
  second seed's inputs are also given to the module the first case built (`again`), as a model serves one request
  after another: an answer cached across calls shows there (the replayed guard);
- shapes: another size (smaller and odd; problem.other_sizes), under a seed of its own;
- values: the input classes `check` has (x100, all negative, all positive, equal rows) and spiky inputs (run/inputs.py), for
  floating tensors: integer and bool tensors keep their range and density in every case (draws.tensors);
- layouts: for a callable given --inputs, every tensor of two or more dimensions a strided view into a wider
  allocation (run only where the subject accepts it: a subject that refuses strided inputs is told so, not failed).
--quick keeps two seeds, the spiky class and the other shape: one case for each guard but layouts.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from . import draws, problem as problems
from .arguments import Inputs, TensorArg

FULL_CLASSES = ("large", "negative", "positive", "equal", "spiky")
QUICK_CLASSES = ("spiky",)


@dataclass
class Case:
    id: str
    label: str
    guard: str | None            # None for the baseline; else the guard this case stands for
    seed: int
    generator: str
    layout: str | None
    sizes: dict
    args: list                   # [(name, value)]: CPU tensors at their dtype, scalars
    init: object = None          # the module's init: keywords (--init) or KernelBench's list
    literals: dict = field(default_factory=dict)    # sizes renamed in --init and --ref (literal dims: old -> new)
    problem: object = None       # KernelBench: the problem at these sizes (this process only)
    parameters: dict | None = None   # KernelBench: the reference's drawn parameters, by name (reference.py)
    again: bool = False          # also run on the first case's module, built once (the replayed guard)

    def for_child(self) -> dict:
        return {"id": self.id, "seed": self.seed, "args": self.args, "init": self.init, "layout": self.layout,
                "parameters": self.parameters, "again": self.again}


def for_callable(sets: list[Inputs], shapes: list[dict], init: dict, seed: int, seeds: int, quick: bool) -> list[Case]:
    """The cases of `check FILE.py:NAME --inputs ...` (each input set at each --shape)."""
    cases: list[Case] = []
    combos = [(s, sizes) for s in sets for sizes in (shapes or [{}])]
    for n, (inputs, sizes) in enumerate(combos):
        where = f"inputs {n + 1}: " if len(combos) > 1 else ""
        floating = any(isinstance(a, TensorArg) and a.dtype.startswith(("fp", "bf")) for a in inputs.args)
        kw = _init_at(init, sizes, {})
        for k in range(seeds if n == 0 else 1):
            cases.append(_case(cases, f"{where}seed {seed + k}", None if (n, k) == (0, 0) else
                               ("seeds" if n == 0 else None), seed + k, "randn", None, sizes, inputs, kw))
        if n:
            continue
        for generator in (QUICK_CLASSES if quick else FULL_CLASSES) if floating else ():
            cases.append(_case(cases, f"{where}{generator} inputs", "values", seed, generator, None, sizes, inputs,
                               kw))
        if not quick and any(isinstance(a, TensorArg) and len(a.dims) >= 2 for a in inputs.args):
            cases.append(_case(cases, f"{where}strided tensors", "layouts", seed, "randn", "strided", sizes, inputs,
                               kw))
        other = _other_shape(inputs, sizes)
        if other is not None:
            other_inputs, other_sizes, literals = other
            described = problems.what_changed(sizes, other_sizes) if other_sizes != sizes else \
                problems.what_changed({str(k): k for k in literals}, {str(k): v for k, v in literals.items()}).replace(
                    "=", " -> ")
            case = _case(cases, f"another shape ({described})", "shapes", seed + seeds, "randn", None, other_sizes,
                         other_inputs, _init_at(init, other_sizes, literals))
            case.literals = literals
            cases.append(case)
    return _mark_again(cases)


def _mark_again(cases: list[Case]) -> list[Case]:
    second = next((c for c in cases if c.guard == "seeds"), None)
    if second is not None:
        second.again = True
    return cases


def for_problem(base: problems.Problem, overrides: dict, seed: int, seeds: int, quick: bool) -> list[Case]:
    """The cases of a KernelBench problem: its own inputs under each seed, redrawn by class, and at other sizes."""
    cases: list[Case] = []
    init = base.init_inputs()
    for k in range(seeds):
        cases.append(_problem_case(cases, f"seed {seed + k}", None if k == 0 else "seeds", seed + k, "randn", base,
                                   init))
    for generator in QUICK_CLASSES if quick else FULL_CLASSES:
        cases.append(_problem_case(cases, f"{generator} inputs", "values", seed, generator, base, init))
    for changed in problems.other_sizes(base.sizes):
        try:
            other = problems.load(base.path, {**overrides, **changed})
            other_init = other.init_inputs()
            other.inputs(seed)
        except Exception:         # noqa: BLE001 -- a problem that cannot run at these sizes: try the next
            continue
        described = problems.what_changed(base.sizes, {**base.sizes, **changed})
        cases.append(_problem_case(cases, f"another shape ({described})", "shapes", seed + seeds, "randn", other,
                                   other_init))
        break
    return _mark_again(cases)


def _problem_case(cases, label, guard, seed, generator, problem, init) -> Case:
    values = draws.reclassed(problem.inputs(seed), seed, generator)
    args = [(f"input {i}", v) for i, v in enumerate(values)]
    return Case(str(len(cases)), label, guard, seed, generator, None, dict(problem.sizes), args, list(init),
                problem=problem)


def _case(cases, label, guard, seed, generator, layout, sizes, inputs: Inputs, init) -> Case:
    values = draws.tensors(inputs, sizes, seed, generator)
    return Case(str(len(cases)), label, guard, seed, generator, layout, dict(sizes), list(values.items()), init)


def _init_at(init: dict, sizes: dict, literals: dict) -> dict:
    """--init at these sizes: a value naming a --shape size takes it; a literal size is renamed as the inputs'."""
    out = {}
    for k, v in init.items():
        if isinstance(v, int) and not isinstance(v, bool):
            out[k] = literals.get(v, v)
        else:
            out[k] = draws.value(v, sizes)       # a size by name, torch's dtype
    return out


def _other_shape(inputs: Inputs, sizes: dict):
    """(inputs, sizes, literal renames) at another shape, or None when no size is large enough to change."""
    named = inputs.dimension_names()
    if named:
        changed = next(iter(problems.other_sizes({k: v for k, v in sizes.items() if k in named})), None)
        return (inputs, {**sizes, **changed}, {}) if changed else None
    literals = {d for a in inputs.args if isinstance(a, TensorArg) for d in a.dims if isinstance(d, int)}
    changed = next(iter(problems.other_sizes({str(d): d for d in literals})), None)
    if not changed:
        return None
    renames = {int(k): v for k, v in changed.items()}
    args = tuple(_renamed(a, renames) if isinstance(a, TensorArg) else a for a in inputs.args)
    return Inputs(inputs.text, args), dict(sizes), renames


def _renamed(arg: TensorArg, renames: dict) -> TensorArg:
    """`arg` at the other shape: its literal dimensions renamed, and the high bound of its range with them where
    it is one of them (`ids=int64[4] in [0,12), w=fp32[12,64]`: indices into w's rows stay in range when 12 becomes
    8, as --ref's literals are renamed alike). A bound that is no dimension is kept: the range still holds."""
    high = arg.high
    if isinstance(high, int) and high in renames and renames[high] > (arg.low if isinstance(arg.low, int) else 0):
        high = renames[high]
    return replace(arg, dims=tuple(renames.get(d, d) for d in arg.dims), high=high)
