"""The stage registry: every stage described once, and every consumer reads it from there."""
import pytest

from playground import compiler, disasm, lexers, registry, sourcemap, stages, targets
from playground.diff import NORMALISATION

pytestmark = pytest.mark.compile


def test_each_backend_lists_its_stages_in_pipeline_order():
    assert stages.for_backend("cuda") == ("source", "ttir", "ttgir", "llir", "ptx", "sass", "cubin")
    assert stages.for_backend("hip") == ("source", "ttir", "ttgir", "llir", "amdgcn", "hsaco")
    assert targets.resolve("sm_90").stages == stages.for_backend("cuda")


def test_every_text_stage_has_a_highlighter_and_a_diff_rule_and_binaries_have_neither():
    for name, s in stages.STAGES.items():
        assert (lexers.lexer_for(name) is None) == s.binary, name
        assert (name in NORMALISATION) == (not s.binary and s.language != "python"), name
    assert len({s.file for s in stages.STAGES.values()}) == len(stages.STAGES)


@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
def test_every_compiled_stage_is_produced_and_maps_to_python(target):
    spec = registry.load("vector_add")
    c = compiler.compile_kernel(spec, targets.resolve(target))
    file, first, last = sourcemap.kernel_lines(spec.kernel)
    for name in c.target.stages:
        text = c.stage(name)
        assert isinstance(text, bytes) == stages.is_binary(name) and text, name
        if stages.STAGES[name].language not in (None, "python"):
            mapped = disasm.sass_with_line_info(c) if name == "sass" else text    # SASS maps through its line table
            ptx = c.stage("ptx") if name == "sass" else None
            placed = [g for g in sourcemap.interleave(name, mapped, file, first, last, ptx)
                      if g.line is not None and g.stage_lines]
            assert placed, f"{name}: no line maps back to Python"
