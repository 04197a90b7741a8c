"""Highlighting: every stage lexes without error tokens, and colour appears only when asked for."""
import pytest
from pygments.token import Error

from playground.core import registry
from playground.artefact.request import Request
from playground.report import render
from playground.report.lexers import lexer_for

pytestmark = pytest.mark.compile


@pytest.mark.parametrize("target,stage", [
    ("sm_90", "ttir"), ("sm_90", "ttgir"), ("sm_90", "llir"), ("sm_90", "ptx"), ("sm_90", "sass"),
    ("sm_80", "sass"), ("gfx942", "ttgir"), ("gfx942", "amdgcn"), ("sm_90", "source"),
])
def test_stage_lexes_cleanly(target, stage):
    text = Request.of(registry.load("gemm"), target).compile().stage(stage)
    errors = [value for token, value in lexer_for(stage).get_tokens(text) if token in Error]
    assert errors == []


def test_sass_opcodes_and_registers_are_told_apart():
    tokens = list(lexer_for("sass").get_tokens("        /*0040*/  @P0 LDG.E.128 R4, desc[UR4][R2.64] ;\n"))
    kinds = {value: str(token) for token, value in tokens}
    assert kinds["LDG"] == "Token.Keyword" and kinds["R4"] == "Token.Name.Variable"
    assert kinds["@P0"] == "Token.Keyword.Pseudo"


def test_colour_only_when_asked():
    assert "\x1b[" in render.highlight("tt.load %x loc(#loc1)\n", "ttir", True)
    assert render.highlight("tt.load %x\n", "ttir", False) == "tt.load %x\n"


def test_no_color_env(monkeypatch):
    class Tty:
        def isatty(self):
            return True
    assert render.use_color(stream=Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not render.use_color(stream=Tty())
    monkeypatch.delenv("NO_COLOR")
    assert not render.use_color(no_color=True, stream=Tty())
