"""`bench --record FILE`: measured rows appended to a file in the validation set's format
(benchmarks/data/measured.csv), so that every run on a GPU adds to the data the model is checked against.

Only measurements are recorded: a modelled point is refused, so the set never holds the model's own
figures. The file is only ever appended to; an existing file must have the set's header.

Each row says what it ran on beyond the GPU's name (environment.py): the driver, the clocks seen while it was
timed, and the software; its `source` names the run (the command and the second it recorded, UTC), so that
configs timed together form one block (benchmarks/model_accuracy.py judges a block's order) and a run taken in
twice can be told from a new one. The PyTorch baseline is one row per shape: `--config all` times it once.
"""
from __future__ import annotations

import csv
import datetime
import io
from pathlib import Path

from ..errors import UserError

FIELDS = ("kernel", "implementation", "gpu", "M", "N", "K", "Z", "H", "N_CTX", "D", "dtype", "config", "figure",
          "unit", "time_us", "derivation", "source", "quote", "notes", "driver", "clocks", "software")
# the columns the published rows leave empty: what a measurement ran on, which a source seldom states
ENVIRONMENT = ("driver", "clocks", "software")
SOURCE = "playground bench --record"       # how a recorded row's `source` begins: a run of this tool, not a citation


def recorded(row: dict) -> bool:
    """Whether a row of the set was measured by `bench --record` (else it was copied from a published source)."""
    return (row.get("source") or "").startswith(SOURCE)


def check_row(row: dict) -> list[str]:
    """What is wrong with a recorded row, as `rows` writes them: [] for a good one. The intake of a GPU session's
    rows (scripts/gpu_intake.py) and the validation set's tests hold every recorded row to it."""
    problems = [f"no {c}" for c in ("kernel", "implementation", "gpu", "dtype", "source", "derivation", *ENVIRONMENT)
                if not (row.get(c) or "").strip()]
    if not recorded(row):
        problems.append(f"source {row.get('source')!r} does not begin with {SOURCE!r}")
    try:
        if float(row.get("time_us") or "nan") <= 0:
            problems.append(f"time_us {row['time_us']} is not a time")
    except ValueError:
        problems.append(f"time_us {row.get('time_us')!r} is not a number")
    if row.get("unit") != "us" or row.get("figure") != row.get("time_us"):
        problems.append("figure and time_us must be the same time, in us")
    config = row.get("config") or ""
    if row.get("implementation") == "triton" and not all(k and v for k, _, v in
                                                          (part.partition("=") for part in config.split(";"))):
        problems.append(f"config {config!r} is not NAME=V;NAME=V;...")
    return problems


def rows(result, when: datetime.datetime | None = None) -> list[dict]:
    """One row for the Triton kernel per measured point, and one for the PyTorch baseline per shape."""
    if result.kind != "measured":
        raise UserError(f"record keeps measurements only, and this run is modelled ({result.reason})", param="record")
    from . import environment
    when = (when or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%d %H:%M:%S UTC")
    ran_on = {"driver": environment.driver(), "software": environment.software()}
    out = []
    for m in result.points:
        shape = {k: v for k, v in m.shape.items() if k in FIELDS}
        base = {"kernel": m.kernel, "gpu": m.device, "dtype": m.dtype, "unit": "us",
                "derivation": "measured directly: the median of the timed runs",
                "source": f"playground bench --record, {when} ({m.method})",
                "quote": "", "clocks": m.clocks or "not read", **ran_on, **shape}
        modelled = (f"; modelled {m.modelled.seconds * 1e6:.4g} us with this GPU's SMs, clock and bandwidth as its "
                    f"driver reports them" if getattr(m, "modelled", None) else "")
        out.append({**base, "implementation": "triton", "config": m.config.replace(", ", ";"),
                    "figure": f"{m.triton.median_ms * 1e3:.6g}", "time_us": f"{m.triton.median_ms * 1e3:.6g}",
                    "notes": f"{m.checked}{modelled}"})
        if m.torch and not m.baseline_shared:
            out.append({**base, "implementation": "torch", "config": "", "notes": m.baseline,
                        "figure": f"{m.torch.median_ms * 1e3:.6g}", "time_us": f"{m.torch.median_ms * 1e3:.6g}"})
    return out


def append(path: str | Path, result) -> int:
    """Append the result's rows to `path` (creating it with the header); the number of rows written."""
    return write(path, rows(result))


def write(path: str | Path, new: list[dict]) -> int:
    """Append rows (dicts over FIELDS) to `path`, creating it with the header; refuse a file with another."""
    path = Path(path)
    if path.exists() and path.stat().st_size:
        with open(path, newline="") as f:
            header = next(csv.reader(f), [])
        if tuple(header) != FIELDS:
            raise UserError(f"{path}: its header is not the validation set's "
                            f"({','.join(FIELDS)}); nothing was written")
        with open(path, "rb") as f:
            f.seek(-1, 2)
            prefix = "" if f.read(1) == b"\n" else "\n"     # a last line typed without its newline stays whole
    else:
        prefix = ",".join(FIELDS) + "\n"
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
    for row in new:
        writer.writerow({k: row.get(k, "") for k in FIELDS})
    with open(path, "a", newline="") as f:     # append only: what the file held stays as it was
        f.write(prefix + buf.getvalue())
    return len(new)
