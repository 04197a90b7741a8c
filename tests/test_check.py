"""The checker itself: tolerances, the comparison, guarded tensors, the interpreter worker, the CLI,
and proof that it rejects known-wrong kernels (tests/broken_kernels/) with a clear reason.
"""
import json
import re
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")   # all of this runs kernels (the compile-only CI venv has no torch)

from conftest import invoke

from playground.core import registry
from playground.errors import UserError
from playground.check import kernel as check
from playground.check import kernel_text as check_text
from playground.core import closeness, tolerances
from playground.core.tolerances import Tolerance
from playground.run import runner, worker

BROKEN = Path(__file__).parent / "broken_kernels"
ON_CPU = worker.mode() == worker.INTERPRETER
cpu_only = pytest.mark.skipif(not ON_CPU, reason="checks the interpreter's behaviour; this machine has a GPU")


# ---- tolerances ----------------------------------------------------------------------------------------------

def test_atol_scales_with_the_reduction_length():
    # gemm accumulates over K: fp16's 1e-5 per element, times K=81.
    assert tolerances.for_output("gemm", "fp16", 81) == Tolerance(atol=pytest.approx(8.1e-4), rtol=1e-3)
    assert tolerances.for_output("layernorm", "fp32", 1000) == Tolerance(atol=pytest.approx(1e-3), rtol=1e-5)
    assert tolerances.for_output("vector_add", "bf16") == Tolerance(atol=1e-4, rtol=1.6e-2)
    assert tolerances.for_output("vector_add", "i32", 10) == Tolerance(atol=0.0, rtol=0.0)


def test_overrides_are_few_and_do_not_scale():
    # softmax's outputs shrink like 1/N, so its atol must not grow with N; flash attention's error is
    # one rounding of the softmax weights. Adding an override should be a deliberate act.
    assert set(tolerances.OVERRIDES) == {"softmax", "flash_attention"}
    assert tolerances.for_output("softmax", "fp16", 4096).atol == 1e-5
    assert tolerances.for_output("flash_attention", "fp16", 64) == Tolerance(atol=1e-3, rtol=1e-3)
    assert tolerances.for_output("flash_attention", "bf16", 64) == Tolerance(atol=1.6e-2, rtol=1.6e-2)


# ---- the comparison ------------------------------------------------------------------------------------------

TOL = Tolerance(atol=1e-3, rtol=1e-2)


def _expected():
    return torch.arange(1, 21, dtype=torch.float64).reshape(4, 5) / 4


def test_identical_outputs_pass():
    e = _expected()
    r = closeness.compare("y", e.float(), e, "fp32", TOL)
    assert r.ok and r.mismatches == 0 and r.max_abs == 0 and r.worst == 0 and r.total == 20
    assert r.nan_got == r.inf_got == 0 and r.expected_max == 5.0 and not r.warnings


def test_one_wrong_element_is_found_and_located():
    e = _expected()
    g = e.clone()
    g[2, 3] += 0.5                      # e[2, 3] = 3.5: allowed 1e-3 + 1e-2 * 3.5 = 0.036
    g[1, 1] += 0.02                     # e[1, 1] = 1.75: allowed 0.0185, just under 0.02
    g[0, 0] += 0.003                    # e[0, 0] = 0.25: allowed 0.0035, so this one passes
    r = closeness.compare("y", g, e, "fp64", TOL)
    assert r.mismatches == 2 and not r.ok
    assert [(m.index, m.got, m.expected) for m in r.first] == [((1, 1), 1.77, 1.75), ((2, 3), 4.0, 3.5)]
    assert r.max_abs == pytest.approx(0.5) and r.max_rel == pytest.approx(0.5 / 3.5)
    assert r.worst == pytest.approx(0.5 / 0.036)
    assert r.problems == ["2 of 20 elements differ by more than atol + rtol*|expected| (atol=0.001, rtol=0.01)"]


def test_error_within_tolerance_passes():
    e = _expected()
    r = closeness.compare("y", e * (1 + 0.009), e, "fp64", TOL)
    assert r.ok and 0.8 < r.worst < 1


def test_nan_never_written_is_told_apart_from_nan_computed():
    e = _expected()
    g = e.clone()
    g[0, 0] = g[3, 4] = float("nan")
    unwritten = torch.zeros_like(g, dtype=torch.bool)
    unwritten[3, 4] = True
    r = closeness.compare("y", g, e, "fp64", TOL, unwritten)
    assert r.nan_got == 2 and r.mismatches == 2
    assert "1 element(s) never written (they still hold the NaN the output was filled with)" in r.problems
    assert "1 NaN computed where the reference has none" in r.problems


def test_inf_is_reported():
    e = _expected()
    g = e.clone()
    g[0, 1] = float("inf")
    r = closeness.compare("y", g, e, "fp64", TOL)
    assert r.inf_got == 1 and "1 Inf in the output where the reference has none" in r.problems


def test_zeros_never_pass_even_within_tolerance():
    # The reference is tiny, so every zero is within atol: only the all-zeros rule catches it.
    e = _expected() * 1e-5
    r = closeness.compare("y", torch.zeros(4, 5), e, "fp32", TOL)
    assert r.mismatches == 0
    assert r.problems == ["wrote only zeros; the reference's largest |value| is 5e-05"]
    assert any("within atol" in w and "writes zeros" in w for w in r.warnings)


def test_a_zero_reference_is_no_failure():
    r = closeness.compare("y", torch.zeros(3), torch.zeros(3, dtype=torch.float64), "fp16", TOL)
    assert r.ok and r.warnings == ["the reference's largest |value| (0) is within atol (0.001) of zero: this case "
                                   "cannot tell a correct kernel from one that writes zeros"]


# ---- guarded tensors -----------------------------------------------------------------------------------------

def test_layouts_transposed_and_padded():
    spec = registry.load("gemm")
    shape = {"M": 6, "N": 5, "K": 4}
    plain = runner.allocate(spec, shape, {}, "fp16", seed=3, device="cpu")
    laid = runner.allocate(spec, shape, {"transpose": "a", "pad": 3}, "fp16", seed=3, device="cpu")
    a, b, c = (laid[n].view for n in "abc")
    assert a.shape == (6, 4) and a.stride() == (1, 6 + 3)          # (K, M+pad) storage, seen transposed
    assert b.stride() == (5 + 3, 1) and c.stride() == (5 + 3, 1)   # rows of wider matrices
    assert torch.equal(a, plain["a"].view) and torch.equal(b, plain["b"].view)   # same values, any layout
    assert runner.unwritten(c, "fp16").all() and torch.isnan(c).all()


def test_stray_writes_are_reported():
    spec = registry.load("softmax")
    buffers = runner.allocate(spec, {"M": 3, "N": 4}, {"pad": 2}, "fp32", seed=0, device="cpu")
    y, x = buffers["y"], buffers["x"]
    n = y.covered.numel()
    y.storage[runner.GUARD + n + 4] = 1.0          # 5 past the end
    y.storage[runner.GUARD + 4] = 1.0              # row 0's padding: allocation is (3, 6)
    x.view[1, 1] = 0.0                             # an input changed
    problems = runner._stray_writes(y, True) + runner._stray_writes(x, False)
    assert problems == ["wrote 1 element(s) past the end of 'y', the farthest 5 past it",
                        "wrote 1 element(s) into the row padding of 'y'",
                        "changed 1 element(s) of its input 'x'"]


def test_inputs_are_seeded():
    spec = registry.load("vector_add")
    one = runner.allocate(spec, {"N": 50}, {}, "fp32", seed=1, device="cpu")["x"].view
    same = runner.allocate(spec, {"N": 50}, {}, "fp32", seed=1, device="cpu")["x"].view
    other = runner.allocate(spec, {"N": 50}, {}, "fp32", seed=2, device="cpu")["x"].view
    assert torch.equal(one, same) and not torch.equal(one, other)


# ---- known-wrong kernels -------------------------------------------------------------------------------------

def _broken(name):
    return registry.load(str(BROKEN / f"{name}.py"))


@pytest.mark.parametrize("name,reason", [
    ("off_by_one_mask", r"^wrote 1 element\(s\) past the end of 'out', the farthest 1 past it$"),
    ("missing_last_rows", r"^c: 680 element\(s\) never written"),       # rows 32..48 of 49, 40 columns
    ("wrong_accumulator", r"^c: \d+ of 1024 elements differ by more than atol"),
    ("writes_zeros", r"^c: wrote only zeros; the reference's largest \|value\| is"),
])
def test_check_rejects_known_wrong_kernels(name, reason):
    spec = _broken(name)
    result = check.check_case(spec, spec.cases[0], spec.dtype)
    assert result.status == "fail", result.summary()
    assert any(re.search(reason, r) for r in result.reasons()), result.reasons()


def test_fp16_accumulation_fails_by_both_tests():
    # Not a borderline catch: a K=2048 fp16 accumulator is more than 10x PyTorch's own error (check/margin.py),
    # and off on dozens of elements by more than 10x the table's width, the widest by far more.
    spec = _broken("wrong_accumulator")
    result = check.check_case(spec, spec.cases[0], "fp16")
    out = result.outputs[0]
    assert result.status == "fail" and out.margin["multiple"] > 10
    assert out.mismatches > 50 and out.worst > 3 and out.atol == 10 * tolerances.TABLE["fp16"].atol


def test_a_crash_points_at_the_kernel_line():
    spec = _broken("crashes")
    line = next(i for i, text in enumerate((BROKEN / "crashes.py").read_text().splitlines(), 1) if "# BUG" in text)
    result = check.check_case(spec, spec.cases[0], "fp32")
    assert result.status == "error" and not result.ok
    assert result.problems == [f"tests/broken_kernels/crashes.py:{line}: ValueError: Cannot make_shape_compatible: "
                               f"incompatible dimensions at index 0: 64 and 128"]
    assert "Traceback" in result.traceback


# ---- where kernels run ---------------------------------------------------------------------------------------

@cpu_only
def test_interpreter_mode_is_reported_and_kernels_stay_compilable_here():
    result = check.check_case(registry.load("vector_add"), {"N": 100}, "fp32")
    assert result.status == "pass" and result.mode == "interpreter (CPU)"
    # This process imported triton normally: its kernels are still JIT functions, ready to compile.
    assert type(registry.load("vector_add").kernel).__name__ == "JITFunction" or worker.interpreting_here()


@cpu_only
@pytest.mark.skipif(worker.interpreting_here(), reason="would crash this very process")
def test_a_dying_worker_is_reported_and_replaced():
    with pytest.raises(worker.WorkerDied, match=r"died \(signal SIGSEGV\): the kernel likely read or wrote memory"):
        import ctypes
        worker.call(ctypes.string_at, worker.INTERPRETER, ptr=0)
    assert check.check_case(registry.load("vector_add"), {"N": 10}, "fp32").status == "pass"


@cpu_only
def test_a_bf16_bug_the_interpreter_used_to_skip_is_caught():
    """A probability tile cast to a hard-coded fp16: right for fp16 inputs; under bf16 its dot mixes
    fp16 with bf16, which Triton refuses. bf16 cases used to be skipped, so no check ever saw it."""
    spec = registry.load(str(Path(__file__).parent / "planted" / "attention_fp16_probabilities.py"))
    assert check.check_case(spec, {"N": 48, "D": 16}, "fp16").status == "pass"
    result = check.check_case(spec, {"N": 48, "D": 16}, "bf16")
    assert result.status == "error" and "Both operands must be same dtype. Got fp16 and bf16" in result.problems[0]


def test_bad_shapes_are_user_errors():
    with pytest.raises(UserError, match="^shape Q: softmax has dimensions M, N"):
        check.check_case(registry.load("softmax"), {"Q": 3}, "fp32")
    with pytest.raises(UserError, match="^dtype fp64: vector_add supports fp32, fp16, bf16"):
        check.check_case(registry.load("vector_add"), {"N": 3}, "fp64")


# ---- the CLI -------------------------------------------------------------------------------------------------



def test_check_help():
    r = invoke("check", "--help")
    assert r.exit_code == 0
    assert "playground check softmax --shape M=1823,N=781 --dtype fp16" in r.output and "--interpreter" in r.output


@cpu_only
def test_check_passes_and_says_where_it_ran():
    r = invoke("check", "vector_add", "--quick", "--dtype", "fp16")
    assert r.exit_code == 0, r.output
    # 3 quick cases, 4 more input classes and 1 layout (an offset) on the probe case, 3 sampled configs
    assert "on interpreter (CPU), seed 0" in r.output and "11 passed" in r.output and "N=1041" in r.output
    assert "sanitizers: memcheck, racecheck and initcheck watched every run" in r.output
    assert re.search(r"time: randn [\d.]+ s, large [\d.]+ s, negative", r.output)
    assert re.search(r"time went to: (starting the worker [\d.]+ s; )?launches [\d.]+ s \(memcheck [\d.]+ s, "
                     r"racecheck [\d.]+ s, initcheck [\d.]+ s of it\), the rest of the runs \(reference, "
                     r"comparison\) [\d.]+ s; [\d.]+ s wall", r.output), r.output


def test_the_report_says_what_each_sanitizer_cost():
    report = check.run_check([registry.load("vector_add")], shape={"N": 300}, dtype="fp32")
    (result,) = [r for r in report.results if r.variant == "randn"]
    assert set(result.guards) == {"memcheck", "racecheck", "initcheck"} and result.guards["memcheck"] > 0
    assert sum(result.guards.values()) < result.seconds <= result.wall
    as_dict = report.as_dict()
    assert set(as_dict["seconds_by_guard"]) == {"memcheck", "racecheck", "initcheck"}
    assert set(as_dict["seconds_by_part"]) == {"start", "launches", "other"} and as_dict["workers"] == 1
    assert as_dict["wall"] >= as_dict["seconds_by_part"]["launches"]
    unwatched = check.run_check([registry.load("vector_add")], shape={"N": 300}, dtype="fp32", kinds=())
    assert unwatched.results[0].guards == {} and unwatched.seconds_by_guard() == dict.fromkeys(result.guards, 0.0)


def test_several_workers_answer_in_the_plans_order(monkeypatch):
    """Two workers take the largest cases first; the report keeps the plan's order, and says how many ran."""
    spec = registry.load("vector_add")
    alone = check.run_check([spec], quick=True, dtype="fp32", kinds=("values",))
    monkeypatch.setenv("PLAYGROUND_CHECK_JOBS", "2")
    seen = []
    side_by_side = check.run_check([spec], quick=True, dtype="fp32", kinds=("values",),
                                   progress=lambda done, total, _: seen.append((done, total)))
    assert side_by_side.workers == 2 and alone.workers == 1
    assert [r.label for r in side_by_side.results] == [r.label for r in alone.results]
    assert [r.status for r in side_by_side.results] == [r.status for r in alone.results] and side_by_side.ok
    assert seen == [(i, len(alone.results)) for i in range(1, len(alone.results) + 1)]


def test_the_large_cases_take_the_largest_tiles_and_the_small_ones_everything_else():
    """The decisions of variants.py's docstring: input classes and layouts on the small cases, at every dtype;
    every config there, and on a larger case the QUICK_CONFIGS configs with the largest tiles."""
    from playground.check import variants
    from playground.run.cases import case_elements, split_case
    spec = registry.load(str(Path(__file__).parent / "data" / "welford_layernorm.py"))
    big, small = {"M": 300, "N": 781}, {"M": 48, "N": 200}
    assert case_elements(spec, big) > check.SMALL_CASE_ELEMENTS >= case_elements(spec, small)
    runs = variants.extra(spec, small, ["fp32", "fp16"], {"values", "layouts", "configs"}, False, False, 0,
                          [big, small], [small])
    assert [(case, dtype) for case, dtype, v in runs if v.name == "large"] == [(small, "fp32"), (small, "fp16")]
    assert all(split_case(case)[0] == small for case, _, v in runs if v.kind == "layouts")

    def blocks(where):
        return [v.config["BLOCK_SIZE"] for case, _, v in runs if v.kind == "configs" and case == where]
    assert blocks(big) == [256, 512, 1024] and blocks(small) == [64, 128, 256, 512, 1024]


@cpu_only
def test_a_config_differing_in_launch_options_alone_is_its_runs_result_in_the_interpreter():
    """layernorm's autotune space is num_warps 1..16 over the heuristic's BLOCK_SIZE: interpreted, each is the plain
    run (the interpreter drops num_warps), so none runs again, and the report says whose result each is."""
    report = check.run_check([registry.load("layernorm")], shape={"M": 8, "N": 100}, dtype="fp32", kinds=("configs",))
    plain, *configs = report.results
    assert plain.variant == "randn" and not plain.same_as and len(configs) == 5
    assert all(r.same_as == plain.label and r.wall == 0 and r.status == plain.status == "pass" for r in configs)
    assert [r.config.split(",")[0] for r in configs] == [f"num_warps={w}" for w in (1, 2, 4, 8, 16)]
    assert "5 config run(s) differ from another run of their case in num_warps or num_stages alone" in \
        "\n".join(check_text.lines(report))


def test_check_one_shape():
    r = invoke("check", "softmax", "--shape", "M=40,N=781", "--dtype", "fp16", "--plain")
    assert r.exit_code == 0, r.output
    assert re.search(r"M=40, N=781 .* fp16 .* 0/31240 .* PASS", r.output) and "1 passed" in r.output


def test_check_a_users_file(tmp_path):
    mine = tmp_path / "my_kernels.py"
    mine.write_text((BROKEN / "off_by_one_mask.py").read_text()
                    .replace("offsets <= n_elements", "offsets < n_elements").replace('"off_by_one_mask"', '"my_add"'))
    r = invoke("check", f"{mine}:my_add", "--plain")
    assert r.exit_code == 0, r.output
    assert "1 passed" in r.output


def test_check_failure_exits_1_with_the_reason():
    r = invoke("check", str(BROKEN / "writes_zeros.py"), "--plain")
    assert r.exit_code == 1
    assert "FAIL writes_zeros [M=40, N=24, K=48] fp16" in r.output and "c: wrote only zeros" in r.output
    assert re.search(r"c\[0, 1\]: got 0, expected 5\.70\d+", r.output) and "1 failed" in r.output


def test_check_crash_exits_1_with_file_line_and_no_traceback():
    r = invoke("check", str(BROKEN / "crashes.py"))
    assert r.exit_code == 1
    assert "tests/broken_kernels/crashes.py:16: ValueError" in r.output and "Traceback" not in r.output
    assert "Traceback" in invoke("--debug", "check", str(BROKEN / "crashes.py")).output


def test_check_json():
    r = invoke("check", str(BROKEN / "off_by_one_mask.py"), "--json", "--plain")
    assert r.exit_code == 1
    report = json.loads(r.output)
    assert report["ok"] is False and report["counts"] == {"fail": 1}
    (case,) = report["results"]
    assert case["status"] == "fail" and case["outputs"][0]["mismatches"] == 0
    assert case["problems"] == ["wrote 1 element(s) past the end of 'out', the farthest 1 past it"]


@pytest.mark.parametrize("args,message", [
    ((), "error: name one kernel (see `playground list`) or pass --all\n"),
    (("gemm", "--all"), "error: name one kernel (see `playground list`) or pass --all, not both\n"),
    (("flash_attention", "--shape", "D=48"), "error: flash_attention: head dimension D=48 is not supported: "
                                             "D must be one of 16, 32, 64, 128 (tl.arange needs a power of two, "
                                             "tl.dot at least 16)\n"),
    (("softmax", "--dtype", "fp64"), "error: --dtype fp64: softmax supports fp32, fp16, bf16\n"),
    (("nosuch",), "error: unknown kernel 'nosuch'"),
])
def test_check_bad_input_exits_2_with_one_line(args, message):
    r = invoke("check", *args)
    assert r.exit_code == 2
    assert r.output.startswith(message) and r.output.count("\n") == 1


@cpu_only
def test_check_bf16_runs_on_the_interpreter():
    r = invoke("check", "vector_add", "--dtype", "bf16", "--quick", "--plain")
    assert r.exit_code == 0 and "3 passed" in r.output and "bf16" in r.output, r.output


@cpu_only
def test_an_error_in_the_worker_carries_its_traceback():
    from playground.errors import KernelFailure
    with pytest.raises(KernelFailure, match=r"^JSONDecodeError: ") as info:
        import json
        worker.call(json.loads, worker.INTERPRETER, s="{")
    assert "json/decoder.py" in str(info.value.__cause__)


def test_progress_is_reported_per_case():
    seen = []
    report = check.run_check([registry.load("vector_add")], shape={"N": 8}, dtype="fp32", kinds=(),
                             progress=lambda *a: seen.append(a[:2]))
    assert report.ok and seen == [(1, 1)]


def test_check_without_torch_says_how_to_install_it(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    result = invoke("check", "vector_add", "--quick")
    assert result.exit_code == 2
    assert "torch is not installed: pip install -e '.[torch]'" in result.output
    assert "Traceback" not in result.output



def test_a_long_reduction_keeps_to_the_kernels_constraints():
    """gemm_tma's descriptors need 16-byte rows: its long reduction is the first length past 4113 that is a
    multiple of 8 (not a power of two); a kernel with no constraint keeps 4113."""
    from playground.check import variants
    tma = registry.load("gemm_tma")
    long = variants.long_reduction(tma, tma.quick_cases[0])
    assert long["K"] == 4120 and all(tma.constraints({**tma.default_shape, **long}, d, tma.meta) is None
                                     for d in tma.dtypes)
    assert tma.constraints({"M": 16, "N": 16, "K": 4113}, "fp16", tma.meta).startswith("K=4113: a tensor descriptor")
    gemm = registry.load("gemm")
    assert variants.long_reduction(gemm, gemm.quick_cases[0])["K"] == variants.LONG_REDUCTION == 4113


def test_check_all_quick_passes_on_every_shipped_kernel():
    """The whole command, as a user runs it: every shipped kernel's cases and variants pass."""
    r = invoke("check", "--all", "--quick", "--json")
    assert r.exit_code == 0, r.stderr[-2000:]
    report = json.loads(r.stdout)
    assert report["ok"] and set(report["counts"]) == {"pass"} and report["counts"]["pass"] >= 200
    assert {row["kernel"] for row in report["results"]} == set(registry.kernel_names())
    assert any(row["case"].get("K") == 4120 and row["kernel"] == "gemm_tma" for row in report["results"])


WELFORD = Path(__file__).parent / "data" / "welford_layernorm.py"


@pytest.mark.parametrize("quick", [True, pytest.param(False, marks=pytest.mark.slow)])
def test_a_welford_layernorm_written_elsewhere_passes_every_class_layout_and_config(quick):
    """The kernel benchmarks/check_cost.py times (5 configs, 3 dtypes, 6 cases): correct, so nothing fires.
    The full check is the slow form (a minute or two on 2 cores)."""
    report = check.run_check([registry.load(str(WELFORD))], quick=quick)
    assert report.ok, "\n".join(r.summary() for r in report.results if not r.ok)
    assert not any(r.findings for r in report.results)
    assert {r.kind for r in report.results} == {"values", "layouts", "configs"}


def test_a_second_worker_starts_only_for_work_that_pays_for_its_start(monkeypatch):
    """A worker's start costs more than a quick check's small runs (on 2 cores a second worker made
    `check softmax --quick` slower): the runs' elements decide beside their count."""
    monkeypatch.delenv("PLAYGROUND_CHECK_JOBS", raising=False)
    monkeypatch.setattr(worker.os, "sched_getaffinity", lambda _: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(worker, "interpreting_here", lambda: False)
    assert worker.parallel_slots(worker.INTERPRETER, 29, elements=1_557_176) == 1          # softmax --quick
    assert worker.parallel_slots(worker.INTERPRETER, 112, elements=6_896_274) == 3         # layernorm, full
    assert worker.parallel_slots(worker.INTERPRETER, 30, elements=40_000_000) == 2         # runs // 12
    assert worker.parallel_slots(worker.INTERPRETER, 200, elements=40_000_000) == 4
    assert worker.parallel_slots(worker.INTERPRETER, 30) == 2                              # count alone, as before
