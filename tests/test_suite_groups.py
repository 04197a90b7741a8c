"""The suite's own scheduling under pytest-xdist: a file's tests share a worker, a lesson's blocks share one.

Tests rely on it (test_fuse's cache, the Ray tests' /tmp folders), and it once failed silently: xdist's
`xdist_group` marks stopped working with pytest 9.2, and the tests were scattered across workers.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import xdist_group_of

ROOT = Path(__file__).resolve().parent.parent


def test_a_group_is_a_file_or_a_lesson_with_its_solutions():
    assert xdist_group_of("tests/test_fuse.py::test_plan[gemm]") == "test_fuse.py"
    assert xdist_group_of("tests/test_tutorials.py::test_block[11_fusion_roofline.md:12]") == "lesson-11"
    assert xdist_group_of("tests/test_tutorials.py::test_block[solutions/11_fusion.md:8]") == "lesson-11"
    assert xdist_group_of("tests/test_tutorials.py::test_block[README.md:61]") == "test_tutorials.py"
    assert xdist_group_of("tests/test_tutorials.py::test_exercise_blocks_run_on_the_solution_and_the_start") \
        == "test_tutorials.py"


def test_two_workers_run_one_files_tests_on_one_worker():
    # Without the grouping, xdist deals these three tests out to both workers.
    tests = [f"tests/test_lexers.py::{name}" for name in
             ("test_no_color_env", "test_colour_only_when_asked", "test_sass_opcodes_and_registers_are_told_apart")]
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v",
                           "-p", "no:cacheprovider", *tests], capture_output=True, text=True, cwd=ROOT,
                          env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")})
    assert done.returncode == 0, done.stdout + done.stderr
    workers = re.findall(r"^\[(gw\d)\] .*PASSED", done.stdout, re.M)
    assert len(workers) == 3 and len(set(workers)) == 1, done.stdout
