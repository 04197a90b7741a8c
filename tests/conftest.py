"""What many test files share: the CLI called in-process, and compiled kernels they all read."""
import pytest
from click.testing import CliRunner

from cli import main
from playground.core import registry
from playground.core.request import Request


def invoke(*args, **kwargs):
    """The CLI in-process, as a user would type it; returns click's Result (exit_code, stdout, stderr)."""
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


@pytest.fixture
def cli():
    return invoke


@pytest.fixture(scope="session")
def gemm_sm90():
    """gemm at its defaults (4096^3, fp16) compiled for sm_90: the kernel most figures are pinned on."""
    spec = registry.load("gemm")
    return Request.of(spec, "sm_90").compile()
