"""What many test files share: the CLI called in-process, and compiled kernels they all read."""
import re

import pytest
from click.testing import CliRunner

from playground.cli import main
from playground.core import registry
from playground.artefact.request import Request


def invoke(*args, **kwargs):
    """The CLI in-process, as a user would type it; returns click's Result (exit_code, stdout, stderr)."""
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


def run(*args, catch_exceptions: bool = True) -> tuple[int, str]:
    """The CLI in-process: (exit status, everything it printed, stdout and stderr together)."""
    result = invoke(*args, catch_exceptions=catch_exceptions)
    return result.exit_code, result.output


def outcome(*args) -> tuple[int, str, str]:
    """The CLI in-process: (exit status, stdout, stderr) apart."""
    result = invoke(*args)
    return result.exit_code, result.stdout, result.stderr


def xdist_group_of(nodeid: str) -> str:
    """The worker group of a test: its file, so a file's tests run on one worker in their order, as they
    would without xdist; only the tutorials' blocks are split, one group per lesson with its solutions
    (`test_block[11_fusion_roofline.md:12]`, `test_block[solutions/11_fusion.md:8]`), since a lesson's
    blocks may build on each other but lessons share nothing."""
    path, _, test = nodeid.partition("::")
    file = path.rpartition("/")[2]
    lesson = re.match(r"test_block\[(?:solutions/)?(\d\d)_", test)
    return f"lesson-{lesson.group(1)}" if file == "test_tutorials.py" and lesson else file


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`-n N --dist loadgroup` (scripts/test.sh) schedules by `xdist_group_of`. Not by `xdist_group` marks:
    xdist 3.8 passes a mark's group by appending it to the test's node id, which pytest 9.2 no longer
    lets it change, so the marks are silently ignored (pytest-dev/pytest-xdist#1386)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByFileAndLesson(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_group_of(nodeid)

    return ByFileAndLesson(config, log)


@pytest.fixture
def cli():
    return invoke


@pytest.fixture(scope="session")
def gemm_sm90():
    """gemm at its defaults (4096^3, fp16) compiled for sm_90: the kernel most figures are pinned on."""
    spec = registry.load("gemm")
    return Request.of(spec, "sm_90").compile()


@pytest.fixture(scope="session")
def vector_add_trace(tmp_path_factory):
    """A `playground run --trace` file of Triton's tutorial-01 script on a virtual sm_80 (needs torch)."""
    pytest.importorskip("torch")
    from pathlib import Path
    trace = tmp_path_factory.mktemp("trace") / "t.json"
    script = Path(__file__).resolve().parent / "data" / "scripts" / "vector_add_bench.py"
    code, output = run("run", "--target", "sm_80", "--trace", str(trace), str(script))
    assert code == 0, output
    return trace

