"""What many test files share: the CLI called in-process, and compiled kernels they all read."""
import pytest
from click.testing import CliRunner

from cli import main
from playground.core import registry
from playground.core.request import Request


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


def pytest_collection_modifyitems(items):
    """Groups for pytest-xdist (`-n`, which scripts/test.sh uses): a file's tests run on one worker, in their
    order, as they would without xdist; only the tutorials' blocks are split, one group per lesson (with its
    solutions), since a lesson's blocks may build on each other but lessons do not share state."""
    for item in items:
        group = item.path.name
        block = getattr(getattr(item, "callspec", None), "params", {}).get("block")
        if item.path.name == "test_tutorials.py" and block is not None:
            group = f"lesson-{block.path.name[:2]}"
        item.add_marker(pytest.mark.xdist_group(group))


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
