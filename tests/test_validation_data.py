"""benchmarks/data/measured.csv, the model's validation set: every row cited, quoted, and its time the
published figure converted by the kernel's own FLOP or byte count; the format `bench --record` writes."""
import csv
import sys
from pathlib import Path

import pytest

from playground.bench import record

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data" / "measured.csv"
ELEM = {"fp32": 4, "fp16": 2, "bf16": 2}


def rows():
    with open(DATA, newline="") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames) == record.FIELDS
        return list(reader)


def expected_us(row) -> float:
    """The row's time from its published figure: a time as is, a rate through the kernel's count."""
    kernel, unit, figure = row["kernel"], row["unit"], float(row["figure"])
    n = lambda c: int(row[c])   # noqa: E731
    if unit in ("ms", "us"):
        return figure * (1000 if unit == "ms" else 1)
    if kernel == "gemm" and unit == "TFLOP/s":
        return 2 * n("M") * n("N") * n("K") / (figure * 1e12) * 1e6
    if kernel == "flash_attention" and unit == "TFLOP/s":
        flops = 4 * n("Z") * n("H") * n("N_CTX") ** 2 * n("D") * (0.5 if "causal, half" in row["derivation"] else 1)
        return flops / (figure * 1e12) * 1e6
    if kernel == "softmax" and unit == "GB/s":
        return 2 * n("M") * n("N") * ELEM[row["dtype"]] / (figure * 1e9) * 1e6
    if kernel == "vector_add" and unit == "GB/s":
        return 3 * n("N") * ELEM[row["dtype"]] / (figure * 1e9) * 1e6
    raise AssertionError(f"no conversion for {kernel} in {unit}")


def test_every_row_is_cited_quoted_and_converted_by_its_kernels_count():
    data = rows()
    assert len(data) >= 200
    for line, row in enumerate(data, 2):
        for column in ("kernel", "implementation", "gpu", "dtype", "source", "quote"):
            assert row[column].strip(), (line, column)
        assert row["source"].startswith("https://"), line
        assert row["figure"] in row["quote"], (line, "the figure must appear in the quoted table row")
        assert float(row["time_us"]) == pytest.approx(expected_us(row), rel=1e-3, abs=1e-3), line


def test_the_accuracy_script_finds_launch_bound_rows_in_the_sources_own_numbers():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import model_accuracy
    finally:
        sys.path.pop(0)
    flat = [{"kernel": "gemm", "M": m, "N": m, "K": m, "time_us": t, "source": "s", "gpu": "H100",
             "implementation": "triton", "dtype": "fp16"} for m, t in (("512", "80"), ("1024", "84"), ("4096", "600"))]
    assert model_accuracy.host_bound(flat) == {0}            # 8x the work in 5% more time: host-bound
    assert model_accuracy.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert model_accuracy.spearman([1, 2, 3, 4], [40, 30, 20, 10]) == pytest.approx(-1.0)
    assert model_accuracy.spearman([1, 2], [1, 2]) is None
    assert model_accuracy.gpu_of("NVIDIA H100 NVL")[1].mem_bandwidth_gbs == 3900.0
    assert model_accuracy.gpu_of("A100-SXM4-40GB")[1].mem_bandwidth_gbs == 1555.0
    assert model_accuracy.gpu_of("H100 PCIe")[1].num_sms == 114
    assert model_accuracy.gpu_of("NVIDIA GeForce RTX 3090")[0] == "sm_86"
    assert model_accuracy.gpu_of("NVIDIA H100 80GB HBM3")[1].name == "H100 SXM5 80GB"   # nvidia-smi's SXM5 name
    assert model_accuracy.gpu_of("NVIDIA GH200 SXM") == (None, None)       # no device row: left out, said so
