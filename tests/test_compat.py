"""The releases playground works with: one line for any other, naming it and the range; and the reaches into
torch's internals, on whichever torch this suite runs (the pinned CPU build, or the stack stage's CUDA build)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from playground import compat
from playground.errors import UserError

pytestmark = pytest.mark.stack


@pytest.mark.parametrize("package, version", [("torch", "2.11.0"), ("torch", "2.14.1+cu130"),
                                              ("triton", "3.6.0"), ("triton", "3.9.0")])
def test_the_supported_releases_pass(package, version, recwarn):
    assert compat.check(package, version) == version
    assert not recwarn.list


def test_a_release_newer_than_the_tests_have_run_on_passes_with_a_warning():
    with pytest.warns(UserWarning, match=r"^torch 2.15.0 is newer than any release playground's tests have run on"):
        assert compat.check("torch", "2.15.0") == "2.15.0"


@pytest.mark.parametrize("package, version, names", [
    ("torch", "2.10.0", "torch 2.10.0 is not supported: playground works with torch 2.11 to 2.15"),
    ("torch", "2.16.0.dev20261201+cpu", "torch 2.16.0.dev20261201+cpu is not supported: playground works with torch 2.11 to 2.15"),
    ("triton", "3.5.1", "triton 3.5.1 is not supported: playground works with triton 3.6 to 3.9"),
    ("triton", "3.10.0", "triton 3.10.0 is not supported: playground works with triton 3.6 to 3.9")])
def test_another_release_is_one_line_naming_it_and_the_range(package, version, names):
    with pytest.raises(UserError) as caught:
        compat.check(package, version)
    assert str(caught.value).startswith(names) and "\n" not in str(caught.value)
    assert caught.value.exit_code == 2


def test_the_installed_stack_is_supported():
    torch = pytest.importorskip("torch")
    import triton
    assert compat.check_torch() == torch.__version__ and compat.check("triton") == triton.__version__


def test_importing_compat_imports_neither_torch_nor_triton():
    code = "import sys, playground.compat; print(sorted(m for m in ('torch', 'triton') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_function_apply_is_the_one_autograd_subclasses_inherit():
    """torch 2.13 defines Function.apply in Python; 2.14 assigns C's classmethod_descriptor (no __func__): the
    unbound apply must run a subclass's forward and backward on either."""
    torch = pytest.importorskip("torch")

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    apply = compat.function_apply(torch.autograd.Function)
    x = torch.ones(3, requires_grad=True)
    y = apply(Double, x)
    y.sum().backward()
    assert y.tolist() == [2.0, 2.0, 2.0] and x.grad.tolist() == [2.0, 2.0, 2.0]
    assert isinstance(compat.function_mode_stack(), list)
