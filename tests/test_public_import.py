"""A kernel file's one import: `from playground import KernelSpec, Tensor, cdiv`.

core/spec.py is where the names are defined, not a path to promise, so every kernel file the project
ships, teaches or tests with names the package; `playground.spec`, the path before the reshape, still
works and says it is deprecated.
"""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KERNEL_FILES = sorted([*ROOT.glob("kernels/*.py"), *ROOT.glob("examples/**/*.py"), *ROOT.glob("tutorials/solutions/*.py"),
                       *ROOT.glob("tests/planted/*.py"), *ROOT.glob("tests/broken_kernels/*.py")])


def test_the_package_exports_the_spec_names_themselves():
    import playground
    from playground import KernelSpec, Tensor, cdiv
    from playground.core import spec
    assert (KernelSpec, Tensor, cdiv) == (spec.KernelSpec, spec.Tensor, spec.cdiv)
    assert {"KernelSpec", "Tensor", "cdiv"} <= set(playground.__all__)


def test_the_old_path_warns_and_gives_the_same_names():
    # a fresh interpreter: in this one the module may be imported already, and a second import is silent
    code = ("import warnings; warnings.simplefilter('error', FutureWarning)\n"
            "try:\n    import playground.spec\nexcept FutureWarning as w:\n    print('warned:', w)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.startswith("warned:") and "from playground import KernelSpec" in out
    code = ("import warnings; warnings.simplefilter('ignore', FutureWarning)\n"
            "import playground, playground.spec as old\n"
            "assert (old.KernelSpec, old.Tensor, old.cdiv) == (playground.KernelSpec, playground.Tensor, playground.cdiv)\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def _spec_imports(path: Path) -> list[str]:
    """The modules `path` takes KernelSpec from."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and any(a.name == "KernelSpec" for a in node.names)]


@pytest.mark.parametrize("path", [p for p in KERNEL_FILES if "KernelSpec(" in p.read_text()],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_kernel_file_imports_the_spec_from_the_package(path):
    assert _spec_imports(path) == ["playground"], f"{path.name}: write `from playground import KernelSpec, Tensor, cdiv`"


def test_a_kernel_file_on_the_old_path_loads_and_its_author_is_told(tmp_path):
    """The command line shows the warning by default, as one line, and compiles the file as before."""
    mine = tmp_path / "old_style.py"
    mine.write_text((ROOT / "examples" / "my_kernels.py").read_text().replace(
        "from playground import KernelSpec", "from playground.spec import KernelSpec"))
    assert "from playground.spec import" in mine.read_text()
    code = (f"import sys; sys.argv = ['playground', 'compile', {str(mine) + ':my_kernel'!r}, '-t', 'sm_80', '--show', 'ttir']\n"
            "from cli import main; main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and "tt.func" in done.stdout
    assert "warning: playground.spec is deprecated: write `from playground import KernelSpec, Tensor, cdiv`" \
        in done.stderr.splitlines()
