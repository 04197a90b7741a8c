"""`compile --expect`: expectations about the binary decide the exit code, as exercises need."""
import json

import pytest
from conftest import outcome

from playground.core import targets
from playground.errors import UserError
from playground.figures import expectations, occupancy
from playground.units import pct

pytestmark = pytest.mark.compile

STAGES = targets.resolve("sm_90").stages




def test_parse():
    e = expectations.parse("occupancy >= 50%", STAGES)
    assert (e.figure, e.op, e.value) == ("occupancy", ">=", 0.5)
    e = expectations.parse(r"sass:HGMMA\.64x128 == 4", STAGES)
    assert (e.figure, e.op, e.value) == (r"sass:HGMMA\.64x128", "==", 4.0)


@pytest.mark.parametrize("text,message", [
    ("registers", "expected FIGURE OP NUMBER"),
    ("registers <= many", "expected FIGURE OP NUMBER"),
    ("regs <= 128", "unknown figure 'regs'"),
    ("amdgcn:v_mfma >= 1", "no stage 'amdgcn'"),
    ("sass:( >= 1", "not a regular expression"),
    ("occupancy >= 25", "occupancy is a fraction; write 25% or 0.25"),
    ("last_wave < 50", "write 50% or 0.5"),
])
def test_parse_errors(text, message):
    with pytest.raises(UserError, match=message):
        expectations.parse(text, STAGES)


def test_figures_are_the_headers_own(gemm_sm90):
    c, r, occ = gemm_sm90, gemm_sm90.resources, occupancy.of(gemm_sm90)
    outcomes = expectations.check(c, ["registers <= 255", "spills == 0", f"shared == {r.shared_total}",
                                      "occupancy > 90%", "blocks_per_sm >= 1", "sass:HGMMA >= 1",
                                      r"ptx:mma\.sync == 0"])
    assert [o.got for o in outcomes] == [r.registers, 0, r.shared_total, occ.occupancy, occ.active_blocks_per_sm,
                                         sum("HGMMA" in line for line in c.stage("sass").splitlines()), 0]
    assert [o.holds for o in outcomes] == [True, True, True, False, True, True, True]
    assert expectations.failure_line(outcomes) == \
        f"1 of 7 expectations do not hold: occupancy > 90% (got {pct(occ.occupancy)})"


def test_compile_exits_1_when_an_expectation_fails_and_0_when_all_hold():
    code, out, err = outcome("compile", "gemm", "--target", "sm_90", "--expect", "sass:HGMMA >= 1")
    assert code == 0 and "// expect      sass:HGMMA >= 1: " in out and ", holds" in out
    assert "// ===== " not in out and ".version" not in out     # --expect alone: the header only
    code, out, err = outcome("compile", "gemm", "--target", "sm_80", "--expect", "sass:HGMMA >= 1")
    assert code == 1 and err.strip() == "error: 1 of 1 expectations do not hold: sass:HGMMA >= 1 (got 0)"
    code, out, err = outcome("compile", "gemm", "--target", "sm_80", "--expect", "sass:HMMA >= 1", "--json")
    data = json.loads(out)
    assert code == 0 and data["expectations"][0]["holds"] is True and data["expectations"][0]["got"] > 0


def test_a_malformed_expectation_is_bad_input_before_compiling():
    code, out, err = outcome("compile", "gemm", "--target", "gfx942", "--expect", "ptx:wgmma >= 1")
    assert code == 2 and err.startswith("error: --expect 'ptx:wgmma >= 1': no stage 'ptx'")


def test_diff_exit_code_says_whether_two_variants_share_a_binary():
    # 4096 and 98432 are both divisible by 16: one specialisation, one binary. 98433 is not.
    code, out, err = outcome("diff", "vector_add", "--target", "sm_90", "--a", "N=4096", "--b", "N=98432", "--exit-code")
    assert code == 0 and err == ""
    code, out, err = outcome("diff", "vector_add", "--target", "sm_90", "--a", "N=4096", "--b", "N=98433", "--exit-code")
    assert code == 1 and err.startswith("error: the variants compile to different binaries (N=4096: ")
    assert len(err.strip().splitlines()) == 1
    code, _, _ = outcome("diff", "vector_add", "--target", "sm_90", "--a", "N=4096", "--b", "N=98433")
    assert code == 0      # without --exit-code a difference is an answer, not a failure


def test_waves_and_the_last_wave_are_the_headers(gemm_sm90):
    occ = occupancy.of(gemm_sm90)
    waves, last = expectations.check(gemm_sm90, ["waves == 4", "last_wave < 50%"])
    # 1024 CTAs, 264 per wave: 4 waves, the last 232 of 264 (87.9%).
    assert (waves.got, waves.holds) == (occ.waves, True) == (4, True)
    assert (last.got, last.holds, last.shown) == (occ.last_wave_fill, False, "87.9%")
