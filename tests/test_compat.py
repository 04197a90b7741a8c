"""The releases playground works with: one line for any other, naming it and the range; and the reaches into
torch's internals, on whichever torch this suite runs (the pinned CPU build, or the stack stage's CUDA build)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

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
    ("torch", "2.10.0", "torch 2.10.0 is not supported: playground works with torch 2.11 to 2.14 (2.15 untested)"),
    ("torch", "2.16.0.dev20261201+cpu", "torch 2.16.0.dev20261201+cpu is not supported: playground works with torch 2.11 to 2.14 (2.15 untested)"),
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


# ---- every reach into a private internal goes through compat --------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
# modules of Triton's that are its internals although no part of their name starts with "_"
PRIVATE_MODULES = ("triton.runtime.interpreter", "triton.runtime.driver", "triton.runtime.jit", "triton.runtime.cache",
                   "triton.compiler.compiler", "triton.backends.driver", "triton.backends.nvidia.compiler",
                   "triton.backends.amd.compiler")


def private(path: str) -> bool:
    """torch._C, torch.utils._pytree, torch.Tensor._make_subclass, triton.runtime.jit: a path into torch or Triton
    with a private part (a leading underscore, not a dunder), or into one of Triton's internal modules."""
    parts = path.split(".")
    return parts[0] in ("torch", "triton") and (
        any(p.startswith("_") and not p.startswith("__") for p in parts[1:])
        or any(path == m or path.startswith(m + ".") for m in PRIVATE_MODULES))


def dotted(node) -> str | None:
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(names)]) if isinstance(node, ast.Name) else None


def private_reaches(source: str) -> list[tuple[int, str]]:
    """(line, path) of each private torch or Triton path the source imports or names in an attribute chain."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            paths = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            paths = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Attribute):
            paths = [dotted(node) or ""]
        else:
            continue
        found += [(node.lineno, p) for p in paths if private(p)]
    return found


def test_the_scan_sees_private_reaches():
    """The parser finds what it should, or a scan that finds nothing would pass."""
    source = ("import torch._dynamo\nfrom triton.runtime import driver\nfrom triton.runtime.interpreter import "
              "TensorHandle\nwith torch._C.DisableTorchFunction(): pass\nx = torch.Tensor._make_subclass\n"
              "import torch.nn, triton.language as tl\ny = torch.cuda.is_available() and torch.__version__\n")
    assert {p for _, p in private_reaches(source)} >= {
        "torch._dynamo", "triton.runtime.driver", "triton.runtime.interpreter.TensorHandle",
        "torch._C.DisableTorchFunction", "torch.Tensor._make_subclass"}
    assert not [p for _, p in private_reaches(source) if p.startswith(("torch.nn", "triton.language", "torch.cuda"))]
    assert private_reaches((ROOT / "playground/compat.py").read_text())     # compat itself does reach


def test_no_module_but_compat_reaches_into_a_private_internal():
    """Every private torch or Triton name playground reads or patches is a row of compat.REACHES (or one of its
    accessors), which names the releases it was read from and fails in one line on a release without it."""
    found = [f"{path.relative_to(ROOT)}:{line}: {name}"
             for path in sorted((ROOT / "playground").rglob("*.py")) if path != ROOT / "playground/compat.py"
             for line, name in private_reaches(path.read_text())]
    assert not found, "go through playground/compat.py:\n" + "\n".join(found)


def test_every_reach_resolves_on_the_installed_stack():
    """Each row of REACHES, and each name it needs, is there on this torch and this Triton (in a child: the rows
    import Inductor and Dynamo, which this process should not carry)."""
    pytest.importorskip("torch")
    code = ("from playground import compat\n"
            "for name in compat.REACHES:\n"
            "    if compat.available(name): compat.reach(name)\n"
            "import torch.autograd\n"
            "assert callable(compat.function_apply(torch.autograd.Function))\n"
            "assert compat.saved_tensors_property() is not None and isinstance(compat.function_mode_stack(), list)\n"
            "with compat.disable_torch_function(): pass\n"
            "print(len(compat.REACHES))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) == len(compat.REACHES) > 20


def test_a_reach_newer_than_the_installed_release_says_which_release_has_it(monkeypatch):
    from playground import versions
    monkeypatch.setattr(versions, "package_version", lambda name: "3.6.0")
    assert not compat.available("expand_signature")
    with pytest.raises(UserError, match=r"^a tensor descriptor's parameters .* needs triton 3\.8 or newer "
                                        r"\(triton\.backends\.driver\.expand_signature\); this is triton 3\.6\.0$"):
        compat.reach("expand_signature")


def test_a_reach_the_release_lacks_is_one_line_naming_it_and_the_range(monkeypatch):
    for name, row in (("gone", ("triton.runtime", "no_such_name")), ("lacking", ("triton", None, ("no_such",))),
                      ("no_module", ("triton.no_such_module", None))):
        module, attribute, *needs = row
        monkeypatch.setitem(compat.REACHES, name, compat.Reach(module, attribute, compat.TRITON, "a test", *needs))
    for name, says in (("gone", "has no triton.runtime.no_such_name"), ("no_module", "has no triton.no_such_module")):
        with pytest.raises(compat.UnsupportedVersion) as caught:
            compat.reach(name)
        message = str(caught.value)
        assert says in message and "(read from Triton 3.6 to 3.9, for a test)" in message and "\n" not in message
        assert message.startswith("triton ") and message.endswith("playground works with triton 3.6 to 3.9")
    with pytest.raises(compat.UnsupportedVersion, match=r"^triton \S+ has no triton\.no_such \(read from Triton 3.6"):
        compat.reach("lacking")
