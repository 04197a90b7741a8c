"""How close is the performance model to published measurements? Per kernel, GPU and implementation:
the median absolute error of modelled against measured time, and the rank correlation across shapes.

The validation set is `benchmarks/data/measured.csv` (its README says where each row comes from). For
each row the kernel of `kernels/` is compiled for the row's GPU at the row's shape and dtype, and
modelled (model/explain.py) with the config the row names, or else the config of the kernel's autotune
space the model ranks fastest: what an autotuner would pick. A library's row (cuBLAS, PyTorch) is not a
Triton kernel; a library chooses among many kernels for an operation, so its stand-in is the fastest of
the project's kernels for it (for GEMM: kernels/gemm.py, gemm_persistent.py and gemm_tma.py, each over its
own space), and the row says which it was. A library that runs one known kernel for the operation is stood
in for by that kernel's structure at its own launch instead (ONE_KERNEL_LIBRARIES: eager layer norm is
ATen's two-pass Welford kernel, kernels/layernorm_welford.py). Nothing in the model was fitted to
these rows; this script only reads them.

Rows left out, each with its reason: rows the data set itself flags DOUBTFUL in their notes (a GPU the
source does not really name, a reported performance regression, host-bound runs), kernels or shapes the
project's kernels do not cover, GPUs without a device table, and launch-bound rows, found two ways: the source's own rows show it (another row of
the same source, kernel, GPU and implementation does at least twice the work in at most 10% more
time: the published time is then host and launch overhead, not the kernel), or the model's launch
and fill take more than half of its time (the model does not claim to know a host's overhead).

The summary keeps apart what the model describes best, the Triton kernels, from the library and PyTorch
kernels it stands in for, and the rows whose source names the GPU exactly (an nvidia-smi name, SXM, PCIe,
NVL) from those that say only "A100" or "H100", which are taken as the SXM part.

Goals (issue 17): median absolute error <= 25% for GEMM and for the memory-bound kernels where the
kernel dominates; Spearman rank correlation >= 0.8 across shapes; one model, unchanged, for A100 and H100.

Rows that time several configs at one shape (an autotuner's log) check what `sweep` is for: the order of
configs. They are judged apart, by order: of the pairs the GPU separates, how many the model orders the
same way, calls a tie (sweep's rule), or orders the other way. Rows `bench --record` measured (a GPU session's
`--config all`) time the kernel alone, so they are compared by time as well, each modelled with its own config.

Run: python benchmarks/model_accuracy.py [--rows] [--csv PATH] [--json FILE]
(--json FILE also saves every figure printed, as data: what a GPU session keeps as its judgement.)
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Callable, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playground.bench import record  # noqa: E402
from playground.core import devices, registry, targets  # noqa: E402
from playground.errors import KernelFailure, UserError  # noqa: E402
from playground.model import explain, ranking  # noqa: E402
from playground.model import text as model_text  # noqa: E402
from playground.sweep.space import request_for  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "measured.csv"
GOAL_ERROR, GOAL_RANK = 0.25, 0.8
MEMORY_BOUND = ("softmax", "vector_add", "layernorm")


# The GPUs rows name, by the words in their name: the name --target takes for that part. The parts other than
# a target's representative are core/devices.py's VARIANTS, with their datasheets' figures: the same rows
# --target l40s, h100-pcie, ... give the CLI, compiled as a launch there would be (a persistent kernel's
# grid is that part's SM count). A row that names only "H100" or "A100" is taken as the SXM part: an
# assumption the report repeats.
GPUS = [
    (("gh200",), None),          # Grace Hopper: no device row; named first, or "h200" inside its name would claim it
    (("h200",), "h200"),
    (("h100", "pcie"), "h100-pcie"),
    (("h100", "nvl"), "h100-nvl"),
    (("h100",), "sm_90"),
    (("h800",), "h800"),
    (("a100", "40"), "a100-40gb"),
    (("a100", "pcie"), "a100-pcie"),
    (("a100",), "sm_80"),
    (("3090",), "sm_86"),
    (("l40s",), "l40s"),
    (("mi300x",), "gfx942"),
    (("mi325x",), "mi325x"),
    (("mi250",), "gfx90a"),
]
# what stands in for a library's (cuBLAS, PyTorch) kernel: the project's kernels for the same operation
LIBRARY_STAND_INS = {"gemm": ("gemm", "gemm_persistent", "gemm_tma")}
# A library that runs one known kernel for an operation is stood in for by that kernel's structure at that
# kernel's own launch, not by the fastest of ours. On CUDA, eager F.layer_norm on fp32/fp16/bf16 rows runs ATen's
# vectorized_layer_norm_kernel (aten/src/ATen/native/cuda/layer_norm_kernel.cu, launch_vectorized_layer_norm_
# kernel: a CTA per row of num_threads() = 4 warps, thread_constants.h, each thread reading 4 elements; Welford
# statistics, then a second read of the row) when N is a multiple of 4 and at most 2^24 and x, y, w and b are
# aligned to 4 elements (the set's rows: fresh contiguous tensors): kernels/layernorm_welford.py at BLOCK_SIZE
# 512 (128 threads x 4) and 4 warps. Its other path, and ROCm's build (other thread counts), have no stand-in.
# An assumption: Triton's registers for it (32 a thread on sm_90), not nvcc's for ATen's, set how many rows an SM
# holds.
class StandIn(NamedTuple):
    kernel: str                 # a file of kernels/
    launch: dict                # the library's own launch, as that kernel's config
    covers: Callable            # (shape, target) -> whether the library runs that kernel there


ONE_KERNEL_LIBRARIES = {("layernorm", "torch"): StandIn(
    "layernorm_welford", {"BLOCK_SIZE": 512, "num_warps": 4},
    lambda shape, target: shape["N"] % 4 == 0 and shape["N"] <= 2**24 and target.startswith("sm_"))}
# the GPU names that say only the family: gpu_of takes them as the SXM part, and the report keeps them apart
ASSUMED_SXM = ("a100", "h100")
DTYPES = {"fp16": "fp16", "float16": "fp16", "half": "fp16", "bf16": "bf16", "bfloat16": "bf16",
          "fp32": "fp32", "float32": "fp32"}
SHAPES = {"gemm": ("M", "N", "K"), "softmax": ("M", "N"), "layernorm": ("M", "N"), "vector_add": ("N",),
          "flash_attention": ("Z", "H", "N_CTX", "D")}


def gpu_of(name: str):
    """(the Target a launch on the GPU a row names compiles for, its device row), or (None, None)."""
    low = name.lower().replace(" ", "")
    for words, gpu in GPUS:
        if all(w in low for w in words):
            if gpu is None:
                return None, None
            target = targets.resolve(gpu)
            return target, devices.get(target)
    return None, None


def named_exactly(row: dict) -> bool:
    """Whether the row's source names the GPU's variant, not only its family (taken as the SXM part)."""
    return row["gpu"].strip().lower() not in ASSUMED_SXM


def model_row(row: dict, cache: dict):
    """(the Explanation of the config used, or None, that config, why left out)."""
    kernel = row["kernel"].strip()
    if kernel not in SHAPES:
        return None, "", f"no kernel '{kernel}' in kernels/"
    target, device = gpu_of(row["gpu"])
    if target is None:
        return None, "", f"no device table for {row['gpu']}"
    dtype = DTYPES.get(row["dtype"].strip().lower())
    if dtype is None:
        return None, "", f"dtype {row['dtype']} not modelled"
    try:
        shape = {d: int(float(row[d])) for d in SHAPES[kernel]}
    except (KeyError, ValueError):
        return None, "", "shape incomplete"
    if "causal" in (row.get("notes") or "").lower() and "non-causal" not in (row.get("notes") or "").lower():
        return None, "", "causal attention: the kernel's FLOP count is the non-causal one"
    # a Triton row is the tutorial's own kernel; a library picks among many kernels for the op, so its
    # stand-in is the fastest of the project's kernels for it, each over its own autotune space; a library
    # that runs one known kernel is that kernel's structure at its launch (ONE_KERNEL_LIBRARIES)
    implementation = row["implementation"].strip()
    library = not implementation.startswith("triton")
    one_kernel = ONE_KERNEL_LIBRARIES.get((kernel, implementation))
    if one_kernel and not one_kernel.covers(shape, target.name):
        return None, "", (f"{implementation}'s {kernel} takes another path at this shape or on this GPU, with no "
                           "stand-in")
    names = (one_kernel.kernel,) if one_kernel else LIBRARY_STAND_INS.get(kernel, (kernel,)) if library else (kernel,)
    specs = [registry.load(name) for name in names]
    if dtype not in specs[0].dtypes:
        return None, "", f"{kernel} has no {dtype} variant"
    best, label = None, ""
    for spec in specs:
        for cfg in [one_kernel.launch] if one_kernel else _configs(spec, row.get("config") or ""):
            key = (spec.name, target.label, repr(sorted(cfg.items())), repr(sorted(shape.items())), dtype)
            if key not in cache:
                try:
                    compiled = request_for(spec, target, cfg, shape, dtype).compile()
                    cache[key] = explain.explain(compiled)      # the device row the CLI gives the target
                except (UserError, KernelFailure) as e:
                    cache[key] = str(e)
            e = cache[key]
            if isinstance(e, str):
                continue
            if best is None or e.seconds < best.seconds:
                best, label = e, (e.config if spec.name == kernel else f"kernels/{spec.name}.py, {e.config}")
    if best is None:
        return None, "", "no config compiles and launches at this shape"
    if (best.shares.get("launch", 0) + best.shares.get("fill", 0)) > 0.5:
        return None, label, "launch-bound: launch and fill are most of the modelled time"
    return best, label, ""


def _configs(spec, text: str) -> list[dict]:
    """The row's config when it names one the spec takes (NAME=V;NAME=V), else the whole autotune space."""
    named = {}
    for part in text.replace(",", ";").split(";"):
        k, eq, v = part.partition("=")
        if eq and k.strip():
            try:
                named[k.strip()] = int(v)
            except ValueError:
                pass
    known = set(spec.meta) | {"num_warps", "num_stages"}
    if named and set(named) <= known:
        return [named]
    return spec.configs or [{}]


def spearman(xs: list[float], ys: list[float]) -> float | None:
    """Spearman's rank correlation (average ranks for ties); None below 3 points or with no spread."""
    if len(xs) < 3:
        return None

    def ranks(v):
        order = sorted(range(len(v)), key=v.__getitem__)
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return r
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sx = sum((a - mx) ** 2 for a in rx) ** 0.5
    sy = sum((b - my) ** 2 for b in ry) ** 0.5
    if not sx or not sy:
        return None
    return sum((a - mx) * (b - my) for a, b in zip(rx, ry)) / (sx * sy)


def work(row: dict) -> float | None:
    """The problem's size in the kernel's own terms: the product of its shape dimensions (N_CTX twice)."""
    kernel = row["kernel"].strip()
    try:
        dims = [float(row[d]) for d in SHAPES.get(kernel, ())]
    except ValueError:
        return None
    size = 1.0
    for d in dims:
        size *= d
    return size * (float(row["N_CTX"]) if kernel == "flash_attention" else 1.0) if dims else None


def host_bound(rows: list[dict]) -> set[int]:
    """Indexes of rows whose source shows them launch-bound: a row of the same source, kernel, GPU,
    implementation and dtype with at least twice the work takes at most 10% longer."""
    groups: dict = defaultdict(list)
    for i, row in enumerate(rows):
        try:
            t = float(row["time_us"])
        except ValueError:
            continue
        w = work(row)
        if w:
            key = tuple(row.get(k, "").strip() for k in ("source", "kernel", "gpu", "implementation", "dtype"))
            groups[key].append((i, w, t))
    flat = set()
    for members in groups.values():
        for i, w, t in members:
            if any(w2 >= 2 * w and t2 <= 1.1 * t for _, w2, t2 in members):
                flat.add(i)
    return flat


def ordering_blocks(rows: list[dict]) -> dict:
    """Rows that time several configs of one kernel at one shape, on one GPU, from one source: {(source,
    kernel, GPU, implementation, dtype, shape): [row index, ...]} for each such group of at least 3 configs.
    They check what `sweep` is for, the order of configs; a published block's times are compared by order only,
    since a source that times configs is an autotuner, whose figures carry its own overhead (a recorded block,
    `bench --config all --record`, times each kernel alone and is compared by time too: evaluate)."""
    blocks: dict = defaultdict(list)
    for i, row in enumerate(rows):
        if (row.get("config") or "").strip() and row["kernel"].strip() in SHAPES:
            shape = tuple(row.get(d, "").strip() for d in SHAPES[row["kernel"].strip()])
            key = tuple(row.get(k, "").strip() for k in ("source", "kernel", "gpu", "implementation", "dtype"))
            blocks[key + (shape,)].append(i)
    return {key: members for key, members in blocks.items()
            if len({rows[i]["config"].strip() for i in members}) >= 3}


def evaluate(rows: list[dict]) -> tuple[dict, list]:
    """Model every row: ({(kernel, GPU label, implementation): [(measured s, modelled s, row, config, line,
    measured inside the band)]}, [(line, row, why left out)]). A GPU label ends in " *" when the source names
    only the family."""
    groups: dict = defaultdict(list)
    left_out = []
    cache: dict = {}
    flat = host_bound(rows)
    in_blocks = {i for members in ordering_blocks(rows).values() for i in members}
    for i, row in enumerate(rows, 2):            # line numbers as in the file (line 1 is the header)
        if i - 2 in in_blocks and not record.recorded(row):
            left_out.append((i, row, "one of several configs timed at one shape: judged by their order (config "
                                     "orderings), not by time"))
            continue
        if "DOUBTFUL" in (row.get("notes") or ""):
            left_out.append((i, row, "flagged DOUBTFUL in the data set's notes"))
            continue
        if i - 2 in flat:
            left_out.append((i, row, "launch-bound in the source: a row with twice the work takes at most 10% "
                                     "longer"))
            continue
        try:
            measured = float(row["time_us"]) * 1e-6
        except (KeyError, ValueError):
            left_out.append((i, row, "no time_us"))
            continue
        modelled, config, why = model_row(row, cache)
        if why:
            left_out.append((i, row, why))
            continue
        gpu = gpu_of(row["gpu"])[1].name + ("" if named_exactly(row) else " *")
        groups[(row["kernel"], gpu, row["implementation"])].append((measured, modelled.seconds, row, config, i,
                                                                     modelled.low <= measured <= modelled.high))
    return groups, left_out


# A GPU separates two configs when their measured times differ by more than this share: well above the
# autotuner's timer steps in the set (about 1 us, 1-2% of these times). A threshold we chose, not a measurement.
GPU_SEPARATES = 0.05


@dataclasses.dataclass
class Ordering:
    """How the model orders one block's configs against how the GPU did."""
    key: tuple
    points: list            # (measured s, Explanation, row, line), fastest measured first
    rank_corr: float | None
    separated: int          # pairs the GPU separates (GPU_SEPARATES)
    right: int              # of those, the model orders as the GPU did
    tied: int               # the model calls a tie (sweep's rule: model.ranking.same_time)
    wrong: int              # the model orders the other way
    first: int              # the configs the model ranks first: its fastest and those tied with it
    pick_slowdown: float    # the slowest measured time among them over the measured best, minus 1


def orderings(rows: list[dict], cache: dict | None = None) -> tuple[list[Ordering], list]:
    """Each ordering block (ordering_blocks) modelled config by config, and judged as `sweep` would rank it:
    ([Ordering], [(line, row, why a row could not be modelled)])."""
    cache = {} if cache is None else cache
    out, left_out = [], []
    for key, members in ordering_blocks(rows).items():
        points = []
        for i in members:
            row = rows[i]
            modelled, _, why = model_row(row, cache)
            if why:
                left_out.append((i + 2, row, why))
                continue
            points.append((float(row["time_us"]) * 1e-6, modelled, row, i + 2))
        if len(points) < 3:
            continue
        points.sort(key=lambda p: p[0])
        as_sweep = [{"modelled_seconds": e.seconds, "modelled_low": e.low, "modelled_high": e.high}
                    for _, e, *_ in points]
        right = tied = wrong = separated = 0
        for a in range(len(points)):
            for b in range(a + 1, len(points)):
                if points[b][0] - points[a][0] <= GPU_SEPARATES * points[a][0]:
                    continue
                separated += 1
                if ranking.same_time(as_sweep[a], as_sweep[b]):
                    tied += 1
                elif points[a][1].seconds < points[b][1].seconds:
                    right += 1
                else:
                    wrong += 1
        fastest = min(range(len(points)), key=lambda i: points[i][1].seconds)
        first = [i for i in range(len(points)) if i == fastest or ranking.same_time(as_sweep[fastest], as_sweep[i])]
        out.append(Ordering(key=key, points=points, separated=separated, right=right, tied=tied, wrong=wrong,
                            rank_corr=spearman([m for m, *_ in points], [e.seconds for _, e, *_ in points]),
                            first=len(first), pick_slowdown=max(points[i][0] for i in first) / points[0][0] - 1))
    return out, left_out


def judge(rows: list[dict]) -> tuple[dict, list, list]:
    """Everything the report says: the groups compared by time (evaluate), the config orderings, and the rows left
    out of both, each with why (a block's row the model could not place says why it could not)."""
    groups, left_out = evaluate(rows)
    blocks, unmodelled = orderings(rows)
    why_not = {line: why for line, _, why in unmodelled}
    return groups, blocks, [(line, row, why_not.get(line, why)) for line, row, why in left_out]


def median_error(points: list) -> float:
    """The median |modelled - measured| / measured of a group's points (as evaluate gives them)."""
    return statistics.median(abs(s - m) / m for m, s, *_ in points)


def group_verdict(kernel: str, points: list) -> dict:
    """A group's figures and whether they meet the goals (None where a goal does not apply)."""
    med = median_error(points)
    rho = spearman([m for m, *_ in points], [s for _, s, *_ in points])
    ok_err = med <= GOAL_ERROR if (kernel == "gemm" or kernel in MEMORY_BOUND) else None
    return {"median_error": med, "rank_corr": rho, "meets_error": ok_err,
            "meets_rank": None if rho is None else rho >= GOAL_RANK, "in_band": sum(p[5] for p in points)}


def summary(groups: dict) -> dict:
    """Over every modelled row: its count, median error, rows inside the band, which way the model errs, and the
    goals met (all groups, and those whose GPU the source names exactly)."""
    every = [point for points in groups.values() for point in points]
    verdicts, named = [], []
    for (kernel, gpu, _), points in groups.items():
        verdict = group_verdict(kernel, points)
        checks = [v for v in (verdict["meets_error"], verdict["meets_rank"]) if v is not None]
        verdicts += checks
        named += checks if not gpu.endswith(" *") else []
    return {"rows": len(every), "median_error": median_error(every) if every else None,
            "in_band": sum(p[5] for p in every), "faster": sum(s < m for m, s, *_ in every),
            "slower": sum(s > m for m, s, *_ in every), "goals_met": sum(verdicts), "goals": len(verdicts),
            "named_goals_met": sum(named), "named_goals": len(named)}


def as_data(path: str, rows: list[dict], groups: dict, blocks: list, left_out: list) -> dict:
    """Everything the report prints, as data: each group's error and rank correlation (with every row's measured
    and MODELLED time), each config ordering (pairs right, tied, reversed, and each config's times), and the rows
    left out with why."""
    def ordering(o: Ordering) -> dict:
        source, kernel, gpu, impl, dtype, shape = o.key
        return {"source": source, "kernel": kernel, "gpu": gpu, "implementation": impl, "dtype": dtype,
                "shape": {d: int(float(v)) for d, v in zip(SHAPES[kernel], shape)}, "configs": len(o.points), "separated": o.separated,
                "right": o.right, "tied": o.tied, "reversed": o.wrong, "rank_corr": o.rank_corr,
                "ranked_first": o.first, "ranked_first_slowdown": o.pick_slowdown,
                "points": [{"line": line, "config": row["config"], "measured_us": m * 1e6,
                            "modelled_us": e.seconds * 1e6, "modelled_low_us": e.low * 1e6,
                            "modelled_high_us": e.high * 1e6, "bound": e.bound} for m, e, row, line in o.points]}
    return {
        "validation_set": str(path), "rows": len(rows), "goals": {"median_error": GOAL_ERROR, "rank_corr": GOAL_RANK},
        "summary": summary(groups),
        "note": "modelled times are the performance model's (MODELLED), compared with the rows' MEASURED times",
        "groups": [{"kernel": kernel, "gpu": gpu, "implementation": impl, "rows": len(points),
                    **group_verdict(kernel, points),
                    "points": [{"line": line, "config": config, "measured_us": m * 1e6, "modelled_us": s * 1e6,
                                "in_band": inside, **{d: row[d] for d in SHAPES[kernel]}}
                               for m, s, row, config, line, inside in sorted(points, key=lambda p: p[4])]}
                   for (kernel, gpu, impl), points in sorted(groups.items())],
        "orderings": [ordering(o) for o in blocks],
        "left_out": [{"line": line, "why": why} for line, _, why in left_out],
    }


README_BEGIN = "<!-- accuracy: begin (scripts/gpu_intake.py writes this from benchmarks/model_accuracy.py) -->"
README_END = "<!-- accuracy: end -->"


def readme_block(data: dict, rows: list[dict]) -> str:
    """The figures benchmarks/data/README.md shows, from as_data's answer: what the set holds, and where the model
    stands on it (every figure MODELLED against MEASURED)."""
    recorded = sum(record.recorded(row) for row in rows)
    total = data["summary"]
    lines = [README_BEGIN,
             f"- **rows:** {len(rows)}: {len(rows) - recorded} published, {recorded} recorded by this project's GPU "
             f"sessions (`bench --record`); {total['rows']} modelled and compared by time, "
             f"{len(data['left_out'])} left out with their reasons (`python benchmarks/model_accuracy.py`)."]
    if total["rows"]:
        lines.append(f"- **the model against them (MODELLED vs MEASURED):** median |error| "
                     f"{100 * total['median_error']:.1f}%; {total['in_band']} rows inside its band; modelled faster "
                     f"on {total['faster']}, slower on {total['slower']}. Goals (median error <= {GOAL_ERROR:.0%}, "
                     f"rank correlation >= {GOAL_RANK}, per kernel, GPU and implementation) met in {total['goals_met']} "
                     f"of {total['goals']} checks, {total['named_goals_met']} of {total['named_goals']} on GPUs named "
                     f"exactly.")
    for o in data["orderings"]:
        shape = ",".join(f"{d}={v}" for d, v in o["shape"].items())
        whence = "recorded " + o["source"].split(", ", 1)[1].split(" (")[0] if o["source"].startswith(record.SOURCE) \
            else "published"
        lines.append(f"- **config order,** {o['kernel']} {shape} {o['dtype']} on {o['gpu']} ({o['implementation']}, "
                     f"{whence}): of {o['separated']} pairs of its {o['configs']} configs the GPU ran more than "
                     f"{GPU_SEPARATES:.0%} apart, the model ordered {o['right']} as the GPU did, tied {o['tied']}, "
                     f"reversed {o['reversed']}.")
    return "\n".join(lines + [README_END])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", action="store_true", help="print every row's modelled and measured time")
    parser.add_argument("--csv", default=str(DATA), help="the validation set (default: benchmarks/data/measured.csv)")
    parser.add_argument("--json", metavar="FILE", help="also save every figure as data (a GPU session's judgement)")
    args = parser.parse_args()
    rows = list(csv.DictReader(open(args.csv, newline="")))
    groups, blocks, left_out = judge(rows)
    print(f"validation set: {args.csv} ({len(rows)} rows); modelled with playground's performance model "
          f"(MODELLED times, compared with the rows' MEASURED ones). A row that names only A100 or H100 is "
          f"taken as the SXM part, and marked * in the table.\n"
          f"  median |err|: of modelled against measured time. Goal <= {GOAL_ERROR:.0%} for GEMM and the memory-bound "
          f"kernels ({', '.join(MEMORY_BOUND)}); attention is reported, not judged.\n"
          f"  rank corr: Spearman's, of modelled against measured time across the group's rows (goal >= "
          f"{GOAL_RANK}): its shapes, and its configs where a recorded run (bench --config all) timed several; a "
          f"published row records no config, so those groups check shapes, and the config orderings below check "
          f"the order sweep gives configs.\n"
          f"  in band: rows measured inside the model's optimistic-to-pessimistic span (its uncertain constants "
          f"at either end), not a confidence interval.\n")
    print(f"{'kernel':<16}{'GPU':<22}{'implementation':<24}{'rows':>5}{'median |err|':>14}{'rank corr':>11}"
          f"{'in band':>9}  goals")
    for (kernel, gpu, impl), points in sorted(groups.items()):
        verdict = group_verdict(kernel, points)
        med, rho, ok_err, ok_rank = (verdict[k] for k in ("median_error", "rank_corr", "meets_error", "meets_rank"))
        verdict = "; ".join(v for v in (
            "" if ok_err is None else f"error {'meets' if ok_err else 'MISSES'} <= {GOAL_ERROR:.0%}",
            "" if ok_rank is None else f"rank {'meets' if ok_rank else 'MISSES'} >= {GOAL_RANK}") if v)
        inside = sum(p[5] for p in points)
        print(f"{kernel:<16}{gpu:<22}{impl:<24}{len(points):>5}{100 * med:>13.1f}%"
              f"{'-' if rho is None else f'{rho:.2f}':>11}{f'{inside}/{len(points)}':>9}  {verdict or '-'}")
        if args.rows:
            for m, s, row, config, line, _ in sorted(points, key=lambda p: p[4]):
                shape = ",".join(f"{d}={row[d]}" for d in SHAPES[kernel])
                print(f"    line {line}: {shape} {row['dtype']}: measured {m * 1e6:.4g} us, modelled {s * 1e6:.4g} us "
                      f"({100 * (s - m) / m:+.0f}%) with {config}")
    every = [point for points in groups.values() for point in points]
    if every:
        total = summary(groups)
        print(f"\nall modelled rows: {total['rows']}, median |error| {100 * total['median_error']:.1f}%, "
              f"{total['in_band']} inside the model's band; goals met in {total['goals_met']} of {total['goals']} "
              f"checks, {total['named_goals_met']} of {total['named_goals']} on GPUs named exactly")
        print(f"modelled faster than measured on {total['faster']} rows, slower on {total['slower']}: the model leans "
              f"{'optimistic' if total['faster'] >= total['slower'] else 'pessimistic'}. One model "
              f"for every GPU: the same code, with each architecture's published figures (datasheets, "
              f"microbenchmark papers); nothing fitted per GPU.")
    split = defaultdict(list)
    for point in every:
        row = point[2]
        split[(row["implementation"].startswith("triton"), named_exactly(row))].append(point)
    print("\nby what was run and how exactly the source names the GPU:")
    for (triton, named), label in [((True, True), "Triton kernels, the GPU named exactly (SXM, PCIe, NVL, ...)"),
                                   ((True, False), "Triton kernels, the GPU taken as the SXM part"),
                                   ((False, True), "library and PyTorch kernels, the GPU named exactly"),
                                   ((False, False), "library and PyTorch kernels, the GPU taken as the SXM part")]:
        points = split.get((triton, named))
        if points:
            print(f"  {label:<62} {len(points):>4} rows, median |error| {100 * median_error(points):.1f}%")
    if blocks:
        print(f"\nconfig orderings: several configs timed at one shape, ranked by the model as sweep ranks them "
              f"(ties by sweep's rule). A pair counts when the GPU separates it, by more than {GPU_SEPARATES:.0%}; "
              f"the goal (issue 17) is that sweep separates the configs a GPU separates.")
        for o in blocks:
            _, kernel, gpu, impl, dtype, shape = o.key
            measured = [m for m, *_ in o.points]
            modelled = [e.seconds for _, e, *_ in o.points]
            print(f"  {kernel} {','.join(f'{d}={v}' for d, v in zip(SHAPES[kernel], shape))} {dtype} on {gpu}, "
                  f"{impl}: {len(o.points)} configs")
            print(f"    measured {1e6 * min(measured):.1f}-{1e6 * max(measured):.1f} us (slowest "
                  f"+{100 * (max(measured) / min(measured) - 1):.0f}%); MODELLED {1e6 * min(modelled):.1f}-"
                  f"{1e6 * max(modelled):.1f} us; rank corr "
                  f"{'-' if o.rank_corr is None else f'{o.rank_corr:.2f}'}")
            verdict = "meets" if o.separated and o.right == o.separated else "MISSES"
            print(f"    of {o.separated} pairs the GPU separates, the model orders {o.right} as the GPU did, "
                  f"ties {o.tied}, and orders {o.wrong} the other way: {verdict} the goal")
            print(f"    the model ranks {o.first} of them first ({'tied' if o.first > 1 else 'alone'}); they measure up "
                  f"to +{100 * o.pick_slowdown:.0f}% over the best")
            if args.rows:
                for m, e, row, line in o.points:
                    print(f"      line {line}: {row['config']}: measured {m * 1e6:.4g} us, modelled "
                          f"{e.seconds * 1e6:.4g} us ({e.low * 1e6:.4g}-{e.high * 1e6:.4g}), {model_text.shares_phrase(e)}")
    if args.json:
        Path(args.json).write_text(json.dumps(as_data(args.csv, rows, groups, blocks, left_out), indent=1) + "\n")
    print(f"\nleft out: {len(left_out)} rows")
    reasons = defaultdict(list)
    for line, row, why in left_out:
        reasons[why].append(line)
    for why, lines in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(lines):>3}  {why} (lines {', '.join(map(str, lines[:12]))}{', ...' if len(lines) > 12 else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
