"""The library's errors name its own parameters; the command line shows them as the flags the user typed, so
the page and a notebook never speak of flags nobody typed there."""
import ast
from pathlib import Path

import pytest
from conftest import outcome

from playground.artefact.request import Request
from playground.errors import UserError

pytestmark = pytest.mark.compile
ROOT = Path(__file__).resolve().parents[1]


def test_the_library_names_the_parameter():
    with pytest.raises(UserError) as e:
        Request.of("gemm", "sm_90", shape={"Q": 1})
    assert str(e.value).startswith("shape Q: gemm has dimensions M, N, K") and e.value.param == "shape"
    with pytest.raises(UserError) as e:
        Request.of("vector_add", "sm_90", meta={"num_warps": 8})
    assert str(e.value) == "meta num_warps: a launch setting, not a meta-parameter: use `num_warps` 8"


@pytest.mark.parametrize("args,line", [
    (["compile", "gemm", "-t", "sm_90", "--shape", "Q=1"], "error: --shape Q: gemm has dimensions M, N, K"),
    (["compile", "vector_add", "-t", "sm_90", "--meta", "num_warps=8"],
     "error: --meta num_warps: a launch setting, not a meta-parameter: use --num-warps 8"),
    (["grid", "gemm", "-t", "sm_90", "--num-sms", "0"], "error: --num-sms 0: must be a positive integer"),
    (["compile", "gemm", "-t", "sm_90", "--shape", "M"], "error: --shape 'M': expected NAME=VALUE, as in --shape M=4096"),
    (["diff", "gemm", "-t", "sm_90", "--a", "nope=1", "--b", "num_warps=8"], "error: --a nope: not one of"),
])
def test_the_command_line_shows_the_flag(args, line):
    code, out, err = outcome(*args)
    assert code == 2 and err.startswith(line) and len(err.splitlines()) == 1, err


def test_a_flag_the_command_lacks_stays_a_name():
    """`check` has no --args: the registry's hint about a bare kernel's arguments is not turned into a flag."""
    from playground import errors
    e = errors.UserError("args x: given twice, as in `args` x=1", param="args")
    assert e.naming({"args": "--args"}.get) == "--args x: given twice, as in --args x=1"
    assert e.naming({}.get) == "args x: given twice, as in `args` x=1"


def test_no_library_error_is_written_in_flags():
    """Every UserError raised below the command line starts with words, not with a flag (`--shape`)."""
    flagged = []
    for path in (ROOT / "playground").rglob("*.py"):
        if path.parent.name == "commands":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "UserError" and node.args:
                first = node.args[0]
                piece = first.values[0] if isinstance(first, ast.JoinedStr) and first.values else first
                if isinstance(piece, ast.Constant) and str(piece.value).startswith("--"):
                    flagged.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert flagged == []
