"""Request: the one place a compile is put together (kernel, target, overrides -> config -> binary)."""
import re
from pathlib import Path

import pytest

from playground.core.config import resolve_config
from playground.core import registry, targets
from playground.artefact.request import Request
from playground.errors import UserError

pytestmark = pytest.mark.compile
ROOT = Path(__file__).resolve().parent.parent


def test_of_resolves_what_the_steps_resolve():
    request = Request.of("softmax", "sm_80", shape={"N": 4096}, num_stages=2)
    assert request.target is targets.TARGETS["sm_80"]
    assert request.config == resolve_config(registry.load("softmax"), None, None, 2, {"N": 4096})
    # softmax's heuristics: the row in one block, 8 warps for a 4096-wide row
    assert request.config.meta["BLOCK_SIZE"] == 4096 and request.config.num_warps == 8
    assert request.overrides == {"num_stages": 2, "shape": {"N": 4096}}


def test_from_options_parses_the_command_lines_strings():
    request = Request.from_options("gemm", "sm_90", ("BLOCK_SIZE_M=64", "BLOCK_SIZE_N=32"), 8, None,
                                   ("M=1000,N=512",), "fp16")
    assert request == Request.of("gemm", "sm_90", {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 32}, 8, None,
                                 {"M": 1000, "N": 512}, "fp16")
    assert request.config.shape["M"] == 1000 and request.config.meta["BLOCK_SIZE_N"] == 32


def test_changed_resolves_again_as_a_fresh_command_line_would():
    narrow = Request.of("softmax", "sm_90", shape={"N": 1024})
    wide = narrow.changed(shape={"N": 16384})
    # the heuristics follow the new shape; nothing of the old resolution sticks
    assert wide.config == Request.of("softmax", "sm_90", shape={"N": 16384}).config
    assert (narrow.config.meta["BLOCK_SIZE"], wide.config.meta["BLOCK_SIZE"]) == (1024, 16384)
    # what the user set stays set, and meta-parameters merge
    pinned = Request.of("gemm", "sm_90", {"BLOCK_SIZE_M": 64}, num_warps=8)
    both = pinned.changed(meta={"BLOCK_SIZE_K": 32}, target="sm_80")
    assert both.config.meta["BLOCK_SIZE_M"] == 64 and both.config.meta["BLOCK_SIZE_K"] == 32
    assert both.config.num_warps == 8 and both.target.name == "sm_80"
    assert pinned.config.meta.get("BLOCK_SIZE_K") != 32, "the original is unchanged"


def test_bad_input_is_the_users_error_before_any_compile():
    with pytest.raises(UserError, match="unknown kernel"):
        Request.of("gemmm")
    with pytest.raises(UserError, match="unknown target"):
        Request.of("gemm", "sm_7")
    with pytest.raises(UserError, match="power of two|power of 2"):
        Request.of("gemm", "sm_90", num_warps=3)
    with pytest.raises(TypeError, match="unknown override"):
        Request.of("gemm", "sm_90").changed(warps=4)


def test_ref_rebuilds_the_same_request_in_another_process(tmp_path):
    request = Request.of("gemm", "gfx942", {"BLOCK_SIZE_K": 64}, shape={"M": 333})
    assert request.ref() == {"kernel": "gemm", "target": "gfx942", "meta": {"BLOCK_SIZE_K": 64},
                             "shape": {"M": 333}}
    assert Request.from_ref(request.ref()) == request
    # a kernel in the user's own file travels as path:name
    mine = tmp_path / "mine.py"
    mine.write_text((ROOT / "kernels" / "vector_add.py").read_text())
    theirs = Request.of(f"{mine}:vector_add", "sm_80")
    assert theirs.ref()["kernel"] == f"{mine}:vector_add"
    assert Request.from_ref(theirs.ref()).config == theirs.config


def test_cached_hash_answers_without_compiling(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    request = Request.of("vector_add", "sm_80", shape={"N": 777})
    assert request.cached_hash() is None
    assert not list(tmp_path.rglob("*.cubin")), "asking compiled nothing"
    compiled = request.compile()
    assert compiled.request is request and compiled.config is request.config
    assert request.cached_hash() == compiled.hash
    assert Request.of("vector_add", "sm_80", shape={"N": 777}).compile().cache_hit


def test_the_pipeline_is_assembled_in_one_place():
    """Only request.py resolves a config and compiles; commands and library functions hand over a Request."""
    sources = {p.relative_to(ROOT).as_posix(): p.read_text() for p in [ROOT / "cli.py", *(ROOT / "playground").rglob("*.py")]}
    steps = re.compile(r"\b(resolve_config|compiler\.build|compiler\.cached_hash|compile_kernel)\(")
    users = sorted(name for name, text in sources.items()
                   if name not in ("playground/artefact/compiler.py", "playground/core/config.py") and steps.search(text))
    assert users == ["playground/artefact/request.py"]
