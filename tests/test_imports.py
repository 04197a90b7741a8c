"""A kernel file opens where it lies: inside a package (regular, namespace, src layout) as the package would
import it, an installed module by its dotted name, and a missing import named in one line."""
import sys
import types
import textwrap

import pytest
from conftest import invoke

from playground.core import imports, registry
from playground.errors import UserError

pytestmark = pytest.mark.compile

KERNEL = textwrap.dedent('''
    import triton
    import triton.language as tl
    {imports}

    @triton.jit
    def relu_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0) * SCALE, mask=mask)
''')
CONSTANT = "import triton.language as tl\nSCALE = tl.constexpr({})\n"   # a global a kernel may read
ARGS = "x_ptr=fp32[4096], y_ptr=fp32[4096], n=4096, BLOCK_SIZE=256"


def write(path, text=""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def clean_modules():
    """Packages these tests create are imported under their own names: forget them afterwards."""
    path = list(sys.path)
    yield
    for name in [n for n in sys.modules if n.startswith("kpkg")]:
        del sys.modules[name]
    sys.path[:] = path


def test_a_regular_package_whose_init_fails_imports_its_kernel_file_without_it(tmp_path, clean_modules):
    pkg = tmp_path / "proj" / "kpkg_regular"
    write(pkg / "__init__.py", "import a_model_library_not_installed\n")
    write(pkg / "utils.py", CONSTANT.format(2.0))
    file = write(pkg / "act.py", KERNEL.format(imports="from .utils import SCALE"))
    where = imports.placement(file)
    assert (where.module, where.root, where.kind) == ("kpkg_regular.act", tmp_path / "proj", "package")
    with pytest.warns(UserWarning, match=r"imported as kpkg_regular.act without running kpkg_regular/__init__.py "
                                         r"\(ModuleNotFoundError: No module named 'a_model_library_not_installed'\)"):
        spec = registry.load(f"{file}:relu_kernel", "sm_90", ARGS)
    assert spec.imported_as == f"kpkg_regular.act (package, root {tmp_path / 'proj'})"
    assert spec.kernel.fn.__module__ == "kpkg_regular.act"


def test_a_src_layout_namespace_package_imports_itself_by_its_absolute_name(tmp_path, clean_modules):
    ops = tmp_path / "repo" / "src" / "kpkg_ns" / "ops"
    write(ops / "utils.py", CONSTANT.format(2.0))
    file = write(ops / "rms.py", KERNEL.format(imports="from kpkg_ns.ops.utils import SCALE"))
    where = imports.placement(file)
    assert (where.module, where.root, where.kind) == ("kpkg_ns.ops.rms", tmp_path / "repo" / "src",
                                                      "namespace package")
    spec = registry.load(f"{file}:relu_kernel", "sm_90", ARGS)
    assert spec.kernel.fn.__module__ == "kpkg_ns.ops.rms"


def test_a_relative_import_without_init_files_reaches_as_far_up_as_its_level(tmp_path, clean_modules):
    deep = tmp_path / "repo" / "kpkg_ops" / "triton"
    write(tmp_path / "repo" / "kpkg_ops" / "common.py", CONSTANT.format(3.0))
    file = write(deep / "k.py", KERNEL.format(imports="from ..common import SCALE"))
    assert imports.placement(file) == imports.Placement("kpkg_ops.triton.k", tmp_path / "repo", "namespace package")
    assert registry.load(f"{file}:relu_kernel", "sm_90", ARGS).kernel.fn.__globals__["SCALE"].value == 3.0


def test_a_file_with_no_package_is_a_script_with_its_folder_on_the_path(tmp_path, clean_modules):
    write(tmp_path / "kpkg_helpers.py", CONSTANT.format(4.0))
    file = write(tmp_path / "script.py", KERNEL.format(imports="from kpkg_helpers import SCALE"))
    assert imports.placement(file) == imports.Placement(None, tmp_path, "script")
    spec = registry.load(f"{file}:relu_kernel", "sm_90", ARGS)
    assert spec.imported_as == "" and spec.kernel.fn.__globals__["SCALE"].value == 4.0


def test_an_installed_module_opens_by_its_dotted_name_without_running_package_inits(tmp_path, clean_modules,
                                                                                    monkeypatch):
    site = tmp_path / "site"
    write(site / "kpkg_inst" / "__init__.py", "raise RuntimeError('needs a GPU')\n")
    write(site / "kpkg_inst" / "ops" / "__init__.py")
    write(site / "kpkg_inst" / "ops" / "utils.py", CONSTANT.format(5.0))
    file = write(site / "kpkg_inst" / "ops" / "norm.py", KERNEL.format(imports="from .utils import SCALE"))
    monkeypatch.syspath_prepend(str(site))
    assert imports.locate("kpkg_inst.ops.norm") == (file, imports.Placement("kpkg_inst.ops.norm", site,
                                                                             "installed module"))
    with pytest.warns(UserWarning, match="without running kpkg_inst/__init__.py"):
        spec = registry.load("kpkg_inst.ops.norm:relu_kernel", "sm_90", ARGS)
    assert spec.source_path == str(file) and spec.kernel.fn.__globals__["SCALE"].value == 5.0


@pytest.mark.parametrize("ref,message", [
    ("kpkg_absent.ops:k", "no module named 'kpkg_absent'"),
    ("flash_attn.ops.triton.rotary:rotary_kernel", "no module named 'flash_attn' (pip install flash-attn)"),
    ("json.no_such_module:k", "no module named 'json.no_such_module'"),
])
def test_a_module_that_is_not_there_is_one_line(ref, message):
    with pytest.raises(UserError, match=message.replace("(", r"\(").replace(")", r"\)")):
        registry.load(ref, "sm_90", ARGS)


def test_a_missing_import_names_the_module_and_its_pip_package(tmp_path, clean_modules):
    pkg = tmp_path / "kpkg_missing"
    write(pkg / "__init__.py")
    third_party = write(pkg / "a.py", "import einops_not_installed_here\nimport flash_attn\n")
    sibling = write(pkg / "b.py", "from .not_written import x\n")
    with pytest.raises(UserError, match="needs the module 'einops_not_installed_here', which is not installed "
                                        "here$"):
        registry.load(f"{third_party}:k", "sm_90", ARGS)
    write(pkg / "c.py", "import flash_attn\n")
    with pytest.raises(UserError, match=r"needs the module 'flash_attn', which is not installed here "
                                        r"\(pip install flash-attn\)"):
        registry.load(f"{pkg / 'c.py'}:k", "sm_90", ARGS)
    with pytest.raises(UserError, match=f"imports kpkg_missing.not_written, which is not in {tmp_path}"):
        registry.load(f"{sibling}:k", "sm_90", ARGS)


def test_the_header_and_json_say_how_the_file_was_imported(tmp_path):
    pkg = tmp_path / "kpkg_header"
    write(pkg / "__init__.py")
    write(pkg / "utils.py", CONSTANT.format(2.0))
    file = write(pkg / "act.py", KERNEL.format(imports="from .utils import SCALE"))
    result = invoke("compile", f"{file}:relu_kernel", "--args", ARGS, "--target", "sm_90")
    assert result.exit_code == 0, result.stderr
    assert f", imported as kpkg_header.act (package, root {tmp_path})" in result.stdout.splitlines()[0]
    result = invoke("compile", f"{file}:relu_kernel", "--args", ARGS, "--target", "sm_90", "--json")
    import json
    assert json.loads(result.stdout)["imported_as"] == f"kpkg_header.act (package, root {tmp_path})"


def test_a_package_that_reaches_above_its_last_init_file_is_imported_from_the_folder_above(tmp_path, clean_modules):
    """unsloth's kernels/ has an __init__.py and imports `..device_type`; a copy without the top __init__.py is a
    namespace package one level up."""
    top = tmp_path / "repo" / "kpkg_up"
    write(top / "common.py", CONSTANT.format(6.0))
    write(top / "kernels" / "__init__.py")
    write(top / "kernels" / "utils.py", "from ..common import SCALE\n")
    file = write(top / "kernels" / "k.py", KERNEL.format(imports="from .utils import SCALE"))
    assert imports.placement(file).module == "kernels.k"
    spec = registry.load(f"{file}:relu_kernel", "sm_90", ARGS)
    assert spec.imported_as == f"kpkg_up.kernels.k (namespace package, root {tmp_path / 'repo'})"
    assert spec.kernel.fn.__globals__["SCALE"].value == 6.0


def test_a_package_name_this_process_has_imported_from_elsewhere_is_not_mixed_up(tmp_path, clean_modules, monkeypatch):
    """playground's own kernels are `playground.kernels`: a project's `kernels` package is free to import as
    itself. A second project's `kernels`, in the same process, is another package: widened to its folder's
    name where it can be, one clear line where it cannot."""
    registry.load("gemm")
    assert "kernels" not in sys.modules and registry.load("gemm").source_path.endswith("kernels/gemm.py")
    first = tmp_path / "repo" / "kernels"
    write(first / "__init__.py")
    write(first / "utils.py", CONSTANT.format(7.0))
    spec = registry.load(f"{write(first / 'k.py', KERNEL.format(imports='from .utils import SCALE'))}:relu_kernel",
                         "sm_90", ARGS)
    assert spec.imported_as.startswith("kernels.k (package") and spec.kernel.fn.__globals__["SCALE"].value == 7.0
    top = tmp_path / "repo2" / "kpkg_clash"                     # a second project's `kernels`, same file names
    write(top / "kernels" / "__init__.py")
    write(top / "kernels" / "utils.py", CONSTANT.format(3.0))
    file = write(top / "kernels" / "k.py", KERNEL.format(imports="from .utils import SCALE"))
    spec = registry.load(f"{file}:relu_kernel", "sm_90", ARGS)
    assert spec.kernel.fn.__globals__["SCALE"].value == 3.0
    assert spec.imported_as.startswith("kpkg_clash.kernels.k (namespace package")
    other = types.ModuleType("kernels")               # another package's `kernels` (Hugging Face's), imported here
    other.__path__ = [str(tmp_path / "site-packages" / "kernels")]
    monkeypatch.setitem(sys.modules, "kernels", other)
    alone = tmp_path / "not-a-name" / "kernels" / "k.py"        # nothing above to widen to: one clear line
    write(tmp_path / "not-a-name" / "kernels" / "__init__.py")
    write(alone, KERNEL.format(imports="SCALE = 1"))
    with pytest.raises(UserError, match="imports as kernels.k, but the name kernels is .* in this process"):
        registry.load(f"{alone}:relu_kernel", "sm_90", ARGS)
    assert sys.modules["kernels"] is other


def test_an_edited_copy_of_a_package_file_imports_from_its_package(tmp_path, clean_modules):
    """The page's editor compiles edits from a scratch copy: the copy's relative imports still reach the
    original's package, and the original stays as it was."""
    from playground.web.workspace import Workspace
    pkg = tmp_path / "kpkg_edit"
    write(pkg / "__init__.py")
    write(pkg / "utils.py", CONSTANT.format(2.0))
    file = write(pkg / "act.py", KERNEL.format(imports="from .utils import SCALE"))
    workspace = Workspace(f"{file}:relu_kernel", "sm_90", ARGS)
    try:
        edited = file.read_text().replace("tl.maximum(", "tl.minimum(")
        page = workspace.compile({"source": edited, "target": "sm_90"})
        assert "error" not in page, page.get("error")
        assert "arith.minnumf" in workspace.request({"source": edited}).compile().stage("ttir")
        assert "tl.maximum(" in file.read_text()
    finally:
        workspace.close()


def test_a_package_copied_without_its_top_init_file_imports_from_its_projects_root(tmp_path, clean_modules):
    """flash-attention's flash_attn/__init__.py needs its compiled extension; a checkout without it still
    imports flash_attn.ops... from the repository's root (a LICENSE, pyproject.toml, .git: a project's root)."""
    repo = tmp_path / "checkout"
    write(repo / "LICENSE", "BSD\n")
    write(repo / "kpkg_fa" / "ops" / "__init__.py")
    write(repo / "kpkg_fa" / "ops" / "utils.py", CONSTANT.format(8.0))
    file = write(repo / "kpkg_fa" / "ops" / "rotary.py", KERNEL.format(imports="from .utils import SCALE"))
    assert imports.placement(file) == imports.Placement("kpkg_fa.ops.rotary", repo, "package")
    (repo / "LICENSE").unlink()                       # no root near: the package is what its __init__.py files say
    assert imports.placement(file) == imports.Placement("ops.rotary", repo / "kpkg_fa", "package")
