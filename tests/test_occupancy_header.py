"""The NVIDIA calculator against NVIDIA's own: cuda_occupancy.h, compiled with the host compiler.

The header ships with the CUDA toolkit; where it (or a C++ compiler) is missing, these tests skip.
Every device in the table and a grid of block shapes must give the same blocks per SM.
"""
import itertools
import shutil
import subprocess
from pathlib import Path

import pytest

from playground.core import devices
from playground.figures import occupancy

HEADER_DIRS = [Path("/usr/local/cuda/include"), *sorted(Path("/usr/local").glob("cuda-*/include"))]
ORACLE_SOURCE = Path(__file__).resolve().parent / "data" / "occupancy_oracle.cpp"
NVIDIA = [t for t, d in devices.DEVICES.items() if d.is_nvidia]


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    include = next((d for d in HEADER_DIRS if (d / "cuda_occupancy.h").exists()), None)
    compiler = shutil.which("g++") or shutil.which("c++")
    if include is None or compiler is None:
        pytest.skip("needs the CUDA toolkit's cuda_occupancy.h and a C++ compiler")
    binary = tmp_path_factory.mktemp("oracle") / "occupancy_oracle"
    subprocess.run([compiler, "-O1", f"-I{include}", str(ORACLE_SOURCE), "-o", str(binary)], check=True)

    def ask(queries: list[tuple]) -> list[int]:
        lines = "".join(" ".join(map(str, q)) + "\n" for q in queries)
        out = subprocess.run([str(binary)], input=lines, capture_output=True, text=True, check=True).stdout
        return [int(x) for x in out.split()]
    return ask


def _query(d, threads, regs, smem):
    major, minor = divmod(int(d.target.split("_")[1]), 10)
    return (major, minor, threads, regs, smem, d.max_threads_per_sm, d.regs_per_sm, d.regs_per_block,
            d.shared_per_sm, d.shared_per_block, d.shared_per_block_optin, d.shared_reserved_per_block)


@pytest.mark.parametrize("target", NVIDIA)
def test_blocks_per_sm_match_cuda_occupancy_h(oracle, target):
    d = devices.get(target)
    shapes = list(itertools.product((32, 64, 128, 256, 384, 512, 1024), (16, 32, 40, 41, 64, 96, 128, 168, 255),
                                    (0, 1, 16 * 1024, 33025, 45569, 98304, d.shared_per_block_optin)))
    theirs = oracle([_query(d, *s) for s in shapes])
    ours = [occupancy.compute(d, *s).active_blocks_per_sm for s in shapes]
    wrong = [(s, o, t) for s, o, t in zip(shapes, ours, theirs) if o != t]
    assert not wrong, f"{target}: (threads, regs, smem), ours, cuda_occupancy.h: {wrong[:5]}"


def test_the_oracle_can_disagree(oracle):
    """A table with the wrong block cap (sm_120 at 32, as the guide's table has it) is caught."""
    import dataclasses
    d = dataclasses.replace(devices.get("sm_120"), max_blocks_per_sm=32)
    (theirs,) = oracle([_query(d, 32, 16, 0)])
    assert theirs == 24 and occupancy.compute(d, 32, 16, 0).active_blocks_per_sm == 32
