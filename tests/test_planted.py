"""The checker against planted bugs: one kernel per class of bug that plain N(0, 1) runs miss, each
caught by the class meant for it, and correct kernels written differently that raise no alarm.

tests/planted/ holds them; each planted file marks its bug's line with `# BUG`.
"""
from pathlib import Path

import pytest

from playground.core import registry
from playground.check import kernel as check
from playground.check.variants import KINDS

PLANTED = Path(__file__).parent / "planted"
NO_SANITIZERS = tuple(k for k in KINDS if k != "sanitizers")


def bug_line(name: str) -> str:
    """'name.py:N', N the line marked # BUG."""
    lines = (PLANTED / f"{name}.py").read_text().splitlines()
    return f"{name}.py:{next(i for i, line in enumerate(lines, 1) if '# BUG' in line)}"


def run(name: str, kinds=KINDS) -> check.Report:
    return check.run_check([registry.load(str(PLANTED / f"{name}.py"))], quick=True, kinds=kinds)


def failing(report: check.Report) -> set:
    return {(r.kind, r.variant) for r in report.results if r.status == "fail"}


@pytest.mark.parametrize("name, caught_by", [
    ("softmax_no_max", {("values", "large")}),
    ("masked_max_other_zero", {("values", "negative"), ("values", "equal")}),
    ("ignores_stride", {("layouts", "transposed x,y,out")}),
    ("block_m_for_n", {("configs", "--config 1 (of 3)"), ("configs", "--config 2 (of 3)")}),
])
def test_a_value_layout_or_config_bug_is_caught_by_its_class_only(name, caught_by):
    report = run(name)
    assert not report.ok and report.exit_code == 1
    assert failing(report) == caught_by
    plain = [r for r in report.results if r.variant == "randn"]
    assert plain and all(r.status == "pass" for r in plain)          # what `check` alone never saw
    assert run(name, kinds=()).ok


def test_a_config_bug_names_its_config():
    report = run("block_m_for_n", kinds=("configs",))
    bad = next(r for r in report.results if r.variant == "--config 2 (of 3)")
    assert "BLOCK_SIZE_M=64, BLOCK_SIZE_N=32" in bad.config and "c: 3200 element(s) never written" in bad.summary()


@pytest.mark.parametrize("name, sanitizer, words", [
    ("uninitialised_sum", "initcheck", "masked-out lanes loaded with no `other=` (896 over all programs) reach 'out': "
                                       "16 element(s) change"),
    ("uninitialised_max", "initcheck", "masked-out lanes loaded with no `other=` (896 over all programs) reach 'out': "
                                       "16 element(s) change when they hold NaN or +-the largest value"),
    ("split_k_race", "racecheck", "programs (0, 0, 0) and (0, 0, 1) both store c[0, 0] with tl.store "
                                  "(1600 element(s) stored by more than one program"),
    ("reads_one_past", "memcheck", "load of 1 lane(s) outside every tensor, the first lane [44] of program (2, 0, 0): "
                                   "1 element(s) past the end of 'x'"),
])
def test_undefined_behaviour_is_reported_with_the_kernel_line(name, sanitizer, words):
    report = run(name, kinds=("sanitizers",))
    plain = report.results[0]
    assert plain.status == "fail" and all(o.ok for o in plain.outputs)     # every value right: only the sanitizer sees it
    finding = next(f for f in plain.findings if f.startswith(sanitizer))
    where = finding.split(": ")[1]
    assert where.endswith(bug_line(name)) and words in finding, finding
    assert run(name, kinds=()).ok                                          # and without it, nothing


def test_racecheck_also_names_the_load_another_program_stores_over():
    findings = run("split_k_race", kinds=("sanitizers",)).results[0].findings
    load = next(f for f in findings if "loads" in f)
    assert f"split_k_race.py:{int(bug_line('split_k_race').split(':')[1]) - 1}: program (0, 0, 0) loads c[0, 0]" in load


# the two reductions take 20-30 s each in the interpreter: the slow form; the GEMMs are the quick one
@pytest.mark.parametrize("name", [pytest.param("correct_two_pass_softmax", marks=pytest.mark.slow),
                                  pytest.param("correct_welford_layernorm", marks=pytest.mark.slow),
                                  "correct_column_major_gemm", "correct_atomic_split_k"])
def test_correct_kernels_written_differently_raise_no_alarm(name):
    report = run(name)
    assert report.ok, "\n".join(r.summary() for r in report.results if not r.ok)
    assert not any(r.findings for r in report.results)
    kinds = {r.kind for r in report.results}
    assert kinds == {"values", "layouts", "configs"}


def test_the_sanitizers_leave_a_correct_kernels_numbers_alone():
    """Watching a run changes nothing it computes: the same outputs bit for bit, with and without."""
    spec = registry.load("softmax")
    watched = check.check_case(spec, {"M": 17, "N": 145}, "fp32", sanitize=True)
    plain = check.check_case(spec, {"M": 17, "N": 145}, "fp32", sanitize=False)
    assert watched.status == plain.status == "pass"
    assert watched.outputs[0].max_abs == plain.outputs[0].max_abs and watched.outputs[0].max_abs > 0


def test_a_long_reduction_catches_a_narrow_accumulator_that_a_correct_kernel_survives():
    wrong = check.run_check([registry.load(str(Path(__file__).parent / "broken_kernels" / "wrong_accumulator.py"))],
                            quick=True, kinds=("values",))
    long = next(r for r in wrong.results if r.variant == "long reduction")
    assert long.status == "fail" and long.case == {"M": 16, "N": 16, "K": 4113} and long.outputs[0].worst > 2
    right = check.check_case(registry.load("gemm"), {"M": 16, "N": 16, "K": 4113}, "fp16")
    assert right.status == "pass" and 0.005 < right.outputs[0].worst < 0.5     # of the table at 10x its width
    assert right.outputs[0].margin["multiple"] < 2


def test_a_kernel_rounding_as_eager_pytorch_does_passes_and_its_margin_says_why():
    """fp16 intermediates, each step rounded, as eager PyTorch in fp16 rounds them: its error is PyTorch's own, so
    the rule (check/margin.py) passes it, and the report's margin says it is 1x PyTorch's error."""
    report = run("fp16_intermediates", kinds=())
    (result,) = report.results
    out = result.outputs[0]
    assert result.status == "pass" and out.margin["multiple"] <= 1.0 and out.mismatches == 0


def test_scaled_inputs_scale_atol_with_the_outputs():
    """x100 inputs make a GEMM's outputs 10^4 larger, and a correct kernel's rounding with them."""
    from playground.check.variants import Variant
    spec = registry.load("gemm")
    plain = check.check_case(spec, {"M": 70, "N": 90, "K": 48}, "fp16")
    large = check.check_case(spec, {"M": 70, "N": 90, "K": 48}, "fp16", variant=Variant("values", "large", "large"))
    assert plain.status == large.status == "pass", large.summary()
    assert 5e3 < large.outputs[0].atol / plain.outputs[0].atol < 2e4


def test_quick_picks_one_config_per_pattern_of_equal_and_unequal_tiles():
    """Six configs, one non-square: --quick must run it whatever the seed."""
    import copy

    from playground.check import variants
    spec = copy.copy(registry.load(str(PLANTED / "block_m_for_n.py")))     # the registry's own stays as it is
    spec.configs = [{"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": 32, "num_warps": w}
                    for m, n, w in ((32, 32, 4), (64, 64, 4), (16, 16, 2), (32, 32, 8), (64, 64, 8), (32, 64, 4))]
    for seed in range(5):
        names = [v.name for v in variants.configs(spec, quick=True, seed=seed)]
        assert "--config 5 (of 6)" in names and len(names) == 4


def test_a_kernel_checks_failing_runs_name_their_guards_from_the_registry():
    """`check KERNEL` names the guards a failing run fires, as `check --ref` does: the class it stands for first."""
    report = run("softmax_no_max", kinds=("values",))
    large = next(r for r in report.results if r.variant == "large")
    assert large.guards_fired[0] == "values" and "nonfinite" in large.guards_fired
    assert all(r.guards_fired == [] for r in report.results if r.status == "pass")
    assert report.as_dict()["results"][0]["guards_fired"] == []
