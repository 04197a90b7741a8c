"""`bench --record FILE`: measured rows appended to a file in the validation set's format
(benchmarks/data/measured.csv), so that every run on a GPU adds to the data the model is checked against.

Only measurements are recorded: a modelled point is refused, so the set never holds the model's own
figures. The file is only ever appended to; an existing file must have the set's header.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

from ..errors import UserError

FIELDS = ("kernel", "implementation", "gpu", "M", "N", "K", "Z", "H", "N_CTX", "D", "dtype", "config", "figure",
          "unit", "time_us", "derivation", "source", "quote", "notes")


def rows(result) -> list[dict]:
    """One row for the Triton kernel and one for the PyTorch baseline, per measured point."""
    if result.kind != "measured":
        raise UserError(f"--record keeps measurements only, and this run is modelled ({result.reason})")
    from .. import __version__
    out = []
    for m in result.points:
        shape = {k: v for k, v in m.shape.items() if k in FIELDS}
        base = {"kernel": m.kernel, "gpu": m.device, "dtype": m.dtype, "unit": "us",
                "derivation": "measured directly: the median of the timed runs",
                "source": f"playground bench --record ({m.method}), playground {__version__}",
                "quote": "", **shape}
        modelled = f"; modelled {m.modelled.seconds * 1e6:.4g} us" if getattr(m, "modelled", None) else ""
        out.append({**base, "implementation": "triton", "config": m.config.replace(", ", ";"),
                    "figure": f"{m.triton.median_ms * 1e3:.6g}", "time_us": f"{m.triton.median_ms * 1e3:.6g}",
                    "notes": f"{m.checked}{modelled}"})
        if m.torch:
            out.append({**base, "implementation": "torch", "config": "", "notes": m.baseline,
                        "figure": f"{m.torch.median_ms * 1e3:.6g}", "time_us": f"{m.torch.median_ms * 1e3:.6g}"})
    return out


def append(path: str | Path, result) -> int:
    """Append the result's rows to `path` (creating it with the header); the number of rows written."""
    new = rows(result)
    path = Path(path)
    if path.exists() and path.stat().st_size:
        with open(path, newline="") as f:
            header = next(csv.reader(f), [])
        if tuple(header) != FIELDS:
            raise UserError(f"--record {path}: its header is not the validation set's "
                            f"({','.join(FIELDS)}); nothing was written")
        prefix = ""
    else:
        prefix = ",".join(FIELDS) + "\n"
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
    for row in new:
        writer.writerow({k: row.get(k, "") for k in FIELDS})
    with open(path, "a", newline="") as f:     # append only: what the file held stays as it was
        f.write(prefix + buf.getvalue())
    return len(new)
