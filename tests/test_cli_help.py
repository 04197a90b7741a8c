"""Every command answers --help, and the target list in the help is the target table itself."""
import json

import pytest
from conftest import invoke

from playground.cli import main
from playground.core import devices, targets

pytestmark = pytest.mark.compile

COMMANDS = main.list_commands(None)


def test_the_commands_are_the_ones_the_readme_tours():
    assert COMMANDS == ["bench", "check", "compile", "diff", "fuse", "grid", "inspect", "list", "occupancy", "puzzle",
                        "run", "schema", "serve", "sweep", "targets"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help(command):
    r = invoke(command, "--help")
    assert r.exit_code == 0 and r.stdout.startswith(f"Usage: main {command}") and "--debug" in r.stdout


def test_target_help_lists_every_target():
    r = invoke("compile", "--help")
    flat = " ".join(r.stdout.split())
    assert ", ".join(targets.TARGETS) in flat


def test_targets_json_is_the_device_table():
    r = invoke("targets", "--json")
    rows = {row["target"]: row for row in json.loads(r.stdout)}
    assert r.exit_code == 0 and list(rows) == [*targets.TARGETS, *devices.VARIANTS]
    assert all(row["arch"] == t for t, row in rows.items() if t in targets.TARGETS)
    assert (rows["l40s"]["arch"], rows["l40s"]["gpu"], rows["l40s"]["num_sms"], rows["l40s"]["max_warps_per_sm"]) \
        == ("sm_89", "L40S", 142, 48)                          # its own SMs; Ada's per-SM limits
    h100, mi300x = rows["sm_90"], rows["gfx942"]
    assert (h100["gpu"], h100["num_sms"], h100["registers_per_sm"], h100["shared_per_block"]) == \
        ("H100 SXM5 80GB", 132, 65536, 227 * 1024)
    # 512 VGPRs per lane x 64 lanes x 4 SIMDs: 131072 32-bit registers per CU.
    assert (mi300x["num_sms"], mi300x["warp_size"], mi300x["registers_per_sm"]) == (304, 64, 131072)
    assert all(row["memory_bytes"] == devices.get(t).memory_bytes > 0 for t, row in rows.items())
    # AMD's Infinity Cache, where a part has one (CDNA 3 white paper, MI355X and RX 7900 XTX spec pages)
    assert {t: row["infinity_cache_bytes"] // 2**20 for t, row in rows.items() if row["infinity_cache_bytes"]} == \
        {"gfx942": 256, "gfx950": 256, "gfx1100": 96, "mi325x": 256}
    # CDNA3 and CDNA4: an L2 per XCD; only MI300X's Infinity Cache bandwidth is published (CDNA3 white paper), and
    # the MI325X, on the same I/O dies, is taken to have it
    assert {t: (row["l2_partitions"], row["infinity_cache_gbs"]) for t, row in rows.items() if row["l2_partitions"] > 1} \
        == {"gfx942": (8, 17200.0), "gfx950": (8, 0.0), "mi325x": (8, 17200.0)}
    # the clocks AMD measured an MI300X and MI325X holding under dense GEMM; no other part has a published figure
    assert {t: row["matrix_clock_ghz"] for t, row in rows.items() if row["matrix_clock_ghz"]} == \
        {"gfx942": {"fp16": 1.115, "bf16": 1.207, "fp8": 1.230}, "mi325x": {"fp16": 1.354, "bf16": 1.447, "fp8": 1.464}}


def test_which_commands_import_torch():
    """The compile path never imports torch (seconds to load, and not installed by `pip install -e .`);
    only check and bench, which run kernels, may."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    runs = [["list"], ["targets"], ["compile", "vector_add", "--target", "sm_90"],
            ["grid", "gemm", "--target", "sm_90"], ["occupancy", "softmax", "--target", "gfx942"],
            ["inspect", "vector_add", "--target", "sm_90"],
            ["diff", "vector_add", "--target", "sm_90", "--a", "num_warps=2", "--b", "num_warps=4"],
            ["compile", "gemm", "--target", "sm_90", "--expect", "spills == 0"]]
    code = ("import sys, json; from conftest import invoke\n"
            f"for args in {runs!r}:\n"
            "    r = invoke(*args)\n"
            "    assert r.exit_code == 0, (args, r.stderr)\n"
            "print(json.dumps('torch' in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                          env={**os.environ, "PYTHONPATH": f"{root}:{root / 'tests'}"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "false"
