"""`bench --record FILE`: measured rows appended to a file in the validation set's format
(benchmarks/data/measured.csv), so that every run on a GPU adds to the data the model is checked against.

Only measurements are recorded: a modelled point is refused, so the set never holds the model's own
figures. The file is only ever appended to; an existing file must have the set's header.

Each row says what it ran on beyond the GPU's name (environment.py): the driver, the clocks seen while it was
timed, and the software; its `source` names the run (the command and the minute it recorded, UTC), so that
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


def rows(result, when: datetime.datetime | None = None) -> list[dict]:
    """One row for the Triton kernel per measured point, and one for the PyTorch baseline per shape."""
    if result.kind != "measured":
        raise UserError(f"--record keeps measurements only, and this run is modelled ({result.reason})")
    from . import environment
    when = (when or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    ran_on = {"driver": environment.driver(), "software": environment.software()}
    out = []
    for m in result.points:
        shape = {k: v for k, v in m.shape.items() if k in FIELDS}
        base = {"kernel": m.kernel, "gpu": m.device, "dtype": m.dtype, "unit": "us",
                "derivation": "measured directly: the median of the timed runs",
                "source": f"playground bench --record, {when} ({m.method})",
                "quote": "", "clocks": getattr(m, "clocks", "") or "not read", **ran_on, **shape}
        modelled = f"; modelled {m.modelled.seconds * 1e6:.4g} us" if getattr(m, "modelled", None) else ""
        out.append({**base, "implementation": "triton", "config": m.config.replace(", ", ";"),
                    "figure": f"{m.triton.median_ms * 1e3:.6g}", "time_us": f"{m.triton.median_ms * 1e3:.6g}",
                    "notes": f"{m.checked}{modelled}"})
        if m.torch and not getattr(m, "baseline_shared", False):
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
